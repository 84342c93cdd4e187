"""The team's workspace: jobs to poll or follow, saved workloads and plans with their history, the
month's budget against planned spend, the price-change view, and the audit log.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi import Path as PathParam
from fastapi.responses import JSONResponse, Response, StreamingResponse

from gpuplan.documents.serve import (
    AuditDocument,
    BudgetDocument,
    JobDocument,
    PriceChangesDocument,
    SavedPlanItem,
    SavedPlansDocument,
    WorkloadsDocument,
    YearBudgetDocument,
)
from gpuplan.web.auth import Caller, authorised
from gpuplan.web.requests import (
    JOB_ID_PATTERN,
    MONTH_PATTERN,
    NAME_PATTERN,
    PERIOD_PATTERN,
    BudgetRequest,
    SavePlanRequest,
    SaveWorkloadRequest,
)
from gpuplan.web.routes_api import _ERRORS, _query_named, job_document
from gpuplan.web.strict_json import StrictJsonRoute

if TYPE_CHECKING:
    from gpuplan.catalog.team_store import SavedWorkload

__all__ = ["router"]

router = APIRouter(prefix="/api/v1", responses=_ERRORS, route_class=StrictJsonRoute)
#: The largest id the catalog's id columns hold on every database: PostgreSQL's ``integer`` (4 bytes;
#: SQLite's hold 8). A larger one is a 400, not a 500 ("integer out of range" on PostgreSQL).
_MAX_ID = 2**31 - 1


def _team_named() -> AbstractContextManager[None]:
    """An unknown team refused as the ``team`` query parameter that named it (``field``)."""
    return _query_named({"team": "team"})


#: A budget's month, ``YYYY-MM``, or its year, ``YYYY`` (the year's budget and planned spend).
Period = Annotated[
    str, PathParam(pattern=PERIOD_PATTERN, description="YYYY-MM for a month's budget, YYYY for a year's")
]
#: A team, as its tokens name it (``gpuplan serve token create --team``).
Team = Annotated[
    str | None,
    Query(
        min_length=1,
        max_length=64,
        pattern=NAME_PATTERN,
        description="A team, as its tokens are made with (serve token create --team); "
        "left out: the whole service.",
    ),
]


def _store(request: Request) -> Any:
    return request.app.state.stores.get()


def _job(request: Request, job_id: str, caller: Caller) -> Any:
    """The job ``job_id`` when ``caller`` made it or is an admin; to anyone else it is unknown: the
    same 404 as for a job that does not exist (its request, figures and result are its owner's)."""
    from gpuplan.catalog.job_store import JobStore

    job = JobStore(_store(request).engine).get(job_id)
    if job is None or (job.created_by != caller.name and not caller.admin):
        _no_job(request, job_id)
    return job


def _no_job(request: Request, job_id: str) -> None:
    from gpuplan.i18n import _, use_language
    from gpuplan.web.auth import request_language

    with use_language(request_language(request)):
        raise HTTPException(status_code=404, detail=_("no job {job_id}").format(job_id=job_id))


JobId = Annotated[str, PathParam(pattern=JOB_ID_PATTERN)]


@router.get("/jobs/{job_id}", response_model=JobDocument)
def job(request: Request, caller: Annotated[Caller, authorised("read")], job_id: JobId) -> Any:
    """A job's status, progress and, once done, its document: ``queued``, ``running``, then ``done``
    (``result`` its document), ``failed`` (``error`` saying why) or ``cancelled`` (``error`` saying
    who cancelled it). Only its owner (the token's name that queued it) or an admin may read it; to
    others it is unknown (404)."""
    return job_document(_job(request, job_id, caller), caller.lang)


@router.delete("/jobs/{job_id}", response_model=JobDocument)
def cancel_job(request: Request, caller: Annotated[Caller, authorised("plan")], job_id: JobId) -> Any:
    """Cancel a job: a queued one will not run, a running one is stopped (its process killed within
    a second); it ends ``cancelled``, its ``error`` saying who cancelled it. Only its owner or an
    admin may; to others it is unknown (404). A job that has ended already is returned as it is."""
    from gpuplan.catalog.job_store import JobStore
    from gpuplan.errors import Phrase
    from gpuplan.i18n import N_, use_language
    from gpuplan.i18n.error_text import phrase_text

    found = _job(request, job_id, caller)
    jobs = JobStore(_store(request).engine)
    # in the language the job was asked in, as the job's own errors are
    with use_language(str(found.request.get("lang", "en"))):
        line = phrase_text(Phrase(N_("cancelled by {name}"), name=caller.name))
    jobs.cancel(job_id, line, actor=caller.name)
    return job_document(jobs.get(job_id), caller.lang)


@router.get(
    "/jobs/{job_id}/events",
    responses={200: {"content": {"text/event-stream": {"schema": {"type": "string"}}}}},
)
async def job_events(request: Request, caller: Annotated[Caller, authorised("read")], job_id: JobId) -> Any:
    """The job as server-sent events: one ``progress`` event per change, then ``done``, ``failed`` or
    ``cancelled`` (the job's status) with the whole job document. Its owner's or an admin's to follow,
    as the job is."""
    from starlette.concurrency import run_in_threadpool

    from gpuplan.catalog.job_store import ENDED

    first = await run_in_threadpool(_job, request, job_id, caller)

    async def events() -> AsyncIterator[str]:
        last = None
        current = first
        for _ in range(3600):  # at most an hour of following, then the client polls again
            doc = job_document(current, caller.lang)
            state = (doc["status"], doc["progress"], doc["message"])
            if state != last:
                kind = doc["status"] if doc["status"] in ENDED else "progress"
                yield f"event: {kind}\ndata: {json.dumps(doc, ensure_ascii=False)}\n\n"
                last = state
                if kind != "progress":
                    return
            if await request.is_disconnected():
                return
            await asyncio.sleep(1.0)
            current = await run_in_threadpool(_job, request, job_id, caller)

    return StreamingResponse(events(), media_type="text/event-stream", headers={"Cache-Control": "no-store"})


@router.get("/workloads", response_model=WorkloadsDocument)
def workloads(
    request: Request,
    caller: Annotated[Caller, authorised("read")],
    name: Annotated[str | None, Query(max_length=128)] = None,
) -> Any:
    """The team's saved workloads, every version (newest first): who saved what, when."""
    from gpuplan.catalog.team_store import TeamStore

    found = TeamStore(_store(request).engine).workload_versions(name)
    return {"workloads": [_workload_item(w) for w in found]}


def _workload_item(saved: SavedWorkload) -> dict[str, Any]:
    """A saved version as the API lists it (whether a save added it is the document's)."""
    return {k: v for k, v in vars(saved).items() if k != "unchanged"}


@router.post(
    "/workloads",
    response_model=WorkloadsDocument,
    status_code=201,
    responses={
        200: {"model": WorkloadsDocument, "description": "unchanged: the newest version is this already"}
    },
)
def save_workload(
    request: Request, caller: Annotated[Caller, authorised("plan")], body: SaveWorkloadRequest
) -> Any:
    """Save a workload (a new version when the name exists: 201). It is checked as a plan request
    would be. The same workload as the name's newest version is no new version: that version is
    answered, ``unchanged`` (200). A new name is the saver's team's; a name another team owns is
    refused (403) unless by an admin."""
    from gpuplan.catalog.team_store import TeamStore
    from gpuplan.i18n import use_language
    from gpuplan.web.service import materialize

    with use_language(caller.lang):
        # its inline config checked (a saved workload is not found unplannable only when a plan is
        # asked of it)
        materialize(body.workload, body.hf_config_json, Path(request.app.state.config.scratch_dir))
    spec = {"workload": body.workload, "hf_config_json": body.hf_config_json}
    saved = TeamStore(_store(request).engine).save_workload(
        body.name, spec, actor=caller.name, team=caller.team, admin=caller.admin
    )
    document = {"workloads": [_workload_item(saved)], "unchanged": saved.unchanged}
    if saved.unchanged:
        return JSONResponse(
            WorkloadsDocument.model_validate(document).model_dump(mode="json"), status_code=200
        )
    return document


@router.get("/plans", response_model=SavedPlansDocument)
def plans(
    request: Request,
    caller: Annotated[Caller, authorised("read")],
    month: Annotated[str | None, Query(pattern=MONTH_PATTERN)] = None,
    team: Team = None,
) -> Any:
    """The saved plans (of a team when asked), newest first: who planned what, when, on which prices."""
    from gpuplan.catalog.team_store import TeamStore
    from gpuplan.i18n import use_language
    from gpuplan.web.work import saved_plan_item

    with use_language(caller.lang):  # an option's pricing model in the reader's language
        store = _store(request)
        records = TeamStore(store.engine)
        if team is not None:
            with _team_named():
                records.check_known_team(team)
        rate = store.find_exchange_rate("CNY")  # read once, not for each plan
        return {"plans": [saved_plan_item(p, store, rate=rate) for p in records.plans(month, team=team)]}


@router.post(
    "/plans",
    response_model=SavedPlanItem,
    status_code=201,
    responses={202: {"model": JobDocument, "description": "queued: the workload is being traced"}},
)
def save_plan(request: Request, caller: Annotated[Caller, authorised("plan")], body: SavePlanRequest) -> Any:
    """Plan a saved workload and keep the plan for a month's budget (a job when it must be traced): the
    budget of the whole service and, for a token of a team, that team's. A workload another team owns
    is refused (403) unless by an admin."""
    from gpuplan.i18n import use_language
    from gpuplan.web.routes_api import _queue
    from gpuplan.web.service import profile_cached
    from gpuplan.web.work import check_save
    from gpuplan.web.work import save_plan_json as save

    store = _store(request)
    scratch = Path(request.app.state.config.scratch_dir)
    with use_language(caller.lang):
        # read once, and what the plan would end in refused before a job is queued
        checked = check_save(store, body, scratch, team=caller.team, admin=caller.admin)
        if not profile_cached(store, checked.workload):
            return _queue(request, caller, "save-plan", body)
        saved = save(
            store,
            body,
            scratch,
            actor=caller.name,
            lang=caller.lang,
            answers=request.app.state.answers,
            team=caller.team,
            admin=caller.admin,
            checked=checked,
        )
        return Response(saved, status_code=201, media_type="application/json")


@router.get("/plans/{plan_id}", response_model=SavedPlanItem)
def saved_plan(
    request: Request,
    caller: Annotated[Caller, authorised("read")],
    plan_id: Annotated[int, PathParam(ge=1, le=_MAX_ID)],
) -> Any:
    """One saved plan with its plan document as it was."""
    from gpuplan.catalog.team_store import TeamStore
    from gpuplan.i18n import use_language
    from gpuplan.web.work import saved_plan_item

    with use_language(caller.lang):
        store = _store(request)
        return saved_plan_item(TeamStore(store.engine).plan(plan_id), store, with_document=True)


@router.post("/plans/{plan_id}/cancel", response_model=SavedPlanItem)
def cancel_plan(
    request: Request,
    caller: Annotated[Caller, authorised("plan")],
    plan_id: Annotated[int, PathParam(ge=1, le=_MAX_ID)],
) -> Any:
    """Take a plan out of its month's planned spend (it stays in the history): a plan of the token's
    team (of no team: for a token of no team), or any plan for an admin; another team's is a 403."""
    from gpuplan.catalog.team_store import TeamStore
    from gpuplan.i18n import use_language
    from gpuplan.web.work import saved_plan_item

    store = _store(request)
    with use_language(caller.lang):
        return saved_plan_item(
            TeamStore(store.engine).set_plan_status(
                plan_id, "cancelled", actor=caller.name, team=caller.team, admin=caller.admin
            ),
            store,
        )


@router.get("/budget/{month}", response_model=BudgetDocument | YearBudgetDocument)
def budget(
    request: Request, caller: Annotated[Caller, authorised("read")], month: Period, team: Team = None
) -> Any:
    """The month's budget and the planned spend of its saved plans, with its year's beside it: a
    team's, or the whole service's with each team's beside it. A year (``YYYY``): the year's budget
    and the planned spend of its months (a :class:`YearBudgetDocument`)."""
    from gpuplan.i18n import use_language

    # a budget given in yuan says its conversion in the reader's language
    with use_language(caller.lang), _team_named():
        return _budget_document(_store(request), month, team)


def _budget_document(store: Any, period: str, team: str | None) -> dict[str, Any]:
    """The budget document of ``period``: a year's (``YYYY``) or a month's (``YYYY-MM``)."""
    from gpuplan.web.work import budget_document, year_budget_document

    return (
        year_budget_document(store, period, team)
        if len(period) == 4
        else budget_document(store, period, team)
    )


@router.put("/budget/{month}", response_model=BudgetDocument | YearBudgetDocument)
def set_budget(
    request: Request,
    caller: Annotated[Caller, authorised("admin")],
    month: Period,
    body: BudgetRequest,
    team: Team = None,
) -> Any:
    """Set the month's budget (``YYYY-MM``) or the year's (``YYYY``), the whole service's or a
    team's (an admin's to set, as every budget), in USD, or in CNY converted at the catalog's dated
    rate (said in its note)."""
    from gpuplan.catalog.team_store import TeamStore
    from gpuplan.i18n import use_language

    store = _store(request)
    amount, given_cny = body.amount_usd, None
    with use_language(caller.lang):
        if body.amount_cny is not None:
            from gpuplan.plan.build_inputs import cny_in_usd

            rate = store.find_exchange_rate("CNY")
            amount, _said = cny_in_usd(body.amount_cny, rate)
            assert rate is not None  # cny_in_usd refuses a budget in yuan without one
            given_cny = (body.amount_cny, rate)
        assert amount is not None  # the request holds one amount
        records = TeamStore(store.engine)
        keep = records.set_year_budget if len(month) == 4 else records.set_budget
        with _team_named():
            keep(month, amount, note=body.note, actor=caller.name, given_cny=given_cny, team=team)
        return _budget_document(store, month, team)


@router.get("/price-changes", response_model=PriceChangesDocument)
def price_changes(request: Request, caller: Annotated[Caller, authorised("read")], team: Team = None) -> Any:
    """What today's catalog does to the saved plans: the same option now, and today's best. A
    team's token checks its team's plans (a token of no team, the plans of no team); an admin's the
    plans of the team asked, or every plan. Another team's are refused (403)."""
    from gpuplan.catalog.team_store import TeamStore
    from gpuplan.i18n import use_language
    from gpuplan.web.work import price_changes as changes
    from gpuplan.web.work import price_check_scope

    store = _store(request)
    with use_language(caller.lang):
        if team is not None:
            with _team_named():
                TeamStore(store.engine).check_known_team(team)
        scope = price_check_scope(team, caller_team=caller.team, admin=caller.admin)
        return changes(
            store,
            Path(request.app.state.config.scratch_dir),
            lang=caller.lang,
            answers=request.app.state.answers,
            scope=scope,
        )


@router.get("/audit", response_model=AuditDocument)
def audit(
    request: Request,
    caller: Annotated[Caller, authorised("admin")],
    limit: Annotated[int, Query(ge=1, le=1000)] = 200,
) -> Any:
    """Every change, newest first: who, when, what."""
    from gpuplan.catalog.team_store import TeamStore

    return {"entries": [vars(e) for e in TeamStore(_store(request).engine).audit_entries(limit)]}
