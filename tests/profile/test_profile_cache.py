"""The profile key and cache: one trace per workload content, reused without re-tracing."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest

from gpuplan.profile import (
    PROFILE_SCHEMA_VERSION,
    MemoryBreakdown,
    MemoryProfileCache,
    ModelShape,
    Profile,
    profile,
    profile_key,
)
from gpuplan.profile import tracer as tracer_module
from gpuplan.workload import Workload

pytest.importorskip("torch")

Make = Callable[..., Workload]


def test_key_ignores_what_does_not_shape_the_trace(small_gpt2: Make) -> None:
    base = profile_key(small_gpt2())
    assert base == profile_key(small_gpt2(name="other", constraints={"deadline": "3d", "budget_usd": 10}))
    assert base == profile_key(small_gpt2(parallelism="fsdp", gradient_accumulation=8))
    assert len(base) == 64 and int(base, 16) >= 0


@pytest.mark.parametrize(
    "change",
    [
        {"inputs": {"batch_size": 4}},
        {"precision": "amp-bf16"},
        {"optimizer": "sgd"},
        {"gradient_checkpointing": True},
        {"task": "infer"},
        {"model": {"preset": "gpt2-medium"}},
        {"model": {"frozen": ["wte"]}},
    ],
)
def test_key_changes_with_what_shapes_the_trace(small_gpt2: Make, change: dict[str, Any]) -> None:
    assert profile_key(small_gpt2(**change)) != profile_key(small_gpt2())


def test_key_of_an_hf_config_follows_its_content(tmp_path: Any) -> None:
    cfg = tmp_path / "config.json"
    cfg.write_text('{"model_type": "gpt2", "n_positions": 128}')
    w = Workload.from_dict(
        {"name": "h", "model": {"hf_config": str(cfg)}, "inputs": {"batch_size": 1, "seq_len": 8}}
    )
    before = profile_key(w)
    cfg.write_text('{"model_type": "gpt2", "n_positions": 256}')
    assert profile_key(w) != before


def test_cache_hit_returns_the_same_profile_without_tracing(
    small_gpt2: Make, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    real = tracer_module.trace_workload

    def counting(w: Workload, key: str) -> Profile:
        calls.append(key)
        return real(w, key)

    monkeypatch.setattr(tracer_module, "trace_workload", counting)
    cache = MemoryProfileCache()
    first = profile(small_gpt2(), cache)
    assert len(calls) == 1
    assert cache.get_profile(first.key, PROFILE_SCHEMA_VERSION) == first.to_json()

    again = profile(small_gpt2(), cache)
    assert len(calls) == 1 and again == first

    renamed = profile(small_gpt2(name="renamed"), cache)
    assert len(calls) == 1 and renamed.workload_name == "renamed" and renamed.ops == first.ops


def test_unreadable_cache_entry_is_retraced_and_replaced(
    small_gpt2: Make, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = small_gpt2()
    key = profile_key(w)
    cache = MemoryProfileCache()
    cache.put_profile(key, PROFILE_SCHEMA_VERSION, '{"not": "a profile"}')

    def fake_trace(workload: Workload, k: str) -> Profile:
        return Profile(
            key=k, workload_name=workload.name, task="train", precision="fp32", batch_size=2, seq_len=128,
            params=1, trainable_params=1, flops_per_step=1.0, forward_flops=1.0, ops=(),
            peak=MemoryBreakdown(
                parameters_bytes=0, buffers_bytes=0, gradients_bytes=0, optimizer_state_bytes=0,
                activations_bytes=0, temporaries_bytes=0,
            ),
            shape=ModelShape(family="custom"),
        )  # fmt: skip

    monkeypatch.setattr(tracer_module, "trace_workload", fake_trace)
    result = profile(w, cache)
    assert result.flops_per_step == 1.0
    assert cache.get_profile(key, PROFILE_SCHEMA_VERSION) == result.to_json()


def _hf_workload(tmp_path: Any, **over: Any) -> Workload:
    cfg = tmp_path / "config.json"
    cfg.write_text('{"model_type": "gpt2", "n_positions": 128, "attn_pdrop": 0.1}')
    d = {"name": "h", "model": {"hf_config": str(cfg)}, "inputs": {"batch_size": 1, "seq_len": 8}, **over}
    return Workload.from_dict(d)


def _old_key(w: Workload) -> str:
    """The key as it was before the SDPA-dropout trace fix: the same fields without its version."""
    import hashlib
    import json

    from gpuplan.profile.key import key_fields

    fields = key_fields(w)
    fields.pop("sdpa_dropout_trace")
    return hashlib.sha256(json.dumps(fields, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def test_an_hf_profile_cached_before_the_dropout_fix_is_traced_again(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = _hf_workload(tmp_path)
    peak = MemoryBreakdown(
        parameters_bytes=4.0,
        buffers_bytes=0.0,
        gradients_bytes=4.0,
        optimizer_state_bytes=8.0,
        activations_bytes=0.0,
        temporaries_bytes=0.0,
    )
    stale = Profile(
        key=_old_key(w),
        workload_name="h",
        task="train",
        precision="fp32",
        batch_size=1,
        seq_len=8,
        params=1,
        trainable_params=1,
        flops_per_step=1.0,
        forward_flops=1.0,
        ops=(),
        peak=peak,
        shape=ModelShape(family="decoder"),
    )
    cache = MemoryProfileCache()
    cache.put_profile(stale.key, PROFILE_SCHEMA_VERSION, stale.to_json())
    traced: list[str] = []

    def fresh(w: Workload, key: str) -> Profile:
        traced.append(key)
        return dataclasses.replace(stale, key=key, params=2)

    monkeypatch.setattr(tracer_module, "trace_workload", fresh)
    got = profile(w, cache)
    assert traced == [profile_key(w)] and profile_key(w) != stale.key
    assert got.params == 2  # the fresh trace, not the stale one


def test_the_dropout_trace_version_leaves_preset_and_eager_keys_as_they_were(
    small_gpt2: Make, tmp_path: Any
) -> None:
    from gpuplan.profile.key import key_fields

    # Presets never pass dropout to SDPA, and eager attention never took the fused path: their keys,
    # and so the committed calibration profiles, are unchanged.
    assert "sdpa_dropout_trace" not in key_fields(small_gpt2())
    assert "sdpa_dropout_trace" not in key_fields(_hf_workload(tmp_path, attention="eager"))
    assert "sdpa_dropout_trace" in key_fields(_hf_workload(tmp_path, task="infer"))


def _stale(key: str, **over: Any) -> Profile:
    """A cached profile as one traced before LoRA profiles kept their layers' names."""
    return Profile(
        key=key,
        workload_name="gpt2-small",
        task="train",
        precision="fp32",
        batch_size=2,
        seq_len=128,
        params=1,
        trainable_params=1,
        flops_per_step=1.0,
        forward_flops=1.0,
        ops=(),
        peak=MemoryBreakdown(
            parameters_bytes=4.0,
            buffers_bytes=0.0,
            gradients_bytes=4.0,
            optimizer_state_bytes=8.0,
            activations_bytes=0.0,
            temporaries_bytes=0.0,
        ),
        shape=ModelShape(family="decoder"),
        **over,
    )


def _no_trace(w: Workload, key: str) -> Profile:
    raise AssertionError("traced again")


def _cached_before_the_check(
    small_gpt2: Make, monkeypatch: pytest.MonkeyPatch, targets: list[str]
) -> tuple[Workload, str, MemoryProfileCache]:
    """A LoRA GPT-2 on ``targets`` whose profile was cached before the targets check (no linear
    names kept), with tracing made to fail: what the cache answers is all there is."""
    from gpuplan.profile import key as key_module

    monkeypatch.setattr(key_module, "_tracer", lambda: _no_trace)
    w = small_gpt2(model={"lora": {"rank": 8, "targets": targets}})
    key = profile_key(w)
    cache = MemoryProfileCache()
    cache.put_profile(key, PROFILE_SCHEMA_VERSION, _stale(key).to_json())
    return w, key, cache


def test_a_typo_in_the_lora_targets_is_refused_from_a_profile_cached_before_the_check(
    small_gpt2: Make, monkeypatch: pytest.MonkeyPatch
) -> None:
    # was: a LoRA profile traced before apply_lora refused a target that names no linear layer
    # stayed cached, so a typo'd target ("v_prj" for "v_proj") kept estimating from it.
    from gpuplan.errors import WorkloadError

    w, key, cache = _cached_before_the_check(small_gpt2, monkeypatch, ["q_proj", "v_prj"])
    said = r"'v_prj' names no nn\.Linear of this model; did you mean 'v_proj'"
    with pytest.raises(WorkloadError, match=said):
        profile(w, cache)
    assert Profile.from_json(cache.get_profile(key, PROFILE_SCHEMA_VERSION) or "").linear_names == ()


def test_a_lora_profile_cached_before_the_check_is_checked_once_without_a_new_trace(
    small_gpt2: Make, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The check needs the model's linear layers, not a trace: the model is built (on fake tensors)
    # once, its names kept with the cached profile, and the next use checks against them.
    from gpuplan.errors import WorkloadError
    from gpuplan.profile import key as key_module

    w, key, cache = _cached_before_the_check(small_gpt2, monkeypatch, ["q_proj", "v_proj"])
    got = profile(w, cache)
    assert got.params == 1  # the cached profile, not a new trace
    assert {n.rpartition(".")[2] for n in got.linear_names} >= {"q_proj", "v_proj"}
    kept = Profile.from_json(cache.get_profile(key, PROFILE_SCHEMA_VERSION) or "")
    assert kept.linear_names == got.linear_names

    def no_build(w: Workload) -> tuple[str, ...]:
        raise AssertionError("model built again")

    monkeypatch.setattr(key_module, "_linear_names", no_build)
    assert profile(w, cache).linear_names == got.linear_names
    # A profile that keeps its names checks a target against them alone.
    typo = small_gpt2(model={"lora": {"rank": 8, "targets": ["q_proj", "vv_proj"]}})
    typo_key = profile_key(typo)
    stale = _stale(typo_key, linear_names=kept.linear_names)
    cache.put_profile(typo_key, PROFILE_SCHEMA_VERSION, stale.to_json())
    with pytest.raises(WorkloadError, match="did you mean 'v_proj'"):
        profile(typo, cache)


def test_a_lora_trace_keeps_the_names_of_the_models_linear_layers(small_gpt2: Make) -> None:
    from gpuplan.profile.key import key_fields

    w = small_gpt2(model={"lora": {"rank": 8, "targets": ["q", "v"]}})
    traced = profile(w)
    # their qualified names, which a dotted target (attn.q_proj) is matched against too
    assert "layers.0.attn.q_proj" in traced.linear_names and "layers.0.attn.v_proj" in traced.linear_names
    assert traced.linear_names == tuple(sorted(set(traced.linear_names)))
    assert "lora_targets_check" not in key_fields(w)  # the check does not move the key
