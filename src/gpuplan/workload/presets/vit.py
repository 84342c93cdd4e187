"""ViT-B/16 (torchvision vit_b_16 layout): conv patchify, class token, learned positions, pre-LN."""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F
from torch import nn

from gpuplan.workload.bundle import Batch, ModelBundle
from gpuplan.workload.presets.info import Arch, PresetInfo
from gpuplan.workload.shape import ModelShape

__all__ = ["ViT", "build"]

from gpuplan.workload.presets.layers import Attention

if TYPE_CHECKING:
    from gpuplan.workload.spec import Workload  # annotations only: the spec imports the registry

PATCH = 16


class Block(nn.Module):
    def __init__(self, a: Arch) -> None:
        super().__init__()
        self.ln_1 = nn.LayerNorm(a.hidden, eps=a.norm_eps)
        self.attn = Attention(a.hidden, a.heads, a.heads, a.head_dim, bias=True)
        self.ln_2 = nn.LayerNorm(a.hidden, eps=a.norm_eps)
        self.fc_in = nn.Linear(a.hidden, a.intermediate)
        self.fc_out = nn.Linear(a.intermediate, a.hidden)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln_1(x))
        return x + self.fc_out(F.gelu(self.fc_in(self.ln_2(x))))


class ViT(nn.Module):
    """Images (batch, 3, H, W) → class logits. Positions are sized for the given image side."""

    def __init__(self, a: Arch, image_size: int) -> None:
        super().__init__()
        tokens = (image_size // PATCH) ** 2 + 1
        self.conv_proj = nn.Conv2d(3, a.hidden, kernel_size=PATCH, stride=PATCH)
        self.class_token = nn.Parameter(torch.zeros(1, 1, a.hidden))
        self.pos_embedding = nn.Parameter(torch.zeros(1, tokens, a.hidden))
        self.layers = nn.ModuleList(Block(a) for _ in range(a.layers))
        self.ln = nn.LayerNorm(a.hidden, eps=a.norm_eps)
        self.head = nn.Linear(a.hidden, a.num_classes)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        x = self.conv_proj(images).flatten(2).transpose(1, 2)
        x = torch.cat([self.class_token.expand(x.shape[0], -1, -1), x], dim=1) + self.pos_embedding
        for layer in self.layers:
            x = layer(x)
        return self.head(self.ln(x[:, 0]))


def build(info: PresetInfo, workload: Workload) -> ModelBundle:
    a = info.arch
    side = workload.inputs.image_size or 224
    model = ViT(a, side)
    b = workload.inputs.batch_size

    def make_batch() -> Batch:
        return Batch(args=(torch.randn(b, 3, side, side),), targets=(torch.randint(0, a.num_classes, (b,)),))

    tokens = (side // PATCH) ** 2 + 1
    notes = () if side == 224 else (f"vit-b16: positions sized for {side}² ({tokens} tokens), not 224²",)
    return ModelBundle(
        model=model,
        make_batch=make_batch,
        loss=lambda out, batch: F.cross_entropy(out, batch.targets[0]),
        shape=ModelShape(
            family="vit",
            num_layers=a.layers,
            hidden_size=a.hidden,
            num_attention_heads=a.heads,
            num_kv_heads=a.heads,
            head_dim=a.head_dim,
            max_seq_len=tokens,
            largest_layer_params=sum(p.numel() for p in model.layers[0].parameters()),
        ),
        seq_len=None,
        checkpoint_blocks=tuple(f"layers.{i}" for i in range(a.layers)),
        notes=notes,
    )
