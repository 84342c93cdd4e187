"""A lighter-loss advice promises the memory the estimate gives once it is applied (the workload
traced again with the advised loss): a chunked-logits loop still holds the step's logits at the
optimizer step, into the next step's forward, and that is what another loss frees there."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpuplan.hardware import get_gpu
from gpuplan.perf.advice_base import Current
from gpuplan.perf.advisor import advise
from gpuplan.perf.estimate import Estimate, EstimateRequest, run_estimate
from gpuplan.profile import Profile
from gpuplan.workload import Workload

pytest.importorskip("torch")

Make = Callable[..., Workload]
Traced = Callable[..., Profile]
VOCAB = 50257


def _estimated(trace_once: Traced, w: Workload) -> tuple[Profile, Estimate]:
    profile = trace_once(w)
    return profile, run_estimate(EstimateRequest(profile=profile, gpu=get_gpu("A10G")))


def test_leaving_chunked_logits_frees_the_logits_held_at_the_optimizer_step(
    trace_once: Traced, small_gpt2: Make
) -> None:
    # A full fine-tune of GPT-2 small in bf16 peaks at AdamW's step, where litgpt's loop still
    # holds the step's 16-bit logits: 2 B × 2 × 128 × 50,257 = 25,731,584 B = 0.02 GiB.
    w = small_gpt2(task="finetune", precision="bf16", loss="chunked-logits")
    profile, base = _estimated(trace_once, w)
    request = EstimateRequest(profile=profile, gpu=get_gpu("A10G"))
    advice = {a.action: a for a in advise(request, current=Current.of(w))}
    for action, loss in (("chunked_loss", "chunked"), ("fused_linear_loss", "fused-linear")):
        _, applied = _estimated(trace_once, small_gpt2(task="finetune", precision="bf16", loss=loss))
        assert advice[action].peak_memory_gib == pytest.approx(applied.peak_memory_gib, abs=0.005), action
        assert applied.peak_memory_gib < base.peak_memory_gib
    assert "held into the next step's forward (0.02 GiB)" in advice["chunked_loss"].derivation


def test_the_advised_saving_starts_from_the_workloads_own_loss(trace_once: Traced, small_gpt2: Make) -> None:
    # LoRA in bf16 peaks in the loss: the saving of a lighter loss is counted from the loss the
    # workload runs (chunked-logits keeps 4 B an element), not from the standard loss's 8 B.
    lora = {"preset": "gpt2", "lora": {"rank": 8, "targets": ["q", "v"], "dtype": "model"}}
    w = small_gpt2(task="finetune", precision="bf16", model=lora, loss="chunked-logits")
    profile, base = _estimated(trace_once, w)
    request = EstimateRequest(profile=profile, gpu=get_gpu("A10G"))
    advice = {a.action: a for a in advise(request, current=Current.of(w))}
    chunked = advice["chunked_loss"]
    assert "logits memory 4 → 3 B" in chunked.derivation
    # fused-linear frees (4 − 1.5) B × 2 × 128 × 50,257 = 32.2 MB and allocates no gradient for
    # the frozen head (test_fused_linear_frozen_head.py holds it against the trace)
    assert "fused_linear_loss" in advice
    # (4 − 3) B × 2 × 128 × 50,257 = 12.9 MB off the activations and temporaries the trace holds
    elements = 2 * 128 * VOCAB
    assert base.peak_memory_gib - chunked.peak_memory_gib <= 1.2 * elements / 2**30


def test_a_chunked_loss_under_autocast_counts_each_chunks_copy_of_a_frozen_head(
    trace_once: Traced, small_gpt2: Make
) -> None:
    # LoRA under amp-bf16: the frozen fp32 head (tied to the embeddings) is cast to bf16 by each
    # of the 8 chunks' matmuls and every copy is kept for backward, 7 more than the standard
    # loss's one: 7 × 50,257 × 768 × 2 B = 0.50 GiB, more than the logits memory the chunks free
    # (5 B × 2 × 128 × 50,257 = 0.06 GiB). The advice is either not given or what the trace gives.
    lora = {"preset": "gpt2", "lora": {"rank": 8, "targets": ["q", "v"], "dtype": "model"}}
    w = small_gpt2(task="finetune", precision="amp-bf16", model=lora)
    profile, base = _estimated(trace_once, w)
    assert profile.head_trains is False
    request = EstimateRequest(profile=profile, gpu=get_gpu("A10G"))
    advice = {a.action: a for a in advise(request, current=Current.of(w))}
    _, applied = _estimated(
        trace_once, small_gpt2(task="finetune", precision="amp-bf16", model=lora, loss="chunked")
    )
    assert applied.peak_memory_gib > base.peak_memory_gib  # the trace, applied: more
    if "chunked_loss" in advice:
        assert advice["chunked_loss"].peak_memory_gib == pytest.approx(applied.peak_memory_gib, abs=0.005)
    # Every advised loss saves by its own count.
    for a in advice.values():
        if a.action in ("chunked_loss", "fused_linear_loss"):
            assert a.peak_memory_gib < base.peak_memory_gib


def test_a_head_that_trains_is_cast_once_under_autocast(trace_once: Traced, small_gpt2: Make) -> None:
    # A full fine-tune: autocast caches the head's one bf16 copy, shared by the chunks.
    w = small_gpt2(task="finetune", precision="amp-bf16")
    profile, _ = _estimated(trace_once, w)
    assert profile.head_trains is True
    assert trace_once(small_gpt2(task="infer", precision="amp-bf16")).head_trains is None
