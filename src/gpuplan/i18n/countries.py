"""Countries by ISO code or by name, in English or Chinese: ``CN``, ``CHN``, ``China``, ``中国``;
and a country's name in the current language.

Names come from pycountry's ISO 3166 tables and their Chinese translations (zh_CN, zh_TW, zh_HK),
plus the everyday names those tables do not hold (``South Korea``, ``韩国``, ``台湾``, ``UK``).
pycountry is imported on first use only.
"""

from __future__ import annotations

import gettext
import unicodedata
from functools import cache

from gpuplan.errors import NotFoundError, closest
from gpuplan.i18n.messages import Language, current_language

__all__ = ["COUNTRY_GROUPS", "CountryName", "country_code", "country_codes", "country_name", "grouped_codes"]

#: The catalog of pycountry's ISO 3166 names each language of gpuplan reads them in.
_NAME_LOCALES = {Language.ZH: "zh_CN"}

#: Everyday names missing from ISO 3166's (official or Chinese-translated) names.
_COMMON = {
    "uk": "GB",
    "great britain": "GB",
    "britain": "GB",
    "england": "GB",
    "usa": "US",
    "america": "US",
    "south korea": "KR",
    "korea": "KR",
    "russia": "RU",
    "taiwan": "TW",
    "vietnam": "VN",
    "uae": "AE",
    "美国": "US",
    "英国": "GB",
    "韩国": "KR",
    "南韩": "KR",
    "台湾": "TW",
    "中国台湾": "TW",
    "臺灣": "TW",
    "香港": "HK",
    "中国香港": "HK",
    "澳门": "MO",
    "中国澳门": "MO",
    "俄罗斯": "RU",
    "阿联酋": "AE",
    "沙特": "SA",
    "沙特阿拉伯": "SA",
    "越南": "VN",
    "中國": "CN",
    "中华人民共和国": "CN",
    "mainland china": "CN",
    "chinese mainland": "CN",
    "prc": "CN",
    "中国大陆": "CN",
    "中国内地": "CN",
    "内地": "CN",
    "大陆": "CN",
}


#: The Chinese names gpuplan says for Hong Kong and Macao, one name each wherever a line names them
#: (ISO 3166's Chinese table says 香港 and 澳门, which a did-you-mean had offered beside 中国香港).
_ZH_NAMES = {"HK": "中国香港", "MO": "中国澳门"}
#: The other Chinese names of those, read as input but never offered as a name.
_ZH_OTHER_NAMES = frozenset({"香港", "澳门"})


@cache
def _translation(language: Language) -> gettext.NullTranslations:
    import pycountry

    locale = _NAME_LOCALES.get(language)
    if locale is None:
        return gettext.NullTranslations()
    return gettext.translation("iso3166-1", pycountry.LOCALES_DIR, languages=[locale], fallback=True)


def country_name(code: str) -> str:
    """The ISO 3166 name of the country with alpha-2 ``code`` in the current language
    (``country_name("DE")`` is ``Germany``, under zh ``德国``); the code itself when ISO 3166 has no
    such country."""
    name = _iso_name(code)
    if name is not None and current_language() is Language.ZH and code in _ZH_NAMES:
        return _ZH_NAMES[code]
    return code if name is None else _translation(current_language()).gettext(name)


def _iso_name(code: str) -> str | None:
    """The English ISO 3166 name of alpha-2 ``code``; None where ISO 3166 has no such country."""
    import pycountry

    found = pycountry.countries.get(alpha_2=code)
    return None if found is None else str(found.name)


class CountryName:
    """A country as a field of an error line: its ISO 3166 name in English (``str``), written in the
    user's language with the rest of the line by :func:`gpuplan.i18n.error_text.error_text`
    ("Germany", under zh "德国"), whatever language was current when the error was made."""

    __slots__ = ("code",)

    def __init__(self, code: str) -> None:
        self.code = code

    def __str__(self) -> str:
        return _iso_name(self.code) or self.code

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def translated(self) -> str:
        """Its name in the current language."""
        return country_name(self.code)


def _key(text: str) -> str:
    return unicodedata.normalize("NFKC", text).strip().casefold()


@cache
def _names() -> dict[str, str]:
    """Every known way to write a country -> its alpha-2 code."""
    import pycountry

    out: dict[str, str] = {}
    chinese = [
        gettext.translation("iso3166-1", pycountry.LOCALES_DIR, languages=[lang], fallback=True)
        for lang in ("zh_CN", "zh_TW", "zh_HK")
    ]
    for c in pycountry.countries:
        code = c.alpha_2
        for attr in ("alpha_2", "alpha_3", "name", "common_name", "official_name"):
            value = getattr(c, attr, None)
            if value:
                out.setdefault(_key(value), code)
        for t in chinese:
            out.setdefault(_key(t.gettext(c.name)), code)
    for name, code in _COMMON.items():
        out[_key(name)] = code
    return out


#: The European Union's 27 member states since 2020-02-01 (the United Kingdom's withdrawal), ISO 3166
#: alpha-2 (Greece is GR): European Union, "EU countries",
#: https://european-union.europa.eu/principles-countries-history/eu-countries_en. A team whose data
#: must stay in the EU (GDPR) names them as one, not twelve codes of which one may be forgotten.
EU_MEMBERS = (
    "AT", "BE", "BG", "HR", "CY", "CZ", "DK", "EE", "FI", "FR", "DE", "GR", "HU", "IE",
    "IT", "LV", "LT", "LU", "MT", "NL", "PL", "PT", "RO", "SK", "SI", "ES", "SE",
)  # fmt: skip

#: The names of a group of countries, as "did you mean …" offers them: its members.
_GROUP_NAMES = {"EU": EU_MEMBERS, "European Union": EU_MEMBERS, "欧盟": EU_MEMBERS, "歐盟": EU_MEMBERS}

#: Names of a group of countries, as a country is written (any case): its members.
COUNTRY_GROUPS = {_key(name): members for name, members in _GROUP_NAMES.items()}


def grouped_codes(codes: tuple[str, ...]) -> list[str]:
    """``codes`` as a line names them: a group's members all there are its name, where its first
    member was (``EU`` for the 27 that ``EU`` was written for, not the 27 codes)."""
    out: list[str] = []
    for code in codes:
        if code in EU_MEMBERS and set(EU_MEMBERS) <= set(codes):
            code = "EU"
        if code not in out:
            out.append(code)
    return out


def country_codes(text: str) -> tuple[str, ...]:
    """The ISO codes a country or a group of countries (``EU``, ``European Union``, ``欧盟``) is
    written for: a country's one code, a group's members (:data:`COUNTRY_GROUPS`).

    Raises NotFoundError for anything else, its suggestions the group names first when near
    (``EUR``, ``Europe``, ``欧洲``) or written before more (``EU27``, ``eu-west``, ``欧盟国家``):
    these are accepted here, so a user who meant the EU is pointed to it, not to Peru."""
    key = _key(text)
    group = COUNTRY_GROUPS.get(key)
    if group is not None:
        return group
    code = _names().get(key)
    if code is None:
        groups: dict[tuple[str, ...], str] = {}  # one name a group: "EU" and "European Union" are one
        for g in [g for g in _GROUP_NAMES if key.startswith(_key(g))] + closest(text, _GROUP_NAMES):
            groups.setdefault(_GROUP_NAMES[g], g)
        near = [*groups.values(), *_nearest(text)][:3]
        raise NotFoundError("country", text, [*_GROUP_NAMES, *_near_names()], suggestions=near)
    return (code,)


def country_code(text: str) -> str:
    """The ISO 3166 alpha-2 code (upper case) of a country written as a code or a name.

    e.g. ``country_code("China") == country_code("中国") == country_code("cn") == "CN"``.
    Raises NotFoundError with the nearest names for anything else.
    """
    code = _names().get(_key(text))
    if code is None:
        raise NotFoundError("country", text, _near_names(), suggestions=_nearest(text) or None)
    return code


#: Characters written only in Traditional Chinese that country names hold (中國, 臺灣, 歐盟, 澳門).
_TRADITIONAL = frozenset("國臺灣歐門東華蘭羅亞爾馬韓蘇聯義烏")


def _nearest(text: str) -> list[str]:
    """The known names nearest to ``text`` (:func:`gpuplan.errors.closest`); to a Chinese reader the
    Simplified names first (中华 had been told '中國' or '中国', the Traditional first)."""
    near = closest(text, _near_names())
    if current_language() is Language.ZH:
        near.sort(key=lambda name: any(c in _TRADITIONAL for c in name))
    return near


@cache
def _near_names() -> list[str]:
    """The names "did you mean …" picks from: the longer Latin ones (two-letter codes would match
    any typo) and every Chinese one (中囯 is one stroke from 中国)."""
    return sorted(k for k in _names() if (len(k) > 3 or not k.isascii()) and k not in _ZH_OTHER_NAMES)
