"""What ``gpuplan plan`` says of a provider the user named that has no offer at all in the countries
asked for: that the catalog lacks it there, where its offers are, and the command that prices its
regions there where gpuplan can read its price list. "Its 1,913 candidates were left out (1,881
country …)" had read as if the country filter, not the catalog, had taken the provider away.

And of providers named none of whose offers has a price the plan can use at all (rows without a
price, a price whose source names no region, a low-confidence one): that the catalog lacks a usable
price, counted by what each row lacks, and how to import a quote. "The country filter (CN) left none"
had blamed the countries for clouds the catalog prices nowhere.

And, where countries were asked for and no provider was named, of the large clouds (the registry's
hyperscalers and mainland-China clouds) the catalog holds offers of the GPUs considered from but
none in those countries: which, and where their offers are. Azure had gone unmentioned under
``--countries EU`` (its offers are all in the US), though named it was said of.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gpuplan.catalog.providers import REGISTRY
from gpuplan.errors import Phrase
from gpuplan.i18n import N_, _, format_number, ngettext
from gpuplan.i18n.countries import grouped_codes
from gpuplan.i18n.phrases import alternatives, item_list, listed
from gpuplan.i18n.places import UNSPECIFIED_REGION
from gpuplan.plan.candidates import REASONS, named_in
from gpuplan.plan.constraints import Reason

if TYPE_CHECKING:
    from collections.abc import Sequence

    from gpuplan.plan.candidates import Candidates
    from gpuplan.plan.input_types import OfferTable

__all__ = ["clouds_absent_note", "no_offer_in_countries", "no_usable_price"]

#: The registry's kinds of provider the note on clouds absent from the countries names: the large
#: clouds a reader expects to see weighed; marketplaces, dozens of them, would make it a list.
_LARGE_CLOUDS = ("hyperscaler", "china_cloud")
#: Countries named for one cloud before "and N more" (AWS's offers are in some twenty).
_COUNTRIES_SHOWN = 6
#: Candidates left out before the country filter: of a GPU, a provider or a region not asked for.
_BEFORE_COUNTRY = [REASONS.index(r) for r in (Reason.PROVIDER, Reason.GPU, Reason.REGION)]

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


def clouds_absent_note(cands: Candidates, offers: OfferTable, countries: Sequence[str]) -> str:
    """One note on the large clouds (:data:`_LARGE_CLOUDS`, read from the provider registry) with
    candidates of the GPUs considered but none in ``countries``: each with the countries its offers
    are in. "" where there are none (or no countries were asked for)."""
    if not countries:
        return ""
    considered = ~np.isin(cands.reason, _BEFORE_COUNTRY)
    outside = cands.reason == REASONS.index(Reason.COUNTRY)
    provider = np.char.lower(offers.provider[cands.offer].astype(str))
    said = []
    for code, module in REGISTRY.items():
        if module.FACTS.kind not in _LARGE_CLOUDS:
            continue
        mine = considered & (provider == code)
        if not mine.any() or (mine & ~outside).any():
            continue  # none of the GPUs considered anywhere, or some in the countries asked for
        where = sorted({str(c) for c in offers.country[cands.offer[mine]] if c})
        if where:
            said.append(
                _("{provider} (its offers are in {countries})").format(provider=code, countries=_few(where))
            )
    if not said:
        return ""
    return _("no offer of the GPUs considered in the countries asked for ({asked}): {providers}").format(
        asked=item_list(grouped_codes(tuple(countries))), providers=_("; ").join(said)
    )


def _few(names: Sequence[str]) -> str:
    """``names`` listed, the first :data:`_COUNTRIES_SHOWN` named and the rest counted."""
    shown = item_list(names[:_COUNTRIES_SHOWN])
    more = len(names) - _COUNTRIES_SHOWN
    return shown if more <= 0 else _("{names} and {n} more").format(names=shown, n=more)
