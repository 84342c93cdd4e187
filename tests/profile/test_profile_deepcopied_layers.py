"""A user model whose layers are deep-copied (nn.TransformerEncoder does) traces like any other."""

from __future__ import annotations

from pathlib import Path

from gpuplan.profile import trace

MODEL = """
import torch
from torch import nn


def build():
    block = nn.TransformerEncoderLayer(64, 4, 128, batch_first=True)
    model = nn.Sequential(nn.TransformerEncoder(block, 3, enable_nested_tensor=False), nn.Linear(64, 2))

    def make_inputs(batch_size, seq_len=16):
        return torch.randn(batch_size, seq_len, 64)

    return model, make_inputs
"""


def test_layers_cloned_by_deepcopy_trace_and_count_once(tmp_path: Path) -> None:
    (tmp_path / "clones.py").write_text(MODEL, encoding="utf-8")
    spec = {
        "name": "clones",
        "model": {"python": "clones:build", "project_dir": str(tmp_path)},
        "inputs": {"batch_size": 2, "seq_len": 16},
    }
    profile = trace(spec)
    # Per layer: attention in_proj 64×192+192, out_proj 64×64+64, FFN 64×128+128 + 128×64+64,
    # two LayerNorms 2×(64+64) -> 12480 + 4160 + 8320 + 8256 + 256 = 33472; × 3 layers = 100416;
    # head 64×2+2 = 130. Total 100546, each cloned layer counted once.
    assert profile.params == 100_546
    assert profile.flops_per_step > 0
