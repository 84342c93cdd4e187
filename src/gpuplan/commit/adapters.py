"""Build the optimiser's :class:`TcoProblem` from a usage description, the catalog and the planner.

Thin on purpose: offers are filtered and converted to USD, workload demands are sized by the
planner, and everything left out is counted and said in the notes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import cache, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from gpuplan.catalog.model import FloorBasis, floor_what
from gpuplan.catalog.providers import provider_runs
from gpuplan.catalog.upfront import upfront_said
from gpuplan.commit.model import (
    COMMITMENT_PRICING,
    Demand,
    HeldOut,
    HeldOutReason,
    HostNeed,
    MissingPrice,
    OnDemandAlternative,
    PricedOffer,
    RunData,
)
from gpuplan.commit.placement import (
    Placement,
    compliance_words,
    complies,
    near_users,
    placement,
    users_words,
)
from gpuplan.commit.usage import DemandSpec, Usage
from gpuplan.errors import GpuplanError, InputError, NotFoundError
from gpuplan.i18n import N_, _
from gpuplan.i18n.numbers import format_hours, format_number
from gpuplan.i18n.phrases import item_list, listed
from gpuplan.i18n.places import place
from gpuplan.plan.input_types import JobFacts
from gpuplan.plan.region_costs import INGRESS_FREE_PROVIDERS
from gpuplan.plan.region_countries import region_country
from gpuplan.plan.spot import (
    SpotRate,
    checkpoint_interval_basis,
    checkpoint_writes_h,
    offer_rate,
    service_down_h,
)
from gpuplan.units import HOURS_PER_MONTH, batch_chunk_hours
from gpuplan.vocab import PRICING_RULES, HostRule, Task

if TYPE_CHECKING:
    from gpuplan.catalog import OfferPrice, Store
    from gpuplan.plan.result import Option, Plan, ServiceFigures
    from gpuplan.plan.service_day import LoadFn
    from gpuplan.plan.service_day import WorkloadLoadFn as ReplicaLoadOf
    from gpuplan.profile import Profile
    from gpuplan.workload.spec import Workload

__all__ = [
    "DemandSource",
    "data_each_run_default",
    "demands_from_usage",
    "hold_runs_together",
    "hosts_left_out",
    "keeps_copy",
    "missing_prices",
    "priced_offers",
    "shift_notes",
]


@dataclass(frozen=True, kw_only=True)
class DemandSource:
    """How one demand was sized, for the report."""

    name: str
    gpu: str
    gpu_hours_total: float
    how: str
    """In words: given directly, or which plan option sized the workload."""
    tiers: tuple[tuple[float, float], ...] = ()
    """A service priced as the fleet its day needs (:attr:`Demand.tiers`): ``(GPUs, hours a
    month)`` of one run, busiest first; empty where its GPUs are taken for all its hours."""
    day: str = ""
    """How that day was taken (its shape, mean and peak), in words; "" where it was not."""
    start_up_hours: tuple[float, ...] = ()
    """Of each tier's hours a month, those it is billed without serving (its start-ups and
    scale-down delays), in the order of :attr:`tiers`."""
    held_out: str | None = None
    """The planner's cheapest option where the demand was not sized on it, its price being a spot
    or commitment one not known to be current (the schedule holds those out): sized instead on the
    planner's best option on prices known to be current. None: sized on the cheapest."""


def _term_months(p: OfferPrice) -> int:
    years = (p.term or {}).get("years") if p.pricing != "monthly" else None
    if isinstance(years, int | float) and years > 0:
        return round(years * 12)
    # The catalog's row does not say (``term.years``): the pricing model's own term.
    return PRICING_RULES[p.pricing or ""].term_months


def _spot_rate(p: OfferPrice) -> SpotRate:
    return offer_rate(p.interruption_band, p.term, p.source, p.as_of, p.provider)


def _listed(p: OfferPrice, usage: Usage) -> bool:
    """Whether the usage's providers and regions allow the row's (empty lists allow all)."""
    c = usage.constraints
    return (not c.providers or p.provider in c.providers) and (not c.regions or p.region in c.regions)


def _country(p: OfferPrice, usage: Usage) -> str | None:
    """The row's country where the usage lists countries ("" when its region's is not known), else
    None: the constraint does not apply."""
    return region_country(p.provider, p.region) if usage.constraints.countries else None


def _within(p: OfferPrice, usage: Usage) -> bool:
    """Whether the usage's providers, regions and countries allow the row; a region whose country is
    not known is outside any list of countries, as in the plan."""
    country = _country(p, usage)
    return _listed(p, usage) and (country is None or country in usage.constraints.countries)


#: Why ``constraints.hosts: provider`` left an offer row out (:func:`hosts_left_out` counts them).
HOSTS_LEFT_OUT = N_(
    "not on a machine its provider runs: a community host, or a host of unknown kind "
    "(constraints.hosts: provider leaves it out; cheaper prices may be among them)"
)


def _demanded(prices: Sequence[OfferPrice], usage: Usage, gpus: Sequence[str]) -> Iterator[OfferPrice]:
    """The rows of a GPU demanded, under a pricing model and at a provider and region the usage
    allows (those others are not counted as left out: no demand could use them)."""
    c = usage.constraints
    for p in prices:
        if p.gpu in gpus and p.pricing is not None and p.pricing in c.pricing and _listed(p, usage):
            yield p


def _left_out_why(p: OfferPrice, usage: Usage) -> str | None:
    """Why a demanded row (:func:`_demanded`) may not be used, as a catalog message said in the
    notes; None where it may."""
    c = usage.constraints
    country = _country(p, usage)
    if country == "":
        # said, not silent: the price may be in an allowed country that its source does not name
        return N_("region's country not known (constraints.countries leaves it out)")
    if country is not None and country not in c.countries:
        # said, not silent: a cheaper price may be among them
        return N_("outside constraints.countries (cheaper prices may be among them)")
    if c.provider_hosts_only and not provider_runs(p.provider, p.instance_type, p.region):
        # the plan's rule (plan/candidates.py): a community host and a host of unknown kind are
        # left out, unknown never taken for the best case; said, as a cheaper price may be among them
        return HOSTS_LEFT_OUT
    if p.price_usd_per_hour is None:
        return N_("price not convertible to USD (no exchange rate)")
    if p.confidence == "low" and not c.allow_low_confidence:
        return N_("low-confidence price (set constraints.allow_low_confidence: true to use it)")
    if p.gpu_count < 1:
        # A fractional GPU (vGPU slice) does not deliver a whole GPU-hour per hour.
        return N_("fractional-GPU instance")
    return None


def hosts_left_out(prices: Sequence[OfferPrice], usage: Usage, gpus: Sequence[str]) -> int:
    """How many rows of the GPUs demanded ``constraints.hosts: provider`` left out (0 without it),
    for a refusal that names the rule where nothing else is left."""
    if not usage.constraints.provider_hosts_only:
        return 0
    return sum(1 for p in _demanded(prices, usage, gpus) if _left_out_why(p, usage) == HOSTS_LEFT_OUT)


def priced_offers(
    prices: Sequence[OfferPrice], usage: Usage, gpus: Sequence[str]
) -> tuple[tuple[PricedOffer, ...], list[str]]:
    """The catalog rows the optimiser may use, and notes on what was left out and why."""
    c = usage.constraints
    out: list[PricedOffer] = []
    skipped: dict[str, int] = {}

    def skip(reason: str) -> None:  # a catalog message, written in the user's language in the notes
        skipped[reason] = skipped.get(reason, 0) + 1

    # (basis, the floor's region where it is another one's) -> offer region -> spot prices held to it
    floored: dict[tuple[str, FloorBasis, str], dict[str, int]] = {}

    for p in _demanded(prices, usage, gpus):
        why = _left_out_why(p, usage)
        if why is not None:
            skip(why)
            continue
        # _demanded: a pricing model; _left_out_why: a price convertible to USD
        assert p.pricing is not None and p.price_usd_per_hour is not None
        spot = _spot_rate(p) if p.pricing == "spot" else None
        usd_per_hour = float(p.price_usd_per_hour)
        floor_as_of, own, own_stale = "", None, ""
        if (floor := p.dated_floor_usd_per_hour()) is not None:
            # a spot price of unknown age (or stale) below a dated one: a year of work is costed at
            # the dated floor (what the plan ranks on too), said in the notes and beside the price
            usd_per_hour, floor_as_of, own = floor.usd_per_hour, floor.as_of, usd_per_hour
            own_stale = (p.as_of or "") if floor.held == "stale" else ""
            key = (floor.held, floor.basis, floor.region if floor.basis.names_region else "")
            regions = floored.setdefault(key, {})
            regions[p.region] = regions.get(p.region, 0) + 1
        out.append(
            PricedOffer(
                provider=p.provider,
                region=p.region,
                instance_type=p.instance_type,
                gpu=p.gpu,
                gpus_per_unit=float(p.gpu_count),
                pricing=p.pricing,
                usd_per_unit_hour=usd_per_hour,
                currency=p.currency or "USD",
                term_months=_term_months(p) if p.pricing in COMMITMENT_PRICING else 0,
                interruptions_per_hour=spot.per_hour if spot else None,
                rate_source=spot.source if spot else "",
                spot_rate=spot,
                confidence=p.confidence or "",
                source=(p.source or "") + p.discount_said() + upfront_said(p),
                as_of=p.as_of or "",
                floor_as_of=floor_as_of,
                own_usd_per_unit_hour=own,
                own_stale_as_of=own_stale,
                vcpus=p.vcpus,
                memory_gib=p.memory_gib,
                interconnect=p.interconnect,
                network_gbps=p.network_gbps,
                network_kind=p.network_kind,
                upfront=str((p.term or {}).get("upfront", "")) if (p.term or {}).get("upfront_known") else "",
                billing_granularity_s=p.billing_granularity_s,
                min_billing_s=p.min_billing_s,
            )
        )
    notes = [
        _("left out {n} offer row(s): {why}").format(n=n, why=_(why)) for why, n in sorted(skipped.items())
    ]
    for (held, basis, region), regions in sorted(
        floored.items(), key=lambda item: (item[0][0], item[0][1].value, item[0][2])
    ):
        said = (
            _("costed {n} spot price(s) older than the limit at {what} (each was below it): {where}")
            if held == "stale"
            else _("costed {n} spot price(s) of unknown age at {what} (each was below it): {where}")
        )
        notes.append(
            said.format(
                n=sum(regions.values()),
                what=floor_what(basis, region),
                where=item_list(f"{r} ({k})" for r, k in sorted(regions.items())),
            )
        )
    for gpu in gpus:
        for pricing in c.pricing:
            if not any(o.gpu == gpu and o.pricing == pricing for o in out):
                notes.append(
                    _(
                        "{pricing}: no usable price for {gpu} in the catalog within the constraints; "
                        "not offered"
                    ).format(pricing=_(pricing), gpu=gpu)
                )
    return tuple(out), notes


def missing_prices(
    prices: Sequence[OfferPrice],
    usage: Usage,
    demands: Sequence[Demand],
    offers: Sequence[PricedOffer],
) -> tuple[MissingPrice, ...]:
    """The pricing models the usage allows that could serve a demand but have no usable price.

    A commitment (monthly, reserved) could serve any demand its workload's pricing models allow;
    spot only an interruptible one. Their saving is unknown — never "does not pay off" — until a
    price fills them. A price of the GPU
    type on an instance a demand's hours do not hold on (:attr:`Demand.host`) does not fill it.
    """
    c = usage.constraints
    out = []
    for gpu in dict.fromkeys(d.gpu for d in demands):
        interruptible = any(d.gpu == gpu and d.interruptible for d in demands)
        for pricing in c.pricing:
            if pricing not in COMMITMENT_PRICING and not (pricing == "spot" and interruptible):
                continue
            # nor a demand whose workload's own pricing models leave it out
            could = [
                d
                for d in demands
                if d.gpu == gpu
                and (pricing != "spot" or d.interruptible)
                and (d.host is None or d.host.pricing is None or pricing in d.host.pricing)
            ]
            if all(any(o.pricing == pricing and d.allows(o) for o in offers) for d in could):
                continue
            low = sum(
                1
                for p in prices
                if p.gpu == gpu and p.pricing == pricing and p.confidence == "low" and _within(p, usage)
            )
            out.append(
                MissingPrice(
                    pricing=pricing,
                    gpu=gpu,
                    low_confidence_rows=low,
                    held_out=held_out(could, offers, pricing),
                )
            )
    return tuple(out)


def held_out(demands: Sequence[Demand], offers: Sequence[PricedOffer], pricing: str) -> tuple[HeldOut, ...]:
    """The priced offers of ``pricing`` that a demand no offer of it serves does not hold on, each
    with its reason: for a direct demand (its run's GPUs together in one node, sized on no
    instance) every price of its GPU, too small for the run; for a workload demand sized on an
    instance, one per instance type not known to be as able (:class:`HostNeed`), with why."""
    out: dict[tuple[str, ...], HeldOut] = {}
    for d in demands:
        if d.host is None or any(o.pricing == pricing and d.allows(o) for o in offers):
            continue
        host = d.host
        theirs = [o for o in offers if o.pricing == pricing and o.gpu == d.gpu]
        for i, o in enumerate(theirs):
            if not host.instance_type:
                out[(d.name, str(i))] = HeldOut(
                    demand=d.name,
                    offer=f"{place(o.provider, o.region)} {o.instance_type}",
                    provider=o.provider,
                    reason=HeldOutReason.TOO_SMALL,
                    why=host.refusal(o),
                )
                continue
            key = (d.name, o.provider, o.instance_type)
            # an instance too small for the run is no candidate to name where a larger one is held out
            small = host.one_node and o.gpus_per_unit < host.gpus_per_node
            if key in out or (small and any(p.gpus_per_unit >= host.gpus_per_node for p in theirs)):
                continue
            out[key] = HeldOut(
                demand=d.name,
                offer=f"{place(o.provider, o.region)} {o.instance_type}",
                provider=o.provider,
                reason=HeldOutReason.NOT_AS_ABLE,
                sized_on=host.instance_type,
                why=host.refusal(o),
            )
    return tuple(out.values())


#: Providers whose object storage in a region is read by their own instances there at no transfer
#: charge, so that a copy of a dataset kept in the region fills each run's disks for free: the seven
#: clouds, whose inbound traffic the planner already takes as free (``INGRESS_FREE_PROVIDERS``).
#: AWS: "It is free to transfer data directly ... between Amazon S3 ..." and services in the same
#: Region (AWS Global Network FAQs,
#: https://aws.amazon.com/about-aws/global-infrastructure/global-network/faqs/); Google Cloud
#: Storage, Azure Blob, Alibaba OSS, Tencent COS, Huawei OBS and Volcengine TOS price pages list
#: traffic inside a region (internal network, 内网) as free. A GPU marketplace sells no object storage
#: the catalog knows of, and its hosts may charge for every download: there a run moves the dataset
#: in each time (a copy is not assumed to exist).
KEPT_COPY_PROVIDERS = INGRESS_FREE_PROVIDERS

#: How a workload demand was sized, in words: by the planner's cheapest option on the pricing models
#: named (those the usage allows; spot only for an interruptible demand).
_SIZED = N_("{workload}: {runs} × {fleet} (planner's cheapest option on {pricing}: {option})")


#: How a workload demand was sized where the planner's cheapest option rests on a price not known to
#: be current (older than the staleness limit, or undated), whatever its pricing model: on the
#: planner's best option on prices known to be current, the cheapest named beside it.
_SIZED_CURRENT = N_(
    "{workload}: {runs} × {fleet} (planner's best option on {pricing} among "
    "prices known to be current: {option}; its cheapest, {cheapest}, rests on a price as of {as_of}, not "
    "known to be current: unknown is never the best case, so a demand is sized on prices known to be "
    "current whichever pricing models it may use)"
)


def _sizing_option(planned: Plan) -> tuple[Option, Option | None]:
    """The option a workload demand is sized on, and the planner's cheapest where it is not that
    one. The cheapest, unless its price is not known to be current (older than the staleness limit,
    or undated), whatever its pricing model: then the planner's best option on prices known to be
    current (``Plan.without_stale_prices``, picked by the same objective and constraints), as
    ``gpuplan plan`` shows it beside. One rule for every pricing model: sized on a stale on-demand
    price where spot is not allowed and on the best current one where it is, a demand allowed one
    more pricing model cost more than without it (unknown is never the best case). Where the plan
    has no option on prices known to be current, the cheapest (the schedule then says whether it can
    do without the stale price)."""
    best = planned.recommended
    beside = planned.without_stale_prices
    if beside is None or beside.option is None:
        return best, None
    return beside.option, best


def _reservation_sizing_words(usage: Usage, pricing: str, *, serving: bool) -> str | None:
    """Why a service sized on a reservation says nothing of whether the reservation pays, in words;
    None for any other sizing. The planner bills a service's reservation one month's share of its
    term, as though the term's capacity were used whole (``plan/billing.py``), so a term longer than
    the usage's horizon can size a demand and still never pay off in the schedule, which pays that
    term whole within the horizon (``past_horizon: full``)."""
    term = PRICING_RULES[pricing].term_months if pricing in COMMITMENT_PRICING else 0
    if not serving or term <= 1:
        return None
    said = _(
        "the planner prices {pricing} at one month's share of its {term}-month term, as though the "
        "term were used whole; only the GPU type, count and hours are kept, and how each month is "
        "bought is the schedule's"
    ).format(pricing=_(PRICING_RULES[pricing].label), term=term)
    if term > usage.horizon_months and usage.past_horizon == "full":
        said = _(
            "{said}: within this {horizon}-month horizon the schedule pays the {term}-month term whole, "
            "so the offer it was sized on may not pay off there (the break-even utilisation says)"
        ).format(said=said, horizon=usage.horizon_months, term=term)
    return said


def _may_run_on_spot(spec: DemandSpec, job: JobFacts, serving: bool) -> bool:
    """Whether a workload demand may run on spot where the usage allows it: as its
    ``interruptible`` says; unsaid, a service may (``gpuplan plan`` prices one there with a spare
    instance and ``gpuplan deploy`` launches it so, falling back to on demand), and so may a job
    that resumes after a reclaim as the planner costs it (``JobFacts.resumes_after_reclaim``); a job that
    would start over may not."""
    if spec.interruptible is not None:
        return spec.interruptible
    return serving or job.resumes_after_reclaim


def _sizing_pricing(
    allowed_pricing: Sequence[str], interruptible: bool
) -> tuple[tuple[str, ...], str | None]:
    """The pricing models a workload demand is sized on, and the plan's ``commitment`` that lets
    its committed ones be chosen: those ``allowed_pricing`` (the usage's, or its and the workload's
    in common), spot only for an interruptible demand (a firm one never runs on it); on demand where
    that leaves none (only spot allowed), so that the demand still gets a size and the optimiser
    says that nothing serves it."""
    from gpuplan.vocab import Commitment

    allowed = tuple(p for p in allowed_pricing if p != "spot" or interruptible)
    pricing = allowed or ("on_demand",)
    months = max((PRICING_RULES[p].term_months for p in pricing if p in COMMITMENT_PRICING), default=0)
    # the shortest commitment level that permits the longest term listed (the plan's reading)
    commitment = next((c.value for c in Commitment if c.months >= months), None) if months else None
    return pricing, commitment


def _workload_demand(
    usage: Usage, index: int, store: Store, allow_code: bool, load_of: ReplicaLoadOf | None
) -> tuple[Demand, DemandSource]:
    """Size a workload demand with the planner: its cheapest option on the pricing models the
    usage allows (:func:`_sizing_pricing`: the committed ones included, spot only for an
    interruptible demand) gives the GPU type, the count and the hours of one run; a spot option is
    costed with the spot overheads as the planner costs them, and the run's hours are without them
    (the optimiser adds its own). Its workload file is read as ``gpuplan.workload.named`` says:
    inside ``usage.folder``, and a model that is code only with ``allow_code``.

    The planner prices one run alone: a monthly subscription or a reservation is charged its whole
    month or term for it, as a single run would pay. A year of runs shares a commitment among many
    of them, so this leans towards hourly prices, never towards a commitment the year cannot fill;
    but a GPU type sold far cheaper on a commitment than by the hour (a negotiated monthly quote) is
    no longer passed over for the cheapest on-demand one, whose commitments may be dearer or older.
    Only the GPU type, count and hours are kept: the optimiser still chooses the pricing of each
    month. Sizing every allowed GPU type and letting the optimiser choose among them would be
    exact, at the cost of one planner run and one set of offers per type.

    The hours hold only on instances like the one they were sized on (:func:`_host_need`): the
    demand is priced on its instance type, in any region and pricing the usage allows, and on
    other types known to be at least as able to run it; never on a cheaper instance of the GPU
    type whose network or host the planner times at its slow end."""
    from gpuplan.plan import plan_workload
    from gpuplan.plan.build_inputs import job_facts_from
    from gpuplan.plan.service_day import option_day_words
    from gpuplan.profile import profile as trace_profile
    from gpuplan.workload.named import named_workload

    spec = usage.demands[index]
    path, workload = named_workload(
        spec.workload or "",
        base=Path(usage.base_dir) if usage.base_dir else Path.cwd(),
        folder=usage.folder,
        field=f"demands[{index}].workload",
        allow_code=allow_code,
    )
    prof = trace_profile(workload, store.local)
    c = usage.constraints
    # The workload's own budget bounds one run (a month of a service) at the pricing its plan picks;
    # sizing here prices one run alone (a commitment charged its whole term for it), and the year's
    # pricing, the commitments and their budget are the optimiser's: kept, it refused a service a
    # monthly plan fits under it.
    if workload.constraints.budget_usd is not None or workload.constraints.budget_cny is not None:
        unbudgeted = workload.constraints.model_copy(update={"budget_usd": None, "budget_cny": None})
        workload = workload.model_copy(update={"constraints": unbudgeted})
    # The job as the planner sees it, with the demand's own checkpoint size where it gives one.
    job, _unused = job_facts_from(workload, prof)
    ckpt_gb = spec.checkpoint_gb if spec.checkpoint_gb is not None else job.checkpoint_gb
    job = replace(job, checkpoint_gb=ckpt_gb)
    # An interruptible demand may run on spot: the planner's spot options (their checkpoints, lost
    # work and restarts priced in) compete for its GPU, which a spot price may make another type; a
    # commitment's price competes too (a service on a monthly quote).
    # Its providers, regions, countries and pricing models: the usage's and the workload's lists'
    # common part (refused where they have none), sized there and bought there only (HostNeed.places
    # and HostNeed.pricing): a workload that allows no spot is not run on it.
    placed = placement(usage, workload, name=spec.name, file=path.name)
    interruptible = _may_run_on_spot(spec, job, serving=workload.serving is not None)
    interruptible = interruptible and "spot" in (placed.pricing or c.pricing)
    pricing, commitment = _sizing_pricing(placed.pricing or c.pricing, interruptible)
    # the stricter of the two hosts rules: the usage's, or the workload's own (None keeps it), and
    # its hours are bought only where it holds
    provider_run = c.provider_hosts_only or workload.constraints.hosts == HostRule.PROVIDER
    overrides = {
        **placed.overrides(),
        "hosts": HostRule.PROVIDER.value if provider_run else None,
        # Sizing only: the GPU type, count and run time. The pricing of each month is the optimiser's.
        "pricing": pricing,
        "commitment": commitment,
        "allow_low_confidence": c.allow_low_confidence or None,
    }
    try:
        planned = plan_workload(workload, prof, store, overrides=overrides, top=1, replica_load=load_of)
    except GpuplanError as e:
        raise InputError.worded(
            N_("demand {name}: the planner cannot size {file}: {problem}"),
            name=repr(spec.name),
            file=path.name,
            problem=e,
        ) from e
    best, held_out = _sizing_option(planned)
    # A serving workload's "run" is a month of capacity (730 h, no set-up); a training run is billed
    # from boot to the end, set-up included, as the planner prices it: the option's own set-up (n
    # nodes' copies of an on-site dataset share the site's uplink), whatever pricing sized it.
    # Without the interruptions' overhead (the optimiser adds its own on spot) and without the
    # checkpoints it writes off spot (``writes_h``).
    if workload.serving is not None:
        run_h = best.compute_time_h
    else:
        network = np.asarray([np.nan if best.network_gbps is None else best.network_gbps])
        run_h = best.compute_time_h + float(job.setup_hours(np.asarray([best.nodes]), network)[0])
    # Off spot the launch's train.py writes a checkpoint every 30 minutes, longer where the writes
    # would take more than 5 % of the run (or the workload's checkpoint.every_min), synchronously:
    # the run's hours on demand and on a commitment pay for the writes, as the planner costs them
    # (its job time off spot), whichever pricing sized it.
    writes_h = 0.0
    if job.writes_checkpoints_off_spot:
        work = np.asarray([best.compute_time_h])
        writes_h = float(checkpoint_writes_h(work, job.checkpoint_write_h, job.checkpoint_interval_h)[0])
    # On spot a reclaim may lose the disks that hold the dataset: each restart copies it again, at
    # its conservative bound as the planner costs it (the best case, the disks surviving, adds nothing).
    recopy_h = float(job.recopy_hours(np.asarray([best.nodes]))[0]) if interruptible else 0.0
    # The plan's own day of its option (plan/service_day.py), so that the plan and tco price one
    # service alike. Priced by it only where its launch scales down: `gpuplan deploy` keeps a
    # service's autoscaler floor at the plan's fleet unless the serving block sets min_replicas or a
    # schedule (and `plan` prices that fleet all month), so a year priced by the day without it was a fleet no
    # launch runs; and only where the autoscaler can follow the day (a new instance serves before
    # the load outgrows the fleet), else the plan prices the peak fleet all month too.
    day_tiers = best.service_day
    scales_down = workload.serving is not None and workload.serving.scales_down
    tiered = day_tiers if scales_down and day_tiers is not None and day_tiers.scales else None
    per_run = best.gpu_count * (run_h + writes_h) if tiered is None else tiered.step * sum(tiered.hours)
    write_h = job.checkpoint_write_h
    # Growth is more runs of the workload (a run's size is the workload file's): whole runs of
    # whole GPUs, one after another, overlapping only where they do not fit in the month.
    runs = usage.scaled(spec, usage.runs(spec))
    busy = tuple(min(HOURS_PER_MONTH, r * (run_h + writes_h)) for r in runs)
    half_chunk_h = _half_chunk_h(job, best.step_time_s, ckpt_gb)
    # A service's runs are its load: a month of 1.03 runs (3 % growth) is its fleet at 1.03 × its
    # load, resized in whole replicas as the plan sizes it, not a second fleet for 3 % of the month;
    # so are the sensitivity's loads of each month. Where its fleet at other loads is not known (a
    # replica's capacity not estimated), its GPU-hours scale with its runs, as a job's.
    sensitivity = (1.0 - usage.sensitivity_pct / 100.0, 1.0 + usage.sensitivity_pct / 100.0)
    loads = sorted({r * s for r in runs if r > 0 for s in (*sensitivity, 1.0)})
    loads = [x for x in loads if not math.isclose(x, 1.0)]
    at_load = _service_at_load(
        workload,
        best,
        job,
        None if load_of is None else partial(load_of, workload, prof),
        scales=loads if workload.serving is not None else sensitivity,
        busy_h=run_h + writes_h,
    )
    by_load = workload.serving is not None and bool(at_load)
    hours = tuple(_service_month_hours(r, per_run, at_load) if by_load else r * per_run for r in runs)
    demand = Demand(
        name=spec.name,
        gpu=best.gpu,
        gpu_hours=hours,
        interruptible=interruptible,
        # a service on spot keeps a spare replica's instances beside its fleet, as the plan prices it
        spare_replica_gpus=_spare_replica_gpus(best, job) if interruptible and workload.serving else 0,
        run_hours=spec.run_hours or run_h,
        checkpoint_hours_off_spot=writes_h,
        checkpoint_every_h=job.checkpoint_every_h if job.checkpoint_every_stated else None,
        # a service priced by its tiers is bought in steps of one instance as its autoscaler adds
        # them; else the run's GPUs at once
        gpus_per_run=float(best.gpu_count) if tiered is None else tiered.step,
        gpu_step=float(best.gpu_count) if tiered is None else tiered.step,
        tiers=() if tiered is None else tiered.hours,
        at_load=at_load,
        load_by_month=runs if by_load else (),
        checkpoint_write_h=write_h,
        restart_h=_restart_h(job, ckpt_gb, best.gpus_per_node, serving=workload.serving is not None)
        + half_chunk_h
        + recopy_h,
        recopy_h=recopy_h,
        # batch inference resumes by its output chunks as the planner counts it (half a chunk lost
        # with each restart, above); a job with no checkpoint and no chunks starts over
        restarts_from_scratch=write_h <= 0 and workload.serving is None and half_chunk_h == 0.0,
        busy_hours=tuple(b if h > 0 else 0.0 for b, h in zip(busy, hours, strict=True)),
        shift=spec.shift or "",
        run_data=_run_data(
            store,
            usage,
            best.gpu,
            job,
            nodes=best.nodes,
            run_h=run_h + writes_h,
            data_each_run=_data_each_run(spec, job),
            instance_h=None if tiered is None else sum(tiered.hours),
            recopies=recopy_h > 0,
        ),
        gpu_hours_per_run=per_run,
        on_demand_elsewhere=_on_demand_elsewhere(
            workload, prof, store, overrides, runs, sized_on=best.pricing, load_of=load_of
        ),
        host=_placed(
            _host_need(
                store,
                best,
                serving=workload.serving is not None,
                provider_run=provider_run,
                shard_gpus=_shard_gpus(workload),
            ),
            store,
            usage,
            workload,
            best,
            placed,
        ),
        job=job,
    )
    runs_said = (
        _("{runs:g} run(s)/month").format(runs=spec.runs_per_month)
        if spec.runs_by_month is None
        else _("runs by month")
    )
    # the hours a demand is priced for: a service priced by its day (or schedule) buys its tiers'
    # hours, not its peak fleet all month, which is said beside them
    fleet = (
        _run_fleet_words(best, run_h + writes_h, serving=workload.serving is not None)
        if tiered is None
        else _(
            "up to {count} {gpu}, priced for {gpu_hours:,.1f} GPU-hours each, its tiers' hours below "
            "(its peak fleet all month would be {count} {gpu} × {hours:.1f} h)"
        ).format(count=best.gpu_count, gpu=best.gpu, gpu_hours=per_run, hours=run_h + writes_h)
    )
    how = _(_SIZED if held_out is None else _SIZED_CURRENT).format(
        workload=workload.name,
        runs=runs_said,
        fleet=fleet,
        pricing=item_list(_(PRICING_RULES[p].label) for p in pricing),
        option=best.label,
        cheapest=None if held_out is None else held_out.label,
        as_of=None if held_out is None else held_out.as_of,
    )
    if (
        reservation := _reservation_sizing_words(usage, best.pricing, serving=workload.serving is not None)
    ) is not None:
        how = _("{sized}; {why}").format(sized=how, why=reservation)
    if writes_h > 0:
        how = _(
            "{sized}; checkpoints every {interval} min ({basis}): {time} of each run on demand and on "
            "a commitment (on spot at the interval the planner costs it at)"
        ).format(
            sized=how,
            interval=f"{job.checkpoint_interval_h * 60:.0f}",
            basis=checkpoint_interval_basis(
                job.checkpoint_every_stated, job.checkpoint_interval_h * 60, job.checkpoint_write_h * 60
            ),
            time=format_hours(writes_h),
        )
    if recopy_h > 0:
        how = _(
            "{sized}; on spot each restart copies the {gb} GB dataset again, +{time} (a reclaim is taken "
            "to lose its disks, as the planner costs it; best case, they survive and nothing is copied)"
        ).format(sized=how, gb=format_number(job.dataset_gb), time=format_hours(recopy_h))
    if tiered is not None:
        how = _("{sized}; {tiers}").format(sized=how, tiers=tiered.said(best.gpu))
    elif day_tiers is not None and scales_down:
        # the autoscaler cannot follow the day, or the fleet is larger than its day needs: as the plan
        # says it (by the hour, as the year's hours beyond a commitment are bought)
        words = option_day_words(day_tiers, best.gpu, scales_down=True, pricing="on_demand", peak_usd=None)
        how = _("{sized}; {tiers}").format(sized=how, tiers=words)
    elif day_tiers is not None:
        how = _(
            "{sized}; its peak fleet all its hours, as its launch keeps it (no serving.min_replicas: "
            "the autoscaler's floor is the plan's fleet); with serving.min_replicas set (e.g. 1) it "
            "scales down with its day and is priced as that fleet, a month: {tiers} ({day})"
        ).format(sized=how, tiers=day_tiers.listed(best.gpu), day=day_tiers.day)
    elif (flat := _flat_service_words(workload, best)) is not None:
        how = _("{sized}; {flat}").format(sized=how, flat=flat)
    if demand.host is not None:
        how = _("{sized}; {priced_on}").format(sized=how, priced_on=demand.host.said)
    return demand, DemandSource(
        name=spec.name,
        gpu=best.gpu,
        gpu_hours_total=sum(hours),
        how=how,
        held_out=None if held_out is None else held_out.label,
        tiers=() if tiered is None else tuple((tiered.step, h) for h in tiered.hours),
        day=tiered.day if tiered is not None else "",
        start_up_hours=()
        if tiered is None
        else tuple(b - h for b, h in zip(tiered.hours, tiered.serving_hours, strict=True)),
    )


def _run_fleet_words(best: Option, hours: float, *, serving: bool) -> str:
    """One run's GPUs and hours, and where its option bills more, the hours it bills a run (what
    the year prices, :func:`gpuplan.commit.recourse.run_billing`): on spot its interruptions, and
    the billing step its hours are rounded up to, as the plan bills them. A service's month is
    its hours."""
    fields = {"count": best.gpu_count, "gpu": best.gpu, "hours": hours}
    if serving or best.pricing not in ("on_demand", "spot") or not best.billed_hours > hours + 0.05:
        return _("{count} {gpu} × {hours:.1f} h").format(**fields)
    if best.pricing == "spot":
        return _(
            "{count} {gpu} × {hours:.1f} h of work, {billed:,.1f} h billed a run on spot, as the "
            "planner's option bills it ({time:.1f} h with its interruptions, rounded up to the billing step)"
        ).format(**fields, billed=best.billed_hours, time=best.job_time_h)
    return _(
        "{count} {gpu} × {hours:.1f} h, {billed:,.1f} h billed a run, as the planner's option bills it "
        "(rounded up to the billing step)"
    ).format(**fields, billed=best.billed_hours)


def _on_demand_elsewhere(
    workload: Workload,
    prof: Profile,
    store: Store,
    overrides: dict[str, Any],
    runs: Sequence[float],
    *,
    sized_on: str,
    load_of: ReplicaLoadOf | None,
) -> Callable[[], OnDemandAlternative | None] | None:
    """A demand sized on spot, on demand instead (:attr:`Demand.on_demand_elsewhere`): what plans
    the planner's cheapest option on demand in the places the demand may run (its ranking, its
    deadline and constraints held; a second planner run of the same workload and profile, made
    only when called, and once), at its cost of one run × the runs of each month; None from it where
    the planner finds no option. None where the demand was not sized on spot (an interruptible
    demand only is), or the usage does not allow on demand."""
    if sized_on != "spot" or "on_demand" not in overrides.get("pricing", ()):
        return None
    od = {**overrides, "pricing": ("on_demand",), "commitment": None}

    @cache
    def planned() -> OnDemandAlternative | None:
        from gpuplan.plan import plan_workload

        try:
            best = plan_workload(workload, prof, store, overrides=od, top=1, replica_load=load_of).recommended
        except GpuplanError:
            return None  # no on-demand option meets the demand: its fallback is unknown, said so
        return OnDemandAlternative(
            gpu=best.gpu, gpus=best.gpu_count, usd=tuple(r * best.total_cost_usd for r in runs)
        )

    return planned


def _service_at_load(
    workload: Workload,
    best: Option,
    job: JobFacts,
    load_fn: LoadFn | None,
    *,
    scales: Sequence[float],
    busy_h: float,
) -> tuple[tuple[float, tuple[tuple[float, float], ...]], ...]:
    """A service's month at each of ``scales`` × its load (:attr:`Demand.at_load`): its fleet
    resized in whole instances as the plan sizes it (:func:`fleet_at_load`, each replica held at the
    load its day is sized by), priced by its day at that load where its launch scales down and the
    autoscaler can follow it (its tiers), else that fleet for all its ``busy_h`` hours, as at its
    own load. Empty for a job, or where a replica's capacity is not estimated (its GPU-hours then
    scale with the load)."""
    from gpuplan.plan.service_day import fleet_at_load, held_load

    srv = best.service
    if workload.serving is None or srv is None or not srv.replica_requests_per_s or best.nodes < 1:
        return ()
    day = best.service_day
    if day is not None:
        per_replica = day.per_replica_requests_per_s
    else:
        cap = srv.replica_requests_per_s
        per_replica, _words = held_load(load_fn, job, best.gpu, srv.tensor_parallel, cap, srv.replicas)
    if not per_replica > 0 or not math.isfinite(per_replica):
        return ()
    out = []
    for scale in scales:
        # a service of traced calls is held at the share its plan checked its latency at; at another
        # load its plan fits that load again (:func:`_refitted_load`)
        held = _refitted_load(workload, srv, scale) or per_replica
        at = day.at_load(scale, held) if day is not None else None
        if workload.serving.scales_down and at is not None and at.scales:
            out.append((scale, tuple((at.step, hours) for hours in at.hours)))
            continue
        instances = fleet_at_load(
            srv.requests_per_s * scale,
            held,
            job.min_replicas,
            srv.replicas / best.nodes,
            best.nodes,
            scale,
        )
        out.append((scale, ((instances * best.gpu_count / best.nodes, busy_h),)))
    return tuple(out)


def _service_month_hours(
    load: float, per_run: float, at_load: tuple[tuple[float, tuple[tuple[float, float], ...]], ...]
) -> float:
    """A service's GPU-hours in a month of ``load`` × the load it was sized at: its sized fleet's
    (``per_run``) at its own load, none at none, else its fleet's at that load (``at_load``, as
    :meth:`Demand.levels` runs it)."""
    if load <= 0:
        return 0.0
    if math.isclose(load, 1.0):
        return per_run
    layers = next(layers for s, layers in at_load if math.isclose(s, load))
    return sum(gpus * hours for gpus, hours in layers)


def _refitted_load(workload: Workload, srv: ServiceFigures, scale: float) -> float | None:
    """The requests/s one replica of a service of traced calls (an image's denoiser calls, one
    forward pass) is held at with its load × ``scale``, as ``plan`` of that load holds it: the load
    over the fewest replicas that carry it within the sizing headroom and its p95 target (the
    users' network beside it, where known: :meth:`ImageStep.peak_replicas`, as ``plan`` fits an
    option's), held at the share ``deploy`` holds such a plan's replica at (the headroom's, or below
    it the share its target was checked at: :func:`launch_latency_share`). The plan of its own load
    holds a replica at the share that load reached where a target is set, which is no limit: a plan
    of 1.3 × its 2 requests/s on an A10 replica of 6.31 checks its target again at 41 % and keeps the
    one replica, where that share (32 %) had needed two. None for any other service (a language
    model's replica is held at the highest share at which its targets hold: ``gpuplan.api.
    replica_load_on``), or where the figures do not give one."""
    from gpuplan.perf.image_serving import ImageStep
    from gpuplan.perf.inference import TARGET_UTILISATION
    from gpuplan.perf.replica_load import launch_latency_share

    serving = workload.serving
    capacity = srv.replica_requests_per_s
    if serving is None or not workload.serves_traced_calls or not capacity or not math.isfinite(capacity):
        return None
    target = serving.p95_latency_ms
    if target is not None and srv.users_rtt_s is not None:
        target -= srv.users_rtt_s * 1000.0
    peak = srv.requests_per_s * scale
    replicas = ImageStep.of_capacity(capacity, workload.inputs.batch_size).peak_replicas(peak, target)
    if replicas is None:
        return None
    utilisation = peak / (replicas * capacity)
    share = launch_latency_share(utilisation=utilisation, has_latency_target=target is not None)
    return capacity * (TARGET_UTILISATION if share is None else share)


def _flat_service_words(workload: Workload, best: Option) -> str | None:
    """Why a service is priced as its peak fleet all its hours (no tiers), in words; None for a job
    and for a load whose mean is its peak (it is flat)."""
    serving = workload.serving
    if serving is None:
        return None
    if serving.mean_requests_per_s is None:
        return _(
            "its peak fleet all its hours (no mean_requests_per_s: the load is taken at its peak all month)"
        )
    if serving.mean_requests_per_s >= serving.requests_per_s:
        return None
    if best.service is None or not best.service.replica_requests_per_s:
        return _("its peak fleet all its hours (a replica's capacity is not estimated)")
    return _("its peak fleet all its hours (one instance carries the peak: nothing to scale down)")


def _shard_gpus(workload: Workload) -> int | None:
    """The GPUs one shard of a batch-inference job runs on (``infer`` without ``serving:``): the
    workload's ``tensor_parallel``. Its shards share no traffic (the estimate times no collective
    for a forward pass over data-parallel GPUs, and ``gpuplan deploy``'s batch script gives each
    its own slice of the inputs), so its hours hold on any instance holding one shard's GPUs, as a
    service's replica's do. None for any other workload."""
    if workload.task is not Task.INFER or workload.serving is not None:
        return None
    return workload.tensor_parallel


def _host_need(
    store: Store, best: Option, *, serving: bool, provider_run: bool = False, shard_gpus: int | None = None
) -> HostNeed:
    """The instances a planner-sized run's hours hold on (:class:`HostNeed`), from the plan's
    option and the catalog's figures of its instance type (the lowest over its rows; a link or a
    network kind only where every row writes the same).

    A job in one node: any type holding its GPUs in one node, linked alike where it has several,
    with vCPUs and RAM (which feed its input pipeline) known and no fewer. A job over several nodes:
    types of as many GPUs per node, linked alike, with the network known, of the same kind and no
    slower, and the same vCPUs and RAM bound. A service: any type holding one replica's GPUs so (its
    replicas are independent servers; its requests arrive decoded, so vCPUs and RAM do not bound
    it), or the rule of a run over several nodes where a replica spans them. ``provider_run``: only
    on machines a provider runs (``hosts: provider``). ``shard_gpus``: a batch-inference job's
    shard (:func:`_shard_gpus`), held as a service's replica is, its vCPUs and RAM still bounding it."""
    replica = best.service.replica_gpus if serving and best.service is not None else shard_gpus
    one_node = best.nodes == 1 if replica is None else replica <= best.gpus_per_node
    rows = [
        p
        for p in store.offers(include_unpriced=False)
        if p.provider == best.provider and p.instance_type == best.instance_type
    ]
    return HostNeed(
        provider=best.provider,
        instance_type=best.instance_type,
        one_node=one_node,
        gpus_per_node=float(
            best.gpus_per_node if not one_node else replica if replica is not None else best.gpu_count
        ),
        interconnect=_same([p.interconnect for p in rows]),
        network_gbps=_lowest([p.network_gbps for p in rows]),
        network_kind=_same([p.network_kind for p in rows]),
        vcpus=_lowest([p.vcpus for p in rows]),
        memory_gib=_lowest([p.memory_gib for p in rows]),
        host_bound=not serving,
        provider_run=provider_run,
    )


def _placed(
    need: HostNeed, store: Store, usage: Usage, workload: Workload, best: Option, placed: Placement
) -> HostNeed:
    """``need`` kept within the workload's own place rules (``HostNeed.places`` and ``placed``): the
    providers and regions of its GPU's catalog rows where each rule the workload sets holds
    (:mod:`gpuplan.commit.placement`); ``need`` itself where it sets none."""
    said = [
        *placed.own,
        *(w for w in (compliance_words(workload), users_words(workload)) if w is not None),
    ]
    if not said:
        return need
    low = usage.constraints.allow_low_confidence
    rows = [p for p in store.offers(include_unpriced=False) if p.gpu == best.gpu]
    # a region is in where every row of it keeps the rules (a label one row lacks is not assumed)
    out = {(p.provider, p.region) for p in rows}
    out -= {
        (p.provider, p.region)
        for p in rows
        if not (
            placed.holds(p)
            and complies(p, workload, allow_low_confidence=low)
            and near_users(p, workload, best)
        )
    }
    return replace(
        need,
        places=frozenset(out),
        pricing=frozenset(placed.pricing) if placed.pricing else None,
        placed=item_list(said),
    )


def _same(values: list[str | None]) -> str | None:
    """The one value all of ``values`` share; None when they differ, one is not known or there are none."""
    return values[0] if values and values[0] and len(set(values)) == 1 else None


def _lowest(values: list[float | None]) -> float | None:
    """The lowest of ``values``; None when there are none or one is not known."""
    known = [v for v in values if v is not None]
    return min(known) if known and len(known) == len(values) else None


def _data_each_run(spec: DemandSpec, job: JobFacts) -> str:
    """``new`` or ``same``: the demand's ``data_each_run``, else ``new`` for batch inference (a
    night's tickets are not last night's: a copy kept in the region would be stale by the next run)
    and ``same`` for the rest (a training run goes over its dataset again)."""
    if spec.data_each_run is not None:
        return spec.data_each_run
    return data_each_run_default(job.task, job.is_service)


def data_each_run_default(task: str, is_service: bool) -> str:
    """``new`` for batch inference (each run reads new inputs), ``same`` for the rest."""
    return "new" if task == "infer" and not is_service else "same"


def keeps_copy(provider: str, moved_in: bool, data_each_run: str) -> bool:
    """Whether a run's dataset, moved into a region of ``provider`` at a price (``moved_in``), may
    come from one copy kept in the region's object storage instead: the provider's instances read
    its object storage there for free (:data:`KEPT_COPY_PROVIDERS`) and each run reads the same
    data (a copy would hold the runs before's inputs otherwise)."""
    return moved_in and provider in KEPT_COPY_PROVIDERS and data_each_run == "same"


def _run_data(
    store: Store,
    usage: Usage,
    gpu: str,
    job: JobFacts,
    *,
    nodes: int,
    run_h: float,
    data_each_run: str = "same",
    instance_h: float | None = None,
    recopies: bool = False,
) -> tuple[RunData, ...]:
    """What one run pays besides GPU time in each region the usage allows that sells ``gpu``, as
    the planner costs it (``CostFacts.charges``): the dataset in from ``data.location`` (every
    copy its ``nodes`` disks need), the results back, storage and licence fees for ``run_h``
    hours. An unknown transfer or storage price is bounded at the highest of its kind the catalog
    holds (the planner's conservative bound), never 0; the set-up is GPU time (in ``run_h``).

    Away from the data, the other way in beside it: one copy moved in once and kept in the
    region's object storage (``RunData.copy_*``; the optimiser takes the cheaper over the runs it
    places there). The runs' disks are then filled from that copy inside the region at no transfer
    charge, as the planner costs ``data.transfer: fan_out``, and still hold the dataset for the
    runs' hours (their storage is unchanged); the results go back from every run as before. Not
    where each run reads new data (``data_each_run`` ``new``, batch inference's default): a kept
    copy would hold the runs before's inputs, so every run moves its own in, and the notes say so.

    ``instance_h``: the hours its instances run in one run, where that is not ``nodes × run_h``: a
    service priced by its day (its tiers' hours). A replica scaled down is deleted with its disk
    (``deploy``'s Kubernetes and SkyServe replicas), so the per-instance disks and the
    per-instance-hour licence fees are paid for those hours only; a shared volume (not block
    storage) is kept all ``run_h``, and the copy kept in object storage all month, as before.

    ``recopies``: on spot a reclaim may lose the disks that hold the dataset, so each restart moves
    it in again (``RunData.recopy_usd``, every copy the disks need), as the planner costs it at its
    conservative bound; from a copy kept in the region it is free."""
    from gpuplan.plan.build_inputs import cost_facts_from_store

    regions = sorted(
        {
            (p.provider, p.region)
            for p in store.offers(include_unpriced=False)
            if p.gpu == gpu and _listed(p, usage)
        }
    )
    facts = cost_facts_from_store(store, [*regions, *([job.data_location] if job.data_location else [])])
    copies = nodes if job.copies_per_node else 1
    # instance-hours of one run: every node all its hours, unless the service scales down
    node_h = nodes * run_h if instance_h is None else instance_h
    out = []
    for provider, region in regions:
        c = facts.charges(provider, region, job)
        # a copy to keep where the dataset is moved in at a price (none in its own region)
        moved_in = c.egress_in_usd > 0 and job.dataset_gb > 0
        keep = keeps_copy(provider, moved_in, data_each_run)
        object_usd, said = facts.object_storage(provider, region) if keep else (0.0, "")
        bucket_usd = job.bucket_gb * c.storage_usd_per_gb_hour * run_h
        every_run: tuple[str, ...] = ()
        if moved_in and data_each_run == "new":
            every_run = (
                _(
                    "dataset in: moved in for every run (each run reads new data: data_each_run is new, "
                    "the default for batch inference)"
                ),
            )
        elif moved_in and not keep:
            said_every = _(
                "dataset in: moved in for every run (no object storage of {provider} is known to keep a "
                "copy in)"
            )
            every_run = (said_every.format(provider=provider),)
        out.append(
            RunData(
                provider=provider,
                region=region,
                transfer_usd=c.egress_in_usd * copies + c.egress_out_usd,
                # each instance's launch disk, as deploy sizes it, for its hours (a bucket's plan
                # too: each instance boots with one), and the one bucket, by its bytes, all the run
                storage_usd=job.launch_disk_gb * c.disk_usd_per_gb_hour * node_h + bucket_usd,
                licence_usd=c.licence_usd_per_instance_hour * node_h,
                bucket_usd=bucket_usd,
                assumed=c.unknown,
                assumptions=(*c.assumptions, *every_run),
                dataset_in_usd=c.egress_in_usd * copies if keep else 0.0,
                copy_in_usd=c.egress_in_usd if keep else 0.0,
                copy_storage_usd_per_month=job.dataset_gb * object_usd,
                copy_assumptions=(said,) if said else (),
                recopy_usd=c.egress_in_usd * copies if recopies else 0.0,
            )
        )
    return tuple(out)


def _half_chunk_h(job: JobFacts, step_time_s: float | None, checkpoint_gb: float) -> float:
    """Work a reclaim of batch inference runs again, on average, h: half an output chunk of the
    batch job deploy writes (:func:`gpuplan.units.batch_chunk_hours`); 0 for other
    work, and where the step time is not known (the run then starts over)."""
    chunk_h = batch_chunk_hours(step_time_s) if step_time_s is not None else math.nan
    if not job.resumes_by_chunks or checkpoint_gb > 0 or not chunk_h > 0 or not math.isfinite(chunk_h):
        return 0.0
    return chunk_h / 2.0


def _spare_replica_gpus(best: Option, job: JobFacts) -> int:
    """One replica's GPUs of a service sized on ``best``: the option's (its tensor parallelism
    may be its own), else the workload's (``tensor_parallel × pipeline_parallel``)."""
    return best.service.replica_gpus if best.service is not None else job.replica_gpus


def _restart_h(job: JobFacts, checkpoint_gb: float, gpus_per_node: int, *, serving: bool) -> float:
    """What one reclaim costs a planner-sized demand before its work resumes, h, as the planner
    counts it. A job: a replacement, then its checkpoint read back and a LoRA/QLoRA base (not in
    the checkpoints) read again, from the same disk (``JobFacts.spot_restart_h``). A service: a
    replacement, then the weights of the replicas its instance holds read back
    (:func:`~gpuplan.plan.spot.service_down_h`), and a checkpoint where the demand gives one."""
    if not serving:
        return replace(job, checkpoint_gb=checkpoint_gb).spot_restart_h
    down = service_down_h(
        np.array([gpus_per_node]),
        job.replica_gpus,
        job.service_restart_h,
        job.weights_load_h,
        job.replicas_per_gpu,
    )
    return float(down[0]) + checkpoint_gb / job.checkpoint_write_gbps / 3600.0


def _direct_demand(usage: Usage, spec: DemandSpec) -> tuple[Demand, DemandSource]:
    from gpuplan.hardware import resolve_gpu

    try:
        gpu = resolve_gpu(spec.gpu or "").id
    except NotFoundError as e:
        raise InputError.worded(N_("demand {name}: {problem}"), name=repr(spec.name), problem=e) from e
    hours = usage.direct_gpu_hours(spec)
    busy = tuple(b if h > 0 else 0.0 for b, h in zip(usage.direct_busy_hours(spec), hours, strict=True))
    ckpt_gb = spec.checkpoint_gb or 0.0
    # The planner's stated assumptions: checkpoint bandwidth and restart time (plan.input_types.JobFacts).
    facts = JobFacts()
    write_h = ckpt_gb / facts.checkpoint_write_gbps / 3600.0
    demand = Demand(
        name=spec.name,
        gpu=gpu,
        gpu_hours=hours,
        interruptible=bool(spec.interruptible),
        # a run lasts the demand's hours of a month (its longest), unless run_hours says otherwise
        run_hours=spec.run_hours or max(busy, default=0.0) or HOURS_PER_MONTH,
        # one run of all its GPUs unless gpus_per_run says otherwise (priced on instances holding
        # them: hold_runs_together)
        gpus_per_run=float(spec.gpus_per_run or spec.gpus or 1),
        checkpoint_write_h=write_h,
        restart_h=facts.restart_h + write_h,
        # Nothing says a direct demand without ``checkpoint_gb`` can resume: an interruption
        # restarts its run (unknown is not the best case); ``checkpoint_gb: 0`` is work without
        # state, which resumes after the restart.
        restarts_from_scratch=spec.checkpoint_gb is None,
        # its GPUs at once for its hours: growth adds GPUs at once, whole ones (Demand.levels)
        busy_hours=busy,
        shift=spec.shift or "",
    )
    pattern = (
        _("a monthly calendar")
        if spec.hours_by_month
        else _("{hours:g} h/month").format(hours=spec.hours_per_month)
    )
    growth = (
        _(", {pct:+g} %/month").format(pct=spec.growth_pct_per_month) if spec.growth_pct_per_month else ""
    )
    how = _("given: {gpus} × {gpu} for {pattern}{growth}").format(
        gpus=spec.gpus, gpu=gpu, pattern=pattern, growth=growth
    )
    if spec.gpus_per_run is not None and spec.gpus_per_run < (spec.gpus or 0):
        how = _("{given}, in runs of {run} GPU(s)").format(given=how, run=spec.gpus_per_run)
    return demand, DemandSource(name=spec.name, gpu=gpu, gpu_hours_total=sum(hours), how=how)


def demands_from_usage(
    usage: Usage, store: Store, *, allow_code: bool = False, replica_load: ReplicaLoadOf | None = None
) -> tuple[tuple[Demand, ...], tuple[DemandSource, ...]]:
    """Every demand of ``usage`` in GPU-hours per month (workloads sized by the planner).
    ``allow_code``: a workload whose model is code (``model.python``) may be imported and traced
    (``--allow-code``); else it is refused in one line. ``replica_load``: the load ``deploy``'s
    autoscaler holds a service's replica at, which its day's fleet is sized by
    (:func:`gpuplan.api.replica_load_on`); None: the plan's capacity of one at the share
    ``deploy`` holds it at (the serving simulation's replica not consulted)."""
    demands, sources = [], []
    for i, spec in enumerate(usage.demands):
        d, s = (
            _workload_demand(usage, i, store, allow_code, replica_load)
            if spec.workload
            else _direct_demand(usage, spec)
        )
        if not all(math.isfinite(h) for h in d.gpu_hours):
            raise InputError.worded(
                N_("demand {name}: its growth makes the GPU-hours overflow; lower growth_pct_per_month"),
                name=repr(spec.name),
            )
        demands.append(d)
        sources.append(s)
    _check_shifts(usage, demands)
    return tuple(demands), tuple(sources)


def hold_runs_together(
    demands: Sequence[Demand], sources: Sequence[DemandSource], offers: Sequence[PricedOffer]
) -> tuple[tuple[Demand, ...], tuple[DemandSource, ...]]:
    """Each direct demand whose run needs several GPUs together on the instances that hold them
    (:meth:`HostNeed.together`: in one node where an instance of its GPU among ``offers`` does,
    else the fewest nodes), its demand line saying so; a planner-sized demand already has its
    instances, and a run of one GPU may take any."""
    out, said = [], []
    for d, s in zip(demands, sources, strict=True):
        if d.host is None and not d.run_data and d.gpus_per_run > 1:
            host = HostNeed.together(d.gpus_per_run, [o for o in offers if o.gpu == d.gpu])
            d = replace(d, host=host)
            s = replace(s, how=_("{sized}; {priced_on}").format(sized=s.how, priced_on=host.said))
        out.append(d)
        said.append(s)
    return tuple(out), tuple(said)


def shift_notes(demands: Sequence[Demand]) -> list[str]:
    """A note where the demands name a single shift: it keeps them apart from nothing."""
    names = sorted({d.shift for d in demands if d.shift})
    if len(names) != 1:
        return []
    return [
        _(
            "shift {name} is the only shift named, so it changes nothing: a shift keeps demands apart "
            "only from those of another shift"
        ).format(name=repr(names[0]))
    ]


def _check_shifts(usage: Usage, demands: Sequence[Demand]) -> None:
    """Shifts never run at the same hours, so in each month their hours must fit in one month."""
    for m in range(usage.horizon_months):
        longest: dict[str, float] = {}
        for d in demands:
            if d.shift:
                longest[d.shift] = max(longest.get(d.shift, 0.0), d.busy_h(m))
        if sum(longest.values()) > HOURS_PER_MONTH * (1 + 1e-9):
            raise InputError.worded(
                N_(
                    "shifts {shifts} run {hours:,.0f} h in {month}, but shifts never share an hour and "
                    "a month has {month_h:g} h; give fewer hours, or one shift to demands that may run "
                    "together"
                ),
                shifts=listed(sorted(longest)),
                hours=sum(longest.values()),
                month=usage.month_label(m),
                month_h=HOURS_PER_MONTH,
            )
