"""Constraint parsing and validation: one-line errors with did-you-mean."""

from __future__ import annotations

import pytest

from gpuplan.errors import InputError
from gpuplan.plan import Constraints, Objective
from gpuplan.plan.constraints import labels_satisfy, parse_duration_h
from gpuplan.plan.region_countries import region_country


def test_unknown_names_suggest_the_closest() -> None:
    with pytest.raises(InputError, match="did you mean 'on_demand'"):
        Constraints(pricing=("ondemand",))
    with pytest.raises(InputError, match="did you mean 'cost'"):
        Objective.cast("costs")
    with pytest.raises(InputError, match="commitment"):
        Constraints(commitment="2y")
    with pytest.raises(InputError, match="deadline_h must be positive"):
        Constraints(deadline_h=0)


def test_a_gpu_link_is_checked_like_every_other_name() -> None:
    # A typo excluded every multi-GPU option without a word ("nvlinkk" is in no link's name).
    with pytest.raises(InputError, match="unknown GPU link 'nvlinkk'; did you mean 'nvlink'"):
        Constraints(interconnect="nvlinkk")
    with pytest.raises(InputError, match="'infiniband' is a network between nodes, not a GPU link"):
        Constraints(interconnect="infiniband")
    assert Constraints(interconnect="NVLink").interconnect == "nvlink"
    assert Constraints(interconnect="xgmi").interconnect == "infinity fabric"


def test_commitment_levels_gate_monthly_and_reserved() -> None:
    assert Constraints().committed_allowed == ("monthly",)
    assert Constraints(commitment="none").committed_allowed == ()
    assert Constraints(commitment="3y").committed_allowed == ("monthly", "reserved_1y", "reserved_3y")


def test_durations() -> None:
    # 2d = 48 h, 90min = 1.5 h, 1w = 168 h; a number (the API's deadline_h) is hours.
    assert [parse_duration_h(x) for x in ("2d", "90min", "1w", 12)] == [48.0, 1.5, 168.0, 12.0]
    with pytest.raises(InputError):
        parse_duration_h("soon")
    # Text that is only a number (--deadline 12) says no unit: refused, not read as hours.
    with pytest.raises(InputError, match="has no unit"):
        parse_duration_h("12")


def test_region_countries_and_compliance_labels() -> None:
    assert region_country("aws", "us-east-1") == "US"
    assert region_country("alibaba", "cn-shanghai") == "CN"
    assert region_country("huawei", "ap-southeast-1") == "HK"  # AWS's ap-southeast-1 is Singapore
    assert region_country("aws", "ap-southeast-1") == "SG"
    assert region_country("azure", "westeurope") == "NL"
    assert region_country("tencent", "ap-guangzhou") == "CN"
    assert region_country("x", "unspecified") == ""
    assert labels_satisfy(("mlps-3",), ("MLPS 2.0 level 3",))
    assert not labels_satisfy(("mlps2",), ("MLPS 2.0 level 3",))
    assert labels_satisfy(None, ("MLPS 2.0 level 3",)) and not labels_satisfy(None, ())


def test_provider_tables_cover_exactly_the_catalogs_providers() -> None:
    from gpuplan.catalog import PROVIDERS
    from gpuplan.catalog.providers import facts
    from gpuplan.plan.region_countries import managed_kubernetes
    from gpuplan.plan.spot import DEFAULT_SPOT_RATE, spot_default

    known = set(PROVIDERS)
    # Every cloud with a managed Kubernetes service declares it; of the marketplaces only Nebius
    # and Oracle Cloud have one.
    assert set(managed_kubernetes()) == {p for p in known if facts(p).kubernetes}
    assert {"aws", "azure", "gcp", "alibaba", "nebius", "oci"} <= set(managed_kubernetes())
    assert not {"lambda", "runpod", "vast", "lium"} & set(managed_kubernetes())
    assert all(spot_default(p) is not DEFAULT_SPOT_RATE for p in known)


def test_providers_are_cast_to_the_registrys_codes() -> None:
    from gpuplan.errors import UnknownChoiceError

    assert Constraints(providers=("Aliyun", "AWS")).providers == ("alibaba", "aws")
    with pytest.raises(UnknownChoiceError, match="did you mean 'azure'"):
        Constraints(providers=("azrue",))


def test_a_chinese_users_names_for_mlps_and_for_mainland_china_are_understood() -> None:
    # was: "unknown compliance label '等保三级'" though the Chinese plan text suggests it;
    # "Mainland China" got "did you mean 'mauritania' or 'finland' or 'albania'?"
    from gpuplan.i18n.countries import country_code
    from gpuplan.plan.constraints import label_key

    assert label_key("等保三级") == label_key("网络安全等级保护三级") == "mlps3"
    assert label_key("MLPS 2.0 level 3") == "mlps3"
    assert label_key("等保二级") == "mlps2"
    assert country_code("Mainland China") == country_code("中国大陆") == country_code("PRC") == "CN"
