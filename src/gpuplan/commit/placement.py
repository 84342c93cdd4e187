"""Where a workload demand's hours may be bought: the stricter of the usage's place rules and the
workload's own.

A workload carries its own ``constraints``: providers, regions, countries (data kept in the EU),
pricing models (a service bought only on demand or monthly), compliance labels and, for a service,
the countries its users are in (``serving.users_in``, held to its latency targets). ``gpuplan plan``
keeps to every one of them; ``gpuplan tco`` sizes a demand with the planner and then buys its hours,
its commitments and the all-on-demand baseline wherever its instance is sold. Each rule the workload
sets therefore narrows the places its hours may be bought (:attr:`~gpuplan.commit.model.HostNeed.
places`) and the pricing models it is bought on (:attr:`~gpuplan.commit.model.HostNeed.pricing`),
as ``hosts: provider`` narrows the machines;
where the usage lists the same kind of place, the two lists' common part holds, and where they have
none in common the demand is refused in one line naming both. The GPU type (``gpus``) needs no more:
the planner sizes the demand on one the workload allows, and only that type's prices serve it.
Where the data lives (``data.location``) places nothing: the plan prices moving it (and the tco
each region's data costs) and notes work run in another country than the data's or its users'
(mainland China's border with its rules), as it does for any option (``commit/crossings.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpuplan.errors import InputError
from gpuplan.i18n import N_, _
from gpuplan.i18n.countries import grouped_codes
from gpuplan.i18n.phrases import item_list

if TYPE_CHECKING:
    from gpuplan.catalog import OfferPrice
    from gpuplan.commit.usage import Usage
    from gpuplan.plan.result import Option
    from gpuplan.workload.spec import Workload

__all__ = ["Placement", "compliance_words", "complies", "near_users", "placement", "users_words"]

#: A rule's words in the demand line: which list placed it.
_WORKLOADS = N_("{rule}: {names} (the workload's)")
_BOTH = N_("{rule}: {names} (the usage's and the workload's in common)")


@dataclass(frozen=True, kw_only=True)
class Placement:
    """The place rules one workload demand is sized and bought under."""

    providers: tuple[str, ...] = ()
    """Providers its hours may be bought from; empty: any."""
    regions: tuple[str, ...] = ()
    """Regions, as the catalog writes them; empty: any."""
    countries: tuple[str, ...] = ()
    """ISO 3166 alpha-2 codes; empty: any. A region whose country is not known is outside them."""
    pricing: tuple[str, ...] = ()
    """The pricing models it is sized and bought on; empty: the workload sets none (the usage's)."""
    own: tuple[str, ...] = ()
    """The rules the workload set, in words (:data:`_WORKLOADS`, :data:`_BOTH`), in the current
    language; empty: the workload sets none, and the usage's rules (applied to every offer) hold."""

    def overrides(self) -> dict[str, tuple[str, ...] | None]:
        """The planner's place constraints for sizing the demand (None: the workload's own)."""
        return {
            "providers": self.providers or None,
            "regions": self.regions or None,
            "countries": self.countries or None,
        }

    def holds(self, p: OfferPrice) -> bool:
        """Whether a catalog row is within the providers, regions and countries."""
        from gpuplan.catalog.region_countries import region_country

        return (
            (not self.providers or p.provider in self.providers)
            and (not self.regions or p.region.lower() in {r.lower() for r in self.regions})
            and (not self.countries or region_country(p.provider, p.region) in self.countries)
        )


def _common(
    rule: str,
    usage_values: Sequence[str],
    own: Sequence[str],
    *,
    name: str,
    file: str,
    shown: Callable[[tuple[str, ...]], Iterable[str]] = lambda v: v,
) -> tuple[tuple[str, ...], str | None]:
    """One kind of place: the usage's list, the workload's, or their common part where both give one
    (compared case aside, in the usage's spelling), with the words that say which; refused in one line
    where the two have none in common."""
    if not own:
        return tuple(usage_values), None
    if not usage_values:
        return tuple(own), _(_WORKLOADS).format(rule=rule, names=item_list(shown(tuple(own))))
    mine = {v.lower() for v in own}
    common = tuple(v for v in usage_values if v.lower() in mine)
    if not common:
        raise InputError.worded(
            N_(
                "demand {name}: the usage's constraints.{rule} ({usage}) and its workload {file}'s "
                "({workload}) have none in common, so nowhere is left to buy its hours; widen one of them"
            ),
            name=repr(name),
            rule=rule,
            usage=item_list(shown(tuple(usage_values))),
            file=file,
            workload=item_list(shown(tuple(own))),
        )
    return common, _(_BOTH).format(rule=rule, names=item_list(shown(common)))


def placement(usage: Usage, workload: Workload, *, name: str, file: str) -> Placement:
    """The stricter of the usage's and the workload's providers, regions, countries and pricing
    models for demand ``name`` (its workload read from ``file``); a workload country or group
    (``EU``) is read as the plan reads it."""
    from gpuplan.catalog.region_countries import country_codes_of

    c, w = usage.constraints, workload.constraints
    own_countries = tuple(
        dict.fromkeys(code for n in w.countries for code in country_codes_of(n, "constraints.countries"))
    )
    from gpuplan.vocab import PRICING_RULES

    providers, p_said = _common("providers", c.providers, w.providers, name=name, file=file)
    regions, r_said = _common("regions", c.regions, w.regions, name=name, file=file)
    countries, k_said = _common(
        "countries", c.countries, own_countries, name=name, file=file, shown=grouped_codes
    )
    # and the pricing models, as the plan keeps to the workload's (a service on a monthly quote)
    pricing, m_said = _common(
        "pricing",
        c.pricing,
        w.pricing,
        name=name,
        file=file,
        shown=lambda v: [_(PRICING_RULES[p].label) for p in v],
    )
    return Placement(
        providers=providers,
        regions=regions,
        countries=countries,
        pricing=pricing if w.pricing else (),
        own=tuple(s for s in (p_said, r_said, k_said, m_said) if s is not None),
    )


def compliance_words(workload: Workload) -> str | None:
    """The workload's compliance rule in words where it sets one; None where it does not."""
    labels = workload.constraints.compliance
    return _(_WORKLOADS).format(rule="compliance", names=item_list(labels)) if labels else None


def complies(p: OfferPrice, workload: Workload, *, allow_low_confidence: bool) -> bool:
    """Whether a catalog row carries every compliance label the workload asks (a label only a
    low-confidence source claims counts with ``allow_low_confidence`` alone), as the plan reads it."""
    from gpuplan.plan.constraints import labels_satisfy

    labels = workload.constraints.compliance
    if not labels:
        return True
    counted = p.compliance + p.compliance_claimed if allow_low_confidence else p.compliance
    return labels_satisfy(labels, counted)


def users_words(workload: Workload) -> str | None:
    """A service's users' rule in words where it names them; None where it does not."""
    if workload.serving is None or not workload.serving.users_in:
        return None
    return _(
        "users in: {names} (the workload's: only regions whose round trip to them keeps its latency "
        "targets, as the plan holds it)"
    ).format(names=item_list(grouped_codes(tuple(workload.serving.users_in))))


def near_users(p: OfferPrice, workload: Workload, best: Option) -> bool:
    """Whether a region's round trip to a service's users (``serving.users_in``), added to the
    sized option's p95 time to first token and p95 latency, keeps their targets, as the plan holds
    its options to them (``plan/users_far.py``). A region whose place is not known is not known to
    keep them (unknown is never the best case), save the sized option's own region; where the
    option's times are not known, the plan held no region to them, and neither is one here. The
    rule is the plan's (:func:`gpuplan.plan.users_far.over_targets`); only a region of unknown place
    differs: the plan keeps it, ranked after, while tco buys no hours there (it would be bought for
    being cheap while not known to keep the targets)."""
    from gpuplan.catalog.region_countries import region_country
    from gpuplan.catalog.user_rtt import user_rtt
    from gpuplan.plan.users_far import over_targets

    serving, service = workload.serving, best.service
    if serving is None or not serving.users_in or service is None:
        return True
    if (p.provider, p.region) == (best.provider, best.region):
        return True
    ms = user_rtt(p.provider, p.region, tuple(serving.users_in), region_country(p.provider, p.region)).rtt_ms
    if ms is None:
        return False
    nan = float("nan")  # a time not known is held to no target, as the plan holds it
    over = over_targets(
        nan if service.ttft_p95_s is None else service.ttft_p95_s,
        nan if service.p95_latency_s is None else service.p95_latency_s,
        ms,
        serving.ttft_p95_ms,
        serving.p95_latency_ms,
    )
    return not bool(over)
