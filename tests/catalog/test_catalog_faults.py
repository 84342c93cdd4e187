"""A catalog survives: kill -9 during creation, seeding and import; N processes at once; a full or
read-only disk; a database that is not gpuplan's; a half-created one. Nothing lost, nothing doubled,
every failure one line.

The kill tests send SIGKILL at a uniformly random moment of the child's work (seeded, so a failure
reproduces) and then check that the catalog opens and is consistent: the head revision, the snapshot
in once, each import all there or not at all, no offer or price twice.
"""

from __future__ import annotations

import hashlib
import random
import shutil
import sqlite3
import time
from pathlib import Path

import pytest

from fault_helpers import (
    create_catalog,
    finish,
    import_offers,
    kill_at_random,
    record,
    remount,
    small_tmpfs,
    start_child,
    wait_go,
)
from gpuplan.catalog import open_store
from gpuplan.catalog.revisions import HEAD_REVISION
from gpuplan.errors import StoreError

#: Offers in one synthetic import: enough to be killed half-way.
IMPORT_ROWS = 600


def _db(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)


def _consistency_errors(path: Path, reference_prices: int) -> list[str]:
    """What is wrong with the catalog at ``path`` after it was opened again (empty: consistent)."""
    try:
        open_store(str(path)).close()
    except StoreError as e:
        return [f"does not open: {e}"]
    errors = []
    with _db(path) as db:
        q = lambda sql: db.execute(sql).fetchall()  # noqa: E731
        if q("SELECT version_num FROM alembic_version") != [(HEAD_REVISION,)]:
            errors.append("not at the head revision")
        if q("SELECT COUNT(*) FROM imports WHERE kind = 'snapshot'") != [(1,)]:
            errors.append("snapshot marker not exactly once")
        twice = q(
            "SELECT provider FROM imports WHERE kind = 'snapshot-offers' "
            "GROUP BY provider HAVING COUNT(*) > 1"
        )
        if twice:
            errors.append(f"snapshot offers imported twice for {twice}")
        dup_offers = q(
            "SELECT COUNT(*) FROM (SELECT 1 FROM offers GROUP BY provider, region, zone, instance_type "
            "HAVING COUNT(*) > 1)"
        )
        if dup_offers != [(0,)]:
            errors.append("an offer twice")
        snapshot_prices = q(
            "SELECT COUNT(*) FROM prices JOIN imports ON prices.import_id = imports.id "
            "WHERE imports.kind = 'snapshot-offers'"
        )[0][0]
        if snapshot_prices != reference_prices:
            errors.append(f"{snapshot_prices} snapshot prices, not {reference_prices}")
        for import_id, n in q(
            "SELECT imports.id, COUNT(prices.id) FROM imports "
            "LEFT JOIN prices ON prices.import_id = imports.id "
            "WHERE imports.kind = 'manual' GROUP BY imports.id"
        ):
            if n != IMPORT_ROWS:
                errors.append(f"import {import_id} has {n} of {IMPORT_ROWS} prices: not all or nothing")
    return errors


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int, float]:
    """A cleanly created catalog, its number of snapshot prices, and how long creating it took."""
    path = tmp_path_factory.mktemp("ref") / "ref.sqlite"
    child = start_child(create_catalog, str(path))
    t0 = wait_go(child)
    assert finish(child) == 0
    took = time.monotonic() - t0
    with _db(path) as db:
        (n,) = db.execute(
            "SELECT COUNT(*) FROM prices JOIN imports ON prices.import_id = imports.id "
            "WHERE imports.kind = 'snapshot-offers'"
        ).fetchone()
    return path, n, took


def test_kill_9_during_creation_and_seeding_leaves_a_catalog_that_opens_whole(
    tmp_path: Path, reference: tuple[Path, int, float]
) -> None:
    _, prices, took = reference
    rng = random.Random(12)
    tried = landed = lost = 0
    # Eight kills, and more (up to 24) until three have landed while the child was still working: a
    # kill's moment is drawn against the reference's time, which a busy machine stretches or
    # shortens in the children, so a fixed count may see too few land to show anything.
    for i in range(24):
        if i >= 8 and landed >= 3:
            break
        path = tmp_path / f"c{i}.sqlite"
        landed += kill_at_random(start_child(create_catalog, str(path)), took * 1.2, rng)
        tried += 1
        errors = _consistency_errors(path, prices)
        lost += bool(errors)
        assert not errors, (i, errors)
    record("kill -9 during creation + seeding", tried, tried - lost, lost, killed_mid_run=landed)
    assert landed >= 3  # kills must land while the child is still working


def test_kill_9_during_an_import_is_all_or_nothing(
    tmp_path: Path, reference: tuple[Path, int, float]
) -> None:
    ref_path, prices, _ = reference
    path = tmp_path / "i.sqlite"
    shutil.copy(ref_path, path)
    child = start_child(import_offers, str(path), "t", IMPORT_ROWS)
    t0 = wait_go(child)
    assert finish(child) == 0
    took = time.monotonic() - t0
    rng = random.Random(7)
    tried = landed = lost = 0
    for i in range(6):
        landed += kill_at_random(start_child(import_offers, str(path), str(i), IMPORT_ROWS), took * 1.2, rng)
        tried += 1
        errors = _consistency_errors(path, prices)
        lost += bool(errors)
        assert not errors, (i, errors)
    record("kill -9 during an import", tried, tried - lost, lost, killed_mid_run=landed)


def test_processes_opening_a_fresh_catalog_at_once_create_it_once(
    tmp_path: Path, reference: tuple[Path, int, float]
) -> None:
    path = tmp_path / "shared.sqlite"
    codes = [finish(c) for c in [start_child(create_catalog, str(path)) for _ in range(4)]]
    failed = sum(c != 0 for c in codes)
    record("4 processes opening a fresh catalog", 4, 4 - failed, failed)
    assert codes == [0, 0, 0, 0]
    assert _consistency_errors(path, reference[1]) == []


def test_processes_importing_at_once_all_land(tmp_path: Path, reference: tuple[Path, int, float]) -> None:
    path = tmp_path / "busy.sqlite"
    shutil.copy(reference[0], path)
    codes = [
        finish(c) for c in [start_child(import_offers, str(path), f"p{i}", IMPORT_ROWS) for i in range(3)]
    ]
    failed = sum(c != 0 for c in codes)
    record("3 processes importing at once", 3, 3 - failed, failed)
    assert codes == [0, 0, 0]
    assert _consistency_errors(path, reference[1]) == []
    with _db(path) as db:
        assert db.execute("SELECT COUNT(*) FROM imports WHERE kind = 'manual'").fetchone() == (3,)


def test_a_full_disk_while_creating_is_one_line_and_the_next_open_completes(
    tmp_path: Path, reference: tuple[Path, int, float]
) -> None:
    with small_tmpfs(tmp_path / "disk", "64k") as disk:
        path = disk / "gpuplan.sqlite"
        with pytest.raises(StoreError) as e:
            open_store(str(path)).close()
        assert "\n" not in str(e.value) and "full" in str(e.value)
        remount(disk, "size=8m")
        assert _consistency_errors(path, reference[1]) == []
    record("full disk during creation", 1, 1, 0)


def test_another_applications_database_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
        db.execute("CREATE TABLE offers (id INTEGER)")  # a name clash with gpuplan's own table
        db.execute("INSERT INTO users VALUES (1, 'ada')")
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    with pytest.raises(StoreError, match="not a gpuplan catalog") as e:
        open_store(str(path))
    assert "\n" not in str(e.value)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    text = tmp_path / "notes.txt"
    text.write_text("not a database\n")
    with pytest.raises(StoreError, match="not a SQLite database"):
        open_store(str(text))
    assert text.read_text() == "not a database\n"


def test_a_half_created_catalog_is_refused_untouched_with_the_way_to_recover(
    tmp_path: Path, reference: tuple[Path, int, float]
) -> None:
    """What an interrupted first use of an older gpuplan left (creation was not yet one transaction):
    some of gpuplan's tables, no revision row, no data. Without a revision nothing proves the file is
    gpuplan's (an unrelated ``offers`` table looks the same), so it is refused, not rebuilt."""
    path = tmp_path / "half.sqlite"
    with sqlite3.connect(path) as db, _db(reference[0]) as ref:
        for (sql,) in ref.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name IN "
                                  "('imports', 'offers', 'alembic_version')"):  # fmt: skip
            db.execute(sql)
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    with pytest.raises(StoreError, match=r"no schema revision .* move it aside and run again") as e:
        open_store(str(path))
    assert "\n" not in str(e.value)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    path.unlink()  # what the line says to do: a new catalog is created
    assert _consistency_errors(path, reference[1]) == []


def test_a_catalog_with_data_but_no_revision_says_how_to_recover(tmp_path: Path) -> None:
    path = tmp_path / "odd.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE imports (id INTEGER PRIMARY KEY, kind TEXT)")
        db.execute("INSERT INTO imports VALUES (1, 'manual')")
    with pytest.raises(StoreError, match="move it aside and run again") as e:
        open_store(str(path))
    assert "\n" not in str(e.value)
