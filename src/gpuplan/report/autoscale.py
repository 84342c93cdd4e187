"""Render ``simulate autoscale``: the JSON document, the terminal tables and the HTML report.

JSON (``schema_version`` 1; money in USD, times in seconds): ``trace``, ``replica`` (with its
serving ``engine``), ``prices``, ``settings`` (``slos``, the cold start) and ``policies``: per policy
the figures of the issue's contract (``cost_usd`` and ``cost_usd_by_pricing``, ``replica_hours``
by pricing model — a committed model's for the whole span —, ``utilisation``,
``latency_p50_s``/``p95``/``p99`` end to end, ``slo_miss_pct``, ``dropped``, ``max_replicas``,
``interruptions``) and ``latency`` (``queue``, ``ttft``, ``tpot``, ``e2e``: p50/p90/p95/p99/mean),
``slos`` (each target: achieved, met, share over it, requests no capacity brings under it),
``losses`` (where requests were lost and why), ``behaviour`` (start replicas, cold start,
decision period, cooldown, scale-down window, committed replicas) and ``commitment_note`` (what a
committed cost averages to).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict
from functools import partial
from html import escape
from typing import TYPE_CHECKING, Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

from gpuplan.documents.simulate import AutoscaleDocument
from gpuplan.i18n import N_, Money, _, format_number, format_percent, ngettext
from gpuplan.i18n.phrases import item_list, listed
from gpuplan.perf.replica_load import replica_load_words
from gpuplan.perf.request_tail import LengthDistribution, drawn_tail, tail_source
from gpuplan.report.autoscale_chart import autoscale_svg
from gpuplan.report.common import Widest, house_table
from gpuplan.report.offers_json import rate_fields
from gpuplan.report.simulate_common import (
    JSON_SCHEMA_VERSION,
    basis_doc,
    html_page,
    seconds,
    table_html,
    validated,
)
from gpuplan.simulate.autoscale import (
    LOSS_CAUSES,
    SATURATED_BATCH,
    SATURATED_PREFILL,
    AutoscaleResult,
    FleetPrices,
    PolicyResult,
)
from gpuplan.simulate.latency import METRICS
from gpuplan.simulate.trace import RETIMED_MARK, LengthCap, ShapeRate
from gpuplan.vocab import PRICING_RULES, pricing_name

if TYPE_CHECKING:
    from gpuplan.catalog.model import ExchangeRate
    from gpuplan.simulate.policy import Policy
    from gpuplan.simulate.pricing import PriceBasis

__all__ = ["autoscale_html", "autoscale_json", "autoscale_view", "trace_rate_lines"]


def _prices_doc(prices: FleetPrices) -> dict[str, Any]:
    return {
        "usd_per_hour": prices.usd_per_hour,
        "source": prices.source,
        "spot_interruptions_per_hour": prices.spot_rate_per_hour,
        "spot_rate_source": prices.spot_rate_source,
        "replicas_per_instance": {k: prices.per_instance(k) for k in prices.usd_per_hour},
        "gpus_per_replica": prices.gpus_per_replica,
        "replicas_per_gpu": prices.replicas_per_gpu,
        "basis": {k: basis_doc(b) for k, b in prices.basis.items()},
    }


def _policy_doc(p: PolicyResult, res: AutoscaleResult, money: Money) -> dict[str, Any]:
    pol = p.policy
    return {
        "prices": _prices_doc(p.prices) if p.prices is not None else None,
        "name": p.name,
        "cost_usd": p.cost_usd,
        "cost_usd_by_pricing": p.cost_usd_by_pricing,
        "replica_hours": p.replica_hours,
        "instance_hours": p.instance_hours,
        "utilisation": p.utilisation,
        "latency_p50_s": p.latency_p50_s,
        "latency_p95_s": p.latency_p95_s,
        "latency_p99_s": p.latency_p99_s,
        "slo_miss_pct": p.slo_miss_pct,
        "dropped": p.dropped,
        "max_replicas": p.max_replicas,
        "interruptions": p.interruptions,
        "served": p.served,
        "queued_at_end": p.queued_at_end,
        "waiting_at_end": p.waiting_at_end,
        "dropped_after_end": p.dropped_after_end,
        "killed": p.killed,
        "tokens_served": p.tokens_served,
        "usd_per_million_output_tokens": p.usd_per_million_output_tokens,
        "usd_per_million_tokens": p.usd_per_million_tokens,
        "per_million_tokens_note": _(p.per_million_tokens_note) if p.per_million_tokens_note else None,
        "usd_per_thousand_images": p.usd_per_thousand_images,
        "usd_per_thousand_requests": p.usd_per_thousand_requests,
        "spec": p.spec,
        "latency": {m: {**asdict(p.latency[m]), "note": _latency_note(res, m)} for m in METRICS},
        "slos": [
            {
                "name": o.slo.name,
                "threshold_s": o.slo.threshold_s,
                "achieved_s": o.achieved_s,
                "met": o.met,
                "over_pct": o.over_pct,
                "unreachable": o.unreachable,
                "unreachable_min_output_tokens": o.unreachable_min_output_tokens,
            }
            for o in p.slos
        ],
        "losses": {**p.losses.counts, "peak_bin_s": p.losses.peak_bin_s, "peak_lost": p.losses.peak_lost},
        "behaviour": {
            "start_replicas": p.start_replicas,
            "min_replicas": pol.min_replicas,
            "max_replicas": pol.max_replicas,
            "startup_s": p.startup_s,
            "period_s": pol.period_s,
            "up_cooldown_s": pol.up_cooldown_s,
            "down_window_s": pol.down_window_s,
            "saturated_s": p.saturated_s,
            "commit_replicas": pol.commit_replicas,
            "commit_pricing": pol.commit_pricing if pol.commit_replicas else None,
            "per_replica": pol.per_replica if pol.kind == "queue" else None,
            "schedule_lead_s": pol.schedule_lead_s() if pol.hours is not None else None,
            **_replica_load_fields(pol),
        },
        "commitment_note": _commitment_note([p]),
        "common_basis_cost_usd": p.cost_usd if p.prices is None else p.common_cost_usd,
        "known_current_cost_usd": p.current_cost_usd,
        "known_current_note": current_cost_note(p, res, money),
    }


def _replica_load_fields(pol: Policy) -> dict[str, Any]:
    """The load a queue policy's default target was worked out at and the capacities it was chosen
    from (:mod:`gpuplan.perf.replica_load`); nulls otherwise."""
    load = pol.replica_load
    return {
        "replica_load_requests_per_s": load.requests_per_s if load else None,
        "replica_load_basis": load.basis if load else None,
        "estimate_capacity_requests_per_s": load.estimate_capacity_requests_per_s if load else None,
        "simulation_capacity_requests_per_s": load.simulation_capacity_requests_per_s if load else None,
    }


def autoscale_json(
    res: AutoscaleResult, cny: ExchangeRate | None = None, display_currency: str = "USD"
) -> dict[str, Any]:
    """The ``simulate autoscale --json`` document, validated by :class:`AutoscaleDocument`;
    ``cny``: the catalog's CNY rate, stated in the document with the currency the money was shown
    in, so that a reader (the dashboard) shows it as the command did, not in dollars."""
    rep = res.replica
    engine = rep.engine
    # the notes word money as the command shows it (the fields stay in USD)
    money = (
        Money.from_rate("CNY", usd_per_unit=cny.usd_per_unit, as_of=cny.as_of, source=cny.source)
        if display_currency == "CNY" and cny is not None
        else Money.usd()
    )
    return validated(
        AutoscaleDocument,
        {
            "schema_version": JSON_SCHEMA_VERSION,
            "display_currency": display_currency,
            "exchange_rate": rate_fields(cny),
            "trace": {
                "name": res.trace_name,
                "synthetic": res.trace_synthetic,
                "requests": res.requests,
                "duration_s": res.duration_s,
                "note": res.trace_note,
                "out_of_order": res.trace_out_of_order,
                "default_prompt_tokens": res.trace_default_prompt_tokens,
                "default_output_tokens": res.trace_default_output_tokens,
                "mean_requests_per_s": None if res.trace_rate is None else res.trace_rate.mean_requests_per_s,
                "peak_requests_per_s": None if res.trace_rate is None else res.trace_rate.peak_requests_per_s,
                "mean_requests_per_s_asked": None if res.trace_rate is None else res.trace_rate.mean_asked,
                "median_gap_s_doubt": res.trace_slow_median_gap_s,
            },
            "replica": {
                "gpu": rep.gpu,
                "slots": rep.slots,
                "time_per_output_token_s": rep.time_per_output_token_s,
                "time_per_output_token_1_s": rep.time_per_output_token_1_s,
                "prefill_tokens_per_s": rep.prefill_tokens_per_s,
                "source": rep.source,
                "engine": None
                if engine is None
                else {
                    "max_num_seqs": engine.max_num_seqs,
                    "max_batched_tokens": engine.max_batched_tokens,
                    "chunked_prefill": engine.chunked_prefill,
                    "source": engine.source,
                },
                "kv_cache_tokens": rep.step.kv_capacity_tokens if rep.step is not None else None,
            },
            "prices": _prices_doc(res.prices),
            "settings": {
                "slo_s": res.settings.slo_s,
                "slos": [
                    {
                        "name": s.name,
                        "metric": s.metric,
                        "percentile": s.percentile,
                        "threshold_s": s.threshold_s,
                    }
                    for s in res.settings.slos
                ],
                "timeout_s": res.settings.timeout_s,
                "spot_notice_s": res.settings.spot_notice_s,
                "seed": res.settings.seed,
                "cold_start_s": res.settings.cold_start_s,
                "cold_start_source": res.settings.cold_start_source,
                "schedule": _schedule_doc(res),
            },
            "policies": [_policy_doc(p, res, money) for p in res.policies],
            "comparison_note": price_comparison_note(res, money),
        },
    )


def _schedule_doc(res: AutoscaleResult) -> dict[str, Any] | None:
    """The workload's schedule in the JSON: its hours, days and zone, whether the run replays it, and
    the report's words; None without one."""
    when = res.settings.schedule
    if when is None:
        return None
    return {
        "hours": when.hours_text,
        "days": when.days_text,
        "time_zone": when.zone,
        "applied": res.settings.schedule_applied,
        "note": schedule_note(res),
    }


def retimed_line(note: str) -> str:
    """The header's line of a re-timed trace: its note ("re-timed from azure-conv: 3× its rate",
    :data:`gpuplan.simulate.trace.RETIMED_MARK` first, as the file's comment line says it) read
    "Re-timed from azure-conv: 3× its rate.", the mark's words said once."""
    if note.startswith(RETIMED_MARK):
        return _("Re-timed from {source}.").format(source=note.removeprefix(RETIMED_MARK).strip())
    return _("Re-timed: {note}.").format(note=note)


def _header(res: AutoscaleResult, money: Money) -> list[str]:
    kind = _("synthetic") if res.trace_synthetic else _("as read, not generated")
    lines = [
        ngettext(
            "Trace {name} ({kind}): {n} request over {hours} h.",
            "Trace {name} ({kind}): {n} requests over {hours} h.",
            res.requests,
        ).format(
            name=res.trace_name,
            kind=kind,
            n=format_number(res.requests),
            hours=f"{res.duration_s / 3600:.1f}",
        ),
    ]
    if res.trace_note:
        lines.append(retimed_line(res.trace_note))
    lines += _trace_input_lines(res)
    said = schedule_note(res)
    if said:
        lines.append(said)
    lines += [
        _("Replica: 1/{n} of one {gpu}, {n} replicas time-sharing each GPU; {source}.").format(
            n=res.prices.replicas_per_gpu, gpu=res.replica.gpu, source=res.replica.source
        )
        if res.prices.replicas_per_gpu > 1
        else _("Replica: one {gpu}; {source}.").format(gpu=res.replica.gpu, source=res.replica.source)
        if res.prices.gpus_per_replica == 1
        else _("Replica: {n} × {gpu} in one machine (tensor parallel); {source}.").format(
            n=res.prices.gpus_per_replica, gpu=res.replica.gpu, source=res.replica.source
        ),
        _("Cold start of a replica a policy adds: {source}.").format(source=res.settings.cold_start_source),
    ]
    # one line per pricing model: each names its offer, publisher, date and confidence, and the
    # policies it is the price of where others are priced at their own fleet's
    on_run = [p.name for p in res.policies if p.prices is None]
    said = (
        _("Prices: {source}.")
        if len(on_run) == len(res.policies)
        else _("Prices of {policies}, and the common basis every policy is also costed at: {source}.")
        if on_run
        else _(
            "Prices of the common basis every policy is also costed at (the offers picked for the "
            "largest fleet of them; no policy is priced at them alone): {source}."
        )
    )
    lines += [
        said.format(source=source, policies=item_list(on_run))
        for source in (list(res.prices.sources.values()) or [res.prices.source])
    ]
    if money.currency != res.prices.words_currency:
        # The costs are in the display currency: so are the prices they come from (the rate below),
        # where the prices' own lines are not.
        lines.append(
            _("Per replica-hour in {currency}: {prices}.").format(
                currency=money.currency,
                prices=listed(
                    f"{pricing_name(k)} {money.format(v)}" for k, v in res.prices.usd_per_hour.items()
                ),
            )
        )
    for p in res.policies:
        if p.prices is not None:  # priced on its own fleet, not the largest one's
            used = [p.prices.sources[k] for k in p.replica_hours if k in p.prices.sources]
            lines += [
                _("Prices of {policy} (its own fleet): {source}.").format(policy=p.name, source=source)
                for source in (used or [p.prices.source])
            ]
    lines += [
        _("Spot interruptions: {source}.").format(source=res.prices.spot_rate_source),
    ]
    if res.settings.slos:
        lines.append(
            _("SLOs: {slos}; a dropped request counts as over every one.").format(
                slos=item_list(f"{s.name} {_threshold(s.threshold_s)}" for s in res.settings.slos)
            )
        )
    return lines


def _offer_words(prices: FleetPrices, models: Sequence[str], money: Money) -> str:
    """ "cudo no-kristiansand-1 sapphire-rapids-h100_4x32v64gb, on-demand $7.66/replica-h": the
    offers of ``prices`` for the pricing models ``models`` (those a policy was billed on)."""
    out = []
    for k in sorted(models):
        usd = prices.usd_per_hour.get(k)
        if usd is None:
            continue
        b = prices.basis.get(k)
        price = money.format(usd, per=_("replica-h"))
        if b is None or b.given:
            out.append(_("{pricing} {price} (your figure)").format(pricing=pricing_name(k), price=price))
        else:
            out.append(
                _("{provider} {region} {instance_type}, {pricing} {price}").format(
                    pricing=pricing_name(k),
                    price=price,
                    provider=b.provider,
                    region=b.region,
                    instance_type=b.instance_type,
                )
            )
    return item_list(out)


def _clauses(parts: Sequence[str]) -> str:
    """Clauses one after another, parted as a list of prices is ("a; b", Chinese "a；b")."""
    out = parts[0]
    for part in parts[1:]:
        # the same words as the price sources' own join (simulate.inputs.fleet_prices)
        out = _("{sources}; {source}").format(sources=out, source=part)
    return out


def price_comparison_note(res: AutoscaleResult, money: Money) -> str | None:
    """Where the policies compared are priced at different offers (each at its own fleet's): which
    offer each is priced at, and every policy's cost at one basis, the run's prices (the offers
    picked for the largest fleet of them), so that the part of a difference that is the price is
    told from the policy's; None where every policy is priced at the same offers."""
    if all(p.prices is None for p in res.policies):
        return None
    each = [
        _("{policy} on {offers}").format(
            policy=p.name, offers=_offer_words(p.prices or res.prices, list(p.replica_hours), money)
        )
        for p in res.policies
    ]
    models = sorted({k for p in res.policies for k in p.replica_hours})
    common = [
        _("{policy} {cost}").format(
            policy=p.name,
            cost=money.format(p.cost_usd if p.prices is None else p.common_cost_usd, unknown=_("unknown")),
        )
        for p in res.policies
    ]
    note = _(
        "The policies are priced at different offers, each at its own fleet's cheapest: {each}; part of "
        "the difference in their costs is the price, not the policy. At one basis, each policy's "
        "replicas billed in whole instances on {offers} (the offers picked for the largest fleet of "
        "them): {common}."
    ).format(each=_clauses(each), offers=_offer_words(res.prices, models, money), common=item_list(common))
    replayed = [p.name for p in res.policies if p.common_replayed]
    if not replayed:
        return note
    more = _(
        "At that basis {policies} ran again on its spot instances ({rate}, {n} replica(s) to an instance), "
        "so that their reclaims and restarts there are those instances', not their own offers' billed again."
    ).format(
        policies=item_list(replayed),
        rate=reclaim_rate_words(res.prices.spot_rate_per_hour),
        n=res.prices.per_instance("spot"),
    )
    return _("{sentence} {more}").format(sentence=note, more=more)


def reclaim_rate_words(per_hour: float) -> str:
    """A spot instance's reclaims in words: ``a reclaim per 24 instance-hours``, ``6 reclaims per
    instance-hour``, ``never reclaimed``."""
    if per_hour <= 0:
        return _("never reclaimed")
    if per_hour >= 1:
        return _("{n} reclaims per instance-hour").format(n=format_number(per_hour, 3))
    return _("a reclaim per {hours} instance-hours").format(hours=format_number(1 / per_hour, 3))


def current_cost_note(p: PolicyResult, res: AutoscaleResult, money: Money) -> str | None:
    """Where a policy's cost rests on a price not known to hold today: its cost at the best prices
    known to be within the staleness limit, with their offers, or that the catalog has none; None
    where every price it is billed at is known current."""
    prices = p.prices or res.prices
    stale = [k for k in sorted(p.replica_hours) if k in prices.basis and not prices.basis[k].known_current]
    if not stale:
        return None
    said = {
        "policy": p.name,
        "cost": money.format(p.cost_usd),
        "days": prices.basis[stale[0]].stale_after_days,
    }
    if p.current_cost_usd is None:
        return _(
            "{policy}: its cost of {cost} rests on prices not known to hold today, and the catalog has no "
            "{pricings} price of {gpu} known to be within the {days}-day limit to cost it at instead."
        ).format(
            **said,
            pricings=item_list(pricing_name(k) for k in p.current_cost_missing or stale),
            gpu=res.replica.gpu,
        )
    own = [_billed_words(k, prices.basis[k], p.instance_hours.get(k), money) for k in stale]
    offers = []
    for k in stale:
        c = prices.basis[k].current
        assert c is not None  # a current cost is given only where each has one
        offers.append(_billed_words(k, c, p.current_instance_hours.get(k), money, c.as_of))
    return _(
        "{policy}: its cost of {cost} ({own}) rests on prices not known to hold today; at the best "
        "prices known to be within the {days}-day limit ({offers}) the same replicas cost {current}."
    ).format(**said, own=item_list(own), offers=item_list(offers), current=money.format(p.current_cost_usd))


def _billed_words(
    pricing: str, b: PriceBasis, instance_hours: float | None, money: Money, as_of: str = ""
) -> str:
    """What a cost bills at one offer: its whole instances (type, GPUs each, replicas each), their
    hours and price, and, where one holds several replicas, how its price per replica-hour follows
    (the instance's price over its replicas, met only while all of them run). e.g. "on_demand:
    4.003 instance-hours of aws us-east-1 p5.48xlarge (2026-11-09/2026-12-02; 8 GPUs, up to 8
    replicas each) at $55.04/instance-h, billed whole however few of its replicas run
    ($6.88/replica-h = $55.04 ÷ 8, only while all 8 do)". ``as_of``: the price's date, said first
    in the brackets where given."""
    dated = _("{as_of}; ").format(as_of=as_of) if as_of else ""
    if b.usd_per_instance_hour is None or b.gpus_per_instance is None:
        return _("{pricing} {price} at {provider} {region} {instance_type}{as_of}").format(
            pricing=pricing_name(pricing),
            price=money.format(b.usd_per_hour, per=_("replica-h")),
            provider=b.provider,
            region=b.region,
            instance_type=b.instance_type,
            as_of=_(" ({as_of})").format(as_of=as_of) if as_of else "",
        )
    k = b.replicas_per_instance or 1
    said = {
        "pricing": pricing_name(pricing),
        "hours": format_number(instance_hours, unknown=_("unknown")),
        "provider": b.provider,
        "region": b.region,
        "instance_type": b.instance_type,
        "dated": dated,
        "gpus": format_number(b.gpus_per_instance),
        "price": money.format(b.usd_per_instance_hour, per=_("instance-h")),
    }
    if k <= 1:
        return _(
            "{pricing}: {hours} instance-hours of {provider} {region} {instance_type} ({dated}{gpus} "
            "GPU(s), one replica each) at {price}"
        ).format(**said)
    return _(
        "{pricing}: {hours} instance-hours of {provider} {region} {instance_type} ({dated}{gpus} GPUs, "
        "up to {n} replicas each) at {price}, billed whole however few of its replicas run "
        "({per_replica} = {instance_price} ÷ {n}, only while all {n} do)"
    ).format(
        **said,
        n=k,
        per_replica=money.format(b.usd_per_hour, per=_("replica-h")),
        instance_price=money.format(b.usd_per_instance_hour),
    )


def _basis_lines(res: AutoscaleResult, money: Money) -> list[str]:
    """Said beside the policies' costs: the offers they are priced at where these differ, and each
    cost at known-current prices where one rests on a price not known current."""
    lines = [note] if (note := price_comparison_note(res, money)) else []
    return lines + [line for p in res.policies if (line := current_cost_note(p, res, money))]


def _cost_scope() -> str:
    """What a policy's cost holds, said once beside the figures per token (set beside the plan's
    all-in figures, it had read as the month's whole bill)."""
    return _(
        "Costs are the fleet's instances only: storage and the answers' egress are not in them "
        "(`gpuplan plan` prices a service all-in)."
    )


def _per_million(p: PolicyResult, money: Money) -> str:
    """What a policy's cost comes to per million tokens it served (to set beside API prices); an
    image service's, per 1,000 images (as ``plan`` prices it)."""
    if p.usd_per_thousand_images is not None:
        line = _("{name}: {cost} per 1,000 images ({images} images served).").format(
            name=p.name, cost=money.format(p.usd_per_thousand_images), images=format_number(p.served)
        )
    elif p.usd_per_thousand_requests is not None:
        line = _("{name}: {cost} per 1,000 requests ({requests} requests served).").format(
            name=p.name, cost=money.format(p.usd_per_thousand_requests), requests=format_number(p.served)
        )
    elif p.usd_per_million_output_tokens is None or p.usd_per_million_tokens is None:
        return _("{name}: cost per million tokens unknown ({why}).").format(
            name=p.name, why=_(p.per_million_tokens_note or N_("no request was served"))
        )
    else:
        line = _(
            "{name}: {output} per million output tokens, {all} per million prompt and output tokens "
            "({tokens} tokens served)."
        ).format(
            name=p.name,
            output=money.format(p.usd_per_million_output_tokens),
            all=money.format(p.usd_per_million_tokens),
            tokens=format_number(p.tokens_served["prompt"] + p.tokens_served["output"]),
        )
    if p.dropped > 0:
        # The tokens of the dropped requests are not in it: a policy that drops looks cheaper per
        # token for serving less.
        total = p.served + p.dropped
        line = _join(
            line,
            _(
                "It dropped {n} of {total} requests ({share}): they are not in this figure, which is not "
                "comparable with a policy that served them."
            ).format(
                n=format_number(p.dropped),
                total=format_number(total),
                share=format_percent(p.dropped / total),
            ),
        )
    return line


def trace_rate_lines(name: str, rate: ShapeRate | None, slow_gap_s: float | None) -> list[str]:
    """A generated trace's mean and peak (and a mean it could not hold); a file's timestamps that
    may be milliseconds (``slow_gap_s``: the median time between its requests, read as seconds)."""
    lines: list[str] = []
    if rate is not None:
        lines.append(
            _(
                "Its rate: mean {mean} requests/s, peak {peak} requests/s (the highest of its curve; "
                "arrivals are random around it)."
            ).format(mean=f"{rate.mean_requests_per_s:.3g}", peak=f"{rate.peak_requests_per_s:.3g}")
        )
        if rate.mean_asked is not None:
            lines.append(_mean_not_held(name, rate))
    if slow_gap_s is not None:
        lines.append(
            _(
                "Its timestamps are read as seconds, a median of {gap} s between requests: if they are "
                "milliseconds, name the column timestamp_ms."
            ).format(gap=f"{slow_gap_s:,.0f}")
        )
    return lines


def _mean_not_held(name: str, rate: ShapeRate) -> str:
    """The mean a generated trace is drawn at where the one asked cannot be held under the peak: the
    lowest the shape reaches (its quietest time at 0), and what the window drawn averages where it
    is not whole days of a diurnal shape (a few hours of its day average more or less)."""
    held = rate.mean_held if rate.mean_held is not None else rate.mean_requests_per_s
    fields = {
        "shape": name,
        "asked": f"{rate.mean_asked:.3g}",
        "peak": f"{rate.peak_asked if rate.peak_asked is not None else rate.peak_requests_per_s:.3g}",
        "mean": f"{rate.mean_requests_per_s:.3g}",
        "held": f"{held:.3g}",
    }
    if math.isclose(held, rate.mean_requests_per_s, rel_tol=1e-3):
        return _(
            "A {shape} load cannot average {asked} requests/s under a peak of {peak}: the peak is kept "
            "(the load the plan sizes for), and the trace is drawn at a mean of {mean} requests/s, the "
            "lowest such a load reaches (its quietest time at 0)."
        ).format(**fields)
    return _(
        "A {shape} load cannot average {asked} requests/s under a peak of {peak}: the peak is kept (the "
        "load the plan sizes for), and its day is taken at a mean of {held} requests/s, the lowest such "
        "a day reaches (its quietest time at 0); the window drawn averages {mean} requests/s."
    ).format(**fields)


def _lengths_line(prompt: LengthDistribution, output: LengthDistribution) -> str:
    """What a generated trace's lengths were drawn from: the p95 lengths the plan checks its p95
    targets at, and where those come from (:func:`gpuplan.simulate.trace.lengths`)."""
    fields: dict[str, object] = {
        f"{name}{key}": value
        for name, drawn in (("prompt", prompt), ("output", output))
        for key, value in (("", drawn.mean), ("_p95", drawn.p95), ("_cut", drawn.longest))
    }
    return _(
        "Its requests' token counts are drawn log-normally around the workload's means ({prompt:,} "
        "prompt and {output:,} output tokens) to the 95th percentiles the plan checks its p95 targets "
        "at, {prompt_p95:,} and {output_p95:,} tokens ({source}), cut at their 99.9th percentiles "
        "({prompt_cut:,} and {output_cut:,}); a trace file of your own traffic gives its own."
    ).format(source=tail_source(drawn_tail(prompt, output)), **fields)


def _cap_line(cap: LengthCap, gpu: str) -> str:
    """How a generated trace's lengths were cut at the longest request one replica holds
    (:meth:`gpuplan.simulate.trace.Trace.within`), and how many draws were."""
    return _(
        "One {gpu} replica's KV cache holds {kv:,} tokens, the longest request (prompt + output) its "
        "engine takes (vLLM's max_model_len); a server refuses longer ones, so none is drawn: the "
        "lengths are cut at {prompt_cut:,} prompt and {output_cut:,} output tokens instead, their "
        "spread narrowed so that their means and 95th percentiles stay. Draws cut there: {prompt_n:,} "
        "of the prompts, {output_n:,} of the answers."
    ).format(
        gpu=gpu,
        kv=cap.kv_tokens,
        prompt_cut=cap.lengths[0].longest,
        output_cut=cap.lengths[1].longest,
        prompt_n=cap.cut[0],
        output_n=cap.cut[1],
    )


def _against_plan_lines(res: AutoscaleResult) -> list[str]:
    """Each policy's simulated p95 latency beside the plan's estimate for its fleet at the trace's
    peak, in the direction the two figures have (as shown), and why they differ."""
    lines = []
    assert res.trace_rate is not None or not res.plan_p95_latency_s
    for p in res.policies:
        plan_s = res.plan_p95_latency_s.get(p.name)
        if plan_s is None or p.latency_p95_s is None:
            continue
        sim, planned = _ms(p.latency_p95_s), _ms(plan_s)
        fields = {
            "policy": p.name,
            "sim": sim,
            "plan": planned,
            "fleet": ngettext("{n} replica", "{n} replicas", max(1, p.max_replicas)).format(
                n=max(1, p.max_replicas)
            ),
            "peak": f"{res.trace_rate.peak_requests_per_s:.3g}" if res.trace_rate is not None else "",
        }
        if sim == planned:
            words = N_(
                "{policy}: its p95 latency, {sim}, is the plan's for {fleet} at the trace's peak of "
                "{peak} requests/s."
            )
        elif p.latency_p95_s < plan_s:
            words = N_(
                "{policy}: its p95 latency, {sim}, is shorter than the plan's {plan} for {fleet} at the "
                "trace's peak of {peak} requests/s."
            )
        else:
            words = N_(
                "{policy}: its p95 latency, {sim}, is longer than the plan's {plan} for {fleet} at the "
                "trace's peak of {peak} requests/s."
            )
        lines.append(_(words).format(**fields))
    if lines and res.replica.image_s is not None and res.replica.forward_pass:
        lines.append(
            _(
                "Both rest on the same time of one forward pass. The simulation's p95 is over every "
                "request of its window, most of them below the peak (less waiting for a place in the "
                "batch); the plan's is its queueing model (M/M/c) at the peak. Bursts the queueing "
                "model does not foresee make the simulation's longer."
            )
        )
    elif lines and res.replica.image_s is not None:
        lines.append(
            _(
                "Both rest on the same image time. The simulation's p95 is over every request of its "
                "window, most of them below the peak (less waiting for a place in the batch); the "
                "plan's is its queueing model (M/M/c) at the peak. Bursts the queueing model does not "
                "foresee make the simulation's longer."
            )
        )
    elif lines:
        lines.append(
            _(
                "Both rest on the same request lengths. The simulation's p95 is over every request of its "
                "window, most of them below the peak (fewer sequences running, shorter steps, less "
                "waiting), its lengths one sample of their distribution and each step at the sequences "
                "its replica runs; the plan's is its queueing model (M/M/c) at the peak, with the p95 "
                "answer and each decode step at least the traced batch's (the workload's "
                "inputs.batch_size). Bursts the queueing model does not foresee make the simulation's "
                "longer."
            )
        )
    return lines


def _trace_input_lines(res: AutoscaleResult) -> list[str]:
    """What the trace did not say and was taken from elsewhere, or was put in order; a generated
    trace's rate; a doubt about a file's unit of time."""
    lines = trace_rate_lines(res.trace_name, res.trace_rate, res.trace_slow_median_gap_s)
    if res.trace_lengths is not None:
        lines.append(_lengths_line(*res.trace_lengths))
    if res.trace_length_cap is not None:
        lines.append(_cap_line(res.trace_length_cap, res.replica.gpu))
    lines += _against_plan_lines(res)
    if res.trace_default_prompt_tokens is not None:
        lines.append(
            _(
                "The trace has no prompt token counts: every request takes the workload's {tokens:,} "
                "prompt tokens."
            ).format(tokens=res.trace_default_prompt_tokens)
        )
    if res.trace_default_output_tokens is not None:
        lines.append(
            _(
                "The trace has no output token counts: every request takes the workload's {tokens:,} "
                "output tokens."
            ).format(tokens=res.trace_default_output_tokens)
        )
    if res.trace_out_of_order:
        lines.append(
            ngettext(
                "{n} of its {total} rows comes before a row above it; the requests are taken in time order.",
                "{n} of its {total} rows come before a row above them; the requests are taken in time order.",
                res.trace_out_of_order,
            ).format(n=format_number(res.trace_out_of_order), total=format_number(res.requests))
        )
    return lines


def _clock(hour: float) -> str:
    """``8.5`` as ``08:30``."""
    minutes = round(hour * 60)
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def schedule_note(res: AutoscaleResult) -> str | None:
    """The workload's schedule as the run used it (``serving.schedule``); None without one."""
    when = res.settings.schedule
    if when is None:
        return None
    if not res.settings.schedule_applied:
        return _(
            "The workload's schedule, {when} (serving.schedule), is not applied to a recorded trace (its "
            "times are not known to be in that time zone): its requests are replayed as recorded and the "
            "policies run as written, round the clock; --shape replays a scheduled day."
        ).format(when=when.said)
    return _(
        "On the workload's schedule, {when} (serving.schedule): each day of the trace is one scheduled "
        "day ({days}), local time from 00:00, its requests only from {start} to {end}; every policy but a "
        "scheduled one runs no replica outside those hours, as deploy's KEDA cron trigger "
        "(minReplicaCount 0), and starts its replicas a new instance's start-up, rounded up to the "
        "whole minute, before them, as deploy's cron does and plan bills. Its cost is its hours in the "
        "schedule."
    ).format(
        when=when.said,
        days=when.days_said,
        start=_clock(when.start_min / 60),
        end=_clock(when.end_min / 60),
    )


def _behaviour(p: PolicyResult, *, images: bool = False, forward: bool = False) -> str:
    """How a policy moved: start, how fast an added replica serves, how often it decides.
    ``images``: an image service's (one image a request, no prompts to run), whose saturation is its
    batch's alone; ``forward`` with it: a forward-pass service's, worded as requests."""
    pol = p.policy
    start = _("starts with {n} ready").format(n=p.start_replicas)
    if pol.kind == "fixed" and pol.hours is not None:
        text = _("{name}: {start}; replicas={n} in the schedule's hours, none outside them.").format(
            name=p.name, start=start, n=pol.replicas
        )
    elif pol.kind == "fixed":
        text = _("{name}: {start}, never scales.").format(name=p.name, start=start)
    else:
        text = _(
            "{name}: {start} (min {min}, max {max}); decides every {period:g} s; a replica it adds "
            "serves {startup:.0f} s after the decision; scales down no lower than the highest wish of "
            "the last {window:g} s."
        ).format(
            name=p.name,
            start=start,
            min=pol.min_replicas,
            max=pol.max_replicas,
            period=pol.period_s,
            startup=p.startup_s,
            window=pol.down_window_s,
        )
        if pol.up_cooldown_s > 0:
            more = _("Scale-ups at least {cooldown:g} s apart.").format(cooldown=pol.up_cooldown_s)
            text = _join(text, more)
        if pol.max_basis is not None:
            needed, peak, capacity, share = pol.max_basis
            more = _(
                "Max {max} by default: twice the {needed} replicas the trace's peak of {peak:.3g} "
                "requests/s needs at {target} of a replica's {capacity:.4g} requests/s (the load a "
                "queue policy's default target holds a replica at), as deploy writes maxReplicas; "
                "max= sets it."
            ).format(
                max=pol.max_replicas,
                needed=needed,
                peak=peak,
                capacity=capacity,
                target=format_percent(share),
            )
            text = _join(text, more)
        if pol.kind == "gpu-util":
            more = _(
                "Scales on the replicas' average GPU utilisation (DCGM_FI_DEV_GPU_UTIL) at {target:g} %, "
                "each a {sample:g} s sample read {delay:g} s late; it counts the time any kernel runs, "
                "so a replica decoding one sequence reads near 100 %."
            ).format(target=pol.gpu_util_pct, sample=pol.util_sample_s, delay=pol.delay_s)
            text = _join(text, more)
        if pol.kind == "queue" and pol.per_replica is not None:
            more = _(
                "Scales on the requests in flight (running and waiting), {target:g} per replica, as the "
                "HPA does: ceil(in flight / {target:g}) replicas, no change within {tolerance:.0%} of it, "
                "replicas still starting counted at 0, at most 4 or twice as many replicas a decision; "
                "the count read {delay:g} s late (Prometheus scrapes the engine every 15 s)."
            ).format(target=round(pol.per_replica, 1), tolerance=pol.tolerance, delay=pol.delay_s)
            text = _join(text, more)
            if "per_replica" not in pol.given and pol.replica_load is not None:
                more = _(
                    "{target:g} is what one replica holds in flight at {load} requests/s (Little's law: that "
                    "load × the time a request spends on the replica at it): {basis}."
                ).format(
                    target=round(pol.per_replica, 1),
                    load=f"{pol.replica_load.requests_per_s:.4g}",
                    basis=replica_load_words(
                        pol.replica_load,
                        _(
                            "this trace's request lengths (deploy's, and its target, are on the serving "
                            "block's, every request at them, unless given these with --trace)"
                        ),
                    ),
                )
                if pol.replica_load.estimate_capacity_requests_per_s is not None:
                    # deploy chooses from the same two figures for this workload and GPU
                    more = _join(
                        more,
                        _(
                            "`gpuplan deploy` writes the same target for this workload and GPU on the same "
                            "request lengths (a plan's README names its own in its replay command)."
                        ),
                    )
                more = _join(more, _("Give per_replica=N to replay another target."))
                text = _join(text, more)
    if pol.hours is not None:
        more = _("Runs from {start} (its start-up, {lead}, before the hours) to {end}.").format(
            start=_clock((pol.hours[0] - pol.schedule_lead_s() / 3600) % 24),
            lead=pol.lead_words
            or _("{minutes:.0f} min: the policy's startup, rounded up to the whole minute").format(
                minutes=pol.schedule_lead_s() / 60
            ),
            end=_clock(pol.hours[1]),
        )
        text = _join(text, more)
    if p.waiting_at_end:
        text = _join(text, _after_end(p))
    if p.saturated_s > 0:
        saturated = (
            _(
                "Its replicas ran near saturation for {minutes:.0f} min (images in progress ≥ {batch:.0%} "
                "of the batch a replica makes at once): latency tails there are optimistic."
            )
            if images and not forward
            else _(
                "Its replicas ran near saturation for {minutes:.0f} min (requests in progress ≥ "
                "{batch:.0%} of the batch a replica runs at once): latency tails there are optimistic."
            )
            if images
            else _(
                "Its replicas ran near saturation for {minutes:.0f} min (batch ≥ {batch:.0%} of the slots or "
                "prompts ≥ {prefill:.0%} of the compute): latency tails there are optimistic."
            )
        )
        text = _join(
            text,
            saturated.format(minutes=p.saturated_s / 60, batch=SATURATED_BATCH, prefill=SATURATED_PREFILL),
        )
    return text


def _committed_lines(res: AutoscaleResult, money: Money) -> list[str]:
    """Each committing policy's committed part, and once what a committed cost stands for."""
    lines = [line for p in res.policies if (line := _committed(p, money)) is not None]
    note = _commitment_note(res.policies)
    return [*lines, note] if note else lines


def _commitment_note(policies: Sequence[PolicyResult]) -> str | None:
    """Said once where a policy commits replicas: what its committed cost stands for (None where
    none commits)."""
    names = [p.name for p in policies if p.policy.commit_replicas > 0]
    if not names:
        return None
    return _(
        "A commitment bills whole months or years: the committed replicas of {policies} are charged "
        "the simulated span's pro-rata share of it, which is what they average to only if the service "
        "runs the whole term."
    ).format(policies=item_list(names))


def _committed(p: PolicyResult, money: Money) -> str | None:
    """A committing policy's committed part: replicas, model, hours and cost (None without one)."""
    pol = p.policy
    if pol.commit_replicas <= 0:
        return None
    key = pol.commit_pricing
    hours = p.replica_hours.get(key, 0.0) / pol.commit_replicas
    return ngettext(
        "{name}: {n} committed replica ({label}) paid for all {hours} h, busy or not: {cost} of its {total}.",
        "{name}: {n} committed replicas ({label}) paid for all {hours} h, busy or not: {cost} of "
        "its {total}.",
        pol.commit_replicas,
    ).format(
        name=p.name,
        n=pol.commit_replicas,
        label=_(PRICING_RULES[key].label),
        hours=f"{hours:.1f}",
        cost=money.format(p.cost_usd_by_pricing.get(key, 0.0)),
        total=money.format(p.cost_usd),
    )


def _after_end(p: PolicyResult) -> str:
    """The requests still waiting when the trace ended, and what became of them."""
    return _(
        "{waiting} requests were still waiting when the trace ended: the replicas then up served {served} "
        "of them after it (billed, and late where over an SLO) and {dropped} timed out (in Dropped); all "
        "count in the SLO miss."
    ).format(
        waiting=format_number(p.waiting_at_end),
        served=format_number(p.waiting_at_end - p.dropped_after_end),
        dropped=format_number(p.dropped_after_end),
    )


def _join(sentence: str, more: str) -> str:
    # TRANSLATORS: one sentence after another (Chinese needs no space between them)
    return _("{sentence} {more}").format(sentence=sentence, more=more)


def _policy_table(res: AutoscaleResult, money: Money, layout: int) -> Table:
    """Layout 0: one column per figure; 1: the three latencies in one cell, replicas and
    interruptions in one; 2 (narrow consoles): policies by number (named in a key below the table),
    cost over utilisation and SLO miss over dropped. Policy names never wrap."""
    t = house_table(_("Policies side by side"))
    if layout < 2:
        t.add_column(_("Policy"), no_wrap=True)
        t.add_column(_("Cost"), justify="right", no_wrap=True)
    else:
        t.add_column("#", justify="right", no_wrap=True)
        t.add_column(_("Cost") + "\n" + _("Slots busy"), justify="right", no_wrap=True)
    t.add_column(_("Replica-hours"), justify="right", no_wrap=True)
    if layout < 2:
        t.add_column(_("Slots busy"), justify="right", no_wrap=True)
    if layout == 0:
        for h in ("p50", "p95", "p99"):
            t.add_column(h, justify="right", no_wrap=True)
        for h in (_("SLO miss"), _("Dropped"), _("Max replicas"), _("Interruptions")):
            t.add_column(h, justify="right", no_wrap=True)
    else:
        t.add_column(_("latency") + "\np50/p95/p99", justify="right", no_wrap=True)
        if layout == 1:
            t.add_column(_("SLO miss"), justify="right", no_wrap=True)
            t.add_column(_("Dropped"), justify="right", no_wrap=True)
        else:
            t.add_column(_("SLO miss") + "\n" + _("Dropped"), justify="right", no_wrap=True)
        t.add_column(_("Max replicas") + "\n" + _("Interruptions"), justify="right", no_wrap=True)
    for number, p in enumerate(res.policies, 1):
        hours = "\n".join(f"{_(k)} {v:.1f}" for k, v in sorted(p.replica_hours.items()))
        cost, util = money.format(p.cost_usd), format_percent(p.utilisation)
        latencies = [seconds(p.latency_p50_s), seconds(p.latency_p95_s), seconds(p.latency_p99_s)]
        miss = "—" if p.slo_miss_pct is None else f"{p.slo_miss_pct:.2f}%"
        dropped = format_number(p.dropped)
        row = [p.name, cost] if layout < 2 else [str(number), f"{cost}\n{util}"]
        row.append(hours)
        if layout < 2:
            row.append(util)
        if layout == 0:
            row += [*latencies, miss, dropped, str(p.max_replicas), str(p.interruptions)]
        else:
            row.append("\n".join(latencies))
            row += [miss, dropped] if layout == 1 else [f"{miss}\n{dropped}"]
            row.append(f"{p.max_replicas}\n{p.interruptions}")
        t.add_row(*row)
    return t if layout < 2 else _with_key(t, res)


def _with_key(t: Table, res: AutoscaleResult) -> Table:
    key = house_table()
    key.show_header = False
    key.add_column(justify="right", no_wrap=True)
    key.add_column(overflow="fold")  # wider than the console itself: fold, never "…"
    for number, p in enumerate(res.policies, 1):
        key.add_row(str(number), p.name)
    grid = Table.grid()
    grid.add_row(t)
    grid.add_row(key)
    return grid


#: The latency metrics as table headers; TTFT and TPOT are the same acronyms in every language.
_METRIC_WORDS = {"queue": N_("queue"), "ttft": "TTFT", "tpot": "TPOT", "e2e": N_("e2e")}


def _metric_word(metric: str) -> str:
    word = _METRIC_WORDS[metric]
    return _(word) if metric in ("queue", "e2e") else word


def _threshold(v: float) -> str:
    """A threshold as the user writes one: 50 ms, 2 s."""
    return f"{v * 1e3:g} ms" if v < 1.0 else f"{v:g} s"


def _ms(v: float | None) -> str:
    if v is None:
        return "—"
    return f"{v * 1e3:.0f} ms" if v < 1.0 else f"{v:.2f} s"


def _latency_rows(res: AutoscaleResult) -> list[list[str]]:
    rows = []
    for p in res.policies:
        cells = [p.name]
        for m in METRICS:
            s = p.latency[m]
            cells.append("\n".join(_ms(v) for v in (s.p50_s, s.p95_s, s.p99_s)))
        rows.append(cells)
    return rows


#: Why a forward-pass service's latency has no TTFT or TPOT, as an image service's.
_FORWARD_TOKENS = N_(
    "a forward-pass service's request is one forward pass, its answer sent whole: it has no first "
    "token and no tokens after it, so TTFT and TPOT are not figures of it (its latency is the e2e column)"
)
#: Why an image service's latency has no TTFT or TPOT (the table's "—", the document's nulls).
_IMAGE_TOKENS = N_(
    "an image service's request is one image, delivered whole: it has no first token and no tokens "
    "after it, so TTFT and TPOT are not figures of it (its latency is the e2e column)"
)


def _latency_note(res: AutoscaleResult, metric: str) -> str | None:
    """Why ``metric``'s figures are null for every request: an image service's TTFT and TPOT."""
    if res.replica.image_s is None or metric not in ("ttft", "tpot"):
        return None
    return _(_FORWARD_TOKENS if res.replica.forward_pass else _IMAGE_TOKENS)


def _latency_table(res: AutoscaleResult, numbered: bool) -> Table:
    t = house_table(_("Latency per request: p50 / p95 / p99 of the requests served"))
    t.add_column("#" if numbered else _("Policy"), no_wrap=True, justify="right" if numbered else "left")
    for m in METRICS:
        t.add_column(_metric_word(m), justify="right", no_wrap=True)
    for number, row in enumerate(_latency_rows(res), 1):
        t.add_row(str(number) if numbered else row[0], *row[1:])
    return t


def _slo_cell(p: PolicyResult, k: int) -> str:
    o = p.slos[k]
    mark = "✓" if o.met else "✗"
    achieved = _("dropped") if o.achieved_s is None else _ms(o.achieved_s)
    return f"{mark} {achieved}\n" + _("{pct:.1f}% over").format(pct=o.over_pct)


def _slo_table(res: AutoscaleResult, numbered: bool) -> Table:
    t = house_table(_("SLOs: achieved (dropped requests count as late), share of requests over"))
    t.add_column("#" if numbered else _("Policy"), no_wrap=True, justify="right" if numbered else "left")
    for s in res.settings.slos:
        t.add_column(f"{s.name} ≤ {_ms(s.threshold_s)}", justify="right", no_wrap=True)
    for number, p in enumerate(res.policies, 1):
        t.add_row(str(number) if numbered else p.name, *(_slo_cell(p, k) for k in range(len(p.slos))))
    return t


def _unreachable_lines(res: AutoscaleResult) -> list[str]:
    """Per SLO: the requests that no capacity brings under it (the same for every policy)."""
    if not res.policies:
        return []
    lines = []
    for o in res.policies[0].slos:
        if not o.unreachable:
            continue
        share = 100.0 * o.unreachable / max(1, res.requests)
        if o.slo.metric == "e2e":
            lines.append(
                _(
                    "{slo}: {n} of the requests ({pct:.1f}%) cannot finish within {limit} on any number "
                    "of replicas: alone on a replica their prompt and output take longer (each has at "
                    "least {tokens:,} output tokens; {tpot} per token at best)."
                ).format(
                    slo=o.slo.name,
                    n=format_number(o.unreachable),
                    pct=share,
                    limit=_ms(o.slo.threshold_s),
                    tokens=o.unreachable_min_output_tokens or 0,
                    tpot=_ms(res.replica.tpot_s(1.0)),
                )
            )
        else:
            lines.append(
                _("{slo}: {n} of the requests ({pct:.1f}%) exceed it even alone on an idle replica.").format(
                    slo=o.slo.name, n=format_number(o.unreachable), pct=share
                )
            )
    return lines


_CAUSE_WORDS = {
    "scaled_to_zero": N_("arrived while scaled to zero"),
    "cold_start": N_("dropped while replicas started"),
    "at_max": N_("dropped at max replicas"),
    "not_scaled": N_("dropped, not scaled up yet"),
    "spot": N_("killed by spot reclaim"),
    "unreachable": N_("late, no capacity helps"),
    "queueing": N_("late under load"),
}


def _cause_header(cause: str) -> str:
    return _(_CAUSE_WORDS[cause])


def _worst(p: PolicyResult) -> str:
    peak = p.losses.peak_bin_s
    return "—" if peak is None else f"{peak / 3600:.2f} h: {format_number(p.losses.peak_lost)}"


def _losses_table(res: AutoscaleResult, layout: int) -> Table:
    """Layout 0: a row per policy, a column per cause; 1 (narrow consoles): a row per cause and a
    column per policy, headed by its name (folded where long; it had been its number, which the
    first table shows only in its own narrow layout), so that no cause's words are cut."""
    t = house_table(_("Where each policy lost requests (dropped, killed, or over an SLO) and why"))
    if layout == 0:
        t.add_column(_("Policy"), no_wrap=True)
        for cause in LOSS_CAUSES:
            t.add_column(_cause_header(cause), justify="right")
        t.add_column(_("worst 5 min"), justify="right", no_wrap=True)
        for p in res.policies:
            t.add_row(p.name, *(format_number(p.losses.counts[c]) for c in LOSS_CAUSES), _worst(p))
        return t
    t.add_column("", overflow="fold")
    for p in res.policies:
        t.add_column(p.name, justify="right", overflow="fold")
    for cause in LOSS_CAUSES:
        t.add_row(_cause_header(cause), *(format_number(p.losses.counts[cause]) for p in res.policies))
    t.add_row(_("worst 5 min"), *(_worst(p).replace(": ", "\n") for p in res.policies))
    return t


def _milliseconds_doubt(gap_s: float) -> str:
    return _(
        "Check the trace's unit of time first: read as seconds, its requests are a median {gap} s apart. "
        "If its timestamps are milliseconds, every cost and hour below is 1,000 times too large: name "
        "the column timestamp_ms."
    ).format(gap=f"{gap_s:,.0f}")


def autoscale_view(res: AutoscaleResult, money: Money) -> Group:
    """The policies side by side (the widest layout that fits), latency, SLOs, losses, behaviour."""
    parts: list[Any] = []
    if res.trace_slow_median_gap_s is not None:
        # said above the tables, not only among the notes below them: every figure rests on it
        parts.append(Text(_milliseconds_doubt(res.trace_slow_median_gap_s), style="bold"))
    parts.append(Widest([partial(_policy_table, res, money, layout) for layout in (0, 1, 2)]))
    # beside the costs they qualify: a difference of price, not policy; a price of unknown age
    parts += [Text(line, style="bold") for line in _basis_lines(res, money)]
    parts.append(Widest([partial(_latency_table, res, numbered) for numbered in (False, True)]))
    if (why := _latency_note(res, "ttft")) is not None:
        parts.append(Text(_("TTFT and TPOT: —: {why}.").format(why=why)))
    if res.settings.slos:
        parts.append(Widest([partial(_slo_table, res, numbered) for numbered in (False, True)]))
        parts += [Text(line) for line in _unreachable_lines(res)]
    parts.append(Widest([partial(_losses_table, res, layout) for layout in (0, 1)]))
    parts += [
        Text(_behaviour(p, images=res.replica.image_s is not None, forward=res.replica.forward_pass))
        for p in res.policies
    ]
    parts += [Text(line) for line in _committed_lines(res, money)]
    parts += [Text(_per_million(p, money)) for p in res.policies]
    parts.append(Text(_cost_scope()))
    parts += [Text(line, style="dim") for line in _header(res, money)]
    if money.rate_note():
        parts.append(Text(money.rate_note(), style="dim"))
    return Group(*parts)


def autoscale_html(res: AutoscaleResult, money: Money) -> str:
    headers = [
        _("Policy"),
        _("Cost"),
        _("Replica-hours"),
        _("Slots busy"),
        "p50",
        "p95",
        "p99",
        _("SLO miss"),
        _("Dropped"),
        _("Max replicas"),
        _("Interruptions"),
    ]
    rows = [
        [
            p.name,
            money.format(p.cost_usd),
            ", ".join(f"{k} {v:.1f}" for k, v in sorted(p.replica_hours.items())),
            format_percent(p.utilisation),
            seconds(p.latency_p50_s),
            seconds(p.latency_p95_s),
            seconds(p.latency_p99_s),
            "—" if p.slo_miss_pct is None else f"{p.slo_miss_pct:.2f}%",
            format_number(p.dropped),
            str(p.max_replicas),
            str(p.interruptions),
        ]
        for p in res.policies
    ]
    body = table_html(headers, rows)
    body += "".join(f"<p><strong>{escape(line)}</strong></p>" for line in _basis_lines(res, money))
    body += "<h2>" + escape(_("Latency per request: p50 / p95 / p99 of the requests served")) + "</h2>"
    body += table_html(
        [_("Policy"), *(_metric_word(m) for m in METRICS)],
        [[r[0], *(c.replace("\n", " / ") for c in r[1:])] for r in _latency_rows(res)],
    )
    if res.settings.slos:
        body += "<h2>" + escape(_("SLOs")) + "</h2>"
        body += table_html(
            [_("Policy"), *(f"{s.name} ≤ {_ms(s.threshold_s)}" for s in res.settings.slos)],
            [
                [p.name, *(_slo_cell(p, k).replace("\n", " · ") for k in range(len(p.slos)))]
                for p in res.policies
            ],
        )
        body += "".join(f"<p>{escape(line)}</p>" for line in _unreachable_lines(res))
    body += (
        "<h2>"
        + escape(_("Where each policy lost requests (dropped, killed, or over an SLO) and why"))
        + "</h2>"
    )
    body += table_html(
        [_("Policy"), *(_cause_header(c) for c in LOSS_CAUSES)],
        [[p.name, *(format_number(p.losses.counts[c]) for c in LOSS_CAUSES)] for p in res.policies],
    )
    images = res.replica.image_s is not None
    forward = res.replica.forward_pass
    body += "".join(f"<p>{escape(_behaviour(p, images=images, forward=forward))}</p>" for p in res.policies)
    body += "".join(f"<p>{escape(line)}</p>" for line in _committed_lines(res, money))
    body += "".join(f"<p>{escape(_per_million(p, money))}</p>" for p in res.policies)
    body += f"<p>{escape(_cost_scope())}</p>"
    notes = "".join(
        f'<p class="note">{escape(line)}</p>' for line in [*_header(res, money), money.rate_note()] if line
    )
    body += notes + autoscale_svg(res)
    return html_page(_("Autoscaling policies on {trace}").format(trace=res.trace_name), body)
