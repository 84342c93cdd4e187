"""The same store on PostgreSQL: migrated, seeded and queried like SQLite, and created once under
its advisory lock by processes that open a fresh catalog at once (or are killed while creating it).

It needs a server: the one ``GPUPLAN_TEST_POSTGRES_URL`` names, or one started for the session
from this machine's PostgreSQL programs (``tests/postgres_server.py``). Without either —
CI installs neither — these tests are skipped, saying so; the emitted lock SQL is checked anyway.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from old_catalog import WORKLOAD, make_0004_catalog, make_0010_catalog_with_a_discount, old_recording

from gpuplan.catalog import Store, open_store
from gpuplan.catalog.open_catalog import PG_CREATION_LOCK_KEY, pg_creation_lock_sql
from postgres_server import Server, fresh_database, start

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    yield from start()


@pytest.fixture
def pg_url(server: Server, request: pytest.FixtureRequest) -> str:
    return fresh_database(server, re.sub(r"\W", "_", request.node.name)[:60].lower())


@pytest.fixture
def pg(pg_url: str) -> Iterator[Store]:
    store = open_store(pg_url)
    yield store
    store.close()


def test_the_creation_lock_is_a_bounded_transaction_level_advisory_lock() -> None:
    # Runs without a server: the SQL the PostgreSQL path sends before creating a catalog.
    assert pg_creation_lock_sql(120.0) == (
        "SET LOCAL lock_timeout = '120000ms'",
        f"SELECT pg_advisory_xact_lock({PG_CREATION_LOCK_KEY})",
    )
    assert PG_CREATION_LOCK_KEY.to_bytes(8, "big") == b"gpuplan\x00" and PG_CREATION_LOCK_KEY < 2**63


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


def _pg_state(url: str) -> tuple[int, int, int, int]:
    """(snapshot markers, snapshot-offers imports, offers twice, snapshot prices) of the catalog."""
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            q = lambda sql: int(conn.execute(text(sql)).scalar_one())  # noqa: E731
            return (
                q("SELECT COUNT(*) FROM imports WHERE kind = 'snapshot'"),
                q("SELECT COUNT(*) FROM imports WHERE kind = 'snapshot-offers'"),
                q(
                    "SELECT COUNT(*) FROM (SELECT 1 FROM offers GROUP BY provider, region, zone, "
                    "instance_type HAVING COUNT(*) > 1) AS twice"
                ),
                q(
                    "SELECT COUNT(*) FROM prices JOIN imports ON prices.import_id = imports.id "
                    "WHERE imports.kind = 'snapshot-offers'"
                ),
            )
    finally:
        engine.dispose()


def test_processes_opening_a_fresh_postgres_catalog_at_once_create_it_once(
    server: Server, pg_url: str, tmp_path: Path
) -> None:
    from fault_helpers import create_catalog, finish, record, start_child

    reference = fresh_database(server, "pg_reference") if server.own else None
    if reference is None:
        pytest.skip("needs a server of its own (a second database for the reference catalog)")
    open_store(reference).close()
    expected = _pg_state(reference)
    children = [start_child(create_catalog, pg_url) for _ in range(4)]
    codes = [finish(c) for c in children]
    state = _pg_state(pg_url)
    ok = sum(code == 0 for code in codes)
    record("4 processes opening a fresh PostgreSQL catalog", 4, ok if state == expected else 0, 4 - ok)
    assert codes == [0, 0, 0, 0]
    assert state == expected  # one snapshot, each provider's offers once, the same prices


def test_kill_9_while_creating_a_postgres_catalog_leaves_one_the_next_open_completes(
    server: Server, pg_url: str
) -> None:
    import random
    import time

    from fault_helpers import create_catalog, finish, kill_at_random, record, start_child, wait_go

    if not server.own:
        pytest.skip("needs a server of its own (a database per try)")
    first = start_child(create_catalog, pg_url)
    t0 = wait_go(first)
    assert finish(first) == 0
    took = time.monotonic() - t0
    expected = _pg_state(pg_url)
    rng = random.Random(3)
    tried = landed = lost = 0
    for i in range(4):
        url = fresh_database(server, f"pg_kill_{i}")
        landed += kill_at_random(start_child(create_catalog, url), took * 1.2, rng)
        tried += 1
        try:
            open_store(url).close()
            good = _pg_state(url) == expected
        except Exception:  # any failure to open again is the finding
            good = False
        lost += not good
        assert good, i
    record("kill -9 during PostgreSQL creation + seeding", tried, tried - lost, lost, killed_mid_run=landed)
    assert landed >= 2


def test_a_held_creation_lock_makes_open_wait_then_fail_in_one_line(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sqlalchemy import create_engine

    import gpuplan.catalog.open_catalog as opening
    from gpuplan.errors import StoreError

    monkeypatch.setattr(opening, "CREATION_LOCK_TIMEOUT_S", 0.5)
    engine = create_engine(pg_url)
    try:
        with engine.connect() as holder, holder.begin():
            holder.exec_driver_sql(f"SELECT pg_advisory_xact_lock({PG_CREATION_LOCK_KEY})")
            with pytest.raises(StoreError) as e:
                open_store(pg_url)
            assert "another gpuplan has been creating the catalog" in str(e.value)
            assert "\n" not in str(e.value)
        open_store(pg_url).close()  # released: the catalog is created
    finally:
        engine.dispose()


def test_postgres_upgrades_a_0004_catalog_and_its_recording_is_still_found(pg_url: str) -> None:
    from gpuplan.perf.anchor import workload_measurements
    from gpuplan.workload import load_workload

    w = load_workload(WORKLOAD)
    make_0004_catalog(pg_url, [old_recording(w)])
    store = open_store(pg_url, seed=False)  # migrated to head: the measurement_key column added
    try:
        steps, problems = workload_measurements(w, store.local.step_measurements)
    finally:
        store.close()
    assert problems == [] and [m.gpu_id for m in steps] == ["A100-SXM4-80GB"]


def test_postgres_upgrades_a_0010_discount_to_one_of_every_pricing_model(pg_url: str) -> None:
    from gpuplan.catalog.discounts import discounts

    make_0010_catalog_with_a_discount(pg_url)
    store = open_store(pg_url, seed=False)  # migrated to head: one row per pricing model
    try:
        [d] = discounts(store)
    finally:
        store.close()
    assert (d.provider, d.family, d.percent, d.note) == ("aws", "p4d", 20.0, "EA 2026")
    assert d.pricing == ("on_demand", "spot", "monthly", "reserved_1y", "reserved_3y")


def test_an_offer_imported_after_the_seed_gets_an_id_of_its_own(pg: Store, tmp_path: Path) -> None:
    # The snapshot's offers are inserted with their ids; the sequence stayed at 1 and the first
    # import of a new instance type failed on offers_pkey (duplicate key).
    from gpuplan.catalog.importers import parse_skypilot

    header, first = (FIXTURES / "aws_vms_v8_gpu_sample.csv").read_text().splitlines()[:2]
    csv = tmp_path / "new.csv"
    csv.write_text(header + "\n" + first.replace("g5.12xlarge", "g5.99xlarge", 1) + "\n")
    parsed = parse_skypilot(csv, "aws", as_of="2026-11-01", known_instances=pg.known_instances())
    report = pg.import_offers(parsed.rows, provider="aws", source="pg new offer", rejected=parsed.rejected)
    assert report.offers_imported == 2, report  # the region's offer and its zone's


def test_postgres_migrates_a_0012_catalog_and_undoes_an_import_to_the_rows_of_before(
    pg_url: str, tmp_path: Path
) -> None:
    from old_catalog import upgrade_to
    from sqlalchemy import create_engine, text

    from gpuplan.catalog.importers import parse_skypilot
    from gpuplan.catalog.undo import undo_import
    from gpuplan.errors import InputError

    engine = create_engine(pg_url)
    try:
        with engine.begin() as conn:
            upgrade_to(conn, "0012_declared_providers")
    finally:
        engine.dispose()
    store = open_store(pg_url)  # migrated to head, then seeded
    try:

        def rows() -> dict[str, list[tuple[object, ...]]]:
            with store.engine.connect() as conn:
                return {
                    name: [tuple(r) for r in conn.execute(text(f"SELECT * FROM {name} ORDER BY id"))]
                    for name in ("offers", "prices")
                }

        before = rows()
        header, first = (FIXTURES / "aws_vms_v8_gpu_sample.csv").read_text().splitlines()[:2]
        csv = tmp_path / "vms.csv"  # one offer the snapshot holds, one new (a region's and its zone's)
        csv.write_text(f"{header}\n{first}\n{first.replace('g5.12xlarge', 'g5.99xlarge', 1)}\n")
        parsed = parse_skypilot(csv, "aws", as_of="2026-11-01", known_instances=store.known_instances())
        report = store.import_offers(parsed.rows, provider="aws", source="pg undo", rejected=parsed.rejected)
        assert report.import_id is not None and report.offers_imported == 2, report
        undone = undo_import(store, report.import_id)
        assert (undone.prices_removed, undone.offers_removed) == (report.prices_imported, 2)
        assert rows() == before
        with pytest.raises(InputError, match="was undone already"):
            undo_import(store, report.import_id)
    finally:
        store.close()


def test_postgres_two_undos_of_one_import_at_once_undo_it_once(pg: Store, tmp_path: Path) -> None:
    # the second waits for the first's transaction, then finds the import undone: without the row
    # lock it read the import as standing, removed nothing and was audited as a second undo
    import threading

    from gpuplan.catalog.importers import parse_skypilot
    from gpuplan.catalog.transactions import writing
    from gpuplan.catalog.undo import _undo, undo_import
    from gpuplan.errors import InputError

    parsed = parse_skypilot(
        FIXTURES / "aws_vms_v8_gpu_sample.csv",
        "aws",
        as_of="2026-11-01",
        known_instances=pg.known_instances(),
    )
    report = pg.import_offers(parsed.rows, provider="aws", source="pg twice", rejected=parsed.rejected)
    assert report.import_id is not None
    second: list[object] = []

    def again() -> None:
        try:
            second.append(undo_import(pg, report.import_id))  # type: ignore[arg-type]
        except InputError as e:
            second.append(e)

    with writing(pg.engine) as conn:
        first = _undo(conn, report.import_id)
        other = threading.Thread(target=again)
        other.start()
        other.join(1.0)  # it waits on the first's lock until the first commits
        assert other.is_alive() and not second
    other.join(30)
    assert first.prices_removed == report.prices_imported > 0
    [said] = second
    assert isinstance(said, InputError) and "was undone already" in str(said), said
