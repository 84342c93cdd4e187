"""What every model source (preset, HF config, user code) hands the tracer: a ModelBundle.

Building a bundle imports torch; call the builders only under the tracer's fake mode so that no
real weights are ever allocated.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gpuplan.errors import Phrase, WorkloadError, closest
from gpuplan.i18n.messages import N_
from gpuplan.i18n.phrases import either, listed
from gpuplan.workload.shape import ModelShape

if TYPE_CHECKING:
    import torch
    from torch import nn

__all__ = ["LORA_ALIASES", "Batch", "ModelBundle", "check_lora_targets"]

#: Short LoRA target names → the ``nn.Linear`` names that mean them in presets and in common HF
#: models (last name component). A target not listed here is used literally.
LORA_ALIASES: Mapping[str, tuple[str, ...]] = {
    "q": ("q_proj", "query", "q", "q_lin"),
    "k": ("k_proj", "key", "k", "k_lin"),
    "v": ("v_proj", "value", "v", "v_lin"),
    "o": ("o_proj", "out_proj", "o", "out_lin"),
    "gate": ("gate_proj",),
    "up": ("up_proj", "fc_in", "wi", "fc1"),
    "down": ("down_proj", "fc_out", "wo", "fc2"),
}


def check_lora_targets(targets: Iterable[str], linear_names: Iterable[str]) -> None:
    """Refuse LoRA targets that do not name the model's linear layers (``linear_names``: the last
    name components of its ``nn.Linear`` modules). Needs the names only, not torch: the trace
    checks the model it adapts, and a cached profile the names it kept (``Profile.linear_names``).

    None of the targets matching is refused first; then a target that adapts nothing while others
    do: a typo ('oo' for 'o') would otherwise leave its layers without adapters, a smaller job than
    the one written, without a word."""
    targets = list(targets)
    names = sorted(set(linear_names))
    present = set(names)
    wanted: set[str] = set()
    for t in targets:
        wanted.update(LORA_ALIASES.get(t, (t,)))
    if present.isdisjoint(wanted):
        raise WorkloadError.worded(
            N_(
                "model.lora.targets: no nn.Linear named {wanted} in this model; "
                "its linear layers are named: {names}"
            ),
            wanted=listed(sorted(wanted)),
            names=listed(names[:12]) if names else Phrase(N_("none")),
        )
    matching = [t for t in LORA_ALIASES if present.intersection(LORA_ALIASES[t])]
    for target in targets:
        if present.isdisjoint(LORA_ALIASES.get(target, (target,))):
            hint = closest(target, [*matching, *names])
            did = Phrase(N_("; did you mean {names}?"), names=either(repr(h) for h in hint)) if hint else ""
            raise WorkloadError.worded(
                N_(
                    "model.lora.targets: {target!r} names no nn.Linear of this model{did} "
                    "(its linear layers are named: {names})"
                ),
                target=target,
                did=did,
                names=listed(names[:12]),
            )


@dataclass(frozen=True, kw_only=True)
class Batch:
    """One micro-batch: what the model is called with, and what the loss compares against."""

    args: tuple[Any, ...]
    """Positional arguments of ``model(...)``."""
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    """Keyword arguments of ``model(...)``."""
    targets: tuple[Any, ...] = ()
    """Labels passed to the loss after the model output."""

    def tensors(self) -> list[torch.Tensor]:
        """Every tensor in the batch (for memory tracking of inputs)."""
        import torch

        items = [*self.args, *self.kwargs.values(), *self.targets]
        return [t for t in items if isinstance(t, torch.Tensor)]


@dataclass(frozen=True, kw_only=True)
class ModelBundle:
    """A model with how to feed it and how to score it, plus its architecture facts."""

    model: nn.Module
    make_batch: Callable[[], Batch]
    """Creates one micro-batch (fake tensors under the tracer's mode)."""
    loss: Callable[[Any, Batch], torch.Tensor]
    """Scalar loss from the model output and the batch."""
    shape: ModelShape
    seq_len: int | None
    """Tokens per sample, for the Profile (None for vision)."""
    lm_head: str = ""
    """Name of the ``nn.Linear`` that turns hidden states into vocabulary logits, for a model whose
    output is those logits and whose loss is token cross-entropy against ``Batch.targets[0]``
    (what ``loss: chunked`` / ``fused-linear`` need); "" for every other model."""
    checkpoint_blocks: tuple[str, ...] = ()
    """Module names recomputed in backward under gradient checkpointing (blocks or stages)."""
    notes: tuple[str, ...] = ()
    """Approximations made by the model source, passed on to Profile.notes."""
