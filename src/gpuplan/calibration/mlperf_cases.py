"""Calibration cases for the MLPerf Training BERT rows of ``calibration_v2.csv``.

MLPerf Training's BERT is the only public, non-reserved PyTorch BERT-Large pre-training throughput
on Ada (L4, L40, L40S) and Hopper (H100, H200), published by many submitters who each ran NVIDIA's
implementation on their own machines. Its stack is printed in each run's log (the parsed
arguments) and is what a workload now says: fused multi-head attention (the fused attention of the
preset), the GEMM + GeLU and dropout + residual-add kernels (``stack.fused_kernels``), the MLM head
on the masked positions only (``inputs.masked_tokens``: NVIDIA's ``dense_seq_output``), distributed
LAMB (an optimizer sharded over the GPUs: ZeRO-1 with fused AdamW standing in for LAMB, which keeps
the same two moments), gradient accumulation where a step holds more than one micro-batch, CUDA
graphs where the log says ``use_cuda_graph=True`` (the row's stack column), and on Hopper the
encoder's GEMMs in fp8 through Transformer Engine (precision ``fp8``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from gpuplan.calibration.case import CalibrationCase, training_row_case

__all__ = ["mlperf_training_case"]

#: Masked positions the MLM head scores per traced sequence: ``max_predictions_per_seq`` = 76 per
#: 512-token row (15 % of it, BERT's masking rate), so 15 % of the 256 tokens traced: 38.
_MASKED_PER_SEQUENCE = 38

#: Tokens per sequence the step is traced at. What the published throughput counts, settled from
#: the logs (mlcommons/training_results_v3.0, _v3.1, _v4.0, each row's ``result_0.txt``, read
#: 2026-12-02): the final ``tracked_stats`` throughput is ``train_samples`` over the run's wall
#: time (``run_stop`` − ``run_start``), to the decimal in all 18 logs — sequences, not packed rows
#: (NVIDIA's H200 log: 2,398,552 samples in 3,125 steps of 8 × 48 rows, 1.999 sequences per
#: 512-token row; its ``global_batch_size`` 768 = 8 × 48 × ``average_packing_rate`` 2). Their mean
#: length: at 512 tokens over half of the Wikipedia pre-training set is padding (Krell, Kosec,
#: Perez, Fitzgibbon, "Efficient Sequence Packing without Cross-contamination", arXiv:2107.02027,
#: abstract), so two sequences fill a row, 256 tokens each at most; the unpadded runs read the same
#: data. The wall time includes the run's evaluations (every ~150,000 samples, 10,000 sequences
#: each): NVIDIA's run_pretraining.py (e.g. training_results_v4.0 Dell/benchmarks/bert/
#: implementations/pytorch/run_pretraining.py, lines 1622 and 2033–2034) starts
#: ``throughput_measure_time`` before the training loop and divides the samples by all of it.
_TOKENS_PER_SEQUENCE = 256

#: In a row's notes: the evaluations' total time and the run's, read from its log's
#: ``eval_start``/``eval_stop`` and ``run_start``/``run_stop`` (1.7–7.5 % of the run in the eleven
#: logs that mark them). The v3.0 logs and Azure's v3.1 one do not mark their evaluations: their
#: share is unknown and left at none (those figures are that much low against the model's).
_EVALUATIONS = re.compile(r"evaluations took ([\d.]+) s of the run's ([\d.]+) s")


def mlperf_training_case(row: Mapping[str, str]) -> tuple[CalibrationCase | None, str]:
    """(case, why) for an MLPerf Training BERT row; (None, reason) for any other MLPerf Training row."""
    if row["preset"] != "bert-large":
        return None, "MLPerf Training reference code other than BERT: not mapped"
    count, per_node = int(row["gpu_count"]), int(row["gpus_per_node"])
    per_step = int(row["global_batch"]) // count  # sequences per GPU per optimizer step, packs unrolled
    packed = "packed" in row["seq_or_image"]
    # The row's batch is the log's train_batch_size: one micro-batch, in packed rows of
    # ``average_packing_rate`` 2 sequences where packed; a step of more is gradient accumulation
    # (the log's gradient_accumulation_steps, e.g. xFusion's v3.1 L4 and 8× L40 runs: 2).
    sequences = int(row["batch_size"]) * (2 if packed else 1)
    accum = per_step // sequences
    fp8 = row["precision"] == "fp8"
    wl: dict[str, Any] = {
        "name": row["model"],
        # NVIDIA's run_pretraining.py pads the vocabulary to a multiple of 8 (30,522 → 30,528:
        # prepare_model_and_optimizer, "Padding for divisibility by 8"; mlcommons/training_results_v0.7
        # @c6640611 NVIDIA/benchmarks/bert/implementations/pytorch/run_pretraining.py).
        "model": {"preset": "bert-large", "pad_vocab_multiple": 8},
        "task": "train",
        # Transformer Engine's fp8 GEMMs over fp16 AMP on Hopper (use_transformer_engine2).
        "precision": "fp8" if fp8 else "amp-fp16",
        "inputs": {
            "batch_size": sequences,
            "seq_len": _TOKENS_PER_SEQUENCE,
            "masked_tokens": _MASKED_PER_SEQUENCE,
        },
        # LAMB keeps AdamW's two moments and a like per-parameter update (as cases.py's BERT rows).
        "optimizer": "adamw-fused",
        "activation_checkpointing": "none",
        "attention": "fused",
    }
    if accum > 1:
        wl["gradient_accumulation"] = accum  # only then: the other runs keep their cached traces
    why = (
        f"NVIDIA's MLPerf BERT ({'packed' if packed else 'unpadded'} sequences) as {sequences} sequences "
        f"of {_TOKENS_PER_SEQUENCE} tokens per GPU"
        + (f", {accum} micro-batches per step" if accum > 1 else "")
        + f", MLM head on {_MASKED_PER_SEQUENCE} masked positions, "
        "distributed LAMB as ZeRO-1 fused AdamW" + (", fp8 GEMMs (Transformer Engine)" if fp8 else "")
    )
    share = 1.0
    evals = _EVALUATIONS.search(row["notes"])
    if evals:
        share = 1.0 - float(evals.group(1)) / float(evals.group(2))
        why += f"; {100 * (1 - share):.1f} % of the timed run is evaluation (its log)"
    case = training_row_case(
        row,
        wl,
        micro_batch=sequences,
        why=why,
        grad_accum_steps=accum,
        # NB: ZeRO-1 overlaps a reduce-scatter of the traced (fp32) gradients with backward; the logs
        # say otherwise: dwu_overlap_reductions=False (e.g. training_results_v4.0 Dell R760xax4L40S
        # and Fujitsu PRIMERGY-CDI-L40Sx16 result_0.txt), and apex's DistributedFusedLAMB reduces
        # fp16 flat gradients (apex/contrib/optimizers/distributed_fused_lamb.py: _flat_grads
        # float16) after backward, then all-gathers fp16 parameters. Costed so, 4× L40S on PCIe 4.0
        # expose 45 ms of collectives a step instead of 53: the L40S rows' over-prediction (+66 %,
        # +40 %) is not their communication (the 4× A100 PCIe rows on the same bus are within 4 %).
        parallelism="zero1",
        gpus_per_node=per_node,
        training_share=share,
    )
    return case, why
