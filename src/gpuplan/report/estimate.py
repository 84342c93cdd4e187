"""Render ``gpuplan estimate`` results: a Rich table per GPU and the ``--json`` document
(:class:`gpuplan.documents.EstimateDocument`; schema in ``docs/schemas/estimate.schema.json``).

The ``_low``/``_high`` figures are the 80 % interval (10th and 90th percentiles) of the estimate's
distribution (:class:`gpuplan.perf.distribution.TimeDistribution`). A GPU that cannot run the
workload (e.g. FP8 on an A100) has ``error`` set and null figures.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import asdict
from functools import partial
from typing import TYPE_CHECKING, Any

from rich import box
from rich.console import Group
from rich.table import Table
from rich.text import Text

from gpuplan.documents.estimate import (
    ESTIMATE_SCHEMA_VERSION,
    AdviceItem,
    AnchoredDoc,
    CalibrationSummary,
    DecodeDoc,
    EstimateDocument,
    EstimateRow,
    EstimateWorkload,
    GpuPriceDoc,
    InputHostDoc,
    LaunchCheckpointsDoc,
    MemoryDoc,
    PlausibilityDoc,
    ScalingAdviceItem,
    ScalingDoc,
    ScalingGapDoc,
    ServingDoc,
)
from gpuplan.i18n import N_, _, format_hours, format_number, ngettext
from gpuplan.i18n.numbers import format_minutes, format_percent
from gpuplan.i18n.phrases import bracketed, item_list, sentences
from gpuplan.perf.advisor import Advice
from gpuplan.perf.anchor import AnchoredStep
from gpuplan.perf.calibration import Calibration
from gpuplan.perf.estimate import SOFTWARE_LEVEL
from gpuplan.perf.inference import DecodeEstimate
from gpuplan.perf.input_pipeline import IMAGES_PER_S_PER_VCPU_LOW, STORAGE_READ_GBPS, HostInput
from gpuplan.perf.links import link_name
from gpuplan.perf.memory import MemoryEstimate
from gpuplan.perf.memory_margin import is_thin, thin_margin_words, usable_gib_words
from gpuplan.perf.plausibility import Plausibility
from gpuplan.perf.scaling import ScalingFigures
from gpuplan.perf.scaling_gap import MOST_OF_GAP, ScalingGap
from gpuplan.perf.sweep import EstimateOutcome
from gpuplan.profile.model import Profile
from gpuplan.report.common import Widest, rate_label
from gpuplan.report.stack import LevelOutcomes, level_figures, levels_table, stack_json, stack_words
from gpuplan.units import CHECKPOINT_WRITE_SHARE, DEFAULT_CHECKPOINT_INTERVAL_MIN
from gpuplan.vocab import MemoryVerdict
from gpuplan.workload.audio import FRAME_S
from gpuplan.workload.stack import Stack

if TYPE_CHECKING:
    from gpuplan.plan.launch_checkpoints import LaunchCheckpoints

__all__ = ["JSON_SCHEMA_VERSION", "estimate_json", "estimate_view"]

JSON_SCHEMA_VERSION = ESTIMATE_SCHEMA_VERSION

#: The task a workload names (``vocab.Task``), marked for the catalog: the header says it in the
#: reader's language, the JSON keeps the code.
# TRANSLATORS: the kind of job in "llm-lora: finetune, bf16, 8,043.9 M params, …"
_TASKS = (N_("train"), N_("finetune"), N_("infer"))

_FIGURES = (
    "peak_memory_gib",
    "peak_memory_gib_low",
    "peak_memory_gib_high",
    "step_time_s",
    "step_time_s_low",
    "step_time_s_high",
    "comm_time_s",
    "comm_total_s",
    "comm_exposed_s",
    "network_gbps",
    "network_source",
    "network_gbps_slow_end",
    "network_gbps_fast_end",
    "samples_per_s",
    "tokens_per_s",
    "throughput",
    "throughput_low",
    "throughput_high",
    "throughput_unit",
    "samples_per_step",
    "flops_per_step",
    "achieved_tflops",
    "job_time_h",
    "job_time_h_low",
    "job_time_h_high",
    "tensor_parallel",
    "pipeline_parallel",
    "data_parallel",
    "pipeline_bubble_fraction",
    "pipeline_bubble_s",
    "tensor_parallel_comm_s",
    "pipeline_comm_s",
    "optimizer_paging_s",
)


def _calibration_json(cal: Calibration) -> CalibrationSummary:
    errors = [abs(r.error_pct) for r in cal.rows if r.used_in_fit and r.metric != "peak_mem_gib"]
    held = dict(cal.heldout)

    def figure(name: str) -> float | None:
        return round(held[name], 3) if name in held else None

    return CalibrationSummary(
        source=cal.source,
        fitted_on=cal.fitted_on or None,
        # In-sample (the fit judged on its own rows); the held-out figures are the accuracy.
        median_abs_error_pct=round(statistics.median(errors), 1) if errors else None,
        worst_abs_error_pct=round(max(errors), 1) if errors else None,
        lopo_median_abs_error_pct=figure("lopo_median_abs_error_pct"),
        lopo_worst_abs_error_pct=figure("lopo_worst_abs_error_pct"),
        lopo_band_coverage=figure("lopo_band_coverage"),
        publishers=int(held["publishers"]) if "publishers" in held else None,
        kfold_median_abs_error_pct=figure("kfold_median_abs_error_pct"),
        kfold_worst_abs_error_pct=figure("kfold_worst_abs_error_pct"),
        band_coverage=figure("band_coverage"),
        heldout_rows=int(held["rows"]) if "rows" in held else None,
    )


def _advice_json(a: Advice) -> AdviceItem:
    return AdviceItem(
        action=a.action,
        summary=a.summary,
        gpu=a.gpu,
        gpu_count=a.gpu_count,
        peak_memory_gib=a.peak_memory_gib,
        fits=a.fits,
        step_time_s=a.step_time_s,
        step_time_factor=a.step_time_factor,
        derivation=a.derivation,
        required_gib=a.required_gib,
        capacity_gib=a.capacity_gib,
        offered=a.offered,
        gpu_price=None if a.gpu_price is None else GpuPriceDoc(**asdict(a.gpu_price)),
        changes=list(a.changes),
        saved_gib=list(a.saved_gib),
    )


def _memory_json(m: MemoryEstimate) -> MemoryDoc:
    return MemoryDoc(
        peak_allocated_gib=m.peak_allocated_gib,
        reserved_gib=m.reserved_gib,
        cuda_context_gib=m.cuda_context_gib,
        cublas_workspace_gib=m.cublas_workspace_gib,
        cudnn_workspace_gib=m.cudnn_workspace_gib,
        nccl_buffers_gib=m.nccl_buffers_gib,
        paged_optimizer_gib=m.paged_optimizer_gib,
        host_spill_gib=m.host_spill_gib,
        nvidia_smi_gib=m.nvidia_smi_gib,
        required_gib=m.required_gib,
        required_gib_low=m.required_gib_low,
        required_gib_high=m.required_gib_high,
        measured_on=m.measured_on,
    )


def _plausibility_json(p: Plausibility | None) -> PlausibilityDoc | None:
    if p is None:
        return None
    return PlausibilityDoc(
        reference_gpu=p.reference_gpu,
        ratio_to_reference=p.ratio,
        datasheet_low=p.datasheet_low,
        datasheet_high=p.datasheet_high,
        parity_high=p.parity_high,
        peak_fraction=p.peak_fraction,
        bandwidth_fraction=p.bandwidth_fraction,
        flags=list(p.flags),
    )


def _anchored_json(a: AnchoredStep | None) -> AnchoredDoc | None:
    if a is None:
        return None
    return AnchoredDoc(
        measured_on=a.measured_on,
        measured_at=a.measured_at,
        measured_step_s=a.measured_step_s,
        transferred=a.transferred,
        hardware_ratio=dict(a.hardware_ratio),
        class_s=dict(a.class_s),
        host_s=a.host_s,
        model_compute_s=a.model_compute_s,
        range_factor=math.exp(a.log_halfwidth),
        model_range_factor=None if a.model_log_halfwidth is None else math.exp(a.model_log_halfwidth),
    )


def _input_host_json(h: HostInput | None) -> InputHostDoc | None:
    if h is None:
        return None
    return InputHostDoc(
        vcpus_per_gpu=h.vcpus_per_gpu,
        source=h.source,  # type: ignore[arg-type]
        basis=h.basis,
        instance_types=h.instance_types,
        bounded=h.bounded,
        slow_end_slower_pct=100.0 * (h.slow_end_factor - 1.0),
    )


def _decode_doc(d: DecodeEstimate) -> DecodeDoc:
    """The decode figures as the document states them, with the serving engine's CPU work they hold."""
    # The engine is stated below in the document's words; its scheduling and the iteration model
    # shape the figures but are not figures themselves.
    fields = {k: v for k, v in asdict(d).items() if k not in ("engine", "scheduler", "step")}
    if d.max_concurrent_sequences < 1:
        # no room for one sequence beside the weights: its rates are not reachable (as the table says)
        for k in (
            "time_per_token_s",
            "tokens_per_s",
            "time_per_token_at_max_s",
            "prefill_tokens_per_s",
            "prefill_s",
        ):
            fields[k] = None
    cpu = d.engine
    return DecodeDoc(
        **fields,
        engine=cpu.name if cpu.step_s > 0 else None,
        engine_cpu_s=cpu.step_s,
        engine_overlapped=cpu.overlapped,
        engine_cpu_source=cpu.cited(translated=False) if cpu.step_s > 0 else None,
    )


def _scaling_json(f: ScalingFigures | None) -> ScalingDoc | None:
    if f is None:
        return None
    fields = {k: v for k, v in asdict(f).items() if k not in ("gpu", "gpu_count")}
    return ScalingDoc.model_validate({**fields, "exposed_share": f.exposed_share})


def _job_hours(h: float | None, checkpoints: LaunchCheckpoints | None) -> float | None:
    """``h`` hours of steps with the checkpoints the launch writes over them (None stays None)."""
    if h is None or checkpoints is None:
        return h
    return h + checkpoints.hours(h)


def _outcome_json(
    o: EstimateOutcome,
    parallelism: str,
    levels: Sequence[LevelOutcomes] = (),
    row: int = 0,
    checkpoints: LaunchCheckpoints | None = None,
) -> EstimateRow:
    e = o.estimate
    if e is None:
        return EstimateRow.model_validate(
            {
                "gpu": o.gpu,
                "gpu_count": o.gpu_count,
                "parallelism": parallelism,
                # Not estimated: whether it fits, is input-bound or how its GPUs join is unknown.
                "fits": None,
                "input_bound": None,
                **dict.fromkeys(_FIGURES),
                "memory_capacity_gib": None,
                **{"link": None, "notes": [], "advice": [], "decode": None, "serving": None},
                "error": o.error,
            }
        )
    return EstimateRow.model_validate(
        {
            "gpu": o.gpu,
            "gpu_count": o.gpu_count,
            "parallelism": parallelism,
            "fits": e.fits,
            "memory_verdict": e.memory_verdict,
            "memory_over": e.memory.over_at_estimate,
            **{k: getattr(e, k) for k in _FIGURES},
            # the job's time with the checkpoint writes, as plan's off spot; the steps alone beside it
            **{
                f"job_time_h{end}": _job_hours(getattr(e, f"job_time_h{end}"), checkpoints)
                for end in ("", "_low", "_high")
            },
            **{f"compute_time_h{end}": getattr(e, f"job_time_h{end}") for end in ("", "_low", "_high")},
            "checkpoint_writes_h": None
            if e.job_time_h is None
            else (checkpoints.hours(e.job_time_h) if checkpoints is not None else 0.0),
            "checkpoint_writes": None
            if e.job_time_h is None
            else (checkpoints.writes(e.job_time_h) if checkpoints is not None else 0.0),
            "memory_capacity_gib": e.memory.capacity_gib,
            "memory": _memory_json(e.memory),
            "input_bound": e.input_bound,
            "input_samples_per_s": e.input_samples_per_s,
            "input_host": _input_host_json(e.host_input),
            "anchored": _anchored_json(e.anchored),
            "link": e.link,
            "notes": list(e.notes),
            "plausibility": _plausibility_json(e.plausibility),
            "advice": [_advice_json(a) for a in o.advice],
            "advice_left_out": o.advice_left_out,
            "scaling_advice": [
                ScalingAdviceItem(**{**asdict(a), "job_time_h": _job_hours(a.job_time_h, checkpoints)})
                for a in o.scaling
            ],
            "scaling": _scaling_json(o.scaling_figures),
            "scaling_gap": None
            if o.scaling_gap is None
            else ScalingGapDoc.model_validate(
                {
                    **asdict(o.scaling_gap),
                    "measured_job_time_h": _job_hours(o.scaling_gap.measured_compute_time_h, checkpoints),
                }
            ),
            "stack_levels": level_figures(levels, row),
            "decode": _decode_doc(o.decode) if o.decode else None,
            "serving": ServingDoc(**asdict(o.serving)) if o.serving else None,
            "error": None,
        }
    )


def estimate_json(
    profile: Profile,
    outcomes: Sequence[EstimateOutcome],
    cal: Calibration,
    *,
    parallelism: str = "ddp",
    gradient_accumulation: int = 1,
    tensor_parallel: int = 1,
    pipeline_parallel: int = 1,
    stack: Stack | None = None,
    levels: Sequence[LevelOutcomes] = (),
    checkpoints: LaunchCheckpoints | None = None,
) -> EstimateDocument:
    """The ``gpuplan estimate --json`` document; ``stack``: the one assumed, ``levels``: the same
    GPU configurations on the stock and tuned stacks; ``checkpoints``: those the job writes
    (``EstimateReport.checkpoints``), which each row's job time includes."""
    return EstimateDocument(
        workload=EstimateWorkload(
            name=profile.workload_name,
            task=profile.task,
            precision=profile.precision,
            attention=profile.attention,
            params=profile.params,
            trainable_params=profile.trainable_params,
            flops_per_micro_batch=profile.flops_per_step,
            batch_size=profile.batch_size,
            seq_len=profile.seq_len,
            parallelism=parallelism,
            gradient_accumulation=gradient_accumulation,
            tensor_parallel=tensor_parallel,
            pipeline_parallel=pipeline_parallel,
        ),
        software_level=_stack_line(profile, stack, outcomes),
        stack=stack_json(stack, training=profile.task != "infer") if stack is not None else None,
        calibration=_calibration_json(cal),
        estimates=[_outcome_json(o, parallelism, levels, i, checkpoints) for i, o in enumerate(outcomes)],
        checkpoints=None
        if checkpoints is None
        else LaunchCheckpointsDoc(
            checkpoint_gb=checkpoints.checkpoint_gb,
            interval_min=checkpoints.interval_min,
            interval_stated=checkpoints.interval_stated,
            write_gbps=checkpoints.write_gbps,
            write_min=checkpoints.write_min,
        ),
        thin_memory_margin=thin_margin_note(profile, outcomes),
    )


def _stack_line(profile: Profile, stack: Stack | None, outcomes: Sequence[EstimateOutcome] = ()) -> str:
    """The stack assumed, in words (the fixed level of old callers that give none)."""
    if stack is None:
        return _(SOFTWARE_LEVEL)
    # A host's decode rate bounded a step only where its vCPUs were known (an instance named), or
    # its slow end where a typical instance of the GPU stood in for an unnamed one.
    checked = any(o.estimate is not None and o.estimate.input_samples_per_s is not None for o in outcomes)
    typical = any(_typical(o) is not None for o in outcomes)
    images = profile.seq_len is None and profile.shape.family in ("cnn", "vit")
    split = any(o.estimate is not None and o.estimate.tensor_parallel > 1 for o in outcomes)
    return stack_words(
        stack,
        images=images,
        decode_checked=checked,
        decode_typical=typical and not checked,
        tensor_parallel=split,
        training=profile.task != "infer",
    )


def _typical(o: EstimateOutcome) -> HostInput | None:
    """The typical host that stood in for an unnamed instance in ``o``, or None."""
    h = o.estimate.host_input if o.estimate is not None else None
    return h if h is not None and h.source == "typical" else None


def _input_host_line(outcomes: Sequence[EstimateOutcome]) -> Text | None:
    """Under the table: the typical host each GPU's slow end was bounded by, where no instance was
    named (the rows whose slow end it moved; the others counted)."""
    every = [(o, h) for o in outcomes if (h := _typical(o)) is not None]
    ram = _typical_ram_line([(o, h) for o, h in every if h.vcpus_per_gpu is None])
    rows = [(o, h) for o, h in every if h.vcpus_per_gpu is not None]
    if not rows:
        return ram
    slower = [
        _("{gpu}: {typical}, up to {pct:.0f} % slower").format(
            gpu=_gpus(o), typical=h.typical.describe(), pct=100.0 * (h.slow_end_factor - 1.0)
        )
        for o, h in rows
        if h.bounded and h.typical is not None
    ]
    line = _(
        "The instance's vCPUs are not known, nor is the input pipeline's rate: the point and the fast "
        "end assume the DataLoader keeps up; the slow end takes a typical instance of each GPU, the "
        "median vCPUs per GPU of the catalog's priced instance types of that GPU and count, at {rate:g} "
        "images/s per vCPU (assumed). Give --instance for yours, or --vcpus for a machine of your "
        "own."
    ).format(rate=IMAGES_PER_S_PER_VCPU_LOW)
    if slower:
        line = sentences(line, _("Slow end input-bound: {rows}.").format(rows=_("; ").join(slower)))
    line = sentences(line, _keeps_up(rows))
    if any(h.rereads for _o, h in rows):
        line = sentences(
            line,
            _(
                "The instance's RAM is not known either: where a typical instance's page cache cannot hold "
                "the dataset, the slow end also re-reads it from disk every epoch."
            ),
        )
    if ram is not None:
        return Text.assemble(Text(line, style="dim"), "\n", ram)
    return Text(line, style="dim")


def _typical_ram_line(rows: Sequence[tuple[EstimateOutcome, HostInput]]) -> Text | None:
    """Under the table, for a job that decodes nothing on the CPUs: the typical host whose RAM bounds
    each GPU's slow end, where no instance was named (and whether it did)."""
    if not rows:
        return None
    line = _(
        "The instance's RAM is not known: the point and the fast end assume its page cache holds the "
        "dataset; the slow end takes a typical instance of each GPU, the median RAM per GPU of the "
        "catalog's priced instance types of that GPU and count, and reads what it cannot hold from "
        "disk every epoch at {gbps:g} GB/s per node (assumed). Give --instance for yours."
    ).format(gbps=STORAGE_READ_GBPS)
    slower = [
        _("{gpu} up to {pct:.0f} % slower").format(
            gpu=_gpus(o),
            pct=100.0 * (h.slow_end_factor - 1.0),
        )
        for o, h in rows
        if h.bounded
    ]
    if slower:
        line = sentences(line, _("Slow end disk-bound: {rows}.").format(rows=_("; ").join(slower)))
    return Text(sentences(line, _keeps_up(rows)), style="dim")


def _keeps_up(rows: Sequence[tuple[EstimateOutcome, HostInput]]) -> str:
    """``It keeps up even at the slow end on: T4, L4.`` for the rows a typical host did not bound."""
    if keeps := [o.gpu for o, h in rows if not h.bounded]:
        return _("It keeps up even at the slow end on: {gpus}.").format(gpus=item_list(keeps))
    return ""


def _gpus(o: EstimateOutcome) -> str:
    """``T4``, or ``2 × V100-SXM2-16GB``: an outcome's GPUs as the lines under the table name them."""
    return o.gpu if o.gpu_count == 1 else f"{o.gpu_count} × {o.gpu}"


def _input_bound_line(outcomes: Sequence[EstimateOutcome]) -> Text | None:
    """Under the table: what bounds each GPU's step on the named instance — its vCPUs' decode, its
    disk re-reading a dataset its RAM cannot cache — where it does (the table's samples/s are the
    host's, not the GPUs')."""
    said = [
        f"{_gpus(o)}: {h.said}"
        for o in outcomes
        if o.estimate is not None and (h := o.estimate.host_input) is not None and h.said
    ]
    return Text("\n".join(said), style="dim") if said else None


def _cannot_run_line(outcomes: Sequence[EstimateOutcome]) -> Text | None:
    """Under the table: why each "n/a" GPU cannot run the workload — one line per reason, the GPUs
    it holds for alike named after it (fp8 over the whole table is one line, not seventeen)."""
    alike: dict[str, list[EstimateOutcome]] = {}
    for o in outcomes:
        if o.estimate is None and o.error:
            alike.setdefault(o.error.replace(o.gpu, "\0"), []).append(o)
    lines = []
    for same in alike.values():
        first = same[0]
        assert first.error is not None
        # "RTX-5090: RTX-5090 has …" says the name once.
        named = first.gpu_count == 1 and first.error.startswith(first.gpu)
        line = first.error if named else f"{_gpus(first)}: {first.error}"
        if len(same) > 1:
            others = item_list(_gpus(o) for o in same[1:])
            line = _("{reason}; the same for {gpus}").format(reason=line, gpus=others)
        lines.append(line)
    return Text("\n".join(lines), style="red") if lines else None


def _notes_line(outcomes: Sequence[EstimateOutcome]) -> Text | None:
    """Under the table: every other note the estimates carry (what was assumed, bounded or flagged),
    each once, with the GPUs it concerns where it does not concern them all. The host's notes are
    left to the lines above, which say them already."""
    rows = [o for o in outcomes if o.estimate is not None]
    which: dict[str, list[str]] = {}
    for o in rows:
        assert o.estimate is not None
        host = o.estimate.host_input.notes if o.estimate.host_input is not None else ()
        for note in o.estimate.notes:
            if note not in host:
                which.setdefault(note, []).append(_gpus(o))
    if not which:
        return None
    lines = [_("Notes:")]
    for note, labels in which.items():
        # No GPUs after a note that concerns them all, or names the GPUs it concerns itself.
        named = all(label.split(" × ")[-1] in note for label in labels)
        everywhere = len(labels) == len(rows) or named
        lines.append(f"- {note}" if everywhere else f"- {bracketed(note, item_list(dict.fromkeys(labels)))}")
    return Text("\n".join(lines), style="dim")


def _num(x: float) -> str:
    return format_number(x, 3)


def _time(s: float) -> str:
    if s < 1.0:
        return _("{n} ms").format(n=f"{s * 1e3:.3g}")
    if s < 120:
        return _("{n} s").format(n=f"{s:.3g}")
    return format_hours(s / 3600.0)


def _hours(h: float | None) -> str:
    if h is None:
        return "—"
    return _time(h * 3600.0)


def _band(point: str, low: str, high: str) -> str:
    """``563 ms [394–836]``: the unit once when all three share it (narrow columns, no wrapping)."""
    unit = point.rsplit(" ", 1)[-1] if " " in point else ""
    if unit and low.endswith(" " + unit) and high.endswith(" " + unit):
        return f"{point} [{low.removesuffix(' ' + unit)}–{high.removesuffix(' ' + unit)}]"
    return f"{point} [{low}–{high}]"


def _summary_table(
    outcomes: Sequence[EstimateOutcome],
    unit: str,
    ranges: bool = True,
    checkpoints: LaunchCheckpoints | None = None,
) -> Table:
    short = rate_label(unit)
    title = (
        _("Estimate per GPU: point [low–high]")
        if ranges
        else _("Estimate per GPU (ranges on a wider terminal or in --json)")
    )
    table = Table(
        title=Text(title),
        title_justify="left",
        header_style="bold",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
    )
    # GPU ids never wrap: two V100 variants must not become the same cut-off name.
    table.add_column("GPU", no_wrap=True)
    table.add_column(_("fits"), overflow="fold")
    # A served LLM's figure after the "/" is its engine's share of the GPU (vLLM's
    # --gpu-memory-utilization), not the GPU's usable memory: the header says which it is.
    served = _engine_shares(e.memory.engine_share for o in outcomes if (e := o.estimate) is not None)
    table.add_column(
        {
            False: _("memory / GPU (GiB)"),
            # two lines, no wider than the figures: a wider header would cost the ranges
            True: _("memory (GiB)") + "\n/ " + _("engine's share"),
            None: _("memory (GiB)") + "\n/ " + _("usable or engine's share"),
        }[served],
        justify="right",
        overflow="fold",
    )
    table.add_column(_("step time"), justify="right", overflow="fold")
    table.add_column(_("throughput ({unit})").format(unit=short), justify="right", overflow="fold")
    table.add_column(_("job time"), justify="right", overflow="fold")
    # A paged optimizer's spilled state crossing PCIe is part of the step time: shown as a column
    # of its own only where some GPU pays it (most workloads never page).
    paging = any(o.estimate is not None and o.estimate.optimizer_paging_s > 0 for o in outcomes)
    if paging:
        table.add_column(_("paging"), justify="right", overflow="fold")
    for o in outcomes:
        name = o.gpu if o.gpu_count == 1 else f"{o.gpu} ×{o.gpu_count}"
        e = o.estimate
        if e is None:
            # Why it cannot run there is a sentence: said under the table (_cannot_run_line), so
            # that it does not widen a column of figures.
            empty = ("",) * (5 if paging else 4)
            table.add_row(name, Text(_("n/a"), style="red"), *empty)
            continue
        mem = (
            f"{e.peak_memory_gib:.1f} [{e.peak_memory_gib_low:.1f}–{e.peak_memory_gib_high:.1f}]"
            f" / {usable_gib_words(e.memory.capacity_gib)}"
            if ranges
            else f"{e.peak_memory_gib:.1f} / {usable_gib_words(e.memory.capacity_gib)}"
        )
        # The estimate's point above the usable memory is told apart from a band that only
        # straddles it, as plan ranks and words them (the notes say what it needs).
        fits = (
            Text(_("not at the estimate"), style="bold red")
            if e.memory.over_at_estimate
            else {
                MemoryVerdict.FITS: Text(_("yes"), style="green"),
                MemoryVerdict.MAY_NOT_FIT: Text(_("may not"), style="bold yellow"),
                MemoryVerdict.DOES_NOT_FIT: Text(_("no"), style="bold red"),
            }[e.memory_verdict]
        )
        step = _time(e.step_time_s)
        thr = _num(e.throughput)
        mark = _ANCHOR_MARK if e.anchored is not None else ""
        # with the checkpoint writes, as plan's job time (said under the table)
        job = _hours(_job_hours(e.job_time_h, checkpoints))
        if ranges:
            step = _band(step, _time(e.step_time_s_low), _time(e.step_time_s_high))
            thr = f"{thr} [{_num(e.throughput_low)}–{_num(e.throughput_high)}]"
            if e.job_time_h is not None:
                job = _band(
                    job,
                    _hours(_job_hours(e.job_time_h_low, checkpoints)),
                    _hours(_job_hours(e.job_time_h_high, checkpoints)),
                )
        mem_mark = _ANCHOR_MARK if e.memory.measured_on is not None else ""
        cells = [Text(mem_mark + mem), Text(mark + step), Text(thr), Text(job)]
        if paging:
            cells.append(Text(_time(e.optimizer_paging_s) if e.optimizer_paging_s > 0 else "—"))
        table.add_row(name, fits, *cells)
    return table


#: The rows of several GPUs whose scaling the lines under the table spell out (the rest: --json).
_SCALING_ROWS_SHOWN = 3


def _seconds(s: float) -> str:
    """``133 ms``, ``15.9 s``: a step's part, never in hours."""
    return _("{n} ms").format(n=f"{s * 1e3:.3g}") if s < 1.0 else _("{n} s").format(n=f"{s:,.3g}")


def _scaling_line(o: EstimateOutcome, f: ScalingFigures, unit: str) -> str:
    """One row of several GPUs against one GPU of its kind: the speed-up and its efficiency, the link
    and the communication a step, with what of it compute does not hide."""
    name = f"{o.gpu} ×{o.gpu_count}"
    if f.speedup is None or f.efficiency is None:
        head = _(
            "Scaling of {name}: one {gpu} cannot run it ({why}), so there is no speed-up over one."
        ).format(name=name, gpu=o.gpu, why=f.one_gpu_error or "—")
    else:
        head = _("Scaling of {name}: {speedup:.2f}× one {gpu} ({efficiency} efficiency).").format(
            name=name, speedup=f.speedup, gpu=o.gpu, efficiency=format_percent(f.efficiency)
        )
        if f.speedup > o.gpu_count:
            head = sentences(head, _super_linear(o, f))
        if f.one_gpu_fits is False:
            head = sentences(
                head,
                _("One {gpu} would not hold it in memory: that is over its time alone.").format(gpu=o.gpu),
            )
    comm = _(
        "Link: {link}. Communication {total} a step, {exposed} of it exposed (not overlapped with compute): "
        "{share} of the {step} step."
    ).format(
        link=f.link,
        total=_seconds(f.comm_total_s),
        exposed=_seconds(f.comm_exposed_s),
        share=format_percent(f.exposed_share),
        step=_seconds(f.step_time_s),
    )
    line = sentences(head, comm)
    if f.input_bound:
        line = sentences(line, _("The host's input pipeline, not the GPUs, sets this step."))
    c = f.conservative
    if c is not None:
        short = rate_label(unit)
        over = (
            ""
            if c.speedup is None or c.efficiency is None
            else _(", {speedup:.2f}× one {gpu} ({efficiency} efficiency)").format(
                speedup=c.speedup, gpu=o.gpu, efficiency=format_percent(c.efficiency)
            )
        )
        line = sentences(
            line,
            _(
                "The network between the nodes is not known: the row takes {gbps:g} Gbit/s {kind}; at "
                "the conservative bound, {slow:g} Gbit/s {slow_kind} (the slowest GPU instance network of "
                "the embedded catalog), {thr} {unit} [{low}–{high}]{over}, {exposed} of a {step} step "
                "exposed communication. Give --network-gbps for the figure of yours."
            ).format(
                gbps=f.network_gbps or 0.0,
                kind=link_name(f.network_kind or ""),
                slow=c.network_gbps,
                slow_kind=link_name(c.network_kind),
                thr=_num(c.throughput),
                unit=short,
                low=_num(c.throughput_low),
                high=_num(c.throughput_high),
                over=over,
                exposed=_seconds(c.comm_exposed_s),
                step=_seconds(c.step_time_s),
            ),
        )
    return line


def _super_linear(o: EstimateOutcome, f: ScalingFigures) -> str:
    """Why a row scales past its GPU count: a sharded optimizer step (FSDP, ZeRO) is that GPU's
    shard of the weights, shorter than one GPU's step over all of them."""
    saved = (f.one_gpu_optimizer_s or 0.0) - f.optimizer_s
    if f.one_gpu_optimizer_s is not None and saved > 0:
        return _(
            "More than {count}×: the optimizer state is sharded ({parallelism}), so each GPU's optimizer "
            "step updates only its 1/{count} of the weights, {here} against {one} on one {gpu}; the {saved} "
            "this saves a step is more than the {exposed} of communication not overlapped with compute."
        ).format(
            count=o.gpu_count,
            parallelism=o.estimate.parallelism if o.estimate is not None else "",
            here=_seconds(f.optimizer_s),
            one=_seconds(f.one_gpu_optimizer_s),
            gpu=o.gpu,
            saved=_seconds(saved),
            exposed=_seconds(f.comm_exposed_s),
        )
    return _(
        "More than {count}×: one {gpu}'s step, {one}, is longer than this row's {here} for the same batch "
        "per GPU."
    ).format(
        count=o.gpu_count, gpu=o.gpu, one=_seconds(f.one_gpu_step_s or 0.0), here=_seconds(f.step_time_s)
    )


def _scaling_lines(outcomes: Sequence[EstimateOutcome], unit: str) -> Text | None:
    """Under the table: each row of several GPUs against one GPU of its kind (the first few)."""
    rows = [(o, f) for o in outcomes if (f := o.scaling_figures) is not None]
    if not rows:
        return None
    lines = [_scaling_line(o, f, unit) for o, f in rows[:_SCALING_ROWS_SHOWN]]
    if len(rows) > _SCALING_ROWS_SHOWN:
        lines.append(_("Each row's scaling is in --json (scaling)."))
    return Text("\n".join(lines))


def _measured_job_words(o: EstimateOutcome, g: ScalingGap, checkpoints: LaunchCheckpoints | None) -> str:
    """The job's time at the measured rate beside the table's estimate, and how to plan on it; ""
    without a job size."""
    e = o.estimate
    measured = _job_hours(g.measured_compute_time_h, checkpoints)
    if e is None or measured is None or g.measured_throughput is None:
        return ""
    return _(
        "At the measured rate the job takes {measured}, against the {estimated} of the table; `gpuplan plan "
        "--measured-throughput {throughput:.0f} --measured-on {gpu}:{count}` plans and prices it at that "
        "rate."
    ).format(
        measured=format_hours(measured),
        estimated=format_hours(_job_hours(e.job_time_h, checkpoints)),
        throughput=g.measured_throughput,
        gpu=o.gpu,
        count=o.gpu_count,
    )


def _faster_network_words(g: ScalingGap, f: ScalingFigures | None) -> str:
    """What a measured step shorter than the estimate's says of the network between the nodes: of
    one nobody stated, the RDMA and TCP rates that give it; of one stated, the rate of it the run
    went at (empty where there are none to say)."""
    rates = [
        _("{gbps} Gbit/s {kind}").format(
            gbps=format_number(float(f"{n.gbps:.2g}"), 2), kind=link_name(n.kind)
        )
        for n in g.faster_network
        if n.gbps is not None
    ]
    if g.faster_network and not rates:
        return _(
            "No network between the nodes up to 3,200 Gbit/s RDMA gives a step that short by the "
            "estimate: the one-GPU step or the workload differs from the estimate's."
        )
    if not rates:
        return ""
    if f is not None and f.network_source not in (None, "assumed") and f.network_gbps is not None:
        # a network stated (or the instance's): the rate of it the run went at, by the estimate
        return _(
            "By the estimate, a step that short needs about {rates} between the nodes, not the {stated} "
            "the estimate took: its communication over that network ran faster, or overlapped more, "
            "than the estimate says (or the one-GPU step is shorter than estimated)."
        ).format(
            rates=_(" or ").join(rates),
            stated=_("{gbps:g} Gbit/s {kind}").format(
                gbps=f.network_gbps, kind=link_name(f.network_kind or "")
            ),
        )
    return _(
        "The network between the nodes was not given and the estimate assumed {assumed}: a step that "
        "short is what about {rates} between the nodes would give by the estimate. Give the network "
        "as --network-gbps and --network-kind (or --instance) to estimate on it."
    ).format(
        assumed=_("{gbps:g} Gbit/s {kind}").format(
            gbps=(f.network_gbps if f is not None else None) or 0.0,
            kind=link_name((f.network_kind if f is not None else None) or ""),
        ),
        rates=_(" or ").join(rates),
    )


def _gap_block(
    outcomes: Sequence[EstimateOutcome], unit: str, checkpoints: LaunchCheckpoints | None = None
) -> Text | None:
    """The measurement the user gave against each row it was read against (with the job's time at
    its rate), and the likely causes."""
    rows = [(o, g) for o in outcomes if (g := o.scaling_gap) is not None]
    if not rows:
        return None
    short = rate_label(unit)
    lines: list[str] = []
    for o, g in rows:
        name = f"{o.gpu} ×{o.gpu_count}"
        if g.given == "speedup" and g.measured_speedup is not None and g.estimated_speedup is not None:
            head = _(
                "Measured on {name}: {measured:.2f}× one {gpu}, against {estimated:.2f}× estimated."
            ).format(name=name, measured=g.measured_speedup, gpu=o.gpu, estimated=g.estimated_speedup)
        else:
            head = _("Measured on {name}: {measured} {unit}, against {estimated} estimated.").format(
                name=name,
                measured=_num(g.measured_throughput or 0.0),
                unit=short,
                estimated=_num(g.estimated_throughput),
            )
        head = sentences(head, _measured_job_words(o, g, checkpoints))
        f = o.scaling_figures
        basis = (
            _(" (one {gpu}'s step taken as estimated, {one})").format(
                gpu=o.gpu, one=_seconds(f.one_gpu_step_s)
            )
            if g.within_range is None and f is not None and f.one_gpu_step_s is not None
            else ""
        )
        if g.gap_s <= 0:
            lines.append(
                sentences(
                    head,
                    _(
                        "A step takes {measured}{basis}, no longer than the {estimated} estimated: nothing "
                        "to explain."
                    ).format(
                        measured=_seconds(g.measured_step_s),
                        basis=basis,
                        estimated=_seconds(g.estimated_step_s),
                    ),
                    _faster_network_words(g, f),
                )
            )
            continue
        line = sentences(
            head,
            _("A step takes {measured}{basis} against {estimated} estimated: {gap} longer.").format(
                measured=_seconds(g.measured_step_s),
                basis=basis,
                estimated=_seconds(g.estimated_step_s),
                gap=_seconds(g.gap_s),
            ),
        )
        if g.within_range:
            line = sentences(
                line, _("That is within the estimate's 80 % range: it may be the estimate's own error.")
            )
        lines.append(line)
        lines += _causes_lines(g)
    return Text("\n".join(lines))


def _causes_lines(g: ScalingGap) -> list[str]:
    """The likely causes of ``g``'s gap in the order of ``g.causes``: the sized ones, nearest the gap
    first, then those not modelled; where the sized ones together come to a small part of the gap,
    those not modelled first (any could account for all of it) and the sized ones after, as small."""
    sized = [
        # the sizing is the cause's own words: a rate for the network, a share for the others
        _("{i}. {words}. Check: {check}.").format(i=i, words=c.words, check=c.check)
        for i, c in enumerate((c for c in g.causes if c.extra_s is not None), 1)
    ]
    unmodelled = [
        _("- {words}. Check: {check}.").format(words=c.words, check=c.check)
        for c in g.causes
        if c.extra_s is None
    ]
    if not sized:
        head = _("The estimate sizes no cause of it here; possible, not modelled (no figure ranks them):")
        return [head, *unmodelled]
    together = g.sized_share_of_gap or 0.0
    if together < MOST_OF_GAP:
        return [
            _(
                "The causes the estimate sizes come to {share} of the gap at most, together: most likely "
                "it is one it does not model, each of which could account for all of it (no figure ranks "
                "them):"
            ).format(share=format_percent(together)),
            *unmodelled,
            _("Small, by the estimate's own figures (nearest the gap first):"),
            *sized,
        ]
    explained = max(c.share_of_gap or 0.0 for c in g.causes)
    tail = (
        _("None of these alone accounts for the whole gap (the largest, {share}); also possible:").format(
            share=format_percent(explained)
        )
        if explained < 1.0
        else _("Also possible, not modelled (no figure ranks them):")
    )
    return [
        _("Most likely, by the estimate's own figures (nearest the gap first):"),
        *sized,
        tail,
        *unmodelled,
    ]


#: The rows whose checkpoint writes the line under the table spells out (the rest: --json).
_CHECKPOINT_ROWS_SHOWN = 3


def _checkpoints_line(
    outcomes: Sequence[EstimateOutcome], checkpoints: LaunchCheckpoints | None
) -> Text | None:
    """What the job time column includes besides the steps: the checkpoints the launch writes (the
    plan's figures; the bandwidth its assumption, the estimate having no offer), and what it leaves
    to plan (the set-up an offer adds)."""
    rows = [(o, e.job_time_h) for o in outcomes if (e := o.estimate) is not None and e.job_time_h is not None]
    if checkpoints is None or not rows:
        return None
    each = [
        _("{gpu}: {steps} of steps + {writes} × {write} = {time} of writes, {total} in all").format(
            gpu=o.gpu if o.gpu_count == 1 else f"{o.gpu} ×{o.gpu_count}",
            steps=format_hours(h),
            writes=f"{checkpoints.writes(h):,.0f}",
            write=format_minutes(checkpoints.write_min),
            time=format_hours(checkpoints.hours(h)),
            total=format_hours(h + checkpoints.hours(h)),
        )
        for o, h in rows[:_CHECKPOINT_ROWS_SHOWN]
    ]
    if len(rows) > _CHECKPOINT_ROWS_SHOWN:
        each.append(_("each GPU's in --json"))
    if checkpoints.interval_stated:
        basis = _("the workload's checkpoint.every_min")
    elif checkpoints.interval_lengthened:
        basis = _(
            "not every {default} min: a write this slow is made at most {share} of the job's time, as plan "
            "prices it and the train.py of `gpuplan deploy` from that plan writes it, each write stopping "
            "every GPU"
        ).format(default=f"{DEFAULT_CHECKPOINT_INTERVAL_MIN:g}", share=f"{CHECKPOINT_WRITE_SHARE:.0%}")
    else:
        basis = _("as the train.py of `gpuplan deploy` writes them, each write stopping every GPU")
    line = _(
        "The job time includes the checkpoint writes: every {interval} min ({basis}), {gb} GB each at "
        "{gbps} GB/s, {write} a write ({gbps} GB/s is the disk bandwidth plan assumes where it does "
        "not know the disk, an AWS gp3 volume's baseline; the estimate has no offer): {each}. Not "
        "included: the set-up (copying the dataset to the instance), which plan adds for each offer. "
        "These are the writes off spot: on spot, plan checkpoints at Young/Daly's interval from each "
        "offer's reclaim rate instead (the workload's checkpoint.every_min where that is shorter), so "
        "there the writes, and the work a reclaim loses, differ."
    ).format(
        interval=f"{checkpoints.interval_min:g}",
        basis=basis,
        gb=f"{checkpoints.checkpoint_gb:,.2f}",
        gbps=f"{checkpoints.write_gbps:g}",
        write=format_minutes(checkpoints.write_min),
        each=_("; ").join(each),
    )
    return Text(line, style="dim")


def _memory_basis_line(outcomes: Sequence[EstimateOutcome]) -> Text | None:
    """Where the memory column's high end passes the usable memory but the verdict is not "no": the
    column is what nvidia-smi would show, the verdict what the step needs (said, so that 16.4 / 15
    beside "yes" is not read as a contradiction)."""
    needs = [
        _("{gpu} needs at most {need} GiB of {usable}").format(
            gpu=o.gpu,
            need=f"{e.memory.required_gib_high:.1f}",
            usable=usable_gib_words(e.memory.capacity_gib),
        )
        for o in outcomes
        if (e := o.estimate) is not None
        and e.peak_memory_gib_high > e.memory.capacity_gib
        and e.memory_verdict is not MemoryVerdict.DOES_NOT_FIT
    ]
    if not needs:
        return None
    line = _(
        "The memory column is what nvidia-smi would show, PyTorch's cached blocks included (it frees "
        "them and retries before running out); whether it fits compares what the step needs with the "
        "usable memory: {needs}."
    ).format(needs=_("; ").join(needs))
    return Text(line, style="dim")


def thin_margin_note(profile: Profile, outcomes: Sequence[EstimateOutcome]) -> str | None:
    """Where a configuration fits with little to spare, what to change if it runs out of memory
    all the same (:func:`gpuplan.perf.memory_margin.thin_margin_words`); None where none does. The
    table prints it under the summary, ``--json`` carries it as ``thin_memory_margin``."""
    return thin_margin_words(
        profile,
        [
            (o.gpu, e.memory.required_gib_high, e.memory.capacity_gib)
            for o in outcomes
            if (e := o.estimate) is not None
            and e.fits
            and is_thin(e.memory.required_gib_high, e.memory.capacity_gib)
        ],
    )


def _thin_margin_line(profile: Profile, outcomes: Sequence[EstimateOutcome]) -> Text | None:
    line = thin_margin_note(profile, outcomes)
    return None if line is None else Text(line, style="dim")


#: Marks a step time anchored on the user's measured step (explained under the table).
_ANCHOR_MARK = "⚓ "


def _anchor_line(outcomes: Sequence[EstimateOutcome]) -> Text | None:
    anchored = [o.estimate.anchored for o in outcomes if o.estimate is not None and o.estimate.anchored]
    if not anchored:
        return None
    a = anchored[0]
    # "Narrower" only where it is: the range of a step whose timed runs varied widely, moved to
    # another GPU, can be as wide as the model's own.
    if all(x.narrower for x in anchored):
        line = _(
            "anchored on your step measured on {gpu} ({when}, gpuplan measure: {ms}); other GPUs get it "
            "moved op class by op class, compute-bound by achieved FLOP/s, memory-bound by bandwidth "
            "(Habitat, Yu et al., USENIX ATC'21), with a narrower range"
        )
    else:
        line = _(
            "anchored on your step measured on {gpu} ({when}, gpuplan measure: {ms}); other GPUs get it "
            "moved op class by op class, compute-bound by achieved FLOP/s, memory-bound by bandwidth "
            "(Habitat, Yu et al., USENIX ATC'21); the range is not narrower than the model's on every "
            "GPU (the measured steps varied: each row's range in --json)"
        )
    line = line.format(gpu=a.measured_on, when=a.measured_at, ms=_time(a.measured_step_s))
    measured = [o.estimate.memory for o in outcomes if o.estimate is not None]
    if any(m.measured_on is not None for m in measured):
        line += _(
            "; memory: what nvidia-smi showed on {gpu}, the CUDA context moved to other GPUs, and "
            "whether it fits read on that"
        ).format(gpu=next(m.measured_on for m in measured if m.measured_on is not None))
    return Text(_ANCHOR_MARK + line, style="dim")


#: Advice rows shown per GPU on a terminal (all of them are in ``--json``).
_ADVICE_SHOWN = 3


def _advice_table(outcomes: Sequence[EstimateOutcome]) -> Table | None:
    """Where the workload does not fit: the changes that make it fit, per GPU, first as the advisor
    ranks them (those that keep the workload's method and numerics before those that change them)."""
    rows = [o for o in outcomes if o.advice]
    if not rows:
        return None
    # The advisor evaluates one change at a time: where none of them alone fits, the table says so
    # and shows the closest ones (least memory needed over usable), never "changes that make it fit".
    none_fit = [o for o in rows if not any(a.fits for a in o.advice)]
    if not none_fit:
        title = _(
            "Where it does not or may not fit: changes that make it fit (best {n} per GPU; all in --json)"
        )
    elif len(none_fit) == len(rows):
        title = _(
            "Where it does not fit: no single change makes it fit; the closest (best {n} per GPU; all in "
            "--json; changes may combine, re-estimate with them applied)"
        )
    else:
        title = _(
            "Where it does not or may not fit: changes that make it fit, or the closest where no single "
            "change does (best {n} per GPU; all in --json)"
        )
    table = Table(title=Text(title.format(n=_ADVICE_SHOWN)), header_style="bold")
    table.add_column("GPU", no_wrap=True)
    # fold, never an ellipsis: a narrow console must not cut a quoted price's date
    # ("2025-03–2026-12-02", one word) to "2025-03–2026-12…"
    table.add_column(_("change"), overflow="fold")
    # The verdict's two figures, stacked so that the column stays narrow: GiB that must fit over usable.
    # a served LLM's room is its engine's share of the GPU, not the GPU's usable memory
    served = _engine_shares(a.engine_share for o in rows for a in o.advice)
    room = {False: _("usable"), True: _("engine's share"), None: _("usable or engine's share")}[served]
    table.add_column(_("GiB needed") + "\n/ " + room, justify="right")
    table.add_column(_("step time"), justify="right")
    table.add_column(_("how derived"), overflow="fold")
    for o in rows:
        shown = [a for a in o.advice if a.fits][:_ADVICE_SHOWN] or sorted(o.advice, key=_shortfall)[
            :_ADVICE_SHOWN
        ]
        for i, a in enumerate(shown):
            t = "—" if a.step_time_factor is None else f"×{a.step_time_factor:.2f}"
            # The verdict's own figures: what must fit against what the GPU can hold.
            needs = a.required_gib if a.required_gib is not None else a.peak_memory_gib
            usable = f"\n/ {usable_gib_words(a.capacity_gib)}" if a.capacity_gib is not None else ""
            mem = Text(f"{needs:.1f}{usable}", style="" if a.fits else "red")
            table.add_row(o.gpu if i == 0 else "", Text(a.summary), mem, t, Text(a.derivation, style="dim"))
        if o.advice_left_out:
            table.add_row(
                "",
                Text(
                    ngettext(
                        "{n} more change left out: it saves under 1 % of the memory needed",
                        "{n} more changes left out: each saves under 1 % of the memory needed",
                        o.advice_left_out,
                    ).format(n=o.advice_left_out),
                    style="dim",
                ),
                "",
                "",
                "",
            )
    return table


def _scaling_table(
    outcomes: Sequence[EstimateOutcome], checkpoints: LaunchCheckpoints | None = None
) -> Table | None:
    """Where the step mostly waits on the network: the estimated changes that make it faster."""
    rows = [o for o in outcomes if o.scaling]
    if not rows:
        return None
    table = Table(
        title=Text(
            _("Where the step mostly waits on the network: changes that make it faster (each estimated)")
        ),
        header_style="bold",
    )
    table.add_column("GPU", no_wrap=True)
    table.add_column(_("change"), overflow="fold")
    table.add_column(_("job time"), justify="right")
    table.add_column(_("how derived"), overflow="fold")
    for o in rows:
        for i, a in enumerate(o.scaling):
            job_h = _job_hours(a.job_time_h, checkpoints)
            hours = "—" if job_h is None else format_hours(job_h)
            label = f"{o.gpu} ×{o.gpu_count}" if i == 0 else ""
            table.add_row(label, Text(a.summary), hours, Text(a.derivation, style="dim"))
    return table


def _engine_shares(flags: Iterable[bool]) -> bool | None:
    """Whether the memory figures a column compares with are serving engines' shares of the GPU
    (:attr:`gpuplan.perf.memory.MemoryEstimate.engine_share`): True all of them, False none (the
    GPU's usable memory, as of training), None some."""
    seen = set(flags)
    return None if len(seen) > 1 else (True in seen)


def _shortfall(a: Advice) -> float:
    """How far a change leaves the workload from fitting: GiB needed over usable (inf if unknown)."""
    needs = a.required_gib if a.required_gib is not None else a.peak_memory_gib
    return needs / a.capacity_gib if a.capacity_gib else math.inf


def _decode_table(outcomes: Sequence[EstimateOutcome]) -> Table | None:
    rows = [o for o in outcomes if o.decode is not None]
    if not rows:
        return None
    title = (
        _("LLM generation (no CUDA graphs: decode is bound by the CPU issuing kernels)")
        if any(o.decode is not None and o.decode.host_bound for o in rows)
        else _("LLM generation (decode is memory-bandwidth-bound)")
    )
    table = Table(title=Text(title), header_style="bold")
    table.add_column("GPU", no_wrap=True)
    # fold, never an ellipsis: a narrow console must not cut "needs 3 GPU(s)" to "needs …"
    # the batch column is the workload's batch decoding together, not the "max sequences" beside it
    batches = {o.decode.batch for o in rows if o.decode is not None}
    batch_col = (
        _("tokens/s at batch {n}").format(n=batches.pop()) if len(batches) == 1 else _("tokens/s (batch)")
    )
    for col in (_("max sequences"), _("tokens/s/seq"), batch_col, _("prefill tok/s")):
        table.add_column(col, justify="right", overflow="fold")
    table.add_column(_("serving"), overflow="fold")
    for o in rows:
        d = o.decode
        assert d is not None  # filtered above
        serving = ""
        room = d.max_concurrent_sequences >= 1
        if not room:
            # weights and one sequence's KV cache exceed the replica: its rates are not reachable
            serving = (
                # tensor parallelism is refused beside share_gpu: the way out is a larger share
                _(
                    "no room for one sequence beside the weights in 1/{share} of the GPU; lower "
                    "share_gpu or choose a GPU with more memory"
                ).format(share=d.replicas_per_gpu)
                if d.replicas_per_gpu > 1
                else _(
                    "no room for one sequence beside the weights on {n} GPU(s); raise tensor_parallel"
                ).format(n=d.tensor_parallel)
            )
        elif o.serving is not None:
            s = o.serving
            # the p95 at the whole load on the GPUs estimated, beside the GPUs the load needs: say
            # which GPUs it is on (it had read as the p95 of the "needs N" fleet)
            p95 = (
                _("overloaded on {n} GPU(s)").format(n=o.gpu_count)
                if s.p95_latency_s is None
                else _("p95 {time}, first token p95 {ttft}, on {n} GPU(s)").format(
                    time=_time(s.p95_latency_s),
                    ttft="—" if s.ttft_p95_s is None else _time(s.ttft_p95_s),
                    n=o.gpu_count,
                )
            )
            if d.tensor_parallel > 1:
                # Capacity is one replica's (the JSON's capacity_requests_per_s), of its TP GPUs.
                serving = _(
                    "{rate} req/s per replica of {tp} GPUs ({per_gpu} per GPU), {p95}, needs {n} GPU(s)"
                ).format(
                    rate=f"{s.capacity_requests_per_s:.3g}",
                    tp=d.tensor_parallel,
                    per_gpu=f"{s.capacity_requests_per_s / d.tensor_parallel:.3g}",
                    p95=p95,
                    n=s.gpus_needed,
                )
            elif d.replicas_per_gpu > 1:
                # Capacity is one replica's (the JSON's capacity_requests_per_s), n to a GPU.
                serving = _(
                    "{rate} req/s per replica, {share} to a GPU ({per_gpu} per GPU), {p95}, needs {n} GPU(s)"
                ).format(
                    rate=f"{s.capacity_requests_per_s:.3g}",
                    share=d.replicas_per_gpu,
                    per_gpu=f"{s.capacity_requests_per_s * d.replicas_per_gpu:.3g}",
                    p95=p95,
                    n=s.gpus_needed,
                )
            else:
                serving = _("{rate} req/s/GPU, {p95}, needs {n} GPU(s)").format(
                    rate=f"{s.capacity_requests_per_s:.3g}", p95=p95, n=s.gpus_needed
                )
        table.add_row(
            _gpus(o),
            str(d.max_concurrent_sequences),
            _num(1.0 / d.time_per_token_s) if room else "—",
            _num(d.tokens_per_s) if room else "—",
            _num(d.prefill_tokens_per_s) if room else "—",
            Text(serving),
        )
    engines = {o.decode.engine for o in rows if o.decode is not None and o.decode.engine.step_s > 0}
    if engines:
        table.caption = "\n".join(
            (
                _("{engine}: each iteration also runs {ms:g} ms of the engine's CPU work, beside the GPU's")
                if e.overlapped
                else _(
                    "{engine}: each iteration also waits {ms:g} ms for the engine's CPU work, which does "
                    "not overlap the GPU's"
                )
            ).format(engine=_(e.name), ms=round(e.step_s * 1e3, 2))
            + f" ({e.cited()})."
            for e in sorted(engines, key=lambda e: e.name)
        )
        table.caption_justify = "left"
    return table


def estimate_view(
    profile: Profile,
    outcomes: Sequence[EstimateOutcome],
    cal: Calibration,
    *,
    stack: Stack | None = None,
    levels: Sequence[LevelOutcomes] = (),
    gradient_accumulation: int = 1,
    checkpoints: LaunchCheckpoints | None = None,
) -> Group:
    """Everything ``gpuplan estimate`` prints on a terminal; ``gradient_accumulation``: the
    workload's micro-batches per optimizer step (the step the table's step time is);
    ``checkpoints``: those the job writes (``EstimateReport.checkpoints``), which its job time
    includes."""
    unit = "tokens_per_s" if profile.seq_len else "images_per_s" if profile.image_size else "samples_per_s"
    if profile.mel_window:
        bins, frames = profile.mel_window
        batch = _(
            "batch {b} × {seconds:g} s audio windows ({bins} mel bins × {frames} frames), "
            "{s} transcript tokens each"
        ).format(b=profile.batch_size, seconds=frames * FRAME_S, bins=bins, frames=frames, s=profile.seq_len)
    elif profile.seq_len:
        batch = _("batch {b} × {s} tokens").format(b=profile.batch_size, s=profile.seq_len)
    elif profile.image_size:
        batch = _("batch {b} images of {s}×{s} px").format(b=profile.batch_size, s=profile.image_size)
    else:
        batch = _("batch {b}").format(b=profile.batch_size)
    # The trace's FLOPs are one micro-batch's: an optimizer step (the step time's) runs
    # gradient_accumulation of them on each data-parallel rank (--json: each row's flops_per_step).
    if profile.task == "infer":
        words = _("{task}, {precision}, {params} M params, {batch}, {tflop} TFLOP per batch")
    elif gradient_accumulation > 1:
        words = _(
            "{task}, {precision}, {params} M params, {batch}, {tflop} TFLOP per micro-batch, "
            "{k} micro-batches per optimizer step"
        )
    else:
        words = _("{task}, {precision}, {params} M params, {batch}, {tflop} TFLOP per micro-batch")
    head = Text.assemble(
        (profile.workload_name, "bold"),
        ": "
        + words.format(
            task=_(profile.task),
            precision=profile.precision,
            params=f"{profile.params / 1e6:,.1f}",
            batch=batch,
            tflop=f"{profile.flops_per_step / 1e12:.3g}",
            k=gradient_accumulation,
        ),
    )
    summary = Widest(
        [
            partial(_summary_table, outcomes, unit, True, checkpoints),
            partial(_summary_table, outcomes, unit, False, checkpoints),
        ]
    )
    parts: list[Any] = [head, summary]
    if (line := _scaling_lines(outcomes, unit)) is not None:
        parts.append(line)
    if (line := _gap_block(outcomes, unit, checkpoints)) is not None:
        parts.append(line)
    if (line := _checkpoints_line(outcomes, checkpoints)) is not None:
        parts.append(line)
    if (line := _cannot_run_line(outcomes)) is not None:
        parts.append(line)
    if (line := _anchor_line(outcomes)) is not None:
        parts.append(line)
    if (line := _input_host_line(outcomes)) is not None:
        parts.append(line)
    if (line := _input_bound_line(outcomes)) is not None:
        parts.append(line)
    if (line := _memory_basis_line(outcomes)) is not None:
        parts.append(line)
    if (line := _thin_margin_line(profile, outcomes)) is not None:
        parts.append(line)
    decode = _decode_table(outcomes)
    if decode is not None:
        parts.append(decode)
    advice = _advice_table(outcomes)
    if advice is not None:
        parts.append(advice)
    scaling = _scaling_table(outcomes, checkpoints)
    if scaling is not None:
        parts.append(scaling)
    spread = levels_table(outcomes, levels, unit, stack, training=profile.task != "infer")
    if spread is not None:
        parts.append(spread)
    cj = _calibration_json(cal)
    if cj.lopo_median_abs_error_pct is not None:
        calib = _(
            "Calibrated {date} on {rows} measured runs from {publishers} sources (publishers' runs, "
            "and steps gpuplan measure timed on a real GPU): held out by source (each predicted by a "
            "fit on the others' runs) median error {median} %, worst {worst} %; ranges are 80 % "
            "intervals (covering {coverage} % of a left-out source's runs)."
        ).format(
            date=cj.fitted_on,
            rows=cj.heldout_rows,
            publishers=cj.publishers,
            median=f"{cj.lopo_median_abs_error_pct:.1f}",
            worst=f"{cj.lopo_worst_abs_error_pct or 0:.0f}",
            coverage=f"{100 * (cj.lopo_band_coverage or 0):.0f}",
        )
    elif cj.kfold_median_abs_error_pct is not None:
        calib = _(
            "Calibrated {date} on {rows} published runs: held-out (k-fold) median error {median} %, "
            "worst {worst} %; ranges are 80 % intervals (covering {coverage} % of held-out runs)."
        ).format(
            date=cj.fitted_on,
            rows=cj.heldout_rows,
            median=f"{cj.kfold_median_abs_error_pct:.1f}",
            worst=f"{cj.kfold_worst_abs_error_pct:.0f}",
            coverage=f"{100 * (cj.band_coverage or 0):.0f}",
        )
    elif cj.median_abs_error_pct is not None:
        calib = _(
            "Calibrated {date} on published runs: in-sample median error {median} %, worst {worst} %."
        ).format(date=cj.fitted_on, median=cj.median_abs_error_pct, worst=cj.worst_abs_error_pct)
    else:
        calib = _("Uncalibrated (literature efficiencies).")
    parts.append(
        Text(
            sentences(_("Assumes {level}.").format(level=_stack_line(profile, stack, outcomes)), calib),
            style="dim",
        )
    )
    if (line := _notes_line(outcomes)) is not None:
        parts.append(line)  # the fine print last, after the tables it qualifies
    return Group(*parts)
