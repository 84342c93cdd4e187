"""With a tracer, the advice's checkpointing and combined rows are the estimate of the workload
written with the change: the same profile, the same figures, a step time for every combined set.

An 8B LoRA's checkpointing row had said 39.3 GiB and 19.16 s where the workload with
``gradient_checkpointing: true`` is estimated at 44.1 GiB and 17.68 s (the block-level keep and a
whole forward's recompute, where the logits are kept and not recomputed), and its combined row
showed no step time where the applied estimate is 38 % slower than the workload as written."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import pytest
from perf_helpers import GIB, SIMPLE_CAL, breakdown, make_profile, op

from gpuplan.hardware import get_gpu
from gpuplan.perf.advisor import Current, advise
from gpuplan.perf.estimate import EstimateRequest, run_estimate
from gpuplan.profile.model import ModelShape, Profile

CAL = SIMPLE_CAL
RTX = get_gpu("RTX-4090")


def _workload() -> Profile:
    """fp32 AdamW moments (8 B/param, 8 GiB) beside 64 GiB of activations at batch 2: only
    checkpointing, 8-bit moments and micro-batch 1 together fit a 24 GB card."""
    params = 2**30
    peak = breakdown(
        parameters=2.0 * params, gradients=2.0 * params, optimizer_state=8.0 * params, activations=64 * GIB
    )
    return make_profile(
        ops=(op("forward", flops=2e13), op("backward", flops=4e13)),
        peak=peak,
        precision="bf16",
        batch_size=2,
        params=params,
        shape=ModelShape(family="cnn"),
    )


class _Tracer:
    """Stands in for tracing the workload with a change applied: a profile per set of changes,
    its activations and its backward's FLOPs set apart from what the advisor would derive."""

    def __init__(self, base: Profile) -> None:
        self.base = base
        self.asked: list[dict[str, str | int]] = []

    def __call__(self, changes: Mapping[str, str | int]) -> Profile:
        self.asked.append(dict(changes))
        b = int(changes.get("batch_size", self.base.batch_size))
        return replace(
            self.base,
            batch_size=b,
            peak=replace(self.base.peak, activations_bytes=12.0 * GIB * b, optimizer_state_bytes=2.1 * 2**30),
            ops=(op("forward", flops=1e13 * b), op("backward", flops=2.6e13 * b)),
            activation_checkpointing="full",
        )


def test_checkpointing_and_the_combined_row_are_the_applied_estimates() -> None:
    p = _workload()
    tracer = _Tracer(p)
    request = EstimateRequest(profile=p, gpu=RTX, calibration=CAL)
    advice = {a.action: a for a in advise(request, retrace=tracer)}
    gc = advice["gradient_checkpointing"]
    applied = run_estimate(request.changed(profile=tracer({"activation_checkpointing": "full"})))
    assert gc.required_gib == pytest.approx(applied.memory.required_gib)
    assert gc.step_time_s == pytest.approx(applied.step_time_s)
    assert "traced with activation_checkpointing: full" in gc.derivation

    both = advice["combined"]
    assert both.changes == ("gradient_checkpointing", "adamw_8bit", "micro_batch")
    asked = {
        "activation_checkpointing": "full",
        "optimizer": "adamw-8bit",
        "batch_size": 1,
        "gradient_accumulation": 2,
    }
    assert asked in tracer.asked  # the settings the row names, as the workload file writes them
    written = run_estimate(request.changed(profile=tracer(asked), grad_accum_steps=2))
    assert both.required_gib == pytest.approx(written.memory.required_gib)
    # 8-bit AdamW's effect on the step had not been derived: the traced workload's is its time
    assert both.step_time_s == pytest.approx(written.step_time_s)


def test_without_a_tracer_the_rows_are_derived_as_before() -> None:
    rows = advise(EstimateRequest(profile=_workload(), gpu=RTX, calibration=CAL))
    advice = {a.action: a for a in rows}
    assert "traced" not in advice["gradient_checkpointing"].derivation
    # the chain with 8-bit AdamW, whose effect on the step is not derived without a trace (a pair of
    # derived changes, ZeRO-2 and activation checkpointing, is another "combined" row, with a time)
    (chain,) = [a for a in rows if a.action == "combined" and "adamw_8bit" in a.changes]
    assert chain.step_time_s is None


def test_the_workload_traced_for_a_row_is_the_one_written_with_its_settings() -> None:
    # The retraced workload is the one a user writes with the row's settings: the same profile key,
    # so the row's figures and `gpuplan estimate` of that file read the same trace.
    from gpuplan.api import _retracer
    from gpuplan.profile.key import profile_key
    from gpuplan.workload import Workload

    base = {
        "name": "lora",
        "task": "finetune",
        "model": {"preset": "llama-8b", "lora": {"rank": 16}},
        "inputs": {"batch_size": 4, "seq_len": 4096},
        "precision": "bf16",
    }
    keys: list[str] = []

    def get(w: Workload) -> Profile:
        keys.append(profile_key(w))
        return _workload()

    retrace = _retracer(Workload.model_validate(base), get)
    retrace({"activation_checkpointing": "full"})
    retrace(
        {
            "activation_checkpointing": "full",
            "loss": "fused-linear",
            "batch_size": 1,
            "gradient_accumulation": 4,
        }
    )
    retrace({"activation_checkpointing": "full"})  # asked again: traced once
    retrace({"quantization": "nf4", "double_quantization": 1})
    retrace({"seq_len": 2048})
    written = [
        {**base, "gradient_checkpointing": True},
        {
            **base,
            "gradient_checkpointing": True,
            "loss": "fused-linear",
            "inputs": {"batch_size": 1, "seq_len": 4096},
            "gradient_accumulation": 4,
        },
        {
            **base,
            "model": {
                "preset": "llama-8b",
                "lora": {"rank": 16, "quantization": "nf4", "double_quantization": True},
            },
        },
        {**base, "inputs": {"batch_size": 4, "seq_len": 2048}},
    ]
    assert keys == [profile_key(Workload.model_validate(w)) for w in written]


def _lora_like() -> Profile:
    """An 8B model's frozen bf16 weights (15 GiB), 20 M trainable adapter parameters with fp32
    AdamW moments (0.15 GiB), and 100 GiB of activations: 8-bit moments save about 0.1 GiB."""
    params, adapters = 8 * 2**30, 20_000_000
    peak = breakdown(
        parameters=2.0 * params,
        gradients=4.0 * adapters,
        optimizer_state=8.0 * adapters,
        activations=100 * GIB,
    )
    p = make_profile(
        ops=(op("forward", flops=2e14), op("backward", flops=3e14)),
        peak=peak,
        precision="bf16",
        task="finetune",
        batch_size=4,
        params=params,
        shape=ModelShape(family="cnn"),
    )
    return replace(p, trainable_params=adapters)


def test_changes_that_save_under_one_percent_and_still_do_not_fit_are_left_out_and_counted() -> None:
    from gpuplan.perf.sweep import estimate_all

    request = EstimateRequest(profile=_lora_like(), gpu=get_gpu("A10G"), calibration=CAL)
    everything = {a.action for a in advise(request)}
    assert {"adamw_8bit", "paged_adamw_8bit"} <= everything  # advised, saving ~0.1 of 100+ GiB
    (outcome,) = estimate_all([request])
    shown = {a.action for a in outcome.advice}
    assert not {"adamw_8bit", "paged_adamw_8bit"} & shown
    assert "gradient_checkpointing" in shown and "bigger_gpu" in shown  # real changes stay
    assert outcome.advice_left_out == len(everything) - len(shown) >= 2


def test_a_lora_job_is_offered_qlora_and_shorter_samples_each_traced_applied() -> None:
    # Neither had been offered: an 8B LoRA's OOM advice named no 4-bit base and no shorter sequence.
    p = replace(
        make_profile(
            ops=(op("forward", flops=2e14), op("backward", flops=3e14)),
            peak=breakdown(parameters=16 * GIB, activations=100 * GIB),
            precision="bf16",
            task="finetune",
            batch_size=4,
            seq_len=4096,
            params=8 * 2**30,
            shape=ModelShape(family="decoder", num_layers=32, hidden_size=4096, vocab_size=128_256),
        ),
        trainable_params=20_000_000,
    )
    asked: list[dict[str, str | int]] = []

    def tracer(changes: Mapping[str, str | int]) -> Profile:
        asked.append(dict(changes))
        return replace(p, peak=replace(p.peak, parameters_bytes=5 * GIB, activations_bytes=10 * GIB))

    request = EstimateRequest(profile=p, gpu=get_gpu("A10G"), calibration=CAL)
    advice = {a.action: a for a in advise(request, current=Current(lora=True), retrace=tracer)}
    assert {"quantization": "nf4", "double_quantization": 1} in asked and {"seq_len": 2048} in asked
    qlora, shorter = advice["qlora"], advice["shorter_seq_len"]
    assert "model.lora.quantization: nf4, double_quantization: true" in qlora.summary
    assert "inputs.seq_len: 2048 instead of 4096, if your data allows" in shorter.summary
    applied = run_estimate(request.changed(profile=tracer({})))
    assert qlora.required_gib == pytest.approx(applied.memory.required_gib)
    # Without a tracer, or for a job that is not LoRA, no QLoRA row; shorter samples need a tracer too.
    assert not {"qlora", "shorter_seq_len"} & {a.action for a in advise(request, current=Current(lora=True))}
    assert "qlora" not in {a.action for a in advise(request, retrace=tracer)}
