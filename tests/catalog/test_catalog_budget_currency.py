"""Catalog revision 0006: a month's budget given in yuan keeps the yuan and the rate it was kept in
US dollars at, so its reader is told the conversion in their own language; a budget kept before
the revision reads as it was kept."""

from __future__ import annotations

from pathlib import Path

from old_catalog import upgrade_to
from sqlalchemy import create_engine, text

from gpuplan.catalog import open_store
from gpuplan.catalog.model import ExchangeRate
from gpuplan.catalog.team_store import TeamStore

_OLD_NOTE = "预算 ¥7,000.00 = $980.00，按 1 CNY = 0.14 USD 换算（2025-01-02；ECB）。 · Q3"


def _catalog_at_0005_with_a_budget(url: str) -> None:
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            upgrade_to(conn, "0005_measurement_key")
            conn.execute(
                text(
                    "INSERT INTO team_budgets (month, amount_usd, note, set_by, set_at) "
                    "VALUES ('2027-09', 980.0, :note, 'admin', '2027-01-01T00:00:00Z')"
                ),
                {"note": _OLD_NOTE},
            )
    finally:
        engine.dispose()


def test_a_budget_kept_before_the_revision_reads_as_it_was_kept(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    _catalog_at_0005_with_a_budget(f"sqlite:///{path}")
    store = open_store(str(path), seed=False)  # upgrades to head
    try:
        old = TeamStore(store.engine).budget("2027-09")
        assert old is not None
        assert (old.amount_usd, old.note, old.amount_cny, old.cny_rate) == (980.0, _OLD_NOTE, None, None)
        rate = ExchangeRate(currency="CNY", usd_per_unit=0.1375, as_of="2026-11-30", source="ECB", age_days=3)
        kept = TeamStore(store.engine).set_budget(
            "2027-10", 962.5, note="Q4", actor="admin", given_cny=(7000.0, rate)
        )
        again = TeamStore(store.engine).budget("2027-10")
        assert again == kept and again.amount_cny == 7000.0 and again.cny_rate == rate and again.note == "Q4"
    finally:
        store.close()


def test_a_budget_kept_in_yuan_since_the_revision_is_compared_in_yuan_after_the_upgrade(
    tmp_path: Path,
) -> None:
    # A yuan budget kept by revision 0006 held its yuan beside its dollars at the rate of its day;
    # upgraded, it is a yuan budget (compared in yuan), stated in dollars at the catalog's newest
    # rate, not at the 0.14 of the day it was set. One kept in dollars stays in dollars.
    from gpuplan.web.work import budget_document

    path = tmp_path / "old.sqlite"
    engine = create_engine(f"sqlite:///{path}")
    try:
        with engine.begin() as conn:
            upgrade_to(conn, "0006_budget_currency")
            conn.execute(
                text(
                    "INSERT INTO team_budgets (month, amount_usd, note, set_by, set_at, amount_cny, "
                    "cny_usd_per_unit, cny_rate_as_of, cny_rate_source, cny_rate_age_days) VALUES "
                    "('2027-09', 980.0, 'Q3', 'admin', '2027-01-01T00:00:00Z', 7000.0, 0.14, '2025-01-02', "
                    "'ECB', 3), ('2027-10', 500.0, '', 'admin', '2027-01-01T00:00:00Z', NULL, NULL, NULL, "
                    "NULL, NULL)"
                )
            )
    finally:
        engine.dispose()
    store = open_store(str(path), seed=False)  # upgrades to head
    try:
        store.add_exchange_rate(
            ExchangeRate(currency="CNY", usd_per_unit=0.125, as_of="2026-12-01", source="ECB")
        )
        yuan = budget_document(store, "2027-09")
        assert (yuan["currency"], yuan["budget_cny"], yuan["planned_cny"], yuan["used_pct"]) == (
            "CNY",
            7000.0,
            0,
            0,
        )
        assert yuan["budget_usd"] == 875.0  # 7,000 × 0.125, not the 980 kept at 0.14
        assert yuan["exchange_rate"]["as_of"] == "2026-12-01" and yuan["note"].endswith(" · Q3")
        dollars = budget_document(store, "2027-10")
        assert (dollars["currency"], dollars["budget_usd"], dollars["budget_cny"]) == ("USD", 500.0, None)
    finally:
        store.close()


def test_a_years_budget_is_kept_checked_converted_and_audited_as_a_months(tmp_path: Path) -> None:
    import pytest

    from gpuplan.errors import InputError, NotFoundError

    store = open_store(str(tmp_path / "year.sqlite"), seed=False)
    try:
        team = TeamStore(store.engine)
        rate = ExchangeRate(currency="CNY", usd_per_unit=0.14, as_of="2026-11-30", source="ECB", age_days=7)
        kept = team.set_year_budget(
            "2027", 168_000.0, note="FY", actor="admin", given_cny=(1_200_000.0, rate)
        )
        assert team.year_budget("2027") == kept and kept.month == "2027" and kept.amount_cny == 1_200_000.0
        assert kept.cny_rate == rate and team.budget("2027-01") is None  # no month's budget made
        assert team.year_budget("2028") is None
        [entry] = [e for e in team.audit_entries() if e.target == "2027"]
        assert (entry.action, entry.details["amount_cny"], entry.details["usd_per_cny"]) == (
            "budget.set",
            1_200_000.0,
            0.14,
        )
        # the month's checks: an amount out of range, a note of two lines, a team no one knows
        with pytest.raises(InputError, match="give 0 to"):
            team.set_year_budget("2027", -1.0, actor="admin")
        with pytest.raises(InputError, match="one line"):
            team.set_year_budget("2027", 1.0, note="a\nb", actor="admin")
        with pytest.raises(NotFoundError):
            team.set_year_budget("2027", 1.0, actor="admin", team="nlpp")
        with pytest.raises(InputError, match="YYYY"):
            team.set_year_budget("27", 1.0, actor="admin")
    finally:
        store.close()
