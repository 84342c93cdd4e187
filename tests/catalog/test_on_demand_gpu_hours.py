"""The on-demand price per GPU-hour the "use a bigger GPU" advice quotes: the figure with where
and when it is from, and an unknown one with its reason."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from gpuplan.catalog import OfferRow, PriceRow, Store
from gpuplan.catalog.gpu_hour import NO_ON_DEMAND_OFFER, ON_DEMAND_LOW_CONFIDENCE
from gpuplan.catalog.query import on_demand_gpu_hours
from gpuplan.i18n import use_language

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _row(
    gpu: str,
    instance: str,
    region: str,
    amount: float,
    *,
    pricing: str = "on_demand",
    as_of: str,
    count: int = 8,
    provider: str = "aws",
) -> OfferRow:
    return OfferRow(
        provider=provider,
        region=region,
        zone=None,
        instance_type=instance,
        gpu=gpu,
        gpu_count=count,
        vcpus=None,
        memory_gib=None,
        network_gbps=None,
        interconnect=None,
        source="test",
        prices=(
            PriceRow(
                pricing=pricing,
                amount=amount,
                currency="USD",
                unit="hour",
                as_of=as_of,
                source="test rows",
                confidence="low" if instance.startswith("article") else "high",
            ),
        ),
    )


def test_the_cheapest_on_demand_price_comes_with_its_place_and_age_even_when_undated(
    empty_store: Store,
) -> None:
    empty_store.import_offers(
        [
            # a dated price, and a cheaper one whose source only bounds its date
            _row("H100-SXM", "test-h100-dated", "us-east-1", 55.04, as_of="2026-11-20"),
            _row("H100-SXM", "test-h100-undated", "eu-west-1", 14.0, as_of="2025-03/2026-11-02"),
            # only spot: no on-demand price of it
            _row("A100-SXM4-80GB", "test-a100", "us-east-1", 10.0, pricing="spot", as_of="2026-11-20"),
            # only a low-confidence (article) on-demand price: not one the advice ranks by
            _row("L4", "article-l4", "us-east-1", 0.8, as_of="2024", count=1),
        ],
        provider="aws",
        source="test",
    )
    prices = on_demand_gpu_hours(empty_store.offers())
    h100 = prices["H100-SXM"]
    assert h100.price_usd_per_gpu_hour == pytest.approx(14.0 / 8)
    assert (h100.provider, h100.region, h100.instance_type, h100.pricing) == (
        "aws",
        "eu-west-1",
        "test-h100-undated",
        "on_demand",
    )
    # dated only by its bounds: aged from 1 March 2025, and of unknown staleness (never fresh)
    assert h100.as_of == "2025-03/2026-11-02"
    assert h100.age_days == (date(2026, 11, 30) - date(2025, 3, 1)).days
    assert (h100.staleness, h100.stale, h100.stale_after_days) == ("unknown", True, 180)
    assert h100.source is not None and "test rows" in h100.source
    assert (
        h100.said()
        == "$1.75/GPU-h on demand at aws/eu-west-1, as of 2025-03–2026-11-02: age unknown (up to 21 mo)"
    )
    with use_language("zh"):
        assert "aws/eu-west-1" in h100.said() and "2025-03–2026-11-02" in h100.said()
    # Unknown stays None, with the reason.
    a100, l4 = prices["A100-SXM4-80GB"], prices["L4"]
    assert (a100.price_usd_per_gpu_hour, a100.price_reason, a100.provider) == (None, NO_ON_DEMAND_OFFER, None)
    assert (l4.price_usd_per_gpu_hour, l4.price_reason) == (None, ON_DEMAND_LOW_CONFIDENCE)
    assert a100.said() == "on-demand price unknown: the catalog has no on-demand offer of it"


def test_the_advice_prices_a_gpu_only_where_the_workload_may_run(empty_store: Store) -> None:
    # A workload limited to alibaba had been told "use an H100 — $1.75/GPU-h at aws/us-east-1".
    from gpuplan.api import offered_gpu_hours
    from gpuplan.workload import load_workload
    from gpuplan.workload.spec import ConstraintsSpec

    empty_store.import_offers(
        [_row("H100-SXM", "test-h100", "us-east-1", 14.0, as_of="2026-11-20")], provider="aws", source="test"
    )
    empty_store.import_offers(
        [_row("H100-SXM", "ali-h100", "cn-hangzhou", 40.0, as_of="2026-11-20", provider="alibaba")],
        provider="alibaba",
        source="test",
    )
    workload = load_workload(EXAMPLES / "bert-large-squad.yaml")

    def where(**limits: tuple[str, ...]) -> tuple[str | None, float | None]:
        wl = workload.model_copy(update={"constraints": ConstraintsSpec(**limits)})
        h100 = offered_gpu_hours(wl, empty_store.offers())["H100-SXM"]
        return h100.provider, h100.price_usd_per_gpu_hour

    assert where() == ("aws", pytest.approx(14.0 / 8))
    assert where(providers=("tencent", "alibaba")) == ("alibaba", pytest.approx(40.0 / 8))
    assert where(countries=("China",)) == ("alibaba", pytest.approx(40.0 / 8))
    assert where(regions=("us-east-1",)) == ("aws", pytest.approx(14.0 / 8))
    # nowhere allowed: not offered there, so not a GPU the advice names
    assert "H100-SXM" not in offered_gpu_hours(
        workload.model_copy(update={"constraints": ConstraintsSpec(providers=("tencent",))}),
        empty_store.offers(),
    )
