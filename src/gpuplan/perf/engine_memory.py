"""GPU memory of a serving engine (vLLM, SGLang): its share of the GPU, and the KV cache left in it.

A serving engine never runs the traced forward pass (the workload's batch × sequence with the
logits of every position). At start-up it takes its share of the GPU (vLLM
``--gpu-memory-utilization``, SGLang ``--mem-fraction-static``: :attr:`EngineSettings.memory_fraction`),
loads the weights, runs one dummy iteration at its token budget to measure its activations, and
hands every byte left in its share to KV cache blocks (vLLM's start-up log: "the current vLLM
instance can use total_gpu_memory (79.22GiB) x gpu_memory_utilization (0.90) = 71.29GiB; model
weights take 14.96GiB; non_torch_memory 1.79GiB; PyTorch activation peak memory 1.26GiB;
available_kv_cache_memory 53.29GiB", Llama-3-8B on an H100, vllm-project/vllm pull request 10511,
2024-12-13). So one replica's GPU holds, of its share:

    weights (÷ tensor-parallel ranks) + activations at the token budget + memory outside PyTorch
    + KV cache (everything left)

It runs when the KV cache left holds at least one whole request (vLLM refuses to start when
``max_model_len`` tokens do not fit); what it holds is the replica's concurrency. SGLang's share
covers the weights and the KV pool only: its activations and CUDA graphs live in the rest of the GPU
(``(1 − mem_fraction_static)`` of it, which SGLang sizes for them by the GPU's memory and its own
chunk and graph sizes); they are not sized here.

The activations at the token budget are derived from the model's shape, not from the trace (whose
batch is not the engine's): one layer's widest intermediate over the budget's tokens (the MLP's
gate and up projections and their product, or the attention's Q/K/V), the residual stream, and the
logits of each sequence's last token with the sampler's fp32 copies (vLLM computes logits at one
position per scheduled request). For the figure above: 8,192 tokens × (2 B × (47 K + 8 K)) = 0.86 GiB
and 256 sequences × 128,256 × 14 B = 0.43 GiB, 1.29 GiB against the 1.26 GiB measured.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpuplan.errors import EstimateError
from gpuplan.i18n.messages import N_
from gpuplan.perf.memory import GIB, HARD_FRAGMENTATION, MemoryEstimate, overhead_terms, usable_memory_gib

if TYPE_CHECKING:
    from gpuplan.hardware import GPU
    from gpuplan.perf.engines import EngineSettings
    from gpuplan.profile.model import ModelShape, Profile

__all__ = ["ENGINE_NON_TORCH_GIB", "EngineMemory", "engine_memory", "kv_cache_bytes_per_token"]

#: Memory a vLLM process holds outside PyTorch's allocator (CUDA context, cuBLAS and attention
#: workspaces, NCCL and custom all-reduce buffers), GiB: 1.79 at one GPU and 3.58 at two tensor-
#: parallel ranks (Llama-3-8B on H100s, vllm-project/vllm pull request 10511, 2024-12-13; taken for
#: SGLang too, which has no published figure). The high end: ASSUMPTION, a quarter more.
ENGINE_NON_TORCH_GIB = {1: 1.79, 2: 3.58}
_NON_TORCH_HIGH = 1.25
#: Bytes per vocabulary element of each sequence's last-position logits in the engine's dummy
#: iteration: the 16-bit logits, the sampler's fp32 copy, its probabilities and log-probabilities.
_SAMPLER_BYTES_PER_LOGIT = 2.0 + 4.0 + 4.0 + 4.0
#: Hidden-sized tensors live beside a layer's widest intermediate: the residual stream and the
#: normalised input of the layer.
_RESIDUAL_WIDTHS = 2.0


def kv_cache_bytes_per_token(shape: ModelShape, dtype_bytes: float) -> float:
    """2 × layers × kv_heads × head_dim × bytes (K and V of every layer)."""
    if not (shape.num_layers and shape.head_dim and (shape.num_kv_heads or shape.num_attention_heads)):
        raise EstimateError.worded(
            N_("the model's layer count, heads and head size are unknown; cannot size a KV cache")
        )
    kv_heads = shape.num_kv_heads or shape.num_attention_heads or 0
    return 2.0 * shape.num_layers * kv_heads * shape.head_dim * dtype_bytes


@dataclass(frozen=True, kw_only=True)
class EngineMemory:
    """One GPU of an engine's replica, GiB: its share and what fills it."""

    engine_gib: float
    """The engine's share of the GPU: memory fraction × usable memory (÷ replicas time-sharing it)."""
    weights_gib: float
    """The weights on this GPU (÷ tensor-parallel ranks)."""
    activations_gib: tuple[float, float, float]
    """Activations of one iteration at the token budget: (low, point, high)."""
    activations_in_share: bool
    """vLLM: inside the engine's share; SGLang: in the rest of the GPU, which SGLang leaves for them
    and its CUDA graphs (not sized here)."""
    outside_gib: float
    """The rest of the GPU (outside the engine's share), per replica."""
    non_torch_gib: tuple[float, float, float]
    """Memory outside PyTorch's allocator: (low, point, high)."""
    kv_bytes_per_token: float
    """KV cache per token of context on this GPU."""
    block_tokens: int
    context_tokens: int
    """Tokens of one whole request (prompt + output), which the KV cache must hold at least once."""
    tokens: int
    """The token budget of the iteration the activations are sized at."""

    @property
    def sequence_gib(self) -> float:
        """KV cache of one request, in whole blocks."""
        blocks = math.ceil(self.context_tokens / self.block_tokens)
        return blocks * self.block_tokens * self.kv_bytes_per_token / GIB

    def _inside(self, i: int) -> float:
        act = self.activations_gib[i] if self.activations_in_share else 0.0
        return self.weights_gib + act + self.non_torch_gib[i]

    @property
    def kv_gib(self) -> float:
        """KV cache the engine allocates: what is left of its share at the point (0: none)."""
        return max(0.0, self.engine_gib - self._inside(1))

    @property
    def kv_capacity_tokens(self) -> int:
        """Tokens of KV cache, in whole blocks."""
        if self.kv_bytes_per_token <= 0:
            return 0
        block = self.block_tokens * self.kv_bytes_per_token
        return math.floor(self.kv_gib * GIB / block) * self.block_tokens

    @property
    def max_sequences(self) -> int:
        """Whole requests the KV cache holds at once."""
        per = math.ceil(self.context_tokens / self.block_tokens) * self.block_tokens
        return self.kv_capacity_tokens // per if per > 0 else 0

    def required_gib(self, i: int) -> float:
        """What must fit in the engine's share at bound ``i`` (0 low, 1 point, 2 high): weights,
        activations (vLLM), memory outside PyTorch and one request's KV cache."""
        return self._inside(i) + self.sequence_gib

    def estimate(self, gpu: GPU, *, tensor_parallel: int = 1) -> MemoryEstimate:
        """The engine's memory as the estimate reports it: its share is the capacity the verdict
        reads (it fits when one request's KV cache fits beside the rest, on the whole band); the
        allocated peak is the weights, the activations (vLLM's) and the whole KV pool; nvidia-smi
        shows the share. NCCL buffers only between the ``tensor_parallel`` ranks of a replica
        (replicas do not talk to each other)."""
        terms = overhead_terms(gpu, has_conv=False, gpu_count=tensor_parallel)
        cublas, nccl = terms.cublas_workspace_gib[1], terms.nccl_buffers_gib[1]
        act = self.activations_gib[1] if self.activations_in_share else 0.0
        allocated = self.weights_gib + act + self.kv_gib
        low, point, high = (self.required_gib(i) for i in range(3))
        return MemoryEstimate(
            peak_allocated_gib=allocated,
            allocator_reserve_gib=0.0,  # the KV pool is one allocation, the rest measured inside the share
            # the engine's figure outside PyTorch, of which the cuBLAS and NCCL terms as modelled
            cuda_context_gib=self.non_torch_gib[1] - cublas - nccl,
            cublas_workspace_gib=cublas,
            cudnn_workspace_gib=0.0,
            nccl_buffers_gib=nccl,
            required_gib=point,
            required_gib_low=low,
            required_gib_high=high,
            peak_memory_gib=max(self.engine_gib, point),
            peak_memory_gib_low=max(self.engine_gib, low),
            peak_memory_gib_high=max(self.engine_gib, high),
            capacity_gib=self.engine_gib,
            engine_share=True,
        )


def _layer_widths(profile: Profile, tp: int) -> float | None:
    """Elements per token of one layer's widest intermediate on one tensor-parallel rank, plus the
    residual stream; None where the shape is unknown."""
    sh = profile.shape
    h, layers = sh.hidden_size, sh.num_layers
    if not (h and layers and sh.head_dim and sh.num_attention_heads):
        return None
    kv_heads = sh.num_kv_heads or sh.num_attention_heads
    qkv = (sh.num_attention_heads + 2 * kv_heads) * sh.head_dim
    attention_params = h * qkv + sh.num_attention_heads * sh.head_dim * h
    # The layers' parameters: all but one vocabulary-sized embedding (a tied or untied head alike,
    # which counts an untied head's weights as layer weights: a wider MLP, never a narrower one).
    per_layer = (profile.params - (sh.vocab_size or 0) * h) / layers
    # The MLP's weights over the hidden size: its intermediate tensors per token (SwiGLU: gate and
    # up projections, 2 × intermediate, and their product, 1 ×; GELU: up and its activation).
    mlp = max(0.0, per_layer - attention_params) / h
    return max(mlp, qkv + h) / tp + _RESIDUAL_WIDTHS * h


def engine_memory(
    profile: Profile,
    gpu: GPU,
    settings: EngineSettings,
    *,
    tensor_parallel: int = 1,
    context_tokens: int | None = None,
    replicas_per_gpu: int = 1,
    memory_band: float = 1.0,
) -> EngineMemory | None:
    """The memory of one GPU of a replica that ``settings``' engine runs ``profile`` (a decoder
    traced for inference) in, requests of ``context_tokens`` (default the traced sequence length)
    each; ``memory_band`` widens the activations by the calibration's memory residuals. None where
    the model's shape cannot size its activations or its KV cache."""
    tp, share = tensor_parallel, max(1, replicas_per_gpu)
    widths = _layer_widths(profile, tp)
    if widths is None or not profile.params:
        return None
    weight_bytes = profile.peak.parameters_bytes / profile.params
    act_bytes = 4.0 if weight_bytes > 2.0 else 2.0  # 16-bit activations and KV cache unless fp32
    try:
        kv_tok = kv_cache_bytes_per_token(profile.shape, act_bytes)
    except EstimateError:
        return None
    kv_heads = profile.shape.num_kv_heads or profile.shape.num_attention_heads or 1
    kv_tok /= min(tp, kv_heads)
    tokens = settings.max_batched_tokens
    # The dummy iteration computes logits at the last token of each of its sequences, the vocabulary
    # split over the ranks.
    seqs = min(settings.max_num_seqs, tokens)
    logits = seqs * (profile.shape.vocab_size or 0) / tp * _SAMPLER_BYTES_PER_LOGIT
    act = (tokens * widths * act_bytes + logits) / GIB
    frag = HARD_FRAGMENTATION
    usable = usable_memory_gib(gpu)
    terms = overhead_terms(gpu, has_conv=False, gpu_count=tp)
    non_torch = ENGINE_NON_TORCH_GIB[1 if tp == 1 else 2]
    engine = settings.memory_fraction * usable / share
    return EngineMemory(
        engine_gib=engine,
        weights_gib=(profile.peak.parameters_bytes + profile.peak.buffers_bytes) / tp / GIB,
        activations_gib=(
            act / memory_band * (1.0 + frag[0]),
            act * (1.0 + frag[1]),
            act * memory_band * (1.0 + frag[2]),
        ),
        activations_in_share=settings.activations_in_share,
        outside_gib=usable / share - engine,
        non_torch_gib=(terms.fixed(0), non_torch, non_torch * _NON_TORCH_HIGH),
        kv_bytes_per_token=kv_tok,
        block_tokens=settings.block_tokens,
        context_tokens=context_tokens or profile.seq_len or 1,
        tokens=tokens,
    )
