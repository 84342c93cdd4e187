"""Checks ``gpuplan deploy`` runs before it writes anything: how the GPUs the user asks for lie on
nodes, whether a workload file's job (or a training plan's, which may have been edited by hand)
fits them, whether a plan's instance type is one the catalog lists, and whether one replica of a
service fits its share of a time-shared GPU (a plan's too, where it is deployed at another share
than it was priced at)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from gpuplan.i18n import N_, _, ngettext
from gpuplan.i18n.phrases import either, item_list, listed

if TYPE_CHECKING:
    from gpuplan.catalog.gpu_hour import GpuHourPrice
    from gpuplan.deploy.serving_spec import PeakFleet
    from gpuplan.hardware import GPU
    from gpuplan.perf.advice_base import Advice
    from gpuplan.perf.engine_memory import EngineMemory
    from gpuplan.perf.inference import DecodeEstimate, ServingEstimate
    from gpuplan.perf.memory import MemoryEstimate
    from gpuplan.profile.model import Profile
    from gpuplan.workload import Workload

#: (provider, instance type) -> (GPU id, GPUs per instance), as ``Store.known_instances`` gives it.
Instances = Mapping[tuple[str, str], tuple[str, float]]


def node_counts(instances: Instances, gpu: str, provider: str | None = None) -> list[int]:
    """The whole GPU counts of the catalog's instances of ``gpu`` (of ``provider`` when given), sorted."""
    return sorted(
        {
            int(c)
            for (p, _instance), (g, c) in instances.items()
            if g == gpu and c >= 1 and c == int(c) and (provider is None or p == provider)
        }
    )


class Network(NamedTuple):
    """An instance type's network to other instances, as the catalog lists it; None: not listed."""

    gbps: float | None
    kind: str | None


#: GPU id -> (provider, instance type) -> its network; read only when a job spans several nodes.
Networks = Callable[[str], Mapping[tuple[str, str], Network]]

#: Instance types named in a note before the rest are counted.
_NAMED = 3


def node_layout(
    instances: Instances,
    gpu: str,
    count: int,
    provider: str | None,
    *,
    networks: Networks | None = None,
) -> tuple[int, int]:
    """``count`` GPUs as (GPUs per node, nodes), the way ``gpuplan plan`` lays them out: an instance
    shape the catalog lists, times a node count.

    A count up to the largest instance of ``gpu`` (``provider``'s, else any provider's) is one node.
    Past it, no node holds them: they lie on nodes of the largest listed count that divides
    ``count`` (16 × H100-SXM: 2 nodes of 8; 13 on a provider with 1-GPU instances only: 13 nodes of
    1), with a note on stderr that says the nodes talk over the network between instances (that
    instance's network, from ``networks``, where the catalog lists it) and the counts that fill
    whole instances of a larger shape where one is listed. A count no listed shape divides raises
    DeployError naming the counts that do. A GPU the catalog has no instance of is taken as asked
    (one node)."""
    from gpuplan.errors import DeployError

    scoped = provider if provider and node_counts(instances, gpu, provider) else None
    counts = node_counts(instances, gpu, scoped)
    if not counts or count <= counts[-1]:
        return count, 1
    most = counts[-1]
    per_node = max((c for c in counts if count % c == 0), default=None)
    if per_node is None:
        lower, upper = (count // most) * most, (count // most + 1) * most
        raise DeployError.worded(
            N_(
                "--count {count}: the largest {gpu} instance in the catalog has {most} GPUs, and {count} "
                "is no whole number of nodes of {counts}: use --count {lower} or {upper}"
            ),
            count=count,
            gpu=gpu,
            most=most,
            counts=listed(str(c) for c in counts),
            lower=lower,
            upper=upper,
        )
    nodes = count // per_node
    largest = (
        _("{provider}'s largest {gpu} instance has {most}")
        if scoped
        else _("the largest {gpu} instance in the catalog has {most}")
    ).format(provider=scoped, gpu=gpu, most=most)
    shapes = sorted(
        k for k, (g, c) in instances.items() if g == gpu and c == per_node and scoped in (None, k[0])
    )
    network = _network_words(
        shapes, networks(gpu) if networks is not None else {}, named_with_provider=not scoped
    )
    line = ngettext(
        "note: {count} x {gpu} laid out as {nodes} nodes of {per_node} GPU ({largest}): GPUs on different "
        "nodes exchange data over the network between instances{network}",
        "note: {count} x {gpu} laid out as {nodes} nodes of {per_node} GPUs ({largest}): GPUs on different "
        "nodes exchange data over the network between instances{network}",
        per_node,
    )
    sys.stderr.write(
        line.format(count=count, gpu=gpu, nodes=nodes, per_node=per_node, largest=largest, network=network)
        + "\n"
    )
    hint = _whole_instances_hint(instances, gpu, count, scoped, provider, per_node)
    if hint:
        sys.stderr.write(hint + "\n")
    return per_node, nodes


def replica_layout(
    instances: Instances, gpu: str, count: int, provider: str | None, replica_gpus: int
) -> tuple[int, int] | None:
    """A service's ``count`` GPUs as (GPUs per node, nodes), the way ``gpuplan plan`` lays out its
    replicas: each replica (``replica_gpus``, its tensor × pipeline split) is a server of its own
    that shares no traffic with the others, so its GPUs need only lie in one node, and the node is
    the smallest instance shape of ``gpu`` (``provider``'s, else any provider's) that holds whole
    replicas and a whole number of which makes ``count`` (16 × A10 on a provider with 1-GPU
    instances: 16 nodes of 1, where a training job's 16 lie on 2 nodes of 8). None where no listed
    shape does (or the catalog lists none of ``gpu``): :func:`node_layout` lays them out and says
    why."""
    scoped = provider if provider and node_counts(instances, gpu, provider) else None
    fits = [c for c in node_counts(instances, gpu, scoped) if c % replica_gpus == 0 and count % c == 0]
    if not fits:
        return None
    return fits[0], count // fits[0]


class Shape(NamedTuple):
    """An instance type the catalog lists, with its host as it lists it (None: not listed)."""

    instance_type: str
    vcpus: float | None
    memory_gib: float | None


def smallest_shape(shapes: Sequence[Shape], weights_gb: float | None) -> str | None:
    """The instance type of ``shapes`` (one provider's of one GPU count, in the region where one was
    named) a service's replica runs on, as ``gpuplan plan`` chooses one: the smallest host (fewest
    vCPUs, then least memory) whose memory holds the replica's weights (``weights_gb``, which its
    engine loads through host memory: ``plan/host_memory.py``; None: not known, not checked). A
    host the catalog does not state comes after every stated one (unknown is never the best case).
    None where none is listed, or none holds the weights."""
    from gpuplan.plan.host_memory import ram_holds

    held = [s for s in shapes if ram_holds(s.memory_gib, weights_gb)]
    if not held:
        return None

    def size(s: Shape) -> tuple[bool, float, bool, float, str]:
        return (s.vcpus is None, s.vcpus or 0.0, s.memory_gib is None, s.memory_gib or 0.0, s.instance_type)

    return min(held, key=size).instance_type


def only_shape(instances: Instances, gpu: str, per_node: int, provider: str | None) -> str | None:
    """The one instance type of ``provider`` that holds ``per_node`` × ``gpu``, or None where the
    provider is not named, or lists none or several: a workload file's nodes are then that
    instance (its network fabric, its Kubernetes node label), as the layout's note names it."""
    if provider is None:
        return None
    shapes = sorted(i for (p, i), (g, c) in instances.items() if p == provider and g == gpu and c == per_node)
    return shapes[0] if len(shapes) == 1 else None


def _network_words(
    shapes: list[tuple[str, str]], networks: Mapping[tuple[str, str], Network], *, named_with_provider: bool
) -> str:
    """What the catalog says of the network of the instance types ``shapes`` the nodes are, as the
    end of the layout note: each listed speed with the types that have it, and the types it does not
    list (never taken to be as fast as the others)."""
    by_speed: dict[tuple[float, str | None], list[str]] = {}
    unlisted: list[str] = []
    for key in shapes:
        name = f"{key[0]} {key[1]}" if named_with_provider else key[1]
        net = networks.get(key)
        if net is None or net.gbps is None:
            unlisted.append(name)
        else:
            by_speed.setdefault((net.gbps, net.kind), []).append(name)
    if not by_speed:
        return _(", which the catalog does not list for {instances}").format(instances=_named(unlisted))
    parts = [
        (_("{gbps} Gbit/s {kind} ({instances})") if kind else _("{gbps} Gbit/s ({instances})")).format(
            gbps=f"{gbps:,g}", kind=kind, instances=_named(names)
        )
        for (gbps, kind), names in sorted(by_speed.items(), key=lambda item: item[0][0])
    ]
    if unlisted:
        parts.append(_("the catalog does not list it for {instances}").format(instances=_named(unlisted)))
    return _(", ") + _("; ").join(parts)


def _named(names: list[str]) -> str:
    """``names`` joined, the first few named and the rest counted."""
    shown = item_list(names[:_NAMED])
    more = len(names) - _NAMED
    return shown if more <= 0 else _("{names} and {n} more").format(names=shown, n=more)


def _whole_instances_hint(
    instances: Instances, gpu: str, count: int, scoped: str | None, provider: str | None, per_node: int
) -> str | None:
    """A note naming the counts that fill whole instances of a larger shape than ``per_node``: the
    largest in the layout's scope, else (a provider was named) the largest another provider lists;
    None where no larger shape is listed."""
    most = node_counts(instances, gpu, scoped)[-1]
    if most > per_node:
        size, where = most, scoped
    else:
        others = sorted({p for (p, _i), (g, _c) in instances.items() if g == gpu and p != provider})
        largest = {p: node_counts(instances, gpu, p)[-1] for p in others if node_counts(instances, gpu, p)}
        # The largest shape another provider lists; of several alike, the first by name.
        where = max(largest, key=lambda p: largest[p], default=None)
        if provider is None or where is None or largest[where] <= per_node:
            return None
        size = largest[where]
    lower, upper = (count // size) * size, (count // size + 1) * size
    counts = _(" or ").join(str(c) for c in (lower, upper) if c > 0)
    if where is None:
        line = _("note: the catalog lists {gpu} instances of {size} GPUs: --count {counts} fills whole ones")
    elif where == provider:
        line = _("note: {provider} lists {gpu} instances of {size} GPUs: --count {counts} fills whole ones")
    else:
        line = _(
            "note: {provider} lists {gpu} instances of {size} GPUs: --provider {provider} --count {counts} "
            "fills whole ones"
        )
    return line.format(provider=where, gpu=gpu, size=size, counts=counts)


class Fit(NamedTuple):
    """What :func:`check_fit` read and sized, for the checks and files after it."""

    profile: Profile
    """The workload's profile (one read of the cache, not two)."""
    fleet: PeakFleet | None
    """A service's peak fleet on the GPU as ``gpuplan plan`` sizes it (:func:`_peak_fleet`)."""
    steps_h: float | None
    """The estimate's time of the job's steps on the GPUs checked, hours (None where it gives none)."""


def check_fit(
    db: str | None,
    workload: Workload,
    gpu: str,
    count: int,
    *,
    force: bool,
    offered: Mapping[str, GpuHourPrice | None] | None,
    share: int | None = None,
    profile: Profile | None = None,
    count_given: bool | None = None,
) -> Fit:
    """The estimator's memory verdict for ``workload`` on ``count`` × ``gpu``, as ``gpuplan
    estimate`` gives it (the profile through the same cache; ``share``: replicas to a GPU in place
    of the workload's own, ``--share-gpu``'s or the share a plan is deployed at, each judged in its
    share): *does not fit* raises DeployError naming the need, the usable memory and the cheapest
    change that makes it fit (``force``: a warning instead); *may not fit* is a warning. Nothing is
    said when it fits. ``offered``: the GPUs the catalog offers (another GPU is suggested among
    those first, as ``estimate`` does; their prices not looked up: None); None when the catalog
    could not be read. ``profile``: the workload's profile where the caller has it (a plan's
    model of the user's code, from the cache: :func:`cached_profile`). ``count_given``: for a
    service deployed from its workload file, whether ``--count`` was given (None: a plan, whose
    count was sized for its load): GPUs short of the load the estimate sizes are refused where the
    count was left at its default, warned of where it was given (:func:`_check_load`). The lines
    of what does not or may not fit end with the flags that deploy it where it fits (``--gpu X``,
    ``--count N``: :func:`_flag_change`). Returns the profile, for :func:`check_share_fit` (one read
    of the cache, not two), a service's peak fleet on ``gpu`` as ``gpuplan plan`` sizes it
    (:func:`_peak_fleet`; None for a job, or where the estimate sized none), and the estimate's time
    of the job's steps (what caps a spot job's checkpoint interval, as plan caps it)."""
    from gpuplan.api import estimate
    from gpuplan.cli._profiles import load_profile, open_cache
    from gpuplan.errors import DeployError
    from gpuplan.perf.memory import MemoryVerdict
    from gpuplan.perf.memory_margin import over_at_estimate_words

    store = open_cache(db) if profile is None else None
    try:
        prof = profile if profile is not None else load_profile(workload, db, store=store)
        if share is not None and workload.serving is not None:
            # the same trace (the share changes no shape): each replica in its share of the memory
            serving = workload.serving.model_copy(update={"share_gpu": share})
            workload = workload.model_copy(update={"serving": serving})
        report = estimate(workload, [f"{gpu}:{count}"], profile=prof, offered_gpus=offered)
    finally:
        if store is not None:
            store.close()
    outcome = report.outcomes[0]
    e = outcome.estimate
    if e is None:
        # The GPU cannot run the workload at all (fp8 on an A100): the estimator's own line.
        raise DeployError(str(outcome.error))
    load: ServingEstimate | ImageLoad | None = outcome.serving
    if workload.serves_traced_calls:
        load = _image_load(db, workload, gpu, prof)
    if count_given is not None:
        _check_load(workload, gpu, count, load, given=count_given, decode=outcome.decode)
    fit = Fit(prof, _peak_fleet(workload, gpu, load), e.job_time_h)
    if e.memory_verdict is MemoryVerdict.FITS:
        return fit
    shared = workload.replicas_per_gpu
    where = (
        _("1/{share} of {gpu}").format(share=shared, gpu=gpu)
        if shared > 1
        else f"{count} x {gpu}"
        if count > 1
        else gpu
    )
    need = (
        _("{point} GiB [{low}–{high}] per replica") if shared > 1 else _("{point} GiB [{low}–{high}] per GPU")
    ).format(
        point=f"{e.peak_memory_gib:.1f}",
        low=f"{e.peak_memory_gib_low:.1f}",
        high=f"{e.peak_memory_gib_high:.1f}",
    )
    gib = f"{e.memory.capacity_gib:.1f}".removesuffix(".0")
    # an engine-served model's room is the engine's share of the GPU, which plan shows as its peak
    # (the engine takes it whole): one name for the one figure, as estimate's note and plan say it
    usable = (
        _("{gib} GiB, the serving engine's share")
        if workload.serving is not None and outcome.decode is not None
        else _("{gib} GiB usable")
    ).format(gib=gib)
    change = _fit_change(outcome.advice)
    # (replicas sharing a GPU: the change is their share, which the line already names)
    if shared == 1 and (flags := _flag_change(outcome.advice, workload, gpu, count)) is not None:
        change += "; " + flags
    if e.memory.over_at_estimate:
        # Not refused (only the low end of the band fits, as of a run that may not fit), but said as
        # plan says it: at the estimate's point it runs out of memory.
        words = over_at_estimate_words(
            e.memory.required_gib, e.memory.capacity_gib, e.memory.required_gib_high
        )
        line = _("warning: {where}: the job {words}; {change}")
        sys.stderr.write(line.format(where=where, words=words, change=change) + "\n")
        return fit
    if e.memory_verdict is MemoryVerdict.MAY_NOT_FIT:
        line = _("warning: the job may not fit {where}: it needs {need}, {usable}; {change}")
        sys.stderr.write(line.format(where=where, need=need, usable=usable, change=change) + "\n")
        return fit
    _unfit(
        N_("the job does not fit {where}: it needs {need}, {usable}; {change}"),
        {"where": where, "need": need, "usable": usable, "change": change},
        force=force,
    )
    return fit


class ImageLoad(NamedTuple):
    """An image service's load on one GPU as ``gpuplan plan`` sizes its fleet, in the two figures
    of the estimate's ``ServingEstimate`` the load check and the peak fleet read."""

    gpus_needed: int
    """GPUs of the fewest replicas that carry the peak within the headroom and the p95 target."""
    capacity_requests_per_s: float
    """Images a second one replica finishes at full load."""


def _image_load(db: str | None, workload: Workload, gpu: str, profile: Profile) -> ImageLoad | None:
    """:class:`ImageLoad` of an image service on ``gpu`` from :func:`gpuplan.api.image_peak_replicas`
    (the image_serving figures ``plan`` fits its options with, the step anchored on the workload's
    ``gpuplan measure`` recordings as plan's is); None where it sizes none."""
    from gpuplan.api import image_peak_replicas
    from gpuplan.cli._profiles import open_cache
    from gpuplan.perf.anchor import workload_measurements

    store = open_cache(db)
    try:
        steps = workload_measurements(workload, store.local.step_measurements)[0] if store is not None else []
    finally:
        if store is not None:
            store.close()
    share = workload.replicas_per_gpu
    sized = image_peak_replicas(workload, gpu, profile, replicas_per_gpu=share, measured_steps=steps)
    if sized is None:
        return None
    replicas, capacity = sized
    return ImageLoad(
        gpus_needed=replicas // share * max(1, workload.tensor_parallel), capacity_requests_per_s=capacity
    )


def _peak_fleet(
    workload: Workload, gpu: str, serving: ServingEstimate | ImageLoad | None
) -> PeakFleet | None:
    """A service's replicas at its stated peak on ``gpu`` as ``gpuplan plan`` sizes them: the
    estimate's GPUs for the load (``serving``'s ``gpus_needed``: each replica at most at the share
    of its capacity plans size fleets for, more for the latency targets; an image service's from
    :func:`_image_load`) over a replica's ``tensor_parallel`` GPUs, × the replicas time-sharing
    each (as plan counts an option's replicas). None for a job, or where the estimate sized none."""
    from gpuplan.deploy.serving_spec import PeakFleet

    if workload.serving is None or serving is None or serving.capacity_requests_per_s <= 0:
        return None
    replicas = serving.gpus_needed // max(1, workload.tensor_parallel) * workload.replicas_per_gpu
    if replicas < 1:
        return None
    return PeakFleet(
        replicas=replicas,
        requests_per_s=workload.serving.requests_per_s,
        replica_capacity_requests_per_s=serving.capacity_requests_per_s,
        gpu=gpu,
    )


def _flag_change(advice: Sequence[Advice], workload: Workload, gpu: str, count: int) -> str | None:
    """The estimate's changes that fit said as deploy's own flags: ``--gpu X`` for the cheapest
    larger GPU it found, ``--count N`` for the fewest GPUs of this one that hold the job split over
    them (with the workload's ``tensor_parallel`` or ``parallelism`` that splits it: more GPUs of
    a job that is not split each hold all of it). None where neither fits."""
    fits = [a for a in advice if a.fits]
    ways: list[str] = []
    bigger = next((a for a in fits if a.action == "bigger_gpu" and a.gpu != gpu), None)
    if bigger is not None:
        ways.append(f"--gpu {bigger.gpu}")
    more = next((a for a in fits if a.gpu == gpu and a.gpu_count > count and a.action in _SPLITS), None)
    if more is not None:
        if more.action == "tensor_parallel":
            replicas = max(1, count // max(1, workload.tensor_parallel))
            split = f"tensor_parallel: {more.gpu_count // replicas}"
        else:
            split = f"parallelism: {more.action}"
        ways.append(_("--count {n} with {split} in the workload").format(n=more.gpu_count, split=split))
    if not ways:
        return None
    return _("use {ways}").format(ways=either(ways))


#: The estimate's changes that split a job over more GPUs of the one asked about (advisor.py):
#: a served model's replica by tensor parallelism, a training job's state by ZeRO-2 or FSDP.
_SPLITS = frozenset({"tensor_parallel", "zero2", "fsdp"})


def _fit_change(advice: Sequence[Advice]) -> str:
    """What deploy's memory line says to change: the estimate's first change that fits (one on
    the GPUs asked about before more or another GPU, as the estimate lists them), and where that
    one changes the numerics or the method, the first that keeps the workload as written beside it
    (both are the user's to weigh: neither is hidden)."""
    from gpuplan.perf.advisor import advice_alters

    fixes = [a for a in advice if a.fits]
    if not fixes:
        return _("no single change makes it fit (`gpuplan estimate` lists the closest)")
    first = fixes[0]
    change = _("it fits with: {change}").format(change=first.summary)
    keeping = next((a for a in fixes if advice_alters(a) == 0), None)
    if advice_alters(first) and keeping is not None:
        change += _("; or, keeping the workload's numerics and method: {change}").format(
            change=keeping.summary
        )
    return change


def _check_load(
    workload: Workload,
    gpu: str,
    count: int,
    serving: ServingEstimate | ImageLoad | None,
    *,
    given: bool,
    decode: DecodeEstimate | None = None,
) -> None:
    """A service deployed from its workload file on fewer GPUs than its load needs by the estimate
    (``gpuplan estimate``'s "needs N GPU(s)": replicas at the utilisation plans size fleets for,
    and its latency targets): refused where ``--count`` was left at 1, which had written a 30 req/s
    service as one replica the autoscaler took to two (half its requests over the SLO in a replay);
    a warning where the count was given (a team may start small on purpose). Where the latency
    targets need more GPUs than the load at that utilisation, the line names the targets and the
    share of a replica's capacity they hold it at (``decode``: the replica the estimate ran, to tell
    which target it is): 40 req/s over replicas of 2.78 at 80 % is 18, and "needs 20" with those
    two figures alone read as a contradiction. An image service's load is :func:`_image_load`'s (it
    had been deployed on one GPU whatever its load)."""
    import math

    from gpuplan.errors import DeployError
    from gpuplan.perf.inference import TARGET_UTILISATION

    if workload.serving is None or serving is None or serving.gpus_needed <= count:
        return
    capacity = serving.capacity_requests_per_s
    fields = {
        "rate": f"{workload.serving.requests_per_s:g}",
        "n": serving.gpus_needed,
        "gpu": gpu,
        "count": count,
        "capacity": f"{capacity:.3g}",
        # the load a replica is sized to carry: its full-load capacity at the planning headroom
        "load": f"{capacity * TARGET_UTILISATION:.3g}",
        "pct": f"{TARGET_UTILISATION * 100:.0f}",
    }
    why = _("a replica carries {capacity} req/s at full load, {load} at the {pct} % plans size fleets for")
    tp = max(1, workload.tensor_parallel)
    shared = max(1, workload.serving.share_gpu or 1)
    headroom = math.ceil(
        math.ceil(workload.serving.requests_per_s / (capacity * TARGET_UTILISATION) - 1e-9) / shared
    )
    if workload.serves_traced_calls:  # its one target, the only one that adds replicas past the headroom
        p95 = workload.serving.p95_latency_ms
        targets = (
            []
            if p95 is None
            else [_("serving.p95_latency_ms target of {ms} ms a request").format(ms=f"{p95:g}")]
        )
    else:
        targets = _binding_targets(workload, decode, headroom * tp) if capacity > 0 else []
    if targets and serving.gpus_needed > headroom * tp:
        replicas = serving.gpus_needed // tp * shared
        why = _(
            "for its {targets}: {replicas} replicas, each at {share} % of the {capacity} req/s it "
            "carries at full load, where {headroom} x {gpu} would carry the load at the {pct} % plans "
            "size fleets for"
        )
        fields |= {
            "targets": item_list(targets),
            "replicas": replicas,
            "share": f"{workload.serving.requests_per_s / replicas / capacity * 100:.0f}",
            "headroom": headroom * tp,
        }
    fields["why"] = why.format(**fields)
    if not given:
        raise DeployError.worded(
            N_(
                "the service's load, {rate} req/s, needs {n} x {gpu} by gpuplan's estimate ({why}); "
                "give --count {n} (or deploy a plan: `gpuplan plan` sizes the fleet and prices it)"
            ),
            **fields,
        )
    line = _(
        "warning: --count {count} is short of the {n} x {gpu} the service's load, {rate} req/s, needs by "
        "gpuplan's estimate ({why}): the autoscaler starts from {count}"
    )
    sys.stderr.write(line.format(**fields) + "\n")


def _binding_targets(workload: Workload, decode: DecodeEstimate | None, headroom_gpus: int) -> list[str]:
    """The service's latency targets that each alone need more than ``headroom_gpus`` by the
    estimate (``decode``: its replica; None: not known, and none is named), in words."""
    from gpuplan.perf.inference import serving_estimate
    from gpuplan.perf.workload_request import serving_tail

    serving = workload.serving
    if serving is None or decode is None:
        return []
    tail = serving_tail(workload)
    stated = (
        ("p95", serving.p95_latency_ms, _("serving.p95_latency_ms target of {ms} ms a request")),
        (
            "ttft",
            serving.ttft_p95_ms,
            _("serving.ttft_p95_ms target of {ms} ms to the first token"),
        ),
        (
            "tpot",
            serving.tpot_p95_ms,
            _("serving.tpot_p95_ms target of {ms} ms per output token"),
        ),
    )
    out = []
    for key, ms, words in stated:
        if ms is None:
            continue
        alone = serving_estimate(
            decode,
            requests_per_s=serving.requests_per_s,
            prompt_tokens=serving.tokens[0],
            output_tokens=serving.tokens[1],
            # at the p95 request's lengths, as the estimate and plan check the targets
            tail_prompt_tokens=tail.prompt_tokens if tail is not None else None,
            tail_output_tokens=tail.output_tokens if tail is not None else None,
            p95_target_s=ms / 1000.0 if key == "p95" else None,
            ttft_target_s=ms / 1000.0 if key == "ttft" else None,
            tpot_target_s=ms / 1000.0 if key == "tpot" else None,
        )
        if alone.gpus_needed > headroom_gpus:
            out.append(words.format(ms=f"{ms:g}"))
    return out


def plan_workload(source: Path, project: Path | None, *, code: bool = False) -> Workload | str:
    """The workload a plan file carries, its files checked against the folder the user named (as
    deploy reads them); else why it cannot be had. A model of the user's own code is not rebuilt: a
    plan may come from someone else, and deploy never runs the code a plan names. ``code``: such a
    model's workload all the same, for :func:`cached_profile` only (whose key reads the module's
    file, never imports it); the caller must not trace it."""
    import json

    from gpuplan.bounded import MAX_DOCUMENT_BYTES, read_text
    from gpuplan.confine import Folder
    from gpuplan.errors import DeployError, GpuplanError
    from gpuplan.workload import Workload
    from gpuplan.workload.paths import confine_model, plan_workload_document

    try:
        text = read_text(source, what="plan file", max_bytes=MAX_DOCUMENT_BYTES, error=DeployError)
        doc = json.loads(text)
        data = doc.get("workload") if isinstance(doc, dict) else None
        if not isinstance(data, dict):
            return _("the plan carries no workload")
        model = data.get("model")
        if isinstance(model, dict) and model.get("python") and not code:
            return _("the plan's model is code (model.python), which deploy does not run from a plan")
        folder = Folder.of(source, project)
        # the folder the plan was made in, where nothing is read from it (a preset): a plan copied
        # elsewhere deploys as it does beside its workload; what the plan recorded of its model is
        # the plan's, not the workload's
        data = plan_workload_document(data)
        return Workload.from_dict(confine_model(data, file=source, folder=folder), source=str(source))
    except (GpuplanError, ValueError) as e:
        return str(e)


def cached_profile(db: str | None, workload: Workload) -> Profile | None:
    """``workload``'s profile where the cache holds one for exactly this content (``gpuplan plan``
    of it on this machine traced it), else None: nothing is traced, nothing of the user's code is
    imported (the cache key hashes the entry module's file). A LoRA model's cached profile is
    checked against its adapters by tracing, so it is not read here (None)."""
    from gpuplan.cli._profiles import open_cache
    from gpuplan.errors import GpuplanError
    from gpuplan.profile.key import profile_key
    from gpuplan.profile.model import PROFILE_SCHEMA_VERSION, Profile

    if workload.model.lora is not None:
        return None
    store = open_cache(db)
    if store is None:
        return None
    try:
        payload = store.local.get_profile(profile_key(workload), PROFILE_SCHEMA_VERSION)
    except (GpuplanError, OSError):
        return None
    finally:
        store.close()
    if payload is None:
        return None
    try:
        cached = Profile.from_json(payload)
    except (ValueError, TypeError, KeyError):
        return None
    return cached if cached.schema_version == PROFILE_SCHEMA_VERSION else None


def unchecked_plan_fit(where: str, why: str, *, force: bool) -> None:
    """A plan whose fit cannot be checked again (``why``): refused as a job that does not fit is
    (``force``: a warning). Unknown is not taken for "fits": a plan edited by hand after ``gpuplan
    plan`` (a larger batch) would otherwise be written on the plan's old verdict."""
    _unfit(
        N_(
            "not checked that the job fits {where}: {why}; `gpuplan estimate` or `gpuplan plan` on "
            "the workload file runs your model's code and keeps its trace here, then deploy again"
        ),
        {"where": where, "why": why},
        force=force,
    )


def check_plan_instance(instances: Instances, provider: str | None, instance_type: str | None) -> None:
    """A plan's instance type against the catalog (``Store.known_instances``): one the catalog does
    not list for the plan's provider is refused with the nearest names it lists (a plan edited by
    hand to ``p5en.96xlarge`` launched nothing, and its RDMA settings were dropped unsaid). Nothing
    where the plan names no instance, or the catalog lists none of the provider's (nothing to
    compare with)."""
    from gpuplan.errors import NotFoundError, Phrase

    if provider is None or instance_type is None:
        return
    listed = sorted(i for (p, i) in instances if p == provider)
    if listed and instance_type not in listed:
        raise NotFoundError(
            "instance type",
            instance_type,
            listed,
            hint=Phrase(
                N_("the plan names it on {provider}, and the catalog lists no such instance"),
                provider=provider,
            ),
        )


def _image_share_fit(
    workload: Workload,
    gpu: str,
    share: int,
    setting: str,
    *,
    force: bool,
    profile: Profile | None,
    db: str | None,
) -> None:
    """:func:`check_share_fit` of an image service (no KV cache): the estimate of one replica in
    its share of the GPU's memory (the weights and the denoiser's activations at the serving
    batch), as ``plan`` fits it; refused naming what to change (``force``: a warning)."""
    from gpuplan.api import estimate
    from gpuplan.cli._profiles import load_profile
    from gpuplan.errors import DeployError, GpuplanError

    assert workload.serving is not None
    shared = workload.model_copy(update={"serving": workload.serving.model_copy(update={"share_gpu": share})})
    try:
        prof = profile if profile is not None else load_profile(workload, db)
        est = estimate(shared, [gpu], profile=prof).outcomes[0].estimate
    except GpuplanError as e:
        sys.stderr.write(
            _(
                "warning: not checked that one of {share} replicas fits its share of {gpu} ({setting}): {why}"
            ).format(share=share, gpu=gpu, setting=setting, why=e)
            + "\n"
        )
        return
    if est is None or est.fits:
        return
    line = (
        N_(
            "one of {share} replicas of the service does not fit its share of {gpu} ({setting}): its "
            "weights and the model's activations at inputs.batch_size need {need:.1f} GiB; share the GPU "
            "among fewer replicas, or lower inputs.batch_size"
        )
        if workload.serves_forward_passes
        else N_(
            "one of {share} replicas of the image service does not fit its share of {gpu} ({setting}): its "
            "weights and the denoiser's activations at inputs.batch_size need {need:.1f} GiB; share the GPU "
            "among fewer replicas, or lower inputs.batch_size"
        )
    )
    fields = {"share": share, "gpu": gpu, "setting": setting, "need": est.memory.peak_memory_gib}
    if not force:
        raise DeployError.worded(line, **fields)
    sys.stderr.write(_("warning: {line}").format(line=_(line).format(**fields)) + "\n")


def check_share_fit(
    db: str | None,
    workload: Workload | str,
    gpu: str,
    share: int,
    *,
    force: bool,
    flag: bool,
    profile: Profile | None = None,
    engine: bool = False,
) -> None:
    """Whether one of ``share`` replicas time-sharing each ``gpu`` holds its weights and one
    request in its share. ``engine``: the replicas run a serving engine (vLLM, SGLang), judged by
    the estimate's own memory of it (:func:`_engine_share`), so this check and :func:`check_fit`
    name the same largest share that fits; else (serve.py) by the planner's plain serving memory
    model (``decode_estimate(replicas_per_gpu=share)``: 1/share of the usable memory, less the
    replica's CUDA context and workspaces, less its weights, one sequence at the workload's traced
    context). Not: DeployError naming the share that fits (``force``: a warning instead).
    ``workload``: why there is none (:func:`plan_workload`) is warned and left unchecked. ``flag``:
    the share is ``--share-gpu``'s (else the workload's ``serving.share_gpu``), for the wording."""
    from gpuplan.cli._profiles import load_profile
    from gpuplan.errors import GpuplanError
    from gpuplan.hardware import get_gpu
    from gpuplan.perf import decode_estimate
    from gpuplan.perf.memory import usable_memory_gib
    from gpuplan.perf.workload_request import serving_engine

    setting = f"--share-gpu {share}" if flag else f"serving.share_gpu: {share}"
    unchecked = _(
        "warning: not checked that one of {share} replicas fits its share of {gpu} ({setting}): {why}"
    )
    if isinstance(workload, str):
        sys.stderr.write(unchecked.format(share=share, gpu=gpu, setting=setting, why=workload) + "\n")
        return
    card = get_gpu(gpu)
    if workload.serves_traced_calls:
        _image_share_fit(workload, card.id, share, setting, force=force, profile=profile, db=db)
        return
    try:
        prof = profile if profile is not None else load_profile(workload, db)
        served = _engine_share(workload, prof, card, share) if engine else None

        def replica(n: int) -> DecodeEstimate:
            return decode_estimate(
                prof,
                card,
                cuda_graphs=workload.uses_cuda_graphs,
                compiled=workload.compile,
                engine=serving_engine(workload),
                replicas_per_gpu=n,
                # a whole request in the KV cache, as the engine's --max-model-len is written
                context_tokens=(sum(workload.serving.tokens) if workload.serving is not None else None),
            )

        if served is None:
            dec = replica(share)
            if dec.max_concurrent_sequences >= 1:
                return
            fits = next((n for n in range(share - 1, 0, -1) if replica(n).max_concurrent_sequences >= 1), 0)
    except GpuplanError as e:
        sys.stderr.write(unchecked.format(share=share, gpu=gpu, setting=setting, why=e) + "\n")
        return
    if served is not None:
        if served.estimate.ruled_out:  # else it fits, or may not (check_fit has said so)
            _engine_share_unfit(served, card, share, setting, force=force)
        return
    fields = {
        "share": share,
        "gpu": card.id,
        "setting": setting,
        "weights": f"{dec.weights_gib:.1f}",
        "kv": f"{dec.kv_cache_gib_per_sequence:.2f}",
        "tokens": dec.context_tokens,
        "usable": f"{usable_memory_gib(card):.1f}",
        "change": _share_change(fits),
    }
    _unfit(
        N_(
            "one of {share} replicas time-sharing {gpu} ({setting}) does not fit its share: {weights} GiB "
            "of weights and {kv} GiB of KV cache for one sequence of {tokens} tokens, in 1/{share} of "
            "{usable} GiB usable less its own CUDA context; {change}"
        ),
        fields,
        force=force,
    )


class _EngineShare(NamedTuple):
    """One of the replicas time-sharing a GPU, in the estimate's memory of its serving engine."""

    memory: EngineMemory
    estimate: MemoryEstimate
    """The estimate's memory of it (its verdict, ``gpuplan estimate``'s)."""
    fits: int
    """The most replicas to a GPU whose engine fits on the whole band; 0: none."""
    fraction: float
    """The engine's share of the whole GPU (``memory_fraction``), before the time-sharing."""


def _engine_share(workload: Workload, profile: Profile, card: GPU, share: int) -> _EngineShare | None:
    """One of ``share`` replicas of ``workload``'s serving engine on ``card``, as the estimate holds
    its memory (``perf.stages.memory.engine_memory_of``), and the most to a GPU that fit as the
    estimate's "fewer to a GPU" advice (which :func:`check_fit` names) counts them. None where the
    engine's memory does not apply (a shape that cannot size it: the estimate, too, then judges the
    traced step)."""
    from gpuplan.perf.stages.layout import lay_out
    from gpuplan.perf.stages.memory import engine_memory_of
    from gpuplan.perf.workload_request import request_for

    request = request_for(workload, profile, card)
    settings = request.serving_scheduler

    def held(n: int) -> EngineMemory | None:
        return engine_memory_of(lay_out(request.changed(gpu_share=n)))

    mine = held(share)
    if mine is None or settings is None:
        return None
    mem = mine.estimate(card)
    fits = 0
    if mem.ruled_out:
        fits = next(
            (n for n in range(share - 1, 0, -1) if (o := held(n)) is not None and o.estimate(card).fits), 0
        )
    return _EngineShare(memory=mine, estimate=mem, fits=fits, fraction=settings.memory_fraction)


def _engine_share_unfit(served: _EngineShare, card: GPU, share: int, setting: str, *, force: bool) -> None:
    """:func:`check_share_fit`'s refusal (``force``: warning) of an engine's replica that cannot fit
    its share, in the estimate's terms."""
    from gpuplan.perf.memory import usable_memory_gib

    mine, mem = served.memory, served.estimate
    contents = (
        _(
            "its weights ({weights} GiB), activations ({act} GiB), memory outside PyTorch ({outside} GiB) "
            "and one request's KV cache of {tokens} tokens ({kv} GiB)"
        )
        if mine.activations_in_share
        else _(
            "its weights ({weights} GiB), memory outside PyTorch ({outside} GiB) and one request's KV "
            "cache of {tokens} tokens ({kv} GiB)"
        )
    ).format(
        weights=f"{mine.weights_gib:.1f}",
        act=f"{mine.activations_gib[1]:.1f}",
        outside=f"{mine.non_torch_gib[1]:.1f}",
        tokens=mine.context_tokens,
        kv=f"{mine.sequence_gib:.2f}",
    )
    fields = {
        "share": share,
        "gpu": card.id,
        "setting": setting,
        "fraction": f"{served.fraction:g}",
        "usable": f"{usable_memory_gib(card):.1f}",
        "engine_gib": f"{mine.engine_gib:.1f}",
        "low": f"{mem.required_gib_low:.1f}",
        "high": f"{mem.required_gib_high:.1f}",
        "contents": contents,
        "change": _share_change(served.fits),
    }
    _unfit(
        N_(
            "one of {share} replicas time-sharing {gpu} ({setting}) does not fit its share: its engine "
            "takes {fraction} of 1/{share} of {usable} GiB usable ({engine_gib} GiB) and needs "
            "{low}–{high} GiB of it for {contents}; {change}"
        ),
        fields,
        force=force,
    )


def _unfit(problem: str, fields: dict[str, object], *, force: bool) -> None:
    """What does not fit (``problem``, an ``N_`` template, and its ``fields``): refused, or with
    ``--force-fit`` said as a warning and written anyway. The three fit checks say it here."""
    from gpuplan.errors import DeployError, Phrase

    if force:
        line = _("warning: {problem}; written anyway (--force-fit)").format(
            problem=_(problem).format(**fields)
        )
        sys.stderr.write(line + "\n")
        return
    raise DeployError.worded(
        N_("{problem} (--force-fit writes the files anyway)"), problem=Phrase(problem, **fields)
    )


def _share_change(fits: int) -> str:
    """The most replicas to a GPU that fit (0: none), as the share checks say it."""
    if fits > 1:
        return _("{n} replicas to a GPU fit").format(n=fits)
    if fits == 1:
        return _("only a whole GPU per replica fits")
    return _("no share of it fits")
