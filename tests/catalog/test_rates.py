"""The CNY rate: fetched from the ECB's daily reference rates, saved and replayed like the providers'
price lists, dated, and flagged wherever it converts money once it is older than 30 days."""

from __future__ import annotations

import io
from datetime import date
from pathlib import Path

import httpx
import pytest
import respx
from rich.console import Console
from typer.testing import CliRunner

from gpuplan.catalog import Store, open_store
from gpuplan.catalog.rates import ECB_DAILY_URL, cny_rate, parse_ecb
from gpuplan.catalog.refresh import RefreshOptions, refresh_rates
from gpuplan.cli import app
from gpuplan.errors import DataError
from gpuplan.i18n import use_language

runner = CliRunner()
#: The ECB's file of 2024-06-28 (see fixtures/refresh/README.md): 1 EUR = 1.0705 USD = 7.7748 CNY.
ECB_FILE = Path(__file__).parent / "fixtures" / "refresh" / "ecb_eurofxref_daily_2024-06-28.xml"
DAY = date(2024, 7, 1)


def ecb_body() -> bytes:
    return ECB_FILE.read_bytes()


def test_the_ecb_file_gives_the_cny_rate_as_the_cross_rate_with_its_day() -> None:
    ecb = parse_ecb(ecb_body(), today=DAY)
    assert ecb.day == "2024-06-28" and len(ecb.per_eur) == 30
    rate = cny_rate(ecb, url=ECB_DAILY_URL, fetched_at="2024-07-01T08:00:00+00:00")
    # 1 USD = 7.7748 / 1.0705 = 7.26277… CNY, so 1 CNY = 1.0705 / 7.7748 USD
    assert rate.usd_per_unit == pytest.approx(1.0705 / 7.7748, rel=1e-12)
    assert rate.as_of == "2024-06-28"
    assert "1 USD = 7.2628 CNY" in rate.source and "not the CFETS central parity" in rate.source
    assert ECB_DAILY_URL in rate.source and "fetched 2024-07-01T08:00:00+00:00" in rate.source


def test_the_latest_day_of_a_file_with_several_is_taken() -> None:
    # Hand-made, in the layout of the ECB's 90-day file (eurofxref-hist-90d.xml): two days, newest first.
    body = (
        b'<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" '
        b'xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref"><Cube>'
        b"<Cube time='2024-06-28'><Cube currency='USD' rate='1.0705'/>"
        b"<Cube currency='CNY' rate='7.7748'/></Cube>"
        b"<Cube time='2024-06-27'><Cube currency='USD' rate='1.0700'/>"
        b"<Cube currency='CNY' rate='7.7800'/></Cube>"
        b"</Cube></gesmes:Envelope>"
    )
    assert parse_ecb(body, today=DAY).per_eur == {"USD": 1.0705, "CNY": 7.7748}


_ENVELOPE = (
    '<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" '
    'xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref"><Cube>{}</Cube></gesmes:Envelope>'
)
#: Hand-made hostile or broken files, each with the reason it is refused.
_LAUGHS = (
    '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>'
    + _ENVELOPE.format("<Cube time='2024-06-28'><Cube currency='USD' rate='&lol2;'/></Cube>")
)
BROKEN = {
    "entities": (_LAUGHS, "declares a document type or entities"),
    "html error page": ("<html><body>Service unavailable</body></html>", "no dated rates in it"),
    "truncated": (_ENVELOPE.format("<Cube time='2024-06-28'><Cube currency='USD'")[:-30], "not the ECB's"),
    "rate not a number": (
        _ENVELOPE.format("<Cube time='2024-06-28'><Cube currency='CNY' rate='7,77'/></Cube>"),
        "CNY rate '7,77' is not a positive number",
    ),
    "negative rate": (
        _ENVELOPE.format("<Cube time='2024-06-28'><Cube currency='USD' rate='-1.07'/></Cube>"),
        "is not a positive number",
    ),
    "infinite rate": (
        _ENVELOPE.format("<Cube time='2024-06-28'><Cube currency='USD' rate='inf'/></Cube>"),
        "is not a positive number",
    ),
    "date from the future": (
        _ENVELOPE.format("<Cube time='2031-01-02'><Cube currency='USD' rate='1.07'/></Cube>"),
        "rates dated 2031-01-02, after today (2024-07-01)",
    ),
    "time not a date": (
        _ENVELOPE.format("<Cube time='yesterday'><Cube currency='USD' rate='1.07'/></Cube>"),
        "time 'yesterday' is not a date",
    ),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_broken_or_hostile_file_is_refused_in_one_line(case: str) -> None:
    body, reason = BROKEN[case]
    with pytest.raises(DataError) as e:
        parse_ecb(body.encode(), today=DAY)
    assert reason in str(e.value) and "\n" not in str(e.value)


def test_a_file_without_the_yuan_names_what_is_missing() -> None:
    ecb = parse_ecb(
        _ENVELOPE.format("<Cube time='2024-06-28'><Cube currency='USD' rate='1.07'/></Cube>").encode(),
        today=DAY,
    )
    with pytest.raises(DataError, match="the ECB's reference rates of 2024-06-28 have no CNY rate"):
        cny_rate(ecb, url=ECB_DAILY_URL, fetched_at="now")


def _unrated(tmp_path: Path, today: date = DAY) -> Store:
    """A catalog with no rate at all (not seeded), so the refreshed one is the current one."""
    return open_store(str(tmp_path / "bare.sqlite"), seed=False, today=today)


def test_refresh_appends_the_ecb_rate_which_then_converts_with_its_date(tmp_path: Path) -> None:
    store = _unrated(tmp_path)
    assert store.find_exchange_rate("CNY") is None
    with respx.mock(assert_all_mocked=True) as m:
        m.get(ECB_DAILY_URL).mock(return_value=httpx.Response(200, content=ecb_body()))
        outcome = refresh_rates(store, RefreshOptions(now="2024-07-01T08:00:00+00:00"))
    assert outcome.status == "ok", outcome.message
    assert outcome.line() == (
        "exchange rates: ok: 1 USD = 7.2628 CNY as of 2024-06-28 appended (ECB reference rates, cross rate)"
    )
    rate = store.find_exchange_rate("CNY")
    assert rate is not None and rate.as_of == "2024-06-28" and rate.age_days == 3 and not rate.stale
    # The run is recorded with the rate (catalog info shows the last refresh).
    [run] = store._query("SELECT provider, status, prices FROM refresh_runs")
    assert (run.provider, run.status, run.prices) == ("ecb", "ok", 1)


def test_refreshing_the_same_day_twice_appends_nothing(tmp_path: Path) -> None:
    store = _unrated(tmp_path)
    with respx.mock(assert_all_mocked=True) as m:
        m.get(ECB_DAILY_URL).mock(return_value=httpx.Response(200, content=ecb_body()))
        refresh_rates(store, RefreshOptions())
        again = refresh_rates(store, RefreshOptions())
    assert again.status == "ok" and "already in the catalog" in again.message
    assert len(store._query("SELECT id FROM exchange_rates")) == 1


def test_an_older_rate_is_kept_as_history_and_the_newest_day_still_converts(store: Store) -> None:
    shipped = store.find_exchange_rate("CNY")
    assert shipped is not None and shipped.as_of > "2024-06-28"
    with respx.mock(assert_all_mocked=True) as m:
        m.get(ECB_DAILY_URL).mock(return_value=httpx.Response(200, content=ecb_body()))
        outcome = refresh_rates(store, RefreshOptions())
    assert outcome.status == "ok"
    # was: "ok: 1 USD = 7.2628 CNY as of 2024-06-28 appended (ECB reference rates, cross rate)",
    # as if that rate now converted the prices
    assert outcome.message == (
        "ok: 1 USD = 7.2628 CNY as of 2024-06-28 appended; the catalog's rate of "
        f"{shipped.as_of} (1 USD = {1 / shipped.usd_per_unit:.4f} CNY) is newer and stays in use"
    )
    assert store.find_exchange_rate("CNY") == shipped
    days = [r.as_of for r in store._query("SELECT as_of FROM exchange_rates WHERE currency = 'CNY'")]
    assert "2024-06-28" in days and shipped.as_of in days


def test_a_rate_far_from_the_last_one_is_refused_and_the_last_is_kept(store: Store) -> None:
    before = store.find_exchange_rate("CNY")
    # Hand-made: the real file with the yuan's rate typed ten times too high.
    body = ecb_body().replace(b"rate='7.7748'", b"rate='77.748'")
    with respx.mock(assert_all_mocked=True) as m:
        m.get(ECB_DAILY_URL).mock(return_value=httpx.Response(200, content=body))
        outcome = refresh_rates(store, RefreshOptions())
    assert outcome.status == "failed"
    assert (
        "more than 1.5× away from the catalog's" in outcome.message
        and "kept the last rate" in outcome.message
    )
    assert store.find_exchange_rate("CNY") == before


def test_the_cli_saves_the_ecb_answer_and_replays_it_offline(tmp_path: Path) -> None:
    saved, db1, db2 = tmp_path / "saved", tmp_path / "one.sqlite", tmp_path / "two.sqlite"
    with respx.mock(assert_all_mocked=True) as m:
        m.get(ECB_DAILY_URL).mock(return_value=httpx.Response(200, content=ecb_body()))
        live = runner.invoke(app, ["--db", str(db1), "catalog", "refresh", "--rates", "--save", str(saved)])
    assert live.exit_code == 0, live.output
    # the seeded catalog's CFETS rate is newer than the recorded ECB file's day: it stays in use
    assert live.stdout.strip().splitlines() == [
        "exchange rates: ok: 1 USD = 7.2628 CNY as of 2024-06-28 appended; the catalog's rate of "
        "2026-01-27 (1 USD = 6.9858 CNY) is newer and stays in use"
    ]
    assert (saved / "ecb" / "index.json").is_file()
    with respx.mock(assert_all_mocked=True) as m:  # no route: any request would fail the test
        replayed = runner.invoke(
            app, ["--db", str(db2), "catalog", "refresh", "--rates", "--from", str(saved)]
        )
    assert replayed.exit_code == 0, replayed.output
    assert replayed.stdout == live.stdout
    ecb = "SELECT as_of FROM exchange_rates WHERE source LIKE 'ECB%'"
    assert [r.as_of for r in open_store(str(db2))._query(ecb)] == ["2024-06-28"]


def test_the_rates_line_is_chinese_under_zh_and_a_failure_exits_1(db_path: Path, tmp_path: Path) -> None:
    (tmp_path / "empty" / "ecb").mkdir(parents=True)  # recorded, but no index.json: the rate fails
    result = runner.invoke(
        app,
        [
            "--db",
            str(db_path),
            "catalog",
            "refresh",
            "--rates",
            "--from",
            str(tmp_path / "empty"),
            "--lang",
            "zh",
        ],
    )
    assert result.exit_code == 1
    [line] = result.stdout.strip().splitlines()
    assert line.startswith("汇率: 失败") and "保留上次的汇率" in line, line


def test_every_output_that_converts_says_the_rates_date_and_warns_past_30_days(db_path: Path) -> None:
    from gpuplan.catalog import display_money
    from gpuplan.catalog.query import OfferQuery, list_offers
    from gpuplan.report.catalog import offers_json, offers_view, rates_line

    rate = open_store(str(db_path)).find_exchange_rate("CNY")
    assert rate is not None
    fixed = date.fromisoformat(rate.as_of)
    fresh = open_store(str(db_path), today=date.fromordinal(fixed.toordinal() + 30))
    old = open_store(str(db_path), today=date.fromordinal(fixed.toordinal() + 31))
    assert fresh.find_exchange_rate("CNY").stale is False  # type: ignore[union-attr]
    assert old.find_exchange_rate("CNY").stale is True  # type: ignore[union-attr]
    warning = f"the CNY rate of {rate.as_of} is 31 days old (more than 30)"
    # tables and JSON of the catalog
    listing = list_offers(old, OfferQuery(currency="CNY", gpu="H100"))
    buf = io.StringIO()
    Console(file=buf, width=200, color_system=None).print(offers_view(listing))
    text = " ".join(buf.getvalue().split())
    assert f"as of {rate.as_of}" in text and warning in text
    doc = offers_json(listing).model_dump()["exchange_rate"]
    assert (doc["as_of"], doc["age_days"], doc["stale"], doc["stale_after_days"]) == (
        rate.as_of,
        31,
        True,
        30,
    )
    assert warning in doc["warning"]
    assert warning not in rates_line([fresh.find_exchange_rate("CNY")], "CNY")  # type: ignore[list-item]
    # the money footnote of plan, tco, simulate and history (tables and HTML)
    assert warning in display_money(old, "CNY").rate_note()
    assert "days old" not in display_money(fresh, "CNY").rate_note()
    with use_language("zh"):
        assert "超过 30 天" in display_money(old, "CNY").rate_note()


def test_a_plan_over_yuan_prices_names_the_rate_and_warns_when_it_is_old(db_path: Path) -> None:
    from gpuplan.plan.api import plan_workload
    from gpuplan.workload import load_workload
    from stand_in_profiles import bert_large_profile

    workload = load_workload(Path(__file__).resolve().parents[2] / "examples" / "bert-large-squad.yaml")
    rate = open_store(str(db_path)).find_exchange_rate("CNY")
    assert rate is not None
    old = open_store(str(db_path), today=date.fromordinal(date.fromisoformat(rate.as_of).toordinal() + 45))
    plan = plan_workload(
        workload,
        bert_large_profile("stand-in"),
        old,
        overrides={"providers": ["alibaba"], "budget_usd": 1e6, "deadline_h": 1e4},
    )
    [note] = [n for n in plan.notes if n.startswith("CNY prices converted at")]
    assert f"(as of {rate.as_of})" in note and f"the CNY rate of {rate.as_of} is 45 days old" in note
    # stated as every rate is, yuan a dollar (6.9858 for the shipped rate, as published)
    assert f"converted at 1 USD = {1 / rate.usd_per_unit:.4f} CNY (as of" in note


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(
    "args", [["catalog", "info"], ["offers", "--provider", "alibaba", "--gpu", "A10"]], ids=["info", "offers"]
)
def test_the_rate_is_stated_as_yuan_a_dollar_as_its_source_quotes_it(
    db_path: Path, lang: str, args: list[str]
) -> None:
    # The tables said "1 CNY = 0.143148 USD" beside a source quoting "6.9858 CNY per USD" (the
    # central parity's own form), while the footnotes and refresh said "1 USD = … CNY".
    r = runner.invoke(app, ["--db", str(db_path), "--lang", lang, *args], env={"COLUMNS": "250"})
    assert r.exit_code == 0, r.output
    text = " ".join(r.stdout.split())
    # the shipped rate: the parity of 6.9858 yuan a dollar, as published, and its source quoting it
    # so (in Chinese, gpuplan's words about the source are Chinese and say it "1 USD = … CNY")
    quoted = {"en": "CFETS central parity 6.9858 CNY per USD", "zh": "人民币兑美元中间价 1 USD = 6.9858 CNY"}
    assert "1 USD = 6.9858 CNY" in text and quoted[lang] in text, text[:2000]
    assert "1 CNY" not in text and "0.143148" not in text


def _old_rate_store(db_path: Path, days: int) -> tuple[Store, str]:
    """The seeded catalog on a day its CNY rate is ``days`` old, and that rate's warning."""
    rate = open_store(str(db_path)).find_exchange_rate("CNY")
    assert rate is not None
    old = open_store(str(db_path), today=date.fromordinal(date.fromisoformat(rate.as_of).toordinal() + days))
    return old, f"the CNY rate of {rate.as_of} is {days} days old"


def test_a_listing_of_usd_prices_names_no_rate_and_a_yuan_price_shown_in_usd_does(db_path: Path) -> None:
    from gpuplan.catalog.query import OfferQuery, list_offers
    from gpuplan.report.catalog import offers_view

    old, warning = _old_rate_store(db_path, 40)

    def shown(query: OfferQuery) -> tuple[set[str | None], str]:
        listing = list_offers(old, query)
        buf = io.StringIO()
        Console(file=buf, width=200, color_system=None).print(offers_view(listing))
        return {v.offer.currency for v in listing.views}, " ".join(buf.getvalue().split())

    # Yuan-priced offers are in the catalog, but --max-price leaves only dollar prices on screen: the
    # yuan prices were converted to be compared with the cap, so the rate that left them out (and
    # its age) is still said.
    everything, _text = shown(OfferQuery(pricing="on_demand"))
    assert "CNY" in everything
    currencies, text = shown(OfferQuery(pricing="on_demand", max_price_per_hour=0.3))
    assert currencies == {"USD"}
    assert warning in text and "no currency conversion needed" not in text
    # Only dollar prices, none converted: no rate.
    currencies, text = shown(OfferQuery(provider="aws", pricing="on_demand"))
    assert currencies == {"USD"}
    assert warning not in text and "no currency conversion needed" in text
    # An offer published in yuan, shown in dollars, was converted: the rate and its age are said.
    currencies, text = shown(OfferQuery(provider="alibaba", pricing="on_demand"))
    assert "CNY" in currencies and warning in text


def test_the_gpus_table_names_the_rate_only_when_a_cheapest_price_was_converted(db_path: Path) -> None:
    from gpuplan.catalog.query import cheapest_by_gpu
    from gpuplan.catalog.rates import used_rates
    from gpuplan.hardware import all_gpus
    from gpuplan.report.catalog import gpus_view

    old, warning = _old_rate_store(db_path, 40)
    rate = old.find_exchange_rate("CNY")
    assert rate is not None

    def text(provider: str) -> str:
        cheapest = cheapest_by_gpu(old.offers(provider=provider))
        prices = [o for per in cheapest.values() for o in per.values()]
        buf = io.StringIO()
        Console(file=buf, width=220, color_system=None).print(
            gpus_view(all_gpus(), cheapest, used_rates([rate], prices, "USD"))
        )
        return " ".join(buf.getvalue().split())

    assert warning not in text("aws") and "no currency conversion needed" in text("aws")
    assert warning in text("alibaba")


def test_a_plan_of_dollar_prices_names_no_rate(db_path: Path) -> None:
    from gpuplan.plan.api import plan_workload
    from gpuplan.workload import load_workload
    from stand_in_profiles import bert_large_profile

    workload = load_workload(Path(__file__).resolve().parents[2] / "examples" / "bert-large-squad.yaml")
    old, _warning = _old_rate_store(db_path, 45)
    plan = plan_workload(
        workload,
        bert_large_profile("stand-in"),
        old,
        overrides={"providers": ["aws"], "budget_usd": 1e6, "deadline_h": 1e4},
    )
    shown = [plan.recommended, *plan.options, *plan.pareto, *[p.option for p in plan.personas if p.option]]
    assert {o.provider for o in shown} == {"aws"}
    assert not [n for n in plan.notes if "CNY" in n]


@pytest.mark.parametrize(("provider", "named"), [("aws", False), ("alibaba", True)])
def test_a_tco_names_the_rate_only_when_its_schedule_buys_a_yuan_price(
    db_path: Path, provider: str, named: bool
) -> None:
    from gpuplan.commit import tco

    old, warning = _old_rate_store(db_path, 45)
    usage = {
        "horizon_months": 12,
        "start": "2027-01",
        "currency": "USD",
        "demands": [{"name": "fleet", "gpu": "A100-SXM4-40GB", "gpus": 8, "hours_per_month": 730}],
        "constraints": {"providers": [provider], "pricing": ["on_demand", "monthly", "reserved_1y"]},
    }
    report = tco(usage, store=old, currency="USD")
    notes = [n for n in report.notes if "CNY" in n]
    assert bool(notes) is named
    assert all(warning in n for n in notes)


def _printed(renderable: object) -> str:
    buf = io.StringIO()
    Console(file=buf, width=200, color_system=None).print(renderable)
    return " ".join(buf.getvalue().split())


@pytest.mark.parametrize("currency", ["CNY", "USD"])
def test_a_plan_warns_of_an_old_rate_once(db_path: Path, currency: str) -> None:
    # was: shown in yuan, the warning came twice, after the conversion of the yuan prices and
    # again in the footer that states the rate of the amounts shown. In yuan it stays in the
    # footer; in dollars the conversion note is the only place that says it.
    from gpuplan.catalog import display_money
    from gpuplan.i18n import use_money
    from gpuplan.plan.api import plan_workload
    from gpuplan.report.plan_html import plan_html
    from gpuplan.report.plan_view import plan_view
    from gpuplan.workload import load_workload
    from stand_in_profiles import bert_large_profile

    workload = load_workload(Path(__file__).resolve().parents[2] / "examples" / "bert-large-squad.yaml")
    old, warning = _old_rate_store(db_path, 45)
    with use_money(display_money(old, currency)) as shown:
        plan = plan_workload(
            workload,
            bert_large_profile("stand-in"),
            old,
            overrides={"providers": ["alibaba"], "budget_usd": 1e6, "deadline_h": 1e4},
        )
        text, page = _printed(plan_view(plan)), plan_html(plan, "bert")
    assert text.count(warning) == 1 and page.count(warning) == 1
    if currency == "CNY":
        assert warning in shown.rate_note()
        assert warning in text[text.index("Amounts in CNY") :]


@pytest.mark.parametrize("currency", ["CNY", "USD"])
def test_a_tco_warns_of_an_old_rate_once(db_path: Path, currency: str) -> None:
    from gpuplan.commit import tco
    from gpuplan.report.tco import tco_view
    from gpuplan.report.tco_html import tco_html

    old, warning = _old_rate_store(db_path, 45)
    usage = {
        "horizon_months": 12,
        "start": "2027-01",
        "currency": currency,
        "demands": [{"name": "fleet", "gpu": "A100-SXM4-40GB", "gpus": 8, "hours_per_month": 730}],
        "constraints": {"providers": ["alibaba"], "pricing": ["on_demand", "monthly", "reserved_1y"]},
    }
    report = tco(usage, store=old, currency=currency)
    text, page = _printed(tco_view(report)), tco_html(report, "fleet")
    assert text.count(warning) == 1 and page.count(warning) == 1
    if currency == "CNY":
        assert warning in text[text.index("Amounts in CNY") :]


def test_the_shipped_rate_is_the_published_parity_and_converts_to_the_cent(db_path: Path) -> None:
    # It was kept as 0.143148 USD a yuan (1 / 6.9858 rounded to six places, 3.3 parts in a million
    # high): 10,000,000 yuan came to $1,431,480.00 where the parity gives 10,000,000 / 6.9858 =
    # $1,431,475.28, and 1,000,000 yuan to $143,148.00 for $143,147.53.
    from gpuplan.i18n import Money

    rate = open_store(str(db_path)).find_exchange_rate("CNY")
    assert rate is not None and rate.as_of == "2026-01-27" and "6.9858 CNY per USD" in rate.source
    assert 1 / rate.usd_per_unit == pytest.approx(6.9858, rel=1e-15)
    assert round(10_000_000 * rate.usd_per_unit, 2) == 1_431_475.28
    assert round(1_000_000 * rate.usd_per_unit, 2) == 143_147.53
    # 10,000 yuan: 1,431.4753 dollars, $1,431.48 to the cent either way
    assert round(10_000 * rate.usd_per_unit, 2) == 1_431.48
    # and back: $1,000 shown in yuan at the parity itself, ¥6,985.80 (at 1 / 0.143148: ¥6,985.78)
    yuan = Money.from_rate("CNY", usd_per_unit=rate.usd_per_unit, as_of=rate.as_of, source=rate.source)
    assert yuan.units_per_usd == pytest.approx(6.9858, rel=1e-15)
    assert round(yuan.amount(1_000), 2) == 6_985.80
