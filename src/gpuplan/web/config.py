"""The service's settings: built once by ``gpuplan serve`` and handed to every worker process.

uvicorn starts each worker by importing the application, so the settings travel as JSON in one
environment variable (:data:`ENV`) that :func:`create_app` reads. The database URL, password
included, goes to the worker processes this way (as ``GPUPLAN_DB`` reached the parent); it is
never printed or logged (shown, it has its password hidden).
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

__all__ = ["ENV", "ServeConfig"]

#: The environment variable that carries the settings to uvicorn's worker processes.
ENV = "GPUPLAN_SERVE_CONFIG"


@dataclass(frozen=True, kw_only=True)
class ServeConfig:
    db: str | None = None
    """The catalog database (path or SQLAlchemy URL); None = the user's default file."""
    cors_origins: tuple[str, ...] = ()
    """Origins a browser may call the API from (CORS); empty = none (the dashboard is same-origin)."""
    max_body_bytes: int = 4 * 1024 * 1024
    """Largest request body; a bigger one gets 413 before it is read whole."""
    scratch_dir: str = field(default_factory=lambda: str(Path(tempfile.gettempdir()) / "gpuplan-serve"))
    """Where inline Hugging Face configs are written for tracing (by content digest)."""
    jobs_inline: bool = False
    """Run each job in the request's process as it is queued (tests); else a worker takes it."""
    default_lang: str = "en"
    threads: int = 8
    """Requests a worker process serves at once (its thread pool; the rest wait their turn). Python
    runs one thread at a time: more threads than a few per core make each request wait for the
    others' turns, and a thread holding the database's write lock wait longest."""
    job_stall_s: float = 30.0
    """A running job whose heartbeat is older than this (its worker died), or a job queued this
    long, is queued again; heartbeats come every quarter of it (at most every 3 s)."""
    job_limit_s: float = 600.0
    """Longest a job may run on a worker: then its process is killed and the job fails, saying so
    (a trace of a deep inline config can take many minutes, and the worker is wanted by the next job).
    Jobs run inline (:attr:`jobs_inline`) have no limit: they run in the request's own thread."""
    api_docs: bool = False
    """Serve the interactive API page (Swagger UI) at ``/api/docs``, its files from the
    swagger-ui-bundle package (never from another origin); ``/api/openapi.json`` is served either way."""

    def database(self) -> tuple[str, Path | None]:
        """(SQLAlchemy URL, SQLite file or None) of :attr:`db`."""
        from gpuplan.catalog.open_catalog import default_db_path

        if self.db is None:
            path = default_db_path()
            return f"sqlite:///{path}", path
        if "://" not in self.db:
            path = Path(self.db).expanduser().resolve()
            return f"sqlite:///{path}", path
        if self.db.startswith("sqlite:///") and "?" not in self.db and ":memory:" not in self.db:
            return self.db, Path(self.db[len("sqlite:///") :]).resolve()
        return self.db, None

    def to_env(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_env(cls) -> ServeConfig:
        text = os.environ.get(ENV)
        if not text:
            return cls(db=os.environ.get("GPUPLAN_DB"))
        return cls.from_json(text)

    @classmethod
    def from_json(cls, text: str) -> ServeConfig:
        """The settings :meth:`to_env` wrote."""
        data = json.loads(text)
        data["cors_origins"] = tuple(data.get("cors_origins") or ())
        return cls(**data)
