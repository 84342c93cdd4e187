"""Tables other layers keep in the catalog database: the profile cache and bench results."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from sqlalchemy import insert, select
from sqlalchemy.exc import SQLAlchemyError

from gpuplan.catalog import schema as t
from gpuplan.catalog.model import BenchResult
from gpuplan.catalog.opening import db_error, writing
from gpuplan.errors import StoreError

if TYPE_CHECKING:
    from gpuplan.catalog.store import Store

__all__ = ["add_bench_results", "bench_results", "get_profile", "put_profile"]


def _now_iso() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()


@contextmanager
def _one_line_errors(store: Store, what: str) -> Iterator[None]:
    """Database and file-system errors as one StoreError line (read-only file, disk full, locked)."""
    try:
        yield
    except (SQLAlchemyError, OSError) as e:
        raise StoreError(f"cannot {what} in {store.location}: {db_error(e)}") from e


def get_profile(store: Store, key: str, schema_version: int) -> str | None:
    """The cached profile payload for ``key`` at ``schema_version``; None if absent or older."""
    c = t.profile_cache.c
    with _one_line_errors(store, "read the profile cache"), store.engine.connect() as conn:
        row = conn.execute(select(c.payload).where(c.key == key, c.schema_version == schema_version)).first()
    return None if row is None else str(row.payload)


def put_profile(store: Store, key: str, schema_version: int, payload: str) -> None:
    """Cache a profile payload (replacing any entry for ``key``)."""
    c = t.profile_cache.c
    with _one_line_errors(store, "write the profile cache"), writing(store.engine) as conn:
        conn.execute(t.profile_cache.delete().where(c.key == key))
        conn.execute(
            insert(t.profile_cache).values(
                key=key, schema_version=schema_version, created_at=_now_iso(), payload=payload
            )
        )


def add_bench_results(store: Store, results: Sequence[BenchResult]) -> None:
    """Append measurements (one transaction)."""
    if not results:
        return
    with _one_line_errors(store, "save bench results"), writing(store.engine) as conn:
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


def bench_results(store: Store, gpu_id: str | None = None) -> list[BenchResult]:
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
    with store.engine.connect() as conn:
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
