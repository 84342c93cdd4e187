"""Stand-ins for a job's child process (``JobRunner.child_main``): a job that sleeps as long as its
request says, so that a test can run one past the time limit or cancel it, without a real trace."""

from __future__ import annotations

import os
import time


def sleeper(config_json: str, job_id: str) -> None:
    """Sleep ``request["sleep_s"]`` seconds, saying this process's id in the job's message, then
    finish the job (if it is still running)."""
    from gpuplan.catalog import open_store
    from gpuplan.catalog.job_store import JobStore
    from gpuplan.web.config import ServeConfig

    config = ServeConfig.from_json(config_json)
    store = open_store(config.db, seed=False)
    try:
        jobs = JobStore(store.engine)
        record = jobs.get(job_id)
        assert record is not None
        jobs.beat(job_id, 0.1, f"sleeping in {os.getpid()}")
        time.sleep(float(record.request["sleep_s"]))
        jobs.finish(job_id, {"slept_s": record.request["sleep_s"]})
    finally:
        store.close()
