"""The catalog offers a workload's ``constraints`` allow, where a command prices a GPU outside the
planner: its providers, regions, countries and hosts, as the planner excludes its candidates
(:mod:`gpuplan.plan.candidates`: provider, region, country, each name compared without case, then
``hosts: provider``, which keeps the offers on a machine a provider runs).

``estimate``'s offered GPUs and ``simulate``'s fleets read their prices through it: a fleet priced
at a marketplace the team had not named had cost a Chinese team's day at a fifth of what the clouds
it allows charge.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpuplan.catalog.providers import provider_runs
from gpuplan.i18n.messages import _
from gpuplan.i18n.phrases import item_list
from gpuplan.plan.region_countries import region_country
from gpuplan.vocab import HostRule

if TYPE_CHECKING:
    from gpuplan.catalog import OfferPrice
    from gpuplan.workload.spec import ConstraintsSpec

__all__ = ["AllowedOffers", "allowed_offers"]

#: The constraints this filter applies, in the planner's order (plan/candidates.py).
_FIELDS = ("providers", "regions", "countries")


@dataclass(frozen=True, kw_only=True)
class AllowedOffers:
    """The offers left under a workload's constraints, and which constraints left any out."""

    offers: tuple[OfferPrice, ...]
    narrowed_by: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """Each constraint that left out at least one offer, as ``(field, the values it allows)``:
    ``(("providers", ("alibaba", "tencent")),)``; empty where none did."""

    def words(self) -> str:
        """ "constraints.providers: alibaba, tencent": the constraints that narrowed the offers, as
        the workload file writes them ("" where none did)."""
        return _("; ").join(f"constraints.{field}: {item_list(values)}" for field, values in self.narrowed_by)


def allowed_offers(offers: Iterable[OfferPrice], constraints: ConstraintsSpec | None) -> AllowedOffers:
    """The offers of ``offers`` where ``constraints`` allow (None or no place named: all of them)."""
    from gpuplan.i18n.countries import country_codes

    kept = tuple(offers)
    if constraints is None:
        return AllowedOffers(offers=kept)
    tests = {
        "providers": lambda o, allowed: o.provider.lower() in allowed,
        "regions": lambda o, allowed: o.region.lower() in allowed,
        "countries": lambda o, allowed: region_country(o.provider, o.region) in allowed,
    }
    narrowed: list[tuple[str, tuple[str, ...]]] = []
    for field in _FIELDS:
        values: tuple[str, ...] = tuple(getattr(constraints, field))
        if not values:
            continue
        allowed = (
            {code for v in values for code in country_codes(v)}  # "EU": its members
            if field == "countries"
            else {v.lower() for v in values}
        )
        left = tuple(o for o in kept if tests[field](o, allowed))
        if len(left) < len(kept):
            narrowed.append((field, values))
        kept = left
    if constraints.hosts == HostRule.PROVIDER:
        # a community host, and a host of unknown kind, are left out as the planner leaves them
        left = tuple(o for o in kept if provider_runs(o.provider, o.instance_type, o.region))
        if len(left) < len(kept):
            narrowed.append(("hosts", (HostRule.PROVIDER.value,)))
        kept = left
    return AllowedOffers(offers=kept, narrowed_by=tuple(narrowed))
