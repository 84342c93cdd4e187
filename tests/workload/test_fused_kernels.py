"""The presets' fused kernels compute what PyTorch's separate kernels compute, forward and backward."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from gpuplan.workload.presets.fused import (
    fused_cross_entropy,
    fused_dropout_add_norm,
    fused_linear_act,
    fused_silu_mul,
)
from gpuplan.workload.presets.layers import RMSNorm


def _close(a: torch.Tensor, b: torch.Tensor) -> None:
    assert torch.allclose(a, b, atol=1e-5, rtol=1e-5), (a - b).abs().max()


@pytest.fixture(autouse=True)
def _seed() -> None:
    torch.manual_seed(0)


@pytest.mark.parametrize("rms", [False, True])
def test_dropout_add_norm_is_the_norm_of_the_sum_and_its_gradients(rms: bool) -> None:
    x = torch.randn(2, 5, 8, requires_grad=True)
    r = torch.randn(2, 5, 8, requires_grad=True)
    norm: torch.nn.Module = RMSNorm(8, 1e-5) if rms else torch.nn.LayerNorm(8)
    with torch.no_grad():
        norm.weight.uniform_()
    out, total = fused_dropout_add_norm(x, r, norm, 0.0)
    ref_total = x + r
    _close(out, norm(ref_total))
    _close(total, ref_total)
    # Both outputs used downstream, as a pre-norm block uses the normed input and the residual sum.
    g = torch.randn_like(out)
    got = torch.autograd.grad((out * g).sum() + (3 * total).sum(), (x, r, norm.weight))
    want = torch.autograd.grad((norm(ref_total) * g).sum() + (3 * ref_total).sum(), (x, r, norm.weight))
    for a, b in zip(got, want, strict=True):
        _close(a, b)


def test_dropout_add_norm_drops_in_training_and_keeps_the_expectation() -> None:
    norm = torch.nn.LayerNorm(64)
    x = torch.ones(2000, 64)
    with torch.no_grad():
        _, total = fused_dropout_add_norm(x, None, norm, 0.1)
    assert 0.97 < float(total.mean()) < 1.03
    assert float((total == 0).float().mean()) == pytest.approx(0.1, abs=0.02)


@pytest.mark.parametrize(
    ("act", "ref"),
    [
        ("gelu", lambda t: F.gelu(t)),
        ("gelu_tanh", lambda t: F.gelu(t, approximate="tanh")),
        ("relu", F.relu),
    ],
)
def test_linear_act_is_the_activation_of_the_linear_and_its_gradients(act: str, ref: object) -> None:
    x = torch.randn(2, 5, 8, requires_grad=True)
    lin = torch.nn.Linear(8, 16)
    out = fused_linear_act(lin, x, act)
    want = ref(lin(x))  # type: ignore[operator]
    _close(out, want)
    g = torch.randn_like(out)
    for a, b in zip(
        torch.autograd.grad(out, (x, lin.weight, lin.bias), g),
        torch.autograd.grad(want, (x, lin.weight, lin.bias), g),
        strict=True,
    ):
        _close(a, b)


def test_silu_mul_is_swiglus_product_and_its_gradients() -> None:
    gate = torch.randn(3, 4, requires_grad=True)
    up = torch.randn(3, 4, requires_grad=True)
    out = fused_silu_mul(gate, up)
    want = F.silu(gate) * up
    _close(out, want)
    g = torch.randn_like(out)
    for a, b in zip(
        torch.autograd.grad(out, (gate, up), g), torch.autograd.grad(want, (gate, up), g), strict=True
    ):
        _close(a, b)


def test_cross_entropy_matches_pytorchs_and_writes_its_gradient_over_the_logits() -> None:
    logits = torch.randn(2, 3, 10)
    labels = torch.randint(0, 10, (2, 3))
    a = logits.clone().requires_grad_(True)
    b = logits.clone().requires_grad_(True)
    loss = fused_cross_entropy(a * 1.0, labels)
    want = F.cross_entropy(b.view(-1, 10), labels.view(-1))
    _close(loss, want)
    _close(torch.autograd.grad(loss, a)[0], torch.autograd.grad(want, b)[0])
