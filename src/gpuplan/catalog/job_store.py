"""Background jobs and cached plan documents of ``gpuplan serve``, kept in the catalog's database.

A job row is the record a client polls: its request, status, progress and result. The queue that
hands jobs to workers is a queue library's (huey, in ``gpuplan.web.jobs``); this table is what makes
a job survive its worker: a worker beats a heartbeat while it runs one, and a job whose heartbeat
stops (the worker was killed) is handed out again (:meth:`JobStore.stalled`). A job finishes once:
the first ``finish`` of a run wins; a result is never overwritten.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

from sqlalchemy import insert, select, update

from gpuplan.catalog import schema as t
from gpuplan.catalog.team_store import TeamStore, now_iso
from gpuplan.catalog.transactions import writing

if TYPE_CHECKING:
    from sqlalchemy import Engine

__all__ = ["ENDED", "JOB_STATUSES", "JobRecord", "JobStore"]

JOB_STATUSES = ("queued", "running", "done", "failed", "cancelled")
#: The statuses a job ends in: never run again, never changed again.
ENDED = ("done", "failed", "cancelled")
#: A job tried this many times (its workers died each time) fails instead of being handed out again.
MAX_ATTEMPTS = 3


@dataclass(frozen=True, kw_only=True)
class JobRecord:
    id: str
    kind: str
    request: dict[str, Any]
    status: str
    progress: float
    """0 to 1."""
    message: str
    result: dict[str, Any] | None
    error: str | None
    created_by: str
    created_at: str
    started_at: str | None
    finished_at: str | None
    heartbeat_at: str | None
    attempts: int


def _record(r: Any) -> JobRecord:
    return JobRecord(
        id=r.id,
        kind=r.kind,
        request=json.loads(r.request),
        status=r.status,
        progress=r.progress,
        message=r.message,
        result=json.loads(r.result) if r.result is not None else None,
        error=r.error,
        created_by=r.created_by,
        created_at=r.created_at,
        started_at=r.started_at,
        finished_at=r.finished_at,
        heartbeat_at=r.heartbeat_at,
        attempts=r.attempts,
    )


class JobStore:
    """The jobs and the plan cache of one database."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def create(self, kind: str, request: dict[str, Any], *, actor: str) -> JobRecord:
        job_id = secrets.token_hex(12)
        now = now_iso()
        with writing(self.engine) as conn:
            conn.execute(
                insert(t.jobs).values(
                    id=job_id,
                    kind=kind,
                    request=json.dumps(request, sort_keys=True, ensure_ascii=False),
                    status="queued",
                    progress=0.0,
                    message="",
                    result=None,
                    error=None,
                    created_by=actor,
                    created_at=now,
                    started_at=None,
                    finished_at=None,
                    heartbeat_at=None,
                    attempts=0,
                )
            )
            TeamStore.audit(conn, actor, "job.create", job_id, {"kind": kind})
        return self.get(job_id)  # type: ignore[return-value]

    def get(self, job_id: str) -> JobRecord | None:
        with self.engine.connect() as conn:
            r = conn.execute(select(t.jobs).where(t.jobs.c.id == job_id)).first()
        return None if r is None else _record(r)

    def claim(self, job_id: str) -> JobRecord | None:
        """Mark ``job_id`` running for this worker (one more attempt); None when it is finished,
        already running under a live heartbeat, or unknown."""
        c = t.jobs.c
        now = now_iso()
        with writing(self.engine) as conn:
            # FOR UPDATE: on PostgreSQL two workers claiming at once queue on the row (SQLite's
            # BEGIN IMMEDIATE already serialises writers).
            r = conn.execute(select(c.status, c.attempts).where(c.id == job_id).with_for_update()).first()
            if r is None or r.status in ENDED:
                return None
            if r.status == "running":
                return None  # another worker holds it; stalled() hands it out again if that one died
            conn.execute(
                update(t.jobs)
                .where(c.id == job_id)
                .values(status="running", started_at=now, heartbeat_at=now, attempts=r.attempts + 1)
            )
        return self.get(job_id)

    def beat(self, job_id: str, progress: float | None = None, message: str | None = None) -> None:
        """The heartbeat of a running job, and its progress where given (the process that watches a
        job beats without knowing its progress; the job's own process says it)."""
        c = t.jobs.c
        values: dict[str, Any] = {"heartbeat_at": now_iso()}
        if progress is not None:
            values["progress"] = max(0.0, min(1.0, progress))
        if message is not None:
            values["message"] = message[:500]
        with writing(self.engine) as conn:
            conn.execute(update(t.jobs).where(c.id == job_id, c.status == "running").values(**values))

    def finish(self, job_id: str, result: dict[str, Any]) -> None:
        self._end(job_id, status="done", result=json.dumps(result, ensure_ascii=False), error=None)

    def fail(self, job_id: str, error: str) -> None:
        self._end(job_id, status="failed", result=None, error=error[:2000])

    def cancel(self, job_id: str, error: str, *, actor: str) -> bool:
        """End a queued or running job as ``cancelled``, ``error`` saying who cancelled it (its worker
        sees that and stops it); False when it had ended already."""
        with writing(self.engine) as conn:
            ended = self._end_in(conn, job_id, status="cancelled", result=None, error=error[:2000])
            if ended:
                TeamStore.audit(conn, actor, "job.cancel", job_id, {})
        return ended

    def _end(self, job_id: str, *, status: str, result: str | None, error: str | None) -> None:
        with writing(self.engine) as conn:
            self._end_in(conn, job_id, status=status, result=result, error=error)

    @staticmethod
    def _end_in(conn: Any, job_id: str, *, status: str, result: str | None, error: str | None) -> bool:
        c = t.jobs.c
        return bool(
            conn.execute(
                update(t.jobs)
                .where(c.id == job_id, c.status.in_(("running", "queued")))
                .values(
                    status=status,
                    result=result,
                    error=error,
                    progress=1.0,
                    message=status,
                    finished_at=now_iso(),
                    heartbeat_at=now_iso(),
                )
            ).rowcount
        )

    def stalled(self, older_than_s: float) -> list[str]:
        """Jobs to hand out again: running with a heartbeat older than ``older_than_s`` (their worker
        died), or queued longer than that (the queue message was lost with a killed worker). Each is
        set back to queued; one tried :data:`MAX_ATTEMPTS` times fails instead."""
        c = t.jobs.c
        cutoff = now_iso(datetime.now(timezone.utc) - timedelta(seconds=older_than_s))
        again: list[str] = []
        with writing(self.engine) as conn:
            rows = conn.execute(
                select(c.id, c.status, c.attempts, c.heartbeat_at, c.created_at)
                .where(c.status.in_(("running", "queued")))
                .with_for_update()
            ).all()
            for r in rows:
                last = r.heartbeat_at or r.created_at
                if last >= cutoff:
                    continue
                if r.status == "running" and r.attempts >= MAX_ATTEMPTS:
                    conn.execute(
                        update(t.jobs)
                        .where(c.id == r.id)
                        .values(
                            status="failed",
                            error=f"the job's worker stopped {r.attempts} times while running it",
                            finished_at=now_iso(),
                        )
                    )
                    continue
                conn.execute(
                    update(t.jobs).where(c.id == r.id).values(status="queued", heartbeat_at=now_iso())
                )
                again.append(r.id)
        return again

    # -- the plan cache ----------------------------------------------------------------------------

    def cached_document(self, key: str) -> str | None:
        with self.engine.connect() as conn:
            r = conn.execute(select(t.plan_cache.c.document).where(t.plan_cache.c.key == key)).first()
        return None if r is None else str(r.document)

    def cache_document(self, key: str, document: str) -> None:
        c = t.plan_cache.c
        with writing(self.engine) as conn:
            conn.execute(t.plan_cache.delete().where(c.key == key))
            conn.execute(insert(t.plan_cache).values(key=key, created_at=now_iso(), document=document))
