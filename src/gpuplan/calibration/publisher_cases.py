"""Calibration cases from ``calibration/data/calibration_v2.csv``: the rows the estimator can reproduce.

A v2 row becomes a case only when everything that sets its speed is something the estimator
models: a preset with the model's exact shape, data parallelism (DDP/FSDP) with Megatron-style
tensor and pipeline parallelism where published with its micro-batch, PyTorch kernels (no
TensorRT), no NF4 base (its rows are evaluated apart, not fitted:
:mod:`gpuplan.calibration.qlora_cases`) or activation offloading. Every other
row is left out by :func:`v2_cases` with its reason (``left_out``), so the benchmark can print
them. Assumptions a case makes beyond the row are in its ``why``.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from gpuplan.calibration.case import CalibrationCase, training_row_case, training_workload
from gpuplan.calibration.column_cases import COLUMN_PUBLISHERS, column_case
from gpuplan.calibration.flagperf_cases import flagperf_case
from gpuplan.calibration.mlperf_cases import mlperf_training_case
from gpuplan.calibration.published import (
    TORCHTUNE_ADAPTER_DTYPE,
    parse_stack,
    publisher_group,
    read_data,
    stack_workload,
)

__all__ = ["v2_cases"]

_PRECISIONS = {"fp32": "fp32", "tf32": "tf32", "amp": "amp-fp16", "bf16": "bf16"}
#: ATorch's "bf16_amp": autocast bf16 over fp32 master weights (its FSDP entry script).
_ATORCH_PRECISION = "amp-bf16"
#: Why ATorch's "Mem Max allocated" is not a step's peak: its FSDP example
#: (intelligent-machine-learning/dlrover@0ada8100 atorch/examples/llama2/fsdp_llama2.py, read
#: 2026-12-02) prints ``torch.cuda.max_memory_allocated()`` after each step and never resets the
#: peak, so the figure is the most the process held since it started — the model built and wrapped
#: by FSDP before the first step included. The table bears it out: 29.8–32.6 GiB for LoRA and
#: 30.4–38.7 GiB for full fine-tuning on 8 to 64 GPUs, nearly flat while the sharded state shrinks
#: 8× (the unsharded fp32 Llama-2-7B alone is 25.1 GiB).
_ATORCH_MEMORY_WHY = (
    "the published 'Mem Max allocated' is the process's peak since start (never reset), the model's "
    "construction and FSDP wrapping included, not one step's"
)


def _rdma_gbit(network: str) -> float | None:
    """The inter-node Gbit/s from a row's ``network`` text ("800 Gb/s RDMA between nodes")."""
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
    if task in ("decode", "prefill"):
        # Scored against the inference path instead (calibration/inference_cases.py).
        return None, "decode/prefill throughput: compared with perf/inference.py, not a training step"
    if "MLPerf Training" in model:
        return mlperf_training_case(row)
    if task == "serve" or "TensorRT" in row["software"] or "MLPerf" in model:
        return None, "TensorRT / serving engine kernels, not eager PyTorch"
    if "Llama-3-405B" in model:
        why = (
            "4D parallel (TP8 × PP16 × FSDP): micro-batch, activation recomputation and the pipeline "
            "schedule are not published, so the step cannot be reproduced"
        )
        return None, why + (
            "; CP=16 (context parallelism) is not modelled" if "CP=16" in row["notes"] else ""
        )
    if "LLaMA-65B" in model:
        return None, "tensor/pipeline degrees, micro-batch and network not published"
    if "(Megatron-LM)" in model:
        return _megatron_case(row)
    if "(KempnerForge)" in model:
        case = _kempner_case(row)
        return case, case.why
    if "arXiv:2307.08691" in row["source"]:
        return _flash_attention_case(row)
    if "(OLMo-core)" in model:
        case = _olmo_core_case(row)
        return case, case.why
    if "(FlagPerf Megatron-core)" in model:
        case = flagperf_case(row)
        return case, case.why
    if row["publisher"] in COLUMN_PUBLISHERS:
        return column_case(row)
    if not row["preset"]:
        return None, "no preset with this model's exact shape"
    metric = row["metric"]
    wl: dict[str, Any] = {"name": model, "model": {"preset": row["preset"]}}
    parallelism, per_node, network, why, memory_why = "ddp", None, None, "", ""
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
        memory_why = _ATORCH_MEMORY_WHY
    elif "(torchtune)" in model:
        if "QLoRA" in model:
            # Evaluated, not fitted (the fit predates the quantized base): calibration/qlora_cases.py.
            return None, "NF4 base: evaluated apart by qlora_cases (not in the fit)"
        if "Offloading" in model or "8-bit" in model:
            # The 8-bit AdamW row of the 3B ladder is cumulative: activation offloading is under it.
            return None, "activation offloading to CPU: not modelled"
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
            # AdamW, CEWithChunkedOutputLoss, activation checkpointing on. 70B: the same commit's
            # recipes/configs/llama3_1/70B_lora.yaml, rank 16 on q_proj, k_proj, v_proj (no output
            # projection, no MLP), the same optimizer, loss and checkpointing. The adapters bf16, with
            # the model (TORCHTUNE_ADAPTER_DTYPE: the recipe builds the model under set_default_dtype).
            rank, targets = (16, ["q", "k", "v"]) if "70B" in model else (8, ["q", "v"])
            wl["model"]["lora"] = {"rank": rank, "targets": targets, "dtype": TORCHTUNE_ADAPTER_DTYPE}
            wl["activation_checkpointing"] = "full"
            wl["loss"] = "chunked"
            why = (
                "torch.compile; bf16 LoRA rank/targets, chunked loss and checkpointing as torchtune's "
                "config and recipe"
            )
        elif "8B Full" in model:
            # The same commit's 8B_full_single_device.yaml: bitsandbytes PagedAdamW8bit,
            # optimizer_in_bwd, CEWithChunkedOutputLoss, activation checkpointing on.
            wl |= {"optimizer": "paged-adamw-8bit", "optimizer_in_backward": True, "loss": "chunked"}
            wl["activation_checkpointing"] = "full"
            why = "torch.compile; paged 8-bit AdamW stepped in backward, chunked loss, as torchtune's config"
        if count > 1:
            parallelism, per_node = "fsdp", count
    elif "(timm)" in model:
        batch = int(row["batch_size"])
        wl |= {"task": task, "precision": _PRECISIONS[row["precision"]]}
        wl |= {"inputs": {"batch_size": batch, "image_size": 224}}
        if task != "infer":
            wl["optimizer"] = "sgd"
        why = "timm benchmark.py: synthetic input, SGD, " + ("NHWC" if "nhwc" in row["source"] else "NCHW")
    else:
        return None, "no workload mapping for this publisher's setup"
    label = f"{model} {task} bs{row['batch_size']}" + (f"×{count}gpu" if count > 1 else "")
    if "(timm)" in model:
        label += " NHWC" if "nhwc" in row["source"] else " NCHW"  # the one pair that differs only there
    case = training_row_case(
        row,
        wl,
        micro_batch=int(row["batch_size"]),
        why=why,
        label=f"{label} {gpu} [{metric}]",
        network_gbit_s=network,
        parallelism=parallelism,
        gpus_per_node=per_node,
        memory_as_run=not memory_why,
        memory_why=memory_why,
    )
    return case, why


def _megatron_flops(
    sequences: float, seq: int, layers: int, hidden: int, vocab: int, *, recompute: bool
) -> float:
    """FLOPs of ``sequences`` GPT sequences by Megatron-LM's formula (SC21 §5.1):
    F = 96·B·s·l·h²·(1 + s/(6h) + V/(16·l·h)) with full activation recompute, 3/4 of it (72·…)
    without — the model FLOPs FlashAttention's README reports."""
    factor = 96 if recompute else 72
    return (
        factor
        * sequences
        * seq
        * layers
        * hidden**2
        * (1 + seq / (6 * hidden) + vocab / (16 * layers * hidden))
    )


#: FlashAttention's own GPT-3 training configs for 8× A100 80GB (Dao-AILab/flash-attention,
#: training/configs/experiment/pile/: gpt3xl-flash.yaml @0b037c2d, gpt3xl-flash-8k.yaml and
#: gpt3-2.7B-flash-8k.yaml @0bf5e500, gpt3-2.7B-flash.yaml @edc7698f; read 2026-12-01): per-GPU
#: micro-batch at ``gpu_mem`` ≥ 80 and the global batch in sequences. The 2.7B 8k global batch is
#: set in a parent config that was not found: taken as 128 (1M tokens, the batch the repo's README
#: gives its 1.3B and 2.7B runs) — an ASSUMPTION. bf16 (base.yaml ``precision: bf16``), DDP with
#: ZeRO-1 (``DDPStrategyZero1``), apex fused AdamW, no activation checkpointing
#: (``mlp_checkpoint_lvl: 0``; the README: "we don't need any activation checkpointing").
_FLASH_BATCH = {
    ("1.3b", 2048): (8, 512),
    ("1.3b", 8192): (4, 128),
    ("2.7b", 2048): (4, 512),
    ("2.7b", 8192): (4, 128),
}


#: Why the FlashAttention-2 2.7B rows' memory is not compared (both sizes ran at 4 × 8k tokens per
#: 80 GB GPU; the 1.3B's is, since its fused kernels are traced: 69 GiB allocated at 8k).
_FLASH_MEMORY_WHY = {
    "2.7b": (
        "the published run cannot be the repo's config as written: at 4 × 8k tokens per GPU without "
        "checkpointing its own kernels keep ≈ 38 B per token per hidden unit per layer, 102 GB for the "
        "2.7B before weights and optimizer state, on an 80 GB GPU — how the run fitted is not published"
    ),
}


def _flash_attention_case(row: Mapping[str, str]) -> tuple[CalibrationCase | None, str]:
    """A FlashAttention-2 paper Table 1 row: GPT-3 1.3B/2.7B at 2k and 8k context on 8× A100.

    Only the FlashAttention-2 column is entered: it runs the kernels PyTorch's SDPA runs (FA2).
    The baseline ("without FlashAttention": the repo's standard attention, softmax in 16 bits) is
    left out: its micro-batch is not published and cannot be the flash configs' (at 4 × 8k the
    saved 16-bit scores alone would take 24 × 4 × 16 × 8192² × 2 B ≈ 200 GB), and the eager
    attention traced here is Hugging Face's, with an fp32 softmax. FlashAttention 1's kernels are
    not modelled. The step runs the repo's fused MLP, dropout + residual + LayerNorm and in-place
    cross-entropy kernels: the row's stack column says them, and the presets trace them as such
    (``workload/presets/fused.py``), so the 1.3B runs' memory is compared too (69 GiB allocated at
    8k, on the 80 GB it ran on).
    """
    size = row["model"].split()[0].split("-")[1].lower()
    seq = _seq(row["seq_or_image"])
    attention = row["attention"]
    if attention == "flash1":
        return None, "FlashAttention 1 kernels: not modelled (SDPA runs FlashAttention-2's)"
    if attention == "eager":
        return None, "the baseline's micro-batch is not published (the flash configs' would not fit)"
    micro, global_batch = _FLASH_BATCH[(size, seq)]
    count = int(row["gpu_count"])
    steps = global_batch // (micro * count)
    wl = training_workload(
        row,
        preset=f"gpt3-{size}",
        precision="amp-bf16",
        micro_batch=micro,
        seq_len=seq,
        grad_accum=steps,
        checkpointing="none",
        attention="fused",
    )
    # The configs pad GPT-2's vocabulary to a multiple of 8 (50,257 → 50,264: gpt3s-flash.yaml,
    # pad_vocab_size_multiple: 8, which the larger models' configs extend; Dao-AILab/flash-attention
    # @0b037c2d training/configs/experiment/pile/gpt3s-flash.yaml, read 2026-12-03).
    wl["model"]["pad_vocab_multiple"] = 8
    layers = int(row["model_shape"].split("layers=")[1].split(";")[0])
    hidden = int(row["model_shape"].split("hidden=")[1].split(";")[0])
    vocab = 50257  # the README's FLOPs formula (its own count, kept as published)
    # The repo's README ("Training speed"): the Megatron-LM formula scaled by 3/4 to model FLOPs
    # (no recompute); per GPU B = micro-batch × micro-batches (every GPU runs its own).
    flops = _megatron_flops(micro * steps, seq, layers, hidden, vocab, recompute=False)
    why = f"ZeRO-1 over {count} GPUs, {steps} micro-batch(es) of {micro} per step, FlashAttention's configs"
    label = f"{row['model']} train bs{micro}×{count}gpu seq{seq} {row['gpu']} [{row['metric']}]"
    case = training_row_case(
        row,
        wl,
        micro_batch=micro,
        why=why,
        label=label,
        grad_accum_steps=steps,
        parallelism="zero1",
        gpus_per_node=count,
        published_flops_per_gpu_step=flops,
        memory_as_run=size not in _FLASH_MEMORY_WHY,
        # Dao-AILab/flash-attention@0251105a training/configs/experiment/pile/gpt3-2.7B-flash-8k.yaml
        # (read 2026-12-01): 4 sequences per GPU when nvidia-smi shows ≥ 80 GB, mlp_checkpoint_lvl 0,
        # no activation checkpointing, residual_in_fp32. By the kernels' own save_for_backward
        # (flash_attn/ops/fused_dense.py FusedMLP at level 0 keeps x, pre_act and the GELU output;
        # flash attention q, k, v, out; each dropout + add + LayerNorm its fp32 residual and mask)
        # a layer keeps ≈ 38 B per token per hidden unit: 32 × 38 × 4 × 8192 × 2560 = 102 GB for
        # the 2.7B alone, more than the 80 GB it ran on.
        memory_why=_FLASH_MEMORY_WHY.get(size, ""),
    )
    return case, why


def _megatron_case(row: Mapping[str, str]) -> tuple[CalibrationCase | None, str]:
    """A Megatron-LM SC21 Table 1 row: GPT (GPT-2 architecture, V = 51200, s = 2048) under
    TP × PP × DP with full recompute, fp16 mixed precision, fused Adam.

    Precision ``fp16-master``: the artifact's ``CONFIG.sh`` passes ``--fp16 --loss-scale 8192``
    (NVIDIA/Megatron-LM@79a3bb6b examples/sc21/CONFIG.sh): fp16 weights and gradients, an fp32
    master copy in ``Float16OptimizerWithFloat16Params`` (megatron/optimizer/optimizer.py), and
    gradients all-reduced in fp16, since ``--accumulate-allreduce-grads-in-fp32`` is not passed
    and is off by default for ``--fp16`` (megatron/arguments.py, same commit; read 2026-12-03).

    The micro-batch and the interleaving (layers per virtual stage) are the paper's artifact
    script's (``examples/sc21/run_table_1.sh``, quoted in the row's notes); the micro-batches per
    step are ``global batch / (micro-batch × DP)``. The model is the ``megatron-gpt-<size>`` preset
    (the row's layers, hidden size and heads).
    """
    tp = int(re.search(r"TP=(\d+)", row["parallelism"]).group(1))  # type: ignore[union-attr]
    pp = int(re.search(r"PP=(\d+)", row["parallelism"]).group(1))  # type: ignore[union-attr]
    count, per_node = int(row["gpu_count"]), int(row["gpus_per_node"])
    if not row["batch_size"]:
        return None, "micro-batch not published"
    micro = int(row["batch_size"])
    dp = count // (tp * pp)
    steps = int(row["global_batch"]) // (micro * dp)
    layers = int(row["model_shape"].split("layers=")[1].split(";")[0])
    chunk = re.search(r"layers-per-virtual-pipeline-stage (\d+)", row["notes"])
    virtual = layers // pp // int(chunk.group(1)) if chunk else 1
    nics = re.search(r"(\d+)x (\d+) Gb/s HDR InfiniBand per node", row["network"])
    network = float(int(nics.group(1)) * int(nics.group(2))) if nics else None
    size = row["model"].split()[1].lower()
    wl = training_workload(
        row,
        preset=f"megatron-gpt-{size}",
        precision="fp16-master",
        micro_batch=micro,
        seq_len=_seq(row["seq_or_image"]),
        grad_accum=steps,
        checkpointing="full",
        # Megatron-LM 2021 (the SC21 artifact's commit) ran no flash attention: a 16-bit baddbmm for
        # the scores, FusedScaleMaskSoftmax, and a bmm with V, over the full s² (causal mask in-kernel).
        attention="fused-softmax",
    )
    seq, hidden, vocab = (
        _seq(row["seq_or_image"]),
        int(row["model_shape"].split("hidden=")[1].split(";")[0]),
        51200,
    )
    # Per GPU B = micro-batch × micro-batches × DP over all GPUs; full recompute.
    flops = _megatron_flops(micro * steps * dp / count, seq, layers, hidden, vocab, recompute=True)
    why = (
        f"TP={tp} PP={pp}" + (f" interleaved ×{virtual}" if virtual > 1 else "") + f" DP={dp}, "
        f"{steps} micro-batch(es) of {micro} per step; fp16 weights and gradients (all-reduced in "
        "fp16) with an fp32 master copy; Megatron's own DDP costed as PyTorch DDP; "
        "attention traced as Megatron 2021 ran it: 16-bit GEMMs over the full s² around one fused "
        "scale + mask + softmax kernel"
    )
    case = training_row_case(
        row,
        wl,
        micro_batch=micro,
        why=why,
        network_gbit_s=network,
        grad_accum_steps=steps,
        parallelism="ddp",
        gpus_per_node=per_node,
        tensor_parallel=tp,
        pipeline_parallel=pp,
        virtual_stages=virtual,
        published_flops_per_gpu_step=flops,
    )
    return case, why


def _kempner_case(row: Mapping[str, str]) -> CalibrationCase:
    """A KempnerForge H200 row: Llama-3 8B/70B in bf16 (weights, gradients and AdamW state:
    ``bf16``; fp32 master weights cannot be, as the published memory is below their 16 B/param —
    8B on one H200 80.7 GB < 8.03e9 × 16 B = 128 GB; 70B over 8 GPUs 128.5 GB < 141 GB), full
    checkpointing, fused AdamW, torch.compile, TP inside a node
    (sequence-parallel style, per the report's wording) × FSDP; gradient accumulation as the
    report's batch table gives it. The reports do not state the InfiniBand rate; the publisher's own
    launch script does (4 ConnectX-7 NDR NICs per H200 node, 400 Gbit/s each: the row's ``network``
    text, source in its notes). The multi-node rows are fitted with the rest: at that rate, with
    perfect overlap, they came out 16–40 % fast (FSDP's gathers of ~35 GB of 70B weights per
    micro-batch hidden behind compute for free); the fitted ``overlap_cost``
    (perf/stages/communication.py) is what they determine. The 2-node 70B row is compared, not
    fitted: its report calls it memory-bound (128.5 of 141 GB per GPU), a slowdown the model does
    not have.

    The nodes hold four H200 SXM on one NVLink board (the row's ``network`` text). NVSwitch comes
    only on the 8-GPU HGX baseboards (NVIDIA AI Enterprise documentation, "NVIDIA NVSwitch",
    platform support: HGX B300/B200/H200/H100/H800/A100 8-GPU baseboards,
    https://docs.nvidia.com/ai-enterprise/release-8/8.0/infra-software/vgpu/features/nvswitch.html,
    read 2026-12-02), so the four are joined directly and each GPU's 18 links are split over its
    three peers: TP=2 or FSDP=2 inside the node runs on a pair's third of the NVLink
    (``nvlink_board``)."""
    tp = int(re.search(r"TP=(\d+)", row["parallelism"]).group(1))  # type: ignore[union-attr]
    fsdp = int(re.search(r"FSDP=(\d+)", row["parallelism"]).group(1))  # type: ignore[union-attr]
    accum = int(re.search(r"grad_accum (\d+)", row["notes"]).group(1))  # type: ignore[union-attr]
    micro, seq = int(row["batch_size"]), _seq(row["seq_or_image"])
    wl = training_workload(
        row,
        precision="bf16",
        micro_batch=micro,
        seq_len=seq,
        grad_accum=accum,
        checkpointing="full",
        compile=True,
    )
    board = re.match(r"(\d+)x H200 per node, NVLink", row["network"])
    nics = re.search(r"(\d+)x (\d+) Gb/s NDR InfiniBand per node", row["network"])
    network = float(int(nics.group(1)) * int(nics.group(2))) if nics else None
    why = f"TP={tp} (sequence parallel) × FSDP={fsdp}, torch.compile"
    if int(row["nodes"]) > 1:
        # The node's four NICs together, as NCCL stripes over them (one per TP rank's FSDP group).
        why += f"; {network:g} Gbit/s InfiniBand per node" if network else "; network not stated"
    memory_bound = "memory-bound" in row["notes"]
    if memory_bound:
        why += "; not fitted: memory-bound per its report (the model has no slowdown near the limit)"
    return training_row_case(
        row,
        wl,
        micro_batch=micro,
        why=why,
        network_gbit_s=network,
        grad_accum_steps=accum,
        used_in_fit=not memory_bound,
        parallelism="fsdp" if fsdp > 1 else "ddp",
        gpus_per_node=int(row["gpus_per_node"]),
        tensor_parallel=tp,
        sequence_parallel=tp > 1,
        nvlink_board=int(board.group(1)) if board and int(board.group(1)) < 8 else None,
    )


def _olmo_core_case(row: Mapping[str, str]) -> CalibrationCase:
    """An OLMo-core README row: OLMo-2 1B/7B/13B and Llama 8B on 8× H100, tokens/s per GPU.

    The README's training scripts at the same commit (quoted in the row's notes): FSDP2 with bf16
    parameters and fp32 gradient reduction over fp32 sharded weights and AdamW state
    (``amp-bf16``), torch.compile, fused AdamW, no activation checkpointing, PyTorch SDPA,
    ``rank_microbatch_size`` sequences of 4,096 per micro-batch and the global batch in
    micro-batches per step. Eight GPUs on one node is the scripts' default launch (whether the
    README's runs used more nodes is not stated: with hybrid sharding each node runs the same
    step, so the per-GPU figure is that of one node). The FP8 rows (torchao float8 linears) are
    fitted with the others since the MLPerf BERT rows on Hopper also run fp8 GEMMs (Transformer
    Engine): their share of the fp8 peak is the calibration's ``fp8_factor``; the casts and scale
    reductions of dynamic float8 scaling are not traced."""
    count, micro, seq = int(row["gpu_count"]), int(row["batch_size"]), _seq(row["seq_or_image"])
    accum = int(re.search(r"grad accumulation (\d+)", row["parallelism"]).group(1))  # type: ignore[union-attr]
    fp8 = row["precision"] == "fp8"
    wl = training_workload(
        row,
        precision="fp8" if fp8 else "amp-bf16",
        micro_batch=micro,
        seq_len=seq,
        grad_accum=accum,
        checkpointing="none",
        compile=True,
        attention="fused",
    )
    why = (
        f"FSDP over {count} GPUs, {accum} micro-batch(es) of {micro} per step, torch.compile, "
        "no checkpointing"
    )
    if "OLMo-2" in row["model"]:
        why += "; OLMo-2's QK-norm traced as the Llama block (without it)"
    if fp8:
        why += (
            "; torchao float8 linears (their efficiency is the fitted fp8 factor; scaling casts not traced)"
        )
    return training_row_case(
        row,
        wl,
        micro_batch=micro,
        why=why,
        grad_accum_steps=accum,
        parallelism="fsdp",
        gpus_per_node=int(row["gpus_per_node"]),
    )


def _with_row_stack(case: CalibrationCase, row: Mapping[str, str]) -> CalibrationCase:
    """The case with its row's publisher (grouped: :func:`publisher_group`) and the stack its
    launch script set (``stack`` column)."""
    extra = stack_workload(parse_stack(row["stack"], case.label))
    workload = dict(case.workload)
    if "stack" in extra:
        workload["stack"] = {**workload.get("stack", {}), **extra.pop("stack")}
    return replace(case, workload=workload | extra, publisher=publisher_group(row["publisher"]))


def v2_cases() -> tuple[tuple[CalibrationCase, ...], tuple[tuple[str, str], ...], str]:
    """(cases, (row label, reason) for each row left out, the file's text for the data hash)."""
    text = read_data("calibration_v2.csv")
    cases, left = [], []
    for row in csv.DictReader(text.splitlines()):
        case, why = _case(row)
        if case is not None:
            case = _with_row_stack(case, row)
        if case is None:
            left.append((f"{row['model']} {row['gpu']}×{row['gpu_count']} [{row['metric']}]", why))
        else:
            cases.append(case)
    return tuple(cases), tuple(left), text
