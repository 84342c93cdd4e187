"""The advisor's own types: one piece of advice, what the workload already does, and the
configuration that does not fit (with the estimate of a changed one)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from gpuplan.hardware import GPU
from gpuplan.perf.engines import engine_defaults
from gpuplan.perf.estimate import Estimate, EstimateRequest, run_estimate
from gpuplan.perf.links import Link
from gpuplan.profile.model import Profile

if TYPE_CHECKING:
    from gpuplan.catalog.gpu_hour import GpuHourPrice

__all__ = ["Advice", "Current", "Retrace", "Setup"]

#: Traces the workload with settings changed (``activation_checkpointing: full``, ``loss``,
#: ``optimizer``, ``batch_size``, ``gradient_accumulation``, as the workload file names them) and
#: gives its profile: what ``gpuplan estimate`` of the workload written with the change reads.
Retrace = Callable[[Mapping[str, "str | int"]], Profile]


@dataclass(frozen=True, kw_only=True)
class Current:
    """What the workload already does: the advisor suggests none of it again."""

    optimizer: str = "adamw"
    """The workload's optimizer name (``adamw``, ``adamw-fused``, ``adamw-8bit`` …)."""
    loss: str = "standard"
    """``standard``, ``chunked``, ``chunked-logits`` or ``fused-linear``."""
    lora: bool = False
    """The workload already fine-tunes LoRA adapters."""
    optimizer_in_backward: bool = False
    """The optimizer already steps inside backward."""
    engine: str | None = None
    """The serving engine the workload names (``vllm``, ``sglang``; None: not named)."""
    engine_version: tuple[int, int] | None = None
    """That engine's (major, minor) version; None where not stated."""

    @classmethod
    def of(cls, workload: object) -> Current:
        """The settings of a :class:`gpuplan.workload.Workload` (read by attribute, any layer above)."""
        serving = getattr(workload, "serving", None)
        return cls(
            optimizer=str(getattr(getattr(workload, "optimizer", None), "value", "adamw")),
            loss=str(getattr(getattr(workload, "loss", None), "value", "standard")),
            lora=getattr(getattr(workload, "model", None), "lora", None) is not None,
            optimizer_in_backward=bool(getattr(workload, "optimizer_in_backward", False)),
            engine=getattr(serving, "engine_name", None),
            engine_version=getattr(serving, "engine_version", None),
        )


@dataclass(frozen=True, kw_only=True)
class Advice:
    """One change that reduces memory, evaluated on one GPU configuration."""

    action: str
    """``micro_batch``, ``gradient_checkpointing``, ``fused_optimizer``, ``adamw_8bit``,
    ``paged_adamw_8bit``, ``optimizer_in_backward``, ``chunked_loss``, ``fused_linear_loss``,
    ``zero2``, ``fsdp``, ``lora``, ``qlora``, ``shorter_seq_len``, ``bf16_weights``, ``share_gpu`` (fewer
    replicas to a GPU), ``tensor_parallel`` (a served model's replica split over more GPUs of the kind),
    ``bigger_gpu``, or ``combined`` (several of them together: :attr:`changes`)."""
    summary: str
    """One line saying what to change."""
    gpu: str
    gpu_count: int
    peak_memory_gib: float
    """What nvidia-smi would show after the change (the estimate's ``peak_memory_gib``)."""
    fits: bool
    """By the estimate's own verdict: ``required_gib`` ≤ ``capacity_gib``."""
    step_time_s: float | None
    """Time of one optimizer step of the same global batch after the change (None if not derived)."""
    step_time_factor: float | None
    """``step_time_s`` over the unchanged workload's step time on the same GPU configuration."""
    derivation: str
    """How the figures were obtained (all are derived, not traced)."""
    required_gib: float | None = None
    """What must fit after the change (the verdict's figure: allocated + context + cuBLAS + NCCL)."""
    capacity_gib: float | None = None
    """Usable memory of the GPU the change runs on (a serving engine's share of it where
    :attr:`engine_share`)."""
    engine_share: bool = False
    """``capacity_gib`` is a serving engine's share of the GPU (the estimate's
    :attr:`gpuplan.perf.memory.MemoryEstimate.engine_share`)."""
    offered: bool | None = None
    """For another GPU: whether the catalog has an offer of it (None when not checked)."""
    gpu_price: GpuHourPrice | None = None
    """For another GPU (``bigger_gpu``): the catalog's lowest on-demand price per GPU-hour the advice
    ranked it by, with where and when it is from (its price None, with the reason, where the catalog
    has none); None where no price was looked up."""
    changes: tuple[str, ...] = ()
    """For ``combined``: the actions applied together, in the order applied (e.g.
    ``gradient_checkpointing``, ``micro_batch``); empty for a single change."""
    saved_gib: tuple[float, ...] = ()
    """For ``combined``: what each of :attr:`changes`, applied in that order, takes off the memory
    that must fit one GPU (``required_gib``), GiB; empty for a single change."""


@dataclass(frozen=True)
class Setup:
    """The configuration that does not fit, and its estimate."""

    request: EstimateRequest
    base: Estimate
    current: Current = Current()
    offered: Mapping[str, GpuHourPrice | None] | None = None
    """GPUs the catalog has offers of, each with its lowest on-demand price per GPU-hour and the
    offer it is from (:func:`gpuplan.catalog.query.on_demand_gpu_hours`; None: not looked up);
    None: not checked (every GPU may be suggested)."""
    retrace: Retrace | None = None
    """Traces the workload with a change applied, so that a change the workload file can state is
    costed on the profile its applied estimate reads (None: derived from this profile alone)."""

    @property
    def profile(self) -> Profile:
        return self.request.profile

    @property
    def gpu(self) -> GPU:
        return self.request.gpu

    @property
    def count(self) -> int:
        return self.request.count

    @property
    def accum(self) -> int:
        return self.request.grad_accum_steps

    def changed(
        self,
        *,
        profile: Profile,
        current: Current,
        count: int | None = None,
        parallelism: str | None = None,
    ) -> Setup:
        """This configuration with ``profile`` (what the workload then does: ``current``), on
        ``count`` GPUs sharded as ``parallelism`` (the request's own where None), its link built as
        :meth:`run` builds one: the changes of a combination applied one after another."""
        r = self.request
        n = count or r.count
        request = r.changed(
            profile=profile, count=n, parallelism=parallelism or r.parallelism, link=_link_for(r, r.gpu, n)
        )
        return Setup(
            request=request, base=self.base, current=current, offered=self.offered, retrace=self.retrace
        )

    def run(
        self,
        profile: Profile,
        *,
        accum: int | None = None,
        gpu: GPU | None = None,
        count: int | None = None,
        parallelism: str | None = None,
        tensor_parallel: int | None = None,
    ) -> Estimate:
        """Estimate a changed profile on this configuration (or another GPU, count, parallelism,
        or tensor-parallel degree: a served model's engine then scheduled at that degree, as
        ``plan`` sizes a service split over more GPUs)."""
        r = self.request
        gpu, count = gpu or r.gpu, count or r.count
        split: dict[str, Any] = {}
        if tensor_parallel is not None:
            split["model_parallel"] = replace(r.model_parallel, tensor=tensor_parallel)
            if r.serving_scheduler is not None:
                split["serving_scheduler"] = engine_defaults(
                    gpu, self.current.engine, self.current.engine_version, tensor_parallel=tensor_parallel
                )
        return run_estimate(
            r.changed(
                profile=profile,
                gpu=gpu,
                count=count,
                parallelism=parallelism or r.parallelism,
                grad_accum_steps=accum or r.grad_accum_steps,
                link=_link_for(r, gpu, count),
                **split,
            )
        )

    def advice(
        self,
        e: Estimate,
        *,
        action: str,
        summary: str,
        derivation: str,
        timed: bool = True,
        gpu_price: GpuHourPrice | None = None,
        changes: tuple[str, ...] = (),
        saved_gib: tuple[float, ...] = (),
    ) -> Advice:
        return Advice(
            action=action,
            summary=summary,
            gpu=e.gpu,
            gpu_count=e.gpu_count,
            peak_memory_gib=e.peak_memory_gib,
            fits=e.fits,
            step_time_s=e.step_time_s if timed else None,
            step_time_factor=e.step_time_s / self.base.step_time_s if timed else None,
            derivation=derivation,
            required_gib=e.memory.required_gib,
            capacity_gib=e.memory.capacity_gib,
            engine_share=e.memory.engine_share,
            offered=None if self.offered is None or e.gpu == self.gpu.id else e.gpu in self.offered,
            gpu_price=gpu_price,
            changes=changes,
            saved_gib=saved_gib,
        )


def _link_for(request: EstimateRequest, gpu: GPU, count: int) -> Link | None:
    """The link of a changed configuration: the request's own on the same GPUs; for more GPUs or
    another GPU, one built like it.

    More GPUs of the same model keep the node size and in-node link where the instance or the user
    gave them (a request of 4 GPUs with no instance says nothing about node size: 16 of them are two
    nodes of 8, as their own estimate has them, not four of 4) and the network (a kind left unsaid
    stays unsaid). Another GPU is another instance type: it keeps only a network the user gave.
    """
    link = request.link
    if link is None or (gpu.id == request.gpu.id and count == request.count):
        return link
    same_gpu = gpu.id == request.gpu.id
    multi = same_gpu and link.gpus_per_node > 1 and link.node_size_given
    keep_network = same_gpu or link.network_source == "user"
    return Link.for_gpus(
        gpu,
        count,
        gpus_per_node=link.gpus_per_node if multi else None,
        nvlink=link.intra_node == "nvlink" if multi else None,
        network_gbit_s=link.network_gbit_s if keep_network and link.network_known else None,
        network_kind=link.network_kind if keep_network else None,
        network_source=link.network_source,
        network_kind_assumed=keep_network and link.network_kind_assumed,
    )
