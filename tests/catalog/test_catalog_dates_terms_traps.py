"""Dated bounds, offer terms, the GCP N1 pairing rules and the cross-row source traps."""

from __future__ import annotations

from datetime import date

import pytest

from gpuplan.catalog import PROVIDERS, Store
from gpuplan.catalog.dates import AsOfPrecision, parse_as_of
from gpuplan.catalog.importers.skypilot_traps import far_apart, spot_not_below_on_demand
from gpuplan.catalog.model import OfferRow, PriceRow
from gpuplan.catalog.providers import REGISTRY, offer_terms, unknown_price_reason
from gpuplan.catalog.providers.base import HOST_KINDS
from gpuplan.catalog.providers.gcp import n1_gpu_fits
from gpuplan.i18n.places import UNSPECIFIED_REGION

# -- as_of --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "precision", "earliest", "latest"),
    [
        ("2026-01-21", AsOfPrecision.DAY, date(2026, 1, 21), date(2026, 1, 21)),
        ("2023-06", AsOfPrecision.MONTH, date(2023, 6, 1), date(2023, 6, 30)),
        ("2024-02", AsOfPrecision.MONTH, date(2024, 2, 1), date(2024, 2, 29)),
        ("2024", AsOfPrecision.YEAR, date(2024, 1, 1), date(2024, 12, 31)),
        ("2025-06/2026-12-02", AsOfPrecision.BOUNDED, date(2025, 6, 1), date(2026, 12, 2)),
        ("2026-01-21/2026-12-02", AsOfPrecision.BOUNDED, date(2026, 1, 21), date(2026, 12, 2)),
    ],
)
def test_as_of_keeps_the_precision_its_source_has(
    text: str, precision: AsOfPrecision, earliest: date, latest: date
) -> None:
    parsed = parse_as_of(text)
    assert parsed is not None
    assert (parsed.precision, parsed.earliest, parsed.latest) == (precision, earliest, latest)


@pytest.mark.parametrize(
    "text", ["", "2026-02-30", "2026-13", "26-01-01", "2026-12-02/2025-06", "2026/", "yesterday", None]
)
def test_what_is_not_an_as_of_is_refused(text: str | None) -> None:
    assert parse_as_of(text) is None


def test_age_counts_from_the_earliest_day_a_bound_allows() -> None:
    bounded = parse_as_of("2025-06/2026-12-02")
    assert bounded is not None
    # never made to look newer than it may be: 1 June 2025 to 30 Nov 2026
    assert bounded.age_days(date(2026, 11, 30)) == 547
    assert bounded.label() == "2025-06–2026-12-02"


def test_catalog_offers_say_how_old_their_price_may_be(store: Store) -> None:
    offers = store.offers(provider="aws", pricing="on_demand")
    assert offers
    for o in offers:
        assert o.as_of_precision in {p.value for p in AsOfPrecision}
        assert o.age_days is not None and o.age_min_days is not None
        assert o.age_min_days <= o.age_days
        assert o.staleness in ("fresh", "stale", "unknown")
        assert o.stale == (o.staleness != "fresh")


# -- offer terms ---------------------------------------------------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS)
def test_terms_name_a_host_kind_and_a_source(provider: str) -> None:
    facts = REGISTRY[provider].FACTS
    for terms in facts.offer_terms:
        assert terms.host in HOST_KINDS
        assert terms.source and terms.price_covers and terms.reliability
    if facts.kind == "marketplace":
        assert facts.offer_terms


def test_every_shipped_marketplace_offer_has_its_terms(store: Store) -> None:
    # a marketplace must say what its offers are: the planner cannot assume a cloud VM
    offers = store.offers(include_unpriced=True)
    without = {
        (o.provider, o.instance_type)
        for o in offers
        if REGISTRY[o.provider].FACTS.kind == "marketplace"
        and offer_terms(o.provider, o.instance_type, o.region) is None
    }
    assert without == set()


@pytest.mark.parametrize("provider", ["alibaba", "tencent", "huawei", "volcengine"])
def test_a_chinese_clouds_instance_is_its_own_cloud_vm(provider: str) -> None:
    # They stated no terms: the plan called an Alibaba ECS "a host of unknown kind" and named "the
    # best option on a provider-run machine" beside a recommended cn-beijing instance.
    terms = offer_terms(provider, "any-instance-type", "cn-beijing")
    assert terms is not None and terms.host == "cloud_vm", provider
    assert terms.source.startswith(("Alibaba Cloud", "Tencent Cloud", "Huawei Cloud", "Volcano Engine"))
    assert terms.min_rental_s is None and terms.storage_billed_apart is None  # not read: not guessed


def test_terms_markers_pick_the_kind_of_offer() -> None:
    community = offer_terms("runpod", "1x_RTX4090_COMMUNITY", "community-US")
    secure = offer_terms("runpod", "1x_H100_SECURE", "US")
    assert community is not None and secure is not None
    assert community.host == "community_host" and not community.host_specs_known
    assert secure.host == "secure_cloud"
    aws = offer_terms("aws", "p4d.24xlarge", "us-east-1")
    assert aws is not None and aws.host == "cloud_vm" and aws.interruptible is False
    assert offer_terms("no_such_provider", "x") is None


def test_unknown_reserved_prices_carry_their_reason() -> None:
    reason = unknown_price_reason("azure", "reserved_1y")
    assert reason and "reserv" in reason.lower()
    assert unknown_price_reason("aws", "reserved_1y") is None


def test_every_shipped_region_is_one_its_provider_declares(store: Store) -> None:
    seen = {(o.provider, o.region) for o in store.offers(include_unpriced=True)}
    missing = sorted(
        f"{p}/{r}" for p, r in seen if r != UNSPECIFIED_REGION and REGISTRY[p].FACTS.region(r) is None
    )
    assert missing == []


# -- GCP N1 + attachable GPU -------------------------------------------------------------------


def test_n1_pairing_follows_gcps_limits_with_the_p100_zone_exception() -> None:
    # 4 x P100 on a 96-vCPU, 624 GB N1 host: allowed in general, not in us-east1-c (64 / 208)
    assert n1_gpu_fits("P100", 4, "us-central1-c", 96, 624)
    assert not n1_gpu_fits("P100", 4, "us-east1-c", 96, 624)
    assert n1_gpu_fits("P100", 4, "us-east1-c", 64, 208)
    # 1 x V100: at most 12 vCPUs and 78 GB
    assert n1_gpu_fits("V100", 1, "us-central1-a", 8, 30)
    assert not n1_gpu_fits("V100", 1, "us-central1-a", 16, 60)
    # no 8 x T4 and no 3-GPU VM exists; a GPU N1 does not take is refused
    assert not n1_gpu_fits("T4", 8, "us-central1-a", 8, 30)
    assert not n1_gpu_fits("T4", 3, "us-central1-a", 8, 30)
    assert not n1_gpu_fits("A100", 1, "us-central1-a", 8, 30)


def test_shipped_n1_offers_all_fit_their_rules(store: Store) -> None:
    n1 = [o for o in store.offers(provider="gcp", include_unpriced=True) if o.instance_type.startswith("n1-")]
    assert n1
    for o in n1:
        # GCP's table says GB for what its machine types (and SkyPilot's MemoryGiB) count in GiB
        assert " + " in o.instance_type and o.vcpus is not None and o.memory_gib is not None
        count = int(o.gpu_count)
        model = {"T4": "T4", "V100-SXM2-16GB": "V100", "P100-PCIE-16GB": "P100", "P4": "P4"}[o.gpu]
        assert n1_gpu_fits(model, count, o.zone or "", o.vcpus, o.memory_gib), o


# -- traps ---------------------------------------------------------------------------------------


def _row(region: str, *prices: tuple[str, float], zone: str | None = None, itype: str = "x.8") -> OfferRow:
    return OfferRow(
        provider="aws",
        region=region,
        zone=zone,
        instance_type=itype,
        gpu="A100-SXM4-40GB",
        gpu_count=8,
        vcpus=96,
        memory_gib=1152,
        network_gbps=None,
        interconnect=None,
        source="test",
        prices=tuple(
            PriceRow(
                pricing=p,
                amount=a,
                currency="USD",
                unit="hour",
                as_of="2026-01-21",
                source="test",
                confidence="high",
            )
            for p, a in prices
        ),
    )


def test_a_spot_price_repeating_on_demand_goes_and_on_demand_stays() -> None:
    rows = [
        _row("us-east-1", ("on_demand", 30.09784)),
        _row("us-east-1", ("spot", 30.0978), zone="use1-az1"),  # on-demand repeated, rounded
        _row("us-east-1", ("spot", 9.5), zone="use1-az2"),
    ]
    kept, traps = spot_not_below_on_demand(rows)
    assert [t.zone for t in traps] == ["use1-az1"]
    assert [p.amount for r in kept for p in r.prices] == [30.09784, 9.5]
    assert traps[0].reason == "spot 30.0978 repeats its on-demand price 30.0978 (no spot price published)"


def test_a_spot_price_above_on_demand_goes_in_its_own_words() -> None:
    rows = [
        _row("us-east-1", ("on_demand", 8.22)),
        _row("us-east-1", ("spot", 8.2261), zone="use1-az1"),  # within the rounding: a repeat
        _row("us-east-1", ("spot", 9.5), zone="use1-az2"),  # dearer than on demand: no repeat
    ]
    kept, traps = spot_not_below_on_demand(rows)
    assert [t.reason for t in traps] == [
        "spot 8.2261 repeats its on-demand price 8.22 (no spot price published)",
        "spot 9.5 above on-demand 8.22: not a spot discount, dropped",
    ]
    assert [p.amount for r in kept for p in r.prices] == [8.22]


def test_gradual_regional_prices_stay_and_a_far_lower_cluster_goes() -> None:
    gradual = [_row(r, ("on_demand", a)) for r, a in [("a", 10.0), ("b", 12.0), ("c", 15.0), ("d", 16.0)]]
    kept, traps = far_apart(gradual)
    assert traps == [] and kept == gradual

    two_lists = [_row(r, ("on_demand", a)) for r, a in [("a", 5.0), ("b", 5.0), ("c", 11.0), ("d", 12.0)]]
    kept, traps = far_apart(two_lists)
    assert sorted(t.region for t in traps) == ["a", "b"]  # the lower side: never cheaper than known
    assert all("2.20x below" in t.reason for t in traps)
    assert [len(r.prices) for r in kept] == [0, 0, 1, 1]
