"""All-in cost of every live candidate, vectorised: compute, storage, egress, licences, spot overhead."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from gpuplan.i18n.places import UNSPECIFIED_REGION
from gpuplan.plan.billing import compute_cost_usd
from gpuplan.plan.candidates import Candidates
from gpuplan.plan.input_types import HOURS_PER_MONTH, BoolArray, FloatArray, IntArray, JobFacts, OfferTable
from gpuplan.plan.region_costs import CostFacts, RegionCharges
from gpuplan.plan.spot import (
    ServiceSpot,
    SpotRate,
    SpotTimes,
    checkpoint_writes_h,
    service_spot,
    spot_rates,
    spot_times,
)
from gpuplan.plan.unknowns import Fact
from gpuplan.units import batch_chunk_hours

__all__ = ["CostArrays", "cost_candidates", "not_known_current"]


@dataclass(frozen=True, kw_only=True)
class CostArrays:
    """Costs of the candidates ``idx`` (indices into :class:`Candidates`), one element each."""

    idx: IntArray
    time_h: FloatArray
    """Expected job time (spot: with checkpoints, lost work, restarts)."""
    time_h_low: FloatArray
    time_h_high: FloatArray
    compute_usd: FloatArray
    setup_usd: FloatArray
    """The part of ``compute_usd`` that pays for the set-up (every instance, before the first step)."""
    setup_h: FloatArray
    """The set-up before the first step, h (``JobFacts.setup_hours`` of the candidate's nodes)."""
    storage_usd: FloatArray
    """Each instance's launch disk (``JobFacts.launch_disk_gb``) for the hours it is billed, and
    the one bucket (``bucket_usd``) where the job keeps its storage in one."""
    bucket_usd: FloatArray
    """The part of ``storage_usd`` that pays for the one object-storage bucket (0 on block storage)."""
    egress_usd: FloatArray
    """Dataset in (every copy) plus results back (a service: its answers to its clients)."""
    egress_in_usd: FloatArray
    egress_out_usd: FloatArray
    """What leaves the region once: a job's results back, a service's month of answers."""
    egress_copies: IntArray
    """Copies of the dataset that pay the transfer in: the node count (``data.transfer: per_node``
    on per-node disks) or 1 (fanned out inside the region, or one shared bucket)."""
    licence_usd: FloatArray
    spot_overhead_usd: FloatArray
    """A job: instance time writing checkpoints, redoing lost work and restarting. A service: its
    spare instances (``service.spare_instances``), which keep the load target through a reclaim."""
    total_usd: FloatArray
    total_usd_low: FloatArray
    total_usd_high: FloatArray
    billed_h: FloatArray
    is_spot: BoolArray
    spot_rate_per_instance_hour: FloatArray
    spot_rate_id: IntArray
    """Index into ``rates`` (where each spot rate comes from)."""
    checkpoint_interval_h: FloatArray
    """The interval checkpoints are written at, h: spot's Young/Daly one (or the workload's, where
    shorter), the launch's off spot; nan where none is written."""
    checkpoint_overhead_h: FloatArray
    """Time spent writing checkpoints, h, on every pricing (spot's is part of ``spot_overhead_usd``;
    off spot it is billed in ``compute_usd``, its part ``checkpoint_usd``)."""
    checkpoint_usd: FloatArray
    """Off spot: the part of ``compute_usd`` that pays for the checkpoint writes (0 on spot, whose
    writes are in ``spot_overhead_usd``)."""
    lost_h: FloatArray
    interruptions: FloatArray
    stable: BoolArray
    region_id: IntArray
    """Index into ``regions`` / ``charges``."""
    unknown: IntArray
    """Relevant facts the catalog lacks, costed at their conservative bound (or, for a best-case
    costing, their best case): a ``plan.unknowns.Fact`` mask."""
    rates: tuple[SpotRate, ...]
    regions: tuple[tuple[str, str], ...]
    charges: tuple[RegionCharges, ...]
    service: ServiceSpot | None = None
    """A service's spot availability, one element per candidate (meaningful where ``is_spot``);
    None for a job (its spot candidates have ``lost_h`` instead)."""
    peak_fleet_usd: FloatArray | None = None
    """A service priced as the fleet its day needs (``fleet_share`` below 1): its all-in cost with
    its peak fleet all month, the bound where the autoscaler does not follow the day (nan
    elsewhere); None for a job."""


@dataclass(frozen=True)
class _AtTime:
    time_h: FloatArray
    compute: FloatArray
    checkpoints: FloatArray
    """Off spot: the compute that pays for the checkpoint writes."""
    overhead: FloatArray
    storage: FloatArray
    bucket: FloatArray
    licence: FloatArray
    billed_h: FloatArray
    peak: FloatArray
    """The all-in cost's parts that scale with the instance-hours, at the peak fleet all month
    (compute, storage on the instances' disks, licences): the bound beside a scaled-down service."""


def _region_ids(offers: OfferTable) -> tuple[IntArray, list[tuple[str, str]]]:
    """Per offer row, the index of its (provider, region) in the returned list."""
    pair = np.char.add(np.char.add(offers.provider.astype(str), "\x1f"), offers.region.astype(str))
    uniq, inverse = np.unique(pair, return_inverse=True)
    regions = [(str(u).split("\x1f")[0], str(u).split("\x1f")[1]) for u in uniq]
    return inverse.reshape(-1).astype(np.int64), regions


def not_known_current(offers: OfferTable) -> BoolArray:
    """Per offer row, whether its price is not known to hold today: it has no date, its date's
    bounds straddle the staleness limit, it is older than the limit (the provider may have repriced
    it since), or it is ranked at a dated floor instead of its own undated figure."""
    out: BoolArray = (
        (offers.as_of == "")
        | offers.stale
        | np.isin(offers.staleness, ("unknown", "stale"))
        | (offers.floor_as_of != "")
    )
    return out


def cost_candidates(
    cands: Candidates,
    offers: OfferTable,
    facts: CostFacts,
    job: JobFacts,
    *,
    best_case: bool = False,
    fleet_share: FloatArray | None = None,
) -> CostArrays:
    """Cost every live candidate. Spot candidates whose interruptions outpace progress are marked
    not ``stable`` (the caller excludes them). ``best_case``: every unknown fact at its best case
    (the candidates' ``work_h_best``, the lowest known prices, the lowest published spot rate)
    instead of its conservative bound. ``fleet_share``: per candidate (all of them), the share of
    its instance-hours a service pays where its fleet follows its day
    (:func:`gpuplan.plan.service_day.service_days`; 1: its peak fleet all month): compute, the
    instances' disks and licences are paid for those hours (a replica scaled down is deleted with
    its disk); a shared bucket, the answers out and a spot service's spare (its compute, its disk
    and its licence fees: it runs all month) are not scaled.

    String work (regions, pricing, bands) is done once per offer row and gathered by integer index:
    candidates outnumber offers by up to the GPUs searched (64 by default) to 1.
    """
    idx = np.flatnonzero(cands.alive)
    o = cands.offer[idx]
    nodes = cands.nodes[idx].astype(float)
    # A spot price of unknown age below every dated one is ranked at the dated floor; its own
    # figure is its best case (OfferPrice.dated_floor_usd_per_hour).
    price = offers.price_usd[o]
    if best_case:
        own = offers.price_usd_best[o]
        price = np.where(np.isnan(own), price, own)
    unit = offers.unit_hours[o]
    term = offers.term_hours[o]
    gran = offers.billing_granularity_s[o]
    min_s = offers.min_billing_s[o]
    is_spot = (offers.pricing == "spot")[o]

    # Regions: the non-compute prices depend on (provider, region) only.
    offer_region, all_regions = _region_ids(offers)
    used = np.flatnonzero(np.bincount(offer_region[o], minlength=len(all_regions)))  # in use, in order
    remap = np.full(len(all_regions), -1, dtype=np.int64)
    remap[used] = np.arange(used.size)
    region_id = remap[offer_region[o]]
    regions = tuple(all_regions[int(u)] for u in used)
    charges = tuple(facts.charges(p, r, job, best_case=best_case) for p, r in regions)

    def per_region(values: list[float]) -> FloatArray:
        out: FloatArray = np.array(values, dtype=float)[region_id] if charges else np.zeros(0)
        return out

    # Each node's disk needs the dataset: each downloads its own copy, unless the workload fans one
    # copy out inside the region (or all nodes read one shared bucket), or each node reads only its
    # part of it (batch inference: JobFacts.reads_its_shard, copies_per_node false).
    copies = nodes.astype(np.int64) if job.copies_per_node else np.ones(idx.size, dtype=np.int64)
    egress_in = per_region([c.egress_in_usd for c in charges]) * copies
    egress_out = per_region([c.egress_out_usd for c in charges])
    egress = egress_in + egress_out
    region_facts = (
        np.array([c.unknown_facts for c in charges], dtype=np.int64)[region_id]
        if charges
        else np.zeros(0, dtype=np.int64)
    )
    gb_hour = per_region([c.storage_usd_per_gb_hour for c in charges])
    disk_gb_hour = per_region([c.disk_usd_per_gb_hour for c in charges])
    licence_rate = per_region([c.licence_usd_per_instance_hour for c in charges])
    # Each instance's disk is priced at the size deploy launches it with (JobFacts.launch_disk_gb:
    # what it holds — the dataset, the checkpoints kept, a service's weights — with headroom and
    # the OS's room, at least SkyPilot's default), not at the bytes on it: the disk is billed
    # whole. In a bucket (storage object) the bucket is priced by its bytes (JobFacts.bucket_gb)
    # and each instance still boots with a launch disk of its own, priced as such.
    disk_gb = float(job.launch_disk_gb)

    offer_rate, offer_rate_id, rates = spot_rates(
        offers.interruption_band, offers.provider, offers.interruption_band_source
    )
    # An offer without a band has an unknown rate (the provider's stated default, conservative); an
    # open band (">20%") is costed the same way, its lower edge being its best case.
    no_band = (offers.interruption_band == "")[o]
    published = [r.per_hour for r in rates if not r.assumed]
    if best_case and published:
        # The best case of an unknown interruption rate: the lowest rate any band publishes.
        offer_rate = np.where(offers.interruption_band == "", min(published), offer_rate)
    if best_case:
        lower = np.array([r.best_per_hour if r.best_per_hour is not None else r.per_hour for r in rates])
        offer_rate = np.where(offers.interruption_band == "", offer_rate, lower[offer_rate_id])
    rate_one = offer_rate[o]
    spot = np.flatnonzero(is_spot)
    rate_job = rate_one[spot] * nodes[spot]
    ckpt_write_h = job.checkpoint_write_h
    # Off spot, the launch checkpoints at its own interval (train.py's CHECKPOINT_INTERVAL_MIN,
    # synchronously: every GPU waits for the write): a training job pays for the writes on every
    # pricing, not only on spot. The workload's interval, else 30 min lengthened where the writes
    # would take more than 5 % of the job (JobFacts.checkpoint_interval_h). A service and batch
    # inference write none.
    off_spot = np.flatnonzero(~is_spot) if job.writes_checkpoints_off_spot else np.zeros(0, dtype=np.int64)
    stated_h = job.checkpoint_every_h if job.checkpoint_every_stated else None
    # A restart also reads the checkpoint back, and a LoRA/QLoRA job's frozen base (at the write
    # bandwidth: same storage).
    restart_h = job.spot_restart_h
    # Where the dataset is on each instance's disk, a reclaim may take the disks with it (AWS
    # terminates a reclaimed Spot Instance by default; a relaunched cluster's disks start empty):
    # unknown, so each restart copies it again at its conservative bound, as the set-up did, and
    # pays its transfer in again; the best case is the disks surviving (JobFacts.recopy_hours).
    recopy = job.recopies_on_reclaim and bool(spot.size)
    # Each instance copies the dataset at the rate given or assumed, or at its network where the
    # catalog states a slower one (NaN: not stated, the rate kept).
    network = offers.network_gbps[o]
    recopy_h = (
        job.recopy_hours(nodes[spot], network[spot]) if recopy and not best_case else np.zeros(spot.size)
    )
    restart_spot = restart_h + recopy_h
    # The set-up of each option: its nodes' copies of the dataset may share the site's uplink.
    setup_h = job.setup_hours(nodes, network)
    serving = _service_spot(
        job, rate_one, cands.nodes[idx], cands.gpus_per_node[idx], cands.replica_gpus(job)[idx]
    )

    # A batch inference shard's output chunk: its batches at the candidate's step time (one batch
    # per step of each replica); a step time not known: restarted from scratch (spot_times).
    chunk_h = batch_chunk_hours(cands.step_time_s[idx][spot])
    share = np.ones(idx.size) if fleet_share is None else np.asarray(fleet_share, dtype=float)[idx]
    if serving is not None:
        # Reclaims come over the instance-hours the fleet is billed for: an autoscaled day runs its
        # peak only some hours (the spare runs all of them, its reclaims its own).
        serving = replace(
            serving,
            interruptions=serving.interruptions * share,
            replica_hours_down=serving.replica_hours_down * share,
        )

    def at(work: FloatArray) -> tuple[_AtTime, SpotTimes, FloatArray]:
        # The checkpoints an option off spot writes over its work (the set-up writes none).
        ckpt = np.zeros_like(work)
        ckpt[off_spot] = checkpoint_writes_h(work[off_spot], ckpt_write_h, job.checkpoint_interval_h)
        # The instances are billed from the moment they start, set-up included.
        work = work + setup_h
        # A job without checkpoints restarts from the beginning, but batch inference resumes by
        # its output chunks as deploy's batch job writes them (a service re-does no work; its
        # reclaims are ``serving``'s).
        st = spot_times(
            work[spot],
            rate_job,
            ckpt_write_h,
            restart_spot,
            from_scratch=serving is None,
            resume_every_h=chunk_h if job.resumes_by_chunks else None,
            max_interval_h=stated_h,
        )
        t = work + ckpt
        if serving is None:
            t[spot] = st.expected_h
        t_safe = np.where(np.isfinite(t), t, work)
        total_compute = compute_cost_usd(
            t_safe, price, unit, term, gran, min_s, nodes, calendar_months=job.calendar_months
        )
        overhead = np.zeros_like(work)
        spare = np.zeros_like(work)
        if serving is None:
            overhead[spot] = (price / unit * nodes)[spot] * (t_safe - work)[spot]
            compute = total_compute - overhead
            if recopy and not best_case:
                # each re-copy of the dataset pays its transfer into the region again
                again = np.where(np.isfinite(st.interruptions), st.interruptions, 0.0)
                overhead[spot] += egress_in[spot] * again
        else:
            # A service runs its calendar time whatever is reclaimed; its spot overhead is the spare
            # instances that keep the load target meanwhile, billed as its instances are.
            spare[spot] = serving.spare_instances[spot]
            overhead = total_compute / nodes * spare
            compute = total_compute
        billed = total_compute / np.where(price * nodes > 0, price * nodes / unit, 1.0)
        # the writes' share of the compute billed (its billing step and minimum fall on the whole)
        with np.errstate(divide="ignore", invalid="ignore"):
            writes_usd = np.where(t_safe > 0, compute * ckpt / t_safe, 0.0)
        # A disk and the licence fees per instance, a service's spare ones included (they hold
        # what the others do), for the hours each runs: a serving instance is deleted with its
        # disk where the service scales down (its share of the month), the spare runs all month
        # as its compute is billed; the one bucket is kept throughout.
        disk_each = disk_gb * disk_gb_hour * t_safe
        licence_each = licence_rate * billed
        held = nodes * share + spare
        bucket = job.bucket_gb * gb_hour * t_safe
        return (
            _AtTime(
                time_h=t,
                compute=compute * share,
                checkpoints=writes_usd * share,
                overhead=overhead,
                storage=disk_each * held + bucket,
                bucket=bucket,
                licence=licence_each * held,
                billed_h=billed * share,
                peak=compute + (disk_each + licence_each) * (nodes + spare) + bucket,
            ),
            st,
            ckpt,
        )

    if best_case:
        mid, st, ckpt_mid = at(cands.work_h_best[idx])
        lo, hi = mid, mid
    else:
        mid, st, ckpt_mid = at(cands.work_h[idx])
        lo, _, _ = at(cands.work_h_low[idx])
        hi, _, _ = at(cands.work_h_high[idx])
    # The set-up, billed on every instance before the first step, at the instance's hourly rate.
    setup = np.minimum(price / unit * nodes * setup_h, mid.compute)
    unknown = cands.unknown[idx] | region_facts
    # an open band (">20%") bounds the rate from below only: the rate is unknown as without a band
    open_band = np.array([r.best_per_hour is not None for r in rates], dtype=bool)[offer_rate_id][o]
    unknown |= np.where(is_spot & (no_band | open_band), int(Fact.SPOT_RATE), 0)
    if job.recopies_on_reclaim and serving is None:
        unknown |= np.where(is_spot, int(Fact.RECLAIM_DISK), 0)
    # Compared per offer row, then gathered: gathering the text columns first copies every candidate's.
    unknown |= np.where(not_known_current(offers)[o], int(Fact.PRICE_DATE), 0)
    # a source that names no region: where the GPUs are (country, transfer prices) is unknown
    unknown |= np.where((offers.region == UNSPECIFIED_REGION)[o], int(Fact.REGION), 0)

    def total(a: _AtTime) -> FloatArray:
        out: FloatArray = a.compute + a.overhead + a.storage + egress + a.licence
        return out

    # a service scaled down with its day: the peak fleet all month is the bound beside it, the
    # high end of its range (the autoscaler may not follow the day as assumed)
    scaled = share < 1.0
    peak_total = np.where(scaled, mid.peak + mid.overhead + egress, np.nan)

    def on_spot(values: FloatArray, default: float) -> FloatArray:
        out = np.full(idx.size, default)
        out[spot] = values
        return out

    stable = np.ones(idx.size, dtype=bool)
    if serving is None:  # a service re-does no work: it never falls behind
        stable[spot] = st.stable
    nan = math.nan
    return CostArrays(
        idx=idx,
        time_h=mid.time_h,
        time_h_low=np.minimum(lo.time_h, mid.time_h),
        time_h_high=np.maximum(hi.time_h, mid.time_h),
        compute_usd=mid.compute,
        setup_usd=setup,
        setup_h=setup_h,
        storage_usd=mid.storage,
        bucket_usd=mid.bucket,
        egress_usd=egress,
        egress_in_usd=egress_in,
        egress_out_usd=egress_out,
        egress_copies=copies,
        licence_usd=mid.licence,
        spot_overhead_usd=mid.overhead,
        total_usd=total(mid),
        total_usd_low=np.minimum(total(lo), total(mid)),
        total_usd_high=np.fmax(np.maximum(total(hi), total(mid)), peak_total),
        billed_h=mid.billed_h,
        is_spot=is_spot,
        spot_rate_per_instance_hour=on_spot(rate_one[spot], nan),
        spot_rate_id=offer_rate_id[o],
        checkpoint_interval_h=_off_spot(
            on_spot(st.interval_h, nan), off_spot, ckpt_mid, job.checkpoint_interval_h, cands.work_h[idx]
        ),
        checkpoint_overhead_h=np.where(ckpt_mid > 0, ckpt_mid, on_spot(st.checkpoint_overhead_h, 0.0)),
        checkpoint_usd=mid.checkpoints,
        lost_h=on_spot(st.lost_h, 0.0) if serving is None else np.full(idx.size, nan),
        interruptions=on_spot(st.interruptions, 0.0) if serving is None else serving.interruptions,
        stable=stable,
        region_id=region_id,
        unknown=unknown,
        rates=tuple(rates),
        regions=regions,
        charges=charges,
        service=serving,
        peak_fleet_usd=peak_total if job.is_service else None,
    )


def _off_spot(
    interval_h: FloatArray, off_spot: IntArray, writes_h: FloatArray, every_h: float, work_h: FloatArray
) -> FloatArray:
    """``interval_h`` (spot's) with the launch's interval where an option off spot writes checkpoints
    (``off_spot``, capped at its work as :func:`~gpuplan.plan.spot.checkpoint_writes_h` caps it)."""
    out = interval_h.copy()
    out[off_spot] = np.where(writes_h[off_spot] > 0, np.minimum(every_h, work_h[off_spot]), math.nan)
    return out


def _service_spot(
    job: JobFacts, rate: FloatArray, nodes: IntArray, gpus_per_node: IntArray, replica_gpus: IntArray
) -> ServiceSpot | None:
    """A service's spot availability for every candidate (``rate`` per instance-hour; used where
    the candidate is spot; ``replica_gpus``: each one's GPUs per replica), or None for a job. The
    replicas of a reclaimed instance are down for their start-up on a new one
    (``JobFacts.replica_start_up``, the model deploy and ``simulate autoscale`` count too): the
    boot and the engine's start (``JobFacts.service_restart_h``) and their weights read
    (``JobFacts.weights_load_h`` each)."""
    if job.calendar_months is None:
        return None
    return service_spot(
        rate,
        nodes,
        gpus_per_node,
        replica_gpus,
        job.calendar_months * HOURS_PER_MONTH,
        job.service_restart_h,
        job.weights_load_h,
        job.replicas_per_gpu,
    )
