"""A quantized LoRA base (QLoRA): the frozen linear weights held at their stored size, the rest as traced."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest

from gpuplan.hardware import get_gpu
from gpuplan.perf.estimate import estimate
from gpuplan.perf.stages.compute import (
    QLORA_DEQUANT_FAST,
    QLORA_DEQUANT_SLOW,
    QLORA_SLOWDOWN,
    QLORA_SLOWDOWN_HIGH,
    QLORA_SLOWDOWN_LOW,
)
from gpuplan.profile import Profile, trace
from gpuplan.profile.model import DEQUANTIZE_OP

pytest.importorskip("torch")

Traced = Callable[..., Profile]

GiB = 2**30
D, LAYERS, VOCAB = 768, 12, 50257
#: GPT-2 small's linear weights outside the (tied) output layer: per block q, k, v, o 4d² +
#: fc_in 4d² + fc_out 4d² = 12d²; 12 blocks: 84,934,656.
GPT2_LINEAR = LAYERS * 12 * D * D
#: Its linear layers' output rows per block: q, k, v, o 4d + fc_in 4d + fc_out d = 9d.
GPT2_ROWS = LAYERS * 9 * D


def _weights(p: Profile) -> float:
    """Parameter and buffer bytes at the peak: the weights and their quantization constants."""
    return p.peak.parameters_bytes + p.peak.buffers_bytes


def test_nf4_holds_linear_weights_at_half_a_byte(trace_once: Traced, small_gpt2) -> None:  # type: ignore[no-untyped-def]
    lora = {"rank": 8, "targets": ["q", "v"]}
    full = trace_once(small_gpt2(task="finetune", precision="bf16", model={"lora": lora}))
    nf4 = trace_once(
        small_gpt2(task="finetune", precision="bf16", model={"lora": {**lora, "quantization": "nf4"}})
    )
    # bf16 weights: 2 B each; nf4: 0.5 B + one fp32 constant per 64 (0.0625 B) — 1.4375 B saved per
    # linear weight: 84,934,656 × 1.4375 = 122,093,568 B (± the 512-B block rounding of its tensors:
    # 72 layers, q, k, v, o, fc_in and fc_out of 12 blocks).
    saved = _weights(full) - _weights(nf4)
    assert saved == pytest.approx(GPT2_LINEAR * (2 - 0.5 - 4 / 64), abs=72 * 4 * 512)
    assert nf4.params == full.params  # the weights it stands for, not its bytes
    assert nf4.trainable_params == full.trainable_params
    assert nf4.flops_per_step == pytest.approx(full.flops_per_step, rel=1e-6)
    assert nf4.base_quantization == "nf4"
    assert any(n.startswith("quantized base: 72 linear layers stored nf4") for n in nf4.notes)


def test_int8_holds_a_byte_a_weight_and_a_scale_a_row(trace_once: Traced, small_gpt2) -> None:  # type: ignore[no-untyped-def]
    lora = {"rank": 8, "quantization": "int8"}
    p = trace_once(small_gpt2(task="finetune", precision="bf16", model={"lora": lora}))
    full = trace_once(small_gpt2(task="finetune", precision="bf16", model={"lora": {"rank": 8}}))
    # 1 B per weight, 4 B per output row (GPT2_ROWS)
    saved = _weights(full) - _weights(p)
    assert saved == pytest.approx(GPT2_LINEAR * 1 - GPT2_ROWS * 4, abs=72 * 4 * 512)


def test_amp_keeps_no_16_bit_copy_of_a_quantized_weight(trace_once: Traced, small_gpt2) -> None:  # type: ignore[no-untyped-def]
    # Under autocast a frozen fp32 weight's bf16 cast is kept for backward (2 B per weight); the
    # 4-bit matmul keeps the quantized weight only and dequantizes it again in backward (torchao's:
    # bitsandbytes 0.42's also keeps each layer's input, tested below).
    lora = {"rank": 8}
    amp = trace_once(small_gpt2(task="finetune", precision="amp-bf16", model={"lora": lora}))
    nf4 = trace_once(
        small_gpt2(
            task="finetune",
            precision="amp-bf16",
            model={"lora": {**lora, "quantization": "nf4", "library": "torchao"}},
        )
    )
    assert amp.peak.activations_bytes - nf4.peak.activations_bytes >= 0.9 * 2 * GPT2_LINEAR


def _nf4(trace_once: Traced, small_gpt2, **inputs) -> Profile:  # type: ignore[no-untyped-def]
    lora = {"rank": 8, "targets": ["q", "v"]}
    over = {"inputs": inputs} if inputs else {}
    return trace_once(
        small_gpt2(task="finetune", precision="bf16", model={"lora": {**lora, "quantization": "nf4"}}, **over)
    )


def _without_dequantization(p: Profile) -> Profile:
    return dataclasses.replace(p, ops=tuple(op for op in p.ops if op.op != DEQUANTIZE_OP))


def test_nf4_trace_records_each_dequantization(trace_once: Traced, small_gpt2) -> None:  # type: ignore[no-untyped-def]
    p = _nf4(trace_once, small_gpt2)
    assert (p.quantized_linears, p.quantized_weights) == (72, GPT2_LINEAR)
    records = {op.phase: op for op in p.ops if op.op == DEQUANTIZE_OP}
    # Once for the forward matmul and once for the backward one (bitsandbytes' MatMul4Bit), each
    # reading the codes (½ B) and fp32 block constants (4 B per 64) and writing a 16-bit copy (2 B)
    # — save the first block's q, k and v in backward: their input (the frozen embeddings and
    # LayerNorm) needs no gradient, so autograd never calls their backward.
    assert {ph: op.count for ph, op in records.items()} == {"forward": 72, "backward": 69}
    per_weight = 0.5 + 4 / 64 + 2
    assert records["forward"].bytes_moved == pytest.approx(GPT2_LINEAR * per_weight, rel=1e-6)
    assert records["backward"].bytes_moved == pytest.approx((GPT2_LINEAR - 3 * D * D) * per_weight, rel=1e-6)
    # Checkpointed blocks dequantize again in the recompute.
    ckpt = trace_once(
        small_gpt2(
            task="finetune",
            precision="bf16",
            activation_checkpointing="full",
            model={"lora": {"rank": 8, "quantization": "nf4"}},
        )
    )
    assert sum(op.count for op in ckpt.ops if op.op == DEQUANTIZE_OP) == 3 * 72 - 3
    int8 = trace_once(
        small_gpt2(task="finetune", precision="bf16", model={"lora": {"rank": 8, "quantization": "int8"}})
    )
    assert not any(op.op == DEQUANTIZE_OP for op in int8.ops) and int8.quantized_weights == 0


def test_dequantization_share_falls_as_tokens_per_micro_batch_grow(trace_once: Traced, small_gpt2) -> None:  # type: ignore[no-untyped-def]
    # was: one factor (× 1.278) on forward and backward, the same share at every batch
    gpu = get_gpu("A100-SXM4-80GB")
    shares = []
    for batch in (2, 32):
        p = _nf4(trace_once, small_gpt2, batch_size=batch)
        with_dq = estimate(p, gpu).compute_time_s
        without = estimate(_without_dequantization(p), gpu).compute_time_s
        shares.append((with_dq - without) / with_dq)
    assert shares[0] > 2 * shares[1] > 0


def test_a_bigger_bandwidth_gpu_pays_less_for_the_dequantization(trace_once: Traced, small_gpt2) -> None:  # type: ignore[no-untyped-def]
    p = _nf4(trace_once, small_gpt2, batch_size=32)
    paid = {}
    for gpu_id in ("L4", "A10G"):
        gpu = get_gpu(gpu_id)
        paid[gpu_id] = (
            estimate(p, gpu).compute_time_s - estimate(_without_dequantization(p), gpu).compute_time_s
        )
        note = next(n for n in estimate(p, gpu).notes if "dequantizing" in n)
        assert f"dequantizing {GPT2_LINEAR:,} 4-bit weights: " in note
    # Memory-bound: the bytes over each GPU's bandwidth (300 against 600 GB/s; both GPU-bound here —
    # a host-bound GPU pays the kernels' launches instead).
    ratio = get_gpu("A10G").memory_bandwidth_gbps / get_gpu("L4").memory_bandwidth_gbps
    assert paid["L4"] / paid["A10G"] == pytest.approx(ratio, rel=0.1)


def test_nf4_range_allows_what_the_published_pairs_leave(trace_once: Traced, small_gpt2) -> None:  # type: ignore[no-untyped-def]
    p = _nf4(trace_once, small_gpt2)
    gpu = get_gpu("A100-SXM4-80GB")
    nf4 = estimate(p, gpu)
    plain = estimate(dataclasses.replace(p, base_quantization="none"), gpu)
    assert nf4.step_time_s == pytest.approx(plain.step_time_s)  # the records are costed, no factor
    assert nf4.step_time_s_high / nf4.step_time_s == pytest.approx(
        plain.step_time_s_high / plain.step_time_s * QLORA_DEQUANT_SLOW, rel=0.02
    )
    assert nf4.step_time_s_low / nf4.step_time_s == pytest.approx(
        plain.step_time_s_low / plain.step_time_s / QLORA_DEQUANT_FAST, rel=0.02
    )
    assert any("÷ 1.10 to × 1.19" in n for n in nf4.notes)


def test_a_profile_traced_before_the_records_takes_the_published_factor(
    trace_once: Traced, small_gpt2
) -> None:  # type: ignore[no-untyped-def]
    p = trace_once(small_gpt2(task="finetune", precision="bf16", model={"lora": {"rank": 8}}))
    gpu = get_gpu("A100-SXM4-80GB")
    plain = estimate(p, gpu)
    nf4 = estimate(dataclasses.replace(p, base_quantization="nf4"), gpu)
    # Forward and backward × 1.278 (torchtune's 8B pair); the optimizer step (the adapters' only) is
    # not slowed.
    optimizer_s = plain.phases.optimizer_s
    assert nf4.compute_time_s - optimizer_s == pytest.approx(
        (plain.compute_time_s - optimizer_s) * QLORA_SLOWDOWN, rel=0.02
    )
    assert any("quantized base (nf4)" in n for n in nf4.notes)
    # Around the point's × 1.278: the slow end allows × 1.66 (Google Cloud), the fast end × 1.022
    # (torchtune's 3B pair) — each end moved by its figure over the point's, on top of the model's band.
    assert nf4.step_time_s_high / nf4.step_time_s == pytest.approx(
        plain.step_time_s_high / plain.step_time_s * QLORA_SLOWDOWN_HIGH / QLORA_SLOWDOWN, rel=0.02
    )
    assert nf4.step_time_s_low / nf4.step_time_s == pytest.approx(
        plain.step_time_s_low / plain.step_time_s * QLORA_SLOWDOWN_LOW / QLORA_SLOWDOWN, rel=0.02
    )
    int8 = estimate(dataclasses.replace(p, base_quantization="int8"), gpu)
    assert int8.step_time_s == pytest.approx(plain.step_time_s)
    assert int8.step_time_s_high == pytest.approx(plain.step_time_s_high * QLORA_SLOWDOWN_HIGH)
    assert any("quantized base (int8)" in n and "not modelled" in n for n in int8.notes)


def test_estimate_says_whether_the_nf4_constants_are_quantized_again(small_gpt2) -> None:  # type: ignore[no-untyped-def]
    # was: "quantized base (nf4)" either way, so the user could not tell that double_quantization
    # was read (the README promises the estimate says which it assumed)
    lora = {"rank": 8, "targets": ["q", "v"], "quantization": "nf4"}
    gpu = get_gpu("A100-SXM4-80GB")
    said = {True: "quantized base (nf4, double quantization)", False: "quantized base (nf4)"}
    for double, words in said.items():
        p = trace(
            small_gpt2(
                task="finetune", precision="bf16", model={"lora": {**lora, "double_quantization": double}}
            )
        )
        assert p.base_double_quantization is double
        assert p == Profile.from_json(p.to_json())
        assert any(n.startswith(words + ":") for n in estimate(p, gpu).notes)


@pytest.mark.slow
def test_llama7b_qlora_weights_match_the_hand_count() -> None:
    from gpuplan.workload import Workload

    w = Workload.from_dict(
        {
            "name": "llama7b-qlora",
            "task": "finetune",
            "model": {
                "preset": "llama-7b",
                "lora": {
                    "rank": 16,
                    "targets": ["q", "v"],
                    "quantization": "nf4",
                    "double_quantization": True,
                },
            },
            "inputs": {"batch_size": 1, "seq_len": 2048},
            "precision": "bf16",
        }
    )
    p = trace(w)
    # Linear weights: 32 × (4·4096² + 3·4096·11008) = 6,476,005,376, at 0.5 + 0.127/8 B each
    # (QLoRA §3: double quantization leaves 0.127 bits of constants per parameter) = 3,340,804,300 B;
    # the rest in bf16: embeddings and output layer 2 × 32000·4096 + 65 norms·4096 = 262,410,240
    # × 2 B = 524,820,480 B; the adapters in fp32: 8,388,608 × 4 B = 33,554,432 B.
    # Total 3,899,179,212 B = 3.63 GiB (the 16-bit base: 12.58 GiB).
    linear = 32 * (4 * 4096**2 + 3 * 4096 * 11008)
    hand = linear * (0.5 + 0.127 / 8) + (2 * 32000 * 4096 + 65 * 4096) * 2 + 8_388_608 * 4
    assert _weights(p) == pytest.approx(hand, rel=0.005)
    assert p.params == 6_738_415_616 + 8_388_608


def test_each_4bit_matmul_keeps_and_dequantizes_as_its_library_release_does() -> None:
    # bitsandbytes autograd/_functions.py MatMul4Bit.forward: ``F.dequantize_4bit(B,
    # quant_state).to(A.dtype)``, the weight dequantized into the dtype it was quantized from, then
    # cast. 0.42.0: ``ctx.tensors = (A, B)``, quantized from an fp16 copy (Params4bit.cuda's
    # ``.half()``). 0.43.2 on: ``ctx.tensors = (None, B)`` (pull request 1270), quantized in the
    # weight's own dtype (Params4bit._quantize since 0.43.0). torchao's LinearNF4 keeps the NF4
    # weight only and casts straight to bf16.
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    from gpuplan.vocab import BaseQuantization, QuantizationLibrary
    from gpuplan.workload.adapt import QuantizedLinear

    class Allocs(TorchDispatchMode):
        def __init__(self) -> None:
            super().__init__()
            self.made: list[tuple[str, torch.dtype]] = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
            out = func(*args, **(kwargs or {}))
            if isinstance(out, torch.Tensor) and tuple(out.shape) == (32, 64):
                self.made.append((func.__name__, out.dtype))
            return out

    bf16, fp16, fp32 = torch.bfloat16, torch.float16, torch.float32
    for library, loaded, keeps, made in (
        (QuantizationLibrary.BITSANDBYTES_0_42, bf16, True, [fp16, bf16]),
        (QuantizationLibrary.BITSANDBYTES, bf16, False, [bf16]),
        # An fp32 base under bf16 autocast: dequantized to fp32, then cast.
        (QuantizationLibrary.BITSANDBYTES, fp32, False, [fp32, bf16]),
        (QuantizationLibrary.TORCHAO, fp32, False, [bf16]),
    ):
        layer = QuantizedLinear(
            torch.nn.Linear(64, 32, bias=False, dtype=loaded),
            BaseQuantization.NF4,
            double=False,
            compute_dtype=bf16,
            library=library,
        )
        x = torch.zeros(2, 64, dtype=bf16, requires_grad=True)
        with Allocs() as allocs:
            y = layer(x)
        kept = getattr(y.grad_fn, "tensors", ())
        assert (len(kept) == 1 and kept[0] is x) == keeps, library
        assert [dtype for _, dtype in allocs.made] == made, (library, loaded)
    # No gradient wanted for the input: nothing kept (``any(ctx.needs_input_grad[:2])``).
    layer = QuantizedLinear(
        torch.nn.Linear(64, 32, bias=False),
        BaseQuantization.NF4,
        double=False,
        compute_dtype=bf16,
        library=QuantizationLibrary.BITSANDBYTES_0_42,
    )
    y = layer(torch.zeros(2, 64, dtype=bf16)).sum()
    assert not hasattr(y.grad_fn, "tensors")


def test_bitsandbytes_0_42_nf4_trace_holds_the_quantized_layers_inputs(
    trace_once: Traced, small_gpt2
) -> None:  # type: ignore[no-untyped-def]
    lora = {"rank": 8, "targets": ["q", "v"], "quantization": "nf4"}
    old = trace_once(
        small_gpt2(
            task="finetune", precision="bf16", model={"lora": {**lora, "library": "bitsandbytes-0.42"}}
        )
    )
    bnb = trace_once(small_gpt2(task="finetune", precision="bf16", model={"lora": lora}))
    tao = trace_once(
        small_gpt2(task="finetune", precision="bf16", model={"lora": {**lora, "library": "torchao"}})
    )
    # Inputs no other op keeps, per block: the two LayerNorm outputs (d each) and the GELU output
    # (4d, fc_out's input) — 6d per token; the attention output (o's input) is the fused kernel's
    # saved output already. Measured 5.92d per token and layer (71 of 72 d over 12 blocks) at the
    # end of forward, in bf16 at 2 × 128 tokens.
    per_d = (old.peak.activations_bytes - tao.peak.activations_bytes) / (LAYERS * D * 2 * 2 * 128)
    assert 5.5 < per_d <= 6.0
    # Today's bitsandbytes keeps the 4-bit weight only, as torchao does, and a bf16 base's weight
    # dequantizes straight to bf16: the same activations as plain LoRA's.
    plain = trace_once(small_gpt2(task="finetune", precision="bf16", model={"lora": {"rank": 8}}))
    assert bnb.peak.activations_bytes == tao.peak.activations_bytes == plain.peak.activations_bytes
    assert any("keeps each layer's input for backward" in n for n in old.notes)
    assert not any("keeps each layer's input" in n for n in bnb.notes + tao.notes)


def test_qlora_with_checkpointing_holds_no_more_than_lora(trace_once: Traced, small_gpt2) -> None:  # type: ignore[no-untyped-def]
    # Checkpointing frees what a block saves for backward, but not what an autograd function sets
    # on its context: bitsandbytes 0.42's kept inputs outlive the recompute; today's keep none.
    lora = {"rank": 8, "targets": ["q", "v"]}

    def traced(**extra: object) -> Profile:
        over = {"lora": {**lora, **extra}}
        return trace_once(
            small_gpt2(task="finetune", precision="bf16", model=over, gradient_checkpointing=True)
        )

    plain, qlora = traced(), traced(quantization="nf4")
    old = traced(quantization="nf4", library="bitsandbytes-0.42")
    assert qlora.peak.activations_bytes <= plain.peak.activations_bytes < old.peak.activations_bytes
    assert qlora.peak.total_bytes < plain.peak.total_bytes
    # The weights saved: GPT-2's linear weights at 2 B each against ~0.5625 B (nf4, fp32 constants).
    assert plain.peak.total_bytes - qlora.peak.total_bytes == pytest.approx(
        GPT2_LINEAR * (2 - 0.5625), rel=0.01
    )


def test_quantized_head_needs_a_quantized_base_and_torchao_nf4() -> None:
    from gpuplan.workload import Workload

    base = {"name": "x", "task": "finetune", "model": {"preset": "gpt2"}}
    for lora, said in (
        ({"rank": 8, "quantized_head": True}, "quantized_head: needs a quantized base"),
        ({"rank": 8, "quantization": "int8", "library": "torchao"}, "library: torchao applies to"),
        (
            {"rank": 8, "quantization": "int8", "library": "bitsandbytes-0.42"},
            "library: bitsandbytes-0.42 applies to",
        ),
        ({"rank": 8, "quantization": "nf4", "library": "torchaoo"}, "torchao"),
    ):
        with pytest.raises(Exception) as e:
            Workload.from_dict({**base, "model": {"preset": "gpt2", "lora": lora}})
        assert said in str(e.value)


@pytest.mark.slow
def test_quantized_head_stores_the_output_layer_in_4_bits() -> None:
    from gpuplan.workload import Workload

    def run(**extra: object) -> Profile:
        lora = {"rank": 8, "targets": ["q", "v"], "quantization": "nf4", **extra}
        return trace(
            Workload.from_dict(
                {
                    "name": "llama7b-qlora-head",
                    "task": "finetune",
                    "model": {"preset": "llama-7b", "lora": lora},
                    "inputs": {"batch_size": 1, "seq_len": 64},
                    "precision": "bf16",
                }
            )
        )

    kept, quantized = run(), run(quantized_head=True)
    # Llama 2 7B's untied 32000 × 4096 output layer: bf16 2 B → nf4 0.5 + 4/64 B per weight.
    head = 32000 * 4096
    assert _weights(kept) - _weights(quantized) == pytest.approx(head * (2 - 0.5625), rel=0.001)
    assert any("225 linear layers" in n and "embeddings and norms keep" in n for n in quantized.notes)


def test_a_qlora_profile_keyed_before_todays_bitsandbytes_is_traced_again(small_gpt2) -> None:  # type: ignore[no-untyped-def]
    # ``library: bitsandbytes`` traced bitsandbytes 0.42 under mark 3: a cached profile of it keeps
    # the inputs today's release does not, so it must not answer for the same workload now.
    import hashlib
    import json

    from gpuplan.profile.key import key_fields, profile_key

    w = small_gpt2(task="finetune", precision="bf16", model={"lora": {"rank": 8, "quantization": "nf4"}})
    fields = key_fields(w)
    fields["model"]["lora"]["saved"] = 3
    old = hashlib.sha256(json.dumps(fields, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    assert profile_key(w) != old
    old_spelling = small_gpt2(
        task="finetune",
        precision="bf16",
        model={"lora": {"rank": 8, "quantization": "nf4", "library": "bitsandbytes-0.42"}},
    )
    assert profile_key(old_spelling) != profile_key(w)
