"""ResNet-50/101 v1.5 (torchvision layout): bottlenecks with the stride on the 3×3 conv, BatchNorm."""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F
from torch import nn

from gpuplan.workload.bundle import Batch, ModelBundle
from gpuplan.workload.presets.info import PresetInfo
from gpuplan.workload.shape import ModelShape

if TYPE_CHECKING:
    from gpuplan.workload.spec import Workload  # annotations only: the spec imports the registry

__all__ = ["ResNet", "build"]

EXPANSION = 4


class Bottleneck(nn.Module):
    def __init__(self, cin: int, width: int, stride: int) -> None:
        super().__init__()
        cout = width * EXPANSION
        self.conv1 = nn.Conv2d(cin, width, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, 3, stride=stride, padding=1, bias=False)  # v1.5: stride here
        self.bn2 = nn.BatchNorm2d(width)
        self.conv3 = nn.Conv2d(width, cout, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(cout)
        self.downsample: nn.Module | None = None
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(
                nn.Conv2d(cin, cout, 1, stride=stride, bias=False), nn.BatchNorm2d(cout)
            )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = F.relu(self.bn1(self.conv1(x)))
        out = F.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        identity = x if self.downsample is None else self.downsample(x)
        return F.relu(out + identity)


class ResNet(nn.Module):
    """Images (batch, 3, H, W) → class logits."""

    def __init__(self, stage_blocks: tuple[int, ...], num_classes: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        cin = 64
        stages = []
        for i, n in enumerate(stage_blocks):
            width = 64 * 2**i
            blocks = [
                Bottleneck(cin if j == 0 else width * EXPANSION, width, 2 if (i > 0 and j == 0) else 1)
                for j in range(n)
            ]
            stages.append(nn.Sequential(*blocks))
            cin = width * EXPANSION
        self.layer1, self.layer2, self.layer3, self.layer4 = stages
        self.fc = nn.Linear(cin, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 3, stride=2, padding=1)
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


def build(info: PresetInfo, workload: Workload) -> ModelBundle:
    a = info.arch
    model = ResNet(a.stage_blocks, a.num_classes)
    b, side = workload.inputs.batch_size, workload.inputs.image_size or 224

    def make_batch() -> Batch:
        return Batch(args=(torch.randn(b, 3, side, side),), targets=(torch.randint(0, a.num_classes, (b,)),))

    return ModelBundle(
        model=model,
        make_batch=make_batch,
        loss=lambda out, batch: F.cross_entropy(out, batch.targets[0]),
        shape=ModelShape(
            family="cnn",
            num_layers=sum(a.stage_blocks),
            largest_layer_params=max(
                sum(p.numel() for p in s.parameters())
                for s in (model.layer1, model.layer2, model.layer3, model.layer4)
            ),
        ),
        seq_len=None,
        checkpoint_blocks=("layer1", "layer2", "layer3", "layer4"),
    )
