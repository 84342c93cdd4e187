"""What ``gpuplan plan`` says of a provider the user named that has no offer at all in the countries
asked for: that the catalog lacks it there, where its offers are, and the command that prices its
regions there where gpuplan can read its price list. "Its 1,913 candidates were left out (1,881
country …)" had read as if the country filter, not the catalog, had taken the provider away."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpuplan.catalog.providers import REGISTRY
from gpuplan.i18n import _, format_number, ngettext
from gpuplan.i18n.phrases import item_list

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["no_offer_in_countries"]


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
