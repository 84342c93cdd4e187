"""An import writes its new offers and their prices in one statement each, whatever the file's
size: one insert a row made a file at the row cap (200,000 new instance types) take many minutes."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.engine import Engine
from typer.testing import CliRunner

from gpuplan.cli import app

HEADER = (
    "provider,region,zone,instance_type,gpu,gpu_count,vcpus,memory_gib,pricing,price,currency,unit,"
    "as_of,source"
)


def _price_file(path: Path, n: int) -> Path:
    lines = [
        f"alibaba,cn-hangzhou,,ecs.gn7i-x{i},A10,1,8,30,on_demand,{1.5 + i / 1000:g},USD,hour,2026-11-18,"
        "quote"
        for i in range(n)
    ]
    path.write_text(HEADER + "\n" + "\n".join(lines) + "\n")
    return path


@pytest.fixture
def inserts() -> Iterator[list[str]]:
    """The INSERT statements any engine runs while the test does (an executemany counts once)."""
    seen: list[str] = []

    def record(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if statement.lstrip().upper().startswith(("INSERT INTO OFFERS", "INSERT INTO PRICES")):
            seen.append(statement.split("(")[0].strip())

    event.listen(Engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(Engine, "before_cursor_execute", record)


@pytest.mark.parametrize("n", [3, 60])
def test_new_offers_and_their_prices_are_written_in_one_statement_each(
    tmp_path: Path, inserts: list[str], n: int
) -> None:
    db = tmp_path / "catalog.sqlite"
    f = _price_file(tmp_path / "prices.csv", n)
    r = CliRunner().invoke(app, ["--db", str(db), "catalog", "import", str(f), "--format", "gpuplan"])
    assert r.exit_code == 0, r.output
    assert inserts == ["INSERT INTO offers", "INSERT INTO prices"], inserts
    with sqlite3.connect(db) as c:
        got = c.execute(
            "SELECT o.instance_type, p.amount FROM offers o JOIN prices p ON p.offer_id = o.id "
            "WHERE o.provider = 'alibaba' AND o.instance_type LIKE 'ecs.gn7i-x%' ORDER BY o.id"
        ).fetchall()
    # each price on its own offer, the offers in the file's order
    assert got == [(f"ecs.gn7i-x{i}", pytest.approx(1.5 + i / 1000)) for i in range(n)]
