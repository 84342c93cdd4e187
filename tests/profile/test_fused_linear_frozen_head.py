"""The fused-linear loss allocates the output layer's weight gradient only for a head that takes a
gradient, as Liger's fused linear cross-entropy does (``weight_needs_grad``): a LoRA model's frozen
head gets none, and the loss then keeps less than the standard loss."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable

import pytest

from gpuplan.hardware import get_gpu
from gpuplan.perf.advice_base import Current
from gpuplan.perf.advisor import advise
from gpuplan.perf.estimate import EstimateRequest, run_estimate
from gpuplan.profile import Profile, profile_key
from gpuplan.profile.key import is_recording_of, key_fields
from gpuplan.workload import Workload

pytest.importorskip("torch")

Make = Callable[..., Workload]
Traced = Callable[..., Profile]
LORA = {"preset": "gpt2", "lora": {"rank": 8, "targets": ["q", "v"], "dtype": "model"}}


def _lora(make: Make, precision: str, loss: str) -> Workload:
    return make(task="finetune", precision=precision, model=LORA, loss=loss)


@pytest.mark.parametrize("precision", ["bf16", "amp-bf16", "fp32"])
def test_a_frozen_heads_fused_linear_loss_keeps_less_than_the_standard_loss(
    trace_once: Traced, small_gpt2: Make, precision: str
) -> None:
    standard = trace_once(_lora(small_gpt2, precision, "standard")).peak.total_bytes
    fused = trace_once(_lora(small_gpt2, precision, "fused-linear")).peak.total_bytes
    # No head-sized gradient (77 MB in bf16, 154 MB in fp32 and amp's fp32 weights): the fused
    # loss is the lighter one.
    assert fused < standard


@pytest.mark.parametrize("trains", [True, False])
def test_the_fused_loss_gives_the_heads_gradient_only_where_it_trains(trains: bool) -> None:
    # Real tensors: the loss and gradients are cross-entropy's; a frozen head gets no gradient.
    import torch
    import torch.nn.functional as F

    from gpuplan.profile.losses import fused_linear_cross_entropy

    torch.manual_seed(0)
    head = torch.nn.Linear(16, 40, bias=False)
    head.weight.requires_grad_(trains)
    hidden = torch.randn(2, 12, 16, requires_grad=True)
    labels = torch.randint(0, 40, (2, 12))
    loss = fused_linear_cross_entropy(hidden, head, labels)
    loss.backward()
    ref_hidden = hidden.detach().clone().requires_grad_(True)
    ref_weight = head.weight.detach().clone().requires_grad_(trains)
    ref = F.cross_entropy(F.linear(ref_hidden, ref_weight).flatten(0, 1), labels.flatten())
    ref.backward()
    assert loss.item() == pytest.approx(ref.item(), rel=1e-5)
    assert hidden.grad is not None and torch.allclose(hidden.grad, ref_hidden.grad, atol=1e-6)
    if trains:
        assert head.weight.grad is not None and torch.allclose(head.weight.grad, ref_weight.grad, atol=1e-6)
    else:
        assert head.weight.grad is None


def test_the_advised_fused_linear_loss_counts_no_gradient_for_a_frozen_head(
    trace_once: Traced, small_gpt2: Make
) -> None:
    # LoRA in bf16 with litgpt's chunked-logits loss (4 B an element): fused-linear keeps 1.5 B and
    # no head gradient, 2.5 B × 2 × 128 × 50,257 = 32 MB less. Advised, and no more than traced.
    gpu = get_gpu("A10G")
    w = _lora(small_gpt2, "bf16", "chunked-logits")
    request = EstimateRequest(profile=trace_once(w), gpu=gpu)
    base = run_estimate(request)
    advice = {a.action: a for a in advise(request, current=Current.of(w))}
    fused = advice["fused_linear_loss"]
    applied = run_estimate(
        EstimateRequest(profile=trace_once(_lora(small_gpt2, "bf16", "fused-linear")), gpu=gpu)
    )
    assert applied.peak_memory_gib <= fused.peak_memory_gib + 0.005 < base.peak_memory_gib + 0.005
    assert fused.peak_memory_gib < base.peak_memory_gib


def test_the_fused_linear_trace_keys_the_profile_and_not_the_measurement(small_gpt2: Make) -> None:
    # A fused-linear profile traced when every head got a gradient is traced again; a recording
    # made under that older key still matches the workload.
    w = _lora(small_gpt2, "bf16", "fused-linear")
    fields = key_fields(w)
    assert fields.pop("fused_linear_trace") == 1
    older = hashlib.sha256(json.dumps(fields, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    assert older != profile_key(w)
    assert is_recording_of(w, older, fields["torch"])
    assert is_recording_of(w, profile_key(w), fields["torch"])
    # Other losses, and inference: the key is as it was.
    assert "fused_linear_trace" not in key_fields(_lora(small_gpt2, "bf16", "chunked"))
