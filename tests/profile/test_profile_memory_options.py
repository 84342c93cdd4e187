"""8-bit and paged AdamW, optimizer steps inside backward, chunked and fused-linear losses.

The optimizer and loss stand-ins are checked on small real tensors (values, gradients, state
bytes); their effect on a traced step on GPT-2 small (bs2 × 128, 124M parameters).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import torch
import torch.nn.functional as F

from gpuplan.profile.losses import chunked_cross_entropy, fused_linear_cross_entropy
from gpuplan.profile.model import Profile
from gpuplan.profile.optimizers import BlockwiseAdamW8bit, paged_state_bytes
from gpuplan.workload import Workload

Make = Callable[..., Workload]
Traced = Callable[..., Profile]


def _state_bytes(opt: torch.optim.Optimizer) -> int:
    return sum(t.numel() * t.element_size() for st in opt.state.values() for t in st.values())


def test_8bit_adamw_state_is_two_bytes_per_parameter_plus_block_scales() -> None:
    big = torch.nn.Parameter(torch.zeros(1024, 256))  # 262,144 elements ≥ 4096: 8-bit moments
    small = torch.nn.Parameter(torch.zeros(100))  # < 4096 (min_8bit_size): fp32 moments
    opt = BlockwiseAdamW8bit([big, small])
    for p in (big, small):
        p.grad = torch.ones_like(p)
    opt.step()
    # 2 × 262,144 uint8 + 2 × 1024 fp32 absmax (one per 256 elements) + 2 × 100 fp32
    # = 524,288 + 8,192 + 800 = 533,280 bytes.
    assert _state_bytes(opt) == 2 * 262_144 + 2 * 1024 * 4 + 2 * 100 * 4
    assert paged_state_bytes([opt]) == 0.0


def test_paged_8bit_adamw_pages_only_the_moments_of_large_parameters() -> None:
    big = torch.nn.Parameter(torch.zeros(1024, 256))  # ≥ 100,000 elements: managed memory
    mid = torch.nn.Parameter(torch.zeros(50_000))  # 8-bit but below 100,000: ordinary memory
    opt = BlockwiseAdamW8bit([big, mid], paged=True)
    for p in (big, mid):
        p.grad = torch.ones_like(p)
    opt.step()
    assert paged_state_bytes([opt]) == 2 * 262_144  # the two uint8 moments of `big` only


@pytest.mark.parametrize("chunks", [1, 3, 8])
def test_chunked_loss_has_the_value_and_gradients_of_linear_then_cross_entropy(chunks: int) -> None:
    torch.manual_seed(0)
    hidden = torch.randn(2, 16, 8, requires_grad=True)
    head = torch.nn.Linear(8, 50, bias=False)
    labels = torch.randint(0, 50, (2, 16))
    ref = F.cross_entropy(head(hidden).view(-1, 50), labels.view(-1))
    g_ref = torch.autograd.grad(ref, (hidden, head.weight))
    got = chunked_cross_entropy(hidden, head, labels, chunks)
    g_got = torch.autograd.grad(got, (hidden, head.weight))
    assert got.item() == pytest.approx(ref.item(), rel=1e-5)
    for a, b in zip(g_got, g_ref, strict=True):
        assert torch.allclose(a, b, atol=1e-6)


def test_fused_linear_loss_has_the_value_and_gradients_of_linear_then_cross_entropy() -> None:
    torch.manual_seed(0)
    hidden = torch.randn(2, 12, 8, requires_grad=True)
    head = torch.nn.Linear(8, 40, bias=True)
    labels = torch.randint(0, 40, (2, 12))
    ref = F.cross_entropy(head(hidden).view(-1, 40), labels.view(-1))
    g_ref = torch.autograd.grad(ref, (hidden, head.weight, head.bias))
    got = fused_linear_cross_entropy(hidden, head, labels, chunks=5)
    g_got = torch.autograd.grad(got, (hidden, head.weight, head.bias))
    assert got.item() == pytest.approx(ref.item(), rel=1e-5)
    for a, b in zip(g_got, g_ref, strict=True):
        assert torch.allclose(a, b, atol=1e-6)


def _traced(trace_once: Traced, small_gpt2: Make, **over: Any) -> Profile:
    return trace_once(small_gpt2(**over))


def test_lighter_losses_shrink_the_traced_peak(trace_once: Traced, small_gpt2: Make) -> None:
    # bs2 × 512 under bf16 autocast with fused AdamW peaks in the loss: 2 × 512 tokens × 50,257
    # vocabulary = 51.5M logits elements; standard keeps fp32 logits + fp32 log-probs (8 B each)
    # = 412 MB. Chunked keeps every chunk's 16-bit logits (103 MB) + one chunk. Fused-linear never holds
    # the logits but holds the (tied, fp32) head's weight gradient from forward on: 50,257 × 768 × 4
    # = 154 MB — so at 1,024 tokens (fewer than 2 × hidden) chunked is the smaller one.
    over: dict[str, Any] = {"inputs": {"seq_len": 512}, "precision": "amp-bf16", "optimizer": "adamw-fused"}
    std = _traced(trace_once, small_gpt2, **over)
    chunked = _traced(trace_once, small_gpt2, loss="chunked", **over)
    fused = _traced(trace_once, small_gpt2, loss="fused-linear", **over)
    assert chunked.peak.total_bytes < fused.peak.total_bytes < std.peak.total_bytes
    assert std.peak.total_bytes - chunked.peak.total_bytes > 0.5 * (8 - 2) * 2 * 512 * 50_257
    # Liger-style: the gradients are computed in forward, so no matmul is repeated.
    assert fused.flops_per_step == pytest.approx(std.flops_per_step, rel=0.01)


def test_paged_8bit_adamw_stepped_in_backward_in_a_traced_step(trace_once: Traced, small_gpt2: Make) -> None:
    p = _traced(trace_once, small_gpt2, optimizer="paged-adamw-8bit", optimizer_in_backward=True)
    # ≈2.03 B/param of 8-bit moments and block scales (+ fp32 moments of the tensors under 4096).
    assert p.peak.optimizer_state_bytes == pytest.approx(2.03 * p.trainable_params, rel=0.02)
    # Paged: the uint8 moments of the tensors of 100,000 elements or more (almost all of them).
    assert 0.95 * 2 * p.trainable_params < p.paged_optimizer_bytes <= p.peak.optimizer_state_bytes
    assert any("optimizer_in_backward" in n for n in p.notes)
    # The steps run during backward but are still recorded as optimizer ops.
    assert any(o.phase == "optimizer" for o in p.ops)
