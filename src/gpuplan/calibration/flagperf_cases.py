"""Calibration cases of FlagPerf's Megatron-core Llama-3 runs on H100 (``calibration_v2.csv``).

FlagPerf (FlagOpen/FlagPerf, BAAI's hardware benchmark) publishes tokens/s per GPU of Llama-3
8B and 70B pre-training with Megatron-LM core_v0.6.0 on one, two, eight and 55 nodes of 8× H100;
its launch script and per-GPU configs give every setting (quoted in each row's notes). Its own
module so that :mod:`gpuplan.calibration.publisher_cases` stays readable; the row-to-case dispatch is there.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from gpuplan.calibration.case import CalibrationCase, training_row_case, training_workload

__all__ = ["flagperf_case"]

#: Why the traced step's memory is not the FP8 rows' run's: Transformer Engine's FP8 keeps bf16
#: weights, fp32 main gradients and the distributed optimizer's sharded fp32 state as ``--bf16``
#: does, plus FP8 copies of the weights and its scaling history, while ``fp8`` is traced as
#: ``amp-bf16`` (fp32 weights and an fp32 residual stream). The bf16 rows are traced as
#: ``bf16-master``, which holds what Megatron's ``--bf16`` holds, so their memory is compared.
_MEMORY_WHY = (
    "Transformer Engine's FP8 under Megatron's --bf16 keeps bf16 weights, fp32 main gradients, a "
    "DP-sharded fp32 master copy with AdamW state and FP8 weight copies, while fp8 is traced as "
    "amp-bf16 (fp32 weights and an fp32 residual stream)"
)


def _degree(parallelism: str, name: str) -> int:
    m = re.search(rf"{name}=(\d+)", parallelism)
    return int(m.group(1)) if m else 1


def flagperf_case(row: Mapping[str, str]) -> CalibrationCase:
    """A FlagPerf Megatron-core row: Llama-3 8B/70B at 8,192 tokens, micro-batch 1, TP × PP × DP.

    The launch (``pretrain_llama3.sh``): ``--bf16`` — Megatron casts the model to bf16 and runs
    forward and backward in bf16 (weights, activations and the residual stream), accumulates and
    reduces the gradients in fp32 (``accumulate_allreduce_grads_in_fp32``, forced on for ``--bf16``)
    and steps fp32 master weights, so the step is traced as ``bf16-master``, not as autocast over
    fp32 weights (``amp-bf16`` would add fp32 residual and norm traffic and a weight cast per
    micro-batch that Megatron does not do); the distributed optimizer (fp32 master weights and
    AdamW state sharded over DP, the main gradients not: costed as ZeRO-1), sequence parallelism,
    Transformer Engine layers with flash attention, no activation recomputation, no
    torch.compile. The bf16 rows' memory is compared; the FP8 rows' is not (:data:`_MEMORY_WHY`).
    Micro-batches per step = global batch / (micro-batch × DP). The FP8 rows (Transformer Engine
    delayed scaling) are fitted with the others, their share of the fp8 peak being the
    calibration's ``fp8_factor``. One row is compared, not fitted: the 55-node row,
    whose run files are not in the repository (its global batch of 1,760 is not the script's
    hard-coded 512, which the script's own tokens/s formula also assumes) and which the publisher
    marks "for performance reference only"."""
    parallelism = row["parallelism"]
    tp, pp, dp = (_degree(parallelism, name) for name in ("TP", "PP", "DP"))
    micro = int(row["batch_size"])
    seq = int(row["seq_or_image"].removeprefix("seq"))
    global_batch = int(row["global_batch"].split()[0])
    accum = global_batch // (micro * dp)
    fp8 = row["precision"] == "fp8"
    wl = training_workload(
        row,
        precision="fp8" if fp8 else "bf16-master",
        micro_batch=micro,
        seq_len=seq,
        grad_accum=accum,
        checkpointing="none",
        attention="fused",
    )
    nics = re.search(r"(\d+)x (\d+) Gb/s InfiniBand per node", row["network"])
    network = float(int(nics.group(1)) * int(nics.group(2))) if nics else None
    why = (
        f"Megatron-core TP={tp} (sequence parallel) PP={pp} DP={dp}, {accum} micro-batch(es) of {micro} "
        "per step, no recompute; the distributed optimizer costed as ZeRO-1 (v0.6 without "
        "--overlap-grad-reduce reduces after backward: the model overlaps it with the last backward)"
    )
    if network:
        why += f"; {network:g} Gbit/s InfiniBand per node (8 × 400, per GPU ASSUMED)"
    unreproducible = "仅供性能参考" in row["notes"]
    if fp8:
        why += "; Transformer Engine FP8 (its efficiency is the fitted fp8 factor)"
    elif unreproducible:
        why += (
            "; not fitted: the run's files are not in the repository (global batch 1,760, not the "
            "script's 512) and the publisher marks it for performance reference only"
        )
    return training_row_case(
        row,
        wl,
        micro_batch=micro,
        why=why,
        network_gbit_s=network,
        grad_accum_steps=accum,
        used_in_fit=not unreproducible,
        parallelism="zero1",
        gpus_per_node=int(row["gpus_per_node"]),
        tensor_parallel=tp,
        pipeline_parallel=pp,
        sequence_parallel=tp > 1,
        memory_as_run=not fp8,
        memory_why=_MEMORY_WHY if fp8 else "",
    )
