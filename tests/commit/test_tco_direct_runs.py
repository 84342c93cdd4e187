"""A direct demand's GPUs are one run by default (``gpus_per_run``: all its ``gpus``): priced, as a
plan places a job, on instances holding them in one node, else over the fewest nodes (the traffic
between them said, not timed), never spread over smaller instances; ``gpus_per_run: 1`` says
independent single-GPU tasks, which any instance of the GPU may price. Its run lasts its hours of a
month unless ``run_hours`` says otherwise."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from tco_helpers import priced_offer

from gpuplan.commit import PricedOffer, TcoProblem, TcoReport, load_usage, optimise
from gpuplan.commit.adapters import demands_from_usage, hold_runs_together
from gpuplan.errors import InputError
from gpuplan.i18n import Money, use_language
from gpuplan.report.tco import considered_lines

GPU = "A100-SXM4-80GB"


def _offer(instance: str, gpus: float, usd_per_gpu_hour: float, pricing: str = "on_demand") -> PricedOffer:
    """``instance`` of ``gpus`` A100s at ``usd_per_gpu_hour``, dated last month."""
    one = priced_offer(
        "r",
        usd_per_gpu_hour * gpus,
        pricing,
        term_months=1 if pricing == "monthly" else 0,
        as_of="2026-11-20",
        interruptions_per_hour=1 / 24 if pricing == "spot" else None,
    )
    return replace(one, instance_type=instance, gpu=GPU, gpus_per_unit=gpus)


#: Per GPU-hour the 1-GPU VM is the cheapest by the hour and cheaper still by the month (it pays off
#: at 400 h: $0.30 × 730 < $1.00 × 400), the 4-GPU one next, the 8-GPU one the dearest.
OFFERS = (
    _offer("one", 1, 1.00),
    _offer("one", 1, 0.30, "monthly"),
    _offer("four", 4, 1.10),
    _offer("eight", 8, 1.20),
)


def _usage(**demand: Any) -> Any:
    return load_usage(
        {
            "horizon_months": 3,
            "start": "2027-01",
            "demands": [{"name": "ft", "gpu": GPU, "gpus": 8, "hours_per_month": 400, **demand}],
        }
    )


def _report(usage: Any, offers: tuple[PricedOffer, ...] = OFFERS) -> TcoReport:
    """``usage`` solved over ``offers`` as ``tco`` does (its direct demands held together)."""
    demands, sources = demands_from_usage(usage, None)  # type: ignore[arg-type]  # no workload demand
    demands, sources = hold_runs_together(demands, sources, offers)
    problem = TcoProblem(horizon_months=usage.horizon_months, demands=demands, offers=offers)
    return TcoReport(
        usage=usage,
        problem=problem,
        schedule=optimise(problem),
        demands=sources,
        money=Money.usd(),
        notes=(),
    )


def test_eight_gpus_of_one_run_are_priced_on_an_instance_holding_them_not_on_eight_vms() -> None:
    # An 8-GPU FSDP job had been priced as eight 1-GPU VMs (and its monthly subscription bought
    # there), though its GPUs talk to each other every step: hours a plan would time as longer.
    report = _report(_usage())
    s = report.schedule
    assert s.commitments == ()  # a 1-GPU subscription does not serve an 8-GPU run
    (key,) = s.hourly_bought
    assert s.hourly_used[key].instance_type == "eight"
    assert s.total_usd == pytest.approx(8 * 400 * 1.20 * 3)
    (source,) = report.demands
    assert source.how.endswith("one run of 8 GPUs together, priced on instances holding them in one node")
    assert report.problem.demands[0].host is not None
    with use_language("zh"):
        (source,) = _report(_usage()).demands
    assert "一次运行同时需要 8 块 GPU" in source.how, source.how


def test_independent_single_gpu_tasks_keep_the_cheapest_instance_of_their_gpu() -> None:
    report = _report(_usage(gpus_per_run=1))
    s = report.schedule
    assert report.problem.demands[0].host is None
    assert {c.offer.instance_type for c in s.commitments} == {"one"}
    assert s.total_usd == pytest.approx(8 * 0.30 * 730 * 3)
    assert report.demands[0].how.endswith("in runs of 1 GPU(s)")


def test_a_run_larger_than_any_instance_takes_the_fewest_nodes_and_says_their_traffic_is_not_timed() -> None:
    report = _report(_usage(gpus=16))
    (key,) = report.schedule.hourly_bought
    assert report.schedule.hourly_used[key].instance_type == "eight"  # 2 nodes, not 4 or 16
    how = report.demands[0].how
    assert "one run of 16 GPUs together, priced over 2 nodes of the largest instances" in how
    assert "(8 GPUs each)" in how and "traffic between the nodes can make them longer" in how


def test_runs_of_two_gpus_are_held_in_one_node_each() -> None:
    report = _report(_usage(gpus_per_run=2))
    (key,) = report.schedule.hourly_bought
    offer = report.schedule.hourly_used[key]
    # a 2-GPU run on a 4-GPU instance pays for 4 ($2.20 per GPU-hour used), on an 8-GPU one for 8
    assert offer.instance_type == "four"
    assert report.schedule.total_usd == pytest.approx(8 * 400 * 1.10 * 2 * 3)


@pytest.mark.parametrize(
    ("demand", "words"),
    [
        (
            {"gpus_per_run": 3},
            "gpus_per_run 3 does not divide gpus 8: give gpus as a whole number of runs, e.g. 6",
        ),
        ({"gpus_per_run": 16}, "gpus_per_run 16 does not divide gpus 8"),
    ],
)
def test_runs_that_do_not_divide_the_gpus_are_refused_in_one_line(demand: dict[str, Any], words: str) -> None:
    with pytest.raises(InputError) as e:
        _usage(**demand)
    assert words in str(e.value) and "\n" not in str(e.value)


def test_gpus_per_run_with_a_workload_is_refused() -> None:
    with pytest.raises(InputError, match="gpus_per_run goes with a direct demand"):
        load_usage(
            {
                "horizon_months": 1,
                "demands": [{"name": "w", "workload": "w.yaml", "runs_per_month": 1, "gpus_per_run": 2}],
            }
        )


def test_a_run_lasts_the_demands_hours_of_a_month_unless_run_hours_says() -> None:
    # A run had been taken to last 730 h whatever the demand said: "a run of 730 h takes > 1,000
    # times its hours" for a demand of 400 h a month.
    def run_h(**demand: Any) -> float:
        demands, _ = demands_from_usage(_usage(**demand), None)  # type: ignore[arg-type]
        return demands[0].run_hours

    assert run_h() == 400.0
    assert run_h(hours_per_month=None, hours_by_month=[100, 300]) == 300.0
    assert run_h(run_hours=72) == 72.0


def test_the_spot_note_of_a_run_without_checkpoints_gives_the_demands_own_hours() -> None:
    # interruptible without checkpoint_gb: a run restarts from its beginning, and spot is weighed
    offers = (_offer("one", 1, 2.00), _offer("one", 1, 0.30, "spot"))
    usage = _usage(gpus=1, interruptible=True)
    (line,) = considered_lines(_report(usage, offers))
    assert "on spot a run of 400 h takes" in line, line
    with use_language("zh"):
        (line,) = considered_lines(_report(usage, offers))
    assert "一次 400 小时的运行" in line, line


def test_a_pricing_whose_prices_all_sit_on_instances_too_small_for_the_run_says_so() -> None:
    # Spot prices of the GPU on 1-GPU VMs only: the 8-GPU run cannot use them, and the report had said
    # "no usable price for spot ... `gpuplan catalog refresh` fetches spot prices", as if none existed.
    from dataclasses import replace as copy

    from gpuplan.commit.adapters import missing_prices
    from gpuplan.report.tco import tco_json, unknown_lines

    usage = _usage(interruptible=True, checkpoint_gb=177)
    usage = usage.model_copy(
        update={"constraints": usage.constraints.model_copy(update={"pricing": ("on_demand", "spot")})}
    )
    offers = (_offer("one", 1, 1.00), _offer("one", 1, 0.30, "spot"), _offer("eight", 8, 1.20))
    report = _report(usage, offers)
    (missing,) = missing_prices((), usage, report.problem.demands, offers)
    assert (missing.pricing, missing.elsewhere) == ("spot", 1)
    report = copy(report, missing=(missing,))
    (line,) = unknown_lines(report)
    assert line.startswith("Unknown — no usable price for spot (A100-SXM4-80GB): 1 price(s) of it within")
    assert "do not hold a demand's runs" in line and "catalog refresh" not in line
    assert "do not hold a demand's runs" in tco_json(report)["unknown_prices"][0]["fill"]
    with use_language("zh"):
        (line,) = unknown_lines(report)
    assert "容纳不下某项需求的运行" in line, line
