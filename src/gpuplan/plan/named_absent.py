"""What ``gpuplan plan`` says of a provider the user named that has no offer at all in the countries
asked for: that the catalog lacks it there, where its offers are, and the command that prices its
regions there where gpuplan can read its price list. "Its 1,913 candidates were left out (1,881
country …)" had read as if the country filter, not the catalog, had taken the provider away.

And of providers named none of whose offers has a price the plan can use at all (rows without a
price, a price whose source names no region, a low-confidence one): that the catalog lacks a usable
price, counted by what each row lacks, and how to import a quote. "The country filter (CN) left none"
had blamed the countries for clouds the catalog prices nowhere.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gpuplan.catalog.providers import REGISTRY
from gpuplan.errors import Phrase
from gpuplan.i18n import N_, _, format_number, ngettext
from gpuplan.i18n.phrases import alternatives, item_list, listed
from gpuplan.i18n.places import UNSPECIFIED_REGION
from gpuplan.plan.candidates import named_in

if TYPE_CHECKING:
    from collections.abc import Sequence

    from gpuplan.plan.input_types import OfferTable

__all__ = ["no_offer_in_countries", "no_usable_price"]

#: The providers named have no offer the plan can price, anywhere in the catalog; {rows} counts
#: their rows by what each lacks first, {provider} is the first of them (the import's --provider).
_NO_USABLE_PRICE = N_(
    "no offer of {providers} in the catalog has a price this plan can use ({rows}); bring your own "
    "quotes with `gpuplan catalog import FILE --format gpuplan --provider {provider}` "
    "(examples/prices/README.md shows the file)"
)
_ROWS = {
    True: N_("{n} row: {counts}"),
    False: N_("{n} rows: {counts}"),
}
# TRANSLATORS: one count in "14 rows: unpriced 9, region not named 5"; {what} is what the rows lack
_ROW_COUNT = N_("{what} {count}")
#: What a row lacks, in the order each row is counted by (the first it lacks).
_LACKS = (
    N_("unpriced"),
    N_("region not named"),
    N_("low-confidence"),
)


def no_usable_price(
    offers: OfferTable, providers: Sequence[str], allow_low_confidence: bool
) -> Phrase | None:
    """Why none of ``providers`` can be planned on whatever the other filters say: not one of their
    offers has a price this plan uses (a price, of a pricing model, in a region the source names, of
    more than low confidence unless ``allow_low_confidence``). None where one of them has such an
    offer, or none has any row at all (the catalog lacks them: said elsewhere)."""
    mine = named_in(offers.provider, tuple(providers))
    if not mine.any():
        return None
    priced = np.isfinite(offers.price_usd) & (offers.pricing != "")
    placed = (offers.region != UNSPECIFIED_REGION) & (offers.region != "")
    trusted = np.ones(mine.shape, dtype=bool) if allow_low_confidence else offers.confidence != "low"
    if (mine & priced & placed & trusted).any():
        return None
    lacks = (mine & ~priced, mine & priced & ~placed, mine & priced & placed & ~trusted)
    counts = [
        Phrase(_ROW_COUNT, what=Phrase(what), count=format_number(int(rows.sum())))
        for what, rows in zip(_LACKS, lacks, strict=True)
        if rows.any()
    ]
    n = int(mine.sum())
    return Phrase(
        _NO_USABLE_PRICE,
        providers=alternatives(providers),
        rows=Phrase(_ROWS[n == 1], n=format_number(n), counts=listed(counts)),
        provider=providers[0],
    )


def no_offer_in_countries(
    provider: str, countries: Sequence[str], offered_in: Sequence[str], n: int, reasons: str
) -> str:
    """The note on ``provider``, none of whose ``n`` candidates (left out for ``reasons``) is in a
    region of ``countries``: ``offered_in`` the countries its candidates' regions are in (those of
    known country)."""
    said = ngettext(
        "{provider} (named in providers): no option; the catalog has no {provider} offer in the "
        "countries asked for (its regions with an offer are in: {places}); its {n} candidate was left "
        "out ({reasons})",
        "{provider} (named in providers): no option; the catalog has no {provider} offer in the "
        "countries asked for (its regions with an offer are in: {places}); its {n} candidates were "
        "left out ({reasons})",
        n,
    ).format(
        provider=provider,
        places=item_list(sorted(set(offered_in))) or _("none of known country"),
        n=format_number(n),
        reasons=reasons,
    )
    return said + _refresh_words(provider, countries)


def _refresh_words(provider: str, countries: Sequence[str]) -> str:
    """``; `gpuplan catalog refresh --provider azure` reads …`` where ``catalog refresh`` reads the
    provider's price list for every region gpuplan knows of it and some are in ``countries``; ""
    otherwise (a provider declared without a fetcher, or none of its known regions there)."""
    module = REGISTRY.get(provider.lower())
    if module is None:
        return ""
    facts = module.FACTS
    asked = {c.upper() for c in countries}
    there = [r.code for r in facts.regions if r.country is not None and r.country.upper() in asked]
    if not there or not facts.price_sources:
        return ""
    words = ngettext(
        "; `gpuplan catalog refresh --provider {code}` reads its price list ({source}) for every "
        "region of it gpuplan knows, {n} of them in the countries asked for: {regions}",
        "; `gpuplan catalog refresh --provider {code}` reads its price list ({source}) for every "
        "region of it gpuplan knows, {n} of them in the countries asked for: {regions}",
        len(there),
    ).format(code=facts.provider, source=facts.price_sources[0], n=len(there), regions=item_list(there))
    if facts.credentials:
        words += _(" (it needs {keys})").format(keys=item_list(facts.credentials))
    return words
