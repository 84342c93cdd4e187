"""Candidates: every offer × node count, with the user's filters and the estimator's answer.

One node is one instance with all its GPUs; k nodes are k identical instances (multi-node data
parallelism), enumerated up to the total-GPU limit. Every candidate that is left out gets its first
reason (``Reason`` order), so the counts in ``Plan.excluded`` add up to the candidates enumerated.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from gpuplan.plan.constraints import COMMITTED_PRICING, Constraints, Reason, labels_satisfy
from gpuplan.plan.input_types import (
    BoolArray,
    EstimateKey,
    EstimateRow,
    FloatArray,
    IntArray,
    JobFacts,
    OfferTable,
)

__all__ = [
    "NO_REASON",
    "REASONS",
    "Candidates",
    "EstimateFn",
    "ModelSplitMisfits",
    "enumerate_candidates",
    "estimate_candidates",
    "exclude_model_split",
    "model_split_misfits",
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
    work_h: FloatArray
    work_h_low: FloatArray
    work_h_high: FloatArray
    peak_memory_gib: FloatArray
    step_time_s: FloatArray
    input_bound: BoolArray
    """The instance's CPUs, not its GPUs, set the step time (see ``EstimateRow.input_bound``)."""
    input_unknown: BoolArray
    """An image job on an instance of unknown vCPUs (see ``EstimateRow.input_unknown``)."""

    def __len__(self) -> int:
        return int(self.offer.shape[0])

    @property
    def alive(self) -> BoolArray:
        out: BoolArray = self.reason == NO_REASON
        return out

    def exclude(self, mask: BoolArray, reason: Reason) -> None:
        """Give ``reason`` to the candidates in ``mask`` that have no reason yet."""
        self.reason[mask & self.alive] = REASONS.index(reason)

    def excluded_counts(self) -> dict[str, int]:
        counts = np.bincount(self.reason[self.reason >= 0], minlength=len(REASONS))
        return {r.value: int(c) for r, c in zip(REASONS, counts, strict=True) if c}


def _in(values: np.ndarray, allowed: tuple[str, ...]) -> BoolArray:
    lowered = np.char.lower(values.astype(str))
    out: BoolArray = np.isin(lowered, [a.lower() for a in allowed])
    return out


def enumerate_candidates(offers: OfferTable, constraints: Constraints) -> Candidates:
    """Every offer × node count up to ``MAX_TOTAL_GPUS`` and the node limit, with the offer-level
    filters applied. Counts beyond ``constraints.node_limit`` are not enumerated at all (the plan's
    assumptions say where the limit is)."""
    from gpuplan.plan.constraints import MAX_TOTAL_GPUS

    per_node = offers.gpu_count
    whole = per_node >= 1
    # Offers with a fractional or too-large GPU count get one candidate (to carry their reason).
    max_nodes = np.where(whole, np.floor(MAX_TOTAL_GPUS / np.maximum(per_node, 1.0)), 1.0)
    max_nodes = np.clip(max_nodes, 1.0, constraints.node_limit).astype(np.int64)
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
        work_h=np.full(n, math.nan),
        work_h_low=np.full(n, math.nan),
        work_h_high=np.full(n, math.nan),
        peak_memory_gib=np.full(n, math.nan),
        step_time_s=np.full(n, math.nan),
        input_bound=np.zeros(n, dtype=bool),
        input_unknown=np.zeros(n, dtype=bool),
    )
    c = constraints
    if c.providers:
        cands.exclude(~_in(offers.provider, c.providers)[offer], Reason.PROVIDER)
    if c.regions:
        cands.exclude(~_in(offers.region, c.regions)[offer], Reason.REGION)
    if c.countries:
        cands.exclude(~_in(offers.country, c.countries)[offer], Reason.COUNTRY)
    # Pricing "" marks an offer without any price: it is counted as unpriced, not as a pricing mismatch.
    priced_model = offers.pricing != ""
    cands.exclude((priced_model & ~_in(offers.pricing, c.allowed_pricing))[offer], Reason.PRICING)
    committed = _in(offers.pricing, COMMITTED_PRICING)
    cands.exclude((committed & ~_in(offers.pricing, c.committed_allowed))[offer], Reason.NEEDS_COMMITMENT)
    if c.compliance:
        ok = np.array([labels_satisfy(c.compliance, labels) for labels in offers.compliance], dtype=bool)
        cands.exclude(~ok[offer], Reason.COMPLIANCE)
    if c.interconnect:
        ok = np.char.find(np.char.lower(offers.interconnect.astype(str)), c.interconnect.lower()) >= 0
        # A single-GPU node needs no intra-node link; the requirement is about multi-GPU nodes.
        cands.exclude(~ok[offer] & (cands.gpus_per_node * cands.nodes > 1), Reason.INTERCONNECT)
    if c.min_gpu_memory_gib:
        cands.exclude(~(offers.gpu_memory_gib >= c.min_gpu_memory_gib)[offer], Reason.GPU_MEMORY)
    total = per_node[offer] * nodes
    cands.exclude(total > c.total_gpu_limit, Reason.MAX_GPUS)
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
    job's tensor × pipeline split, before the estimator is asked about them."""
    if job.replica_gpus == 1:
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


def estimate_candidates(cands: Candidates, offers: OfferTable, estimate: EstimateFn) -> int:
    """Ask the estimator once per distinct shape among live candidates; returns the calls made.

    A shape is (GPU, GPUs per node, nodes, intra-node link, network, vCPUs, network kind);
    thousands of candidates (zones, regions, pricing models of the same instance) share a few
    hundred shapes.
    """
    live = np.flatnonzero(cands.alive)
    if live.size == 0:
        return 0
    o = cands.offer[live]
    net = np.where(np.isnan(offers.network_gbps), -1.0, offers.network_gbps)
    vcpus = np.where(np.isnan(offers.vcpus), -1.0, offers.vcpus)
    shape_text = np.char.add(
        np.char.add(np.char.add(offers.gpu.astype(str), "|"), offers.interconnect.astype(str)),
        np.char.add(
            np.char.add(np.char.add("|", net.astype(str)), np.char.add("|", vcpus.astype(str))),
            np.char.add("|", offers.network_kind.astype(str)),
        ),
    )
    _, shape_id = np.unique(shape_text, return_inverse=True)
    shape_id = shape_id.reshape(-1)
    key_code = (shape_id[o] * 4096 + cands.gpus_per_node[live]) * 4096 + cands.nodes[live]
    codes, first, inverse = np.unique(key_code, return_index=True, return_inverse=True)
    fits = np.zeros(codes.size, dtype=bool)
    uncertain = np.zeros(codes.size, dtype=bool)
    bound = np.zeros(codes.size, dtype=bool)
    unknown = np.zeros(codes.size, dtype=bool)
    vals = np.full((codes.size, 5), math.nan)
    for j, idx in enumerate(first):
        i_cand = live[idx]
        i_off = int(cands.offer[i_cand])
        network = float(offers.network_gbps[i_off])
        vcpus_i = float(offers.vcpus[i_off])
        row = estimate(
            EstimateKey(
                gpu=str(offers.gpu[i_off]),
                gpus_per_node=int(cands.gpus_per_node[i_cand]),
                nodes=int(cands.nodes[i_cand]),
                interconnect=str(offers.interconnect[i_off]),
                network_gbps=None if math.isnan(network) else network,
                vcpus=None if math.isnan(vcpus_i) else vcpus_i,
                network_kind=str(offers.network_kind[i_off]),
            )
        )
        fits[j] = row.fits
        uncertain[j] = row.memory_uncertain
        bound[j] = row.input_bound
        unknown[j] = row.input_unknown
        vals[j] = (
            row.job_time_h,
            row.job_time_h_low,
            row.job_time_h_high,
            row.peak_memory_gib,
            row.step_time_s,
        )
    inverse = inverse.reshape(-1)
    cands.fits[live] = fits[inverse]
    cands.memory_uncertain[live] = uncertain[inverse]
    cands.input_bound[live] = bound[inverse]
    cands.input_unknown[live] = unknown[inverse]
    cands.work_h[live] = vals[inverse, 0]
    cands.work_h_low[live] = vals[inverse, 1]
    cands.work_h_high[live] = vals[inverse, 2]
    cands.peak_memory_gib[live] = vals[inverse, 3]
    cands.step_time_s[live] = vals[inverse, 4]
    bad_time = ~(cands.work_h > 0) | ~np.isfinite(cands.work_h)
    cands.exclude(~cands.fits | bad_time, Reason.DOES_NOT_FIT)
    return int(codes.size)
