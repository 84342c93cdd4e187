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

__all__ = ["LORA_ALIASES", "Batch", "ModelBundle", "check_lora_targets", "lora_matches", "lora_names"]

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


def lora_matches(target: str, name: str) -> bool:
    """Whether LoRA ``target`` names the ``nn.Linear`` whose qualified module name is ``name``: it is
    the name, or the name ends with it after a dot (``to_out.0`` matches ``…attn1.to_out.0``), or,
    for a short target, one of its :data:`LORA_ALIASES` does. PEFT's ``target_modules`` rule
    (``check_target_module_exists`` in peft/tuners/tuners_utils.py: ``key in target_modules or
    any(key.endswith(f".{target_key}") …)``). As in PEFT, a target naming a module that holds
    linear layers (diffusers' ``to_out``, a ModuleList of a Linear and a Dropout) names none of
    them: PEFT refuses such a target ("Target module … is not supported")."""
    return any(name == t or name.endswith("." + t) for t in LORA_ALIASES.get(target, (target,)))


def lora_names(linear_names: Iterable[str]) -> list[str]:
    """The shortest name a target can give each linear layer: its last name component, with the
    one before where that is an index (``to_out.0``, ``net.2``: a ``0`` would match every first
    element of every list), sorted, each once."""
    short: set[str] = set()
    for name in linear_names:
        parts = name.split(".")
        end = len(parts) - 1
        while end > 0 and parts[end].isdigit():
            end -= 1
        short.add(".".join(parts[end:]))
    return sorted(short)


def _inside(target: str, linear_names: Iterable[str]) -> list[str]:
    """The names that would reach the linear layers under a module ``target`` names (``to_out`` →
    ``to_out.0``): the target with the rest of each path below it."""
    found: set[str] = set()
    for name in linear_names:
        dotted = "." + name
        at = dotted.find("." + target + ".")
        if at >= 0:
            found.add(dotted[at + 1 :])
    return sorted(found, key=len)


def check_lora_targets(targets: Iterable[str], linear_names: Iterable[str]) -> None:
    """Refuse LoRA targets that do not name the model's linear layers (``linear_names``: the
    qualified names of its ``nn.Linear`` modules, or their last components in profiles kept before
    the full names were; :func:`lora_matches`). Needs the names only, not torch: the trace checks
    the model it adapts, and a cached profile the names it kept (``Profile.linear_names``).

    A target naming a module that holds linear layers, not one, is refused first, with the names
    that reach them; then none of the targets matching; then a target that adapts nothing while
    others do: a typo ('oo' for 'o') would otherwise leave its layers without adapters, a smaller
    job than the one written, without a word."""
    targets = list(targets)
    full = sorted(set(linear_names))
    names = lora_names(full)
    missed = [t for t in targets if not any(lora_matches(t, n) for n in full)]
    for target in missed:
        if inside := _inside(target, full):
            raise WorkloadError.worded(
                N_(
                    "model.lora.targets: {target!r} names a module that holds nn.Linear layers, not "
                    "one; a LoRA adapter goes on an nn.Linear (as PEFT's target_modules): name {names}"
                ),
                target=target,
                names=listed(repr(n) for n in inside[:6]),
            )
    if len(missed) == len(targets):
        wanted: set[str] = set()
        for t in targets:
            wanted.update(LORA_ALIASES.get(t, (t,)))
        raise WorkloadError.worded(
            N_(
                "model.lora.targets: no nn.Linear named {wanted} in this model; "
                "its linear layers are named: {names}"
            ),
            wanted=listed(sorted(wanted)),
            names=listed(names[:12]) if names else Phrase(N_("none")),
        )
    matching = [t for t in LORA_ALIASES if any(lora_matches(t, n) for n in full)]
    for target in missed:
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
    mel_window: tuple[int, int] | None = None
    """A speech model's (mel bins, frames) of one sample's audio window (Whisper: 128 × 3,000, 30 s),
    for the Profile; None for every other model."""
    lm_head: str = ""
    """Name of the ``nn.Linear`` that turns hidden states into vocabulary logits, for a model whose
    output is those logits and whose loss is token cross-entropy against ``Batch.targets[0]``
    (what ``loss: chunked`` / ``fused-linear`` need); "" for every other model."""
    checkpoint_blocks: tuple[str, ...] = ()
    """Module names recomputed in backward under gradient checkpointing (blocks or stages)."""
    notes: tuple[str, ...] = ()
    """Approximations made by the model source, passed on to Profile.notes."""
