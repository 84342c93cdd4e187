"""A saved plan's month of runs (``commit.recurring.plan_month``): a commitment once for the
instances the runs need at once, a dataset copy kept where it costs less, the rest run by run."""

from __future__ import annotations

from typing import Any

import pytest

from gpuplan.commit.recurring import month_words, plan_month


def _option(pricing: str = "monthly", **extra: Any) -> dict[str, Any]:
    """One run on one 8-GPU instance: 1,000 a month (or its hour, 1,000 / 730), 5 h a run, 20 of
    compute, 30 to move the dataset in on 2 disks, 4 of storage and results."""
    option: dict[str, Any] = {
        "provider": "volcengine",
        "region": "cn-beijing",
        "pricing": pricing,
        "nodes": 1,
        "gpu_count": 8,
        "gpus_per_node": 8,
        "job_time_h": 5.0,
        "price_usd_per_hour": 1000 / 730,
        "price_usd_per_month": 1000.0 if pricing == "monthly" else None,
        "cost_breakdown": {
            "compute_usd": 1000.0 if pricing == "monthly" else 20.0,
            "items": [
                {"component": "egress_in", "cost_usd": 30.0, "multiplier": 2, "per": "copy"},
                {"component": "storage", "cost_usd": 3.0, "multiplier": 1, "per": "disk"},
            ],
        },
    }
    return {**option, **extra}


def _total(option: dict[str, Any]) -> float:
    return option["cost_breakdown"]["compute_usd"] + 30.0 + 4.0


def test_a_monthly_subscription_is_paid_once_for_the_runs_that_fit_its_month() -> None:
    option = _option()
    month = plan_month(option, _total(option), 30)
    # 30 × 5 h = 150 h of 730: one instance, one month; each run pays its 34 besides GPU time
    assert (month.commitment_units, month.commitment_usd) == (1, 1000.0)
    assert month.runs_usd == pytest.approx(30 * 34.0)
    assert month.total_usd == pytest.approx(1000.0 + 30 * 34.0)  # not 30 × 1,034
    # 200 runs × 5 h = 1,000 h: two runs at once part of the month, so two instances (Demand.levels)
    assert plan_month(option, _total(option), 200).commitment_units == 2
    # a run on 2 nodes needs both for each of its hours
    two = _option(nodes=2, gpu_count=16)
    assert plan_month(two, _total(two), 30).commitment_units == 2


def test_a_reservation_is_its_effective_rate_for_a_month() -> None:
    option = _option("reserved_1y", cost_breakdown={**_option()["cost_breakdown"], "compute_usd": 12000.0})
    month = plan_month(option, 12034.0, 30)
    assert month.commitment_usd == pytest.approx(1000.0) and month.total_usd == pytest.approx(
        1000.0 + 30 * 34.0
    )


def test_what_is_not_known_is_counted_run_by_run() -> None:
    # without the run's hours the instances it needs are not known: every run at its whole cost
    option = _option(job_time_h=None)
    assert plan_month(option, 1034.0, 30).total_usd == pytest.approx(30 * 1034.0)
    # a service's run is its month already
    service = _option(service={"replicas": 1})
    assert plan_month(service, 1034.0, 1).total_usd == pytest.approx(1034.0)
    assert plan_month(_option(), None, 30).total_usd is None
    # hourly pricing, no copy known (a plan saved before data_copy): the run × its runs
    hourly = _option("on_demand")
    month = plan_month(hourly, _total(hourly), 30)
    assert month.total_usd == pytest.approx(30 * 54.0) and not month.shared
    assert month_words(month, str) == ""


def test_a_copy_is_kept_where_it_costs_the_month_less_than_moving_it_in_each_run() -> None:
    copy = {"copy_in_usd": 15.0, "storage_usd_per_month": 10.0}
    hourly = _option("on_demand", data_copy=copy)
    month = plan_month(hourly, _total(hourly), 30)
    # one copy (15) kept the month (10) against 30 runs × 30: the copy
    assert month.data_kept and month.data_usd == pytest.approx(25.0)
    assert month.data_each_run_usd == pytest.approx(900.0)
    assert month.total_usd == pytest.approx(30 * (54.0 - 30.0) + 25.0)
    said = month_words(month, lambda usd: f"${usd:,.0f}")
    assert said == (
        "30 runs: $720 run by run + $25 dataset copied in once and kept the month in the region's object "
        "storage (rather than $900 moved in for each run)"
    )
    # one run at a dearer storage: moving the dataset in once (30) costs less than a copy kept the
    # month (15 + 20), so the run moves it in itself
    dear = _option("on_demand", data_copy={"copy_in_usd": 15.0, "storage_usd_per_month": 20.0})
    one = plan_month(dear, _total(dear), 1)
    assert not one.data_kept and one.total_usd == pytest.approx(54.0)


def test_a_plan_documents_every_option_gets_its_data_copy_where_one_can_be_kept(
    catalog_template: Any,
) -> None:
    # Only the service's saved plans had data_copy, on the recommended option alone; every option of
    # any plan document gets it now, through the one function both `plan --json` and the service use.
    from gpuplan.catalog import open_store
    from gpuplan.commit.recurring import with_data_copies

    def option(provider: str, moved_usd: float) -> dict[str, Any]:
        items = [{"component": "egress_in", "cost_usd": moved_usd, "multiplier": 2, "per": "copy"}]
        return _option(provider=provider, data_copy=None, cost_breakdown={"items": items})

    def document(task: str = "train", size_gb: float = 100.0) -> dict[str, Any]:
        return {
            "workload": {"task": task, "data": {"size_gb": size_gb}},
            "recommended": option("volcengine", 30.0),
            "options": [option("volcengine", 30.0), option("volcengine", 0.0), option("runpod", 30.0)],
            "pareto": [option("volcengine", 30.0)],
            "baseline": option("volcengine", 30.0),
            "personas": [{"persona": "cheapest", "option": option("volcengine", 30.0)}, {"option": None}],
            "without_stale_prices": {"option": option("volcengine", 30.0)},
        }

    store = open_store(str(catalog_template))
    try:
        doc = with_data_copies(document(), store)
        price, said = _object_price(store, "volcengine", "cn-beijing")
        kept = [
            doc["recommended"],
            doc["options"][0],
            doc["pareto"][0],
            doc["baseline"],
            doc["personas"][0]["option"],
            doc["without_stale_prices"]["option"],
        ]
        for o in kept:
            assert o["data_copy"] == {
                "copy_in_usd": 15.0,  # one copy of the two the run's disks moved in
                "storage_usd_per_month": pytest.approx(100.0 * price),
                "assumptions": [said] if said else [],
            }, o
        # nothing moved in at a price; a marketplace keeps no copy
        assert doc["options"][1]["data_copy"] is None and doc["options"][2]["data_copy"] is None
        # batch inference reads new inputs each run; no dataset: no copy anywhere
        for other in (
            with_data_copies(document("infer"), store),
            with_data_copies(document(size_gb=0), store),
        ):
            assert other["recommended"]["data_copy"] is None and other["baseline"]["data_copy"] is None
    finally:
        store.close()


def _object_price(store: Any, provider: str, region: str) -> tuple[float, str]:
    from gpuplan.plan.build_inputs import cost_facts_from_store

    return cost_facts_from_store(store, [(provider, region)]).object_storage(provider, region)
