"""Fixtures of the perf tests."""

from __future__ import annotations

import pytest
from perf_helpers import make_profile, op

from gpuplan.profile.model import Profile


@pytest.fixture
def simple_train_profile() -> Profile:
    """1 TFLOP forward + 2 TFLOP backward bf16 matmuls, 10 GB of elementwise traffic, 1e9 params."""
    return make_profile(
        ops=(
            op("forward", flops=1e12),
            op("backward", flops=2e12),
            op("forward", "other", bytes_moved=4e9, count=100, name="aten.add"),
            op("backward", "other", bytes_moved=6e9, count=100, name="aten.add"),
            op("optimizer", "other", dtype="float32", bytes_moved=16e9, count=10, name="aten._foreach_add"),
        )
    )
