"""The software stack a workload runs on: part of the workload, because the same model on the same GPU
runs 1.5–2× apart between plain PyTorch code and NVIDIA's tuned training scripts.

A workload's ``stack`` block starts from a named level (:class:`~gpuplan.vocab.StackLevel`) and
overrides what it states::

    stack: tuned                      # shorthand for {level: tuned}
    stack:
      level: stock                    # the default: what plain PyTorch code does
      memory_format: channels-last    # NHWC tensors for convolutions (PyTorch's default is NCHW)
      input_pipeline: dataloader      # dataloader | dali | synthetic (image workloads)
      loader_workers: 8               # DataLoader worker processes per GPU (0: in the training process)
      fused_kernels: [dense-activation, dropout-add-norm, cross-entropy]   # or all / none
      dropout: true                   # as the model's config sets it; false: no dropout
      tensor_parallel_plan: shared-input   # shared-input | per-projection (tensor_parallel > 1)

The other settings that belong to the stack stay where they were: ``optimizer`` (``adamw`` is
PyTorch's foreach AdamW, ``adamw-fused`` its fused one), ``compile`` and ``cuda_graphs``. A level
fills those a workload leaves unset: ``tuned`` makes AdamW the fused one and captures the training
step in CUDA graphs. :class:`Stack` is the resolved whole, what an estimate states it assumed.

What each setting does is traced or costed where it acts, never looked up per model:
``memory_format`` (the layout transposes cuDNN runs around an NCHW tensor-core convolution,
``profile/recorder.py``), ``fused_kernels`` and ``dropout`` (the preset models run the fused ops of
``workload/presets/fused.py``), ``input_pipeline`` (``perf/input_pipeline.py``), ``cuda_graphs``
(the host's per-kernel launch time, ``perf/estimate.py``), ``tensor_parallel_plan`` (the collectives
of a tensor-parallel layer, ``perf/stages/communication.py``). The tensor-parallel plan is no part of
a level: both take Megatron-core's and PyTorch's documented Llama plan (``shared-input``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import BeforeValidator, Field, field_validator, model_validator

from gpuplan.errors import Phrase
from gpuplan.i18n.messages import N_
from gpuplan.vocab import (
    FusedKernel,
    InputPipelineKind,
    MemoryFormat,
    OptimizerName,
    StackLevel,
    TensorParallelPlan,
    pydantic_cast,
)
from gpuplan.workload._validation import Spec

__all__ = ["LEVELS", "Stack", "StackSpec", "level_optimizer", "level_pad_vocab_multiple"]

StackLevelField = Annotated[StackLevel, BeforeValidator(pydantic_cast(StackLevel))]
MemoryFormatField = Annotated[MemoryFormat, BeforeValidator(pydantic_cast(MemoryFormat))]
InputPipelineField = Annotated[InputPipelineKind, BeforeValidator(pydantic_cast(InputPipelineKind))]
TensorParallelPlanField = Annotated[TensorParallelPlan, BeforeValidator(pydantic_cast(TensorParallelPlan))]

#: DataLoader workers per GPU above any real host (a 2-socket server has ~200 hyperthreads).
MAX_LOADER_WORKERS = 1024


def _kernels(value: Any) -> Any:
    """``all`` / ``none`` (or one name) where a list of fused kernels is expected."""
    if isinstance(value, str):
        low = value.strip().lower()
        if low == "all":
            return tuple(FusedKernel)
        if low in ("none", ""):
            return ()
        return (value,)
    return value


FusedKernels = Annotated[
    tuple[Annotated[FusedKernel, BeforeValidator(pydantic_cast(FusedKernel))], ...],
    BeforeValidator(_kernels),
]


@dataclass(frozen=True, kw_only=True)
class _LevelSettings:
    memory_format: MemoryFormat
    input_pipeline: InputPipelineKind
    fused_kernels: tuple[FusedKernel, ...]
    cuda_graphs: bool
    """Whether the training step is captured in CUDA graphs (inference has its own default)."""
    fused_optimizer: bool
    """Whether AdamW is the fused kernel (``adamw-fused``) rather than PyTorch's default foreach."""
    pad_vocab_multiple: int | None
    """What a preset's vocabulary is rounded up to (``model.pad_vocab_multiple``) where it is not a
    multiple of it already; None: the model's own."""


#: What each level sets. Sources:
#: - stock: PyTorch's defaults — ``torch.contiguous_format`` (NCHW) tensors; ``torch.optim.AdamW``
#:   picks the foreach implementation on CUDA when neither ``foreach`` nor ``fused`` is given
#:   (torch/optim/optimizer.py ``_default_to_fused_or_foreach``); ``torch.utils.data.DataLoader``
#:   with torchvision transforms; eager kernel launches.
#: - tuned: NVIDIA's NGC training scripts — DeepLearningExamples' ResNet-50 ``configs.yml`` runs AMP
#:   with ``memory_format: nhwc`` and ``data_backend: dali-gpu`` (NVIDIA/DeepLearningExamples
#:   PyTorch/Classification/ConvNets/configs.yml); FlashAttention's GPT training configs set
#:   ``fused_mlp``, ``fused_dropout_add_ln`` and an in-place fused cross-entropy with apex's fused
#:   AdamW (Dao-AILab/flash-attention training/configs/experiment/pile/gpt3s-flash.yaml, base.yaml
#:   @0b037c2d/0bf5e500, read 2026-12-01); MLPerf Training's BERT logs ``use_cuda_graph=True`` on its
#:   Hopper submissions (mlcommons/training_results_v4.0, NVIDIA/results/*/bert/result_*.txt). Both
#:   pad the vocabulary to a multiple of 8: the same FlashAttention configs'
#:   ``pad_vocab_size_multiple: 8``, DeepLearningExamples' BERT "Padding for divisibility by 8"
#:   (30,522 → 30,528), which keeps the output layer's GEMMs aligned (``perf/gemm.py``).
LEVELS: dict[StackLevel, _LevelSettings] = {
    StackLevel.STOCK: _LevelSettings(
        memory_format=MemoryFormat.CHANNELS_FIRST,
        input_pipeline=InputPipelineKind.DATALOADER,
        fused_kernels=(),
        cuda_graphs=False,
        fused_optimizer=False,
        pad_vocab_multiple=None,
    ),
    StackLevel.TUNED: _LevelSettings(
        memory_format=MemoryFormat.CHANNELS_LAST,
        input_pipeline=InputPipelineKind.DALI,
        fused_kernels=tuple(FusedKernel),
        cuda_graphs=True,
        fused_optimizer=True,
        pad_vocab_multiple=8,
    ),
}


def level_optimizer(optimizer: OptimizerName, level: StackLevel) -> OptimizerName:
    """``optimizer`` as ``level`` runs it: AdamW fused at the tuned level, foreach at the stock one;
    any other optimizer as it is (PyTorch has no fused variant of them that a workload can name)."""
    if optimizer in (OptimizerName.ADAMW, OptimizerName.ADAMW_FUSED):
        return OptimizerName.ADAMW_FUSED if LEVELS[level].fused_optimizer else OptimizerName.ADAMW
    return optimizer


def level_pad_vocab_multiple(level: StackLevel, vocab: int | None) -> int | None:
    """The multiple ``level`` pads a vocabulary of ``vocab`` to; None where it keeps it (the stock
    level, no vocabulary, or one that is a multiple already)."""
    multiple = LEVELS[level].pad_vocab_multiple
    return multiple if multiple and vocab and vocab % multiple else None


def level_reads_with_a_dataloader(level: StackLevel) -> bool:
    """Whether ``level``'s input pipeline is a DataLoader (whose workers ``loader_workers`` sets)."""
    return LEVELS[level].input_pipeline is InputPipelineKind.DATALOADER


class StackSpec(Spec):
    """The software stack: a level and the settings that differ from it."""

    level: StackLevelField = StackLevel.STOCK
    """``stock`` (plain PyTorch, the default) or ``tuned`` (NVIDIA NGC-script level); fills every
    setting below that is not given, and ``optimizer`` / ``cuda_graphs`` when the workload leaves them out."""
    memory_format: MemoryFormatField | None = None
    """``channels-first`` (NCHW, PyTorch's default) or ``channels-last`` (NHWC)."""
    input_pipeline: InputPipelineField | None = None
    """Image workloads: ``dataloader`` (CPU decoding in DataLoader workers), ``dali`` (GPU decoding)
    or ``synthetic`` (no decoding)."""
    loader_workers: int | None = Field(default=None, ge=0, le=MAX_LOADER_WORKERS)
    """DataLoader worker processes per GPU (``num_workers``); 0 decodes in the training process,
    one batch after another with the GPU's work. None: one per vCPU of the instance."""
    fused_kernels: FusedKernels | None = None
    """Hand-fused kernels used (any of ``dense-activation``, ``dropout-add-norm``,
    ``cross-entropy``; ``all`` or ``none``). Run by the preset models; a model from an HF config or
    your own code runs its own kernels."""
    dropout: bool = True
    """``true``: dropout as the model's configuration sets it (the presets: their published
    config's); ``false``: no dropout."""
    tensor_parallel_plan: TensorParallelPlanField = TensorParallelPlan.SHARED_INPUT
    """With ``tensor_parallel`` > 1: ``shared-input`` (one gather of the attention block's input
    shared by q, k, v, one of the MLP's shared by its projections: Megatron-core, PyTorch's Llama
    plan; the default) or ``per-projection`` (each column-parallel projection gathers its own input,
    as a plan of ``ColwiseParallel(input_layouts=Shard(1))`` on q, k, v, gate and up does)."""

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, data: Any) -> Any:
        # ``stack: tuned`` is short for ``stack: {level: tuned}``.
        return {"level": data} if isinstance(data, str) else data

    @model_validator(mode="after")
    def _workers_need_a_dataloader(self) -> StackSpec:
        pipeline = self.input_pipeline or LEVELS[self.level].input_pipeline
        if self.loader_workers is not None and pipeline is not InputPipelineKind.DATALOADER:
            # The workers would change nothing: said, not silently ignored.
            raise ValueError(
                Phrase(
                    N_(
                        "loader_workers sets DataLoader workers, but the input pipeline is {pipeline}; "
                        "set input_pipeline: dataloader, or leave loader_workers out"
                    ),
                    pipeline=pipeline.value,
                )
            )
        return self

    @field_validator("fused_kernels")
    @classmethod
    def _unique(cls, v: tuple[FusedKernel, ...] | None) -> tuple[FusedKernel, ...] | None:
        if v is None:
            return None
        return tuple(k for k in FusedKernel if k in v)  # one order, duplicates dropped

    def settled(self, *, optimizer: OptimizerName, compile: bool, cuda_graphs: bool) -> Stack:
        """The whole stack, the level's defaults filled in; the caller resolves ``optimizer`` and
        ``cuda_graphs`` (fields of the workload itself)."""
        base = LEVELS[self.level]
        return Stack(
            level=self.level,
            memory_format=self.memory_format or base.memory_format,
            input_pipeline=self.input_pipeline or base.input_pipeline,
            loader_workers=self.loader_workers,
            fused_kernels=self.fused_kernels if self.fused_kernels is not None else base.fused_kernels,
            dropout=self.dropout,
            tensor_parallel_plan=self.tensor_parallel_plan,
            optimizer=optimizer,
            compile=compile,
            cuda_graphs=cuda_graphs,
        )


@dataclass(frozen=True, kw_only=True)
class Stack:
    """A workload's whole software stack, resolved: what an estimate assumes and states."""

    level: StackLevel
    """The level the settings started from."""
    memory_format: MemoryFormat
    input_pipeline: InputPipelineKind
    loader_workers: int | None
    fused_kernels: tuple[FusedKernel, ...]
    dropout: bool
    tensor_parallel_plan: TensorParallelPlan
    """The collectives of a tensor-parallel layer (no effect without tensor parallelism)."""
    optimizer: OptimizerName
    compile: bool
    cuda_graphs: bool

    def fused(self, kernel: FusedKernel) -> bool:
        return kernel in self.fused_kernels

    @property
    def channels_last(self) -> bool:
        return self.memory_format is MemoryFormat.CHANNELS_LAST

    def as_level(self, *, graphs: bool = True) -> StackLevel | None:
        """The level these settings are exactly (``stock`` / ``tuned``), or None when mixed. The
        optimizer counts only where a level changes it (AdamW); compile is not part of a level;
        ``graphs`` False: nor are CUDA graphs (an inference step's are the serving engine's, the
        same on either level: ``Workload.at_level``)."""
        for level, base in LEVELS.items():
            if (
                self.memory_format is base.memory_format
                and self.input_pipeline is base.input_pipeline
                and self.fused_kernels == base.fused_kernels
                and (not graphs or self.cuda_graphs == base.cuda_graphs)
                and level_optimizer(self.optimizer, level) is self.optimizer
            ):
                return level
        return None
