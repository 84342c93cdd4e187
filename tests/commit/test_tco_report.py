"""The tco report: the JSON contract, the schedule rows, the HTML chart, both languages."""

from __future__ import annotations

import io
import json
import re
from dataclasses import replace

import pytest

from gpuplan.catalog.model import ExchangeRate
from gpuplan.commit import Demand, PricedOffer, TcoProblem, TcoReport, Usage, load_usage, optimise
from gpuplan.commit.adapters import DemandSource
from gpuplan.i18n import Money, use_language
from gpuplan.report.tco import commitment_runs, schedule_rows, summary_lines, tco_json, tco_view
from gpuplan.report.tco_html import monthly_cost_svg, tco_html

CONTRACT = {
    "schema_version",
    "horizon_months",
    "display_currency",
    "exchange_rate",
    "total_cost_usd",
    "all_on_demand_cost_usd",
    "savings_pct",
    "monthly",
    "commitments",
    "break_even_utilisation",
    "break_even_by_gpu",
    "past_horizon_credited_usd",
    "sensitivity",
    "notes",
}
COMMITMENT_KEYS = {
    "provider",
    "region",
    "instance_type",
    "gpu",
    "gpus_per_unit",
    "pricing",
    "units",
    "start_month",
    "term_months",
    "cost_usd",
    "contract_cost_usd",
    "upfront",
    "upfront_usd",
    "as_of",
    "floor_as_of",
    "own_usd_per_gpu_hour",
    "age_days",
    "stale",
    "staleness",
    "confidence",
    "price_source",
}


def _offer(pricing: str, usd_per_hour: float, term: int = 0) -> PricedOffer:
    return PricedOffer(
        provider="aws",
        region="us-east-1",
        instance_type="p.x",
        gpu="A100-SXM4-40GB",
        gpus_per_unit=1.0,
        pricing=pricing,
        usd_per_unit_hour=usd_per_hour,
        term_months=term,
    )


def _report(money: Money | None = None, past_horizon: str = "full") -> TcoReport:
    # Two years: one GPU busy all along (a 3-year term at $900/month beats $2 × 730 = $1,460), and
    # a second GPU busy 730 h in months 3 and 4 only (a monthly subscription at $1,400 each; 24 of
    # them, $33,600, would cost more than the 3-year term).
    usage = load_usage(
        {
            "horizon_months": 24,
            "start": "2027-11",
            "demands": [{"name": "d", "gpu": "A100-SXM4-40GB", "gpus": 1, "hours_per_month": 730}],
        }
    )
    hours = tuple(730.0 * (2 if m in (2, 3) else 1) for m in range(24))
    problem = TcoProblem(
        horizon_months=24,
        demands=(Demand(name="d", gpu="A100-SXM4-40GB", gpu_hours=hours),),
        offers=(
            _offer("on_demand", 2.0),
            _offer("reserved_3y", 900 / 730, 36),
            _offer("monthly", 1400 / 730, 1),
        ),
        past_horizon=past_horizon,
    )
    return TcoReport(
        usage=usage,
        problem=problem,
        schedule=optimise(problem),
        demands=(DemandSource(name="d", gpu="A100-SXM4-40GB", gpu_hours_total=sum(hours), how="given"),),
        money=money or Money.usd(),
        notes=("a note",),
    )


def test_json_document_has_the_contracts_names_and_adds_up() -> None:
    doc = json.loads(json.dumps(tco_json(_report())))
    assert set(doc) >= CONTRACT
    assert doc["schema_version"] == 7 and doc["display_currency"] == "USD" and doc["horizon_months"] == 24
    # 36 × $900 (12 months past the horizon, paid in full) + 2 × $1,400 = $35,200
    assert doc["total_cost_usd"] == 35_200.0
    assert doc["past_horizon_cost_usd"] == 10_800.0
    monthly_sum = sum(m["cost_usd"] for m in doc["monthly"])
    assert monthly_sum + doc["past_horizon_cost_usd"] == pytest.approx(doc["total_cost_usd"])
    # all on demand: (24 + 2) × 730 × $2 = $37,960
    assert doc["all_on_demand_cost_usd"] == 37_960.0
    assert doc["savings_pct"] == pytest.approx((37_960 - 35_200) / 37_960 * 100, abs=0.01)
    assert [m["month"] for m in doc["monthly"][:3]] == ["2027-11", "2027-12", "2028-01"]
    assert doc["monthly"][2]["cost_usd_by_pricing"] == {"monthly": 1400.0, "reserved_3y": 900.0}
    assert {tuple(sorted(c)) for c in doc["commitments"]} == {tuple(sorted(COMMITMENT_KEYS))}
    assert [(c["pricing"], c["units"], c["start_month"], c["term_months"]) for c in doc["commitments"]] == [
        ("reserved_3y", 1, "2027-11", 36),
        ("monthly", 1, "2028-01", 1),
        ("monthly", 1, "2028-02", 1),
    ]
    # Break-even inside the 24-month horizon: the 3-year term is paid for 36 months and serves 24.
    assert doc["break_even_utilisation"] == {
        "monthly": pytest.approx(1400 / 1460, abs=1e-4),
        "reserved_3y": pytest.approx(900 * 36 / (1460 * 24), abs=1e-4),
    }
    assert doc["break_even_by_gpu"] == {"A100-SXM4-40GB": doc["break_even_utilisation"]}
    assert doc["past_horizon_credited_usd"] == 0.0  # paid in full: nothing credited
    assert [c["contract_cost_usd"] for c in doc["commitments"]] == [32_400.0, 1400.0, 1400.0]
    assert [s["demand_change_pct"] for s in doc["sensitivity"]] == [-30.0, 0.0, 30.0]


def test_json_amounts_stay_in_usd_when_cny_is_shown_and_the_rate_is_stated() -> None:
    cny = Money.from_rate("CNY", usd_per_unit=0.125, as_of="2024-11-25", source="test rate")
    rate = ExchangeRate(currency="CNY", usd_per_unit=0.125, as_of="2024-11-25", source="test", age_days=12)
    doc = tco_json(replace(_report(cny), cny_rate=rate))
    assert doc["display_currency"] == "CNY"
    assert doc["total_cost_usd"] == 35_200.0  # the names say USD whatever the table shows
    assert doc["exchange_rate"] == {
        "currency": "CNY",
        "usd_per_unit": 0.125,
        "units_per_usd": 8.0,
        "as_of": "2024-11-25",
        "source": "test",
        "age_days": 12,
        "stale": False,
        "stale_after_days": 30,
        "warning": None,
    }


def test_a_rate_older_than_30_days_is_flagged_in_the_json_the_table_and_the_html() -> None:
    from rich.console import Console

    cny = Money.from_rate(
        "CNY", usd_per_unit=0.125, as_of="2024-11-25", source="test rate", age_days=31, stale_after_days=30
    )
    rate = ExchangeRate(currency="CNY", usd_per_unit=0.125, as_of="2024-11-25", source="test", age_days=31)
    report = replace(_report(cny), cny_rate=rate)
    doc = tco_json(report)
    assert doc["exchange_rate"]["stale"] is True and doc["exchange_rate"]["age_days"] == 31
    warning = "the CNY rate of 2024-11-25 is 31 days old (more than 30)"
    assert warning in doc["exchange_rate"]["warning"]
    buf = io.StringIO()
    Console(file=buf, width=200, color_system=None).print(tco_view(report))
    assert warning in " ".join(buf.getvalue().split())
    assert warning in tco_html(report, "toy")


def test_consecutive_monthly_subscriptions_show_as_one_run() -> None:
    runs = commitment_runs(_report().schedule.commitments)
    assert [(r[0].offer.pricing, r[0].start_month, r[1], r[2]) for r in runs] == [
        ("reserved_3y", 0, 36, 32_400.0),
        ("monthly", 2, 2, 2_800.0),
    ]
    rows = schedule_rows(_report())
    assert rows[1][0] == "2028-01" and rows[1][6] == "2 month(s), renewed monthly"


def test_a_term_credited_past_the_horizon_says_what_the_contract_costs() -> None:
    # remaining_value bills the 3-year term's 24 months inside the horizon ($21,600); the contract
    # still costs 36 × $900 = $32,400, and the $10,800 left out is said, not hidden.
    report = _report(past_horizon="remaining_value")
    doc = tco_json(report)
    assert doc["past_horizon_credited_usd"] == 10_800.0 and doc["past_horizon_cost_usd"] == 0.0
    first = doc["commitments"][0]
    assert (first["cost_usd"], first["contract_cost_usd"]) == (21_600.0, 32_400.0)
    lines = summary_lines(report)
    assert any("$10,800 of term months are credited" in line and "$35,200" in line for line in lines)
    # (the fixture's prices are undated: the row says so, as a commitment signed on such a price)
    assert schedule_rows(report)[0][7] == "$21,600 (contract $32,400)\nprice: date unknown"
    # Paid in full, nothing is credited and the cost is the contract's.
    assert not any("credited" in line for line in summary_lines(_report()))
    assert schedule_rows(_report())[0][7] == "$32,400\nprice: date unknown"


def test_chart_stacks_one_bar_segment_per_pricing_model_and_month() -> None:
    svg = monthly_cost_svg(_report())
    bar = r'<rect x="[\d.]+" y="[\d.]+" width="[\d.]+" height="([\d.]+)" fill="(#\w+)"><title>'
    segments = re.findall(bar, svg)
    # 24 reserved segments and 2 monthly ones, each 1400 / 900 as tall as a reserved one.
    assert len([s for s in segments if s[1] == "#0072B2"]) == 24
    monthly = [float(h) for h, c in segments if c == "#009E73"]
    reserved = [float(h) for h, c in segments if c == "#0072B2"]
    assert len(monthly) == 2 and monthly[0] / reserved[0] == pytest.approx(1400 / 900, rel=0.01)


def test_html_and_view_speak_chinese_when_asked() -> None:
    with use_language("zh"):
        page = tco_html(_report(), "t")
        assert '<html lang="zh">' in page and "每月费用" in page and "3 年预留" in page
    page = tco_html(_report(), "t")
    assert "Cost per month" in page and "reserved 3 years" in page
    from rich.console import Console

    console = Console(record=True, width=160)
    console.print(tco_view(_report()))
    text = console.export_text()
    assert "Total over 24 months: $35,200" in text and "Break-even utilisation" in text


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("width", [80, 100, 120])
def test_schedule_fits_the_console_with_whole_instance_types(width: int, lang: str) -> None:
    from dataclasses import replace

    from rich.cells import cell_len
    from rich.console import Console

    report = _report()
    long_name = "n1-standard-4 + 1x nvidia-tesla-t4"  # the catalog's longest instance type
    offers = tuple(replace(o, instance_type=long_name, region="cn-shanghai") for o in report.problem.offers)
    problem = replace(report.problem, offers=offers)
    report = replace(report, problem=problem, schedule=optimise(problem))
    console = Console(record=True, width=width)
    with use_language(lang):
        console.print(tco_view(report))
    lines = console.export_text().splitlines()
    assert max(cell_len(line) for line in lines) <= width
    assert any(long_name in line for line in lines) and "…" not in "\n".join(lines)


def test_a_price_whose_source_names_no_region_says_so() -> None:
    from gpuplan.report.tco import price_rows

    report = _report()
    rows = {r[0]: r for r in price_rows(report)}
    assert all("names no region" not in r[6] for r in rows.values())
    offers = tuple(replace(o, region="unspecified") for o in report.problem.offers)
    problem = replace(report.problem, offers=offers)
    nowhere = replace(report, problem=problem, schedule=optimise(problem))
    assert all("the source names no region" in r[6] for r in price_rows(nowhere))


def test_a_price_two_demands_buy_is_counted_once_in_the_headline() -> None:
    # Each demand buys its own hourly cover; one stale offer serving two demands was listed twice.
    report = _report()
    old = replace(_offer("on_demand", 2.0), as_of="2023-06")
    two = (
        Demand(name="a", gpu="A100-SXM4-40GB", gpu_hours=(730.0,) * 24),
        Demand(name="b", gpu="A100-SXM4-40GB", gpu_hours=(365.0,) * 24),
    )
    problem = replace(report.problem, demands=two, offers=(old,))
    report = replace(report, problem=problem, schedule=optimise(problem))
    assert len(report.schedule.hourly_used) == 2
    (line,) = [x for x in summary_lines(report) if x.startswith("Stale prices")]
    assert "1 of the 1 used" in line and line.count("p.x on demand") == 1


def test_the_stale_prices_and_their_uses_name_the_pricing_model_in_chinese() -> None:
    # The headline listed "aws/us-east-1 p.x on_demand" and the prices table's use column
    # "A100-SXM4-40GB/on_demand/…" in Chinese output: the code, not the pricing model's name.
    from gpuplan.report.tco import price_rows

    report = _report()
    old = replace(_offer("on_demand", 2.0), as_of="2023-06", region="unspecified")
    problem = replace(report.problem, offers=(old,))
    report = replace(report, problem=problem, schedule=optimise(problem))
    with use_language("zh"):
        (line,) = [x for x in summary_lines(report) if x.startswith("过时价格")]
        uses = [r[0] for r in price_rows(report)]
    # on demand is 按量付费 in tco as in plan and offers (it was 按量计费 here alone)
    assert "on_demand" not in line and "p.x 按量付费" in line and "未注明地域" in line, line
    assert uses and all("on_demand" not in u and "/按量付费" in u for u in uses), uses


def test_every_price_used_names_its_source_in_the_json_the_table_and_the_html() -> None:
    # The commitments and hourly prices said their date and confidence but not where the price came
    # from: a quote of one's own and a catalog price read alike (plan's option names its source).
    from rich.console import Console

    report = _report()
    sources = {
        "on_demand": "AWS price list API, read 2026-11-30",
        "reserved_3y": "account manager's <quote> of 2026-11-18 (own price list q.csv, line 2)",
        "monthly": "own price list q.csv, line 3",
    }
    offers = tuple(replace(o, source=sources[o.pricing]) for o in report.problem.offers)
    problem = replace(report.problem, offers=offers)
    report = replace(report, problem=problem, schedule=optimise(problem))
    doc = tco_json(report)
    assert {(c["pricing"], c["price_source"]) for c in doc["commitments"]} == {
        ("reserved_3y", sources["reserved_3y"]),
        ("monthly", sources["monthly"]),
    }
    assert all(h["price_source"] == sources[h["pricing"]] for h in doc["hourly_prices"])
    console = Console(record=True, width=200)
    console.print(tco_view(report))
    text = " ".join(console.export_text().split())
    assert all(f"{source}" in text for source in sources.values()), text
    page = tco_html(report, "t")
    assert "account manager&#x27;s &lt;quote&gt; of 2026-11-18" in page and "<quote>" not in page


def test_the_month_table_adds_up_to_the_total_with_the_months_after_the_horizon() -> None:
    # Paid in full, the 3-year term's 12 months after the 24-month horizon ($10,800) were in the
    # total but in no row: the table summed $10,800 short.
    from rich.console import Console

    report = _report()
    console = Console(file=io.StringIO(), width=160, color_system=None)
    console.print(tco_view(report))
    text = console.file.getvalue()  # type: ignore[attr-defined]
    row = next(line for line in text.splitlines() if line.startswith("after the horizon"))
    assert row.split()[-1] == "$10,800", row
    shown = sum(m.cost_usd for m in report.schedule.monthly) + report.schedule.past_horizon_usd
    assert shown == pytest.approx(report.schedule.total_usd)


def test_a_term_longer_than_the_horizon_says_why_it_never_pays_off() -> None:
    # A 3-year term at $900/month in a 12-month horizon is paid 36 months for 12 served: break-even
    # 900 × 36 / (1460 × 12) = 185 %. "never pays off" alone hid the reason, and the setting that
    # changes it (past_horizon: remaining_value puts it at 62 %).
    def lines(past_horizon: str) -> list[str]:
        usage = load_usage(
            {
                "horizon_months": 12,
                "start": "2027-11",
                "demands": [{"name": "d", "gpu": "A100-SXM4-40GB", "gpus": 1, "hours_per_month": 730}],
            }
        )
        problem = TcoProblem(
            horizon_months=12,
            demands=(Demand(name="d", gpu="A100-SXM4-40GB", gpu_hours=(730.0,) * 12),),
            offers=(_offer("on_demand", 2.0), _offer("reserved_3y", 900 / 730, 36)),
            past_horizon=past_horizon,
        )
        report = TcoReport(
            usage=usage,
            problem=problem,
            schedule=optimise(problem),
            demands=(DemandSource(name="d", gpu="A100-SXM4-40GB", gpu_hours_total=8760.0, how="given"),),
            money=Money.usd(),
            notes=(),
        )
        return [line for line in summary_lines(report) if "Break-even" in line]

    assert lines("full") == [
        "Break-even utilisation, reserved 3 years: 185% of its hours (never pays off: its 36-month term is "
        "paid whole within the 12-month horizon; past_horizon: remaining_value counts the months after it "
        "as worth their price): $1.23 a GPU-hour × 3 (the months billed over those of the horizon it serves) "
        "÷ $2.00 a GPU-hour on demand (d on aws/us-east-1 p.x)"
    ]
    assert lines("remaining_value") == [
        "Break-even utilisation, reserved 3 years: 62% of its hours (pays off above this): $1.23 a GPU-hour "
        "÷ $2.00 a GPU-hour on demand (d on aws/us-east-1 p.x)"
    ]


def test_the_json_notes_say_the_age_of_the_prices_used_as_the_text_does() -> None:
    # the dashboard's tco page shows the document's notes: a year's total had been shown there with no
    # word of the stale (here undated) prices under it, which the text's headline names
    doc = tco_json(_report())
    stale = [n for n in doc["notes"] if n.startswith("Stale prices: ")]
    assert len(stale) == 1 and stale[0] in summary_lines(_report()), doc["notes"]
    assert doc["notes"][-1] == "a note"


def _solved(usage: Usage, problem: TcoProblem, gpu_hours_total: float) -> TcoReport:
    """``problem`` solved as ``tco`` solves it (prices known to be current first) on 2026-12-03,
    its one demand ``d`` given in GPU-hours."""
    from datetime import date

    from gpuplan.commit.api import _fresh_first

    today = date(2026, 12, 3)
    problem, schedule, beside = _fresh_first(problem, today, 180)
    return TcoReport(
        usage=usage,
        problem=problem,
        schedule=schedule,
        demands=(DemandSource(name="d", gpu="A100-SXM4-40GB", gpu_hours_total=gpu_hours_total, how="given"),),
        money=Money.usd(),
        notes=(),
        today=today,
        with_stale_prices=beside,
    )


def _spot_report(
    spot_usd: float,
    *,
    from_scratch: bool,
    on_demand_as_of: str = "2026-11-01",
    spot_as_of: str = "2022-03/2026-12-02",
    more: tuple[PricedOffer, ...] = (),
) -> TcoReport:
    """One interruptible A100 busy 176 h a month for a year: on demand at $2 (dated last month) and
    spot at ``spot_usd`` of unknown age (2022-03 to the report's day; or ``spot_as_of``), 1
    interruption per 24 h, and ``more`` offers; solved as ``tco`` solves it (prices known to be
    current first)."""

    usage = load_usage(
        {
            "horizon_months": 12,
            "start": "2027-01",
            "demands": [{"name": "d", "gpu": "A100-SXM4-40GB", "gpus": 1, "hours_per_month": 176}],
        }
    )
    problem = TcoProblem(
        horizon_months=12,
        demands=(
            Demand(
                name="d",
                gpu="A100-SXM4-40GB",
                gpu_hours=(176.0,) * 12,
                interruptible=True,
                run_hours=8.0 if not from_scratch else 730.0,
                restarts_from_scratch=from_scratch,
            ),
        ),
        offers=(
            replace(_offer("on_demand", 2.0), as_of=on_demand_as_of),
            replace(_offer("spot", spot_usd), as_of=spot_as_of, interruptions_per_hour=1 / 24),
            *more,
        ),
    )
    return _solved(usage, problem, 2112.0)


def test_a_spot_price_weighed_and_not_bought_is_not_listed_as_used() -> None:
    # Interruptible without checkpoint_gb, a 730-h run restarts from its beginning at every
    # interruption: spot at $0.30 is dearer per useful hour than $2 on demand, and the schedule buys
    # on demand only. The spot price was still listed under "Prices used", counted in the stale line
    # ("2 of the 2 used") and in "Without stale spot prices (the schedule uses 1 …)".
    from gpuplan.report import tco as view

    report = _spot_report(0.3, from_scratch=True)
    assert [r[0] for r in view.price_rows(report)] == ["A100-SXM4-40GB/on demand/d"]
    assert report.with_stale_prices is None
    lines = summary_lines(report)
    assert not any(x.startswith(("Stale prices", "With stale")) for x in lines), lines
    assert report.schedule.hourly_bought == ("A100-SXM4-40GB/on_demand/d",)
    considered_lines = view.considered_lines
    (weighed,) = considered_lines(report)
    assert weighed.startswith("Weighed, not bought: A100-SXM4-40GB/spot/d aws/us-east-1 p.x spot at $0.30")
    assert "restarts a run from its beginning" in weighed and "730 h takes > 1,000 times" in weighed
    doc = tco_json(report)
    assert [(h["use"], h["bought"]) for h in doc["hourly_prices"]] == [("A100-SXM4-40GB/on_demand/d", True)]
    (considered,) = doc["considered_prices"]
    assert considered["use"] == "A100-SXM4-40GB/spot/d" and considered["stale"] is True
    assert considered["bought"] is False and "restarts a run from its beginning" in considered["why"]
    assert "Weighed, not bought: A100-SXM4-40GB/spot/d" in tco_html(report, "t")
    with use_language("zh"):
        (weighed,) = considered_lines(report)
    assert weighed.startswith("考虑过但未采用：") and "checkpoint_gb" in weighed, weighed


def test_an_on_demand_price_the_schedule_does_not_buy_is_listed_for_the_baseline() -> None:
    # Spot at $0.30 with checkpoints beats $2 on demand: the schedule buys spot alone, and the
    # all-on-demand total rests on the on-demand price, listed as not bought.
    from gpuplan.report import tco as view

    report = _spot_report(0.3, from_scratch=False, spot_as_of="2026-11-20")
    rows = {r[0]: r for r in view.price_rows(report)}
    assert set(rows) == {"A100-SXM4-40GB/on demand/d", "A100-SXM4-40GB/spot/d"}
    assert "not bought: the all-on-demand total is figured at it" in rows["A100-SXM4-40GB/on demand/d"][6]
    assert "not bought" not in rows["A100-SXM4-40GB/spot/d"][6]
    assert report.schedule.hourly_bought == ("A100-SXM4-40GB/spot/d",)
    assert view.considered_lines(report) == []
    assert report.with_stale_prices is None  # a spot price of last month is current


def test_the_commitment_price_behind_a_break_even_is_listed_dated_and_counted_as_stale() -> None:
    # A monthly subscription at $1,400 (a blog's table of 2023-06) against $2 on demand: break-even
    # 1400 / (2 × 730) = 96 %, so at 176 h a month the schedule buys none. The verdict rested on a
    # 3.5-year-old price that neither the table, the stale line nor the JSON named.
    from datetime import date

    from gpuplan.report.tco import price_rows, source_lines

    usage = load_usage(
        {
            "horizon_months": 12,
            "start": "2027-01",
            "demands": [{"name": "d", "gpu": "A100-SXM4-40GB", "gpus": 1, "hours_per_month": 176}],
        }
    )
    monthly = replace(_offer("monthly", 1400 / 730, 1), as_of="2023-06", source="a blog's 2023-06 table")
    problem = TcoProblem(
        horizon_months=12,
        demands=(Demand(name="d", gpu="A100-SXM4-40GB", gpu_hours=(176.0,) * 12),),
        offers=(replace(_offer("on_demand", 2.0), as_of="2026-11-01"), monthly),
    )
    report = TcoReport(
        usage=usage,
        problem=problem,
        schedule=optimise(problem),
        demands=(DemandSource(name="d", gpu="A100-SXM4-40GB", gpu_hours_total=2112.0, how="given"),),
        money=Money.usd(),
        notes=(),
        today=date(2026, 12, 3),
    )
    assert report.schedule.commitments == ()
    lines = summary_lines(report)
    assert (
        "Break-even utilisation, monthly subscription: 96% of its hours (pays off above this): $1.92 a "
        "GPU-hour ÷ $2.00 a GPU-hour on demand (d on aws/us-east-1 p.x)"
    ) in lines
    (stale,) = [x for x in lines if x.startswith("Stale prices")]
    assert "1 of the 2 used" in stale and "p.x monthly subscription stale (3.5 y)" in stale, stale
    row = next(r for r in price_rows(report) if r[3] == "monthly subscription")
    assert (
        row[5] == "2023-06 (3.5 y)"
        and "not bought: the break-even utilisation (96%) is figured at it" in row[6]
    )
    assert "$1,400.00 per instance a month" in row[6]  # the figure the subscription is quoted at
    assert any("a blog's 2023-06 table" in x for x in source_lines(report))
    (price,) = tco_json(report)["break_even_prices"]
    assert (price["pricing"], price["as_of"], price["stale"], price["bought"]) == (
        "monthly",
        "2023-06",
        True,
        False,
    )
    assert price["break_even"] == pytest.approx(0.9589) and price["price_source"] == "a blog's 2023-06 table"
    with use_language("zh"):
        row = next(r for r in price_rows(report) if r[3] == "包月")
    assert "未购买：盈亏平衡利用率（96%）按此价格计算" in row[6], row


def test_the_total_rests_on_current_prices_and_gives_the_one_at_a_stale_spot_price_beside_it() -> None:
    # The headline was "Total over 12 months: $X" at a spot price of unknown age, the total without
    # it (the on-demand one, 4 times as much here) beside it: unknown is never the best case, so the
    # schedule and its total now rest on prices known to be current, the cheaper one said as such.
    from gpuplan.report.tco import price_rows

    report = _spot_report(0.3, from_scratch=False)
    assert report.schedule.total_usd == pytest.approx(2.0 * 176 * 12)  # $4,224 on demand
    assert report.schedule.hourly_bought == ("A100-SXM4-40GB/on_demand/d",)
    w = report.with_stale_prices
    assert w is not None and w.used == 1 and not w.needed and w.total_usd < 4224.0 / 3
    cheaper = Money.usd().format(w.total_usd)
    lines = summary_lines(report)
    assert lines[0] == (
        f"Total over 12 months: $4,224.00; {cheaper} with 1 spot price(s) stale or of unknown age, left out "
        "of it as they may have changed"
    ), lines[0]
    assert any(x.startswith("With stale prices (not known to be current") for x in lines), lines
    row = next(r for r in price_rows(report) if r[0] == "A100-SXM4-40GB/spot")
    assert "age unknown" in row[6]
    assert "not bought: the total with stale prices is figured at it" in row[6]
    doc = tco_json(report)
    assert doc["total_cost_usd"] == 4224.0 and doc["stale_prices_in_total"] == 0
    assert doc["with_stale_prices"]["total_cost_usd"] == pytest.approx(w.total_usd, abs=0.01)
    assert doc["with_stale_prices"]["needed"] is False
    assert [p["as_of"] for p in doc["with_stale_prices"]["prices"]] == ["2022-03/2026-12-02"]
    assert doc["monthly"][0]["cost_usd_by_pricing"] == {"on_demand": 352.0}
    with use_language("zh"):
        head = summary_lines(report)[0]
    assert head.startswith("12 个月总计：$4,224.00") and "过期或时效未知的抢占式价格" in head, head


def test_a_demand_only_stale_spot_prices_meet_rests_on_them_and_says_so() -> None:
    # No on-demand price allowed, and the GPU has no price known to be current: the total rests on
    # the stale spot price, as plan's would, and says the total on current prices is unknown.
    from datetime import date

    from gpuplan.commit.api import _fresh_first

    problem = TcoProblem(
        horizon_months=2,
        demands=(Demand(name="d", gpu="A100-SXM4-40GB", gpu_hours=(100.0,) * 2, interruptible=True),),
        offers=(replace(_offer("spot", 0.5), as_of="2022-03/2026-12-02", interruptions_per_hour=1 / 24),),
    )
    problem, schedule, w = _fresh_first(problem, date(2026, 12, 3), 180)
    assert w is None
    assert schedule.hourly_bought == ("A100-SXM4-40GB/spot/d",)


def test_a_total_at_a_stale_on_demand_price_says_so_on_the_headline() -> None:
    # No second figure to give (on demand is the fallback), but the headline no longer reads as
    # resting on current prices; a total at current prices stays as it was.
    stale = _spot_report(0.3, from_scratch=True, on_demand_as_of="2023-06")
    assert summary_lines(stale)[0] == (
        "Total over 12 months: $4,224.00, at 1 price(s) stale or of unknown age (named below)"
    )
    assert tco_json(stale)["stale_prices_in_total"] == 1
    fresh = _spot_report(0.3, from_scratch=True)
    assert summary_lines(fresh)[0] == "Total over 12 months: $4,224.00"
    assert tco_json(fresh)["stale_prices_in_total"] == 0


def test_the_stale_spot_price_the_cheaper_total_buys_is_listed_with_its_date() -> None:
    # The schedule buys a fresh spot price of another region ($0.80, dated last month); the cheaper
    # total beside it buys the one of unknown age ($0.30), which no other figure rests on: it is listed.
    from gpuplan.report.tco import price_rows

    fresh = replace(
        _offer("spot", 0.8), region="us-west-2", as_of="2026-11-20", interruptions_per_hour=1 / 24
    )
    report = _spot_report(0.3, from_scratch=False, more=(fresh,))
    assert report.schedule.hourly_used["A100-SXM4-40GB/spot/d"] == fresh
    row = next(r for r in price_rows(report) if r[1] == "aws/us-east-1" and r[3] == "spot")
    assert "age unknown" in row[6] and "not bought: the total with stale prices" in row[6]
    (doc,) = tco_json(report)["with_stale_prices"]["prices"]
    assert (doc["region"], doc["as_of"], doc["stale"]) == ("us-east-1", "2022-03/2026-12-02", True)
    w = report.with_stale_prices
    assert w is not None and w.offers[0].region == "us-east-1"


def _monthly_report(*, monthly_as_of: str, on_demand: bool = True) -> TcoReport:
    """One A100 busy 700 h a month for a year: on demand at $2 (dated last month, unless
    ``on_demand`` is False) and a monthly subscription at $1,000 (break-even 68 %) of
    ``monthly_as_of`` from a blog's table; solved as ``tco`` solves it (prices known to be current
    first)."""

    usage = load_usage(
        {
            "horizon_months": 12,
            "start": "2027-01",
            "demands": [{"name": "d", "gpu": "A100-SXM4-40GB", "gpus": 1, "hours_per_month": 700}],
        }
    )
    monthly = replace(_offer("monthly", 1000 / 730, 1), as_of=monthly_as_of, source="a blog's table")
    od = (replace(_offer("on_demand", 2.0), as_of="2026-11-01"),) if on_demand else ()
    problem = TcoProblem(
        horizon_months=12,
        demands=(Demand(name="d", gpu="A100-SXM4-40GB", gpu_hours=(700.0,) * 12),),
        offers=(*od, monthly),
    )
    return _solved(usage, problem, 8400.0)


def test_a_commitment_at_a_stale_price_is_left_out_and_the_one_it_would_buy_is_said_beside() -> None:
    # A 12-month subscription at $1,000 a month beats 700 h × $2 = $1,400 on demand, but its price is
    # a blog's of 2023-06 (3.5 years old): the schedule told the user to sign it, the price marked
    # stale only in the price table. Now the schedule and headline rest on current prices ($16,800 on
    # demand), the $12,000 total beside it with the commitment it would buy and its price's date.
    from gpuplan.report.tco import no_commitment_line, price_rows

    report = _monthly_report(monthly_as_of="2023-06")
    assert report.schedule.commitments == () and report.schedule.total_usd == pytest.approx(16800.0)
    w = report.with_stale_prices
    assert w is not None and w.used == 1 and w.left_out == 1 and not w.needed
    assert w.total_usd == pytest.approx(12000.0) and {c.offer.pricing for c in w.commitments} == {"monthly"}
    lines = summary_lines(report)
    assert lines[0] == (
        "Total over 12 months: $16,800; $12,000 with 1 commitment price(s) stale or of unknown age, "
        "left out of it as they may have changed"
    ), lines[0]
    (bought,) = [x for x in lines if x.startswith("With stale prices it would buy")]
    assert "from 2027-01, 1 × aws/us-east-1 p.x monthly subscription (1× A100-SXM4-40GB)" in bought, bought
    assert "$12,000, at a price of 2023-06 (stale (3.5 y); source: a blog's table)" in bought, bought
    assert any("a commitment locks its price in for its term" in x for x in lines), lines
    # its break-even is said at that price, and why the schedule has none (the line had gone)
    (stale_line,) = [x for x in lines if x.startswith("Break-even utilisation, monthly subscription: none")]
    assert stale_line.startswith(
        "Break-even utilisation, monthly subscription: none at prices known to be current (no current "
        "price of it); at its stale price, the one the total with stale prices is figured at, 68% of its "
        "hours (pays off above this): "
    ), stale_line
    # and the prices it is the quotient of, as at current prices ($1,000 / 730 h ÷ $2 = 68%)
    assert "a GPU-hour ÷ $2.00 a GPU-hour on demand (d on aws/us-east-1 " in stale_line, stale_line
    assert no_commitment_line(report).startswith("No commitment pays off at prices known to be current")
    row = next(r for r in price_rows(report) if r[3] == "monthly subscription")
    assert "stale" in row[6] and "not bought: the total with stale prices is figured at it" in row[6]
    doc = tco_json(report)
    assert doc["total_cost_usd"] == 16800.0 and doc["commitments"] == []
    beside = doc["with_stale_prices"]
    assert beside["total_cost_usd"] == 12000.0 and beside["prices_used"] == 1
    c = beside["commitments"][0]
    assert (c["pricing"], c["as_of"], c["stale"], c["price_source"]) == (
        "monthly",
        "2023-06",
        True,
        "a blog's table",
    )
    assert [p["as_of"] for p in beside["stale_prices"]] == ["2023-06"]
    with use_language("zh"):
        zh = summary_lines(report)
    assert "用上 1 个过期或时效未知的承诺价格则为 $12,000" in zh[0], zh[0]
    assert any(x.startswith("用上过期价格时将购买") and "签约前请您先核实该价格" in x for x in zh), zh
    assert any(x.startswith("盈亏平衡利用率（包月）：按已知为最新的价格无从计算") for x in zh), zh
    # A subscription dated last month is current: bought, nothing beside it.
    fresh = _monthly_report(monthly_as_of="2026-11")
    assert fresh.with_stale_prices is None and fresh.schedule.total_usd == pytest.approx(12000.0)
    assert {c.offer.pricing for c in fresh.schedule.commitments} == {"monthly"}
    assert not any("price of" in r[-1] for r in schedule_rows(fresh))


def test_a_commitment_only_a_stale_price_can_meet_is_marked_on_its_row_with_its_age() -> None:
    # No on-demand price, and no price of the GPU known to be current: the schedule buys the stale
    # subscription, the headline says the total on current prices is unknown, and its row in
    # "Commitments to buy" gives the price's age.
    report = _monthly_report(monthly_as_of="2023-06", on_demand=False)
    assert report.with_stale_prices is None
    assert {c.offer.pricing for c in report.schedule.commitments} == {"monthly"}
    (row,) = schedule_rows(report)
    assert row[-1] == "$12,000\nprice of 2023-06: stale (3.5 y)", row
    with use_language("zh"):
        (row,) = schedule_rows(report)
    assert row[-1].endswith("价格日期 2023-06：过期（3.5 年）"), row


def _one_demand_report(problem: TcoProblem, *, hours_per_month: float) -> TcoReport:
    """The report of ``problem``, whose one demand ``d`` is given as one GPU for those hours."""
    usage = load_usage(
        {
            "horizon_months": problem.horizon_months,
            "start": "2027-01",
            "demands": [
                {"name": "d", "gpu": "A100-SXM4-40GB", "gpus": 1, "hours_per_month": hours_per_month}
            ],
        }
    )
    hours = hours_per_month * problem.horizon_months
    return TcoReport(
        usage=usage,
        problem=problem,
        schedule=optimise(problem),
        demands=(DemandSource(name="d", gpu="A100-SXM4-40GB", gpu_hours_total=hours, how="given"),),
        money=Money.usd(),
        notes=(),
    )


def test_a_break_even_names_the_on_demand_price_it_is_figured_against() -> None:
    # Runs of 10.07 h billed by the hour pay 11 h on demand, so a GPU-hour of their work costs
    # $2 × 11 / 10.07 = $2.18 there: a $1,000 subscription (1000 / 730 = $1.37 a GPU-hour) breaks
    # even at 1.37 / 2.18 = 63 %, not the 1.37 / 2 = 68.5 % the prices shown gave. The line said
    # "63 %" alone, and the reader could not find the $2.18 it was figured against.
    from gpuplan.plan.input_types import JobFacts

    on_demand = replace(_offer("on_demand", 2.0), billing_granularity_s=3600)
    demand = Demand(name="d", gpu="A100-SXM4-40GB", gpu_hours=(100.0,) * 12, run_hours=10.07, job=JobFacts())
    problem = TcoProblem(
        horizon_months=12, demands=(demand,), offers=(on_demand, _offer("monthly", 1000 / 730, 1))
    )
    report = _one_demand_report(problem, hours_per_month=100)
    used = 2.0 * 11 / 10.07
    assert report.schedule.break_even_utilisation == {"monthly": pytest.approx(1000 / 730 / used)}
    (line,) = [x for x in summary_lines(report) if x.startswith("Break-even")]
    assert line == (
        "Break-even utilisation, monthly subscription: 63% of its hours (pays off above this): $1.37 a "
        "GPU-hour ÷ $2.18 a GPU-hour used on demand (d on aws/us-east-1 p.x: $2.00 × 1.092, each run's "
        "10.1 h billed as 11.0 h)"
    )
    (price,) = tco_json(report)["break_even_prices"]
    basis = price["on_demand"]
    assert (basis["demand"], basis["instance_type"], basis["price_usd_per_gpu_hour"]) == ("d", "p.x", 2.0)
    assert basis["billing"] == pytest.approx(11 / 10.07) and basis["run_hours"] == pytest.approx(10.07)
    assert basis["usd_per_gpu_hour_used"] == pytest.approx(used)
    # the figure, from the document's own prices
    assert price["break_even"] == pytest.approx(
        price["price_usd_per_gpu_hour"] * basis["term_factor"] / basis["usd_per_gpu_hour_used"], abs=1e-4
    )
    with use_language("zh"):
        (line,) = [x for x in summary_lines(report) if x.startswith("盈亏平衡")]
    assert "$2.18" in line and "11.0 小时" in line, line


def test_a_commitment_both_schedules_buy_is_not_listed_as_resting_on_a_stale_price() -> None:
    # A monthly subscription at a current price, bought by the schedule, was listed again under "With
    # stale prices it would buy … check it before signing" beside the stale spot price the cheaper
    # total used: a reader took the fresh quote for the stale one's.
    from gpuplan.report.tco import _with_stale_lines

    usage = load_usage(
        {
            "horizon_months": 12,
            "start": "2027-01",
            "demands": [{"name": "d", "gpu": "A100-SXM4-40GB", "gpus": 2, "hours_per_month": 730}],
        }
    )
    problem = TcoProblem(
        horizon_months=12,
        demands=(
            Demand(name="base", gpu="A100-SXM4-40GB", gpu_hours=(730.0,) * 12),
            Demand(
                name="d", gpu="A100-SXM4-40GB", gpu_hours=(176.0,) * 12, interruptible=True, run_hours=8.0
            ),
        ),
        offers=(
            replace(_offer("on_demand", 2.0), as_of="2026-11-01"),
            replace(_offer("monthly", 1000 / 730, 1), as_of="2026-11-20"),
            replace(_offer("spot", 0.3), as_of="2022-03/2026-12-02", interruptions_per_hour=1 / 24),
        ),
    )
    report = _solved(usage, problem, 10872.0)
    w = report.with_stale_prices
    assert w is not None and report.schedule.commitments and w.commitments
    lines = _with_stale_lines(report)
    assert not any(x.startswith("With stale prices it would buy: ") for x in lines), lines
    assert (
        "With stale prices it would buy the schedule's own commitments above as well (1 of them, at prices "
        "known to be current)" in lines
    ), lines
