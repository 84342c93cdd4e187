"""A catalog as gpuplan left it at revision 0004, holding one ``gpuplan measure`` recording stored
then — keyed only by its trace key, which named the Profile schema (4) and the torch it ran under."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, create_engine, text

from gpuplan.profile.key import key_fields
from gpuplan.workload import Workload

ROOT = Path(__file__).resolve().parents[2]
MEASURE = ROOT / "tests" / "machine" / "fixtures" / "measure"
WORKLOAD = MEASURE / "gpt2-lora.yaml"
#: The torch the old recording ran under (not this machine's 2.13.0+cpu).
OLD_TORCH = "2.12.0+cu126"


def old_trace_key(w: Workload, *, schema: int = 4, torch: str = OLD_TORCH) -> str:
    """The trace key ``w`` had under Profile schema ``schema`` and ``torch``."""
    fields = {**key_fields(w), "profile_schema_version": schema, "torch": torch}
    return hashlib.sha256(json.dumps(fields, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def old_recording(w: Workload) -> dict[str, Any]:
    """The real CPU recording of ``w`` (``gpt2-lora.cpu.json``) relabelled as a step on an A100 under
    an older torch and schema: what is tested is that the row is found and anchors, not its figures."""
    doc = json.loads((MEASURE / "gpt2-lora.cpu.json").read_text(encoding="utf-8"))
    doc["workload"]["profile_key"] = old_trace_key(w)
    doc["device"].update(
        kind="cuda", gpu_id="A100-SXM4-80GB", name="NVIDIA A100-SXM4-80GB", torch_version=OLD_TORCH
    )
    doc["notes"] = [n for n in doc["notes"] if not n.startswith("CPU recording")]
    return doc


def upgrade_to(conn: Connection, revision: str) -> None:
    """Migrate the database of ``conn`` to ``revision`` (not to head), as that gpuplan left it."""
    from alembic import command
    from alembic.config import Config

    from gpuplan.catalog import schema

    cfg = Config()
    cfg.set_main_option("script_location", str(Path(schema.__file__).parent / "migrations"))
    cfg.attributes["connection"] = conn
    command.upgrade(cfg, revision)


def make_0004_catalog(url: str, recordings: list[dict[str, Any]]) -> None:
    """Migrate the empty database at ``url`` to revision 0004 and store ``recordings`` as 0004 did."""
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            upgrade_to(conn, "0004_step_measurements")
            for doc in recordings:
                conn.execute(
                    text(
                        "INSERT INTO step_measurements (profile_key, workload_name, device, gpu_id, "
                        "device_name, measured_at, stored_at, schema_version, payload) VALUES (:key, "
                        ":name, :device, :gpu, :device_name, :at, :at, 1, :payload)"
                    ),
                    {
                        "key": doc["workload"]["profile_key"],
                        "name": doc["workload"]["name"],
                        "device": doc["device"]["kind"],
                        "gpu": doc["device"]["gpu_id"],
                        "device_name": doc["device"]["name"],
                        "at": doc["run"]["measured_at"],
                        "payload": json.dumps(doc),
                    },
                )
    finally:
        engine.dispose()


def make_0010_catalog_with_a_discount(url: str) -> None:
    """Migrate the empty database at ``url`` to revision 0010 and store a discount as 0010 did: one
    percentage for a provider's family, with no pricing model (it was taken off every one)."""
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            upgrade_to(conn, "0010_workload_teams")
            conn.execute(
                text(
                    "INSERT INTO discounts (provider, family, percent, set_at, note) "
                    "VALUES ('aws', 'p4d', 20.0, '2026-11-01T00:00:00+00:00', 'EA 2026')"
                )
            )
    finally:
        engine.dispose()


def downgrade_to(conn: Connection, revision: str) -> None:
    """Migrate the database of ``conn`` down to ``revision``."""
    from alembic import command
    from alembic.config import Config

    from gpuplan.catalog import schema

    cfg = Config()
    cfg.set_main_option("script_location", str(Path(schema.__file__).parent / "migrations"))
    cfg.attributes["connection"] = conn
    command.downgrade(cfg, revision)
