"""Calibration cases from ``perf/data/calibration_v2.csv``: the rows the estimator can reproduce.

A v2 row becomes a case only when everything that sets its speed is something the estimator
models: a preset with the model's exact shape, data parallelism (DDP/FSDP, no tensor or pipeline
parallelism), eager PyTorch kernels (no TensorRT), no NF4 weights or activation offloading. Every other
row is left out by :func:`v2_cases` with its reason (``left_out``), so the benchmark can print
them. Assumptions a case makes beyond the row are in its ``why``.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping
from importlib import resources
from typing import Any

from gpuplan.perf.cases import CalibrationCase

__all__ = ["v2_cases"]

_PRECISIONS = {"fp32": "fp32", "tf32": "tf32", "amp": "amp-fp16", "bf16": "bf16"}
#: ATorch's "bf16_amp": autocast bf16 over fp32 master weights (its FSDP entry script).
_ATORCH_PRECISION = "amp-bf16"


def _rdma_gbit(network: str) -> float | None:
    """The inter-node Gbit/s from a row's ``network`` text ("800 Gb/s RDMA between nodes")."""
    import re

    m = re.search(r"(\d+(?:\.\d+)?)\s*Gb/s\s*RDMA", network)
    return float(m.group(1)) if m else None


def _seq(size: str) -> int:
    return int(size.removeprefix("seq").split()[0])


def _case(row: Mapping[str, str]) -> tuple[CalibrationCase | None, str]:
    """(case, why) or (None, reason left out)."""
    model, task = row["model"], row["task"]
    gpu, count = row["gpu"], int(row["gpu_count"])
    if row["kind"] != "throughput":
        return None, f"{row['kind']} row (not a throughput figure)"
    if task == "serve" or "TensorRT" in row["software"] or "MLPerf" in model:
        return None, "TensorRT / serving engine kernels, not eager PyTorch"
    if not row["preset"]:
        return None, "no preset with this model's exact shape"
    metric = row["metric"]
    wl: dict[str, Any] = {"name": model, "model": {"preset": row["preset"]}}
    parallelism, per_node, network, why = "ddp", None, None, ""
    if "ATorch" in model:
        # Llama-2-7B FSDP on 8–64 A100 (DGX-class, 800 Gbit/s RDMA): HFU counts the recompute,
        # as the traced FLOPs of a checkpointed step do.
        wl |= {"task": "finetune" if "LoRA" in model else "train", "precision": _ATORCH_PRECISION}
        wl |= {"inputs": {"batch_size": int(row["batch_size"]), "seq_len": _seq(row["seq_or_image"])}}
        wl |= {"optimizer": "adamw", "activation_checkpointing": "full"}
        if "LoRA" in model:
            wl["model"]["lora"] = {"rank": 16, "targets": ["q", "k", "v", "o"]}
        parallelism, per_node, network = "fsdp", int(row["gpus_per_node"]), _rdma_gbit(row["network"])
        why = (
            "HFU compared with traced FLOPs (recompute included) per GPU; LoRA r16 on q,k,v,o per its script"
        )
    elif "(torchtune)" in model:
        if "QLoRA" in model or "Offloading" in model or "8-bit" in model:
            # The 8-bit AdamW row of the 3B ladder is cumulative: activation offloading is under it.
            return None, "NF4 weights / activation offloading to CPU: not modelled"
        if "70B Full" in model:
            return None, "FSDP with CPU offload of the optimizer: not modelled"
        seq = _seq(row["seq_or_image"])
        wl |= {"task": "finetune", "precision": "bf16", "compile": True}
        wl |= {"inputs": {"batch_size": int(row["batch_size"]), "seq_len": seq}}
        wl["optimizer"] = "adamw-fused"
        ac = row["activation_checkpointing"]
        wl["activation_checkpointing"] = "none" if ac == "none" else "full"
        why = "torch.compile"
        if "Llama-3.2-3B" in model:
            # The README's "Optimization flags" ladder: each technique on top of the previous one.
            ladder = ("Chunked", "Activation Checkpointing", "Fuse optimizer")
            reached = next((i for i, step in enumerate(ladder) if step in model), -1)
            if reached >= 0:
                wl["loss"] = "chunked"
            if reached >= 2:
                wl["optimizer_in_backward"] = True
            why = "torch.compile; the ladder up to this row (chunked loss, checkpointing, step in backward)"
        if "LoRA" in model:
            # pytorch/torchtune@30b8519e (2024-09-24, the commit that published the 4090 table)
            # recipes/configs/llama3_1/8B_lora_single_device.yaml: rank 8 on q_proj, v_proj, fused
            # AdamW, CEWithChunkedOutputLoss, activation checkpointing on. 70B: rank 16 on q, k, v,
            # output (70B_lora.yaml; UNVERIFIED at that commit).
            rank, targets = (16, ["q", "k", "v", "o"]) if "70B" in model else (8, ["q", "v"])
            wl["model"]["lora"] = {"rank": rank, "targets": targets}
            wl["activation_checkpointing"] = "full"
            wl["loss"] = "chunked"
            why = "torch.compile; LoRA rank/targets, chunked loss and checkpointing as torchtune's config"
        elif "8B Full" in model:
            # The same commit's 8B_full_single_device.yaml: bitsandbytes PagedAdamW8bit,
            # optimizer_in_bwd, CEWithChunkedOutputLoss, activation checkpointing on.
            wl |= {"optimizer": "paged-adamw-8bit", "optimizer_in_backward": True, "loss": "chunked"}
            wl["activation_checkpointing"] = "full"
            why = "torch.compile; paged 8-bit AdamW stepped in backward, chunked loss, as torchtune's config"
        if count > 1:
            parallelism, per_node = "fsdp", count
    elif "(timm)" in model:
        if "NCHW" in row["notes"] and row["preset"] == "resnet50":
            return None, "CNN under AMP in NCHW layout: below the assumed software level (channels_last)"
        batch = int(row["batch_size"])
        wl |= {"task": task, "precision": _PRECISIONS[row["precision"]]}
        wl |= {"inputs": {"batch_size": batch, "image_size": 224}}
        if task != "infer":
            wl["optimizer"] = "sgd"
        why = "timm benchmark.py: synthetic input, SGD"
    else:
        return None, "no workload mapping for this publisher's setup"
    label = f"{model} {task} bs{row['batch_size']}" + (f"×{count}gpu" if count > 1 else "")
    return (
        CalibrationCase(
            label=f"{label} {gpu} [{metric}]",
            workload=wl,
            gpu=gpu,
            gpu_count=count,
            grad_accum_steps=1,
            metric=metric,
            published=float(row["value"]),
            used_in_fit=True,
            why=why,
            seq_len=wl["inputs"].get("seq_len"),
            parallelism=parallelism,
            gpus_per_node=per_node,
            network_gbit_s=network,
            network_kind="rdma" if network else None,
        ),
        why,
    )


def v2_cases() -> tuple[tuple[CalibrationCase, ...], tuple[tuple[str, str], ...], str]:
    """(cases, (row label, reason) for each row left out, the file's text for the data hash)."""
    text = resources.files("gpuplan.perf").joinpath("data/calibration_v2.csv").read_text(encoding="utf-8")
    cases, left = [], []
    for row in csv.DictReader(text.splitlines()):
        case, why = _case(row)
        if case is None:
            left.append((f"{row['model']} {row['gpu']}×{row['gpu_count']} [{row['metric']}]", why))
        else:
            cases.append(case)
    return tuple(cases), tuple(left), text
