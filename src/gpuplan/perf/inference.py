"""LLM inference: prefill (compute-bound), decode (bandwidth-bound), KV-cache capacity, serving.

Decode reads every weight and the KV cache of every running sequence once per generated token, so
its time per step is ``(weights + Σ KV) / (bandwidth × eff)`` unless the batch is large enough for
the ``2 × params × batch`` FLOPs to dominate. The KV cache holds, per token,
``2 (K and V) × layers × kv_heads × head_dim × bytes``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np
from numpy.typing import ArrayLike

from gpuplan.errors import EstimateError
from gpuplan.hardware import GPU
from gpuplan.i18n import N_
from gpuplan.perf.calibration import Calibration, load_calibration
from gpuplan.perf.engine_cpu import NO_ENGINE, EngineCpu
from gpuplan.perf.engine_memory import engine_memory, kv_cache_bytes_per_token
from gpuplan.perf.engines import EngineSettings
from gpuplan.perf.links import Link, all_reduce_s
from gpuplan.perf.memory import (
    ALLOCATOR_SLACK,
    GIB,
    memory_estimate,
    overhead_gib,
    peak_at_batch,
    profile_has_conv,
    usable_memory_gib,
)
from gpuplan.perf.roofline import is_causal, phase_times
from gpuplan.perf.stages.communication import tensor_parallel_comm_s
from gpuplan.perf.stages.layout import ModelParallel, local_profile
from gpuplan.profile.model import OpRecord, Profile

__all__ = [
    "TIME_SLICE_PENALTY",
    "BatchPoint",
    "DecodeEstimate",
    "ServingEstimate",
    "StepModel",
    "batch_sweep",
    "decode_estimate",
    "kv_cache_bytes_per_token",
    "serving_estimate",
    "step_model",
    "time_slice_share",
]

_SERVING_KERNELS_PER_LAYER = 12
#: Utilisation a serving fleet is sized for: queueing delay grows without bound as it nears 1.
TARGET_UTILISATION = 0.8


#: ASSUMPTION: time-slicing costs 10 % of throughput (context switches between CUDA contexts every
#: slice, caches refilled); NVIDIA documents no figure. ``simulate share --time-slice-penalty``
#: overrides it there.
TIME_SLICE_PENALTY = 0.10


@dataclass(frozen=True, kw_only=True)
class DecodeEstimate:
    """Autoregressive generation on one GPU."""

    gpu: str
    weights_gib: float
    kv_cache_gib_per_sequence: float
    """KV cache of one sequence at ``context_tokens``."""
    context_tokens: int
    max_concurrent_sequences: int
    """Sequences at ``context_tokens`` whose KV cache fits beside the weights (0: none), at most the
    ``scheduler``'s ``max_num_seqs``."""
    prefill_s: float
    """Prompt processing of the traced batch (``batch_size`` × ``seq_len`` tokens)."""
    prefill_tokens_per_s: float
    batch: int
    """Concurrent sequences the decode figures are for."""
    time_per_token_s: float
    """One decode step for all ``batch`` sequences (= latency between tokens)."""
    tokens_per_s: float
    """Generated tokens per second over all ``batch`` sequences."""
    time_per_token_at_max_s: float
    """One decode step with ``max_concurrent_sequences`` running (continuous batching, full)."""
    tensor_parallel: int = 1
    """GPUs one replica spans (Megatron-style tensor parallelism); the figures are the replica's."""
    host_bound: bool = False
    """Without CUDA graphs, the CPU issuing each step's kernels (not memory bandwidth) sets the time
    per token at ``batch``."""
    engine: EngineCpu = NO_ENGINE
    """The serving engine whose CPU work each iteration waits for (or overlaps)."""
    replicas_per_gpu: int = 1
    """Replicas time-sharing the GPU (``share_gpu``): the figures are of one of them, whose KV cache
    has its share of the memory; its time share is :attr:`time_share`."""
    scheduler: EngineSettings | None = None
    """The serving engine's scheduling (its cap on sequences, whether prompts join the decode
    iterations); None: a plain generation loop."""
    step: StepModel | None = field(default=None, repr=False, compare=False)
    """The iteration model behind these figures, which prices prompts run in iterations of their
    own (:func:`serving_estimate`)."""

    @property
    def time_share(self) -> float:
        """The share of the GPU's time the replica runs (:func:`time_slice_share`)."""
        return time_slice_share(self.replicas_per_gpu)

    def time_per_token_at(self, sequences: float) -> float:
        """One decode step with ``sequences`` running (at least one: a request's own), each at
        :attr:`context_tokens`, no prompt beside them: the iteration model's
        (:meth:`StepModel.decode_step_s`, the step ``simulate autoscale``'s replica takes with as many
        running). Without that model (figures given as they are), linear from :attr:`batch` to the
        full cache and never below :attr:`batch`'s step: nothing says how much shorter it gets."""
        n = max(1.0, sequences)
        if self.step is not None:
            return self.step.decode_step_s(n, self.context_tokens)
        b0, slots = float(self.batch), float(max(1, self.max_concurrent_sequences))
        t0, t_full = self.time_per_token_s, self.time_per_token_at_max_s
        if slots <= b0 or t_full <= t0:
            return t_full
        return t0 + (t_full - t0) * (min(max(n, b0), slots) - b0) / (slots - b0)


def time_slice_share(replicas_per_gpu: int) -> float:
    """The share of a GPU's time one of ``replicas_per_gpu`` replicas time-sharing it runs: 1
    alone; time-sliced, 1/n less :data:`TIME_SLICE_PENALTY` (the planner, the estimate and the
    serving simulation all take it so: every replica on the GPU busy)."""
    n = replicas_per_gpu
    return 1.0 if n <= 1 else (1.0 - TIME_SLICE_PENALTY) / n


@dataclass(frozen=True, kw_only=True)
class StepModel:
    """One iteration of a continuous-batching server (vLLM, SGLang) on one replica.

    An iteration generates one token for every decoding sequence and runs prompt tokens of admitted
    requests (prefill, whole or in chunks) in the same forward pass. Its time is the sum of two
    kinds of kernel, which a serving engine runs one after the other in each layer ("the
    heterogeneous operations that comprise LLM serving — compute, memory, networking — are
    executed sequentially within a device": Zhu et al., NanoFlow, arXiv:2408.12757v2, abstract,
    read 2026-12-02), each at its own roofline: the weight kernels read every weight once and do 2
    FLOPs per weight per token (prompt tokens cost what one token of the estimator's prefill costs:
    the traced forward's time per token, attention at the traced sequence length); the decode
    attention kernels read each decoding sequence's KV cache and do attention over its context.
    Never below the fused kernels' floor; without CUDA graphs the
    host's kernel launches are a floor too; the serving engine's own CPU work per iteration
    (:mod:`gpuplan.perf.engine_cpu`) is added, or overlapped where the engine overlaps it; tensor
    parallelism adds its all-reduces.
    """

    gpu: str
    tensor_parallel: int
    weights_bytes: float
    """Per GPU of the replica."""
    kv_bytes_per_token: float
    """KV cache per token of context, per GPU."""
    bandwidth_bytes_per_s: float
    """Achieved memory bandwidth (datasheet × fitted efficiency)."""
    decode_s_per_token: float
    """Compute time of one decoded token's matmuls (2 × params / tp FLOPs at the matmul rate)."""
    attention_s_per_context_token: float
    """Compute time of attention per token of context a decoding sequence reads."""
    prefill_s_per_token: float
    """The estimator's prefill time per prompt token: the traced forward's time over its tokens
    (its fixed part, kernel floors and launches, spread over the traced tokens)."""
    floor_s: float
    """Least time of one iteration on the GPU (its fused kernels' minimum times)."""
    host_s: float
    """Least time to launch one iteration's kernels from the CPU (0 with CUDA graphs)."""
    comm_fixed_s: float
    """Tensor-parallel all-reduces of one iteration: the part that does not grow with tokens."""
    comm_s_per_token: float
    kv_capacity_tokens: int
    """Tokens of KV cache that fit beside the weights (the engine's block pool)."""
    engine: EngineCpu = NO_ENGINE
    """The serving engine's CPU work per iteration (none: a plain generation loop)."""
    logits_s_per_sequence: float = 0.0
    """Compute time of the output projection (LM head) at one position: a prompt's logits are
    computed at its last scheduled token only (vLLM: ``logits_indices``, one per scheduled request;
    Hugging Face ``generate``: ``logits_to_keep=1``), so :attr:`prefill_s_per_token` leaves the
    traced head over every position out and each prompt (or chunk) in an iteration adds this."""

    def kernels_s(
        self,
        decode_seqs: ArrayLike,
        context_tokens: ArrayLike,
        prefill_tokens: ArrayLike,
        prefill_seqs: ArrayLike = 0.0,
    ) -> np.ndarray:
        """GPU kernel time of one iteration (of each, over arrays): the weight kernels at the
        slower of their weight read and their FLOPs, then the decode attention kernels at the
        slower of their KV cache read and their FLOPs (one after the other, not overlapped), never
        below the fused kernels' floor."""
        weights = np.maximum(
            self.weights_bytes / self.bandwidth_bytes_per_s,
            np.multiply(decode_seqs, self.decode_s_per_token)
            + np.multiply(prefill_tokens, self.prefill_s_per_token)
            + np.multiply(prefill_seqs, self.logits_s_per_sequence),
        )
        attention = np.maximum(
            np.multiply(context_tokens, self.kv_bytes_per_token / self.bandwidth_bytes_per_s),
            np.multiply(context_tokens, self.attention_s_per_context_token),
        )
        return np.asarray(np.maximum(weights + attention, self.floor_s))

    def iteration_s(
        self,
        decode_seqs: float,
        context_tokens: float,
        prefill_tokens: float,
        *,
        prefill_seqs: float = 0.0,
        with_host: bool = True,
    ) -> float:
        """Seconds of one iteration: ``decode_seqs`` sequences generating one token each over
        ``context_tokens`` tokens of KV cache in all, plus ``prefill_tokens`` prompt tokens of
        ``prefill_seqs`` requests (each computes its logits at its last token)."""
        gpu = float(self.kernels_s(decode_seqs, context_tokens, prefill_tokens, prefill_seqs))
        comm = self.comm_fixed_s + self.comm_s_per_token * (decode_seqs + prefill_tokens)
        if not with_host:
            return comm + gpu
        return self.engine.iteration_s(comm + max(gpu, self.host_s), self.host_s)

    def decode_step_s(self, sequences: float, context_tokens: float) -> float:
        """Seconds of one decode iteration of ``sequences`` sequences, each reading
        ``context_tokens`` of KV cache, with no prompt beside them."""
        return self.iteration_s(sequences, sequences * context_tokens, 0.0)


def _lm_head_shape(op: OpRecord, profile: Profile) -> tuple[int, int, int, int, int] | None:
    """The traced output projection among ``op``'s shapes: one ``tokens × hidden · hidden ×
    vocab`` GEMM over every position of the traced batch (a Hugging Face forward computes the
    logits of every position)."""
    sh = profile.shape
    if op.op_class != "matmul" or op.phase != "forward" or not (sh.vocab_size and sh.hidden_size):
        return None
    tokens = profile.batch_size * (profile.seq_len or 0)
    for calls, b, m, n, k in op.shapes:
        if calls == 1 and b == 1 and m == tokens and n == sh.vocab_size and k == sh.hidden_size:
            return (calls, b, m, n, k)
    return None


def without_lm_head(profile: Profile) -> tuple[Profile, float]:
    """``profile`` without the output projection over every position, and that projection's
    FLOPs per position (0 where the trace shows none: the profile is returned as it is).

    Inference needs logits at the last position of each prompt only: vLLM gathers the hidden
    states at ``logits_indices`` (one per scheduled request) before ``compute_logits``
    (vllm/v1/worker/gpu_model_runner.py, v0.11.0), Hugging Face ``generate`` passes
    ``logits_to_keep=1``. A traced forward computes them at every position: 2 × vocab × hidden
    FLOPs per token (Qwen3-14B: 1.6 of 29.6 GFLOP; Qwen3-0.6B: 0.31 of 1.2)."""
    ops = []
    per_position = 0.0
    for op in profile.ops:
        head = _lm_head_shape(op, profile)
        if head is None:
            ops.append(op)
            continue
        _, _, m, n, k = head
        flops = 2.0 * m * n * k
        per_position = 2.0 * n * k
        # bytes per element of the record: its bytes over its calls' operands and outputs
        elements = sum(c * (mm * kk + kk * nn + mm * nn) for c, _, mm, nn, kk in op.shapes)
        element = op.bytes_moved / max(1.0, elements)
        shapes = list(op.shapes)
        shapes.remove(head)
        ops.append(
            replace(
                op,
                count=op.count - 1,
                flops=op.flops - flops,
                # the head's operands and output, at the record's bytes per element
                bytes_moved=max(0.0, op.bytes_moved - element * (m * k + k * n + m * n)),
                shapes=tuple(shapes),
            )
        )
    if not per_position:
        return profile, 0.0
    return replace(profile, ops=tuple(ops)), per_position


def _dtype_path(precision: str, weight_bytes: float) -> str:
    # fp8 inference keeps its embeddings, norms and LM head in 16 bits (profile/tracer.py): its
    # weights average more than a byte, its matmuls run in FP8.
    if precision == "fp8" or weight_bytes <= 1.0:
        return "fp8"
    if weight_bytes <= 2.0:
        return "fp16" if "fp16" in precision else "bf16"
    return "tf32" if precision == "tf32" else "fp32"


def decode_estimate(
    profile: Profile,
    gpu: GPU,
    *,
    batch: int | None = None,
    context_tokens: int | None = None,
    calibration: Calibration | None = None,
    tensor_parallel: int = 1,
    link: Link | None = None,
    cuda_graphs: bool = True,
    compiled: bool = False,
    engine: EngineCpu | None = None,
    replicas_per_gpu: int = 1,
    scheduler: EngineSettings | None = None,
) -> DecodeEstimate:
    """Prefill and decode of a decoder LLM traced for inference (``profile.task == 'infer'``).

    ``batch`` defaults to the traced batch; ``context_tokens`` to the traced sequence length
    (average context of a running sequence). With ``tensor_parallel`` t > 1 one replica spans t
    GPUs of a node (``link``; default NVLink where the GPU has it): each reads 1/t of the weights
    and of the KV cache (K/V heads split, replicated beyond their count), does 1/t of the FLOPs,
    and every layer adds two all-reduces of ``batch × hidden`` 16-bit values per token (Megatron
    SC21 §2.3) — small messages, so their latency is what shows in the time per token.

    ``cuda_graphs``: each decode step replays a captured graph (serving engines,
    ``torch.compile(mode="reduce-overhead")``). Without them the CPU issues every kernel of every
    step, and — as in the training estimate's host floor — a step takes at least its launches ×
    :attr:`Calibration.host_overhead_us`: the traced forward's kernel calls in eager PyTorch, or
    with ``compiled`` (Inductor fuses the ops between two matmuls into one kernel) the same ~12
    fused kernels per layer a serving engine runs.

    ``engine``: the serving engine that runs the steps, whose CPU work between two steps
    (:mod:`gpuplan.perf.engine_cpu`) the GPU waits for unless the engine overlaps it; None: a plain
    generation loop (no scheduler between the steps).

    ``replicas_per_gpu``: n replicas time-share the GPU (the device plugin's time-slicing). Each is
    a process with its own CUDA context and workspaces and a copy of the weights; the memory left
    is split evenly among their KV caches. Its time per token is its own while it runs; how much of
    the GPU's time it runs is :attr:`DecodeEstimate.time_share`, which :func:`serving_estimate`
    applies.

    ``scheduler``: the serving engine's scheduling settings (:func:`gpuplan.perf.engines.
    engine_defaults`): the concurrency is the fewer of its ``max_num_seqs`` (vLLM
    ``--max-num-seqs``, SGLang ``--max-running-requests``) and what the KV cache holds, and
    :func:`serving_estimate` prices prompts as that engine runs them. Its KV cache is what is left
    of the engine's share of the GPU (``memory_fraction``) beside the weights, its activations at
    its token budget and its memory outside PyTorch, in whole blocks of whole requests of
    ``context_tokens`` (:mod:`gpuplan.perf.engine_memory`, whose memory the estimate's fit verdict
    reads too). None: the KV cache's limit alone (the usable memory less the weights, the CUDA
    context and the workspaces), prompts at the prefill rate.
    """
    return _decode_and_step(
        profile,
        gpu,
        batch=batch,
        context_tokens=context_tokens,
        calibration=calibration,
        tensor_parallel=tensor_parallel,
        link=link,
        cuda_graphs=cuda_graphs,
        compiled=compiled,
        engine=engine,
        replicas_per_gpu=replicas_per_gpu,
        scheduler=scheduler,
    )[1]


def step_model(
    profile: Profile,
    gpu: GPU,
    *,
    calibration: Calibration | None = None,
    tensor_parallel: int = 1,
    link: Link | None = None,
    cuda_graphs: bool = True,
    compiled: bool = False,
    engine: EngineCpu | None = None,
    replicas_per_gpu: int = 1,
    scheduler: EngineSettings | None = None,
) -> StepModel:
    """The iteration model behind :func:`decode_estimate` (same arguments), for a serving
    simulation that runs it iteration by iteration. ``replicas_per_gpu`` > 1: one of the replicas
    time-sharing the GPU, its KV cache its share of the memory; its iteration times are its own
    while it runs (the time share is the caller's: :func:`time_slice_share`). ``scheduler``: the
    engine whose share of the GPU sizes the KV cache (:mod:`gpuplan.perf.engine_memory`), as the
    estimate takes it."""
    return _decode_and_step(
        profile,
        gpu,
        calibration=calibration,
        tensor_parallel=tensor_parallel,
        link=link,
        cuda_graphs=cuda_graphs,
        compiled=compiled,
        engine=engine,
        replicas_per_gpu=replicas_per_gpu,
        scheduler=scheduler,
    )[0]


def _decode_and_step(
    profile: Profile,
    gpu: GPU,
    *,
    batch: int | None = None,
    context_tokens: int | None = None,
    calibration: Calibration | None = None,
    tensor_parallel: int = 1,
    link: Link | None = None,
    cuda_graphs: bool = True,
    compiled: bool = False,
    engine: EngineCpu | None = None,
    replicas_per_gpu: int = 1,
    scheduler: EngineSettings | None = None,
) -> tuple[StepModel, DecodeEstimate]:
    # The body of decode_estimate (its docstring says what it computes).
    if not profile.seq_len:
        raise EstimateError.worded(
            N_("{workload!r} has no sequence length; decode needs a sequence model"),
            workload=profile.workload_name,
        )
    cal = (calibration or load_calibration()).for_gpu(gpu.id, gpu.architecture).for_compiled(compiled)
    batch = batch or profile.batch_size
    ctx = context_tokens or profile.seq_len
    tp = tensor_parallel
    if tp < 1:
        raise EstimateError.worded(N_("tensor_parallel must be at least 1, got {value}"), value=tp)
    share = replicas_per_gpu
    if share < 1 or (share > 1 and tp > 1):
        raise EstimateError.worded(
            N_("replicas time-sharing a GPU need 1 GPU each (got {share} per GPU, tensor_parallel {tp})"),
            share=share,
            tp=tp,
        )
    mp = ModelParallel(tensor=tp)
    link = link or Link.for_gpus(gpu, tp)
    weight_bytes = profile.peak.parameters_bytes / profile.params if profile.params else 2.0
    weights = (profile.peak.parameters_bytes + profile.peak.buffers_bytes) / tp
    act_bytes = 4.0 if weight_bytes > 2.0 else 2.0  # KV cache in 16-bit (also for fp8 weights) unless fp32
    kv_heads = profile.shape.num_kv_heads or profile.shape.num_attention_heads or 1
    kv_tok = kv_cache_bytes_per_token(profile.shape, act_bytes) / min(tp, kv_heads)

    # The prompt's forward without the logits of every position (see without_lm_head); the
    # logits of each prompt's last position are added per sequence below.
    headless, head_flops_per_position = without_lm_head(profile)
    local = local_profile(headless, mp, microbatches=1)
    forward = tuple(op for op in local.ops if op.phase == "forward")
    forward_phase = phase_times(forward, gpu, profile.precision, cal, causal=True, seq_len=profile.seq_len)
    # A compiled forward is the training model's compiled forward: Inductor fuses the ops between
    # two matmuls, the same compute ÷ ``compile_speedup`` as a compiled training step
    # (``stages/compute.py``); decode's compile gain is its fewer launches (below).
    forward_s = forward_phase.forward_s / (cal.compile_speedup if compiled else 1.0)
    prefill = forward_s

    path = _dtype_path(profile.precision, weight_bytes)
    peak = gpu.peak_tflops(path)
    if peak is None:
        raise EstimateError.worded(
            N_("{gpu} has no {path} peak for this model's weights; choose another GPU"), gpu=gpu.id, path=path
        )
    bw = gpu.memory_bandwidth_gbps * 1e9 * cal.bandwidth_efficiency
    hidden = profile.shape.hidden_size or 0
    layers = profile.shape.num_layers or 0
    host_s = 0.0
    if not cuda_graphs:
        launches = _SERVING_KERNELS_PER_LAYER * max(layers, 1) if compiled else forward_phase.forward_calls
        host_s = launches * cal.host_overhead_us * 1e-6
    # Prefill is one forward of the traced batch: the same launches, without graphs host-bound at
    # short prompts, and one iteration of the engine's CPU work.
    engine = engine or NO_ENGINE
    flop_rate = peak * 1e12 * cal.capped(path, cal.tensor_matmul_efficiency)
    # Each prompt's logits at its last position; the vocabulary is split over the tensor-parallel
    # ranks (a column-parallel output projection).
    logits_s = head_flops_per_position / tp / flop_rate
    prefill += profile.batch_size * logits_s
    prefill = engine.iteration_s(max(prefill, host_s) + tensor_parallel_comm_s(profile, mp, link), host_s)

    reduce_1 = 2 * layers * all_reduce_s(hidden * act_bytes, link, world=tp) if tp > 1 else 0.0
    reduce_2 = 2 * layers * all_reduce_s(2 * hidden * act_bytes, link, world=tp) if tp > 1 else 0.0
    # Each of the replicas time-sharing the GPU is a process of its own (context, workspaces,
    # weights); what is left is split evenly among their KV caches.
    free = (usable_memory_gib(gpu) * GIB) / share - overhead_gib(gpu, has_conv=False, gpu_count=tp)[1] * GIB
    free -= weights * ALLOCATOR_SLACK[1]
    # A serving engine gives its KV cache what is left of its share of the GPU, in whole blocks
    # (perf/engine_memory.py): the memory the estimate's fit verdict reads too.
    held = (
        engine_memory(
            profile,
            gpu,
            scheduler,
            tensor_parallel=tp,
            context_tokens=ctx,
            replicas_per_gpu=share,
            memory_band=cal.memory_band,
        )
        if scheduler is not None
        else None
    )
    tokens = profile.batch_size * profile.seq_len
    model = StepModel(
        gpu=gpu.id,
        tensor_parallel=tp,
        weights_bytes=weights,
        kv_bytes_per_token=kv_tok,
        bandwidth_bytes_per_s=bw,
        # 2 FLOPs per weight per token; attention over the context adds 4 · layers · hidden · ctx.
        decode_s_per_token=2.0 * profile.params / tp / flop_rate,
        attention_s_per_context_token=4.0 * layers * hidden / tp / flop_rate,
        prefill_s_per_token=forward_s / tokens if tokens else 0.0,
        # Serving engines (vLLM, TensorRT-LLM, TGI) replay decode as CUDA graphs of fused kernels:
        # no eager per-op host overhead, and ~12 kernels per layer (fused QKV, rotary, attention,
        # output, two norms, gate/up, activation, down, residuals), each at least its minimum time.
        floor_s=_SERVING_KERNELS_PER_LAYER * max(layers, 1) * cal.min_kernel_time_us * 1e-6,
        host_s=host_s,
        comm_fixed_s=2 * reduce_1 - reduce_2,
        comm_s_per_token=reduce_2 - reduce_1,
        kv_capacity_tokens=(
            held.kv_capacity_tokens
            if held is not None
            else max(0, math.floor(free / (kv_tok * ALLOCATOR_SLACK[1])))
            if kv_tok > 0
            else 0
        ),
        engine=engine,
        logits_s_per_sequence=logits_s,
    )

    per_seq = ctx * kv_tok * ALLOCATOR_SLACK[1]
    if held is not None:
        concurrent = held.max_sequences
    else:
        concurrent = max(0, math.floor(free / per_seq)) if per_seq > 0 else 0
    if scheduler is not None:
        # The engine's scheduler runs no more sequences than its cap, however many the KV cache
        # holds (vLLM 0.6's default 256 on an 80 GB GPU that holds 700 sequences of an 8B model;
        # deploy leaves the cap at the engine's default): each weight read is shared by that many.
        concurrent = min(concurrent, scheduler.max_num_seqs)
    gpu_1 = model.iteration_s(batch, batch * ctx, 0, with_host=False)
    return model, DecodeEstimate(
        gpu=gpu.id,
        weights_gib=weights / GIB,
        kv_cache_gib_per_sequence=ctx * kv_tok / GIB,
        context_tokens=ctx,
        max_concurrent_sequences=concurrent,
        prefill_s=prefill,
        prefill_tokens_per_s=tokens / prefill if prefill > 0 else 0.0,
        batch=batch,
        time_per_token_s=model.decode_step_s(batch, ctx),
        tokens_per_s=batch / model.decode_step_s(batch, ctx),
        time_per_token_at_max_s=model.decode_step_s(max(concurrent, 1), ctx),
        tensor_parallel=tp,
        host_bound=host_s > gpu_1,
        engine=engine,
        replicas_per_gpu=share,
        scheduler=scheduler,
        step=model,
    )


@dataclass(frozen=True, kw_only=True)
class ServingEstimate:
    """Whether one GPU (one replica) serves a request rate, and with what latency."""

    capacity_requests_per_s: float
    """Requests per second one GPU (one tensor-parallel replica) completes at full concurrency."""
    requests_per_s: float
    """The load on one replica (the whole load split evenly over ``replicas``)."""
    utilisation: float
    request_latency_s: float
    """Prefill + generation of one request with no queueing, at the concurrency the load keeps
    running (:func:`serving_estimate`)."""
    concurrent_sequences: float
    """Sequences running at once at this load (Little's law), at most the KV cache's limit."""
    p95_latency_s: float | None
    """Latency including queueing at the 95th percentile (with the p95 request's answer where
    :func:`serving_estimate` is given it); None when the GPU is overloaded."""
    ttft_p95_s: float | None = None
    """Time to first token at the 95th percentile: the wait for a slot at its p95 (the same M/M/c
    wait as ``p95_latency_s``) plus the request's prefill; None when the GPU is overloaded."""
    tpot_s: float | None = None
    """Time per output token at the load's operating point: the decode step at the sequences the
    load keeps running, stretched by the prompts run beside it (wall time: a time-sharing replica's
    step over its share). The typical gap between a streamed answer's tokens, not a p95 over a
    trace; at the full cache where the replica is overloaded."""
    tpot_floor_s: float | None = None
    """The shortest time per output token this replica reaches at any load: its step with one
    sequence running and no prompts beside it (wall time). A time-per-output-token target below it
    is met by no number of replicas."""
    gpus_needed: int
    """GPUs to serve ``requests_per_s`` at :data:`TARGET_UTILISATION` (replicas × tensor_parallel)."""
    derivation: str


def serving_estimate(
    decode: DecodeEstimate,
    *,
    requests_per_s: float,
    prompt_tokens: int,
    output_tokens: int,
    replicas: int = 1,
    p95_target_s: float | None = None,
    ttft_target_s: float | None = None,
    tpot_target_s: float | None = None,
    tail_prompt_tokens: int | None = None,
    tail_output_tokens: int | None = None,
) -> ServingEstimate:
    """Serving capacity with continuous batching at the KV-cache concurrency limit, and latency at
    the load's own operating point, with ``requests_per_s`` split evenly over ``replicas``
    (``gpus_needed`` is the whole load's: at :data:`TARGET_UTILISATION`, and with ``p95_target_s``,
    ``ttft_target_s`` or ``tpot_target_s`` as many more replicas as its p95 latency, p95 time to
    first token and time per output token need to be within them, where more replicas bring them
    there).

    The GPU's time goes to prompts and to decode steps. A prompt costs ``P = prompt /
    prefill_tokens_per_s`` of the whole GPU (the prefill rate is the GPU's, not a slot's: prompts
    joining decode iterations lengthen them by their own compute — the serial sum of the two
    kernel kinds that :class:`StepModel` runs, whose iteration time with the prompts of a full
    cache's replacements is within a few per cent of this sum). So at a load of ``λ`` per replica
    a share ``λ·P`` of the GPU runs prompts and each decode step is stretched by ``1 / (1 − λ·P)``.
    Capacity is the full cache: ``1 / (P + output × t(slots) / slots)``. A request's latency is
    taken at the sequences the load keeps running, ``n = λ · (P + output × t'(n))`` (Little's
    law), with the decode step ``t(n)`` the iteration model's with those ``n`` sequences running
    (at least one; :meth:`DecodeEstimate.time_per_token_at`, the step ``simulate autoscale``'s
    replica takes), and ``t'`` that step stretched by the prompts — not at the full cache whatever
    the load, which made a bigger GPU look slower and priced light loads out, nor at the traced
    batch (``inputs.batch_size``) below it, which made a service traced at 16 slower at a light load
    than the same service traced at 1 (a 1.3B model at 1 request/s on one L4: p95 10.28 s against
    8.63 s; ``simulate autoscale`` 8.84 s). p95 latency adds the wait for a slot at its
    p95, with the replica's ``slots`` as servers sharing its capacity (M/M/c: a request waits only
    when every slot is busy, Erlang C; one slot is M/M/1) — an approximation, labelled so. The p95
    time to first token is that wait plus the prompt's compute ``P`` plus the decode iterations it
    waits for: half of the one under way, and, where prompts join the decode iterations, each one
    its prompt's chunks share with the running decodes (:func:`_first_token_iterations`), at the
    operating point's time per token. The time per output token (``tpot_s``) is that operating
    point's decode step, stretched by the prompts: fewer sequences per replica make it shorter, down
    to one sequence's step (``tpot_floor_s``; no number of replicas goes below it). It is the
    typical gap between tokens at this load, not a p95: the p95 over a real trace (bursts, prompts
    of different lengths) is measured by ``gpuplan simulate autoscale``, whose default targets
    include the workload's ``tpot_p95_ms``. Against ``simulate autoscale``, which measures it per
    request, an 8B model on two L40S at 5 requests/s (its replica given this estimate's slots, time
    per token and prefill rate) reads 0.09 s at p95 there; the M/M/1 wait on the aggregate rate this
    replaced gave 1.8 s (a queue a replica with free slots does not have).

    ``tail_output_tokens`` and ``tail_prompt_tokens`` are the 95th-percentile request's lengths
    (:mod:`gpuplan.perf.request_tail`): the p95 latency is then the wait at its p95 plus the mean
    prompt and an answer of ``tail_output_tokens`` at the operating point's time per token, and the
    p95 time to first token the wait plus a prompt of ``tail_prompt_tokens``. Capacity and the
    operating point stay the mean request's (the load's average work). None: the mean lengths, every
    request alike.

    A replica time-sharing its GPU (:attr:`DecodeEstimate.time_share` f < 1) does the same work
    in a share f of the time: all of the above holds in the time it runs, where its load arrives at
    ``λ / f``; its capacity in wall time is f times, and a request's latency (queueing included)
    1/f times, what it would be with the GPU to itself.
    """
    if requests_per_s < 0 or prompt_tokens < 0 or output_tokens < 1 or replicas < 1:
        raise EstimateError.worded(
            N_("serving needs requests_per_s ≥ 0, prompt_tokens ≥ 0 and output_tokens ≥ 1")
        )
    slots = max(1, decode.max_concurrent_sequences)
    t_full = decode.time_per_token_at_max_s
    prefill = _prompt_s(decode, slots, prompt_tokens, output_tokens)
    # Prompts take the whole GPU while they run (see above): one request's share of it. Below, in
    # the time the replica runs (all of it unless time-sliced: f).
    f = decode.time_share
    capacity = 1.0 / (prefill + output_tokens * t_full / slots)
    total, requests_per_s = requests_per_s, requests_per_s / replicas  # the load, and one replica's share
    rho = requests_per_s / f / capacity if capacity > 0 else math.inf
    # The share of the GPU the load's prompts take stretches every decode step (past capacity, at
    # most capacity's share: the latency is the full cache's, and the p95 says overloaded).
    stretch = 1.0 / (1.0 - min(requests_per_s / f, capacity) * prefill)
    running, per_token = _operating_point(decode, slots, requests_per_s / f, prefill, output_tokens, stretch)
    latency = prefill + output_tokens * per_token
    # the p95 request: the mean prompt with a p95 answer, and (first token) a p95 prompt
    tail_out = output_tokens if tail_output_tokens is None else max(1, tail_output_tokens)
    tail_prompt = prompt_tokens if tail_prompt_tokens is None else max(0, tail_prompt_tokens)
    tail_prefill = (
        prefill if tail_prompt == prompt_tokens else _prompt_s(decode, slots, tail_prompt, output_tokens)
    )
    p95 = _p95(prefill + tail_out * per_token, requests_per_s / f, capacity, slots)
    wait = _wait_p95(requests_per_s / f, capacity, slots)
    iterations = _first_token_iterations(decode.scheduler, tail_prompt)
    needed = max(1, math.ceil(total / (f * capacity * TARGET_UTILISATION)))
    targets = (p95_target_s, ttft_target_s, tpot_target_s)
    if any(t is not None for t in targets) and capacity > 0:
        # the fewest replicas from there whose p95, time to first token and time per output token
        # are within their targets
        # (targets no number of replicas meets — one request alone is slower — leave the headroom's
        # count)
        for more in range(needed, needed * _MAX_REPLICAS_FOR_TARGET + 1):
            rate = total / more / f
            stretch_at = 1.0 / (1.0 - min(rate, capacity) * prefill)
            run = _operating_point(decode, slots, rate, prefill, output_tokens, stretch_at)
            at = _p95(prefill + tail_out * run[1], rate, capacity, slots)
            waits = _wait_p95(rate, capacity, slots)
            if p95_target_s is not None and (at is None or at / f > p95_target_s):
                continue
            first = None if waits is None else waits + tail_prefill + iterations * run[1]
            if ttft_target_s is not None and (first is None or first / f > ttft_target_s):
                continue
            if tpot_target_s is not None and run[1] / f > tpot_target_s:
                continue
            needed = more
            break
    share = decode.replicas_per_gpu
    return ServingEstimate(
        capacity_requests_per_s=capacity * f,
        requests_per_s=requests_per_s,
        utilisation=rho,
        request_latency_s=latency / f,
        concurrent_sequences=running,
        p95_latency_s=p95 / f if p95 is not None else None,
        ttft_p95_s=(wait + tail_prefill + iterations * per_token) / f if wait is not None else None,
        tpot_s=per_token / f,
        tpot_floor_s=_step_floor_s(decode) / f,
        # time-sharing replicas: n to a GPU
        gpus_needed=math.ceil(needed / share) * decode.tensor_parallel,
        derivation=f"{running:.0f} of {slots} concurrent sequences at this load (KV cache limit {slots})"
        + (f" per replica of {decode.tensor_parallel} GPUs" if decode.tensor_parallel > 1 else "")
        + (f", {share} replicas time-sharing each GPU ({f:.0%} of its time each)" if share > 1 else "")
        + f"; queueing as M/M/c, {slots} slots sharing the replica's capacity",
    )


def _prompt_s(decode: DecodeEstimate, slots: int, prompt_tokens: int, output_tokens: int) -> float:
    """Seconds of the GPU one request's prompt takes. Where prompts join the decode iterations
    (vLLM V1's chunked prefill; no engine named), its tokens at the prefill rate. Where the engine
    runs them in iterations of their own, the decodes waiting (vLLM before V1: "the scheduler
    prioritizes prefill requests" and does not batch them with decodes, vLLM docs "Optimization and
    Tuning", Chunked Prefill; SGLang: ``get_next_batch_to_run`` runs a new prefill batch before the
    running decode batch, ``perf/engines.py``), each such iteration costs its own fixed time too (the
    engine's CPU work, the kernels' floor), shared by the prompts that start together: at a full
    cache ``slots / output`` per decode iteration on average (each finishing sequence is replaced),
    a Poisson number, as the serving simulation's replica takes them. With short prompts that fixed
    time is most of the prompt's cost (vLLM 0.6 on an H100, 256 sequences of 512-token answers: an
    iteration for every other decode step)."""
    rate = prompt_tokens / decode.prefill_tokens_per_s if decode.prefill_tokens_per_s else 0.0
    sched, step = decode.scheduler, decode.step
    if sched is None or sched.chunked_prefill or step is None or prompt_tokens <= 0:
        return rate
    a = slots / output_tokens
    top = int(a + 6.0 * math.sqrt(a) + 6.0)
    k = np.arange(1, top + 1, dtype=np.float64)
    weights = np.exp(k * math.log(a) - a - np.array([math.lgamma(x + 1.0) for x in k]))
    iterations = np.array([step.iteration_s(0.0, 0.0, x * prompt_tokens, prefill_seqs=x) for x in k])
    return float(weights @ iterations) / a


#: How many times the headroom's replicas the search for a p95 target goes to.
_MAX_REPLICAS_FOR_TARGET = 16


def _first_token_iterations(scheduler: EngineSettings | None, prompt_tokens: int) -> float:
    """Decode iterations a request's first token waits for besides its queueing and its prompt's
    compute: the rest of the iteration under way when it arrives (half of one, iterations taken of
    equal length), and, where prompts join the decode iterations (chunked prefill; no engine named),
    each iteration its prompt's chunks share with the running sequences' decodes, one per
    ``max_batched_tokens`` (the prompt's own compute is in the prefill)."""
    if scheduler is not None and not scheduler.chunked_prefill:
        return 0.5  # its prompt runs in an iteration of its own once the one under way ends
    budget = scheduler.max_batched_tokens if scheduler is not None else max(1, prompt_tokens)
    return 0.5 + math.ceil(max(1, prompt_tokens) / max(1, budget))


def _p95(latency: float, rate: float, capacity: float, slots: int) -> float | None:
    """p95 latency at ``rate`` per replica (:func:`_wait_p95` on top of ``latency``); None overloaded."""
    wait = _wait_p95(rate, capacity, slots)
    return None if wait is None else latency + wait


def _wait_p95(rate: float, capacity: float, slots: int) -> float | None:
    """The p95 of the wait for a slot at ``rate`` per replica, M/M/c: the replica's ``slots`` are
    ``c`` servers sharing its capacity (``c·μ`` = capacity), so a request waits only when every slot
    is busy, with the Erlang C probability ``C(c, a)`` at the offered load ``a = ρ·c``, and then
    ``P(wait > t) = C·e^(−(cμ−λ)t)``: 0 where ``C ≤ 0.05``, ``ln(C / 0.05) / (cμ − λ)`` above;
    None overloaded. One slot is M/M/1 (``C = ρ``)."""
    rho = rate / capacity if capacity > 0 else math.inf
    if rho >= 1.0:
        return None
    c = max(1, slots)
    a = rho * c
    blocked = 1.0  # Erlang B by its recursion, stable at any c: B(k) = a·B(k−1) / (k + a·B(k−1))
    for k in range(1, c + 1):
        blocked = a * blocked / (k + a * blocked)
    waits = blocked / (1.0 - rho * (1.0 - blocked))  # Erlang C
    if waits <= 0.05:
        return 0.0
    return math.log(waits / 0.05) / (capacity - rate)


def _step_floor_s(decode: DecodeEstimate) -> float:
    """The shortest decode step :func:`_operating_point` gives at any load: one sequence's, with no
    prompt beside it (:meth:`DecodeEstimate.time_per_token_at`), in the replica's time."""
    return decode.time_per_token_at(1.0)


#: Sequences within which :func:`_operating_point` brackets its fixed point.
_RUNNING_TOLERANCE = 1e-3


def _operating_point(
    decode: DecodeEstimate, slots: int, rate: float, prefill_s: float, output_tokens: int, stretch: float
) -> tuple[float, float]:
    """(sequences running, seconds per output token) at ``rate`` requests per second per replica:
    the fixed point of ``n = rate · (prefill + output × k · t(n))`` (Little's law), capped at the
    full cache, where ``t(n)`` is the decode step with the ``n`` sequences really running
    (:meth:`DecodeEstimate.time_per_token_at`: the step ``simulate autoscale``'s replica takes, not
    the traced batch's whatever the load) and ``k`` is ``stretch``, the lengthening of each decode
    step by the prompts run beside it.

    ``t`` is convex and never falls as ``n`` grows (the larger of the weights' read and the
    sequences' FLOPs, plus a KV-cache read per sequence), so ``rate · (…) − n`` is positive below
    the fixed point and not above it, up to the full cache: a bisection finds it."""

    def step(n: float) -> float:
        return stretch * decode.time_per_token_at(n)

    def excess(n: float) -> float:
        return rate * (prefill_s + output_tokens * step(n)) - n

    lo, hi = 0.0, float(slots)
    if excess(hi) >= 0.0:
        return hi, step(hi)  # the load keeps every slot busy (overloaded past capacity)
    while hi - lo > _RUNNING_TOLERANCE:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if excess(mid) > 0.0 else (lo, mid)
    # the step is linear within so narrow a bracket (but where it meets a kink): where it crosses
    above, below = excess(lo), excess(hi)
    n = lo + (hi - lo) * above / (above - below) if above > below else hi
    return n, step(n)


@dataclass(frozen=True, kw_only=True)
class BatchPoint:
    """Latency, throughput and memory of one batch size (inference, or one training step)."""

    batch: int
    latency_s: float
    """Time of one step at this batch (forward only for inference)."""
    throughput: float
    """Samples per second, or tokens per second for sequence models."""
    peak_memory_gib: float
    fits: bool
    memory_exact: bool
    """False when the traced peak cannot say how memory grows above the traced batch."""


def batch_sweep(
    profile: Profile,
    gpu: GPU,
    batch_sizes: tuple[int, ...],
    *,
    calibration: Calibration | None = None,
) -> tuple[BatchPoint, ...]:
    """Latency and throughput per batch size, derived from the traced batch (FLOPs and bytes
    scale with the batch; memory as static + per-sample × batch; the host floor stays)."""
    cal = (calibration or load_calibration()).for_gpu(gpu.id, gpu.architecture)
    per_sample = profile.seq_len or 1
    out = []
    for b in batch_sizes:
        if b < 1:
            raise EstimateError.worded(N_("batch sizes must be at least 1, got {batch}"), batch=b)
        ph = phase_times(
            profile.ops,
            gpu,
            profile.precision,
            cal,
            batch_scale=b / profile.batch_size,
            causal=is_causal(profile),
            seq_len=profile.seq_len,
        )
        latency = max(ph.total_s, ph.kernel_calls * cal.host_overhead_us * 1e-6)
        scaled = peak_at_batch(profile, b)
        mem = memory_estimate(scaled.total_bytes, gpu, has_conv=profile_has_conv(profile))
        out.append(
            BatchPoint(
                batch=b,
                latency_s=latency,
                throughput=b * per_sample / latency,
                peak_memory_gib=mem.peak_memory_gib,
                fits=mem.fits,
                memory_exact=scaled.exact,
            )
        )
    return tuple(out)
