"""What one replica asks of the fleet simulation: batch slots, each request's prefill and its time
per output token at the batch the replica runs.

From the estimator (:func:`replica_from_step`), a replica is a continuous-batching server
(:mod:`gpuplan.simulate.batching` runs it iteration by iteration). The fleet simulation cannot run
every iteration of every replica for a day of traffic, so it takes from that server, per request,
the figures that hold on average over the request's life at the batch its replica runs when the
request starts (``B`` sequences per replica):

- time per output token: the mean time of an iteration with ``B`` decoding sequences of the trace's
  mean context and, with chunked prefill, the prompts of the requests that join it — a Poisson
  number with mean ``B / mean output`` (in steady state each finishing sequence is replaced), so
  an iteration that carries a prompt counts as long as it is, not as the average prompt spread
  thin, but never more prompt tokens than the token budget the decodes leave (vLLM's
  ``max_num_batched_tokens`` counts decode and prompt tokens together; the rest waits for later
  iterations); without chunking those prompts run as iterations of their own that the decodes
  wait for;
- prefill: the rest of the iteration under way when the request starts (length-biased), then its
  prompt in the token budget the ``B`` decodes leave per iteration (chunks), the last chunk sharing
  its iteration with the prompts joining then; without chunking one prompt-only iteration;
- prompts over the budget (chunked prefill): when the prompts that would join ``B`` decoding
  sequences are more tokens per iteration than the budget leaves, the batch settles where they
  balance — ``d = budget × mean output / (mean prompt + mean output)`` sequences decode and the
  others wait in prefill, every iteration full — and a request's prefill is the wait for the
  prompts ahead of it (Little's law: ``(B − d) × mean output / d`` iterations in prefill, of which
  its own prompt at ``budget − d`` tokens per iteration) — as the iteration-level engine has it;
- slots: the sequences of the mean context of a *running* request whose cache fits, at most the
  engine's ``max_num_seqs``. A paged KV cache grows from the prompt to prompt + output, and a
  request holds its slot for as many iterations as it has output tokens, so the requests running at
  a moment are the long ones more often than the trace's average (length-biased): the mean context
  is ``Σ o·(p + o/2) / Σ o`` over the trace's requests (:func:`running_context`) — prompt + half
  the output where every request has the same length, prompt + the mean output where answer
  lengths are exponential. The decode iterations read that context too.

Given figures (``--replica slots=…,tpot_ms=…,prefill_tps=…``) keep the simple model: prefill at a
fixed rate, the time per token linear from one sequence to a full batch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from gpuplan.i18n.messages import _
from gpuplan.simulate.engine import Work
from gpuplan.start_up import ENGINE_START_S, StartUp, replica_start_up

if TYPE_CHECKING:
    from gpuplan.hardware import GPU
    from gpuplan.perf.engine_cpu import EngineCpu
    from gpuplan.perf.image_serving import ImageStep
    from gpuplan.perf.inference import StepModel
    from gpuplan.perf.links import Link, NetworkSpec
    from gpuplan.profile import Profile
    from gpuplan.simulate.batching import EngineSettings
    from gpuplan.workload import Workload

__all__ = [
    "ENGINE_START_S",
    "ReplicaModel",
    "checkpoint_bytes",
    "cold_start",
    "estimator_replica",
    "image_replica",
    "new_instance_start_up",
    "replica_from_step",
    "running_context",
]


@dataclass(frozen=True, kw_only=True)
class ReplicaModel:
    """How fast one replica serves requests."""

    gpu: str
    slots: int
    """Requests it runs at once (continuous batching up to the sequences that fit)."""
    prefill_tokens_per_s: float
    """Prompt tokens per second of a replica that runs nothing else (in wall time: where it
    time-shares a GPU, in its share of the GPU's time)."""
    time_per_output_token_s: float
    """Time per output token with every slot busy."""
    source: str
    """How these figures were obtained (estimator, or given)."""
    time_per_output_token_1_s: float | None = None
    """Time per output token with one sequence running; None: the full-batch time always."""
    step: StepModel | None = field(default=None, repr=False)
    """The estimator's iteration model; None for given figures."""
    engine: EngineSettings | None = None
    mean_prompt_tokens: float = 0.0
    mean_output_tokens: float = 1.0
    context_tokens: float | None = None
    """The mean KV context of a running sequence (:func:`running_context`); None: the trace's
    lengths are not known apart from their means, and every request is taken at them (prompt + half
    the output)."""
    replicas_per_gpu: int = 1
    """Replicas time-sharing one GPU (the workload's ``serving.share_gpu``; 1: a GPU each)."""
    time_share: float = 1.0
    """The share of the GPU's time the replica runs (``perf.inference.time_slice_share``): every
    time it reports is its own work's over this (1: a GPU to itself)."""
    room_at_tensor_parallel: int | None = None
    """Where the weights leave no KV cache for the longest request: the fewest GPUs a replica split
    over them holds it at (:func:`estimator_replica`); None: it fits, no split tried holds it
    (:attr:`splits_tried`), or none was sought (given figures, replicas time-sharing a GPU)."""
    splits_tried: tuple[int, ...] = ()
    """The wider splits sized in seeking :attr:`room_at_tensor_parallel` (the even ones up to
    eight GPUs); (): none sought."""
    image_s: float | None = None
    """An image service's replica (:func:`image_replica`): each request is one image, which holds
    one place of the batch (:attr:`slots`) this long, in wall time, and is the request's whole
    answer (its "first token"); None: a language model's."""
    forward_pass: bool = False
    """With :attr:`image_s`: each request is one forward pass of the traced model (a classifier's,
    an embedding's, a segmentation's), not an image; the same model, worded as what it is."""

    @property
    def running_context_tokens(self) -> float:
        """The KV context of a running sequence, on average (:attr:`context_tokens`)."""
        if self.context_tokens is not None:
            return self.context_tokens
        return self.mean_prompt_tokens + self.mean_output_tokens / 2.0

    def _joining(self, n: float) -> tuple[np.ndarray, np.ndarray]:
        """Prompts that join one iteration beside ``n`` decoding sequences: k = 0, 1, … and the
        Poisson weight of each, its mean ``n / mean output`` (in steady state every sequence that
        finishes is replaced)."""
        a = n / max(self.mean_output_tokens, 1.0)
        top = int(a + 6.0 * math.sqrt(a) + 6.0)
        k = np.arange(top + 1, dtype=np.float64)
        if a <= 0:
            return k[:1], np.ones(1)
        w = np.exp(k * math.log(a) - a - np.array([math.lgamma(x + 1.0) for x in k]))
        keep = w > 1e-9 * w.max()  # the far tail changes no figure; it only costs time
        return k[keep], w[keep] / w[keep].sum()

    def _decoding(self, n: float) -> float:
        """Sequences that decode with ``n`` on the replica: all of them, unless (chunked prefill)
        the prompts joining them would be more tokens per iteration than the budget the decodes
        leave; then as many as the budget feeds (module docstring), the others waiting in prefill."""
        assert self.engine is not None
        if not self.engine.chunked_prefill or self.mean_prompt_tokens <= 0:
            return n
        out, budget = self.mean_output_tokens, float(self.engine.max_batched_tokens)
        return min(n, budget * out / (self.mean_prompt_tokens + out))

    def joining(self, running: float) -> float:
        """Mean prompts started per iteration with ``running`` sequences on the replica."""
        n = min(max(running, 0.0), float(self.slots))
        if self.step is None or self.engine is None:
            return n / max(self.mean_output_tokens, 1.0)
        return self._decoding(n) / max(self.mean_output_tokens, 1.0)

    def _iteration_times(self, running: float) -> tuple[float, float]:
        """Mean and mean square of one iteration's time with ``running`` sequences on the replica."""
        assert self.step is not None and self.engine is not None
        n = min(max(running, 0.0), float(self.slots))
        if self.engine.chunked_prefill:
            d = self._decoding(n)
            ctx = d * self.running_context_tokens
            left = max(1.0, self.engine.max_batched_tokens - d)
            if d < n:  # prompts over the budget: every iteration full
                t1 = float(_iterations_s(self.step, d, ctx, np.asarray([left]))[0])
                return t1, t1 * t1
            k, w = self._joining(n)
            t = _iterations_s(self.step, n, ctx, np.minimum(k * self.mean_prompt_tokens, left))
            return float(w @ t), float(w @ (t * t))
        k, w = self._joining(n)
        # Whole-prompt iterations run between the decodes: a decode step (the one the plan's
        # operating point takes, perf.inference.DecodeEstimate.time_per_token_at), then (k > 0) a
        # prefill.
        d = self.step.decode_step_s(n, self.running_context_tokens)
        pre = np.where(k > 0, _iterations_s(self.step, 0.0, 0.0, k * self.mean_prompt_tokens), 0.0)
        mean = d + float(w @ pre)
        return mean, float(w @ ((d + pre) ** 2))

    def tpot_s(self, running: float) -> float:
        """Seconds per output token with ``running`` sequences on the replica: the mean time of an
        iteration, prompts of the requests that join it included."""
        n = min(max(running, 1.0), float(self.slots))
        if self.step is None or self.engine is None:
            one = self.time_per_output_token_1_s
            full = self.time_per_output_token_s
            if one is None or self.slots <= 1:
                return full
            return one + (full - one) * (n - 1.0) / (self.slots - 1.0)
        return self._iteration_times(n)[0] / self.time_share

    def prefill_s(self, prompt: np.ndarray, running: float) -> np.ndarray:
        """Seconds from a request's start until its first token, per request: the rest of the
        iteration under way (length-biased: E[t²] / 2E[t]), then its prompt's iterations."""
        p = np.asarray(prompt, dtype=np.float64)
        if self.image_s is not None:  # one image, its whole time (no tokens)
            return np.full(p.shape, self.image_s)
        if self.step is None or self.engine is None:
            rate = self.prefill_tokens_per_s
            return p / rate if rate > 0 else np.zeros_like(p)
        if len(p) > 20_000:
            # Prompt lengths repeat (whole numbers): each distinct one is computed once.
            distinct, back = np.unique(p, return_inverse=True)
            return np.asarray(self._prefill_of(distinct, running)[back])
        return self._prefill_of(p, running)

    def _prefill_of(self, p: np.ndarray, running: float) -> np.ndarray:
        """:meth:`prefill_s` of the estimator's model, in wall time (over :attr:`time_share`)."""
        assert self.step is not None and self.engine is not None
        m = self.step
        n = min(max(running, 0.0), float(self.slots))
        mean, square = self._iteration_times(n)
        under_way = square / (2.0 * mean) if mean > 0 else 0.0
        k, w = self._joining(n)
        others = k * self.mean_prompt_tokens
        if not self.engine.chunked_prefill:
            own = _iterations_s(m, 0.0, 0.0, p[:, None] + others[None, :])
            return np.asarray(under_way + own @ w) / self.time_share
        d = self._decoding(n)
        ctx = d * self.running_context_tokens
        left = max(1.0, self.engine.max_batched_tokens - d)
        if d < n:
            # Prompts over the budget: the wait for those ahead, then its own at the budget's pace.
            ahead = max(0.0, (n - d) * self.mean_output_tokens / d - self.mean_prompt_tokens / left)
            return np.asarray(under_way + (ahead + np.maximum(p, 1.0) / left) * mean) / self.time_share
        full = np.floor(np.maximum(p - 1.0, 0.0) / left)
        last = p - full * left
        chunk = float(_iterations_s(m, n, ctx, np.asarray([left]))[0])
        # The last chunk shares its iteration with the prompts of the others joining then, within
        # the budget (what is over it joins a later iteration).
        shared = _iterations_s(m, n, ctx, np.minimum(last[:, None] + others[None, :], left)) @ w
        return np.asarray(under_way + full * chunk + shared) / self.time_share

    def best_e2e_s(self, prompt: np.ndarray, output: np.ndarray) -> np.ndarray:
        """End-to-end time of each request alone on an idle replica: no capacity does better."""
        first = self.prefill_s(prompt, 0.0)
        return first + np.maximum(np.asarray(output, dtype=np.float64) - 1.0, 0.0) * self.tpot_s(1.0)

    def work(
        self,
        prompt_tokens: np.ndarray,
        output_tokens: np.ndarray,
        *,
        distinct: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> Work:
        """What each request asks of a slot. With the estimator's model the engine writes each
        request's prefill at the decision before it can start (the batch it starts beside); the
        figures are kept per distinct prompt length and per batch rounded to 2.5 % (``_batch_key``),
        which a day of requests revisits thousands of times. ``distinct``: the trace's distinct
        prompt lengths and each request's index among them, when the caller has them."""
        prompt = np.asarray(prompt_tokens, dtype=np.float64)
        tokens = np.maximum(np.asarray(output_tokens, dtype=np.float64) - 1.0, 0.0)
        if self.step is None:
            return Work(
                fixed_s=np.asarray(self.prefill_s(prompt, 1.0), dtype=np.float64),
                tokens=tokens,
                step_at=self.tpot_s,
            )
        lengths, back = distinct if distinct is not None else np.unique(prompt, return_inverse=True)
        lengths = np.asarray(lengths, dtype=np.float64)
        tables: dict[int, np.ndarray] = {}
        steps: dict[int, float] = {}

        def prefill_at(lo: int, hi: int, running: float) -> np.ndarray:
            key = _batch_key(running)
            if key not in tables:
                tables[key] = self._prefill_of(lengths, _batch_of(key))
            return tables[key][back[lo:hi]]

        def step_at(running: float) -> float:
            key = _batch_key(running)
            if key not in steps:
                steps[key] = self.tpot_s(_batch_of(key))
            return steps[key]

        return Work(fixed_s=np.zeros(len(prompt)), tokens=tokens, step_at=step_at, prefill_at=prefill_at)

    def service_s(
        self, prompt_tokens: np.ndarray, output_tokens: np.ndarray, *, running: float
    ) -> np.ndarray:
        """Seconds each request holds its slot with ``running`` sequences per replica."""
        out = np.maximum(np.asarray(output_tokens, dtype=np.float64) - 1.0, 0.0)
        return np.asarray(self.prefill_s(prompt_tokens, running) + out * self.tpot_s(running))


#: Batches that differ by less than this share give the same figures (the batch the engine reads
#: is a fleet average a decision period old: finer steps would only cost time).
_BATCH_STEPS_PER_E = 40.0


def _batch_key(running: float) -> int:
    return round(_BATCH_STEPS_PER_E * math.log1p(max(running, 0.0)))


def _batch_of(key: int) -> float:
    return math.expm1(key / _BATCH_STEPS_PER_E)


def _iterations_s(m: StepModel, decoding: float, ctx: float, prefill: np.ndarray) -> np.ndarray:
    """:meth:`StepModel.iteration_s` over an array of prompt tokens (the other terms fixed)."""
    from gpuplan.simulate.batching import with_host_s

    gpu = m.kernels_s(decoding, ctx, prefill)
    return np.asarray(with_host_s(m, gpu, m.comm_fixed_s + m.comm_s_per_token * (decoding + prefill)))


def replica_from_step(
    step: StepModel,
    engine: EngineSettings,
    *,
    mean_prompt_tokens: float,
    mean_output_tokens: float,
    link: Link | None = None,
    replicas_per_gpu: int = 1,
    context_tokens: float | None = None,
) -> ReplicaModel:
    """A replica from the estimator's iteration model, for a trace of these mean lengths;
    ``context_tokens``: the mean context of a running request (:func:`running_context` of the
    trace), None where only the means are known (every request at them: prompt + half the output);
    ``link``: the GPU link its tensor-parallel ranks talk over (named in its source).
    ``replicas_per_gpu`` > 1: one of the replicas time-sharing a GPU (``step`` its own, with its
    share of the memory): it runs :func:`~gpuplan.perf.inference.time_slice_share` of the GPU's
    time, so each of its times is its work's over that share, as the estimate takes it."""
    from gpuplan.perf.inference import time_slice_share

    share = time_slice_share(replicas_per_gpu)
    mean_ctx = max(
        1.0, context_tokens if context_tokens is not None else mean_prompt_tokens + mean_output_tokens / 2.0
    )
    slots = max(1, min(engine.max_num_seqs, math.floor(step.kv_capacity_tokens / mean_ctx)))
    base = ReplicaModel(
        gpu=step.gpu,
        slots=slots,
        prefill_tokens_per_s=1.0 / step.prefill_s_per_token if step.prefill_s_per_token > 0 else 0.0,
        time_per_output_token_s=0.0,
        source="",
        step=step,
        engine=engine,
        mean_prompt_tokens=mean_prompt_tokens,
        mean_output_tokens=max(1.0, mean_output_tokens),
        context_tokens=mean_ctx,
        replicas_per_gpu=max(1, replicas_per_gpu),
        time_share=share,
    )
    full, one = base.tpot_s(slots), base.tpot_s(1.0)
    source = _(
        "estimator: continuous batching, KV cache for {slots} sequences of {ctx:,.0f} tokens "
        "({kv:,} tokens), {alone_ms:.1f} ms per token alone, {full_ms:.1f} ms at {slots} sequences "
        "(prefill of {joining:.2f} requests per iteration included), prefill {prefill:,.0f} tokens/s; "
        "{engine}{cpu}{link}{shared}"
    ).format(
        slots=slots,
        ctx=mean_ctx,
        kv=step.kv_capacity_tokens,
        alone_ms=one * 1e3,
        full_ms=full * 1e3,
        joining=base.joining(slots),
        prefill=base.prefill_tokens_per_s * share,
        engine=_engine_words(engine),
        cpu=_cpu_words(step),
        link=_link_words(step, link),
        shared=_shared_words(replicas_per_gpu, share),
    )
    return ReplicaModel(
        gpu=base.gpu,
        slots=slots,
        prefill_tokens_per_s=base.prefill_tokens_per_s * share,
        time_per_output_token_s=full,
        time_per_output_token_1_s=one,
        source=source,
        step=step,
        engine=engine,
        mean_prompt_tokens=mean_prompt_tokens,
        mean_output_tokens=max(1.0, mean_output_tokens),
        context_tokens=mean_ctx,
        replicas_per_gpu=base.replicas_per_gpu,
        time_share=share,
    )


def image_replica(
    gpu: str, step: ImageStep, *, replicas_per_gpu: int = 1, forward_pass: bool = False
) -> ReplicaModel:
    """A replica of a service of traced calls from ``plan``'s figures of it
    (:func:`gpuplan.api.image_step`): its batch's places (``inputs.batch_size``), each request
    ``step.image_s`` on one; its requests are one image each, or with ``forward_pass`` one forward
    pass each (a prompt of 0 tokens and one "output", the whole answer)."""
    words = (
        _(
            "estimator: a forward-pass service, as plan sizes it: {batch} request(s) at once, each "
            "{image_s:.3g} s (one call of the traced step; {rate:.3g} requests/s a replica at full load)"
        )
        if forward_pass
        else _(
            "estimator: an image service, as plan sizes it: {batch} image(s) at once, each {image_s:.3g} s "
            "(its denoiser calls × the call's time; {rate:.3g} images/s a replica at full load)"
        )
    )
    return ReplicaModel(
        gpu=gpu,
        slots=max(1, step.batch),
        prefill_tokens_per_s=0.0,
        time_per_output_token_s=step.image_s,
        source=words.format(batch=max(1, step.batch), image_s=step.image_s, rate=step.capacity_images_per_s),
        replicas_per_gpu=max(1, replicas_per_gpu),
        image_s=step.image_s,
        forward_pass=forward_pass,
    )


def running_context(prompt_tokens: np.ndarray, output_tokens: np.ndarray) -> float:
    """The mean KV context of a sequence running on a replica that serves requests of these lengths:
    ``Σ o·(p + o/2) / Σ o``. A request holds its slot for its ``o`` output tokens' iterations while
    its cache grows from ``p`` to ``p + o`` (mean ``p + o/2``), so at a given moment a running
    request is one of the long ones in proportion to its length (the prefill's few iterations are
    left out). Equal lengths give ``p + o/2``; exponential answers ``p + mean o``."""
    p = np.asarray(prompt_tokens, dtype=np.float64)
    o = np.maximum(np.asarray(output_tokens, dtype=np.float64), 1.0)
    if len(o) == 0:
        raise ValueError("running_context needs at least one request")
    return float(np.dot(o, p + o / 2.0) / o.sum())


def _shared_words(replicas_per_gpu: int, share: float) -> str:
    if replicas_per_gpu <= 1:
        return ""
    return _(
        "; {n} replicas time-share each GPU (serving.share_gpu): each holds 1/{n} of its memory and "
        "runs {share:.1%} of its time (its times above included; time-slicing loses {penalty:.0%}, "
        "assumed, and every replica on the GPU is taken busy)"
    ).format(n=replicas_per_gpu, share=share, penalty=1.0 - share * replicas_per_gpu)


def _cpu_words(step: StepModel) -> str:
    cpu = step.engine
    if cpu.step_s <= 0:
        return ""
    how = _("overlapped with the GPU's work") if cpu.overlapped else _("added to the GPU's time")
    # The separator is in the words: each language writes its own.
    return _("; {engine}: its CPU work {ms:.1f} ms per iteration, {how}").format(
        engine=_(cpu.name), ms=cpu.step_s * 1e3, how=how
    )


def _link_words(step: StepModel, link: Link | None) -> str:
    if link is None:
        return ""
    return _("; tensor parallel over {gpus} GPUs: {link}").format(
        gpus=step.tensor_parallel, link=link.describe()
    )


def _engine_words(engine: EngineSettings) -> str:
    chunked = _("chunked prefill") if engine.chunked_prefill else _("whole-prompt prefill")
    return _("engine: {seqs} sequences, {tokens:,} tokens per iteration, {chunked} ({source})").format(
        seqs=engine.max_num_seqs,
        tokens=engine.max_batched_tokens,
        chunked=chunked,
        source=engine.source or _("given"),
    )


def new_instance_start_up(
    weights_bytes: float | None, storage_bytes_per_s: float | None, copy_gbps: float | None = None
) -> StartUp:
    """A new instance's start-up (:func:`gpuplan.start_up.replica_start_up`, its boot included): its
    replicas' weights read at ``storage_bytes_per_s`` (``--storage-gbps``), else at the workload's
    ``copy_gbps`` (``data.copy_gbps``), else at the assumed disk rate; where their size is not known
    (``--replica``), the bound deploy gives a replica to come up."""
    if storage_bytes_per_s is not None:
        rate, given = storage_bytes_per_s / 1e9, "--storage-gbps"
    elif copy_gbps is not None:
        rate, given = copy_gbps, "data.copy_gbps"
    else:
        rate, given = None, None
    return replica_start_up(None if weights_bytes is None else weights_bytes / 1e9, rate, given=given)


def cold_start(
    weights_bytes: float | None, storage_bytes_per_s: float | None, copy_gbps: float | None = None
) -> tuple[float, str]:
    """Seconds from launching a replica to serving, and how they add up (in the user's language):
    the one start-up model plan and deploy count (:func:`new_instance_start_up`), a new instance's
    boot included, one replica on it."""
    up = new_instance_start_up(weights_bytes, storage_bytes_per_s, copy_gbps)
    seconds = up.seconds(1)
    if up.weights_gb is None:
        return seconds, _("{total:.0f} s = {parts} (the replica's size is not known with --replica)").format(
            total=seconds, parts=up.parts_words(1)
        )
    return seconds, _("{total:.0f} s = {parts}").format(total=seconds, parts=up.parts_words(1))


@dataclass(frozen=True, kw_only=True)
class ServingStack:
    """How the workload serves: what the estimator's iteration model needs beside the profile."""

    tensor_parallel: int = 1
    cuda_graphs: bool = True
    compiled: bool = False
    engine_text: str | None = None
    """``--engine`` settings over the engine's defaults for the GPU (None: the defaults)."""
    engine_name: str | None = None
    """The serving engine the workload names (``vllm``, ``sglang``; None: not named): its
    scheduling defaults (:mod:`gpuplan.simulate.engines`)."""
    engine_version: tuple[int, int] | None = None
    """Its (major, minor) version; None: not stated."""
    prefix_caching: bool | None = None
    """``serving.prefix_caching``: the engine's prefix cache on or off; None: the engine's default."""
    engine_cpu: EngineCpu | None = None
    """The serving engine's CPU work per iteration (``perf.workload_request.serving_engine`` of the
    workload); None: an engine of no stated kind or version, taken not to overlap the GPU's work."""
    replicas_per_gpu: int = 1
    """Replicas time-sharing one GPU (the workload's ``serving.share_gpu``; 1 under tensor parallel)."""
    network: NetworkSpec | None = None
    """The instance a replica runs on, as its catalog entry says it (``gpuplan.api.instance_links``):
    its GPUs per node and how they are joined, which the tensor-parallel all-reduces cross. None:
    no instance named — the GPU link at the bound an estimate takes (``perf.links.bounded``: NVSwitch
    only on an 8-GPU node of a generation that has it, never assumed of fewer)."""

    @classmethod
    def of(
        cls,
        workload: Workload,
        *,
        engine_text: str | None = None,
        replicas_per_gpu: int = 1,
        network: NetworkSpec | None = None,
    ) -> ServingStack:
        """The stack ``workload`` serves on: its split, graphs, compilation and its ``serving:``
        block's engine; ``engine_text``, ``replicas_per_gpu`` and ``network`` as the fields say.
        The command line, the service and ``deploy``'s autoscaler all build it here."""
        from gpuplan.perf.workload_request import serving_engine

        serving = workload.serving
        return cls(
            tensor_parallel=workload.tensor_parallel,
            cuda_graphs=workload.uses_cuda_graphs,
            compiled=workload.compile,
            engine_text=engine_text,
            engine_cpu=serving_engine(workload),
            engine_name=serving.engine_name if serving else None,
            engine_version=serving.engine_version if serving else None,
            prefix_caching=serving.prefix_caching if serving else None,
            replicas_per_gpu=replicas_per_gpu,
            network=network,
        )


def estimator_replica(
    prof: Profile,
    g: GPU,
    stack: ServingStack,
    *,
    prompt_tokens: np.ndarray,
    output_tokens: np.ndarray,
) -> tuple[ReplicaModel, float]:
    """The replica the estimator predicts for a traced decoder serving requests of these prompt and
    output tokens (a trace's, or one request of the workload's lengths), and the bytes of weights it
    loads at a cold start (all its tensor-parallel GPUs together). The command line, the service and
    ``deploy``'s autoscaler all build their replica here."""
    tp = stack.tensor_parallel
    step, engine, link = _step(prof, g, stack)
    replica = replica_from_step(
        step,
        engine,
        mean_prompt_tokens=float(np.mean(prompt_tokens)),
        mean_output_tokens=float(np.mean(output_tokens)),
        link=link if tp > 1 else None,
        replicas_per_gpu=stack.replicas_per_gpu,
        context_tokens=running_context(prompt_tokens, output_tokens),
    )
    longest = int(np.max(prompt_tokens.astype(np.int64) + output_tokens.astype(np.int64)))
    if step.kv_capacity_tokens < longest and stack.replicas_per_gpu == 1:
        tried = _wider_splits(prof, stack)
        room = next((d for d in tried if _holds(prof, g, replace(stack, tensor_parallel=d), longest)), None)
        replica = replace(replica, room_at_tensor_parallel=room, splits_tried=tried)
    return replica, step.weights_bytes * tp


def checkpoint_bytes(workload: Workload, prof: Profile, loaded_bytes: float) -> float:
    """The bytes a replica's cold start reads: its weights as the checkpoint stores them, the figure
    plan bills the disk and the start-up for and deploy sizes the disk by
    (:func:`gpuplan.workload.stored_weights.stored_weights`), not as the engine holds them in memory
    (``loaded_bytes``, all its GPUs': a bf16 replica of a checkpoint whose dtype is not known is read
    at fp32's width, as plan counts it)."""
    from gpuplan.workload.stored_weights import stored_weights

    return stored_weights(workload, prof.params, loaded_bytes / 1e9).gb * 1e9


def _wider_splits(prof: Profile, stack: ServingStack) -> tuple[int, ...]:
    """The even tensor-parallel splits of ``prof`` wider than ``stack``'s."""
    from gpuplan.perf.stages.layout import tensor_parallel_degrees

    return tuple(d for d in tensor_parallel_degrees(prof) if d > stack.tensor_parallel)


def _holds(prof: Profile, g: GPU, stack: ServingStack, longest: int) -> bool:
    """Whether a replica of ``stack`` holds a request of ``longest`` tokens in its KV cache, its
    memory sized as the replica's (on no named instance: its GPUs' link does not change what they
    hold)."""
    return _step(prof, g, replace(stack, network=None))[0].kv_capacity_tokens >= longest


def _step(prof: Profile, g: GPU, stack: ServingStack) -> tuple[StepModel, EngineSettings, Link]:
    """The estimator's iteration model of one replica of ``stack`` on ``g``, the engine it runs and
    the link its tensor-parallel ranks talk over."""
    from gpuplan.perf.engine_cpu import UNKNOWN_ENGINE
    from gpuplan.perf.inference import step_model
    from gpuplan.perf.links import bounded
    from gpuplan.simulate.batching import parse_engine
    from gpuplan.simulate.engines import engine_defaults

    tp = stack.tensor_parallel
    if tp > 1:
        # a split the engine cannot start (3 of a model's 64 heads) is refused in the words the
        # estimate and the planner refuse it in, not simulated and priced
        from gpuplan.perf.stages.layout import ModelParallel, check_model_parallel

        check_model_parallel(
            ModelParallel(tensor=tp), prof, count=tp, gpus_per_node=tp, microbatches=1, gpu=g
        )
    # The tensor-parallel ranks talk over the instance's own GPU link, or, with none named, over the
    # bound a training estimate takes (perf.links.bounded), never the datasheet's best case.
    link = bounded(stack.network).link(g, tp)
    engine = engine_defaults(g, stack.engine_name, stack.engine_version, tensor_parallel=tp)
    if stack.prefix_caching is not None and stack.prefix_caching != engine.prefix_caching:
        said = (
            _("; prefix caching on (serving.prefix_caching)")
            if stack.prefix_caching
            else _("; prefix caching off (serving.prefix_caching)")
        )
        engine = replace(engine, prefix_caching=stack.prefix_caching, source=f"{engine.source}{said}")
    if stack.engine_text:
        engine = parse_engine(stack.engine_text, engine)
    # The engine the workload names, as the estimate and the planner take it for a service; one of
    # no stated kind or version: its CPU work per iteration not overlapping the GPU's (perf/engine_cpu.py).
    # Its KV cache is what its share of the GPU leaves (perf/engine_memory.py), as the estimate's.
    step = step_model(
        prof,
        g,
        tensor_parallel=tp,
        cuda_graphs=stack.cuda_graphs,
        compiled=stack.compiled,
        engine=stack.engine_cpu or UNKNOWN_ENGINE,
        link=link,
        replicas_per_gpu=stack.replicas_per_gpu,
        scheduler=engine,
    )
    return step, engine, link
