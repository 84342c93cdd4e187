"""Negotiated discounts (stored apart, applied at query time, shown) and price history."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuplan.catalog import Store, open_store
from gpuplan.catalog.discounts import covers, discounts, set_discount
from gpuplan.catalog.history import price_history
from gpuplan.catalog.query import OfferQuery, list_offers
from gpuplan.cli import app
from gpuplan.errors import InputError, NotFoundError

runner = CliRunner()


def _p5(store: Store) -> float | None:
    [o] = [
        o
        for o in store.offers(provider="aws", region="us-east-1", pricing="on_demand")
        if o.instance_type == "p5.48xlarge"
    ]
    return o.price_usd_per_hour


def test_family_names_a_prefix_up_to_a_separator() -> None:
    assert covers("p5", "p5.48xlarge") and not covers("p5", "p5en.48xlarge")
    assert covers("a2-ultragpu", "a2-ultragpu-8g") and not covers("a2", "a2x-foo")
    assert covers("", "anything")
    # Azure's series: the family ends where letters turn to digits, not inside a letter run
    assert covers("Standard_ND", "Standard_ND96asr_v4") and not covers("Standard_N", "Standard_ND96asr_v4")
    assert not covers("Standard_ND", "Standard_NDm96") and not covers("a2", "a22-x")


def test_a_family_that_covers_no_instance_type_is_refused_with_the_nearest(store: Store) -> None:
    # a typo would be a discount that never applies, while every plan shows list prices
    with pytest.raises(NotFoundError, match="'p5x'; did you mean 'p5'") as e:
        set_discount(store, "aws", 12, family="p5x")
    assert "p5" in e.value.suggestions
    assert discounts(store) == []  # nothing stored
    set_discount(store, "aws", 12, family="p5")
    set_discount(store, "aws", 12, family="p5.48xlarge")  # one instance type is a family of one


def test_discount_applies_at_query_time_and_keeps_the_list_price(store: Store) -> None:
    assert _p5(store) == pytest.approx(55.04)
    set_discount(store, "aws", 12, family="p5")
    [o] = [
        o
        for o in store.offers(provider="aws", region="us-east-1", pricing="on_demand")
        if o.instance_type == "p5.48xlarge"
    ]
    # 55.04 x (1 - 0.12) = 48.4352
    assert o.price_usd_per_hour == pytest.approx(48.4352) and o.list_price_usd_per_hour == pytest.approx(
        55.04
    )
    assert o.price == 55.04 and o.discount_percent == 12  # the stored list amount is untouched
    en = [o for o in store.offers(provider="aws", pricing="on_demand") if o.instance_type == "p5en.48xlarge"]
    assert en and all(o.discount_percent is None for o in en)
    query = OfferQuery(provider="aws", region="us-east-1", pricing="on_demand")
    [p5] = [v for v in list_offers(store, query).views if v.offer.instance_type == "p5.48xlarge"]
    assert p5.price_per_hour == pytest.approx(48.4352)


def test_the_most_specific_discount_wins(store: Store) -> None:
    set_discount(store, "aws", 5)
    set_discount(store, "aws", 12, family="p5")
    by = {o.instance_type: o.discount_percent for o in store.offers(provider="aws", pricing="on_demand")}
    assert by["p5.48xlarge"] == 12 and by["g5.xlarge"] == 5


def test_bad_discount_is_one_line() -> None:
    with pytest.raises(InputError, match="more than 0 and at most 99"):
        set_discount(None, "aws", 120)  # type: ignore[arg-type]
    # was: accepted, said "100 % off" and made a g4dn the cheapest T4 anywhere at $0.000000
    with pytest.raises(InputError, match=r"at most 99, got 99\.99999"):
        set_discount(None, "aws", 99.99999)  # type: ignore[arg-type]


def test_discount_cli_sets_lists_and_clears(db_path: Path) -> None:
    db = str(db_path)
    r = runner.invoke(
        app,
        ["--db", db, "catalog", "discount", "set", "--provider", "aws", "--percent", "12", "--family", "p5"],
    )
    assert r.exit_code == 0 and "12 % off list prices of on_demand" in r.stdout
    assert (
        "aws p5: 12 % off on_demand" in runner.invoke(app, ["--db", db, "catalog", "discount", "list"]).stdout
    )
    listed = json.loads(runner.invoke(app, ["--db", db, "catalog", "discount", "list", "--json"]).stdout)
    assert listed["schema_version"] == 1
    assert [(d["provider"], d["family"], d["percent"], d["pricing"]) for d in listed["discounts"]] == [
        ("aws", "p5", 12.0, ["on_demand"])
    ]
    offers = runner.invoke(
        app,
        ["--db", db, "offers", "--provider", "aws", "--gpu", "H100-SXM", "--pricing", "on_demand"],
        env={"COLUMNS": "220"},  # whole cells (piped output follows COLUMNS, else 120)
    )
    assert "your on_demand −12 %" in offers.stdout
    r = runner.invoke(
        app, ["--db", db, "catalog", "discount", "clear", "--provider", "aws", "--family", "p5"]
    )
    assert r.exit_code == 0
    r = runner.invoke(app, ["--db", db, "catalog", "discount", "set", "--provider", "awz", "--percent", "5"])
    assert isinstance(r.exception, NotFoundError) and "did you mean 'aws'" in str(r.exception)


def test_a_discount_below_one_percent_is_said_beside_the_percent_it_may_have_meant(db_path: Path) -> None:
    # was: "--percent 0.15" (15 % typed as a fraction) was kept as 0.15 % without a word
    db = str(db_path)
    r = runner.invoke(
        app, ["--db", db, "catalog", "discount", "set", "--provider", "alibaba", "--percent", "0.15"]
    )
    assert r.exit_code == 0 and "0.15 % off" in r.stdout
    assert "note: 0.15 % is less than one percent off; for 15 % give --percent 15" in r.stderr
    r = runner.invoke(
        app, ["--db", db, "catalog", "discount", "set", "--provider", "alibaba", "--percent", "15"]
    )
    assert r.exit_code == 0 and "note:" not in r.stderr


@pytest.mark.parametrize("written", ["12%", "12 %", "12％"])
def test_a_discount_percent_may_end_in_a_percent_sign(db_path: Path, written: str) -> None:
    # budgets take "¥1.2M"; a percentage is as often written with its sign, ASCII or full-width
    db = str(db_path)
    r = runner.invoke(
        app, ["--db", db, "catalog", "discount", "set", "--provider", "aws", "--percent", written]
    )
    assert r.exit_code == 0 and "12 % off" in r.stdout, r.output
    with contextlib.closing(open_store(db)) as store:
        assert [d.percent for d in discounts(store)] == [12]


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ("120%", "at most 99, got 120"),
        ("120％", "at most 99, got 120"),
        ("-5%", "more than 0 and at most 99, got -5"),
        ("%", "Input should be a valid number"),
        ("12%%", "Input should be a valid number"),
    ],
)
def test_a_percent_sign_does_not_let_an_impossible_discount_through(
    db_path: Path, written: str, said: str
) -> None:
    db = str(db_path)
    r = runner.invoke(
        app, ["--db", db, "catalog", "discount", "set", "--provider", "aws", "--percent", written]
    )
    words = r.output + (
        "" if r.exception is None or isinstance(r.exception, SystemExit) else str(r.exception)
    )
    assert r.exit_code != 0 and said in words and len(words.strip().splitlines()) == 1, words
    with contextlib.closing(open_store(db)) as store:
        assert discounts(store) == []


def test_a_refresh_prints_its_outcomes_as_json(db_path: Path) -> None:
    # GCP's price list needs a key the tests do not have: skipped, said as JSON, exit 1 (none refreshed)
    r = runner.invoke(
        app,
        ["--db", str(db_path), "catalog", "refresh", "--provider", "gcp", "--json"],
        env={"GOOGLE_API_KEY": ""},
    )
    doc = json.loads(r.stdout)
    assert r.exit_code == 1 and doc["schema_version"] == 1
    [gcp] = doc["outcomes"]
    assert gcp["provider"] == "gcp" and gcp["status"] == "skipped" and "GOOGLE_API_KEY" in gcp["message"]


def test_history_lists_every_dated_price_and_writes_a_chart(db_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "h.html"
    r = runner.invoke(
        app, ["--db", str(db_path), "catalog", "history", "--instance", "p5.48xlarge", "--html", str(out)]
    )
    assert r.exit_code == 0, r.output
    assert "p5.48xlarge" in r.stdout and "55.04" in r.stdout
    page = out.read_text()
    assert "<svg" in page and "<polyline" in page and "aws us-east-1 on_demand" in page


def test_history_names_how_a_price_was_imported_in_the_user_s_language(store: Store) -> None:
    from rich.console import Console

    from gpuplan.i18n import use_language
    from gpuplan.report.history import history_view

    points = price_history(store, "p5.48xlarge", "us-east-1")
    assert {p.imported_by for p in points} == {"snapshot-offers"}

    def shown(lang: str) -> str:
        console = Console(width=200, file=io.StringIO())
        with use_language(lang):
            console.print(history_view(points))
        return console.file.getvalue()  # type: ignore[attr-defined]

    assert "snapshot-offers" in shown("en")
    assert "snapshot-offers" not in shown("zh")
    # a negotiated discount beside the price: in full-width brackets in Chinese (was " (−12 %)")
    from dataclasses import replace

    points = [replace(points[0], discount_percent=12.0)]
    assert "(−12 %)" in shown("en")
    assert "（−12 %）" in shown("zh") and "(−12 %)" not in shown("zh")


def test_history_table_says_how_old_each_price_is_as_plan_and_offers_do(store: Store) -> None:
    # The table showed each date bare; only --json said a price was stale or of unknown age.
    from dataclasses import replace

    from rich.console import Console

    from gpuplan.i18n import use_language
    from gpuplan.report.history import history_html, history_view

    points = [p for p in price_history(store, "p5.48xlarge", "us-east-1") if p.zone is None]
    undated = replace(points[0], as_of="", age=store.age_of(None))
    recent = replace(points[0], as_of="2026-10-01", age=store.age_of("2026-10-01"))
    # (the shipped on-demand price is dated 2026-11-09/2026-12-02 now: a wider interval, made here)
    wide = "2026-01-21/2026-12-02"
    bounded = replace(points[0], as_of=wide, age=store.age_of(wide))
    points += [undated, recent, bounded]

    def rows(lang: str) -> dict[str, str]:
        console = Console(width=250, file=io.StringIO())
        with use_language(lang):
            console.print(history_view(points))
        lines = console.file.getvalue().splitlines()  # type: ignore[attr-defined]
        return {line.split()[0]: line for line in lines if line[:1] in "2—"}

    en = rows("en")
    # Catalog day 2026-11-30, limit 180 days: 2025-11-30 is 365 days old, past it.
    assert "stale (12 mo)" in en["2025-11-30"]
    # 2026-01-21/2026-12-02 (no date of its own): at most 313 days old, at least 0, so unknown.
    assert "age unknown (up to 10 mo)" in en["2026-01-21–2026-12-02"]
    assert "date unknown" in en["—"]
    assert "2 mo old" in en["2026-10-01"]  # 60 days: within the limit
    zh = rows("zh")
    assert "过期（12 个月）" in zh["2025-11-30"] and "日期未知" in zh["—"]
    assert "时效未知（最多 10 个月）" in zh["2026-01-21–2026-12-02"]
    page = history_html(points)
    assert "<td>stale (12 mo)</td>" in page and "<td>date unknown</td>" in page


def test_history_of_an_unknown_instance_suggests_a_close_one(store: Store) -> None:
    with pytest.raises(NotFoundError, match=r"did you mean 'p5\.48xlarge'"):
        price_history(store, "p5.48xlarg")
    with pytest.raises(NotFoundError, match=r"region of p5\.48xlarge"):
        price_history(store, "p5.48xlarge", "us-east-9")


def test_the_planner_sees_the_discounted_price_and_says_so(store: Store) -> None:
    from gpuplan.plan.build_inputs import offer_table_from_prices

    set_discount(store, "aws", 12, family="p5")
    table = offer_table_from_prices(store.offers(provider="aws", region="us-east-1", pricing="on_demand"))
    [i] = [k for k, t in enumerate(table.instance_type) if t == "p5.48xlarge"]
    assert table.price_usd[i] == pytest.approx(48.4352)  # 55.04 x 0.88
    assert "your 12 % on_demand discount applied; list $55.04/h" in table.source[i]


_QUOTE = (
    "provider,region,zone,instance_type,gpu,gpu_count,vcpus,memory_gib,pricing,price,currency,unit,as_of,source\n"
    "alibaba,cn-hangzhou,,ecs.gn7-c13g1.26xlarge,A100-SXM4-40GB,8,104,756,reserved_3y,72000,CNY,month,"
    "2026-11-18,account manager's quote\n"
)


def test_a_quote_imported_as_ones_own_price_is_not_discounted_again(db_path: Path, tmp_path: Path) -> None:
    # was: a provider-wide 15 % discount was taken off the imported quote too: tco's three years came
    # to 2,203,200 yuan for a contract of 2,592,000, and offers labelled the quote a list price
    quote = tmp_path / "quote.csv"
    quote.write_text(_QUOTE, encoding="utf-8")
    db = str(db_path)
    assert (
        runner.invoke(app, ["--db", db, "catalog", "import", str(quote), "--format", "gpuplan"]).exit_code
        == 0
    )
    assert runner.invoke(app, ["--db", db, "catalog", "discount", "set", "--provider", "alibaba",
                               "--percent", "15"]).exit_code == 0  # fmt: skip
    with contextlib.closing(open_store(db)) as store:
        alibaba = store.offers(provider="alibaba", region="cn-hangzhou")
        [mine] = [
            o for o in alibaba if o.instance_type == "ecs.gn7-c13g1.26xlarge" and o.pricing == "reserved_3y"
        ]
        assert (mine.price, mine.discount_percent, mine.list_price_usd_per_hour) == (72000, None, None)
        listed = [o for o in alibaba if o.pricing == "on_demand" and o.price_usd_per_hour]
        assert listed and all(o.discount_percent == 15 for o in listed)  # list prices still are
        [point] = [p for p in price_history(store, "ecs.gn7-c13g1.26xlarge") if p.pricing == "reserved_3y"]
        assert point.discount_percent is None


def test_tco_gpus_and_a_yuan_table_say_the_discount_they_hold(db_path: Path) -> None:
    from rich.console import Console

    from gpuplan.hardware import get_gpu
    from gpuplan.report.catalog import gpus_view, offers_view

    def render_text(view: object, width: int) -> str:
        buf = io.StringIO()
        Console(file=buf, width=width, color_system=None).print(view)
        return buf.getvalue()

    examples = Path(__file__).parents[2] / "examples" / "tco"
    db = str(db_path)
    # a contract that covers the reservations and spot as well: each named
    assert runner.invoke(app, ["--db", db, "catalog", "discount", "set", "--provider", "aws",
                               "--percent", "20", "--family", "p4d",
                               "--pricing", "on_demand,reserved_1y", "--pricing", "reserved_3y,spot"]
                         ).exit_code == 0  # fmt: skip
    # tco: the source of a discounted price says so (it had read as the list price's source)
    r = runner.invoke(app, ["--db", db, "tco", str(examples / "reserved-plus-spot.yaml"), "--json"])
    assert r.exit_code == 0, r.output
    prices = json.loads(r.stdout)["hourly_prices"]
    sources = [h["price_source"] for h in prices if h["instance_type"].startswith("p4d.")]
    assert sources and all(
        re.search(r"\[your 20 % (on_demand|spot|reserved_1y|reserved_3y) discount applied; list \$", s)
        for s in sources
    ), sources
    with contextlib.closing(open_store(db)) as store:
        # gpus: the cheapest A100 is the discounted p4d, and the table's note says whose discount it is
        [p4d] = [o for o in store.offers(provider="aws", region="us-east-1", pricing="on_demand")
                 if o.instance_type == "p4d.24xlarge"]  # fmt: skip
        view = gpus_view([get_gpu("A100-SXM4-40GB")], {"A100-SXM4-40GB": {"on_demand": p4d}}, None)
        assert "Your negotiated discounts are in these prices: aws on_demand −20 %" in render_text(
            view, width=200
        )
        # offers in yuan: the list price beside a discounted one is in yuan too (it was in dollars)
        listing = list_offers(store, OfferQuery(provider="aws", gpu="A100-SXM4-40GB", currency="CNY"))
        cny = render_text(offers_view(listing), width=600)  # one line a note (a spot row's is ~420)
    assert "your on_demand −20 % (list ¥" in cny and "(list $" not in cny
    # tco in yuan and in Chinese: the list price is in yuan and the words are Chinese (they were
    # English, and in dollars in a yuan report)
    args = ["--db", db, "tco", str(examples / "reserved-plus-spot.yaml"), "--json", "--lang", "zh"]
    r = runner.invoke(app, [*args, "--currency", "CNY"])
    assert r.exit_code == 0, r.output
    prices = json.loads(r.stdout)["hourly_prices"]
    sources = [h["price_source"] for h in prices if h["instance_type"].startswith("p4d.")]
    # (the price bought may be any of the four discounted models: spot, since spot of unknown age is
    # floored at the lowest dated one)
    assert sources and all(re.search(r"\[已按您的\S+ 20% 折扣计价；标价 ¥", s) for s in sources), sources
