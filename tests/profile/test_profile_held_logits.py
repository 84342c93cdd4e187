"""litgpt's loop holds a step's logits, and through their graph what bitsandbytes 0.42's 4-bit matmul
keeps on its context, into the next step's forward: the trace runs that forward too."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

import pytest

from gpuplan.profile import Profile, profile_key, trace
from gpuplan.profile.key import is_recording_of, key_fields
from gpuplan.workload import Workload

pytest.importorskip("torch")

Make = Callable[..., Workload]
VOCAB = 50257
#: GPT-2 small's kept inputs per token of its 4-bit layers: ln_1 (q, k, v), the attention output
#: (o), ln_2 (fc) and the 4·768 MLP activation (proj) in each of 12 blocks, less the first block's
#: ln_1, which needs no gradient (frozen embeddings and norms).
KEPT_PER_TOKEN = 12 * (768 + 768 + 768 + 4 * 768) - 768


def _litgpt(make: Make, *, quantized: bool, preset: str = "gpt2", batch: int = 2) -> Workload:
    lora: dict[str, Any] = {"rank": 8, "targets": ["q", "v"], "dtype": "model"}
    if quantized:
        # litgpt pinned bitsandbytes 0.42.0, whose 4-bit matmul keeps its input on its context.
        lora |= {"quantization": "nf4", "library": "bitsandbytes-0.42"}
    return make(
        task="finetune",
        precision="bf16",
        model={"preset": preset, "lora": lora},
        inputs={"batch_size": batch},
        loss="chunked-logits",
    )


def _held_at_next_forward(monkeypatch: pytest.MonkeyPatch, w: Workload) -> tuple[Profile, float]:
    """The profile and the activation bytes alive when the next step's forward starts."""
    from gpuplan.profile import tracer

    real = tracer._next_forward_holding
    live: list[float] = []

    def spy(*args: Any) -> None:
        tracker = args[5]
        live.append(sum(s[k] for s in tracker._curr_mem_snap.values() for k in s if str(k).endswith("ACT")))
        real(*args)

    monkeypatch.setattr(tracer, "_next_forward_holding", spy)
    profile = trace(w)
    assert len(live) == 1
    return profile, live[0]


def test_the_next_forward_starts_with_the_logits_and_the_4bit_inputs_held(
    small_gpt2: Make, monkeypatch: pytest.MonkeyPatch
) -> None:
    tokens = 2 * 128
    _, lora_live = _held_at_next_forward(monkeypatch, _litgpt(small_gpt2, quantized=False))
    qlora, qlora_live = _held_at_next_forward(monkeypatch, _litgpt(small_gpt2, quantized=True))
    # The 16-bit logits of every chunk; backward freed what went through save_for_backward.
    assert lora_live == pytest.approx(2 * tokens * VOCAB, rel=0.02)
    # bitsandbytes 0.42 keeps each 4-bit layer's input on its context, which backward does not free.
    assert qlora_live - lora_live == pytest.approx(2 * tokens * KEPT_PER_TOKEN, rel=0.02)
    assert any("held into the next step's forward" in n for n in qlora.notes)


def test_the_held_step_raises_the_peak_where_the_kept_inputs_outweigh_the_loss(
    small_gpt2: Make, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gpuplan.profile import tracer

    # GPT-2 medium: 24 blocks of 1,024 against the same vocabulary, so the previous step's kept
    # inputs outweigh what the loss and backward add in the first step.
    w = _litgpt(small_gpt2, quantized=True, preset="gpt2-medium", batch=1)
    held, live = _held_at_next_forward(monkeypatch, w)
    monkeypatch.setattr(tracer, "_next_forward_holding", lambda *args: None)
    one_step = trace(w)
    assert one_step.peak.total_bytes < held.peak.total_bytes <= one_step.peak.total_bytes + live
    # Nothing of the held step is counted as work.
    assert held.flops_per_step == one_step.flops_per_step


def test_the_held_step_keys_the_profile_and_not_the_measurement(small_gpt2: Make) -> None:
    # A chunked-logits profile traced before the held step is traced again; a recording made
    # under that older key still matches the workload.
    w = _litgpt(small_gpt2, quantized=False)
    fields = key_fields(w)
    assert fields.pop("held_logits_trace") == 2
    older = hashlib.sha256(json.dumps(fields, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    assert older != profile_key(w)
    assert is_recording_of(w, older, fields["torch"])
    first = {**fields, "held_logits_trace": 1}  # recorded under the held step's first version
    v1 = hashlib.sha256(json.dumps(first, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    assert v1 != profile_key(w) and is_recording_of(w, v1, fields["torch"])
    assert is_recording_of(w, profile_key(w), fields["torch"])
    chunked = small_gpt2(task="finetune", precision="bf16", loss="chunked")
    assert "held_logits_trace" not in key_fields(chunked)  # other losses: the key is as it was
