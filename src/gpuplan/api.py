"""The Python API behind the CLI: ``estimate`` and ``plan`` from a workload, in one call each.

    from gpuplan import Workload, estimate, plan
    w = Workload.from_yaml("examples/bert-large-squad.yaml")
    report = estimate(w, gpus=["A100-SXM4-80GB", "L4"])
    best = plan(w, deadline_h=6, budget_usd=100).recommended

Both trace the workload on fake tensors (cached by content in the catalog store when one is given).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpuplan.i18n.phrases import listed

if TYPE_CHECKING:
    from gpuplan.catalog import Store
    from gpuplan.catalog.gpu_hour import GpuHourPrice
    from gpuplan.catalog.model import OfferPrice
    from gpuplan.commit import TcoReport, Usage
    from gpuplan.deploy.spec import EngineSlots, LaunchSpec
    from gpuplan.perf import Calibration, EstimateOutcome, NetworkSpec
    from gpuplan.perf.image_serving import ImageStep
    from gpuplan.perf.inference import ServingEstimate
    from gpuplan.perf.input_pipeline import Host
    from gpuplan.perf.replica_load import ReplicaLoad
    from gpuplan.perf.scaling_gap import MeasuredScaling
    from gpuplan.plan import BaselineSpec, Plan
    from gpuplan.plan.launch_checkpoints import LaunchCheckpoints
    from gpuplan.profile import Profile, ProfileCache
    from gpuplan.simulate import Trace
    from gpuplan.simulate.autoscale import AutoscaleResult
    from gpuplan.workload import Workload
    from gpuplan.workload.stack import Stack

__all__ = [
    "EstimateReport",
    "InstanceLinks",
    "StackLevelReport",
    "deployed_engine_slots",
    "engine_batch_slots",
    "estimate",
    "estimate_replica_capacity",
    "estimate_replica_figures",
    "image_peak_replicas",
    "image_replica_fit",
    "image_step",
    "instance_links",
    "latency_held_share",
    "launch_weights",
    "measured_scaling",
    "offered_gpu_hours",
    "own_host",
    "plan",
    "plan_p95_latency",
    "refuse_unread_speedup",
    "refuse_unrunnable",
    "refuse_unsplit",
    "replica_host",
    "replica_load_on",
    "spot_checkpoint_interval",
    "tco",
    "with_plan_p95",
]


@dataclass(frozen=True, kw_only=True)
class StackLevelReport:
    """The same GPU configurations with the workload on a named software stack."""

    level: str
    """``stock`` (plain PyTorch) or ``tuned`` (NVIDIA NGC-script level)."""
    outcomes: tuple[EstimateOutcome, ...]
    """One per GPU configuration, in the order of :attr:`EstimateReport.outcomes`."""


@dataclass(frozen=True, kw_only=True)
class EstimateReport:
    """A workload's traced profile and its estimate on each GPU configuration asked for."""

    profile: Profile
    outcomes: tuple[EstimateOutcome, ...]
    """One per GPU configuration, in the order asked; ``error`` is set where a GPU cannot run it."""
    calibration: Calibration
    stack: Stack | None = None
    """The software stack the estimate assumed (the workload's, level defaults filled in)."""
    levels: tuple[StackLevelReport, ...] = ()
    """The stock and tuned stacks on the same GPUs: the spread the code's choices make."""
    checkpoints: LaunchCheckpoints | None = None
    """The checkpoints the launch's train.py writes over the job, as ``plan`` costs them off spot
    (its size, interval and assumed write bandwidth); None where the job writes none."""


@dataclass(frozen=True, kw_only=True)
class InstanceLinks:
    """What an estimate takes from the links the user gave or from a named instance type."""

    network: NetworkSpec | None
    """None: nothing given, the links are assumed (and labelled so)."""
    gpus: tuple[str, ...] | None
    """The GPUs to estimate: the user's, else the instance's GPU, else None (every GPU)."""
    host: Host | None
    """The named instance's GPUs, vCPUs and RAM (None without an instance; a count the catalog
    lacks is None in it): what feeds an image job's GPUs, and whether its page cache holds the dataset."""

    def count(self, given: int | None) -> int | None:
        """The GPUs to estimate: ``given`` (``--count``), else all of the named instance's whole
        GPUs (an estimate of one GPU of a p4d.24xlarge had said nothing of its other seven), else
        None (one replica)."""
        if given is not None or self.host is None or not self.host.gpus or self.host.gpus < 1:
            return given
        from gpuplan.hardware import parse_gpu_spec

        if any(parse_gpu_spec(g)[1] is not None for g in self.gpus or ()):
            return given  # a NAME:COUNT says how many
        return int(self.host.gpus)


def instance_links(
    store: Store | None,
    instance: str | None,
    *,
    gpus: Sequence[str] | None = None,
    network_gbps: float | None = None,
    network_kind: str | None = None,
) -> InstanceLinks:
    """The links the user gave, or the catalog's facts of ``instance`` (``gpuplan estimate
    --instance``): its GPU, GPUs per node, NVLink and network, and its vCPUs and RAM. ``store`` is
    read only when an instance is named; an unknown one raises NotFoundError with the close names."""
    from gpuplan.errors import InputError, NotFoundError
    from gpuplan.i18n.messages import N_
    from gpuplan.perf import NetworkSpec
    from gpuplan.perf.input_pipeline import Host
    from gpuplan.perf.links import checked_network_kind, network_kind_of

    kind = checked_network_kind(network_kind)
    given_gpus = tuple(gpus) if gpus else None
    if instance is None:
        if network_gbps is None and kind is None:
            return InstanceLinks(network=None, gpus=given_gpus, host=None)
        spec = NetworkSpec(gbit_s=network_gbps, kind=kind, source="user")
        return InstanceLinks(network=spec, gpus=given_gpus, host=None)
    assert store is not None, "an instance type is looked up in a catalog store"
    every = store.offers(include_unpriced=True)
    offers = [o for o in every if o.instance_type.lower() == instance.lower()]
    if not offers:
        known = sorted({o.instance_type for o in every})
        raise NotFoundError("instance type", instance, known, hint=N_("see gpuplan offers"))
    o = offers[0]
    if given_gpus:
        from gpuplan.hardware import parse_gpu_spec

        # The instance's vCPUs, RAM, network and GPU link belong to its own GPU: an estimate of
        # another GPU on them describes no machine anyone rents.
        other = next((g for g in given_gpus if parse_gpu_spec(g)[0].id != o.gpu), None)
        if other is not None:
            raise InputError.worded(
                N_("{instance} carries {gpu} GPUs, not {other}; drop --gpu, or name an instance of {other}"),
                instance=o.instance_type,
                gpu=o.gpu,
                other=other,
            )
    text = o.interconnect or ""
    given = network_gbps if network_gbps is not None else o.network_gbps
    source = "user" if network_gbps is not None else ("catalog" if o.network_gbps is not None else "assumed")
    spec = NetworkSpec(
        gbit_s=given,
        kind=kind or network_kind_of(getattr(o, "network_kind", None) or "") or network_kind_of(text),
        source=source,  # type: ignore[arg-type]
        gpus_per_node=int(o.gpu_count),
        # NVLink or PCIe and the NVLink board from the entry's words; where it does not say, the
        # conservative bound, stated in the link's description (perf.links.gpu_join).
        interconnect=text,
    )
    # The same host the planner takes of an offer (plan/estimator.py): its vCPUs and its RAM.
    host = None
    if o.gpu_count:
        host = Host(gpus=o.gpu_count, vcpus=o.vcpus or None, ram_gib=o.memory_gib or None)
    return InstanceLinks(network=spec, gpus=given_gpus or (o.gpu,), host=host)


def replica_host(store: Store, gpu: str | None, instance: str | None) -> tuple[str, NetworkSpec | None]:
    """A simulated replica's GPU and, with an instance type (``simulate autoscale --instance``), the
    instance's links: its GPU unless ``gpu`` names the same one; another is refused."""
    from gpuplan.errors import InputError
    from gpuplan.hardware import resolve_gpu
    from gpuplan.i18n.messages import N_

    if instance is None:
        return resolve_gpu(gpu or "A100-SXM4-80GB").id, None
    links = instance_links(store, instance)
    assert links.gpus is not None  # an instance names its GPU
    own = links.gpus[0]
    if gpu is not None and resolve_gpu(gpu).id != own:
        raise InputError.worded(
            N_("--gpu {gpu} is not the GPU of {instance} ({own}): give one of them"),
            gpu=gpu,
            instance=instance,
            own=own,
        )
    return own, links.network


def offered_gpu_hours(
    workload: Workload,
    offers: Iterable[OfferPrice],
    *,
    count: int = 1,
    allow_low_confidence: bool = False,
) -> dict[str, GpuHourPrice]:
    """``estimate``'s ``offered_gpus`` from a catalog's ``offers``: every GPU offered where the
    workload's ``constraints`` allow (its providers, regions and countries, as the planner filters
    them) with what a job of ``count`` of them pays an hour there: the cheapest on-demand instance
    holding at least ``count`` of them, whole (an 8-GPU box rents as 8: its per-GPU figure had been
    quoted for a one-GPU job that would pay eight times it), of equal prices the one known to hold
    today, as plan ranks them (``simulate.inputs.replica_instances``). Low-confidence prices (the
    source articles' 2024 tables) count only with ``allow_low_confidence``, as in ``plan``. A GPU
    no instance of which holds ``count`` keeps its lowest price per GPU-hour
    (``catalog.query.on_demand_gpu_hours``); one of no usable price, the reason.
    A "use a bigger GPU" had been priced at a marketplace the team had not named."""
    from gpuplan.catalog.gpu_hour import GpuHourPrice
    from gpuplan.catalog.query import on_demand_gpu_hours
    from gpuplan.plan.allowed_offers import allowed_offers
    from gpuplan.simulate.inputs import replica_instances

    allowed = list(allowed_offers(offers, workload.constraints).offers)
    out = on_demand_gpu_hours(allowed)
    for gpu in out:
        found = replica_instances(
            allowed,
            gpu,
            gpus_per_replica=count,
            pricings=("on_demand",),
            allow_low_confidence=allow_low_confidence,
        ).get("on_demand")
        if found is not None:
            per_instance, offer, _replicas = found
            out[gpu] = GpuHourPrice.of_instance(offer, per_instance, count)
    return out


def _gpu_hour_prices(
    offered: Mapping[str, GpuHourPrice | float | None] | Iterable[str] | None,
) -> dict[str, GpuHourPrice | None] | None:
    """``estimate``'s ``offered_gpus`` with a bare number (USD per GPU-hour, as callers wrote it
    before prices carried their offer) taken as a price the caller gave, of no stated place or date,
    and a collection of names as GPUs offered at no price looked up."""
    from gpuplan.catalog.gpu_hour import GpuHourPrice
    from gpuplan.i18n.messages import N_

    if offered is None:
        return None
    if not isinstance(offered, Mapping):
        return dict.fromkeys(offered)
    return {
        gpu: GpuHourPrice(gpu=gpu, price_usd_per_gpu_hour=float(p), source=N_("given by the caller"))
        if isinstance(p, (int, float))
        else p
        for gpu, p in offered.items()
    }


def estimate_replica_capacity(
    workload: Workload, gpu: str, profile: Profile, *, replicas_per_gpu: int
) -> float | None:
    """Requests/s one replica of ``workload``'s service carries on ``gpu`` at full load by the
    estimate (its serving block's lengths; ``replicas_per_gpu`` time-sharing each GPU), the figure
    ``plan`` sizes fleets with and a plan records as ``replica_capacity_requests_per_s``; None where
    the estimate gives none (no serving block, a GPU it cannot run on)."""
    return estimate_replica_figures(workload, gpu, profile, replicas_per_gpu=replicas_per_gpu)[0]


def estimate_replica_figures(
    workload: Workload, gpu: str, profile: Profile, *, replicas_per_gpu: int, gpus_per_instance: int = 1
) -> tuple[float | None, float | None]:
    """:func:`estimate_replica_capacity`, and the share of it each replica may carry where the
    workload's latency targets (``serving.p95_latency_ms``, ``ttft_p95_ms``, ``tpot_p95_ms``) need
    more replicas than the sizing utilisation does — the share ``plan`` records for the replicas it
    buys for them (its option's utilisation, which ``deploy`` from a plan holds): the peak load over
    the replicas the estimate needs for the targets, over their capacity. None: no target, or the
    sizing utilisation meets them. So ``deploy`` from a workload file and ``simulate autoscale``
    hold the share ``deploy`` from the plan does (Qwen2.5-14B on A100 80GB, 40 requests/s, 50 ms
    per output token: 20 replicas of 2.78 requests/s, 72 %, where by the estimate the sizing
    utilisation's 18 miss the target). ``gpus_per_instance``: the GPUs of the instance the replicas
    run on, whose whole instances ``plan`` buys and takes the share at: on 8-GPU instances those 20
    replicas are 24, as are the 18 of the headroom, so the targets add no instance and the share is
    that of 24 replicas, as a plan of that instance holds it (a workload file had held 72 %, the
    share of 20, where the plan's deploy held 80 %; the targets are known to hold at the share of
    the replicas bought, not at the headroom's)."""
    import math

    from gpuplan.perf.inference import TARGET_UTILISATION

    if workload.serves_traced_calls:  # held at the sizing utilisation, as plan sizes its replicas
        step = image_step(workload, gpu, profile, replicas_per_gpu=replicas_per_gpu)
        return (None if step is None else step.capacity_images_per_s), None
    srv = _serving_outcome(workload, gpu, profile, replicas_per_gpu=replicas_per_gpu)
    serving = workload.serving
    if srv is None or serving is None:
        return None, None
    capacity = float(srv.capacity_requests_per_s)
    targets = (serving.p95_latency_ms, serving.ttft_p95_ms, serving.tpot_p95_ms)
    if all(t is None for t in targets):
        return capacity, None
    share = max(1, replicas_per_gpu)
    # replicas an instance holds: the whole instances ``plan`` buys (whole GPUs of time-sharing
    # replicas where the instance is not known)
    per_instance = max(1, gpus_per_instance // max(1, workload.tensor_parallel) * share)
    # the replicas the estimate needs, as ``plan`` counts them: whole GPUs of time-sharing replicas
    replicas = srv.gpus_needed // max(1, workload.tensor_parallel) * share
    replicas = math.ceil(replicas / per_instance) * per_instance
    headroom = math.ceil(serving.requests_per_s / (capacity * TARGET_UTILISATION) - 1e-9)
    # where the targets add no replica, a share below the headroom is the count's rounding, but the
    # targets were checked at it only: held there too, as a plan's deploy holds it
    replicas = max(replicas, math.ceil(headroom / per_instance) * per_instance)
    held = serving.requests_per_s / replicas / capacity
    # known to hold at the share of the replicas bought; the highest share the estimate keeps them
    # at is what an autoscaler may hold (:func:`latency_held_share`)
    return capacity, latency_held_share(
        workload,
        gpu,
        profile,
        replicas_per_gpu=replicas_per_gpu,
        floor=held if 0 < held < TARGET_UTILISATION else None,
    )


def plan_p95_latency(
    workload: Workload,
    gpu: str,
    profile: Profile,
    *,
    replicas_per_gpu: int,
    requests_per_s: float,
    replicas: int,
) -> float | None:
    """gpuplan's estimate of the p95 latency of ``workload``'s language model service on ``gpu``
    (the figure ``plan`` checks ``serving.p95_latency_ms`` against, at the server) with
    ``requests_per_s`` spread evenly over ``replicas``: one replica at its share, at the p95
    request's lengths (:mod:`gpuplan.perf.request_tail`). None where the estimate gives none
    (overloaded, no serving block, an image service: its :func:`image_step`'s
    :meth:`~gpuplan.perf.image_serving.ImageStep.serving` gives it)."""
    serving = workload.serving
    if serving is None or workload.serves_traced_calls or replicas < 1 or not requests_per_s > 0:
        return None
    one = serving.model_copy(
        update={"requests_per_s": requests_per_s / replicas, "mean_requests_per_s": None}
    )
    srv = _serving_outcome(
        workload.model_copy(update={"serving": one}), gpu, profile, replicas_per_gpu=replicas_per_gpu
    )
    return None if srv is None else srv.p95_latency_s


def with_plan_p95(result: AutoscaleResult, p95_at: Callable[[float, int], float | None]) -> AutoscaleResult:
    """``result`` of a generated trace with, per policy, the p95 latency ``plan`` estimates at the
    trace's peak over the most replicas the policy ran (``p95_at(requests_per_s, replicas)``:
    :func:`plan_p95_latency`, an image service's :meth:`~gpuplan.perf.image_serving.ImageStep.
    serving`), asked once a fleet, which its report sets the simulated p95 beside; a trace file's
    unchanged (its peak is not a rate it was drawn at)."""
    from dataclasses import replace

    if result.trace_rate is None:
        return result
    peak = result.trace_rate.peak_requests_per_s
    by_fleet: dict[int, float | None] = {}
    figures: dict[str, float] = {}
    for p in result.policies:
        n = max(1, p.max_replicas)
        if n not in by_fleet:
            by_fleet[n] = p95_at(peak, n)
        got = by_fleet[n]
        if got is not None:
            figures[p.name] = got
    return replace(result, plan_p95_latency_s=figures)


#: The steps of a replica's capacity the share at which a service's latency targets hold is found
#: to: a tenth of a per cent.
_SHARE_STEPS = 1000


def latency_held_share(
    workload: Workload,
    gpu: str,
    profile: Profile,
    *,
    replicas_per_gpu: int,
    floor: float | None = None,
    rtt_s: float = 0.0,
) -> float | None:
    """The largest share of one replica's capacity, up to the sizing utilisation
    (:data:`~gpuplan.perf.inference.TARGET_UTILISATION`), at which gpuplan's estimate keeps the
    workload's latency targets: its p95 latency and p95 time to first token, each with ``rtt_s``
    (the network to the farthest users, as ``plan`` adds it) within ``serving.p95_latency_ms`` and
    ``ttft_p95_ms``, and its time per output token within ``tpot_p95_ms`` — the checks ``plan``
    makes of an option (``plan/estimator.py``, ``plan/users_far.py``), made of one replica at each
    load (:func:`gpuplan.perf.inference.serving_estimate`, whose latencies grow with the load). The
    load an autoscaler can hold each replica at and still meet the targets; ``plan``'s own share
    (its option's utilisation) is only the load it was given over the replicas it bought: a
    Llama-3.1-8B demo planned at 2 requests/s on one L40S replica of 9.8 runs at 20 %, with its
    0.2 s p95 first token well inside a 2 s target, and an autoscaler held at 20 % added a replica
    at the planned load. ``floor``: a share at which the targets are known to hold (the plan's),
    never gone below: the search starts there, and it is what is kept where the estimate gives no
    figure. None: no target, or they hold at the sizing utilisation."""
    import math

    from gpuplan.perf.inference import TARGET_UTILISATION

    serving = workload.serving
    targets = (
        (serving.p95_latency_ms, serving.ttft_p95_ms, serving.tpot_p95_ms) if serving is not None else ()
    )
    if serving is None or all(t is None for t in targets):
        return None
    srv = _serving_outcome(workload, gpu, profile, replicas_per_gpu=replicas_per_gpu)
    if srv is None or not srv.requests_per_s > 0:
        return floor if floor is not None and floor < TARGET_UTILISATION else None
    capacity, at_load = float(srv.capacity_requests_per_s), float(srv.requests_per_s)

    def holds(share: float) -> bool:
        # the whole load scaled so that each of the estimate's replicas carries ``share`` of one's
        scale = share * capacity / at_load
        assert serving is not None
        scaled = serving.model_copy(
            update={
                "requests_per_s": serving.requests_per_s * scale,
                "mean_requests_per_s": None,
            }
        )
        got = _serving_outcome(
            workload.model_copy(update={"serving": scaled}), gpu, profile, replicas_per_gpu=replicas_per_gpu
        )
        if got is None or got.p95_latency_s is None:
            return False  # unknown is never taken as within the target
        p95, ttft, tpot = serving.p95_latency_ms, serving.ttft_p95_ms, serving.tpot_p95_ms
        return not (
            (p95 is not None and (got.p95_latency_s + rtt_s) * 1000 > p95)
            or (ttft is not None and (got.ttft_p95_s is None or (got.ttft_p95_s + rtt_s) * 1000 > ttft))
            or (tpot is not None and (got.tpot_s is None or got.tpot_s * 1000 > tpot))
        )

    if holds(TARGET_UTILISATION):
        return None
    # on a grid of :data:`_SHARE_STEPS`, so that a search from the plan's share and one from none
    # find the same share: the highest step at which the targets hold (latencies grow with the load)
    low = math.floor((floor or 0.0) * _SHARE_STEPS + 1e-9)  # known (or taken) to hold
    high = round(TARGET_UTILISATION * _SHARE_STEPS)  # known not to
    while high - low > 1:
        mid = (low + high) // 2
        if holds(mid / _SHARE_STEPS):
            low = mid
        else:
            high = mid
    share = max(low / _SHARE_STEPS, floor or 0.0)
    return share if share > 0 else None


def _one_replica(
    workload: Workload,
    gpu: str,
    profile: Profile,
    replicas_per_gpu: int,
    measured_steps: Sequence[Any] = (),
) -> EstimateReport:
    """The estimate of one replica of ``workload``'s service on ``gpu``, ``replicas_per_gpu``
    time-sharing each: each in its share of the memory and the time, as deploy's fit check takes it;
    anchored on ``measured_steps`` (``gpuplan measure`` recordings) as ``plan``'s estimate is."""
    serving = workload.serving
    if serving is not None and serving.share_gpu != replicas_per_gpu:
        workload = workload.model_copy(
            update={"serving": serving.model_copy(update={"share_gpu": replicas_per_gpu})}
        )
    return estimate(
        workload,
        [f"{gpu}:{max(1, workload.tensor_parallel)}"],
        profile=profile,
        measured_steps=measured_steps,
    )


def _serving_outcome(
    workload: Workload, gpu: str, profile: Profile, *, replicas_per_gpu: int
) -> ServingEstimate | None:
    """The estimate's serving figures of one replica of ``workload`` on ``gpu``; None where it gives
    none."""
    from gpuplan.errors import GpuplanError

    serving = workload.serving
    if serving is None:
        return None
    try:
        report = _one_replica(workload, gpu, profile, replicas_per_gpu)
    except GpuplanError:
        return None
    srv = report.outcomes[0].serving
    if srv is None or not srv.capacity_requests_per_s > 0:
        return None
    return srv


def image_step(
    workload: Workload,
    gpu: str,
    profile: Profile,
    *,
    replicas_per_gpu: int,
    measured_steps: Sequence[Any] = (),
) -> ImageStep | None:
    """One replica of a service of traced calls (an image service, ``inputs.denoising_steps``, or
    one whose request is one forward pass) on ``gpu`` as ``plan`` sizes it
    (:class:`gpuplan.perf.image_serving.ImageStep`), at any load: the estimate's step of one
    replica (the traced batch's call), anchored on ``measured_steps`` (the workload's
    ``gpuplan measure`` recordings, :func:`gpuplan.perf.anchor.workload_measurements`) as ``plan``'s
    image rows are; the calls of a request (:func:`~gpuplan.perf.image_serving.request_calls`), its
    batch the places, ``replicas_per_gpu`` time-sharing each GPU. None where the estimate gives no
    step (a GPU it cannot run on), or the workload is no such service."""
    fit = image_replica_fit(
        workload, gpu, profile, replicas_per_gpu=replicas_per_gpu, measured_steps=measured_steps
    )
    return None if fit is None else fit[0]


def image_replica_fit(
    workload: Workload,
    gpu: str,
    profile: Profile,
    *,
    replicas_per_gpu: int,
    measured_steps: Sequence[Any] = (),
) -> tuple[ImageStep, float] | None:
    """:func:`image_step`, and the memory its replica must have, GiB: the estimate's high end of
    what must fit (weights and the activations at its batch, the CUDA context and workspaces), as
    ``plan`` checks a replica *fits for certain*; of the same estimate. None as :func:`image_step`."""
    from gpuplan.errors import GpuplanError
    from gpuplan.hardware import get_gpu
    from gpuplan.perf.image_serving import ImageStep, request_calls
    from gpuplan.perf.inference import time_slice_share

    if workload.serving is None or not workload.serves_traced_calls:
        return None
    try:
        report = _one_replica(workload, gpu, profile, replicas_per_gpu, measured_steps)
        calls = request_calls(workload, profile, get_gpu(gpu))
    except GpuplanError:
        return None
    est = report.outcomes[0].estimate
    if est is None or not est.step_time_s > 0:
        return None
    step = ImageStep(
        step_s=est.step_time_s,
        calls=calls,
        batch=workload.inputs.batch_size,
        time_share=time_slice_share(max(1, replicas_per_gpu)),
    )
    return step, est.memory.required_gib_high


def image_peak_replicas(
    workload: Workload,
    gpu: str,
    profile: Profile,
    *,
    replicas_per_gpu: int,
    measured_steps: Sequence[Any] = (),
) -> tuple[int, float] | None:
    """The replicas ``plan`` sizes an image service's fleet at for its stated peak
    (``serving.requests_per_s``) on ``gpu`` (:meth:`~gpuplan.perf.image_serving.ImageStep.
    peak_replicas` of its :func:`image_step`, in whole GPUs of ``replicas_per_gpu`` time-sharing
    each, as plan counts an option's), and what one replica carries at full load (images/s); None
    where the estimate gives no step or no count meets the p95 target. Deploy's autoscaler ceiling
    and its check of the GPUs given take it."""
    step = image_step(
        workload, gpu, profile, replicas_per_gpu=replicas_per_gpu, measured_steps=measured_steps
    )
    serving = workload.serving
    if step is None or serving is None:
        return None
    n = step.peak_replicas(serving.requests_per_s, serving.p95_latency_ms)
    if n is None:
        return None
    share = max(1, replicas_per_gpu)
    return -(-n // share) * share, step.capacity_images_per_s


def engine_batch_slots(
    workload: Workload,
    gpu: str,
    profile: Profile,
    *,
    replicas_per_gpu: int,
    trace: Trace | None = None,
    estimate_capacity_requests_per_s: float | None = None,
    latency_share: float | None = None,
    gpus_per_instance: int = 1,
    rtt_s: float = 0.0,
) -> EngineSlots:
    """The requests one replica of ``workload``'s engine runs at once on ``gpu`` (``profile``: the
    workload traced for inference), as ``simulate autoscale`` builds its replica: the sequences its
    KV cache holds at the mean context of a running request (``simulate.replica.running_context``
    of ``trace``'s requests, else of the serving block's prompt and output tokens: prompt + half the
    output), at most the engine's ``max_num_seqs``; ``replicas_per_gpu``: replicas time-sharing one
    GPU, each with its share of the memory.

    And the requests in flight ``deploy``'s autoscaler holds per replica, as ``simulate
    autoscale``'s queue policy holds them by default (:func:`gpuplan.simulate.in_flight.
    service_in_flight`): at the smaller of the estimate's capacity of one replica
    (``estimate_capacity_requests_per_s``, the plan's; None: worked out here,
    :func:`estimate_replica_capacity`) and this replica's own, × the sizing utilisation, or the
    estimate's × ``latency_share`` where a latency target holds only up to that lower share: the
    plan's share (its load over its replicas) raised to the highest at which the estimate keeps the
    targets (:func:`latency_held_share`, ``rtt_s`` the plan's network to the farthest users)."""
    import numpy as np

    from gpuplan.deploy.spec import EngineSlots
    from gpuplan.hardware import get_gpu
    from gpuplan.simulate.in_flight import service_in_flight
    from gpuplan.simulate.inputs import request_tokens
    from gpuplan.simulate.replica import ServingStack, estimator_replica

    prompt, output = request_tokens(workload.serving)
    prompts, outputs = np.array([prompt]), np.array([output])
    if trace is not None:
        lengths = trace.with_tokens(prompt, output)
        assert lengths.prompt_tokens is not None and lengths.output_tokens is not None
        prompts, outputs = lengths.prompt_tokens, lengths.output_tokens
    replica, _weights = estimator_replica(
        profile,
        get_gpu(gpu),
        ServingStack.of(workload, replicas_per_gpu=replicas_per_gpu),
        prompt_tokens=prompts,
        output_tokens=outputs,
    )
    assert replica.step is not None  # the estimator's replica
    if estimate_capacity_requests_per_s is None:
        # no plan's figures: the estimate's, and the share its latency targets need (as plan has it)
        estimate_capacity_requests_per_s, estimated_share = estimate_replica_figures(
            workload, gpu, profile, replicas_per_gpu=replicas_per_gpu, gpus_per_instance=gpus_per_instance
        )
        latency_share = latency_share if latency_share is not None else estimated_share
    elif latency_share is not None:
        # the plan's share is its load over the replicas it bought, at which the targets held: the
        # highest share at which they still hold is what the autoscaler may hold each replica at
        latency_share = latency_held_share(
            workload, gpu, profile, replicas_per_gpu=replicas_per_gpu, floor=latency_share, rtt_s=rtt_s
        )
    load, held = service_in_flight(
        replica,
        prompts,
        outputs,
        estimate_capacity_requests_per_s=estimate_capacity_requests_per_s,
        latency_share=latency_share,
    )
    return EngineSlots(
        slots=replica.slots,
        context_tokens=replica.running_context_tokens,
        kv_tokens=replica.step.kv_capacity_tokens,
        trace=trace.name if trace is not None else None,
        longest_request=int(np.max(prompts + outputs)) if trace is not None else None,
        load_requests_per_s=load.requests_per_s,
        load_basis=load.basis,
        load_share=load.share,
        capacity_requests_per_s=load.simulation_capacity_requests_per_s,
        estimate_capacity_requests_per_s=load.estimate_capacity_requests_per_s,
        in_flight=held.in_flight,
        time_in_replica_s=held.time_in_replica_s,
        first_token_s=held.first_token_s,
        time_per_output_token_s=held.time_per_output_token_s,
        output_tokens=held.output_tokens,
    )


def deployed_engine_slots(
    workload: Workload | str,
    gpu: str | None,
    share: int,
    profile_of: Callable[[Workload], Profile],
    trace: Trace | None = None,
    *,
    estimate_capacity_requests_per_s: float | None = None,
    latency_share: float | None = None,
    gpus_per_instance: int = 1,
    rtt_s: float = 0.0,
) -> EngineSlots | str:
    """:func:`engine_batch_slots` for ``deploy``'s autoscaler (on ``trace``'s request lengths where
    one is given; ``estimate_capacity_requests_per_s``, ``latency_share`` as it takes them), else
    why they are not known:
    ``workload`` may already be that reason (a plan whose workload cannot be read), ``gpu`` None (no
    GPU named), or the trace (``profile_of``: the caller's cache) may fail. The command line and the
    service's deploy route both ask here."""
    from gpuplan.errors import GpuplanError
    from gpuplan.i18n.messages import _

    if isinstance(workload, str):
        return workload
    if gpu is None:
        return _("no GPU named (--gpu)")
    if workload.serves_images:
        return _("an image service (inputs.denoising_steps) runs no language model's engine")
    if workload.serves_forward_passes:
        return _("a service whose request is one forward pass runs no language model's engine")
    try:
        return engine_batch_slots(
            workload,
            gpu,
            profile_of(workload),
            replicas_per_gpu=share,
            trace=trace,
            estimate_capacity_requests_per_s=estimate_capacity_requests_per_s,
            latency_share=latency_share,
            gpus_per_instance=gpus_per_instance,
            rtt_s=rtt_s,
        )
    except GpuplanError as e:
        return str(e)


def replica_load_on(
    workload: Workload,
    profile: Profile,
    gpu: str,
    tensor_parallel: int,
    capacity_requests_per_s: float,
    latency_share: float | None,
) -> ReplicaLoad | None:
    """The load ``deploy``'s autoscaler holds one replica of a service at on ``gpu``, its replicas
    split over ``tensor_parallel`` GPUs, as a launch from a plan works it out
    (:func:`engine_batch_slots` on the serving block's request lengths: the smaller of the plan's
    capacity of one replica, ``capacity_requests_per_s``, and the serving simulation's, × the
    sizing utilisation, or the plan's × ``latency_share``); None where the simulation's replica
    cannot be built (deploy then holds the plan's capacity at that share). ``plan`` prices a
    service's day with it (``gpuplan.plan.service_day``), and ``tco`` takes that day, so that both
    price the fleet the launch runs."""
    from gpuplan.errors import GpuplanError

    if workload.serving is None or workload.serves_traced_calls or not capacity_requests_per_s:
        return None  # an image service has no engine's slots: the plan's capacity is held
    if workload.tensor_parallel != tensor_parallel:
        # each replica split as the plan split it (LaunchSpec.split_as_planned)
        workload = workload.model_copy(update={"tensor_parallel": tensor_parallel})
    try:
        slots = engine_batch_slots(
            workload,
            gpu,
            profile,
            replicas_per_gpu=workload.replicas_per_gpu,
            estimate_capacity_requests_per_s=capacity_requests_per_s,
            latency_share=latency_share,
        )
    except GpuplanError:
        return None
    return slots.replica_load


def tco(
    usage: Usage | str | Path | dict[str, Any],
    *,
    store: Store | None = None,
    db: str | None = None,
    currency: str | None = None,
    project: str | Path | None = None,
    allow_code: bool = False,
    countries: Sequence[str] | None = None,
    upfront: str | None = None,
    hosts: str | None = None,
    budget_usd: float | None = None,
    budget_cny: float | None = None,
) -> TcoReport:
    """:func:`gpuplan.commit.tco` (the same arguments), a service's day sized by the load its launch
    holds a replica at (:func:`replica_load_on`), as ``deploy`` does."""
    from gpuplan.commit import tco as commit_tco

    return commit_tco(
        usage,
        store=store,
        db=db,
        currency=currency,
        project=project,
        allow_code=allow_code,
        countries=countries,
        upfront=upfront,
        hosts=hosts,
        replica_load=replica_load_on,
        budget_usd=budget_usd,
        budget_cny=budget_cny,
    )


def _workload(workload: Workload | str | Path | dict[str, Any]) -> Workload:
    from gpuplan.workload import load_workload

    return load_workload(workload)


def refuse_unrunnable(workload: Workload | str | Path | dict[str, Any], gpus: Sequence[str] | None) -> None:
    """Raise, before any trace, the error each named GPU's estimate would end in when none of them
    has the tensor cores the workload's precision needs (fp8 on an A100, bf16 on a T4): one line at
    once instead of a trace of seconds to minutes first. Nothing when one has, or none is named."""
    if not gpus:
        return
    from gpuplan.hardware import parse_gpu_spec
    from gpuplan.perf.roofline import precision_refusal

    read = _workload(workload)
    precision, task = read.precision.value, read.task.value
    refusals = [
        r for g in gpus if (r := precision_refusal(precision, parse_gpu_spec(g)[0], task)) is not None
    ]
    if len(refusals) == len(gpus):
        raise refusals[0]


def own_host(
    host: Host | None,
    vcpus: int,
    gpus: Sequence[str] | None,
    count: int | None,
    workload: Workload | str | Path | dict[str, Any],
) -> Host:
    """The host whose ``vcpus`` CPU threads the user gave (``gpuplan estimate --vcpus``): a named
    instance's (``host``) with its catalog count replaced, else a machine of the user's own holding
    the GPUs estimated, which share its threads. A lab box has no instance type, and an image job's
    time depends on the vCPUs per GPU that decode its samples (:mod:`gpuplan.perf.input_pipeline`).

    Without an instance the machine holds the configuration's GPUs (a ``NAME:COUNT`` count, else
    ``count``, else one replica): one count for all, since one machine's threads are divided by its
    own GPUs; several counts raise InputError."""
    from dataclasses import replace

    from gpuplan.errors import InputError
    from gpuplan.hardware import parse_gpu_spec
    from gpuplan.i18n.messages import N_
    from gpuplan.perf.input_pipeline import Host

    if host is not None:
        return replace(host, vcpus=float(vcpus), vcpus_given=True)
    w = _workload(workload)
    replica = w.tensor_parallel * w.pipeline_parallel
    given = [parse_gpu_spec(g)[1] for g in gpus] if gpus else [None]
    counts = sorted({n or count or replica for n in given})
    if len(counts) > 1:
        raise InputError.worded(
            N_(
                "--vcpus {vcpus} are one machine's CPU threads, shared by its GPUs; estimate one GPU "
                "count at a time (got {counts})"
            ),
            vcpus=vcpus,
            counts=listed(str(n) for n in counts),
        )
    return Host(gpus=float(counts[0]), vcpus=float(vcpus), vcpus_given=True)


def refuse_two_counts(gpus: Sequence[str] | None, count: int | None) -> None:
    """Refuse a GPU count given twice, by ``NAME:COUNT`` and by ``count`` (``--gpu A10G:2 -n 4``
    had estimated 2 GPUs without a word about the 4)."""
    if count is None or not gpus:
        return
    from gpuplan.errors import InputError
    from gpuplan.hardware import parse_gpu_spec
    from gpuplan.i18n.messages import N_

    both = next((g for g in gpus if parse_gpu_spec(g)[1] is not None), None)
    if both is not None:
        raise InputError.worded(
            N_("--count {count} and --gpu {gpu} both give a GPU count; give it once"), count=count, gpu=both
        )


def refuse_unsplit(
    workload: Workload | str | Path | dict[str, Any], gpus: Sequence[str] | None, count: int | None
) -> None:
    """Refuse, before anything is traced, GPU counts that no configuration asked for can split into
    whole replicas of ``tensor_parallel × pipeline_parallel`` GPUs (a ``NAME:COUNT`` count, else
    ``count``; None: one replica). The same one line the layout stage gives after the trace."""
    from gpuplan.errors import EstimateError, Phrase
    from gpuplan.hardware import parse_gpu_spec
    from gpuplan.i18n.messages import N_

    w = _workload(workload)
    degree = w.tensor_parallel * w.pipeline_parallel
    if degree <= 1:
        return
    given = [parse_gpu_spec(g)[1] for g in gpus] if gpus else [None]
    counts = [n or count or degree for n in given]
    bad = [n for n in counts if n % degree]
    if len(bad) < len(counts):
        return
    n = bad[0]
    raise EstimateError.worded(
        N_(
            "tensor_parallel {tp} × pipeline_parallel {pp} = {degree} does not divide {gpus}; "
            "use a GPU count that is a multiple of {degree}"
        ),
        tp=w.tensor_parallel,
        pp=w.pipeline_parallel,
        degree=degree,
        gpus=Phrase(N_("{count} GPU"), count=n) if n == 1 else Phrase(N_("{count} GPUs"), count=n),
    )


def measured_scaling(
    workload: Workload | str | Path | dict[str, Any],
    gpus: Sequence[str] | None,
    count: int | None,
    speedup: float | None,
    throughput: float | None,
) -> MeasuredScaling | None:
    """A measured speed-up or throughput of several GPUs (``gpuplan estimate --measured-speedup`` /
    ``--measured-throughput``, the service's ``measured_speedup`` / ``measured_throughput``), refused
    in one line before the trace where it cannot be read against one configuration of several GPUs
    of a training job. None: neither given."""
    if speedup is None and throughput is None:
        return None
    from gpuplan.errors import InputError, Option
    from gpuplan.hardware import parse_gpu_spec
    from gpuplan.i18n.messages import N_
    from gpuplan.perf.scaling_gap import MeasuredScaling

    option = Option("--measured-speedup" if speedup is not None else "--measured-throughput")
    if speedup is not None and throughput is not None:
        raise InputError.worded(N_("give --measured-speedup or --measured-throughput, not both"))
    if not _workload(workload).is_training:
        raise InputError.worded(
            N_("{option}: a speed-up over one GPU is a training job's; this workload infers"), option=option
        )
    if not gpus or len(gpus) != 1:
        raise InputError.worded(
            N_("{option}: name the GPU you measured on (--gpu NAME or --instance TYPE), one only"),
            option=option,
        )
    n = parse_gpu_spec(gpus[0])[1] or count or 1
    if n < 2:
        raise InputError.worded(
            N_("{option}: give the GPUs you measured on (--count N, more than one, or --instance TYPE)"),
            option=option,
        )
    return MeasuredScaling(speedup=speedup, throughput=throughput)


def refuse_unread_speedup(report: EstimateReport, measured: MeasuredScaling) -> None:
    """A measured speed-up that could not be read (one GPU cannot run the workload): one line, not a
    table that silently leaves it out."""
    from gpuplan.errors import InputError
    from gpuplan.i18n.messages import N_

    for o in report.outcomes:
        f = o.scaling_figures
        if (
            o.estimate is not None
            and o.scaling_gap is None
            and f is not None
            and measured.speedup is not None
        ):
            raise InputError.worded(
                N_(
                    "--measured-speedup: one {gpu} cannot run this workload ({why}), so there is no one-GPU "
                    "step to read it against; give --measured-throughput instead"
                ),
                gpu=o.gpu,
                why=f.one_gpu_error or "—",
            )


def spot_checkpoint_interval(
    spec: LaunchSpec,
    offers: Sequence[OfferPrice] = (),
    *,
    workload: Workload | None = None,
    profile: Profile | None = None,
    steps_h: float | None = None,
) -> tuple[LaunchSpec, str] | None:
    """A training job deployed on spot from a workload file, with no plan (``gpuplan deploy W.yaml
    --spot``): ``spec`` checkpointing at the interval the planner takes on spot
    (:func:`gpuplan.plan.spot.spot_checkpoint_interval_h`): Young/Daly's, at the rate the planner
    costs its offer at (:func:`gpuplan.plan.spot.launch_rate` of ``offers``, the catalog's spot
    prices of its instance type in its region: their interruption band; none given, as where no
    region is, its provider's assumed rate, one reclaim per 24 instance-hours) times the job's
    nodes, or the workload's ``checkpoint.every_min`` where that is shorter, capped at the job's
    length: ``steps_h`` (its steps on the launch's GPUs, by the estimate deploy's fit check ran)
    and the set-up the plan bills ``workload`` of ``profile`` for on the job's nodes
    (:func:`gpuplan.plan.build_inputs.job_facts_from`); any of them None, not capped (the length
    not known). With the words that say so. None where it does not apply: a plan's spec (its
    interval is the plan's), not spot, inference, or a checkpoint of unknown write time."""
    import math

    from gpuplan.deploy.spec import LaunchSpec
    from gpuplan.i18n.messages import _
    from gpuplan.i18n.numbers import format_hours, format_minutes
    from gpuplan.plan.spot import launch_rate, spot_checkpoint_interval_h, young_daly_h
    from gpuplan.units import ASSUMED_DISK_GBPS
    from gpuplan.vocab import PricingModel

    write_min = spec.checkpoint_write_min
    if spec.planned or spec.pricing != PricingModel.SPOT or spec.task == "infer" or not write_min:
        return None
    rate = launch_rate(offers, spec.provider or "")
    mtbi_h = 1.0 / (rate.per_hour * spec.nodes)
    young_min = float(young_daly_h(write_min / 60.0, mtbi_h)) * 60.0
    stated = None if spec.checkpoint_interval_defaulted else spec.checkpoint_interval_min
    setup_h = _spot_setup_h(workload, profile, spec.nodes, offers)
    job_h = steps_h + setup_h if steps_h is not None and setup_h is not None else math.inf
    interval = (
        float(
            spot_checkpoint_interval_h(
                write_min / 60.0, mtbi_h, job_h, None if stated is None else stated / 60.0
            )
        )
        * 60.0
    )
    write = format_minutes(write_min)
    instances = _("one spot instance") if spec.nodes == 1 else _("{n} spot instances").format(n=spec.nodes)
    basis = _(
        "Young/Daly's interval, sqrt(2 × write × time between reclaims), for a {gb:,.1f} GB checkpoint "
        "({write} at the assumed {gbps} GB/s) on {instances} at {rate}"
    ).format(
        gb=spec.checkpoint_gb or 0.0,
        write=write,
        gbps=ASSUMED_DISK_GBPS,
        instances=instances,
        rate=rate.shown(),
    )
    if offers:
        where = ", ".join(sorted({f"{o.provider} {o.region} {o.instance_type}" for o in offers}))
        basis = _("{basis}, the rate plan costs this offer at ({offer})").format(basis=basis, offer=where)
    uncapped = young_min if stated is None else min(stated, young_min)
    if steps_h is not None and setup_h is not None and interval < uncapped * (1 - 1e-9):
        # the job is shorter than the interval: one write, at its end, as the plan counts it
        why = basis if stated is None or young_min <= stated else _("the workload's checkpoint.every_min")
        words = _(
            "train.py checkpoints every {interval:.1f} min on spot, the job's length ({steps} of steps by "
            "gpuplan's estimate and {setup} of set-up), so once, at its end, as plan counts it: shorter "
            "than {longer:.1f} min, {why}"
        ).format(
            interval=interval,
            steps=format_hours(steps_h),
            setup=format_hours(setup_h),
            longer=uncapped,
            why=why,
        )
    elif stated is not None and stated <= young_min:
        words = _(
            "train.py checkpoints every {interval:.1f} min on spot, the workload's checkpoint.every_min: "
            "shorter than {young:.1f} min, {basis}"
        ).format(interval=interval, young=young_min, basis=basis)
    else:
        words = _("train.py checkpoints every {interval:.1f} min on spot: {basis}").format(
            interval=interval, basis=basis
        )
    changed = LaunchSpec.model_validate({**spec.model_dump(), "checkpoint_interval_min": interval})
    return changed, words


def _spot_setup_h(
    workload: Workload | None, profile: Profile | None, nodes: int, offers: Sequence[OfferPrice]
) -> float | None:
    """The set-up the plan bills a job of ``workload`` (``profile``) for on ``nodes`` instances, h
    (:meth:`gpuplan.plan.input_types.JobFacts.setup_hours`: the boot, the dataset copied at the
    slowest network ``offers`` state where slower than the copy); None without the workload."""
    if workload is None or profile is None:
        return None
    import numpy as np

    from gpuplan.plan.build_inputs import job_facts_from

    job, _notes = job_facts_from(workload, profile)
    stated = [o.network_gbps for o in offers if o.network_gbps is not None]
    network = np.asarray([min(stated)], dtype=float) if stated else None
    return float(job.setup_hours(np.asarray([nodes]), network)[0])


def launch_weights(
    spec: LaunchSpec, traced: Callable[[], tuple[Profile, Workload | None] | None]
) -> LaunchSpec:
    """``spec`` knowing the weights of a launch that runs no serving engine's replicas (whose
    weights the engine's slots set), as the plan counts them: a batch job's vLLM downloads them onto
    the node's disk (:meth:`LaunchSpec.with_weights_of`: the disk holds them where no plan sized it
    from them); a service on a schedule that serve.py runs downloads none, but the start-up the plan
    bills before its hours reads its model's (:meth:`LaunchSpec.with_priced_weights_of`: the lead of
    its cron lines). ``traced``: the workload's profile and the workload (None: not read, its
    checkpoint's dtype then unknown), read only where needed; None: none to be had (the user's own
    code with no cached trace, which deploy does not run). Unchanged otherwise. ``gpuplan deploy``
    and the service's deploy both call this, so both write the same lead."""
    from gpuplan.deploy.engine import batch_engine_launch, engine_launch

    if engine_launch(spec) is not None:
        return spec
    batch = batch_engine_launch(spec) is not None
    if not batch and (spec.serving is None or spec.serving.schedule is None):
        return spec
    read = traced()
    if read is None:
        return spec
    prof, workload = read
    return spec.with_weights_of(prof, workload) if batch else spec.with_priced_weights_of(prof, workload)


def estimate(
    workload: Workload | str | Path | dict[str, Any],
    gpus: Sequence[str] | None = None,
    *,
    count: int | None = None,
    cache: ProfileCache | None = None,
    profile: Profile | None = None,
    measurements: Sequence[Any] = (),
    network: NetworkSpec | None = None,
    host: Host | None = None,
    offered_gpus: Mapping[str, GpuHourPrice | float | None]
    | Iterable[str]
    | Callable[[int], Mapping[str, GpuHourPrice]]
    | None = None,
    levels: bool = False,
    level_profile: Callable[[Workload], Profile] | None = None,
    measured_steps: Sequence[Any] = (),
    retrace_advice: bool = False,
    measured_scaling: MeasuredScaling | None = None,
) -> EstimateReport:
    """Fit, memory per GPU, step time, throughput and job time of ``workload`` on each GPU.

    ``gpus``: names as people type them (``"a100-sxm4-80gb"``, ``"V100-SXM2-16GB:8"`` for a count;
    a name several parts fit, ``"a100-80gb"``, raises AmbiguousNameError with the choices); default every
    GPU in the datasheet catalog, ``count`` each (default: one replica of the workload's
    ``tensor_parallel × pipeline_parallel`` GPUs). ``profile``: a profile traced earlier (skips tracing).
    ``measurements``: ``gpuplan bench`` results (``store.local.bench_results()``); a measured GPU's
    efficiencies are capped by what was measured on it. ``network``: the links as the user or an
    instance type gives them (``gpuplan.perf.NetworkSpec``); default assumed, and labelled so.
    ``host``: the instance (``gpuplan.perf.input_pipeline.Host``: its GPUs, vCPUs and RAM, as
    :func:`instance_links` reads them from the catalog); an image workload's samples/s is bounded by
    what its vCPUs decode, and a dataset its RAM cannot cache is re-read from disk every epoch, as
    the planner takes an offer's. Its vCPUs unknown (no instance): the point and the fast end assume
    the input pipeline keeps up, and the slow end is bounded by a typical instance of each GPU and
    count in the shipped catalog (the median vCPUs per GPU of its instance types,
    ``perf/typical_host.py``).
    ``offered_gpus``: the GPUs a catalog has offers of, each with its lowest on-demand price per
    GPU-hour and the offer it is from (``catalog.query.on_demand_gpu_hours(store.offers())``; None:
    not looked up); where the workload does not fit, another GPU is suggested among them first, the
    one whose step costs least, and its price quoted with its provider, region, date and age (else
    labelled "not offered in the catalog"). A bare number is taken as a price in USD per GPU-hour the
    caller gives, of no stated place or date, and said so; a collection of names, GPUs offered at
    no price looked up; a function of the job's GPU count, the prices for a job of that many
    (:func:`offered_gpu_hours` with ``count``: what a job pays for whole instances holding them).
    ``levels``: also estimate the workload on the ``stock`` and ``tuned`` stacks (same GPUs; what
    ``gpuplan estimate`` shows), each profile from ``level_profile`` (default: traced through
    ``cache``; a level whose trace is the workload's own reuses its profile).
    ``measured_steps``: ``gpuplan measure`` recordings (``perf.anchor.StepMeasurement``); those of
    this workload anchor its estimates (``perf/anchor.py``).
    ``retrace_advice``: where the workload does not fit, trace it with the advice's checkpointing
    and its combined changes applied (through ``level_profile``, else ``cache``), so that those
    rows' figures are the estimate of the workload written with them, step time included; without
    it they are derived from the workload's own profile (seconds, not a trace each).
    ``measured_scaling``: a speed-up or throughput measured on the configuration, read against
    each multi-GPU estimate with the gap's likely causes (``perf/scaling_gap.py``).
    """
    from gpuplan.hardware import all_gpus, parse_gpu_spec
    from gpuplan.perf import estimate_all, load_calibration, request_for, serving_load
    from gpuplan.perf.advisor import Current
    from gpuplan.perf.links import bounded
    from gpuplan.perf.workload_request import decodes_on_host, rereads_dataset
    from gpuplan.profile import profile as trace_profile

    w = _workload(workload)
    specs = [parse_gpu_spec(g) for g in gpus] if gpus else [(g, None) for g in all_gpus()]
    if count is None:
        count = w.tensor_parallel * w.pipeline_parallel
    refuse_unsplit(w, gpus, count)
    if profile is None:
        refuse_unrunnable(w, gpus)
    prof = profile if profile is not None else trace_profile(w, cache)
    cal = load_calibration().with_measurements(measurements)

    get = level_profile or (lambda wl: trace_profile(wl, cache))

    # ``offered_gpus(count)`` by count: a function of the count alone (the caller's catalog and
    # workload), the same for every level of the stack.
    by_count: dict[int, Mapping[str, GpuHourPrice]] = {}

    def outcomes_of(
        wl: Workload, p: Profile, *, with_advice: bool = True, steps: Sequence[Any] = ()
    ) -> tuple[EstimateOutcome, ...]:
        retrace = _retracer(wl, get) if with_advice and retrace_advice else None
        # Unknown is not the best case. How a node's GPUs are joined is known only where an
        # instance's entry says it; with no instance, or one the user describes by its network
        # alone, the conservative bound (perf.links.gpu_join: NVSwitch only on SXM nodes of eight
        # GPUs), stated in the notes. Without the instance's vCPUs an image job's slow end is
        # bounded on a typical one, and without its RAM a dataset read more than once is re-read
        # at the slow end where a typical one's page cache cannot hold it (the catalog is read only
        # for such a job).
        links = bounded(network)
        typical = ((host is None or host.vcpus is None) and decodes_on_host(wl)) or (
            (host is None or host.ram_gib is None) and rereads_dataset(wl)
        )
        if typical:
            from gpuplan.perf.typical_host import typical_host
        requests = [
            request_for(
                wl,
                p,
                gpu,
                count=n or count,
                link=links.link(gpu, n or count),
                calibration=cal,
                host=host,
                typical_host=typical_host(gpu.id, n or count) if typical else None,
                measured_steps=tuple(steps),
            )
            for gpu, n in specs
        ]
        if not callable(offered_gpus):
            return estimate_all(
                requests,
                serving=serving_load(wl),
                with_advice=with_advice,
                current=Current.of(wl),
                offered=_gpu_hour_prices(offered_gpus),
                retrace=retrace,
                measured=measured_scaling if with_advice else None,
            )
        # Priced for each request's own GPU count (``--gpu A10G:2`` beside ``--gpu L4``), once each
        # per estimate (each is a pass over the whole catalog; ``setdefault`` had priced the count
        # again for every GPU, some 100 passes for ``gpuplan estimate`` of every GPU).
        for r in requests:
            if r.count not in by_count:
                by_count[r.count] = offered_gpus(r.count)
        return tuple(
            outcome
            for r in requests
            for outcome in estimate_all(
                [r],
                serving=serving_load(wl),
                with_advice=with_advice,
                current=Current.of(wl),
                offered=dict(by_count[r.count]),
                retrace=retrace,
                measured=measured_scaling if with_advice else None,
            )
        )

    # A measured step anchors the workload as measured, not its stock/tuned variants.
    outcomes = outcomes_of(w, prof, steps=measured_steps)
    level_reports: list[StackLevelReport] = []
    if levels:
        from gpuplan.profile.key import profile_key
        from gpuplan.vocab import StackLevel

        own_key = profile_key(w)
        for level in StackLevel:
            wl = w.at_level(level)
            p = prof if profile_key(wl) == own_key else get(wl)
            level_reports.append(
                StackLevelReport(level=level.value, outcomes=outcomes_of(wl, p, with_advice=False))
            )
    # The checkpoints train.py writes stop every GPU while they are written: part of the job's time
    # on every pricing, as plan costs them (its own facts and formula; the estimate has no offer, so
    # the write bandwidth is the one plan assumes where it does not know the disk).
    from gpuplan.plan.build_inputs import job_facts_from
    from gpuplan.plan.launch_checkpoints import launch_checkpoints

    return EstimateReport(
        profile=prof,
        outcomes=outcomes,
        calibration=cal,
        stack=w.software_stack,
        levels=tuple(level_reports),
        checkpoints=launch_checkpoints(job_facts_from(w, prof)[0]) if w.is_training else None,
    )


def _retracer(
    workload: Workload, get: Callable[[Workload], Profile]
) -> Callable[[Mapping[str, str | int]], Profile]:
    """The advisor's ``retrace``: ``workload`` with the settings it names changed (as the workload
    file writes them), traced by ``get``, each set once."""
    from gpuplan.vocab import ActivationCheckpointing, BaseQuantization, LossKind, OptimizerName

    seen: dict[tuple[tuple[str, str | int], ...], Profile] = {}

    def retrace(changes: Mapping[str, str | int]) -> Profile:
        key = tuple(sorted(changes.items()))
        if key in seen:
            return seen[key]
        update: dict[str, Any] = {}
        if changes.get("activation_checkpointing") == "full":
            update["activation_checkpointing"] = ActivationCheckpointing.FULL
            update["gradient_checkpointing"] = False
        if "loss" in changes:
            update["loss"] = LossKind(changes["loss"])
        if "optimizer" in changes:
            update["optimizer"] = OptimizerName(changes["optimizer"])
        inputs: dict[str, int] = {}
        if "batch_size" in changes:
            inputs["batch_size"] = int(changes["batch_size"])
        if "seq_len" in changes:
            inputs["seq_len"] = int(changes["seq_len"])
        if inputs:
            update["inputs"] = workload.inputs.model_copy(update=inputs)
        if "quantization" in changes and workload.model.lora is not None:
            lora = workload.model.lora.model_copy(
                update={
                    "quantization": BaseQuantization(changes["quantization"]),
                    "double_quantization": bool(changes.get("double_quantization")),
                }
            )
            update["model"] = workload.model.model_copy(update={"lora": lora})
        if "gradient_accumulation" in changes:
            update["gradient_accumulation"] = int(changes["gradient_accumulation"])
        seen[key] = get(workload.model_copy(update=update))
        return seen[key]

    return retrace


def plan(
    workload: Workload | str | Path | dict[str, Any],
    *,
    store: Store | None = None,
    db: str | None = None,
    profile: Profile | None = None,
    top: int = 10,
    baseline: BaselineSpec | None = None,
    unknown_costs: str = "assume",
    storage: str = "block",
    measured_throughput: float | None = None,
    measured_on: str | None = None,
    **constraints: Any,
) -> Plan:
    """Rank every way to run ``workload`` over the catalog, priced all-in.

    ``measured_throughput`` (the estimate's unit, all the GPUs together) measured on
    ``measured_on`` (``"H100-SXM:8"``): the job times of that GPU and count take the
    measured/estimated ratio and a measured slowdown is assumed of every other
    (``plan/measured_rate.py``, ``gpuplan plan --measured-throughput --measured-on``).

    ``constraints`` override the workload's own, by name: ``deadline_h``, ``budget_usd``,
    ``providers``, ``regions``, ``countries``, ``pricing``, ``max_gpus``, ``min_gpus`` (the fewest GPUs
    in all; a service's, its whole fleet's), ``min_gpu_memory_gib``, ``interconnect``, ``compliance``,
    ``commitment``, ``objective`` (the fields of
    :class:`gpuplan.plan.overrides.PlanOverrides`, and ``budget_cny``: the budget in yuan at the
    catalog's dated rate; another name raises NotFoundError with "did you mean …"). ``store``: an
    open catalog; else ``db`` (path or URL; None = the user's default database) is opened and closed here.
    Raises :class:`~gpuplan.errors.InfeasibleError` naming the binding constraint.
    """
    from gpuplan.catalog import open_store
    from gpuplan.plan import plan_workload
    from gpuplan.plan.measured_rate import checked_measured_rate
    from gpuplan.profile import profile as trace_profile

    w = _workload(workload)
    measured = checked_measured_rate(w, measured_throughput, measured_on)
    own = store is None
    st = open_store(db) if store is None else store
    try:
        prof = profile if profile is not None else trace_profile(w, st.local)
        return plan_workload(
            w,
            prof,
            st,
            overrides=constraints,
            top=top,
            baseline=baseline,
            unknown_costs=unknown_costs,
            storage=storage,
            replica_load=replica_load_on,
            measured=measured,
        )
    finally:
        if own:
            st.close()
