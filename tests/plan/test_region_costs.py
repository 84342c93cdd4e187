"""Data movement, storage and unknown regional prices."""

from __future__ import annotations

import pytest
from plan_helpers import aws_costs

from gpuplan.plan import CostFacts, JobFacts, RegionCosts
from gpuplan.plan.region_costs import FALLBACK_BLOCK_USD_PER_GB_MONTH


def _facts() -> CostFacts:
    return CostFacts(
        [aws_costs(), RegionCosts(provider="aws", region="eu-west-1", inter_region_usd_per_gb=0.02)]
    )


def test_same_region_moves_data_for_free() -> None:
    job = JobFacts(dataset_gb=500, checkpoint_gb=10, data_location=("aws", "us-east-1"))
    ch = _facts().charges("aws", "us-east-1", job)
    assert ch.egress_usd == 0.0
    assert ch.assumptions == ()


def test_inter_region_within_a_provider_uses_the_flat_inter_region_price() -> None:
    # 500 GB out of us-east-1 at $0.02 = $10.00; 10 GB of results back from eu-west-1 at $0.02 = $0.20.
    job = JobFacts(dataset_gb=500, checkpoint_gb=10, data_location=("aws", "us-east-1"))
    ch = _facts().charges("aws", "eu-west-1", job)
    assert ch.egress_usd == pytest.approx(10.20)


def test_cross_provider_pays_internet_egress_tiers_and_labels_unknown_ones() -> None:
    # Dataset 500 GB leaves AWS over the internet, every GB priced: 500 × 0.09 = $45.00.
    # Results (10 GB) leave alibaba, whose egress price is unknown: assumed at the highest known
    # paid-tier price, 0.09 USD/GB here -> $0.90, and said so.
    job = JobFacts(dataset_gb=500, checkpoint_gb=10, data_location=("aws", "us-east-1"))
    ch = _facts().charges("alibaba", "cn-shanghai", job)
    assert ch.egress_usd == pytest.approx(45.90)
    assert any("alibaba/cn-shanghai" in a and "assumed" in a for a in ch.assumptions)


def test_the_free_egress_allowance_counts_only_when_the_account_has_it_unused() -> None:
    # --egress-free-tier: 100 GB free + 400 × 0.09 = $36.00, + $0.90 of results back.
    job = JobFacts(
        dataset_gb=500, checkpoint_gb=10, data_location=("aws", "us-east-1"), egress_free_tier=True
    )
    ch = _facts().charges("alibaba", "cn-shanghai", job)
    assert ch.egress_usd == pytest.approx(36.90)
    assert any("alibaba/cn-shanghai" in a and "assumed" in a for a in ch.assumptions)


def test_unknown_storage_price_is_a_labelled_conservative_assumption_not_zero() -> None:
    job = JobFacts(dataset_gb=100, checkpoint_gb=10)
    ch = CostFacts([]).charges("tencent", "ap-guangzhou", job)
    assert ch.storage_usd_per_gb_hour == pytest.approx(FALLBACK_BLOCK_USD_PER_GB_MONTH / 730)
    assert any(a.startswith("storage:") and "assumed" in a for a in ch.assumptions)


def test_dataset_from_the_users_site_is_free_ingress() -> None:
    job = JobFacts(dataset_gb=100, checkpoint_gb=0)
    assert _facts().charges("aws", "us-east-1", job).egress_usd == 0.0


def test_unknown_ingress_to_a_gpu_marketplace_is_priced_at_the_highest_transfer_price_known() -> None:
    # The seven clouds list inbound traffic as free; vast's price for it is not in the catalog, so
    # the upload is priced at the highest transfer price known (0.09 USD/GB here): 100 × 0.09 = $9.00,
    # labelled; its best case is free.
    job = JobFacts(dataset_gb=100, checkpoint_gb=0)
    cloud = _facts().charges("aws", "us-east-1", job)
    market = _facts().charges("vast", "unspecified", job)
    assert cloud.egress_usd == 0.0
    assert market.egress_in_usd == pytest.approx(9.0)
    assert _facts().charges("vast", "unspecified", job, best_case=True).egress_in_usd == 0.0
    assert not any("inbound" in a for a in cloud.assumptions)
    assert any("inbound traffic price of vast not in the catalog" in a for a in market.assumptions)
