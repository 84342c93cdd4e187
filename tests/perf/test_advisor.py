"""The OOM advisor: each change's memory and step-time cost, derived from the breakdown."""

from __future__ import annotations

from dataclasses import replace

import pytest
from perf_helpers import GIB, SIMPLE_CAL, breakdown, make_profile, op

from gpuplan.hardware import get_gpu
from gpuplan.perf.advisor import Current, advise
from gpuplan.perf.estimate import EstimateRequest, estimate, run_estimate
from gpuplan.perf.links import Link
from gpuplan.profile.model import ModelShape, Profile

CAL = SIMPLE_CAL
V100 = get_gpu("V100-SXM2-16GB")


def _cnn(batch: int = 256) -> object:
    # ResNet-50-like fp32 trace: 0.2 GiB of state, 20 GiB of activations at batch 256
    peak = breakdown(
        parameters=0.1 * GIB,
        gradients=0.01 * GIB,
        optimizer_state=0.1 * GIB,
        activations=20.0 * GIB,
        temporaries=0.2 * GIB,
    )
    return make_profile(
        ops=(
            op("forward", "conv", "float32", flops=2e12, name="aten.convolution"),
            op("backward", "conv", "float32", flops=4e12, name="aten.convolution_backward"),
        ),
        peak=peak,
        precision="fp32",
        batch_size=batch,
        params=25_000_000,
        shape=ModelShape(family="cnn"),
    )


def test_micro_batch_keeps_global_batch_and_fits() -> None:
    p = _cnn()
    assert not estimate(p, V100, calibration=CAL).fits
    advice = {a.action: a for a in advise(EstimateRequest(profile=p, gpu=V100, calibration=CAL))}
    mb = advice["micro_batch"]
    assert mb.fits
    assert "× 2 accumulation" in mb.summary or "× 4 accumulation" in mb.summary
    # compute-bound convs scale linearly: same total work, same time
    assert mb.step_time_factor == pytest.approx(1.0, rel=1e-6)


def test_checkpointing_costs_one_forward() -> None:
    p = _cnn()
    a = {a.action: a for a in advise(EstimateRequest(profile=p, gpu=V100, calibration=CAL))}[
        "gradient_checkpointing"
    ]
    # fwd 2e12, bwd 4e12: (2 + 4 + 2) / (2 + 4) = 1.333
    assert a.step_time_factor == pytest.approx(8 / 6)
    assert a.peak_memory_gib < estimate(p, V100, calibration=CAL).peak_memory_gib


def test_fused_optimizer_removes_the_foreach_temporary() -> None:
    # Llama-7B-like foreach AdamW peak (ESTIMATION_NOTES 1.7): P 25 + G 25 + O 50 + temp 25 GiB
    peak = breakdown(parameters=25 * GIB, gradients=25 * GIB, optimizer_state=50 * GIB, temporaries=25 * GIB)
    p = make_profile(
        ops=(op(flops=1e14),), peak=peak, params=6_738_415_616, shape=ModelShape(family="decoder")
    )
    advice = {
        a.action: a for a in advise(EstimateRequest(profile=p, gpu=get_gpu("H100-SXM"), calibration=CAL))
    }
    fused = advice["fused_optimizer"]
    assert fused.peak_memory_gib == pytest.approx(100 * 1.1 + 0.5 + 32 / 1024, rel=1e-3)
    assert "lower bound" in fused.derivation
    assert "micro_batch" not in advice  # an optimizer-step peak does not shrink with the batch


def test_lora_drops_gradients_and_optimizer_state_and_fits_80gb() -> None:
    peak = breakdown(
        parameters=25 * GIB,
        gradients=25 * GIB,
        optimizer_state=50 * GIB,
        activations=26.5 * GIB,
        temporaries=0.5 * GIB,
    )
    p = make_profile(
        ops=(op("forward", flops=3e13), op("backward", flops=6e13)),
        peak=peak,
        task="finetune",  # LoRA adapts a trained base: a pre-train (task: train) has none
        params=6_738_415_616,
        shape=ModelShape(family="decoder"),
    )
    a100 = get_gpu("A100-SXM4-80GB")
    lora = {a.action: a for a in advise(EstimateRequest(profile=p, gpu=a100, calibration=CAL))}["lora"]
    # 25 + 26.5 + 0.5 = 52 GiB traced → 57.6 GiB shown
    assert lora.fits
    assert lora.peak_memory_gib == pytest.approx(52 * 1.1 + 0.4 + 8.125 / 1024, rel=1e-3)
    # backward matmuls halved: (3 + 3) / (3 + 6) = 0.667
    assert lora.step_time_factor == pytest.approx(6 / 9)


def test_advice_lists_fitting_changes_first() -> None:
    advice = advise(EstimateRequest(profile=_cnn(), gpu=V100, calibration=CAL))
    fits = [a.fits for a in advice]
    assert fits == sorted(fits, reverse=True)
    assert any(a.action == "bigger_gpu" for a in advice)


def test_advice_is_costed_under_the_workloads_torch_compile() -> None:
    p = _cnn()
    eager = {a.action: a for a in advise(EstimateRequest(profile=p, gpu=V100, calibration=CAL))}
    compiled = {
        a.action: a for a in advise(EstimateRequest(profile=p, gpu=V100, calibration=CAL, compiled=True))
    }
    # One GPU, no communication: every step is compute ÷ compile_speedup (1.3 by default), so the
    # micro-batch change takes 1/1.3 of its eager time and costs the same factor of its own base.
    eager_s, compiled_s = eager["micro_batch"].step_time_s, compiled["micro_batch"].step_time_s
    assert eager_s is not None and compiled_s is not None
    assert compiled_s == pytest.approx(eager_s / CAL.compile_speedup)
    assert compiled["micro_batch"].step_time_factor == pytest.approx(eager["micro_batch"].step_time_factor)
    assert compiled.keys() == eager.keys()


def _llm_full_finetune_bf16() -> Profile:
    # A 3B decoder in pure bf16 with fused AdamW, peaking in the loss: weights 6 + AdamW 12 GiB
    # (4 B/param of bf16 moments) + activations 4 GiB + fp32 logits and log-probs
    # 8 B × 2 × 4096 × 128,256 = 7.8 GiB (temporaries).
    params = 3 * 2**30  # 3.2e9 parameters, 2 B each = 6 GiB
    logits = 8.0 * 2 * 4096 * 128_256
    peak = breakdown(
        parameters=2.0 * params, optimizer_state=4.0 * params, activations=4 * GIB, temporaries=logits
    )
    shape = ModelShape(family="decoder", num_layers=28, hidden_size=3072, vocab_size=128_256)
    return make_profile(
        ops=(op(flops=1e14),), peak=peak, params=params, batch_size=2, seq_len=4096, shape=shape
    )


def test_oom_advice_offers_8bit_adamw_paged_adamw_and_lighter_losses() -> None:
    p = _llm_full_finetune_bf16()
    rtx = get_gpu("RTX-4090")
    base = estimate(p, rtx, calibration=CAL)
    # 6 + 12 + 4 + 7.8 = 29.8 GiB allocated: no fit on 24 GiB.
    assert not base.fits
    advice = {a.action: a for a in advise(EstimateRequest(profile=p, gpu=rtx, calibration=CAL))}
    # 8-bit AdamW: 12 → 2.03 B/param × 3.2e9 = 6.06 GiB; 29.8 − 5.94 = 23.9 GiB allocated, still
    # no fit; paged: the 6.06 GiB of state leaves the required memory: 17.8 GiB fits.
    assert "8-bit AdamW" in advice["adamw_8bit"].summary and not advice["adamw_8bit"].fits
    assert advice["paged_adamw_8bit"].fits
    # Chunked loss: logits 8 → 3 B/element saves 5 × 2 × 4096 × 128,256 B = 4.9 GiB;
    # fused-linear 8 → 1.5 B/element minus the head's weight gradient (128,256 × 3072 × 2 B).
    chunked, fused = advice["chunked_loss"], advice["fused_linear_loss"]
    assert "loss: chunked" in chunked.summary and "loss: fused-linear" in fused.summary
    assert "8-bit AdamW" in advice["paged_adamw_8bit"].summary
    assert fused.peak_memory_gib < chunked.peak_memory_gib < base.peak_memory_gib
    assert base.peak_memory_gib - chunked.peak_memory_gib == pytest.approx(4.9 * 1.10, rel=0.01)


def _llm_on_two_nodes() -> EstimateRequest:
    # 1.3B-parameter decoder under AMP fp16, DDP over 2 nodes × 8 V100 joined by a slow 10 Gbit/s TCP
    # network the user gave: 2.6 GB of fp16 gradients to all-reduce each step make the network matter.
    peak = breakdown(
        parameters=5.2 * GIB,
        gradients=2.6 * GIB,
        optimizer_state=10.4 * GIB,
        activations=8.0 * GIB,
        temporaries=0.2 * GIB,
    )
    p = make_profile(
        ops=(op("forward", dtype="float16", flops=1e13), op("backward", dtype="float16", flops=2e13)),
        peak=peak,
        precision="amp-fp16",
        params=1_300_000_000,
        shape=ModelShape(family="decoder"),
    )
    link = Link.for_gpus(V100, 16, gpus_per_node=8, network_gbit_s=10.0, network_kind="tcp")
    return EstimateRequest(profile=p, gpu=V100, count=16, link=link, calibration=CAL)


def test_advice_is_costed_on_the_requests_own_link() -> None:
    # The advisor once dropped the link (and the job size) and compared each change with a step
    # costed on the default 400 Gbit/s network: its factors did not match `estimate`'s step time.
    request = _llm_on_two_nodes()
    base = run_estimate(request)
    default_link = run_estimate(request.changed(link=None))
    assert not base.fits
    assert base.step_time_s > 1.05 * default_link.step_time_s  # the slow network shows
    advice = advise(request)
    same_config = [a for a in advice if a.gpu == V100.id and a.gpu_count == 16 and a.step_time_s]
    assert same_config
    for a in same_config:
        assert a.step_time_s is not None and a.step_time_factor is not None
        assert a.step_time_s / a.step_time_factor == pytest.approx(base.step_time_s), a.action


def test_sharded_advice_keeps_the_users_network_and_node_size() -> None:
    # FSDP fits on the 16 GPUs at every end of the memory band; ZeRO-2 keeps 16-bit weights and
    # gradients whole (15.1 GiB must fit at the point, 13.3–17.9 over the band, of 15.8 usable):
    # it may not fit on any count and is not offered as a change that makes it fit. The step time
    # of what is offered must be costed on the user's 10 Gbit/s network.
    request = _llm_on_two_nodes()
    sharded = [a for a in advise(request) if a.action in ("zero2", "fsdp") and a.gpu_count >= 16]
    assert {a.action for a in sharded} == {"fsdp"}
    for a in sharded:
        link = Link.for_gpus(V100, a.gpu_count, gpus_per_node=8, network_gbit_s=10.0, network_kind="tcp")
        expected = run_estimate(request.changed(count=a.gpu_count, parallelism=a.action, link=link))
        assert a.step_time_s == pytest.approx(expected.step_time_s), a.action


def test_a_chunked_loss_is_not_advised_where_a_frozen_heads_copies_outweigh_it() -> None:
    # The same decoder fine-tuned with LoRA under amp-bf16 (a profile that does not record its
    # head, whose trainable parameters are fewer than the head's 128,256 × 3072): each of the 8
    # chunks keeps its own bf16 copy of the frozen head, 7 × 128,256 × 3072 × 2 B = 5.1 GiB more
    # than the standard loss's one, against the 5 × 2 × 4096 × 128,256 B = 4.9 GiB of logits freed.
    full = _llm_full_finetune_bf16()
    lora = replace(full, trainable_params=20_000_000, precision="amp-bf16")
    rtx = get_gpu("RTX-4090")
    actions = {a.action for a in advise(EstimateRequest(profile=lora, gpu=rtx, calibration=CAL))}
    assert "chunked_loss" not in actions
    # The head that trains (recorded so) is cast once, as autocast caches a trained weight's copy.
    trains = {
        a.action
        for a in advise(EstimateRequest(profile=replace(lora, head_trains=True), gpu=rtx, calibration=CAL))
    }
    assert "chunked_loss" in trains


def test_sharded_advice_past_one_node_takes_the_default_node_size_where_none_was_given() -> None:
    # was: 4 GPUs with no instance kept "4 per node", so FSDP on 16 H100s was costed on 4 nodes × 4
    # (7.1 s a step) while the estimate of those 16 GPUs has 2 nodes × 8 (4.95 s); here FSDP on 8
    # V100s was two nodes of 4 on the network, not one node of 8 on NVLink
    request = replace(_llm_on_two_nodes(), count=4, link=Link.for_gpus(V100, 4))
    spread = [a for a in advise(request) if a.action in ("zero2", "fsdp") and a.gpu_count > 4]
    assert spread
    for a in spread:
        expected = run_estimate(request.changed(count=a.gpu_count, parallelism=a.action, link=None))
        assert a.step_time_s == pytest.approx(expected.step_time_s), a.action


def test_sharding_advice_counts_whole_nodes_of_the_instance_not_only_doublings() -> None:
    # 4 × A10G on 4-GPU instances (g5.12xlarge): FSDP fits on 12 (three instances), not on 8; the
    # advice had jumped from 8 to 16, a third more GPUs than needed.
    a10g = get_gpu("A10G")
    params = 10 * 2**30
    peak = breakdown(
        parameters=2.0 * params, gradients=2.0 * params, optimizer_state=12.0 * params, activations=2 * GIB
    )
    shape = ModelShape(family="decoder", num_layers=32, hidden_size=4096, vocab_size=32000)
    p = make_profile(ops=(op(flops=1e14),), peak=peak, params=params, batch_size=1, seq_len=2048, shape=shape)

    def on(n: int) -> bool:
        link = Link.for_gpus(a10g, n, gpus_per_node=4, nvlink=False)
        return estimate(p, a10g, count=n, parallelism="fsdp", link=link).fits

    assert not on(8) and on(12)
    request = EstimateRequest(
        profile=p, gpu=a10g, count=4, link=Link.for_gpus(a10g, 4, gpus_per_node=4, nvlink=False)
    )
    fsdp = next(a for a in advise(request) if a.action == "fsdp")
    assert (fsdp.gpu_count, fsdp.fits) == (12, True)
    # A node size nobody gave (4 GPUs, no instance) keeps the doublings: 16 are two nodes of 8.
    free = next(a for a in advise(EstimateRequest(profile=p, gpu=a10g, count=4)) if a.action == "fsdp")
    assert free.gpu_count in {8, 16, 32}


def _vit(task: str) -> Profile:
    # ViT-B/16-like amp-bf16 AdamW step at batch 256: 86.6 M params, fp32 weights and gradients
    # 4 B/param each + AdamW 8 B/param (1.3 GiB in all) beside 17.5 GiB of activations: 19.7 GiB
    # must fit of an A10's 22.5 usable, "may not fit" over the estimate's band (as the vit-b16
    # preset at batch 256 is); every single change below makes it fit.
    params = 86_567_656
    peak = breakdown(
        parameters=4.0 * params,
        gradients=4.0 * params,
        optimizer_state=8.0 * params,
        activations=17.5 * GIB,
        temporaries=0.1 * GIB,
    )
    return make_profile(
        ops=(op("forward", flops=9e12), op("backward", flops=18e12)),
        peak=peak,
        task=task,
        batch_size=256,
        params=params,
        shape=ModelShape(family="vit"),
    )


A10 = get_gpu("A10")


def test_a_pre_train_is_not_told_to_fine_tune_adapters_and_keeping_its_method_comes_first() -> None:
    # A pre-train (task: train) starts from random weights: there is no base for LoRA to freeze.
    # LoRA's step is faster (backward matmuls halved), but the changes that keep the method —
    # micro-batches with accumulation (global batch kept), checkpointing — rank before those that
    # change the numerics (8-bit AdamW, bf16 weights), whatever their step time.
    p = _vit("train")
    assert not estimate(p, A10, calibration=CAL).fits
    advice = advise(EstimateRequest(profile=p, gpu=A10, calibration=CAL))
    assert "lora" not in {a.action for a in advice}
    fitting = [a.action for a in advice if a.fits]
    assert fitting[:2] == ["micro_batch", "gradient_checkpointing"]
    assert advice[0].summary == "micro-batch 128 × 2 accumulation steps (global batch kept)"
    # The numerics-changing ones are still offered, after every change on the same GPU that keeps
    # the workload, saying what they change; before more GPUs and another GPU (how to fit on what
    # the user has comes first).
    numerics = ("adamw_8bit", "paged_adamw_8bit", "bf16_weights")
    fits = [a for a in advice if a.fits]
    changed = [i for i, a in enumerate(fits) if a.action in numerics]
    own = [i for i, a in enumerate(fits) if a.action not in numerics and (a.gpu, a.gpu_count) == (A10.id, 1)]
    elsewhere = [i for i, a in enumerate(fits) if (a.gpu, a.gpu_count) != (A10.id, 1)]
    assert elsewhere and max(own) < min(changed) and max(changed) < min(elsewhere)
    assert all(
        "(changes the numerics: 8-bit optimizer state)" in fits[i].summary or "bf16" in fits[i].summary
        for i in changed
    )


def test_a_full_fine_tune_is_offered_lora_after_the_changes_that_keep_its_method() -> None:
    p = _vit("finetune")
    advice = advise(EstimateRequest(profile=p, gpu=A10, calibration=CAL))
    fitting = [a.action for a in advice if a.fits]
    lora = next(a for a in advice if a.action == "lora")
    # frozen base: no gradients or AdamW state, it fits; backward matmuls halved: (9 + 9) / 27
    assert lora.fits and lora.step_time_factor == pytest.approx(18 / 27)
    assert fitting[0] == "micro_batch"
    # Last: it trains adapters, not the weights; the 8-bit optimizers and bf16 weights still train
    # every weight, with other rounding, and come before it.
    assert fitting[-1] == "lora"
    assert fitting.index("adamw_8bit") > fitting.index("gradient_checkpointing")


def test_bf16_weights_names_the_workloads_own_optimizer_state() -> None:
    # fp32 ResNet-50 with SGD: its state is a momentum buffer, not AdamW's two moments (on an A10,
    # which has bf16: the V100 has none).
    request = EstimateRequest(profile=_cnn(), gpu=A10, calibration=CAL)
    sgd = {a.action: a for a in advise(request, current=Current(optimizer="sgd"))}["bf16_weights"]
    assert sgd.summary == "keep weights, gradients and SGD momentum in bf16 (pure-bf16 training)"
    adamw = {a.action: a for a in advise(request)}["bf16_weights"]
    assert "AdamW state" in adamw.summary


def test_bf16_weights_keeps_an_8bit_optimizers_state_as_it_is() -> None:
    # 8-bit AdamW's moments are 8-bit already: only weights and gradients halve. fp32 weights and
    # gradients 4 GiB each, 8-bit state 2 GiB, activations 10 GiB: 20 → 16 GiB allocated.
    peak = breakdown(parameters=4 * GIB, gradients=4 * GIB, optimizer_state=2 * GIB, activations=10 * GIB)
    p = make_profile(ops=(op(flops=1e13),), peak=peak, params=2**30, shape=ModelShape(family="decoder"))
    request = EstimateRequest(profile=p, gpu=get_gpu("RTX-4090"), calibration=CAL)
    base = estimate(p, get_gpu("RTX-4090"), calibration=CAL)
    bf16 = {a.action: a for a in advise(request, current=Current(optimizer="adamw-8bit"))}["bf16_weights"]
    assert bf16.summary == "keep weights and gradients in bf16 (pure-bf16 training)"
    assert "optimizer state kept as it is" in bf16.derivation
    # 4 GiB saved, shown × 1.1 (the allocator's reserve over allocated)
    assert base.peak_memory_gib - bf16.peak_memory_gib == pytest.approx(4 * 1.1, rel=1e-3)


def _activation_heavy(batch: int = 2) -> Profile:
    # bf16 weights 2 GiB + gradients 2 GiB + AdamW state 4 GiB = 8 GiB of state, 64 GiB of
    # activations at batch 2: micro-batch 1 alone needs 8 + 32, checkpointing alone 8 + 64 × 0.25
    # (no layer structure: 1/4 kept), neither within a 24 GB RTX 4090; both together 8 + 8.
    params = 2**30
    peak = breakdown(
        parameters=2.0 * params, gradients=2.0 * params, optimizer_state=4.0 * params, activations=64 * GIB
    )
    return make_profile(
        ops=(op("forward", flops=2e13), op("backward", flops=4e13)),
        peak=peak,
        precision="bf16",
        batch_size=batch,
        params=params,
        shape=ModelShape(family="cnn"),
    )


def test_where_no_single_change_fits_checkpointing_with_micro_batches_is_offered_before_a_bigger_gpu() -> (
    None
):
    rtx4090 = get_gpu("RTX-4090")
    advice = advise(EstimateRequest(profile=_activation_heavy(), gpu=rtx4090, calibration=CAL))
    same_gpu = [a for a in advice if a.gpu == rtx4090.id and a.gpu_count == 1 and a.action != "combined"]
    assert same_gpu and not any(a.fits for a in same_gpu)  # no single change fits the 4090
    first = advice[0]
    assert first.action == "combined" and first.fits and first.gpu == rtx4090.id
    assert first.changes == ("gradient_checkpointing", "micro_batch")
    # every setting to change, as the workload writes it
    assert "gradient_checkpointing: true" in first.summary
    assert "inputs.batch_size: 1, gradient_accumulation: 2" in first.summary
    # (8 + 64 × 0.25 / 2) × 1.1 = 17.6 GiB allocated, within the 4090's usable memory
    assert first.required_gib is not None and first.capacity_gib is not None
    assert first.required_gib <= first.capacity_gib
    # fwd 2e13, bwd 4e13, one forward recomputed; two micro-batches of half the work: 8 / 6
    assert first.step_time_factor == pytest.approx(8 / 6, rel=1e-6)
    assert [a.action for a in advice].index("bigger_gpu") > 0


def test_no_combination_is_tried_where_one_change_fits() -> None:
    advice = advise(EstimateRequest(profile=_cnn(), gpu=V100, calibration=CAL))
    assert any(a.action == "micro_batch" and a.fits for a in advice)
    assert all(a.action != "combined" for a in advice)


def _weights_state_and_activations(
    params: int,
    *,
    weights: float,
    moments: float,
    activations_gib: float,
    precision: str,
    forward_flops: float,
    batch_size: int = 2,
    shape: ModelShape | None = None,
) -> Profile:
    """``weights`` B/param of weights and as many of gradients, ``moments`` B/param of AdamW state,
    and ``activations_gib`` of activations at the peak; backward twice the forward's FLOPs."""
    peak = breakdown(
        parameters=weights * params,
        gradients=weights * params,
        optimizer_state=moments * params,
        activations=activations_gib * GIB,
    )
    return make_profile(
        ops=(op("forward", flops=forward_flops), op("backward", flops=2 * forward_flops)),
        peak=peak,
        precision=precision,
        batch_size=batch_size,
        params=params,
        shape=shape or ModelShape(family="cnn"),
    )


def test_8bit_adamw_joins_checkpointing_and_micro_batches_where_they_are_not_enough() -> None:
    # fp32 AdamW moments (8 B/param): 12 GiB of state beside 64 GiB of activations at batch 2.
    # Checkpointing with micro-batch 1 still needs (12 + 64 × 0.25 / 2) × 1.1 = 22 GiB allocated,
    # past the 4090's usable memory once its context is added; with 8-bit moments (2.03 B/param)
    # the state is 6 GiB and the step fits.
    p = _weights_state_and_activations(
        2**30, weights=2.0, moments=8.0, activations_gib=64, precision="bf16", forward_flops=2e13
    )
    advice = advise(EstimateRequest(profile=p, gpu=get_gpu("RTX-4090"), calibration=CAL))
    # the cheapest combination (on the one GPU), and the cheapest that keeps the numerics: ZeRO-2
    # over 8 GPUs with checkpointing (its own GPUs then hold the state 8 ways)
    both, keeping = sorted((a for a in advice if a.action == "combined"), key=lambda a: a.gpu_count)
    assert both.fits and keeping.fits
    assert both.changes == ("gradient_checkpointing", "adamw_8bit", "micro_batch")
    assert "optimizer: adamw-8bit" in both.summary and "gradient_checkpointing: true" in both.summary
    assert both.step_time_s is None  # 8-bit AdamW's effect on the step time is not derived
    assert keeping.changes == ("zero2", "gradient_checkpointing") and keeping.gpu_count == 8
    # each step says what it saves of the memory that must fit: together, all of the change
    base = run_estimate(EstimateRequest(profile=p, gpu=get_gpu("RTX-4090"), calibration=CAL))
    assert both.required_gib is not None and len(both.saved_gib) == 3 and all(x > 0 for x in both.saved_gib)
    assert sum(both.saved_gib) == pytest.approx(base.memory.required_gib - both.required_gib)
    assert " — saves 49.0 GiB; optimizer: adamw-8bit — saves 6.1 GiB; " in both.summary
    # it fits the one GPU the user has: first, saying that it changes the numerics; the workload
    # as written on 8 GPUs and on a bigger GPU after it, both still offered
    order = [id(a) for a in advice]
    assert order.index(id(both)) == 0 and "(changes the numerics: 8-bit optimizer state)" in both.summary
    assert order.index(id(keeping)) < [a.action for a in advice].index("bigger_gpu")
    assert all(a.fits for a in advice[: order.index(id(keeping)) + 1])


def _sharded_14b_like() -> EstimateRequest:
    # A full fine-tune in AMP (fp32 weights, gradients and AdamW moments: 16 B/param of 8.6 B params,
    # 128 GiB) with 34 GiB of activations, every block already checkpointed, on 8 × A100 40GB under
    # DDP: as the user's 14.8B job, only FSDP on 16 GPUs fits by one change, where FSDP on their 8
    # with 8-bit AdamW fits too.
    params = 2**33
    p = _weights_state_and_activations(
        params,
        weights=4.0,
        moments=8.0,
        activations_gib=34,
        precision="amp-bf16",
        forward_flops=2e14,
        batch_size=1,
        shape=ModelShape(family="custom", largest_layer_params=params // 40),
    )
    a100 = get_gpu("A100-SXM4-40GB")
    return EstimateRequest(
        profile=replace(p, activation_checkpointing="full"),
        gpu=a100,
        count=8,
        calibration=CAL,
        link=Link.for_gpus(a100, 8, gpus_per_node=8),
    )


def test_where_one_change_fits_only_more_gpus_a_pair_that_fits_the_workloads_own_gpus_is_offered() -> None:
    request = _sharded_14b_like()
    base = run_estimate(request)
    advice = advise(request)
    singles = [a for a in advice if a.action != "combined"]
    assert not any(a.fits and a.gpu_count == 8 for a in singles)  # one change alone: 16 GPUs
    assert any(a.action == "fsdp" and a.fits and a.gpu_count == 16 for a in singles)
    (pair,) = [a for a in advice if a.action == "combined"]
    assert pair.fits and pair.gpu_count == 8 and pair.changes == ("fsdp", "adamw_8bit")
    assert pair.summary.startswith("together: parallelism: fsdp on 8 GPUs, same micro-batch per GPU — saves ")
    assert "; optimizer: adamw-8bit — saves 6.1 GiB" in pair.summary
    # what each step saves, in order, adds up to the whole change (FSDP 161.6, then 8-bit 6.1 GiB)
    fsdp_only = run_estimate(request.changed(parallelism="fsdp"))
    assert not fsdp_only.fits
    assert pair.saved_gib == pytest.approx(
        (
            base.memory.required_gib - fsdp_only.memory.required_gib,
            fsdp_only.memory.required_gib - (pair.required_gib or 0.0),
        )
    )


def test_the_pairs_tried_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    # every pair of the profile changes, each sharding below the fewest GPUs it fits alone with
    # each, and micro-batches: a few dozen estimates, not a search over every combination
    import gpuplan.perf.advice_base as advice_base
    import gpuplan.perf.advisor as advisor

    calls = 0

    def counted(request: EstimateRequest) -> object:
        nonlocal calls
        calls += 1
        return run_estimate(request)

    monkeypatch.setattr(advice_base, "run_estimate", counted)
    monkeypatch.setattr(advisor, "run_estimate", counted)
    advise(_sharded_14b_like())
    assert calls <= 100, calls


def test_a_pair_on_the_users_own_gpus_comes_first_and_deploy_names_it_beside_one_keeping_numerics() -> None:
    # The tester's 14B DDP fine-tune on 8 A100-40GB: FSDP + 8-bit AdamW fits the 8 it has, FSDP alone
    # needs 16. It had been listed after "FSDP on 16 GPUs", and deploy's "it fits with" had named only
    # that: how to fit on what one has is the question, what it changes said with it.
    from gpuplan.cli.deploy_checks import _fit_change

    advice = advise(_sharded_14b_like())
    fits = [a for a in advice if a.fits]
    assert fits[0].action == "combined" and fits[0].gpu_count == 8
    assert fits[0].summary.endswith("(changes the numerics: 8-bit optimizer state)")
    assert any(a.action == "fsdp" and a.gpu_count == 16 for a in fits[1:])  # still offered
    line = _fit_change(advice)
    assert line.startswith("it fits with: together: parallelism: fsdp on 8 GPUs"), line
    assert line.endswith(
        "(changes the numerics: 8-bit optimizer state); or, keeping the workload's numerics and method: "
        "FSDP (ZeRO-3) on 16 GPUs (same micro-batch per GPU)"
    ), line
