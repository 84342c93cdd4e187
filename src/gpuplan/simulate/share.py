"""Pack inference services onto GPUs: whole cards, MIG slices, or time-slicing — fewest GPUs.

A service needs ``memory_gib`` on whatever it runs on (weights + KV cache + context: every
instance holds a copy) and carries ``requests_per_s``, of which one whole GPU serves
``capacity_requests_per_s`` at full load. A GPU share of speed fraction f serves f × that; the
fleet is sized so that each instance runs at most ``target_utilisation`` busy.

- **whole**: ``ceil(load / target)`` GPUs per service, none shared.
- **mig**: each service picks one profile (memory fits, speed f = min(compute, bandwidth share))
  and ``ceil(load / (f × target))`` instances of it; GPUs are filled with valid MIG layouts.
  Solved exactly as an integer programme over the maximal layouts (a cutting-stock model: variables
  = GPUs per layout, plus one profile choice per service), with HiGHS through scipy.
- **time-slice**: services share a GPU's time and memory (no isolation); a GPU carries services
  whose memory adds up to the usable memory and whose busy shares add up to ``target`` × (1 −
  ``time_slice_penalty``). Exact by integer programme up to :data:`EXACT_ITEMS` instances,
  first-fit decreasing above, with the lower bound reported. A service's instances are sized on a
  GPU of its own; where its neighbours then slow it past a latency target that GPU meets, the GPUs
  holding it are limited to the busy share they may add, and one more instance is tried where that
  takes fewer GPUs (:func:`_pack_time_slice`).
- **mps**: the device plugin's MPS sharing splits every GPU into N equal parts (memory limit and
  active-thread share 1/N each, the same N cluster-wide); each instance takes one part. Exact: every
  N whose part holds the largest service is tried, and the fewest GPUs win.

Latency per service, from the model ``plan`` sizes a fleet with: a service estimated from its
workload (:class:`ServingModel`) is served as :func:`gpuplan.perf.inference.serving_estimate`
serves one replica (continuous batching, Little's law, M/M/c queueing over its KV-cache slots) —
so ``simulate share --sharing whole`` and ``plan`` give the same p95 on the same fleet. On a share
of speed f the replica does the same work in a share f of the time (as the plan's ``share_gpu``
replicas do: its load arrives at ``λ / f`` while it runs, its latency is 1/f times); a MIG slice
or an MPS part also holds only the KV cache its own memory leaves beside the weights (a smaller
GPU: fewer slots queue sooner), and a time-sliced instance the memory the packing keeps for it.
A service given by hand (latency and capacity, no workload) has no slots known: one slot, M/M/1,
the same queue with ``c = 1``. Every target the workload states (p95 latency, p95 time to first
token) is checked: instances are added, and a MIG slice chosen, until each is met where any
number of them meets it; each service's headroom to each target is reported.

People are placed beside the services: groups of notebook or one-GPU experiment users
(:mod:`gpuplan.simulate.notebooks`), a GPU, a MIG slice or an MPS part each, or time-sliced on GPUs
of their own, with what each way gives a user (slow-down, its chance, OOM risk).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from gpuplan.errors import InputError, Phrase

# The words of a packing (method, notes, why a service was not placed) are written in the user's
# language when the plan is made, as the planner's notes are; `_` is gettext, never a throwaway name.
from gpuplan.i18n.messages import N_, _, ngettext
from gpuplan.i18n.phrases import item_list
from gpuplan.perf.inference import TIME_SLICE_PENALTY, DecodeEstimate, serving_estimate
from gpuplan.simulate import mig as migmod
from gpuplan.simulate.notebooks import NotebookGroup, NotebookOutcome, fixed_outcome, pack_time_slice
from gpuplan.simulate.pricing import PriceBasis
from gpuplan.vocab import sharing_name

if TYPE_CHECKING:
    from gpuplan.perf.image_serving import ImageStep
    from gpuplan.start_up import StartUp
    from gpuplan.workload.spec import ScheduleSpec

__all__ = [
    "EXACT_ITEMS",
    "MAX_SHARE_GPUS",
    "SHARINGS",
    "FleetHours",
    "Placement",
    "ServiceDemand",
    "ServingModel",
    "ShareOptions",
    "SharePlan",
    "Unplaced",
    "fleet_hours",
    "pack_services",
    "packing_start_up",
    "tenant_words",
]

SHARINGS = ("whole", "mig", "time-slice", "mps")
#: Instances up to which time-slicing is packed exactly (the assignment MILP stays small).
EXACT_ITEMS = 40
#: The estimator's time-slicing loss (an assumption; NVIDIA documents no figure), the plan's too.
#: Override with --time-slice-penalty.
DEFAULT_TIME_SLICE_PENALTY = TIME_SLICE_PENALTY
#: ASSUMPTION: MPS runs the clients' kernels concurrently, so it loses little to sharing; 5 % is
#: taken for the MPS server and the smaller per-client L2/SM share. NVIDIA publishes no figure.
DEFAULT_MPS_PENALTY = 0.05


#: MPS parts a GPU's memory (each client's limit, ``CUDA_MPS_PINNED_DEVICE_MEM_LIMIT``, which the
#: device plugin sets) but not its faults: "When a fatal exception is generated by an MPS client
#: process, all clients sharing the same GPU with this client will receive this exception", and the
#: server takes no new client on that GPU until they have all exited (NVIDIA's MPS documentation,
#: https://docs.nvidia.com/deploy/mps/index.html, "Error Containment", as restated by Baidu CCE,
#: "MPS Best Practices & Precautions", https://intl.cloud.baidu.com/en/doc/CCE/s/lls0037ze-intl-en,
#: updated 2025-10-27; NVIDIA's answer on the NVIDIA developer forum, "MPS Error Containment - Can't
#: able to create new process", https://forums.developer.nvidia.com/t/238139, says the same).
def _mps_faults_note() -> str:
    """The note that MPS shares a GPU's faults among its clients (see the comment above)."""
    return _(
        "MPS isolates memory (a limit per client, CUDA_MPS_PINNED_DEVICE_MEM_LIMIT) but not faults: "
        "one client's fatal GPU error reaches every client on the same GPU, and the GPU takes no new "
        "client until they have all exited"
    )


#: The device plugin allows at most 48 MPS clients per GPU (CUDA's limit on Volta and later).
MAX_MPS_PARTS = 48
#: Instances the services need at their load, at least one each (a whole GPU each without sharing): packing
#: time-slices first-fit over every instance grows with its square, and every instance is placed
#: and written out (10,000 took 16 s; 2,000 is a large inference fleet).
MAX_SHARE_GPUS = 2000
#: The share of a GPU's usable memory (``ShareOptions.gpu_memory_gib``) a time-sliced or MPS set of
#: services may fill: 5 % is kept for fragmentation between the processes (each service's own
#: CUDA context is in its ``memory_gib``). A service alone on a GPU may fill it, as a whole GPU.
TIME_SLICE_MEMORY_SHARE = 0.95


#: How many times the load's instances the search for a latency target goes to (the plan's own
#: search goes as far: ``perf.inference``'s replicas for a target).
_MAX_INSTANCES_FOR_TARGET = 16


@dataclass(frozen=True, kw_only=True)
class ServingModel:
    """The plan's serving model of one instance of a service estimated from its workload."""

    decode: DecodeEstimate
    """The replica on a whole GPU (:func:`gpuplan.perf.inference.decode_estimate`)."""
    prompt_tokens: int
    output_tokens: int
    tail_prompt_tokens: int | None = None
    """The p95 prompt its time to first token is checked at, as plan does (None: the mean)."""
    tail_output_tokens: int | None = None
    """The p95 answer its p95 latency is checked at, as plan does (None: the mean)."""
    fixed_gib: float
    """Memory an instance holds before any KV cache (weights, CUDA context, engine buffers)."""
    kv_gib_per_sequence: float
    """One running request's KV cache (its prompt and output)."""


@dataclass(frozen=True, kw_only=True)
class ServiceDemand:
    """One inference service to place."""

    name: str
    memory_gib: float
    requests_per_s: float
    capacity_requests_per_s: float
    """Requests per second one whole GPU serves at full load."""
    latency_s: float
    """One request's latency on a whole GPU with no queueing."""
    slo_s: float | None = None
    """p95 latency target; None: no headroom computed."""
    ttft_slo_s: float | None = None
    """p95 time-to-first-token target; None: none stated."""
    tpot_slo_s: float | None = None
    """Time-per-output-token target (the workload's ``tpot_p95_ms``), held against the serving
    model's time per token at the instance's load, as the plan sizes for it; None: none stated."""
    serving: ServingModel | None = field(default=None, repr=False, compare=False)
    """The plan's serving model of an instance (a service estimated from its workload); None: the
    latency and capacity given by hand, queued as one slot."""
    step: ImageStep | None = field(default=None, repr=False, compare=False)
    """A service of traced calls estimated from its workload (a forward-pass or an image service,
    no KV cache): the replica ``plan`` sizes, its batch's places queued as M/M/c; None: not one."""

    def __post_init__(self) -> None:
        if self.memory_gib <= 0 or self.capacity_requests_per_s <= 0 or self.latency_s <= 0:
            raise InputError.worded(
                N_("service {name!r}: memory, capacity and latency must be positive"), name=self.name
            )
        if self.requests_per_s < 0:
            raise InputError.worded(N_("service {name!r}: requests_per_s must be ≥ 0"), name=self.name)


@dataclass(frozen=True, kw_only=True)
class ShareOptions:
    gpu_id: str
    gpu_memory_gib: float
    """What a process can allocate on one GPU (``perf.memory.usable_memory_gib``: nvidia-smi's total,
    below the datasheet's), GiB."""
    price_usd_per_hour: float | None
    """Per GPU-hour; None when the catalog has none (cost then unknown)."""
    sharing: str = "mig"
    target_utilisation: float = 0.8
    time_slice_penalty: float = DEFAULT_TIME_SLICE_PENALTY
    mps_penalty: float = DEFAULT_MPS_PENALTY
    time_limit_s: float = 10.0


@dataclass(frozen=True, kw_only=True)
class Placement:
    gpu_index: int
    service: str
    slice: str
    """A MIG profile (``3g.40gb``), ``time-slice`` or ``whole``."""
    start: int | None = None
    """First memory slice of a MIG instance."""


@dataclass(frozen=True, kw_only=True)
class Unplaced:
    service: str
    """The service's name, or the notebook group's."""
    reason: str
    notebooks: bool = False
    """A group of notebook or experiment users, not a service."""


@dataclass(frozen=True, kw_only=True)
class ServiceOutcome:
    name: str
    slice: str
    instances: int
    speed_fraction: float
    utilisation: float
    """Busy share of each instance."""
    p95_latency_s: float | None
    latency_headroom_s: float | None
    """SLO − p95; negative: the SLO is missed; None without an SLO."""
    ttft_p95_s: float | None = None
    """p95 time to first token; None: overloaded, or not known (a service given by hand)."""
    ttft_headroom_s: float | None = None
    """TTFT target − TTFT p95; negative (−inf: not known or overloaded): missed; None: no target."""
    tpot_s: float | None = None
    """Time per output token at the instance's load (the plan's model; None: overloaded, or not
    known for a service given by hand)."""
    tpot_headroom_s: float | None = None
    """TPOT target − time per output token; negative (−inf: not known): missed; None: no target."""

    @property
    def meets_targets(self) -> bool:
        """Every target stated is met (None: no target)."""
        heads = (self.latency_headroom_s, self.ttft_headroom_s, self.tpot_headroom_s)
        return all(h is None or h >= 0 for h in heads)


@dataclass(frozen=True, kw_only=True)
class SharePlan:
    gpu_id: str
    sharing: str
    gpus_needed: int
    lower_bound_gpus: int
    """No packing can use fewer (equal to gpus_needed when the packing is proven optimal)."""
    optimal: bool
    """The packing is proven to use the fewest GPUs, and every service is placed."""
    cost_usd_per_hour: float | None
    """The whole plan's cost; None when a service is not placed (or the price is unknown)."""
    placed_cost_usd_per_hour: float | None
    """The cost of the services that are placed."""
    placements: tuple[Placement, ...]
    unplaced: tuple[Unplaced, ...]
    services: tuple[ServiceOutcome, ...]
    method: str
    notes: tuple[str, ...] = field(default_factory=tuple)
    price: PriceBasis | None = None
    """What the price of its GPUs rests on (the catalog offer, or the user's figure); None when
    no price is known."""
    notebooks: tuple[NotebookOutcome, ...] = ()
    """What each group of notebook or experiment users gets (:mod:`gpuplan.simulate.notebooks`)."""
    hours: FleetHours | None = None
    """The hours its GPUs run on the file's ``schedule:``; None: round the clock."""

    @property
    def hours_per_month(self) -> float:
        """The hours a month its GPUs are billed: its schedule's with each day's start-up, else 730
        h (round the clock, as a cluster keeps its nodes)."""
        from gpuplan.units import HOURS_PER_MONTH

        return HOURS_PER_MONTH if self.hours is None else self.hours.billed_per_month

    @property
    def cost_usd_per_month(self) -> float | None:
        """The plan's GPUs for :attr:`hours_per_month`."""
        return None if self.cost_usd_per_hour is None else self.cost_usd_per_hour * self.hours_per_month


@dataclass(frozen=True, kw_only=True)
class FleetHours:
    """The hours a month a packing's GPUs are billed on a schedule (:func:`fleet_hours`)."""

    schedule: ScheduleSpec
    billed_per_month: float
    """Its hours a month with each day's start-up."""
    start_up_s: float
    """A new instance's start before the hours, s (the plan's start-up model)."""
    start_up_words: str
    """How :attr:`start_up_s` adds up, each part with its source."""
    start_ups_per_day: int
    """Times a day its instances are started; 0: kept on (each gap shorter than a start-up)."""

    @property
    def served_per_month(self) -> float:
        """The schedule's own hours a month."""
        return self.schedule.hours_per_month


def packing_start_up(plan: SharePlan, demands: Sequence[ServiceDemand], gpus_per_node: int) -> StartUp | None:
    """A new node's start-up of ``plan`` (:func:`gpuplan.start_up.replica_start_up`, the one model
    plan, deploy and ``simulate autoscale`` count): its boot, the engines' start and the weights of
    every service instance packed on its ``gpus_per_node`` GPUs (each its ``demands``' weights) read
    through its one disk, on the node that holds the most (the bound where a service's weights are
    not known: one given by hand).
    None: no service is placed (notebooks start on the users' own request)."""
    from gpuplan.perf.memory import GIB
    from gpuplan.start_up import replica_start_up

    if not plan.services:
        return None
    weights = {
        d.name: None if d.serving is None else d.serving.decode.weights_gib * GIB / 1e9 for d in demands
    }
    per_node: dict[int, float | None] = {}
    for p in plan.placements:
        node, gb = p.gpu_index // max(1, gpus_per_node), weights.get(p.service)
        held = per_node.get(node, 0.0)
        per_node[node] = None if gb is None or held is None else held + gb
    known = [gb for gb in per_node.values() if gb is not None]
    unknown = not per_node or len(known) < len(per_node)
    return replica_start_up(None if unknown else max(known))


def fleet_hours(schedule: ScheduleSpec, start_up: StartUp | None) -> FleetHours:
    """The hours a month the GPUs are billed on ``schedule``: its hours, each day's start before them
    of a new instance, ``start_up``'s lead (:meth:`gpuplan.start_up.StartUp.lead_min`, the minutes
    plan bills a scheduled service and deploy's cron lines start it at; :func:`packing_start_up`),
    the boot alone where it is None (no service: notebooks start on the users' own request), billed
    as the plan bills a scheduled service's day (a gap shorter than a start-up is kept on, not
    started again); stopped at the end of its hours."""
    from gpuplan.plan.service_day import gaps_billed
    from gpuplan.start_up import replica_start_up

    if start_up is None:
        up = replica_start_up(None)
        start_s, words = up.boot_s, up.boot_words()
    else:
        start_s, words = start_up.lead_min() * 60.0, start_up.lead_words()
    week = schedule.window.week_minutes()
    added, started = gaps_billed(week, start_s / 60.0)
    on = float(week.sum())
    return FleetHours(
        schedule=schedule,
        billed_per_month=schedule.hours_per_month * (on + added) / on,
        start_up_s=start_s,
        start_up_words=words,
        start_ups_per_day=started // max(1, len(schedule.days)),
    )


def _p95(latency_s: float, rate: float, capacity: float) -> float | None:
    """M/M/1 (one slot, the serving model's queue with ``c = 1``): a service given by hand."""
    rho = rate / capacity if capacity > 0 else math.inf
    if rho >= 1:
        return None
    if rho <= 0.05:
        return latency_s
    return latency_s + math.log(rho / 0.05) / (capacity - rate)


def _on_share(m: ServingModel, memory_gib: float | None) -> DecodeEstimate:
    """The replica's decode estimate with the KV cache ``memory_gib`` leaves beside its weights
    (None: the whole GPU's, as the estimate sized it): fewer slots, each decode step at the
    slots it then runs (the estimate's own iteration model)."""
    dec = m.decode
    if memory_gib is None or m.kv_gib_per_sequence <= 0 or dec.step is None:
        return dec
    held = math.floor((memory_gib - m.fixed_gib) / m.kv_gib_per_sequence + 1e-9)
    slots = max(1, min(dec.max_concurrent_sequences, held))
    if slots >= dec.max_concurrent_sequences:
        return dec
    ctx = dec.context_tokens
    return replace(
        dec,
        max_concurrent_sequences=slots,
        time_per_token_at_max_s=dec.step.iteration_s(slots, slots * ctx, 0),
    )


def _served(
    s: ServiceDemand, rate: float, speed: float, memory_gib: float | None
) -> tuple[float, float | None, float | None, float | None]:
    """(capacity in requests/s, p95 latency, p95 time to first token, time per output token) of
    one instance at ``rate`` on a share of speed ``speed`` with ``memory_gib`` (None: a whole GPU's
    memory)."""
    if s.step is not None:
        # plan's replica of traced calls on a share of speed ``speed``: its calls that much slower
        one = replace(s.step, time_share=s.step.time_share * speed).serving(rate, 1)
        return one.capacity_images_per_s, one.p95_latency_s, None, None
    m = s.serving
    if m is None:
        cap = s.capacity_requests_per_s * speed
        return cap, _p95(s.latency_s / speed, rate, cap), None, None
    # The plan's model of a replica running a share ``speed`` of the time: its load arrives at
    # rate / speed while it runs, and its latencies are 1 / speed times (serving_estimate's own
    # time-share arithmetic, here for any share, not only 1/n of a GPU).
    srv = serving_estimate(
        _on_share(m, memory_gib),
        requests_per_s=rate / speed,
        prompt_tokens=m.prompt_tokens,
        output_tokens=m.output_tokens,
        tail_prompt_tokens=m.tail_prompt_tokens,
        tail_output_tokens=m.tail_output_tokens,
    )
    p95 = srv.p95_latency_s / speed if srv.p95_latency_s is not None else None
    ttft = srv.ttft_p95_s / speed if srv.ttft_p95_s is not None else None
    # overloaded: no time per token (the p95 says so); else the operating point's, in wall time
    tpot = srv.tpot_s / speed if srv.tpot_s is not None and p95 is not None else None
    return srv.capacity_requests_per_s * speed, p95, ttft, tpot


def _headroom(target: float | None, value: float | None) -> float | None:
    if target is None:
        return None
    return -math.inf if value is None else target - value  # unknown is never within the target


def _outcome(
    s: ServiceDemand, slice_: str, n: int, speed: float, memory_gib: float | None = None
) -> ServiceOutcome:
    rate = s.requests_per_s / n if n else 0.0
    cap, p95, ttft, tpot = _served(s, rate, speed, memory_gib)
    return ServiceOutcome(
        name=s.name,
        slice=slice_,
        instances=n,
        speed_fraction=speed,
        utilisation=rate / cap if cap else math.inf,
        p95_latency_s=p95,
        latency_headroom_s=_headroom(s.slo_s, p95),
        ttft_p95_s=ttft,
        ttft_headroom_s=_headroom(s.ttft_slo_s, ttft),
        tpot_s=tpot,
        tpot_headroom_s=_headroom(s.tpot_slo_s, tpot),
    )


def _instances(s: ServiceDemand, speed: float, target: float, memory_gib: float | None = None) -> int:
    """Instances at ``target`` busy, and as many more as its latency targets need where more meet
    them (as the plan sizes a fleet; where none does, the load's count, the miss reported)."""
    cap = (
        _served(s, 0.0, speed, memory_gib)[0] if s.serving is not None else s.capacity_requests_per_s * speed
    )
    base = max(1, math.ceil(s.requests_per_s / (cap * target) - 1e-9))
    if s.slo_s is None and s.ttft_slo_s is None and s.tpot_slo_s is None:
        return base
    for n in range(base, base * _MAX_INSTANCES_FOR_TARGET + 1):
        if _outcome(s, "", n, speed, memory_gib).meets_targets:
            return n
    return base


def _milp(
    c: list[float],
    a_rows: list[list[float]],
    lo: list[float],
    hi: list[float],
    ub: list[float],
    opts: ShareOptions,
) -> Any:
    import numpy as np
    from scipy.optimize import Bounds, LinearConstraint, milp

    return milp(
        c=np.asarray(c),
        integrality=np.ones(len(c)),
        bounds=Bounds(np.zeros(len(c)), np.asarray(ub)),
        constraints=[LinearConstraint(np.asarray(a_rows), np.asarray(lo), np.asarray(hi))]
        if a_rows
        else None,
        options={"time_limit": opts.time_limit_s},
    )


def _pack_whole(
    services: Sequence[ServiceDemand], opts: ShareOptions, notebooks: Sequence[NotebookGroup] = ()
) -> SharePlan:
    placements, outs, unplaced = [], [], []
    g = 0
    for s in services:
        if s.memory_gib > opts.gpu_memory_gib:
            unplaced.append(Unplaced(service=s.name, reason=_too_big(s, opts)))
            continue
        n = _instances(s, 1.0, opts.target_utilisation)
        for _copy in range(n):
            placements.append(Placement(gpu_index=g, service=s.name, slice="whole"))
            g += 1
        outs.append(_outcome(s, "whole", n, 1.0))
    nbs = []
    for nb in notebooks:
        if nb.memory_gib > opts.gpu_memory_gib:
            unplaced.append(Unplaced(service=nb.name, reason=_too_big(nb, opts), notebooks=True))
            continue
        for _user in range(nb.users):  # a GPU each
            placements.append(Placement(gpu_index=g, service=nb.name, slice="whole"))
            g += 1
        nbs.append(fixed_outcome(nb, "whole", 1.0, nb.users, 1))
    return _plan(
        opts, "whole", g, g, True, placements, unplaced, outs, _("one GPU per instance"), notebooks=nbs
    )


def tenant_words(unplaced: Sequence[Unplaced], services: int, notebooks: int) -> Phrase:
    """ "services", "notebook groups" or "services and notebook groups": what a count of a plan's
    tenants (``services`` and ``notebooks`` placed, beside ``unplaced``) counts, in words."""
    from gpuplan.errors import Phrase

    groups = notebooks + sum(u.notebooks for u in unplaced)
    alone = services + sum(not u.notebooks for u in unplaced)
    if not groups:
        return Phrase(N_("services"))
    return Phrase(N_("services and notebook groups")) if alone else Phrase(N_("notebook groups"))


def _tenants(
    services: Sequence[ServiceDemand], notebooks: Sequence[NotebookGroup]
) -> list[ServiceDemand | NotebookGroup]:
    """The services, then the notebook groups: what has a name and a memory to place."""
    return [*services, *notebooks]


def _too_big(s: ServiceDemand | NotebookGroup, opts: ShareOptions) -> str:
    return _(
        "needs {need_gib:.1f} GiB, more than one {gpu} ({gpu_gib:.1f} GiB usable); "
        "split it over GPUs (tensor parallel) or pick a bigger GPU"
    ).format(need_gib=s.memory_gib, gpu=opts.gpu_id, gpu_gib=opts.gpu_memory_gib)


def _plan(
    opts: ShareOptions,
    sharing: str,
    gpus: int,
    bound: int,
    optimal: bool,
    placements: list[Placement],
    unplaced: list[Unplaced],
    outs: list[ServiceOutcome],
    method: str,
    notes: tuple[str, ...] = (),
    notebooks: Sequence[NotebookOutcome] = (),
) -> SharePlan:
    placed_cost = gpus * opts.price_usd_per_hour if opts.price_usd_per_hour is not None else None
    return SharePlan(
        gpu_id=opts.gpu_id,
        sharing=sharing,
        gpus_needed=gpus,
        lower_bound_gpus=bound,
        # A service this GPU cannot hold is not served by the plan: its total cost is unknown, and
        # no packing of the others is the answer (the placed ones' cost is ``placed_cost_usd_per_hour``).
        optimal=optimal and not unplaced,
        cost_usd_per_hour=None if unplaced else placed_cost,
        placed_cost_usd_per_hour=placed_cost,
        placements=tuple(sorted(placements, key=lambda p: (p.gpu_index, p.start or 0, p.service))),
        unplaced=tuple(unplaced),
        services=tuple(outs),
        method=method,
        notes=notes,
        notebooks=tuple(notebooks),
    )


def _pack_mig(
    services: Sequence[ServiceDemand], opts: ShareOptions, notebooks: Sequence[NotebookGroup] = ()
) -> SharePlan:
    table = migmod.mig_gpu(opts.gpu_id)
    layouts = migmod.layouts(table)
    profiles = [p for p in table.profiles if not p.media_extensions]
    pnames = [p.name for p in profiles]
    # a slice's memory is all its instance has: its KV cache is what that leaves (_on_share)
    slice_gib = {p.name: p.memory_gib for p in profiles}
    # Candidate (service, profile, instances) choices.
    choices: list[list[tuple[str, int, float]]] = []
    placeable: list[ServiceDemand | NotebookGroup] = []
    unplaced = []
    for s in _tenants(services, notebooks):
        if isinstance(s, NotebookGroup):
            # one slice a user, of a profile that holds its memory; those within its slow-down target
            # where any is (else all, the miss shown)
            opts_s = [(p.name, s.users, p.speed_fraction) for p in profiles if p.memory_gib >= s.memory_gib]
            meets = [o for o in opts_s if 1.0 / o[2] <= s.max_slowdown + 1e-9]
        else:
            opts_s = [
                (
                    p.name,
                    _instances(s, p.speed_fraction, opts.target_utilisation, p.memory_gib),
                    p.speed_fraction,
                )
                for p in profiles
                if p.memory_gib >= s.memory_gib
            ]
            # Slices on which the service meets every target it states (p95, time to first token), when
            # any does (else all, with the miss shown).
            meets = [o for o in opts_s if _outcome(s, o[0], o[1], o[2], slice_gib[o[0]]).meets_targets]
        opts_s = meets or opts_s
        if not opts_s:
            unplaced.append(
                Unplaced(
                    service=s.name,
                    reason=_(
                        "needs {need_gib:.1f} GiB; the largest MIG slice of {gpu} has {slice_gib:.1f} GiB"
                    ).format(
                        need_gib=s.memory_gib, gpu=opts.gpu_id, slice_gib=max(p.memory_gib for p in profiles)
                    ),
                    notebooks=isinstance(s, NotebookGroup),
                )
            )
            continue
        placeable.append(s)
        choices.append(opts_s)
    nl = len(layouts)
    nz = sum(len(c) for c in choices)
    # Variables: x_L (GPUs using layout L), then z_{s,k} (service s uses its k-th choice).
    # Objective: GPUs, then (below one GPU in total) the compute slices taken, so that among
    # packings with as few GPUs the one leaving the most room wins.
    slices = {p.name: p.compute_slices for p in profiles}
    eps = 1.0 / (1 + sum(max(n for _, n, _ in ch) for ch in choices) * migmod.COMPUTE_SLICES)
    c = [1.0] * nl + [eps * slices[name] * n for ch in choices for name, n, _ in ch]
    rows, lo, hi = [], [], []
    for pname in pnames:
        row = [float(dict(lay).get(pname, 0)) for lay in layouts]
        for ch in choices:
            row += [-float(n) if name == pname else 0.0 for name, n, _ in ch]
        rows.append(row)
        lo.append(0.0)
        hi.append(math.inf)
    off = nl
    for ch in choices:
        row = [0.0] * (nl + nz)
        for k in range(len(ch)):
            row[off + k] = 1.0
        off += len(ch)
        rows.append(row)
        lo.append(1.0)
        hi.append(1.0)
    total_inst = sum(max(n for _, n, _ in ch) for ch in choices)
    ub = [float(total_inst)] * nl + [1.0] * nz
    if not placeable:
        return _plan(opts, "mig", 0, 0, True, [], unplaced, [], _("nothing to place"))
    res = _milp(c, rows, lo, hi, ub, opts)
    if res.x is None:
        raise InputError.worded(
            N_("MIG packing found no solution in {limit_s:g} s; raise the time limit"),
            limit_s=opts.time_limit_s,
        )
    x = [round(v) for v in res.x]
    gap = float(getattr(res, "mip_gap", 0.0) or 0.0)
    # The dual bound includes the tie-break terms (< 1 GPU in all): take them off before rounding.
    dual = float(getattr(res, "mip_dual_bound", 0.0) or 0.0)
    bound = max(1, math.ceil(dual - 1.0 + 1e-9))
    # Expand: each GPU gets its layout's concrete start slices, filled with service instances.
    want: dict[str, list[str]] = {}
    outs = []
    chosen: list[tuple[NotebookGroup, str, float]] = []
    off = nl
    for s, ch in zip(placeable, choices, strict=True):
        k = max(range(len(ch)), key=lambda i: x[off + i])
        name, n, speed = ch[k]
        want.setdefault(name, []).extend([s.name] * n)
        if isinstance(s, NotebookGroup):
            chosen.append((s, name, speed))
        else:
            outs.append(_outcome(s, name, n, speed, slice_gib[name]))
        off += len(ch)
    placements: list[Placement] = []
    g = 0
    for li, lay in enumerate(layouts):
        for _copy in range(x[li]):
            names = [n for n, cnt in lay for _ in range(cnt)]
            concrete = migmod.place(table, names)
            assert concrete is not None  # layouts() only returns valid sets
            used = False
            for pname, start in concrete:
                if want.get(pname):
                    placements.append(
                        Placement(gpu_index=g, service=want[pname].pop(0), slice=pname, start=start)
                    )
                    used = True
            g += used
    return _plan(
        opts,
        "mig",
        g,
        g if gap <= 1e-9 else min(bound, g),
        gap <= 1e-9,
        placements,
        unplaced,
        outs,
        _("integer programme over {layouts} maximal MIG layouts (HiGHS)").format(layouts=nl),
        (_(table.memory_note),),
        [_fixed(nb, name, speed, placements) for nb, name, speed in chosen],
    )


def _fixed(nb: NotebookGroup, slice_: str, speed: float, placements: Sequence[Placement]) -> NotebookOutcome:
    """A group whose users each have an isolated share (MIG, MPS), on the GPUs ``placements`` put them."""
    per_gpu: dict[int, int] = {}
    for p in placements:
        if p.service == nb.name:
            per_gpu[p.gpu_index] = per_gpu.get(p.gpu_index, 0) + 1
    return fixed_outcome(nb, slice_, speed, len(per_gpu), max(per_gpu.values(), default=0))


def _ffd(
    items: list[tuple[float, float, str]],
    mem_cap: float,
    time_cap: float,
    caps: dict[str, float] | None = None,
) -> list[list[int]]:
    """First-fit decreasing; ``caps``: the busy share a GPU holding that service may carry in all
    (its neighbours' share limited so that it still meets its latency targets)."""
    caps = caps or {}
    bins: list[list[int]] = []
    room: list[list[float]] = []  # memory left, busy share taken, busy share it may carry
    order = sorted(range(len(items)), key=lambda i: -max(items[i][0] / mem_cap, items[i][1] / time_cap))
    for i in order:
        m, t, name = items[i]
        cap = min(time_cap, caps.get(name, time_cap))
        for b, (rm, used, bcap) in enumerate(room):
            if m <= rm + 1e-9 and used + t <= min(bcap, cap) + 1e-9:
                bins[b].append(i)
                room[b] = [rm - m, used + t, min(bcap, cap)]
                break
        else:
            bins.append([i])
            room.append([mem_cap - m, t, cap])
    return bins


#: Rounds of re-packing for the neighbours (limiting their share, then trying one more instance).
_NEIGHBOUR_ROUNDS = 4


def _neighbour_room(s: ServiceDemand, n: int, speed: float) -> float | None:
    """The most busy share its neighbours may keep a GPU of ``s``'s (the penalised one, ``speed``)
    with ``s`` still meeting its latency targets at ``n`` instances; None: no target, or one that
    even a GPU of its own misses (nothing a packing can keep; the miss is reported)."""
    if s.slo_s is None and s.ttft_slo_s is None and s.tpot_slo_s is None:
        return None

    def meets(others: float) -> bool:
        return _outcome(s, "", n, speed * max(1e-6, 1.0 - others), s.memory_gib).meets_targets

    if not meets(0.0):
        return None
    lo, hi = 0.0, 1.0  # met at lo, not known at hi: bisect (its latency grows as its speed falls)
    for _step in range(30):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if meets(mid) else (lo, mid)
    return lo


@dataclass(frozen=True, kw_only=True)
class _TimeSlicePacking:
    counts: dict[str, int]
    caps: dict[str, float]
    items: list[tuple[float, float, str]]
    bins: list[list[int]]
    lower: int
    optimal: bool
    method: str
    outs: list[ServiceOutcome]


def _slice_once(
    placed: Sequence[ServiceDemand],
    counts: dict[str, int],
    caps: dict[str, float],
    opts: ShareOptions,
    exact: bool = True,
) -> _TimeSlicePacking:
    """Pack ``counts`` instances of each service, ``caps`` limiting the GPUs of some, and the
    outcome of each service on the most crowded of its GPUs; ``exact``: by integer programme where
    first-fit is not proven optimal and the instances are few (else first-fit only, a search's
    trial)."""
    mem_cap = opts.gpu_memory_gib * TIME_SLICE_MEMORY_SHARE
    speed = 1.0 - opts.time_slice_penalty
    time_cap = opts.target_utilisation
    items: list[tuple[float, float, str]] = []
    for s in placed:
        # whole-GPU busy share, unpenalised, of an instance whose KV cache is the memory kept for it
        busy = s.requests_per_s / _served(s, 0.0, 1.0, s.memory_gib)[0]
        n = counts[s.name]
        # A service above the set's share (but within the GPU: it was placed) fills a GPU alone.
        items += [(min(s.memory_gib, mem_cap), busy / n / speed, s.name)] * n
    bins = _ffd(items, mem_cap, time_cap, caps)
    # Memory and busy share added up: a bound for these instances whatever their caps (the caps only
    # take packings away).
    lower = max(
        math.ceil(sum(i[0] for i in items) / mem_cap - 1e-9) if items else 0,
        math.ceil(sum(i[1] for i in items) / time_cap - 1e-9) if items else 0,
    )
    optimal = len(bins) == lower
    method = _("first-fit decreasing")
    if exact and not optimal and len(items) <= EXACT_ITEMS:
        bins, optimal = _exact_bins(items, mem_cap, time_cap, len(bins), opts, caps)
        method = _("integer programme (HiGHS), assignment of instances to GPUs")
        lower = len(bins) if optimal else lower
    busy_on = [sum(items[i][1] for i in b) for b in bins]
    gpu_of = {i: g for g, b in enumerate(bins) for i in b}
    outs = []
    for s in placed:
        mine = [i for i, it in enumerate(items) if it[2] == s.name]
        # Speed on a shared GPU: the penalised GPU less the time its neighbours keep it busy
        # (their busy shares, on average) — at the most crowded of the service's GPUs.
        others = max(busy_on[gpu_of[i]] - items[i][1] for i in mine)
        outs.append(
            _outcome(s, "time-slice", len(mine), speed * max(1e-6, 1.0 - others), memory_gib=s.memory_gib)
        )
    return _TimeSlicePacking(
        counts=dict(counts),
        caps=dict(caps),
        items=items,
        bins=bins,
        lower=lower,
        optimal=optimal,
        method=method,
        outs=outs,
    )


def _pack_time_slice(
    services: Sequence[ServiceDemand], opts: ShareOptions, notebooks: Sequence[NotebookGroup] = ()
) -> SharePlan:
    """Time-slicing: the services (:func:`_pack_services_time_slice`), then the notebook users on
    time-sliced GPUs of their own (:func:`gpuplan.simulate.notebooks.pack_time_slice`)."""
    plan = _pack_services_time_slice(services, opts)
    if not notebooks:
        return plan
    unplaced = list(plan.unplaced)
    fit = []
    for nb in notebooks:
        if nb.memory_gib > opts.gpu_memory_gib:
            unplaced.append(Unplaced(service=nb.name, reason=_too_big(nb, opts), notebooks=True))
        else:
            fit.append(nb)
    pack = pack_time_slice(
        fit, opts.gpu_memory_gib * TIME_SLICE_MEMORY_SHARE, opts.gpu_memory_gib, opts.time_slice_penalty
    )
    first = plan.gpus_needed
    placements = [
        *plan.placements,
        *(
            Placement(gpu_index=first + g, service=fit[i].name, slice="time-slice")
            for g, b in enumerate(pack.bins)
            for i in b
        ),
    ]
    note = ngettext(
        "notebooks and experiments time-sliced on {n} GPU of their own: users taken to compute "
        "independently, in the same working hours (assumed); the GPU's time split evenly among those "
        "computing at once; a user is added to a GPU only where every user there stays within its "
        "slow-down at the 95th percentile of the time it computes and its OOM risk",
        "notebooks and experiments time-sliced on {n} GPUs of their own: users taken to compute "
        "independently, in the same working hours (assumed); the GPU's time split evenly among those "
        "computing at once; a user is added to a GPU only where every user there stays within its "
        "slow-down at the 95th percentile of the time it computes and its OOM risk",
        len(pack.bins),
    ).format(n=len(pack.bins))
    services_optimal = plan.optimal or (plan.lower_bound_gpus == plan.gpus_needed)
    return _plan(
        opts,
        "time-slice",
        first + len(pack.bins),
        plan.lower_bound_gpus + pack.lower,
        services_optimal and pack.optimal,
        placements,
        unplaced,
        list(plan.services),
        plan.method if services else _("first-fit decreasing"),
        (*plan.notes, note),
        pack.outcomes,
    )


def _pack_services_time_slice(services: Sequence[ServiceDemand], opts: ShareOptions) -> SharePlan:
    """Time-slicing, sized for the neighbours each service gets.

    Each service's instances are first sized at the penalised speed of a GPU of its own; packed,
    its neighbours take their busy share of its GPU's time, and a latency target it met alone can
    be missed. Then, in at most :data:`_NEIGHBOUR_ROUNDS` rounds each: the GPUs of every service
    that misses a target it met alone are limited to the busy share its neighbours may add
    (:func:`_neighbour_room`) and the services packed again; then one more instance of a limited
    service (its share, and so what it must keep its neighbours to, falls) is kept where the
    packing then takes fewer GPUs. A target no GPU of its own meets is reported as missed, as
    before. "Optimal" and the lower bound are those of the final instances and limits.
    """
    speed = 1.0 - opts.time_slice_penalty
    # Each instance's share is the wall time it keeps the (penalised, slower) GPU busy — its load
    # over ``speed`` — so a GPU holds them up to the target itself. Capping it at target × speed
    # too had counted the penalty twice (two services at 0.35 of a GPU each, 0.78 busy together,
    # were put on two GPUs).
    time_cap = opts.target_utilisation
    unplaced, placed = [], []
    for s in services:
        # A service is placed where it fits a GPU alone, as whole GPUs place it; the share kept for
        # fragmentation is a time-sliced set's (alone, it was refused what a whole GPU takes).
        if s.memory_gib > opts.gpu_memory_gib:
            unplaced.append(Unplaced(service=s.name, reason=_too_big(s, opts)))
        else:
            placed.append(s)
    # as many as the load needs at the target, and its latency targets where more meet them (at the
    # penalised speed of a GPU of its own: the neighbours' share is known only once packed)
    counts = {s.name: _instances(s, speed, time_cap, s.memory_gib) for s in placed}
    by_name = {s.name: s for s in placed}
    rooms: dict[tuple[str, int], float | None] = {}

    def room(name: str, n: int) -> float | None:
        if (name, n) not in rooms:
            rooms[name, n] = _neighbour_room(by_name[name], n, speed)
        return rooms[name, n]

    def cap(name: str, n: int) -> float | None:
        """The busy share a GPU holding ``name`` at ``n`` instances may carry in all."""
        r = room(name, n)
        if r is None:
            return None
        s = by_name[name]
        share = s.requests_per_s / _served(s, 0.0, 1.0, s.memory_gib)[0] / n / speed
        # a hair under the room found (the packings' own 1e-9 slack), never under its own share
        return share + max(0.0, r - 1e-7)

    def missed(p: _TimeSlicePacking) -> list[str]:
        """Services missing a target that a GPU of their own meets at their instances."""
        return [o.name for o in p.outs if not o.meets_targets and room(o.name, o.instances) is not None]

    def limit(caps: dict[str, float], names: Sequence[str], counts: dict[str, int]) -> dict[str, float]:
        out = dict(caps)
        for name in names:
            c = cap(name, counts[name])
            if c is not None:
                out[name] = c
        return out

    # First-fit first: where it already slows a service past its target, no exact programme is spent
    # on a packing that is not kept.
    first = pack = _slice_once(placed, counts, {}, opts, exact=False)
    if not missed(first):
        first = pack = _slice_once(placed, counts, {}, opts)
        if not missed(first):
            return _time_slice_plan(opts, first, first, counts, unplaced)
    # The search packs first-fit (each exact programme may take the time limit); the packing
    # kept is then solved exactly once, or twice where that one puts a neighbour too close.
    for _round in range(_NEIGHBOUR_ROUNDS):
        miss = missed(pack)
        if not miss:
            break
        pack = _slice_once(placed, counts, limit(pack.caps, miss, counts), opts, exact=False)
    if missed(pack):
        # still missed after the rounds: limit every service with a target (each then meets it)
        pack = _slice_once(placed, counts, limit(pack.caps, list(by_name), counts), opts, exact=False)
    # One more instance of a limited service, where that takes fewer GPUs.
    for _round in range(_NEIGHBOUR_ROUNDS):
        best = pack
        for name in sorted(pack.caps):
            more = {**pack.counts, name: pack.counts[name] + 1}
            c = cap(name, more[name])
            if c is None:
                continue
            trial = _slice_once(placed, more, {**pack.caps, name: c}, opts, exact=False)
            if len(trial.bins) < len(best.bins) and not missed(trial):
                best = trial
        if best is pack:
            break
        pack = best
    final = _slice_once(placed, pack.counts, pack.caps, opts)
    if missed(final):
        final = _slice_once(placed, pack.counts, limit(pack.caps, list(by_name), pack.counts), opts)
    return _time_slice_plan(opts, final, first, counts, unplaced)


def _time_slice_plan(
    opts: ShareOptions,
    pack: _TimeSlicePacking,
    first: _TimeSlicePacking,
    counts: dict[str, int],
    unplaced: list[Unplaced],
) -> SharePlan:
    """The plan of the packing kept; ``first``: as sized alone, ``counts`` its instances."""
    placements = [
        Placement(gpu_index=g, service=pack.items[i][2], slice="time-slice")
        for g, b in enumerate(pack.bins)
        for i in b
    ]
    notes = [
        _("time-slicing throughput penalty {penalty:.0%} (assumed; NVIDIA publishes none)").format(
            penalty=opts.time_slice_penalty
        ),
        _("time-slicing isolates neither memory nor faults: one service's OOM can stop its neighbours"),
    ]
    if pack.caps:
        added = [
            f"{n} +{pack.counts[n] - counts[n]}" for n in sorted(pack.caps) if pack.counts[n] > counts[n]
        ]
        notes.append(
            _(
                "sized for the neighbours: {services} placed where the neighbours leave the time their "
                "latency targets need; instances added: {added} ({gpus} GPUs; {alone} as sized alone, "
                "with a target missed)"
            ).format(
                services=item_list(sorted(pack.caps)),
                added=item_list(added) or _("none"),
                gpus=len(pack.bins),
                alone=len(first.bins),
            )
        )
    return _plan(
        opts,
        "time-slice",
        len(pack.bins),
        pack.lower,
        pack.optimal,
        placements,
        unplaced,
        pack.outs,
        pack.method,
        tuple(notes),
    )


def _exact_bins(
    items: list[tuple[float, float, str]],
    mem_cap: float,
    time_cap: float,
    upper: int,
    opts: ShareOptions,
    caps: dict[str, float] | None = None,
) -> tuple[list[list[int]], bool]:
    caps = {k: v for k, v in (caps or {}).items() if v < time_cap}
    limited = sorted(caps)
    n, b = len(items), upper
    # Variables: y_g (GPU g used), then a_{i,g} (item i on GPU g), then h_{s,g} (GPU g holds the
    # limited service s); symmetry broken by y_g ≥ y_{g+1}.
    nv = b + n * b + len(limited) * b

    def a(i: int, g: int) -> int:
        return b + i * b + g

    def h(k: int, g: int) -> int:
        return b + n * b + k * b + g

    rows, lo, hi = [], [], []
    for i in range(n):
        r = [0.0] * nv
        for g in range(b):
            r[a(i, g)] = 1.0
        rows.append(r)
        lo.append(1.0)
        hi.append(1.0)
    for g in range(b):
        for k, cap in ((0, mem_cap), (1, time_cap)):
            r = [0.0] * nv
            for i in range(n):
                r[a(i, g)] = float(items[i][k])
            r[g] = -cap
            rows.append(r)
            lo.append(-math.inf)
            hi.append(1e-9)
        for k, name in enumerate(limited):
            # a GPU holding the limited service carries at most its cap: Σ t·a + (T − cap)·h ≤ T
            r = [0.0] * nv
            for i in range(n):
                r[a(i, g)] = float(items[i][1])
                if items[i][2] == name:
                    hr = [0.0] * nv
                    hr[a(i, g)], hr[h(k, g)] = 1.0, -1.0
                    rows.append(hr)
                    lo.append(-math.inf)
                    hi.append(0.0)
            r[h(k, g)] = time_cap - caps[name]
            rows.append(r)
            lo.append(-math.inf)
            hi.append(time_cap + 1e-9)
        if g + 1 < b:
            r = [0.0] * nv
            r[g], r[g + 1] = 1.0, -1.0
            rows.append(r)
            lo.append(0.0)
            hi.append(math.inf)
    res = _milp([1.0] * b + [0.0] * (nv - b), rows, lo, hi, [1.0] * nv, opts)
    if res.x is None:
        return _ffd(items, mem_cap, time_cap, caps), False
    bins: list[list[int]] = [[] for _ in range(b)]
    for i in range(n):
        for g in range(b):
            if res.x[a(i, g)] > 0.5:
                bins[g].append(i)
    gap = float(getattr(res, "mip_gap", 0.0) or 0.0)
    return [x for x in bins if x], gap <= 1e-9


def _pack_mps(
    services: Sequence[ServiceDemand], opts: ShareOptions, notebooks: Sequence[NotebookGroup] = ()
) -> SharePlan:
    whole = opts.gpu_memory_gib
    unplaced = [
        Unplaced(service=s.name, reason=_too_big(s, opts), notebooks=isinstance(s, NotebookGroup))
        for s in _tenants(services, notebooks)
        if s.memory_gib > whole
    ]
    fit = [s for s in services if s.memory_gib <= whole]
    nbs = [nb for nb in notebooks if nb.memory_gib <= whole]
    if not fit and not nbs:
        return _plan(opts, "mps", 0, 0, True, [], unplaced, [], _("nothing to place"))

    def part_gib(parts: int) -> float:
        # one part is the GPU alone; parts share it less what fragmentation keeps
        return whole if parts == 1 else whole * TIME_SLICE_MEMORY_SHARE / parts

    # the fewest GPUs, where every notebook group runs within its slow-down target if any N does
    best: tuple[int, int, int, list[int]] | None = None
    for parts in range(1, MAX_MPS_PARTS + 1):
        if max(s.memory_gib for s in _tenants(fit, nbs)) > part_gib(parts):
            break
        speed = (1.0 - opts.mps_penalty) / parts
        counts = [_instances(s, speed, opts.target_utilisation, part_gib(parts)) for s in fit]
        gpus = math.ceil((sum(counts) + sum(nb.users for nb in nbs)) / parts)
        missed = sum(1.0 / speed > nb.max_slowdown + 1e-9 for nb in nbs)
        if best is None or (missed, gpus) < (best[0], best[1]):
            best = (missed, gpus, parts, counts)
    assert best is not None  # parts = 1 always fits: every service in `fit` fits a whole GPU
    _missed, gpus, parts, counts = best
    placements, outs, k = [], [], 0
    for s, n in zip(fit, counts, strict=True):
        for _copy in range(n):
            placements.append(Placement(gpu_index=k // parts, service=s.name, slice=f"mps-1/{parts}"))
            k += 1
        outs.append(_outcome(s, f"mps-1/{parts}", n, (1.0 - opts.mps_penalty) / parts, part_gib(parts)))
    for nb in nbs:
        for _user in range(nb.users):
            placements.append(Placement(gpu_index=k // parts, service=nb.name, slice=f"mps-1/{parts}"))
            k += 1
    notes = (
        _(
            "MPS throughput penalty {penalty:.0%} (assumed; NVIDIA publishes none); each part is "
            "1/{parts} of the GPU's memory and threads"
        ).format(penalty=opts.mps_penalty, parts=parts),
        _mps_faults_note(),
    )
    method = _("MPS in {parts} equal parts").format(parts=parts)
    speed = (1.0 - opts.mps_penalty) / parts
    return _plan(
        opts,
        "mps",
        gpus,
        gpus,
        True,
        placements,
        unplaced,
        outs,
        method,
        notes,
        [_fixed(nb, f"mps-1/{parts}", speed, placements) for nb in nbs],
    )


def pack_services(
    services: Sequence[ServiceDemand], opts: ShareOptions, notebooks: Sequence[NotebookGroup] = ()
) -> SharePlan:
    """Place every service, and every notebook or experiment user of ``notebooks``, on
    ``opts.gpu_id`` GPUs the ``opts.sharing`` way, fewest GPUs."""
    if not services and not notebooks:
        raise InputError.worded(
            N_("no services or notebook groups to place; list them under services: or notebooks:")
        )
    seen: dict[str, bool] = {}  # name: a notebook group's
    for s in _tenants(services, notebooks):
        group = isinstance(s, NotebookGroup)
        if s.name in seen:  # the first name given twice, so that the user can find it in the file
            if not group:
                template = N_("two services are named {name}; give each service its own name")
            elif seen[s.name]:
                template = N_("two notebook groups are named {name}; give each group its own name")
            else:
                template = N_(
                    "a service and a notebook group are both named {name}; give each its own name (the "
                    "report and the placements name them)"
                )
            raise InputError.worded(template, name=repr(s.name))
        seen[s.name] = group
    if not 0 < opts.target_utilisation <= 1:
        raise InputError.worded(N_("target utilisation must be in (0, 1]"))
    if not (0 <= opts.time_slice_penalty < 1 and 0 <= opts.mps_penalty < 1):
        raise InputError.worded(N_("the time-slice and MPS penalties must be in [0, 1)"))
    # Before any packing: the load must be one a packing can place (requests_per_s: 1e6 is not).
    whole = sum(
        max(1.0, s.requests_per_s / (s.capacity_requests_per_s * opts.target_utilisation)) for s in services
    ) + sum(nb.users for nb in notebooks)
    if not whole <= MAX_SHARE_GPUS:
        raise InputError.worded(
            N_(
                "the services need {gpus:,.0f} instances at their load (at least one each), more than "
                "the {limit:,} a packing places; check requests_per_s and capacity_requests_per_s, or "
                "split the file"
            ),
            gpus=whole,
            limit=MAX_SHARE_GPUS,
        )
    packers = {"whole": _pack_whole, "mig": _pack_mig, "time-slice": _pack_time_slice, "mps": _pack_mps}
    if opts.sharing not in packers:
        from gpuplan.errors import NotFoundError

        raise NotFoundError("sharing", opts.sharing, SHARINGS)
    plan = packers[opts.sharing](services, opts, notebooks)
    return replace(
        plan, notes=(*plan.notes, *_model_notes(services, opts.sharing), *_notebook_notes(notebooks))
    )


def _notebook_notes(notebooks: Sequence[NotebookGroup]) -> tuple[str, ...]:
    """What the notebook users' figures rest on, in words."""
    if not notebooks:
        return ()
    return (
        _(
            "notebooks and experiments: slow-down against a whole GPU while they compute (whole: none; "
            "MIG, MPS: their share's speed, never slowed by a neighbour; time-slicing: the chance that "
            "others compute at the same time, from each user's active share); targets: max_slowdown "
            "(assumed 3× unless given) and max_oom_risk (assumed 1 % unless given); an open kernel "
            "holds its memory while idle (PyTorch's caching allocator) unless holds_memory: active"
        ),
    )


def _model_notes(services: Sequence[ServiceDemand], sharing: str) -> tuple[str, ...]:
    """What the latencies shown rest on, in words: the plan's serving model, and where a share
    differs from the plan's whole GPU."""
    notes = []
    if any(s.serving is not None for s in services):
        notes.append(
            _(
                "p95 latency and time to first token of the services estimated from their workload: the "
                "model plan sizes a fleet with (continuous batching, M/M/c queueing over the replica's "
                "KV-cache slots), the same figures plan gives for the same GPUs"
            )
            if sharing == "whole"
            else _(
                "p95 latency and time to first token of the services estimated from their workload: the "
                "model plan sizes a fleet with (continuous batching, M/M/c queueing over the replica's "
                "KV-cache slots), on a share at its share of the GPU's speed and with the KV cache its "
                "memory holds ({sharing}: the share taken as a smaller, slower GPU)"
            ).format(sharing=sharing_name(sharing))
        )
    if any(s.step is not None for s in services):
        notes.append(
            _(
                "p95 latency of the forward-pass and image services estimated from their workload: the "
                "replica plan sizes (the traced step, its batch's places queued as M/M/c), on a share at "
                "its share of the GPU's speed; memory is the estimate's weights and activations at that "
                "batch (no KV cache); they have no time to first token"
            )
        )
    if any(s.serving is None and s.step is None for s in services):
        notes.append(
            _(
                "services given by hand (latency_ms, capacity_requests_per_s): queued as one slot "
                "(M/M/1), their time to first token not known"
            )
        )
    return tuple(notes)
