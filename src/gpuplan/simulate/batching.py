"""One serving replica, iteration by iteration: continuous batching as vLLM and SGLang schedule it.

Each iteration is one forward pass (its time from the estimator, :class:`gpuplan.perf.inference.
StepModel`). The scheduler, as vLLM's V1 scheduler does it:

- every running sequence that has finished its prompt generates one token; each holds KV cache for
  its prompt and the tokens generated so far (``block_tokens`` at a time);
- prompt tokens (prefill) share the iteration's token budget (``max_batched_tokens``) with those
  decode tokens: a prompt longer than what is left is cut into chunks over several iterations
  (chunked prefill). Without chunking (``chunked_prefill=False``, vLLM V0's default), an iteration
  with prompts to start runs whole prompts only, and the running sequences wait for it;
- waiting requests are admitted first come first served while the batch has fewer than
  ``max_num_seqs`` sequences and the KV cache has room for the tokens scheduled;
- when the running sequences' next tokens do not fit in the KV cache, the newest one is preempted:
  its cache is dropped and it goes back to the front of the queue, to compute its prompt and the
  tokens it had generated again (vLLM's recompute preemption), and no waiting request is admitted
  in that iteration. With prefix caching (vLLM V1's default) "dropped" means freed, not erased:
  its blocks go to the end of the free-block queue, tail first, and keep their contents until an
  allocation takes them from the front, so a preempted request that comes back finds the full
  blocks of its prefix that nobody has taken since and computes only the rest.

A request's first token comes out of the iteration that finishes its prompt. Its TTFT is that time
minus the time it was sent, its TPOT the rest of its generation divided by its other tokens (as
``vllm bench serve`` reports them).

Stretches where nothing but decoding happens are advanced in one vectorised step up to the next
event (a sequence finishes, the cache fills, a request arrives that could be admitted), so a replica
costs a few numpy operations per request, not per token. This engine is the reference for one
replica: it is what is compared with published serving benchmarks, and what the fleet simulation's
per-request model (:mod:`gpuplan.simulate.autoscale`) is checked against.
"""

from __future__ import annotations

import math
import re
from collections import deque
from dataclasses import dataclass

import numpy as np

from gpuplan.errors import InputError
from gpuplan.i18n.messages import N_
from gpuplan.perf.engines import EngineSettings
from gpuplan.perf.inference import StepModel
from gpuplan.units import split_list

__all__ = ["EngineSettings", "ReplicaRun", "parse_engine", "run_replica", "with_host_s"]


@dataclass(frozen=True, kw_only=True)
class ReplicaRun:
    """Per request, seconds from the start (nan where a request never got that far)."""

    sent_s: np.ndarray
    admitted_s: np.ndarray
    first_token_s: np.ndarray
    finish_s: np.ndarray
    output_tokens: np.ndarray
    prompt_tokens: np.ndarray
    preemptions: int
    iterations: int
    recomputed_tokens: int = 0
    """Tokens computed again after a preemption (those the prefix cache no longer held)."""

    @property
    def ttft_s(self) -> np.ndarray:
        return self.first_token_s - self.sent_s

    @property
    def tpot_s(self) -> np.ndarray:
        """(finish − first token) / (output − 1); nan for one-token outputs."""
        more = self.output_tokens > 1
        out = np.full(len(self.sent_s), math.nan)
        out[more] = (self.finish_s[more] - self.first_token_s[more]) / (self.output_tokens[more] - 1)
        return out

    @property
    def e2e_s(self) -> np.ndarray:
        return self.finish_s - self.sent_s

    @property
    def queue_s(self) -> np.ndarray:
        return self.admitted_s - self.sent_s

    def duration_s(self) -> float:
        """From the first request sent to the last one finished (``vllm bench serve``'s duration)."""
        return float(np.nanmax(self.finish_s) - np.nanmin(self.sent_s))

    def output_tokens_per_s(self) -> float:
        return float(self.output_tokens[np.isfinite(self.finish_s)].sum()) / self.duration_s()

    def total_tokens_per_s(self) -> float:
        done = np.isfinite(self.finish_s)
        return float(self.output_tokens[done].sum() + self.prompt_tokens[done].sum()) / self.duration_s()


class _State:
    """The running batch, as parallel lists in admission order (the newest last)."""

    def __init__(self) -> None:
        self.ids: list[int] = []
        self.kv: list[int] = []
        """Tokens in the KV cache (prompt computed so far + tokens generated)."""
        self.todo: list[int] = []
        """Prompt tokens (and, after a preemption, generated ones) still to compute."""
        self.left: list[int] = []
        """Tokens still to generate."""

    def __len__(self) -> int:
        return len(self.ids)

    def drop(self, k: int) -> tuple[int, int, int, int]:
        return self.ids.pop(k), self.kv.pop(k), self.todo.pop(k), self.left.pop(k)


class _FreeBlocks:
    """The engine's free KV cache in the order it is reused (vLLM V1's ``FreeKVCacheBlockQueue``),
    in tokens: segments ``[owner, tokens]``, taken from the front; a freed request's cache goes to
    the back. ``owner`` is a preempted request whose prefix the segment still holds (-1: contents
    nobody will ask for). vLLM v0.11.0, vllm/v1/core: ``KVCacheManager.free`` frees "the blocks in
    reverse order so that the tail blocks are evicted first"; ``BlockPool.free_blocks`` appends
    them to the queue, ``BlockPool.get_new_blocks`` pops from its front (evicting what a block
    held); ``KVCacheManager.get_computed_blocks`` hands a request back the full blocks of its
    prefix still cached, at most its tokens − 1."""

    def __init__(self, tokens: int) -> None:
        self.segments: deque[list[int]] = deque([[-1, tokens]])
        self.cached: dict[int, list[int]] = {}

    def take(self, tokens: int) -> None:
        while tokens > 0 and self.segments:
            seg = self.segments[0]
            used = min(tokens, seg[1])
            seg[1] -= used
            tokens -= used
            if seg[1] == 0:
                self.segments.popleft()
                if seg[0] >= 0:
                    self.cached.pop(seg[0], None)

    def give(self, owner: int, tokens: int) -> None:
        if tokens <= 0:
            return
        seg = [owner, tokens]
        self.segments.append(seg)
        if owner >= 0:
            self.cached[owner] = seg

    def held(self, owner: int) -> int:
        """Tokens of ``owner``'s prefix still cached (what is left of its segment)."""
        seg = self.cached.get(owner)
        return seg[1] if seg is not None else 0

    def claim(self, owner: int, tokens: int) -> None:
        """``owner`` takes back ``tokens`` of its cached prefix; the rest of its segment is plain
        free space where it lies."""
        seg = self.cached.pop(owner, None)
        if seg is None:
            return
        seg[0] = -1
        seg[1] -= tokens
        if seg[1] == 0:
            # by identity: another segment may hold the same values
            del self.segments[next(i for i, x in enumerate(self.segments) if x is seg)]


def with_host_s(model: StepModel, gpu: np.ndarray, comm: np.ndarray | float) -> np.ndarray:
    """:meth:`StepModel.iteration_s` over arrays of GPU kernel times ``gpu`` and collectives
    ``comm``: the kernel launches (0 with CUDA graphs) a floor under the kernels, and the engine's
    CPU work overlapped with the GPU's or after it."""
    device = comm + np.maximum(gpu, model.host_s)
    cpu = model.engine
    if cpu.overlapped:
        return np.maximum(device, model.host_s + cpu.step_s)
    return device + cpu.step_s


def _blocks(tokens: int, block: int) -> int:
    return -(-tokens // block) * block


def run_replica(
    model: StepModel,
    settings: EngineSettings,
    prompt_tokens: np.ndarray,
    output_tokens: np.ndarray,
    *,
    arrival_s: np.ndarray | None = None,
    concurrency: int | None = None,
    stagger_s: float = 0.0,
) -> ReplicaRun:
    """Serve every request on one replica and time it.

    Open loop: request i is sent at ``arrival_s[i]`` (sorted). Closed loop (``concurrency`` C, as
    ``vllm bench serve --max-concurrency C --request-rate inf``): C clients each send a request and
    the next one when it finishes; ``stagger_s`` spreads the clients' first requests evenly over
    that time (a closed loop's steady state, once timing jitter has spread them, instead of C
    prompts arriving in one iteration again and again).
    """
    prompt = np.asarray(prompt_tokens, dtype=np.int64)
    output = np.asarray(output_tokens, dtype=np.int64)
    n = len(prompt)
    if (arrival_s is None) == (concurrency is None):
        raise InputError.worded(N_("give arrival times or a concurrency (one of them)"))
    cap = model.kv_capacity_tokens
    block = settings.block_tokens
    if n and int(prompt.max() + output.max()) > cap:
        raise InputError.worded(
            N_("a request of {tokens:,} tokens does not fit in the replica's KV cache ({cap:,} tokens)"),
            tokens=int(prompt.max() + output.max()),
            cap=cap,
        )
    sent = np.full(n, math.nan)
    admitted = np.full(n, math.nan)
    first = np.full(n, math.nan)
    finish = np.full(n, math.nan)
    closed = concurrency is not None
    if arrival_s is not None:
        arrivals = np.asarray(arrival_s, dtype=np.float64)
    else:
        # Closed loop: the clients' first requests arrive as scheduled; each next one is sent
        # (below, in ``_retire``) when one finishes.
        c = min(int(concurrency or 0), n)
        arrivals = np.full(n, math.inf)
        arrivals[:c] = np.arange(c) * (stagger_s / max(c, 1))
    sent[:] = arrivals
    sent[~np.isfinite(sent)] = math.nan
    waiting: deque[int] = deque()
    resume: dict[int, int] = {}
    """Preempted requests: tokens generated before (computed again as prompt)."""
    run = _State()
    t = 0.0
    nxt = 0  # next request whose arrival time is set
    next_send = min(int(concurrency or 0), n)  # closed loop: the next request a client sends
    done = 0
    iterations = preemptions = recomputed = 0
    kv_used = 0
    free = _FreeBlocks(cap)
    computed_before: dict[int, int] = {}
    """Preempted requests: tokens they had in the cache when preempted."""
    while done < n:
        while nxt < n and arrivals[nxt] <= t:
            waiting.append(nxt)
            nxt += 1
        if not run and not waiting:
            if nxt >= n or not math.isfinite(arrivals[nxt]):
                break  # nothing left that can ever run
            t = float(arrivals[nxt])
            continue
        decoding = [k for k in range(len(run)) if run.todo[k] == 0]
        pending_prefill = len(decoding) < len(run)
        full = len(run) >= settings.max_num_seqs
        blocked = bool(waiting) and (full or cap - kv_used - len(run) < block)
        if run and not pending_prefill and (not waiting or blocked):
            # Pure decoding until the next event: one vectorised step.
            m, dt = _decode_stretch(model, run, kv_used, cap, t, arrivals, nxt, not waiting and not full)
            if m > 0:
                t += dt
                iterations += m
                for k in range(len(run)):
                    run.kv[k] += m
                    run.left[k] -= m
                free.take(m * len(run))
                gone, next_send = _retire(run, t, finish, sent, waiting, closed, n, next_send, free)
                done += gone
                kv_used = sum(run.kv)
                continue
        # One iteration with prefill (or a decode step that needs a preemption first).
        budget = settings.max_batched_tokens
        chunks: dict[int, int] = {}
        prefill_only = preempted = False
        if not settings.chunked_prefill and waiting and len(run) < settings.max_num_seqs:
            # vLLM V0 without chunking: an iteration that starts prompts runs nothing else; it
            # happens when the first waiting prompt fits the cache (else the decodes go on).
            head = int(prompt[waiting[0]]) + resume.get(waiting[0], 0)
            prefill_only = _blocks(head, block) <= cap - kv_used
        if not prefill_only:
            # Decodes first (one token each), then the prompts already started, then new ones.
            need = len(decoding)
            while run and kv_used + need > cap:
                preemptions += 1
                rid, kv, todo, left = run.drop(len(run) - 1)
                kv_used -= kv
                free.give(rid if settings.prefix_caching else -1, kv)
                computed_before[rid] = kv
                preempted = True
                resume[rid] = int(output[rid]) - left
                waiting.appendleft(rid)
                decoding = [k for k in range(len(run)) if run.todo[k] == 0]
                need = len(decoding)
            budget -= len(decoding)
            for k in range(len(run)):
                if run.todo[k] > 0 and budget > 0:
                    c = min(run.todo[k], budget, cap - kv_used - need - sum(chunks.values()))
                    if c > 0:
                        chunks[k] = c
                        budget -= c
            decode_now = decoding
        else:
            decode_now = []
        # vLLM's scheduler admits no waiting request in an iteration that preempted one.
        while (settings.chunked_prefill or prefill_only) and waiting and budget > 0 and not preempted:
            if len(run) >= settings.max_num_seqs:
                break
            rid = waiting[0]
            total = int(prompt[rid]) + resume.get(rid, 0)
            # A preempted request's prefix still in the cache: its full blocks, at most total − 1
            # tokens (the last one is computed again for its logits).
            hit = min(free.held(rid), total - 1) // block * block if rid in resume else 0
            todo = total - hit
            if not settings.chunked_prefill and todo > budget and chunks:
                break  # a whole prompt must fit the budget beside those scheduled (one may exceed it alone)
            c = todo if not settings.chunked_prefill else min(todo, budget)
            room = cap - kv_used - len(decode_now) - sum(chunks.values())
            if hit + _blocks(c, block) > room:
                break
            waiting.popleft()
            if math.isnan(admitted[rid]):
                admitted[rid] = t
            recomputed += max(0, computed_before.pop(rid, 0) - hit)
            free.claim(rid, hit)
            kv_used += hit
            run.ids.append(rid)
            run.kv.append(hit)
            run.todo.append(todo)
            run.left.append(int(output[rid]) - resume.pop(rid, 0))
            chunks[len(run) - 1] = c
            budget -= c
        ctx = sum(run.kv[k] for k in decode_now)
        dt = model.iteration_s(len(decode_now), ctx, sum(chunks.values()), prefill_seqs=len(chunks))
        t += dt
        iterations += 1
        free.take(len(decode_now) + sum(chunks.values()))
        for k in decode_now:
            run.kv[k] += 1
            run.left[k] -= 1
        for k, c in chunks.items():
            run.kv[k] += c
            run.todo[k] -= c
            if run.todo[k] == 0:
                rid = run.ids[k]
                if math.isnan(first[rid]):
                    first[rid] = t
                run.left[k] -= 1  # the iteration that ends a prompt samples its first token
        gone, next_send = _retire(run, t, finish, sent, waiting, closed, n, next_send, free)
        done += gone
        kv_used = sum(run.kv)
    return ReplicaRun(
        sent_s=sent,
        admitted_s=admitted,
        first_token_s=first,
        finish_s=finish,
        output_tokens=output,
        prompt_tokens=prompt,
        preemptions=preemptions,
        iterations=iterations,
        recomputed_tokens=recomputed,
    )


def _retire(
    run: _State,
    t: float,
    finish: np.ndarray,
    sent: np.ndarray,
    waiting: deque[int],
    closed: bool,
    n: int,
    nxt: int,
    free: _FreeBlocks,
) -> tuple[int, int]:
    """Remove finished sequences (their cache freed); closed loop: send as many next requests.
    Returns (finished, next request not yet sent)."""
    gone = [k for k in range(len(run)) if run.left[k] <= 0 and run.todo[k] == 0]
    for k in reversed(gone):
        rid, kv, _, _ = run.drop(k)
        free.give(-1, kv)
        finish[rid] = t
    if closed:
        for _ in gone:
            if nxt < n:
                sent[nxt] = t
                waiting.append(nxt)
                nxt += 1
    return len(gone), nxt


def _decode_stretch(
    model: StepModel,
    run: _State,
    kv_used: int,
    cap: int,
    t: float,
    arrivals: np.ndarray,
    nxt: int,
    admissible: bool,
) -> tuple[int, float]:
    """Iterations of pure decoding until the next event, and their time."""
    b = len(run)
    m = min(run.left)
    m = min(m, (cap - kv_used) // b)
    if m <= 0:
        return 0, 0.0
    k = np.arange(m, dtype=np.float64)
    ctx = kv_used + k * b
    gpu = model.kernels_s(b, ctx, 0.0)
    step = with_host_s(model, gpu, model.comm_fixed_s + model.comm_s_per_token * b)
    ends = t + np.cumsum(step)
    if admissible and nxt < len(arrivals) and arrivals[nxt] < ends[-1]:
        # The request arriving now is admitted at the first iteration boundary after it.
        m = int(np.searchsorted(ends, arrivals[nxt], side="left")) + 1
    return m, float(ends[m - 1] - t)


_ENGINE_KEYS = ("max_num_seqs", "max_batched_tokens", "chunked_prefill", "prefix_caching", "block_tokens")


def parse_engine(text: str, defaults: EngineSettings) -> EngineSettings:
    """``max_num_seqs=256,max_batched_tokens=2048,chunked_prefill=off,prefix_caching=on`` over
    ``defaults``; ``chunked_prefill`` turns prefix caching along with it (vLLM V0 had neither, V1
    both) unless ``prefix_caching`` says otherwise."""
    from dataclasses import replace

    from gpuplan.errors import NotFoundError

    values: dict[str, int | bool] = {}
    for item in split_list(text):
        key, eq, value = item.partition("=")
        key = key.strip().lower()
        if not eq or key not in _ENGINE_KEYS:
            raise NotFoundError("engine setting", key or item, _ENGINE_KEYS)
        value = value.strip().lower()
        if key in ("chunked_prefill", "prefix_caching"):
            if value not in ("on", "off", "true", "false"):
                raise InputError.worded(N_("--engine {key}: write on or off"), key=key)
            values[key] = value in ("on", "true")
            if key == "chunked_prefill" and "prefix_caching" not in text.lower():
                # Whole prompts are vLLM V0's default, and so is V0's cache without prefix caching.
                values["prefix_caching"] = bool(values[key])
            continue
        if not re.fullmatch(r"[0-9]+", value) or int(value) < 1:
            raise InputError.worded(
                N_("--engine {key}={value!r}: write a whole number of at least 1"), key=key, value=value
            )
        values[key] = int(value)
    return replace(defaults, **values, source=f"{defaults.source}; --engine {text}")  # type: ignore[arg-type]
