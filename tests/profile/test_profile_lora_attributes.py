"""A LoRA adapter stands where the linear it wraps stood, so the model's own code may read that
linear's ``in_features`` and ``out_features`` through it, as it may through PEFT's ``lora.Linear``
(it had no such attributes: a forward that read them failed, and the trace reported the failure as
the model's)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuplan.profile import trace
from gpuplan.workload import Workload

pytest.importorskip("torch")

#: A model whose forward reads its projection's sizes, as model code does to reshape or to check.
MODEL = """\
import torch


class Reads(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(8, 4)

    def forward(self, x):
        x = x.reshape(-1, self.proj.in_features)
        return self.proj(x).reshape(-1, self.proj.out_features)


def build():
    return Reads(), lambda batch_size: torch.randn(batch_size, 8), lambda out, x: out.sum()
"""


def test_a_forward_that_reads_the_wrapped_linears_sizes_traces(tmp_path: Path) -> None:
    (tmp_path / "reads.py").write_text(MODEL)
    model = {"python": "reads:build", "project_dir": str(tmp_path), "lora": {"rank": 2, "targets": ["proj"]}}
    workload = Workload.from_dict(
        {"name": "reads", "task": "finetune", "model": model, "inputs": {"batch_size": 2}}
    )
    profile = trace(workload)
    # only the adapters train: A (2 × 8) and B (4 × 2)
    assert profile.trainable_params == 2 * 8 + 4 * 2


def test_the_adapter_mirrors_the_linear_it_wraps() -> None:
    import torch

    from gpuplan.workload.adapt import LoRALinear

    layer = LoRALinear(torch.nn.Linear(64, 32, bias=False), 8, 16)
    assert (layer.in_features, layer.out_features) == (64, 32)
