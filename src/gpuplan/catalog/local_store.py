"""What gpuplan records on this machine, kept beside the catalog: the profile cache, bench results
and the workload steps ``gpuplan measure`` timed.

The tables live in the same database as the offers (one file to back up, one migration chain),
but their owner is this module, not the catalog :class:`~gpuplan.catalog.store.Store`, which
knows nothing of workloads. ``store.local`` opens a :class:`LocalStore` on the store's engine.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timezone

from sqlalchemy import Engine, insert, select
from sqlalchemy.exc import SQLAlchemyError

from gpuplan.catalog import schema as t
from gpuplan.catalog.model import BenchResult, StoredMeasurement
from gpuplan.catalog.transactions import db_error, writing
from gpuplan.errors import Phrase, StoreError
from gpuplan.i18n.messages import N_

__all__ = ["LocalStore"]


def _now_iso() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()


class LocalStore:
    """The profile cache, the ``gpuplan bench`` results and the ``gpuplan measure`` recordings of
    one database."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    @contextmanager
    def _one_line_errors(self, what: Phrase) -> Iterator[None]:
        """Database and file-system errors as one StoreError line (read-only file, disk full, locked):
        the caller (the CLI's profile cache) turns it into a warning instead of losing an estimate."""
        try:
            yield
        except (SQLAlchemyError, OSError) as e:
            where = self.engine.url.render_as_string(hide_password=True)
            raise StoreError.worded(
                N_("cannot {what} in {where}: {why}"), what=what, where=where, why=db_error(e)
            ) from e

    def get_profile(self, key: str, schema_version: int) -> str | None:
        """The cached profile payload for ``key`` at ``schema_version``; None if absent or older."""
        c = t.profile_cache.c
        with self._one_line_errors(Phrase(N_("read the profile cache"))), self.engine.connect() as conn:
            row = conn.execute(
                select(c.payload).where(c.key == key, c.schema_version == schema_version)
            ).first()
        return None if row is None else str(row.payload)

    def put_profile(self, key: str, schema_version: int, payload: str) -> None:
        """Cache a profile payload (replacing any entry for ``key``)."""
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
        c = t.bench_results.c
        stmt = select(
            c.gpu_id,
            c.device_name,
            c.host,
            c.measured_at,
            c.metric,
            c.dtype,
            c.value,
            c.unit,
            c.datasheet_value,
            c.details,
        ).order_by(c.measured_at, c.id)
        if gpu_id is not None:
            stmt = stmt.where(c.gpu_id == gpu_id)
        with self.engine.connect() as conn:
            rows = conn.execute(stmt).all()
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
        with self._one_line_errors(Phrase(N_("save the measurement"))), writing(self.engine) as conn:
            conn.execute(
                insert(t.step_measurements).values(
                    profile_key=m.profile_key,
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

    def step_measurements(self, profile_key: str | None = None) -> list[StoredMeasurement]:
        """Stored recordings, oldest first; only those of ``profile_key`` when given."""
        c = t.step_measurements.c
        stmt = select(
            c.profile_key,
            c.workload_name,
            c.device,
            c.gpu_id,
            c.device_name,
            c.measured_at,
            c.schema_version,
            c.payload,
        ).order_by(c.measured_at, c.id)
        if profile_key is not None:
            stmt = stmt.where(c.profile_key == profile_key)
        with self._one_line_errors(Phrase(N_("read the measurements"))), self.engine.connect() as conn:
            rows = conn.execute(stmt).all()
        return [
            StoredMeasurement(
                profile_key=r.profile_key,
                workload_name=r.workload_name,
                device=r.device,
                gpu_id=r.gpu_id,
                device_name=r.device_name,
                measured_at=r.measured_at,
                schema_version=r.schema_version,
                payload=r.payload,
            )
            for r in rows
        ]
