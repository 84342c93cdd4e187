"""Constraints that cannot hold together, or that name nothing the catalog knows: refused up front.

Planning a job traces its model and then scores every offer; a pricing model the commitment forbids,
a region none of the named providers has, or a compliance label the catalog has never heard of
leaves nothing to rank whatever the trace says. Each is said in one line that names the
contradiction, before the trace, instead of as exclusion counts after it.

A constraint that is known but happens to leave nothing (a compliance label no offer in the chosen
regions carries, a country no provider serves) is not a contradiction: the planner's "no option is
left" line names the filter that emptied the field.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpuplan import vocab
from gpuplan.catalog.region_countries import provider_regions
from gpuplan.catalog.wording import did_you_mean
from gpuplan.errors import InputError, NotFoundError, Phrase, closest
from gpuplan.i18n import N_
from gpuplan.i18n.phrases import either, listed
from gpuplan.plan.constraints import NO_OFFER_IN_REGION, Constraints, commitment_needed, label_key
from gpuplan.vocab import Commitment

if TYPE_CHECKING:
    from gpuplan.catalog import Store

__all__ = ["check_constraints", "check_regions"]

#: A term or the longest term a commitment accepts, in words (months as vocab counts them).
_TERM_WORDS = {0: N_("no term"), 1: N_("one month"), 12: N_("one year"), 36: N_("three years")}


def check_constraints(constraints: Constraints, store: Store) -> None:
    """Raise InputError (or NotFoundError) for constraints that contradict each other or name
    nothing in ``store``'s catalog; return quietly otherwise."""
    _check_commitment(constraints)
    check_regions(constraints, store)
    _check_compliance(constraints, store)


def _words(months: int) -> Phrase:
    return Phrase(_TERM_WORDS.get(months, N_("{months} months")), months=months)


def _check_commitment(c: Constraints) -> None:
    """Every pricing model asked for binds longer than the commitment accepts: nothing can be chosen."""
    if not c.pricing:
        return
    forbidden = c.pricing_forbidden
    if len(forbidden) < len(c.pricing):
        return  # at least one pricing model asked for is allowed
    shortest, level = commitment_needed(forbidden)
    term = vocab.PRICING_RULES[shortest].term_months
    if c.commitment is None:
        raise InputError.worded(
            N_(
                "pricing {pricing} needs commitment {level} or longer ({shortest} binds you for {term}), "
                "and without a commitment given a plan accepts at most one month: give commitment {level}"
            ),
            pricing=listed(vocab.pricing_said(p) for p in forbidden),
            level=level.value,
            shortest=vocab.pricing_said(shortest),
            term=_words(term),
        )
    raise InputError.worded(
        N_(
            "pricing {pricing} contradicts commitment {commitment}: {shortest} binds you for {term}, "
            "commitment {commitment} accepts {accepts}; give commitment {level} or longer, or a pricing "
            "model without a term (on_demand, spot)"
        ),
        pricing=listed(vocab.pricing_said(p) for p in forbidden),
        commitment=c.commitment,
        shortest=vocab.pricing_said(shortest),
        term=_words(term),
        accepts=_words(Commitment.cast(c.commitment).months),
        level=level.value,
    )


def check_regions(c: Constraints, store: Store) -> None:
    """Each region named must have offers, and, when providers are named too, be one of theirs
    (``gpuplan tco`` checks its usage's regions with this too)."""
    if not c.regions:
        return
    from gpuplan.catalog.providers import PROVIDERS

    offered = store.regions()
    offered_lower = {r.lower() for r in offered}
    named = {p: provider_regions(store, p) for p in c.providers or ()}
    named_all = sorted(set().union(*named.values())) if named else []
    for region in c.regions:
        low = region.lower()
        if low not in offered_lower:
            # A real region of a provider the catalog holds no offer in ("uksouth": the shipped
            # Azure prices are of its US regions), a city ("london", "成都"), a country ("singapore"),
            # an Alibaba console name ("华东1") or a region of AWS or Azure China: each said so; any
            # of them had read as a region that does not exist.
            from gpuplan.catalog.region_aliases import refuse_region_alias
            from gpuplan.catalog.region_countries import (
                refuse_city_as_region,
                refuse_country_as_region,
                refuse_unheld_region,
                region_suggestions,
            )

            refuse_region_alias(region, store)
            refuse_unheld_region(region, store)
            refuse_country_as_region(region, store)
            refuse_city_as_region(region, store)
            # Typed wrong, or a region no offer is in: "did you mean" over the regions that can be used.
            known = named_all if named and closest(region, named_all) else offered
            known = region_suggestions(k for k in known if k.lower() != low)
            raise NotFoundError("region", region, known, hint=NO_OFFER_IN_REGION)
        if not named or any(low in regions for regions in named.values()):
            continue
        having = [p for p in PROVIDERS if p not in named and low in provider_regions(store, p)]
        if not having:
            continue  # offered, yet no known provider lists it: the region filter says what is left
        suggestions = closest(region, named_all)
        raise InputError.worded(
            N_(
                "region {region} is not a region of {providers}: it is a region of {having}; add a "
                "provider that has it, or name a region of {providers}{suggest}"
            ),
            region=region,
            providers=listed(named),
            having=listed(having),
            suggest=did_you_mean(suggestions),
        )


def _check_compliance(c: Constraints, store: Store) -> None:
    """Each compliance label asked for must be one the catalog knows (in any of its spellings), and,
    unless low-confidence facts are allowed, one a reliable source gives some provider: a label the
    named providers hold only as a low-confidence source's claim (an article saying so, not the
    certificate) cannot meet a requirement unasked."""
    if not c.compliance:
        return
    known = store.known_compliance_labels()
    by_key = {label_key(k): k for k in known}
    for label in c.compliance:
        if label_key(label) in by_key:
            if not c.allow_low_confidence:
                _check_certain(label, c, store)
            continue
        if not known:
            raise InputError.worded(
                N_("unknown compliance label {label!r}: the catalog holds no compliance labels"), label=label
            )
        near = [by_key[k] for k in closest(label_key(label), list(by_key))]
        if near:
            raise InputError.worded(
                N_("unknown compliance label {label!r}: did you mean {names}? The catalog knows: {labels}"),
                label=label,
                names=either(repr(s) for s in near),
                labels=listed(known),
            )
        raise InputError.worded(
            N_("unknown compliance label {label!r}; the catalog knows: {labels}"),
            label=label,
            labels=listed(known),
        )


def _check_certain(label: str, c: Constraints, store: Store) -> None:
    """Refuse ``label`` when the providers in question (the named ones, else all) hold it only as
    claims of low-confidence sources, naming them and their sources."""
    rows = [
        r
        for r in store.all_compliance_details()
        if label_key(r.label) == label_key(label) and (not c.providers or r.provider in c.providers)
    ]
    if not rows or any(r.certain for r in rows):
        return  # none of the named providers has it at all (the planner's line says so), or one for certain
    raise InputError.worded(
        N_(
            "{label} is known for {providers} only as the claim of a low-confidence source, not a "
            "certificate ({sources}): check the provider's certificate, then add --allow-low-confidence "
            "(allow_low_confidence: true) to count it"
        ),
        label=rows[0].label,
        providers=listed(sorted({r.provider for r in rows})),
        sources=listed(dict.fromkeys(r.source for r in rows)),
    )
