"""Decode and prefill rows of ``calibration/data/calibration_v2.csv``: the inference workload each reproduces.

A ``task: decode`` or ``task: prefill`` row that ran a PyTorch stack (eager PyTorch, torch.compile,
vLLM, SGLang) becomes an :class:`InferenceCase`: a ``task: infer`` workload with the row's model,
batch and context, estimated through the normal path (``perf.sweep.estimate_all``, which reaches
``perf.inference.decode_estimate`` for decoders) and read in the row's own unit. TensorRT-LLM rows
are left out (their kernels are not PyTorch's).

No constant of the inference model is fitted on these rows: its efficiencies come from the
training fit (``benchmarks/calibrate.py``) and the kernel counts from the trace, so every error
these cases show is out of sample.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from gpuplan.calibration.case import CalibrationCase
from gpuplan.calibration.published import read_data
from gpuplan.perf.engine_cpu import NO_ENGINE, EngineCpu, engine_cpu

if TYPE_CHECKING:
    from gpuplan.perf.calibration import Calibration
    from gpuplan.perf.inference import DecodeEstimate
    from gpuplan.profile.model import Profile

__all__ = ["InferenceCase", "InferencePrediction", "inference_cases", "predict_inference"]

Launch = Literal["graphs", "compiled", "eager"]
Phase = Literal["decode", "prefill"]

_INFERENCE_METRICS = ("output_tokens_per_s", "itl_ms", "ttft_ms")


@dataclass(frozen=True, kw_only=True)
class InferenceCase(CalibrationCase):
    """One published decode or prefill figure and the inference workload that reproduces it."""

    phase: Phase
    context_tokens: int
    """Tokens each running sequence attends over: the prompt for prefill; for decode the mean
    context over the generation (prompt + half the output) unless the row says where it was read."""
    launch: Launch
    """How the step's kernels reach the GPU: ``graphs`` (CUDA-graph replay: vLLM, SGLang,
    ``torch.compile(mode="reduce-overhead")``), ``compiled`` (Inductor kernels launched one by one
    from Python) or ``eager`` (every PyTorch op issued from the CPU)."""
    prompt_tokens: int
    output_tokens: int
    engine: EngineCpu = NO_ENGINE
    """The serving engine the row ran (vLLM, SGLang: its CPU work per step, by the version the row
    names); none for a plain generation loop (eager PyTorch, torch.compile, ``generate()``)."""
    with_prefill: bool = False
    """The published tokens/s divides the new tokens by the whole ``generate()`` call (the prompt's
    prefill included), so the prediction does too."""


@dataclass(frozen=True, kw_only=True)
class InferencePrediction:
    """The model's figure for one case, in the case's unit, and whether the configuration fits."""

    value: float
    fits: bool
    decode: DecodeEstimate


def _in_out(size: str) -> tuple[int, int]:
    prompt, output = size.removeprefix("in").split("/out")
    return int(prompt), int(output)


def _launch(software: str) -> Launch:
    text = software.lower()
    if "vllm" in text or "sglang" in text or "reduce-overhead" in text:
        return "graphs"
    return "compiled" if "torch.compile" in text else "eager"


def _case(row: dict[str, str]) -> InferenceCase | None:
    if row["task"] not in ("decode", "prefill") or row["metric"] not in _INFERENCE_METRICS:
        return None
    if "TensorRT" in row["software"] or not row["preset"]:
        return None
    prompt, output = _in_out(row["seq_or_image"])
    phase: Phase = "prefill" if row["task"] == "prefill" else "decode"
    why = f"{phase} at batch {row['batch_size']}"
    if phase == "prefill":
        ctx = prompt
    elif "last throughput" in row["notes"]:
        # SGLang's decode log read at its last line: the context is nearly prompt + output.
        ctx = prompt + output
        why += f", context {ctx} (the figure is read at the end of generation)"
    else:
        ctx = prompt + output // 2
        why += f", mean context {ctx} (prompt + half the output)"
    tp = int(row["gpu_count"]) if "TP=" in row["parallelism"] else 1
    launch = _launch(row["software"])
    served = any(name in row["software"].lower() for name in ("vllm", "sglang"))
    workload = {
        "name": row["model"],
        "task": "infer",
        "model": {"preset": row["preset"]},
        # 16-bit weights and activations: bf16 is the catalog's all-16-bit path (fp16 costs the same).
        "precision": "bf16",
        "inputs": {"batch_size": int(row["batch_size"]), "seq_len": ctx},
        "compile": "torch.compile" in row["software"],
        "attention": "eager" if row["attention"] == "eager" else "fused",
        "cuda_graphs": launch == "graphs",
        "tensor_parallel": tp,
    }
    return InferenceCase(
        label=f"{row['model']} {row['gpu']}×{row['gpu_count']} [{row['metric']}]",
        workload=workload,
        gpu=row["gpu"],
        gpu_count=int(row["gpu_count"]),
        grad_accum_steps=1,
        metric=row["metric"],
        published=float(row["value"]),
        used_in_fit=False,
        why=why + f"; kernels launched as {launch}",
        seq_len=ctx,
        tensor_parallel=tp,
        phase=phase,
        context_tokens=ctx,
        launch=launch,
        prompt_tokens=prompt,
        output_tokens=output,
        engine=engine_cpu(row["software"]) if served else NO_ENGINE,
        with_prefill="(prefill included)" in row["notes"],
    )


def inference_cases() -> tuple[InferenceCase, ...]:
    """Every decode/prefill row the inference model can reproduce, in file order."""
    text = read_data("calibration_v2.csv")
    cases = (_case(row) for row in csv.DictReader(text.splitlines()))
    return tuple(c for c in cases if c is not None)


def predict_inference(
    case: InferenceCase, profile: Profile, calibration: Calibration | None = None
) -> InferencePrediction:
    """What ``gpuplan estimate`` predicts for ``case``'s workload, in the row's unit.

    The request is built as for any workload (``perf.workload_request.request_for``) and estimated by
    ``perf.sweep.estimate_all``, whose decoder path is ``perf.inference.decode_estimate``.
    """
    from gpuplan.hardware import get_gpu
    from gpuplan.perf.sweep import estimate_all
    from gpuplan.perf.workload_request import request_for
    from gpuplan.workload import load_workload

    workload = load_workload(case.workload)
    request = request_for(workload, profile, get_gpu(case.gpu), count=case.gpu_count, calibration=calibration)
    request = request.changed(serving_engine=case.engine)
    (outcome,) = estimate_all((request,), with_advice=False)
    if outcome.decode is None or outcome.estimate is None:
        # Every case is a decoder traced for inference: no decode figure is a bug, not bad input.
        raise RuntimeError(f"{case.label}: no decode estimate ({outcome.error or 'not a decoder'})")
    dec = outcome.decode
    if case.metric == "itl_ms":
        value = dec.time_per_token_s * 1000.0
    elif case.metric == "ttft_ms":
        value = dec.prefill_s * 1000.0
    elif case.with_prefill:
        # The traced batch holds the mean context; its prefill, scaled to the prompt, then every step.
        prefill_s = dec.prefill_s * case.prompt_tokens / case.context_tokens
        batch = dec.batch
        value = batch * case.output_tokens / (prefill_s + case.output_tokens * dec.time_per_token_s)
    else:
        value = dec.tokens_per_s
    return InferencePrediction(value=value, fits=outcome.estimate.fits, decode=dec)
