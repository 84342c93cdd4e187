"""The provider registry is complete, and every per-provider table covers every provider."""

from __future__ import annotations

import pycountry
import pytest

from gpuplan.catalog import PROVIDERS
from gpuplan.catalog.providers import REGISTRY, Fetcher, ProviderFacts, facts, module
from gpuplan.catalog.snapshot import read_table
from gpuplan.errors import NotFoundError
from gpuplan.hardware import all_gpus
from gpuplan.plan.region_countries import managed_kubernetes, region_country
from gpuplan.plan.spot import spot_default


def test_registry_has_every_provider_once_and_at_least_ten() -> None:
    # The registry is the vocabulary: its keys are the codes, each module's own.
    assert list(REGISTRY) == list(PROVIDERS) and len(PROVIDERS) == len(REGISTRY)
    assert len(REGISTRY) >= 10
    assert len({id(m) for m in REGISTRY.values()}) == len(REGISTRY)


@pytest.mark.parametrize("provider", list(PROVIDERS), ids=str)
def test_module_declares_facts_for_its_own_provider_and_a_fetcher(provider: str) -> None:
    m = module(provider)
    assert isinstance(m.FACTS, ProviderFacts)
    assert m.FACTS.provider == provider
    assert isinstance(m.FETCHER, Fetcher)
    assert m.FACTS.kind in ("hyperscaler", "china_cloud", "marketplace")
    assert m.FACTS.regions_source and m.FACTS.spot.source and m.FACTS.price_sources


@pytest.mark.parametrize("provider", list(PROVIDERS), ids=str)
def test_regions_are_unique_with_iso_countries(provider: str) -> None:
    f = facts(provider)
    codes = [r.code for r in f.regions]
    assert codes and len(codes) == len(set(codes))
    for r in f.regions:
        assert r.country is None or pycountry.countries.get(alpha_2=r.country) is not None, r
    assert f.default_region is None or f.default_region in codes + list(f.price_list_region_codes)


@pytest.mark.parametrize("provider", list(PROVIDERS), ids=str)
def test_billing_is_known_with_a_source_or_unknown_with_a_reason(provider: str) -> None:
    b = facts(provider).billing
    if b.granularity_s is None:
        assert b.reason and b.source is None
    else:
        assert b.granularity_s > 0 and b.source and b.as_of
        assert b.documented_increment_s is None  # only said where the granularity stays unknown


def test_region_countries_agree_with_the_planners_table() -> None:
    # Where the planner's older table knows a region, it must say the same country.
    for provider, m in REGISTRY.items():
        for r in m.FACTS.regions:
            planner = region_country(provider, r.code)
            if planner and r.country and m.FACTS.kind != "marketplace":
                assert planner == r.country, (provider, r.code)


def test_every_per_provider_table_covers_every_provider() -> None:
    every = set(PROVIDERS)
    assert set(managed_kubernetes()) == {p for p, m in REGISTRY.items() if m.FACTS.kubernetes}
    assert {"aws", "azure", "gcp", "alibaba", "tencent", "huawei", "volcengine"} <= set(managed_kubernetes())
    for p in every:  # each stated spot default is the module's own clause
        assert facts(p).spot.rate_note in spot_default(p).source
    assert {r["provider"] for r in read_table("billing.csv")} == every
    assert {r["provider"] for r in read_table("licences.csv")} >= every


def test_instance_tables_name_only_hardware_gpus() -> None:
    from gpuplan.catalog.providers import alibaba, aws, azure, gcp

    ids = {g.id for g in all_gpus()}
    tables = [
        aws.INSTANCES,
        azure.INSTANCES,
        alibaba.INSTANCES,
        {k: m.facts for k, m in gcp.MACHINES.items()},
    ]
    for table in tables:
        for name, f in table.items():
            assert f.gpu in ids, name
            assert f.network_kind in (None, "EFA", "InfiniBand", "RoCE", "TCP"), name
            assert f.source.startswith(("AWS", "Azure", "Google", "Alibaba")), name


def test_unknown_provider_suggests_the_close_one() -> None:
    with pytest.raises(NotFoundError, match="did you mean 'runpod'"):
        module("runpd")
    # a short code is near one typo away or written short, where difflib's ratio of three letters is not
    for typed, meant in (("gpc", "gcp"), ("awz", "aws"), ("amz", "aws"), ("oic", "oci")):
        with pytest.raises(NotFoundError, match=f"did you mean '{meant}'"):
            module(typed)


@pytest.mark.parametrize("name", ["autodl", "featurize", "matpool", "gpushare"])
def test_a_marketplace_gpuplan_does_not_know_is_not_taken_for_another_company(name: str) -> None:
    # AutoDL shares half its letters with RunPod (difflib ratio 0.5): "did you mean 'runpod'" invited
    # filing a Chinese marketplace's quote under an American one.
    with pytest.raises(NotFoundError) as e:
        module(name)
    assert "did you mean" not in str(e.value) and not e.value.suggestions, str(e.value)


def test_vast_regions_are_every_iso_country() -> None:
    assert {r.code for r in facts("vast").regions} == {c.alpha_2 for c in pycountry.countries}


def test_gcp_spot_vms_are_not_said_to_stop_after_a_day() -> None:
    # the 24-hour limit is the older preemptible VMs'; Spot VMs have no maximum runtime (Google Cloud,
    # "Create and use preemptible VMs")
    spot = facts("gcp").spot
    assert spot.max_runtime_h is None
    assert "24 h" not in spot.rate_note and "no maximum runtime" in spot.rate_note
    assert "no maximum runtime" in spot_default("gcp").source
