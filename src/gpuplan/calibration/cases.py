"""Calibration cases from published measurements, predictions for them, and their residuals.

The cases come from ``calibration/data/calibration.csv`` (NVIDIA DeepLearningExamples, torchtune)
and ``calibration_extra.csv`` (figures quoted in that file's ``notes`` column, e.g. the TF32
figure beside an AMP row); :func:`load_cases` adds those of ``calibration_v2.csv``
(:mod:`gpuplan.calibration.publisher_cases`). Each CSV row becomes a workload spec (a plain
dict, traced by ``benchmarks/calibrate.py``) plus the GPU, count and metric to compare.

The fit itself and its held-out judgement are :mod:`gpuplan.calibration.crossval` (robust least squares,
k-fold, split-conformal band); here each row is turned into a case and predicted with the run-time
estimator (:func:`gpuplan.perf.run_estimate`), and :func:`with_band` records every residual in the
calibration that ``benchmarks/calibrate.py`` writes to ``perf/calibration.json``. The memory rows
are compared, not fitted.
"""

from __future__ import annotations

import csv
import hashlib
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from importlib import resources
from typing import Any

import numpy as np

from gpuplan.calibration.case import CalibrationCase
from gpuplan.calibration.published import (
    TORCHTUNE_ADAPTER_DTYPE,
    parse_stack,
    published_gpu_id,
    publisher_group,
    stack_workload,
)
from gpuplan.errors import DataError
from gpuplan.hardware import get_gpu
from gpuplan.i18n import N_
from gpuplan.perf.anchor import StepMeasurement
from gpuplan.perf.calibration import Calibration, CalibrationRow
from gpuplan.perf.estimate import EstimateRequest, run_estimate
from gpuplan.perf.input_pipeline import InputPipeline, image_input_pipeline
from gpuplan.perf.links import Link
from gpuplan.perf.stages.layout import ModelParallel
from gpuplan.profile.model import Profile
from gpuplan.vocab import TensorParallelPlan

__all__ = [
    "CalibrationCase",
    "case_request",
    "gpu_names_used",
    "load_cases",
    "predict",
    "with_band",
]

#: The files of the first calibration set (the v2 set is read by :mod:`gpuplan.calibration.publisher_cases`).
_V1_FILES = ("calibration.csv", "calibration_extra.csv")
_PRECISIONS = {"fp32": "fp32", "tf32": "tf32", "amp": "amp-fp16", "bf16": "bf16"}
_THROUGHPUT_METRICS = ("images_per_s", "sequences_per_s", "tokens_per_s")
_MEMORY_METRIC = "peak_mem_gib"


#: The CPUs of the machines DeepLearningExamples published its ResNet-50 training tables on, by
#: the name its rows give the GPU: hardware threads (vCPUs) of the node, two per core (SMT).
#: DGX A100: 2 × AMD EPYC 7742, 64 cores each (mlcommons/training_results_v0.7@c6640611
#: NVIDIA/systems/dgxa100_ngc20.06_pytorch.json); DGX-1: 2 × Intel Xeon E5-2698 v4, 20 cores each
#: (same repository, NVIDIA/systems/dgx1_ngc20.06_pytorch.json), read 2026-12-02.
_DGX_HOST_VCPUS = {"(DGX A100)": 2 * 64 * 2, "(DGX-1)": 2 * 20 * 2}


def _dgx_input_pipeline(row: Mapping[str, str], workload: Mapping[str, Any]) -> InputPipeline | None:
    """What decoded a DeepLearningExamples ResNet-50 training row's images: its DataLoader workers
    (``data_backend: pytorch``) on the DGX's cores, shared by the GPUs the run used (the table's
    commit, @7bdfc81d, pinned no process to a core: ``gpu_affinity`` came on 2021-11-22). None for
    any other row: the inference tables' throughput is not a wall-clock rate with its data waits
    (V100 AMP batch 256: 3,382 images/s printed beside a mean latency of 84.14 ms, i.e. 3,043)."""
    host = next((v for k, v in _DGX_HOST_VCPUS.items() if row["gpu"].endswith(k)), None)
    if host is None or row["task"] != "train" or not row["model"].startswith("resnet50"):
        return None
    stack = workload.get("stack") or {}
    return image_input_pipeline(
        workload["inputs"]["image_size"],
        float(host),
        int(row["gpu_count"]),
        kind=str(stack.get("input_pipeline", "dataloader")),
        workers=stack.get("loader_workers"),
    )


def _accumulation(notes: str) -> int:
    m = re.search(r"(?:grad(?:ient)? accumulation|accumulation)\s*(\d+)", notes, re.IGNORECASE)
    return int(m.group(1)) if m else 1


def _case(row: Mapping[str, str]) -> CalibrationCase:
    model, notes = row["model"], row["notes"]
    gpu = published_gpu_id(row["gpu"], where=f"calibration.csv row {model!r}")
    precision = _PRECISIONS[row["precision"]]
    batch = int(row["batch_size"])
    task = row["task"]
    size = row["seq_or_image"]
    seq = int(m.group(1)) if (m := re.match(r"seq(\d+)", size)) else None
    accum = _accumulation(notes)
    used, why = True, ""
    wl: dict[str, Any] = {"name": model, "task": task, "precision": precision}
    if model.startswith("resnet50"):
        # torchvision's ResNet-50 is v1.5 (stride 2 in the 3×3 conv), as NVIDIA's; SGD with momentum.
        wl |= {"model": {"preset": "resnet50"}, "inputs": {"batch_size": batch, "image_size": 224}}
        wl["optimizer"] = "sgd"
    elif model.startswith("bert-large"):
        wl |= {"model": {"preset": "bert-large"}, "inputs": {"batch_size": batch, "seq_len": seq}}
        # NVIDIA's BERT (modeling.py BertSelfAttention): matmul, softmax and dropout on the s×s
        # probabilities as separate kernels, the eager attention (its stack column cites it).
        wl["attention"] = "eager"
        # NVIDIA pretrains with LAMB (apex FusedLAMB) and fine-tunes with apex FusedAdam: one fused
        # kernel over two moment buffers, so fused AdamW stands in; once per accumulated batch.
        wl["optimizer"] = "adamw-fused"
        if "pretrain" in model:
            # run_pretraining.py pads the vocabulary to a multiple of 8 (prepare_model_and_optimizer,
            # "Padding for divisibility by 8": 30,522 → 30,528), so the MLM head's GEMMs are aligned.
            wl["model"]["pad_vocab_multiple"] = 8
        if "phase2" in model:
            used = False
            why = (
                "not fitted: 7× NVIDIA's own V100-32GB phase-2 figure (30 seq/s, same README, "
                "pytorch:19.07), far beyond the A100/V100 peak ratio of 2.5 — not a one-GPU setup we can "
                "reproduce"
            )
        elif "pretrain" in model:
            why = (
                "LAMB modelled as AdamW, optimizer once per accumulated batch; NVIDIA scores the MLM "
                "head on the masked positions only, the preset on all"
            )
        elif "finetune" in model:
            wl["task"] = "finetune"  # the preset's SQuAD span head (task: train builds the MLM head)
        elif task == "infer":
            used = False
            why = (
                "not fitted: run_squad.py times its prediction loop with two device-to-host copies and "
                "a Python result record per sequence (.cpu().tolist()) inside it; the model costs the "
                "forward pass only"
            )
    elif model.startswith("Llama-3.2-3B"):
        wl |= {"model": {"preset": "llama-3b"}, "inputs": {"batch_size": batch, "seq_len": seq}}
        wl["optimizer"] = "adamw-fused"
        if "LoRA" in model:
            wl["task"] = "finetune"
            # pytorch/torchtune@d002d45e3 recipes/configs/llama3_2/3B_lora_single_device.yaml: rank 64
            # on q_proj, v_proj, output_proj and the MLP (apply_lora_to_mlp: True); the adapters bf16
            # with the model, as torchtune builds them (TORCHTUNE_ADAPTER_DTYPE).
            targets = ["q", "v", "o", "gate", "up", "down"]
            wl["model"]["lora"] = {"rank": 64, "targets": targets, "dtype": TORCHTUNE_ADAPTER_DTYPE}
            wl["gradient_checkpointing"] = True
            wl["loss"] = "chunked"
            used = False
            why = "torch.compile and activation offloading applied on top of chunked loss: not modelled"
        else:
            wl["task"] = "finetune"
            why = "torchtune: optimizer step fused into backward and chunked loss; modelled as fused AdamW"
    else:
        raise DataError.worded(N_("calibration.csv: no workload mapping for model {model!r}"), model=model)
    if accum > 1:
        wl["gradient_accumulation"] = accum
    wl |= stack_workload(parse_stack(row.get("stack") or "", model))
    metric = row["metric"]
    if metric not in (*_THROUGHPUT_METRICS, _MEMORY_METRIC):
        raise DataError.worded(N_("calibration.csv: unknown metric {metric!r}"), metric=metric)
    return CalibrationCase(
        label=f"{model} {task} {row['precision']} bs{batch}"
        + (f"×{row['gpu_count']}gpu" if row["gpu_count"] != "1" else "")
        + f" {gpu} [{metric}]",
        workload=wl,
        gpu=gpu,
        gpu_count=int(row["gpu_count"]),
        grad_accum_steps=accum,
        metric=metric,
        published=float(row["value"]),
        used_in_fit=used,
        why=why,
        seq_len=seq,
        publisher=publisher_group(row.get("publisher") or ""),
        input_pipeline=_dgx_input_pipeline(row, wl),
    )


def _read(name: str) -> str:
    return resources.files("gpuplan.calibration").joinpath(f"data/{name}").read_text(encoding="utf-8")


def gpu_names_used() -> dict[str, str]:
    """How the first two calibration files name GPUs -> the hardware id each resolves to, in order of
    first use (what ``benchmarks/calibrate.py`` prints)."""
    rows = [row for name in _V1_FILES for row in csv.DictReader(_read(name).splitlines())]
    return {r["gpu"]: published_gpu_id(r["gpu"], where=f"{r['model']!r}") for r in rows}


def load_cases() -> tuple[tuple[CalibrationCase, ...], str]:
    """All calibration cases and the SHA-256 of the data they came from: the published rows, then
    the steps this project measured (:mod:`gpuplan.calibration.recorded_cases`)."""
    from gpuplan.calibration.publisher_cases import v2_cases
    from gpuplan.calibration.recorded_cases import recorded_cases

    texts = [_read(name) for name in _V1_FILES]
    cases = [_case(row) for text in texts for row in csv.DictReader(text.splitlines())]
    more, _, v2_text = v2_cases()
    recorded, recorded_text = recorded_cases()
    digest = hashlib.sha256("".join([*texts, v2_text, recorded_text]).encode()).hexdigest()
    return (*cases, *more, *recorded), digest


def case_request(
    case: CalibrationCase,
    profile: Profile,
    cal: Calibration | None = None,
    measured: tuple[StepMeasurement, ...] = (),
) -> EstimateRequest:
    """The estimate of ``case``'s published configuration: its GPUs, links, parallelism (data,
    tensor, pipeline), accumulation and ``torch.compile``; ``measured``: recordings of its step
    to anchor on (``gpuplan measure``)."""
    gpu = get_gpu(case.gpu)
    link = Link.for_gpus(
        gpu,
        case.gpu_count,
        gpus_per_node=case.gpus_per_node,
        network_gbit_s=case.network_gbit_s,
        network_kind=case.network_kind,  # type: ignore[arg-type]
        nvlink_board=case.nvlink_board,
    )
    return EstimateRequest(
        profile=profile,
        gpu=gpu,
        count=case.gpu_count,
        parallelism=case.parallelism,
        model_parallel=ModelParallel(
            tensor=case.tensor_parallel,
            pipeline=case.pipeline_parallel,
            virtual_stages=case.virtual_stages,
            sequence_parallel=case.sequence_parallel,
            plan=TensorParallelPlan.cast(
                case.workload.get("stack", {}).get("tensor_parallel_plan", TensorParallelPlan.SHARED_INPUT)
            ),
        ),
        link=link,
        calibration=cal,
        grad_accum_steps=case.grad_accum_steps,
        compiled=bool(case.workload.get("compile", False)),
        input_pipeline=case.input_pipeline,
        measured_steps=measured,
    )


def predict(
    case: CalibrationCase, profile: Profile, cal: Calibration, measured: tuple[StepMeasurement, ...] = ()
) -> float:
    """The model's figure for ``case`` in the case's own unit (``measured``: anchored on them).

    Throughput is the training steps' scaled by :attr:`CalibrationCase.training_share` (what else
    the publisher's clock ran over). Memory rows compare the *allocated* peak (PyTorch's
    ``max_memory_allocated``, torchtune's "peak memory active") with the traced peak — like with
    like; no context or allocator slack.
    """
    if case.metric == _MEMORY_METRIC:
        return profile.peak.total_bytes / 1024.0**3
    if case.host_overhead_us is not None:
        cal = replace(cal, host_overhead_us=case.host_overhead_us)  # the machine's own, measured
    e = run_estimate(case_request(case, profile, cal, measured))
    if case.published_flops_per_gpu_step is not None:
        return case.published_flops_per_gpu_step / e.step_time_s / 1e12
    if case.metric in ("model_tflops_per_gpu", "hardware_tflops_per_gpu"):
        # Traced FLOPs per GPU-second: attention counted full (FlopCounterMode), a checkpointed
        # step's recompute included — hardware FLOPs.
        return e.achieved_tflops
    step_s = e.step_time_s
    if case.eval_forwards_per_step and e.phases.total_s > 0:
        # The forward's share of the modelled compute (host-bound and compiled alike), per forward.
        forward_s = e.compute_time_s * e.phases.forward_s / e.phases.total_s
        step_s += case.eval_forwards_per_step * forward_s
    samples_per_s = e.samples_per_step / step_s * case.training_share
    if case.metric == "tokens_per_s":
        return samples_per_s * (profile.seq_len or 1)
    if case.metric == "tokens_per_s_per_gpu":
        return samples_per_s * (profile.seq_len or 1) / case.gpu_count
    return samples_per_s


def with_band(
    cal: Calibration,
    pairs: Sequence[tuple[CalibrationCase, Profile]],
    *,
    fitted_on: str,
    data_sha256: str,
    heldout: Mapping[str, tuple[float, float]] | None = None,
) -> Calibration:
    """``cal`` with each case's residual recorded and the time/memory bands derived from them.

    ``heldout``: by case label, the (leave-one-publisher-out, leave-one-architecture-out)
    log-errors of the cross-validation, stored with the rows so that the band can be rebuilt
    without a refit (``crossval.rebanded``).

    Bands: exp of the 90th percentile of |ln(predicted/published)| over the fitted rows (time), at
    least 1.05 — a floor for what so few rows cannot show; memory: the publisher-weighted 80th
    percentile of every claimed published peak memory's error (:mod:`gpuplan.calibration.memory_band`,
    the same floor).
    """
    from gpuplan.calibration.memory_band import grouped_memory_band, memory_residuals

    rows = tuple(
        CalibrationRow(
            label=c.label + (f" — {c.why}" if c.why else ""),
            gpu=c.gpu,
            metric=c.metric,
            published=c.published,
            predicted=predict(c, p, cal),
            used_in_fit=c.used_in_fit,
            publisher=c.publisher,
            architecture=c.architecture,
            lopo_log_error=lopo,
            loao_log_error=loao,
        )
        for c, p in pairs
        for lopo, loao in [(heldout or {}).get(c.label, (None, None))]
    )
    time_err = [abs(r.log_error) for r in rows if r.used_in_fit and r.metric != _MEMORY_METRIC]
    time_band = max(1.05, math.exp(float(np.quantile(time_err, 0.9)))) if time_err else cal.time_band
    residuals = memory_residuals(pairs, lambda c, p: run_estimate(case_request(c, p)))
    mem_band = grouped_memory_band(residuals).factor if residuals else cal.memory_band
    return replace(
        cal,
        rows=rows,
        time_band=round(time_band, 4),
        memory_band=round(mem_band, 4),
        fitted_on=fitted_on,
        data_sha256=data_sha256,
        source="benchmarks/calibrate.py on calibration/data/calibration*.csv (calibration, _extra, _v2)",
    )
