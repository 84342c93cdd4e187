"""Adapters from the catalog store and the workload to the planner's own types."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import pytest

from gpuplan.catalog import OfferPrice, open_store
from gpuplan.catalog.model import DatedFloor, FloorBasis
from gpuplan.plan import Constraints, CostFacts, JobFacts, Objective, OfferTable, PlanOffer, plan_offers
from gpuplan.plan.build_inputs import (
    constraints_from_spec,
    cost_facts_from_store,
    job_facts_from,
    offer_table_from_prices,
)
from gpuplan.plan.region_costs import CatalogRanges
from gpuplan.plan.unknowns import Fact
from gpuplan.workload import Workload

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _price(**kw: object) -> OfferPrice:
    base = OfferPrice(
        provider="alibaba",
        region="cn-shanghai",
        zone=None,
        instance_type="ecs.gn7i-c8g1.2xlarge",
        gpu="A10",
        gpu_count=1.0,
        vcpus=8.0,
        memory_gib=30.0,
        network_gbps=None,
        interconnect=None,
        pricing="on_demand",
        price=9.53,
        currency="CNY",
        unit="hour",
        price_usd_per_hour=1.3342,
        price_usd_per_gpu_hour=1.3342,
        as_of="2023-06",
        source="test",
        confidence="secondary",
        interruption_band=None,
        billing_granularity_s=None,
        min_billing_s=None,
        term=None,
        compliance=("MLPS 2.0 level 3",),
        stale=True,
        price_reason=None,
    )
    return replace(base, **kw)  # type: ignore[arg-type]


def test_monthly_reserved_and_unpriced_rows_keep_their_meaning() -> None:
    rows = [
        _price(),
        # CNY 4575.66/month at 0.14 USD/CNY = $640.59/month = $0.87752/h in the store's terms.
        _price(pricing="monthly", unit="month", price=4575.66, price_usd_per_hour=4575.66 * 0.14 / 730),
        _price(pricing="reserved_3y", term={"years": 3}, price_usd_per_hour=0.5),
        _price(pricing=None, price=None, price_usd_per_hour=None, price_reason="no price"),
        _price(pricing="spot", price_usd_per_hour=None, price_reason="no CNY rate"),
    ]
    t = offer_table_from_prices(rows)
    assert t.country.tolist() == ["CN"] * 5
    assert t.unit_hours[1] == 730.0
    assert t.price_usd[1] == pytest.approx(4575.66 * 0.14)  # whole month in USD: 640.5924
    assert t.term_hours[2] == pytest.approx(3 * 8760)
    assert t.pricing[3] == "" and math.isnan(t.price_usd[3])
    assert math.isnan(t.price_usd[4])  # not convertible: unpriced, never free
    assert t.gpu_memory_gib[0] == pytest.approx(24.0)


def test_unpriced_store_rows_are_counted_as_unpriced_not_as_a_pricing_mismatch() -> None:
    rows = [_price(pricing=None, price=None, price_usd_per_hour=None)]
    table: OfferTable = offer_table_from_prices(rows)

    def never(key):  # type: ignore[no-untyped-def]
        raise AssertionError("the estimator is not asked about unpriced candidates")

    # One 1-GPU offer, enumerated up to the default limit of 8 instances.
    with pytest.raises(Exception, match="without a price 8"):
        plan_offers(table, CostFacts([]), JobFacts(), never, Constraints())


def test_a_spot_price_of_unknown_age_below_every_dated_one_is_ranked_at_the_dated_floor() -> None:
    # AWS p4d spot in use1-az1: SkyPilot's undated $2.4655 against instances.vantage.sh's us-east-1
    # zones of 2025-11-30, $8.0468 at the lowest: ranked at $8.0468, its own figure the best case
    spread = {"region_spot_usd_per_hour": {"min": 8.0468, "avg": 8.59, "max": 9.15, "as_of": "2025-11-30"}}
    undated = _price(
        provider="aws", region="us-east-1", pricing="spot", currency="USD", price=2.4655,
        price_usd_per_hour=2.4655, as_of="2025-06/2026-12-02", as_of_precision="bounded", term=spread,
    )  # fmt: skip
    assert undated.dated_floor_usd_per_hour() == DatedFloor(
        usd_per_hour=8.0468, as_of="2025-11-30", basis=FloorBasis.REGION_LOW, region="us-east-1"
    )
    dated = replace(undated, as_of="2026-11-30", as_of_precision="day")
    dearer = replace(undated, price_usd_per_hour=9.0)
    discounted = replace(undated, discount_percent=10.0, price_usd_per_hour=2.4655 * 0.9)
    assert dated.dated_floor_usd_per_hour() is None  # a dated price is a fact of its own day
    assert replace(undated, as_of="2026-11", as_of_precision="month").dated_floor_usd_per_hour() is None
    assert dearer.dated_floor_usd_per_hour() is None  # above the floor: its own figure stands
    floor = discounted.dated_floor_usd_per_hour()
    assert floor is not None and floor.usd_per_hour == pytest.approx(8.0468 * 0.9)
    t = offer_table_from_prices([undated, dated])
    assert t.price_usd[0] == pytest.approx(8.0468) and t.price_usd_best[0] == pytest.approx(2.4655)
    assert t.floor_as_of.tolist() == ["2025-11-30", ""]
    assert t.floor_basis.tolist() == ["region-low", ""]
    assert t.price_usd[1] == pytest.approx(2.4655) and math.isnan(t.price_usd_best[1])


def test_a_region_with_only_an_average_or_none_dated_still_holds_an_undated_spot_price_to_a_floor() -> None:
    # me-south-1's g4dn.metal: SkyPilot's undated $0.9596 (10 % of on-demand) against the region's
    # average of 2025-11-30, $2.97476 (instances.vantage.sh gives no lowest zone there). It used to
    # be costed at its own figure and ranked first.
    average = {"region_spot_usd_per_hour": {"avg": 2.97476, "as_of": "2025-11-30"}}
    undated = _price(
        provider="aws", region="me-south-1", pricing="spot", currency="USD", price=0.9596,
        price_usd_per_hour=0.9596, as_of="2025-06/2026-12-02", as_of_precision="bounded", term=average,
    )  # fmt: skip
    floor = undated.dated_floor_usd_per_hour()
    assert floor == DatedFloor(
        usd_per_hour=2.97476, as_of="2025-11-30", basis=FloorBasis.REGION_AVERAGE, region="me-south-1"
    )
    assert "average" in floor.what()
    # A region with no dated spot price at all: the lowest of the type in any region.
    other = {"lowest_dated_spot_usd_per_hour": {"min": 2.1912, "region": "eu-west-2", "as_of": "2025-11-30"}}
    alone = replace(undated, region="ap-east-1", term=other)
    floor = alone.dated_floor_usd_per_hour()
    assert floor is not None and floor.basis is FloorBasis.OTHER_REGION and floor.usd_per_hour == 2.1912
    assert "eu-west-2" in floor.what()
    assert alone.conservative_usd_per_gpu_hour() == pytest.approx(2.1912)
    # Its own region's figure, where there is one, wins over another region's.
    both = replace(undated, term={**average, **other})
    assert both.dated_floor_usd_per_hour() == undated.dated_floor_usd_per_hour()
    t = offer_table_from_prices([alone])
    assert t.floor_basis.tolist() == ["other-region"] and t.floor_region.tolist() == ["eu-west-2"]


def test_the_shipped_catalog_holds_no_undated_spot_price_below_every_dated_one_of_its_type(
    fresh_catalog: Path,
) -> None:
    # Every AWS spot price of unknown age in the shipped catalog is held to a dated floor where one
    # exists for its type (own region first): none is ranked at a figure below all dated ones.
    store = open_store(str(fresh_catalog))
    try:
        prices = store.offers(provider="aws", pricing="spot")
    finally:
        store.close()
    dated: dict[str, float] = {}
    for p in prices:
        term = p.term or {}
        spread = term.get("region_spot_usd_per_hour") or {}
        for v in (spread.get("min"), spread.get("avg")):
            if isinstance(v, float) and v < dated.get(p.instance_type, math.inf):
                dated[p.instance_type] = v
    below = [
        (p.region, p.instance_type, p.price_usd_per_hour)
        for p in prices
        if p.as_of_precision in ("bounded", None)
        and p.price_usd_per_hour is not None
        and p.price_usd_per_hour < dated.get(p.instance_type, -1.0)
        and p.dated_floor_usd_per_hour() is None
    ]
    assert below == []


def test_another_regions_transfer_and_storage_prices_are_unknown_here_not_facts(fresh_catalog: Path) -> None:
    # AWS carries no row of Tokyo: its transfer out is not Virginia's $0.02/GB inter-region price.
    store = open_store(str(fresh_catalog))
    try:
        facts = cost_facts_from_store(store, [("aws", "us-east-1"), ("aws", "ap-northeast-1")])
    finally:
        store.close()
    job = JobFacts(dataset_gb=1500.0, checkpoint_gb=1.0, data_location=("aws", "ap-northeast-1"))
    away = facts.charges("aws", "us-east-1", job)
    best = facts.charges("aws", "us-east-1", job, best_case=True)
    assert away.unknown and away.egress_in_usd > 1500 * 0.02 * 3  # the highest price the catalog knows
    assert best.egress_in_usd == pytest.approx(1500 * 0.02)  # the borrowed price is the best case
    home = facts.charges("aws", "ap-northeast-1", job)
    assert home.egress_in_usd == 0.0 and home.unknown_facts  # its storage price is unknown too


def test_a_budget_in_yuan_is_planned_in_usd_at_the_dated_rate_and_says_so() -> None:
    from gpuplan.catalog.model import ExchangeRate
    from gpuplan.errors import InputError, WorkloadError
    from gpuplan.plan.build_inputs import budget_in_usd

    rate = ExchangeRate(currency="CNY", usd_per_unit=0.14, as_of="2026-11-28", source="ECB", age_days=7)
    w = Workload.from_yaml(EXAMPLES / "bert-large-squad.yaml")
    given, note = budget_in_usd(w.constraints, {"budget_cny": 1000.0, "deadline_h": None}, rate)
    assert given == {"budget_usd": pytest.approx(140.0), "deadline_h": None}
    # 1 / 0.14 = 7.142857… CNY a dollar: the rate as every line states it, 1 USD = x CNY
    # said as read as yuan (¥ is the yen's sign too), with the rate's date and age
    assert note == (
        "Budget ¥1,000.00 read as yuan (CNY) at 7.1429 CNY per USD, 2026-11-28, 7 days old: $140.00 (ECB)."
    )
    # at a rate past 30 days old the line says so, as every output that converts does
    old = ExchangeRate(currency="CNY", usd_per_unit=0.14, as_of="2026-01-27", source="ECB", age_days=312)
    assert budget_in_usd(w.constraints, {"budget_cny": 1000.0}, old)[1] == (
        "Budget ¥1,000.00 read as yuan (CNY) at 7.1429 CNY per USD, 2026-01-27, 312 days old: $140.00 (ECB). "
        "Warning: the CNY rate of "
        "2026-01-27 is 312 days old (more than 30); `gpuplan catalog refresh --rates` fetches the latest, or "
        "give yours with --cny-per-usd."
    )
    assert constraints_from_spec(w.constraints, **given).budget_usd == pytest.approx(140.0)
    # a workload's own budget in yuan, unless the command line gives one
    in_cny = w.constraints.model_copy(update={"budget_usd": None, "budget_cny": 700.0})
    assert budget_in_usd(in_cny, {}, rate)[0]["budget_usd"] == pytest.approx(98.0)
    assert budget_in_usd(in_cny, {"budget_usd": 5.0}, rate) == ({"budget_usd": 5.0}, None)
    assert budget_in_usd(w.constraints, {}, rate) == ({}, None)
    with pytest.raises(InputError, match="give the budget once: budget_usd or budget_cny, not both"):
        budget_in_usd(w.constraints, {"budget_cny": 1.0, "budget_usd": 1.0}, rate)
    with pytest.raises(InputError, match="CNY exchange rate"):
        budget_in_usd(w.constraints, {"budget_cny": 1.0}, None)
    data = {**w.to_dict(), "constraints": {"budget_usd": 10, "budget_cny": 70}}
    with pytest.raises(WorkloadError, match="give budget_usd or budget_cny, not both"):
        Workload.from_dict(data)


def test_yaml_constraints_are_overridden_field_by_field() -> None:
    w = Workload.from_yaml(EXAMPLES / "bert-large-squad.yaml")
    c = constraints_from_spec(w.constraints, budget_usd=50.0, deadline_h=None, objective="time")
    assert c.budget_usd == 50.0
    assert c.deadline_h == 12.0  # None override keeps the YAML's 12h
    assert c.providers == ("aws", "azure", "gcp", "alibaba")
    assert c.objective is Objective.TIME
    spec = w.constraints.model_copy(update={"countries": ("china", "us")})
    assert constraints_from_spec(spec).countries == ("CN", "US")  # ISO alpha-2, as offers carry it


def test_store_regional_prices_with_fallbacks_and_unknowns(fresh_catalog: Path) -> None:
    store = open_store(str(fresh_catalog))
    try:
        facts = cost_facts_from_store(
            store, [("aws", "us-east-1"), ("alibaba", "cn-shanghai"), ("tencent", "ap-guangzhou")]
        )
    finally:
        store.close()
    job = JobFacts(dataset_gb=150.0, checkpoint_gb=1.0, data_location=("aws", "us-east-1"))
    aws = facts.charges("aws", "us-east-1", job)
    assert aws.egress_usd == 0.0
    # 150 GB leave AWS for Alibaba over the internet, every GB priced (the free 100 GB are the
    # account's, not the job's): 150 × $0.09 = $13.50, plus 1 GB of results back from Alibaba, whose
    # generic pay-by-traffic price ($0.123/GB) is a low-confidence figure, costed at the catalog's
    # highest egress (AWS São Paulo's $0.15/GB) = $13.65.
    ali = facts.charges("alibaba", "cn-shanghai", job)
    assert ali.egress_usd == pytest.approx(13.50 + 0.15)
    # With the free allowance unused (--egress-free-tier): 100 GB free + 50 × $0.09 = $4.50 + $0.15.
    free = facts.charges("alibaba", "cn-shanghai", replace(job, egress_free_tier=True))
    assert free.egress_usd == pytest.approx(4.50 + 0.15)
    assert any("cn-shanghai" in a for a in ali.assumptions)  # another region's prices used, said so
    # Alibaba's only egress figure is an example of its price API, no region's published price: the
    # results back are costed as an assumption (at the highest egress price known, here that same
    # $0.123, shown with its digits as the answers line shows the rate it charges: it had read
    # $0.12), marked so, and said so; the best case takes the figure itself.
    assert ali.unknown_facts & int(Fact.EGRESS), ali
    [said] = [a for a in ali.assumptions if a.startswith("results back:")]
    assert "internet egress price of alibaba/cn-shanghai" in said, said
    assert "low-confidence figure ($0.123/GB" in said, said
    assert "example" in said and said.endswith(
        "assumed $0.15/GB (the highest price in the catalog, of any provider)"
    ), said
    # in Chinese, the figure's description too (it had stayed English inside a Chinese line)
    from gpuplan.i18n import use_language

    with use_language("zh"):
        [zh] = [a for a in facts.charges("alibaba", "cn-shanghai", job).assumptions if "示例" in a]
    assert "价格 API 一个示例应答" in zh and "which names no region" not in zh, zh
    best = facts.charges("alibaba", "cn-shanghai", job, best_case=True)
    assert best.egress_out_usd == pytest.approx(0.123) and best.unknown_facts & int(Fact.EGRESS)
    # AWS's published tiers stay a known price.
    assert not aws.unknown_facts & int(Fact.EGRESS)
    tencent = facts.charges("tencent", "ap-guangzhou", job)
    assert any("assumed" in a for a in tencent.assumptions)  # unknown storage: labelled, not 0


def test_every_example_workload_is_valid_and_plannable() -> None:
    names = sorted(p.name for p in EXAMPLES.glob("*.yaml"))
    assert names == ["bert-embed-titles.yaml", "bert-large-squad.yaml", "llama7b-lora.yaml",
                     "llama8b-qlora.yaml", "llm-batch-summaries.yaml", "llm-inference-service.yaml",
                     "resnet50-imagenet.yaml"]  # fmt: skip
    for path in EXAMPLES.glob("*.yaml"):
        w = Workload.from_yaml(path)
        job, _ = job_facts_from(w, None)
        assert w.serving is not None or (w.data is not None and (w.data.samples or w.data.tokens)), path
        assert job.dataset_gb >= 0


def test_every_store_field_lands_in_its_own_column() -> None:
    # Distinct values everywhere, so that two columns swapped (vCPUs for RAM, zone for region) show.
    p = _price(
        zone="cn-shanghai-b",
        vcpus=8.0,
        memory_gib=30.0,
        network_gbps=16.0,
        interconnect="PCIe",
        network_kind="TCP",
        billing_granularity_s=60,
        min_billing_s=120,
        interruption_band="<5%",
        pricing="spot",
        price_usd_per_hour=0.7,
        staleness="stale",
        age_days=500,
        as_of="2023-06",
    )
    row = offer_table_from_prices([p]).row(0)
    assert row == PlanOffer(
        provider="alibaba",
        region="cn-shanghai",
        zone="cn-shanghai-b",
        country="CN",
        instance_type="ecs.gn7i-c8g1.2xlarge",
        gpu="A10",
        gpu_count=1.0,
        gpu_memory_gib=24.0,
        pricing="spot",
        price_usd=0.7,
        unit_hours=1.0,
        term_hours=None,
        vcpus=8.0,
        memory_gib=30.0,
        network_gbps=16.0,
        interconnect="PCIe",
        network_kind="TCP",
        billing_granularity_s=60.0,
        min_billing_s=120.0,
        interruption_band="<5%",
        interruption_band_source="test, 2023-06",  # the price's own source and date: no term names one
        compliance=("MLPS 2.0 level 3",),
        confidence="secondary",
        as_of="2023-06",
        source="test",
        stale=True,
        staleness="stale",
        price_age_days=500.0,
    )
    with pytest.raises(ValueError, match="not PlanOffer's fields"):
        OfferTable.from_columns({"provider": ["aws"]})


def test_an_unknown_object_storage_price_is_bounded_at_the_highest_the_catalog_holds(
    fresh_catalog: Path,
) -> None:
    # was: a constant, S3 Standard us-east-1's 0.023 USD/GB-month, said to be "the highest known"
    # whatever the catalog held; now the highest object storage price of the catalog's own rows.
    import csv

    import gpuplan.catalog

    shipped = Path(gpuplan.catalog.__file__).parent / "data" / "storage.csv"
    with shipped.open(encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f) if r["kind"] == "object" and r["price"]]
    assert {r["currency"] for r in rows} == {"USD"} and {r["unit"] for r in rows} == {"GB-month"}
    highest, lowest = max(float(r["price"]) for r in rows), min(float(r["price"]) for r in rows)
    store = open_store(str(fresh_catalog))
    try:
        facts = cost_facts_from_store(store, [("tencent", "ap-guangzhou")])  # no object price known here
    finally:
        store.close()
    job = JobFacts(dataset_gb=100.0, checkpoint_gb=1.0, storage_kind="object")
    ch = facts.charges("tencent", "ap-guangzhou", job)
    assert ch.storage_usd_per_gb_hour * 730 == pytest.approx(highest)
    [said] = [a for a in ch.assumptions if a.startswith("storage: object")]
    assert said.endswith("(the highest price in the catalog, of any provider)"), said
    # each instance still boots with a launch disk, whose block storage price is not known here either
    [disk] = [a for a in ch.assumptions if a.startswith("storage: block")]
    assert disk.endswith("(the highest price in the catalog, of any provider)"), disk
    best = facts.charges("tencent", "ap-guangzhou", job, best_case=True)
    assert best.storage_usd_per_gb_hour * 730 == pytest.approx(lowest)


def test_the_object_storage_bound_follows_the_catalog_not_a_constant() -> None:
    # A catalog whose object storage prices lie elsewhere bounds an unknown one at its own highest.
    facts = CostFacts([], catalog_ranges=CatalogRanges(object=(0.01, 0.05)))
    job = JobFacts(dataset_gb=100.0, checkpoint_gb=1.0, storage_kind="object")
    assert facts.charges("tencent", "ap-guangzhou", job).storage_usd_per_gb_hour * 730 == pytest.approx(0.05)
    best = facts.charges("tencent", "ap-guangzhou", job, best_case=True)
    assert best.storage_usd_per_gb_hour * 730 == pytest.approx(0.01)


def test_unknown_block_storage_and_egress_are_bounded_at_the_highest_the_catalog_holds(
    fresh_catalog: Path,
) -> None:
    # was: the highest of the plan's own regions, else a constant (0.10 USD/GB-month block, 0.12 USD/GB
    # egress) said to be "the highest known" while the catalog held 0.17 (GCP pd-ssd) and 0.146
    # (Alibaba cloud_ssd) per GB-month, and 0.123 USD/GB of egress.
    import csv

    import gpuplan.catalog

    data = Path(gpuplan.catalog.__file__).parent / "data"
    with (data / "storage.csv").open(encoding="utf-8") as f:
        blocks = [
            r for r in csv.DictReader(f) if r["kind"] == "block" and r["price"] and r["currency"] == "USD"
        ]
    per_month = [float(r["price"]) * (730.0 if r["unit"] == "GB-hour" else 1.0) for r in blocks]
    with (data / "transfer.csv").open(encoding="utf-8") as f:
        egress = [
            float(r["price_per_gb"])
            for r in csv.DictReader(f)
            if r["kind"] == "internet_egress" and r["price_per_gb"] and r["currency"] == "USD"
        ]
    store = open_store(str(fresh_catalog))
    try:
        facts = cost_facts_from_store(store, [("lambda", "us-east-1")])  # neither price known here
    finally:
        store.close()
    job = JobFacts(dataset_gb=100.0, checkpoint_gb=1.0, storage_kind="block", results_gb=10.0)
    ch = facts.charges("lambda", "us-east-1", job)
    assert ch.storage_usd_per_gb_hour * 730 == pytest.approx(max(per_month)) and max(per_month) > 0.10
    [said] = [a for a in ch.assumptions if a.startswith("storage:")]
    assert said.endswith("(the highest price in the catalog, of any provider)"), said
    assert ch.egress_out_usd == pytest.approx(10.0 * max(egress)) and max(egress) > 0.12
    [out] = [a for a in ch.assumptions if "internet egress price of lambda" in a]
    assert out.endswith(f"assumed ${max(egress):g}/GB (the highest price in the catalog, of any provider)"), (
        out
    )


def test_an_option_costed_at_a_dated_floor_names_the_floors_source_date_and_age(tmp_path: Path) -> None:
    # The plan had shown the floor's $13.22/h with the undated row's source (SkyPilot, line 1857) and
    # dates, and listed the price date as "in no figure" although it had moved the figure by $2.98/h.
    from datetime import date

    spread = {
        "region_spot_usd_per_hour": {"min": 8.0468, "as_of": "2025-11-30", "source": "instances.vantage.sh"}
    }
    undated = _price(
        provider="aws", region="us-east-1", pricing="spot", currency="USD", price=2.4655,
        price_usd_per_hour=2.4655, as_of="2025-06/2026-12-02", as_of_precision="bounded", term=spread,
        stale_after_days=180, priced_on=date(2026, 12, 5), staleness="unknown", age_days=552,
    )  # fmt: skip
    floor = undated.dated_floor_usd_per_hour()
    assert floor is not None and (floor.source, floor.age_days, floor.staleness) == (
        "instances.vantage.sh",
        370,
        "stale",
    )
    t = offer_table_from_prices([undated])
    assert (t.as_of[0], t.price_age_days[0], t.staleness[0], bool(t.stale[0])) == (
        "2025-11-30",
        370,
        "stale",
        True,
    )
    assert t.floor_source.tolist() == ["instances.vantage.sh"] and t.source.tolist() == ["test"]


def test_the_plan_states_a_floored_price_as_the_floors_and_counts_its_date_in_the_figures(
    fresh_catalog: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from one_line import answered

    db = fresh_catalog
    out = answered(
        ["--db", str(db), "--lang", "en", "plan",
         str(EXAMPLES / "resnet50-imagenet.yaml"),
         "--regions", "us-east-1", "--pricing", "spot", "--min-gpu-memory-gib", "40", "--max-gpus", "8",
         "--top", "5", "--json"],
        capsys,
    )  # fmt: skip
    doc = json.loads(out)
    p4d = next(o for o in doc["options"] if o["instance_type"] == "p4d.24xlarge")
    assert p4d["as_of"] == "2025-11-30" and p4d["price_usd_per_hour"] == pytest.approx(8.0468)
    assert p4d["price_source"].startswith(
        "the lowest dated spot price of the region, 2025-11-30 (instances.vantage.sh"
    )
    assert "the offer's own $2.47/h is undated (SkyPilot catalog" in p4d["price_source"]
    date_fact = next(u for u in p4d["unknown_facts"] if u["fact"] == "price_date")
    assert date_fact["costed"] is True and p4d["best_case_total_cost_usd"] < p4d["total_cost_usd"] / 2
    decided = doc["decided_by_unknowns"]
    assert (
        "spot rate, price date, disk after a reclaim at their best case, aws/us-east-1 p4d.24xlarge spot"
        in (decided)
    )


def test_a_us_east_2_plan_prices_its_disk_at_the_published_ebs_gp3_figure(fresh_catalog: Path) -> None:
    # was: no storage row for aws/us-east-2, so its disk was an unknown priced at the catalog's
    # highest block price (0.17 USD/GB-month, GCP pd-ssd) against us-east-1's 0.08; now AWS's own
    # price list record for US East (Ohio) gp3, 0.08 USD/GB-month, and no storage assumption.
    store = open_store(str(fresh_catalog))
    try:
        [gp3] = [s for s in store.storage_prices("aws", "us-east-2") if s.kind == "block"]
        facts = cost_facts_from_store(store, [("aws", "us-east-2"), ("aws", "us-east-1")])
    finally:
        store.close()
    assert (gp3.storage_class, gp3.price_per_gb_month, gp3.fallback) == ("EBS gp3", 0.08, False)
    assert gp3.as_of == "2023-03-01" and "https://github.com/opencost/opencost/blob/" in gp3.source
    job = JobFacts(dataset_gb=100.0, checkpoint_gb=1.0, storage_kind="block")
    ohio, virginia = facts.charges("aws", "us-east-2", job), facts.charges("aws", "us-east-1", job)
    assert ohio.storage_usd_per_gb_hour * 730 == pytest.approx(0.08)
    assert ohio.storage_usd_per_gb_hour == pytest.approx(virginia.storage_usd_per_gb_hour)
    assert not [a for a in ohio.assumptions if a.startswith("storage:")], ohio.assumptions
    assert not ohio.unknown_facts & Fact.STORAGE


def test_every_priced_egress_and_storage_row_names_its_source_and_date() -> None:
    # Every figure the planner costs with carries where it was read and when (or says it is undated).
    import csv

    import gpuplan.catalog

    data = Path(gpuplan.catalog.__file__).parent / "data"
    for name, price in (("storage.csv", "price"), ("transfer.csv", "price_per_gb")):
        with (data / name).open(encoding="utf-8") as f:
            rows = [r for r in csv.DictReader(f) if r[price]]
        assert rows
        for r in rows:
            assert r["source"].strip(), (name, r)
            assert r["as_of"].strip() or r["reason"] == "undated", (name, r)


def _carried_aws() -> dict[str, list[float]]:
    """The shipped catalog's AWS prices, USD: internet egress per GB (positive tiers), block and
    object storage per GB-month."""
    import csv

    import gpuplan.catalog

    data = Path(gpuplan.catalog.__file__).parent / "data"
    with (data / "transfer.csv").open(encoding="utf-8") as f:
        egress = [
            float(r["price_per_gb"])
            for r in csv.DictReader(f)
            if r["provider"] == "aws" and r["kind"] == "internet_egress" and r["price_per_gb"]
        ]
    with (data / "storage.csv").open(encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f) if r["provider"] == "aws" and r["price"]]
    out = {"egress": [p for p in egress if p > 0]}
    for kind in ("block", "object"):
        out[kind] = [float(r["price"]) for r in rows if r["kind"] == kind]
    return out


def test_the_bound_of_a_region_not_in_the_table_is_at_least_every_carried_price_of_its_provider(
    fresh_catalog: Path,
) -> None:
    # was: AWS's unknown egress bounded at $0.123/GB and its object storage at $0.023/GB-month, "the
    # highest price in the catalog", under AWS's own published São Paulo prices ($0.15/GB out,
    # $0.0405/GB-month S3 Standard); now the highest AWS price carried, and where no AWS row is on
    # the region's continent (Cape Town), the plan says its price may be higher; and never below the
    # whole catalog's highest (AWS's carried disks, $0.10 at most, are cheaper than GCP's pd-ssd at
    # $0.17 and than AWS's own gp3 in São Paulo).
    carried = _carried_aws()
    store = open_store(str(fresh_catalog))
    try:
        facts = cost_facts_from_store(store, [("aws", "ap-northeast-1"), ("aws", "af-south-1")])
    finally:
        store.close()
    job = JobFacts(dataset_gb=1.0, checkpoint_gb=1.0, storage_kind="object", results_gb=10.0)
    aws, anyone = (
        "(the highest aws price in the catalog",
        "(the highest price in the catalog, of any provider",
    )
    higher = "; this region's may be higher)"
    for region, ends in (
        ("ap-northeast-1", {"egress": aws + ")", "object": aws + ")", "block": anyone + ")"}),
        ("af-south-1", {"egress": aws + higher, "object": aws + higher, "block": anyone + higher}),
    ):
        ch = facts.charges("aws", region, job)
        assert ch.egress_out_usd / 10.0 >= max(carried["egress"]) - 1e-9, ch
        assert ch.storage_usd_per_gb_hour * 730 >= max(carried["object"]) - 1e-9, ch
        assert ch.disk_usd_per_gb_hour * 730 == pytest.approx(0.17), ch
        said = [a for a in ch.assumptions if "price of" in a and "unknown" in a]
        assert len(said) == 3, said
        for kind, words in (
            ("egress", "internet egress"),
            ("object", "object storage"),
            ("block", "block storage"),
        ):
            [line] = [a for a in said if words in a]
            assert line.endswith(ends[kind]), (kind, line)


def test_singapore_is_costed_at_its_own_published_prices_with_their_source(fresh_catalog: Path) -> None:
    # was: "internet egress price of aws/ap-southeast-1 unknown; assumed $0.123/GB" and object storage
    # "assumed $0.023/GB-month"; now AWS's published Singapore prices, each row with its source.
    store = open_store(str(fresh_catalog))
    try:
        facts = cost_facts_from_store(store, [("aws", "ap-southeast-1")])
        rows = store.storage_prices("aws", "ap-southeast-1") + store.egress_tiers("aws", "ap-southeast-1")
    finally:
        store.close()
    assert rows and all(r.region == "ap-southeast-1" and "Price List" in r.source for r in rows), rows
    job = JobFacts(dataset_gb=1.0, checkpoint_gb=1.0, storage_kind="object", results_gb=10.0)
    ch = facts.charges("aws", "ap-southeast-1", job)
    assert ch.egress_out_usd == pytest.approx(10.0 * 0.12)
    assert ch.storage_usd_per_gb_hour * 730 == pytest.approx(0.025)
    assert ch.disk_usd_per_gb_hour * 730 == pytest.approx(0.096)
    assert not ch.unknown and not [a for a in ch.assumptions if "price of" in a], ch.assumptions


def test_an_azure_zone_1_region_prices_its_egress_at_the_zones_published_ladder(fresh_catalog: Path) -> None:
    # was: no transfer row for azure/westus, so results sent home from there were an unknown egress
    # priced at the catalog's highest (and Fact.EGRESS); now Azure's Zone 1 ladder (Microsoft prices
    # outbound data by billing zone and names West US in Zone 1), the same figures as East US's.
    store = open_store(str(fresh_catalog))
    try:
        priced = [t for t in store.priced_transfer("internet_egress") if t.provider == "azure"]
        facts = cost_facts_from_store(store, [("azure", "westus"), ("azure", "eastus")])
    finally:
        store.close()
    ladder = {
        r: sorted((t.start_gb, t.end_gb, t.price_per_gb) for t in priced if t.region == r)
        for r in ("eastus", "westus", "centralus", "eastus2", "northcentralus", "southcentralus")
    }
    assert ladder["westus"][1] == (100.0, 10240.0, 0.087)
    assert all(tiers == ladder["eastus"] for tiers in ladder.values()), ladder
    [tier] = [t for t in priced if t.region == "westus" and t.start_gb == 100.0]
    assert tier.as_of == "2026-05-06" and tier.confidence == "secondary"
    assert "based on Zones" in tier.source and "Zone 1: 'West US, East US" in tier.source
    assert "https://learn.microsoft.com/en-us/gaming/playfab/" in tier.source
    job = JobFacts(checkpoint_gb=1.0, results_gb=1100.0)  # results back to the user's own site
    west, east = facts.charges("azure", "westus", job), facts.charges("azure", "eastus", job)
    assert west.egress_out_usd == pytest.approx(east.egress_out_usd)
    assert not west.unknown_facts & Fact.EGRESS
    assert not [a for a in west.assumptions if "unknown" in a and a.startswith("egress")], west.assumptions


def test_a_workload_without_its_task_is_said_to_be_planned_as_train() -> None:
    # the service had planned a fine-tune written without `task` as a training run from scratch
    # (no base weights downloaded) without a word
    base = {"name": "w", "model": {"preset": "gpt2"}, "inputs": {"batch_size": 8, "seq_len": 128}}
    _job, notes = job_facts_from(Workload.from_dict(base), None)
    assert any(n.startswith("task not given: planned as train, from scratch") for n in notes), notes
    _job, notes = job_facts_from(Workload.from_dict({**base, "task": "train"}), None)
    assert not any(n.startswith("task not given") for n in notes), notes
