"""``tco``: a usage description over the catalog -> the cheapest commitment schedule, in one call.

from gpuplan.commit import tco
report = tco("examples/tco/steady-serving-bursty-training.yaml")
report.schedule.total_usd, report.schedule.savings_pct
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpuplan.catalog.open_catalog import DEFAULT_STALE_AFTER_DAYS
from gpuplan.catalog.rates import rate_warning
from gpuplan.catalog.upfront import with_upfront
from gpuplan.commit.adapters import (
    DemandSource,
    demands_from_usage,
    hold_runs_together,
    hosts_left_out,
    missing_prices,
    priced_offers,
    shift_notes,
)
from gpuplan.commit.crossings import border_notes, country_notes, places_bought
from gpuplan.commit.model import (
    BreakEvenBasis,
    Commitment,
    MissingPrice,
    PricedOffer,
    Schedule,
    TcoProblem,
)
from gpuplan.commit.optimise import optimise
from gpuplan.commit.usage import Usage, load_usage
from gpuplan.errors import GpuplanError, InfeasibleError, InputError
from gpuplan.i18n import N_, _
from gpuplan.i18n.numbers import per_usd, rate_source
from gpuplan.i18n.phrases import item_list, sentences
from gpuplan.units import CHECKPOINT_WRITE_SHARE
from gpuplan.vocab import HostRule, Upfront

if TYPE_CHECKING:
    from gpuplan.catalog import Store
    from gpuplan.catalog.model import ExchangeRate
    from gpuplan.commit.adapters import ReplicaLoadOf
    from gpuplan.i18n import Money

__all__ = ["TcoReport", "WithStalePrices", "tco"]

#: What every schedule assumes, stated in every report.
ASSUMPTIONS = (
    N_(
        "a month is 730 h; a committed unit supplies gpus_per_unit × 730 GPU-hours in each month of its "
        "term, used or not"
    ),
    N_(
        "a demand needs its GPUs at once during its hours, and a committed GPU serves one GPU-hour per "
        "hour: in every hour the GPUs in service (committed, plus those bought by the hour) cover the "
        "demands running then; the hours demands share are not known, so demands of one month are taken "
        "to run at the same time (their GPUs add up) unless their shifts differ, and a workload's runs "
        "follow one another"
    ),
    N_(
        "hourly capacity is unlimited, each demand's runs bought as whole instances at the cheapest price "
        "per GPU-hour used (a 1-GPU run on an 8-GPU instance pays for 8 GPUs; runs are not assumed to "
        "share an instance), a workload's only on instances its hours hold on (its demand line says which)"
    ),
    N_(
        "prices are today's catalog prices for every month; future months are not discounted to today's "
        "money (money now = money later), and "
        "a reservation's cost is its payment option's effective rate (constraints.upfront: none, "
        "partial or all) for every hour of its term, whenever it is paid: all upfront pays the "
        "whole term at its start, partial upfront a part at the start (the part is not known) and "
        "the rest hourly"
    ),
)


#: What the part of the total that is not GPU time covers, said beside it.
DATA_COVERS = N_(
    "what each run of a workload demand pays besides GPU time where it is placed, as the planner costs "
    "it: its dataset moved in from where it lives (free only in that region; for every run, or once "
    "into a copy kept in the region's object storage where that costs less over the horizon), its "
    "results sent back (a service: its answers to its clients, at the region's internet egress), storage "
    "for the run's hours and the region's listed licence fees (a service priced as the fleet its day "
    "needs: each instance's disk and fees for the hours it runs, as a replica scaled down is deleted "
    "with its disk; a copy in object storage is kept all month); the set-up is GPU time, in the GPU-hours"
)


@dataclass(frozen=True, kw_only=True)
class WithStalePrices:
    """The cheaper schedule that spot and commitment prices not known to be current (older than the
    staleness limit, or of unknown age) would give, shown beside the report's: spot prices move (a
    provider reprices them, a floor of last year may not hold), and a commitment locks its price in
    for its term (a 包月 or a reservation signed on a price of three years ago may not be offered at
    it), so the report's schedule is solved without them and a saving that rests on one is said
    beside it, as such: unknown is never the best case. Where the demand cannot be met without them
    (``needed``), the report's schedule is this one."""

    used: int
    """Stale spot and commitment prices the cheaper schedule uses."""
    left_out: int
    """Stale spot and commitment prices left out of the report's schedule (those used and the others)."""
    total_usd: float
    """The cheaper schedule's total (``needed``: the report's own)."""
    savings_pct: float | None
    needed: bool = False
    """The demand cannot be met without them: the report's schedule uses them."""
    stale: tuple[PricedOffer, ...] = ()
    """The stale prices the cheaper schedule uses, each once (``needed``: the report's own)."""
    offers: tuple[PricedOffer, ...] = ()
    """The prices the cheaper total buys at (hourly offers bought, commitments), each once: a figure
    the headline gives rests on them, so the report lists them with their dates (empty: ``needed``,
    the report's own prices)."""
    commitments: tuple[Commitment, ...] = ()
    """The commitments the cheaper schedule would buy (empty: ``needed``, the report's own), said
    beside the report's so that their prices can be checked before one is signed."""
    break_even_by_gpu: dict[str, dict[str, float]] = field(default_factory=dict)
    """The cheaper schedule's break-evens (:attr:`Schedule.break_even_by_gpu`), stale prices
    included: where a commitment has no price known to be current, the report's has none of it,
    and says this one beside it."""
    break_even_offers: dict[str, dict[str, PricedOffer]] = field(default_factory=dict)
    """The offer each of ``break_even_by_gpu`` is figured at (:attr:`Schedule.break_even_offers`)."""
    break_even_on_demand: dict[str, dict[str, BreakEvenBasis]] = field(default_factory=dict)
    """The on-demand price each of ``break_even_by_gpu`` is figured against, so that the line said
    beside the report's shows the prices it is the quotient of, as the report's own lines do."""


@dataclass(frozen=True, kw_only=True)
class TcoReport:
    """A usage description's schedule, with what the report needs to show it."""

    usage: Usage
    problem: TcoProblem
    schedule: Schedule
    demands: tuple[DemandSource, ...]
    money: Money
    """How amounts (computed in USD) are shown: the report currency at its dated rate."""
    notes: tuple[str, ...]
    cny_rate: ExchangeRate | None = None
    """The catalog's CNY rate (CNY prices were converted at it), stated in the JSON document."""
    missing: tuple[MissingPrice, ...] = ()
    """Pricing models allowed for a GPU demanded that have no usable price: their saving is unknown."""
    today: date | None = None
    """The day the prices are aged against (the catalog's today); None: ages not shown."""
    stale_after_days: int = DEFAULT_STALE_AFTER_DAYS
    """A price older than this is flagged stale (the catalog's limit)."""
    with_stale_prices: WithStalePrices | None = None
    """The cheaper total that stale prices of GPUs with a price known to be current would give,
    beside the schedule solved without them; None when the cheapest schedule uses none."""
    without_current_price: tuple[str, ...] = ()
    """GPU types demanded none of whose prices is known to be current: the schedule buys them at
    their stale prices, every pricing model alike (as the plan recommends on them), and the total on
    prices known to be current is unknown."""
    budget_usd: float | None = None
    """What the user has for the horizon (``--budget``), USD: the total is said against it; None:
    not given."""
    budget_cny: float | None = None
    """The same budget as the user gave it in yuan (``--budget ¥60,000,000``), ``budget_usd`` being
    it at ``cny_rate``: the report says it was read as yuan, and at which rate; None: given in
    dollars, or not given."""

    @property
    def currency(self) -> str:
        """Report currency code (``USD`` or ``CNY``)."""
        return self.money.currency


def tco(
    usage: Usage | str | Path | dict[str, Any],
    *,
    store: Store | None = None,
    db: str | None = None,
    currency: str | None = None,
    project: str | Path | None = None,
    allow_code: bool = False,
    countries: Sequence[str] | None = None,
    upfront: str | None = None,
    hosts: str | None = None,
    replica_load: ReplicaLoadOf | None = None,
    budget_usd: float | None = None,
    budget_cny: float | None = None,
) -> TcoReport:
    """The cheapest mix of commitments, on-demand and spot for ``usage`` over the catalog.

    ``store``: an open catalog; else ``db`` (path or URL; None = the user's default database) is
    opened and closed here. ``currency`` overrides the usage file's. ``project``: the folder the
    usage's workload files may lie in (else its own folder, see :meth:`Usage.from_yaml`);
    ``allow_code``: whether a workload whose model is code may be imported and traced.
    ``countries`` (ISO codes or names), when given, replaces the usage's ``constraints.countries``;
    ``upfront`` (``none``, ``partial``, ``all``) its ``constraints.upfront``; ``hosts``
    (``provider``: only machines a provider runs; ``any``) its ``constraints.hosts``. ``replica_load``: the
    load ``deploy``'s autoscaler holds a service's replica at (:func:`gpuplan.api.tco` passes
    :func:`gpuplan.api.launch_replica_load`); None: the plan's capacity of one at deploy's share.
    ``budget_usd``: what the user has for the whole horizon, USD; the report says the total against it.
    ``budget_cny``: the same budget as given in yuan, where it was (``budget_usd`` is it converted at
    the catalog's CNY rate): the report says how it was read.
    """
    from gpuplan.catalog import display_money, open_store
    from gpuplan.i18n import use_money
    from gpuplan.plan.constraints import Constraints
    from gpuplan.plan.contradictions import check_regions

    u = _with_countries(load_usage(usage, project=project), countries)
    # the command line's choice replaces the file's; a typo fails here, in one line
    chosen = {
        field: kind.cast(value).value
        for field, kind, value in (("upfront", Upfront, upfront), ("hosts", HostRule, hosts))
        if value is not None
    }
    if chosen:
        u = u.model_copy(update={"constraints": u.constraints.model_copy(update=chosen)})
    own = store is None
    st = open_store(db) if store is None else store
    try:
        # A misspelt region is said as plan says it (did you mean …), before any workload is traced,
        # not as a demand that no price within the constraints can meet.
        try:
            check_regions(
                Constraints(providers=u.constraints.providers or None, regions=u.constraints.regions or None),
                st,
            )
        except GpuplanError as e:
            if not u.source:
                raise
            # the file's name first, as its other errors give it
            # TRANSLATORS: a plan or workload file, and the error one of its names gave
            raise InputError.worded(N_("{source}: {error}"), source=u.source, error=e) from e
        money = display_money(st, currency or u.currency)
        # the prices assumed for a run's data, and the offers' sources' list price of a discount:
        # in the money the report is shown in
        with use_money(money):
            demands, sources = demands_from_usage(u, st, allow_code=allow_code, replica_load=replica_load)
            gpus = tuple(dict.fromkeys(d.gpu for d in demands))
            # a reservation paid partly or all upfront: its effective rate where the catalog has it
            prices = with_upfront(st.offers(include_unpriced=False), u.constraints.upfront)
            offers, offer_notes = priced_offers(prices, u, gpus)
            hosts_out = hosts_left_out(prices, u, gpus)
            demands, sources = hold_runs_together(demands, sources, offers)
        # Prices published in another currency were converted to USD at the catalog's dated rate.
        converted = sorted({o.currency for o in offers if o.currency != "USD"})
        rates = [r for r in (st.find_exchange_rate(c) for c in converted) if r is not None]
        cny_rate = st.find_exchange_rate("CNY")
        today, stale_after = st.today, st.stale_after_days
    finally:
        if own:
            st.close()
    problem = TcoProblem(
        horizon_months=u.horizon_months,
        demands=demands,
        offers=offers,
        past_horizon=u.past_horizon,
        demand_changes_pct=(-u.sensitivity_pct, 0.0, u.sensitivity_pct),
    )
    try:
        problem, schedule, beside = _fresh_first(problem, today or date.today(), stale_after)
    except InfeasibleError as e:
        raise _named_hosts_rule(e, hosts_out) from e
    missing = missing_prices(prices, u, demands, offers)
    # A rate is named, with its age warning, only when a price the schedule uses was converted with it.
    used = {o.currency for o in (*(c.offer for c in schedule.commitments), *schedule.hourly_used.values())}
    rates = [r for r in rates if r.currency in used]
    notes = [
        *offer_notes,
        *shift_notes(demands),
        *(_(a) for a in ASSUMPTIONS),
        *_data_notes(problem, schedule),
        *border_notes(problem, schedule),
        *country_notes(problem, schedule),
        *_firm_notes(problem, u),
        *_own_hosts_notes(problem, u),
    ]
    notes += [
        sentences(
            _(
                "prices in {currency} converted to USD at 1 USD = {rate} {currency} ({as_of}; {source})"
            ).format(
                currency=r.currency, rate=per_usd(r.usd_per_unit), as_of=r.as_of, source=rate_source(r.source)
            ),
            rate_warning(r) or "",
        )
        for r in rates
    ]
    notes.append(_("solver: {solver}").format(solver=schedule.solver))
    return TcoReport(
        usage=u,
        problem=problem,
        schedule=schedule,
        demands=sources,
        money=money,
        notes=tuple(notes),
        cny_rate=cny_rate,
        missing=missing,
        today=today,
        stale_after_days=stale_after,
        with_stale_prices=beside,
        without_current_price=gpus_without_current_price(problem.offers, today or date.today(), stale_after),
        budget_usd=budget_usd,
        budget_cny=budget_cny,
    )


def _demands_said(names: Sequence[str], template: str, **fields: object) -> list[str]:
    """``template`` (marked with ``N_``: ``{names}`` and ``fields``) said of the demands ``names``, in
    the current language; none where there are none."""
    return [_(template).format(names=item_list(names), **fields)] if names else []


def _data_notes(problem: TcoProblem, schedule: Schedule) -> list[str]:
    """What the total counts besides GPU time, for which demands, and where it rests on an assumed
    price."""
    notes = []
    sized = [d for d in problem.demands if d.run_data]
    if sized:
        notes.append(_("besides GPU time, the total counts {covers}").format(covers=_(DATA_COVERS)))
        if any(o.is_commitment for o in problem.offers):
            notes.append(
                _(
                    "a workload demand's hours on committed GPUs pay what its runs pay besides GPU time in "
                    "the dearest region of the commitment offers (which committed GPU serves which run is "
                    "not modelled)"
                )
            )
        # what was assumed where the schedule places the runs: hourly offers and commitments bought
        for d in sized:
            used = places_bought(schedule, d)
            for r in d.run_data:
                if (r.provider, r.region) in used:
                    notes += [
                        _("{name} in {where}: {what}").format(
                            name=d.name, where=f"{r.provider}/{r.region}", what=a
                        )
                        for a in r.assumptions
                    ]
    notes += [
        _("{name} in {where}: {what}").format(name=c.demand, where=f"{c.provider}/{c.region}", what=a)
        for c in schedule.data_copies
        if c.kept
        for a in c.assumptions
    ]
    scratch = [
        d.name for d in problem.demands if d.interruptible and d.restarts_from_scratch and not d.run_data
    ]
    notes += _demands_said(
        scratch,
        N_(
            "{names}: interruptible without checkpoint_gb, so not known to resume: on spot an "
            "interruption restarts a run from its beginning (give checkpoint_gb, or 0 for work "
            "without state to save)"
        ),
    )
    writes = [d.name for d in problem.demands if d.checkpoint_hours_off_spot > 0]
    notes += _demands_said(
        writes,
        N_(
            "{names}: a run's hours on demand and on a commitment include the checkpoints its launch "
            "writes every 30 min (longer where the writes would take more than {share} of the run, or "
            "the workload's checkpoint.every_min), each write stopping every GPU, as the planner costs "
            "them; on spot it writes at the interval the planner costs it at (Young/Daly's, or the "
            "workload's where shorter)"
        ),
        share=f"{CHECKPOINT_WRITE_SHARE:.0%}",
    )
    recopies = [d.name for d in problem.demands if d.interruptible and d.recopy_h > 0]
    notes += _demands_said(
        recopies,
        N_(
            "{names}: on spot each restart copies the dataset onto the new instances' disks again, its "
            "time and its transfer in from where it lives (free from a copy kept in the region), as the "
            "planner costs it: whether a reclaim keeps the disks is not known, so they are taken to be "
            "lost; best case, they survive and a restart copies nothing"
        ),
    )
    direct = [d.name for d in problem.demands if not d.run_data]
    notes += _demands_said(
        direct,
        N_(
            "{names}: given in GPU-hours, with no data facts: their data transfer, storage and set-up "
            "are not counted (GPU time only); give a workload file to count them"
        ),
    )
    return notes


def _firm_notes(problem: TcoProblem, usage: Usage) -> list[str]:
    """Where the usage allows spot: the demands that do not run there, and why (a plan of the same
    workload may recommend spot, and the two totals would differ without a word), and the services
    that may, priced as the plan prices a service on spot (its spare unit)."""
    if "spot" not in usage.constraints.pricing:
        return []
    notes = []
    specs = {s.name: s for s in usage.demands}
    firm = [specs[d.name] for d in problem.demands if not d.interruptible]
    notes += _demands_said(
        [s.name for s in firm if s.interruptible is False],
        N_("{names}: not run on spot although the usage allows it: interruptible: false in the usage"),
    )
    notes += _demands_said(
        [s.name for s in firm if s.interruptible is None and s.workload is not None],
        N_(
            "{names}: not run on spot although the usage allows it: no checkpoint, so a reclaim would "
            "restart a run from its beginning; interruptible: true runs it there all the same"
        ),
    )
    notes += _demands_said(
        [s.name for s in firm if s.interruptible is None and s.workload is None],
        N_(
            "{names}: not run on spot although the usage allows it: given in GPU-hours, not said to "
            "checkpoint and resume; interruptible: true lets a demand run there"
        ),
    )
    services = [d.name for d in problem.demands if d.interruptible and d.spare_replica_gpus > 0]
    notes += _demands_said(
        services,
        N_(
            "{names}: a service may run on spot, as gpuplan plan prices it and gpuplan deploy "
            "launches it: with a spare unit (the fewest instances holding one replica) running "
            "beside its fleet all its hours, which keeps the load target through a reclaim; "
            "interruptible: false keeps it off spot"
        ),
    )
    return notes


def _own_hosts_notes(problem: TcoProblem, usage: Usage) -> list[str]:
    """Per workload demand whose own ``constraints.hosts: provider`` holds where the usage's does
    not: the offer rows of its GPU its hours are kept off by that rule alone (community hosts and
    hosts of unknown kind), counted as the usage's rule counts its own."""
    if usage.constraints.provider_hosts_only:
        return []  # every row it would leave out is left out, and counted, with the usage's
    notes = []
    for d in problem.demands:
        if d.host is None or not d.host.provider_run:
            continue
        anywhere = replace(d.host, provider_run=False)
        n = sum(1 for o in problem.offers if o.gpu == d.gpu and anywhere.allows(o) and not d.allows(o))
        if n:
            notes.append(
                _(
                    "{name}: its workload's constraints.hosts: provider keeps its hours off {n} offer row(s) "
                    "of {gpu} on community hosts or hosts of unknown kind (cheaper prices may be among them)"
                ).format(name=d.name, n=n, gpu=d.gpu)
            )
    return notes


def _named_hosts_rule(error: InfeasibleError, left_out: int) -> InfeasibleError:
    """``error`` (no price left to meet a demand) with what ``constraints.hosts: provider`` left out
    beside it, as plan's refusal names its hosts filter: the rows it kept out may meet the demand;
    as it is where the rule left out none."""
    if left_out == 0:
        return error
    return InfeasibleError.worded(
        N_(
            "{error}; constraints.hosts: provider left out {n} offer row(s) of the GPUs demanded on "
            "community hosts or hosts of unknown kind, which may meet it: run with --hosts any to see "
            "them priced"
        ),
        error=error,
        n=f"{left_out:,}",
    )


def _with_countries(usage: Usage, countries: Sequence[str] | None) -> Usage:
    """``usage`` with its countries replaced by ``countries`` read as the plan's ``--countries`` are
    (a typo gets "did you mean"); as it is when None."""
    from gpuplan.i18n.countries import country_codes

    if countries is None:
        return usage
    codes = tuple(dict.fromkeys(code for c in countries for code in country_codes(c)))
    return usage.model_copy(update={"constraints": usage.constraints.model_copy(update={"countries": codes})})


def _stale(offer: PricedOffer, today: date, limit_days: int) -> bool:
    """A price not known to be within the staleness limit (older, or undated; a spot floor is
    judged by its own day), whatever its pricing model."""
    from gpuplan.catalog.dates import price_age
    from gpuplan.hardware import launch_month

    as_of = offer.floor_as_of or offer.as_of
    return price_age(as_of, today, limit_days, launch_month(offer.gpu)).stale


def gpus_without_current_price(
    offers: Sequence[PricedOffer], today: date, limit_days: int
) -> tuple[str, ...]:
    """The GPU types none of whose ``offers`` is known to be current: every price of them is stale or
    undated, so the total rests on them and its figure on prices known to be current is unknown."""
    gpus = dict.fromkeys(o.gpu for o in offers)
    current = {o.gpu for o in offers if not _stale(o, today, limit_days)}
    return tuple(g for g in gpus if g not in current)


def _held_out(offer: PricedOffer, today: date, limit_days: int, unknown: tuple[str, ...]) -> bool:
    """Whether the report's schedule is solved without ``offer``: a price not known to be current
    (on demand, spot or a commitment alike) of a GPU that has a price known to be current. A GPU
    with none keeps all its prices, each of the same unknown age, as ``gpuplan plan`` recommends on
    them: dropping its stale spot price and keeping its equally stale on-demand one would size the
    demand on one price and buy it at another."""
    return offer.gpu not in unknown and _stale(offer, today, limit_days)


def _bought(schedule: Schedule) -> tuple[PricedOffer, ...]:
    """The prices ``schedule`` buys at (hourly offers bought, commitments), each once: an hourly
    offer weighed and not bought (on demand costs less per useful hour) moves no figure."""
    hourly = [schedule.hourly_used[key] for key in schedule.hourly_bought]
    return tuple(dict.fromkeys([*hourly, *(c.offer for c in schedule.commitments)]))


def _fresh_first(
    problem: TcoProblem, today: date, limit_days: int
) -> tuple[TcoProblem, Schedule, WithStalePrices | None]:
    """The report's problem and schedule, and the cheaper total stale prices would give.

    The cheapest schedule over every price comes first; where it buys a price not known to be
    current of a GPU that has one known to be current (:func:`_held_out`: on demand, spot or a
    commitment alike), the report's schedule is solved again without any such price (its month
    table, saving, commitments and sensitivity rest on prices known to be current) and the cheaper
    total is said beside it, with the commitments it would buy. A GPU with no price known to be
    current keeps all of its prices alike, as the plan does (the report says its figure on prices
    known to be current is unknown). Where the demand cannot be met without them, the cheapest is
    kept and said so."""
    cheapest = optimise(problem)
    unknown = gpus_without_current_price(problem.offers, today, limit_days)
    used = tuple(o for o in _bought(cheapest) if _held_out(o, today, limit_days, unknown))
    if not used:
        return problem, cheapest, None
    kept = tuple(o for o in problem.offers if not _held_out(o, today, limit_days, unknown))
    left_out = len(problem.offers) - len(kept)
    fresh = replace(problem, offers=kept)
    beside = WithStalePrices(
        used=len(used),
        left_out=left_out,
        total_usd=cheapest.total_usd,
        savings_pct=cheapest.savings_pct,
        stale=used,
        offers=_bought(cheapest),
        commitments=cheapest.commitments,
        break_even_by_gpu=cheapest.break_even_by_gpu,
        break_even_offers=cheapest.break_even_offers,
        break_even_on_demand=cheapest.break_even_on_demand,
    )
    try:
        schedule = optimise(fresh)
    except InfeasibleError:
        return problem, cheapest, replace(beside, needed=True, offers=(), commitments=())
    return fresh, schedule, beside
