"""Background jobs: huey queues them in the catalog's own database, any replica's worker runs them.

The queue is huey's: its SQLite storage in the catalog file (WAL mode, so readers never wait for
it), or its PostgreSQL storage (psycopg 3, tables ``huey_*``) in a PostgreSQL catalog — every
worker and replica that opens the same database takes work from the same queue, and nothing else
has to run. The job's record (request, status, progress, result) is a row of ``jobs``
(:mod:`gpuplan.catalog.job_store`).
huey removes a message when a worker takes it, so a worker killed mid-job would lose it; the
record is what keeps it: a running job beats a heartbeat every few seconds, and every worker looks
for jobs whose heartbeat stopped (or that stayed queued too long) and queues them again. A job is
run by one worker at a time (``JobStore.claim``) and finishes once.
"""

from __future__ import annotations

import contextlib
import threading
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from huey import Huey

    from gpuplan.catalog import Store
    from gpuplan.web.config import ServeConfig

__all__ = ["JobRunner", "make_queue"]

#: Most seconds between two heartbeats of a running job (fewer when ``job_stall_s`` is short).
HEARTBEAT_S = 3.0


def make_queue(config: ServeConfig) -> Huey:
    """The huey instance of ``config``'s database (SQLite file or PostgreSQL), or an in-process
    one that runs each job as it is queued (``config.jobs_inline``: tests, one-off use)."""
    from huey import MemoryHuey, SqliteHuey

    name = "gpuplan"
    if config.jobs_inline:
        return MemoryHuey(name, immediate=True)
    url, path = config.database()
    if path is not None:
        # timeout: wait for another writer as the catalog does (open_catalog.BUSY_TIMEOUT_S).
        return SqliteHuey(name, filename=str(path), journal_mode="wal", timeout=60)
    from sqlalchemy.engine import make_url

    u = make_url(url)
    if u.get_backend_name() != "postgresql":
        from gpuplan.errors import StoreError
        from gpuplan.i18n import N_

        raise StoreError.worded(
            N_("gpuplan serve keeps its job queue in a SQLite file or PostgreSQL, not in {backend}"),
            backend=u.get_backend_name(),
        )
    from huey import PostgresHuey

    # libpq reads the same URL without SQLAlchemy's driver name (host/port may be query parameters).
    dsn = u.set(drivername="postgresql").render_as_string(hide_password=False)
    # blocking=False: poll rather than LISTEN, whose per-thread connections huey leaves to the GC.
    return PostgresHuey(name, dsn=dsn, table_prefix="huey", blocking=False)


class JobRunner:
    """Queues jobs and runs them: the endpoints call :meth:`submit`; a worker process (``gpuplan
    serve`` starts one, ``gpuplan serve worker`` runs one alone) calls :meth:`work`."""

    def __init__(self, config: ServeConfig, open_store: Any) -> None:
        from gpuplan.catalog.job_store import JobStore

        self.config = config
        self._open_store = open_store
        # The catalog first: opening it refuses a database that is not gpuplan's, untouched, before
        # huey creates its queue tables in the same file.
        self._own = open_store()
        try:
            self.huey = make_queue(config)
        except BaseException:
            self._own.close()
            raise
        self.stall_s = config.job_stall_s
        self.heartbeat_s = min(HEARTBEAT_S, config.job_stall_s / 4)
        self.task = self.huey.task(name="gpuplan.run_job")(self.run)
        self.jobs = JobStore(self._own.engine)

    @contextlib.contextmanager
    def _store(self) -> Iterator[Store]:
        store = self._open_store()
        try:
            yield store
        finally:
            store.close()

    def submit(self, job_id: str) -> None:
        self.task(job_id)

    def run(self, job_id: str) -> None:
        """Run one job to its end (done or failed), beating its heartbeat meanwhile."""
        from gpuplan.catalog.job_store import JobStore
        from gpuplan.errors import GpuplanError
        from gpuplan.i18n import use_language
        from gpuplan.i18n.error_text import error_text
        from gpuplan.web.requests import RefusedValue
        from gpuplan.web.work import JOB_KINDS, run_job

        with self._store() as store:
            jobs = JobStore(store.engine)
            record = jobs.claim(job_id)
            if record is None:
                return  # finished, unknown, or another worker has it
            state: dict[str, Any] = {"progress": 0.0, "message": "started"}
            stop = threading.Event()

            def beat() -> None:
                while not stop.wait(self.heartbeat_s):
                    with contextlib.suppress(Exception):  # a missed beat only risks a re-run
                        jobs.beat(job_id, state["progress"], state["message"])

            def progress(fraction: float, message: str) -> None:
                state["progress"], state["message"] = fraction, message
                jobs.beat(job_id, fraction, message)

            beater = threading.Thread(target=beat, name=f"gpuplan-job-{job_id}", daemon=True)
            beater.start()
            try:
                result = run_job(store, record, Path(self.config.scratch_dir), progress)
            except GpuplanError as e:
                # in the language the job was asked in (the job ran in it; the line is written here),
                # naming the options as its request's fields
                names = JOB_KINDS[record.kind].OPTION_FIELDS
                with use_language(str(record.request.get("lang", "en"))):
                    line = e.text(names)[0] if isinstance(e, RefusedValue) else error_text(e, names)
                    jobs.fail(job_id, line)
            except Exception as e:
                jobs.fail(job_id, f"internal error: {type(e).__name__}: {e}")
                traceback.print_exc()
            else:
                jobs.finish(job_id, result)
            finally:
                stop.set()
                beater.join(timeout=self.heartbeat_s * 2)

    def requeue_stalled(self) -> list[str]:
        again = self.jobs.stalled(self.stall_s)
        for job_id in again:
            self.submit(job_id)
        return again

    def _take(self, stop: threading.Event) -> None:
        """One worker thread: take the next message from huey's queue and run it, until ``stop``."""
        idle = 0.1
        try:
            while not stop.is_set():
                try:
                    task = self.huey.dequeue()
                except Exception:
                    task = None
                if task is None:
                    stop.wait(idle)
                    idle = min(idle * 2, 1.0)
                    continue
                idle = 0.1
                self.huey.execute(task)
        finally:
            self.huey.storage.close()  # this thread's connection

    def work(self, threads: int = 1, stop: threading.Event | None = None) -> None:
        """Run jobs on ``threads`` threads until ``stop`` is set (or forever), and queue stalled jobs
        again. huey's own consumer would also install signal handlers, which only the main thread
        of a process may; this loop leaves signals to its caller."""
        stop = stop or threading.Event()
        with contextlib.suppress(Exception):
            self.requeue_stalled()  # a worker that starts takes over what a dead one left
        takers = [
            threading.Thread(target=self._take, args=(stop,), name=f"gpuplan-jobs-{i}", daemon=True)
            for i in range(threads)
        ]
        for t in takers:
            t.start()
        try:
            while not stop.wait(self.stall_s / 3):
                with contextlib.suppress(Exception):  # a busy database: try again next round
                    self.requeue_stalled()
        finally:
            stop.set()
            for t in takers:
                t.join(timeout=30)
            self.huey.storage.close()

    def close(self) -> None:
        """Release the runner's store and the queue's connection of the calling thread."""
        self.huey.storage.close()
        self._own.close()
