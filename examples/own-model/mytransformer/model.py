"""A model of your own, as gpuplan traces it: ``build()`` returns ``(model, make_inputs, loss_fn)``.

gpuplan imports this module from the workload file's folder, calls ``build()`` under fake tensors
(no memory is allocated, no weights are loaded) and traces one full training step.
"""

import torch
from torch import nn

VOCAB, CLASSES = 32000, 20


class TextClassifier(nn.Module):
    def __init__(self, dim: int = 768, layers: int = 8, heads: int = 12):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, dim)
        block = nn.TransformerEncoderLayer(dim, heads, 4 * dim, batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(block, layers, enable_nested_tensor=False)
        self.head = nn.Linear(dim, CLASSES)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.head(self.encoder(self.embed(tokens)).mean(dim=1))


def make_inputs(batch_size: int, seq_len: int = 512) -> dict[str, torch.Tensor]:
    """One micro-batch; gpuplan passes the workload's seq_len. A dict becomes keyword arguments."""
    return {"tokens": torch.randint(0, VOCAB, (batch_size, seq_len))}


def loss_fn(logits: torch.Tensor, inputs: dict[str, torch.Tensor]) -> torch.Tensor:
    labels = torch.zeros(logits.shape[0], dtype=torch.long, device=logits.device)  # on the logits' GPU
    return nn.functional.cross_entropy(logits, labels)


def build():
    return TextClassifier(), make_inputs, loss_fn
