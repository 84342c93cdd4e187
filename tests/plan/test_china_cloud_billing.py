"""How the shipped catalog bills the Chinese clouds' on-demand hours, end to end through the planner.

Tencent Cloud (按量计费) and Huawei Cloud (按需计费) publish per-second billing settled every hour: a
1.17 h job is billed 1.17 h, not 2 h. Alibaba Cloud publishes per-second billing with a minimum per
hourly cycle that varies with the instance's vCPUs, which the catalog does not hold: it stays at
whole hours, and says that much is documented instead of that nothing is known.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from gpuplan.catalog import Store, open_store
from gpuplan.plan import Constraints, EstimateKey, EstimateRow, JobFacts, Option, plan_offers
from gpuplan.plan.build_inputs import cost_facts_from_store, offer_table_from_prices

#: The job of the report that found the whole-hour billing: 1.17 h of running time.
JOB_H = 1.17
UNKNOWN = "billing granularity unknown: hourly assumed"


@pytest.fixture(scope="module")
def store(seeded_copy: Callable[[str], Path]) -> Iterator[Store]:
    s = open_store(str(seeded_copy("catalog")))  # the shipped snapshot
    yield s
    s.close()


def _flat(key: EstimateKey) -> EstimateRow:
    return EstimateRow(
        fits=True, job_time_h=JOB_H, job_time_h_low=JOB_H, job_time_h_high=JOB_H, peak_memory_gib=1.0
    )


def _one_node(store: Store, provider: str, region: str) -> Option:
    """The plan of a 1.17 h job on one node of ``provider``'s first on-demand offer in ``region``."""
    prices = store.offers(provider=provider, region=region, pricing="on_demand")
    assert prices, (provider, region)
    plan = plan_offers(
        offer_table_from_prices(prices[:1]),
        cost_facts_from_store(store, [(provider, region)]),
        # no checkpoint: their writes would add to the 1.17 h whose billing is pinned here
        JobFacts(dataset_gb=10.0, checkpoint_gb=0.0, data_location=(provider, region)),
        _flat,
        Constraints(max_nodes=1, allow_low_confidence=True),  # Huawei's row is an article's
    )
    return plan.recommended


@pytest.mark.parametrize(
    ("provider", "region", "url"),
    [
        ("tencent", "ap-guangzhou", "https://www.tencentcloud.com/document/product/213/15373"),
        # Huawei's only shipped on-demand row is a guide article's, in no stated region.
        ("huawei", "unspecified", "https://support.huaweicloud.com/intl/en-us/price-ecs/"),
    ],
)
def test_a_per_second_chinese_cloud_bills_a_1_17_hour_job_1_17_hours(
    store: Store, provider: str, region: str, url: str
) -> None:
    rec = _one_node(store, provider, region)
    # per second, no minimum stated: 1.17 h x 3600 = 4212 s -> 1.17 h (was ceil to 2 h)
    assert rec.job_time_h == pytest.approx(JOB_H)
    assert rec.billed_hours == pytest.approx(JOB_H)
    assert rec.cost_breakdown.compute_usd == pytest.approx(JOB_H * rec.price_usd_per_hour)
    assert UNKNOWN not in rec.flags
    policy = store.billing_policy(provider, region)
    assert (policy.granularity_s, policy.min_billing_s) == (1, None) and url in (policy.source or "")


def test_alibaba_stays_at_whole_hours_but_says_its_per_second_billing_is_documented(store: Store) -> None:
    policy = store.billing_policy("alibaba", "cn-shanghai")
    assert policy.granularity_s is None and "vCPUs" in (policy.reason or "")
    rec = _one_node(store, "alibaba", "cn-shanghai")
    assert rec.billed_hours == pytest.approx(2.0)  # ceil(1.17 h): an unknown minimum is not taken as none
    assert UNKNOWN not in rec.flags  # was: its increment, published, said to be unknown
    assert "per-second billing with a minimum per hour not held: hourly assumed" in rec.flags
