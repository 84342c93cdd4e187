"""What LoRA fine-tuning keeps beside the base: the adapters' dtype, their input's dropout, and
litgpt's chunked loss (kept logits and 16-bit log-probabilities)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from gpuplan.profile import Profile, profile_key
from gpuplan.profile.key import key_fields
from gpuplan.workload import Workload

pytest.importorskip("torch")

Make = Callable[..., Workload]
Traced = Callable[..., Profile]
D, LAYERS, VOCAB = 768, 12, 50257
#: GPT-2 small's adapters on q and v, rank 8: A (8 × d) and B (d × 8) each, 12 blocks.
ADAPTER_PARAMS = LAYERS * 2 * (2 * 8 * D)


def _lora(small_gpt2: Make, *, precision: str = "bf16", seq: int = 128, **over: Any) -> Workload:
    lora = {"rank": 8, "targets": ["q", "v"], **over.pop("lora", {})}
    return small_gpt2(
        task="finetune", precision=precision, model={"lora": lora}, inputs={"seq_len": seq}, **over
    )


def test_model_dtype_adapters_are_the_precisions_weights(trace_once: Traced, small_gpt2: Make) -> None:
    fp32 = trace_once(_lora(small_gpt2))
    bf16 = trace_once(_lora(small_gpt2, lora={"dtype": "model"}))
    # Adapters 2 bytes a parameter instead of 4; AdamW's two moments follow the parameter's dtype.
    saved = fp32.peak.parameters_bytes - bf16.peak.parameters_bytes
    assert saved == pytest.approx(2 * ADAPTER_PARAMS, rel=0.01)
    assert fp32.peak.optimizer_state_bytes / bf16.peak.optimizer_state_bytes == pytest.approx(2, rel=0.02)
    # No fp32 copy of each adapted layer's input for A's backward.
    assert bf16.peak.activations_bytes < fp32.peak.activations_bytes
    assert any("adapters (bf16)" in n for n in bf16.notes)
    assert any("adapters (fp32)" in n for n in fp32.notes)


def test_model_dtype_under_amp_is_fp32(trace_once: Traced, small_gpt2: Make) -> None:
    # amp keeps fp32 weights: adapters of the model's dtype are fp32 as PEFT's are.
    amp = trace_once(_lora(small_gpt2, precision="amp-bf16"))
    model = trace_once(_lora(small_gpt2, precision="amp-bf16", lora={"dtype": "model"}))
    assert model.peak == amp.peak


def test_adapter_dropout_keeps_a_dropped_copy_and_a_mask() -> None:
    import torch

    from gpuplan.profile.tracer import _CudaDropout
    from gpuplan.workload.adapt import LoRALinear

    def saved_besides_input(dropout: float) -> list[int]:
        layer = LoRALinear(
            torch.nn.Linear(64, 32, bias=False, dtype=torch.bfloat16),
            8,
            16,
            dtype=torch.bfloat16,
            dropout=dropout,
        ).train()
        x = torch.zeros(2, 16, 64, dtype=torch.bfloat16, requires_grad=True)
        # What backward keeps besides the weights and the input (which the base keeps anyway).
        known = {t.untyped_storage().data_ptr() for t in (x, *layer.parameters())}
        sizes: dict[int, int] = {}

        def pack(t: torch.Tensor) -> torch.Tensor:
            if t.untyped_storage().data_ptr() not in known:
                sizes[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes()
            return t

        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t), _CudaDropout():
            layer(x)
        return sorted(sizes.values())

    plain, dropped = saved_besides_input(0.0), saved_besides_input(0.05)
    elements = 2 * 16 * 64
    # The dropped bf16 copy A reads in backward and native_dropout's one-byte mask.
    assert sorted((Counter(dropped) - Counter(plain)).elements()) == [elements, 2 * elements]


def test_adapter_dropout_in_the_trace_follows_the_stack(trace_once: Traced, small_gpt2: Make) -> None:
    none = trace_once(_lora(small_gpt2, lora={"dtype": "model"}))
    dropped = trace_once(_lora(small_gpt2, lora={"dtype": "model", "dropout": 0.05}))
    off = trace_once(_lora(small_gpt2, lora={"dtype": "model", "dropout": 0.05}, stack={"dropout": False}))
    assert dropped.peak.activations_bytes > none.peak.activations_bytes
    assert any("dropout 0.05 on each adapter's input" in n for n in dropped.notes)
    assert not any("adapter's input" in n for n in off.notes)
    assert off.peak.activations_bytes < dropped.peak.activations_bytes


def test_chunked_logits_keeps_16_bit_logits_and_log_probs(trace_once: Traced, small_gpt2: Make) -> None:
    chunked = trace_once(_lora(small_gpt2, lora={"dtype": "model"}, seq=256, loss="chunked"))
    logits = trace_once(_lora(small_gpt2, lora={"dtype": "model"}, seq=256, loss="chunked-logits"))
    # torchtune's 8 chunks keep the 16-bit logits (2 B); litgpt's keep them and the 16-bit
    # log-probabilities cross_entropy saves (2 + 2 B) per batch × sequence × vocabulary element.
    extra = logits.peak.activations_bytes - chunked.peak.activations_bytes
    assert extra == pytest.approx(2 * 2 * 256 * VOCAB, rel=0.01)

    def log_softmax(p: Profile) -> list[tuple[int, str]]:
        return [(o.count, o.dtype) for o in p.ops if o.op == "aten._log_softmax" and o.phase == "forward"]

    assert log_softmax(logits) == [(2, "bfloat16")]  # 256 tokens in 128-token chunks, no upcast
    assert log_softmax(chunked) == [(8, "float32")]


def test_lora_keys_without_the_new_settings_are_as_they_were(small_gpt2: Make) -> None:
    plain = _lora(small_gpt2)
    assert set(key_fields(plain)["model"]["lora"]) == {"rank", "alpha", "targets"}
    explicit = _lora(small_gpt2, lora={"dtype": "fp32", "dropout": 0.0})
    assert profile_key(explicit) == profile_key(plain)
    for change in ({"dtype": "model"}, {"dropout": 0.05}):
        assert profile_key(_lora(small_gpt2, lora=change)) != profile_key(plain), change


def test_adapter_settings_refuse_bad_values(small_gpt2: Make) -> None:
    for lora, said in (
        ({"dtype": "bf17"}, "adapter dtype"),
        ({"dtype": "bf16"}, "did you mean 'model'"),
        ({"dropout": 1.0}, "dropout"),
        ({"dropout": -0.1}, "dropout"),
    ):
        with pytest.raises(Exception) as e:
            _lora(small_gpt2, lora=lora)
        assert said in str(e.value), lora
