"""Changes the workload asks for on top of the model: LoRA adapters, frozen modules, checkpointing."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

from gpuplan.errors import Phrase, WorkloadError, closest
from gpuplan.i18n.messages import N_
from gpuplan.i18n.phrases import either, listed
from gpuplan.workload.bundle import LORA_ALIASES
from gpuplan.workload.spec import LoraSpec

__all__ = [
    "Checkpointed",
    "LoRALinear",
    "apply_checkpointing",
    "apply_lora",
    "cast_floating",
    "freeze_prefixes",
]


def cast_floating(model: nn.Module, dtype: torch.dtype) -> None:
    """Cast floating-point parameters and buffers to ``dtype``, keeping tied weights tied.

    ``Module.to`` cannot be used on fake tensors: it swaps tensors in place, which fails for tensors
    the fake mode holds weak references to ("Couldn't swap Embedding.weight").
    """
    done: dict[int, nn.Parameter] = {}
    for module in model.modules():
        for name, p in list(module._parameters.items()):
            if p is None or not p.is_floating_point():
                continue
            if id(p) not in done:
                done[id(p)] = nn.Parameter(p.detach().to(dtype), requires_grad=p.requires_grad)
            module._parameters[name] = done[id(p)]
        for name, b in list(module._buffers.items()):
            if b is not None and b.is_floating_point():
                module._buffers[name] = b.to(dtype)


class LoRALinear(nn.Module):
    """A frozen ``nn.Linear`` plus a trainable low-rank update: ``base(x) + B(A(x)) · alpha/r``.

    The adapters are fp32 even when the base is 16-bit, as PEFT keeps them by default.
    """

    def __init__(self, base: nn.Linear, rank: int, alpha: float) -> None:
        super().__init__()
        self.base = base
        for p in base.parameters():
            p.requires_grad_(False)
        dev = base.weight.device
        self.lora_A = nn.Linear(base.in_features, rank, bias=False, device=dev, dtype=torch.float32)
        self.lora_B = nn.Linear(rank, base.out_features, bias=False, device=dev, dtype=torch.float32)
        nn.init.zeros_(self.lora_B.weight)
        self.scaling = alpha / rank

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.base(x)
        delta = self.lora_B(self.lora_A(x.to(self.lora_A.weight.dtype))) * self.scaling
        return out + delta.to(out.dtype)


def _set_submodule(root: nn.Module, name: str, new: nn.Module) -> None:
    parent_name, _, child = name.rpartition(".")
    setattr(root.get_submodule(parent_name) if parent_name else root, child, new)


def apply_lora(model: nn.Module, spec: LoraSpec) -> int:
    """Freeze every parameter and put adapters on the targeted linears. Returns how many were adapted.

    A target is a short name (``q``, ``v`` … see ``LORA_ALIASES``) or a literal last name component.
    """
    wanted: set[str] = set()
    for t in spec.targets:
        wanted.update(LORA_ALIASES.get(t, (t,)))
    linears = [(n, m) for n, m in model.named_modules() if isinstance(m, nn.Linear)]
    hits = [(n, m) for n, m in linears if n.rpartition(".")[2] in wanted]
    if not hits:
        names = sorted({n.rpartition(".")[2] for n, _ in linears})
        raise WorkloadError.worded(
            N_(
                "model.lora.targets: no nn.Linear named {wanted} in this model; "
                "its linear layers are named: {names}"
            ),
            wanted=listed(sorted(wanted)),
            names=listed(names[:12]) if names else Phrase(N_("none")),
        )
    for p in model.parameters():
        p.requires_grad_(False)
    alpha = spec.alpha if spec.alpha is not None else float(spec.rank)
    for name, lin in hits:
        _set_submodule(model, name, LoRALinear(lin, spec.rank, alpha))
    return len(hits)


def freeze_prefixes(model: nn.Module, prefixes: Iterable[str]) -> None:
    """Freeze the parameters under each module-name prefix; an unmatched prefix is an error."""
    names = [n for n, _ in model.named_parameters()]
    for prefix in prefixes:
        hit = [
            p for n, p in model.named_parameters() if n == prefix or n.startswith(prefix.rstrip(".") + ".")
        ]
        if not hit:
            modules = [n for n, _ in model.named_modules() if n]
            hint = closest(prefix, modules)
            did = Phrase(N_("; did you mean {names}?"), names=either(repr(h) for h in hint)) if hint else ""
            raise WorkloadError.worded(
                N_("model.frozen: no parameters under {prefix!r}{did} (e.g. {example!r})"),
                prefix=prefix,
                did=did,
                example=names[0],
            )
        for p in hit:
            p.requires_grad_(False)


def _keep_matmul_outputs(ctx: Any, func: Any, *args: Any, **kwargs: Any) -> Any:
    """Selective checkpointing policy: keep what matmuls and attention produce (costly to redo),
    recompute the elementwise ops, norms and activations between them (cheap, but their outputs
    are most of a block's activation memory)."""
    from torch.utils.checkpoint import CheckpointPolicy

    name = str(getattr(func, "__name__", func))
    kept = ("mm", "addmm", "bmm", "convolution", "scaled_dot_product", "flash_attention")
    if any(k in name for k in kept):
        return CheckpointPolicy.MUST_SAVE
    return CheckpointPolicy.PREFER_RECOMPUTE


#: Makes the context a checkpointed block's recompute runs in (a fresh one per recompute).
RecomputeContext = Callable[[], AbstractContextManager[Any]]


class Checkpointed(nn.Module):
    """Runs ``block`` under non-reentrant activation checkpointing (recomputed in backward);
    ``selective`` keeps matmul and attention outputs (:func:`_keep_matmul_outputs`).

    ``recompute``: a context the recomputation runs in, so that it takes the forward's path (the
    tracer's function modes are not active inside the autograd engine, and a recompute that traced
    another kernel would not match what the forward saved)."""

    def __init__(
        self, block: nn.Module, *, selective: bool = False, recompute: RecomputeContext | None = None
    ) -> None:
        super().__init__()
        self.block = block
        self.selective = selective
        self.recompute = recompute

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        contexts = checkpoint_contexts(self.selective, self.recompute)
        return checkpoint(self.block, *args, use_reentrant=False, context_fn=contexts, **kwargs)


def checkpoint_contexts(
    selective: bool, recompute: RecomputeContext | None
) -> Callable[[], tuple[AbstractContextManager[Any], AbstractContextManager[Any]]]:
    """``torch.utils.checkpoint``'s ``context_fn``: (forward context, recompute context)."""
    from functools import partial

    from torch.utils.checkpoint import create_selective_checkpoint_contexts, noop_context_fn

    base = (
        partial(create_selective_checkpoint_contexts, _keep_matmul_outputs) if selective else noop_context_fn
    )

    def make() -> tuple[AbstractContextManager[Any], AbstractContextManager[Any]]:
        forward, again = base()
        if recompute is None:
            return forward, again
        return forward, _both(again, recompute())

    return make


@contextmanager
def _both(first: AbstractContextManager[Any], second: AbstractContextManager[Any]) -> Iterator[None]:
    with first, second:
        yield


def repeated_blocks(model: nn.Module) -> tuple[str, ...]:
    """Names of the elements of the model's largest ``nn.ModuleList`` (its transformer blocks)."""
    lists = [(n, m) for n, m in model.named_modules() if isinstance(m, nn.ModuleList) and len(m) > 1]
    if not lists:
        return ()
    name, best = max(lists, key=lambda nm: sum(p.numel() for p in nm[1].parameters()))
    return tuple(f"{name}.{i}" if name else str(i) for i in range(len(best)))


def apply_checkpointing(
    model: nn.Module,
    blocks: Iterable[str],
    *,
    selective: bool = False,
    recompute: RecomputeContext | None = None,
) -> int:
    """Wrap each named block in ``Checkpointed``. Returns how many were wrapped."""
    n = 0
    for name in blocks:
        block = Checkpointed(model.get_submodule(name), selective=selective, recompute=recompute)
        _set_submodule(model, name, block)
        n += 1
    return n
