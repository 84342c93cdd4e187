"""A profile cache that cannot be written (read-only file system, full disk, another writer holding
the lock) is one warning line; the estimate is never lost."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

import gpuplan.catalog.open_catalog as opening
import gpuplan.profile.key as profile_key
from fault_helpers import record, remount, small_tmpfs
from gpuplan.catalog import open_store
from gpuplan.cli._profiles import load_profile
from gpuplan.errors import StoreError
from gpuplan.workload import Workload

WORKLOAD = Workload.from_dict({"name": "w", "model": "gpt2", "inputs": {"batch_size": 1, "seq_len": 8}})


class _Traced:
    """Stands in for a traced Profile (the tracer is stubbed: these tests are about the cache)."""

    def __init__(self, size: int) -> None:
        self.payload = "x" * size

    def to_json(self) -> str:
        return self.payload


@pytest.fixture
def traced(monkeypatch: pytest.MonkeyPatch) -> Iterator[_Traced]:
    result = _Traced(300_000)
    monkeypatch.setattr(profile_key, "_tracer", lambda: lambda _w, _key: result)
    yield result


def _estimate_with(db: Path, capsys: pytest.CaptureFixture[str], traced: _Traced) -> list[str]:
    store = open_store(str(db), seed=False)
    try:
        assert load_profile(WORKLOAD, str(db), store=store) is traced  # the estimate goes on
    finally:
        store.close()
    return capsys.readouterr().err.splitlines()


def test_a_read_only_file_system_is_one_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], traced: _Traced
) -> None:
    with small_tmpfs(tmp_path / "ro", "8m") as disk:
        db = disk / "gpuplan.sqlite"
        open_store(str(db), seed=False).close()
        remount(disk, "ro")
        err = _estimate_with(db, capsys, traced)
    assert len(err) == 1 and err[0].startswith("warning: profile not cached") and "read" in err[0], err
    record("profile cache on a read-only file system", 1, 1, 0)


def test_a_full_disk_is_one_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], traced: _Traced
) -> None:
    with small_tmpfs(tmp_path / "full", "1m") as disk:
        db = disk / "gpuplan.sqlite"
        open_store(str(db), seed=False).close()
        with (disk / "filler").open("wb", buffering=0) as fh:  # unbuffered: nothing left to flush on close
            try:
                while True:
                    fh.write(b"\0" * 65536)
                    fh.flush()
            except OSError:
                pass
        err = _estimate_with(db, capsys, traced)
        assert not [p for p in os.listdir(disk) if p.endswith("-journal")]  # rolled back, no leftover
    assert len(err) == 1 and err[0].startswith("warning: profile not cached") and "full" in err[0], err
    record("profile cache on a full disk", 1, 1, 0)


def test_another_writer_holding_the_lock_is_one_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], traced: _Traced, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "gpuplan.sqlite"
    open_store(str(db), seed=False).close()
    monkeypatch.setattr(opening, "BUSY_TIMEOUT_S", 0.2)  # instead of waiting a minute for the holder
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # what an import in progress holds
    try:
        err = _estimate_with(db, capsys, traced)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert len(err) == 1 and err[0].startswith("warning: profile not cached") and "locked" in err[0], err
    record("profile cache locked by another writer", 1, 1, 0)


def test_store_errors_are_one_line_without_sql(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "gpuplan.sqlite"
    monkeypatch.setattr(opening, "BUSY_TIMEOUT_S", 0.1)  # before the engine takes its timeout
    store = open_store(str(db), seed=False)
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # what an import in progress holds
    try:
        with pytest.raises(StoreError) as e:
            store.local.put_profile("k", 1, "{}")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
        store.close()
    assert "\n" not in str(e.value) and "INSERT" not in str(e.value) and "DELETE" not in str(e.value)
