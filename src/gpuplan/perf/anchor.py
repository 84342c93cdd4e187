"""The user's own step, measured (``gpuplan measure``), as the anchor of the workload's estimates.

A measurement times the workload's real step on one GPU and splits its kernel time by op class
(:data:`OP_CLASSES`). The roofline (``perf/roofline.py``) costs the same traced ops on that GPU;
the ratio, class by class, is how far the user's own stack is from the fitted model there
(eager NCHW code, unfused kernels, a slower attention — whatever it is, it is in the measurement).
On any other GPU each class keeps that ratio over the roofline's time for it there, so a class
moves with that GPU's hardware: compute-bound kernels (GEMM, convolutions, attention) by achieved
FLOP/s (datasheet peak × the fitted efficiency of its architecture), bandwidth-bound ones by
memory bandwidth. This is the method of Habitat (Yu, Gao, Golikov, Pekhimenko, "Habitat: A
Runtime-Based Computational Performance Predictor for Deep Neural Network Training", USENIX ATC
2021, https://www.usenix.org/conference/atc21/presentation/yu): scale each measured kernel by the
destination GPU's resources, compute-bound by compute, memory-bound by bandwidth. Habitat scales
kernel by kernel and learns the GEMM/convolution kernels from measurements; here the classes are
scaled by the roofline's own per-op times, which already hold both terms and the fitted
efficiencies.

The step time not covered by kernels (the CPU issuing them, a ``.item()``) is CPU time: it is kept
as measured. Communication is not measured (one GPU); the estimate's communication stage adds it.

A CPU recording (``--device cpu``) is kept and shown but never anchors a GPU estimate: there is no
datasheet to transfer from.
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from typing import TYPE_CHECKING

from gpuplan.bounded import printable
from gpuplan.errors import DataError, InputError
from gpuplan.i18n import N_, _
from gpuplan.i18n.phrases import listed
from gpuplan.profile.model import LAYOUT_TRANSPOSE_OP

if TYPE_CHECKING:
    from gpuplan.documents.measure import MeasurementDocument
    from gpuplan.hardware import GPU
    from gpuplan.perf.calibration import Calibration
    from gpuplan.profile.model import OpRecord, Profile
    from gpuplan.workload.spec import Workload

__all__ = [
    "HOST_BOUND_IDLE",
    "OP_CLASSES",
    "TRANSFER_LOG_HALFWIDTH",
    "Anchor",
    "AnchoredStep",
    "StepMeasurement",
    "choose_measurement",
    "class_times",
    "make_anchor",
    "profiler_class",
    "read_measurement",
    "trace_class",
    "workload_measurements",
]

#: The op classes of a measured kernel split (the order of the recording's ``kernel_time_s``).
OP_CLASSES: tuple[str, ...] = ("gemm", "attention", "memory", "communication", "other")

#: ln-half-width of the 80 % range of a step transferred from one GPU to another: the 80th
#: percentile of |ln(transferred / published)| over 52 transfers of 26 published pairs of one
#: workload on two GPUs, scored under a calibration fitted without the pairs' publishers so that no
#: pair figure was fitted on, the recordings carrying the CPU's issue time where the source table
#: gives it (``benchmarks/transfer_check.py``, measured 2026-12-02 with matmuls costed by their
#: traced shapes: 0.228, ×/÷ 1.26, median |error| 9.6 %; 0.270 before, without shapes; again after
#: the tensor-parallel score split and the DGX hosts' decode bound: 0.233, ×/÷ 1.26, 9.6 %; 2026-12-03
#: with fp16 master weights and the per-projection tensor-parallel plan: 0.240, ×/÷ 1.27, 9.6 %;
#: the same with FlagPerf's rows as bf16-master; again with paged optimizer state crossing PCIe,
#: misaligned GEMMs at their fallback kernels' rate and padded vocabularies: 0.234, ×/÷ 1.26, 9.8 %;
#: 2026-12-04 with the H200's own steps in the fit and its elementwise kernels at their measured
#: share: 0.234, ×/÷ 1.26, 10.2 %; and with no layout transposes around fp32/TF32 convolutions:
#: 0.210, ×/÷ 1.23, 9.6 %; 2026-12-05 with batch norm over NCHW in training at its measured share:
#: 0.200, ×/÷ 1.22, 9.5 %; and with Hopper's misaligned GEMMs at the H200's measured rate: 0.172,
#: ×/÷ 1.19, 9.5 %).
TRANSFER_LOG_HALFWIDTH = 0.172
#: Share of a measured step the GPU sat idle from which the step counts as the CPU's (host-bound):
#: a GPU-bound eager step idles only in launch gaps, a few µs per kernel of tens to hundreds of µs
#: (a few per cent); a host-bound one (small batches, decode) idles for most of the step.
HOST_BOUND_IDLE = 0.2
#: The same for an estimate on the GPU that was measured: nothing is transferred, so only the
#: run-to-run spread of the measured steps remains; this floor covers a second run of the same
#: code on another unit of the same model (clocks, thermals: a few per cent).
SAME_GPU_LOG_HALFWIDTH = 0.05

# aten names (the profiler's ``aten::`` events, without the prefix) of matmuls; the tracer's own
# list is ``profile/recorder.py _MATMUL`` (a test keeps the two in step).
_MATMUL_NAMES = frozenset(
    {"mm", "addmm", "bmm", "baddbmm", "addbmm", "mv", "addmv", "dot", "_scaled_mm", "matmul", "linear"}
)
# Kernel names (CUDA events no aten operator launched) that tell their class.
_GEMM_KERNELS = ("gemm", "cutlass", "cublas", "xmma", "sm80_", "sm90_", "conv", "wgrad", "dgrad")
_ATTENTION_KERNELS = ("flash", "fmha", "attention", "attn")


def trace_class(op: OpRecord) -> str:
    """The measured class a traced op falls in: matmuls and convolutions are ``gemm``, and so are
    the layout transposes cuDNN runs around an NCHW convolution (:data:`LAYOUT_TRANSPOSE_OP`):
    the convolution operator launches them, and the profiler gives an operator's own kernels its
    self device time. (On one H200, timm's ResNet-50 at batch 1024, AMP: the ``gemm`` class took
    19.6 ms more in NCHW than in NHWC; the traced transposes cost 21.3 ms by their bytes.)"""
    if op.op_class in ("matmul", "conv") or op.op == LAYOUT_TRANSPOSE_OP:
        return "gemm"
    if op.op_class == "attention":
        return "attention"
    return "memory"


def profiler_class(name: str) -> str:
    """The class of a profiler event by its name: an aten operator (``aten::addmm``), a
    collective (``nccl:all_reduce``, ``c10d::allreduce_``) or a bare kernel name."""
    low = name.lower()
    if "nccl" in low or low.startswith("c10d::") or "all_reduce" in low or "allreduce" in low:
        return "communication"
    if low.startswith("aten::"):
        op = low.removeprefix("aten::")
        if op in _MATMUL_NAMES or "convolution" in op:
            return "gemm"
        if "attention" in op:
            return "attention"
        return "memory"
    if any(k in low for k in _ATTENTION_KERNELS):
        return "attention"
    if any(k in low for k in _GEMM_KERNELS):
        return "gemm"
    return "other"


@dataclass(frozen=True, kw_only=True)
class StepMeasurement:
    """One recording of ``gpuplan measure`` (the fields the estimator reads; the whole recording is
    :class:`gpuplan.documents.measure.MeasurementDocument`)."""

    workload_key: str
    """The profile key of the workload measured; for a recording matched to a workload by what
    was measured (:func:`workload_measurements`), that workload's current one (a newer Profile
    schema or torch changes the key, not what was measured)."""
    workload_name: str
    task: str
    precision: str
    batch_size: int
    seq_len: int | None
    device: str
    """``cuda`` or ``cpu``."""
    device_name: str
    gpu_id: str | None
    """gpuplan's id of the GPU measured; None on a CPU or an unknown GPU."""
    measured_at: str
    step_time_s: float
    """Median of the timed steps."""
    step_samples_s: tuple[float, ...]
    kernel_time_s: tuple[tuple[str, float], ...]
    """(class, seconds per step), the classes of :data:`OP_CLASSES`."""
    peak_allocated_gib: float | None = None
    peak_reserved_gib: float | None = None
    nvidia_smi_gib: float | None = None
    issue_s: float | None = None
    """Median CPU time to issue the step (its call to its return, before waiting for the GPU);
    None where not measured (a CPU, an older recording)."""
    notes: tuple[str, ...] = field(default_factory=tuple)
    torch_version: str | None = None
    """The torch the step ran under; None where not read."""

    @property
    def busy_s(self) -> float:
        return sum(s for _c, s in self.kernel_time_s)

    def kernel(self, cls: str) -> float:
        return dict(self.kernel_time_s).get(cls, 0.0)

    @property
    def run_log_halfwidth(self) -> float:
        """ln of the 90th over the 10th percentile of the timed steps, halved (their spread)."""
        s = sorted(self.step_samples_s)
        if len(s) < 3:
            return 0.0
        q = statistics.quantiles(s, n=10, method="inclusive")
        return 0.5 * math.log(q[-1] / q[0]) if q[0] > 0 else 0.0

    @classmethod
    def from_document(cls, doc: MeasurementDocument) -> StepMeasurement:
        k = doc.kernel_time_s
        return cls(
            workload_key=doc.workload.profile_key,
            workload_name=doc.workload.name,
            task=doc.workload.task,
            precision=doc.workload.precision,
            batch_size=doc.workload.batch_size,
            seq_len=doc.workload.seq_len,
            device=doc.device.kind,
            device_name=doc.device.name,
            gpu_id=doc.device.gpu_id,
            measured_at=doc.run.measured_at,
            step_time_s=doc.step_time.median_s,
            step_samples_s=tuple(doc.step_time.samples_s),
            kernel_time_s=tuple((c, float(getattr(k, c))) for c in OP_CLASSES),
            peak_allocated_gib=doc.memory.peak_allocated_gib,
            peak_reserved_gib=doc.memory.peak_reserved_gib,
            nvidia_smi_gib=doc.memory.nvidia_smi_gib,
            issue_s=doc.step_time.issue_s,
            notes=tuple(doc.notes),
            torch_version=doc.device.torch_version,
        )

    def describe_device(self) -> str:
        """The GPU's id, else the device's name as the recording (a file from anywhere) wrote it,
        control characters escaped for a terminal."""
        return printable(self.gpu_id or self.device_name)


def read_measurement(
    text: str,
    *,
    source: str,
    error: type[DataError] | type[InputError] = InputError,
    today: date | None = None,
) -> tuple[MeasurementDocument, StepMeasurement]:
    """A recording's JSON (a file from anywhere, or the catalog's copy) → its document and value;
    one-line ``error`` when it is not a gpuplan measurement or no real step could have made it
    (``today``, UTC by default: the latest day it may be dated)."""
    from pydantic import ValidationError

    from gpuplan.bounded import load_json
    from gpuplan.documents.measure import MeasurementDocument

    data = load_json(text, source=source, error=error)
    try:
        doc = MeasurementDocument.read(data)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top)"
        raise error.worded(
            N_("{source}: not a gpuplan measurement: {where}: {why}"),
            source=source,
            where=where,
            why=first["msg"],
        ) from None
    if doc.step_time.low_s > doc.step_time.median_s or doc.step_time.median_s > doc.step_time.high_s:
        raise error.worded(
            N_("{source}: step times out of order (fastest {low} s, median {median} s, slowest {high} s)"),
            source=source,
            low=doc.step_time.low_s,
            median=doc.step_time.median_s,
            high=doc.step_time.high_s,
        )
    _check_physical(doc, source, error, today)
    return doc, StepMeasurement.from_document(doc)


#: The shortest step a recording may hold, s: one CUDA kernel launch alone takes ~5 µs, and a step
#: runs a model's forward (a recording of 5e-324 s made every estimate anchored on it instant).
MIN_STEP_S = 1e-6
#: How far a GPU's kernel time per step may exceed the slowest timed step. The kernel split comes
#: from the profiled steps, run after the timed ones; the profiler's tracing lengthens each kernel a
#: little, so it is held to the slowest step with a quarter's margin — 7.9 s of kernels in a 1 ms step
#: is no measurement of this step. A CPU recording is not held to it: the profiler's overhead per
#: operator is of the order of a small operator's own time (this machine's CPU recordings of a tiny
#: model: operator time 75 % to 130 % of the slowest step), and a CPU recording never anchors a GPU.
KERNEL_OVER_STEP = 1.25


def _check_physical(
    doc: MeasurementDocument, source: str, error: type[DataError] | type[InputError], today: date | None
) -> None:
    """A recording no real step could have made is refused, naming the field."""
    t, k = doc.step_time, doc.kernel_time_s
    if t.low_s < MIN_STEP_S:  # the median and the slowest are at least the fastest (checked above)
        raise error.worded(
            N_("{source}: step_time.low_s {value} s is shorter than any real step (at least {floor} s)"),
            source=source,
            value=t.low_s,
            floor=MIN_STEP_S,
        )
    if (odd := next((x for x in t.samples_s if not t.low_s <= x <= t.high_s), None)) is not None:
        raise error.worded(
            N_(
                "{source}: step_time.samples_s holds {value} s, outside its fastest {low} s and "
                "slowest {high} s"
            ),
            source=source,
            value=odd,
            low=t.low_s,
            high=t.high_s,
        )
    if t.samples_s and not math.isclose(statistics.median(t.samples_s), t.median_s, rel_tol=1e-6):
        # measure writes the median of its samples: a median edited alone (10 ms beside samples of
        # 87 ms) had made every GPU's estimate anchored on it 9x too fast
        raise error.worded(
            N_("{source}: step_time.median_s {median} s is not the median of its samples_s ({of} s)"),
            source=source,
            median=t.median_s,
            of=statistics.median(t.samples_s),
        )
    if t.issue_s is not None and t.issue_s > t.high_s:
        raise error.worded(
            N_("{source}: step_time.issue_s {issue} s is longer than the slowest step ({high} s)"),
            source=source,
            issue=t.issue_s,
            high=t.high_s,
        )
    if t.issue_s is not None and doc.device.kind != "cpu" and doc.workload.precision == "amp-fp16":
        # GradScaler reads its inf check back mid-step: measure keeps no issue time there
        raise error.worded(
            N_(
                "{source}: step_time.issue_s is given for an amp-fp16 step, whose CPU issue time "
                "gpuplan measure does not keep (GradScaler waits for the GPU within the step)"
            ),
            source=source,
        )
    if doc.device.gpu_id is not None and doc.device.kind != "cpu":
        named = _gpus_of_name(doc.device.name)
        if named is not None and doc.device.gpu_id not in named:
            # a B200 id on an H200's name had moved every GPU's estimate from the wrong card
            raise error.worded(
                N_("{source}: device.gpu_id {gpu!r} is not a GPU device.name {name!r} can be ({named})"),
                source=source,
                gpu=doc.device.gpu_id,
                name=doc.device.name,
                named=listed(sorted(named)),
            )
    busy = max(k.busy_s, sum(float(getattr(k, c)) for c in OP_CLASSES))
    if doc.device.kind != "cpu" and busy > KERNEL_OVER_STEP * t.high_s:
        raise error.worded(
            N_(
                "{source}: kernel_time_s ({busy:.4g} s per step) is more than the slowest step ({high:.4g} s)"
            ),
            source=source,
            busy=busy,
            high=t.high_s,
        )
    when = doc.run.measured_at
    try:
        at = datetime.fromisoformat(when)
    except ValueError:
        raise error.worded(
            N_("{source}: run.measured_at {when!r} is not an ISO date and time"), source=source, when=when
        ) from None
    # measure writes the time in UTC: compared with today's date in UTC
    day = (at.astimezone(timezone.utc) if at.tzinfo else at).date()
    today = today or datetime.now(timezone.utc).date()
    if day > today:
        raise error.worded(
            N_("{source}: run.measured_at {when!r} is after today ({today})"),
            source=source,
            when=when,
            today=today.isoformat(),
        )


def _gpus_of_name(name: str) -> set[str] | None:
    """The GPUs a driver-reported device name can be (``NVIDIA H200``: either H200), each with the
    siblings of its memory size (``Tesla V100-PCIE`` names the 16 GB card, and the 32 GB one reports
    it too), or None for a name the datasheets do not know (nothing to check against)."""
    from gpuplan.errors import AmbiguousNameError, GpuplanError
    from gpuplan.hardware import all_gpus, get_gpu, gpu_by_driver_name, resolve_gpu

    base = re.sub(r"\s+MIG\s+\S+$", "", name.strip())
    try:
        found = gpu_by_driver_name(base) or resolve_gpu(base)
        parts = [found]
    except AmbiguousNameError as e:
        parts = [get_gpu(c) for c in e.choices]
    except GpuplanError:
        return None
    return {
        g.id
        for part in parts
        for g in all_gpus()
        if g.id == part.id or (g.architecture == part.architecture and g.form_factor == part.form_factor)
    }


def workload_measurements(
    workload: Workload, read: Callable[[str], Iterable[object]]
) -> tuple[list[StepMeasurement], list[str]]:
    """The catalog's recordings of ``workload`` as values, and a line for each that no longer reads
    or cannot be matched (kept out, never fatal to an estimate).

    ``read``: the store's ``step_measurements``, given the workload's measurement key
    (``gpuplan.profile.measurement_key``); it also returns the rows stored before recordings carried
    one (``measurement_key`` None), which are matched by the trace key they recorded under every
    Profile schema so far and their own torch version. One of this workload's name that still does
    not match is said so, not dropped silently.
    """
    from dataclasses import replace

    from gpuplan.profile.key import is_recording_of, measurement_key, profile_key

    key, now = measurement_key(workload), profile_key(workload)
    out, problems = [], []
    for row in read(key):
        stored_key = getattr(row, "measurement_key", None)
        if stored_key is not None and stored_key != key:
            continue
        try:
            doc, m = read_measurement(
                str(getattr(row, "payload", "")), source=_("the stored measurement"), error=DataError
            )
        except DataError as e:
            if stored_key is not None or getattr(row, "workload_name", None) == workload.name:
                problems.append(str(e))
            continue
        if stored_key is None and not is_recording_of(
            workload, doc.workload.profile_key, doc.device.torch_version
        ):
            if doc.workload.name == workload.name:
                problems.append(
                    _(
                        "the measurement of {name} on {device} ({when}), stored by an earlier gpuplan, "
                        "is not of this workload under any earlier trace key (its model, batch, "
                        "precision or stack differ, or the key's fields changed since): not used; if it "
                        "is, store its file again with gpuplan measure --from"
                    ).format(name=doc.workload.name, device=m.describe_device(), when=m.measured_at)
                )
            continue
        out.append(replace(m, workload_key=now))
    return out, problems


def class_times(
    ops: Iterable[OpRecord], gpu: GPU, precision: str, cal: Calibration, **kw: object
) -> dict[str, float]:
    """The roofline's seconds per measured class for ``ops`` on ``gpu`` (``kw``: ``phase_times``'
    ``causal`` and ``seq_len``)."""
    from gpuplan.perf.roofline import op_seconds

    out = dict.fromkeys(OP_CLASSES, 0.0)
    for op, seconds in op_seconds(ops, gpu, precision, cal, **kw):  # type: ignore[arg-type]
        out[trace_class(op)] += seconds
    return out


def choose_measurement(measurements: Sequence[StepMeasurement], gpu_id: str) -> StepMeasurement | None:
    """The recording to anchor an estimate on ``gpu_id``: the newest one on that GPU, else the
    newest one on any GPU gpuplan has a datasheet of; None when there is none (CPU recordings and
    unknown GPUs never anchor)."""
    usable = [m for m in measurements if m.device == "cuda" and m.gpu_id]
    same = [m for m in usable if m.gpu_id == gpu_id]
    pool = same or usable
    # ISO timestamps of one writer sort chronologically as strings; of two alike, the one stored
    # last (the store lists them by time, then as stored): a re-import said "now anchor on it"
    # while the first of the two kept being used.
    return max(enumerate(pool), key=lambda im: (im[1].measured_at, im[0]))[1] if pool else None


@dataclass(frozen=True, kw_only=True)
class Anchor:
    """What a measurement says about the user's stack, per op class, ready to apply on any GPU."""

    measurement: StepMeasurement
    source_gpu: str
    """gpuplan's id of the GPU measured."""
    scale: tuple[tuple[str, float], ...]
    """(class, measured seconds / the roofline's seconds on the measured GPU)."""
    unmodelled_s: float
    """Measured kernel seconds of classes the trace has no op of (``other``, ``communication``),
    moved by memory bandwidth (mostly copies and fills)."""
    source_bandwidth: float
    """Achieved bandwidth of the measured GPU, bytes/s (for :attr:`unmodelled_s`)."""
    host_s: float
    """The CPU's time to issue the measured step's kernels, s: the whole step when the GPU sat idle
    for :data:`HOST_BOUND_IDLE` of it or more (the CPU set the pace), else the recording's measured
    issue time (``_issue_time``; the model's where it has none), no more than the step. Another GPU
    runs the step in the longer of its kernels and this."""
    gaps_s: float
    """Idle time of a GPU-bound step (launch gaps, synchronisations): kept as measured."""
    forward_share: float
    """Share of the CPU's time spent in the forward/backward phases (by kernel calls)."""

    def factor(self, cls: str) -> float:
        return dict(self.scale).get(cls, 1.0)


def make_anchor(m: StepMeasurement, profile: Profile, source: GPU, cal: Calibration) -> Anchor:
    """The per-class scales of ``m`` against the roofline of ``profile`` on ``source`` (the GPU
    measured, with its calibration ``cal``)."""
    from gpuplan.perf.roofline import is_causal, phase_times

    if m.workload_key != profile.key:
        raise DataError.worded(
            N_("the measurement of {measured!r} is of another workload than {workload!r}"),
            measured=m.workload_name,
            workload=profile.workload_name,
        )
    model = class_times(
        profile.ops, source, profile.precision, cal, causal=is_causal(profile), seq_len=profile.seq_len
    )
    kernels = {c: m.kernel(c) for c in OP_CLASSES}
    busy = sum(kernels.values())
    if busy > m.step_time_s:
        # Kernels on several streams overlap, and profiled steps run a little differently from timed
        # ones: the split is kept, its sum set to the timed step.
        kernels = {c: s * m.step_time_s / busy for c, s in kernels.items()}
        busy = m.step_time_s
    scale: list[tuple[str, float]] = []
    unmodelled = 0.0
    for c in OP_CLASSES:
        if model[c] > 0 and kernels[c] > 0:
            scale.append((c, kernels[c] / model[c]))
        else:
            unmodelled += kernels[c]
    if busy <= 0:
        # No split (a profiler that recorded nothing): the whole step scales with the roofline.
        total = sum(model.values())
        scale = [(c, m.step_time_s / total) for c in OP_CLASSES] if total > 0 else []
        busy = m.step_time_s
    phases = phase_times(profile.ops, source, profile.precision, cal)
    calls = phases.forward_calls + phases.backward_calls
    idle = max(0.0, m.step_time_s - busy)
    if idle >= HOST_BOUND_IDLE * m.step_time_s:
        host, gaps = m.step_time_s, 0.0  # the GPU waited on the CPU: the step is the CPU's time
    else:
        host, gaps = (
            min(_issue_time(m, phases.kernel_calls * cal.host_overhead_us * 1e-6), m.step_time_s),
            idle,
        )
    return Anchor(
        measurement=m,
        source_gpu=source.id,
        scale=tuple(scale),
        unmodelled_s=unmodelled,
        source_bandwidth=source.memory_bandwidth_gbps * 1e9 * cal.bandwidth_efficiency,
        host_s=host,
        gaps_s=gaps,
        forward_share=calls / phases.kernel_calls if phases.kernel_calls else 1.0,
    )


def _issue_time(m: StepMeasurement, modelled_s: float) -> float:
    """The CPU's time to issue a GPU-bound step: as measured where the recording has it, else the
    model's (``modelled_s``: calls × the fitted time per op).

    A GPU-bound step hides the CPU's time under its kernels, and that time is the floor of the
    step on any faster GPU. The fitted time per op is an average over other people's CPUs and
    stacks: DeepLearningExamples' eager ResNet-50 on a DGX-1's CPUs takes ~10 ms per step to issue
    (its published batch-1 steps on a V100 and a T4 alike), twice what the fit gives it."""
    return m.issue_s if m.issue_s is not None and m.issue_s > 0 else modelled_s


@dataclass(frozen=True, kw_only=True)
class AnchoredStep:
    """How an estimate used a measured step (``estimate --json`` ``anchored``)."""

    measured_on: str
    """gpuplan's id of the GPU the step was measured on."""
    measured_at: str
    measured_step_s: float
    """The measured step (median of the timed steps), s."""
    transferred: bool
    """False when estimating the GPU that was measured."""
    hardware_ratio: tuple[tuple[str, float], ...]
    """(class, the roofline's time on this GPU / on the measured one): how each class moved."""
    class_s: tuple[tuple[str, float], ...]
    """(class, anchored seconds of one micro-batch step on one GPU of this estimate)."""
    host_s: float
    """CPU time of the measured step, kept as measured (per micro-batch step)."""
    model_compute_s: float
    """The model's own compute time per optimizer step, without the measurement (for comparison)."""
    log_halfwidth: float
    """ln-half-width of the 80 % range of the anchored compute time."""
    model_log_halfwidth: float | None = None
    """ln-half-width of the model's own 80 % range on this GPU (the calibration's held-out band),
    for comparison; None for an unfitted prior, whose range is not one half-width."""

    @property
    def narrower(self) -> bool | None:
        """Whether the anchored range is narrower than the model's own; None when unknown. A
        measured step is no surer than the model when its timed steps varied widely."""
        if self.model_log_halfwidth is None:
            return None
        # by a width a reader can see: ×/÷ 1.188 beside the model's 1.190 had been called narrower
        return self.log_halfwidth < self.model_log_halfwidth - _VISIBLY_NARROWER


#: How much narrower, in ln-half-width (×/÷ about 1 %), an anchored range must be to be called so.
_VISIBLY_NARROWER = 0.01


def anchor_note(anchor: Anchor, gpu: GPU, factors: dict[str, float]) -> str:
    """The line an anchored estimate carries: measured where and when, how it moved to ``gpu``."""
    m = anchor.measurement
    ms = _("{n} ms").format(n=f"{m.step_time_s * 1e3:.4g}")
    if anchor.source_gpu == gpu.id:
        return _(
            "anchored on your measured step: {ms} on {gpu} ({when}, gpuplan measure); range from the "
            "spread of the measured steps"
        ).format(ms=ms, gpu=anchor.source_gpu, when=m.measured_at) + _torch_clause(m)
    moved = _(", ").join(
        _("{cls} ×{factor}").format(cls=_(_CLASS_NAMES[c]), factor=f"{f:.2f}") for c, f in factors.items()
    )
    return _(
        "anchored on your measured step: {ms} on {source} ({when}, gpuplan measure), transferred to "
        "{gpu} op class by op class — compute-bound by achieved FLOP/s, memory-bound by bandwidth "
        "(Habitat, Yu et al., USENIX ATC'21): {moved}"
    ).format(ms=ms, source=anchor.source_gpu, when=m.measured_at, gpu=gpu.id, moved=moved) + _torch_clause(m)


def _torch_clause(m: StepMeasurement) -> str:
    """What the anchor note adds when the step ran under another torch release than the one
    installed here (it still anchors: the workload is the same, but kernels and their dispatch
    change between releases); nothing when they agree or either is unknown. The build tag
    (``+cpu``, ``+cu126``) is not a release: a CPU build at home and a CUDA one on the rented GPU
    of one release agree."""
    from gpuplan.profile.key import installed_torch_version

    here = installed_torch_version()
    if m.torch_version is None or here == "none" or m.torch_version.split("+")[0] == here.split("+")[0]:
        return ""
    return _("; measured under torch {measured}, this machine has torch {here}").format(
        measured=printable(m.torch_version), here=here
    )


def not_anchored_note(m: StepMeasurement) -> str:
    """Why a measurement of this workload does not anchor its GPU estimates."""
    if m.device != "cuda":
        return _(
            "your measured step on {device} ({when}) is a CPU recording: GPU estimates are not anchored on it"
        ).format(device=printable(m.device_name), when=m.measured_at)
    return _(
        "your measured step on {device} ({when}) is on a GPU gpuplan has no datasheet of: not transferred"
    ).format(device=printable(m.device_name), when=m.measured_at)


_CLASS_NAMES = {
    "gemm": N_("GEMM"),
    "attention": N_("attention"),
    "memory": N_("memory-bound"),
    "communication": N_("communication"),
    "other": N_("other"),
}


def class_name(cls: str) -> str:
    """An op class as a table shows it, in the user's language."""
    return _(_CLASS_NAMES.get(cls, cls))
