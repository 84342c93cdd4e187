"""The DataLoader workers train.py starts per GPU: those the plan's time assumes.

An image job's samples/s is bounded by what the host's CPUs decode (``gpuplan.perf.input_pipeline``):
the estimate takes the workload's ``stack.loader_workers`` where it gives them, else every vCPU of
the instance as one DataLoader worker (its vCPUs ÷ its GPUs per GPU), and where the instance is not
known, a typical instance of the GPU for the slow end of the range (``gpuplan.perf.typical_host``).
A launch that starts fewer workers than that decodes fewer images than were priced: by the same
model, a ViT-B/16 run on 8 × H200 (p5en.48xlarge, 192 vCPUs) takes 5.6 h with 24 workers per GPU
and 41.7 h input-bound with 2. So train.py's ``--num-workers`` defaults to the count the plan
assumed, and says where it comes from. A job that decodes no images on the CPUs (text, DALI,
synthetic input) is not bounded by its workers in the estimate: it keeps a small default.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gpuplan.deploy.spec import LaunchSpec
from gpuplan.i18n.messages import _

__all__ = ["UNPRICED_WORKERS", "PlannedWorkers", "assumed_by", "planned_workers"]

#: DataLoader workers per GPU of a job whose estimate counts none (no images decoded on the CPUs):
#: the plan gives no figure, and train.py keeps the two it has always started.
UNPRICED_WORKERS = 2


@dataclass(frozen=True, kw_only=True)
class PlannedWorkers:
    """The DataLoader workers per GPU a launch starts, and why."""

    count: int
    """Worker processes per GPU (train.py's ``--num-workers``)."""
    source: str
    """``workers`` (the workload's ``stack.loader_workers``), ``catalog`` (the instance's vCPUs),
    ``typical`` (the instance is not known: a typical one's vCPUs, as the estimate's slow end) or
    ``unpriced`` (the estimate counts none)."""
    basis: str
    """Where the count comes from, in English: train.py's comment and ``--help`` (code, the same
    in every language)."""
    vcpus_per_gpu: float | None = None
    """The vCPUs per GPU the count is taken from (``catalog``, ``typical``)."""

    def readme(self, spec: LaunchSpec) -> str:
        """The README sentence that says what the plan's time assumes ("" where it assumes none)."""
        if self.source == "unpriced":
            return ""
        if self.source == "workers":
            said = _(
                "{who} assumes {n} DataLoader workers per GPU (the workload's stack.loader_workers): "
                "train.py's `--num-workers` defaults to {n}."
            )
        elif self.source == "catalog":
            said = _(
                "{who} assumes {n} DataLoader workers per GPU, every vCPU of {instance} decoding images "
                "({vcpus:g} vCPUs ÷ {gpus} GPUs): train.py's `--num-workers` defaults to {n}. With fewer, "
                "the CPUs decode fewer images per second than that assumes, and the GPUs wait."
            )
        else:
            said = _(
                "The instance's vCPUs are not known here: train.py's `--num-workers` defaults to {n} "
                "DataLoader workers per GPU, the vCPUs per GPU of a typical {gpu} instance (what the "
                "estimate's slow end assumes). Give the machine's own count: its cores (`nproc`) ÷ its GPUs."
            )
        return said.format(
            who=assumed_by(spec, starts=True),
            n=self.count,
            instance=spec.instance_type,
            vcpus=(self.vcpus_per_gpu or 0) * spec.gpus_per_node,
            gpus=spec.gpus_per_node,
            gpu=spec.gpu or "GPU",
        )


def assumed_by(spec: LaunchSpec, *, starts: bool = False) -> str:
    """Whose figures a sentence speaks of, in the user's language: the plan's time where the launch
    is a plan's, else gpuplan's estimate of the job (a workload file deployed on GPUs the user
    named has no plan). ``starts``: the phrase opens a sentence."""
    if spec.planned:
        return _("The plan's time") if starts else _("the plan's time")
    return _("gpuplan's estimate of this job")


def _assumed_by_en(spec: LaunchSpec) -> str:
    """:func:`assumed_by` in English, for train.py (code, the same in every language)."""
    return "the plan's time" if spec.planned else "gpuplan's estimate of this job"


def planned_workers(spec: LaunchSpec) -> PlannedWorkers:
    """The DataLoader workers per GPU the plan's time of ``spec`` assumes (see the module's
    docstring). A fraction of a vCPU per GPU is rounded down (at least one worker): a worker is a
    whole process, and more of them than vCPUs would share them anyway."""
    if spec.loader_workers is not None:
        return PlannedWorkers(
            count=spec.loader_workers,
            source="workers",
            basis=f"the workload's stack.loader_workers, which {_assumed_by_en(spec)} assumes",
        )
    if not spec.decodes_images:
        return PlannedWorkers(
            count=UNPRICED_WORKERS,
            source="unpriced",
            basis=f"{_assumed_by_en(spec)} counts no DataLoader workers: no images are decoded on the CPUs",
        )
    if spec.host_vcpus is not None:
        per_gpu = spec.host_vcpus / spec.gpus_per_node
        return PlannedWorkers(
            count=max(1, math.floor(per_gpu)),
            source="catalog",
            basis=(
                f"{_assumed_by_en(spec)} assumes every vCPU of {spec.instance_type} decodes images: "
                f"{spec.host_vcpus:g} vCPUs / {spec.gpus_per_node} GPUs"
            ),
            vcpus_per_gpu=per_gpu,
        )
    from gpuplan.perf.typical_host import typical_host

    # The estimate's slow end without an instance: a typical one of the GPU and count (the median
    # over every GPU's instance types where the GPU is not named or has no priced offer).
    typical = typical_host(spec.gpu or "", spec.total_gpus)
    per_gpu = typical.vcpus_per_gpu if typical is not None else float(UNPRICED_WORKERS)
    return PlannedWorkers(
        count=max(1, math.floor(per_gpu)),
        source="typical",
        basis=(
            "the instance's vCPUs are not known: a typical instance's vCPUs per GPU, as the estimate's "
            "slow end assumes; give yours (nproc / GPUs)"
        ),
        vcpus_per_gpu=per_gpu,
    )
