"""The claim scenarios in examples/tco solve on the shipped catalog with the promised guarantees.

(The workload-sized scenario traces two models; ``examples/tco/check_claims.py`` runs it.)"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from gpuplan.catalog import Store, open_store
from gpuplan.commit import load_usage, tco

TCO = Path(__file__).resolve().parents[2] / "examples" / "tco"
DIRECT = (
    "alibaba-3y-subscription.yaml",
    "reserved-plus-spot.yaml",
    "reserved-plus-spot-h100.yaml",
    "enterprise-3y-reserved.yaml",
)


@pytest.fixture(scope="module")
def store(seeded_copy: Callable[[str], Path]) -> Iterator[Store]:
    st = open_store(str(seeded_copy("examples")))
    yield st
    st.close()


@pytest.mark.parametrize("name", DIRECT)
@pytest.mark.parametrize("articles", [False, True])
def test_scenario_is_never_dearer_than_on_demand_and_more_demand_costs_more(
    store: Store, name: str, articles: bool
) -> None:
    usage = load_usage(TCO / name)
    if articles:
        data = usage.model_dump()
        data["constraints"]["allow_low_confidence"] = True
        usage = load_usage(data)
    s = tco(usage, store=store, currency="USD").schedule
    assert s.all_on_demand_usd is not None and s.total_usd <= s.all_on_demand_usd + 1e-6
    low, mid, high = (t for _, t in s.sensitivity)
    assert low is not None and mid is not None and high is not None
    assert low <= mid <= high and mid == pytest.approx(s.total_usd)


def test_every_yaml_in_the_folder_is_a_valid_usage_file() -> None:
    files = sorted(TCO.glob("*.yaml"))
    assert len(files) >= 5
    for f in files:
        assert load_usage(f).demands


def test_the_saving_of_reserved_plus_spot_rests_on_stale_spot_and_reserved_prices_and_is_said_beside(
    store: Store,
) -> None:
    # The interruptible half would be bought on spot at a price of unknown age, and the firm half on
    # a 3-year reservation at a price past the staleness limit: the schedule buys both on demand
    # instead, and the cheaper total at those prices is said beside it, with the reservation it buys.
    report = tco(load_usage(TCO / "reserved-plus-spot.yaml"), store=store, currency="USD")
    s, w = report.schedule, report.with_stale_prices
    assert w is not None and w.used >= 2 and w.left_out >= w.used and not w.needed
    assert {o.pricing for o in w.stale} >= {"spot", "reserved_3y"}
    assert s.commitments == () and {c.offer.pricing for c in w.commitments} == {"reserved_3y"}
    assert s.savings_pct is not None and w.savings_pct is not None
    assert w.total_usd < s.total_usd <= (s.all_on_demand_usd or 0.0) + 0.01
    assert s.savings_pct < w.savings_pct


def test_each_run_it_line_names_a_project_folder_that_holds_the_workloads_it_reads() -> None:
    # steady-serving-bursty-training.yaml's "Run it:" line had no --project: run as written, it was
    # refused (its workloads lie one folder up, outside the file's own folder).
    root = TCO.parents[1]
    for f in sorted(TCO.glob("*.yaml")):
        (line,) = [x for x in f.read_text().splitlines() if x.startswith("# Run it:")]
        args = shlex.split(line.removeprefix("# Run it:"))
        assert args[:2] == ["gpuplan", "tco"] and (root / args[2]).resolve() == f.resolve(), line
        project = (root / args[args.index("--project") + 1]) if "--project" in args else f.parent
        for d in load_usage(f).demands:
            if d.workload is not None:
                assert (f.parent / d.workload).resolve().is_relative_to(project.resolve()), (f.name, line)


def test_the_seasonal_peak_example_prices_its_peak_in_the_eleventh_month_of_the_horizon(
    store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    # start_month/end_month are months of the horizon counted from 1: with start 2027-01, month 11
    # is 2027-11, and the festival demand is there and nowhere else
    usage = load_usage(TCO / "seasonal-peak.yaml")
    peak = next(d for d in usage.demands if d.name == "chat-november-peak")
    assert (peak.start_month, peak.end_month) == (11, 11)
    report = tco(usage, store=store)
    by_name = {d.name: d for d in report.problem.demands}
    hours = by_name["chat-november-peak"].gpu_hours
    assert [i for i, h in enumerate(hours) if h > 0] == [10]
    assert hours[10] == pytest.approx(9 * by_name["chat-normal"].gpu_hours[10])
    costs = [m.cost_usd for m in report.schedule.monthly]
    assert costs[10] == max(costs) and costs[10] > 5 * costs[9] and costs[0] == pytest.approx(costs[9])
    # and tco --help says how the months count
    from one_line import answered

    said = " ".join(answered(["tco", "--help"], capsys).split())
    assert "start_month" in said and "counted from 1" in said
