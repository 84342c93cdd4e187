"""A spot price of unknown age is held to its GPU's dated spot prices, else its on-demand price
(:mod:`gpuplan.catalog.spot_floors`), in the store's rows that offers, plan, simulate and tco read."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest

from gpuplan.catalog import OfferPrice, open_store
from gpuplan.catalog.model import FloorBasis
from gpuplan.catalog.spot_floors import dated_spot_prices, with_gpu_floors
from gpuplan.plan.build_inputs import offer_table_from_prices
from one_line import answered

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
TODAY = date(2026, 12, 5)
VANTAGE = "instances.vantage.sh"


def _spot(**kw: object) -> OfferPrice:
    """An undated Azure A100 80GB spot price: $3.605/h for 8 GPUs, $0.45/GPU-h (SkyPilot catalog
    v6 azure/vms.csv, Standard_ND96amsr_A100_v4 in eastus)."""
    base = OfferPrice(
        provider="azure", region="eastus", zone=None, instance_type="Standard_ND96amsr_A100_v4",
        gpu="A100-SXM4-80GB", gpu_count=8.0, vcpus=96.0, memory_gib=1900.0, network_gbps=None,
        interconnect=None, pricing="spot", price=3.6047, currency="USD", unit="hour",
        price_usd_per_hour=3.6047, price_usd_per_gpu_hour=3.6047 / 8, as_of="2022-03/2026-12-02",
        source="skypilot", confidence="secondary", interruption_band=None, billing_granularity_s=None,
        min_billing_s=None, term=None, compliance=(), stale=True, price_reason=None,
        as_of_precision="bounded", staleness="unknown", stale_after_days=180, priced_on=TODAY,
    )  # fmt: skip
    return replace(base, **kw)  # type: ignore[arg-type]


def _aws(region: str, per_instance: float, day: str) -> OfferPrice:
    """An undated AWS p4de spot row carrying its region's dated spot price (the vantage term)."""
    return _spot(
        provider="aws", region=region, instance_type="p4de.24xlarge", price_usd_per_hour=per_instance / 2,
        price_usd_per_gpu_hour=per_instance / 16,
        term={"region_spot_usd_per_hour": {"min": per_instance, "as_of": day, "source": VANTAGE}},
    )  # fmt: skip


def _floored(
    rows: list[OfferPrice], on_demand: dict[tuple[str, str, str], OfferPrice] | None = None
) -> OfferPrice:
    dated = dated_spot_prices(rows, TODAY, 180)
    return with_gpu_floors(rows, dated, on_demand or {})[-1]


def test_an_undated_spot_price_with_no_dated_one_in_its_region_is_held_to_the_catalogs_lowest() -> None:
    # Azure has no dated spot price: its $0.45/GPU-h had won plan at face value. The lowest dated
    # A100 80GB spot price in the catalog, $10.32/h for 8 GPUs = $1.29/GPU-h, is what it is costed at.
    azure = _spot()
    row = _floored([_aws("us-west-2", 10.32, "2025-11-30"), _aws("us-east-1", 11.0, "2025-11-30"), azure])
    floor = row.dated_floor_usd_per_hour()
    assert floor is not None and floor.basis is FloorBasis.GPU_CATALOG
    # 10.32 / 8 GPUs * 8 GPUs of the Azure instance = 10.32 per instance-hour
    assert floor.usd_per_hour == pytest.approx(10.32) and floor.region == "aws/us-west-2"
    assert (floor.as_of, floor.staleness, floor.source) == ("2025-11-30", "stale", VANTAGE)
    assert "aws/us-west-2" in floor.what() and "same GPU" in floor.what()
    assert row.conservative_usd_per_gpu_hour() == pytest.approx(1.29)
    t = offer_table_from_prices([row])  # plan: ranked at the floor, its own figure the best case
    assert t.price_usd[0] == pytest.approx(10.32) and t.price_usd_best[0] == pytest.approx(3.6047)
    assert t.floor_basis.tolist() == ["gpu-catalog"] and bool(t.stale[0])


def test_a_dated_price_in_its_own_region_and_a_fresh_one_come_first() -> None:
    # Another instance type of the same GPU dated in the offer's own region wins over the catalog's
    # lower figure elsewhere; and a fresh dated price wins over a lower stale one.
    here = _aws("eastus", 12.0, "2025-11-30")
    here = replace(here, provider="azure", instance_type="Other_A100_8x")
    row = _floored([_aws("us-west-2", 10.32, "2025-11-30"), here, _spot()])
    floor = row.dated_floor_usd_per_hour()
    assert (
        floor is not None
        and floor.basis is FloorBasis.GPU_REGION
        and floor.usd_per_hour == pytest.approx(12.0)
    )
    fresh = _aws("us-east-1", 11.0, "2026-11-30")
    row = _floored([_aws("us-west-2", 10.32, "2025-11-30"), fresh, _spot()])
    floor = row.dated_floor_usd_per_hour()
    assert floor is not None and floor.usd_per_hour == pytest.approx(11.0) and floor.staleness == "fresh"


def test_with_no_dated_spot_price_of_its_gpu_an_undated_one_is_costed_at_its_on_demand_price() -> None:
    alone = _spot()
    on_demand = _spot(pricing="on_demand", price_usd_per_hour=32.77, price_usd_per_gpu_hour=32.77 / 8)
    row = _floored([alone], {("azure", "eastus", "Standard_ND96amsr_A100_v4"): on_demand})
    floor = row.dated_floor_usd_per_hour()
    assert floor is not None and floor.basis is FloorBasis.ON_DEMAND
    assert floor.usd_per_hour == pytest.approx(32.77) and "on-demand" in floor.what()
    # Without an on-demand price either, nothing holds it: its own figure stands, flagged as undated.
    assert _floored([alone]).dated_floor_usd_per_hour() is None


def test_the_higher_of_the_instance_types_floor_and_its_gpus_wins_and_a_dearer_price_stands() -> None:
    aws = _aws("us-east-1", 11.0, "2025-11-30")  # own type's floor 11.0, the GPU's in-region floor 11.0
    cheap = _aws("us-east-1", 9.0, "2025-11-30")
    cheap = replace(
        cheap, instance_type="p4x", term={"region_spot_usd_per_hour": {"min": 9.0, "as_of": "2025-11-30"}}
    )
    row = _floored([cheap, aws])
    floor = row.dated_floor_usd_per_hour()
    assert (
        floor is not None
        and floor.usd_per_hour == pytest.approx(11.0)
        and floor.basis is FloorBasis.REGION_LOW
    )
    dear = _floored([_aws("us-west-2", 10.32, "2025-11-30"), _spot(price_usd_per_hour=12.0)])
    assert dear.dated_floor_usd_per_hour() is None
    discounted = _floored([_aws("us-west-2", 10.32, "2025-11-30"), _spot(discount_percent=10.0)])
    floor = discounted.dated_floor_usd_per_hour()
    assert floor is not None and floor.usd_per_hour == pytest.approx(10.32 * 0.9)


def test_the_shipped_catalog_holds_every_undated_spot_price_to_its_gpus_lowest_dated_one(
    fresh_catalog: Path,
) -> None:
    # Whatever the filter, an undated spot price is costed at no less than the lowest dated spot
    # price per GPU-hour of its GPU in the whole catalog (the Azure A100 80GB rows among them).
    store = open_store(str(fresh_catalog))
    try:
        everything = store.offers(pricing="spot")
        azure = store.offers(provider="azure", gpu="A100-SXM4-80GB", pricing="spot")
    finally:
        store.close()
    dated = dated_spot_prices(everything, store.today, store.stale_after_days)
    lowest = {gpu: min(p.usd_per_gpu_hour for p in found) for gpu, found in dated.items()}
    below = [
        (r.provider, r.region, r.instance_type, r.conservative_usd_per_gpu_hour())
        for r in everything
        if r.as_of_precision in ("bounded", None)
        and r.gpu_count >= 1
        and r.gpu in lowest
        and (r.conservative_usd_per_gpu_hour() or 0.0) < lowest[r.gpu] * (1 - 1e-9)
    ]
    assert below == []
    ours = next(r for r in azure if r.instance_type == "Standard_ND96amsr_A100_v4")
    assert (ours.price_usd_per_gpu_hour or 0.0) < lowest["A100-SXM4-80GB"]  # its own figure: $0.45
    assert ours.conservative_usd_per_gpu_hour() == pytest.approx(lowest["A100-SXM4-80GB"])


def test_plan_no_longer_ranks_an_undated_azure_spot_price_at_face_value(
    fresh_catalog: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = answered(
        ["--db", str(fresh_catalog), "--lang", "en", "plan",
         str(EXAMPLES / "resnet50-imagenet.yaml"), "--providers", "azure", "--pricing", "spot",
         "--gpus", "A100-SXM4-80GB", "--top", "3", "--json"],
        capsys,
    )  # fmt: skip
    doc = json.loads(out)
    nd = next(o for o in doc["options"] if o["instance_type"] == "Standard_ND96amsr_A100_v4")
    assert nd["price_source"].startswith(
        "the lowest dated spot price per GPU-hour of the same GPU in the catalog (aws/"
    )
    # costed at AWS p4de's lowest dated zone ($1.07/GPU-h in us-west-2 on 2025-11-30, $8.56/h for
    # its 8 GPUs), not its own undated $0.45/GPU-h ($3.60/h)
    own = float(re.search(r"the offer's own \$([0-9.]+)/h is undated", nd["price_source"])[1])  # type: ignore[index]
    assert own < 4.0 and nd["price_usd_per_hour"] > 2 * own
    assert nd["best_case_total_cost_usd"] < nd["total_cost_usd"]
