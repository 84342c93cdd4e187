"""What gpuplan records on this machine, kept beside the catalog: the profile cache, bench results
and the workload steps ``gpuplan measure`` timed.

The tables live in the same database as the offers (one file to back up, one migration chain),
but their owner is this module, not the catalog :class:`~gpuplan.catalog.store.Store`, which
knows nothing of workloads. ``store.local`` opens a :class:`LocalStore` on the store: reads go
through the store's plain SQL (the standard library's sqlite3 on a ready SQLite file, so a plan on a
cached profile never imports SQLAlchemy), writes through its engine.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Protocol

from gpuplan.catalog.model import BenchResult, StoredMeasurement
from gpuplan.errors import NotFoundError, Phrase, StoreError
from gpuplan.i18n.messages import N_

if TYPE_CHECKING:
    from sqlalchemy import Engine

__all__ = ["LocalStore"]


def _now_iso() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()


class Database(Protocol):
    """What a :class:`LocalStore` needs of its database (the catalog ``Store`` is one)."""

    @property
    def engine(self) -> Engine: ...

    location: str
    """Where the database is, password masked (for messages)."""

    def _query(self, sql: str, params: dict[str, Any] | None = None) -> list[Any]: ...


class LocalStore:
    """The profile cache, the ``gpuplan bench`` results and the ``gpuplan measure`` recordings of
    one database."""

    def __init__(self, db: Database) -> None:
        self._db = db

    @property
    def engine(self) -> Engine:
        return self._db.engine

    @contextmanager
    def _one_line_errors(self, what: Phrase) -> Iterator[None]:
        """Database and file-system errors as one StoreError line (read-only file, disk full, locked):
        the caller (the CLI's profile cache) turns it into a warning instead of losing an estimate."""
        try:
            yield
        except StoreError as e:  # the store's plain read, already one line
            raise StoreError.worded(
                N_("cannot {what} in {where}: {why}"),
                what=what,
                where=self._db.location,
                why=e.__cause__ or e,
            ) from e
        except Exception as e:
            # A SQLAlchemy error can only come once SQLAlchemy is loaded: the read path never loads it.
            sa = sys.modules.get("sqlalchemy.exc")
            if not (isinstance(e, OSError) or (sa is not None and isinstance(e, sa.SQLAlchemyError))):
                raise
            from gpuplan.catalog.transactions import db_error

            where = self.engine.url.render_as_string(hide_password=True)
            raise StoreError.worded(
                N_("cannot {what} in {where}: {why}"), what=what, where=where, why=db_error(e)
            ) from e

    def get_profile(self, key: str, schema_version: int) -> str | None:
        """The cached profile payload for ``key`` at ``schema_version``; None if absent or older."""
        with self._one_line_errors(Phrase(N_("read the profile cache"))):
            rows = self._db._query(
                "SELECT payload FROM profile_cache WHERE key = :key AND schema_version = :version",
                {"key": key, "version": schema_version},
            )
        return None if not rows else str(rows[0].payload)

    def put_profile(self, key: str, schema_version: int, payload: str) -> None:
        """Cache a profile payload (replacing any entry for ``key``)."""
        from sqlalchemy import insert

        from gpuplan.catalog import schema as t
        from gpuplan.catalog.transactions import writing

        c = t.profile_cache.c
        with self._one_line_errors(Phrase(N_("write the profile cache"))), writing(self.engine) as conn:
            conn.execute(t.profile_cache.delete().where(c.key == key))
            conn.execute(
                insert(t.profile_cache).values(
                    key=key, schema_version=schema_version, created_at=_now_iso(), payload=payload
                )
            )

    def add_bench_results(self, results: Sequence[BenchResult]) -> None:
        """Append measurements (one transaction)."""
        if not results:
            return
        from sqlalchemy import insert

        from gpuplan.catalog import schema as t
        from gpuplan.catalog.transactions import writing

        with self._one_line_errors(Phrase(N_("save bench results"))), writing(self.engine) as conn:
            conn.execute(
                insert(t.bench_results),
                [
                    {
                        "gpu_id": r.gpu_id,
                        "device_name": r.device_name,
                        "host": r.host,
                        "measured_at": r.measured_at,
                        "metric": r.metric,
                        "dtype": r.dtype,
                        "value": r.value,
                        "unit": r.unit,
                        "datasheet_value": r.datasheet_value,
                        "details": json.dumps(r.details, sort_keys=True),
                    }
                    for r in results
                ],
            )

    def bench_results(self, gpu_id: str | None = None) -> list[BenchResult]:
        """Stored measurements, oldest first; only ``gpu_id``'s when given."""
        where = " WHERE gpu_id = :gpu" if gpu_id is not None else ""
        rows = self._db._query(
            "SELECT gpu_id, device_name, host, measured_at, metric, dtype, value, unit, datasheet_value, "
            f"details FROM bench_results{where} ORDER BY measured_at, id",
            {"gpu": gpu_id} if gpu_id is not None else None,
        )
        return [
            BenchResult(
                gpu_id=r.gpu_id,
                device_name=r.device_name,
                host=r.host,
                measured_at=r.measured_at,
                metric=r.metric,
                dtype=r.dtype,
                value=r.value,
                unit=r.unit,
                datasheet_value=r.datasheet_value,
                details=json.loads(r.details) if r.details else {},
            )
            for r in rows
        ]

    def add_step_measurement(self, m: StoredMeasurement) -> None:
        """Keep one ``gpuplan measure`` recording (its JSON payload, indexed by the workload's key)."""
        from sqlalchemy import insert

        from gpuplan.catalog import schema as t
        from gpuplan.catalog.transactions import writing

        with self._one_line_errors(Phrase(N_("save the measurement"))), writing(self.engine) as conn:
            conn.execute(
                insert(t.step_measurements).values(
                    profile_key=m.profile_key,
                    measurement_key=m.measurement_key,
                    workload_name=m.workload_name,
                    device=m.device,
                    gpu_id=m.gpu_id,
                    device_name=m.device_name,
                    measured_at=m.measured_at,
                    stored_at=_now_iso(),
                    schema_version=m.schema_version,
                    payload=m.payload,
                )
            )

    def step_measurements(self, measurement_key: str | None = None) -> list[StoredMeasurement]:
        """Stored recordings, oldest first. With ``measurement_key``: those of it, and those stored
        before recordings carried one (``measurement_key`` None: the caller matches them by their
        trace key, ``gpuplan.perf.anchor.workload_measurements``)."""
        where = " WHERE measurement_key = :key OR measurement_key IS NULL" if measurement_key else ""
        with self._one_line_errors(Phrase(N_("read the measurements"))):
            rows = self._db._query(
                "SELECT id, profile_key, measurement_key, workload_name, device, gpu_id, device_name, "
                f"measured_at, schema_version, payload FROM step_measurements{where} "
                "ORDER BY measured_at, id",
                {"key": measurement_key} if measurement_key else None,
            )
        return [_stored(r) for r in rows]

    def delete_step_measurements(self, ids: Sequence[str]) -> list[StoredMeasurement]:
        """Remove the recordings ``ids`` (as the user wrote them) and return them, all or none: with
        one that no recording has, nothing is removed (:class:`NotFoundError`; a workload's name
        given for an id suggests its recordings' ids)."""
        from sqlalchemy import delete, select

        from gpuplan.catalog import schema as t
        from gpuplan.catalog.transactions import writing

        c = t.step_measurements.c
        with self._one_line_errors(Phrase(N_("delete the measurements"))), writing(self.engine) as conn:
            stored = {r.id: _stored(r) for r in conn.execute(select(t.step_measurements))}
            chosen = []
            for given in ids:
                key = int(given) if given.strip().isdigit() else None
                if key is None or key not in stored:
                    raise _unknown_recording(given, stored)
                chosen.append(key)
            conn.execute(delete(t.step_measurements).where(c.id.in_(chosen)))
        return [stored[i] for i in dict.fromkeys(chosen)]


def _unknown_recording(given: str, stored: dict[int, StoredMeasurement]) -> NotFoundError:
    """An id no recording has: the ids of the workload named ``given`` (a name given for an id)
    suggested, else the known ids listed (or the closest)."""
    known = [str(i) for i in sorted(stored)]
    same = [str(i) for i, m in sorted(stored.items()) if m.workload_name == given]
    return NotFoundError(
        "recording id", given, known, hint=N_("see gpuplan catalog recordings list"), suggestions=same or None
    )


def _stored(r: Any) -> StoredMeasurement:
    """A ``step_measurements`` row as the recording it keeps."""
    return StoredMeasurement(
        profile_key=r.profile_key,
        measurement_key=r.measurement_key,
        workload_name=r.workload_name,
        device=r.device,
        gpu_id=r.gpu_id,
        device_name=r.device_name,
        measured_at=r.measured_at,
        schema_version=r.schema_version,
        payload=r.payload,
        id=r.id,
    )
