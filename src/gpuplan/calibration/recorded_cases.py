"""Steps this project measured on a real GPU with ``gpuplan measure``, as calibration cases.

``data/recorded_steps.json`` (written by ``benchmarks/recorded_rows.py`` from a recordings file of
``benchmarks/device_recordings.py``) holds one row per workload: its spec, the GPU, the median of the
timed steps. Unlike a published row, the workload *is* what ran — ``measure`` builds the model from
the spec, feeds it a synthetic batch and times the step the trace calls one (forward, loss, backward
and optimizer of one micro-batch) — so the case needs no mapping: one GPU, one micro-batch a step,
its throughput the batch over the measured step. The machine's CPU is costed as measured
(``machine.host_overhead_us``: the issue time per kernel of its host-bound steps), so that a rented
VM's CPU does not pull the fitted host overhead, which stands for the publishers' machines. The
GPU's PyTorch elementwise kernels are costed as measured too (``machine.elementwise_fraction``: the
share of its datasheet bandwidth they reached in the kernel split), and its batch norms in training
over NCHW activations (``machine.nchw_norm_fraction``): :func:`measured_shares` gives them to the
fit's start, whence they ship in ``Calibration.elementwise_fractions`` and ``nchw_norm_fractions``.

All rows of one machine and one software stack are one publisher: leave-one-publisher-out predicts
them from a fit on the published rows alone, and the published rows from a fit that holds them.
"""

from __future__ import annotations

import json
from typing import Any

from gpuplan.calibration.case import CalibrationCase
from gpuplan.calibration.published import read_data

__all__ = ["RECORDED_PUBLISHER", "measured_shares", "recorded_cases"]

#: The publisher group of the recorded rows: one machine, one stack (plain PyTorch, eager).
RECORDED_PUBLISHER = "gpuplan measure (H200 SXM, PyTorch 2.11 eager)"
_FILE = "recorded_steps.json"


def _case(row: dict[str, Any], host_overhead_us: float) -> CalibrationCase:
    spec = row["workload"]
    inputs = spec["inputs"]
    batch = int(inputs["batch_size"])
    images = "image_size" in inputs
    metric = "images_per_s" if images else "sequences_per_s"
    name, task, precision = spec["name"], spec.get("task", "train"), spec.get("precision", "fp32")
    layout = " NHWC" if (spec.get("stack") or {}).get("memory_format") == "channels-last" else ""
    return CalibrationCase(
        label=f"{name} {task} {precision} bs{batch}{layout} {row['gpu']} [measured step]",
        workload=spec,
        gpu=row["gpu"],
        gpu_count=1,
        grad_accum_steps=1,  # measure times one micro-batch with its optimizer step
        metric=metric,
        published=batch / float(row["step_s"]),
        used_in_fit=True,
        why=f"gpuplan measure, median of {row['timed_steps']} steps, {row['measured_at'][:10]}",
        seq_len=inputs.get("seq_len"),
        publisher=RECORDED_PUBLISHER,
        host_overhead_us=host_overhead_us,
    )


def recorded_cases() -> tuple[tuple[CalibrationCase, ...], str]:
    """(the cases, the file's text for the data hash)."""
    text = read_data(_FILE)
    document = json.loads(text)
    host = float(document["machine"]["host_overhead_us"])
    return tuple(_case(r, host) for r in document["rows"]), text


def measured_shares() -> dict[str, tuple[tuple[str, float], ...]]:
    """The rates the recording machine measured, as the :class:`Calibration` fields the fit starts
    from and keeps (measured facts, not parameters): ``elementwise_fractions`` (GPU id, share of its
    datasheet bandwidth PyTorch's own bandwidth-bound kernels reached), ``nchw_norm_fractions`` (the
    share batch norm in training over NCHW activations reached, its elements at 4 bytes) and
    ``misaligned_gemm_rates`` (the rate its GEMMs with leading dimensions
    not 16-byte aligned ran at, over the aligned rate)."""
    machine = json.loads(read_data(_FILE))["machine"]
    gpu = str(machine["gpu"])
    # measured only where the file holds an eager step and its compiled twin with misaligned GEMMs
    misaligned = machine.get("misaligned_gemm_rate")
    return {
        "elementwise_fractions": ((gpu, float(machine["elementwise_fraction"])),),
        "nchw_norm_fractions": ((gpu, float(machine["nchw_norm_fraction"])),),
        "misaligned_gemm_rates": ((gpu, float(misaligned)),) if misaligned is not None else (),
    }
