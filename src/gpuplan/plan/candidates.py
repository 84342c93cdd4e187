"""Candidates: every offer × node count, with the user's filters and the estimator's answer.

One node is one instance with all its GPUs; k nodes are k identical instances (multi-node data
parallelism), enumerated up to the total-GPU limit. Every candidate that is left out gets its first
reason (``Reason`` order), so the counts in ``Plan.excluded`` add up to the candidates enumerated.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gpuplan.errors import GpuplanError, Phrase
from gpuplan.i18n import N_
from gpuplan.plan.constraints import COMMITTED_PRICING, Constraints, Reason, counted_labels, labels_satisfy
from gpuplan.plan.hosts import provider_run_rows
from gpuplan.plan.input_types import (
    BoolArray,
    EstimateKey,
    EstimateRow,
    FloatArray,
    IntArray,
    JobFacts,
    OfferTable,
)
from gpuplan.plan.unknowns import Fact, HostBounds

__all__ = [
    "NO_REASON",
    "REASONS",
    "Candidates",
    "EstimateFn",
    "ModelSplitMisfits",
    "enumerate_candidates",
    "estimate_candidates",
    "exclude_missing_precision",
    "exclude_model_split",
    "hours_at",
    "left_without_precision",
    "model_split_misfits",
    "named_in",
    "refusal_words",
]

#: The estimator as the planner sees it: one GPU configuration in, one answer out.
EstimateFn = Callable[[EstimateKey], EstimateRow]

REASONS: tuple[Reason, ...] = tuple(Reason)
#: Value of ``Candidates.reason`` for a candidate still in the running.
NO_REASON = -1


@dataclass(kw_only=True)
class Candidates:
    """Parallel arrays, one element per candidate. ``reason`` is mutated as filters apply."""

    offer: IntArray
    """Row of the :class:`OfferTable`."""
    nodes: IntArray
    gpus_per_node: IntArray
    reason: IntArray
    """Index into ``REASONS`` of the first reason the candidate was left out, or ``NO_REASON``."""
    fits: BoolArray
    memory_uncertain: BoolArray
    """*May not fit*: the memory band straddles the usable memory (see ``EstimateRow``)."""
    memory_over: BoolArray
    """Of those, the estimate's point is above the usable memory too (``EstimateRow.memory_over``)."""
    work_h: FloatArray
    work_h_low: FloatArray
    work_h_high: FloatArray
    peak_memory_gib: FloatArray
    memory_needed_gib: FloatArray
    """The point of the memory band that must fit (see ``EstimateRow``), GiB."""
    memory_needed_gib_high: FloatArray
    """The high end of the memory band that must fit (see ``EstimateRow``), GiB."""
    usable_memory_gib: FloatArray
    """The GPU's usable memory (see ``EstimateRow``), GiB."""
    step_time_s: FloatArray
    input_bound: BoolArray
    """The instance's CPUs, not its GPUs, set the step time (see ``EstimateRow.input_bound``)."""
    input_unknown: BoolArray
    """An image job on an instance of unknown vCPUs (see ``EstimateRow.input_unknown``)."""
    misses_latency: BoolArray
    """A service over its p95 latency, time-to-first-token or time-per-output-token target here (see
    ``EstimateRow.misses_latency``)."""
    short_of_load: BoolArray
    """A service whose replicas cannot carry its load here (see ``EstimateRow.short_of_load``)."""
    rate_unknown: BoolArray
    """No published rate of this GPU for the job's math (see ``EstimateRow.rate_unknown``)."""
    p95_latency_s: FloatArray
    """A service's estimated p95 latency here, s (nan: not a service, or not estimated)."""
    ttft_p95_s: FloatArray
    """A service's estimated p95 time to first token here, s (nan: not a service, or not estimated)."""
    tpot_s: FloatArray
    """A service's estimated time per output token here, s (``EstimateRow.tpot_s``; nan: not a
    service, or not estimated)."""
    tpot_floor_s: FloatArray
    """The shortest time per output token its replicas reach here at any load, s
    (``EstimateRow.tpot_floor_s``; nan: not a service, or not estimated)."""
    replica_requests_per_s: np.ndarray
    """A service: the requests/s one replica carries here (``EstimateRow.replica_requests_per_s``;
    nan: not a service, or not estimated). float32: a figure to show, never one ranked by."""
    work_h_best: FloatArray
    """Failure-free job time with every unknown instance fact at its best case (equal to ``work_h``
    when none is unknown)."""
    unknown: IntArray
    """The relevant facts the catalog lacks for this candidate (a ``plan.unknowns.Fact`` mask)."""
    tensor_parallel: IntArray
    """A service planned at the degree each option needs (``JobFacts.tensor_parallel_choices``):
    the GPUs one replica is split over here (``EstimateRow.tensor_parallel``); 0: the job's own."""
    implausible: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Per GPU, each datasheet bound its estimated step breaks (``EstimateRow.implausible``), in
    words; a GPU whose estimates are plausible is not listed."""
    users_rtt_ms: FloatArray | None = None
    """A service with ``users_in``: the network round trip from each candidate's region to the
    farthest users, ms (``plan/users_far.py``; nan: not known where the region or the users are);
    None: no users named."""
    emptied_by: Reason | None = None
    """The reason whose exclusion left no candidate in the running (None: some are left, or there
    were none to begin with): the filter a "no option is left" line names."""

    def __len__(self) -> int:
        return int(self.offer.shape[0])

    @property
    def alive(self) -> BoolArray:
        out: BoolArray = self.reason == NO_REASON
        return out

    def replica_gpus(self, job: JobFacts) -> IntArray:
        """Each candidate's GPUs per model replica: its own tensor-parallel degree where the planner
        chose one, else the job's, × the job's pipeline stages."""
        tp = np.where(self.tensor_parallel > 0, self.tensor_parallel, job.tensor_parallel)
        out: IntArray = tp * job.pipeline_parallel
        return out

    def exclude(self, mask: BoolArray, reason: Reason) -> None:
        """Give ``reason`` to the candidates in ``mask`` that have no reason yet."""
        alive = self.alive
        hit = mask & alive
        if not hit.any():
            return
        self.reason[hit] = REASONS.index(reason)
        if not (alive & ~hit).any():
            self.emptied_by = reason

    def excluded_counts(self) -> dict[str, int]:
        counts = np.bincount(self.reason[self.reason >= 0], minlength=len(REASONS))
        return {r.value: int(c) for r, c in zip(REASONS, counts, strict=True) if c}


def named_in(values: np.ndarray, allowed: tuple[str, ...]) -> BoolArray:
    """Which of ``values`` (names: providers, regions, pricing models) are in ``allowed``, case aside."""
    lowered = np.char.lower(values.astype(str))
    out: BoolArray = np.isin(lowered, [a.lower() for a in allowed])
    return out


def enumerate_candidates(
    offers: OfferTable, constraints: Constraints, *, service: bool = False
) -> Candidates:
    """Every offer × node count up to the GPU limit (``--max-gpus``; at least the default search,
    ``DEFAULT_TOTAL_GPUS``, so that a lower limit's exclusions are counted) and the node limit, with
    the offer-level filters applied (``--min-gpus`` leaves out those of fewer GPUs in all). Counts
    beyond ``constraints.node_limit(service=service)`` are not enumerated at all (the plan's
    assumptions say where the limit is; ``plan.load_limit`` says when it left a service short of
    its load). ``service``: the candidates are a service's replicas, independent servers, not the
    nodes of one job."""
    from gpuplan.plan.constraints import DEFAULT_TOTAL_GPUS

    per_node = offers.gpu_count
    whole = per_node >= 1
    # The arrays grow with the GPUs searched: past the default only where --max-gpus asks.
    searched = max(DEFAULT_TOTAL_GPUS, constraints.total_gpu_limit)
    # Offers with a fractional or too-large GPU count get one candidate (to carry their reason).
    max_nodes = np.where(whole, np.floor(searched / np.maximum(per_node, 1.0)), 1.0)
    max_nodes = np.clip(max_nodes, 1.0, constraints.node_limit(service=service)).astype(np.int64)
    offer = np.repeat(np.arange(len(offers), dtype=np.int64), max_nodes)
    starts = np.repeat(np.cumsum(max_nodes) - max_nodes, max_nodes)
    nodes = np.arange(offer.shape[0], dtype=np.int64) - starts + 1
    n = offer.shape[0]
    cands = Candidates(
        offer=offer,
        nodes=nodes,
        gpus_per_node=np.floor(per_node[offer]).astype(np.int64),
        reason=np.full(n, NO_REASON, dtype=np.int64),
        fits=np.zeros(n, dtype=bool),
        memory_uncertain=np.zeros(n, dtype=bool),
        memory_over=np.zeros(n, dtype=bool),
        work_h=np.full(n, math.nan),
        work_h_low=np.full(n, math.nan),
        work_h_high=np.full(n, math.nan),
        peak_memory_gib=np.full(n, math.nan),
        memory_needed_gib=np.full(n, math.nan),
        memory_needed_gib_high=np.full(n, math.nan),
        usable_memory_gib=np.full(n, math.nan),
        step_time_s=np.full(n, math.nan),
        input_bound=np.zeros(n, dtype=bool),
        input_unknown=np.zeros(n, dtype=bool),
        misses_latency=np.zeros(n, dtype=bool),
        short_of_load=np.zeros(n, dtype=bool),
        rate_unknown=np.zeros(n, dtype=bool),
        p95_latency_s=np.full(n, math.nan),
        ttft_p95_s=np.full(n, math.nan),
        tpot_s=np.full(n, math.nan),
        tpot_floor_s=np.full(n, math.nan),
        replica_requests_per_s=np.full(n, math.nan, dtype=np.float32),
        work_h_best=np.full(n, math.nan),
        unknown=np.zeros(n, dtype=np.int64),
        tensor_parallel=np.zeros(n, dtype=np.int64),
    )
    c = constraints
    if c.providers:
        cands.exclude(~named_in(offers.provider, c.providers)[offer], Reason.PROVIDER)
    if c.gpu_ids:
        cands.exclude(~named_in(offers.gpu, c.gpu_ids)[offer], Reason.GPU)
    if c.regions:
        cands.exclude(~named_in(offers.region, c.regions)[offer], Reason.REGION)
    if c.countries:
        cands.exclude(~named_in(offers.country, c.countries)[offer], Reason.COUNTRY)
    if c.provider_hosts_only:
        # hosts: provider: a community host and a host of unknown kind are left out (unknown is
        # never taken for the best case); only the candidates still in the running are looked up
        alive = cands.alive
        kept = np.ones(n, dtype=bool)
        kept[alive] = provider_run_rows(offers, offer[alive])
        cands.exclude(~kept, Reason.HOSTS)
    # Pricing "" marks an offer without any price: it is counted as unpriced, not as a pricing mismatch.
    priced_model = offers.pricing != ""
    cands.exclude((priced_model & ~named_in(offers.pricing, c.allowed_pricing))[offer], Reason.PRICING)
    committed = named_in(offers.pricing, COMMITTED_PRICING)
    uncommitted = committed & ~named_in(offers.pricing, c.committed_allowed)
    cands.exclude(uncommitted[offer], Reason.NEEDS_COMMITMENT)
    if c.compliance:
        ok = np.array(
            [
                labels_satisfy(c.compliance, counted_labels(c, certain, claimed))
                for certain, claimed in zip(offers.compliance, offers.compliance_claimed, strict=True)
            ],
            dtype=bool,
        )
        cands.exclude(~ok[offer], Reason.COMPLIANCE)
    if c.interconnect:
        ok = np.char.find(np.char.lower(offers.interconnect.astype(str)), c.interconnect.lower()) >= 0
        # A single-GPU node needs no intra-node link; the requirement is about multi-GPU nodes.
        cands.exclude(~ok[offer] & (cands.gpus_per_node * cands.nodes > 1), Reason.INTERCONNECT)
    if c.min_gpu_memory_gib:
        cands.exclude(~(offers.gpu_memory_gib >= c.min_gpu_memory_gib)[offer], Reason.GPU_MEMORY)
    total = per_node[offer] * nodes
    cands.exclude(total > c.total_gpu_limit, Reason.MAX_GPUS)
    if c.min_gpus:
        # a service's fleet counts every replica's GPUs: its options of fewer in all are left out
        cands.exclude(total < c.min_gpus, Reason.MIN_GPUS)
    cands.exclude(~whole[offer], Reason.FRACTIONAL_GPU)
    cands.exclude(np.isnan(offers.price_usd)[offer], Reason.UNPRICED)
    if not c.allow_low_confidence:
        cands.exclude((offers.confidence == "low")[offer], Reason.LOW_CONFIDENCE)
    return cands


@dataclass(frozen=True, kw_only=True)
class ModelSplitMisfits:
    """Candidates the job's tensor × pipeline split cannot run on, by why (first reason wins)."""

    not_multiple: int
    """GPU count not a multiple of ``tensor_parallel × pipeline_parallel``."""
    node_too_narrow: int
    """An instance with fewer GPUs than ``tensor_parallel`` (its group would span nodes)."""

    @property
    def total(self) -> int:
        return self.not_multiple + self.node_too_narrow


def _split_masks(cands: Candidates, job: JobFacts) -> tuple[BoolArray, BoolArray]:
    total = cands.gpus_per_node * cands.nodes
    not_multiple: BoolArray = total % job.replica_gpus != 0
    # The same two rules as perf.model_parallel.check_model_parallel, over every candidate at once.
    narrow: BoolArray = ~not_multiple & (cands.gpus_per_node < job.tensor_parallel)
    return not_multiple, narrow


def exclude_model_split(cands: Candidates, job: JobFacts) -> None:
    """Leave out (``Reason.MODEL_SPLIT``) the candidates whose GPUs cannot hold whole replicas of the
    job's tensor × pipeline split, before the estimator is asked about them; and (``Reason.MIN_REPLICAS``)
    those of fewer replicas than a service's ``min_replicas``, which ``deploy`` starts whatever the
    plan priced (a plan had priced 2 GPUs for a deployment of 4), ``replicas_per_gpu`` to a GPU, and
    (``Reason.MAX_REPLICAS``) those of more than its ``max_replicas``, which its autoscaler never runs."""
    total = cands.gpus_per_node * cands.nodes
    replicas = total // job.replica_gpus * job.replicas_per_gpu
    if job.min_replicas > 1:
        cands.exclude(replicas < job.min_replicas, Reason.MIN_REPLICAS)
    if job.max_replicas is not None and job.tensor_parallel_choices:
        # the fewest replicas a candidate can run: at the widest degree its instances hold
        widest = np.ones_like(total)
        for t in job.tensor_parallel_choices:
            widest = np.where((cands.gpus_per_node >= t) & (total % t == 0), t, widest)
        cands.exclude(total // widest > job.max_replicas, Reason.MAX_REPLICAS)
    elif job.max_replicas is not None:
        # more than the autoscaler deploy writes may run: the load such an option is priced for
        # is one the deployed service cannot reach (a plan of 8 replicas beside maxReplicas: 4)
        cands.exclude(replicas > job.max_replicas, Reason.MAX_REPLICAS)
    if job.replica_gpus == 1:
        return
    if job.splits_heads_unevenly:
        # no count runs it: every candidate, before the estimator is asked (which had counted
        # those of a multiple of its GPUs as does_not_fit)
        cands.exclude(np.ones(len(cands), dtype=bool), Reason.MODEL_SPLIT)
        return
    not_multiple, narrow = _split_masks(cands, job)
    cands.exclude(not_multiple | narrow, Reason.MODEL_SPLIT)


def model_split_misfits(cands: Candidates, job: JobFacts) -> ModelSplitMisfits:
    """How many candidates :func:`exclude_model_split` left out, by why."""
    if job.replica_gpus == 1:
        return ModelSplitMisfits(not_multiple=0, node_too_narrow=0)
    not_multiple, narrow = _split_masks(cands, job)
    mine = cands.reason == REASONS.index(Reason.MODEL_SPLIT)
    return ModelSplitMisfits(
        not_multiple=int(np.count_nonzero(mine & not_multiple)),
        node_too_narrow=int(np.count_nonzero(mine & narrow)),
    )


def precision_refusals(gpus: Iterable[str], job: JobFacts) -> dict[str, GpuplanError]:
    """Per GPU of ``gpus`` (catalog ids) that lacks the tensor-core path of the job's precision
    (BF16 on a T4, FP8 on an A100): why, the estimate's error (worded, so shown in the reader's
    language), with the precision to use instead. A GPU with the units but no published rate for
    them is not here (its speed is unknown, not absent: ``Reason.UNKNOWN_RATE``), nor one gpuplan
    does not know."""
    from gpuplan.errors import UnpublishedRateError
    from gpuplan.hardware import get_gpu
    from gpuplan.perf.roofline import precision_refusal

    if job.precision is None:
        return {}
    out: dict[str, GpuplanError] = {}
    for gpu_id in sorted(set(gpus)):
        try:
            refusal = precision_refusal(job.precision, get_gpu(gpu_id), job.task)
        except GpuplanError:
            continue
        if refusal is not None and not isinstance(refusal, UnpublishedRateError):
            out[gpu_id] = refusal
    return out


def refusal_words(refusals: dict[str, GpuplanError]) -> Phrase:
    """:func:`precision_refusals` in one clause per reason: GPUs refused for the same reason and
    told the same precision instead (a T4 and two V100s, all without BF16) share the first one's
    words, the others named after them, where each had repeated the whole sentence."""
    from gpuplan.i18n.phrases import item_list, separated

    groups: dict[tuple[str, str], list[tuple[str, GpuplanError]]] = {}
    for gpu, error in refusals.items():
        rest = {k: str(v) for k, v in error.fields.items() if k != "gpu"}
        groups.setdefault((error.template, repr(sorted(rest.items()))), []).append((gpu, error))
    clauses: list[object] = []
    for members in groups.values():
        first = members[0][1]
        others = [gpu for gpu, _error in members[1:]]
        clauses.append(Phrase(_SAME_FOR, why=first, gpus=item_list(others)) if others else first)
    return separated(clauses)


#: One GPU's reason it cannot run the precision, and the other GPUs it holds for.
_SAME_FOR = N_("{why}; the same for {gpus}")


def exclude_missing_precision(
    cands: Candidates, offers: OfferTable, job: JobFacts
) -> dict[str, GpuplanError]:
    """Leave out (``Reason.NO_PRECISION_PATH``) the candidates on a GPU that cannot run the job's
    precision at all, before the estimator is asked about them: they had been counted as
    ``does_not_fit``, which sent a user whose ResNet fits a T4's memory to lower the batch size.
    Returns :func:`precision_refusals` of the GPUs left out."""
    refusals = precision_refusals(np.unique(offers.gpu.astype(str)).tolist(), job)
    if refusals:
        lacking = np.isin(offers.gpu.astype(str), list(refusals))
        cands.exclude(lacking[cands.offer], Reason.NO_PRECISION_PATH)
    return refusals


def left_without_precision(cands: Candidates, offers: OfferTable, job: JobFacts) -> dict[str, GpuplanError]:
    """:func:`precision_refusals` of the GPUs whose candidates :func:`exclude_missing_precision`
    left out (sorted by GPU; empty where it left none)."""
    hit = cands.reason == REASONS.index(Reason.NO_PRECISION_PATH)
    if not hit.any():
        return {}
    return precision_refusals({str(g) for g in offers.gpu[cands.offer[hit]]}, job)


def _codes(values: np.ndarray) -> tuple[np.ndarray, int]:
    """Integer codes of a column (equal values, equal codes; nan as one value) and how many."""
    values = np.where(np.isnan(values), -1.0, values) if values.dtype.kind in "fc" else values.astype(str)
    uniq, inverse = np.unique(values, return_inverse=True)
    return inverse.reshape(-1).astype(np.int64), int(uniq.size)


def _offer_shapes(
    offers: OfferTable,
    vcpus: np.ndarray,
    ram: np.ndarray,
    net: np.ndarray,
    kind: np.ndarray,
    link: np.ndarray,
) -> np.ndarray:
    """An id per offer row of what the estimator sees of it (GPU, links, host; unknown alike)."""
    key = np.zeros(len(offers), dtype=np.int64)
    for column in (offers.gpu, link, kind, net, vcpus, ram):
        codes, n = _codes(column)
        key = key * max(n, 1) + codes  # mixed radix: a few hundred values per column at most
    _, shape_id = np.unique(key, return_inverse=True)
    out: np.ndarray = shape_id.reshape(-1)
    return out


def _known(values: np.ndarray) -> list[Any]:
    """A float column's values as Python floats, nan as None (an :class:`EstimateKey`'s unknown)."""
    return [None if v != v else v for v in values.tolist()]  # v != v: nan


def _run_keys(
    cands: Candidates,
    live: IntArray,
    offers: OfferTable,
    estimate: EstimateFn,
    cols: tuple[np.ndarray, ...],
    shape: IntArray,
) -> tuple[np.ndarray, np.ndarray, IntArray]:
    """The estimator's answers for the distinct (shape, GPUs per node, nodes) among ``live``: per
    distinct key a row of (fits, bound, unknown, may not fit, misses latency, short of load, rate
    unknown) flags and (time, low, high, peak, step, p95 latency, a replica's requests/s, p95 time
    to first token, the memory band's high end, the usable memory, the tensor-parallel degree
    chosen) values, and
    each live candidate's key index."""
    key_code = (shape * 4096 + cands.gpus_per_node[live]) * 4096 + cands.nodes[live]
    codes, first, inverse = np.unique(key_code, return_index=True, return_inverse=True)
    # One key per distinct code, its facts read column by column as Python values (thousands of
    # keys: indexing numpy scalars one by one would cost more than the estimates they look up).
    cand = live[first]
    off = cands.offer[cand]
    vcpus, ram, net, kind, interconnect = cols
    keys = zip(
        offers.gpu[off].tolist(),
        cands.gpus_per_node[cand].tolist(),
        cands.nodes[cand].tolist(),
        np.asarray(interconnect)[off].astype(str).tolist(),
        _known(net[off]),
        _known(vcpus[off]),
        np.asarray(kind)[off].astype(str).tolist(),
        _known(ram[off]),
        strict=True,
    )
    flags, vals = [], []
    for gpu, gpn, nodes, link, net_gbps, n_vcpus, fabric, ram_gib in keys:
        row = estimate(
            EstimateKey(
                gpu=gpu,
                gpus_per_node=gpn,
                nodes=nodes,
                interconnect=link,
                network_gbps=net_gbps,
                vcpus=n_vcpus,
                network_kind=fabric,
                memory_gib=ram_gib,
            )
        )
        if row.implausible:
            said = cands.implausible.get(gpu, ())
            cands.implausible[gpu] = (*said, *(f for f in row.implausible if f not in said))
        flags.append(
            (
                row.fits,
                row.input_bound,
                row.input_unknown,
                row.memory_uncertain,
                row.misses_latency,
                row.short_of_load,
                row.rate_unknown,
                row.memory_over,
            )
        )
        vals.append(
            (
                row.job_time_h,
                row.job_time_h_low,
                row.job_time_h_high,
                row.peak_memory_gib,
                row.step_time_s,
                row.p95_latency_s,
                row.replica_requests_per_s,
                row.ttft_p95_s,
                row.memory_needed_gib_high,
                row.usable_memory_gib,
                row.tensor_parallel,
                row.tpot_s,
                row.tpot_floor_s,
                row.memory_needed_gib,
            )
        )
    flag_arr = np.array(flags, dtype=bool).reshape(codes.size, 8)
    val_arr = np.array(vals, dtype=float).reshape(codes.size, 14)
    return flag_arr, val_arr, inverse.reshape(-1)


def estimate_candidates(
    cands: Candidates,
    offers: OfferTable,
    estimate: EstimateFn,
    bounds: HostBounds | None = None,
    relevant: int = 0,
) -> int:
    """Ask the estimator once per distinct shape among live candidates; returns the calls made.

    A shape is (GPU, GPUs per node, nodes, intra-node link, network, vCPUs, RAM, network kind);
    thousands of candidates (zones, regions, pricing models of the same instance) share a few
    hundred shapes. ``bounds``: an instance fact the catalog lacks (vCPUs, RAM and the network
    where ``relevant`` has their bit; the network only for a multi-node candidate) is asked at its
    conservative bound (``plan/unknowns.py``) for the candidate's time, and as unknown for its best case
    (``work_h_best``); the facts so taken are marked in ``cands.unknown``.
    """
    live = np.flatnonzero(cands.alive)
    if live.size == 0:
        return 0
    raw: tuple[np.ndarray, ...] = (
        offers.vcpus,
        offers.memory_gib,
        offers.network_gbps,
        offers.network_kind,
        offers.interconnect,
    )
    cons = raw if bounds is None else _filled(offers, bounds, relevant)
    multi = cands.nodes[live] > 1
    # A single node's network is never used: its raw value keeps the key (and the estimator's cache) shared.
    single_cols = (cons[0], cons[1], raw[2], raw[3], cons[4])
    cons_shape_multi = _offer_shapes(offers, *cons)[cands.offer[live]]
    cons_shape_single = _offer_shapes(offers, *single_cols)[cands.offer[live]]
    calls = 0
    for mask, cols, shape in ((multi, cons, cons_shape_multi), (~multi, single_cols, cons_shape_single)):
        if not mask.any():
            continue
        sub = live[mask]
        flags, vals, inv = _run_keys(cands, sub, offers, estimate, cols, shape[mask])
        calls += flags.shape[0]
        cands.fits[sub], cands.input_bound[sub] = flags[inv, 0], flags[inv, 1]
        cands.input_unknown[sub], cands.memory_uncertain[sub] = flags[inv, 2], flags[inv, 3]
        cands.work_h[sub], cands.work_h_low[sub], cands.work_h_high[sub] = (
            vals[inv, 0],
            vals[inv, 1],
            vals[inv, 2],
        )
        cands.peak_memory_gib[sub], cands.step_time_s[sub] = vals[inv, 3], vals[inv, 4]
        cands.memory_needed_gib_high[sub], cands.usable_memory_gib[sub] = vals[inv, 8], vals[inv, 9]
        cands.misses_latency[sub], cands.p95_latency_s[sub] = flags[inv, 4], vals[inv, 5]
        cands.short_of_load[sub] = flags[inv, 5]
        cands.replica_requests_per_s[sub] = vals[inv, 6]
        cands.ttft_p95_s[sub] = vals[inv, 7]
        cands.rate_unknown[sub] = flags[inv, 6]
        cands.memory_over[sub], cands.memory_needed_gib[sub] = flags[inv, 7], vals[inv, 13]
        cands.tensor_parallel[sub] = vals[inv, 10].astype(np.int64)
        cands.tpot_s[sub], cands.tpot_floor_s[sub] = vals[inv, 11], vals[inv, 12]
    cands.work_h_best[live] = cands.work_h[live]
    if bounds is not None:
        taken = _taken(offers, relevant)[cands.offer[live]]
        taken = np.where(multi, taken, taken & ~int(Fact.NETWORK))
        cands.unknown[live] |= taken
        if (asked := np.flatnonzero(taken)).size:
            sub = live[asked]
            best = _best_case(offers, relevant)
            best_shape = _offer_shapes(offers, *best)[cands.offer[live]]
            flags, vals, inv = _run_keys(cands, sub, offers, estimate, best, best_shape[asked])
            calls += flags.shape[0]
            cands.work_h_best[sub] = np.minimum(vals[inv, 0], cands.work_h[sub])
            cands.input_unknown[sub] = flags[inv, 2]
    bad_time = ~(cands.work_h > 0) | ~np.isfinite(cands.work_h)
    # A service that fits and carries its load but is slower than its p95 or time-to-first-token
    # target: its own reason.
    cands.exclude(~cands.fits & cands.misses_latency, Reason.LATENCY)
    # One that fits in memory but whose replicas cannot carry the load: its own reason too (it had
    # been counted as "does not fit").
    cands.exclude(~cands.fits & cands.short_of_load, Reason.LOAD)
    # A GPU whose rate for the job's math no source gives: unknown speed, not "does not fit".
    cands.exclude(~cands.fits & cands.rate_unknown, Reason.UNKNOWN_RATE)
    cands.exclude(~cands.fits | bad_time, Reason.DOES_NOT_FIT)
    return calls


def hours_at(
    offers: OfferTable,
    estimate: EstimateFn,
    bounds: HostBounds | None,
    relevant: int,
) -> Callable[[int, int], float | None]:
    """The estimator's failure-free time of offer row ``row`` on ``nodes`` of its instances, h,
    its unknown facts at their conservative bounds as :func:`estimate_candidates` asks them; None
    where it does not fit or gives no time. For a count the search did not reach: whether more
    instances past a limit would meet a deadline (``plan.load_limit.deadline_limits``)."""
    cols = (
        (offers.vcpus, offers.memory_gib, offers.network_gbps, offers.network_kind, offers.interconnect)
        if bounds is None
        else _filled(offers, bounds, relevant)
    )
    vcpus, ram, net, kind, link = cols

    def at(row: int, nodes: int) -> float | None:
        known = _known(np.array([vcpus[row], ram[row], net[row]], dtype=float))
        answer = estimate(
            EstimateKey(
                gpu=str(offers.gpu[row]),
                gpus_per_node=max(1, math.floor(offers.gpu_count[row])),
                nodes=nodes,
                interconnect=str(np.asarray(link)[row]),
                network_gbps=known[2],
                vcpus=known[0],
                network_kind=str(np.asarray(kind)[row]),
                memory_gib=known[1],
            )
        )
        hours = float(answer.job_time_h)
        return hours if answer.fits and math.isfinite(hours) else None

    return at


def _per_gpu_bound(offers: OfferTable, per_gpu: dict[str, float], fallback: float | None) -> np.ndarray:
    """Per offer row: its GPU's bound per GPU × its GPU count (nan where there is none)."""
    uniq, inverse = np.unique(offers.gpu.astype(str), return_inverse=True)
    none = math.nan if fallback is None else fallback
    per = np.array([per_gpu.get(str(g), none) for g in uniq], dtype=float)
    out: np.ndarray = per[inverse.reshape(-1)] * offers.gpu_count
    return out


def _filled(offers: OfferTable, bounds: HostBounds, relevant: int) -> tuple[np.ndarray, ...]:
    """The offers' vCPUs, RAM, network and network kind with each relevant unknown at its bound."""
    vcpus, ram = offers.vcpus, offers.memory_gib
    if relevant & int(Fact.VCPUS):
        bound = _per_gpu_bound(offers, bounds.vcpus_per_gpu, bounds.any_vcpus_per_gpu)
        vcpus = np.where(np.isnan(vcpus), bound, vcpus)
    if relevant & int(Fact.RAM):
        bound = _per_gpu_bound(offers, bounds.ram_gib_per_gpu, bounds.any_ram_gib_per_gpu)
        ram = np.where(np.isnan(ram), bound, ram)
    net, kind = offers.network_gbps, offers.network_kind
    if relevant & int(Fact.NETWORK):
        from gpuplan.perf.links import SLOW_NETWORK_GBIT_S

        # No offer states a network: the embedded catalog's slowest, not the estimator's typical point.
        slowest = bounds.network_gbps if bounds.network_gbps is not None else SLOW_NETWORK_GBIT_S
        unknown = np.isnan(net)
        net = np.where(unknown, slowest, net)
        kind = np.where(unknown, "TCP", kind.astype(str))
    # An offer that does not say how its GPUs are joined is costed as its words stand: the
    # estimator takes them at the conservative bound (perf.links.gpu_join).
    return vcpus, ram, net, kind, offers.interconnect


def _best_case(offers: OfferTable, relevant: int) -> tuple[np.ndarray, ...]:
    """The offers' vCPUs, RAM, network, network kind and GPU link with each unknown at its best
    case: unknown vCPUs and RAM stay unknown (the estimator then applies no host limit), an unknown
    network is the fastest plausible fabric (``perf.links.FAST_NETWORK_GBIT_S`` over RDMA), an
    unknown GPU link is NVLink through NVSwitch (an NVLink bridge on a pair of PCIe cards)."""
    from gpuplan.perf.links import FAST_NETWORK_GBIT_S

    unknown = np.isnan(offers.network_gbps)
    net = np.where(unknown, FAST_NETWORK_GBIT_S, offers.network_gbps)
    kind = np.where(unknown, "InfiniBand", offers.network_kind.astype(str))
    link = offers.interconnect.astype(str)
    if relevant & int(Fact.GPU_LINK):
        link = np.where(_gpu_link_unknown(offers), "NVLink/NVSwitch", link)
    return offers.vcpus, offers.memory_gib, net, kind, link


def _gpu_link_unknown(offers: OfferTable) -> np.ndarray:
    """Per offer row: its catalog entry does not say how its GPUs are joined, where it matters
    (``perf.links.gpu_join``: an SXM node of fewer than eight GPUs not said to have NVSwitch, two
    NVLink-capable PCIe cards not said to be bridged)."""
    from gpuplan.errors import GpuplanError
    from gpuplan.hardware import get_gpu
    from gpuplan.perf.links import gpu_join

    facts = np.stack(
        [offers.gpu.astype(str), offers.gpu_count.astype(int).astype(str), offers.interconnect.astype(str)],
        axis=1,
    )
    uniq, inverse = np.unique(facts, axis=0, return_inverse=True)
    unknown = []
    for gpu_id, count, text in uniq.tolist():
        try:
            gpu = get_gpu(gpu_id)
        except GpuplanError:
            unknown.append(False)
            continue
        unknown.append(not gpu_join(gpu, int(count), text).known)
    out: np.ndarray = np.array(unknown, dtype=bool)[inverse.reshape(-1)]
    return out


def _taken(offers: OfferTable, relevant: int) -> IntArray:
    """Per offer row: the relevant instance facts it lacks (a :class:`Fact` mask)."""
    out = np.zeros(len(offers), dtype=np.int64)
    if relevant & int(Fact.VCPUS):
        out |= np.where(np.isnan(offers.vcpus), int(Fact.VCPUS), 0)
    if relevant & int(Fact.RAM):
        out |= np.where(np.isnan(offers.memory_gib), int(Fact.RAM), 0)
    if relevant & int(Fact.NETWORK):
        out |= np.where(np.isnan(offers.network_gbps), int(Fact.NETWORK), 0)
    if relevant & int(Fact.GPU_LINK):
        out |= np.where(_gpu_link_unknown(offers), int(Fact.GPU_LINK), 0)
    return out
