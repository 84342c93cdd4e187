"""The planner's estimate function: ``perf``'s estimate of one workload for each GPU configuration
the planner asks about (:class:`EstimateKey` in, :class:`EstimateRow` out).

The market has tens of thousands of candidates and a few thousand distinct keys, but far fewer
distinct estimates, so the work is shared at three levels, each keyed only by what it reads:

- a GPU shape (GPU, count, the links between them): the estimate's stages that the host does not
  enter (``perf.estimate.gpu_stages``: layout, compute, communication, memory and the GPUs' step),
  the compute and memory stages shared again by every link of the same GPUs;
- a host (vCPUs, RAM): what its input pipeline feeds (``perf.workload_request.host_pipeline``);
- a shape on a pipeline: the step bounded by that pipeline and the job's hours
  (``perf.estimate.host_figures``, the figures alone; ``host_finish`` words the notes of a row when
  they are read), the same arithmetic ``perf.estimate.finish_estimate`` does.

Offers differing only in facts the estimate cannot read (the inter-node network of a one-node job,
the vCPUs of a job with no images to decode, the wording of an interconnect that gives the same
link) get the very same answer.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING, Any, NamedTuple

from gpuplan.errors import EstimateError, GpuplanError, InputError, UnpublishedRateError
from gpuplan.hardware import get_gpu
from gpuplan.i18n import N_, _
from gpuplan.i18n.phrases import item_list
from gpuplan.perf.estimate import gpu_stages, host_figures, host_finish
from gpuplan.perf.input_pipeline import Host
from gpuplan.perf.links import NetworkSpec
from gpuplan.perf.parallel import catalog_network_kind, network_kind_of
from gpuplan.perf.request_tail import tail_source as _tail_source
from gpuplan.perf.workload_request import (
    engine_scheduler,
    host_pipeline,
    request_for,
    request_on,
    serving_engine,
    serving_tail,
)
from gpuplan.plan.candidates import EstimateFn
from gpuplan.plan.input_types import HOURS_PER_MONTH, EstimateKey, EstimateRow
from gpuplan.vocab import MemoryVerdict

if TYPE_CHECKING:
    from gpuplan.perf import Calibration
    from gpuplan.perf.anchor import StepMeasurement
    from gpuplan.perf.estimate import EstimateRequest, GpuStages, HostFinish
    from gpuplan.perf.input_pipeline import InputPipeline
    from gpuplan.perf.links import Link
    from gpuplan.plan.measured_rate import RateScaling
    from gpuplan.profile.model import Profile
    from gpuplan.workload import Workload

__all__ = ["SERVING_HOURS", "make_estimator", "tensor_parallel_choices"]

#: Hours a serving deployment is planned for: one billing month (730 h). ASSUMPTION, labelled in the
#: plan: a service has no end, so options are compared on a month of capacity.
SERVING_HOURS = HOURS_PER_MONTH

_UNFIT = EstimateRow(fits=False, job_time_h=math.nan, job_time_h_low=math.nan, job_time_h_high=math.nan)
#: A GPU whose rate for the workload's math no source gives: its time is unknown, not "does not fit".
_UNRATED = EstimateRow(
    fits=False, rate_unknown=True, job_time_h=math.nan, job_time_h_low=math.nan, job_time_h_high=math.nan
)


def _image_note() -> str:
    from gpuplan.perf.input_pipeline import (
        IMAGES_PER_S_PER_VCPU,
        IMAGES_PER_S_PER_VCPU_HIGH,
        IMAGES_PER_S_PER_VCPU_LOW,
    )

    return _(
        "image job: each offer's images/s is bounded by its vCPUs × {rate} images/s "
        "per vCPU (JPEG decode + random-resized crop, assumed; {low}–{high}); options marked "
        "input_bound are CPU-bound; an offer whose vCPUs the catalog lacks is bounded at the "
        "fewest vCPUs per GPU of any offer of its GPU (its best case, not bounded, shown beside); "
        "a job that decodes no JPEGs (generation, pre-decoded tensors) sets stack: {{input_pipeline: "
        "synthetic}}"
    ).format(
        rate=f"{IMAGES_PER_S_PER_VCPU:g}",
        low=f"{IMAGES_PER_S_PER_VCPU_LOW:g}",
        high=f"{IMAGES_PER_S_PER_VCPU_HIGH:g}",
    )


def _image_service_note(workload: Workload) -> str:
    """How an image service's options are sized: one request is one image of the denoiser's calls."""
    return _(
        "image service: one request is one image, {steps} denoising steps of one denoiser call each "
        "(inputs.denoising_steps), {call}; an "
        "image's latency is its calls × the call's time, a replica finishes {batch} at once, the queue "
        "for a place in the batch taken as M/M/c (Poisson arrivals); memory is the weights and the "
        "denoiser's activations at that batch (no KV cache). The text encoders and the VAE decoder "
        "are not counted unless your model includes them; options are priced per 1,000 images"
    ).format(
        steps=workload.inputs.denoising_steps,
        call=_guided_call_words(workload.inputs.batch_size)
        if workload.inputs.guidance
        else _("each of the traced batch of {batch}").format(batch=workload.inputs.batch_size),
        batch=workload.inputs.batch_size,
    )


def _forward_service_note(workload: Workload) -> str:
    """How a service whose request is one forward pass is sized: the traced step, batched."""
    return _(
        "forward-pass service: one request is one forward pass of the traced model on one sample "
        "(its inputs as the workload gives them), the server batching up to {batch} requests in one "
        "call of the traced step (inputs.batch_size); a request's latency is that call's time, the "
        "queue for a place in the batch taken as M/M/c (Poisson arrivals); memory is the weights "
        "and the activations at that batch (no KV cache); pre- and post-processing on the CPU are "
        "not counted; options are priced per 1,000 requests"
    ).format(batch=workload.inputs.batch_size)


def _guided_call_words(batch: int) -> str:
    """How a step with classifier-free guidance is timed, in words."""
    return _(
        "with guidance each of twice the traced batch of {batch} (the conditional and unconditional "
        "inputs concatenated, as diffusers' pipelines run it), its time the traced call's × the "
        "roofline's ratio at {double} to {batch}, its activations counted at {double} in the memory "
        "each GPU must hold"
    ).format(batch=batch, double=2 * batch)


def tensor_parallel_choices(workload: Workload, profile: Profile | None) -> tuple[int, ...]:
    """The tensor-parallel degrees a service may be planned at, each option at the fewest GPUs per
    replica that hold the model and carry the load: for a service whose workload states no
    ``tensor_parallel`` and whose replicas do not time-share GPUs, the degrees that split the model
    evenly (``perf.stages.layout.tensor_parallel_degrees``); () where the workload's
    ``tensor_parallel`` holds (given, a job, ``share_gpu``, or no split possible)."""
    from gpuplan.perf.stages.layout import tensor_parallel_degrees

    if (
        workload.serving is None
        or workload.tensor_parallel_stated
        or workload.replicas_per_gpu > 1
        or workload.pipeline_parallel > 1
        or profile is None
    ):
        return ()
    degrees = tensor_parallel_degrees(profile)
    return degrees if len(degrees) > 1 else ()


def tensor_parallel_note(choices: tuple[int, ...]) -> str:
    """The plan's note that each option's replicas were split at the planner's choice."""
    return _(
        "serving: tensor_parallel not given: each option's replicas are split over the fewest GPUs of "
        "{choices} that hold the model and carry the load within the targets (one instance's GPUs at "
        "most); the option says how many; give tensor_parallel to fix it"
    ).format(choices=item_list(choices))


def make_estimator(
    workload: Workload,
    profile: Profile,
    calibration: Calibration | None = None,
    *,
    measured_steps: tuple[StepMeasurement, ...] = (),
    rate: RateScaling | None = None,
) -> tuple[EstimateFn, tuple[str, ...]]:
    """The planner's estimate function over ``perf.estimate`` (cached per key) and plan notes.

    Training and batch inference: the job time for ``data`` (samples or tokens × epochs).
    A serving workload (``serving:``): replicas of ``tensor_parallel`` GPUs (one per GPU without it)
    on the offer's own GPU link, the load split evenly; it fits when the replicas carry the request
    rate (within the p95 latency, time-to-first-token and time-per-output-token targets where
    given), and runs for
    :data:`SERVING_HOURS`.
    ``measured_steps``: the workload's ``gpuplan measure`` recordings; every estimate is anchored on
    one (``perf/anchor.py``), and the plan says so.
    ``rate``: a throughput the team measured on one configuration, against its estimate: each job
    time scaled as ``plan/measured_rate.py`` says, and the plan and each option say how.
    """
    from gpuplan.perf import job_size, load_calibration
    from gpuplan.perf.anchor import choose_measurement, not_anchored_note

    cal = calibration or load_calibration()
    if workload.serving is None and job_size(workload) is None:
        raise InputError.worded(
            N_("the planner needs the job's length: give data.samples (or data.tokens) and data.epochs")
        )
    notes: list[str] = []
    if workload.serving is None and workload.inputs.image_size is not None:
        notes.append(_image_note())
    if (engine := serving_engine(workload)) is not None:
        how = _("overlapped with the GPU's work") if engine.overlapped else _("added to the GPU's time")
        words = _("serving engine: {engine}, its CPU work {ms:g} ms per iteration, {how} (serving.engine)")
        notes.append(words.format(engine=_(engine.name), ms=round(engine.step_s * 1e3, 2), how=how))
    if workload.serves_images:
        notes.append(_image_service_note(workload))
    elif workload.serves_forward_passes:
        notes.append(_forward_service_note(workload))
    elif workload.serving is not None:
        sv = workload.serving
        tail = serving_tail(workload)
        assert tail is not None
        # the latency model's load: requests of the serving block's mean lengths arriving at random,
        # its p95s checked at the p95 request's lengths (stated, else a published trace's ratios:
        # every request at the mean had met 30 s at 16.2 s where the conversation trace's replay
        # gave 42 s); a trace's bursts lengthen the tail further
        notes.append(
            _(
                "service latency: capacity is for requests of {prompt} prompt and {output} answer tokens "
                "(the mean) arriving at random at the load (Poisson arrivals, the queue taken as M/M/c); "
                "the p95 latency is for a request of a {output_p95}-token answer and the p95 time to "
                "first token for a {prompt_p95}-token prompt, the 95th percentile ({source}); real "
                "traffic's bursts lengthen the tail: `gpuplan simulate autoscale WORKLOAD --trace "
                "FILE.csv` replays yours"
            ).format(
                prompt=sv.tokens[0],
                output=sv.tokens[1],
                output_p95=tail.output_tokens,
                prompt_p95=tail.prompt_tokens,
                source=_tail_source(tail),
            )
        )
    mine = [m for m in measured_steps if m.workload_key == profile.key]
    if (chosen := choose_measurement(mine, "")) is not None:
        notes.append(
            _(
                "step times anchored on your measured step on {gpu} ({when}, gpuplan measure), moved to each "
                "offer's GPU op class by op class (Habitat, Yu et al., USENIX ATC'21)"
            ).format(gpu=chosen.gpu_id, when=chosen.measured_at)
        )
    elif mine:  # recordings exist but none anchors (a CPU one, a GPU without a datasheet): say so
        notes.append(not_anchored_note(max(mine, key=lambda m: m.measured_at)))
    if rate is not None:
        notes.append(rate.note())
    if choices := tensor_parallel_choices(workload, profile):
        notes.append(tensor_parallel_note(choices))
        split = {
            t: _Estimator(workload.model_copy(update={"tensor_parallel": t}), profile, cal, measured_steps)
            for t in choices
        }
        weights = profile.peak.parameters_bytes + profile.peak.buffers_bytes
        return _ChoosingEstimator(split, workload, weights), tuple(notes)
    return _Estimator(workload, profile, cal, measured_steps, rate), tuple(notes)


class _ChoosingEstimator:
    """The estimate function of a service that states no ``tensor_parallel``: per key, the fewest
    GPUs per replica (of its degrees, each asked of its own :class:`_Estimator`) whose replicas fit
    and carry the load within the targets, fitting for certain before *may not fit*. A candidate's
    cost is that of its instances, whatever its split, so the fewest that serve is as cheap as any
    and keeps the most replicas (the smallest share of the service down when one fails). Degrees
    are asked fewest first and the asking stops at the first that serves for certain: a model that
    fits one GPU costs one estimate, as before.
    """

    def __init__(self, split: dict[int, _Estimator], workload: Workload, weights_bytes: float = 0.0) -> None:
        self._split = split
        sv = workload.serving
        assert sv is not None
        self._least = sv.min_replicas or 1
        self._most = sv.max_replicas
        self._weights_bytes = weights_bytes
        # GPU id -> the bytes a process may allocate on it (None: a GPU this gpuplan does not know)
        self._usable: dict[str, float | None] = {}

    def _cannot_hold(self, gpu_id: str, t: int) -> bool:
        """The weights alone, split ``t`` ways, are past the GPU's memory: no estimate needed."""
        from gpuplan.perf.memory import usable_memory_gib

        if gpu_id not in self._usable:
            try:
                self._usable[gpu_id] = usable_memory_gib(get_gpu(gpu_id)) * 2**30
            except GpuplanError:
                self._usable[gpu_id] = None
        usable = self._usable[gpu_id]
        return usable is not None and self._weights_bytes / t > usable

    def __call__(self, key: EstimateKey) -> EstimateRow:
        count = key.gpus_per_node * key.nodes
        tried: list[tuple[int, EstimateRow]] = []
        # the fewest that serve but only *may* fit in memory, kept while a wider split is asked
        # whether it fits for certain (an option that may not fit ranks after every sure one); one
        # whose estimate's point fits before one whose point does not (ranked after it too)
        unsure: tuple[int, EstimateRow] | None = None
        # a group spans one instance's GPUs at most; whole replicas, within the service's range
        degrees = [
            t
            for t in self._split
            if t <= key.gpus_per_node
            and not count % t
            and count // t >= self._least
            and (self._most is None or count // t <= self._most)
        ]
        for t in degrees:
            # a split whose weights alone overflow the GPU is not asked (the widest always is: its
            # answer says why none serves)
            if t != degrees[-1] and self._cannot_hold(key.gpu, t):
                continue
            row = self._split[t](key)
            if row.fits and not row.memory_uncertain:
                return replace(row, tensor_parallel=t)
            if row.fits:
                if unsure is None or (unsure[1].memory_over and not row.memory_over):
                    unsure = (t, row)
                continue
            tried.append((t, row))
        if unsure is not None:
            return replace(unsure[1], tensor_parallel=unsure[0])
        if not tried:
            return _UNFIT

        # None serves: the answer nearest to serving says why (one that holds the model but is
        # short of the load or late before one that does not hold it), at the degree whose
        # replicas carry the most together, else the widest (the least memory per GPU).
        def nearness(item: tuple[int, EstimateRow]) -> tuple[bool, float, int]:
            t, row = item
            held = row.misses_latency or row.short_of_load
            carried = row.replica_requests_per_s * (count // t)
            return held, carried if math.isfinite(carried) else -1.0, t

        t, row = max(tried, key=nearness)
        return replace(row, tensor_parallel=t)


class _Estimator:
    """The estimate function :func:`make_estimator` returns, with its caches (see the module)."""

    def __init__(
        self,
        workload: Workload,
        profile: Profile,
        calibration: Calibration,
        measured_steps: tuple[StepMeasurement, ...],
        rate: RateScaling | None = None,
    ) -> None:
        self.workload, self.profile, self.calibration = workload, profile, calibration
        self.measured_steps = measured_steps
        self.rate = rate
        self.image_job = workload.inputs.image_size is not None
        # Only a CPU-decoding pipeline with neither vCPUs nor workers known is unknown (DALI decodes
        # on the GPU, synthetic data decodes nothing).
        self.input_unknown_without_vcpus = (
            self.image_job
            and workload.software_stack.input_pipeline.value == "dataloader"
            and workload.stack.loader_workers is None
        )
        # (GPU, GPUs per node, nodes, interconnect, network, network kind) as the key says them ->
        # its shape (the stages, and the network kind taken where the catalog lacks it); None: this
        # GPU cannot run it.
        self._shapes: dict[tuple[Any, ...], _Shape | None] = {}
        self._shape_ids: dict[tuple[tuple[str, int, Link], str], int] = {}
        self._stages: dict[tuple[str, int, Link], GpuStages | None] = {}
        self._like: dict[tuple[str, int], GpuStages] = {}
        # an image service's denoiser calls an image, per GPU (guidance's doubled batch is the GPU's)
        self._calls: dict[str, float] = {}
        # Shapes (as ``_shapes`` keys them) and stages whose GPU has no published rate for the
        # workload's math: answered as unknown speed, not as a GPU the job does not fit.
        # Only the keys are kept, never the error: an exception holds its traceback and context,
        # whose frames hold every caller's locals (the planner's candidate arrays) for as long as
        # the estimator lives.
        self._unrated_shapes: set[tuple[Any, ...]] = set()
        self._unrated: set[tuple[str, int, Link]] = set()
        # GPUs per node -> the first request asked for with that host (the others differ from it
        # only in their GPUs, count and link).
        self._requests: dict[int, EstimateRequest] = {}
        # (GPUs, vCPUs, RAM) of a host -> the number of its pipeline (equal pipelines, one number);
        # -1: a host the estimator refuses.
        self._hosts: dict[tuple[int, float | None, float | None], int] = {}
        self._pipeline_ids: dict[InputPipeline | None, int] = {}
        self._pipelines: list[InputPipeline | None] = []
        # (shape number, pipeline number, vCPUs known) -> the answer.
        self._rows: dict[tuple[int, int, bool], EstimateRow] = {}

    def __call__(self, key: EstimateKey) -> EstimateRow:
        # Facts the estimate cannot depend on leave the cache keys: the inter-node network of a
        # one-node job, the vCPUs of a job with no images to decode.
        multi = key.nodes > 1
        net, kind = (key.network_gbps, key.network_kind) if multi else (None, "")
        raw = (key.gpu, key.gpus_per_node, key.nodes, key.interconnect, net, kind)
        try:
            shape = self._shapes[raw]
        except KeyError:
            shape = self._shapes[raw] = self._shape(*raw)
        if shape is None:
            return _UNRATED if raw in self._unrated_shapes else _UNFIT
        vcpus = key.vcpus if self.image_job else None
        host = (key.gpus_per_node, vcpus, key.memory_gib)
        try:
            pipeline = self._hosts[host]
        except KeyError:
            pipeline = self._hosts[host] = self._pipeline(*host)
        if pipeline < 0:
            return _UNFIT
        row_key = (shape.id, pipeline, bool(vcpus))
        try:
            return self._rows[row_key]
        except KeyError:
            pass
        try:
            row = self._row(shape, self._pipelines[pipeline], bool(vcpus))
        except EstimateError:
            row = _UNFIT
        self._rows[row_key] = row
        return row

    def _shape(
        self, gpu_id: str, gpus_per_node: int, nodes: int, interconnect: str, net: float | None, kind: str
    ) -> _Shape | None:
        try:
            found = self._new_shape(gpu_id, gpus_per_node, nodes, interconnect, net, kind)
        except UnpublishedRateError:
            self._unrated_shapes.add((gpu_id, gpus_per_node, nodes, interconnect, net, kind))
            return None
        except EstimateError:
            return None  # this GPU cannot run the workload (e.g. FP8 before Hopper)
        if found is None:
            return None
        stages_key, inferred = found
        stages = self._stages[stages_key]
        if stages is None:  # the GPU cannot run the workload, or its rate for it is unpublished
            if stages_key in self._unrated:
                self._unrated_shapes.add((gpu_id, gpus_per_node, nodes, interconnect, net, kind))
            return None
        memory = stages.memory.memory
        # Equal shapes (the same stages, the same network kind taken) share one number, and so their rows.
        number = self._shape_ids.setdefault(found, len(self._shape_ids))
        return _Shape(
            id=number,
            stages_key=stages_key,
            stages=stages,
            inferred=inferred,
            # Ruled out only when the whole memory band is above the GPU's usable memory; a
            # configuration that may not fit stays, flagged and ranked after those that fit.
            fits=not memory.ruled_out,
            verdict=memory.verdict,
            # may not fit, the point above the usable memory: only the low end of the band fits
            over=memory.over_at_estimate,
            peak_memory_gib=memory.peak_memory_gib,
            memory_needed_gib=memory.required_gib,
            memory_needed_gib_high=memory.required_gib_high,
            usable_memory_gib=memory.capacity_gib,
        )

    def _new_shape(
        self, gpu_id: str, gpus_per_node: int, nodes: int, interconnect: str, net: float | None, kind: str
    ) -> tuple[tuple[str, int, Link], str] | None:
        try:
            gpu = get_gpu(gpu_id)
        except GpuplanError:
            return None
        # The offer's own fabric (the catalog's network_kind: EFA/InfiniBand/RoCE are RDMA, TCP is
        # not). Where the catalog does not say, the interconnect's words; where they do not either,
        # TCP — the conservative bound, whatever the rate (a ranking never takes an unsaid fabric
        # as RDMA), said on the option.
        fabric = catalog_network_kind(kind)
        count = gpus_per_node * nodes
        link = NetworkSpec(
            gbit_s=net,
            kind=fabric or network_kind_of(interconnect) or "tcp",
            source="catalog",
            gpus_per_node=gpus_per_node,
            # NVLink or PCIe and the NVLink board, from the offer's words (perf.links.gpu_join): an
            # offer that does not say is taken at the conservative bound (plan/unknowns.py).
            interconnect=interconnect,
        ).link(gpu, count)
        # The kind taken where the catalog does not say it (worded with the row's notes, when read).
        inferred = link.network_kind if fabric is None and nodes > 1 else ""
        stages_key = (gpu.id, count, link)
        if stages_key not in self._stages:
            # The host (vCPUs, RAM) enters none of these stages: each row applies its own.
            template = self._requests.get(gpus_per_node)
            if template is None:
                request = self._requests[gpus_per_node] = request_for(
                    self.workload,
                    self.profile,
                    gpu,
                    count=count,
                    link=link,
                    calibration=self.calibration,
                    host=Host(gpus=gpus_per_node),
                    measured_steps=self.measured_steps,
                )
            else:  # the same host's request, what depends on the GPU worked out for this one
                request = request_on(template, self.workload, gpu, count=count, link=link)
            # The same GPUs over another network or spread share the compute and memory stages.
            like = self._like.get((gpu.id, count))
            try:
                stages = self._stages[stages_key] = gpu_stages(request, like)
            except UnpublishedRateError:
                self._stages[stages_key] = None
                self._unrated.add(stages_key)
            except EstimateError:
                self._stages[stages_key] = None
            else:
                self._like.setdefault((gpu.id, count), stages)
        return stages_key, inferred

    def _pipeline(self, gpus: int, vcpus: float | None, ram_gib: float | None) -> int:
        try:
            pipeline = host_pipeline(self.workload, Host(gpus=gpus, vcpus=vcpus, ram_gib=ram_gib))
        except EstimateError:
            return -1
        number = self._pipeline_ids.setdefault(pipeline, len(self._pipelines))
        if number == len(self._pipelines):
            self._pipelines.append(pipeline)
        return number

    def _row(self, shape: _Shape, pipeline: InputPipeline | None, has_vcpus: bool) -> EstimateRow:
        if self.workload.serving is not None:
            if self.workload.serves_traced_calls:
                row = self._image_row(shape)
            else:
                row = self._serving_row(
                    shape.stages_key, not shape.fits, shape.verdict, shape.peak_memory_gib
                )
            return replace(
                row,
                memory_over=row.memory_uncertain and shape.over,
                memory_needed_gib=shape.memory_needed_gib,
                memory_needed_gib_high=shape.memory_needed_gib_high,
                usable_memory_gib=shape.usable_memory_gib,
            )
        stages, inferred = shape.stages, shape.inferred
        step_s, input_bound, job_h, job_low, job_high = host_figures(stages, pipeline)
        if job_h is None:
            return _UNFIT
        # A measured throughput scales the steps (and so the hours) of the measured configuration,
        # and its slowdown those of the others (plan/measured_rate.py).
        factor = 1.0 if self.rate is None else self.rate.factor(*shape.stages_key[:2])
        step_s, job_h = step_s * factor, job_h * factor
        job_low = None if job_low is None else job_low * factor
        job_high = None if job_high is None else job_high * factor
        return EstimateRow(
            fits=shape.fits,
            memory_uncertain=shape.verdict is MemoryVerdict.MAY_NOT_FIT,
            memory_over=shape.over,
            job_time_h=job_h,
            job_time_h_low=job_low or job_h,
            job_time_h_high=job_high or job_h,
            peak_memory_gib=shape.peak_memory_gib,
            memory_needed_gib=shape.memory_needed_gib,
            memory_needed_gib_high=shape.memory_needed_gib_high,
            usable_memory_gib=shape.usable_memory_gib,
            step_time_s=step_s,
            input_bound=input_bound,
            input_unknown=self.input_unknown_without_vcpus and not has_vcpus,
            implausible=stages.compute.plausibility.flags if stages.compute.plausibility else (),
            # Worded when read: the host's part again, with its notes this time.
            wording=lambda: _row_notes(host_finish(stages, pipeline), inferred),
        )

    def _image_row(self, shape: _Shape) -> EstimateRow:
        """An image service's row (``perf.image_serving``): the denoiser's step on the shape's GPUs,
        an image its calls, the load split evenly over the option's replicas."""
        from gpuplan.perf.image_serving import ImageStep
        from gpuplan.perf.inference import time_slice_share

        serving = self.workload.serving
        assert serving is not None
        gpu_id, count, _link = shape.stages_key
        calls = self._image_calls(gpu_id)
        tp, share = self.workload.tensor_parallel, serving.replicas_per_gpu
        replicas = count // tp * share
        if replicas < 1 or count % tp:
            return _UNFIT
        factor = 1.0 if self.rate is None else self.rate.factor(*shape.stages_key[:2])
        srv = ImageStep(
            step_s=shape.stages.spread.step_s * factor,
            calls=calls,
            batch=self.workload.inputs.batch_size,
            time_share=time_slice_share(share),
        ).serving(serving.requests_per_s, replicas)
        # the headroom a language model's fleet is sized with too (deploy's peak fleet asks the same)
        return _service_row(
            not shape.fits,
            srv.carried,
            srv.late(serving.p95_latency_ms),
            capacity=srv.capacity_images_per_s,
            verdict=shape.verdict,
            peak=shape.peak_memory_gib,
            p95_s=srv.p95_latency_s,
            step_time_s=shape.stages.spread.step_s * factor,
        )

    def _image_calls(self, gpu_id: str) -> float:
        """:func:`perf.image_serving.request_calls` of the workload on ``gpu_id``, once per GPU."""
        from gpuplan.hardware import get_gpu
        from gpuplan.perf.image_serving import request_calls

        if gpu_id not in self._calls:
            calls = request_calls(self.workload, self.profile, get_gpu(gpu_id), self.calibration)
            self._calls[gpu_id] = calls
        return self._calls[gpu_id]

    def _serving_row(
        self, stages_key: tuple[str, int, Link], ruled_out: bool, verdict: MemoryVerdict, peak: float
    ) -> EstimateRow:
        from gpuplan.hardware import get_gpu
        from gpuplan.perf import decode_estimate, serving_estimate
        from gpuplan.perf.inference import TARGET_UTILISATION

        serving = self.workload.serving
        assert serving is not None
        gpu_id, count, link = stages_key
        # One replica spans the workload's tensor-parallel GPUs, joined by the offer's own link; the
        # option's GPUs are whole replicas (the layout stage rules out the rest), the load split evenly.
        tp = self.workload.tensor_parallel
        # Replicas time-sharing each GPU (share_gpu): each holds its share of the memory and runs
        # its share of the time (decode_estimate, serving_estimate say how).
        share = serving.replicas_per_gpu
        replicas = count // tp * share
        if replicas < 1 or count % tp:
            return _UNFIT
        dec = decode_estimate(
            self.profile,
            get_gpu(gpu_id),
            calibration=self.calibration,
            tensor_parallel=tp,
            link=link,
            cuda_graphs=self.workload.uses_cuda_graphs,
            compiled=self.workload.compile,
            engine=serving_engine(self.workload),
            scheduler=engine_scheduler(self.workload, get_gpu(gpu_id)),
            replicas_per_gpu=share,
            # a whole request in the KV cache, as estimate, deploy and simulate size it
            context_tokens=sum(serving.tokens),
        )
        # n replicas to a GPU must each hold their weights and a sequence at the traced context.
        ruled_out = ruled_out or (share > 1 and dec.max_concurrent_sequences < 1)
        # the p95 targets checked at the p95 request's lengths, not every request at the mean
        tail = serving_tail(self.workload)
        srv = serving_estimate(
            dec,
            requests_per_s=serving.requests_per_s,
            prompt_tokens=serving.tokens[0],
            output_tokens=serving.tokens[1],
            replicas=replicas,
            tail_prompt_tokens=tail.prompt_tokens if tail else None,
            tail_output_tokens=tail.output_tokens if tail else None,
        )
        # The headroom `estimate` sizes a fleet with ("needs N GPUs"): a replica past it queues on
        # every burst of a Poisson load (ρ = 0.97 dropped one request in 16 in `simulate autoscale`).
        carried = srv.p95_latency_s is not None and srv.utilisation <= TARGET_UTILISATION
        late = (
            carried
            and srv.p95_latency_s is not None
            and serving.p95_latency_ms is not None
            and srv.p95_latency_s * 1000 > serving.p95_latency_ms
        )
        # unknown is never taken as within the target
        slow_first = (
            carried
            and serving.ttft_p95_ms is not None
            and (srv.ttft_p95_s is None or srv.ttft_p95_s * 1000 > serving.ttft_p95_ms)
        )
        # the decode step at the load's operating point over the time-per-output-token target
        slow_tokens = (
            carried
            and serving.tpot_p95_ms is not None
            and (srv.tpot_s is None or srv.tpot_s * 1000 > serving.tpot_p95_ms)
        )
        return _service_row(
            ruled_out,
            carried,
            late or slow_first or slow_tokens,
            capacity=srv.capacity_requests_per_s,
            verdict=verdict,
            peak=peak,
            p95_s=srv.p95_latency_s,
            ttft_s=srv.ttft_p95_s,
            tpot_s=srv.tpot_s,
            tpot_floor_s=srv.tpot_floor_s,
        )


def _service_row(
    ruled_out: bool,
    carried: bool,
    late: bool,
    *,
    capacity: float,
    verdict: MemoryVerdict,
    peak: float,
    p95_s: float | None,
    ttft_s: float | None = None,
    tpot_s: float | None = None,
    tpot_floor_s: float | None = None,
    step_time_s: float = math.nan,
) -> EstimateRow:
    """A service's row, a month of it (:data:`SERVING_HOURS`), a language model's or an image
    service's alike: it fits where memory does not rule it out (``ruled_out``), its replicas carry
    the load within the sizing headroom (``carried``) and no latency target is missed (``late``);
    its latencies (s; None: none estimated) and one replica's ``capacity`` shown only where it is
    not ruled out (NaN)."""

    def shown(s: float | None) -> float:
        return s if s is not None and not ruled_out else math.nan

    h = SERVING_HOURS
    return EstimateRow(
        fits=not ruled_out and carried and not late,
        misses_latency=not ruled_out and late,
        short_of_load=not ruled_out and not carried,
        p95_latency_s=shown(p95_s),
        ttft_p95_s=shown(ttft_s),
        tpot_s=shown(tpot_s),
        tpot_floor_s=shown(tpot_floor_s),
        replica_requests_per_s=math.nan if ruled_out else capacity,
        memory_uncertain=verdict is MemoryVerdict.MAY_NOT_FIT,
        job_time_h=h,
        job_time_h_low=h,
        job_time_h_high=h,
        peak_memory_gib=peak,
        step_time_s=step_time_s,
    )


def _row_notes(done: HostFinish, inferred: str) -> tuple[str, ...]:
    """An :class:`EstimateRow`'s notes: the estimate's, then the network kind taken (``inferred``)."""
    if not inferred:
        return done.notes
    return (*done.notes, _("network kind not in the catalog: taken as {kind}").format(kind=inferred))


class _Shape(NamedTuple):
    """A GPU shape the estimator has its stages for, with what its rows share."""

    id: int
    """Equal shapes (the same stages and network kind taken), the same number."""
    stages_key: tuple[str, int, Link]
    stages: GpuStages
    inferred: str
    """The network kind taken where the catalog does not say it ("" when it does)."""
    fits: bool
    """Not ruled out by memory (the low end of its band fits)."""
    verdict: MemoryVerdict
    over: bool
    """May not fit, the point of the band that must fit above the usable memory too
    (``MemoryEstimate.over_at_estimate``, ``EstimateRow.memory_over``)."""
    peak_memory_gib: float
    memory_needed_gib: float
    """The point of the band that must fit (``MemoryEstimate.required_gib``), GiB."""
    memory_needed_gib_high: float
    """The high end of the band that must fit (``MemoryEstimate.required_gib_high``), GiB."""
    usable_memory_gib: float
