"""The software stack in an estimate: what it assumed, in words and as JSON, and what the stock and
the tuned stack give on the same GPUs (``gpuplan estimate`` table and ``--json``)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table
from rich.text import Text

from gpuplan.documents.estimate import StackDoc, StackLevelFigures
from gpuplan.i18n import N_, _, format_number
from gpuplan.i18n.phrases import item_list
from gpuplan.perf.sweep import EstimateOutcome
from gpuplan.report.common import rate_label
from gpuplan.vocab import InputPipelineKind, MemoryFormat, OptimizerName, TensorParallelPlan
from gpuplan.workload.stack import Stack

__all__ = ["LevelOutcomes", "level_figures", "levels_table", "stack_json", "stack_words"]

#: (level name, the outcomes of the same GPU configurations on that level's stack)
LevelOutcomes = tuple[str, Sequence[EstimateOutcome]]

_LEVEL_NAMES = {
    "stock": N_("stock PyTorch"),
    "tuned": N_("tuned (NVIDIA NGC-script level)"),
}
_TP_PLAN = {
    TensorParallelPlan.SHARED_INPUT: N_(
        "tensor parallel: one gather of each block's input, shared by its projections"
    ),
    TensorParallelPlan.PER_PROJECTION: N_("tensor parallel: each projection gathers its own input"),
}
_INPUT = {
    InputPipelineKind.DALI: N_("DALI input (decoded on the GPU)"),
    InputPipelineKind.SYNTHETIC: N_("synthetic input"),
}


def stack_words(
    stack: Stack,
    *,
    images: bool,
    decode_checked: bool = True,
    decode_typical: bool = False,
    tensor_parallel: bool = False,
    training: bool = True,
) -> str:
    """The stack in one line of the user's language (``images``: say the image-only settings;
    ``tensor_parallel``: an estimate splits layers over GPUs, so say the plan's collectives;
    ``decode_checked``: False when no estimate knew its host's vCPUs, so that a DataLoader's decode
    rate bounded nothing: said, as the step is then the GPUs' alone; ``decode_typical``: no
    instance was named and a typical one's vCPUs bounded the slow end of the range; ``training``:
    False for inference, which runs no optimizer and no dropout)."""
    level = stack.as_level(graphs=training)
    parts = [_(_LEVEL_NAMES[level.value]) if level is not None else _("a custom stack")]
    if images:
        parts.append(
            _("channels-last (NHWC)")
            if stack.memory_format is MemoryFormat.CHANNELS_LAST
            else _("NCHW layout")
        )
        if stack.input_pipeline in _INPUT:
            parts.append(_(_INPUT[stack.input_pipeline]))
        elif stack.loader_workers is not None:
            parts.append(_("DataLoader input, {n} workers per GPU").format(n=stack.loader_workers))
        elif decode_typical:
            parts.append(
                _(
                    "DataLoader input, one worker per vCPU (the instance's vCPUs not known: a typical "
                    "instance's vCPUs bound the slow end, the point assumes it keeps up; give "
                    "--instance, or --vcpus for a machine of your own)"
                )
            )
        elif decode_checked:  # the default: one worker per vCPU of the instance (perf/input_pipeline.py)
            parts.append(_("DataLoader input, one worker per vCPU"))
        else:
            parts.append(
                _(
                    "DataLoader input, one worker per vCPU (its decode rate not checked: no instance "
                    "named, give --instance, or --vcpus for a machine of your own)"
                )
            )
    else:
        parts.append(
            _("fused kernels: {names}").format(names=item_list(k.value for k in stack.fused_kernels))
            if stack.fused_kernels
            else _("no hand-fused kernels")
        )
        if not stack.dropout and training:
            parts.append(_("no dropout"))
    if training:  # inference steps no optimizer
        parts.append(
            # The name alone does not say which kernel: torch.optim.AdamW picks foreach on CUDA.
            _("optimizer adamw (foreach, PyTorch's default)")
            if stack.optimizer is OptimizerName.ADAMW
            else _("optimizer {name}").format(name=stack.optimizer.value)
        )
    if tensor_parallel:
        parts.append(_(_TP_PLAN[stack.tensor_parallel_plan]))
    parts.append(_("torch.compile") if stack.compile else _("eager"))
    parts.append(_("with CUDA graphs") if stack.cuda_graphs else _("no CUDA graphs"))
    return _("; ").join(parts)


def stack_json(stack: Stack, *, training: bool = True) -> StackDoc:
    level = stack.as_level(graphs=training)
    return StackDoc(
        level=level.value if level is not None else None,
        memory_format=stack.memory_format.value,
        input_pipeline=stack.input_pipeline.value,
        loader_workers=stack.loader_workers,
        fused_kernels=[k.value for k in stack.fused_kernels],
        dropout=stack.dropout,
        tensor_parallel_plan=stack.tensor_parallel_plan.value,
        optimizer=stack.optimizer.value,
        compile=stack.compile,
        cuda_graphs=stack.cuda_graphs,
    )


def level_figures(levels: Sequence[LevelOutcomes], row: int) -> list[StackLevelFigures]:
    """The ``row``-th GPU configuration's figures on each level."""
    out = []
    for name, outcomes in levels:
        o = outcomes[row]
        e = o.estimate
        out.append(
            StackLevelFigures(
                level=name,
                step_time_s=e.step_time_s if e else None,
                throughput=e.throughput if e else None,
                peak_memory_gib=e.peak_memory_gib if e else None,
                fits=e.fits if e else None,
                memory_verdict=e.memory_verdict if e else None,
                error=o.error,
            )
        )
    return out


def _same_figures(mine: Sequence[EstimateOutcome], level: Sequence[EstimateOutcome]) -> bool:
    """Whether a level's outcomes are the workload's own (the same steps, GPU by GPU)."""
    return len(mine) == len(level) and all(
        (a.estimate is None) == (b.estimate is None)
        and (a.estimate is None or b.estimate is None or a.estimate.step_time_s == b.estimate.step_time_s)
        for a, b in zip(mine, level, strict=True)
    )


def levels_table(
    outcomes: Sequence[EstimateOutcome],
    levels: Sequence[LevelOutcomes],
    unit: str,
    stack: Stack | None,
    *,
    training: bool = True,
) -> Table | Text | None:
    """Throughput per GPU configuration on the stock and the tuned stack (and on the workload's own
    when it is neither — a compiled workload is neither, the levels run eager — or when a measured
    step anchors it), the one the estimate assumed marked.

    The level columns are the model's figures: a measured step anchors the workload's own stack
    only, so next to an anchored estimate its own figure is a column of its own, and the levels'
    figures say they are the model's (else "stock (yours)" would contradict the table above).
    Where every level gives the workload's own figures (a model of your own code at inference runs
    none of what a level changes), one line says so instead of a table of equal columns."""
    if not levels or all(o.estimate is None for o in outcomes):
        return None
    if all(_same_figures(outcomes, level_outcomes) for _name, level_outcomes in levels):
        # three equal columns say nothing: one line says why they are equal
        return Text(
            _(
                "The stock and the tuned stack give this workload the same figures: nothing they change "
                "(fused kernels, memory layout, input pipeline, AdamW kernel, a training step's CUDA "
                "graphs) changes its time or memory."
            )
        )
    anchored = any(o.estimate is not None and o.estimate.anchored is not None for o in outcomes)
    # The levels run eager: a compiled workload is neither level, whatever its other settings.
    own = (
        stack.as_level(graphs=training) if stack is not None and not anchored and not stack.compile else None
    )
    if own is not None and not _same_figures(outcomes, dict(levels).get(own.value, ())):
        own = None  # the level differs in more than the stack (the tuned level pads a vocabulary)
    short = rate_label(unit)
    table = Table(
        title=Text(_("Throughput ({unit}) by software stack").format(unit=short)),
        title_justify="left",
        header_style="bold",
        caption=Text(
            _("stock and tuned: the model's figures; your measured step anchors only your own stack"),
            style="dim",
        )
        if anchored
        else None,
        caption_justify="left",
    )
    table.add_column("GPU", no_wrap=True)
    if own is None:
        # ⚓: the workload's own figures anchored on its measured step (explained above the table)
        table.add_column(_("yours") + (" ⚓" if anchored else ""), justify="right")
    for name, _outcomes in levels:
        label = _("stock") if name == "stock" else _("tuned")
        if own is not None and own.value == name:
            label = _("{level} (yours)").format(level=label)
        table.add_column(label, justify="right")
    for i, o in enumerate(outcomes):
        if o.estimate is None:
            continue
        cells = [format_number(o.estimate.throughput, 3)] if own is None else []
        for _name, level_outcomes in levels:
            e = level_outcomes[i].estimate
            cells.append("—" if e is None else format_number(e.throughput, 3))
        name = o.gpu if o.gpu_count == 1 else f"{o.gpu} ×{o.gpu_count}"
        table.add_row(name, *cells)
    return table
