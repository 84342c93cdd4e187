"""``precision: fp16-master``: fp16 weights and gradients, an fp32 master copy in the optimizer
(profile/optimizers.py ``MasterWeights``), checked on small real tensors and on a traced step of
GPT-2 small (bs2 × 128, 124M parameters) against ``amp-fp16``."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch

from gpuplan.profile.model import Profile
from gpuplan.profile.optimizers import MasterWeights
from gpuplan.vocab import OptimizerName
from gpuplan.workload import Workload

Make = Callable[..., Workload]
Traced = Callable[..., Profile]


def test_master_weights_step_the_fp32_copy_and_write_it_back_to_the_fp16_weights() -> None:
    weight = torch.nn.Parameter(torch.full((64, 32), 1.0, dtype=torch.float16))
    opt = MasterWeights(OptimizerName.ADAM, [weight])
    master = opt.state[weight]["master"]
    assert master.dtype is torch.float32 and torch.equal(master, weight.detach().float())
    weight.grad = torch.full_like(weight, 0.5)
    opt.step()
    # Adam's first step moves every element by lr (1e-4) against the gradient's sign; fp16 cannot
    # hold 1 - 1e-4 (its spacing at 1 is 2**-10 ≈ 9.8e-4), the fp32 master can.
    assert torch.allclose(master, torch.full_like(master, 1.0 - 1e-4), atol=1e-7)
    assert torch.equal(weight.detach(), master.half())
    # The 16-bit gradient is freed once copied (Megatron's _copy_model_grads_to_main_grads), and the
    # fp32 copy after the step.
    assert weight.grad is None and master.grad is None
    # State per parameter: the fp32 master (4 B) + Adam's two fp32 moments (8 B) = 12 B.
    moments = opt.inner.state[master]
    inner = sum(moments[k].numel() * moments[k].element_size() for k in ("exp_avg", "exp_avg_sq"))
    assert master.numel() * 4 + inner == 12 * weight.numel()


def test_fp16_master_keeps_16_bit_weights_and_a_12_byte_fp32_optimizer_state(
    trace_once: Traced, small_gpt2: Make
) -> None:
    p = trace_once(small_gpt2(precision="fp16-master", optimizer="adamw-fused"))
    n = p.params
    # fp16 weights: 2 B/param; master (4) + exp_avg (4) + exp_avg_sq (4) = 12 B/param, all optimizer
    # state (sharded with it under ZeRO); the fp32 gradient copies (4 B/param) are the step's
    # temporaries, the 16-bit gradients already freed: 2 + 12 + 4 = 18 B/param at the step's peak.
    assert p.peak.parameters_bytes / n == pytest.approx(2.0, rel=0.01)
    assert p.peak.optimizer_state_bytes / n == pytest.approx(12.0, rel=0.01)
    assert p.peak.temporaries_bytes / n == pytest.approx(4.0, rel=0.01)
    assert p.peak.total_bytes / n == pytest.approx(18.0, rel=0.02)
    assert p.bytes_per_param == pytest.approx(2.0, rel=0.01) and not p.autocast
    assert any(note.startswith("fp16-master:") for note in p.notes)


def test_fp16_master_makes_no_weight_casts_but_a_heavier_optimizer_step(
    trace_once: Traced, small_gpt2: Make
) -> None:
    amp = trace_once(small_gpt2(precision="amp-fp16", optimizer="adamw-fused"))
    master = trace_once(small_gpt2(precision="fp16-master", optimizer="adamw-fused"))

    def phase_bytes(p: Profile, phase: str) -> float:
        return sum(o.bytes_moved for o in p.ops if o.phase == phase)

    def forward_casts(p: Profile) -> float:
        return sum(o.bytes_moved for o in p.ops if o.phase == "forward" and "_to_copy" in o.op)

    # autocast copies each fp32 weight to fp16 in forward (4 B read + 2 B written per parameter,
    # 0.74 GB for 124M); fp16 weights need no copy.
    assert forward_casts(amp) > 5.0 * amp.params
    assert forward_casts(master) < 1.0 * master.params
    assert phase_bytes(master, "forward") < 0.6 * phase_bytes(amp, "forward")
    # The step adds the fp16 → fp32 gradient copy (2 + 4 B) and the write-back (4 + 2 B) to fused
    # AdamW's traffic on fp32 tensors: 12 B more per parameter.
    extra = phase_bytes(master, "optimizer") - phase_bytes(amp, "optimizer")
    assert extra == pytest.approx(12.0 * master.params, rel=0.25)
    assert master.flops_per_step == pytest.approx(amp.flops_per_step, rel=0.02)


# ---- bf16-master: Megatron-LM --bf16 (persistent fp32 main gradients) -----------------------------


def test_main_gradients_accumulate_the_bf16_gradients_and_are_zeroed_after_the_step() -> None:
    weight = torch.nn.Parameter(torch.full((64, 32), 1.0, dtype=torch.bfloat16))
    opt = MasterWeights(OptimizerName.ADAM, [weight], main_grads=True)
    main = opt.main_grads[weight]
    assert main.dtype is torch.float32 and not main.any()
    opt.install_accumulation()
    for _ in range(2):  # two micro-batches: each bf16 gradient added in fp32, then freed
        (weight.float() * 0.25).sum().backward()
        assert weight.grad is None
    assert torch.equal(main, torch.full_like(main, 0.5))
    master = opt.state[weight]["master"]
    opt.step()
    assert torch.allclose(master, torch.full_like(master, 1.0 - 1e-4), atol=1e-7)
    assert torch.equal(weight.detach(), master.bfloat16())
    # The buffer stays (zeroed for the next step); the master's gradient was the buffer itself.
    assert opt.main_grads[weight] is main and not main.any() and master.grad is None


def test_bf16_master_holds_megatrons_18_bytes_per_parameter_from_the_first_peak(
    trace_once: Traced, small_gpt2: Make
) -> None:
    p = trace_once(small_gpt2(precision="bf16-master", optimizer="adamw-fused"))
    n = p.params
    # bf16 weights (2) + fp32 main gradients (4, tracked as gradients, live at every peak) + master
    # and AdamW moments (12): Megatron's "bf16 parameters, fp32 gradients: 18" bytes per parameter
    # (docs/user-guide/features/dist_optimizer.md), plus the activations at this (forward-end) peak.
    assert p.peak.parameters_bytes / n == pytest.approx(2.0, rel=0.01)
    assert p.peak.gradients_bytes / n == pytest.approx(4.0, rel=0.01)
    assert p.peak.optimizer_state_bytes / n == pytest.approx(12.0, rel=0.01)
    assert p.fp32_main_grads and not p.autocast and p.bytes_per_param == pytest.approx(2.0, rel=0.01)
    assert any(note.startswith("bf16-master:") for note in p.notes)


def test_bf16_master_adds_each_gradient_into_fp32_in_backward(trace_once: Traced, small_gpt2: Make) -> None:
    bf16 = trace_once(small_gpt2(precision="bf16", optimizer="adamw-fused"))
    master = trace_once(small_gpt2(precision="bf16-master", optimizer="adamw-fused"))

    def phase_bytes(p: Profile, phase: str) -> float:
        return sum(o.bytes_moved for o in p.ops if o.phase == phase)

    # The add reads the fp32 buffer and the bf16 gradient and writes the buffer: 4 + 2 + 4 B.
    extra = phase_bytes(master, "backward") - phase_bytes(bf16, "backward")
    assert extra == pytest.approx(10.0 * master.params, rel=0.05)
    assert master.flops_per_step == pytest.approx(bf16.flops_per_step, rel=0.02)


def test_bf16_master_refuses_optimizer_in_backward(small_gpt2: Make) -> None:
    from gpuplan.errors import GpuplanError

    with pytest.raises(GpuplanError, match="bf16-master keeps them in a persistent fp32 buffer"):
        small_gpt2(precision="bf16-master", optimizer_in_backward=True)
