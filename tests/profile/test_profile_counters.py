"""The op recorder agrees with torch's FlopCounterMode; the memory tracker rounds like CUDA."""

from __future__ import annotations

from typing import Any

import pytest

from gpuplan.workload import PRESETS, Workload

torch = pytest.importorskip("torch")

from torch._subclasses.fake_tensor import FakeTensorMode  # noqa: E402
from torch.utils.flop_counter import FlopCounterMode, sdpa_backward_flop_count, sdpa_flop_count  # noqa: E402

from gpuplan.profile.memtrack import CUDA_BLOCK_BYTES, GpuMemTracker  # noqa: E402
from gpuplan.profile.recorder import OpRecorder  # noqa: E402

aten = torch.ops.aten


def _fwd(q: Any, k: Any, v: Any, *args: Any, out_shape: Any = None, **kw: Any) -> int:
    return int(sdpa_flop_count(q, k, v))


def _bwd(g: Any, q: Any, k: Any, v: Any, *args: Any, out_shape: Any = None, **kw: Any) -> int:
    return int(sdpa_backward_flop_count(g, q, k, v))


def test_recorder_flops_equal_flop_counter_mode_with_the_cpu_attention_formulas() -> None:
    info = PRESETS["llama-1b"]  # GQA attention, RoPE, SwiGLU, tied head
    w = Workload.from_dict(
        {"name": "l", "model": {"preset": "llama-1b"}, "inputs": {"batch_size": 1, "seq_len": 64}}
    )
    counter = FlopCounterMode(
        display=False,
        custom_mapping={
            aten._scaled_dot_product_flash_attention_for_cpu: _fwd,
            aten._scaled_dot_product_flash_attention_for_cpu_backward: _bwd,
        },
    )
    recorder = OpRecorder()
    recorder.recording = True
    with FakeTensorMode():
        bundle = info.loader().build(info, w)
        batch = bundle.make_batch()
        with counter, recorder:
            loss = bundle.loss(bundle.model(*batch.args), batch)
            recorder.phase = "backward"
            loss.backward()
    ours = sum(r.flops for r in recorder.records())
    assert ours == counter.get_total_flops()
    assert any(r.op_class == "attention" and r.flops > 0 for r in recorder.records())


def test_memory_tracker_rounds_to_cuda_blocks_and_accepts_frozen_parameters() -> None:
    with FakeTensorMode():
        frozen = torch.nn.Linear(3, 3)  # weight 36 B, bias 12 B → one 512-B block each
        frozen.requires_grad_(False)
        tracker = GpuMemTracker()
        tracker.track_external(frozen)
        with tracker, torch.no_grad():
            frozen(torch.randn(1, 3))  # the parent class raises here on register_hook
    peak = tracker.peak_breakdown()
    assert peak.parameters_bytes == 2 * CUDA_BLOCK_BYTES


def test_a_convolution_backward_takes_the_forward_multiplies_once_per_gradient() -> None:
    # Every product x·w of the forward appears once in the input gradient (grad_out·w) and once in
    # the weight gradient (grad_out·x). Forward of a 7×7 convolution, 64 → 64 channels, on 2 × 14 × 14:
    # 2 · (2·14·14) · 64 · (64 / groups) · 49 multiplies-and-adds. torch's formula counted the
    # weight gradient over all 64 input channels: groups-fold too many for a grouped (depthwise) one.
    for groups, grad_input in ((1, True), (8, True), (64, True), (64, False)):
        forward = 2 * (2 * 14 * 14) * 64 * (64 // groups) * 49
        with FakeTensorMode():
            x = torch.empty(2, 64, 14, 14, requires_grad=grad_input)
            conv = torch.nn.Conv2d(64, 64, 7, padding=3, groups=groups, bias=False)
            recorder = OpRecorder()
            recorder.recording = True
            with recorder:
                out = conv(x)
                recorder.phase = "backward"
                out.sum().backward()
        by_op = {r.op: r.flops for r in recorder.records() if r.flops}
        backward = forward * (2 if grad_input else 1)
        assert by_op == {"aten.convolution": forward, "aten.convolution_backward": backward}, groups
