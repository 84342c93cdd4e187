"""The published QLoRA rows of ``calibration_v2.csv`` as cases: evaluated, not fitted.

QLoRA (``model.lora.quantization: nf4``) is modelled by the trace: the frozen linear weights stored
in 4 bits, and each one's dequantization to a 16-bit copy before every matmul that reads it, one
memory-bound kernel (:data:`gpuplan.profile.model.DEQUANTIZE_OP`). These rows test it against published runs
without entering the fit (``perf/calibration.json`` is fitted on :func:`gpuplan.calibration.cases.load_cases`
alone, and these are not among them); ``benchmarks/calibrate.py`` prints them after its table.

Each row's quantization is its source config's, read at the commit the row cites:

- torchtune's ``qlora_llama3_1_8b`` (pytorch/torchtune@30b8519e, 2024-09-24,
  ``recipes/configs/llama3_1/8B_qlora_single_device.yaml``): rank 8, alpha 16, adapters on
  ``q_proj, v_proj, k_proj, output_proj`` and the MLP (``apply_lora_to_mlp: True``), not on the
  output layer, whose base stays bf16 (``_component_builders.py``: "quantize_base is not applied to
  final output_proj"); fused ``torch.optim.AdamW``, ``CEWithChunkedOutputLoss``, activation
  checkpointing on, bf16, the adapters too (``dtype: model``: the recipe builds the model under
  ``training.set_default_dtype``), ``lora_dropout: 0.0``. Every other linear layer is ``FrozenNF4Linear``
  (``torchtune/modules/low_precision/nf4_linear.py``), torchao's ``to_nf4`` with its defaults,
  ``block_size=64, scaler_block_size=256``, whose ``NF4Tensor.from_tensor`` always quantizes the
  block scalers to int8 ("Double quantization", pytorch/ao@a584e242
  ``torchao/dtypes/nf4tensor.py``, the last change before that torchtune commit): ``nf4`` with
  ``double_quantization: true``. The config says ``compile: False``; the README table it was
  measured for says "torch compile enabled" for every row, so the case compiles, as the LoRA row's.
- litgpt's ``config_hub/finetune/<model>/qlora.yaml`` (Lightning-AI/litgpt@03ffc551, 2024-08-01):
  ``quantize: bnb.nf4``, ``precision: bf16-true``. litgpt hands ``nf4`` to Lightning Fabric's
  ``BitsandbytesPrecision``, which maps it to ``_NF4Linear`` — bitsandbytes ``Linear4bit`` with
  ``quant_type="nf4", compress_statistics=False`` (``nf4-dq`` is the double-quantized one;
  Lightning-AI/pytorch-lightning ``src/lightning/fabric/plugins/precision/bitsandbytes.py``, the
  stored version d9ff9f3b): ``nf4`` without double quantization, run by bitsandbytes 0.42.0 (the
  ``bitsandbytes==0.42.0`` of litgpt's ``all`` extra in ``pyproject.toml`` at the same commit):
  ``library: bitsandbytes-0.42``. LoRA rank 32 on query and value,
  dropout 0.05 (``self.lora_dropout(x)`` before ``lora_A``, ``litgpt/lora.py``), the adapters bf16
  (``dtype: model``: the model is built inside Fabric's ``init_module``); ``lm_head_chunk_size=128``
  with ``chunked_cross_entropy`` on the 16-bit logits, the loop's ``logits`` list alive through
  backward (``loss: chunked-logits``; ``litgpt/finetune/lora.py`` and ``litgpt/utils.py`` at the
  same commit); no activation checkpointing on one device.

Read 2026-12-04.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gpuplan.calibration.case import CalibrationCase, training_row_case
from gpuplan.calibration.published import (
    TORCHTUNE_ADAPTER_DTYPE,
    load_rows,
    parse_stack,
    publisher_group,
    read_data,
    stack_workload,
)

if TYPE_CHECKING:
    from gpuplan.perf.calibration import Calibration
    from gpuplan.profile.model import Profile

__all__ = ["QLORA_PAIRS", "Evaluated", "evaluate", "qlora_cases"]

#: The same publisher's LoRA run of the same model, GPU and micro-batch for each QLoRA row whose
#: time is published (the ``model`` column of both). torchtune's README table (batch 2, packed to
#: 2048, compile on, one RTX 4090): LoRA 3,083 tokens/s, QLoRA 2,413. The configs differ in more
#: than the base's storage: the LoRA config adapts q and v, the QLoRA one q, k, v, o and the MLP —
#: both cases trace their own config's adapters, so the modelled ratio carries that difference too
#: (modelled 1.412, of which the dequantization's 44 ms of a 1.83-s step is × 1.024; the rest is
#: the five more adapted projections and their kept inputs).
QLORA_PAIRS: tuple[tuple[str, str], ...] = (
    ("Llama-3.1-8B QLoRA (torchtune)", "Llama-3.1-8B LoRA (torchtune)"),
)

#: pytorch/torchtune@30b8519e recipes/configs/llama3_1/8B_qlora_single_device.yaml (module docstring).
_TORCHTUNE_8B_QLORA = {
    "rank": 8,
    "alpha": 16,
    "targets": ["q", "k", "v", "o", "gate", "up", "down"],
    "quantization": "nf4",
    "double_quantization": True,
    "library": "torchao",
    # The adapters built in bf16 with the rest of the model (the config's ``dtype: bf16``, under
    # ``training.set_default_dtype``: TORCHTUNE_ADAPTER_DTYPE); ``lora_dropout: 0.0``.
    "dtype": TORCHTUNE_ADAPTER_DTYPE,
}

#: Lightning-AI/litgpt@03ffc551 config_hub/finetune/{llama-2-7b,llama-3-8b}/{lora,qlora}.yaml:
#: ``lora_r: 32``, ``lora_alpha: 16``, ``lora_dropout: 0.05``, ``lora_query: true``,
#: ``lora_value: true``, the rest false; the adapters built in bf16 inside Fabric's ``init_module``
#: (``precision: bf16-true``; ``litgpt/finetune/lora.py``).
_LITGPT_LORA = {"rank": 32, "alpha": 16, "targets": ["q", "v"], "dtype": "model", "dropout": 0.05}

#: What the litgpt memory cases cannot say, both LoRA and QLoRA (a peak that the run's own
#: ``torch.cuda.max_memory_allocated()`` printed after training, periodic validation included).
_LITGPT_WHY = (
    "litgpt bf16-true, micro-batch {micro} at the config's max_seq_length 512 (Alpaca2k is unpacked and "
    "padded to each batch's longest, so 512 is the longest a batch can be), no checkpointing, SDPA, "
    "bf16 adapters, LoRA dropout 0.05 on the adapters' input, the output layer and loss per 128 "
    "tokens (lm_head_chunk_size=128, the logits kept into the next step's forward, as the loop keeps "
    "its logits list); litgpt's fused q/k/v layer drops its input "
    "once for q and v together, traced once per adapted projection (a copy and a mask more per layer)"
)
_LITGPT_QLORA_WHY = (
    "; bnb.nf4 (no double quantization), the output layer quantized too (Fabric replaces every "
    "nn.Linear); bitsandbytes 0.42's MatMul4Bit keeps each layer's input on its context, which "
    "backward does not free: the previous step's are alive through the next forward with the held "
    "logits' graph; it dequantizes through fp16; bitsandbytes PagedAdamW's state is in managed "
    "memory (outside max_memory_allocated), counted here as AdamW's (the adapters' only, under 0.1 GiB)"
)


def _seq(size: str) -> int:
    return int(size.removeprefix("seq").split()[0])


def _torchtune_case(row: Mapping[str, str]) -> tuple[CalibrationCase | None, str]:
    """The torchtune README's Llama 3.1 8B QLoRA on one RTX 4090; (None, why) for the Llama 3.2 3B
    ladder's QLoRA row, which offloads activations to the CPU."""
    model = row["model"]
    if "Llama-3.2-3B" in model:
        return None, (
            "activation offloading to CPU (the README's command: enable_activation_offloading=True) "
            "is not modelled"
        )
    micro = int(row["batch_size"])
    wl: dict[str, Any] = {
        "name": model,
        "model": {"preset": row["preset"], "lora": dict(_TORCHTUNE_8B_QLORA)},
        "task": "finetune",
        "precision": "bf16",
        "compile": True,
        "inputs": {"batch_size": micro, "seq_len": _seq(row["seq_or_image"])},
        "optimizer": "adamw-fused",
        "activation_checkpointing": "full",
        "loss": "chunked",
    }
    wl |= stack_workload(parse_stack(row["stack"], model))
    why = (
        "torch.compile; nf4 with double quantization (torchao NF4), bf16 LoRA r8 on q,k,v,o and the "
        "MLP, chunked loss and checkpointing as torchtune's QLoRA config; evaluated, not fitted"
    )
    return _evaluated_case(row, wl, micro, why), why


def _evaluated_case(row: Mapping[str, str], wl: dict[str, Any], micro: int, why: str) -> CalibrationCase:
    """A published row's case, evaluated beside the fit and never in it."""
    return training_row_case(
        row,
        wl,
        micro_batch=micro,
        why=why,
        label=f"{row['model']} finetune bs{micro} {row['gpu']} [{row['metric']}]",
        used_in_fit=False,
        publisher=publisher_group(row["publisher"]),
    )


def _litgpt_case(row: Mapping[str, str]) -> tuple[CalibrationCase | None, str]:
    """A litgpt config-hub peak memory of Llama 2 7B or Llama 3 8B, LoRA or QLoRA, on one A10G."""
    model = row["model"]
    qlora = " qlora " in model
    micro = int(row["batch_size"])
    lora: dict[str, Any] = dict(_LITGPT_LORA)
    if qlora:
        # Fabric's init_module swaps torch.nn.Linear for _NF4Linear while litgpt builds the model,
        # the output layer's included (pytorch-lightning f5d82504 bitsandbytes.py lines 128-144).
        # litgpt's ``all`` extra at 03ffc551 pins ``bitsandbytes==0.42.0`` (pyproject.toml), whose
        # MatMul4Bit keeps each layer's input: the release these runs used, not today's.
        lora |= {"quantization": "nf4", "quantized_head": True, "library": "bitsandbytes-0.42"}
    wl: dict[str, Any] = {
        "name": model,
        "model": {"preset": row["preset"], "lora": lora},
        "task": "finetune",
        "precision": "bf16",
        "inputs": {"batch_size": micro, "seq_len": _seq(row["seq_or_image"])},
        "optimizer": "adamw",
        "activation_checkpointing": "none",
        "attention": "fused",
        "loss": "chunked-logits",
    }
    why = _LITGPT_WHY.format(micro=micro) + (_LITGPT_QLORA_WHY if qlora else "")
    return _evaluated_case(row, wl, micro, why), why


def _is_litgpt_llama_lora(row: Mapping[str, str]) -> bool:
    """A litgpt LoRA or QLoRA peak memory of a Llama with a preset: the QLoRA rows and the LoRA
    runs beside them in the same table."""
    return (
        row["publisher"] == "Lightning AI litgpt"
        and row["metric"] == "peak_mem_gib"
        and bool(row["preset"])
        and (" lora " in row["model"] or " qlora " in row["model"])
    )


def qlora_cases() -> tuple[tuple[CalibrationCase, ...], tuple[tuple[str, str], ...]]:
    """(cases, (row, why left out)) of the QLoRA rows and the litgpt LoRA peaks beside them.

    The torchtune LoRA row of :data:`QLORA_PAIRS` is a fitted case already
    (:func:`gpuplan.calibration.cases.load_cases`); it is not repeated here."""
    cases: list[CalibrationCase] = []
    left: list[tuple[str, str]] = []
    for row in csv.DictReader(read_data("calibration_v2.csv").splitlines()):
        if "QLoRA (torchtune)" in row["model"]:
            case, why = _torchtune_case(row)
        elif _is_litgpt_llama_lora(row):
            case, why = _litgpt_case(row)
        else:
            continue
        if case is None:
            left.append((f"{row['model']} {row['gpu']}×{row['gpu_count']} [{row['metric']}]", why))
        else:
            cases.append(case)
    return tuple(cases), tuple(left)


@dataclass(frozen=True, kw_only=True)
class Evaluated:
    """One published figure of an evaluated case against the model's."""

    label: str
    quantity: str
    """``time`` (the row's throughput metric) or ``memory`` (GiB, the estimate's term that counts
    what the publisher printed: :func:`gpuplan.calibration.memory_band.estimate_term`)."""
    published: float
    predicted: float

    @property
    def error_pct(self) -> float:
        return 100.0 * (self.predicted / self.published - 1.0)


def evaluate(
    case: CalibrationCase, profile: Profile, cal: Calibration | None = None
) -> tuple[Evaluated, ...]:
    """The case's published throughput (if any) and peak memory (if any) against the estimate's,
    with ``cal`` (default: the shipped calibration)."""
    from gpuplan.calibration.cases import case_request, predict
    from gpuplan.calibration.memory_band import MEMORY_METRIC, estimate_term
    from gpuplan.perf.calibration import load_calibration
    from gpuplan.perf.estimate import run_estimate

    cal = cal or load_calibration()
    out = []
    if case.metric != MEMORY_METRIC:
        out.append(
            Evaluated(
                label=case.label,
                quantity="time",
                published=case.published,
                predicted=predict(case, profile, cal),
            )
        )
    row = next(
        (r for r in load_rows() if r.model == case.workload["name"] and r.memory_gib is not None), None
    )
    if row is not None and row.memory_gib is not None:
        memory = run_estimate(case_request(case, profile, cal)).memory
        predicted = float(getattr(memory, estimate_term(row.memory_what)))
        out.append(
            Evaluated(label=case.label, quantity="memory", published=row.memory_gib, predicted=predicted)
        )
    return tuple(out)
