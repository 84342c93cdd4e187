"""Countries by ISO code or by name, in English or Chinese: ``CN``, ``CHN``, ``China``, ``中国``
(and as a country's own people and its neighbours write it: ``Deutschland``, ``Allemagne``);
and a country's name in the current language.

Names come from pycountry's ISO 3166 tables and their Chinese translations (zh_CN, zh_TW, zh_HK),
plus the everyday names those tables do not hold (``South Korea``, ``韩国``, ``台湾``, ``UK``).
pycountry is imported on first use only.
"""

from __future__ import annotations

import difflib
import gettext
import unicodedata
from functools import cache

from gpuplan.errors import NotFoundError, closest
from gpuplan.i18n.messages import Language, current_language

__all__ = [
    "COUNTRY_GROUPS",
    "M49_AFRICA",
    "M49_AMERICAS",
    "M49_ASIA",
    "M49_EUROPE",
    "M49_OCEANIA",
    "CountryName",
    "country_code",
    "country_codes",
    "country_name",
    "grouped_codes",
]

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


#: The languages besides English and Chinese whose names of countries are read too (pycountry's
#: translations of ISO 3166): the EU's official languages and the most spoken others a team writes
#: its own country in (``Deutschland``, ``Allemagne``, ``ドイツ``, ``Österreich``).
_LOCAL_NAME_LANGUAGES = (
    "bg", "cs", "da", "de", "el", "es", "et", "fi", "fr", "ga", "hr", "hu", "it", "lt", "lv", "mt",
    "nl", "pl", "pt", "pt_BR", "ro", "sk", "sl", "sv", "nb_NO", "ar", "he", "hi", "id", "ja", "ko",
    "ms", "ru", "th", "tr", "uk", "vi",
)  # fmt: skip


@cache
def _local_names() -> dict[str, str]:
    """Countries' names in :data:`_LOCAL_NAME_LANGUAGES` -> alpha-2 code, read only where the English
    and Chinese ones (:func:`_names`) hold no such name, and only names that mean one country in every
    one of those languages. Not offered by "did you mean" (a typo is pointed to the English name)."""
    import pycountry

    seen: dict[str, set[str]] = {}
    for lang in _LOCAL_NAME_LANGUAGES:
        t = gettext.translation("iso3166-1", pycountry.LOCALES_DIR, languages=[lang], fallback=True)
        for c in pycountry.countries:
            for attr in ("name", "common_name", "official_name"):
                value = getattr(c, attr, None)
                if value:
                    seen.setdefault(_key(t.gettext(value)), set()).add(c.alpha_2)
    known = _names()
    return {k: next(iter(codes)) for k, codes in seen.items() if len(codes) == 1 and k not in known}


#: The European Union's 27 member states since 2020-02-01 (the United Kingdom's withdrawal), ISO 3166
#: alpha-2 (Greece is GR): European Union, "EU countries",
#: https://european-union.europa.eu/principles-countries-history/eu-countries_en. A team whose data
#: must stay in the EU (GDPR) names them as one, not twelve codes of which one may be forgotten.
EU_MEMBERS = (
    "AT", "BE", "BG", "HR", "CY", "CZ", "DK", "EE", "FI", "FR", "DE", "GR", "HU", "IE",
    "IT", "LV", "LT", "LU", "MT", "NL", "PL", "PT", "RO", "SK", "SI", "ES", "SE",
)  # fmt: skip

#: The United Nations Statistics Division's geographic regions ("Standard country or area codes for
#: statistical use", M49, https://unstats.un.org/unsd/methodology/m49/), their members as ISO 3166
#: alpha-2 codes, listed by M49 sub-region. M49 lists no region for Antarctica (AQ) and no entry of
#: its own for Taiwan (TW), which lies in its Eastern Asia: TW is read as in Asia. Cyprus is in
#: M49's Western Asia and in the EU; Europe is the continent (the UK, Switzerland, Norway, Russia
#: and Ukraine among its members), not the EU. A team whose data must stay in Asia (``--countries
#: Asia``) names them as one, not forty-nine codes.
M49_AFRICA = (
    "DZ", "EG", "LY", "MA", "SD", "TN", "EH",  # Northern Africa
    "IO", "BI", "KM", "DJ", "ER", "ET", "TF", "KE", "MG", "MW", "MU", "YT", "MZ", "RE", "RW", "SC",
    "SO", "SS", "UG", "TZ", "ZM", "ZW",  # Eastern Africa
    "AO", "CM", "CF", "TD", "CG", "CD", "GQ", "GA", "ST",  # Middle Africa
    "BW", "SZ", "LS", "NA", "ZA",  # Southern Africa
    "BJ", "BF", "CV", "CI", "GM", "GH", "GN", "GW", "LR", "ML", "MR", "NE", "NG", "SH", "SN", "SL",
    "TG",  # Western Africa
)  # fmt: skip
M49_AMERICAS = (
    "AI", "AG", "AW", "BS", "BB", "BQ", "VG", "KY", "CU", "CW", "DM", "DO", "GD", "GP", "HT", "JM",
    "MQ", "MS", "PR", "BL", "KN", "LC", "MF", "VC", "SX", "TT", "TC", "VI",  # Caribbean
    "BZ", "CR", "SV", "GT", "HN", "MX", "NI", "PA",  # Central America
    "AR", "BO", "BV", "BR", "CL", "CO", "EC", "FK", "GF", "GY", "PY", "PE", "GS", "SR", "UY",
    "VE",  # South America
    "BM", "CA", "GL", "PM", "US",  # Northern America
)  # fmt: skip
M49_ASIA = (
    "KZ", "KG", "TJ", "TM", "UZ",  # Central Asia
    "CN", "HK", "MO", "KP", "JP", "MN", "KR", "TW",  # Eastern Asia (TW: see above)
    "BN", "KH", "ID", "LA", "MY", "MM", "PH", "SG", "TH", "TL", "VN",  # South-eastern Asia
    "AF", "BD", "BT", "IN", "IR", "MV", "NP", "PK", "LK",  # Southern Asia
    "AM", "AZ", "BH", "CY", "GE", "IQ", "IL", "JO", "KW", "LB", "OM", "QA", "SA", "PS", "SY", "TR",
    "AE", "YE",  # Western Asia
)  # fmt: skip
M49_EUROPE = (
    "BY", "BG", "CZ", "HU", "PL", "MD", "RO", "RU", "SK", "UA",  # Eastern Europe
    "AX", "DK", "EE", "FO", "FI", "GG", "IS", "IE", "IM", "JE", "LV", "LT", "NO", "SJ", "SE",
    "GB",  # Northern Europe
    "AL", "AD", "BA", "HR", "GI", "GR", "VA", "IT", "MT", "ME", "MK", "PT", "SM", "RS", "SI",
    "ES",  # Southern Europe
    "AT", "BE", "FR", "DE", "LI", "LU", "MC", "NL", "CH",  # Western Europe
)  # fmt: skip
M49_OCEANIA = (
    "AU", "CX", "CC", "HM", "NZ", "NF",  # Australia and New Zealand
    "FJ", "NC", "PG", "SB", "VU",  # Melanesia
    "GU", "KI", "MH", "FM", "NR", "MP", "PW", "UM",  # Micronesia
    "AS", "CK", "PF", "NU", "PN", "WS", "TK", "TO", "TV", "WF",  # Polynesia
)  # fmt: skip

#: The names of a group of countries, as "did you mean …" offers them: its members. The first name
#: of each group is the one a line names it by (:func:`grouped_codes`).
_GROUP_NAMES = {
    "EU": EU_MEMBERS,
    "European Union": EU_MEMBERS,
    "欧盟": EU_MEMBERS,
    "歐盟": EU_MEMBERS,
    "Asia": M49_ASIA,
    "亚洲": M49_ASIA,
    "亞洲": M49_ASIA,
    "Europe": M49_EUROPE,
    "欧洲": M49_EUROPE,
    "歐洲": M49_EUROPE,
    "Africa": M49_AFRICA,
    "非洲": M49_AFRICA,
    "Americas": M49_AMERICAS,
    "The Americas": M49_AMERICAS,
    "美洲": M49_AMERICAS,
    "Oceania": M49_OCEANIA,
    "大洋洲": M49_OCEANIA,
}

#: Each group once, by the name a line gives it, largest first: where a group's members are all
#: named, its name stands for them (Europe's take in the EU's).
_GROUPS_BY_SIZE = sorted(
    {members: name for name, members in reversed(_GROUP_NAMES.items())}.items(), key=lambda g: -len(g[0])
)

#: Names of a group of countries, as a country is written (any case): its members.
COUNTRY_GROUPS = {_key(name): members for name, members in _GROUP_NAMES.items()}


def grouped_codes(codes: tuple[str, ...]) -> list[str]:
    """``codes`` as a line names them: a group's members all there are its name, where its first
    member was (``EU`` for the 27 that ``EU`` was written for, not the 27 codes; ``Asia`` for
    M49's Asia)."""
    given = set(codes)
    whole = [(set(members), name) for members, name in _GROUPS_BY_SIZE if set(members) <= given]
    out: list[str] = []
    for code in codes:
        code = next((name for members, name in whole if code in members), code)
        if code not in out:
            out.append(code)
    return out


def country_codes(text: str) -> tuple[str, ...]:
    """The ISO codes a country or a group of countries (``EU``, ``European Union``, ``欧盟``; the
    UN's regions ``Asia``, ``亚洲``, ``Europe`` …) is written for: a country's one code, a group's
    members (:data:`COUNTRY_GROUPS`).

    Raises NotFoundError for anything else, its suggestions the group names first when near
    (``EUR``, ``Asai``) or written before more (``EU27``, ``eu-west``, ``欧盟国家``):
    these are accepted here, so a user who meant the EU is pointed to it, not to Peru."""
    key = _key(text)
    group = COUNTRY_GROUPS.get(key)
    if group is not None:
        return group
    code = _names().get(key) or _local_names().get(key)
    if code is None:
        groups: dict[tuple[str, ...], str] = {}  # one name a group: "EU" and "European Union" are one
        for g in closest(text, _GROUP_NAMES):
            groups.setdefault(_GROUP_NAMES[g], g)

        # a group written before more ("EU27", "eu-west") first; the rest nearest first, a group before
        # a country as near ("Chian" is China before Oceania; "Asai" is Asia)
        def ratio(name: str) -> float:
            return difflib.SequenceMatcher(None, text.lower(), name.lower()).ratio()

        prefixed = [g for g in _GROUP_NAMES if key.startswith(_key(g))][:1]
        ranked = sorted([*groups.values(), *_nearest(text)], key=lambda name: -ratio(name))
        if ranked and ratio(ranked[0]) >= 0.8:  # one typo away ("Europ"): that first
            prefixed = []
        near = list(dict.fromkeys([*prefixed, *ranked]))[:3]
        raise NotFoundError("country", text, [*_GROUP_NAMES, *_near_names()], suggestions=near)
    return (code,)


def country_code(text: str) -> str:
    """The ISO 3166 alpha-2 code (upper case) of a country written as a code or a name.

    e.g. ``country_code("China") == country_code("中国") == country_code("cn") == "CN"``.
    Raises NotFoundError with the nearest names for anything else.
    """
    code = _names().get(_key(text)) or _local_names().get(_key(text))
    if code is None:
        raise NotFoundError("country", text, _near_names(), suggestions=_nearest(text) or None)
    return code


#: Characters written only in Traditional Chinese that country names hold (中國, 臺灣, 歐盟, 澳門).
_TRADITIONAL = frozenset("國臺灣歐門東華蘭羅亞爾馬韓蘇聯義烏")


def _nearest(text: str) -> list[str]:
    """The known names nearest to ``text`` (:func:`gpuplan.errors.closest`); to a Chinese reader the
    Simplified names first (中华 had been told '中國' or '中国', the Traditional first)."""
    near = closest(text, _near_names())
    # a name in another language one slip away ("Deutchland") is that name, where no English or
    # Chinese one is as near ("Singpore" is Singapore, not some language's "Singapor")
    local = difflib.get_close_matches(_key(text), list(_local_names()), n=1, cutoff=0.85)

    def ratio(name: str) -> float:
        return difflib.SequenceMatcher(None, _key(text), _key(name)).ratio()

    if local and (not near or ratio(local[0]) > ratio(near[0])):
        near = [local[0], *near][:3]
    if current_language() is Language.ZH:
        near.sort(key=lambda name: any(c in _TRADITIONAL for c in name))
    return near


@cache
def _near_names() -> list[str]:
    """The names "did you mean …" picks from: the longer Latin ones (two-letter codes would match
    any typo) and every Chinese one (中囯 is one stroke from 中国)."""
    return sorted(k for k in _names() if (len(k) > 3 or not k.isascii()) and k not in _ZH_OTHER_NAMES)
