"""The work a causal fused attention kernel does at each sequence length (block geometry, not fitted)."""

from __future__ import annotations

import pytest

from gpuplan.hardware import get_gpu
from gpuplan.perf.attention import causal_work_fraction
from gpuplan.perf.calibration import PRIOR
from gpuplan.perf.roofline import phase_times
from gpuplan.profile.model import OpRecord


@pytest.mark.parametrize(
    ("seq_len", "share"),
    [
        (128, 1.0),  # one block: computed whole
        (512, 0.625),  # n = 4 blocks of 128: 4·5/2 = 10 of 16
        (2048, 17 / 32),  # n = 16: 136 of 256 = 0.53125
        (8192, 65 / 128),  # n = 64: 2080 of 4096 = 0.5078
        (None, 0.5),  # unknown length: the long-sequence limit
    ],
)
def test_causal_kernels_compute_the_diagonal_blocks_whole(seq_len: int | None, share: float) -> None:
    assert causal_work_fraction(seq_len) == pytest.approx(share)


def test_short_causal_sequences_cost_more_per_counted_flop() -> None:
    # The same counted attention FLOPs (compute-bound: no bytes) cost (n+1)/(2n) of the full call:
    # at 512 tokens 0.625 / 0.5078 = 1.23× the time per FLOP of 8k tokens.
    op = OpRecord(op="aten._flash", op_class="attention", phase="forward", dtype="bfloat16", count=1,
                  flops=1e13, bytes_moved=0.0)  # fmt: skip
    gpu = get_gpu("A100-SXM4-80GB")
    short = phase_times([op], gpu, "amp-bf16", PRIOR, causal=True, seq_len=512).forward_s
    long = phase_times([op], gpu, "amp-bf16", PRIOR, causal=True, seq_len=8192).forward_s
    full = phase_times([op], gpu, "amp-bf16", PRIOR, causal=False, seq_len=512).forward_s
    assert short / long == pytest.approx(0.625 / (65 / 128), rel=1e-3)
    assert short / full == pytest.approx(0.625, rel=1e-3)
