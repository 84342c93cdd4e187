"""Region names a user in China types that are no region code of the catalog, each refused in one
line that says what to write: an Alibaba Cloud console name (``华东1（杭州）`` is ``cn-hangzhou``), a
city written in Chinese (``成都``: answered as ``region_countries.refuse_city_as_region`` answers
``london``), and a region of AWS China or Azure China, clouds
operated apart from AWS and Azure that the catalog does not hold (``cn-north-1`` had been answered
with "did you mean 'eu-north-1'", a region in Stockholm).
"""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING

from gpuplan.errors import InputError, Phrase
from gpuplan.i18n import N_

if TYPE_CHECKING:
    from gpuplan.catalog.store import Store

__all__ = [
    "ALIBABA_CONSOLE_NAMES",
    "CHINA_CLOUD_REGIONS",
    "console_region",
    "refuse_region_alias",
    "regions_in_city",
]

#: Alibaba Cloud's console names of its mainland regions -> (region id, the city in the name), as
#: Alibaba Cloud lists them ("资源编排 ROS 服务接入点", https://help.aliyun.com/zh/ros/developer-reference/
#: api-ros-2019-09-10-endpoint, its region table: "华东1(杭州) | cn-hangzhou" …, read 2026-12-06).
ALIBABA_CONSOLE_NAMES: dict[str, tuple[str, str]] = {
    "华北1": ("cn-qingdao", "青岛"),
    "华北2": ("cn-beijing", "北京"),
    "华北3": ("cn-zhangjiakou", "张家口"),
    "华北5": ("cn-huhehaote", "呼和浩特"),
    "华北6": ("cn-wulanchabu", "乌兰察布"),
    "华东1": ("cn-hangzhou", "杭州"),
    "华东2": ("cn-shanghai", "上海"),
    "华东5": ("cn-nanjing", "南京-本地地域"),
    "华东6": ("cn-fuzhou", "福州-本地地域"),
    "华中1": ("cn-wuhan-lr", "武汉-本地地域"),
    "华南1": ("cn-shenzhen", "深圳"),
    "华南2": ("cn-heyuan", "河源"),
    "华南3": ("cn-guangzhou", "广州"),
    "西南1": ("cn-chengdu", "成都"),
}

#: Mainland cities in Chinese -> the city as the provider modules name it (``Region.city``).
_CITIES = {
    "北京": "Beijing",
    "上海": "Shanghai",
    "广州": "Guangzhou",
    "深圳": "Shenzhen",
    "杭州": "Hangzhou",
    "南京": "Nanjing",
    "成都": "Chengdu",
    "重庆": "Chongqing",
    "青岛": "Qingdao",
    "张家口": "Zhangjiakou",
    "乌兰察布": "Ulanqab",
    "呼和浩特": "Hohhot",
    "河源": "Heyuan",
    "贵阳": "Guiyang",
    "福州": "Fuzhou",
    "武汉": "Wuhan",
    "宁夏": "Ningxia",
}

#: Regions of AWS China and Azure China -> the cloud. Each is a cloud of its own, with accounts and
#: prices apart from AWS's and Azure's: "To use services in the China (Beijing) and China (Ningxia)
#: Regions, you need an account and credentials specific to each of those Regions" (Amazon Web
#: Services in China, "General Information About Amazon Web Services China",
#: https://docs.amazonaws.cn/en_us/aws/latest/userguide/general-info.html; cn-north-1 is Beijing,
#: cn-northwest-1 Ningxia: "ARNs for Amazon Web Services in China", same guide, read 2026-12-06);
#: Azure "operated by 21Vianet" names chinaeast … chinanorth3 (https://docs.azure.cn/en-us/
#: reliability/regions-list, read 2026-12-06).
CHINA_CLOUD_REGIONS: dict[str, str] = {
    "cn-north-1": N_("AWS China"),
    "cn-northwest-1": N_("AWS China"),
    "chinaeast": N_("Azure China"),
    "chinaeast2": N_("Azure China"),
    "chinaeast3": N_("Azure China"),
    "chinanorth": N_("Azure China"),
    "chinanorth2": N_("Azure China"),
    "chinanorth3": N_("Azure China"),
}

_CONSOLE = re.compile(r"(?:阿里云)?(华北|华东|华南|华中|西南)(\d)(?:\((.*)\))?")


def _folded(text: str) -> str:
    """Full-width brackets and digits as ASCII, no spaces: ``华东 1（杭州）`` -> ``华东1(杭州)``."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text))


def console_region(name: str, provider: str) -> tuple[str, str] | None:
    """(``provider``'s region code, the city) that a console name (``华东2``, ``华东1（杭州）``) names,
    read as Alibaba Cloud names its regions: its own code for Alibaba Cloud, and for another provider
    its region in the same city (Volcengine's ``华东2`` is Shanghai too), or None where it has none
    there or ``name`` is no console name."""
    console = _CONSOLE.fullmatch(_folded(name))
    if console is None or (hit := ALIBABA_CONSOLE_NAMES.get(console[1] + console[2])) is None:
        return None
    code, city = hit
    if provider == "alibaba":
        return code, city
    if console[3] in _CITIES:  # the city the name gives in brackets: the provider's own console's
        city = console[3]
    in_city = regions_in_city(city.split("-")[0])
    return next(((r, city) for p, r, _c in in_city if p == provider), None)


def regions_in_city(name: str) -> list[tuple[str, str, str]]:
    """(provider, region, country) of each region of the registered providers in the city ``name``
    names, in English (``hangzhou``) or in Chinese (``杭州``, ``杭州市``); none where it is no such city."""
    from gpuplan.catalog.region_countries import city_regions

    return city_regions(_CITIES.get(_folded(name).removesuffix("市"), name))


def refuse_region_alias(region: str, store: Store) -> None:
    """Refuse ``region`` with what to write where it is an Alibaba Cloud console name, a city, or a
    region of AWS China or Azure China; return where it is none of them."""
    cloud = CHINA_CLOUD_REGIONS.get(region.strip().lower())
    if cloud is not None:
        raise InputError.worded(
            N_(
                "region {region!r} is {cloud}'s: AWS China and Azure China (operated by 21Vianet) are "
                "clouds run apart from AWS and Azure, with their own accounts and prices, and the "
                "catalog holds neither; `--countries CN` keeps the mainland China regions it holds"
            ),
            region=region,
            cloud=Phrase(cloud),
        )
    text = _folded(region)
    console = _CONSOLE.fullmatch(text)
    if console is not None and (hit := ALIBABA_CONSOLE_NAMES.get(console[1] + console[2])) is not None:
        code, named = hit
        raise InputError.worded(
            N_("{region!r} is Alibaba Cloud's console name of {console}; did you mean {code!r}?"),
            region=region,
            console=f"{console[1]}{console[2]}（{named}）",
            code=code,
        )
    city = _CITIES.get(text.removesuffix("市"))
    if city is not None:
        from gpuplan.catalog.region_countries import refuse_city_as_region

        # a city in Chinese: its regions, as for a city in English ("london")
        refuse_city_as_region(region, store, city=city)
