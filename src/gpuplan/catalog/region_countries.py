"""The country of a provider region, where the catalog's provider facts do not carry it: the
planner's countries constraint and ``gpuplan offers --countries`` read it from here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpuplan.catalog import providers
from gpuplan.errors import GpuplanError, InputError
from gpuplan.i18n import N_

if TYPE_CHECKING:
    from gpuplan.catalog.store import Store

__all__ = ["region_country"]


# Exact region names whose country a prefix rule would get wrong, from each provider's region list.
_EXACT: dict[str, str] = {
    # AWS
    "eu-west-1": "IE",
    "eu-west-2": "GB",
    "eu-west-3": "FR",
    "eu-central-1": "DE",
    "eu-central-2": "CH",
    "eu-north-1": "SE",
    "eu-south-1": "IT",
    "eu-south-2": "ES",
    "ap-northeast-1": "JP",
    "ap-northeast-2": "KR",
    "ap-northeast-3": "JP",
    "ap-southeast-1": "SG",
    "ap-southeast-2": "AU",
    "ap-southeast-3": "ID",
    "ap-southeast-4": "AU",
    "ap-south-1": "IN",
    "ap-south-2": "IN",
    "ap-east-1": "HK",
    "sa-east-1": "BR",
    "me-south-1": "BH",
    "me-central-1": "AE",
    "af-south-1": "ZA",
    "il-central-1": "IL",
    "ca-central-1": "CA",
    "ca-west-1": "CA",
    # Azure
    "northeurope": "IE",
    "westeurope": "NL",
    "uksouth": "GB",
    "ukwest": "GB",
    "francecentral": "FR",
    "germanywestcentral": "DE",
    "swedencentral": "SE",
    "switzerlandnorth": "CH",
    "norwayeast": "NO",
    "japaneast": "JP",
    "japanwest": "JP",
    "koreacentral": "KR",
    "southeastasia": "SG",
    "eastasia": "HK",
    "australiaeast": "AU",
    "centralindia": "IN",
    "southindia": "IN",
    "canadacentral": "CA",
    "brazilsouth": "BR",
    "uaenorth": "AE",
    "qatarcentral": "QA",
    "polandcentral": "PL",
    "italynorth": "IT",
    # GCP
    "europe-west1": "BE",
    "europe-west2": "GB",
    "europe-west3": "DE",
    "europe-west4": "NL",
    "europe-west6": "CH",
    "europe-west8": "IT",
    "europe-west9": "FR",
    "europe-north1": "FI",
    "europe-central2": "PL",
    "asia-east1": "TW",
    "asia-east2": "HK",
    "asia-northeast1": "JP",
    "asia-northeast2": "JP",
    "asia-northeast3": "KR",
    "asia-southeast1": "SG",
    "asia-southeast2": "ID",
    "asia-south1": "IN",
    "me-west1": "IL",
    # Alibaba / Tencent / Huawei / Volcano Engine
    "cn-hongkong": "HK",
    "ap-hongkong": "HK",
    "ap-singapore": "SG",
    "ap-tokyo": "JP",
    "ap-seoul": "KR",
    "ap-bangkok": "TH",
    "ap-mumbai": "IN",
    "ap-jakarta": "ID",
    "na-siliconvalley": "US",
    "na-ashburn": "US",
    "eu-frankfurt": "DE",
    "sa-saopaulo": "BR",
    "ap-southeast-5": "ID",
    "ap-southeast-6": "PH",
    "ap-southeast-7": "TH",
    "us-west-1": "US",
    "us-east-1": "US",
}

# Prefix rules, tried in order after the exact table (lower-case region names).
_PREFIXES: tuple[tuple[str, str], ...] = (
    ("us-", "US"),
    ("us", "US"),
    ("eastus", "US"),
    ("westus", "US"),
    ("centralus", "US"),
    ("northcentralus", "US"),
    ("southcentralus", "US"),
    ("westcentralus", "US"),
    ("northamerica-northeast", "CA"),
    ("southamerica-east", "BR"),
    ("australia-", "AU"),
    ("cn-", "CN"),
    ("ap-beijing", "CN"),
    ("ap-shanghai", "CN"),
    ("ap-guangzhou", "CN"),
    ("ap-chengdu", "CN"),
    ("ap-chongqing", "CN"),
    ("ap-nanjing", "CN"),
)

_PROVIDER_SPECIFIC: dict[tuple[str, str], str] = {
    # Same name, other country than AWS's region of that name.
    ("huawei", "ap-southeast-1"): "HK",
    ("huawei", "ap-southeast-2"): "TH",
    ("huawei", "ap-southeast-3"): "SG",
    ("volcengine", "ap-southeast-1"): "MY",
    ("alibaba", "ap-southeast-3"): "MY",
    ("alibaba", "ap-northeast-1"): "JP",
    ("alibaba", "eu-central-1"): "DE",
    ("alibaba", "eu-west-1"): "GB",
}


def region_country(provider: str, region: str) -> str:
    """ISO 3166 alpha-2 country of a provider region, or "" when not known.

    e.g. ("aws", "us-east-1") -> "US"; ("alibaba", "cn-shanghai") -> "CN"; ("huawei",
    "ap-southeast-1") -> "HK" (Huawei's ap-southeast-1 is Hong Kong, AWS's is Singapore).
    """
    r = region.strip().lower()
    p = provider.strip().lower()
    m = providers.REGISTRY.get(p)
    found = m.FACTS.region(region.strip()) if m is not None else None
    if found is not None and found.country:
        return found.country
    if m is not None and m.FACTS.declared:
        return ""  # a marketplace's "cn-hangzhou" is a name it chose: its country only from --country
    if (p, r) in _PROVIDER_SPECIFIC:
        return _PROVIDER_SPECIFIC[(p, r)]
    if r in _EXACT:
        return _EXACT[r]
    for prefix, country in _PREFIXES:
        if r.startswith(prefix):
            return country
    return ""


def refuse_country_as_region(region: str, store: Store) -> None:
    """A region written as a country ("singapore", "Germany", "中国", "EU"): refused with the regions
    in it that have offers and the ``countries`` filter, where "did you mean" had offered the
    nearest spellings ("singapore" → "cn-qingdao"). Returns where ``region`` names no country."""
    from gpuplan.catalog.providers import PROVIDERS
    from gpuplan.i18n.countries import country_codes

    try:
        codes = country_codes(region)
    except GpuplanError:
        return
    found = sorted({f"{p}/{r}" for p in PROVIDERS for r in store.regions(p) if region_country(p, r) in codes})
    group = len(codes) > 1
    code = region.strip() if group else codes[0]
    if not found:
        none_in_them = N_(
            "{region!r} names countries, not a region, and no region in them has offers in the catalog"
        )
        none_in_it = N_(
            "{region!r} names a country, not a region, and no region in it has offers in the catalog"
        )
        raise InputError.worded(none_in_them if group else none_in_it, region=region)
    raise InputError.worded(
        N_(
            "{region!r} names countries, not a region: their regions with offers are {regions}; or keep "
            "every region in them with `--countries {code}` (`countries: [{code}]` in a file)"
        )
        if group
        else N_(
            "{region!r} names a country, not a region: its regions with offers are {regions}; or keep "
            "every region in it with `--countries {code}` (`countries: [{code}]` in a file)"
        ),
        region=region,
        regions=", ".join(found[:12]) + (f" (+{len(found) - 12})" if len(found) > 12 else ""),
        code=code,
    )
