"""The optimizer a workload names, configured as it would run on a GPU.

bitsandbytes is not a dependency (it needs CUDA to import its kernels); its 8-bit AdamW is traced
with :class:`BlockwiseAdamW8bit`, a stand-in that allocates exactly the state bitsandbytes
allocates (``Optimizer2State.init_state``, bitsandbytes/optim/optimizer.py, read 2026-12-01 via
the public code index): for a parameter of at least ``min_8bit_size`` = 4096 elements, two uint8
moment buffers of its size and two fp32 ``absmax`` vectors, one value per 256-element block
(2 + 8/256 = 2.03 bytes per parameter); a smaller parameter keeps two fp32 moments (8 bytes). The
update is one fused kernel per parameter in bitsandbytes, so the stand-in makes no parameter-sized
temporary. With ``is_paged`` the moment buffers of parameters of at least 100,000 elements live in
CUDA managed memory (``get_state_buffer``), which pages out to host RAM when the GPU is full.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable

import torch

from gpuplan.vocab import OptimizerName

__all__ = ["BlockwiseAdamW8bit", "MasterWeights", "make_optimizer", "paged_state_bytes"]

#: bitsandbytes' defaults (Optimizer2State): smallest parameter with 8-bit state, quantisation block.
MIN_8BIT_SIZE = 4096
BLOCK_SIZE = 256
#: Smallest parameter whose state a paged optimizer puts in managed memory (``get_state_buffer``).
MIN_PAGED_SIZE = 100_000


class BlockwiseAdamW8bit(torch.optim.Optimizer):
    """Stand-in for bitsandbytes ``AdamW8bit`` / ``PagedAdamW8bit``: the same state tensors, and
    an update that reads and writes what the fused kernel does (parameter, gradient, both moments)."""

    def __init__(
        self, params: Iterable[torch.nn.Parameter], *, lr: float = 1e-4, paged: bool = False
    ) -> None:
        super().__init__(list(params), {"lr": lr})
        self.paged = paged

    def _init_state(self, p: torch.Tensor) -> dict[str, torch.Tensor]:
        n = p.numel()
        if n < MIN_8BIT_SIZE:
            return {
                "state1": torch.zeros(n, dtype=torch.float32),
                "state2": torch.zeros(n, dtype=torch.float32),
            }
        blocks = math.ceil(n / BLOCK_SIZE)
        return {
            "state1": torch.zeros(n, dtype=torch.uint8),
            "state2": torch.zeros(n, dtype=torch.uint8),
            "absmax1": torch.zeros(blocks, dtype=torch.float32),
            "absmax2": torch.zeros(blocks, dtype=torch.float32),
        }

    @torch.no_grad()
    def step(self, closure: Callable[[], float] | None = None) -> None:  # type: ignore[override]
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if not state:
                    state.update(self._init_state(p))
                # NB: one fused kernel on the GPU (dequantise, update, requantise): in-place ops only.
                state["state1"].add_(1)
                state["state2"].add_(1)
                p.add_(p.grad, alpha=-group["lr"])

    def paged_bytes(self) -> float:
        """Bytes of state in managed memory (0 unless paged)."""
        if not self.paged:
            return 0.0
        total = 0
        for state in self.state.values():
            for name in ("state1", "state2"):
                t = state.get(name)
                if t is not None and t.numel() >= MIN_PAGED_SIZE:
                    total += t.numel() * t.element_size()
        return float(total)


class MasterWeights(torch.optim.Optimizer):
    """An optimizer over fp32 master copies of 16-bit parameters, as Megatron-LM's
    ``Float16OptimizerWithFloat16Params`` runs one (NVIDIA/Megatron-LM megatron/optimizer/optimizer.py
    @79a3bb6b, read 2026-12-03; DeepSpeed's ``FP16_Optimizer`` and apex amp ``O2`` do the same).

    It makes ``param.detach().clone().float()`` of each parameter (kept here as optimizer state);
    a step copies each 16-bit gradient to an fp32 one on its master (``main_param.grad =
    model_param.grad.float()``) and frees the 16-bit gradient ("safe to deallocate model's grad …
    after copying"), steps the inner optimizer on the masters, and copies the masters back into
    the 16-bit parameters (``_copy_main_params_to_model_params``). The fp32 gradients live until
    the next step's ``zero_grad``; here they are dropped after the step, which is the same peak.

    ``main_grads`` (Megatron-LM ``--bf16``): a persistent fp32 gradient buffer per parameter,
    allocated with the optimizer (Megatron's DDP ``main_grad``, "contiguous buffers for parameters
    and main gradients", docs/user-guide/features/dist_optimizer.md @d98e8a6), into which each
    16-bit gradient is added as soon as backward completes it, the 16-bit gradient then freed
    (:meth:`install_accumulation`); the step takes the buffer as the master's gradient and zeroes
    it for the next step. With Transformer Engine the add is fused into the weight-gradient GEMM,
    which then reads and writes the fp32 buffer: the same bytes, traced here as the add.
    """

    def __init__(
        self, name: OptimizerName, params: Iterable[torch.nn.Parameter], *, main_grads: bool = False
    ) -> None:
        model_params = list(params)
        super().__init__(model_params, {})
        # Parameters (leaves without autograd), so that the inner optimizer takes them as its own.
        masters = [torch.nn.Parameter(p.detach().clone().float(), requires_grad=False) for p in model_params]
        for p, m in zip(model_params, masters, strict=True):
            self.state[p]["master"] = m
        self.inner = make_optimizer(name, masters)
        #: Model parameter -> its fp32 main gradient (``main_grads``; empty otherwise). Kept out of
        #: ``state`` so that a memory tracker does not take them for optimizer state.
        self.main_grads: dict[torch.Tensor, torch.Tensor] = (
            {p: torch.zeros_like(m) for p, m in zip(model_params, masters, strict=True)} if main_grads else {}
        )

    def install_accumulation(self) -> None:
        """Add each parameter's 16-bit gradient into its fp32 main gradient as soon as backward
        completes it, and free the 16-bit one (Megatron DDP's gradient hook). Install after any
        hook that must see the 16-bit gradient first (a memory tracker's)."""
        for p, main in self.main_grads.items():
            p.register_post_accumulate_grad_hook(functools.partial(_accumulate, main))

    @torch.no_grad()
    def step(self, closure: Callable[[], float] | None = None) -> None:  # type: ignore[override]
        pairs = [(p, self.state[p]["master"]) for g in self.param_groups for p in g["params"]]
        for p, m in pairs:
            if p in self.main_grads:
                m.grad = self.main_grads[p]
            elif p.grad is not None:
                m.grad = p.grad.float()
                p.grad = None
        self.inner.step()
        for p, m in pairs:
            if m.grad is not None:
                p.copy_(m)
                m.grad = None
        for main in self.main_grads.values():
            main.zero_()


@torch.no_grad()
def _accumulate(main: torch.Tensor, p: torch.Tensor) -> None:
    if p.grad is not None:
        main.add_(p.grad)
        p.grad = None


def paged_state_bytes(optimizers: Iterable[torch.optim.Optimizer]) -> float:
    """Optimizer state that lives in CUDA managed memory, bytes, over ``optimizers``."""
    return sum(o.paged_bytes() for o in optimizers if isinstance(o, BlockwiseAdamW8bit))


def make_optimizer(
    name: OptimizerName,
    params: Iterable[torch.nn.Parameter],
    *,
    master_weights: bool = False,
    main_grads: bool = False,
) -> torch.optim.Optimizer:
    """``name`` over ``params`` (over fp32 master copies of them with ``master_weights``:
    :class:`MasterWeights`, with persistent fp32 main gradients where ``main_grads`` too).
    ``foreach=True`` is set explicitly because torch picks foreach by
    default only for CUDA tensors, and the trace runs on a fake CPU device; foreach kernels allocate
    a parameter-sized temporary at the step (``_foreach_sqrt(exp_avg_sq)`` in AdamW)."""
    if master_weights:
        return MasterWeights(name, params, main_grads=main_grads)
    p = list(params)
    if name is OptimizerName.SGD:
        return torch.optim.SGD(p, lr=0.1, momentum=0.9, foreach=True)
    if name is OptimizerName.ADAM:
        return torch.optim.Adam(p, lr=1e-4, foreach=True)
    if name is OptimizerName.ADAMW:
        return torch.optim.AdamW(p, lr=1e-4, foreach=True)
    if name is OptimizerName.ADAMW_FUSED:
        # The fused CPU kernel runs under the fake mode: one kernel, no parameter-sized temporary.
        return torch.optim.AdamW(p, lr=1e-4, fused=True)
    if name is OptimizerName.ADAFACTOR:
        return torch.optim.Adafactor(p, lr=1e-2, foreach=True)
    if name in (OptimizerName.ADAMW_8BIT, OptimizerName.PAGED_ADAMW_8BIT):
        return BlockwiseAdamW8bit(p, paged=name.paged)
    raise ValueError(f"no optimizer for {name!r}")  # unreachable: OptimizerName is closed
