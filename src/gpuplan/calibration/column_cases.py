"""Calibration cases built from a ``calibration_v2.csv`` row's own columns.

For publishers whose runs are one process per GPU on one node (a single GPU, DDP or FSDP), with a
preset of the model's exact shape, every setting the workload needs is in the row: precision,
micro-batch and sequence (``batch_size``, ``seq_or_image``), gradient accumulation (``global_batch``
over micro-batch × GPUs), checkpointing, attention, and the optimizer and ``torch.compile`` from
the ``stack`` column (read from the publisher's launch script or config). What the columns cannot
say is in the model name, spelled out: a LoRA adapter (``LoRA r32 on q,v``) and, for BERT
pre-training that scores only the masked positions, their number (``MLM on 20 masked positions``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from gpuplan.calibration.case import CalibrationCase, training_row_case
from gpuplan.calibration.published import parse_stack

#: The publishers mapped here (the row's ``publisher`` column).
COLUMN_PUBLISHERS = frozenset(
    {
        "Hugging Face PEFT (method comparison)",
        "NVIDIA Transformer Engine (te_llama tutorial)",
        "Sebastian Raschka (LLMs-from-scratch)",
        "Microsoft DeepSpeed",
        "IBM Research and Hugging Face (Accelerate blog)",
    }
)

_PRECISIONS = {
    "fp32": "fp32",
    "tf32": "tf32",
    "amp": "amp-fp16",
    "amp-bf16": "amp-bf16",
    "bf16": "bf16",
    "fp16-master": "fp16-master",
    "bf16-master": "bf16-master",
}
#: The row's ``attention`` text → the workload's (FlashAttention-2 is what SDPA's flash path runs).
_ATTENTION = {"sdpa": "fused", "flash2": "fused", "eager": "eager", "fused-softmax": "fused-softmax"}
_PARALLELISM = {"single GPU": "ddp", "DDP": "ddp", "FSDP": "fsdp"}
#: Forward passes inside the publisher's timed interval, per training step: LLMs-from-scratch's
#: speed-tips script times every ``eval_freq=10`` steps and evaluates right after restarting its
#: clock (``evaluate_model`` with ``eval_iter=1``: one training and one validation batch, forward
#: only), so each interval holds 10 steps and 2 forwards (rasbt/LLMs-from-scratch@7bd26314
#: ch05/10_llm-training-speed/01_opt_single_gpu.py, ``train_model_simple_with_timing``, read
#: 2026-12-03). Not modelled: each evaluation also starts fresh iterators over both DataLoaders
#: (``num_workers=4``, not persistent), whose worker start-up the clock holds too.
_EVAL_FORWARDS_PER_STEP = {"Sebastian Raschka (LLMs-from-scratch)": 2 / 10}


def column_case(row: Mapping[str, str]) -> tuple[CalibrationCase | None, str]:
    """(case, why) for a row of a :data:`COLUMN_PUBLISHERS` publisher; (None, reason) when a
    column says something this mapping does not model."""
    parallelism = _PARALLELISM.get(row["parallelism"])
    if parallelism is None or row["nodes"] != "1":
        return None, f"parallelism {row['parallelism']!r}: not one node of DDP or FSDP"
    seq = re.match(r"seq(\d+)", row["seq_or_image"])
    if seq is None or not row["preset"]:
        return None, "not a language model row with a preset"
    stack = parse_stack(row["stack"], row["model"])
    count, micro = int(row["gpu_count"]), int(row["batch_size"])
    accum = max(1, int(row["global_batch"] or micro * count) // (micro * count))
    inputs: dict[str, Any] = {"batch_size": micro, "seq_len": int(seq.group(1))}
    masked = re.search(r"MLM on (\d+) masked positions", row["model"])
    if masked:
        inputs["masked_tokens"] = int(masked.group(1))
    model: dict[str, Any] = {"preset": row["preset"]}
    pad = re.search(r"pad_vocab=(\d+)", row["model_shape"])
    if pad:  # the training code pads the vocabulary (the row's stack_source cites where)
        model["pad_vocab_multiple"] = int(pad.group(1))
    lora = re.search(r"LoRA r(\d+) on ([a-z]+(?:,[a-z]+)*)", row["model"])
    if lora:
        model["lora"] = {"rank": int(lora.group(1)), "targets": lora.group(2).split(",")}
    wl: dict[str, Any] = {
        "name": row["model"],
        "model": model,
        "task": row["task"],
        "precision": _PRECISIONS[row["precision"]],
        "inputs": inputs,
        "optimizer": stack["optimizer"],
        "activation_checkpointing": row["activation_checkpointing"] or "none",
        "attention": _ATTENTION[row["attention"]],
        "compile": stack.get("compile") == "true",
        "gradient_accumulation": accum,
    }
    why = (
        f"{row['parallelism']}, {micro} × {inputs['seq_len']} tokens per micro-batch"
        + (f", {accum} per step" if accum > 1 else "")
        + f", {stack['optimizer']}"
        + (", torch.compile" if wl["compile"] else "")
        + (f", LoRA r{lora.group(1)} on {lora.group(2)}" if lora else "")
        + (f", MLM head on {masked.group(1)} masked positions" if masked else "")
        + (
            f", {evals:g} evaluation forward(s) per step inside the timed interval"
            if (evals := _EVAL_FORWARDS_PER_STEP.get(row["publisher"], 0.0))
            else ""
        )
    )
    case = training_row_case(
        row,
        wl,
        micro_batch=micro,
        why=why,
        label=f"{row['model']} {row['task']} bs{micro}×{count}gpu {row['gpu']} [{row['metric']}]",
        grad_accum_steps=accum,
        parallelism=parallelism,
        gpus_per_node=int(row["gpus_per_node"]),
        eval_forwards_per_step=evals,
    )
    return case, why
