"""The API of what the CLI does: offers, gpus, catalog info/history/discounts/import/refresh,
estimate, plan, tco, simulate, deploy. Answers are the CLI's ``--json`` documents.

Estimate, plan and simulate answer at once (200) when the workload's profile is cached, and
otherwise queue a job (202 with a :class:`~gpuplan.documents.serve.JobDocument` to poll). A plan
answered once is answered again from the plan cache until the catalog changes (an import, a
refresh, a discount) or the day does.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import AfterValidator

from gpuplan.catalog.gates import MAX_GPUS_PER_INSTANCE
from gpuplan.documents import (
    CatalogInfoDocument,
    EstimateDocument,
    GpusDocument,
    HistoryDocument,
    ImportDocument,
    OffersDocument,
    PlanDocument,
    TcoDocument,
)
from gpuplan.documents.serve import (
    JOB_SCHEMA_VERSION,
    CountriesDocument,
    DiscountsDocument,
    ErrorDocument,
    HealthDocument,
    JobDocument,
)
from gpuplan.documents.simulate import AutoscaleDocument
from gpuplan.errors import CatalogImportError, InputError, NotFoundError, Phrase
from gpuplan.i18n import N_
from gpuplan.web.auth import Caller, authorised
from gpuplan.web.requests import (
    CurrencyCode,
    DeployRequest,
    DiscountRequest,
    EstimateRequest,
    PlanRequest,
    RefreshRequest,
    SimulateRequest,
    TcoRequest,
)
from gpuplan.web.strict_json import StrictJsonRoute

__all__ = ["JOB_MESSAGES", "job_document", "job_response", "router"]

_ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorDocument, "description": text}
    for code, text in (
        (
            400,
            "invalid_request: a value or key the schema, the workload or a check refuses, or a "
            "body that is not JSON (the line says which and how to fix it; field names the value)",
        ),
        (401, "unauthorized: no token, or an unknown, revoked or expired one"),
        (
            403,
            "forbidden: the token's scope does not allow this, or what it would change is another "
            "team's (a saved workload, a saved plan: the line names the owning team)",
        ),
        (404, "not_found: nothing at this address (a job, a saved plan, a discount to remove)"),
        (413, "too_large: the request body"),
        (
            422,
            "a valid request without an answer: infeasible (nothing fits, no offer meets the "
            "constraints) or cannot_estimate (the workload cannot be traced or estimated)",
        ),
        (429, "rate_limited: too many requests for this token this minute (wait Retry-After)"),
        (503, "unavailable: the database does not answer"),
    )
}
_JOB: dict[int | str, dict[str, Any]] = {202: {"model": JobDocument, "description": "queued: poll the job"}}

router = APIRouter(prefix="/api/v1", responses=_ERRORS, route_class=StrictJsonRoute)


def _store(request: Request) -> Any:
    return request.app.state.stores.get()


def _scratch(request: Request) -> Path:
    return Path(request.app.state.config.scratch_dir)


#: What a job says it is doing (``JobDocument.message``): kept in English in the job's row, shown in
#: the reader's language. A message not listed here is shown as stored.
JOB_MESSAGES = (
    N_("started"),
    N_("tracing"),
    N_("profile cached"),
    N_("planning over the catalog"),
    N_("estimating"),
    N_("simulating"),
    N_("done"),
    N_("failed"),
    N_("cancelled"),
)


def job_document(job: Any, lang: str = "en") -> dict[str, Any]:
    """The job as :class:`JobDocument`, its message in ``lang``."""
    from gpuplan.i18n import _, use_language

    with use_language(lang):
        message = _(job.message) if job.message in JOB_MESSAGES else job.message
    return {
        "schema_version": JOB_SCHEMA_VERSION,  # a 202 answer is this dict, not validated by the model
        "job_id": job.id,
        "kind": job.kind,
        "status": job.status,
        "progress": job.progress,
        "message": message,
        "created_by": job.created_by,
        "created_at": job.created_at,
        "started_at": job.started_at,
        "finished_at": job.finished_at,
        "attempts": job.attempts,
        "error": job.error,
        "result": job.result,
        "href": f"/api/v1/jobs/{job.id}",
    }


def job_response(request: Request, job: Any, status: int = 202) -> JSONResponse:
    from gpuplan.web.auth import request_language

    return JSONResponse(job_document(job, request_language(request)), status_code=status)


def _queue(
    request: Request, caller: Caller, kind: str, body: Any, cache_key: str | None = None
) -> JSONResponse:
    """Queue a job; ``cache_key``: where the plan cache keeps its document once done (the next
    identical request is answered from it)."""
    from gpuplan.catalog.job_store import JobStore

    jobs = JobStore(_store(request).engine)
    payload = {
        "request": body.model_dump(mode="json"),
        "lang": caller.lang,
        "cache_key": cache_key,
        "team": caller.token.team,  # a saved plan is the saver's team's
        "admin": caller.token.allows("admin"),  # who may plan another team's workload
    }
    job = jobs.create(kind, payload, actor=caller.name)
    request.app.state.runner.submit(job.id)
    return job_response(request, jobs.get(job.id))


@router.get("/health", response_model=HealthDocument, responses={503: {"model": HealthDocument}})
def health(request: Request) -> Any:
    """Readiness: the catalog database answers (no token needed; nothing about the catalog is
    shown but the database's kind: its address only to a token of the admin scope). 503 with
    ``reachable: false`` when the database does not answer."""
    from sqlalchemy.engine import make_url

    from gpuplan import __version__
    from gpuplan.web.auth import admin_token

    url = make_url(request.app.state.config.database()[0])
    document: dict[str, Any] = {
        "status": "ok",
        "database": url.get_backend_name(),
        "reachable": True,
        "database_url": None,
        "schema_revision": None,
        "version": __version__,
    }
    try:
        store = _store(request)
        document["schema_revision"] = store.revision
        with store.engine.connect() as conn:
            conn.exec_driver_sql("SELECT 1")
    except Exception:  # any failure to answer is "unavailable", said without details
        document.update(status="unavailable", reachable=False)
    if admin_token(request):
        document["database_url"] = url.render_as_string(hide_password=True)
    if document["status"] != "ok":
        return JSONResponse(document, status_code=503)
    return document


@router.get("/offers", response_model=OffersDocument)
def offers(
    request: Request,
    caller: Annotated[Caller, authorised("read")],
    gpu: Annotated[str | None, Query(max_length=64)] = None,
    count: Annotated[int | None, Query(ge=1, le=MAX_GPUS_PER_INSTANCE)] = None,
    min_gpu_memory: Annotated[float | None, Query(gt=0, le=4096, allow_inf_nan=False)] = None,
    provider: Annotated[str | None, Query(max_length=32)] = None,
    region: Annotated[str | None, Query(max_length=64)] = None,
    countries: Annotated[
        str | None,
        Query(
            max_length=512,
            description="Comma list of countries the offers' regions may be in, by ISO code or name "
            "(CN,US or China), as `gpuplan offers --countries`; regions of no known country are left "
            "out and named.",
        ),
    ] = None,
    pricing: Annotated[str | None, Query(max_length=32)] = None,
    max_price: Annotated[float | None, Query(gt=0, le=1e6, allow_inf_nan=False)] = None,
    currency: CurrencyCode = "USD",
    sort: Literal["price", "price-per-gpu", "gpu-memory"] = "price",
    all_regions: bool = False,
    allow_low_confidence: bool = False,
    hosts: Annotated[
        str | None,
        Query(
            max_length=32,
            description="Which hosts the offers may be on, as a plan's hosts: any (the default) or "
            "provider, only machines a provider runs in its own or vetted data centres (the offers "
            "left out are counted in hosts_left_out).",
        ),
    ] = None,
) -> Any:
    """Instance types with their price per hour and per GPU-hour (``gpuplan offers --json``);
    prices labelled low-confidence (articles' tables) left out and counted unless
    ``allow_low_confidence``, as the command and plans leave them out; ``hosts=provider`` keeps
    provider-run machines only, as ``gpuplan offers --hosts provider``."""
    from gpuplan.catalog import PROVIDERS
    from gpuplan.catalog.query import OfferQuery, list_offers
    from gpuplan.i18n import use_language
    from gpuplan.report.catalog import offers_json
    from gpuplan.vocab import HostRule, PricingModel

    with use_language(caller.lang), _query_named():
        country_names = _countries(countries)
        listing = list_offers(
            _store(request),
            OfferQuery(
                gpu=gpu,
                count=count,
                min_gpu_memory_gib=min_gpu_memory,
                provider=PROVIDERS.cast(provider) if provider else None,
                region=region,
                countries=country_names,
                pricing=PricingModel.cast(pricing).value if pricing else None,
                max_price_per_hour=max_price,
                currency=currency,
                sort=sort,
                all_regions=all_regions,
                allow_low_confidence=allow_low_confidence,
                hosts=HostRule.cast(hosts).value if hosts else None,
            ),
        )
        return offers_json(listing)


def _countries(text: str | None) -> tuple[str, ...] | None:
    """The offer listing's ``countries`` as ``gpuplan offers --countries`` reads them: each known
    (a typo refused with "did you mean", a city with the country it is in), at least one."""
    from gpuplan.catalog.region_countries import country_codes_of
    from gpuplan.i18n import N_
    from gpuplan.units import split_list
    from gpuplan.web.requests import RefusedValue

    if text is None:
        return None
    names = split_list(text)
    if not names:
        refusal = InputError.worded(N_("list at least one country, e.g. CN or China"))
        raise RefusedValue.of("countries", refusal, where="query.countries")
    for name in names:
        try:
            country_codes_of(name, option="countries=")
        except InputError as e:  # a city: the country it is in
            raise RefusedValue.of("countries", e, where="query.countries") from None
    return names


#: The offer filter of each kind of name the catalog refuses unknown (``NotFoundError.kind``): a
#: listing's query has one filter of each.
_FILTER_OF_KIND = {
    "GPU": "gpu",
    "GPU count": "gpu",
    "provider": "provider",
    "pricing model": "pricing",
    "region": "region",
    "host rule": "hosts",
    "country": "countries",
}


@contextmanager
def _query_named(fields: Mapping[str, str] = _FILTER_OF_KIND, loc: str = "query") -> Iterator[None]:
    """An unknown name refused as the query parameter (``loc``: or the body's field) that gave
    it, by the kind of name (``fields``; an offer listing's filters by default: ``gpu``,
    "query.gpu: unknown GPU 'H10'; did you mean 'H100'…", as the query's schema names one)."""
    from gpuplan.web.requests import RefusedValue

    try:
        yield
    except NotFoundError as e:
        field = fields.get(e.kind)
        if field is None:
            raise
        raise RefusedValue.of(field, e, where=f"{loc}.{field}" if loc != "body" else field) from None


@router.get("/gpus", response_model=GpusDocument)
def gpus(
    request: Request, caller: Annotated[Caller, authorised("read")], currency: CurrencyCode = "USD"
) -> Any:
    """GPU datasheets and the cheapest known price per GPU-hour (``gpuplan gpus --json``)."""
    from gpuplan.catalog.query import cheapest_by_gpu
    from gpuplan.hardware import all_gpus
    from gpuplan.i18n import use_language
    from gpuplan.report.catalog import gpus_json

    store = _store(request)
    with use_language(caller.lang):
        return gpus_json(
            all_gpus(), cheapest_by_gpu(store.offers()), store.find_exchange_rate("CNY"), currency
        )


@router.get("/catalog/info", response_model=CatalogInfoDocument)
def catalog_info(request: Request, caller: Annotated[Caller, authorised("read")]) -> Any:
    """What the shared catalog holds per provider, and what the last refresh did."""
    from gpuplan.report.catalog import info_json

    return info_json(_store(request).info())


@router.get("/catalog/history", response_model=HistoryDocument)
def catalog_history(
    request: Request,
    caller: Annotated[Caller, authorised("read")],
    instance: Annotated[str, Query(min_length=1, max_length=128)],
    region: Annotated[str | None, Query(max_length=64)] = None,
    currency: CurrencyCode = "USD",
) -> Any:
    """Every dated price of an instance type (``gpuplan catalog history --json``)."""
    from gpuplan.catalog.history import price_history
    from gpuplan.i18n import use_language
    from gpuplan.report.history import history_json

    store = _store(request)
    points = price_history(store, instance, region)
    with use_language(caller.lang):  # the rate's warning in the caller's language
        return history_json(points, instance, store.find_exchange_rate("CNY"), currency)


def _discounts(store: Any) -> Any:
    from gpuplan.catalog.discounts import discounts
    from gpuplan.report.catalog import discounts_json

    return discounts_json(discounts(store))


@router.get("/catalog/discounts", response_model=DiscountsDocument)
def discounts_list(request: Request, caller: Annotated[Caller, authorised("read")]) -> Any:
    """The team's negotiated discounts, applied wherever a price is shown."""
    return _discounts(_store(request))


@router.put("/catalog/discounts", response_model=DiscountsDocument)
def discounts_set(
    request: Request, caller: Annotated[Caller, authorised("admin")], body: DiscountRequest
) -> Any:
    """Set a negotiated discount (replacing the one for the same provider, family and pricing
    model); ``pricing`` names the models it is taken off (none: on demand, and monthly for a
    Chinese cloud)."""
    from gpuplan.catalog.discounts import set_discount
    from gpuplan.catalog.team_store import TeamStore

    store = _store(request)

    def audit(conn: Any, d: Any) -> None:  # in the discount's own transaction
        details = {"percent": d.percent, "family": d.family, "pricing": list(d.pricing), "note": d.note}
        TeamStore.audit(conn, caller.name, "discount.set", f"{d.provider} {d.family}".strip(), details)

    with _query_named({"provider": "provider", "pricing model": "pricing"}, loc="body"):
        set_discount(
            store, body.provider, body.percent, body.family, body.note, pricing=body.pricing, also=audit
        )
    return _discounts(store)


@router.delete("/catalog/discounts", response_model=DiscountsDocument)
def discounts_clear(
    request: Request,
    caller: Annotated[Caller, authorised("admin")],
    provider: Annotated[str, Query(max_length=32)],
    family: Annotated[str, Query(max_length=64)] = "",
    pricing: Annotated[list[str] | None, Query(max_length=64)] = None,
) -> Any:
    """Remove a discount: of the pricing models named (``pricing``, repeatable), or of every model."""
    from gpuplan.catalog.discounts import clear_discount
    from gpuplan.catalog.team_store import TeamStore
    from gpuplan.errors import AbsentError
    from gpuplan.i18n import N_

    store = _store(request)

    def audit(conn: Any) -> None:  # in the removal's own transaction
        details = {"pricing": pricing} if pricing else {}
        TeamStore.audit(conn, caller.name, "discount.clear", f"{provider} {family}".strip(), details)

    with _query_named({"provider": "provider", "pricing model": "pricing"}):
        cleared = clear_discount(store, provider, family, pricing=pricing, also=audit)
    if not cleared:
        scope = f"{provider} {family}" if family else provider
        raise AbsentError.worded(N_("no discount for {scope}"), scope=scope)
    return _discounts(store)


def _file_format(value: str) -> str:
    from gpuplan.catalog.importers.price_file import SERVICE_NAMES, file_format

    try:
        return file_format(value, SERVICE_NAMES)
    except NotFoundError as e:
        raise ValueError(e) from None  # 400, "format: unknown format …; did you mean …"


@router.post(
    "/catalog/import",
    response_model=ImportDocument,
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "text/csv": {"schema": {"type": "string"}},
                "application/json": {
                    "schema": {
                        "type": "array",
                        "items": {"type": "object"},
                        "description": "format=gpuplan only: the price list as JSON, a list of objects "
                        "with the CSV's columns as keys",
                    }
                },
            },
        }
    },
)
async def catalog_import(
    request: Request,
    caller: Annotated[Caller, authorised("admin")],
    provider: Annotated[str | None, Query(max_length=32)] = None,
    # a day, a month or the bounds of an undated source (2026-10/2026-11-30), as `catalog import --as-of`
    as_of: Annotated[str | None, Query(max_length=21)] = None,
    fmt: Annotated[
        str,
        Query(
            alias="format",
            max_length=16,
            description="skypilot: SkyPilot's catalog CSV of one provider (give provider; USD per hour). "
            "gpuplan: a price list of your own, CSV or JSON, one price a row with its currency (USD or "
            "CNY), unit, date and source (examples/prices/README.md); provider picks one provider of it.",
        ),
        AfterValidator(_file_format),
    ] = "skypilot",
    # the lines whose prices the admin vouches for against the catalog's, as `--accept-price LINE`
    accept_price: Annotated[list[int] | None, Query(max_length=1000)] = None,
) -> Any:
    """Import a price file (the body) in the layout ``format`` names, as ``gpuplan catalog import FILE
    --format`` does: all of its good rows or none."""
    body = await request.body()
    from starlette.concurrency import run_in_threadpool

    json_body = request.headers.get("content-type", "").split(";")[0].strip().lower() == "application/json"
    return await run_in_threadpool(
        _import, request, caller, provider, as_of, fmt, body, json_body, accept_price or []
    )


def _import(
    request: Request,
    caller: Caller,
    provider: str | None,
    as_of: str | None,
    fmt: str,
    body: bytes,
    json_body: bool,
    accept: list[int],
) -> Any:
    import tempfile

    from gpuplan.catalog.gates import import_day
    from gpuplan.catalog.importers.price_file import SERVICE_NAMES, read_price_file
    from gpuplan.catalog.team_store import TeamStore
    from gpuplan.report.catalog import import_json, rejected_reasons

    if as_of is not None:
        import_day(as_of, date.today(), SERVICE_NAMES.as_of)
    try:
        body.decode(
            "utf-8"
        )  # said of the body, as a JSON body's is: the file's line and path are the server's
    except UnicodeDecodeError as e:
        raise CatalogImportError.worded(
            N_("the request body is not UTF-8 text (byte {byte})"), byte=e.start
        ) from None
    store = _store(request)
    with tempfile.TemporaryDirectory(prefix="gpuplan-import-") as folder:
        # a price list's JSON is read as JSON by its name, as the CLI reads a .json file
        file = Path(folder) / ("upload.json" if json_body and fmt == "gpuplan" else "upload.csv")
        file.write_bytes(body)
        try:
            with _query_named({"provider": "provider"}):  # the query's provider, misspelt
                read = read_price_file(
                    store,
                    file,
                    fmt=fmt,
                    provider=provider,
                    as_of=as_of,
                    today=date.today(),
                    described=f"uploaded by {caller.name}",
                    names=SERVICE_NAMES,
                    accept=accept,
                )
        except CatalogImportError as e:
            raise _as_body(e, file) from None
    import hashlib

    from gpuplan.catalog.importing import ImportedFile, import_of, import_offers, write_with_retry

    # the body's hash, as a file's, tells two uploads apart in `catalog imports`
    uploaded = ImportedFile(name=f"upload by {caller.name}", sha256=hashlib.sha256(body).hexdigest())

    def write(conn: Any) -> Any:  # the import and its audit entry commit together
        report = import_offers(
            store,
            read.rows,
            provider=read.provider,
            source=read.source,
            kind=read.kind,
            rejected=read.rejected,
            conn=conn,
            file=uploaded,
            as_of=as_of.strip() if as_of is not None else None,
        )
        details = {
            "import_id": report.import_id,
            "rows": len(read.rows),
            "rejected": len(read.rejected),
            "format": fmt,
        }
        TeamStore.audit(conn, caller.name, "catalog.import", read.provider, details)
        return report

    report = write_with_retry(store, write, import_of(read.provider, read.source))
    store.invalidate_caches()  # once committed (the import's own call ran inside the transaction)
    if report.import_id is None:
        # The answer is one line: it names the first refused rows and why, as the CLI's table does.
        skipped = sum(1 for r in report.rejected if r.skipped)  # not priced by gpuplan: not lost
        raise CatalogImportError.worded(
            N_(
                "no row of {file} passed the gates ({rejected} rejected, {skipped} skipped: {reasons}); "
                "nothing was imported"
            ),
            file=Phrase(_BODY),
            rejected=len(report.rejected) - skipped,
            skipped=skipped,
            reasons=rejected_reasons(report.rejected),
        )
    return import_json(report, read.warnings)


_BODY = N_("the request body")


def _as_body(error: CatalogImportError, file: Path) -> CatalogImportError:
    """``error`` about the uploaded body, with the server's temporary file named as the request body
    (a client has no use for the path, and the server's folders are not its business)."""
    body = _BODY  # quoted with !r by some of the reader's templates: plain text, not a Phrase
    if not error.template:  # every error of the reader is worded; a bare one is passed on as it is
        return error
    fields = {
        # an error of the line reader is wrapped ("{problem}; nothing was imported"): its path too
        k: body if str(v) == str(file) else _as_body(v, file) if isinstance(v, CatalogImportError) else v
        for k, v in error.fields.items()
    }
    return CatalogImportError.worded(error.template, **fields)


@router.post("/catalog/refresh", status_code=202, response_model=JobDocument)
def catalog_refresh(
    request: Request, caller: Annotated[Caller, authorised("admin")], body: RefreshRequest
) -> Any:
    """Read the providers' own price lists (a job: network calls take seconds to minutes)."""
    from gpuplan.catalog import PROVIDERS
    from gpuplan.i18n import use_language
    from gpuplan.web.requests import refused_as

    with use_language(caller.lang):
        for i, provider in enumerate(body.providers):
            # a misspelt one is refused now (400, "did you mean", its item named), not as a failed job
            with refused_as(f"providers[{i}]"):
                PROVIDERS.cast(provider)
    return _queue(request, caller, "refresh", body)


def _answer(
    request: Request,
    caller: Caller,
    kind: str,
    body: Any,
    compute: Any,
    cache_key: str | None = None,
    check: Any = None,
) -> Any:
    """At once when the profile is cached, else a queued job; ``check(store, body, workload)``
    refuses a request before either."""
    from gpuplan.i18n import use_language
    from gpuplan.web.service import materialize, profile_cached

    store = _store(request)
    with use_language(caller.lang):
        workload = materialize(body.workload, body.hf_config_json, _scratch(request))  # config checked
        if check is not None:
            check(store, body, workload)
        if not profile_cached(store, workload):
            return _queue(request, caller, kind, body, cache_key)
        return compute(store, body, workload)


@router.post("/estimate", response_model=EstimateDocument, responses=_JOB)
def estimate(request: Request, caller: Annotated[Caller, authorised("plan")], body: EstimateRequest) -> Any:
    """Fit, step time, throughput and job time on each GPU (``gpuplan estimate --json``), on a named
    instance type's GPU and links with ``instance`` (``--instance``)."""
    from gpuplan.web.service import check_estimate_request, estimate_document

    # an unknown GPU or instance type, a GPU count given twice, GPUs that all lack the precision's
    # tensor cores (fp8 on an A100): refused now, each option named, not in a job
    return _answer(request, caller, "estimate", body, estimate_document, check=check_estimate_request)


@router.post("/plan", response_model=PlanDocument, responses=_JOB)
def plan(request: Request, caller: Annotated[Caller, authorised("plan")], body: PlanRequest) -> Any:
    """Every way to run the workload, ranked and priced all-in (``gpuplan plan --json``)."""
    from gpuplan.catalog.job_store import JobStore
    from gpuplan.web.service import check_plan_request, plan_cache_key, plan_document

    store = _store(request)
    jobs = JobStore(store.engine)
    answers = request.app.state.answers
    # An answer given before is found by the request itself, before the workload is even read.
    key = plan_cache_key(store, body, date.today().isoformat(), caller.lang)
    cached = answers.get(jobs, key)
    if cached is not None:
        return Response(cached, media_type="application/json")

    def compute(store: Any, req: PlanRequest, workload: Any) -> Any:
        def make() -> str:
            return json.dumps(plan_document(store, req, workload), ensure_ascii=False)

        return Response(answers.compute(jobs, key, make), media_type="application/json")

    return _answer(request, caller, "plan", body, compute, cache_key=key, check=check_plan_request)


@router.post(
    "/plan/report",
    responses={200: {"content": {"text/html": {"schema": {"type": "string"}}}}, **_JOB},
)
def plan_report(request: Request, caller: Annotated[Caller, authorised("plan")], body: PlanRequest) -> Any:
    """The plan's HTML report (``gpuplan plan --out report.html``), self-contained; kept in the
    plan cache like the document."""
    from gpuplan.catalog.job_store import JobStore
    from gpuplan.web.service import check_plan_request, plan_cache_key, plan_report_html

    store = _store(request)
    jobs = JobStore(store.engine)
    key = plan_cache_key(store, body, date.today().isoformat(), caller.lang, kind="report")
    cached = jobs.cached_document(key)
    if cached is not None:
        return HTMLResponse(cached)

    def compute(store: Any, req: PlanRequest, workload: Any) -> Any:
        text = plan_report_html(store, req, workload)
        jobs.cache_document(key, text)
        return HTMLResponse(text)

    return _answer(request, caller, "plan", body, compute, check=check_plan_request)


@router.post("/simulate", response_model=AutoscaleDocument, responses=_JOB)
def simulate(request: Request, caller: Annotated[Caller, authorised("plan")], body: SimulateRequest) -> Any:
    """Autoscaling policies on a load trace, sent as ``trace_csv`` or generated (``shape``)
    (``gpuplan simulate autoscale --json``); always a job: a day of requests takes seconds to
    replay. What can be judged before tracing is judged now: a bad request is refused at once."""
    from gpuplan.i18n import use_language
    from gpuplan.web.service import materialize
    from gpuplan.web.simulating import check_simulate

    with use_language(caller.lang):
        workload = materialize(body.workload, body.hf_config_json, _scratch(request))  # config checked
        check_simulate(_store(request), body, workload, _scratch(request))
    return _queue(request, caller, "simulate", body)


@router.post("/tco", response_model=TcoDocument)
def tco(request: Request, caller: Annotated[Caller, authorised("plan")], body: TcoRequest) -> Any:
    """The cheapest commitment schedule for a year or three of work (``gpuplan tco --json``)."""
    from gpuplan.i18n import use_language
    from gpuplan.web.service import tco_document

    with use_language(caller.lang):
        return tco_document(_store(request), body)


@router.post(
    "/deploy",
    responses={200: {"content": {"application/zip": {"schema": {"type": "string", "format": "binary"}}}}},
)
def deploy(request: Request, caller: Annotated[Caller, authorised("plan")], body: DeployRequest) -> Response:
    """The launch files of the plan's recommended option as a zip archive (``gpuplan deploy``)."""
    from gpuplan.i18n import use_language
    from gpuplan.web.service import deploy_archive

    with use_language(caller.lang):
        data = deploy_archive(body, _store(request))
    name = f"gpuplan-{body.target.strip().lower()}.zip"
    return Response(
        data, media_type="application/zip", headers={"Content-Disposition": f'attachment; filename="{name}"'}
    )


@router.get("/offers/countries", response_model=CountriesDocument)
def offer_countries(
    request: Request,
    caller: Annotated[Caller, authorised("read")],
    gpu: Annotated[str | None, Query(max_length=64)] = None,
    provider: Annotated[str | None, Query(max_length=32)] = None,
    pricing: Annotated[str | None, Query(max_length=32)] = None,
    max_price: Annotated[float | None, Query(gt=0, le=1e6, allow_inf_nan=False)] = None,
    currency: CurrencyCode = "USD",
    allow_low_confidence: bool = False,
) -> Any:
    """Offers and the cheapest GPU-hour per country, with where each country is on a map: the
    offers of ``/offers`` with the same filters (``max_price`` per instance-hour in ``currency``,
    low-confidence prices only with ``allow_low_confidence``), every region of them."""
    from gpuplan.catalog import PROVIDERS
    from gpuplan.catalog.query import OfferQuery, list_offers
    from gpuplan.i18n import use_language
    from gpuplan.plan.region_countries import region_country
    from gpuplan.vocab import PricingModel
    from gpuplan.web.geo import country_points

    points = country_points()
    by: dict[str, dict[str, Any]] = {}
    with use_language(caller.lang), _query_named():
        listing = list_offers(
            _store(request),
            OfferQuery(
                gpu=gpu,
                provider=PROVIDERS.cast(provider) if provider else None,
                pricing=PricingModel.cast(pricing).value if pricing else None,
                max_price_per_hour=max_price,
                currency=currency,
                all_regions=True,
                allow_low_confidence=allow_low_confidence,
            ),
        )
    for o in (v.offer for v in listing.views):
        # at what plans cost it (a spot price undated or stale, below its dated floor, at that floor)
        price = o.conservative_usd_per_gpu_hour()
        if price is None:
            continue
        code = region_country(o.provider, o.region)
        if not code:
            continue
        item = by.setdefault(code, {"offers": 0, "best": None, "where": None})
        item["offers"] += 1
        if item["best"] is None or price < item["best"]:
            item["best"], item["where"] = price, f"{o.provider}/{o.region}/{o.instance_type}"
    from gpuplan.i18n.countries import country_name

    with use_language(caller.lang):  # the names in the caller's language
        names = {code: country_name(code) for code in by}
    out = []
    for code, item in sorted(by.items()):
        lat, lon = points.get(code, (None, None))
        out.append(
            {
                "country": code,
                "name": names[code],
                "latitude": lat,
                "longitude": lon,
                "offers": item["offers"],
                "cheapest_usd_per_gpu_hour": item["best"],
                "cheapest": item["where"],
            }
        )
    # the database by name and address: where this server keeps its copy is no one else's business
    source = "IANA time zone database (https://www.iana.org/time-zones)" if points else None
    return {"map_source": source, "countries": out}


@router.get("/live", response_model=HealthDocument)
def live() -> dict[str, Any]:
    """Liveness: the process answers (the database is not asked; see /health for readiness)."""
    from gpuplan import __version__

    return {
        "status": "ok",
        "database": "not checked",
        "reachable": None,
        "schema_revision": None,
        "version": __version__,
    }
