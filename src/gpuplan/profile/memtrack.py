"""torch's MemTracker, adapted to what gpuplan traces: frozen parameters and a GPU target.

``torch.distributed._tools.mem_tracker.MemTracker`` (torch 2.13) has two problems for us
(ESTIMATION_NOTES.md §1.3):

1. it calls ``param.register_hook`` on every parameter, which raises for frozen parameters
   (LoRA base weights, inference);
2. it rounds allocations up to CUDA's 512-byte blocks only for tensors on a ``cuda`` device, and we
   trace on a fake CPU device (a fake CUDA device aborts in backward).

``GpuMemTracker`` subclasses it — nothing in torch is patched — and overrides the private methods
involved. Tensors created inside ``optimizer.step()`` count as temporaries until they turn out to be
optimizer state (torch counts them all as state). It also keeps only the global peak (not
per-module snapshots), which we do not use and which cost time on 7B-parameter models, and
walks each op's outputs without building a pytree map per op (:meth:`GpuMemTracker.__torch_dispatch__`).
The private API is pinned by ``torch==2.13.0``.
"""

from __future__ import annotations

import math
from typing import Any

import torch
from torch import nn
from torch._guards import active_fake_mode
from torch.distributed._tools.common_utils import get_untyped_storages
from torch.distributed._tools.mem_tracker import (
    _TOTAL_KEY,
    MemTracker,
    _MemRefType,
    _ModState,
    _RefType,
    _State,
    _UpdateType,
    _WeakRefInfo,
)
from torch.distributed.tensor import DTensor

from gpuplan.profile.model import MemoryBreakdown
from gpuplan.profile.recorder import tensors_in

__all__ = ["CUDA_BLOCK_BYTES", "GpuMemTracker"]

#: The CUDA caching allocator's smallest block (c10/cuda/CUDACachingAllocator.cpp kMinBlockSize).
CUDA_BLOCK_BYTES = 512


class _GpuWeakRefInfo(_WeakRefInfo):
    """Storage bookkeeping that rounds like the CUDA caching allocator, whatever the traced device."""

    def _calculate_mem_consumed(self) -> int:
        # NB: rounded on every device, since the memory we estimate is a GPU's.
        return math.ceil(self.size * self.element_size / CUDA_BLOCK_BYTES) * CUDA_BLOCK_BYTES


class GpuMemTracker(MemTracker):
    """MemTracker with frozen-parameter support and CUDA rounding; see the module docstring."""

    # ---- 512-byte rounding: the two places that create storage records -------------------------

    def _update_and_maybe_create_winfos(
        self, t: torch.Tensor, reftype: _RefType, update_existing: bool = False
    ) -> set[_WeakRefInfo]:
        winfos: set[_WeakRefInfo] = set()
        for st in get_untyped_storages(t):
            winfo, _ = self._WINFO.get(st, (None, None))
            if winfo is not None:
                old_reftype = winfo.reftype
                if old_reftype != reftype:
                    winfo.reftype = reftype
                    self._update_snap(_UpdateType.REF, winfo, old_reftype=old_reftype)
            elif update_existing:
                raise KeyError("No existing winfo found")
            else:
                winfo, w_st = _GpuWeakRefInfo.create_winfo(st, t.device, reftype, self._delete_callback)
                self._WINFO[st] = (winfo, w_st)
                if winfo.mem_consumed > 0:
                    self._update_snap(_UpdateType.ADD, winfo)
            winfos.add(winfo)
        return winfos

    def track_gradients(self, *tensors: torch.Tensor) -> None:
        """Track tensors made before the tracker as gradients (a persistent fp32 main-gradient
        buffer, ``profile/optimizers.py`` ``MasterWeights``), as ``track_external`` tracks modules
        and optimizers. Call before the tracker is entered."""
        for t in tensors:
            self._update_and_maybe_create_winfos(t, _MemRefType.GRAD)

    def _track(self, reftype: _RefType, t: torch.Tensor) -> None:
        if reftype == _MemRefType.OPT:
            # NB: a tensor created inside optimizer.step() is a temporary (foreach AdamW's
            # parameter-sized sqrt(exp_avg_sq)) until the post-step hook finds it in
            # optimizer.state and relabels it optimizer state. torch labels them all state.
            reftype = _MemRefType.TEMP
        for st in get_untyped_storages(t):
            winfo, _ = self._WINFO.get(st, (None, None))
            if winfo is not None:
                if winfo.size != st.size():
                    old = winfo.mem_consumed
                    winfo.update_mem_consumed(st)
                    self._update_snap(_UpdateType.SIZE, winfo, old_mem_consumed=old)
                return
            winfo, w_st = _GpuWeakRefInfo.create_winfo(st, t.device, reftype, self._delete_callback)
            self._WINFO[st] = (winfo, w_st)
            if winfo.mem_consumed > 0:
                self._update_snap(_UpdateType.ADD, winfo)

    # ---- frozen parameters: no gradient hooks on tensors that will never get a gradient ----------

    def _track_module_params_and_buffers(
        self, module: nn.Module, install_grad_hooks: bool = True
    ) -> tuple[int, int]:
        def _grad_hook(grad: torch.Tensor) -> None:
            self._update_and_maybe_create_winfos(grad, _MemRefType.GRAD)

        param_memory = 0
        for param in module.parameters():
            winfos = self._update_and_maybe_create_winfos(param, _MemRefType.PARAM)
            param_memory += sum(w.mem_consumed for w in winfos)
            if param.grad is not None:
                self._update_and_maybe_create_winfos(param.grad, _MemRefType.GRAD)
            if (
                install_grad_hooks
                and param.requires_grad
                and self._param_to_grad_hook_handles.get(param) is None
            ):
                self._param_to_grad_hook_handles[param] = (
                    param.register_hook(_grad_hook),
                    param.register_post_accumulate_grad_hook(lambda p: _grad_hook(p.grad)),
                )
        buffer_memory = 0
        for buffer in module.buffers():
            winfos = self._update_and_maybe_create_winfos(buffer, _MemRefType.BUFFER)
            buffer_memory += sum(w.mem_consumed for w in winfos)
        return param_memory, buffer_memory

    # ---- speed: the global peak only -----------------------------------------------------------

    def _update_peak_stats(self, peak_state: _State) -> None:
        for dev, dev_snap in self._curr_mem_snap.items():
            total = dev_snap[_TOTAL_KEY]
            if self._peak_mem.get(dev, 0) < total:
                self._peak_mem[dev] = total
                self._peak_mem_snap[dev] = dict(dev_snap)

    def _pre_bw_hook(self, module: nn.Module, args: Any) -> None:
        # Per-module backward snapshots are not used; the parent warns when a module is gone.
        return None

    def _post_bw_hook(self, module: nn.Module, args: Any) -> None:
        return None

    def reset_peak(self) -> None:
        """Forget the peak so far (keep what is live): call between warm-up and measured steps.

        The first step creates the optimizer state inside ``step()``, where it counts as temporary
        until the step ends; measuring the second step gives the steady-state categories.
        """
        self.reset_mod_stats()
        self._peak_mem_snap = {dev: dict(snap) for dev, snap in self._curr_mem_snap.items()}
        self._peak_mem = {dev: snap[_TOTAL_KEY] for dev, snap in self._peak_mem_snap.items()}

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        """torch's ``MemTracker.__torch_dispatch__`` (torch 2.13), its outputs walked directly.

        torch maps ``self._track`` over the outputs with ``tree_map_only``, which builds a wrapped
        function and a new output tree on every op (a large model's trace runs 10⁵ ops); the same
        tensors are tracked here in the same order, the output returned as it came.
        """
        if any(t == DTensor for t in types):
            return NotImplemented  # as torch: DTensor desugars into local ops first
        if func is torch.ops._c10d_functional.wait_tensor.default and active_fake_mode():
            res = args[0]  # as torch: the meta wait_tensor would return a new tensor
        else:
            res = func(*args, **kwargs or {})
        if active_fake_mode() is self._fake_mode_on_entry:
            if self._in_opt:
                reftype = _MemRefType.OPT
            elif self._mod_tracker.is_bw and not self._in_ac:
                reftype = _MemRefType.TEMP
            else:
                reftype = _MemRefType.ACT
            for t in tensors_in(res):
                self._track(reftype, t)
            self._update_peak_stats(_ModState.PEAK_BW if self._mod_tracker.is_bw else _ModState.PEAK_FW)
        return res

    # ---- result -------------------------------------------------------------------------------

    def kept_by(self, module: nn.Module) -> tuple[float, float] | None:
        """(the activation bytes ``module``'s forward calls left live — what it saves for backward,
        its output among them —, the bytes of its output), or None when it ran no forward here."""
        stats = self.memory_tracking.get(module)
        if stats is None:
            return None
        pre = stats.snapshots.get(_ModState.PRE_FW, [])
        post = stats.snapshots.get(_ModState.POST_FW, [])
        if not pre or len(pre) != len(post):
            return None

        def act(snap: dict[Any, dict[Any, int]]) -> float:
            return float(sum(dev.get(_MemRefType.ACT, 0) for dev in snap.values()))

        kept = sum(max(0.0, act(after) - act(before)) for before, after in zip(pre, post, strict=True))
        return kept, float(stats.output_mem) * len(post)

    def peak_breakdown(self) -> MemoryBreakdown:
        """Bytes live at the peak, by category, summed over devices (the trace uses one)."""
        snap: dict[Any, int] = {}
        for dev_snap in self._peak_mem_snap.values():
            for k, v in dev_snap.items():
                snap[k] = snap.get(k, 0) + v

        def get(ref: _RefType) -> float:
            return float(snap.get(ref, 0))

        return MemoryBreakdown(
            parameters_bytes=get(_MemRefType.PARAM),
            buffers_bytes=get(_MemRefType.BUFFER),
            gradients_bytes=get(_MemRefType.GRAD),
            optimizer_state_bytes=get(_MemRefType.OPT),
            activations_bytes=get(_MemRefType.ACT),
            temporaries_bytes=get(_MemRefType.TEMP),
            other_bytes=get(_MemRefType.OTH),
        )
