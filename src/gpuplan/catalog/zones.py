"""Whether an imported row's zone belongs to its provider and region.

A price file is someone else's input: a zone it names becomes an offer of its own, so 20,000
made-up zones would be 20,000 offers. Each provider whose zone naming is known has a rule, read
from the zones its own price lists use (the shipped snapshot holds them): a zone must be one of
its region's in the provider's form.

- AWS: a zone name, the region and a letter (``us-east-1a``); a Local or Wavelength Zone, the region
  and the zone's place (``us-east-1-bos-1a``, ``us-east-1-wl1-bos-wlz-1``); or a zone ID, the
  region's short form and ``az`` and a number (``use1-az1``, ``usw2-lax1-az1``), which is what
  SkyPilot's catalog and the snapshot name.
- GCP: the region, a hyphen and a letter (``us-central1-a``; an AI zone ``us-central1-ai1a``).
- Azure: ``1``, ``2`` or ``3`` (or none: Azure prices are region-wide).
- Alibaba Cloud and Volcano Engine: the region, a hyphen and a letter (``cn-hangzhou-h``,
  ``cn-beijing-a``).
- Tencent Cloud: the region, a hyphen and a number (``ap-guangzhou-3``).
- Huawei Cloud: the region and a letter (``cn-north-4a``).
- OCI: the region and ``-AD-`` and a number (``AF-CASABLANCA-1-AD-1``), in either case.

The other providers (marketplaces, smaller clouds) name their zones as they like (RunPod
``US-TX-3``, Vast.ai a state's name): their zones are accepted as written, but no region may
have more than :data:`MAX_ZONES_PER_REGION` distinct zones, counting those the catalog already
holds; a row with one more is refused. The bound holds for every provider, as a second guard.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from functools import cache

from gpuplan.catalog.model import OfferRow
from gpuplan.errors import Phrase
from gpuplan.i18n.messages import N_

__all__ = ["MAX_ZONES_PER_REGION", "ZONE_FORMS", "shipped_zone_region", "zone_problem", "zones_over_bound"]

#: Distinct zones one region of one provider may have. The most any shipped provider has is
#: RunPod's 24 data centres in its region ``US``; AWS's us-east-1 has 6 zones, about 17 Local
#: Zones and a dozen Wavelength Zones. 64 leaves room for growth, and stops a file of made-up ones.
MAX_ZONES_PER_REGION = 64

#: AWS's short forms of a region's direction, as its zone IDs write them (``ap-northeast-1`` →
#: ``apne1``, ``us-gov-west-1`` → ``usgw1``).
_AWS_DIRECTIONS = {
    "north": "n",
    "south": "s",
    "east": "e",
    "west": "w",
    "central": "c",
    "northeast": "ne",
    "northwest": "nw",
    "southeast": "se",
    "southwest": "sw",
}


def _aws_short(region: str) -> str | None:
    """The short form of an AWS region in its zone IDs (``us-east-1`` → ``use1``), or None."""
    m = re.fullmatch(r"([a-z]{2})-(gov-|iso-|isob-)?([a-z]+)-(\d+)", region)
    if m is None or m[3] not in _AWS_DIRECTIONS:
        return None
    partition = {"gov-": "g", "iso-": "i", "isob-": "ib"}.get(m[2] or "", "")
    return f"{m[1]}{partition}{_AWS_DIRECTIONS[m[3]]}{m[4]}"


def _aws(region: str, zone: str) -> bool:
    r = re.escape(region)
    if re.fullmatch(rf"{r}[a-z]", zone):  # us-east-1a
        return True
    if re.fullmatch(rf"{r}-[a-z]{{3}}-\d+[a-z]", zone):  # Local Zone us-east-1-bos-1a
        return True
    if re.fullmatch(rf"{r}-wl\d+-[a-z]{{3}}-wlz-\d+", zone):  # Wavelength us-east-1-wl1-bos-wlz-1
        return True
    short = _aws_short(region)
    # zone IDs: use1-az1; a Local Zone's usw2-lax1-az1
    return short is not None and re.fullmatch(rf"{short}(-[a-z]{{3}}\d+)?-az\d+", zone) is not None


def _form(pattern: str, *, case: bool = True) -> Callable[[str, str], bool]:
    """A rule: ``pattern`` with ``{region}`` for the region, matched whole."""

    def rule(region: str, zone: str) -> bool:
        regex = pattern.replace("{region}", re.escape(region))
        return re.fullmatch(regex, zone, 0 if case else re.IGNORECASE) is not None

    return rule


#: The providers whose zone naming is known, each with its rule (region, zone) -> belongs.
ZONE_FORMS: dict[str, Callable[[str, str], bool]] = {
    "aws": _aws,
    "gcp": _form(r"{region}-(?:[a-z]|ai\d+[a-z])"),
    "azure": lambda _region, zone: zone in {"1", "2", "3"},
    "alibaba": _form(r"{region}-[a-z]"),
    "volcengine": _form(r"{region}-[a-z]"),
    "tencent": _form(r"{region}-\d+"),
    "huawei": _form(r"{region}[a-z]"),
    "oci": _form(r"{region}-AD-\d", case=False),
}

#: A zone of the region in the provider's form, as a refusal shows it (the region's first zone).
_EXAMPLES: dict[str, Callable[[str], str]] = {
    "aws": lambda r: f"{r}a" + (f", {short}-az1" if (short := _aws_short(r)) else ""),
    "gcp": lambda r: f"{r}-a",
    "azure": lambda _r: "1, 2, 3",
    "alibaba": lambda r: f"{r}-a",
    "volcengine": lambda r: f"{r}-a",
    "tencent": lambda r: f"{r}-1",
    "huawei": lambda r: f"{r}a",
    "oci": lambda r: f"{r.upper()}-AD-1",
}

#: Characters of a refused zone a reason quotes (the file's own text; a made-up one may be long).
_SHOWN_CHARS = 40


@cache
def _shipped_zones() -> dict[tuple[str, str], str]:
    """(provider, zone in lower case) -> the region the shipped snapshot files that zone under."""
    from gpuplan.catalog.snapshot import read_columns

    return {(p, z.lower()): r for p, r, z in read_columns("offers.csv", "provider", "region", "zone") if z}


def shipped_zone_region(provider: str, name: str) -> str | None:
    """The region of ``provider`` whose zone ``name`` is, as the shipped snapshot holds its zones
    (RunPod's data centre ``EU-RO-1`` is a zone of its region ``RO``); None where it holds no such
    zone."""
    return _shipped_zones().get((provider, name.strip().lower()))


def zone_problem(provider: str, region: str, zone: str | None) -> Phrase | None:
    """Why ``zone`` cannot be a zone of ``region`` of ``provider``, or None when it can (or when
    there is none, or the provider's naming is not known)."""
    rule = ZONE_FORMS.get(provider)
    if not zone or rule is None or rule(region, zone):
        return None
    return Phrase(
        N_("zone {zone} is not a zone of {provider} region {region} (its zones read like {examples})"),
        zone=repr(zone[:_SHOWN_CHARS]),
        provider=provider,
        region=region[:_SHOWN_CHARS],
        examples=_EXAMPLES[provider](region[:_SHOWN_CHARS]),
    )


def zones_over_bound(
    rows: Sequence[OfferRow], held: Iterable[tuple[str, str, str]], bound: int = MAX_ZONES_PER_REGION
) -> dict[int, Phrase]:
    """Rows (by index) whose zone would be one more than ``bound`` distinct zones of its provider's
    region, counting the (provider, region, zone) the catalog already ``held``; in file order, the
    first zones of a region are kept."""
    zones: dict[tuple[str, str], set[str]] = {}
    for provider, region, zone in held:
        if zone:
            zones.setdefault((provider, region), set()).add(zone)
    out: dict[int, Phrase] = {}
    for i, row in enumerate(rows):
        if not row.zone:
            continue
        known = zones.setdefault((row.provider, row.region), set())
        if row.zone in known:
            continue
        if len(known) >= bound:
            out[i] = Phrase(
                N_(
                    "zone {zone} would be one more than the {bound} zones a region may have "
                    "({provider} region {region})"
                ),
                zone=repr(row.zone[:_SHOWN_CHARS]),
                bound=bound,
                provider=row.provider,
                region=row.region[:_SHOWN_CHARS],
            )
            continue
        known.add(row.zone)
    return out
