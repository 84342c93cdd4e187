"""What a trace records for each workload setting: freezing, LoRA, checkpointing, inference, numerics."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpuplan.errors import WorkloadError
from gpuplan.profile import Profile, trace
from gpuplan.workload import Workload

pytest.importorskip("torch")

GPT2_PARAMS = 124_439_808
Make = Callable[..., Workload]
Traced = Callable[[Workload], Profile]


def _matmul_dtypes(p: Profile) -> set[str]:
    return {r.dtype for r in p.ops if r.op_class == "matmul"}


def test_profile_round_trips_through_json(small_gpt2: Make) -> None:
    p = trace(small_gpt2())
    assert Profile.from_json(p.to_json()) == p
    assert p.tokens_per_step == 2 * 128
    assert p.trace_seconds > 0


def test_the_suites_shared_trace_is_the_trace(small_gpt2: Make, trace_once: Traced) -> None:
    # The tests that only read a profile share one trace per workload (tests/conftest.py): it must
    # be the profile trace() gives, under each workload's own name, or they would test another one.
    import dataclasses

    fresh = trace(small_gpt2(name="fresh"))
    shared = trace_once(small_gpt2(name="shared"))
    assert shared == dataclasses.replace(fresh, workload_name="shared", trace_seconds=shared.trace_seconds)
    assert trace_once(small_gpt2(optimizer="sgd")) != shared


def test_frozen_modules_trace_and_get_no_gradients(small_gpt2: Make, trace_once: Traced) -> None:
    base = trace_once(small_gpt2())
    frozen = trace_once(small_gpt2(model={"frozen": ["wte", "layers.0"]}))
    # wte 50257·768 + one block 7,087,872 (12d² + 13d weights and biases; LN 4d)
    block = 12 * 768 * 768 + 13 * 768
    assert frozen.trainable_params == GPT2_PARAMS - 50257 * 768 - block
    assert frozen.peak.optimizer_state_bytes < base.peak.optimizer_state_bytes


def test_unknown_frozen_prefix_suggests_a_module(small_gpt2: Make) -> None:
    with pytest.raises(WorkloadError, match=r"model.frozen: no parameters under 'layer.0'; did you mean"):
        trace(small_gpt2(model={"frozen": ["layer.0"]}))


def test_lora_trains_only_the_adapters(small_gpt2: Make, trace_once: Traced) -> None:
    p = trace_once(small_gpt2(task="finetune", model={"lora": {"rank": 8}}))
    # q and v in 12 layers, each A (8×768) + B (768×8) = 12,288  →  12 · 2 · 12,288 = 294,912
    assert p.trainable_params == 12 * 2 * (8 * 768 + 768 * 8)
    assert p.params == GPT2_PARAMS + p.trainable_params
    # no weight gradients for the frozen base: the Adam state is the adapters' only (2 × fp32)
    assert p.peak.optimizer_state_bytes < 2 * 4 * p.trainable_params * 1.1
    assert any("lora: rank 8" in n for n in p.notes)


def test_lora_with_unknown_target_lists_the_linear_names(small_gpt2: Make) -> None:
    with pytest.raises(WorkloadError, match=r"model.lora.targets: no nn.Linear named query_key"):
        trace(small_gpt2(task="finetune", model={"lora": {"rank": 8, "targets": ["query_key"]}}))


def test_lora_with_one_mistyped_target_among_good_ones_is_refused() -> None:
    # was: [q, v, oo] traced with adapters on q and v only, 'oo' dropped without a word (fewer
    # adapters: less memory and time than the job the user wrote)
    from torch import nn

    from gpuplan.workload.adapt import apply_lora
    from gpuplan.workload.spec import LoraSpec

    model = nn.ModuleDict({"q_proj": nn.Linear(2, 2), "v_proj": nn.Linear(2, 2), "o_proj": nn.Linear(2, 2)})
    with pytest.raises(WorkloadError) as info:
        apply_lora(model, LoraSpec(rank=1, targets=("q", "v", "oo")))
    assert str(info.value) == (
        "model.lora.targets: 'oo' names no nn.Linear of this model; did you mean 'o' or 'o_proj'? "
        "(its linear layers are named: o_proj, q_proj, v_proj)"
    )
    assert all(p.requires_grad for p in model.parameters())  # nothing changed before the error


def test_gradient_checkpointing_lowers_activation_memory(small_gpt2: Make, trace_once: Traced) -> None:
    plain = trace_once(small_gpt2(inputs={"batch_size": 4, "seq_len": 512}, optimizer="sgd"))
    ckpt = trace_once(
        small_gpt2(inputs={"batch_size": 4, "seq_len": 512}, optimizer="sgd", gradient_checkpointing=True)
    )
    assert ckpt.peak.activations_bytes < 0.5 * plain.peak.activations_bytes
    # recomputation repeats the block forwards inside backward: more FLOPs than without
    assert ckpt.flops_per_step > plain.flops_per_step
    assert any("12 blocks recomputed" in n for n in ckpt.notes)


def test_inference_is_forward_only_with_no_training_state(small_gpt2: Make, trace_once: Traced) -> None:
    p = trace_once(small_gpt2(task="infer", precision="bf16"))
    assert {r.phase for r in p.ops} == {"forward"}
    assert p.trainable_params == 0
    assert p.peak.gradients_bytes == 0 and p.peak.optimizer_state_bytes == 0
    assert p.peak.parameters_bytes == pytest.approx(2 * GPT2_PARAMS, rel=0.01)  # bf16
    assert p.flops_per_step == p.forward_flops


@pytest.mark.slow
@pytest.mark.parametrize(
    ("optimizer", "state_bytes_per_param"),
    [("sgd", 4), ("adam", 8), ("adamw", 8), ("adamw-fused", 8)],
)
def test_optimizer_state_size(
    small_gpt2: Make, trace_once: Traced, optimizer: str, state_bytes_per_param: int
) -> None:
    p = trace_once(small_gpt2(optimizer=optimizer))
    # fp32 state: momentum (SGD) or exp_avg + exp_avg_sq (Adam), plus per-tensor step counters
    assert p.peak.optimizer_state_bytes == pytest.approx(state_bytes_per_param * GPT2_PARAMS, rel=0.02)


def test_adafactor_keeps_factored_state(small_gpt2: Make, trace_once: Traced) -> None:
    p = trace_once(small_gpt2(optimizer="adafactor"))
    # row and column second-moment factors only: far below one fp32 copy of the parameters
    assert 0 < p.peak.optimizer_state_bytes < 0.1 * 4 * GPT2_PARAMS


@pytest.mark.slow
def test_foreach_adamw_needs_a_parameter_sized_temporary_that_fused_does_not(
    small_gpt2: Make, trace_once: Traced
) -> None:
    foreach = trace_once(small_gpt2(optimizer="adamw"))
    fused = trace_once(small_gpt2(optimizer="adamw-fused"))
    # foreach peaks at the step: param 4 + grad 4 + state 8 + scratch sqrt(exp_avg_sq) 4 = 20 B/param
    assert foreach.peak.temporaries_bytes == pytest.approx(4 * GPT2_PARAMS, rel=0.01)
    assert foreach.peak.total_bytes == pytest.approx(20 * GPT2_PARAMS, rel=0.01)
    # fused has no scratch: its peak (here in backward) stays below
    assert fused.peak.total_bytes < foreach.peak.total_bytes


@pytest.mark.slow
def test_precision_sets_the_matmul_dtype(small_gpt2: Make, trace_once: Traced) -> None:
    assert _matmul_dtypes(trace_once(small_gpt2(precision="amp-bf16"))) == {"bfloat16"}
    assert _matmul_dtypes(trace_once(small_gpt2(precision="amp-fp16"))) == {"float16"}
    bf16 = trace_once(small_gpt2(precision="bf16"))
    assert _matmul_dtypes(bf16) == {"bfloat16"}
    assert bf16.peak.parameters_bytes == pytest.approx(2 * GPT2_PARAMS, rel=0.01)
    fp8 = trace_once(small_gpt2(precision="fp8"))
    assert _matmul_dtypes(fp8) == {"float8_e4m3fn", "float8_e5m2"}
    assert any(n.startswith("fp8:") for n in fp8.notes)


def test_fp8_inference_keeps_its_matmul_weights_in_one_byte(small_gpt2: Make, trace_once: Traced) -> None:
    # fp8 inference was traced as training's amp-bf16: fp32 weights, 4 bytes a parameter, so an fp8
    # service was slower and twice the size of its bf16 twin. vLLM's fp8 keeps each matmul weight in
    # one byte and the embeddings (GPT-2's head is tied to them) in bf16: 12 layers × (768 × 2304 +
    # 768 × 768 + 2 × 768 × 3072) = 84,934,656 one-byte weights, the other 39,505,152 in two.
    fp8 = trace_once(small_gpt2(precision="fp8", task="infer"))
    assert fp8.params == GPT2_PARAMS
    assert fp8.peak.parameters_bytes == 84_934_656 + 2 * (GPT2_PARAMS - 84_934_656)
    assert _matmul_dtypes(fp8) == {"float8_e4m3fn"}  # forward only
    assert any(n.startswith("fp8 inference:") for n in fp8.notes)
    bf16 = trace_once(small_gpt2(precision="bf16", task="infer"))
    assert bf16.peak.parameters_bytes == 2 * GPT2_PARAMS


def test_an_fp8_weight_shared_by_two_layers_is_saved_once() -> None:
    import torch

    from gpuplan.profile.tracer import _fp8_inference_weights

    a, b = torch.nn.Linear(4, 4, bias=False), torch.nn.Linear(4, 4, bias=False)
    b.weight = a.weight
    model = torch.nn.Sequential(a, b).to(torch.bfloat16)
    assert _fp8_inference_weights(model) == 16.0  # one 4 × 4 weight, not two


def test_a_recording_of_an_fp8_service_is_of_that_service() -> None:
    # The fp8 inference trace added a key field that a recording's key is matched without: the
    # recording this version makes of an fp8 service was refused as "not of this workload".
    from gpuplan.profile.key import installed_torch_version, is_recording_of, profile_key
    from gpuplan.workload import Workload

    inputs = {"batch_size": 1, "seq_len": 64}
    w = Workload.from_dict(
        {"name": "s", "task": "infer", "model": {"preset": "gpt2"}, "inputs": inputs, "precision": "fp8"}
    )
    assert is_recording_of(w, profile_key(w), installed_torch_version())


@pytest.mark.slow
def test_every_preset_family_traces(small_gpt2: Make, trace_once: Traced) -> None:
    for preset, inputs in [
        ("vit-b16", {"batch_size": 2, "image_size": 224}),
        ("bert-base", {"batch_size": 2, "seq_len": 128}),
        ("t5-base", {"batch_size": 2, "seq_len": 128, "target_len": 32}),
        ("llama-1b", {"batch_size": 1, "seq_len": 128}),
        # ResNet-50: the family's builder as ResNet-101 (its 23 third-stage blocks trace 2.7x as long)
        ("resnet50", {"batch_size": 2, "image_size": 224}),
    ]:
        w = Workload.from_dict(
            {"name": preset, "model": {"preset": preset}, "inputs": inputs, "optimizer": "sgd"}
        )
        p = trace_once(w)
        assert p.flops_per_step > 0 and p.peak.total_bytes > 0, preset
        assert p.params == p.trainable_params, preset


def test_hf_config_model_traces_without_weights() -> None:
    pytest.importorskip("transformers")
    from pathlib import Path

    p = trace(Path(__file__).parents[1] / "workload" / "fixtures" / "hf_tiny_gpt2.yaml")
    # GPT2LMHeadModel, vocab 1000, 128 positions, d 64, 2 layers, tied head:
    # wte 64,000 + wpe 8,192 + 2 · (12·64² + 13·64) + ln_f 128 = 172,288
    assert p.params == 1000 * 64 + 128 * 64 + 2 * (12 * 64 * 64 + 13 * 64) + 128
    assert p.shape.family == "decoder" and p.shape.vocab_size == 1000


def test_hf_config_without_transformers_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys
    from pathlib import Path

    from gpuplan.errors import EstimateError

    monkeypatch.setitem(sys.modules, "transformers", None)  # makes `import transformers` fail
    with pytest.raises(
        EstimateError, match=r"^model.hf_config needs transformers: pip install 'gpuplan\[hf\]'$"
    ):
        trace(Path(__file__).parents[1] / "workload" / "fixtures" / "hf_tiny_gpt2.yaml")
