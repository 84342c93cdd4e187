"""A sharded run's end-of-forward check counts the logits the workload's own loss keeps there,
not the standard loss's fp32 logits and log-probabilities whatever the loss."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from gpuplan.hardware import get_gpu
from gpuplan.perf.activations import forward_activation_bytes
from gpuplan.perf.estimate import EstimateRequest, run_estimate
from gpuplan.perf.memory import GIB
from gpuplan.perf.stages.memory import sharded_peak_bytes
from gpuplan.profile import Profile
from gpuplan.workload import Workload

pytest.importorskip("torch")

Make = Callable[..., Workload]
Traced = Callable[..., Profile]
VOCAB = 50257


@pytest.mark.parametrize(
    ("loss", "bytes_per_element"),
    # litgpt's 128-token chunks keep 16-bit logits and 16-bit log-probabilities (2 + 2 B); the
    # chunked loss keeps the 16-bit logits and one of 8 chunks in fp32 (2 + 8/8 B): profile/losses.py.
    [("chunked", 3.0), ("chunked-logits", 4.0), ("standard", 8.0)],
)
def test_the_forward_end_counts_the_workloads_loss(
    trace_once: Traced, small_gpt2: Make, loss: str, bytes_per_element: float
) -> None:
    # A full fine-tune of GPT-2 small in bf16 peaks at AdamW's step; FSDP over 64 GPUs shrinks that
    # step below the end of the forward pass, which is then the per-rank peak.
    w = small_gpt2(task="finetune", precision="bf16", loss=loss)
    profile = trace_once(w)
    est = run_estimate(EstimateRequest(profile=profile, gpu=get_gpu("A10G"), count=64, parallelism="fsdp"))
    # The layers' activations (an inference profile derives no logits), and the loss's logits:
    # bytes per batch × sequence × vocabulary element.
    layers = forward_activation_bytes(replace(profile, task="infer"))
    assert layers is not None
    logits = bytes_per_element * 2 * 128 * VOCAB
    forward_end = replace(
        profile.peak, activations_bytes=layers + logits, gradients_bytes=0.0, temporaries_bytes=0.0
    )
    expected = sharded_peak_bytes(
        forward_end,
        parallelism="fsdp",
        world=64,
        params=profile.params,
        largest_layer_params=profile.shape.largest_layer_params,
    )
    assert est.memory.peak_allocated_gib == pytest.approx(expected / GIB, rel=1e-6)
    assert any(f"{bytes_per_element:g} B per batch·seq·vocab element" in n for n in est.notes), est.notes
