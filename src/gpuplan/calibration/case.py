"""One calibration case: a published figure and the workload that reproduces it.

Its own module so that the mappings of the data files (:mod:`gpuplan.calibration.cases`,
:mod:`gpuplan.calibration.publisher_cases` and the modules it dispatches to) share the type, and
the builders of a training row's case and workload, without importing each other.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gpuplan.hardware import get_gpu
from gpuplan.perf.input_pipeline import InputPipeline
from gpuplan.vocab import StackLevel

__all__ = ["CalibrationCase", "training_row_case", "training_workload"]


@dataclass(frozen=True, kw_only=True)
class CalibrationCase:
    """One published figure and the workload that reproduces it."""

    label: str
    workload: dict[str, Any]
    """Workload spec (as YAML would give it) to trace."""
    gpu: str
    gpu_count: int
    grad_accum_steps: int
    metric: str
    """``images_per_s``, ``sequences_per_s``, ``tokens_per_s`` or ``peak_mem_gib``."""
    published: float
    used_in_fit: bool
    why: str = ""
    """Mapping assumptions, or the reason the row is compared but not fitted."""
    seq_len: int | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    parallelism: str = "ddp"
    gpus_per_node: int | None = None
    network_gbit_s: float | None = None
    """Inter-node network per node as published (None: one node, or not stated)."""
    network_kind: str | None = None
    nvlink_board: int | None = None
    """GPUs of the node's NVLink board when joined directly, without NVSwitch (None: NVSwitch, or
    no NVLink): :attr:`~gpuplan.perf.links.Link.nvlink_board`."""
    tensor_parallel: int = 1
    pipeline_parallel: int = 1
    virtual_stages: int = 1
    """Model chunks per GPU of Megatron's interleaved schedule (1: plain 1F1B)."""
    sequence_parallel: bool = False
    published_flops_per_gpu_step: float | None = None
    """FLOPs per GPU per optimizer step by the publisher's own formula, for a ``*_tflops_per_gpu``
    figure: the prediction divides these (not the traced FLOPs) by the predicted step time, so
    both sides count alike. None: the traced FLOPs are the publisher's count."""
    training_share: float = 1.0
    """The share of the published figure's timed interval that is training steps: below 1 where the
    publisher's clock also ran over work the traced step does not hold (evaluations its log marks).
    The predicted throughput is scaled by it."""
    eval_forwards_per_step: float = 0.0
    """Forward passes of the traced micro-batch (evaluations, no backward) the publisher's clock also
    ran per training step: the predicted throughput is scaled by step / (step + this × the step's
    forward time, its share of the modelled compute)."""
    memory_as_run: bool = True
    """The traced step holds what the published run held in memory. False where the run used
    memory-saving kernels the workload cannot say (then :attr:`memory_why` says which): its time is
    compared, its fit on the GPU is not."""
    memory_why: str = ""
    publisher: str = ""
    """Who published the figure, grouped by source and stack (the row's ``publisher`` through
    :func:`~gpuplan.calibration.published.publisher_group`): the group of leave-one-publisher-out."""
    host_overhead_us: float | None = None
    """CPU time to issue one kernel on the machine that ran the case, µs, where it was measured
    (this project's own recordings, :mod:`~gpuplan.calibration.recorded_cases`): the case is costed
    at it instead of the fitted :attr:`~gpuplan.perf.calibration.Calibration.host_overhead_us`,
    which its rows then do not pull. None: the fitted value."""
    input_pipeline: InputPipeline | None = None
    """The host CPUs that decoded the run's images (its DataLoader workers on the node's cores),
    where the publisher's machine is known; None: not bounded."""

    @property
    def stack_level(self) -> str:
        """``stock`` when the case runs plain PyTorch's stack (no hand-fused kernels, NCHW, no CUDA
        graphs, no torch.compile, AdamW foreach), else ``tuned`` (any of them)."""
        from gpuplan.workload import load_workload

        w = load_workload(self.workload)
        stack = w.software_stack
        return "stock" if stack.as_level() is StackLevel.STOCK and not stack.compile else "tuned"

    def __str__(self) -> str:
        return self.label

    @property
    def architecture(self) -> str:
        return get_gpu(self.gpu).architecture

    @property
    def profile_file(self) -> str:
        """File name of the case's cached trace (``tests/calibration/fixtures/profiles/``): its name and
        a hash of its workload, less the tensor-parallel plan (which changes the collectives, not the
        traced step)."""
        workload = dict(self.workload)
        stack = workload.get("stack")
        if isinstance(stack, dict) and "tensor_parallel_plan" in stack:
            rest = {k: v for k, v in stack.items() if k != "tensor_parallel_plan"}
            if rest:
                workload["stack"] = rest
            else:
                del workload["stack"]
        digest = hashlib.sha256(json.dumps(workload, sort_keys=True).encode()).hexdigest()[:16]
        name = f"{self.workload['name']}-{digest}.json"
        # A model name may hold a config's path (litgpt's "llama-2-7b/qlora.yaml"): one file, no folders.
        return name.replace(" ", "_").replace("(", "").replace(")", "").replace("/", "_")


def training_row_case(
    row: Mapping[str, str],
    workload: dict[str, Any],
    *,
    micro_batch: int,
    why: str,
    label: str | None = None,
    network_gbit_s: float | None = None,
    **fields: Any,
) -> CalibrationCase:
    """The case of a training row of ``calibration_v2.csv``: its GPU, GPU count, metric and
    published value as the row gives them, labelled ``<model> train bs<micro_batch>×<count>gpu
    <gpu> [<metric>]`` (or ``label``), its inter-node network (``network_gbit_s``, per node) RDMA.

    ``fields``: the rest of :class:`CalibrationCase`'s; unless they say otherwise the case is
    fitted, one micro-batch per optimizer step, at the workload's sequence length."""
    count = int(row["gpu_count"])
    given: dict[str, Any] = {
        "grad_accum_steps": 1,
        "used_in_fit": True,
        "seq_len": workload["inputs"].get("seq_len"),
    }
    return CalibrationCase(
        label=label or f"{row['model']} train bs{micro_batch}×{count}gpu {row['gpu']} [{row['metric']}]",
        workload=workload,
        gpu=row["gpu"],
        gpu_count=count,
        metric=row["metric"],
        published=float(row["value"]),
        why=why,
        network_gbit_s=network_gbit_s,
        network_kind="rdma" if network_gbit_s else None,
        **(given | fields),
    )


def training_workload(
    row: Mapping[str, str],
    *,
    precision: str,
    micro_batch: int,
    seq_len: int,
    grad_accum: int,
    checkpointing: str,
    preset: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """The workload spec (as YAML would give it) of a training row of ``calibration_v2.csv``: the
    row's model (``preset``, else the row's), ``micro_batch`` sequences of ``seq_len`` tokens per
    micro-batch, ``grad_accum`` of them per step, fused AdamW; ``extra``: more fields
    (``attention``, ``compile``)."""
    return {
        "name": row["model"],
        "model": {"preset": preset or row["preset"]},
        "task": "train",
        "precision": precision,
        "inputs": {"batch_size": micro_batch, "seq_len": seq_len},
        "optimizer": "adamw-fused",
        "activation_checkpointing": checkpointing,
        "gradient_accumulation": grad_accum,
        **extra,
    }
