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

A worker runs each job in a child process of its own and watches it: a job that runs past
``ServeConfig.job_limit_s``, or that its owner cancels (``DELETE /api/v1/jobs/{id}``), has its
process killed and its worker is free for the next job at once. A thread cannot be stopped from
outside in Python, and huey has no time limit for a running task (its ``expires`` applies to a
queued one only), so a process is the one thing that can end a trace stuck deep in torch. Starting
it costs a second or two of imports per job, small beside a trace.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from huey import Huey

    from gpuplan.catalog import Store
    from gpuplan.catalog.job_store import JobRecord, JobStore
    from gpuplan.web.config import ServeConfig

__all__ = ["JobRunner", "make_queue", "run_claimed", "run_in_child"]

#: Most seconds between two heartbeats of a running job (fewer when ``job_stall_s`` is short).
HEARTBEAT_S = 3.0
#: Seconds between two looks of a worker at its job's process and row (cancelled? past its limit?).
WATCH_S = 0.5


def run_claimed(store: Store, jobs: JobStore, record: JobRecord, scratch: Path, progress: Any) -> None:
    """Run a claimed job and end its row: done with its document, or failed with one line."""
    from gpuplan.errors import GpuplanError
    from gpuplan.i18n import use_language
    from gpuplan.i18n.error_text import error_text
    from gpuplan.web.requests import RefusedValue
    from gpuplan.web.work import JOB_KINDS, run_job

    try:
        result = run_job(store, record, scratch, progress)
    except GpuplanError as e:
        # in the language the job was asked in (the job ran in it; the line is written here),
        # naming the options as its request's fields
        names = JOB_KINDS[record.kind].OPTION_FIELDS
        with use_language(str(record.request.get("lang", "en"))):
            line = e.text(names)[0] if isinstance(e, RefusedValue) else error_text(e, names)
            jobs.fail(record.id, line)
    except Exception as e:
        jobs.fail(record.id, f"internal error: {type(e).__name__}: {e}")
        traceback.print_exc()
    else:
        jobs.finish(record.id, result)


def run_in_child(config_json: str, job_id: str) -> None:
    """The child process of one running job (:meth:`JobRunner._watch`): run it on a store of its
    own, writing its progress and its end to its row; stop when the worker that started it is gone."""
    from gpuplan.catalog import open_store
    from gpuplan.catalog.job_store import JobStore
    from gpuplan.web.config import ServeConfig

    _exit_with_parent()
    config = ServeConfig.from_json(config_json)
    store = open_store(config.db, seed=False)
    try:
        jobs = JobStore(store.engine)
        record = jobs.get(job_id)
        if record is None or record.status != "running":
            return  # cancelled before this process started

        def progress(fraction: float, message: str) -> None:
            jobs.beat(job_id, fraction, message)

        run_claimed(store, jobs, record, Path(config.scratch_dir), progress)
    finally:
        store.close()


def _exit_with_parent() -> None:
    """End this process when its parent (the worker) has gone, even if killed without a word: on
    Linux at once, by the kernel (``prctl(PR_SET_PDEATHSIG, SIGKILL)``, prctl(2): the signal comes
    when the thread that started this process ends, and the worker's thread waits on it), so that the
    worker that takes the job over is the only one to finish it; elsewhere within two seconds."""
    import multiprocessing

    # the worker that started this process, as multiprocessing recorded it when it did: getppid() here
    # would name whoever adopted this process if the worker died while it was starting
    started_by = multiprocessing.parent_process()
    parent = started_by.pid if started_by is not None and started_by.pid else os.getppid()
    if sys.platform == "linux":
        import ctypes
        import signal

        pr_set_pdeathsig = 1  # <linux/prctl.h>
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(1)  # the worker died before this process could ask to follow it

    def watch() -> None:
        while True:
            time.sleep(2.0)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="gpuplan-job-parent-watch", daemon=True).start()


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
        #: What the child process of a job runs: ``(settings as JSON, job id)``; a module-level
        #: function (the child imports it by name). Tests put a stand-in here.
        self.child_main: Any = run_in_child
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
        """Run one job to its end (done, failed, past its time limit or cancelled), beating its
        heartbeat meanwhile: in a child process, or in this thread where jobs run inline."""
        from gpuplan.catalog.job_store import JobStore

        with self._store() as store:
            jobs = JobStore(store.engine)
            record = jobs.claim(job_id)
            if record is None:
                return  # finished, unknown, or another worker has it
            state: dict[str, Any] = {"progress": None, "message": None}
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
                if self.config.jobs_inline:
                    run_claimed(store, jobs, record, Path(self.config.scratch_dir), progress)
                else:
                    self._watch(jobs, record)
            finally:
                stop.set()
                beater.join(timeout=self.heartbeat_s * 2)

    def _watch(self, jobs: JobStore, record: JobRecord) -> None:
        """Run ``record`` in a child process (:attr:`child_main`) and wait for it; kill it when the
        job runs past the time limit or its row has ended (cancelled)."""
        import multiprocessing

        from gpuplan.errors import Phrase
        from gpuplan.i18n import N_, use_language
        from gpuplan.i18n.error_text import phrase_text

        # spawn, not fork: this process has threads (other jobs, heartbeats) and open database
        # connections that a forked child would inherit mid-use
        process = multiprocessing.get_context("spawn").Process(
            target=self.child_main,
            args=(self.config.to_env(), record.id),
            name=f"gpuplan-job-{record.id}",
            daemon=True,
        )
        process.start()
        deadline = time.monotonic() + self.config.job_limit_s
        ended: str | None = None
        try:
            while process.exitcode is None:
                process.join(WATCH_S)
                if process.exitcode is not None:
                    break
                if time.monotonic() > deadline:
                    ended = "limit"
                    break
                with contextlib.suppress(Exception):  # a busy database: look again next round
                    now = jobs.get(record.id)
                    if now is None or now.status != "running":
                        ended = "ended"  # cancelled (or failed by another worker's stall check)
                        break
        finally:
            if process.exitcode is None:
                process.terminate()
                process.join(5)
                if process.exitcode is None:
                    process.kill()
                    process.join()
            code = process.exitcode
            process.close()
        with use_language(str(record.request.get("lang", "en"))):
            if ended == "limit":
                jobs.fail(
                    record.id,
                    phrase_text(
                        Phrase(
                            N_(
                                "stopped after {seconds:,.0f} s, the longest a job may run on this service "
                                "(gpuplan serve --job-limit-s)"
                            ),
                            seconds=self.config.job_limit_s,
                        )
                    ),
                )
            elif ended is None:
                # the process ended without ending the job (killed, out of memory): say so once
                current = jobs.get(record.id)
                if current is not None and current.status == "running":
                    line = Phrase(N_("the job's process stopped without an answer (exit {code})"), code=code)
                    jobs.fail(record.id, phrase_text(line))

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
