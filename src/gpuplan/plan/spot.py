"""Spot risk: interruption rates, Young/Daly checkpointing, expected time, deadline-miss probability.

The model, for a job of failure-free length W hours on ``nodes`` spot instances:

- each instance is interrupted as a Poisson process of rate λ₁ per hour; with synchronous data
  parallelism any interruption stops the whole job, so the job sees rate λ = nodes × λ₁ and a mean
  time between interruptions M = 1/λ;
- checkpoints take C hours to write; Young's optimal interval (Young 1974, "A first order
  approximation to the optimum checkpoint interval", CACM 17(9); Daly 2006 refines it) is
  τ = sqrt(2·C·M), capped at W (a job shorter than τ writes no intermediate checkpoint);
- checkpointing stretches the work to W' = W·(1 + C/τ);
- each interruption loses on average half an interval of work plus the restart R:
  δ = τ/2 + R;
- the expected wall time T solves T = W' + λ·T·δ, i.e. T = W' / (1 − λ·δ) (valid when λ·δ < 1;
  otherwise the job is expected never to finish and the candidate is excluded);
- expected interruptions N = λ·T.

A job without checkpoints restarts from the beginning after an interruption, so the lost work is
all the work done since the start, not half an interval: :func:`spot_times` with ``from_scratch``
and :func:`restart_miss_probability` model that. Batch inference is not such a job: the batch job
``gpuplan deploy`` writes keeps its outputs in chunks of :data:`BATCH_CHUNK_BATCHES` batches, each
written whole, and a restarted shard skips the chunks written. It resumes like a checkpointed job
whose interval is a chunk and whose checkpoint costs nothing more than writing the outputs it writes
anyway: an interruption loses half a chunk plus the restart (:func:`spot_times` ``resume_every_h``).

A service (a stretch of calendar time with a load target, not a piece of work) re-does no work: a
reclaim costs availability. :func:`service_spot` models that instead (see its docstring): the
replicas on a reclaimed instance are down until a replacement has started and loaded the model,
and the price includes one spare instance that keeps the load target through a reclaim.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from gpuplan.catalog import providers
from gpuplan.catalog.spot_bands import (
    OTHER_BANDS_KEY,
    PUBLISHED_BAND_MAX,
    band_share,
    band_source,
    offer_band,
    read_bands,
)
from gpuplan.i18n import N_, _
from gpuplan.i18n.numbers import format_hours
from gpuplan.i18n.phrases import item_list
from gpuplan.plan.input_types import HOURS_PER_MONTH, BoolArray, FloatArray, IntArray, StrArray
from gpuplan.units import (
    BATCH_CHUNK_BATCHES,
    CHECKPOINT_WRITE_SHARE,
    CHECKPOINT_WRITE_SHARE_FLAGGED,
    DEFAULT_CHECKPOINT_INTERVAL_MIN,
    default_checkpoint_interval_min,
)

if TYPE_CHECKING:
    from gpuplan.catalog.model import OfferPrice

__all__ = [
    "BATCH_CHUNK_BATCHES",
    "DEFAULT_SPOT_RATE",
    "OTHER_BANDS_KEY",
    "PUBLISHED_BAND_MAX",
    "ServiceSpot",
    "SpotRate",
    "SpotTimes",
    "band_rate_per_hour",
    "band_source",
    "below_target_over_day",
    "checkpoint_interval_basis",
    "checkpoint_writes_h",
    "deadline_miss_probability",
    "heavy_checkpoint_words",
    "heavy_spot_checkpoint_words",
    "launch_rate",
    "offer_band",
    "offer_rate",
    "range_miss_probability",
    "restart_from_scratch",
    "restart_miss_probability",
    "service_down_h",
    "service_spot",
    "service_unit",
    "spot_checkpoint_interval_h",
    "spot_default",
    "spot_rates",
    "spot_times",
    "young_daly_h",
]


@dataclass(frozen=True, kw_only=True)
class SpotRate:
    """Interruptions per instance-hour and where that figure comes from."""

    per_hour: float
    source: str
    assumed: bool
    """True when no published figure backs it (the output then says "assumed")."""
    note: str | None = None
    """The provider's clause inside ``source`` (a message of its own), for :meth:`shown`."""
    band: str | None = None
    """The catalog's monthly interruption band the rate comes from, if any (:func:`rates_shown`)."""
    open_share: float | None = None
    """For an open band (">20%"): its lower edge, the monthly share of the best case."""
    best_per_hour: float | None = None
    """For an open band: the rate at its lower edge (what a plan's best case uses); ``per_hour`` is
    then the unknown-rate assumption, as the band publishes no upper bound."""
    band_source: str | None = None
    """Where the band comes from, with its date (:func:`band_source`); None: not said."""
    other_bands: tuple[tuple[str, str], ...] = ()
    """The catalog's other bands for the same instance type and region, (band, its source and date)
    each, where its sources disagree: ``band`` is the worst of them (:func:`offer_band`)."""

    def shown(self) -> str:
        """``source`` in the user's language (a catalog band as :func:`rates_shown` words it)."""
        if self.band is not None:
            return _("; ").join(rates_shown([self]))
        if self.note is not None:
            return _(_ASSUMED_WITH_NOTE).format(note=_(self.note))
        return _(self.source)


#: Used where the catalog gives no interruption band for an offer. ASSUMPTION: one interruption
#: per 24 instance-hours, for every provider. Anchor: GCP documents that preemptible VMs are always
#: stopped after 24 h of running ("Preemptible VM instances", cloud.google.com/compute/docs/
#: instances/preemptible); GPU spot capacity is the most contended, so a day is taken as the mean
#: time between interruptions wherever nothing is published. Conservative, not measured.
_DEFAULT_PER_HOUR = 1.0 / 24.0
DEFAULT_SPOT_RATE = SpotRate(
    per_hour=_DEFAULT_PER_HOUR,
    source=N_(
        "assumed: 1 interruption per 24 instance-hours (no published rate; "
        "GCP stops preemptible VMs after 24 h)"
    ),
    assumed=True,
)

#: The stated default of a provider: the same assumed rate, with what the provider does publish
#: (its module's ``SpotFacts.rate_note``). Both parts are messages, translated where shown
#: (:meth:`SpotRate.shown`).
_ASSUMED_WITH_NOTE = N_("assumed: 1 interruption per 24 instance-hours ({note})")


def spot_default(provider: str) -> SpotRate:
    """The assumed rate for a ``provider`` offer without an interruption band, stating what that
    provider publishes (from the catalog's provider registry); :data:`DEFAULT_SPOT_RATE` for a
    provider the registry does not know."""
    note = providers.spot_rate_note(provider)
    if note is None:
        return DEFAULT_SPOT_RATE
    return SpotRate(
        per_hour=_DEFAULT_PER_HOUR, source=_ASSUMED_WITH_NOTE.format(note=note), assumed=True, note=note
    )


_BAND_SOURCE = (
    "interruption band {band!r} per month from the catalog ({source}), costed at {share} a month: the band's "
    "upper bound as AWS's Spot Instance Advisor feed publishes it"
)

#: Said of a band whose source the caller does not give.
_SOURCE_NOT_SAID = N_("its offer's interruption_band_source")


_WORSE_SOURCE = "{source}; the worst of the catalog's bands for this instance type and region: {others}"
_WORSE_SHOWN = N_(
    "where the catalog's sources disagree on an instance type's band in a region, the worse is costed: "
    "{source} over {other} ({pairs})"
)
#: Two sources each worse for some instance types and regions: one sentence, each named once, so that
#: two sentences of the same shape in opposite directions do not read as contradicting each other.
_WORSE_BOTH_WAYS = N_(
    "where the catalog's sources disagree on an instance type's band in a region, the worse is costed, "
    "each instance type and region on its own: {source} over {other} for some ({pairs}), and the other "
    "way round for others ({other_pairs})"
)
#: One band costed over another source's for the same instance type and region.
_OVER = N_("{band} for {other}")


def offer_rate(
    band: str | None,
    term: Mapping[str, Any] | None,
    price_source: str | None,
    as_of: str | None,
    provider: str,
) -> SpotRate:
    """The spot rate of one catalog price: its worst band (:func:`offer_band`), else its provider's
    stated default."""
    chosen, source = offer_band(band, term, price_source, as_of)
    return (band_rate_per_hour(chosen, source) if chosen else None) or spot_default(provider)


def launch_rate(rows: Iterable[OfferPrice], provider: str) -> SpotRate:
    """The spot rate a launch on ``rows`` is costed at: the catalog's spot prices of its instance
    type in its region (one a zone, where the catalog lists zones), each read as the planner reads an
    offer's (:func:`offer_rate`), the worst where they differ, as a launch does not choose its zone
    (unknown is never the best case); ``provider``'s stated default where the catalog has none. The
    one lookup ``plan`` prices a spot offer at and ``deploy --spot`` checkpoints for."""
    rates = [offer_rate(r.interruption_band, r.term, r.source, r.as_of, r.provider) for r in rows]
    return max(rates, key=lambda r: r.per_hour) if rates else spot_default(provider)


def band_rate_per_hour(band: str, source: str | None = None) -> SpotRate | None:
    """Per-instance-hour rate for a monthly interruption band, or None if the band is unreadable.

    The band is the share of instances interrupted over a month (AWS: "the rate at which Spot has
    reclaimed capacity during the trailing month"). We take the band's upper bound p (conservative),
    as the advisor feed publishes it (:data:`PUBLISHED_BAND_MAX`; else the label's largest figure),
    and convert with a Poisson process: P(no interruption in 730 h) = 1 − p, so
    λ = −ln(1 − p) / 730. e.g. "5-10%": p = 0.11, λ = 0.11653 / 730 = 1.5963e-4 per hour.
    An open band ">X%" has no upper bound: it is costed as an unknown rate is (one interruption per
    24 instance-hours, :data:`DEFAULT_SPOT_RATE`), with X % a month as its best case — a bound read
    into it (it once was 2·X) would make the riskiest band look 60× safer than no band at all.
    """
    own, others = read_bands(source or "")
    if others:
        rate = band_rate_per_hour(band, own)
        if rate is None:
            return None
        words = ", ".join(f"{b!r} from {src}" for b, src in others)
        return replace(
            rate,
            source=rate.source.replace(f"({own})", f"({_WORSE_SOURCE.format(source=own, others=words)})", 1),
            other_bands=others,
        )
    share = band_share(band)
    if share is None:
        return None
    open_ended, p = share
    if open_ended:
        low = p
        return SpotRate(
            per_hour=_DEFAULT_PER_HOUR,
            source=f"interruption band {band!r} per month from the catalog "
            f"({source or _SOURCE_NOT_SAID}): an open band, no upper bound; costed as an unknown rate "
            f"(1 interruption per 24 instance-hours), best case {low:.0%} a month",
            assumed=True,
            band=band,
            open_share=low,
            best_per_hour=-math.log1p(-low) / HOURS_PER_MONTH,
            band_source=source or None,
        )
    return SpotRate(
        per_hour=-math.log1p(-p) / HOURS_PER_MONTH,
        source=_BAND_SOURCE.format(band=band, source=source or _SOURCE_NOT_SAID, share=f"{p:.0%}"),
        assumed=False,
        band=band,
        band_source=source or None,
    )


_BANDS_SHOWN = N_(
    "interruption bands {bands} per month from the catalog ({source}), each closed band costed at its upper "
    "bound as AWS's Spot Instance Advisor feed publishes it ({bounds})"
)
#: Bands of one source none of which is closed (">20%" only): no bound to state.
_OPEN_BANDS_SHOWN = N_("interruption bands {bands} per month from the catalog ({source})")
_OPEN_BAND_SHOWN = N_(
    "open band {band}: no upper bound, costed as an unknown rate (1 interruption per 24 instance-hours), "
    "best case {share} a month"
)


def rates_shown(rates: Iterable[SpotRate]) -> list[str]:
    """Where ``rates`` come from, in the user's language: the catalog's bands named together in one
    clause (a plan may use several), then each other source once."""
    rates = list(rates)
    banded = sorted({r.band for r in rates if r.band is not None})
    out = []
    if banded:
        # the bands of each source together, each source named with its date
        by_source: dict[str, set[str]] = {}
        for r in rates:
            if r.band is not None:
                by_source.setdefault(r.band_source or _(_SOURCE_NOT_SAID), set()).add(r.band)
        for source, bands in sorted(by_source.items()):
            bounds = [f"{b!r}: {PUBLISHED_BAND_MAX[b]:g}%" for b in sorted(bands) if b in PUBLISHED_BAND_MAX]
            listed = item_list(repr(b) for b in sorted(bands))
            out.append(
                _(_BANDS_SHOWN).format(bands=listed, source=source, bounds=_(", ").join(bounds))
                if bounds
                else _(_OPEN_BANDS_SHOWN).format(bands=listed, source=source)
            )
        # where sources disagree: each pair of sources once, with the bands costed over the others
        worse: dict[tuple[str, str], set[str]] = {}
        for r in rates:
            for b, src in r.other_bands if r.band is not None else ():
                key = (r.band_source or _(_SOURCE_NOT_SAID), src)
                worse.setdefault(key, set()).add(_(_OVER).format(band=repr(r.band), other=repr(b)))
        said: set[tuple[str, str]] = set()
        for (source, other), pairs in sorted(worse.items()):
            if (source, other) in said:
                continue
            back = worse.get((other, source))
            said |= {(source, other), (other, source)}
            out.append(
                _(_WORSE_SHOWN).format(source=source, other=other, pairs=item_list(sorted(pairs)))
                if back is None
                else _(_WORSE_BOTH_WAYS).format(
                    source=source,
                    other=other,
                    pairs=item_list(sorted(pairs)),
                    other_pairs=item_list(sorted(back)),
                )
            )
        opened = {r.band: r.open_share for r in rates if r.band is not None and r.open_share is not None}
        out += [_(_OPEN_BAND_SHOWN).format(band=repr(b), share=f"{p:.0%}") for b, p in sorted(opened.items())]
    return out + sorted({r.shown() for r in rates if r.band is None})


def spot_rates(
    bands: StrArray, providers: StrArray, sources: StrArray | None = None
) -> tuple[FloatArray, IntArray, list[SpotRate]]:
    """Per-instance-hour rate of each row: from its band, else its provider's stated default;
    ``sources``: where each row's band comes from (:func:`band_source`).

    Returns the rates, each row's index into the list of distinct :class:`SpotRate` (for the
    output's "where rates come from"), and that list.
    """
    where = sources.astype(str) if sources is not None else np.full(bands.shape, "", dtype=str)
    key = np.char.add(np.char.add(bands.astype(str), "\x1f"), providers.astype(str))
    key = np.char.add(np.char.add(key, "\x1f"), where)
    uniq, inverse = np.unique(key, return_inverse=True)
    rates = []
    for k in uniq:
        band, provider, source = str(k).split("\x1f")
        rates.append(band_rate_per_hour(band, source) or spot_default(provider))
    inverse = inverse.reshape(-1).astype(np.int64)
    per_hour: FloatArray = np.array([r.per_hour for r in rates], dtype=float)[inverse]
    return per_hour, inverse, rates


@dataclass(frozen=True, kw_only=True)
class SpotTimes:
    """Vectorised outcome of the spot model (one element per candidate)."""

    expected_h: FloatArray
    """Expected wall time T including checkpoints, lost work and restarts, h."""
    interval_h: FloatArray
    """Checkpoint interval τ, h (nan when no checkpoint is written)."""
    checkpoint_overhead_h: FloatArray
    """Time spent writing checkpoints, W·C/τ, h."""
    lost_h: FloatArray
    """Expected work lost and restart time over the job, N·δ, h."""
    interruptions: FloatArray
    """Expected number of interruptions N = λ·T."""
    stable: BoolArray
    """False where λ·δ ≥ 1 (no expected completion)."""


def young_daly_h(write_h: float, mtbi_h: FloatArray | float) -> FloatArray:
    """Young's interval between checkpoints, hours: sqrt(2·C·M) for a write of ``write_h`` hours and
    a mean time between interruptions of the whole job ``mtbi_h`` (the module's model)."""
    return np.sqrt(2.0 * write_h * np.asarray(mtbi_h, dtype=float))


def spot_checkpoint_interval_h(
    write_h: float, mtbi_h: FloatArray | float, job_h: FloatArray | float, stated_h: float | None = None
) -> FloatArray:
    """The interval a job on spot checkpoints at, hours: Young/Daly's (:func:`young_daly_h`), the
    workload's ``checkpoint.every_min`` (``stated_h``) where that is shorter, capped at the job's
    length ``job_h`` (its work and set-up, as the instances are billed): a job shorter than its
    interval writes once, at its end. The one rule ``plan`` prices a spot option at and ``gpuplan
    deploy --spot`` writes into train.py."""
    optimum = young_daly_h(write_h, mtbi_h)
    if stated_h is not None:
        optimum = np.minimum(optimum, stated_h)
    out: FloatArray = np.minimum(optimum, job_h)
    return out


def checkpoint_writes_h(work_h: FloatArray, write_h: float, interval_h: FloatArray | float) -> FloatArray:
    """Time spent writing a checkpoint of ``write_h`` every ``interval_h`` over ``work_h`` hours of
    work: W·C/τ, with τ capped at W (a job shorter than its interval still writes once, at its end,
    as train.py does). The one formula for spot (τ from Young/Daly) and for the other pricings (τ the
    launch's interval: train.py writes synchronously, so the job stops for each write whatever it is
    billed by). e.g. W = 57.6 h, C = 2.2 min, τ = 30 min: 57.6 × 2.2 / 30 = 4.22 h."""
    with np.errstate(divide="ignore", invalid="ignore"):
        tau = np.minimum(interval_h, work_h)
        out: FloatArray = np.where((tau > 0) & (write_h > 0), work_h * write_h / tau, 0.0)
    return out


#: Why a job off spot checkpoints at its interval, in a plan's and tco's words.
_INTERVAL_STATED = N_("the workload's checkpoint.every_min")
_INTERVAL_DEFAULT = N_("as the train.py of `gpuplan deploy` writes them, each write stopping every GPU")
_INTERVAL_LENGTHENED = N_(
    "not the default {default} min: a write takes {write} min, and off spot gpuplan keeps the writes to at "
    "most {share} of the job; `checkpoint: {{every_min: N}}` in the workload sets another; the train.py "
    "of `gpuplan deploy` writes at this interval, each write stopping every GPU"
)
#: The writes at the workload's own interval take more than CHECKPOINT_WRITE_SHARE_FLAGGED of the job.
_HEAVY_WRITES = N_(
    "the checkpoint writes take {share} of the job's time ({time}, {amount}) at the workload's "
    "checkpoint.every_min of {interval} min; without it gpuplan would write every {rule} min (the writes "
    "at most {most} of the job)"
)


def checkpoint_interval_basis(stated: bool, interval_min: float, write_min: float) -> str:
    """Why a job off spot checkpoints every ``interval_min`` (one write ``write_min``), in the user's
    language: the workload's ``checkpoint.every_min``, the default as train.py writes it, or the
    default lengthened for a checkpoint slow to write
    (:func:`gpuplan.units.default_checkpoint_interval_min`)."""
    if stated:
        return _(_INTERVAL_STATED)
    if interval_min > DEFAULT_CHECKPOINT_INTERVAL_MIN * (1 + 1e-9):
        return _(_INTERVAL_LENGTHENED).format(
            default=f"{DEFAULT_CHECKPOINT_INTERVAL_MIN:.0f}",
            write=f"{write_min:.1f}",
            share=f"{CHECKPOINT_WRITE_SHARE:.0%}",
        )
    return _(_INTERVAL_DEFAULT)


def heavy_checkpoint_words(
    interval_min: float, write_min: float, writes_h: float, job_h: float, time: str, amount: str
) -> str | None:
    """A sentence where the writes at the workload's own ``interval_min`` take more than
    :data:`gpuplan.units.CHECKPOINT_WRITE_SHARE_FLAGGED` of the job's ``job_h`` (``writes_h`` of it;
    ``time`` and ``amount``: those hours and what they cost, as the caller writes them), with the
    interval gpuplan's own rule would take; None below that share."""
    if not (job_h > 0 and writes_h / job_h > CHECKPOINT_WRITE_SHARE_FLAGGED):
        return None
    return _(_HEAVY_WRITES).format(
        share=f"{writes_h / job_h:.0%}",
        time=time,
        amount=amount,
        interval=f"{interval_min:.0f}",
        rule=f"{default_checkpoint_interval_min(write_min):.0f}",
        most=f"{CHECKPOINT_WRITE_SHARE:.0%}",
    )


#: On spot, the workload's interval is taken where it is shorter than Young/Daly's; this many times
#: shorter is "far" from it: at τ*/2 the first-order waste (writes plus lost work) is already 25 %
#: above Young/Daly's optimum, ((k + 1/k)/2 at k = 2), and it grows with k.
STATED_INTERVAL_FAR = 2.0

#: On spot, the writes at the workload's own interval take more than CHECKPOINT_WRITE_SHARE_FLAGGED of
#: the job, or it is far shorter than Young/Daly's.
_HEAVY_SPOT_WRITES = N_(
    "on spot, the checkpoint writes take {share} of the job's time ({time}, {amount}) at the workload's "
    "checkpoint.every_min of {interval} min; without it gpuplan would write every {optimum} min "
    "(Young/Daly's interval from the reclaim rate; the writes {writes} there)"
)
#: The same where Young/Daly's interval is longer than the job: one write, at its end.
_HEAVY_SPOT_WRITES_ONCE = N_(
    "on spot, the checkpoint writes take {share} of the job's time ({time}, {amount}) at the workload's "
    "checkpoint.every_min of {interval} min; without it gpuplan would write once, at the end "
    "(Young/Daly's interval from the reclaim rate, {optimum} min, is longer than the job; the writes "
    "{writes} there)"
)


def heavy_spot_checkpoint_words(
    interval_min: float, optimum_min: float, write_min: float, writes_h: float, job_h: float, amount: str
) -> str | None:
    """On spot, a sentence where the workload's own ``interval_min`` (shorter than Young/Daly's
    ``optimum_min``, so taken) makes its writes (``writes_h`` of the job's ``job_h``; ``amount``: what
    they cost, as the caller writes it) more than :data:`gpuplan.units.CHECKPOINT_WRITE_SHARE_FLAGGED`
    of the job, or is :data:`STATED_INTERVAL_FAR` times shorter than Young/Daly's: the interval
    gpuplan would take without it, and the writes there (over the same work, W·C/τ with τ capped at
    the work as :func:`checkpoint_writes_h` caps it). None otherwise."""
    if not (job_h > 0 and interval_min > 0 and write_min > 0 and writes_h > 0):
        return None
    work_min = writes_h * 60.0 / write_min * interval_min  # the writes are work / interval
    capped = min(optimum_min, work_min)
    if writes_h / job_h <= CHECKPOINT_WRITE_SHARE_FLAGGED and capped < interval_min * STATED_INTERVAL_FAR:
        return None
    words = _HEAVY_SPOT_WRITES if optimum_min < work_min else _HEAVY_SPOT_WRITES_ONCE
    return _(words).format(
        share=f"{writes_h / job_h:.0%}",
        time=format_hours(writes_h),
        amount=amount,
        interval=f"{interval_min:.0f}",
        optimum=f"{optimum_min:.0f}",
        writes=format_hours(writes_h * interval_min / capped),
    )


def spot_times(
    work_h: FloatArray,
    rate_per_hour: FloatArray,
    checkpoint_write_h: float,
    restart_h: float | FloatArray,
    *,
    from_scratch: bool = False,
    resume_every_h: FloatArray | None = None,
    max_interval_h: float | None = None,
) -> SpotTimes:
    """Apply the module's model to arrays of failure-free times ``work_h`` and job rates λ.

    Worked example (pinned in tests): W = 10 h, λ = 1/24 per h, C = 0.05 h, R = 0.2 h:
    τ = sqrt(2 × 0.05 × 24) = 1.5492 h; W' = 10 × (1 + 0.05/1.5492) = 10.3227 h;
    δ = 0.7746 + 0.2 = 0.9746 h; T = 10.3227 / (1 − 0.9746/24) = 10.7596 h; N = T/24 = 0.4483.

    Without checkpoints (``checkpoint_write_h`` 0) an interruption costs the restart R only when the
    work resumes where it stopped (a caller's ``from_scratch`` False). With ``from_scratch`` it
    starts over: see :func:`restart_from_scratch`. ``resume_every_h``: work kept whole every so many
    hours at no cost of its own (batch inference's output chunks): an interruption loses half an
    interval of it plus R, as with checkpoints, and nothing stretches the work; where an interval
    is not finite (not known), the work restarts from scratch if ``from_scratch`` says so.
    ``max_interval_h``: an interval the job is told to checkpoint at (the workload's
    ``checkpoint.every_min``), which replaces Young/Daly's where it is shorter. ``restart_h``: one
    figure, or one per element (a restart that also copies the dataset again, its time per option).
    """
    if checkpoint_write_h <= 0 and resume_every_h is not None:
        return _resumed(work_h, rate_per_hour, restart_h, resume_every_h, from_scratch=from_scratch)
    if checkpoint_write_h <= 0 and from_scratch:
        return restart_from_scratch(work_h, rate_per_hour, restart_h)
    with np.errstate(divide="ignore", invalid="ignore"):
        mtbi = 1.0 / rate_per_hour
        if checkpoint_write_h > 0:
            tau = spot_checkpoint_interval_h(checkpoint_write_h, mtbi, work_h, max_interval_h)
            ckpt_h = checkpoint_writes_h(work_h, checkpoint_write_h, tau)
            lost_per = tau / 2.0 + restart_h
        else:
            # Work that resumes where it stopped without a checkpoint: the restart only.
            tau = np.full_like(work_h, math.nan)
            ckpt_h = np.zeros_like(work_h)
            lost_per = np.zeros_like(work_h) + restart_h
        stretched = work_h + ckpt_h
        load = rate_per_hour * lost_per
        stable = load < 1.0
        expected = np.where(stable, stretched / (1.0 - load), math.inf)
    return SpotTimes(
        expected_h=expected,
        interval_h=tau,
        checkpoint_overhead_h=ckpt_h,
        lost_h=expected - stretched,
        interruptions=rate_per_hour * expected,
        stable=stable,
    )


def _resumed(
    work_h: FloatArray,
    rate_per_hour: FloatArray,
    restart_h: float | FloatArray,
    every_h: FloatArray,
    *,
    from_scratch: bool,
) -> SpotTimes:
    """:func:`spot_times` of work kept whole every ``every_h`` hours at no cost of its own."""
    known = np.isfinite(every_h)
    with np.errstate(divide="ignore", invalid="ignore"):
        tau = np.minimum(np.where(known, every_h, work_h), work_h)
        load = rate_per_hour * (tau / 2.0 + restart_h)
        stable = load < 1.0
        expected = np.where(stable, work_h / (1.0 - load), math.inf)
    out = SpotTimes(
        expected_h=expected,
        interval_h=tau,
        checkpoint_overhead_h=np.zeros_like(work_h),
        lost_h=expected - work_h,
        interruptions=rate_per_hour * expected,
        stable=stable,
    )
    if not from_scratch or known.all():
        return out
    scratch = restart_from_scratch(work_h, rate_per_hour, restart_h)
    fields = ("expected_h", "interval_h", "checkpoint_overhead_h", "lost_h", "interruptions", "stable")
    return SpotTimes(**{f: np.where(known, getattr(out, f), getattr(scratch, f)) for f in fields})


def restart_from_scratch(
    work_h: FloatArray, rate_per_hour: FloatArray, restart_h: float | FloatArray
) -> SpotTimes:
    """The spot model of a job without checkpoints: an interruption restarts it from the beginning.

    Interruptions arrive as a Poisson process of rate r while the job runs; an attempt succeeds if
    none comes within the W hours of work, and each interruption adds the restart R (no interruption
    during it). This is the standard completion time of a task restarted from scratch under Poisson
    failures (the RESTART model: Kulkarni, Nicola & Trivedi 1987, "The completion time of a job on
    multimode systems", Adv. Appl. Prob. 19(4); Asmussen et al. 2008, "Asymptotic behavior of total
    times for jobs that must start over if a failure occurs", Math. Oper. Res. 33(4)):

    - an attempt succeeds with p = e^(−rW), so the interruptions N are geometric:
      E[N] = (1 − p)/p = e^(rW) − 1;
    - a failed attempt runs X < W, E[X | X < W] = 1/r − W·p/(1 − p);
    - E[T] = W + E[N]·(E[X | X < W] + R) = (e^(rW) − 1)·(1/r + R).

    So E[T] = E[N]·(1/r + R): on average each interruption follows 1/r hours of running and costs R,
    i.e. N = r × (the expected running time E[T] − N·R). The expected time is always finite; it is
    ``stable`` while it is representable. Worked example (pinned in tests): W = 11.5 h, r = 1/24,
    R = 1/6 h: rW = 0.479167, N = 0.614728, T = 0.614728 × 24.1667 = 14.8559 h, lost 3.3559 h.
    """
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        n = np.expm1(rate_per_hour * work_h)
        running = np.where(rate_per_hour > 0, n / rate_per_hour, work_h)
        expected = running + n * restart_h
        stable = np.isfinite(expected)
    return SpotTimes(
        expected_h=expected,
        interval_h=np.full_like(work_h, math.nan),
        checkpoint_overhead_h=np.zeros_like(work_h),
        lost_h=expected - work_h,
        interruptions=n,
        stable=stable,
    )


@dataclass(frozen=True, kw_only=True)
class ServiceSpot:
    """Vectorised outcome of the service model (one element per spot candidate of a service)."""

    interruptions: FloatArray
    """Expected reclaims of the service's instances over its calendar time."""
    down_h: FloatArray
    """Hours the replicas of one reclaimed instance are down: a replacement and the model reloaded."""
    replicas_per_unit: IntArray
    """Replicas one reclaim takes (those on the instance; 1 when a replica spans instances)."""
    replica_hours_down: FloatArray
    """Replica-hours down over the calendar time."""
    below_target_share: FloatArray
    """Share of the time with fewer replicas up than the option has (the load target)."""
    spare_instances: IntArray
    """Instances of the spare: the fewest that hold one whole replica."""
    below_target_share_with_spare: FloatArray
    """The same with the spare running: two units down at once."""
    spare_interruptions: FloatArray
    """Expected reclaims of the spare (a spot unit too) over the calendar time: each one a
    replacement started, no replica down (counted apart from :attr:`interruptions`)."""
    unit_down_share: FloatArray
    """Share of the time one unit is down (q): what the shares below target are figured from, at
    the peak fleet here and over an autoscaled day's sizes by :func:`below_target_over_day`."""


def below_target_over_day(q: float, span: int, instance_hours: Sequence[float]) -> tuple[float, float]:
    """The shares of the time below the load target, without and with the spare unit, of a service
    whose fleet follows its day (:func:`service_spot` figures them at its peak fleet): each size of
    the fleet weighted by the hours it runs at that size, over the hours it runs at all.
    ``instance_hours``: the hours each instance of the day is billed, busiest first
    (:attr:`gpuplan.plan.service_day.ServiceDay.hours`), so that the fleet runs n or more instances
    ``instance_hours[n - 1]`` hours; ``span``: the instances of one unit (n instances hold
    ``max(1, n // span)`` units); ``q``: the share of the time one unit is down
    (:attr:`ServiceSpot.unit_down_share`). At n units the load the hour asks for is carried by
    those n: below it while any is down, 1 − (1 − q)^n, and with the spare while two or more of
    n + 1 are. e.g. a day of 730, 394 and 122 h on one-instance units, q = 0.001: 1 unit 336 h, 2
    units 272 h, 3 units 122 h: (336 × 0.001 + 272 × 0.001999 + 122 × 0.002997) / 730 = 0.001706,
    where its peak of 3 units all month had said 0.002997."""
    hours = np.sort(np.asarray(instance_hours, dtype=np.float64))[::-1]
    if hours.size == 0 or not hours[0] > 0:
        return 0.0, 0.0
    at_size = hours - np.append(hours[1:], 0.0)  # hours at exactly n instances, n = 1, 2, …
    units = np.maximum(1, np.arange(1, hours.size + 1) // max(1, span)).astype(np.int64)
    qs = np.full(units.size, float(q))
    below = -np.expm1(units * np.log1p(-qs))
    with_spare = _two_or_more_down(qs, units + 1)
    return float(at_size @ below / hours[0]), float(at_size @ with_spare / hours[0])


def service_unit(
    gpus_per_node: IntArray, replica_gpus: int | IntArray, replicas_per_gpu: int = 1
) -> tuple[IntArray, IntArray]:
    """A service's unit on instances of ``gpus_per_node`` GPUs (:func:`service_spot`): the instances
    it spans (m) and the replicas it holds (k; ``replicas_per_gpu`` time-sharing each GPU of a
    one-GPU replica: a reclaim takes all of them down)."""
    per_node = np.maximum(gpus_per_node, 1).astype(np.int64)
    span = np.maximum(1, -(-replica_gpus // per_node)).astype(np.int64)
    k = np.where(
        span > 1, 1, np.maximum(1, per_node // np.maximum(1, replica_gpus)) * max(1, replicas_per_gpu)
    ).astype(np.int64)
    return span, k


def service_down_h(
    gpus_per_node: IntArray,
    replica_gpus: int | IntArray,
    restart_h: float,
    weights_load_h: float,
    replicas_per_gpu: int = 1,
) -> FloatArray:
    """How long a reclaim takes a service's unit down, h: D = ``restart_h`` + k × ``weights_load_h``
    (a replacement instance booted and its engine started, ``JobFacts.service_restart_h``, and the
    weights of its k replicas read from one volume: the start-up of
    :attr:`gpuplan.plan.input_types.JobFacts.replica_start_up`; :func:`service_spot`)."""
    _span, k = service_unit(gpus_per_node, replica_gpus, replicas_per_gpu)
    down: FloatArray = (restart_h + k * weights_load_h).astype(np.float64)
    return down


def service_spot(
    rate_per_instance_hour: FloatArray,
    nodes: IntArray,
    gpus_per_node: IntArray,
    replica_gpus: int | IntArray,
    hours: float,
    restart_h: float,
    weights_load_h: float,
    replicas_per_gpu: int = 1,
) -> ServiceSpot:
    """Availability of a service on spot instances, for ``hours`` of calendar time.

    A *unit* is the fewest whole instances holding whole replicas: one instance with
    k = GPUs per instance // ``replica_gpus`` replicas, or m = ceil(``replica_gpus`` / GPUs per
    instance) instances holding one replica (k = 1). A reclaim of any of its instances takes the
    unit's replicas down for D = ``restart_h`` + k × ``weights_load_h`` (a replacement, then its
    replicas' weights read from one volume). Each unit alternates up (mean 1/λᵤ, λᵤ = m·λ₁) and
    down (D): it is down a share q = λᵤD / (1 + λᵤD) of the time and is reclaimed
    hours / (1/λᵤ + D) times. Reclaims are taken as independent between units (a capacity crunch
    that takes several at once is beyond this model). With U units:

    - below the target (any unit down): 1 − (1 − q)^U;
    - with one spare unit running (U + 1 units, the target needs U): P(two or more down) =
      1 − (1 − q)^(U+1) − (U+1)·q·(1 − q)^U.

    Worked example (pinned in tests): λ₁ = 0.01 /h, 2 instances of 8 GPUs, replicas of 4 GPUs,
    730 h, R = 10 min, weights 16 GB at 0.5 GB/s (32 s each): k = 2, D = 1/6 + 2 × 32/3600 =
    0.184444 h, λᵤD = 0.00184444, q = 0.00184105; reclaims 2 × 730 / (100 + 0.184444) = 14.57312;
    replica-hours down 14.57312 × 2 × 0.184444 = 5.37586; below target 1 − (1 − q)² = 0.00367871;
    with a spare 1 − (1 − q)³ − 3q(1 − q)² = 3q²(1 − q) + q³ = 1.015585e-5; the spare itself is
    reclaimed 730 / (100 + 0.184444) = 7.28656 times.
    """
    span, k = service_unit(gpus_per_node, replica_gpus, replicas_per_gpu)
    units = np.maximum(1, nodes // span)
    down = service_down_h(gpus_per_node, replica_gpus, restart_h, weights_load_h, replicas_per_gpu)
    lam_u = rate_per_instance_hour * span
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.where(lam_u > 0, lam_u * down / (1.0 + lam_u * down), 0.0)
        per_unit = np.where(lam_u > 0, hours / (1.0 / lam_u + down), 0.0)
    reclaims = units * per_unit
    return ServiceSpot(
        interruptions=reclaims,
        down_h=down,
        replicas_per_unit=k,
        replica_hours_down=reclaims * k * down,
        below_target_share=-np.expm1(units * np.log1p(-q)),
        spare_instances=span,
        below_target_share_with_spare=_two_or_more_down(q, units + 1),
        spare_interruptions=per_unit,
        unit_down_share=q,
    )


def _two_or_more_down(q: FloatArray, n: IntArray) -> FloatArray:
    """P(at least 2 of ``n`` independent units are down), each down with probability ``q``: the sum
    of the binomial terms from 2 up (1 − P(0) − P(1) loses every digit when q is small)."""
    out = np.zeros_like(q)
    log_up = np.log1p(-q)
    with np.errstate(divide="ignore"):
        log_q = np.log(q)
    for j in range(2, int(n.max(initial=0)) + 1):
        comb = np.array([math.comb(int(m), j) if m >= j else 0 for m in n], dtype=float)
        term = comb * np.exp(j * log_q + np.maximum(n - j, 0) * log_up)
        out += np.where(n >= j, term, 0.0)
    result: FloatArray = np.clip(out, 0.0, 1.0)
    return result


def deadline_miss_probability(
    stretched_h: float, lost_per_interruption_h: float, rate_per_hour: float, deadline_h: float
) -> float:
    """P(the job misses ``deadline_h``) under Poisson interruptions.

    The job (W' = ``stretched_h`` with checkpoints) finishes by D if it is interrupted at most
    n = floor((D − W') / δ) times. It misses iff at least n+1 interruptions arrive before it ends,
    and those all arrive before D; so P(miss) ≤ P(Poisson(λ·D) ≥ n + 1), which we report (a slight
    over-estimate: interruptions arriving after an early finish are counted too).
    e.g. W' = 10, δ = 1, λ = 1/24, D = 12: n = 2, μ = 0.5,
    P = 1 − e^-0.5 (1 + 0.5 + 0.125) = 1 − 0.98561 = 0.01439.
    """
    if stretched_h > deadline_h:
        return 1.0
    if rate_per_hour <= 0:
        return 0.0
    if lost_per_interruption_h <= 0:
        return 0.0
    n = math.floor((deadline_h - stretched_h) / lost_per_interruption_h + 1e-12)
    mu = rate_per_hour * deadline_h
    if n > mu + 12.0 * math.sqrt(mu) + 50.0:
        return 0.0  # beyond 12 standard deviations: below any double's resolution of 1
    # P(N ≤ n) summed in log space (stable for large μ).
    log_mu = math.log(mu)
    cdf = 0.0
    for k in range(n + 1):
        cdf += math.exp(-mu + k * log_mu - math.lgamma(k + 1))
    return float(min(max(1.0 - cdf, 0.0), 1.0))


#: Above this largest term the alternating series of :func:`restart_miss_probability` loses digits.
_SERIES_TERM_LIMIT = 1e6
#: The simulation used where the series would lose digits: its size and fixed seed.
_SIMULATED_JOBS = 200_000
_SIMULATION_SEED = 20_240_601


#: A miss probability below this is given as its upper bound (:func:`restart_miss_probability`).
_NEGLIGIBLE_MISS = 1e-6


def restart_miss_probability(
    work_h: float, rate_per_hour: float, restart_h: float, deadline_h: float
) -> float:
    """P(a job restarted from scratch misses ``deadline_h``), the model of :func:`restart_from_scratch`.

    It is exact where it can be. The job finishes by D iff its attempts before the successful one
    (n of them, the failed attempts running X₁…Xₙ < W each) leave the last its W hours:
    X₁ + … + Xₙ + n·R + W ≤ D. The failed attempts have the sub-density r·e^(−rx) on [0, W) each,
    the successful one probability e^(−rW), so by inclusion–exclusion over the attempts that would
    have run past W (memorylessness shifts each by W):

        P(T ≤ D) = e^(−rW) Σₙ Σₖ (−1)^k C(n, k) e^(−rkW) Gₙ(D − W − nR − kW),

    with Gₙ the Gamma(n, r) distribution function (G₀ a step at 0), n up to (D − W)/R and k up to
    (D − W − nR)/W. With D < 2W only k = 0 remains and every term is positive. Where the alternating
    terms grow past :data:`_SERIES_TERM_LIMIT` (a deadline many times the work) the sum would lose
    digits: it is then simulated, 200 000 jobs with a fixed seed (so a plan is reproducible).

    e.g. W = 10, r = 1/24, R = 1, D = 12: n ≤ 2: e^(−10/24) × (1 + G₁(1) + G₂(0)) = 0.659241 ×
    (1 + 0.040811) = 0.686145, P(miss) = 0.313855.
    """
    if work_h > deadline_h:
        return 1.0
    if rate_per_hour <= 0:
        return 0.0
    r, w, d = rate_per_hour, work_h, deadline_h
    slack = d - w
    # An upper bound first: a failed attempt costs at most W + R, so missing D takes more than
    # (D − W)/(W + R) failures, each with probability 1 − e^(−rW). Where that is already below
    # _NEGLIGIBLE_MISS the bound stands (a deadline many times the work: the sum below would take
    # seconds, and its answer rounds to 0 anyway; the bound is never the optimistic side).
    failures = math.floor(slack / (w + max(restart_h, 0.0)) + 1e-12) + 1 if w + restart_h > 0 else 0
    bound = (-math.expm1(-r * w)) ** failures if failures else 1.0
    if bound < _NEGLIGIBLE_MISS:
        return bound
    max_n = math.floor(slack / restart_h + 1e-12) if restart_h > 0 else math.inf
    terms: list[float] = []
    largest = 0.0
    n = 0
    while n <= max_n:
        left = slack - n * restart_h
        if n > 0 and _gamma_cdf(n, r, left) < 1e-18:
            break  # the rest is below any double's resolution of 1
        for k in range(0, min(n, math.floor(left / w + 1e-12)) + 1):
            term = (-1) ** k * math.comb(n, k) * math.exp(-r * (k + 1) * w) * _gamma_cdf(n, r, left - k * w)
            largest = max(largest, abs(term))
            terms.append(term)
        if largest > _SERIES_TERM_LIMIT:
            return _simulated_restart_miss(w, r, restart_h, d)
        n += 1
        if n > 100_000:
            return _simulated_restart_miss(w, r, restart_h, d)
    return float(min(max(1.0 - math.fsum(terms), 0.0), 1.0))


def _gamma_cdf(n: int, rate: float, x: float) -> float:
    """P(Gamma(n, rate) ≤ x): the sum of n exponentials; n = 0 is a step at 0."""
    if x < 0:
        return 0.0
    if n == 0:
        return 1.0
    mu = rate * x
    if mu == 0:
        return 0.0
    # the upper tail e^(−μ) Σ_{j<n} μ^j / j!, in log space
    log_mu = math.log(mu)
    tail = math.fsum(math.exp(-mu + j * log_mu - math.lgamma(j + 1)) for j in range(n))
    return min(max(1.0 - tail, 0.0), 1.0)


def _simulated_restart_miss(
    work_h: float, rate_per_hour: float, restart_h: float, deadline_h: float
) -> float:
    """:func:`restart_miss_probability` by simulation: 200 000 jobs, a fixed seed."""
    rng = np.random.default_rng(_SIMULATION_SEED)
    start = np.zeros(_SIMULATED_JOBS)  # when each job's current attempt starts
    done = np.zeros(_SIMULATED_JOBS, dtype=bool)
    latest = deadline_h - work_h  # an attempt starting later cannot finish by the deadline
    active = start <= latest
    while active.any():
        runs = rng.exponential(1.0 / rate_per_hour, size=int(active.sum()))
        ok = runs >= work_h
        idx = np.flatnonzero(active)
        done[idx[ok]] = True
        start[idx[~ok]] += runs[~ok] + restart_h
        active[idx[ok]] = False
        active[idx[~ok]] = start[idx[~ok]] <= latest
    return float(1.0 - done.mean())


def range_miss_probability(low_h: float, expected_h: float, high_h: float, deadline_h: float) -> float:
    """P(job time > deadline) for an option without interruptions, from the estimator's range.

    ASSUMPTION: the range is read as a triangular distribution (low, mode = expected, high), the
    simplest that honours all three numbers. For D between mode and high,
    P(T > D) = (high − D)² / ((high − low)(high − mode)); between low and mode,
    P(T > D) = 1 − (D − low)² / ((high − low)(mode − low)).
    e.g. low 8, expected 10, high 14, D = 12: (14 − 12)² / (6 × 4) = 4/24 = 0.1667.
    """
    if deadline_h >= high_h:
        return 0.0
    if deadline_h <= low_h:
        return 1.0
    span = high_h - low_h
    if deadline_h >= expected_h:
        return (high_h - deadline_h) ** 2 / (span * (high_h - expected_h))
    return 1.0 - (deadline_h - low_h) ** 2 / (span * (expected_h - low_h))
