"""Where an offer is, as a user reads it: ``provider/region``.

The catalog's region ``unspecified`` is data — the price source named no region (Lambda's, vast's
and RunPod's public prices, an article's table) — and stays so in files and JSON; shown to a
person it is written in the current language.
"""

from __future__ import annotations

from gpuplan.i18n.messages import N_, Language, _, current_language

__all__ = ["UNSPECIFIED_REGION", "city_name", "place", "region_name"]

#: The catalog's region for an offer whose source names none.
UNSPECIFIED_REGION = "unspecified"
# TRANSLATORS: a region the price source does not name (the catalog's "unspecified")
_UNSPECIFIED = N_("unspecified")


#: Chinese names of the cities the catalog places regions and users' countries at (``places.csv``'s
#: ``place`` column, from GeoNames) in mainland China, Hong Kong, Macao and Taiwan: data, not
#: messages, so that a city keeps its one written name whatever the sentence around it. Only the
#: cities the catalog's regions and countries name (Ulanqab: Alibaba's cn-wulanchabu, Huawei's
#: cn-north-9).
_ZH_CITIES = {
    "Beijing": "北京",
    "Chengdu": "成都",
    "Chongqing": "重庆",
    "Guangzhou": "广州",
    "Guiyang": "贵阳",
    "Hangzhou": "杭州",
    "Heyuan": "河源",
    "Hong Kong": "香港",
    "Macau": "澳门",
    "Nanjing": "南京",
    "Qingdao": "青岛",
    "Shanghai": "上海",
    "Shenzhen": "深圳",
    "Taipei": "台北",
    "Ulanqab": "乌兰察布",
    "Zhangjiakou": "张家口",
}


def city_of_chinese_name(name: str) -> str | None:
    """The city (as GeoNames writes it) that ``name`` names in Chinese (``深圳``, ``深圳市``), or None."""
    name = name.strip().removesuffix("市")
    return next((city for city, zh in _ZH_CITIES.items() if zh == name), None)


def city_name(city: str) -> str:
    """A city of the catalog's places as shown: in Chinese output its Chinese name where
    :data:`_ZH_CITIES` has one, else as GeoNames writes it."""
    if current_language() is Language.ZH:
        return _ZH_CITIES.get(city, city)
    return city


def region_name(region: str) -> str:
    """``region`` as shown: the catalog's ``unspecified`` in the current language, others as they are."""
    return _(_UNSPECIFIED) if region == UNSPECIFIED_REGION else region


def place(provider: str, region: str) -> str:
    """``provider/region`` as shown (``lambda/unspecified``; under zh ``lambda/未注明地域``)."""
    return f"{provider}/{region_name(region)}"
