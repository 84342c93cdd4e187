"""The commitment optimiser's own input and output types: priced offers, demands, the schedule.

How capacity meets demand (the modelling decision every number here rests on):

- Time is counted in months of :data:`~gpuplan.units.HOURS_PER_MONTH` (730 h) each; demand is
  GPU-hours per month per GPU type, on the instances its hours hold on (``HostNeed``: a
  planner-sized run's hours were timed on one instance; a cheaper one of the same GPU with a
  network or host not known does not deliver them). Demands of one GPU type and one such set of
  instances form a pool (``Demand.pool``) whose committed GPUs they share; a unit bought for one
  pool does not serve another's demands (the conservative bound where the two could share it).
- A committed unit (one instance under a monthly subscription or a reserved term) is there for
  every hour of every month of its term, so it supplies ``gpus_per_unit × 730`` GPU-hours in each
  of those months, used or not.
- Within a month, a demand needs its GPUs *at once* for its busy hours (``Demand.busy_hours``): a
  service of 12 GPUs all month and its evening peak of 20 more for 180 h need 32 GPUs at 21:00, not
  the 17 that their 12,360 GPU-hours would fill. A committed GPU serves one GPU-hour per hour, so the
  GPUs in service in each hour (committed, plus those bought by the hour) must be at least the load
  of that hour. Which hours of the month the demands share is not known, so it is taken at its worst
  (``overlap.month_slices``): demands of one month run at the same time, longest at the bottom, from
  the month's first hour — a load that needs the most capacity above any commitment — unless they
  name different shifts (``shift``), which never run at the same hours (a service by day, training
  at night).
  A committed GPU idle in one hour does not serve another hour's load.
- What commitments do not cover is bought by the hour: on-demand for any demand, spot only for
  interruptible demand, each demand at its own cheapest price per useful GPU-hour (hourly capacity
  has no limit in this model). A run bought by the hour takes whole instances: a 1-GPU run on an
  8-GPU instance pays for 8 GPUs (``recourse.packing``; runs are not assumed to share an
  instance). A spot GPU-hour delivers ``1 / overhead`` useful GPU-hours (checkpoints, lost work,
  restarts; ``plan/spot.py``'s model).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING

from gpuplan import vocab
from gpuplan.units import HOURS_PER_MONTH, instances_for

if TYPE_CHECKING:
    from gpuplan.plan.input_types import JobFacts
    from gpuplan.plan.spot import SpotRate

__all__ = [
    "COMMITMENT_PRICING",
    "HOURLY_PRICING",
    "PAST_HORIZON_RULES",
    "BreakEvenBasis",
    "Commitment",
    "DataCopyChoice",
    "DataRate",
    "Demand",
    "HeldOut",
    "HeldOutReason",
    "HostNeed",
    "MissingPrice",
    "MonthCost",
    "OnDemandAlternative",
    "Peak",
    "Pool",
    "PricedOffer",
    "RunData",
    "Schedule",
    "SpotFallback",
    "TcoProblem",
    "cheaper_way_in",
    "copy_choice",
]

#: Pricing models bought by the hour, and those bought for a term of whole months (vocab
#: ``PRICING_RULES``).
HOURLY_PRICING: tuple[str, ...] = tuple(p.value for p in vocab.HOURLY_PRICING)
COMMITMENT_PRICING: tuple[str, ...] = tuple(p.value for p in vocab.COMMITTED_PRICING)

#: How a term that runs past the horizon is charged: ``full`` (every month of the term is paid: the
#: contract says so) or ``remaining_value`` (the months past the horizon are credited at their
#: price, as if the capacity keeps its value for the work after the horizon).
PAST_HORIZON_RULES = ("full", "remaining_value")


@dataclass(frozen=True, kw_only=True)
class PricedOffer:
    """One instance type in one region under one pricing model, with a known USD price."""

    provider: str
    region: str
    instance_type: str
    gpu: str
    """Canonical GPU id."""
    gpus_per_unit: float
    """GPUs in one instance (one unit of commitment)."""
    pricing: str
    """One of :data:`HOURLY_PRICING` or :data:`COMMITMENT_PRICING`."""
    usd_per_unit_hour: float
    """Price of one instance-hour in USD; for a commitment, its monthly price / 730."""
    currency: str = "USD"
    """The currency the provider publishes the price in; another than USD was converted at the
    catalog's dated rate."""
    term_months: int = 0
    """Months one commitment lasts: 0 for hourly pricing, 1 for a monthly subscription, 12 or 36."""
    interruptions_per_hour: float | None = None
    """Spot only: interruptions per instance-hour (band or the stated default)."""
    rate_source: str = ""
    spot_rate: SpotRate | None = None
    """Spot only: the interruption rate and what backs it (a published band, or assumed: said
    beside the price wherever it is used)."""
    confidence: str = "high"
    source: str = ""
    as_of: str = ""
    floor_as_of: str = ""
    """A spot price of unknown age, or older than the staleness limit, costed at a dated one below it
    (``OfferPrice.dated_floor_usd_per_hour``): that price's day; "" when the offer's own price is used."""
    own_usd_per_unit_hour: float | None = None
    """With ``floor_as_of``: the offer's own price (the best case), USD per instance-hour."""
    own_stale_as_of: str = ""
    """With ``floor_as_of``: the own price's date where it is dated but older than the limit; ""
    where it is undated."""
    vcpus: float | None = None
    """vCPUs of one instance; None: not in the catalog."""
    memory_gib: float | None = None
    """RAM of one instance, GiB; None: not in the catalog."""
    interconnect: str | None = None
    """The GPU link inside one instance as the catalog writes it; None: not in the catalog."""
    network_gbps: float | None = None
    """The network between instances, Gbit/s; None: not in the catalog."""
    network_kind: str | None = None
    """``EFA``, ``InfiniBand``, ``RoCE`` or ``TCP``; None: not in the catalog."""
    upfront: str = ""
    """A reservation's payment option its price is the effective rate of (``partial``, ``all``:
    :mod:`gpuplan.catalog.upfront`); "" for no upfront or another pricing model."""
    billing_granularity_s: int | None = None
    """The step an hourly price bills a run's time in, seconds; None: not in the catalog (a whole
    hour, as the plan bills it: :func:`gpuplan.plan.billing.billed_hours`)."""
    min_billing_s: int | None = None
    """The least time an hourly price bills a run, seconds; None: not in the catalog (none)."""

    @property
    def usd_per_unit_month(self) -> float:
        """One instance for one month (730 h)."""
        return self.usd_per_unit_hour * HOURS_PER_MONTH

    @property
    def usd_per_gpu_hour(self) -> float:
        return self.usd_per_unit_hour / self.gpus_per_unit

    @property
    def is_commitment(self) -> bool:
        return self.term_months > 0

    @property
    def label(self) -> str:
        return f"{self.provider}/{self.region} {self.instance_type} {self.pricing}"

    @property
    def tie_key(self) -> tuple[int, str]:
        """How two offers of one price are told apart: the one surely observed later first (by the
        earliest day its date allows, an undated one's no earlier than its GPU's launch; a price of no
        readable date last: an unknown fact never wins a tie against a known one), then by label, so
        that the answer does not depend on catalog order."""
        from gpuplan.catalog.dates import bound_by_launch, parse_as_of
        from gpuplan.hardware import launch_month

        parsed = parse_as_of(self.floor_as_of or self.as_of)
        if parsed is not None:
            parsed = bound_by_launch(parsed, launch_month(self.gpu))
        return (-parsed.earliest.toordinal() if parsed is not None else 0, self.label)


@dataclass(frozen=True, kw_only=True)
class MissingPrice:
    """A pricing model the usage allows for a GPU type demanded, with no usable price: whether it
    pays off is unknown, not "no"."""

    pricing: str
    gpu: str
    low_confidence_rows: int = 0
    """Rows of it left out as low-confidence (``allow_low_confidence: true`` would use them)."""
    held_out: tuple[HeldOut, ...] = ()
    """Priced offers of it within the constraints that a demand's hours do not hold on
    (:attr:`Demand.host`), each with its reason (:class:`HeldOutReason`): the price exists, not for
    that demand. A refresh or an imported price list does not change that."""

    def held_out_for(self, reason: HeldOutReason) -> tuple[HeldOut, ...]:
        """The offers held out for ``reason``, in order."""
        return tuple(h for h in self.held_out if h.reason is reason)

    @property
    def elsewhere(self) -> int:
        """How many prices of it are on instances too small for a direct demand's run: every price
        of it, counted once (each is held out of every demand that none serves)."""
        per_demand = Counter(h.demand for h in self.held_out_for(HeldOutReason.TOO_SMALL))
        return max(per_demand.values(), default=0)


class HeldOutReason(str, Enum):
    """Why a priced offer does not hold a demand's hours."""

    TOO_SMALL = "too_small"
    """A direct demand's run (its GPU-hours the user's, sized on no instance) needs more of its GPUs
    together in one node than the instance holds (:meth:`HostNeed.together`); one per price."""
    NOT_AS_ABLE = "not_as_able"
    """A workload demand's hours were sized on another instance, and this one is not known to be as
    able (:meth:`HostNeed.allows`); one per instance type, an instance too small for the run named
    only where no larger one is held out."""


@dataclass(frozen=True, kw_only=True)
class HeldOut:
    """A priced offer a demand's hours do not hold on, and why (:meth:`HostNeed.refusal`)."""

    demand: str
    offer: str
    """The offer in words: ``alibaba/cn-shanghai ecs.gn7e-c16g1.32xlarge``."""
    provider: str
    reason: HeldOutReason
    sized_on: str = ""
    """The instance type the demand's hours were sized on ("" for a direct demand: none)."""
    why: str
    """Why the hours do not hold on it, in words."""


@dataclass(frozen=True, kw_only=True)
class RunData:
    """What one run of a workload demand pays in one region besides its GPU time, USD, as the
    planner counts it (``plan/region_costs.py``; the set-up is GPU time, already in the GPU-hours)."""

    provider: str
    region: str
    transfer_usd: float
    """The dataset in from its location (every copy the run's disks need) and the results back;
    0 in the data's own region."""
    storage_usd: float
    """The dataset, checkpoints and weights on the run's disks (or bucket) for the run's hours."""
    licence_usd: float = 0.0
    """Per-instance-hour fees the catalog lists for the region, for the run's hours."""
    bucket_usd: float = 0.0
    """The part of ``storage_usd`` that pays for the one object-storage bucket the run's instances
    share (0 on block storage): a charge of the run, not of each instance, so a service's spare
    unit does not add to it (:meth:`Demand.data_rate`)."""
    assumed: bool = False
    """A transfer or storage price of the region is not in the catalog: costed at its conservative
    bound (the highest of its kind the catalog holds), never 0."""
    assumptions: tuple[str, ...] = ()
    """What was assumed and the region's caveats, in words (the planner's ``RegionCharges``)."""
    dataset_in_usd: float = 0.0
    """The part of ``transfer_usd`` that moves the dataset in (every copy the run's disks need):
    what a copy kept in the region saves each run; 0 in the data's own region (no copy to keep)."""
    copy_in_usd: float = 0.0
    """The dataset moved in once, one copy, to keep it in the region's object storage."""
    copy_storage_usd_per_month: float = 0.0
    """That copy stored for one month at the region's object-storage price (unknown: the highest
    the catalog holds)."""
    copy_assumptions: tuple[str, ...] = ()
    """What was assumed of the copy's storage price, in words (empty where the catalog has it)."""
    recopy_usd: float = 0.0
    """What each spot restart pays to move the dataset in again, where a reclaim may lose the disks
    that hold it (its conservative bound, as the planner costs it: ``JobFacts.recopies_on_reclaim``):
    every copy the run's disks need, from its location; from a copy kept in the region it is free.
    0 in the data's own region, off spot, or where the dataset is not on the instances' disks."""

    @property
    def usd(self) -> float:
        return self.transfer_usd + self.storage_usd + self.licence_usd

    @property
    def can_keep_copy(self) -> bool:
        """Whether a copy kept in the region could replace moving the dataset in for every run."""
        return self.dataset_in_usd > 0


@dataclass(frozen=True, kw_only=True)
class DataRate:
    """What a useful GPU-hour of one demand pays besides GPU time in one region, as the optimiser
    prices it (:meth:`Demand.data_rate`)."""

    provider: str
    region: str
    usd_per_gpu_hour: float
    """What the optimiser compares offers by: the run's charges with the dataset in at the cheaper
    of every run and a copy kept in the region (spread over the demand's GPU-hours)."""
    run_usd_per_gpu_hour: float
    """Without the dataset's way in where a copy could be kept (``copy``): what a schedule pays per
    GPU-hour whatever the choice; the rest is settled on the hours placed (:func:`copy_choice`)."""
    copy: RunData | None = None
    """The region's figures where a copy could be kept; None: the rate is all there is."""
    moves_per_run: float = 1.0
    """The dataset's moves in per run where a copy could be kept: 1, plus a spot run's expected
    restarts that copy it again (``RunData.recopy_usd``); a kept copy makes all of them free."""


@dataclass(frozen=True, kw_only=True)
class DataCopyChoice:
    """How a workload demand's dataset gets to one region the schedule places its runs in: moved
    in for every run, or one copy kept there, whichever costs less for the runs placed there."""

    demand: str
    provider: str
    region: str
    kept: bool
    """True: one copy moved in once and kept in the region's object storage; False: moved in for
    every run (a run's disks are filled from the copy inside the region either way)."""
    runs: float
    """The demand's runs placed in the region over the horizon (GPU-hours / a run's)."""
    first_month: int
    """Index into the horizon of the first month a run is placed there."""
    per_run_usd: float
    """The dataset moved in for every one of those runs, USD."""
    kept_usd: float
    """One copy moved in during ``first_month`` and stored from then to the horizon's end, USD."""
    copy_in_usd: float
    copy_storage_usd_per_month: float
    assumptions: tuple[str, ...] = ()
    """What was assumed of the copy's storage price (said where the copy is kept)."""
    recopies: float = 0.0
    """The spot restarts of those runs expected to move the dataset in again (a reclaim taken to
    lose the disks): counted in ``per_run_usd`` beside the runs."""

    @property
    def usd(self) -> float:
        """What the choice costs: the cheaper of the two."""
        return self.kept_usd if self.kept else self.per_run_usd


def cheaper_way_in(data: RunData, *, months: int, moves: float) -> tuple[bool, float, float]:
    """Whether one copy kept in ``data``'s region costs less than moving the dataset in ``moves``
    times, with both figures, USD: the copy's transfer once and its storage for ``months`` months,
    against ``moves × dataset_in_usd``. A tie keeps the per-run transfer (no copy to look after)."""
    kept = data.copy_in_usd + data.copy_storage_usd_per_month * months
    per_run = moves * data.dataset_in_usd
    return kept < per_run, kept, per_run


def copy_choice(
    demand: Demand, data: RunData, hours: Sequence[float], moves: Sequence[float] | None = None
) -> DataCopyChoice | None:
    """The cheaper way for ``demand``'s dataset into ``data``'s region given the useful GPU-hours
    placed there in each month (``hours``); None where none are placed. A copy costs its transfer
    once, in the first month a run is placed there, and its storage for every month from then to
    the horizon's end (it is kept until then: the runs after are not known to stop); moving the
    dataset in costs ``dataset_in_usd`` per run, and again per spot restart that copies it again:
    ``moves``, the GPU-hours each month weighted by the dataset's moves per run
    (:attr:`DataRate.moves_per_run`; default ``hours``). A tie keeps the per-run transfer (no copy
    to look after)."""
    first = next((m for m, h in enumerate(hours) if h > 0), None)
    if first is None or demand.gpu_hours_per_run <= 0:
        return None
    runs = sum(hours) / demand.gpu_hours_per_run
    moved = sum(moves) / demand.gpu_hours_per_run if moves is not None else runs
    keep, kept, per_run = cheaper_way_in(data, months=len(hours) - first, moves=moved)
    return DataCopyChoice(
        demand=demand.name,
        provider=data.provider,
        region=data.region,
        kept=keep,
        runs=runs,
        first_month=first,
        per_run_usd=per_run,
        kept_usd=kept,
        copy_in_usd=data.copy_in_usd,
        copy_storage_usd_per_month=data.copy_storage_usd_per_month,
        assumptions=data.copy_assumptions,
        recopies=max(0.0, moved - runs),
    )


@dataclass(frozen=True, kw_only=True)
class HostNeed:
    """The instances a planner-sized demand's hours hold on: the instance type its run was sized
    on, and others known to be at least as able to run it.

    The planner's run time rests on the instance it chose (the estimator's key: the GPUs per node
    and nodes, the GPU link in a node, the network between nodes and its kind, and for a job the
    vCPUs and RAM that feed its input pipeline, ``perf.workload_request.host_pipeline``). Another
    instance type of the same GPU holds the hours where each of these that matters is known and
    no worse: a run in one node (a service: each replica) on any type holding its GPUs in one node;
    a run over several nodes only on types of as many GPUs per node, linked alike, with a network
    known, of the same kind and no slower (a type whose network is not known is timed by the
    planner at its slow end: hours many times the plan's). Unknown is never the best case: where
    the sized instance's own figure is not known, no other type is known to match it.

    A direct demand's run of several GPUs (:meth:`together`) was sized on no instance: its GPUs
    work together (a data- or model-parallel job), so, as a plan places a job, they are held in
    one node where an instance of the GPU holds them, else over the fewest nodes, never spread over
    smaller instances whose traffic between them would make the hours given longer."""

    provider: str
    """Who sells it: an instance type's name is its provider's (another's of the same name is
    another machine)."""
    instance_type: str
    """The instance type the planner sized the run on: always allowed, in any of its provider's
    regions."""
    one_node: bool
    """The run (a service: each replica) fits in one node: another type holding ``gpus_per_node``
    GPUs or more may serve it. False: the run spans nodes; another type must have exactly
    ``gpus_per_node`` GPUs and a network known and no slower."""
    gpus_per_node: float = 1.0
    """The GPUs one instance must hold: the run's in one node (a service: a replica's), or the
    sized instance's where the run spans nodes."""
    interconnect: str | None = None
    """With more than one GPU per node: the sized instance's GPU link as the catalog writes it,
    which another's must be (known, the same words); None: not known."""
    network_gbps: float | None = None
    """A run over several nodes: the sized instance's network, Gbit/s, which another's must be
    known and at least; None: not known."""
    network_kind: str | None = None
    """A run over several nodes: the sized instance's network kind (``EFA``, ``TCP`` …), which
    another's must be (known, the same); None: not known."""
    vcpus: float | None = None
    """With ``host_bound``: the least vCPUs another instance needs (the sized one's); None: not known."""
    memory_gib: float | None = None
    """With ``host_bound``: the least RAM another instance needs, GiB (the sized one's); None: not known."""
    host_bound: bool = False
    """The run's time depends on the host's vCPUs and RAM (a job; a service's requests arrive
    decoded): another instance must have both known and no fewer."""
    run_gpus: float = 0.0
    """A direct demand's run (its hours the user's, sized on no instance): the GPUs it needs
    together, held by any instance of ``gpus_per_node`` GPUs or more: the run's own count in one
    node, or where no instance of its GPU the constraints allow holds that many, the most one
    holds (the fewest nodes). 0: a planner-sized run (``instance_type`` and the rules above)."""
    provider_run: bool = False
    """Only machines a provider runs hold its hours (``hosts: provider`` in the workload or the
    usage: a community host and a host of unknown kind left out, as the plan leaves them,
    ``catalog.providers.provider_runs``), the sized instance type's own rows included."""
    places: frozenset[tuple[str, str]] | None = None
    """The ``(provider, region)`` pairs the workload's own place rules allow (its providers, regions,
    countries, compliance labels, a service's users' round trip; the usage's too where both give
    one, ``commit/placement.py``): its hours, its commitments and its all-on-demand figure are bought
    there only, the sized instance type's own rows included. None: the workload sets none (the
    usage's rules, applied to every offer, hold)."""
    pricing: frozenset[str] | None = None
    """The pricing models the workload's own ``constraints.pricing`` allows (the usage's too where
    both give one, ``commit/placement.py``): its hours and its commitments are bought on them only.
    None: the workload sets none (the usage's, applied to every offer, hold)."""
    placed: str = ""
    """Those rules in words (``countries: EU (the workload's)``), for the demand line; "" without."""

    @classmethod
    def together(cls, run_gpus: float, offers: Sequence[PricedOffer]) -> HostNeed:
        """A direct demand's need: ``run_gpus`` together in one node where an instance among
        ``offers`` (its GPU's) holds them, else over the fewest nodes, on the largest instances
        (each run bought as whole instances: ``recourse.packing``)."""
        most = max((o.gpus_per_unit for o in offers), default=run_gpus)
        return cls(
            provider="",
            instance_type="",
            one_node=most >= run_gpus,
            gpus_per_node=min(run_gpus, most),
            run_gpus=run_gpus,
        )

    @property
    def nodes(self) -> int:
        """The nodes a direct demand's run spans (1 for a planner-sized one in one node)."""
        return instances_for(self.run_gpus, self.gpus_per_node) if self.run_gpus else 1

    def allows(self, offer: PricedOffer) -> bool:
        """Whether the run's hours hold on ``offer``'s instance."""
        if not self.placed_at(offer) or not self.priced_at(offer):
            return False
        if self.provider_run and not _provider_runs(offer):
            return False
        if self.run_gpus:
            return offer.gpus_per_unit >= self.gpus_per_node
        if offer.provider == self.provider and offer.instance_type == self.instance_type:
            return True
        if not self.others:
            return False
        if self.one_node:
            if offer.gpus_per_unit < self.gpus_per_node:
                return False
        elif not (
            offer.gpus_per_unit == self.gpus_per_node
            and _at_least(offer.network_gbps, self.network_gbps)
            and offer.network_kind == self.network_kind
        ):
            return False
        if self.linked and _words(offer.interconnect) != _words(self.interconnect):
            return False
        return not self.host_bound or (
            _at_least(offer.vcpus, self.vcpus) and _at_least(offer.memory_gib, self.memory_gib)
        )

    def refusal(self, offer: PricedOffer) -> str:
        """Why the run's hours are not known to hold on ``offer``'s instance, in words (the first
        fact :meth:`allows` finds wanting); "" where they hold."""
        from gpuplan.i18n import _

        if self.allows(offer):
            return ""
        if not self.placed_at(offer):
            return _("{offer} is in {region}, outside its workload's place rules ({rules})").format(
                offer=offer.instance_type, region=f"{offer.provider}/{offer.region}", rules=self.placed
            )
        if not self.priced_at(offer):
            return _("{offer} is sold {pricing} there, outside its workload's rules ({rules})").format(
                offer=offer.instance_type,
                pricing=_(vocab.PRICING_RULES[offer.pricing].label),
                rules=self.placed,
            )
        if self.provider_run and not _provider_runs(offer):
            return _(
                "{offer} is not on a machine its provider runs (a community host, or a host of unknown "
                "kind), which hosts: provider leaves out"
            ).format(offer=offer.instance_type)
        if self.run_gpus:  # a direct demand's run: only its GPUs in one node are asked
            return _("{offer} holds {has:g} GPU(s) in one node, fewer than the {need:g} it needs").format(
                offer=offer.instance_type, has=offer.gpus_per_unit, need=self.gpus_per_node
            )
        if not self.others:
            what = (
                _("its GPU link")
                if self.linked and not self.interconnect
                else _("its network")
                if not self.one_node and (self.network_gbps is None or not self.network_kind)
                else _("its vCPUs and RAM")
            )
            return _(
                "{what} on {sized} is not known, so no other instance is known to run its hours as fast"
            ).format(what=what, sized=self.instance_type)
        if self.one_node and offer.gpus_per_unit < self.gpus_per_node:
            return _("{offer} holds {has:g} GPU(s) in one node, fewer than the {need:g} it needs").format(
                offer=offer.instance_type, has=offer.gpus_per_unit, need=self.gpus_per_node
            )
        if not self.one_node and offer.gpus_per_unit != self.gpus_per_node:
            return _("{offer} holds {has:g} GPU(s) a node, not {need:g} as {sized}").format(
                offer=offer.instance_type,
                has=offer.gpus_per_unit,
                need=self.gpus_per_node,
                sized=self.instance_type,
            )
        if self.linked and _words(offer.interconnect) != _words(self.interconnect):
            return _(
                "the catalog gives {offer}'s GPU link as {theirs}, not {ours} as on {sized}: the hours were "
                "timed over that link, and one not known to match it may be slower"
            ).format(
                offer=offer.instance_type,
                theirs=repr(offer.interconnect) if offer.interconnect else _("not known"),
                ours=repr(self.interconnect),
                sized=self.instance_type,
            )
        if not self.one_node:
            return _("{offer}'s network is not known to be {kind} and no slower than {gbps:g} Gbit/s").format(
                offer=offer.instance_type, kind=self.network_kind, gbps=self.network_gbps
            )
        return _("{offer}'s vCPUs or RAM are not known to be as many as {sized}'s").format(
            offer=offer.instance_type, sized=self.instance_type
        )

    def placed_at(self, offer: PricedOffer) -> bool:
        """Whether ``offer``'s provider and region are within the workload's place rules (:attr:`places`)."""
        return self.places is None or (offer.provider, offer.region) in self.places

    def priced_at(self, offer: PricedOffer) -> bool:
        """Whether ``offer``'s pricing model is one the workload's rules allow (:attr:`pricing`)."""
        return self.pricing is None or offer.pricing in self.pricing

    @property
    def linked(self) -> bool:
        """Whether the run's GPUs in one node talk over a link another instance must share."""
        return self.gpus_per_node > 1

    @property
    def others(self) -> bool:
        """Whether any other instance type may serve the run: the sized instance's figures the
        rule compares are known."""
        if self.linked and not self.interconnect:
            return False
        if not self.one_node and (self.network_gbps is None or not self.network_kind):
            return False
        return not self.host_bound or (self.vcpus is not None and self.memory_gib is not None)

    @property
    def said(self) -> str:
        """The rule in words, in the current language."""
        from gpuplan.i18n import _

        said = self._instances_said
        if self.provider_run:
            said = _("{instances}; only on machines a provider runs (hosts: provider)").format(instances=said)
        if self.placed:
            said = _("{instances}; bought only within {rules}").format(instances=said, rules=self.placed)
        return said

    @property
    def _instances_said(self) -> str:
        """The instances the rule allows, in words."""
        from gpuplan.i18n import _
        from gpuplan.i18n.phrases import item_list

        if self.run_gpus and self.one_node:
            return _(
                "one run of {gpus:g} GPUs together, priced on instances holding them in one node"
            ).format(gpus=self.run_gpus)
        if self.run_gpus:
            return _(
                "one run of {gpus:g} GPUs together, priced over {nodes} nodes of the largest instances "
                "the constraints allow ({per:g} GPUs each): its hours are taken as given, though the "
                "traffic between the nodes can make them longer (gpuplan plan times it on each "
                "instance's network; a workload demand is sized so)"
            ).format(gpus=self.run_gpus, nodes=self.nodes, per=self.gpus_per_node)
        sized = _("priced on {instance}, the instance its hours were sized on").format(
            instance=self.instance_type
        )
        if not self.others:
            return sized
        if self.one_node:
            needs = [_("{gpus:g} GPU(s) or more in one node").format(gpus=self.gpus_per_node)]
        else:
            needs = [
                _("{gpus:g} GPU(s) per node").format(gpus=self.gpus_per_node),
                _("a {kind} network known and no slower than {gbps:g} Gbit/s").format(
                    kind=self.network_kind, gbps=self.network_gbps
                ),
            ]
        if self.linked:
            needs.append(_("its GPUs linked by {link}").format(link=self.interconnect))
        if self.host_bound:
            needs.append(_("vCPUs and RAM known and no fewer"))
        return _("{sized}, or another instance with {needs}").format(sized=sized, needs=item_list(needs))


def _provider_runs(offer: PricedOffer) -> bool:
    """Whether ``offer`` is on a machine its provider runs (the plan's rule, read where asked: the
    catalog's provider modules are not imported for a problem that does not ask it)."""
    from gpuplan.catalog.providers import provider_runs

    return provider_runs(offer.provider, offer.instance_type, offer.region)


def _words(text: str | None) -> str:
    """A catalog's words compared as words: case and surrounding spaces aside."""
    return (text or "").strip().lower()


def _at_least(value: float | None, least: float | None) -> bool:
    """A known ``value`` no lower than a known ``least``; an unknown either way is not."""
    return value is not None and least is not None and value >= least


#: The capacity a demand draws on: its GPU type and the instances its hours hold on (None: any
#: of that GPU type). See :attr:`Demand.pool`.
Pool = tuple[str, HostNeed | None]


@dataclass(frozen=True, kw_only=True)
class OnDemandAlternative:
    """What a workload demand's runs cost on the planner's cheapest on-demand option, month by month
    (its runs × the plan's cost of one run there, set-up and data included)."""

    gpu: str
    """Canonical GPU id of the option."""
    gpus: int
    """GPUs of one run there."""
    usd: tuple[float, ...]
    """Each month of the horizon, USD."""


@dataclass(frozen=True, kw_only=True)
class SpotFallback:
    """A demand the schedule buys on spot, bought on demand instead: what it would cost if spot
    capacity cannot be had."""

    demand: str
    gpu: str | None
    """The GPU type it would run on: its own where that has an on-demand price where it may run,
    else the planner's cheapest on-demand option's; None where there is neither."""
    same_gpu: bool
    """True: its own GPU type, on the same instances' on-demand price."""
    usd: float | None
    """All its GPU-hours on demand over the horizon; None where no on-demand price serves it."""


@dataclass(frozen=True, kw_only=True)
class Demand:
    """GPU-hours needed per month on one GPU type."""

    name: str
    gpu: str
    """Canonical GPU id."""
    gpu_hours: tuple[float, ...]
    """GPU-hours needed in each month of the horizon (month 0 first)."""
    interruptible: bool = False
    """True: the work may run on spot (it checkpoints and resumes; a service keeps a spare unit:
    ``spare_replica_gpus``)."""
    spare_replica_gpus: int = 0
    """A service: the GPUs of one replica. On spot its fleet keeps a spare unit running beside it,
    the fewest instances holding one whole replica, all its busy hours, as the plan prices a service
    on spot (``plan/spot.py``'s ``service_spot``, ``spot.service.spare_instances``): the spare keeps
    the load target through a reclaim. 0: not a service (a job pays checkpoints, lost work and
    restarts instead)."""
    run_hours: float = HOURS_PER_MONTH
    """Failure-free length of one run, h (spot overhead: a checkpoint interval never exceeds it),
    without the checkpoints it writes off spot (``checkpoint_hours_off_spot``)."""
    checkpoint_hours_off_spot: float = 0.0
    """Hours one run spends writing checkpoints on demand and on a commitment, part of its GPU-hours
    (``gpu_hours``, ``gpu_hours_per_run``) and not of ``run_hours``: the launch's train.py writes
    one every 30 minutes, longer where the writes would take more than 5 % of the run (or the
    workload's ``checkpoint.every_min``: ``JobFacts.checkpoint_interval_h``) whatever the run is billed
    by, synchronously, as the planner costs it (``plan.spot.checkpoint_writes_h``). On spot the
    run writes at its own interval instead (:func:`~gpuplan.commit.recourse.spot_overhead`). 0: a
    direct demand (its hours are the user's), a service, batch inference."""
    checkpoint_every_h: float | None = None
    """The workload's own checkpoint interval (``checkpoint.every_min``), h: on spot it replaces
    Young/Daly's where it is shorter, as the planner and the launch do; None: Young/Daly's."""
    gpus_per_run: float = 1.0
    """GPUs one run spans; a run on n spot instances is interrupted n times as often."""
    checkpoint_write_h: float = 0.0
    """Time to write one checkpoint, h; 0 for work without state (serving: restart only)."""
    restart_h: float = 10.0 / 60.0
    """Time to get a new instance and resume after an interruption, h (the planner's assumption);
    a workload demand's includes copying its dataset onto the new instances' disks again where
    they hold it (the conservative bound: a reclaim loses them, ``JobFacts.recopy_hours``)."""
    recopy_h: float = 0.0
    """The part of ``restart_h`` that copies the dataset onto the new instances' disks again (a
    reclaim taken to lose them, its conservative bound); 0 where the run keeps no dataset on them."""
    restarts_from_scratch: bool = False
    """True: a run without checkpoints that nothing resumes (batch inference): an interruption
    restarts it from the beginning (``plan/spot.py``'s ``restart_from_scratch``)."""
    busy_hours: tuple[float, ...] = ()
    """Hours of each month during which the demand runs, ≤ 730; its GPUs at once average
    ``gpu_hours / busy_hours`` (a direct demand: its ``gpus`` for its hours), in whole
    ``gpu_step``s (:meth:`levels`). Empty: its runs of ``gpus_per_run`` GPUs follow one another,
    overlapping only as much as the month forces (``min(730, gpu_hours / gpus_per_run)`` hours)."""
    gpu_step: float = 1.0
    """The GPUs at once come in whole multiples of this: 1 (whole GPUs: a direct demand's growth
    adds GPUs at once), or a workload's run's GPUs (its growth adds whole runs)."""
    shift: str = ""
    """Demands of different named shifts never run at the same hours; "" = at any hour, so possibly
    alongside every other demand."""
    run_data: tuple[RunData, ...] = ()
    """A workload demand: what one run pays besides GPU time in each region it may be placed in.
    Empty: no data facts (a direct demand): its data costs are not counted."""
    gpu_hours_per_run: float = 0.0
    """GPU-hours of one run (its GPUs × its hours, without spot overhead): a run's data costs are
    spread over these; used with ``run_data``."""
    host: HostNeed | None = None
    """A planner-sized demand: the instances its hours hold on (:class:`HostNeed`). None: any
    instance of its GPU type (a direct demand names a GPU, not an instance)."""
    job: JobFacts | None = None
    """A workload demand: the planned job's facts (where its data lives, what a run moves, its
    users' countries), for what is said of hours bought in another country than its data's or
    users' (``commit/crossings.py``), by the rules the plan says them of its options; None: a
    direct demand."""
    tiers: tuple[float, ...] = ()
    """A service whose load varies over its day: the hours a month each further ``gpu_step`` of
    one run (one copy of the service) is needed, busiest first (its first step all its busy hours,
    the next for the hours the load needs two steps …): the fleet an autoscaler keeps, hour by hour,
    rather than its peak all month. Its GPU-hours per run are ``gpu_step × sum(tiers)``. Empty: the
    run's GPUs at once for all its busy hours (:meth:`levels`)."""
    on_demand_elsewhere: Callable[[], OnDemandAlternative | None] | None = None
    """An interruptible workload demand sized on spot: the planner's cheapest option on demand (its
    ranking, its deadline held), what the demand would cost if spot cannot be had and its own GPU
    type has no on-demand price where it may run (None from it: the planner finds none). A second
    planner run, so made only when called (where the schedule buys the demand on spot and its GPU
    type has no such price), and once. None: not sized on spot, or a direct demand (it names its GPU)."""
    at_load: tuple[tuple[float, tuple[tuple[float, float], ...]], ...] = ()
    """A service: one run's fleet (a month of it) at other loads, ``(load × this, its (GPUs at once,
    hours a month) layers)``, resized in whole replicas as the plan sizes its fleet
    (``plan/service_day.py``'s ``fleet_at_load``): what a change of its load (``scale`` in
    :meth:`levels`) runs, rather than its GPU-hours × the change. Empty: a job (training, batch
    work), whose GPU-hours scale with its demand (more or fewer runs at once)."""
    load_by_month: tuple[float, ...] = ()
    """A service whose fleet at other loads is given (:attr:`at_load`): its load in each month over
    the load it was sized at (its runs × its growth: 1.03 a month after 3 % growth), which
    :meth:`levels` runs its fleet at, and its ``gpu_hours`` are that fleet's. Empty: a job, or a
    service whose GPU-hours scale with its runs (no fleet at other loads)."""

    @property
    def pool(self) -> Pool:
        """The capacity it draws on: its GPU type, and the instances its hours hold on. Demands of
        one pool share committed GPUs; a committed GPU of another pool never serves it."""
        return (self.gpu, self.host)

    def allows(self, offer: PricedOffer) -> bool:
        """Whether ``offer`` may serve this demand: its GPU type, on an instance its hours hold on."""
        return offer.gpu == self.gpu and (self.host is None or self.host.allows(offer))

    def data_usd_per_gpu_hour(
        self, provider: str, region: str, overhead: float = 1.0, reclaims: float = 0.0
    ) -> float | None:
        """What a useful GPU-hour of this demand pays besides GPU time when placed in
        ``provider/region`` (:meth:`data_rate`); 0 without data facts; None where the region's is
        not known (the placement is not offered: unknown is never free)."""
        if not self.run_data:
            return 0.0
        rate = self.data_rate(provider, region, overhead, reclaims)
        return None if rate is None else rate.usd_per_gpu_hour

    def data_rate(
        self, provider: str, region: str, overhead: float = 1.0, reclaims: float = 0.0
    ) -> DataRate | None:
        """What a useful GPU-hour of this demand pays besides GPU time in ``provider/region``: a
        run's :class:`RunData` over its GPU-hours, its storage and licences for ``overhead`` times
        its hours (spot: paid hours per useful hour; a transfer is paid once, never × overhead;
        a service's overhead is its spare unit's instances beside its fleet, which add their
        launch disks and licence fees but not to the one bucket the fleet shares: ``bucket_usd``),
        and on spot the dataset moved in again for each of the run's expected ``reclaims`` where a
        reclaim may lose its disks (``RunData.recopy_usd``: the planner's conservative bound).
        None without data facts or where the region's is not known.

        Where the data lives elsewhere, its way in is the cheaper of moving it in for every run
        and one copy kept in the region (:func:`copy_choice`). A kept copy is a fixed cost of the
        region, not of an hour; the MILP prices hours, so here it is spread over all the demand's
        GPU-hours of the horizon, as if they all ran in this region from its first busy month
        (the choice the optimiser compares offers by). What a schedule pays is then settled on the
        hours it actually places there (``recourse.price_schedule``): a copy is paid whole in
        every region that keeps one, never in part, and a region with few runs moves them in
        one by one: the amortised figure only steers the choice, it is not the bill."""
        if not self.run_data or self.gpu_hours_per_run <= 0:
            return None
        r = next((r for r in self.run_data if r.provider == provider and r.region == region), None)
        if r is None:
            return None
        # a job's overhead is a longer run, which holds its bucket longer too; a service's spare
        # runs beside its fleet for the same month and adds instances, not a bucket
        shared = r.bucket_usd if self.spare_replica_gpus > 0 else 0.0
        per_node = r.storage_usd - shared + r.licence_usd
        run = (r.transfer_usd + per_node * overhead + shared) / self.gpu_hours_per_run
        if not r.can_keep_copy:
            run += r.recopy_usd * reclaims / self.gpu_hours_per_run
            return DataRate(provider=provider, region=region, usd_per_gpu_hour=run, run_usd_per_gpu_hour=run)
        without_in = run - r.dataset_in_usd / self.gpu_hours_per_run
        # each restart that copies the dataset again is one more move in (free from a kept copy)
        moves = 1.0 + r.recopy_usd * reclaims / r.dataset_in_usd
        choice = copy_choice(self, r, self.gpu_hours, [h * moves for h in self.gpu_hours])
        way_in = choice.usd / sum(self.gpu_hours) if choice is not None else 0.0
        return DataRate(
            provider=provider,
            region=region,
            usd_per_gpu_hour=without_in + way_in,
            run_usd_per_gpu_hour=without_in,
            copy=r,
            moves_per_run=moves,
        )

    def busy_h(self, month: int) -> float:
        """Hours of ``month`` the demand runs (0 when it asks for no GPU-hours then)."""
        if self.gpu_hours[month] <= 0:
            return 0.0
        if self.busy_hours:
            return self.busy_hours[month]
        return min(HOURS_PER_MONTH, self.gpu_hours[month] / self.gpus_per_run)

    def gpus_at_once(self, month: int, scale: float = 1.0) -> float:
        """The most GPUs the demand keeps busy at once in ``month``: whole steps (:meth:`levels`)."""
        return sum(gpus for gpus, _ in self.levels(month, scale))

    def levels(self, month: int, scale: float = 1.0) -> tuple[tuple[float, float], ...]:
        """The demand's load in ``month`` as whole GPUs: ``(GPUs at once, hours)`` layers, each
        from the month's first busy hour (they stack).

        Its GPU-hours × ``scale`` over its busy hours are ``n`` steps (``gpu_step``) at once on
        average; a GPU is not rented in parts, so that is ``floor(n)`` steps for all its busy hours
        and one more step for the fraction of them that is left: the GPU-hours are kept, the peak is
        rounded up. e.g. 2-GPU runs, 1.3 runs at once for 100 h: 2 GPUs for 100 h and 2 more for
        30 h (a peak of 4, not 2.6). A change of demand (``scale``, growth) is more or fewer of
        these steps at once, of the same length; a service's change of load (its month's load,
        :attr:`load_by_month`, × ``scale``) its fleet at that load where it is given
        (:attr:`at_load`), whole replicas, not GPU-hours × it: a service grown 3 % is one fleet at
        1.03 × its load, not a second fleet for 3 % of its hours."""
        busy = self.busy_h(month)
        step = self.gpu_step
        if busy <= 0 or step <= 0:
            return ()
        if self.load_by_month:
            load = self.load_by_month[month] * scale
            if math.isclose(load, 1.0):  # its own load: the fleet it was sized as
                return tuple((step, hours) for hours in self.tiers) if self.tiers else ((step, busy),)
            if (layers := self._layers_at(load)) is not None:
                return layers
        elif scale != 1.0 and (layers := self._layers_at(scale)) is not None:
            return _copies(self.gpu_hours[month] / self.gpu_hours_per_run, layers)
        if self.tiers:
            n = self.gpu_hours[month] * scale / (step * sum(self.tiers))
            return _copies(n, tuple((step, hours) for hours in self.tiers))
        n = self.gpu_hours[month] * scale / (step * busy)
        # n a whole number but for rounding (30 runs × 1.05^m …) is that number, not one more step
        whole = math.floor(n + 1e-9)
        part = max(0.0, n - whole)
        out = [(whole * step, busy)] if whole > 0 else []
        if part > 1e-9:
            out.append((step, part * busy))
        return tuple(out)

    def _layers_at(self, scale: float) -> tuple[tuple[float, float], ...] | None:
        """One run's layers at ``scale`` × its load (:attr:`at_load`); None where not given."""
        return next((layers for s, layers in self.at_load if math.isclose(s, scale)), None)


def _copies(n: float, layers: tuple[tuple[float, float], ...]) -> tuple[tuple[float, float], ...]:
    """``n`` copies of one run's ``(GPUs at once, hours)`` layers: ``floor(n)`` copies of each
    layer's GPUs for its hours, and one copy more for the fraction left of them (the GPU-hours kept,
    the peak rounded up, as :meth:`Demand.levels`)."""
    whole = math.floor(n + 1e-9)
    part = max(0.0, n - whole)
    out = []
    for gpus, hours in layers:
        if whole > 0 and hours > 0:
            out.append((whole * gpus, hours))
        if part > 1e-9 and hours > 0:
            out.append((gpus, part * hours))
    return tuple(out)


@dataclass(frozen=True, kw_only=True)
class TcoProblem:
    """What to optimise: demands over a horizon and the offers that may cover them."""

    horizon_months: int
    demands: tuple[Demand, ...]
    offers: tuple[PricedOffer, ...]
    past_horizon: str = "full"
    """One of :data:`PAST_HORIZON_RULES`."""
    demand_changes_pct: tuple[float, ...] = (-30.0, 0.0, 30.0)
    """Sensitivity: demand scaled by these percentages with the commitments fixed."""

    def __post_init__(self) -> None:
        if self.horizon_months < 1:
            raise ValueError("horizon_months must be ≥ 1")
        if self.past_horizon not in PAST_HORIZON_RULES:
            raise ValueError(f"past_horizon must be one of {PAST_HORIZON_RULES}")
        for d in self.demands:
            if len(d.gpu_hours) != self.horizon_months:
                raise ValueError(
                    f"demand {d.name!r} has {len(d.gpu_hours)} months, not {self.horizon_months}"
                )
            if any(not math.isfinite(h) or h < 0 for h in d.gpu_hours):
                raise ValueError(f"demand {d.name!r}: GPU-hours must be finite and ≥ 0")
            if d.load_by_month and (len(d.load_by_month) != self.horizon_months or not d.at_load):
                raise ValueError(f"demand {d.name!r}: load_by_month needs at_load and one load a month")
            if (d.run_data or d.at_load) and not d.gpu_hours_per_run > 0:
                raise ValueError(f"demand {d.name!r}: run_data and at_load need gpu_hours_per_run > 0")
            if d.gpus_per_run <= 0 or not math.isfinite(d.gpus_per_run):
                raise ValueError(f"demand {d.name!r}: gpus_per_run must be > 0")
            if d.gpu_step <= 0 or not math.isfinite(d.gpu_step):
                raise ValueError(f"demand {d.name!r}: gpu_step must be > 0")
            if any(not 0 <= t <= HOURS_PER_MONTH for t in d.tiers) or (d.tiers and not sum(d.tiers) > 0):
                raise ValueError(
                    f"demand {d.name!r}: tiers must be hours in [0, {HOURS_PER_MONTH:g}], not all 0"
                )
            if d.busy_hours:
                if len(d.busy_hours) != self.horizon_months:
                    raise ValueError(
                        f"demand {d.name!r} has {len(d.busy_hours)} months of busy hours, "
                        f"not {self.horizon_months}"
                    )
                for hours, busy in zip(d.gpu_hours, d.busy_hours, strict=True):
                    if not 0 <= busy <= HOURS_PER_MONTH or (hours > 0 and busy <= 0):
                        raise ValueError(
                            f"demand {d.name!r}: busy hours must be in (0, {HOURS_PER_MONTH:g}] where it "
                            "has GPU-hours"
                        )
        for m in range(self.horizon_months):
            shifts: dict[str, float] = {}
            for d in self.demands:
                if d.shift:
                    shifts[d.shift] = max(shifts.get(d.shift, 0.0), d.busy_h(m))
            if sum(shifts.values()) > HOURS_PER_MONTH * (1 + 1e-9):
                raise ValueError(
                    f"month {m + 1}: the shifts {sorted(shifts)} run {sum(shifts.values()):g} h apart; "
                    f"a month has {HOURS_PER_MONTH:g}"
                )

    def gpus(self) -> tuple[str, ...]:
        """The GPU types demanded, in first-seen order."""
        return tuple(dict.fromkeys(d.gpu for d in self.demands))

    def pools(self) -> tuple[Pool, ...]:
        """The pools of capacity demanded (:attr:`Demand.pool`), in first-seen order."""
        return tuple(dict.fromkeys(d.pool for d in self.demands))

    def pool_offers(self, pool: Pool) -> tuple[PricedOffer, ...]:
        """The offers that may serve the demands of ``pool``."""
        gpu, host = pool
        return tuple(o for o in self.offers if o.gpu == gpu and (host is None or host.allows(o)))

    def billed_months(self, offer: PricedOffer, start: int) -> int:
        """Months of a term starting at ``start`` that are paid under :attr:`past_horizon`."""
        if self.past_horizon == "full":
            return offer.term_months
        return min(offer.term_months, self.horizon_months - start)


@dataclass(frozen=True, kw_only=True)
class Commitment:
    """Units of one commitment offer bought at one start month."""

    offer: PricedOffer
    units: int
    start_month: int
    """Index into the horizon (0 = its first month)."""
    cost_usd: float
    """What these units cost over their term (as billed under the past-horizon rule)."""
    host: HostNeed | None = None
    """The instances of the pool it was bought for (:attr:`Demand.pool`): it serves the demands of
    ``(offer.gpu, host)`` only; None: those of its GPU type with no host need."""

    @property
    def pool(self) -> Pool:
        return (self.offer.gpu, self.host)

    @property
    def term_months(self) -> int:
        return self.offer.term_months

    @property
    def contract_usd(self) -> float:
        """What the contract costs over its whole term, whatever the past-horizon rule bills."""
        return self.units * self.offer.usd_per_unit_month * self.offer.term_months

    @property
    def upfront_usd(self) -> float | None:
        """All upfront: the whole contract, paid at the start of its term (the effective rate ×
        the term's hours); None otherwise (partial upfront: the split is not published)."""
        return self.contract_usd if self.offer.upfront == "all" else None


@dataclass(frozen=True, kw_only=True)
class MonthCost:
    """What one month of the horizon costs, by pricing model (USD)."""

    month: int
    cost_usd: float
    """Everything: GPU time by pricing model plus ``data_usd``."""
    by_pricing_usd: dict[str, float]
    """GPU time only, by pricing model."""
    data_usd: float = 0.0
    """What the month's runs pay besides GPU time (``Demand.run_data``: transfer, storage,
    licences) where they are placed."""


@dataclass(frozen=True, kw_only=True)
class Peak:
    """The most GPUs of one type needed at once over the horizon, against those committed then."""

    gpu: str
    month: int
    """Index into the horizon of the first month with that load."""
    gpus_at_once: float
    """The demands' GPUs at once at the month's busiest hour (``overlap.month_slices``): whole
    GPUs (``Demand.levels``)."""
    committed_gpus: float
    """GPUs the schedule's commitments keep in service that month."""
    hours_above: float
    """Hours of that month the load is above the committed GPUs (bought by the hour then), h."""


@dataclass(frozen=True, kw_only=True)
class BreakEvenBasis:
    """The on-demand price a break-even utilisation is figured against, with what makes it up, so
    that a reader can reproduce the figure from the prices shown: ``commitment's price per GPU-hour
    × term_factor ÷ usd_per_gpu_hour_used``."""

    demand: str
    """The demand whose on-demand hours are the cheapest of the pool's (:attr:`Demand.pool`)."""
    offer: PricedOffer
    """Its on-demand offer."""
    usd_per_gpu_hour_used: float
    """What a GPU-hour of its work costs on that offer: the offer's price per GPU-hour × ``packing``
    × ``billing``."""
    packing: float = 1.0
    """Paid GPU-hours per GPU-hour used (whole instances a run takes)."""
    billing: float = 1.0
    """Billed hours per paid hour (each run's hours rounded up to the offer's billing step)."""
    run_hours: float | None = None
    """The hours of one run as paid (its work and checkpoint writes), where ``billing`` rounds them."""
    term_factor: float = 1.0
    """The commitment's months billed over the months of the horizon it serves (3 for a 36-month term
    paid whole over a 12-month horizon)."""


@dataclass(frozen=True, kw_only=True)
class Schedule:
    """The optimiser's answer: what to commit to, and what it all costs."""

    commitments: tuple[Commitment, ...]
    monthly: tuple[MonthCost, ...]
    past_horizon_usd: float
    """Term months past the horizon that are still paid (``past_horizon: full``)."""
    total_usd: float
    """Everything: sum of ``monthly`` plus ``past_horizon_usd``."""
    data_usd: float = 0.0
    """The part of ``total_usd`` that is not GPU time: the months' ``data_usd``."""
    data_copies: tuple[DataCopyChoice, ...] = ()
    """Per workload demand and region its runs are placed in away from its data: whether its
    dataset is moved in for every run or kept there (both figures)."""
    all_on_demand_usd: float | None
    """Every demanded GPU-hour at its demand's cheapest on-demand price per GPU-hour used (whole
    instances, ``recourse.packing``), with what its runs pay besides GPU time in that offer's
    region; None where a demand has none."""
    savings_pct: float | None
    break_even_utilisation: dict[str, float]
    """Per commitment pricing model: the share of a unit's hours inside the horizon it must be busy
    to beat on-demand, the term as billed (the lowest over the offers of that model and the GPUs
    demanded; ``break_even_by_gpu`` has each GPU's)."""
    sensitivity: tuple[tuple[float, float | None], ...]
    """(demand change %, total USD) with the commitments fixed; None when demand cannot be met."""
    break_even_by_gpu: dict[str, dict[str, float]] = field(default_factory=dict)
    """Per GPU type demanded, per commitment pricing model: its break-even utilisation."""
    break_even_offers: dict[str, dict[str, PricedOffer]] = field(default_factory=dict)
    """The offer each of ``break_even_by_gpu`` is figured at (bought or not): a verdict on a
    commitment rests on its price, which the report names with its date and source."""
    break_even_on_demand: dict[str, dict[str, BreakEvenBasis]] = field(default_factory=dict)
    """The on-demand price each of ``break_even_by_gpu`` is figured against (:class:`BreakEvenBasis`)."""
    hourly_used: dict[str, PricedOffer] = field(default_factory=dict)
    """Per "gpu/pricing/demand": the demand's cheapest hourly offer of that pricing model, the
    one the recourse would buy (the all-on-demand baseline is priced at the on-demand ones);
    ``hourly_bought`` says which the schedule buys."""
    hourly_bought: tuple[str, ...] = ()
    """The keys of ``hourly_used`` the schedule buys hours of: a demand's spot offer is not bought
    where on demand costs less per useful GPU-hour, nor either where commitments serve all its
    hours."""
    hourly_packing: dict[str, float] = field(default_factory=dict)
    """Per key of ``hourly_used``: paid GPU-hours per GPU-hour a run uses (whole instances)."""
    spot_overhead: dict[str, float] = field(default_factory=dict)
    """Per interruptible demand: paid spot hours per useful hour on its cheapest spot offer."""
    peaks: tuple[Peak, ...] = ()
    """Per GPU type demanded: its busiest month's load at once, and the commitments against it."""
    on_demand_priced_usd: float | None = None
    """``all_on_demand_usd`` over the demands that have an on-demand price (the whole baseline where
    all do; a lower bound of it where ``on_demand_unpriced`` names some); None where none has."""
    on_demand_unpriced: tuple[str, ...] = ()
    """The demands (by name) with GPU-hours and no on-demand price where they may run: left out of
    ``on_demand_priced_usd``, never counted as 0."""
    spot_fallbacks: tuple[SpotFallback, ...] = ()
    """Per demand the schedule buys spot hours of: what it costs on demand instead."""
    total_without_spot_usd: float | None = None
    """The total with every spot hour bought on its demand's fallback instead (commitments kept);
    None where no spot is bought or some fallback is unknown."""
    without_spot_at_least_usd: float | None = None
    """Where ``total_without_spot_usd`` is unknown: what is known of it (the schedule without the
    demands that have no fallback), a lower bound; None otherwise."""
    solver: str = ""
    notes: tuple[str, ...] = ()
