"""A stored ``gpuplan measure`` recording is found by what was measured: a catalog upgraded from
revision 0004 still anchors on the recordings it held, and a new Profile schema or torch no longer
orphans one (the trace key names both; the measurement key neither)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from old_catalog import OLD_TORCH, WORKLOAD, make_0004_catalog, old_recording, old_trace_key
from sqlalchemy import create_engine, inspect, text

from gpuplan.api import estimate
from gpuplan.catalog import StoredMeasurement, open_store
from gpuplan.perf.anchor import workload_measurements
from gpuplan.profile import key as profile_key_module
from gpuplan.profile import measurement_key, profile_key
from gpuplan.workload import load_workload


def _anchored_on_the_a100(db: str) -> tuple[list[str], list[str]]:
    """The notes of the workload's A100 estimate with the catalog's recordings, and the problems."""
    w = load_workload(WORKLOAD)
    store = open_store(db, seed=False)
    try:
        steps, problems = workload_measurements(w, store.local.step_measurements)
    finally:
        store.close()
    own = estimate(w, ["A100-SXM4-80GB"], measured_steps=steps).outcomes[0].estimate
    assert own is not None and own.anchored is not None and not own.anchored.transferred
    return list(own.notes), problems


def test_a_recording_stored_at_revision_0004_still_anchors_after_the_upgrade(tmp_path: Path) -> None:
    w = load_workload(WORKLOAD)
    path = tmp_path / "old.sqlite"
    make_0004_catalog(f"sqlite:///{path}", [old_recording(w)])
    # Its trace key is of schema 4 and torch 2.12: the key of this workload now differs.
    assert old_trace_key(w) != profile_key(w)
    notes, problems = _anchored_on_the_a100(str(path))  # open_store upgrades to head
    assert problems == []
    # Anchored, and the note says the step ran under another torch than this machine's.
    assert any(f"measured under torch {OLD_TORCH}" in n for n in notes)
    engine = create_engine(f"sqlite:///{path}")
    try:
        assert "measurement_key" in {c["name"] for c in inspect(engine).get_columns("step_measurements")}
        with engine.connect() as conn:
            # The old row keeps NULL: the key cannot be rebuilt from a row alone.
            assert conn.execute(text("SELECT measurement_key FROM step_measurements")).all() == [(None,)]
    finally:
        engine.dispose()


def test_an_old_row_of_this_name_that_matches_no_key_is_said_not_dropped(tmp_path: Path) -> None:
    w = load_workload(WORKLOAD)
    doc = old_recording(w)
    doc["workload"]["profile_key"] = "f" * 64  # a key no schema of this workload ever had
    other = old_recording(w) | {"workload": doc["workload"] | {"name": "someone-else"}}
    path = tmp_path / "old.sqlite"
    make_0004_catalog(f"sqlite:///{path}", [doc, other])
    store = open_store(str(path), seed=False)
    try:
        steps, problems = workload_measurements(w, store.local.step_measurements)
    finally:
        store.close()
    # Neither is used; the one under this workload's name is said, the other workload's is not.
    assert steps == [] and len(problems) == 1
    assert "gpt2-lora-tiny" in problems[0] and "not used" in problems[0]


def test_a_profile_schema_bump_or_torch_upgrade_no_longer_orphans_a_measurement(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = load_workload(WORKLOAD)
    doc = old_recording(w)
    doc["workload"]["profile_key"] = profile_key(w)
    doc["device"]["torch_version"] = profile_key_module.installed_torch_version()
    db = str(tmp_path / "new.sqlite")
    store = open_store(db, seed=False)
    try:
        store.local.add_step_measurement(
            StoredMeasurement(
                profile_key=profile_key(w),
                measurement_key=measurement_key(w),
                workload_name=w.name,
                device="cuda",
                gpu_id="A100-SXM4-80GB",
                device_name=doc["device"]["name"],
                measured_at=doc["run"]["measured_at"],
                schema_version=1,
                payload=json.dumps(doc),
            )
        )
    finally:
        store.close()
    before = profile_key(w)
    # The next Profile schema and a torch upgrade: every trace key changes, the measurement key not.
    monkeypatch.setattr(profile_key_module, "PROFILE_SCHEMA_VERSION", 6)
    monkeypatch.setattr(profile_key_module, "_torch_version", lambda: "2.14.0+cu130")
    assert profile_key(w) != before
    notes, problems = _anchored_on_the_a100(db)
    assert problems == []
    assert any("measured under torch 2.13.0+cpu, this machine has torch 2.14.0+cu130" in n for n in notes)
