"""Foreign databases untouched: a file that is neither empty nor a gpuplan catalog by its revision
table is refused in one line and left byte for byte as it was (no lock file beside it either); a
newer catalog is named as newer; a damaged catalog is one line, without SQL."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from gpuplan.catalog import open_store
from gpuplan.catalog.revisions import HEAD_REVISION
from gpuplan.errors import StoreError
from one_line import refused


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _make(path: Path, *statements: str) -> Path:
    with sqlite3.connect(path) as db:
        for sql in statements:
            db.execute(sql)
    db.close()
    return path


FOREIGN: dict[str, tuple[tuple[str, ...], str]] = {
    "only a view": (
        ("CREATE VIEW v_hello AS SELECT 1 AS x",),
        "is not a gpuplan catalog (it holds view v_hello)",
    ),
    "an offers table with a trigger": (
        (
            "CREATE TABLE offers (id INTEGER PRIMARY KEY, sku TEXT)",
            "CREATE TABLE audit (sku TEXT)",
            "CREATE TRIGGER offers_audit AFTER INSERT ON offers "
            "BEGIN INSERT INTO audit VALUES (new.sku); END",
        ),
        "is not a gpuplan catalog (it holds trigger offers_audit, table audit)",
    ),
    "an empty offers table with a trigger": (
        (
            "CREATE TABLE offers (id INTEGER PRIMARY KEY)",
            "CREATE TRIGGER t AFTER DELETE ON offers BEGIN SELECT 1; END",
        ),
        "is not a gpuplan catalog (it holds trigger t)",
    ),
    "an empty table named like gpuplan's": (
        ("CREATE TABLE offers (id INTEGER)",),
        "has gpuplan's tables but no schema revision",
    ),
    "another program's Alembic revision": (
        (
            "CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL)",
            "INSERT INTO alembic_version VALUES ('ae1027a6acf')",
            "CREATE TABLE offers (id INTEGER)",
        ),
        "is not a gpuplan catalog (its schema revision 'ae1027a6acf' is not gpuplan's)",
    ),
    "an index and a table of another program": (
        ("CREATE TABLE invoices (id INTEGER)", "CREATE INDEX ix_invoices ON invoices (id)"),
        "is not a gpuplan catalog (it has other tables: invoices)",
    ),
}


@pytest.mark.parametrize("case", list(FOREIGN))
def test_a_database_that_is_not_gpuplans_is_refused_byte_for_byte_unchanged(
    tmp_path: Path, case: str, capsys: pytest.CaptureFixture[str]
) -> None:
    statements, says = FOREIGN[case]
    path = _make(tmp_path / "theirs.db", *statements)
    before = _digest(path)
    for args in (
        ["catalog", "info"],
        ["offers", "--gpu", "H100"],
        ["catalog", "refresh", "--provider", "aws"],
    ):
        line = refused(["--db", str(path), *args], capsys)
        assert says in line and "it was left unchanged" in line, line
    assert _digest(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["theirs.db"]  # no lock, no journal left


def test_a_newer_catalog_is_named_as_newer_and_left_unchanged(seeded_db: Path, tmp_path: Path) -> None:
    path = tmp_path / "newer.sqlite"
    shutil.copy(seeded_db, path)
    _make(path, "UPDATE alembic_version SET version_num = '0007_from_a_newer_gpuplan'")
    before = _digest(path)
    with pytest.raises(StoreError) as e:
        open_store(str(path))
    assert str(e.value) == (
        "the database is at schema revision '0007_from_a_newer_gpuplan', newer than this gpuplan knows "
        f"(head {HEAD_REVISION!r}); upgrade gpuplan or point --db at another database"
    )
    assert _digest(path) == before


@pytest.mark.parametrize(
    "empty",
    [lambda p: p.touch(), lambda p: _make(p, "CREATE TABLE t (x)", "DROP TABLE t")],
    ids=["0 bytes", "no objects"],
)
def test_an_empty_database_becomes_a_catalog(tmp_path: Path, empty: Callable[[Path], object]) -> None:
    path = tmp_path / "new.sqlite"
    empty(path)
    store = open_store(str(path))
    assert store.info().offers > 0  # type: ignore[attr-defined]
    store.close()


@pytest.mark.parametrize("damage", ["pages overwritten", "cut in half"])
def test_a_damaged_catalog_is_one_line_without_sql(
    seeded_db: Path, tmp_path: Path, damage: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "damaged.sqlite"
    shutil.copy(seeded_db, path)
    with path.open("r+b") as f:
        if damage == "cut in half":
            f.truncate(path.stat().st_size // 2)
        else:
            f.seek(8192)
            f.write(b"\xde\xad\xbe\xef" * 2048)
    for args in (["offers", "--gpu", "H100"], ["catalog", "info"], ["gpus"]):
        line = refused(["--db", str(path), *args], capsys)
        assert "damaged" in line or "malformed" in line, line
        assert "SELECT" not in line and "sqlalche" not in line, line
