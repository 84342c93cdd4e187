"""Request bodies read as gpuplan reads a JSON file: the same bounds for a request as for a file.

FastAPI parses a JSON body with Python's ``json.loads``, which takes ``NaN``, ``Infinity`` and
``1e999`` (infinity) as numbers, decodes ``"\\ud800"`` to a string no database or terminal can
hold, and recurses without a bound. Queued, a request is written as strict JSON, where a NaN
becomes ``null``: a workload's ``p95_latency_ms: NaN`` reached the job as "no latency target",
and a lone surrogate was an Internal Server Error. The routes of the API read their body with
:func:`gpuplan.bounded.load_json` first (no NaN or infinity, no number overflowing to infinity, at
most ``MAX_DEPTH`` levels, no lone surrogate, UTF-8 only); a refusal is the service's one-line 400,
and FastAPI then validates the parsed value as usual.

The token is checked before a refusal of the body is given: a caller without a valid token of
the route's scope gets its 401 or 403 and learns nothing about the body it sent.

A query parameter the route does not take is refused as a body's unknown key is (400, the
parameter as ``field``, "did you mean 'provider'?", the route's parameters listed), after the
token's check: ``?provder=alibaba`` had been dropped without a word, and the unfiltered listing
answered as if it were the one asked for.

A route keeps, in ``request.state.option_fields``, what its request calls the command's options
(``OPTION_FIELDS`` of its request, in ``web.requests``): a refusal names the fields the caller sent,
and so does a note of its answer ("give instance", not the command's "give --instance").
"""

from __future__ import annotations

import email.message
import typing
from collections.abc import Callable, Coroutine, Mapping
from typing import Any

from fastapi import Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute

from gpuplan.bounded import load_json, printable
from gpuplan.errors import InputError, Phrase
from gpuplan.i18n.messages import N_

__all__ = ["StrictJsonRoute"]

#: What the body is called in a refusal ("the request body: number 1e999 is out of range").
_SOURCE = N_("the request body")
#: The query parameter every route takes besides its own: the language of its answer (web.auth).
_EVERY_ROUTE = ("lang",)
#: Longest unknown parameter name echoed back whole.
_MAX_NAME = 64


def _is_json(content_type: str | None) -> bool:
    """True where FastAPI reads the body as JSON: application/json or +json. A body sent with no
    type is not read as JSON (FastAPI's ``strict_content_type``, on by default in FastAPI 0.165)."""
    if not content_type:
        return False
    message = email.message.Message()
    message["content-type"] = content_type
    subtype = message.get_content_subtype()
    return message.get_content_maintype() == "application" and (
        subtype == "json" or subtype.endswith("+json")
    )


async def _json_typed(request: Request) -> None:
    """Refuse a body sent under a type that is not JSON, or under no type at all (Python's
    ``requests.post(url, data=text)`` sends none), to a route that reads a JSON object: FastAPI
    answered "Input should be a valid dictionary or object", which says nothing of the header."""
    content_type = request.headers.get("content-type")
    if _is_json(content_type) or not await request.body():
        return
    if not (content_type or "").strip():
        raise InputError.worded(
            N_(
                "the request body is sent without a Content-Type header; send it as application/json "
                "(Content-Type: application/json)"
            )
        )
    raise InputError.worded(
        N_("the request body is sent as {content_type}; send it as application/json"),
        content_type=printable(content_type or "")[:80],
    )


async def parse_body(request: Request) -> None:
    """Parse ``request``'s JSON body within gpuplan's bounds and keep it where Starlette's
    ``Request.json`` looks first, or raise InputError in one line."""
    if not _is_json(request.headers.get("content-type")):
        return
    body = await request.body()
    if not body:
        return
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError.worded(
            N_("the request body is not UTF-8 text (byte {byte})"), byte=e.start
        ) from None
    # Its own line where it is no JSON: "the request body" is no path, and the Chinese line reads
    # 请求体不是…, without the space a path is set apart by.
    invalid = N_("the request body is not valid JSON ({why} at line {line}, column {column})")
    request._json = load_json(text, source=Phrase(_SOURCE), invalid=invalid)  # Starlette's cache


def _unknown_query(request: Request, known: tuple[str, ...]) -> RequestValidationError | None:
    """The refusal of the first query parameter of ``request`` not in ``known``, worded as a body's
    unknown key is (did you mean, else the known ones), or None."""
    from gpuplan.errors import closest
    from gpuplan.i18n.phrases import either, listed
    from gpuplan.workload._validation import UnknownKey

    for key in request.query_params:
        if key in known:
            continue
        name = printable(key if len(key) <= _MAX_NAME else key[:_MAX_NAME] + "…")
        hint = closest(key, known)
        if hint:
            problem = Phrase(
                N_("unknown query parameter {key!r}; did you mean {names}? (it takes {known})"),
                key=name,
                names=either(repr(h) for h in hint),
                known=listed(known),
            )
        else:
            problem = Phrase(
                N_("unknown query parameter {key!r}; it takes {known}"), key=name, known=listed(known)
            )
        error = UnknownKey(name, problem)
        return RequestValidationError(
            [
                {
                    "type": "value_error",
                    "loc": ("query",),
                    "msg": str(problem),
                    "input": key,
                    "ctx": {"error": error},
                }
            ]
        )
    return None


class StrictJsonRoute(APIRoute):
    """An API route whose JSON body is parsed by :func:`parse_body` before FastAPI reads it."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        fields = self._option_fields()
        takes_json = self._takes_json()
        known = self._query_names()

        async def strict(request: Request) -> Response:
            from gpuplan.i18n import use_option_names

            request.state.option_fields = fields
            try:
                if takes_json:
                    await _json_typed(request)
                await parse_body(request)
            except InputError:
                await self._check_token(request)  # its 401/403/429 comes first
                raise
            unknown = _unknown_query(request, known)
            if unknown is not None:
                await self._check_token(request)
                raise unknown
            with use_option_names(fields):  # the answer's notes name the request's fields
                return await handler(request)

        return strict

    def _takes_json(self) -> bool:
        """Whether this route's body is a request model (a JSON object), not a file's bytes."""
        from pydantic import BaseModel

        hints = typing.get_type_hints(self.endpoint).values()
        return any(isinstance(hint, type) and issubclass(hint, BaseModel) for hint in hints)

    def _query_names(self) -> tuple[str, ...]:
        """The query parameters this route takes, as a caller names them (``format``, not ``fmt``)."""
        names: list[str] = []
        todo = [self.dependant]
        while todo:  # the route's own parameters and its dependencies' (none take any today)
            dependant = todo.pop()
            names += [p.alias for p in dependant.query_params]
            todo += dependant.dependencies
        return tuple(dict.fromkeys([*names, *_EVERY_ROUTE]))

    def _option_fields(self) -> Mapping[str, str]:
        """What this route's request calls the command's options: its body's ``OPTION_FIELDS``,
        else the service's (query parameters are named as the requests' fields are)."""
        from pydantic import BaseModel

        from gpuplan.web.requests import OPTION_FIELDS

        for hint in typing.get_type_hints(self.endpoint).values():
            if isinstance(hint, type) and issubclass(hint, BaseModel):
                return typing.cast("Mapping[str, str]", getattr(hint, "OPTION_FIELDS", OPTION_FIELDS))
        return OPTION_FIELDS

    async def _check_token(self, request: Request) -> None:
        """Run the route's token checks (:class:`~gpuplan.web.auth.TokenCheck`) as FastAPI would
        (in a worker thread: they read the database)."""
        from starlette.concurrency import run_in_threadpool

        from gpuplan.web.auth import TokenCheck

        for dependency in self.dependant.dependencies:
            if isinstance(dependency.call, TokenCheck):
                await run_in_threadpool(dependency.call, request)
