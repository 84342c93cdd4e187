"""The store: migrations, append-only prices, all-or-nothing imports, facts, other layers' tables."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect, text
from sqlalchemy.exc import IntegrityError

from gpuplan.catalog import (
    PROVIDERS,
    BenchResult,
    ExchangeRate,
    OfferRow,
    PriceRow,
    Store,
    importing,
    open_store,
)
from gpuplan.catalog import schema as t
from gpuplan.catalog.history import price_history
from gpuplan.errors import CatalogImportError, DataError, NotFoundError, StoreError


def _row(amount: float, as_of: str, *, spot: float | None = None, count: float = 8.0) -> OfferRow:
    prices = [
        PriceRow(
            pricing="on_demand",
            amount=amount,
            currency="USD",
            unit="hour",
            as_of=as_of,
            source="test list",
            confidence="high",
        )
    ]
    if spot is not None:
        prices.append(
            PriceRow(
                pricing="spot",
                amount=spot,
                currency="USD",
                unit="hour",
                as_of=as_of,
                source="test list",
                confidence="high",
            )
        )
    return OfferRow(
        provider="aws",
        region="xx-test-1",
        zone=None,
        instance_type="p4d.24xlarge",
        gpu="A100-SXM4-40GB",
        gpu_count=count,
        vcpus=96,
        memory_gib=1152,
        network_gbps=400,
        interconnect="NVLink",
        source="test spec",
        prices=tuple(prices),
    )


def test_migrations_create_every_table(db_path: Path) -> None:
    engine = create_engine(f"sqlite:///{db_path}")
    tables = set(inspect(engine).get_table_names())
    assert set(t.metadata.tables) <= tables
    with engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == t.HEAD_REVISION
    cols = {c["name"] for c in inspect(engine).get_columns("bench_results")}
    assert {"gpu_id", "device_name", "host", "measured_at", "metric", "dtype", "value", "unit"} <= cols
    assert {c["name"] for c in inspect(engine).get_columns("profile_cache")} == {
        "key",
        "schema_version",
        "created_at",
        "payload",
    }
    engine.dispose()


def test_head_revision_constant_matches_alembic() -> None:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    cfg = Config()
    cfg.set_main_option("script_location", str(Path(t.__file__).parent / "migrations"))
    script = ScriptDirectory.from_config(cfg)
    assert script.get_current_head() == t.HEAD_REVISION
    assert {r.revision for r in script.walk_revisions()} == set(t.KNOWN_REVISIONS)


def test_migrated_schema_matches_the_declared_tables(db_path: Path) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    engine = create_engine(f"sqlite:///{db_path}")
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), t.metadata)
    engine.dispose()
    assert diff == []


def test_a_years_budget_has_a_months_columns_keyed_by_team_and_year(db_path: Path) -> None:
    # revision 0014: a year's budget (the whole service's, team ''), kept as a month's is
    engine = create_engine(f"sqlite:///{db_path}")
    try:
        month = {c["name"]: str(c["type"]) for c in inspect(engine).get_columns("team_budgets")}
        year = {c["name"]: str(c["type"]) for c in inspect(engine).get_columns("team_year_budgets")}
        key = inspect(engine).get_pk_constraint("team_year_budgets")["constrained_columns"]
    finally:
        engine.dispose()
    assert year.pop("year") == "VARCHAR(4)" and month.pop("month") == "VARCHAR(7)"
    assert year == month and key == ["team", "year"]
    assert t.HEAD_REVISION == "0014_year_budgets"


def test_newer_schema_revision_is_refused(db_path: Path) -> None:
    engine = create_engine(f"sqlite:///{db_path}")
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '9999_from_the_future'"))
    engine.dispose()
    with pytest.raises(StoreError, match="newer than this gpuplan"):
        open_store(str(db_path))


def test_missing_folder_is_a_store_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="does not exist"):
        open_store(str(tmp_path / "no" / "such" / "dir" / "x.sqlite"))


def test_default_location_is_created_and_seeded_on_first_use() -> None:
    from gpuplan.catalog import default_db_path

    # conftest points XDG_DATA_HOME at a temp dir: this is never the user's real database.
    store = open_store(None)
    assert default_db_path().is_file()
    assert len(store.info().providers) == len(PROVIDERS)
    store.close()


def test_two_imports_keep_history_and_the_latest_wins(store: Store) -> None:
    store.import_offers([_row(30.0, "2026-10-01")], provider="aws", source="first")
    store.import_offers([_row(25.0, "2026-11-01")], provider="aws", source="second")
    # An older price imported later does not win: the latest as_of does.
    store.import_offers([_row(99.0, "2026-01-01")], provider="aws", source="late, older")
    [current] = store.offers(provider="aws", region="xx-test-1", pricing="on_demand")
    assert current.price == 25.0
    assert current.price_usd_per_gpu_hour == pytest.approx(25.0 / 8)
    with store.engine.connect() as conn:
        amounts = sorted(
            r[0] for r in conn.execute(text("SELECT amount FROM prices WHERE source LIKE 'test%'"))
        )
    assert amounts == [25.0, 30.0, 99.0]


def test_same_as_of_the_later_import_wins(store: Store) -> None:
    store.import_offers([_row(30.0, "2026-11-01")], provider="aws", source="first")
    store.import_offers([_row(28.0, "2026-11-01")], provider="aws", source="correction")
    [current] = store.offers(provider="aws", region="xx-test-1", pricing="on_demand")
    assert current.price == 28.0


def test_import_failure_leaves_the_database_unchanged(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    before = store.info()
    original = importing.write_offers

    def write_then_fail(conn, rows, import_id):  # type: ignore[no-untyped-def]
        original(conn, rows, import_id)  # writes rows inside the transaction ...
        raise IntegrityError("INSERT", {}, Exception("disk full"))  # ... then the database fails

    monkeypatch.setattr(importing, "write_offers", write_then_fail)
    with pytest.raises(CatalogImportError, match="rolled back"):
        store.import_offers([_row(30.0, "2026-10-01")], provider="aws", source="doomed")
    after = store.info()
    assert (after.offers, after.prices, after.imports) == (before.offers, before.prices, before.imports)


def test_gates_reject_bad_rows_and_keep_good_ones(store: Store) -> None:
    good = _row(30.0, "2026-10-01", spot=9.0)
    bad_spot = OfferRow(
        **{**good.__dict__, "region": "xx-test-2", "prices": _row(30.0, "2026-10-01", spot=31.0).prices}
    )
    bad_count = OfferRow(**{**good.__dict__, "region": "xx-test-3", "gpu_count": 4.0})
    zero = OfferRow(**{**good.__dict__, "region": "xx-test-4", "prices": _row(0.0, "2026-10-01").prices})
    insane = OfferRow(**{**good.__dict__, "region": "xx-test-5", "prices": _row(1e308, "2026-10-01").prices})
    unknown_gpu = OfferRow(**{**good.__dict__, "region": "xx-test-6", "gpu": "Z100"})
    report = store.import_offers(
        [good, bad_spot, bad_count, zero, insane, unknown_gpu], provider="aws", source="gates"
    )
    reasons = {r.region: r.reason for r in report.rejected}
    assert set(reasons) == {"xx-test-2", "xx-test-3", "xx-test-4", "xx-test-5", "xx-test-6"}
    assert "not below the on-demand" in reasons["xx-test-2"]
    assert "contradicts instance type p4d.24xlarge" in reasons["xx-test-3"]
    assert "not a positive amount" in reasons["xx-test-4"]
    assert "sanity ceiling" in reasons["xx-test-5"]
    # One line of figures, not 300 digits of 1e308.
    assert "1.25e+307 USD per GPU-hour" in reasons["xx-test-5"] and len(reasons["xx-test-5"]) < 200
    assert "unknown GPU 'Z100'" in reasons["xx-test-6"]
    assert [o.pricing for o in store.offers(provider="aws", region="xx-test-1")] == ["on_demand", "spot"]


def test_unknown_currency_and_undated_price_are_rejected(store: Store) -> None:
    base = _row(30.0, "2026-10-01")
    eur = PriceRow(**{**base.prices[0].__dict__, "currency": "EUR"})
    undated = PriceRow(**{**base.prices[0].__dict__, "as_of": "recently"})
    rows = [
        OfferRow(**{**base.__dict__, "region": "r1", "prices": (eur,)}),
        OfferRow(**{**base.__dict__, "region": "r2", "prices": (undated,)}),
    ]
    report = store.import_offers(rows, provider="aws", source="t")
    assert report.import_id is None
    assert "unknown currency 'EUR'" in report.rejected[0].reason
    assert "no ISO as_of date" in report.rejected[1].reason


def test_offers_filters(store: Store) -> None:
    a100 = store.offers(gpu="a100")
    assert a100 and {o.gpu for o in a100} <= {
        "A100-SXM4-40GB",
        "A100-SXM4-80GB",
        "A100-PCIE-40GB",
        "A100-PCIE-80GB",
    }
    # "A100-80GB" is the SXM4 and the PCIe card: both are listed, neither hidden.
    eighty = {o.gpu for o in store.offers(gpu="A100-80GB")}
    assert eighty <= {"A100-SXM4-80GB", "A100-PCIE-80GB"} and "A100-SXM4-80GB" in eighty
    assert {o.gpu for o in store.offers(gpu="A100-80G")} == eighty
    assert all(o.gpu_count == 8 for o in store.offers(count=8))
    assert all(o.pricing == "spot" for o in store.offers(pricing="spot"))
    assert all(o.provider == "gcp" for o in store.offers(provider="gcp"))
    big = store.offers(min_gpu_memory_gib=100)
    assert big and {o.gpu for o in big} <= {"H200-SXM", "H200-NVL", "B200", "MI300X"}
    with pytest.raises(NotFoundError, match="did you mean 'aws'"):
        store.offers(provider="aws2")
    with pytest.raises(NotFoundError, match="pricing model"):
        store.offers(pricing="bogus")


def test_unpriced_offers_only_on_request_and_with_a_reason(store: Store) -> None:
    priced = store.offers(provider="huawei")
    everything = store.offers(provider="huawei", include_unpriced=True)
    unpriced = [o for o in everything if o.pricing is None]
    assert unpriced and all(o.price is None and o.price_reason for o in unpriced)
    assert len(everything) == len(priced) + len(unpriced)


def test_monthly_converts_at_730_hours_with_the_shipped_or_overridden_rate(store: Store) -> None:
    [monthly] = store.offers(
        provider="alibaba", region="cn-shanghai", pricing="monthly", count=8, gpu="A100-SXM4-80GB"
    )
    assert (monthly.currency, monthly.unit, monthly.price) == ("CNY", "month", 133408.0)
    # The shipped rate is the latest dated CFETS central parity in the snapshot: 6.9858 CNY/USD.
    shipped = store.exchange_rate("CNY")
    assert shipped.as_of == "2026-01-27" and "CFETS" in shipped.source
    # 133408 CNY / 730 h / 6.9858 CNY per USD = 26.160... USD/h
    assert monthly.price_usd_per_hour == pytest.approx(133408 / 730 / 6.9858, rel=1e-5)

    store.override_exchange_rate(
        ExchangeRate(currency="CNY", usd_per_unit=0.5, as_of="2026-11-30", source="test")
    )
    [monthly] = store.offers(
        provider="alibaba", region="cn-shanghai", pricing="monthly", count=8, gpu="A100-SXM4-80GB"
    )
    # 133408 CNY / 730 h x 0.5 USD/CNY = 91.3753... USD/h
    assert monthly.price_usd_per_hour == pytest.approx(133408 / 730 * 0.5)
    assert monthly.price_usd_per_gpu_hour == pytest.approx(133408 / 730 * 0.5 / 8)
    assert monthly.exchange_rate_usd_per_unit == 0.5


def test_stored_exchange_rate_latest_wins_and_usd_is_identity(store: Store) -> None:
    assert store.exchange_rate("USD").usd_per_unit == 1.0
    store.add_exchange_rate(ExchangeRate(currency="CNY", usd_per_unit=0.2, as_of="2026-01-01", source="a"))
    store.add_exchange_rate(ExchangeRate(currency="CNY", usd_per_unit=0.3, as_of="2026-06-01", source="b"))
    rate = store.exchange_rate("cny")
    assert (rate.usd_per_unit, rate.as_of, rate.source) == (0.3, "2026-06-01", "b")
    with pytest.raises(DataError):
        store.add_exchange_rate(
            ExchangeRate(currency="CNY", usd_per_unit=0.0, as_of="2026-06-01", source="x")
        )


def test_open_store_usd_per_cny_override(db_path: Path) -> None:
    store = open_store(str(db_path), usd_per_cny=0.25)
    assert store.exchange_rate("CNY").usd_per_unit == 0.25
    with pytest.raises(DataError):
        open_store(str(db_path), usd_per_cny=-1)


def test_stale_flag_follows_the_threshold(db_path: Path) -> None:
    from datetime import date

    store = open_store(str(db_path), today=date(2026, 12, 1), stale_after_days=180)
    store.import_offers([_row(30.0, "2026-10-01")], provider="aws", source="dated")
    [fresh] = store.offers(provider="aws", region="xx-test-1", pricing="on_demand")
    # 2026-10-01 -> 2026-12-01 = 61 days <= 180
    assert (fresh.stale, fresh.staleness, fresh.age_days, fresh.as_of_precision) == (
        False,
        "fresh",
        61,
        "day",
    )
    old = open_store(str(db_path), today=date(2027, 12, 1), stale_after_days=180)
    [late] = old.offers(provider="aws", region="xx-test-1", pricing="on_demand")
    assert (late.stale, late.staleness, late.age_days) == (True, "stale", 426)


def test_a_bounded_date_is_of_unknown_age_until_even_its_latest_day_is_old(db_path: Path) -> None:
    from datetime import date

    store = open_store(str(db_path), today=date(2026, 12, 1), stale_after_days=180)
    store.import_offers([_row(30.0, "2025-06/2026-11-30")], provider="aws", source="undated, bounded")
    [o] = store.offers(provider="aws", region="xx-test-1", pricing="on_demand")
    # oldest: 2025-06-01 -> 2026-12-01 = 548 days; youngest: 2026-11-30 -> 1 day
    assert (o.as_of_precision, o.age_days, o.age_min_days) == ("bounded", 548, 1)
    assert (o.staleness, o.stale) == ("unknown", True)  # an unknown age is never taken as fresh
    later = open_store(str(db_path), today=date(2027, 6, 1), stale_after_days=180)
    [o2] = later.offers(provider="aws", region="xx-test-1", pricing="on_demand")
    assert o2.staleness == "stale"  # 2026-11-30 -> 2027-06-01 = 183 days > 180


def test_egress_tiers_ordered_with_fallback(store: Store) -> None:
    tiers = store.egress_tiers("aws", "us-east-1")
    starts = [t.start_gb for t in tiers]
    assert starts == sorted(starts) and starts[0] == 0
    assert not any(t.fallback for t in tiers)
    assert [t.price_per_gb for t in tiers] == [0.0, 0.09, 0.085, 0.07, 0.05]
    other = store.egress_tiers("aws", "eu-central-1")
    assert other and all(t.fallback and t.region == "us-east-1" and t.reason for t in other)
    ali = store.egress_tiers("alibaba", "cn-shanghai")
    assert ali[0].fallback and ali[0].region == "*"
    unknown = store.egress_tiers("huawei", "cn-north-4")
    assert unknown and unknown[0].price_per_gb is None and unknown[0].reason


def test_inter_region_and_storage(store: Store) -> None:
    tier = store.inter_region_price("aws", "us-east-1")
    assert tier is not None and tier.price_per_gb == 0.02
    assert store.inter_region_price("azure", "eastus") is None  # not in the data: unknown, not 0
    kinds = {s.kind for s in store.storage_prices("aws", "us-east-1")}
    assert kinds == {"object", "block"}
    ali = store.storage_prices("alibaba", "cn-shanghai")
    ssd = [s for s in ali if s.unit == "GB-hour"]
    # 0.0002 USD/GB-hour x 730 h = 0.146 USD/GB-month
    assert ssd and ssd[0].price_per_gb_month == pytest.approx(0.146)
    assert any(s.price is None and s.reason for s in ali)


def test_licences_billing_and_compliance_are_sourced_or_unknown(store: Store) -> None:
    fees = store.licence_fees("aws", "us-east-1")
    assert any(f.applies is False and "No License required" in f.source for f in fees)
    assert all(f.applies is not None or f.reason for f in fees)
    policy = store.billing_policy("gcp", "us-east1")
    assert (policy.granularity_s, policy.min_billing_s) == (1, 60) and "per-second" in (policy.source or "")
    unknown = store.billing_policy("azure", "eastus")
    assert unknown.granularity_s is None and "hourly" in (unknown.reason or "")
    # Huawei's MLPS 2.0 level 3 is an undated article's claim (confidence low): a claim, kept
    # apart from the labels of a reliable source, for every Huawei region.
    assert "MLPS 2.0 level 3" not in store.compliance_labels("huawei", "cn-north-4")
    assert store.compliance_claims("huawei", "cn-north-4") == ("MLPS 2.0 level 3",)
    assert store.compliance_labels("aws", "us-east-1") == () == store.compliance_claims("aws", "us-east-1")
    assert store.known_compliance_labels() == ["MLPS 2.0 level 3"]
    [detail] = store.compliance_details("huawei")
    assert detail.source and detail.confidence == "low"


def test_profile_cache_roundtrip(store: Store) -> None:
    assert store.local.get_profile("k", 1) is None
    store.local.put_profile("k", 1, '{"a": 1}')
    store.local.put_profile("k", 2, '{"a": 2}')
    assert store.local.get_profile("k", 2) == '{"a": 2}'
    assert store.local.get_profile("k", 1) is None  # replaced: an older schema's payload is not served


def test_bench_results_roundtrip(store: Store) -> None:
    r = BenchResult(
        gpu_id="H100-SXM",
        device_name="NVIDIA H100 80GB HBM3",
        host="node-1",
        measured_at="2026-11-30T10:00:00+00:00",
        metric="matmul_tflops",
        dtype="bf16",
        value=700.0,
        unit="TFLOP/s",
        datasheet_value=989.5,
        details={"n": 8192},
    )
    store.local.add_bench_results([r, BenchResult(**{**r.__dict__, "gpu_id": None, "metric": "x"})])
    assert store.local.bench_results("H100-SXM") == [r]
    assert len(store.local.bench_results()) == 2


def test_info(store: Store) -> None:
    info = store.info()
    assert info.schema_revision == t.HEAD_REVISION
    assert len(info.providers) == len(PROVIDERS)
    assert info.oldest_as_of is not None and info.newest_as_of is not None
    assert info.oldest_as_of <= info.newest_as_of
    assert "sqlite" in info.location


def test_reopening_does_not_reseed(db_path: Path) -> None:
    before = open_store(str(db_path)).info()
    after = open_store(str(db_path)).info()
    assert (before.prices, before.imports) == (after.prices, after.imports)


def test_sqlite_url_and_path_open_the_same_catalog(db_path: Path) -> None:
    by_path = open_store(str(db_path)).offers(include_unpriced=True)
    by_url = open_store(f"sqlite:///{db_path}").offers(include_unpriced=True)
    assert by_path == by_url and by_path


def test_a_newer_snapshot_replaces_the_older_ones_rows_and_keeps_them_in_history(db_path: Path) -> None:
    # Pretend the database was first seeded by an older gpuplan: its snapshot import, a price it
    # shipped that the newer one dropped (dated later, so it would win on as_of), and an offer only
    # it had.
    con = sqlite3.connect(db_path)
    with con:
        (old_import,) = con.execute(
            "INSERT INTO imports (provider, kind, source, snapshot_id, imported_at, rows_ok, rows_rejected) "
            "VALUES ('aws', 'snapshot-offers', 'older snapshot', 'old', '2026-01-01T00:00:00', 2, 0) "
            "RETURNING id"
        ).fetchone()
        (p4d,) = con.execute(
            "SELECT id FROM offers WHERE provider = 'aws' AND region = 'us-east-1' AND zone = '' "
            "AND instance_type = 'p4d.24xlarge'"
        ).fetchone()
        (gone,) = con.execute(
            "INSERT INTO offers (provider, region, zone, instance_type, gpu, gpu_count, source, notes) "
            "VALUES ('aws', 'us-east-1', '', 'p9.old', 'A100-SXM4-40GB', 8, 'older snapshot', '') "
            "RETURNING id"
        ).fetchone()
        for offer in (p4d, gone):
            con.execute(
                "INSERT INTO prices (offer_id, pricing, amount, currency, unit, as_of, source, confidence, "
                "import_id) VALUES (?, 'on_demand', 1.0, 'USD', 'hour', '2099-01-01', 'older snapshot', "
                "'high', ?)",
                (offer, old_import),
            )
    con.close()
    store = open_store(str(db_path))
    try:
        offers = store.offers(provider="aws", region="us-east-1", pricing="on_demand")
        [p4d_now] = [o for o in offers if o.instance_type == "p4d.24xlarge"]
        assert p4d_now.price != 1.0 and p4d_now.source != "older snapshot"
        assert not [o for o in store.offers(include_unpriced=True) if o.instance_type == "p9.old"]
        assert "older snapshot" in {h.source for h in price_history(store, "p4d.24xlarge")}
    finally:
        store.close()


def test_upgrading_takes_the_newer_snapshots_offer_facts_and_drops_its_unpriced_leftovers(
    db_path: Path,
) -> None:
    # Pretend the database was seeded by an older gpuplan: its snapshot had another id, listed
    # p4d.24xlarge with a wrong vCPU count and network, and an unpriced offer the newer one dropped.
    # A user's own import of gcp may hold an unpriced offer of theirs: that one stays.
    con = sqlite3.connect(db_path)
    with con:
        con.execute("UPDATE imports SET snapshot_id = 'old' WHERE kind LIKE 'snapshot%'")
        con.execute(
            "UPDATE offers SET vcpus = 1, network_gbps = NULL, notes = 'older' WHERE provider = 'aws' "
            "AND region = 'us-east-1' AND zone = '' AND instance_type = 'p4d.24xlarge'"
        )
        # an offer of a provider the user imported keeps the facts its import wrote first
        con.execute(
            "UPDATE offers SET notes = 'users' WHERE provider = 'gcp' AND instance_type = 'a2-highgpu-1g'"
        )
        for provider, name in (("aws", "p9.unpriced"), ("gcp", "users-own-8g")):
            con.execute(
                "INSERT INTO offers (provider, region, zone, instance_type, gpu, gpu_count, source, notes, "
                "price_reason) VALUES (?, 'us-east-1', '', ?, 'A100-SXM4-40GB', 8, 'older', '', 'no list')",
                (provider, name),
            )
        con.execute(
            "INSERT INTO imports (provider, kind, source, snapshot_id, imported_at, rows_ok, rows_rejected) "
            "VALUES ('gcp', 'manual', 'users prices.csv', NULL, '2026-01-01T00:00:00', 1, 0)"
        )
    con.close()
    store = open_store(str(db_path))
    try:
        offers = store.offers(provider="aws", region="us-east-1", include_unpriced=True)
        [p4d] = {
            o.instance_type: o for o in offers if o.instance_type == "p4d.24xlarge" and not o.zone
        }.values()
        assert p4d.vcpus == 96 and p4d.network_gbps == 400  # the newer snapshot's facts
        names = {o.instance_type for o in store.offers(include_unpriced=True)}
        assert "p9.unpriced" not in names and "users-own-8g" in names
    finally:
        store.close()
    con = sqlite3.connect(db_path)
    assert con.execute("SELECT COUNT(*) FROM offers WHERE notes = 'older'").fetchone() == (0,)
    assert con.execute("SELECT COUNT(*) FROM offers WHERE notes = 'users'").fetchone()[0] > 0
    con.close()


def test_alibabas_egress_figure_is_low_confidence_and_says_it_is_an_example(fresh_catalog: Path) -> None:
    # The row's source is the documentation example of BSS QuerySkuPriceList, which names no region
    # and says its prices are not current ones: was confidence "high", applied to every region.
    store = open_store(str(fresh_catalog))
    try:
        [tier] = store.egress_tiers("alibaba", "cn-hangzhou")
    finally:
        store.close()
    assert tier.price_per_gb == 0.123 and tier.region == "*"
    assert tier.confidence == "low"
    assert "example" in tier.description and "not a published price" in tier.description


def test_an_instances_host_is_its_smallest_listed_size_and_unknown_stays_unknown(empty_store: Store) -> None:
    from dataclasses import replace

    rows = [
        _row(30.0, "2026-11-01"),  # 96 vCPUs, 1,152 GiB
        replace(_row(31.0, "2026-11-01"), region="xx-test-2", vcpus=92, memory_gib=None),
    ]
    empty_store.import_offers(rows, provider="aws", source="test")
    # a region listing fewer vCPUs wins (a pod asking for more than its node has never starts);
    # memory listed in one region only is that region's
    assert empty_store.instance_host("aws", "p4d.24xlarge") == (8, 92, 1152)
    assert empty_store.instance_host("aws", "p5.48xlarge") is None
    assert empty_store.instance_host("gcp", "p4d.24xlarge") is None
