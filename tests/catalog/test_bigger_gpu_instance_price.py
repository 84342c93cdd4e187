"""What "use a bigger GPU" quotes is what the job would pay: the cheapest on-demand instance that
holds the job's GPUs, rented whole, low-confidence prices only where allowed, and of equal prices the
one known to hold today (plan's rule, ``simulate.inputs.replica_instances``).

An 8-GPU marketplace box's $4.40 per GPU-hour had been quoted for a one-GPU job that would pay
$35.20 an hour for it."""

from __future__ import annotations

import pytest

from gpuplan.api import offered_gpu_hours
from gpuplan.catalog import OfferRow, PriceRow, Store
from gpuplan.catalog.gpu_hour import GpuHourPrice
from gpuplan.i18n import use_language
from gpuplan.workload import Workload

_WORKLOAD = {
    "name": "lora",
    "task": "finetune",
    "model": {"preset": "llama-8b", "lora": {"rank": 16}},
    "inputs": {"batch_size": 1, "seq_len": 1024},
    "precision": "bf16",
}


def _row(instance: str, amount: float, *, count: int, as_of: str, low: bool = False) -> OfferRow:
    return OfferRow(
        provider="aws",
        region="us-east-1",
        zone=None,
        instance_type=instance,
        gpu="B200",
        gpu_count=count,
        vcpus=None,
        memory_gib=None,
        network_gbps=None,
        interconnect=None,
        source="test",
        prices=(
            PriceRow(
                pricing="on_demand",
                amount=amount,
                currency="USD",
                unit="hour",
                as_of=as_of,
                source="test rows",
                confidence="low" if low else "high",
            ),
        ),
    )


def _prices(store: Store, rows: list[OfferRow], count: int, **kw: bool) -> GpuHourPrice:
    store.import_offers(rows, provider="aws", source="test")
    return offered_gpu_hours(Workload.model_validate(_WORKLOAD), store.offers(), count=count, **kw)["B200"]


def test_a_one_gpu_job_is_priced_at_a_one_gpu_instance_not_an_8_gpu_boxs_share(empty_store: Store) -> None:
    rows = [
        _row("box-8xB200", 35.20, count=8, as_of="2026-11-20"),  # $4.40 a GPU, rented as 8
        _row("one-1xB200", 4.89, count=1, as_of="2026-11-20"),
    ]
    one = _prices(empty_store, rows, 1)
    assert one.instance_type == "one-1xB200"
    assert one.job_usd_per_hour(1) == pytest.approx(4.89)
    # Eight GPUs: the box ($35.20) costs less than eight single ones ($39.12).
    eight = offered_gpu_hours(Workload.model_validate(_WORKLOAD), empty_store.offers(), count=8)["B200"]
    assert eight.instance_type == "box-8xB200"
    assert eight.job_usd_per_hour(8) == pytest.approx(35.20)


def test_an_instance_bigger_than_the_job_is_paid_whole_and_said_so(empty_store: Store) -> None:
    price = _prices(empty_store, [_row("box-8xB200", 35.20, count=8, as_of="2026-11-20")], 1)
    assert price.job_usd_per_hour(1) == pytest.approx(35.20)
    with use_language("en"):
        said = price.said()
    assert said.startswith("$35.20/h on demand for one box-8xB200 (8 GPUs, $4.40/GPU-h) at aws/")
    assert "as of 2026-11-20" in said


def test_low_confidence_prices_only_where_allowed(empty_store: Store) -> None:
    rows = [
        _row("article-1xB200", 1.00, count=1, as_of="2024", low=True),
        _row("one-1xB200", 4.89, count=1, as_of="2026-11-20"),
    ]
    assert _prices(empty_store, rows, 1).instance_type == "one-1xB200"
    allowed = offered_gpu_hours(
        Workload.model_validate(_WORKLOAD), empty_store.offers(), count=1, allow_low_confidence=True
    )["B200"]
    assert allowed.instance_type == "article-1xB200"


def test_of_equal_prices_the_dated_one_is_quoted(empty_store: Store) -> None:
    rows = [
        _row("undated-1xB200", 4.89, count=1, as_of="2025-03/2026-11-02"),
        _row("dated-1xB200", 4.89, count=1, as_of="2026-11-20"),
    ]
    assert _prices(empty_store, rows, 1).instance_type == "dated-1xB200"
