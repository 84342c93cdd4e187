"""A chunked-logits step's logits, held through the optimizer step into the next forward, are held
logits at an optimizer-step peak, not the step's activations: the peak is still the optimizer's,
and a smaller micro-batch shrinks only what is held there. The micro-batch advice promises what
the workload traced again at that micro-batch gives."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from gpuplan.hardware import get_gpu
from gpuplan.perf.advice_base import Current
from gpuplan.perf.advisor import advise
from gpuplan.perf.estimate import Estimate, EstimateRequest, run_estimate
from gpuplan.perf.memory import is_optimizer_step_peak, peak_at_batch
from gpuplan.profile import Profile
from gpuplan.workload import Workload

pytest.importorskip("torch")

Make = Callable[..., Workload]
Traced = Callable[..., Profile]
VOCAB = 50257
SEQ = 64


def _workload(make: Make, batch: int, **over: Any) -> Workload:
    return make(
        task="finetune",
        precision="bf16",
        loss="chunked-logits",
        inputs={"batch_size": batch, "seq_len": SEQ},
        **over,
    )


def _estimated(trace_once: Traced, w: Workload) -> tuple[Profile, Estimate]:
    profile = trace_once(w)
    return profile, run_estimate(EstimateRequest(profile=profile, gpu=get_gpu("A10G")))


def _micro_batch_applied(
    trace_once: Traced, make: Make, batch: int, **over: Any
) -> tuple[Profile, float, float]:
    """The traced profile at ``batch``, the peak its micro-batch advice promises, and the peak the
    workload traced again at the advised micro-batch gives (nvidia-smi GiB on an A10G)."""
    w = _workload(make, batch, **over)
    profile, _ = _estimated(trace_once, w)
    request = EstimateRequest(profile=profile, gpu=get_gpu("A10G"))
    advice = {a.action: a for a in advise(request, current=Current.of(w))}["micro_batch"]
    assert f"micro-batch {batch // 2} × 2" in advice.summary
    _, applied = _estimated(trace_once, _workload(make, batch // 2, **over))
    return profile, advice.peak_memory_gib, applied.peak_memory_gib


def test_the_full_fine_tunes_peak_is_the_optimizers_with_the_logits_held(
    trace_once: Traced, small_gpt2: Make
) -> None:
    # GPT-2 small in bf16 peaks at AdamW's step (its parameter-sized temporary), where litgpt's
    # loop still holds the step's 16-bit logits: 2 B × 4 × 64 × 50,257 = 25.7 MB, 2 % of the peak.
    profile, promised, traced = _micro_batch_applied(trace_once, small_gpt2, 4)
    assert is_optimizer_step_peak(profile.peak)
    assert profile.peak.held_bytes == pytest.approx(2 * 4 * SEQ * VOCAB, rel=0.01)
    # Micro-batch 2 halves the held logits, not AdamW's temporary.
    assert promised == pytest.approx(traced, abs=0.005)
    # Below the traced batch the held logits scale with it; above it the peak may move.
    half = peak_at_batch(profile, 2)
    assert half.exact and not peak_at_batch(profile, 8).exact
    assert profile.peak.total_bytes - half.total_bytes == pytest.approx(profile.peak.held_bytes / 2)


@pytest.mark.parametrize("quantization", ["none", "nf4"])
def test_the_lora_micro_batch_advice_is_what_the_trace_gives(
    trace_once: Traced, small_gpt2: Make, quantization: str
) -> None:
    # LoRA's optimizer step is the adapters' (1 MiB): the peak is in the loss, where the held
    # logits (and, for QLoRA, bitsandbytes' 4-bit layer inputs held with them) are activations of
    # the micro-batch like any other.
    lora = {
        "preset": "gpt2",
        "lora": {"rank": 8, "targets": ["q", "v"], "dtype": "model", "quantization": quantization},
    }
    profile, promised, traced = _micro_batch_applied(trace_once, small_gpt2, 4, model=lora)
    assert not is_optimizer_step_peak(profile.peak)
    assert promised == pytest.approx(traced, abs=0.005)
