"""``plan_workload``: the planner over the real catalog store and estimator."""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any

from gpuplan.catalog.rates import rate_warning
from gpuplan.catalog.upfront import with_upfront
from gpuplan.errors import GpuplanError, InputError, NotFoundError, Phrase
from gpuplan.i18n import N_, _
from gpuplan.i18n.numbers import per_usd
from gpuplan.i18n.phrases import either, listed, sentences
from gpuplan.plan.build_inputs import (
    budget_in_usd,
    constraints_from_spec,
    cost_facts_from_store,
    job_facts_from,
    make_estimator,
    offer_table_from_prices,
)
from gpuplan.plan.contradictions import check_constraints
from gpuplan.plan.network import checked_given_network, given_network_note, with_given_network
from gpuplan.plan.planner import BaselineSpec, PlanInfeasibleError, plan_offers
from gpuplan.plan.result import Option, Plan

if TYPE_CHECKING:
    from collections.abc import Sequence

    from gpuplan.catalog import Store
    from gpuplan.catalog.model import OfferPrice
    from gpuplan.perf.calibration import Calibration
    from gpuplan.perf.replica_load import ReplicaLoad
    from gpuplan.plan.measured_rate import MeasuredRate
    from gpuplan.plan.service_day import WorkloadLoadFn
    from gpuplan.profile.model import Profile
    from gpuplan.workload import Workload

__all__ = ["check_data_location", "check_plan_constraints", "plan_workload"]


def _check_location(location: tuple[str, str], store: Store) -> None:
    """``data.location`` must name a real region of a known provider: a typo would otherwise price
    the dataset's transfer with assumed prices instead of stopping."""
    from gpuplan.catalog.providers import facts

    provider, region = location
    try:
        regions = facts(provider).regions
    except NotFoundError as e:
        raise NotFoundError("provider", provider, e.suggestions or [], hint=N_("in data.location")) from None
    known = {r.code for r in regions} | set(store.regions(provider))
    if region not in known:
        _refuse_city(provider, region)
        raise NotFoundError(
            "region",
            region,
            sorted(known),
            hint=Phrase(
                N_("data.location {provider}/{region}: not a region of {provider}"),
                provider=provider,
                region=region,
            ),
        )


def _refuse_city(provider: str, region: str) -> None:
    """``data.location``'s region written as a city (``alibaba/杭州``, ``aws/tokyo``): refused with
    the provider's regions there, or the other clouds' where it has none; returns where ``region``
    is no city of a known region."""
    from gpuplan.catalog.region_aliases import regions_in_city

    found = regions_in_city(region)
    if not found:
        return
    own = [f"{p}/{r}" for p, r, _c in found if p == provider]
    if own:
        raise InputError.worded(
            N_("data.location {provider}/{region}: {region!r} is a city, not a region; write {choices}"),
            provider=provider,
            region=region,
            choices=either(own),
        )
    raise InputError.worded(
        N_(
            "data.location {provider}/{region}: {region!r} is a city, not a region, and {provider} has no "
            "region there (other clouds' regions there: {others})"
        ),
        provider=provider,
        region=region,
        others=listed(f"{p}/{r}" for p, r, _c in found),
    )


def check_data_location(workload: Workload, store: Store) -> None:
    """Raise now, before any tracing, what ``data.location`` would end a plan in: a provider or a
    region of it that is unknown (the planner's own check, on the workload alone)."""
    data = workload.data
    if data is not None and data.location:
        provider, region = data.location.split("/", 1)
        _check_location((provider.lower(), region), store)


def check_plan_constraints(workload: Workload, overrides: dict[str, Any] | None, store: Store) -> None:
    """Raise now, before any tracing, what the constraints (the workload's with ``overrides`` on top)
    would end a plan in: a value out of range, a name that is unknown, or constraints that contradict
    each other (``plan.contradictions``); then an unknown ``data.location``."""
    given, _note = budget_in_usd(workload.constraints, overrides or {}, store.find_exchange_rate("CNY"))
    check_constraints(constraints_from_spec(workload.constraints, **given), store)
    check_data_location(workload, store)


def plan_workload(
    workload: Workload,
    profile: Profile,
    store: Store,
    *,
    overrides: dict[str, Any] | None = None,
    top: int = 10,
    baseline: BaselineSpec | None = None,
    unknown_costs: str = "assume",
    storage: str = "block",
    egress_free_tier: bool = False,
    network_gbps: float | None = None,
    network_kind: str | None = None,
    replica_load: WorkloadLoadFn | None = None,
    copy_gbps: float | None = None,
    measured: MeasuredRate | None = None,
) -> Plan:
    """Rank every way to run ``workload`` over every offer in ``store``.

    ``overrides`` replace the workload's constraints field by field (``deadline_h``, ``budget_usd``,
    ``providers``, ``gpus``, ``regions``, ``countries``, ``hosts`` (``provider``: only
    hosts a provider runs; ``any``), ``pricing``, ``max_gpus``, ``min_gpus`` (the
    fewest GPUs in all; a service's, its whole fleet's), ``min_gpu_memory_gib``, ``interconnect``,
    ``compliance``, ``commitment``, ``upfront``, ``objective``, and ``budget_cny``: a
    budget in yuan, converted at the catalog's dated rate, the conversion among the plan's notes);
    None values are ignored.
    ``storage``: ``block`` (a disk per node holds the dataset and checkpoints) or ``object`` (one
    bucket). ``egress_free_tier``: the account's monthly free egress is unused and may pay for the
    job's first GBs (default: every GB priced). ``network_gbps`` (Gbit/s per instance) and
    ``network_kind`` (``rdma`` or ``tcp``; TCP where not given): the network between the nodes of
    the instances the catalog gives none, which are otherwise ranked at the slowest GPU network
    (a network the catalog states is kept; the plan's notes say which was taken where). Raises
    ``InfeasibleError`` naming the binding constraint when nothing is feasible.
    ``replica_load``: the load ``deploy``'s autoscaler holds a service's replica at
    (:func:`gpuplan.api.replica_load_on`), which a service that follows its day is priced by
    (``plan/service_day.py``); None: the plan's capacity of one at deploy's share.
    ``copy_gbps``: the rate the user measured copying the dataset onto an instance's disk, GB/s,
    in place of the workload's ``data.copy_gbps`` (:meth:`Workload.with_copy_gbps`).
    ``measured``: a throughput the team measured on one GPU configuration
    (:func:`gpuplan.plan.measured_rate.checked_measured_rate`): each option's job time, and so its
    deadline and cost, scaled by it as ``plan/measured_rate.py`` says.
    """
    workload = workload.with_copy_gbps(copy_gbps)
    if storage not in ("block", "object"):
        raise InputError.worded(N_("storage must be 'block' or 'object', got {storage!r}"), storage=storage)
    # A budget in yuan (--budget-cny, constraints.budget_cny) is planned in USD at the catalog's
    # dated rate; the plan's notes state the conversion.
    given, budget_note = budget_in_usd(workload.constraints, overrides or {}, store.find_exchange_rate("CNY"))
    constraints = constraints_from_spec(workload.constraints, **given)
    check_constraints(constraints, store)
    # A reservation paid partly or all upfront: its effective rate where the catalog carries it.
    prices = with_upfront(store.offers(include_unpriced=True), constraints.upfront)
    given_gbps, given_kind = checked_given_network(network_gbps, network_kind)
    table = with_given_network(offer_table_from_prices(prices), given_gbps, given_kind)
    job, job_notes = job_facts_from(workload, profile)
    job = replace(job, storage_kind=storage, egress_free_tier=egress_free_tier)
    if job.data_location is not None:
        _check_location(job.data_location, store)
    regions = {(p.provider, p.region) for p in prices}
    if job.data_location is not None:
        regions.add(job.data_location)
    facts = cost_facts_from_store(store, regions)
    from gpuplan.perf import load_calibration
    from gpuplan.perf.anchor import workload_measurements

    # GPUs measured by `gpuplan bench` into this store use their measured efficiency.
    calibration = load_calibration().with_measurements(store.local.bench_results())
    # The workload's own steps measured by `gpuplan measure` anchor every offer's estimate.
    steps, _skipped = workload_measurements(workload, store.local.step_measurements)
    rate = None
    if measured is not None:
        from gpuplan.plan.measured_rate import rate_scaling

        rate = rate_scaling(measured, workload, profile, calibration, tuple(steps))
    estimate_fn, est_notes = make_estimator(
        workload, profile, calibration, measured_steps=tuple(steps), rate=rate
    )
    rates = sorted(
        {
            (p.currency, p.exchange_rate_usd_per_unit, p.exchange_rate_as_of)
            for p in prices
            if p.currency and p.currency != "USD" and p.exchange_rate_usd_per_unit is not None
        }
    )
    rate_notes = [
        (
            c,
            sentences(
                _("{currency} prices converted at 1 USD = {rate} {currency} (as of {date})").format(
                    currency=c, rate=per_usd(r), date=d or "?"
                ),
                rate_warning(store.find_exchange_rate(c)) or "",
            ),
        )
        for c, r, d in rates
    ]
    try:
        plan = plan_offers(
            table,
            facts,
            job,
            estimate_fn,
            constraints,
            top=top,
            baseline=baseline,
            unknown_costs=unknown_costs,
            notes=(*filter(None, [budget_note]), *job_notes, *est_notes, *(note for _c, note in rate_notes)),
            stale_after_days=store.stale_after_days,
            replica_load=None
            if replica_load is None
            else partial(_bound_load, replica_load, workload, profile),
        )
    except PlanInfeasibleError as e:
        advised = _with_fit_advice(e, workload, profile, calibration)
        if advised is e:
            raise
        raise advised from e
    # A rate is named, with its age warning, only when an option the plan shows was priced with it.
    shown = _currencies_shown(plan, prices)
    unused = {note for c, note in rate_notes if c not in shown}
    given_note = given_network_note(
        [*plan.options, *plan.pareto, plan.recommended], table, given_gbps, given_kind
    )
    return replace(
        plan,
        notes=(*(n for n in plan.notes if n not in unused), *filter(None, [given_note])),
        thin_memory_margin=_thin_margin(plan, profile),
    )


#: A "no option is left" line for memory, with the changes the estimate's advisor finds fit one of
#: the GPUs left out (``perf/advisor.py``, as ``gpuplan estimate`` lists them with their figures).
_FIT_CHANGES = N_("{line}: on one {gpu}, {changes}")
#: Changes named on the line, at most: the estimate lists the rest with their figures.
_FIT_CHANGES_SHOWN = 2


def _with_fit_advice(
    error: PlanInfeasibleError, workload: Workload, profile: Profile, calibration: Calibration
) -> PlanInfeasibleError:
    """``error`` with the changes that make the job fit one of ``error.fit_gpu`` (the estimate's own
    advice, derived from the traced profile in a fraction of a second), or ``error`` itself where it
    names no GPU or no change fits one. The figures are left to ``gpuplan estimate``, which traces
    checkpointing and combined changes where this derives them."""
    if error.fit_gpu is None:
        return error
    from gpuplan.hardware import get_gpu
    from gpuplan.perf import request_for
    from gpuplan.perf.advisor import Current, advise

    try:
        gpu = get_gpu(error.fit_gpu)
        advice = advise(
            request_for(workload, profile, gpu, calibration=calibration), current=Current.of(workload)
        )
    except GpuplanError:
        return error
    changes = [a.summary for a in advice if a.fits and a.gpu == gpu.id and a.gpu_count == 1]
    if not changes:
        return error
    advised = PlanInfeasibleError.worded(
        _FIT_CHANGES, line=error, gpu=gpu.id, changes=either(changes[:_FIT_CHANGES_SHOWN])
    )
    advised.excluded, advised.fit_gpu = error.excluded, error.fit_gpu
    return advised


def _bound_load(
    load: WorkloadLoadFn,
    workload: Workload,
    profile: Profile,
    gpu: str,
    tensor_parallel: int,
    capacity: float,
    latency: float | None,
) -> ReplicaLoad | None:
    """``load`` for this plan's own workload and profile (``plan/service_day.py``'s ``LoadFn``)."""
    return load(workload, profile, gpu, tensor_parallel, capacity, latency)


def _thin_margin(plan: Plan, profile: Profile) -> str:
    """What the ranked options that fit with little memory to spare are told to change if they run
    out of memory all the same, as ``gpuplan estimate`` tells it; "" where none does. One clause a
    GPU and node shape (the margin is a GPU's, whichever offer sells it), naming the options it
    concerns by their rank in the table, and the first of them by its label: the line is printed
    beside the options, and an option other than the recommended one is not to be read as the
    recommendation's risk."""
    from gpuplan.perf.memory_margin import thin_margin_words

    ranks: dict[str, list[int]] = {}
    thin: dict[str, tuple[float, float, Option]] = {}
    for rank, o in enumerate(plan.options, 1):
        need, usable = o.memory_needed_gib_high, o.usable_memory_gib
        if not o.memory_thin or need is None or usable is None:
            continue
        gpu = o.gpu if o.gpu_count == 1 else f"{o.gpu_count}× {o.gpu}"
        ranks.setdefault(gpu, []).append(rank)
        thin.setdefault(gpu, (need, usable, o))
    said = [
        (_thin_option_words(gpu, ranks[gpu], first), need, usable)
        for gpu, (need, usable, first) in thin.items()
    ]
    return thin_margin_words(profile, said) or ""


def _thin_option_words(gpu: str, ranks: Sequence[int], first: Option) -> str:
    """``option #7, aws/eu-north-1 g6e.48xlarge spot: 8× L40S``, or ``options #1–#3, #7: 8× L40S``
    where the shape is thin on several ranked options."""
    runs: list[list[int]] = []
    for r in ranks:  # consecutive ranks as one run: #1–#9, not nine numbers
        if runs and runs[-1][-1] == r - 1:
            runs[-1].append(r)
        else:
            runs.append([r])
    numbers = _(", ").join(f"#{run[0]}" + (f"–#{run[-1]}" if len(run) > 1 else "") for run in runs)
    if len(ranks) == 1:
        return _("option {rank}, {label}: {gpu}").format(rank=numbers, label=first.label, gpu=gpu)
    return _("options {ranks}: {gpu}").format(ranks=numbers, gpu=gpu)


def _currencies_shown(plan: Plan, prices: Sequence[OfferPrice]) -> set[str]:
    """The currencies the prices of the options ``plan`` shows were published in."""
    currency = {(p.provider, p.region, p.instance_type, p.pricing): p.currency for p in prices}
    shown = [
        plan.recommended,
        *plan.options,
        *plan.pareto,
        *([plan.baseline] if plan.baseline is not None else []),
        *(pick.option for pick in plan.personas if pick.option is not None),
    ]
    return {c for o in shown if (c := currency.get((o.provider, o.region, o.instance_type, o.pricing)))}
