"""tco tells unknown from no, names every price's age, and never prints a saving of nothing."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import date

import pytest

from gpuplan.commit import Demand, MissingPrice, PricedOffer, TcoProblem, TcoReport, load_usage, optimise
from gpuplan.commit.adapters import DemandSource, missing_prices
from gpuplan.commit.model import HostNeed
from gpuplan.i18n import Money, use_language
from gpuplan.report.tco import no_commitment_line, price_rows, summary_lines, tco_json


def _offer(
    pricing: str, usd_per_hour: float, term: int = 0, as_of: str = "2026-11-09", **kw: object
) -> PricedOffer:
    return PricedOffer(
        provider="aws",
        region="us-east-1",
        instance_type="p.x",
        gpu="A100-SXM4-40GB",
        gpus_per_unit=1.0,
        pricing=pricing,
        usd_per_unit_hour=usd_per_hour,
        term_months=term,
        as_of=as_of,
        **kw,  # type: ignore[arg-type]
    )


def _report(offers: tuple[PricedOffer, ...], missing: tuple[MissingPrice, ...] = ()) -> TcoReport:
    usage = load_usage(
        {
            "horizon_months": 36,
            "start": "2027-01",
            "demands": [{"name": "d", "gpu": "A100-SXM4-40GB", "gpus": 8, "hours_per_month": 730}],
            "constraints": {"pricing": ["on_demand", "reserved_3y"]},
        }
    )
    problem = TcoProblem(
        horizon_months=36,
        demands=(Demand(name="d", gpu="A100-SXM4-40GB", gpu_hours=(8 * 730.0,) * 36),),
        offers=offers,
    )
    return TcoReport(
        usage=usage,
        problem=problem,
        schedule=optimise(problem),
        demands=(DemandSource(name="d", gpu="A100-SXM4-40GB", gpu_hours_total=8 * 730.0 * 36, how="given"),),
        money=Money.usd(),
        notes=(),
        missing=missing,
        today=date(2026, 12, 1),
    )


def test_a_commitment_without_a_price_is_unknown_not_no() -> None:
    missing = (MissingPrice(pricing="reserved_3y", gpu="A100-SXM4-40GB"),)
    report = _report((_offer("on_demand", 2.74),), missing)
    line = no_commitment_line(report)
    assert "No commitment pays off" not in line and line.startswith("Unknown whether a commitment pays off")
    text = "\n".join(summary_lines(report))
    assert "Unknown — no usable price for reserved 3 years (A100-SXM4-40GB)" in text
    assert "gpuplan catalog refresh" in text  # what would fill it
    doc = tco_json(report)
    assert doc["unknown_prices"] == [
        {"pricing": "reserved_3y", "gpu": "A100-SXM4-40GB", "fill": doc["unknown_prices"][0]["fill"]}
    ]
    with use_language("zh"):
        assert "No commitment" not in no_commitment_line(report)


def test_only_when_every_allowed_commitment_has_a_price_does_no_commitment_pay_off_say_no() -> None:
    # A 3-year term at $2.80/h against $2.74 on demand: priced, and it does not pay off.
    report = _report((_offer("on_demand", 2.74), _offer("reserved_3y", 2.80, term=36)))
    assert no_commitment_line(report) == "No commitment pays off: everything is bought by the hour."


def test_low_confidence_rows_are_named_as_what_would_fill_the_gap() -> None:
    missing = (MissingPrice(pricing="reserved_3y", gpu="A100-SXM4-40GB", low_confidence_rows=2),)
    text = "\n".join(summary_lines(_report((_offer("on_demand", 2.74),), missing)))
    assert "only low-confidence prices for reserved 3 years (A100-SXM4-40GB)" in text
    assert "allow_low_confidence: true" in text


def test_missing_prices_lists_commitments_for_every_gpu_and_spot_only_for_interruptible_demand() -> None:
    usage = load_usage(
        {
            "horizon_months": 12,
            "demands": [{"name": "d", "gpu": "A100-SXM4-40GB", "gpus": 1, "hours_per_month": 730}],
            "constraints": {"pricing": ["on_demand", "spot", "reserved_1y"]},
        }
    )
    firm = (Demand(name="d", gpu="A100-SXM4-40GB", gpu_hours=(730.0,) * 12),)
    got = missing_prices([], usage, firm, [_offer("on_demand", 2.0)])
    assert got == (MissingPrice(pricing="reserved_1y", gpu="A100-SXM4-40GB"),)
    loose = (Demand(name="d", gpu="A100-SXM4-40GB", gpu_hours=(730.0,) * 12, interruptible=True),)
    assert {m.pricing for m in missing_prices([], usage, loose, [_offer("on_demand", 2.0)])} == {
        "spot",
        "reserved_1y",
    }


def test_every_price_used_shows_its_age_and_stale_ones_are_flagged_in_the_headline() -> None:
    report = _report((_offer("on_demand", 2.74, as_of="2023-06"), _offer("reserved_3y", 1.2, term=36)))
    rows = price_rows(report)
    dates = {r[3]: r[5:] for r in rows}
    # 2023-06-01 to 2026-12-01 is 1,279 days: 3.5 years.
    assert dates == {
        # the reservation serves every hour: the on-demand price is the baseline's, not bought
        "on demand": [
            "2023-06 (3.5 y)",
            "stale, not bought: the all-on-demand total and the break-even are figured at it",
        ],
        "reserved 3 years": ["2026-11-09 (22 d)", ""],
    }
    headline = "\n".join(summary_lines(report))
    assert "Stale prices: 1 of the 2 used are older than 180 days or of unknown age" in headline
    assert "stale (3.5 y)" in headline
    doc = tco_json(report)
    ages = {
        c["pricing"]: (c["age_days"], c["stale"], c["staleness"])
        for c in [*doc["commitments"], *doc["hourly_prices"]]
    }
    assert ages == {"on_demand": (1279, True, "stale"), "reserved_3y": (22, False, "fresh")}


def test_a_price_whose_source_carries_no_date_is_of_unknown_age() -> None:
    # A bounded date (observed some time between June 2025 and the day of the report) straddles the
    # 180-day limit: its age is unknown, never taken as fresh, shown at its oldest.
    report = _report((_offer("on_demand", 2.74, as_of="2025-06/2026-12-01"),))
    assert price_rows(report)[0][5:] == ["2025-06–2026-12-01 (18 mo)", "age unknown"]
    assert "age unknown (up to 18 mo)" in "\n".join(summary_lines(report))
    assert tco_json(report)["hourly_prices"][0]["staleness"] == "unknown"


def test_an_undated_price_counts_as_stale() -> None:
    report = _report((_offer("on_demand", 2.74, as_of=""),))
    assert price_rows(report)[0][5:] == ["date unknown", "age unknown"]


def test_a_total_equal_to_all_on_demand_saves_nothing_and_says_so() -> None:
    # Two demands summed month by month vs demand by demand: the same hours in another order
    # differ in the last bits (1.2e-14 % before the fix, printed as "saving <0.1%").
    rng = random.Random(1)
    hours = tuple(round(rng.uniform(100, 800), 3) for _ in range(36))
    price = round(rng.uniform(1, 30), 5)
    demands = (
        Demand(name="a", gpu="G", gpu_hours=hours),
        Demand(name="b", gpu="G", gpu_hours=tuple(h * 0.37 for h in hours)),
    )
    offers = (
        PricedOffer(
            provider="p",
            region="r",
            instance_type="i",
            gpu="G",
            gpus_per_unit=8.0,
            pricing="on_demand",
            usd_per_unit_hour=price * 8,
        ),
    )
    s = optimise(TcoProblem(horizon_months=36, demands=demands, offers=offers))
    assert s.total_usd == pytest.approx(s.all_on_demand_usd, abs=0.005)
    assert s.savings_pct == 0.0
    report = _report((_offer("on_demand", 2.74),))
    text = "\n".join(summary_lines(report))
    assert "no saving" in text and "<0.1" not in text


@pytest.mark.parametrize("undated_first", [True, False])
def test_a_tie_in_price_goes_to_the_price_of_known_date_not_to_the_undated_one(undated_first: bool) -> None:
    # Two offers at one price: one dated last month, one of no known date ("aaa" sorts first by
    # label, as the tie had been broken). The undated one had been bought: an unknown fact won.
    def both(pricing: str, price: float, term: int = 0) -> tuple[PricedOffer, ...]:
        undated = replace(_offer(pricing, price, term, as_of="2025-03/2026-12-02"), region="aaa")
        dated = replace(_offer(pricing, price, term, as_of="2026-11-20"), region="zzz")
        return (undated, dated) if undated_first else (dated, undated)

    problem = TcoProblem(
        horizon_months=12,
        demands=(
            Demand(name="steady", gpu="A100-SXM4-40GB", gpu_hours=(730.0,) * 12),
            Demand(name="burst", gpu="A100-SXM4-40GB", gpu_hours=(0.0,) * 11 + (100.0,)),
        ),
        offers=(*both("on_demand", 3.0), *both("reserved_1y", 1.0, term=12)),
    )
    schedule = optimise(problem)
    bought = [c.offer for c in schedule.commitments] + list(schedule.hourly_used.values())
    assert bought and all(o.region == "zzz" for o in bought), [o.label for o in bought]


def test_a_spot_price_bought_at_an_assumed_interruption_rate_says_so_in_the_table_and_the_json() -> None:
    # tco had bought spot at the assumed rate (one interruption a day: the provider publishes none)
    # and said nothing of it where plan and offers say it.
    from gpuplan.plan.spot import spot_default

    rate = spot_default("nebius")
    spot = replace(_offer("spot", 1.0), interruptions_per_hour=rate.per_hour, spot_rate=rate)
    problem = TcoProblem(
        horizon_months=12,
        demands=(Demand(name="d", gpu="A100-SXM4-40GB", gpu_hours=(100.0,) * 12, interruptible=True),),
        offers=(_offer("on_demand", 3.0), spot),
    )
    usage = load_usage(
        {
            "horizon_months": 12,
            "start": "2027-01",
            "demands": [
                {
                    "name": "d",
                    "gpu": "A100-SXM4-40GB",
                    "gpus": 1,
                    "hours_per_month": 100,
                    "interruptible": True,
                }
            ],
        }
    )
    report = TcoReport(
        usage=usage,
        problem=problem,
        schedule=optimise(problem),
        demands=(DemandSource(name="d", gpu="A100-SXM4-40GB", gpu_hours_total=1200.0, how="given"),),
        money=Money.usd(),
        notes=(),
        today=date(2026, 12, 1),
    )
    [row] = [r for r in price_rows(report) if "spot" in r[3]]
    assert "assumed: 1 interruption per 24 instance-hours (Nebius publishes no interruption rate" in row[-1]
    [hourly] = [h for h in tco_json(report)["hourly_prices"] if h["pricing"] == "spot"]
    assert hourly["interruption_rate_assumed"] is True
    assert hourly["interruptions_per_hour"] == pytest.approx(1 / 24)
    assert hourly["interruption_rate_source"].startswith("assumed: 1 interruption per 24")


def test_a_monthly_price_held_out_by_the_sized_instance_rule_says_why_and_what_helps() -> None:
    # A 70B service sized on p4de.24xlarge (replicas of 4 GPUs over NVLink/NVSwitch): Alibaba's
    # gn7e-c16g1.32xlarge has a monthly price, but the catalog writes its link "NVSwitch (unverified)".
    # was: "no usable price for monthly subscription (A100-SXM4-80GB): `gpuplan catalog refresh` …
    # `gpuplan catalog import` …", neither of which changes anything.
    from gpuplan.report.tco import unknown_lines

    usage = load_usage(
        {
            "horizon_months": 12,
            "demands": [{"name": "chat70b", "gpu": "A100-SXM4-80GB", "gpus": 32, "hours_per_month": 730}],
            "constraints": {"pricing": ["on_demand", "monthly"]},
        }
    )
    host = HostNeed(
        provider="aws",
        instance_type="p4de.24xlarge",
        one_node=True,
        gpus_per_node=4,
        interconnect="NVLink/NVSwitch",
    )
    demand = Demand(name="chat70b", gpu="A100-SXM4-80GB", gpu_hours=(32 * 730.0,) * 12, host=host)

    def offer(provider: str, instance: str, gpus: float, pricing: str, link: str) -> PricedOffer:
        return PricedOffer(
            provider=provider,
            region="cn-shanghai" if provider == "alibaba" else "us-east-1",
            instance_type=instance,
            gpu="A100-SXM4-80GB",
            gpus_per_unit=gpus,
            pricing=pricing,
            usd_per_unit_hour=3.4 * gpus,
            term_months=1 if pricing == "monthly" else 0,
            interconnect=link,
        )

    offers = [
        offer("aws", "p4de.24xlarge", 8, "on_demand", "NVLink/NVSwitch"),
        offer("alibaba", "ecs.gn7e-c16g1.32xlarge", 8, "monthly", "NVSwitch (unverified)"),
        offer("alibaba", "ecs.gn7e-c16g1.4xlarge", 1, "monthly", "none"),
    ]
    (missing,) = missing_prices([], usage, (demand,), offers)
    assert missing.pricing == "monthly" and len(missing.held_out) == 1  # the 1-GPU type is no candidate
    (held,) = missing.held_out
    assert held.offer == "alibaba/cn-shanghai ecs.gn7e-c16g1.32xlarge" and held.sized_on == "p4de.24xlarge"
    report = replace(_report((_offer("on_demand", 2.74),)), missing=(missing,))
    text = "\n".join(unknown_lines(report))
    assert "catalog refresh" not in text and "catalog import" not in text
    assert "a price exists (alibaba/cn-shanghai ecs.gn7e-c16g1.32xlarge)" in text
    assert "'NVSwitch (unverified)', not 'NVLink/NVSwitch' as on p4de.24xlarge" in text
    assert "list only alibaba in constraints.providers" in text and "as GPU-hours" in text
    with use_language("zh"):
        zh = "\n".join(unknown_lines(report))
    assert "constraints.providers" in zh and "alibaba" in zh and "catalog refresh" not in zh


def test_a_pricing_held_out_of_a_sized_demand_and_of_a_direct_run_gives_both_reasons() -> None:
    # One pricing model, two demands it serves neither of, for two reasons: a 70B service sized on
    # p4de.24xlarge (replicas of 4 GPUs) and an 8-GPU fine-tune given as GPU-hours, while the only
    # monthly price is of a 1-GPU VM. was: the sized demand's reason alone, the direct run's dropped
    # (the two were kept apart, a count beside a list, and the list won).
    from gpuplan.commit.model import HeldOutReason
    from gpuplan.report.tco import unknown_lines

    gpu = "A100-SXM4-80GB"
    usage = load_usage(
        {
            "horizon_months": 12,
            "demands": [
                {"name": "chat70b", "gpu": gpu, "gpus": 32, "hours_per_month": 730},
                {"name": "ft", "gpu": gpu, "gpus": 8, "hours_per_month": 400},
            ],
            "constraints": {"pricing": ["on_demand", "monthly"]},
        }
    )
    # its GPU link on p4de.24xlarge not known: no other type is known to run it as fast
    host = HostNeed(provider="aws", instance_type="p4de.24xlarge", one_node=True, gpus_per_node=4)
    offers = [
        replace(_offer("on_demand", 8 * 4.1), instance_type="p4de.24xlarge", gpu=gpu, gpus_per_unit=8.0),
        replace(_offer("monthly", 2.0, term=1), region="us-west-2", instance_type="g.1x", gpu=gpu),
    ]
    chat = Demand(name="chat70b", gpu=gpu, gpu_hours=(32 * 730.0,) * 12, host=host)
    # the run's 8 GPUs in one node, as tco holds a direct demand's run (the on-demand p4de holds them)
    ft = Demand(name="ft", gpu=gpu, gpu_hours=(8 * 400.0,) * 12, host=HostNeed.together(8, offers))
    (missing,) = missing_prices([], usage, (chat, ft), offers)
    assert [(h.demand, h.reason) for h in missing.held_out] == [
        ("chat70b", HeldOutReason.NOT_AS_ABLE),
        ("ft", HeldOutReason.TOO_SMALL),
    ]
    assert missing.elsewhere == 1
    (too_small,) = missing.held_out_for(HeldOutReason.TOO_SMALL)
    assert too_small.why == "g.1x holds 1 GPU(s) in one node, fewer than the 8 it needs"
    report = replace(_report((_offer("on_demand", 2.74),)), missing=(missing,))
    (line,) = unknown_lines(report)
    assert line.startswith(
        "Unknown — monthly subscription (A100-SXM4-80GB): a price exists (aws/us-west-2 g.1x)"
    )
    assert (
        "1 price(s) of it within the constraints, all on instances that do not hold a demand's runs" in line
    )
    assert tco_json(report)["unknown_prices"][0]["fill"] in line
    with use_language("zh"):
        (zh,) = unknown_lines(report)
    assert "容纳不下某项需求的运行" in zh and "p4de.24xlarge" in zh


@pytest.mark.parametrize(
    ("need", "what"),
    [
        (HostNeed(provider="aws", instance_type="p4de.24xlarge", one_node=True, gpus_per_node=4), "GPU 互连"),
        (
            HostNeed(
                provider="aws",
                instance_type="p4de.24xlarge",
                one_node=False,
                gpus_per_node=8,
                interconnect="NVSwitch",
            ),
            "网络",
        ),
        (HostNeed(provider="aws", instance_type="g5.xlarge", one_node=True, host_bound=True), "vCPU 和内存"),
    ],
)
def test_an_unknown_fact_of_the_sized_instance_reads_as_chinese(need: HostNeed, what: str) -> None:
    # "{sized} 的{what}未知": the fact was worded "其 GPU 互连" (its GPU link), which after "的" read
    # "p4de.24xlarge 的其 GPU 互连未知", ungrammatical; the fact is now named without its "its".
    other = replace(_offer("on_demand", 2.0), instance_type="g.8x", gpus_per_unit=8.0)
    with use_language("zh"):
        why = need.refusal(other)
    # a Latin word keeps its space after 的 ("的 GPU 互连"), a Chinese one none ("的网络")
    joined = f"的 {what}" if what.isascii() or what[0].isascii() else f"的{what}"
    assert why.startswith(f"{need.instance_type} {joined}未知"), why
    assert "的其" not in why


def test_the_stale_prices_line_says_how_many_are_in_the_total_the_headline_counts() -> None:
    # the probe's report: "at 2 price(s) stale" in the headline, "Stale prices: 3 of the 3 used"
    # below, the third a reservation the break-even is figured at and the total never buys
    report = _report(
        (_offer("on_demand", 2.74, as_of="2023-06"), _offer("reserved_3y", 3.0, term=36, as_of="2023-06"))
    )
    lines = summary_lines(report)
    assert (
        lines[0].startswith("Total over 36 months: ") and "at 1 price(s) stale or of unknown age" in lines[0]
    )
    (stale,) = [line for line in lines if line.startswith("Stale prices: ")]
    assert stale.startswith("Stale prices: 2 of the 2 used are older than 180 days")
    assert stale.endswith(
        "; 1 of them in the total (the headline's count), the others not bought: the all-on-demand "
        "total, a break-even or the total with stale prices rests on them"
    )
    # where every stale price is one the total buys at, the two counts are the same: nothing added
    only = summary_lines(_report((_offer("on_demand", 2.74, as_of="2023-06"),)))
    (line,) = [line for line in only if line.startswith("Stale prices: ")]
    assert "1 of the 1 used" in line and "headline" not in line


def test_the_gpus_without_a_current_price_are_in_the_document_as_in_the_headline() -> None:
    """The headline's "on prices known to be current: unknown (none for A100-SXM4-40GB)" had no field
    in the document: a reader of the JSON saw a total and no word that it rests on stale prices only."""
    from gpuplan.commit.api import gpus_without_current_price

    stale = (_offer("on_demand", 2.74, as_of="2023-06"),)
    report = _report(stale)
    report = replace(report, without_current_price=gpus_without_current_price(stale, report.today, 180))
    assert "on prices known to be current: unknown (none for A100-SXM4-40GB)" in summary_lines(report)[0]
    assert tco_json(report)["gpus_without_current_price"] == ["A100-SXM4-40GB"]
    assert tco_json(_report((_offer("on_demand", 2.74),)))["gpus_without_current_price"] == []
