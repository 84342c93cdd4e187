"""A negotiated discount names the pricing models it is taken off: on demand by default, spot and
reservations only where named (an enterprise agreement's discount is on pay-as-you-go prices), and
a discount stored before revision 0011 keeps its meaning of every model."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from old_catalog import downgrade_to, make_0010_catalog_with_a_discount
from sqlalchemy import create_engine, text
from typer.testing import CliRunner

from gpuplan.catalog import Store, open_store
from gpuplan.catalog.discounts import clear_discount, discounts, set_discount
from gpuplan.catalog.team_store import TeamStore
from gpuplan.cli import app
from gpuplan.errors import UnknownChoiceError

runner = CliRunner()


def _p4d(store: Store) -> dict[str, float | None]:
    """The discount on each pricing model's prices of p4d.24xlarge in us-east-2 (every zone's alike)."""
    found: dict[str, set[float | None]] = {}
    for o in store.offers(provider="aws", region="us-east-2"):
        if o.instance_type == "p4d.24xlarge" and o.pricing is not None:
            found.setdefault(o.pricing, set()).add(o.discount_percent)
    assert {"on_demand", "spot", "reserved_1y", "reserved_3y"} <= set(found), found
    assert all(len(v) == 1 for v in found.values()), found
    return {k: next(iter(v)) for k, v in found.items()}


def test_a_discount_naming_no_model_is_taken_off_on_demand_not_spot(store: Store) -> None:
    # was: taken off every model: an enterprise agreement's 20 % made spot look 20 % cheaper than it is
    d = set_discount(store, "aws", 20, family="p4d")
    assert d.pricing == ("on_demand",)
    by = _p4d(store)
    assert by["on_demand"] == 20
    assert by["spot"] is None and by["reserved_1y"] is None and by["reserved_3y"] is None
    spot = [
        o
        for o in store.offers(provider="aws", region="us-east-2", pricing="spot")
        if o.instance_type == "p4d.24xlarge"
    ]
    assert spot and all(o.list_price_usd_per_hour is None for o in spot)  # the price as published


def test_a_chinese_clouds_default_takes_in_its_monthly_subscription(store: Store) -> None:
    # 包月 is a published list price of the Chinese clouds, as their pay-as-you-go one is
    assert set_discount(store, "alibaba", 15).pricing == ("on_demand", "monthly")
    monthly = [o for o in store.offers(provider="alibaba", pricing="monthly") if o.price_usd_per_hour]
    assert monthly and all(o.discount_percent == 15 for o in monthly)
    # one marketing article's monthly figure for an AWS A100 makes no AWS subscription
    assert set_discount(store, "aws", 15).pricing == ("on_demand",)


def test_the_models_named_are_discounted_each_on_its_own(store: Store) -> None:
    set_discount(store, "aws", 20, family="p4d", pricing=["on_demand,spot"])
    assert _p4d(store) == {"on_demand": 20, "spot": 20, "reserved_1y": None, "reserved_3y": None}
    # a reservation's own negotiated rate, beside it: the other models keep theirs
    set_discount(store, "aws", 7, family="p4d", pricing=["reserved_1y", "reserved_3y"])
    assert _p4d(store) == {"on_demand": 20, "spot": 20, "reserved_1y": 7, "reserved_3y": 7}
    listed = sorted((d.percent, d.pricing) for d in discounts(store))
    assert listed == [(7, ("reserved_1y", "reserved_3y")), (20, ("on_demand", "spot"))]
    # a provider-wide spot discount does not reach p4d's on-demand price past its family's own
    set_discount(store, "aws", 3, pricing=["spot"])
    assert _p4d(store)["spot"] == 20
    assert clear_discount(store, "aws", "p4d", pricing=["spot"]) == ("spot",)
    assert _p4d(store) == {"on_demand": 20, "spot": 3, "reserved_1y": 7, "reserved_3y": 7}
    assert clear_discount(store, "aws", "p4d") == ("on_demand", "reserved_1y", "reserved_3y")
    assert clear_discount(store, "aws", "p4d") == ()


def test_a_misspelt_pricing_model_is_refused_with_the_one_meant(store: Store, db_path: Path) -> None:
    with pytest.raises(UnknownChoiceError, match="'spto'; did you mean 'spot'"):
        set_discount(store, "aws", 20, pricing=["on_demand,spto"])
    assert discounts(store) == []  # nothing stored
    r = runner.invoke(
        app,
        ["--db", str(db_path), "catalog", "discount", "set", "--provider", "aws", "--percent", "9",
         "--pricing", "on-demand,reserved_1yr"],
    )  # fmt: skip
    assert r.exit_code != 0 and "did you mean 'reserved_1y'" in str(r.exception), r.output


def test_the_cli_says_which_models_it_touched_and_how_to_name_others(db_path: Path) -> None:
    db = str(db_path)
    r = runner.invoke(
        app, ["--db", db, "catalog", "discount", "set", "--provider", "azure", "--percent", "12"]
    )
    assert r.exit_code == 0, r.output
    assert "azure (all families): 12 % off list prices of on_demand from now on" in r.stdout
    assert "not taken off spot, monthly, reserved_1y, reserved_3y prices" in r.stdout
    assert "--pricing on_demand,spot" in r.stdout
    r = runner.invoke(
        app, ["--db", db, "catalog", "discount", "set", "--provider", "azure", "--percent", "12",
              "--pricing", "spot", "--pricing", "on_demand,monthly,reserved_1y,reserved_3y"]
    )  # fmt: skip
    assert r.exit_code == 0 and "not taken off" not in r.stdout, r.output
    assert "off list prices of on_demand, spot, monthly, reserved_1y, reserved_3y" in r.stdout
    r = runner.invoke(
        app, ["--db", db, "catalog", "discount", "clear", "--provider", "azure", "--pricing", "spot"]
    )
    assert r.exit_code == 0 and "removed the discount for azure (all families) off spot" in r.stdout, r.output
    listed = runner.invoke(app, ["--db", db, "catalog", "discount", "list"]).stdout
    assert "azure (all families): 12 % off on_demand, monthly, reserved_1y, reserved_3y" in listed


def test_setting_a_discount_again_says_what_the_scopes_other_models_still_take_off(db_path: Path) -> None:
    # "corrected" to on-demand only, it said "not taken off … reserved_3y" while the reservation's 12 %
    # of a moment before was still stored and taken off: a 3-year commitment $74,984 under its price
    db = str(db_path)
    aws = ["--db", db, "catalog", "discount", "set", "--provider", "aws", "--percent", "12"]
    assert runner.invoke(app, [*aws, "--pricing", "on_demand,reserved_3y"]).exit_code == 0
    r = runner.invoke(app, [*aws, "--pricing", "on_demand"])
    assert r.exit_code == 0, r.output
    out = " ".join(r.stdout.split())
    assert "still taken off reserved_3y prices: 12 % (set " in out
    assert "`gpuplan catalog discount clear --provider aws --pricing reserved_3y` removes it" in out
    assert "not taken off spot, monthly, reserved_1y prices" in out and "reserved_3y prices;" not in out


def test_a_discount_stored_before_revision_0011_keeps_every_model(tmp_path: Path) -> None:
    # entered as one for every model and applied so: it still is, spot included, and says so
    path = tmp_path / "old.sqlite"
    make_0010_catalog_with_a_discount(f"sqlite:///{path}")
    with contextlib.closing(open_store(str(path), seed=False)) as store:  # upgrades to head
        [d] = discounts(store)
        assert (d.provider, d.family, d.percent, d.note) == ("aws", "p4d", 20.0, "EA 2026")
        assert d.set_at == "2026-11-01T00:00:00+00:00"
        assert d.pricing == ("on_demand", "spot", "monthly", "reserved_1y", "reserved_3y")
        # a new discount of one model replaces that model's only
        set_discount(store, "aws", 10, family="p4d", pricing=["spot"])
        assert sorted((d.percent, d.pricing) for d in discounts(store)) == [
            (10, ("spot",)),
            (20, ("on_demand", "monthly", "reserved_1y", "reserved_3y")),
        ]
    # down again: one discount per provider and family, the on-demand one, for every model as before
    engine = create_engine(f"sqlite:///{path}")
    try:
        with engine.begin() as conn:
            downgrade_to(conn, "0010_workload_teams")
            rows = conn.execute(text("SELECT provider, family, percent, note FROM discounts")).all()
    finally:
        engine.dispose()
    assert [tuple(r) for r in rows] == [("aws", "p4d", 20.0, "EA 2026")]


def test_a_plans_cache_key_changes_when_a_discount_moves_to_another_model(store: Store) -> None:
    # the same provider, family and percent, now off spot instead of on demand: plans change
    set_discount(store, "aws", 10)
    before = TeamStore(store.engine).catalog_state()
    clear_discount(store, "aws")
    set_discount(store, "aws", 10, pricing=["spot"])
    assert TeamStore(store.engine).catalog_state() != before


def test_a_discount_that_touches_no_price_says_so(db_path: Path) -> None:
    # "10 % off … from now on" had been said of a provider whose prices were all the user's own quotes
    # (never discounted), and of a model the provider sells none of: no figure changed
    db = str(db_path)
    r = runner.invoke(
        app,
        [
            "--db",
            db,
            "catalog",
            "discount",
            "set",
            "--provider",
            "azure",
            "--percent",
            "8",
            "--pricing",
            "monthly",
        ],
    )
    assert r.exit_code == 0, r.output
    assert "note: no price in the catalog is one it is taken off: azure's prices of monthly" in r.stderr
    r = runner.invoke(app, ["--db", db, "catalog", "discount", "set", "--provider", "aws", "--percent", "8"])
    assert r.exit_code == 0 and "no price in the catalog" not in r.output, r.output


def test_a_discounted_monthly_row_divides_its_discounted_month_by_730(db_path: Path) -> None:
    # was: "¥5.01 … ¥4,575.66/month ÷ 730 h" beside a 20 % discount: 4,575.66 / 730 is ¥6.27
    import re

    db = str(db_path)
    r = runner.invoke(
        app, ["--db", db, "catalog", "discount", "set", "--provider", "alibaba", "--percent", "20"]
    )
    assert r.exit_code == 0, r.output
    r = runner.invoke(
        app,
        ["--db", db, "offers", "--provider", "alibaba", "--pricing", "monthly", "--currency", "CNY",
         "--gpu", "A10", "--region", "cn-shanghai"],
        env={"COLUMNS": "400"},
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    rows = re.findall(r"monthly +¥([\d,]+\.\d+) .*?¥([\d,]+(?:\.\d+)?)/month ÷ 730 h", r.output)
    assert rows and "your monthly −20 %" in r.output, r.output
    for hourly, month in rows:  # the CNY/h column is the month shown ÷ 730
        assert float(month.replace(",", "")) / 730 == pytest.approx(float(hourly.replace(",", "")), abs=0.006)
