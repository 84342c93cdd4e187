"""The FastAPI application of ``gpuplan serve``: the API under ``/api/v1``, the dashboard under ``/``,
the OpenAPI document at ``/api/openapi.json``.

Every refusal is an :class:`~gpuplan.documents.serve.ErrorDocument` — one line in the request's
language — with the status that says whose fault it is and its ``kind``
(:data:`~gpuplan.documents.serve.ErrorKind`, one status each, never an exception's class name): 400
``invalid_request``, whoever refused it (the request's schema, the workload's, or the library's
check of a value: ``currency: "EUR"`` and ``deadline: "6 hours"`` alike), with ``field`` naming
the value where one is at fault; 401 ``unauthorized`` and 403 ``forbidden`` the token (or another
team's record), 404 ``not_found`` nothing there, 413 ``too_large``, 422 a valid request with no
answer (``infeasible``: nothing fits, no offer meets the constraints; ``cannot_estimate``), 429
``rate_limited``, 503 ``unavailable`` the database, 500 ``internal_error``. A request body larger
than ``max_body_bytes`` is refused before it is read whole. CORS is off unless origins are configured.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from gpuplan.errors import (
    AbsentError,
    EstimateError,
    ForbiddenError,
    GpuplanError,
    InfeasibleError,
    StoreError,
)
from gpuplan.i18n import N_

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send

    from gpuplan.documents.serve import ErrorKind
    from gpuplan.web.config import ServeConfig

__all__ = ["create_app", "error_response", "shared_sqlite"]


def error_response(
    status: int,
    message: str,
    kind: ErrorKind,
    headers: dict[str, str] | None = None,
    *,
    field: str | None = None,
    problem: str | None = None,
) -> JSONResponse:
    """The refusal's document: ``message`` its one line; for a value refused, ``field`` and the
    ``problem`` alone (the document's ``message``). A request refused with no value named (a body
    that is not JSON, a check of the whole request) has its one line as ``message`` too: every
    ``invalid_request`` has one, so a client that reads ``message`` is never left with null."""
    from gpuplan.documents.serve import ErrorDocument

    if kind == "invalid_request" and problem is None:
        problem = message
    body = ErrorDocument(error=message, kind=kind, field=field, message=problem).model_dump(mode="json")
    return JSONResponse(body, status_code=status, headers=headers)


def _status_kind(e: GpuplanError) -> tuple[int, ErrorKind]:
    """The library's error as the service answers it: its status and kind (any other error of the
    library is a value of the request refused: 400)."""
    if isinstance(e, AbsentError):
        return 404, "not_found"
    if isinstance(e, ForbiddenError):
        return 403, "forbidden"
    if isinstance(e, StoreError):
        return 503, "unavailable"
    if isinstance(e, InfeasibleError):
        return 422, "infeasible"
    if isinstance(e, EstimateError):
        return 422, "cannot_estimate"
    return 400, "invalid_request"


#: The kind of a status the framework or a route raises itself (an unknown address, a method the
#: route does not take, the token's checks, a job not there).
_KIND_OF_STATUS: dict[int, ErrorKind] = {
    400: "invalid_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "too_large",
    429: "rate_limited",
    503: "unavailable",
}


def _kind_of_status(status: int) -> ErrorKind:
    """A status's kind; one not listed is the request's fault (4xx) or the service's (5xx)."""
    return _KIND_OF_STATUS.get(status, "invalid_request" if status < 500 else "internal_error")


class BodyLimit:
    """Refuse a request body over ``limit`` bytes with 413: by its Content-Length at once, and by
    counting as it streams in (a chunked body states no length)."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length")
        too_big = error_response(413, _too_big_line(scope, self.limit), "too_large")
        if length is not None and (not length.isdigit() or int(length) > self.limit):
            await too_big(scope, receive, send)
            return
        seen = 0

        async def counted() -> Any:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise _TooBig
            return message

        try:
            await self.app(scope, counted, send)
        except _TooBig:
            await too_big(scope, receive, send)


class _TooBig(Exception):
    pass


def _too_big_line(scope: Scope, limit: int) -> str:
    """The 413's line in the request's language."""
    from gpuplan.i18n import _, use_language
    from gpuplan.web.auth import request_language

    with use_language(request_language(Request(scope))):
        return _("request body over {limit} bytes").format(limit=limit)


#: Starlette's own details for the statuses it raises itself (an unknown address, a method the
#: route does not take), in the catalog so that the error line reads in the request's language.
_STARLETTE_DETAILS = {
    "Not Found": N_("Not Found"),
    "Method Not Allowed": N_("Method Not Allowed"),
}


#: Where a refused value was (pydantic's first ``loc``): not part of the field's name.
_LOCI = frozenset({"body", "query", "path", "header", "cookie"})


def _path(loc: Iterable[object]) -> str:
    """A pydantic location as the API names a field: a list's item by its index in brackets
    (``gpus[0]``, ``usage.demands[0].gpu``), as the service's own checks name it."""
    path = ""
    for x in loc:
        path += f"[{x}]" if isinstance(x, int) else f".{x}" if path else str(x)
    return path


def _refused(e: RequestValidationError, lang: str) -> tuple[str, str | None, str]:
    """The first problem as ``field.path: reason`` in ``lang`` (the document's ``error``), the
    field as the request names it (``None`` for the whole body), and the reason alone."""
    from gpuplan.deploy.reasons import reason
    from gpuplan.errors import Phrase
    from gpuplan.i18n import N_, use_language
    from gpuplan.i18n.error_text import phrase_text
    from gpuplan.i18n.phrases import either
    from gpuplan.web.requests import PATTERN_WORDS
    from gpuplan.workload._validation import UnknownKey

    first = e.errors()[0] if e.errors() else {"msg": "invalid"}
    loc = list(first.get("loc", ()))
    ctx = first.get("ctx")
    raised = ctx.get("error") if isinstance(ctx, dict) else None
    if isinstance(raised, UnknownKey):
        loc.append(raised.key)  # the misspelt key is the field refused, not the body that holds it
    where = _path(x for x in loc if x != "body")
    field = _path(loc[1 if loc and loc[0] in _LOCI else 0 :]) or None
    said: str | Phrase | GpuplanError = reason(first)
    if first.get("type") == "string_pattern_mismatch":
        # what the value should look like in words: a regular expression means nothing to a reader
        pattern = str(ctx.get("pattern", "")) if isinstance(ctx, dict) else ""
        said = Phrase(PATTERN_WORDS.get(pattern, N_("this value is not in the form asked for")))
    elif first.get("type") in ("wrong_currency", "amount_parsing") and isinstance(ctx, dict):
        # gpuplan.units.read_amount's words (a budget in the other currency: "give it with
        # budget_cny"), in the reader's language as a workload file's are
        from gpuplan.units import NOT_AN_AMOUNT, WRONG_CURRENCY

        template = WRONG_CURRENCY if first.get("type") == "wrong_currency" else NOT_AN_AMOUNT
        said = Phrase(template, **ctx)
    elif first.get("type") == "unsupported_currency" and isinstance(ctx, dict):
        # a currency gpuplan does not take: an amount signed in it ("60000円") or a ``currency``
        # that names it ("yen"), in the reader's language as the command says it
        from gpuplan.units import UNSUPPORTED_CURRENCY
        from gpuplan.vocab import not_priced_in

        if "value" in ctx:  # an amount signed in it
            said = Phrase(UNSUPPORTED_CURRENCY, **ctx)
        else:  # the currency named: as --currency words it
            said = Phrase(not_priced_in(str(ctx.get("name", ctx["code"])), str(ctx["code"]))[0], **ctx)
    elif first.get("type") == "literal_error":
        # "Input should be 'USD' or 'CNY'" in the reader's language: the choices are pydantic's
        # reprs of the literals, in its ctx
        choices = re.findall(r"'[^']*'", str(ctx.get("expected", ""))) if isinstance(ctx, dict) else []
        if choices:
            said = Phrase(
                N_("must be {choices} (got {got!r})"), choices=either(choices), got=first.get("input")
            )
    line = Phrase(N_("{where}: {problem}{more}"), where=where, problem=said, more="") if where else said
    with use_language(lang):
        return phrase_text(line), field, phrase_text(said)


def shared_sqlite(config: ServeConfig) -> str | None:
    """Put a SQLite catalog in write-ahead-log mode (kept in the file), the mode for one file shared
    by several processes: readers do not wait for a writer nor a writer for readers, where SQLite's
    default journal makes every reader wait out each commit. Commits stay synchronous (a crash or
    ``kill -9`` loses no acknowledged write). The file's journal mode, or None for another database."""
    import sqlite3

    _url, path = config.database()
    if path is None:
        return None
    conn = sqlite3.connect(path, timeout=30, isolation_level=None)
    try:
        return str(conn.execute("PRAGMA journal_mode=WAL").fetchone()[0])
    finally:
        conn.close()


def create_app(config: ServeConfig | None = None) -> FastAPI:
    """The application for ``config`` (default: from ``GPUPLAN_SERVE_CONFIG``, see ``web.config``)."""
    from contextlib import asynccontextmanager

    from gpuplan import __version__
    from gpuplan.web.answers import AnswerCache
    from gpuplan.web.auth import RateWindows, StoreProvider, request_language
    from gpuplan.web.config import ServeConfig
    from gpuplan.web.jobs import JobRunner
    from gpuplan.web.pages import router as pages_router
    from gpuplan.web.routes_api import router as api_router
    from gpuplan.web.routes_team import router as team_router

    config = config or ServeConfig.from_env()
    stores = StoreProvider(config)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> Any:
        import anyio.to_thread

        anyio.to_thread.current_default_thread_limiter().total_tokens = config.threads
        yield
        app.state.runner.close()
        stores.close()

    app = FastAPI(
        title="gpuplan",
        version=__version__,
        summary="Where to run your PyTorch job: the team's GPU planning service.",
        openapi_url="/api/openapi.json",
        docs_url=None,  # FastAPI's page loads Swagger UI from a CDN: api_docs serves it from here
        redoc_url=None,
        lifespan=lifespan,
    )
    app.state.config = config
    app.state.stores = stores
    app.state.default_lang = config.default_lang
    app.state.rates = RateWindows()
    app.state.answers = AnswerCache()
    # Opening the catalog here creates, migrates and seeds it once, before the first request.
    stores.open().close()
    shared_sqlite(config)
    app.state.runner = JobRunner(config, stores.open)

    @app.exception_handler(GpuplanError)
    async def _gpuplan_error(request: Request, e: GpuplanError) -> JSONResponse:
        from gpuplan.i18n import use_language
        from gpuplan.i18n.error_text import error_text
        from gpuplan.web.requests import OPTION_FIELDS, RefusedValue

        # the options named as the request's fields that the caller sent (web.strict_json)
        names = getattr(request.state, "option_fields", OPTION_FIELDS)
        with use_language(request_language(request)):
            if isinstance(e, RefusedValue):
                line, alone = e.text(names)
                return error_response(400, line, "invalid_request", field=e.field, problem=alone)
            status, kind = _status_kind(e)
            return error_response(status, error_text(e, names), kind)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, e: RequestValidationError) -> JSONResponse:
        line, field, problem = _refused(e, request_language(request))
        return error_response(400, line, "invalid_request", field=field, problem=problem)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, e: StarletteHTTPException) -> JSONResponse:
        from gpuplan.i18n import _, use_language

        detail = str(e.detail)
        if detail in _STARLETTE_DETAILS:
            with use_language(request_language(request)):
                detail = _(_STARLETTE_DETAILS[detail])
        headers = dict(e.headers or {})
        return error_response(e.status_code, detail, _kind_of_status(e.status_code), headers)

    @app.exception_handler(Exception)
    async def _fault(request: Request, e: Exception) -> JSONResponse:
        # a fault of the service's own: the same document as any refusal (Starlette's is plain
        # text), saying nothing of the fault itself; the server's log has the traceback
        from gpuplan.i18n import _, use_language

        with use_language(request_language(request)):
            line = _("the service failed on this request; its log says why")
        return error_response(500, line, "internal_error")

    if config.api_docs:
        _serve_api_docs(app)
    app.include_router(api_router)
    app.include_router(team_router)
    app.include_router(pages_router)
    _describe_documents_in_openapi(app)
    if config.cors_origins:
        from fastapi.middleware.cors import CORSMiddleware

        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(config.cors_origins),
            allow_methods=["GET", "POST", "PUT", "DELETE"],
            allow_headers=["Authorization", "Content-Type", "Accept-Language"],
        )
    app.add_middleware(BodyLimit, limit=config.max_body_bytes)
    return app


def _serve_api_docs(app: FastAPI) -> None:
    """``/api/docs``: Swagger UI with its files from the swagger-ui-bundle package, under the
    dashboard's Content-Security-Policy. FastAPI's own page loads them from cdn.jsdelivr.net
    (a floating version, no integrity hash) on the origin where the dashboard keeps the user's
    token: any script that CDN served would run with that token in reach (FastAPI's documentation,
    "Custom Docs UI Static Assets (Self-Hosting)", https://fastapi.tiangolo.com/how-to/custom-docs-ui-assets/)."""
    from fastapi.openapi.docs import get_swagger_ui_html, swagger_ui_default_parameters
    from fastapi.staticfiles import StaticFiles

    from gpuplan.web.pages import SECURITY_HEADERS

    folder = swagger_ui_folder()
    app.mount("/api/docs/static", StaticFiles(directory=folder), name="api-docs-static")

    @app.get("/api/docs", include_in_schema=False)
    def api_docs() -> Any:
        page = get_swagger_ui_html(
            openapi_url="/api/openapi.json",
            title="gpuplan API",
            swagger_js_url="/api/docs/static/swagger-ui-bundle.js",
            swagger_css_url="/api/docs/static/swagger-ui.css",
            swagger_favicon_url="/api/docs/static/favicon-32x32.png",
            # no badge from validator.swagger.io
            swagger_ui_parameters={**swagger_ui_default_parameters, "validatorUrl": None},
        )
        page.headers.update(SECURITY_HEADERS)
        return page


def swagger_ui_folder() -> str:
    """The folder of Swagger UI's files in the swagger-ui-bundle package; refused in one line
    when the package is not installed."""
    try:
        from swagger_ui_bundle import swagger_ui_path  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        from gpuplan.errors import InputError
        from gpuplan.i18n import N_

        raise InputError.worded(
            N_(
                "serve --api-docs serves Swagger UI's files from the swagger-ui-bundle package, "
                "which is not installed: pip install swagger-ui-bundle (or leave --api-docs out; "
                "/api/openapi.json is served either way)"
            )
        ) from None
    return str(swagger_ui_path)


def _describe_documents_in_openapi(app: FastAPI) -> None:
    """The OpenAPI document, built on its first request, with the document fields' descriptions
    (read from the models' source then, not at every import of the models)."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            from gpuplan.documents.descriptions import describe_documents

            describe_documents()
        return build()

    app.openapi = openapi  # type: ignore[method-assign]  # FastAPI's documented way to extend it
