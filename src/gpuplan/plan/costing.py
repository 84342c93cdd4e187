"""All-in cost of every live candidate, vectorised: compute, storage, egress, licences, spot overhead."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from gpuplan.plan.billing import compute_cost_usd
from gpuplan.plan.candidates import Candidates
from gpuplan.plan.inputs import BoolArray, FloatArray, IntArray, JobFacts, OfferTable
from gpuplan.plan.regional import CostFacts, RegionCharges
from gpuplan.plan.spot import SpotRate, SpotTimes, spot_rates, spot_times

__all__ = ["CostArrays", "cost_candidates"]


@dataclass(frozen=True, kw_only=True)
class CostArrays:
    """Costs of the candidates ``idx`` (indices into :class:`Candidates`), one element each."""

    idx: IntArray
    time_h: FloatArray
    """Expected job time (spot: with checkpoints, lost work, restarts)."""
    time_h_low: FloatArray
    time_h_high: FloatArray
    compute_usd: FloatArray
    storage_usd: FloatArray
    egress_usd: FloatArray
    licence_usd: FloatArray
    spot_overhead_usd: FloatArray
    total_usd: FloatArray
    total_usd_low: FloatArray
    total_usd_high: FloatArray
    billed_h: FloatArray
    is_spot: BoolArray
    spot_rate_per_instance_hour: FloatArray
    spot_rate_id: IntArray
    """Index into ``rates`` (where each spot rate comes from)."""
    checkpoint_interval_h: FloatArray
    checkpoint_overhead_h: FloatArray
    lost_h: FloatArray
    interruptions: FloatArray
    stable: BoolArray
    region_id: IntArray
    """Index into ``regions`` / ``charges``."""
    rates: tuple[SpotRate, ...]
    regions: tuple[tuple[str, str], ...]
    charges: tuple[RegionCharges, ...]


@dataclass(frozen=True)
class _AtTime:
    time_h: FloatArray
    compute: FloatArray
    overhead: FloatArray
    storage: FloatArray
    licence: FloatArray
    billed_h: FloatArray


def cost_candidates(cands: Candidates, offers: OfferTable, facts: CostFacts, job: JobFacts) -> CostArrays:
    """Cost every live candidate. Spot candidates whose interruptions outpace progress are marked
    not ``stable`` (the caller excludes them)."""
    idx = np.flatnonzero(cands.alive)
    o = cands.offer[idx]
    nodes = cands.nodes[idx].astype(float)
    price = offers.price_usd[o]
    unit = offers.unit_hours[o]
    term = offers.term_hours[o]
    gran = offers.billing_granularity_s[o]
    min_s = offers.min_billing_s[o]
    is_spot = offers.pricing[o] == "spot"

    # Regions: the non-compute prices depend on (provider, region) only.
    pair = np.char.add(np.char.add(offers.provider[o].astype(str), "\x1f"), offers.region[o].astype(str))
    uniq_pairs, region_id = np.unique(pair, return_inverse=True)
    region_id = region_id.reshape(-1)
    regions = tuple((str(p).split("\x1f")[0], str(p).split("\x1f")[1]) for p in uniq_pairs)
    charges = tuple(facts.charges(p, r, job) for p, r in regions)

    def per_region(values: list[float]) -> FloatArray:
        out: FloatArray = np.array(values, dtype=float)[region_id] if charges else np.zeros(0)
        return out

    egress = per_region([c.egress_usd for c in charges])
    gb_hour = per_region([c.storage_usd_per_gb_hour for c in charges])
    licence_rate = per_region([c.licence_usd_per_instance_hour for c in charges])
    per_copy_gb = job.dataset_gb + job.checkpoints_kept * job.checkpoint_gb
    stored_gb = per_copy_gb * (nodes if job.storage_kind == "block" else np.ones_like(nodes))

    rate_one, rates = spot_rates(offers.interruption_band[o])
    _, rate_id = np.unique(offers.interruption_band[o], return_inverse=True)
    rate_job = np.where(is_spot, rate_one * nodes, 0.0)
    ckpt_write_h = job.checkpoint_gb / job.checkpoint_write_gbps / 3600.0
    # A restart also reads the checkpoint back (at the write bandwidth: same storage).
    restart_h = job.restart_h + ckpt_write_h

    def at(work: FloatArray) -> tuple[_AtTime, SpotTimes]:
        st = spot_times(work, np.where(is_spot, rate_job, 1e-300), ckpt_write_h, restart_h)
        t = np.where(is_spot, st.expected_h, work)
        t_safe = np.where(np.isfinite(t), t, work)
        total_compute = compute_cost_usd(t_safe, price, unit, term, gran, min_s, nodes)
        overhead = np.where(is_spot, price / unit * nodes * (t_safe - work), 0.0)
        billed = total_compute / np.where(price * nodes > 0, price * nodes / unit, 1.0)
        return (
            _AtTime(
                time_h=t,
                compute=total_compute - overhead,
                overhead=overhead,
                storage=stored_gb * gb_hour * t_safe,
                licence=licence_rate * nodes * billed,
                billed_h=billed,
            ),
            st,
        )

    mid, st = at(cands.work_h[idx])
    lo, _ = at(cands.work_h_low[idx])
    hi, _ = at(cands.work_h_high[idx])

    def total(a: _AtTime) -> FloatArray:
        out: FloatArray = a.compute + a.overhead + a.storage + egress + a.licence
        return out

    nan = math.nan
    return CostArrays(
        idx=idx,
        time_h=mid.time_h,
        time_h_low=np.minimum(lo.time_h, mid.time_h),
        time_h_high=np.maximum(hi.time_h, mid.time_h),
        compute_usd=mid.compute,
        storage_usd=mid.storage,
        egress_usd=egress,
        licence_usd=mid.licence,
        spot_overhead_usd=mid.overhead,
        total_usd=total(mid),
        total_usd_low=np.minimum(total(lo), total(mid)),
        total_usd_high=np.maximum(total(hi), total(mid)),
        billed_h=mid.billed_h,
        is_spot=is_spot,
        spot_rate_per_instance_hour=np.where(is_spot, rate_one, nan),
        spot_rate_id=rate_id.reshape(-1).astype(np.int64),
        checkpoint_interval_h=np.where(is_spot, st.interval_h, nan),
        checkpoint_overhead_h=np.where(is_spot, st.checkpoint_overhead_h, 0.0),
        lost_h=np.where(is_spot, st.lost_h, 0.0),
        interruptions=np.where(is_spot, st.interruptions, 0.0),
        stable=np.where(is_spot, st.stable, True),
        region_id=region_id.astype(np.int64),
        rates=tuple(rates),
        regions=regions,
        charges=charges,
    )
