"""The same store on PostgreSQL, by URL. Runs only where a server is given.

    GPUPLAN_TEST_POSTGRES_URL=postgresql+psycopg://user:pw@127.0.0.1:5432/db pytest tests/catalog

It needs an empty database it may fill and a driver (``pip install 'psycopg[binary]'``); CI has
neither, so it is skipped there.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from gpuplan.catalog import Store, open_store

FIXTURES = Path(__file__).parent / "fixtures"

URL = os.environ.get("GPUPLAN_TEST_POSTGRES_URL")
pytestmark = pytest.mark.skipif(not URL, reason="set GPUPLAN_TEST_POSTGRES_URL to test PostgreSQL")


@pytest.fixture
def pg() -> Iterator[Store]:
    from sqlalchemy import create_engine, text

    assert URL is not None
    engine = create_engine(URL)
    with engine.begin() as conn:  # start from an empty schema every time
        conn.execute(text("DROP SCHEMA public CASCADE; CREATE SCHEMA public"))
    engine.dispose()
    store = open_store(URL)
    yield store
    store.close()


def test_postgres_is_migrated_seeded_and_queried_like_sqlite(pg: Store, tmp_path) -> None:  # type: ignore[no-untyped-def]
    lite = open_store(str(tmp_path / "same.sqlite"))
    try:
        assert pg.info().providers == lite.info().providers
        assert len(pg.offers(include_unpriced=True)) == len(lite.offers(include_unpriced=True))
    finally:
        lite.close()


def test_postgres_import_keeps_history_and_reports_bad_rows(pg: Store) -> None:
    from sqlalchemy import text

    from gpuplan.catalog.importers import parse_skypilot

    def run(as_of: str) -> int:
        parsed = parse_skypilot(
            FIXTURES / "aws_v8_broken.csv", "aws", as_of=as_of, known_instances=pg.known_instances()
        )
        report = pg.import_offers(
            parsed.rows, provider="aws", source=f"pg test {as_of}", rejected=parsed.rejected
        )
        assert report.rejected and report.prices_imported > 0
        return report.prices_imported

    def count() -> int:
        with pg.engine.connect() as conn:
            return int(conn.execute(text("SELECT count(*) FROM prices")).scalar_one())

    before = count()
    first, second = run("2026-11-01"), run("2026-11-02")
    assert count() == before + first + second  # appended, never overwritten
