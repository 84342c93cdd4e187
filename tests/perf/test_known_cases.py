"""Known facts the estimator must reproduce, on Profiles traced by the real tracer.

The Profiles are cached JSON (``fixtures/known``, written by ``fixtures/regenerate_known.py``)
because tracing a 7B model takes ~30 s.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuplan.errors import EstimateError
from gpuplan.hardware import all_gpus, get_gpu
from gpuplan.perf import EstimateRequest, advise, decode_estimate, estimate
from gpuplan.profile.model import PROFILE_SCHEMA_VERSION, Profile

KNOWN = Path(__file__).parent / "fixtures" / "known"


def _load(name: str) -> Profile:
    prof = Profile.from_json((KNOWN / f"{name}.json").read_text(encoding="utf-8"))
    assert prof.schema_version == PROFILE_SCHEMA_VERSION, "stale fixture: run fixtures/regenerate_known.py"
    return prof


def test_resnet50_fp32_bs256_does_not_fit_v100_16gb_but_bs112_does() -> None:
    v100 = get_gpu("V100-SXM2-16GB")
    assert not estimate(_load("resnet50-fp32-bs256"), v100).fits
    assert estimate(_load("resnet50-fp32-bs112"), v100).fits  # NVIDIA's own DGX-1 FP32 batch


def test_resnet50_micro_batch_advice_on_v100() -> None:
    advice = {
        a.action: a
        for a in advise(EstimateRequest(profile=_load("resnet50-fp32-bs256"), gpu=get_gpu("V100-SXM2-16GB")))
    }
    mb = advice["micro_batch"]
    assert mb.fits
    assert 64 <= 256 // int(mb.summary.split("×")[1].split()[0]) <= 128  # micro-batch between 64 and 128


def test_llama7b_full_finetune_fits_no_80gb_gpu_but_lora_does() -> None:
    full, lora = _load("llama7b-full-adamw"), _load("llama7b-lora-r16")
    eighty = [g for g in all_gpus() if g.memory_gib == 80]
    assert {g.id for g in eighty} >= {"A100-SXM4-80GB", "H100-SXM"}
    for gpu in eighty:
        assert not estimate(full, gpu).fits, gpu.id
        assert estimate(lora, gpu).fits, gpu.id


def test_llama7b_advice_includes_lora_and_sharding_that_fit() -> None:
    advice = advise(EstimateRequest(profile=_load("llama7b-full-adamw"), gpu=get_gpu("A100-SXM4-80GB")))
    fitting = {a.action for a in advice if a.fits}
    assert "lora" in fitting
    assert "fsdp" in fitting


def test_gpt2_step_flops_are_6nd_plus_attention() -> None:
    p = _load("gpt2-bs8x1024-amp-bf16")
    tokens = 8 * 1024
    six_nd = 6 * 124_439_808 * tokens  # 6.116 TFLOP
    attention = 12 * 12 * 768 * 1024 * tokens  # 12·L·d·s per token: 0.927 TFLOP
    # FlopCounterMode counts 7.154 TFLOP (backward attention recomputes: 2.5× forward)
    assert p.flops_per_step == pytest.approx(six_nd + attention, rel=0.05)


def test_fp8_workload_on_a100_is_a_one_line_error() -> None:
    from dataclasses import replace

    p = _load("gpt2-bs8x1024-amp-bf16")
    fp8 = replace(
        p,
        precision="fp8",
        ops=tuple(replace(o, dtype="float8_e4m3fn") if o.op_class == "matmul" else o for o in p.ops),
    )
    with pytest.raises(EstimateError, match="fp8 needs Ada, Hopper or Blackwell; A100-SXM4-80GB has no FP8"):
        estimate(fp8, get_gpu("A100-SXM4-80GB"))
    # FP8 GEMMs run at twice the BF16 peak: the GPU's work shrinks (the step may stay host-bound)
    assert estimate(fp8, get_gpu("H100-SXM")).phases.total_s < estimate(p, get_gpu("H100-SXM")).phases.total_s


def test_llama7b_decode_is_bandwidth_bound_and_faster_on_h100() -> None:
    p = _load("llama7b-infer-bf16")
    a100 = decode_estimate(p, get_gpu("A100-SXM4-80GB"), batch=1)
    h100 = decode_estimate(p, get_gpu("H100-SXM"), batch=1)
    # 13.5 GB of bf16 weights per token at ≤2 TB/s: at most ~150 tokens/s on an A100
    assert a100.tokens_per_s < 2039e9 / 13.4e9
    assert h100.tokens_per_s > a100.tokens_per_s
    assert a100.max_concurrent_sequences > 10


def test_advice_for_eight_gpus_keeps_the_configuration() -> None:
    # DDP replicates everything: 8 × A100-80GB still do not hold a full 7B AdamW fine-tune,
    # but FSDP over the same 8 GPUs does
    full = _load("llama7b-full-adamw")
    a100 = get_gpu("A100-SXM4-80GB")
    assert not estimate(full, a100, count=8).fits
    advice = {a.action: a for a in advise(EstimateRequest(profile=full, gpu=a100, count=8))}
    assert advice["fsdp"].fits and advice["fsdp"].gpu_count == 8
    assert advice["lora"].gpu_count == 8


def test_gpt2_s_unpadded_vocabulary_costs_on_hopper_what_the_h200_measured() -> None:
    from dataclasses import replace

    from gpuplan.perf.calibration import load_calibration

    p = _load("gpt2-bs8x1024-amp-bf16")
    cal = load_calibration()
    measured_on, rate = cal.misaligned_gemm_rates[0]
    h100 = get_gpu("H100-SXM")
    eager = estimate(p, h100, calibration=cal)
    [note] = [n for n in eager.notes if "50,257" in n]
    assert f"{rate:.0%} of the aligned rate" in note and f"on {measured_on}" in note
    # Compiled too: Inductor pads only where its own benchmark wins (the note says so).
    compiled = estimate(p, h100, calibration=cal, compiled=True)
    assert [n for n in compiled.notes if "50,257" in n] == [note] and "torch.compile" in note
    free = replace(cal, misaligned_gemm_rates=(("H200-SXM", 1.0),))
    assert estimate(p, h100, calibration=free).phases.total_s < eager.phases.total_s
    # Padded to 50,304 (model.pad_vocab_multiple: 64): nothing misaligned, nothing said.
    padded = replace(
        p,
        ops=tuple(
            replace(
                o,
                shapes=tuple(
                    (c, b, *(50304 if d == 50257 else d for d in (m, n, k))) for c, b, m, n, k in o.shapes
                ),
            )
            for o in p.ops
        ),
    )
    assert not [n for n in estimate(padded, h100, calibration=cal).notes if "not a multiple" in n]
    # Ampere keeps the fallback kernels' rate measured on Ada, and says where it comes from.
    [ampere] = [n for n in estimate(p, get_gpu("A100-SXM4-80GB"), calibration=cal).notes if "50,257" in n]
    assert "RTX 4090" in ampere
    # An architecture with neither takes the lowest rate measured, and says whose.
    [blackwell] = [n for n in estimate(p, get_gpu("B200"), calibration=cal).notes if "50,257" in n]
    assert f"the lowest measured (on {measured_on}; none on Blackwell)" in blackwell
