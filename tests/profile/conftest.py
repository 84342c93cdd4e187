"""Shared fixtures: small workloads that trace in about a second."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from gpuplan.workload import Workload


@pytest.fixture
def small_gpt2() -> Callable[..., Workload]:
    """GPT-2 small at bs2 × 128 (the real 124M-parameter shape, cheap activations), with overrides."""

    def make(**over: Any) -> Workload:
        d: dict[str, Any] = {
            "name": "gpt2-small",
            "model": {"preset": "gpt2"},
            "inputs": {"batch_size": 2, "seq_len": 128},
        }
        for k, v in over.items():
            d[k] = {**d[k], **v} if isinstance(v, dict) and isinstance(d.get(k), dict) else v
        return Workload.from_dict(d)

    return make
