"""The interruption bands the catalog's sources give a spot price, and which of them is costed: the
worst where they disagree. Read by the planner (``plan/spot.py``, which turns a band into a rate)
and by ``offers``, which shows the band the planner costs; kept light (no pydantic, no numpy), as
the offers listing starts without either."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

__all__ = [
    "OTHER_BANDS_KEY",
    "PUBLISHED_BAND_MAX",
    "band_share",
    "band_source",
    "offer_band",
    "offer_bands",
    "read_bands",
]

#: The upper bound of each closed band, in % a month, as AWS's Spot Instance Advisor feed publishes
#: it (its ``ranges``, each with a ``max``: AWS, "Spot Instance Advisor" data feed,
#: https://spot-bid-advisor.s3.amazonaws.com/spot-advisor-data.json, copy of 2025-06-28 in
#: github.com/alexei-led/spotinfo internal/spot/data/spot-advisor-data.json @5bdc33c). The feed's
#: bound is above the label's ('5-10%' has max 11), so the label's figure would cost the band below
#: what its publisher allows. A label the feed does not list is costed at its own largest figure.
#: '>20%' (max 100) is open: :func:`band_rate_per_hour` costs it as an unknown rate.
PUBLISHED_BAND_MAX = {"<5%": 5.0, "5-10%": 11.0, "10-15%": 16.0, "15-20%": 22.0}


def band_share(band: str) -> tuple[bool, float] | None:
    """A monthly band's share of instances interrupted, as a fraction: (False, its upper bound as
    AWS's feed publishes it, :data:`PUBLISHED_BAND_MAX`, else the label's largest figure) for a
    closed band; (True, its lower edge) for an open one (">20%"); None when unreadable."""
    text = band.strip().replace(" ", "")
    numbers = [float(n) for n in re.findall(r"\d+(?:\.\d+)?", text)]
    if not numbers:
        return None
    if text.startswith(">") or text.endswith("+%") or text.endswith("+"):
        return True, min(numbers[0], 99.0) / 100.0
    return False, min(PUBLISHED_BAND_MAX.get(text, max(numbers)), 99.0) / 100.0


def band_source(term: Mapping[str, Any] | None, price_source: str | None, as_of: str | None) -> str:
    """Where an offer's interruption band comes from, dated: the source its term names
    (``interruption_band_source``; the shipped snapshot's bands are instances.vantage.sh's
    ``pct_interrupt``) with ``interruption_band_as_of``, else the price's own source and date (a
    ``catalog refresh`` reads the band with the price, from AWS's Spot Instance Advisor)."""
    t = term or {}
    named, day = t.get("interruption_band_source"), t.get("interruption_band_as_of")
    if isinstance(named, str) and named:
        return named if not day or str(day) in named else f"{named}, {day}"
    if price_source:
        return price_source if not as_of or as_of in price_source else f"{price_source}, {as_of}"
    return ""


#: A spot price's term key listing the bands other sources give for the same instance type and
#: region, where they differ from the row's own: ``[{"band", "source", "as_of"}]`` (the shipped
#: snapshot writes AWS's Spot Instance Advisor feed's band beside instances.vantage.sh's).
OTHER_BANDS_KEY = "other_interruption_bands"

#: Joins a band's source to the other bands in one string (a table column, ``plan.spot.spot_rates``).
_OTHER_SEP, _PAIR_SEP = "\x1d", "\x1e"


def _band_severity(band: str) -> float:
    """How bad a band is, in the order of the rate the planner costs it at
    (``plan.spot.band_rate_per_hour``): an open band (an unknown rate, one interruption per 24
    instance-hours) above every closed one, closed ones by their upper bound; −1 when unreadable."""
    share = band_share(band)
    if share is None:
        return -1.0
    open_ended, p = share
    return 2.0 if open_ended else p


def offer_band(
    band: str | None, term: Mapping[str, Any] | None, price_source: str | None, as_of: str | None
) -> tuple[str, str]:
    """The band an offer's spot price is costed at and where it comes from (a string for the offers
    table's ``interruption_band_source``, read back by ``plan.spot.spot_rates``): the worst of the row's
    own band and those the term says other sources give (:data:`OTHER_BANDS_KEY`). Unknown is never
    the best case: where two sources disagree (instances.vantage.sh's 2025-11-30 compilation says
    '5-10%' of us-east-2 g6e.xlarge, AWS's advisor feed of 2025-06-28 '>20%'), the worse is costed
    and both are named. ("", "") when the row has no band."""
    if not band:
        return "", ""
    own = band_source(term, price_source, as_of)
    listed = (term or {}).get(OTHER_BANDS_KEY) or []
    others = []
    for item in listed if isinstance(listed, list) else []:
        if isinstance(item, Mapping) and isinstance(item.get("band"), str) and item["band"] != band:
            src = str(item.get("source") or "")
            day = str(item.get("as_of") or "")
            others.append((item["band"], src if not day or day in src else f"{src}, {day}"))
    if not others:
        return band, own
    every = [(band, own), *others]
    worst = max(every, key=lambda x: _band_severity(x[0]))  # the first on a tie: the row's own
    rest = [x for x in every if x is not worst]
    return worst[0], _OTHER_SEP.join([worst[1], *(f"{b}{_PAIR_SEP}{src}" for b, src in rest)])


def read_bands(source: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """:func:`offer_band`'s source string read back: the costed band's own source, and (band, source)
    of each other band where the sources disagree (none where they agree)."""
    own, *rest = source.split(_OTHER_SEP)
    return own, tuple((b, src) for b, _sep, src in (r.partition(_PAIR_SEP) for r in rest))


def offer_bands(
    band: str | None, term: Mapping[str, Any] | None, price_source: str | None, as_of: str | None
) -> tuple[tuple[str, str, bool], ...]:
    """Where the catalog's sources disagree on an offer's spot band, every band as (band, source,
    costed), the costed one — the worst, :func:`offer_band` — first; () where they agree or the
    offer has none. What ``offers`` shows beside the band the plan costs."""
    chosen, source = offer_band(band, term, price_source, as_of)
    own, others = read_bands(source)
    if not chosen or not others:
        return ()
    return ((chosen, own, True), *((b, src, False) for b, src in others))
