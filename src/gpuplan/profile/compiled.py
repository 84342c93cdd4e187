"""What ``torch.compile`` keeps for backward, measured with AOTAutograd's own partitioners.

``torch.compile`` traces forward and backward as one joint graph (AOTAutograd) and splits it with
``min_cut_rematerialization_partition``: the forward saves fewer tensors than eager autograd does,
and backward recomputes the cheap pointwise ops (RMSNorm's fp32 upcast, SwiGLU's ``silu·up``, a
loss's log-softmax) from what was kept. The eager trace (tracer.py) measures eager autograd; this
module measures the difference on the same fake tensors:

- each distinct repeated block (``ModelBundle.checkpoint_blocks``) is traced once at the step's
  micro-batch, under the step's autocast, with both partitioners: ``default_partition`` saves what
  eager autograd saves, ``min_cut_rematerialization_partition`` what inductor's compiled graph
  saves (torch 2.13 ``torch/_functorch/partitioners.py``);
- the loss is traced the same way from the model's output, as OLMo-core (``compile_loss``),
  torchtune and torchtitan compile it.

Only saved tensors that depend on the step's activations count: a weight is alive anyway, and a
view allocates nothing. What this does not see: inductor fuses pointwise chains inside a graph, so
transient buffers inside a block are smaller still; graph breaks (a block dynamo cannot trace as
one graph) keep eager memory at the break.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any

import torch
from torch import fx, nn
from torch.utils._pytree import tree_flatten, tree_map, tree_unflatten

__all__ = ["BlockCalls", "SavedPair", "TensorSpec", "block_saved", "loss_saved"]


@dataclass(frozen=True)
class SavedPair:
    """Bytes saved for backward by one traced region, eager versus compiled."""

    eager_bytes: int
    """What ``default_partition`` saves (eager autograd's saved tensors)."""
    compiled_bytes: int
    """What ``min_cut_rematerialization_partition`` saves (``torch.compile``'s)."""
    input_grad_bytes: int
    """Bytes of the gradients the backward graph returns for the region's activation inputs."""

    @property
    def saving_bytes(self) -> int:
        return max(0, self.eager_bytes - self.compiled_bytes)


def _is_view(node: fx.Node) -> bool:
    target = node.target
    schema = getattr(target, "_schema", None)
    return schema is not None and any(r.alias_info is not None for r in schema.returns)


def _nbytes(node: fx.Node) -> int:
    val = node.meta.get("val")
    return val.numel() * val.element_size() if isinstance(val, torch.Tensor) else 0


def _activation_saved_bytes(gm: fx.GraphModule, activation_inputs: set[int], user_outputs: int) -> int:
    """Bytes of the forward graph's saved outputs that are new memory derived from activations.

    ``activation_inputs`` are the positions of the placeholders that carry activations (not
    weights); a saved node counts once per storage, views resolved to their base.
    """
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    from_activation: set[fx.Node] = {placeholders[i] for i in activation_inputs}
    for node in gm.graph.nodes:
        if node.op == "call_function" and any(a in from_activation for a in node.all_input_nodes):
            from_activation.add(node)
    output = next(n for n in gm.graph.nodes if n.op == "output")
    saved = [n for n in tree_flatten(output.args[0])[0] if isinstance(n, fx.Node)][user_outputs:]
    bases: set[fx.Node] = set()
    for node in saved:
        while _is_view(node) and node.all_input_nodes:
            node = node.all_input_nodes[0]
        if node.op != "placeholder" and node in from_activation:
            bases.add(node)
    return sum(_nbytes(n) for n in bases)


@functools.cache
def _decompositions() -> dict[Any, Callable[..., Any]]:
    """Inductor's decomposition table (what ``torch.compile`` partitions), attention kept whole.

    Decomposed, ``_log_softmax`` becomes ``amax``/``sub``/``exp``/``sum``/``log`` and the
    partitioner may keep the loss's 16-bit input and recompute the rest; attention stays one op,
    as a GPU runs it (flash / memory-efficient kernels), not the CPU's math decomposition.
    """
    from torch._inductor.decomposition import select_decomp_table

    return {op: fn for op, fn in select_decomp_table().items() if "scaled_dot_product" not in str(op)}


@dataclass(frozen=True)
class TensorSpec:
    """A tensor's metadata: what a trace needs to make a new one (keeping no reference to it)."""

    shape: tuple[int, ...]
    stride: tuple[int, ...]
    dtype: torch.dtype
    requires_grad: bool

    @classmethod
    def of(cls, t: torch.Tensor) -> TensorSpec:
        return cls(tuple(t.shape), tuple(t.stride()), t.dtype, t.requires_grad)

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * self.dtype.itemsize


def _plain(value: Any) -> bool:
    """Whether ``value`` is a tensor, a plain value or a tuple/list/dict of them."""
    if isinstance(value, tuple | list):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(_plain(v) for v in value.values())
    return value is None or isinstance(value, torch.Tensor | bool | int | float | str | torch.dtype)


def _describe(value: Any) -> Any:
    return TensorSpec.of(value) if isinstance(value, torch.Tensor) else value


class _Keep:
    """An AOTAutograd "compiler" that keeps the graph it is given and runs it as it is."""

    def __init__(self) -> None:
        self.graph: fx.GraphModule | None = None

    def __call__(self, gm: fx.GraphModule, example_inputs: Sequence[Any]) -> Any:
        self.graph = gm
        return gm


def _fresh(t: torch.Tensor | TensorSpec, grad: bool) -> torch.Tensor:
    """A new leaf with ``t``'s shape, strides and dtype (in the ambient fake mode)."""
    spec = t if isinstance(t, TensorSpec) else TensorSpec.of(t)
    fresh = torch.empty_strided(spec.shape, spec.stride, dtype=spec.dtype)
    return fresh.requires_grad_(grad and spec.dtype.is_floating_point)


def _saved(
    fn: Callable[..., Any],
    weights: Sequence[torch.Tensor],
    activations: Sequence[torch.Tensor | TensorSpec],
    autocast: torch.dtype | None,
    constants: Sequence[torch.Tensor | TensorSpec] = (),
) -> SavedPair:
    """Trace ``fn(*weights, *activations, *constants)`` with both partitioners (constants: tensors
    such as labels that need no gradient and whose saved derivatives are not counted); see
    :class:`SavedPair`."""
    from torch._functorch.aot_autograd import aot_function
    from torch._functorch.partitioners import default_partition, min_cut_rematerialization_partition

    first = len(weights)
    positions = set(range(first, first + len(activations)))
    results: list[int] = []
    grad_bytes = sum(
        TensorSpec.of(a).nbytes if isinstance(a, torch.Tensor) else a.nbytes
        for a in activations
        if a.requires_grad
    )
    for partition in (default_partition, min_cut_rematerialization_partition):
        forward = _Keep()

        def call(*tensors: torch.Tensor) -> Any:
            ctx = torch.autocast("cpu", dtype=autocast) if autocast is not None else nullcontext()
            with ctx:
                return fn(*tensors)

        compiled = aot_function(
            call,
            fw_compiler=forward,
            bw_compiler=_Keep(),
            partition_fn=partition,
            decompositions=_decompositions(),
        )
        inputs = [_fresh(w, w.requires_grad) for w in weights]
        inputs += [_fresh(a, a.requires_grad) for a in activations] + [_fresh(c, False) for c in constants]
        out = compiled(*inputs)
        assert forward.graph is not None  # aot_function compiles the forward on its first call
        results.append(_activation_saved_bytes(forward.graph, positions, len(tree_flatten(out)[0])))
    return SavedPair(eager_bytes=results[0], compiled_bytes=results[1], input_grad_bytes=grad_bytes)


def block_saved(
    block: nn.Module, args: tuple[Any, ...], kwargs: dict[str, Any], autocast: torch.dtype | None
) -> SavedPair:
    """Saved bytes of one call of ``block`` with the arguments it was called with (tensors or
    their :class:`TensorSpec`), in the ambient fake mode.

    Tensor arguments are the activations; everything else (flags, None) is fixed in the trace.
    """
    names = [n for n, _ in block.named_parameters()] + [n for n, _ in block.named_buffers()]
    tensors = [p for _, p in block.named_parameters()] + [b for _, b in block.named_buffers()]
    leaves, spec = tree_flatten((args, kwargs))
    slots = [i for i, leaf in enumerate(leaves) if isinstance(leaf, torch.Tensor | TensorSpec)]

    def fn(*flat: torch.Tensor) -> Any:
        state = dict(zip(names, flat[: len(names)], strict=True))
        filled = list(leaves)
        for slot, t in zip(slots, flat[len(names) :], strict=True):
            filled[slot] = t
        call_args, call_kwargs = tree_unflatten(filled, spec)
        return torch.func.functional_call(block, state, call_args, call_kwargs)

    return _saved(fn, tensors, [leaves[i] for i in slots], autocast)


def loss_saved(
    loss: Callable[..., torch.Tensor],
    output: torch.Tensor | TensorSpec,
    labels: Sequence[torch.Tensor | TensorSpec],
    autocast: torch.dtype | None,
) -> SavedPair:
    """Saved bytes of ``loss(output, *labels)`` from the model's (fake) output tensor, under the
    step's autocast."""
    return _saved(loss, (), (output,), autocast, constants=labels)


class BlockCalls:
    """Forward pre-hooks that keep the first call's arguments of the first block of each class.

    Installed for the measured step (a hook only keeps references), read after it; :meth:`remove`
    takes the hooks off.
    """

    def __init__(self, model: nn.Module, blocks: Sequence[str]) -> None:
        self.calls: dict[type, tuple[nn.Module, tuple[Any, ...], dict[str, Any]]] = {}
        self.counts: dict[type, int] = {}
        self._handles: list[Any] = []
        for name in blocks:
            block = model.get_submodule(name)
            kind = type(block)
            self.counts[kind] = self.counts.get(kind, 0) + 1
            if self.counts[kind] == 1:
                self._handles.append(block.register_forward_pre_hook(self._keep, with_kwargs=True))

    def _keep(self, block: nn.Module, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        # Metadata only: a reference would keep the first block's input alive past its backward.
        # An argument that is an object (a KV cache that Hugging Face models pass every layer even
        # in training) holds tensors of this step: the trace runs without it (None in its place).
        if type(block) not in self.calls:
            plain_args = tuple(a if _plain(a) else None for a in args)
            kept = {k: v for k, v in kwargs.items() if _plain(v)}
            self.calls[type(block)] = (block, tree_map(_describe, plain_args), tree_map(_describe, kept))

    def remove(self) -> None:
        for handle in self._handles:
            handle.remove()

    def saving_bytes(self, autocast: torch.dtype | None) -> int:
        """Σ over every block of (eager − compiled) saved bytes: one trace per distinct class."""
        return sum(
            self.counts[kind] * block_saved(block, args, kwargs, autocast).saving_bytes
            for kind, (block, args, kwargs) in self.calls.items()
        )

    @property
    def blocks(self) -> int:
        """Blocks covered (every repeated block whose class was called)."""
        return sum(self.counts[kind] for kind in self.calls)
