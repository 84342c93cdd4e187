"""Calibration cases for the MLPerf Training rows of ``calibration_v2.csv``: compared, never fitted.

MLPerf Training's BERT is the only public, non-reserved PyTorch BERT-Large training throughput
found on Ada (L40S) and Hopper (H100, H200). Every submission runs NVIDIA's own implementation:
fused multi-head-attention kernels (fp8 attention through Transformer Engine on Hopper), packed
or unpadded sequences of the phase-2 Wikipedia set, the MLM head on the masked positions only,
distributed LAMB and CUDA graphs. None of these is a workload setting, so each row is mapped to
the nearest stock step and scored, not fitted: its error says how far the stock-PyTorch model sits
from NVIDIA's tuned code, not how good the fit is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from gpuplan.calibration.case import CalibrationCase

__all__ = ["mlperf_training_case"]

#: Tokens per sequence the step is traced at. The logs give no mean length, but the packed runs
#: say how many sequences share a 512-token row: ``average_packing_rate=2`` in the parsed
#: arguments, and the global batch is twice the rows (Dell 4× H100: 576 sequences = 4 × 72 × 2;
#: NVIDIA 8× H200: 768 = 8 × 48 × 2). Two sequences per full row is at most 256 tokens each; the
#: unpadded L40S run reads the same data. Packs that are not full make this an upper bound
#: (UNVERIFIED: the data set's mean length is not in the logs).
_TOKENS_PER_SEQUENCE = 256


def mlperf_training_case(row: Mapping[str, str]) -> tuple[CalibrationCase | None, str]:
    """(case, why) for an MLPerf Training BERT row; (None, reason) for any other MLPerf Training row."""
    if row["preset"] != "bert-large":
        return None, "MLPerf Training reference code other than BERT: not mapped"
    count, per_node = int(row["gpu_count"]), int(row["gpus_per_node"])
    sequences = int(row["global_batch"]) // count  # per GPU per step, packs unrolled
    wl: dict[str, Any] = {
        "name": row["model"],
        "model": {"preset": "bert-large"},
        "task": "train",  # BertForMaskedLM: the MLM head over every position (NVIDIA's: masked only)
        "precision": "amp-fp16",
        "inputs": {"batch_size": sequences, "seq_len": _TOKENS_PER_SEQUENCE},
        # LAMB keeps AdamW's two moments and a like per-parameter update (as cases.py's BERT rows).
        "optimizer": "adamw",
        "activation_checkpointing": "none",
        "attention": "fused",
    }
    packed = re.search(r"packed_samples=True", row["notes"]) is not None
    why = (
        f"compared, not fitted: NVIDIA's MLPerf BERT ({'packed' if packed else 'unpadded'} sequences, "
        "fused attention"
        + (", fp8 attention via Transformer Engine, CUDA graphs" if "fp8 FMHA" in row["notes"] else "")
        + f", MLM head on masked positions, distributed LAMB) traced as {sequences} stock sequences of "
        f"{_TOKENS_PER_SEQUENCE} tokens per GPU with AdamW"
    )
    case = CalibrationCase(
        label=f"{row['model']} train bs{sequences}×{count}gpu {row['gpu']} [{row['metric']}]",
        workload=wl,
        gpu=row["gpu"],
        gpu_count=count,
        grad_accum_steps=1,
        metric=row["metric"],
        published=float(row["value"]),
        used_in_fit=False,
        why=why,
        seq_len=_TOKENS_PER_SEQUENCE,
        parallelism="ddp",
        gpus_per_node=per_node,
    )
    return case, why
