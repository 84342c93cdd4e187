"""Render a plan: the ``--json`` document (:class:`gpuplan.documents.PlanDocument`) and the
terminal view.

The document's fields, with their units, are declared once in :mod:`gpuplan.documents.plan`; its
JSON Schema is ``docs/schemas/plan.schema.json``. Unknown numbers are ``null`` (never NaN, never 0).
"""

from __future__ import annotations

import math
from dataclasses import asdict
from typing import Any

from gpuplan.catalog.dates import launch_bound
from gpuplan.catalog.model import HOURS_PER_MONTH, ExchangeRate
from gpuplan.day_load import WEEKDAYS
from gpuplan.documents.base import ExchangeRateDoc
from gpuplan.documents.plan import (
    PLAN_SCHEMA_VERSION,
    CheckpointsDoc,
    CostBreakdownDoc,
    CountryCrossingDoc,
    PersonaDoc,
    PlanConstraintsDoc,
    PlanDocument,
    PlanOption,
    PlanWithoutStalePrices,
    PlanWorkload,
    ScheduleDoc,
    ServiceDayDoc,
    ServiceDoc,
    SpotDoc,
    UnknownFactDoc,
    workload_digest,
)
from gpuplan.hardware import launch_month
from gpuplan.plan.result import Option, Plan
from gpuplan.report.offers_json import rate_fields
from gpuplan.vocab import MemoryVerdict, PricingModel

__all__ = ["PLAN_SCHEMA_VERSION", "option_json", "plan_json", "plan_view"]


def option_json(o: Option) -> PlanOption:
    """One option as its document part."""
    monthly = o.unit_hours >= HOURS_PER_MONTH
    return PlanOption(
        provider=o.provider,
        region=o.region,
        zone=o.zone or None,
        country=o.country or None,
        crosses_border=o.crosses_border,
        data_leaves_country=None
        if (c := o.data_leaves_country) is None
        else CountryCrossingDoc(
            leaves=c.leaves, from_countries=list(c.from_countries), to_country=c.to_country
        ),
        host_kind=o.host_kind,  # type: ignore[arg-type]
        data_distance_km=o.data_km,
        sanctions=list(o.sanctions),
        instance_type=o.instance_type,
        gpu=o.gpu,
        gpu_count=o.gpu_count,
        gpus_per_node=o.gpus_per_node,
        nodes=o.nodes,
        pricing=PricingModel(o.pricing),
        interconnect=o.interconnect or None,
        network_gbps=o.network_gbps,
        network_kind=o.network_kind or None,
        network_timed_gbps=o.network_timed_gbps,
        network_timed_kind=o.network_timed_kind or None,
        network_source=o.network_source or None,  # type: ignore[arg-type]
        commitment_usd=o.commitment_usd,
        commitment_months=o.commitment_months,
        upfront=o.upfront or None,
        upfront_usd=o.upfront_usd,
        job_time_h=o.job_time_h,
        job_time_h_low=o.job_time_h_low,
        job_time_h_high=o.job_time_h_high,
        compute_time_h=o.compute_time_h,
        billed_hours=o.billed_hours,
        total_cost_usd=o.total_cost_usd,
        total_cost_usd_low=o.total_cost_usd_low,
        total_cost_usd_high=o.total_cost_usd_high,
        peak_fleet_cost_usd=o.peak_fleet_cost_usd,
        service_day=_day_doc(o),
        cost_breakdown=_breakdown_doc(o),
        unknown_facts=[
            UnknownFactDoc(fact=u.fact, assumed=u.assumed, costed=u.costed)  # type: ignore[arg-type]
            for u in o.unknown_facts
        ],
        best_case_total_cost_usd=o.best_case_total_cost_usd,
        best_case_job_time_h=o.best_case_job_time_h,
        usd_per_million_output_tokens=o.usd_per_million_output_tokens,
        usd_per_million_tokens=o.usd_per_million_tokens,
        usd_per_million_tokens_unknown=o.usd_per_million_tokens_unknown,
        usd_per_thousand_images=o.usd_per_thousand_images,
        usd_per_thousand_requests=o.usd_per_thousand_requests,
        usd_per_thousand_samples=o.usd_per_thousand_samples,
        usd_per_thousand_samples_unknown=o.usd_per_thousand_samples_unknown,
        age_days=o.price_age_days,
        age_bound_launch=launch_bound(o.as_of, launch_month(o.gpu)),
        staleness=o.staleness or None,  # type: ignore[arg-type]
        price_usd_per_hour=o.price_usd_per_hour,
        price_usd_per_month=o.price_usd if monthly else None,
        price_unit="month" if monthly else "hour",
        price_source=o.price_source,
        confidence=o.confidence,
        as_of=o.as_of or None,
        stale=o.stale,
        peak_memory_gib=o.peak_memory_gib,
        input_bound=o.input_bound,
        memory_verdict=MemoryVerdict.MAY_NOT_FIT if o.memory_uncertain else MemoryVerdict.FITS,
        memory_over=o.memory_over,
        memory_needed_gib=o.memory_needed_gib,
        memory_needed_gib_high=o.memory_needed_gib_high,
        usable_memory_gib=o.usable_memory_gib,
        deadline_miss_probability=o.deadline_miss_probability,
        checkpoint_interval_min=o.checkpoint_interval_min,
        expected_interruptions=o.expected_interruptions,
        spot=SpotDoc(**asdict(o.spot)) if o.spot else None,
        checkpoints=CheckpointsDoc(**asdict(o.checkpoints)) if o.checkpoints else None,
        compliance=list(o.compliance),
        compliance_claimed=list(o.compliance_claimed),
        kubernetes=o.kubernetes,
        flags=list(o.flags),
        implausible=list(o.implausible),
        assumptions=list(o.assumptions),
        service=_service_doc(o),
    )


def _day_doc(o: Option) -> ServiceDayDoc | None:
    d = o.service_day
    if d is None:
        return None
    return ServiceDayDoc(
        gpus_per_step=d.step,
        hours_per_month=list(d.hours),
        serving_hours_per_month=list(d.serving_hours),
        start_ups_per_day=d.start_ups,
        start_up_instance_hours_per_day=d.start_up_day_h,
        scale_down_delay_min=d.down_h * 60.0,
        share=min(1.0, d.share),
        per_replica_requests_per_s=d.per_replica_requests_per_s,
        start_up_min=d.start_up_h * 60.0,
        rise_min=d.rise_h * 60.0 if math.isfinite(d.rise_h) else None,
        follows=d.follows,
        priced=o.peak_fleet_cost_usd is not None,
        words=o.service_day_words,
        schedule=None
        if d.schedule is None
        else ScheduleDoc(
            hours=d.schedule.hours_text,
            days=[WEEKDAYS[i] for i in sorted(d.schedule.weekdays)],
            time_zone=d.schedule.zone,
            hours_per_week=d.schedule.hours_per_week,
        ),
    )


def _service_doc(o: Option) -> ServiceDoc | None:
    s = o.service
    if s is None:
        return None
    return ServiceDoc(
        requests_per_s=s.requests_per_s,
        mean_requests_per_s=s.mean_requests_per_s,
        replicas=s.replicas,
        replica_gpus=s.replica_gpus,
        tensor_parallel=s.tensor_parallel,
        tensor_parallel_chosen=s.tensor_parallel_chosen,
        replicas_per_gpu=s.replicas_per_gpu,
        replica_capacity_requests_per_s=s.replica_requests_per_s,
        capacity_requests_per_s=s.capacity_requests_per_s,
        utilisation=s.utilisation,
        p95_latency_s=s.p95_latency_s,
        p95_unknown=s.p95_unknown,
        p95_target_s=s.p95_target_s,
        ttft_p95_s=s.ttft_p95_s,
        ttft_target_s=s.ttft_target_s,
        tpot_s=s.tpot_s,
        tpot_target_s=s.tpot_target_s,
        users_in=list(s.users_in),
        users_rtt_ms=None if s.users_rtt_s is None else s.users_rtt_s * 1000.0,
        users_rtt_basis=s.users_rtt_basis or None,
    )


def _rate_doc(rate: ExchangeRate | None) -> ExchangeRateDoc | None:
    # report.catalog.rate_doc's fields; that module would load the catalog commands' documents too.
    fields_ = rate_fields(rate)
    return None if fields_ is None else ExchangeRateDoc(**fields_)


def _with_model_identity(workload: dict[str, Any]) -> dict[str, Any]:
    """``workload`` with what deploy needs of an ``hf_config`` model recorded beside the config's
    path (``model.hub_id``, ``family``, ``max_positions``), read from the config now: a plan
    deployed where the config is not (another machine, the planning service's saved plans) still
    runs the model on its engine, not a random stand-in of it."""
    model = workload.get("model")
    if not isinstance(model, dict) or not model.get("hf_config"):
        return workload
    from pathlib import Path

    from gpuplan.deploy.hub import config_identity  # lazy: a preset's plan needs none of deploy

    found = config_identity(Path(str(model["hf_config"])))
    recorded = {"hub_id": found.hub_id, "family": found.family, "max_positions": found.positions}
    # the workload's own hub_id (the weights it names) is kept over the config's _name_or_path
    kept = {k: v for k, v in recorded.items() if v is not None and model.get(k) is None}
    return {**workload, "model": {**model, **kept}}


def plan_json(
    plan: Plan,
    workload: dict[str, Any],
    cny: ExchangeRate | None = None,
    display_currency: str = "USD",
) -> PlanDocument:
    """The document ``gpuplan plan --json`` prints and ``gpuplan deploy`` reads; ``cny``: the
    catalog's CNY rate, stated in the document."""
    c = plan.constraints
    planned = PlanWorkload.model_validate(_with_model_identity(workload))
    return PlanDocument(
        display_currency=display_currency,  # type: ignore[arg-type]  # Currency codes: USD or CNY
        exchange_rate=_rate_doc(cny),
        workload=planned,
        # what deploy compares the workload with, to check again one edited after planning
        workload_sha256=workload_digest(planned.model_dump(mode="json")),
        objective=plan.objective.value,
        constraints=PlanConstraintsDoc(
            deadline_h=c.deadline_h,
            budget_usd=c.budget_usd,
            providers=list(c.providers) if c.providers else None,
            gpus=list(c.gpus) if c.gpus else None,
            regions=list(c.regions) if c.regions else None,
            countries=list(c.countries) if c.countries else None,
            hosts="provider" if c.provider_hosts_only else None,
            pricing=[PricingModel(p) for p in c.allowed_pricing],
            max_gpus=c.max_gpus,
            min_gpus=c.min_gpus,
            min_gpu_memory_gib=c.min_gpu_memory_gib,
            interconnect=c.interconnect,
            compliance=list(c.compliance) if c.compliance else None,
            commitment=c.commitment,
            upfront=c.upfront,
        ),
        recommended=option_json(plan.recommended),
        options=[option_json(o) for o in plan.options],
        pareto=[option_json(o) for o in plan.pareto],
        baseline=option_json(plan.baseline) if plan.baseline else None,
        baseline_note=plan.baseline_note,
        savings_vs_baseline_pct=plan.savings_vs_baseline_pct,
        excluded=dict(plan.excluded),
        personas=[
            PersonaDoc(
                persona=p.persona,
                rule=p.rule,
                option=option_json(p.option) if p.option else None,
                note=p.note or None,
            )
            for p in plan.personas
        ],
        why=list(plan.why),
        candidates=plan.candidates,
        feasible=plan.feasible,
        notes=list(plan.notes),
        network=plan.network,
        decided_by_unknowns=plan.decided_by_unknowns,
        host=plan.host,
        host_caution=plan.host_caution,
        stale_after_days=plan.stale_after_days,
        checkpoint_gb=plan.checkpoint_gb,
        checkpoint_write_min=plan.checkpoint_write_min,
        disk_gb=plan.disk_gb,
        launch_disk_gb=plan.launch_disk_gb,
        thin_memory_margin=plan.thin_memory_margin or None,
        without_stale_prices=None
        if (w := plan.without_stale_prices) is None
        else PlanWithoutStalePrices(
            option=option_json(w.option) if w.option else None, offers_left_out=w.left_out, note=w.words
        ),
    )


def plan_view(plan: Plan) -> Any:
    """A Rich renderable of ``plan`` (see ``report/plan_view.py``)."""
    from gpuplan.report.plan_view import plan_view as view

    return view(plan)


def _breakdown_doc(o: Option) -> CostBreakdownDoc:
    """The option's cost breakdown; a licence cost with an unknown fee in it is None, not its known part."""
    doc = CostBreakdownDoc(**asdict(o.cost_breakdown))
    if not doc.licence_unknown:
        return doc
    items = [i.model_copy(update={"cost_usd": None}) if i.component == "licences" else i for i in doc.items]
    return doc.model_copy(update={"licence_usd": None, "items": items})
