"""The country of a provider region, where the catalog's provider facts do not carry it: the
planner's countries constraint and ``gpuplan offers --countries`` read it from here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from contextlib import suppress
from typing import TYPE_CHECKING

from gpuplan.catalog import providers
from gpuplan.errors import GpuplanError, InputError
from gpuplan.i18n import N_
from gpuplan.i18n.phrases import item_list, listed
from gpuplan.i18n.places import UNSPECIFIED_REGION, city_of_chinese_name

if TYPE_CHECKING:
    from gpuplan.catalog.store import Store

__all__ = [
    "city_regions",
    "country_codes_of",
    "country_continent",
    "name_country",
    "provider_regions",
    "refuse_city_as_country",
    "refuse_city_as_region",
    "refuse_unheld_region",
    "region_country",
    "region_suggestions",
]


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
    return name_country(r)


#: The continent of each country a catalog region is in (AF, AS, EU, NA, OC, SA; the Middle East is
#: Asia's), for the bound of an unknown price: a country not here is on no continent known.
_CONTINENTS: dict[str, tuple[str, ...]] = {
    "AF": ("ZA", "MA", "EG", "NG", "KE"),
    "AS": (
        "CN", "HK", "TW", "JP", "KR", "SG", "IN", "ID", "MY", "TH", "VN", "PH",
        "IL", "AE", "SA", "QA", "BH", "TR",
    ),
    "EU": (
        "IE", "GB", "FR", "DE", "CH", "SE", "IT", "ES", "FI", "NO", "NL", "PL", "BE", "DK", "CZ",
        "IS", "RO", "BG", "HR", "HU", "SI", "GR", "PT", "RU", "UA", "AT", "LU", "EE", "LV", "LT",
    ),
    "NA": ("US", "CA", "MX"),
    "OC": ("AU", "NZ"),
    "SA": ("BR", "CL", "AR", "CO"),
}  # fmt: skip
_CONTINENT_OF = {country: continent for continent, codes in _CONTINENTS.items() for country in codes}


def country_continent(country: str) -> str:
    """The continent (AF, AS, EU, NA, OC, SA) of an ISO alpha-2 country, or "" when not known."""
    return _CONTINENT_OF.get(country.strip().upper(), "")


def name_country(region: str) -> str:
    """The country a region's name suggests by its prefix alone, or "": ``cn-hongkong`` reads as
    mainland China (CN) though it is Hong Kong, which a reader of the name alone would not know."""
    r = region.strip().lower()
    return next((country for prefix, country in _PREFIXES if r.startswith(prefix)), "")


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
        regions=item_list(found[:12]) + (f" (+{len(found) - 12})" if len(found) > 12 else ""),
        code=code,
    )


def provider_regions(store: Store, provider: str) -> set[str]:
    """The regions of ``provider``: those it has offers in and those its facts list (lower case)."""
    regions = {r.lower() for r in store.regions(provider)}
    with suppress(GpuplanError):  # a provider without facts of its own: its offers' regions
        regions |= {r.code.lower() for r in providers.facts(provider).regions}
    return regions


def region_suggestions(known: Iterable[str]) -> list[str]:
    """The regions "did you mean" may offer for a mistyped one: not a marketplace's bare country
    code ("NO", Norway, had been offered for "london"), which a misspelt region name is not."""
    return [k for k in known if not (len(k) == 2 and k.isalpha() and k.isupper())]


def _place_key(text: str) -> str:
    return re.sub(r"[\s_-]+", " ", text.strip().casefold())


def city_regions(name: str) -> list[tuple[str, str, str]]:
    """(provider, region, country) of each region of the registered providers whose city, as the
    provider's facts name it, is ``name`` (any case; spaces, hyphens and underscores alike), or
    that ``name`` names in Chinese (``深圳``)."""
    key = _place_key(city_of_chinese_name(name) or name)
    found = []
    for p in providers.PROVIDERS:
        with suppress(GpuplanError):
            found += [
                (p, r.code, r.country or "")
                for r in providers.facts(p).regions
                if r.city and _place_key(r.city) == key
            ]
    return found


def refuse_city_as_region(region: str, store: Store, *, city: str | None = None) -> None:
    """A region written as a city ("london"): refused with the providers' regions in it that have
    offers in the catalog, those that have none, and the ``countries`` filter, where "did you mean"
    had offered the nearest spellings. Returns where ``region`` is no city of a known region.
    ``city``: the city as the providers' facts name it, where ``region`` names it otherwise ("成都")."""
    found = city_regions(city or region)
    if not found:
        return
    held = [f"{p}/{r}" for p, r, _c in found if r in store.regions(p)]
    unheld = [f"{p}/{r}" for p, r, _c in found if r not in store.regions(p)]
    code = next((c for _p, _r, c in found if c), "")
    if held and unheld:
        raise InputError.worded(
            N_(
                "{region!r} is a city, not a region: the catalog's regions there are {held} (none of "
                "its offers is in {unheld}); name one, or keep every region of its country with "
                "`--countries {code}`"
            ),
            region=region,
            held=listed(held),
            unheld=listed(unheld),
            code=code,
        )
    if held:
        raise InputError.worded(
            N_(
                "{region!r} is a city, not a region: the catalog's regions there are {held}; name one, or "
                "keep every region of its country with `--countries {code}`"
            ),
            region=region,
            held=listed(held),
            code=code,
        )
    raise InputError.worded(
        N_(
            "{region!r} is a city, not a region, and the catalog has no offer there (its regions: "
            "{unheld}); `--countries {code}` keeps every region of its country"
        ),
        region=region,
        unheld=listed(unheld),
        code=code,
    )


def refuse_city_as_country(text: str, option: str = "--countries") -> None:
    """A country written as a city ("london"): refused with the country it is in, written as
    ``option`` takes it (:func:`_written`),
    where "did you mean" had offered the nearest country names ("congo"). Returns where ``text`` is
    no city of a known region."""
    codes = sorted({c for _p, _r, c in city_regions(text) if c})
    if codes:
        raise InputError.worded(
            N_("{name!r} is a city, not a country: it is in {code}; write that (`{written}`)"),
            name=text,
            code=codes[0],
            written=_written(option, codes[0]),
        )


def _written(option: str, code: str) -> str:
    """``code`` as ``option`` takes it: an option's ``--countries CN`` (or a field written with its
    colon, ``users_in: GB``), a query parameter's ``countries=CN`` (``option`` ending in ``=``), a
    file's field ``constraints.countries: [CN]``."""
    if option.startswith("-") or option.endswith(":"):
        return f"{option} {code}"
    return f"{option}{code}" if option.endswith("=") else f"{option}: [{code}]"


def refuse_unheld_region(region: str, store: Store) -> None:
    """A region of a registered provider that the catalog holds no offer in (Azure's "uksouth": the
    shipped Azure prices are of its US regions): refused saying so, with the provider's regions
    the catalog does hold and the refresh that fetches it, where it had read as a region that does
    not exist. Returns where no provider lists ``region``."""
    low = region.lower()
    owners = [p for p in providers.PROVIDERS if low in provider_regions(store, p)]
    if not owners:
        return
    # the catalog's rows of no named region are not one of its regions
    held = sorted(r for r in store.regions(owners[0]) if r != UNSPECIFIED_REGION)
    if not held:
        raise InputError.worded(
            N_(
                "region {region} of {providers} has no offer in the catalog, which holds none of "
                "{provider}; `gpuplan catalog refresh --provider {provider}` fetches that provider's prices "
                "where it publishes them, or leave the region out"
            ),
            region=region,
            providers=listed(owners),
            provider=owners[0],
        )
    raise InputError.worded(
        N_(
            "region {region} of {providers} has no offer in the catalog, which holds {provider}'s in "
            "{held}; `gpuplan catalog refresh --provider {provider}` fetches that provider's prices where "
            "it publishes them, or leave the region out"
        ),
        region=region,
        providers=listed(owners),
        provider=owners[0],
        held=listed(held),
    )


def country_codes_of(text: str, option: str = "--countries") -> tuple[str, ...]:
    """:func:`gpuplan.i18n.countries.country_codes`, with a city refused as one
    (:func:`refuse_city_as_country`, pointing to ``option``) before the nearest country names are
    offered."""
    from gpuplan.errors import NotFoundError
    from gpuplan.i18n.countries import country_codes

    try:
        return country_codes(text)
    except NotFoundError:
        refuse_city_as_country(text, option)
        raise
