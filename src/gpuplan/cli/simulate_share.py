"""``gpuplan simulate share``: pack inference services onto GPUs (whole, MIG, time-slicing, MPS)."""

from __future__ import annotations

import json
import math
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from gpuplan.catalog.gates import MAX_GPUS_PER_INSTANCE, MAX_USD_PER_GPU_HOUR, MIN_USD_PER_GPU_HOUR
from gpuplan.cli._access import AllowCodeOption, ProjectOption
from gpuplan.cli._files import write_text_atomic
from gpuplan.cli._given_price import GivenPrice, given_price_in, price_usd
from gpuplan.cli._i18n import (
    CnyPerUsdOption,
    CurrencyOption,
    ForceRateOption,
    LangOption,
    UsdPerCnyOption,
    apply_language,
    console,
    currency_shown,
)
from gpuplan.cli._numbers import finite_float, whole_number
from gpuplan.cli._places import CountriesOption, ProvidersOption, RegionsOption
from gpuplan.cli._simulate_common import check_currency, check_out, display_money_for, open_store
from gpuplan.errors import DeployError, InputError, Phrase
from gpuplan.i18n import N_, _, ngettext
from gpuplan.i18n.phrases import item_list

if TYPE_CHECKING:
    from collections.abc import Mapping

    from gpuplan.catalog import OfferPrice, Store
    from gpuplan.confine import Folder
    from gpuplan.i18n import Money
    from gpuplan.simulate.inputs import ServicesFile
    from gpuplan.simulate.share import ServiceDemand, ServiceOutcome, SharePlan

__all__ = ["add_share"]


#: The Chinese names of the ways to share a GPU, as the Chinese help says them.
_SHARING_WORDS = {"整卡": "whole", "时间片": "time-slice"}


def add_share(app: typer.Typer) -> None:
    """Add ``share`` to the ``simulate`` group."""
    app.command("share")(share_cmd)


def share_cmd(
    ctx: typer.Context,
    services_file: Annotated[
        Path, typer.Argument(help="services.yaml: the services to place.", metavar="SERVICES")
    ],
    gpu: Annotated[
        str | None, typer.Option("--gpu", "-g", help="GPU to pack onto (default: the file's gpu:).")
    ] = None,
    sharing: Annotated[
        str, typer.Option("--sharing", help="mig, time-slice, mps, whole, or best (fewest GPUs).")
    ] = "best",
    target: Annotated[
        float, typer.Option("--target", help="Busy share each instance is sized for.", parser=finite_float)
    ] = 0.8,
    time_slice_penalty: Annotated[
        float,
        typer.Option(
            "--time-slice-penalty",
            help="Throughput lost to time-slicing (assumed 0.10).",
            parser=finite_float,
        ),
    ] = 0.10,
    given_price: Annotated[
        GivenPrice | None,
        typer.Option(
            "--price",
            help="Price per GPU-hour with its currency: ¥8.5, 8.5 CNY or $1.2 (a bare number is USD, "
            "and refused with --currency CNY). Default: the catalog's cheapest on-demand.",
            # above no list price (a larger figure is a unit slip); 0 or less is no price
            parser=given_price_in(MIN_USD_PER_GPU_HOUR, MAX_USD_PER_GPU_HOUR),
            metavar="PRICE",
        ),
    ] = None,
    # as plan takes them, for the offers the GPUs are priced on
    providers: ProvidersOption = None,
    regions: RegionsOption = None,
    countries: CountriesOption = None,
    k8s_out: Annotated[
        Path | None, typer.Option("--k8s-out", help="Write the Kubernetes configuration into this directory.")
    ] = None,
    gpus_per_node: Annotated[
        int | None,
        typer.Option(
            "--gpus-per-node",
            help="--k8s-out: GPUs per node of your cluster (default: the file's gpus_per_node:, else the "
            "priced instance's).",
            parser=whole_number(1, MAX_GPUS_PER_INSTANCE),
            show_default=False,
        ),
    ] = None,
    out: Annotated[Path | None, typer.Option("--out", help="Also write an HTML report.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the stable JSON document.")] = False,
    lang: LangOption = None,
    currency: CurrencyOption = "USD",
    usd_per_cny: UsdPerCnyOption = None,
    cny_per_usd: CnyPerUsdOption = None,
    force_rate: ForceRateOption = False,
    project: ProjectOption = None,
    allow_code: AllowCodeOption = False,
) -> None:
    """Pack services, notebooks and experiments onto GPUs (whole, MIG, time-slicing, MPS): GPUs, cost, k8s."""
    apply_language(lang)
    check_out(out)
    currency = check_currency(currency)
    places = _Places(providers=providers, regions=regions, countries=countries)
    if given_price is not None and places.given():
        raise InputError.worded(
            N_("--price: not with {flags} (they choose the offer the GPUs are priced on)"),
            flags=places.words(),
        )
    if gpus_per_node is not None and k8s_out is None:
        raise InputError.worded(N_("--gpus-per-node: only with --k8s-out (it places the GPUs on nodes)"))
    from gpuplan.cli._services import estimate_services
    from gpuplan.cli._settings import settings
    from gpuplan.confine import Folder
    from gpuplan.errors import NotFoundError
    from gpuplan.hardware import resolve_gpu
    from gpuplan.plan.allowed_offers import allowed_offers
    from gpuplan.report.simulate import share_html, share_json, share_view
    from gpuplan.simulate.inputs import load_services
    from gpuplan.simulate.share import SHARINGS, ShareOptions, pack_services, tenant_words
    from gpuplan.units import as_typed

    # read as the other options read their words: full-width letters (ＭＩＧ), any case, and the
    # Chinese names the help gives the ways (整卡、MIG、时间片、MPS)
    sharing = as_typed(sharing).strip().lower()
    sharing = _SHARING_WORDS.get(sharing, sharing)
    if sharing not in (*SHARINGS, "best"):
        raise NotFoundError("sharing", sharing, [*SHARINGS, "best"])
    spec = load_services(services_file)
    name = gpu or spec.gpu
    if not name:
        raise InputError.worded(N_("give --gpu (or gpu: in the services file)"))
    g = resolve_gpu(name)
    access = (Folder.of(services_file, project), allow_code)
    estimated, constraints = estimate_services(settings(ctx).db, spec, services_file, g.id, access)
    demands = spec.demands(estimated)
    notebooks = spec.notebook_groups()
    if notebooks and k8s_out is not None:
        raise InputError.worded(
            N_(
                "--k8s-out: not for a file with notebooks: (a notebook's pod is started by your notebook "
                "server, e.g. JupyterHub, not by a Deployment); leave the notebooks out to write the "
                "services' configuration"
            )
        )
    # a budget in yuan, or services each shown in yuan as plan shows its workload (kept in mainland
    # China with no budget in dollars)
    yuan = any(c.budget_cny is not None for c in constraints) or (
        bool(constraints) and all(c.shown_currency() == "CNY" for c in constraints)
    )
    # a price given in yuan is answered in yuan, as a budget in yuan is (--currency USD converts it)
    given_yuan = given_price is not None and given_price.currency == "CNY"
    currency = currency_shown(ctx, currency, in_yuan=yuan or given_yuan)
    store = open_store(ctx, currency, (usd_per_cny, cny_per_usd, force_rate))
    try:
        price = price_usd(
            given_price,
            flag="--price",
            currency=currency,
            budget_cny=yuan,
            store=store,
            bounds=(MIN_USD_PER_GPU_HOUR, MAX_USD_PER_GPU_HOUR, _("USD per GPU-hour")),
        )
        # The GPUs a packing needs are bought after it is known how many (whole instances).
        offers = store.offers(gpu=g.id) if price is None and store is not None else []
        if store is not None and places.given():
            # a typo is one line with "did you mean", before the packing, as plan says it
            offers = places.keep(offers, store, g.id)
        money = display_money_for(store, currency)
        # a yuan price answered in another currency: the rate it was converted at, with its source
        converted = display_money_for(store, "CNY") if given_yuan and money.currency != "CNY" else None
    finally:
        if store is not None:
            store.close()
    # The GPUs the services share are priced only where every service's workload allows, as plan
    # prices each of them (the services run on the same machines).
    narrowed: list[str] = []
    for c in constraints:
        allowed = allowed_offers(offers, c)
        offers = list(allowed.offers)
        narrowed += [allowed.words()] if allowed.narrowed_by else []
    from gpuplan.perf.memory import usable_memory_gib

    base = dict(
        gpu_id=g.id,
        # what a process can allocate (nvidia-smi's total), as the estimate's share_gpu and every
        # fit in gpuplan measure it: against the datasheet's, three 7.6 GiB services had filled an
        # A10 (22.5 GiB usable) with no room for their CUDA contexts
        gpu_memory_gib=usable_memory_gib(g),
        price_usd_per_hour=price,
        target_utilisation=target,
        time_slice_penalty=time_slice_penalty,
    )
    if sharing == "best":
        plans, refused = [], {}
        for s in SHARINGS:
            try:
                plans.append(pack_services(demands, ShareOptions(sharing=s, **base), notebooks))  # type: ignore[arg-type]
            except InputError as e:
                refused[s] = e  # e.g. no MIG on this GPU
        if not plans:  # what no sharing can place (no services, a load past the limit) says why
            raise next(iter(refused.values()))
        plan = _best(plans, {d.name: d.latency_s for d in demands}, refused)
    else:
        plan = pack_services(demands, ShareOptions(sharing=sharing, **base), notebooks)  # type: ignore[arg-type]
    if plan.unplaced and not plan.services and not plan.notebooks:
        # nothing placed: no table of nothing, no tie of "0 GPUs" between the ways; why, in one line
        raise InputError.worded(
            N_("{names} cannot run on one {gpu} {how}: {reasons}"),
            names=item_list(u.service for u in plan.unplaced[:3]) + (" …" if len(plan.unplaced) > 3 else ""),
            gpu=plan.gpu_id,
            how=Phrase(N_("in any way (whole, MIG, time-slice, MPS)"))
            if sharing == "best"
            else Phrase(N_("with --sharing {sharing}"), sharing=sharing),
            reasons=_("; ").join(
                f"{u.service}: {u.reason}" if len(plan.unplaced) > 1 else u.reason for u in plan.unplaced[:3]
            ),
        )
    plan, instance_gpus = _priced(plan, price, offers, _("; ").join(narrowed), money, places.words())
    if converted is not None and given_price is not None and price is not None:
        from gpuplan.i18n.numbers import rate_source
        from gpuplan.i18n.phrases import sentences

        line = _("--price {given} is {usd:g} USD at 1 USD = {rate:.4f} CNY (as of {date}; {source}).").format(
            given=given_price.written,
            usd=price,
            rate=converted.units_per_usd,
            date=converted.as_of or "?",
            source=rate_source(converted.source) if converted.source else "?",
        )
        plan = replace(plan, notes=(*plan.notes, sentences(line, converted.rate_warning())))
    if spec.schedule is not None:
        from gpuplan.simulate.share import fleet_hours, packing_start_up

        # the GPUs billed only in the file's hours, each day's start-up before them: the lead plan
        # bills a scheduled service, of the weights a new node reads
        node = gpus_per_node or spec.gpus_per_node or instance_gpus or 1
        plan = replace(plan, hours=fleet_hours(spec.schedule, packing_start_up(plan, demands, node)))
    wrote: list[str] = []
    if k8s_out is not None and not plan.unplaced:
        # The user's word on their cluster first (option, then file), else the instance priced.
        memory = {d.name: d.memory_gib for d in demands}
        # what the engine's process sees as the GPU's memory (vLLM's --gpu-memory-utilization is
        # a share of it), as the packing counts it
        usable = usable_memory_gib(g)
        engines = _engine_containers(spec, services_file, access, plan, {d.name: d for d in demands}, usable)
        wrote = _write_k8s(
            plan, k8s_out, gpus_per_node or spec.gpus_per_node or instance_gpus, memory, usable, engines
        )
    if out is not None:
        write_text_atomic(out, share_html(plan, money, places.words()))
    if as_json:
        sys.stdout.write(json.dumps(share_json(plan), indent=2, ensure_ascii=False) + "\n")
    else:
        console().print(share_view(plan, money, places.words()))
        if out is not None:
            console(stderr=True).print(_("report written to {path}").format(path=out))
    if wrote:
        # on stderr, as the report's line: stdout stays the document under --json
        console(stderr=True).print(
            ngettext(
                "wrote {n} Kubernetes file to {out}/: {files}",
                "wrote {n} Kubernetes files to {out}/: {files}",
                len(wrote),
            ).format(n=len(wrote), out=k8s_out, files=item_list(wrote)),
            markup=False,
            soft_wrap=True,
        )
    if plan.unplaced:
        # the report above shows what fits; the exit status says the plan does not serve them all
        raise InputError.worded(
            N_("{m} of {total} {what} cannot run on one {gpu} ({names}){k8s}"),
            what=tenant_words(plan.unplaced, len(plan.services), len(plan.notebooks)),
            m=len(plan.unplaced),
            total=len(plan.unplaced) + len(plan.services) + len(plan.notebooks),
            gpu=plan.gpu_id,
            names=item_list(u.service for u in plan.unplaced[:3]) + (" …" if len(plan.unplaced) > 3 else ""),
            k8s=Phrase(N_("; --k8s-out not written")) if k8s_out is not None else "",
        )


def _priced(
    plan: SharePlan,
    price: float | None,
    offers: list[OfferPrice],
    narrowed: str = "",
    money: Money | None = None,
    flags: str = "",
) -> tuple[SharePlan, int | None]:
    """The plan with what its GPUs cost and where the price comes from: ``price`` per GPU-hour
    given, else the cheapest way to buy its GPUs as whole instances (2 GPUs of an 8-GPU machine
    pay for the machine), of equal ones the price known current, with its publisher, date and
    confidence and, where it is not known to hold today, the best one that is; unknown without an
    on-demand price. Beside it, the GPUs one instance of the offer priced holds (None: no offer).

    ``offers``: those the services' workloads allow; ``narrowed``: the constraints that left some
    out, in words ("" where none did). Where they leave no on-demand offer the plan is refused, not
    priced at a provider they rule out nor left unpriced as though the catalog had none. ``money``:
    the display currency its note words the price in, the source cited with its USD figure;
    ``flags``: the place options the offers were kept to (``--countries CN``), said with the price."""
    from gpuplan.simulate.pricing import PriceBasis

    if price is not None:
        note = (
            _("price per GPU-hour {price:g} USD, given").format(price=price)
            if money is None or money.currency == "USD"
            # the user's own figure in the display currency, the dollars it was costed at beside it
            else _("price per GPU-hour {shown} ({price:g} USD), given").format(
                shown=money.format(price), price=price
            )
        )
        given = PriceBasis(usd_per_hour=price * plan.gpus_needed, given=True)
        return replace(plan, notes=(*plan.notes, note), price=given), None
    from gpuplan.simulate.inputs import basis_words, money_words, narrowed_words, price_basis, whole_instances

    best = whole_instances(offers, plan.gpu_id, plan.gpus_needed).get("on_demand")
    if best is None and narrowed and plan.gpus_needed >= 1:
        raise InputError.worded(
            N_(
                "no on-demand offer of {gpu} is left where the services' workloads allow ({constraints}); "
                "give another --gpu, or a price with --price USD_PER_GPU_HOUR"
            ),
            gpu=plan.gpu_id,
            constraints=narrowed,
        )
    if best is None or plan.gpus_needed < 1:
        return plan, None  # the report says "price unknown" rather than inventing one
    total, o, instances = best
    known = whole_instances([o], plan.gpu_id, plan.gpus_needed, current_only=True)
    alt, current_for = None, ""
    if not known:
        found = whole_instances(offers, plan.gpu_id, plan.gpus_needed, current_only=True).get("on_demand")
        alt = (found[0], found[1], None) if found is not None else None
        if found is not None:
            current_for = _bought_for(found[0], found[1], found[2], plan.gpus_needed, money)
    basis = price_basis(total, o, alt, known_current=bool(known))
    note = (
        _("price: {n} × {provider} {region} {instance_type} on demand, {price}{bought} ({as_of})").format(
            n=instances,
            provider=o.provider,
            region=o.region,
            instance_type=o.instance_type,
            price=money_words(total, _("USD/h"), money, _("h")),
            bought=_bought_for(total, o, instances, plan.gpus_needed, money),
            as_of=o.as_of,
        )
        + narrowed_words(narrowed)
        + (_(", the cheapest where {flags} allow").format(flags=flags) if flags else "")
        + basis_words(
            basis,
            "on_demand",
            plan.gpu_id,
            _("USD/h"),
            money,
            _("h"),
            instances=instances,
            current_for=current_for,
        )
    )
    priced = replace(
        plan,
        cost_usd_per_hour=None if plan.unplaced else total,
        placed_cost_usd_per_hour=total,
        notes=(*plan.notes, note),
        price=basis,
    )
    return priced, math.floor(o.gpu_count + 1e-9)  # whole_instances takes offers of ≥ 1 GPU


def _bought_for(total: float, o: OfferPrice, instances: int, gpus: int, money: Money | None) -> str:
    """ " for the 2 GPUs (1 × 8-GPU instance, 3.431 USD/GPU-h)": what a figure per hour of the
    packing's GPUs pays for, and the offer's own price per GPU-hour, so that offers of different
    sizes read in one unit."""
    from gpuplan.simulate.inputs import money_words

    g = math.floor(o.gpu_count + 1e-9)
    per_gpu = money_words(total / (instances * g), _("USD/GPU-h"), money, _("GPU-h"))
    return ngettext(
        " for the {gpus} GPU ({n} × {g}-GPU instance, {per_gpu})",
        " for the {gpus} GPUs ({n} × {g}-GPU instance, {per_gpu})",
        gpus,
    ).format(gpus=gpus, n=instances, g=g, per_gpu=per_gpu)


def _slowdown(p: SharePlan, alone_s: dict[str, float]) -> float:
    """The worst p95 of ``p``'s services against each one's latency alone (inf: one overloaded or
    not known, never taken for the better)."""
    worst = max((nb.p95_slowdown for nb in p.notebooks), default=1.0)
    for s in p.services:
        if s.p95_latency_s is None or s.name not in alone_s:
            return math.inf
        worst = max(worst, s.p95_latency_s / alone_s[s.name])
    return worst


def _need(p: SharePlan) -> tuple[int, int, int]:
    """What ``--sharing best`` compares first: instances left unplaced, services and notebook groups
    that miss their targets, GPUs."""
    missed = sum(not s.meets_targets for s in p.services) + sum(not n.meets_targets for n in p.notebooks)
    return len(p.unplaced), missed, p.gpus_needed


def _best(plans: list[SharePlan], alone_s: dict[str, float], refused: Mapping[str, InputError]) -> SharePlan:
    """``--sharing best``: the packing that serves every service within its targets first, then the
    fewest GPUs; of ways that tie on those, the one whose services wait least (the lowest worst p95
    against each service's latency alone), then the most isolated (whole, MIG, time-slicing, MPS).
    Where ways tied on GPUs, the plan's first note says which and why the chosen one won; the ways
    that lost on need, or could not pack at all (``refused``: no MIG on the GPU), are said next."""
    from gpuplan.simulate.share import SHARINGS

    first = min(_need(p) for p in plans)
    tied = sorted(
        (p for p in plans if _need(p) == first),
        key=lambda p: (_slowdown(p, alone_s), SHARINGS.index(p.sharing)),
    )
    chosen = tied[0]
    notes = [_tie_words(chosen, tied[1:], alone_s)] if len(tied) > 1 else []
    lost = [p for p in plans if _need(p) != first]
    if lost or refused:
        notes.append(_lost_words(chosen, lost, refused))
    return replace(chosen, notes=(*notes, *chosen.notes)) if notes else chosen


def _lost_words(chosen: SharePlan, lost: list[SharePlan], refused: Mapping[str, InputError]) -> str:
    """ "not whole: 5 GPUs; not mig: no MIG on A10": each way that lost to the chosen one, by what it
    lost on (services it could not place, targets it misses, GPUs), and each that could not pack."""
    from gpuplan.i18n.error_text import error_text
    from gpuplan.vocab import sharing_name

    reasons = []
    for p in lost:
        unplaced, missed, gpus = _need(p)
        if unplaced > len(chosen.unplaced):
            more = unplaced - len(chosen.unplaced)
            why = ngettext("{n} instance not placed", "{n} instances not placed", more).format(n=more)
        elif missed > _need(chosen)[1]:
            names = [s.name for s in p.services if not s.meets_targets] + [
                n.name for n in p.notebooks if not n.meets_targets
            ]
            why = _("misses the targets of {names}").format(names=item_list(names))
        else:
            why = ngettext("needs {n} GPU", "needs {n} GPUs", gpus).format(n=gpus)
        reasons.append(_("{way}: {why}").format(way=sharing_name(p.sharing), why=why))
    reasons += [_("{way}: {why}").format(way=sharing_name(w), why=error_text(e)) for w, e in refused.items()]
    return _("{chosen} chosen over the other ways: {reasons}").format(
        chosen=sharing_name(chosen.sharing), reasons=_("; ").join(reasons)
    )


def _tie_words(chosen: SharePlan, others: list[SharePlan], alone_s: dict[str, float]) -> str:
    """ "time-slice and mig need the same 3 GPUs; time-slice chosen …: p95 2.04 s vs 19.54 s under
    mig for nb-bob": for each other way, the service it slows most against the chosen one."""
    from gpuplan.i18n.phrases import item_list
    from gpuplan.report.simulate_common import seconds
    from gpuplan.vocab import sharing_name

    mine = {s.name: s.p95_latency_s for s in chosen.services}
    reasons = []
    for o in others:
        if _slowdown(o, alone_s) == _slowdown(chosen, alone_s):
            reasons.append(
                _("the same worst p95 as under {other}; the more isolated way taken").format(
                    other=sharing_name(o.sharing)
                )
            )
            continue

        def gap(s: ServiceOutcome) -> float:
            here = mine.get(s.name)
            if s.p95_latency_s is None:
                return math.inf
            return s.p95_latency_s / here if here else 0.0

        slowed = {n.name: n.p95_slowdown for n in chosen.notebooks}
        nb = max(o.notebooks, key=lambda n: n.p95_slowdown / slowed.get(n.name, math.inf), default=None)
        if nb is not None and (
            not o.services or nb.p95_slowdown / slowed.get(nb.name, math.inf) > max(map(gap, o.services))
        ):
            # a notebook group it slows more than any service: its users' slow-down, as the report gives it
            reasons.append(
                _("p95 slow-down ×{mine:.2f} vs ×{other_slow:.2f} under {other} for {group}").format(
                    mine=slowed.get(nb.name, math.nan),
                    other_slow=nb.p95_slowdown,
                    other=sharing_name(o.sharing),
                    group=nb.name,
                )
            )
            continue
        s = max(o.services, key=gap)
        reasons.append(
            _("p95 {p95} vs {other_p95} under {other} for {service}").format(
                p95=seconds(mine.get(s.name)),
                other_p95=seconds(s.p95_latency_s) if s.p95_latency_s is not None else _("overloaded"),
                other=sharing_name(o.sharing),
                service=s.name,
            )
        )
    return ngettext(
        "{ways} need the same {n} GPU; {chosen} chosen, its services wait least: {reasons}",
        "{ways} need the same {n} GPUs; {chosen} chosen, its services wait least: {reasons}",
        chosen.gpus_needed,
    ).format(
        ways=item_list(sharing_name(p.sharing) for p in (chosen, *others)),
        n=chosen.gpus_needed,
        chosen=sharing_name(chosen.sharing),
        reasons=_("; ").join(reasons),
    )


@dataclass(frozen=True, kw_only=True)
class _Places:
    """``--providers``, ``--regions`` and ``--countries`` as typed: read as plan reads them (its
    options' parsing, its one-line refusals with "did you mean"), then applied to the offers the
    GPUs are priced on."""

    providers: str | None = None
    regions: str | None = None
    countries: str | None = None

    def _typed(self) -> dict[str, str]:
        return {f: v for f in _PLACE_FIELDS if (v := getattr(self, f)) is not None}

    def given(self) -> bool:
        return bool(self._typed())

    def words(self) -> str:
        """ "--providers aliyun --countries 中国": the options given, as typed ("" where none)."""
        return " ".join(f"--{f} {v.strip()}" for f, v in self._typed().items())

    def keep(self, offers: list[OfferPrice], store: Store, gpu_id: str) -> list[OfferPrice]:
        """The offers in the places named; InputError (one line) where a name is unknown, or where
        they leave no offer with an on-demand price, naming the option that emptied it and the
        places that have one."""
        from gpuplan.catalog.providers import PROVIDERS
        from gpuplan.cli.plan_cmds import PlanOptions
        from gpuplan.errors import NotFoundError
        from gpuplan.plan.allowed_offers import allowed_offers
        from gpuplan.plan.build_inputs import constraints_from_spec
        from gpuplan.plan.contradictions import check_regions
        from gpuplan.simulate.inputs import whole_instances
        from gpuplan.workload.spec import ConstraintsSpec

        asked = PlanOptions(
            workload_file=Path(), providers=self.providers, regions=self.regions, countries=self.countries
        ).overrides()
        for f in _PLACE_FIELDS:
            if f in self._typed() and not asked[f]:
                raise InputError.worded(N_("--{option}: list at least one name"), option=f)
        c = constraints_from_spec(ConstraintsSpec(), **{f: asked[f] for f in _PLACE_FIELDS})  # "中国": CN
        known = set(PROVIDERS) | {o.provider.lower() for o in offers}
        for name in c.providers or ():
            if name.lower() not in known:
                raise NotFoundError("provider", name, sorted(known))
        check_regions(c, store)

        def priced(offers: list[OfferPrice]) -> bool:
            return "on_demand" in whole_instances(offers, gpu_id)

        kept = offers
        for f in _PLACE_FIELDS:
            values = getattr(c, f) or ()
            if not values:
                continue
            left = list(allowed_offers(kept, ConstraintsSpec.model_validate({f: values})).offers)
            if priced(kept) and not priced(left):
                elsewhere = sorted({w for o in kept if (w := _place_of(f, o)) and priced([o])})
                raise InputError.worded(
                    N_(
                        "--{option} {value} leaves no on-demand offer of {gpu} to price the GPUs on; it has "
                        "one in {elsewhere}: name one of them, give another --gpu, or a price with --price"
                    ),
                    option=f,
                    value=getattr(self, f).strip(),
                    gpu=gpu_id,
                    elsewhere=item_list(elsewhere[:8]) + (" …" if len(elsewhere) > 8 else ""),
                )
            kept = left
        return kept


#: The place options, in the planner's order (provider, region, country).
_PLACE_FIELDS = ("providers", "regions", "countries")


def _place_of(field: str, o: OfferPrice) -> str:
    """The offer's value of a place option: its provider, ``provider/region`` or region's country."""
    from gpuplan.plan.region_countries import region_country

    if field == "providers":
        return o.provider
    if field == "regions":
        return f"{o.provider}/{o.region}"
    return region_country(o.provider, o.region)


def _engine_containers(
    spec: ServicesFile,
    services_file: Path,
    access: tuple[Folder, bool],
    plan: SharePlan,
    demands: dict[str, ServiceDemand],
    gpu_memory_gib: float,
) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """deploy's engine container for each service whose workload names a model the engines serve
    (by service name), launched on the plan's GPU where its price was found, and the notes
    deploy's README gives for that place (Docker Hub and huggingface.co from mainland China), each
    once. A time-sliced or MPS service's engine takes the memory the packing gave it, not the share
    of a whole GPU it would take alone (two engines at 0.9 of one GPU cannot both start). Its
    longest request is capped by deploy's rule (the model's own limit, within what the KV cache
    holds) on the KV cache that memory leaves beside what the engine holds (:func:`_kv_tokens`);
    where that is below the p95 request the latency was checked at, a note and a warning say so."""
    from dataclasses import replace as replaced

    from gpuplan.deploy import GenerateOptions, LaunchSpec
    from gpuplan.deploy.engine import engine_launch, mainland_notes
    from gpuplan.deploy.k8s.serving import engine_container

    folder, _allow_code = access
    base = services_file.resolve().parent
    provider = plan.price.provider or None if plan.price is not None else None
    region = plan.price.region or None if plan.price is not None else None
    containers: dict[str, dict[str, Any]] = {}
    notes: list[str] = []
    for i, s in enumerate(spec.services):
        if not s.workload:
            continue
        path = folder.check(str(s.workload), base=base, field=f"services[{i}].workload")
        try:
            launch_spec = LaunchSpec.from_workload(
                path, gpu=plan.gpu_id, provider=provider, region=region, project=folder.path
            )
        except DeployError:
            continue  # no container of deploy's for it: the placeholder, said in the file's head
        launch = engine_launch(launch_spec)
        if launch is None:
            continue
        d = demands.get(s.name)
        fraction = launch.memory_fraction
        if plan.sharing in ("time-slice", "mps") and d is not None:
            fraction = _share_of(d.memory_gib, gpu_memory_gib)
        elif d is not None and (own := _engine_gib(plan, s.name, 1.0, gpu_memory_gib)):
            # a MIG slice or a whole GPU is the instance's alone: at least the memory the packing
            # counted it holding, the engine's default share where that is more
            fraction = max(fraction or 0.0, _share_of(d.memory_gib, own))
        kv = _kv_tokens(plan, s.name, d, fraction, gpu_memory_gib)
        launch = engine_launch(launch_spec, kv_tokens=kv)
        assert launch is not None  # as above: the same workload
        launch = replaced(launch, memory_fraction=fraction)
        if launch.max_model_len is not None:
            # where the engine's cap comes from, as deploy's README says it
            notes.append(
                _("{service}: its engine takes requests of up to {tokens:,} tokens, {why}").format(
                    service=s.name, tokens=launch.max_model_len, why=launch.context_why
                )
            )
        if kv is not None and d is not None and d.serving is not None:
            m = d.serving
            longest = (m.tail_prompt_tokens or m.prompt_tokens) + (m.tail_output_tokens or m.output_tokens)
            limit = launch_spec.model_context_limit
            # the KV cache, not the model's own limit, refuses it
            if (
                launch.max_model_len is not None
                and launch.max_model_len < longest
                and (limit or longest) >= longest
            ):
                short = _(
                    "{service}: its engine takes requests of up to {tokens:,} tokens, what the KV cache "
                    "in its {gib:.1f} GiB holds; the {longest:,}-token p95 request its latency was "
                    "checked at is refused: give it a larger slice or a GPU with more memory"
                ).format(
                    service=s.name,
                    tokens=launch.max_model_len,
                    gib=_engine_gib(plan, s.name, fraction, gpu_memory_gib) or 0.0,
                    longest=longest,
                )
                notes.append(short)
                console(stderr=True).print(
                    _("warning: {line}").format(line=short), markup=False, soft_wrap=True
                )
        containers[s.name] = engine_container(launch, launch_spec, GenerateOptions())
        notes += [n for n in mainland_notes(launch_spec) if n not in notes]
    return containers, notes


def _share_of(need_gib: float, of_gib: float) -> float:
    """``need_gib`` as a share of ``of_gib`` (at most all of it), rounded up to the 3 decimals the
    engine's option is written with: never less memory than the packing counted."""
    return min(math.ceil(need_gib / of_gib * 1000 - 1e-9) / 1000, 1.0)


def _engine_gib(plan: SharePlan, service: str, fraction: float | None, gpu_memory_gib: float) -> float | None:
    """The memory the engine of ``service`` is started in, GiB: its share (``fraction``) of what its
    process sees as the GPU's memory, a whole GPU's or, on MIG, its slice's; None: not known (an
    engine's default share)."""
    if fraction is None:
        return None
    if plan.sharing == "mig":
        from gpuplan.simulate import mig as migmod

        table = migmod.mig_gpu(plan.gpu_id)
        slices = {p.slice for p in plan.placements if p.service == service}
        sizes = [p.memory_gib for p in table.profiles if p.name in slices]
        return fraction * min(sizes) if sizes else None
    return fraction * gpu_memory_gib


def _kv_tokens(
    plan: SharePlan, service: str, demand: ServiceDemand | None, fraction: float | None, gpu_memory_gib: float
) -> int | None:
    """Tokens of KV cache one instance of ``service``'s engine holds in the memory it is started in
    (:func:`_engine_gib`), beside what the estimate counts it holding (weights, activations, memory
    outside PyTorch: the packing's own figure); None where not known (a service given by hand)."""
    engine = _engine_gib(plan, service, fraction, gpu_memory_gib)
    m = demand.serving if demand is not None else None
    if engine is None or m is None or m.decode.context_tokens <= 0 or m.decode.kv_cache_gib_per_sequence <= 0:
        return None
    per_token = m.decode.kv_cache_gib_per_sequence / m.decode.context_tokens
    return max(0, math.floor((engine - m.fixed_gib) / per_token + 1e-9))


def _write_k8s(
    plan: SharePlan,
    directory: Path,
    gpus_per_node: int | None,
    memory: dict[str, float],
    gpu_memory_gib: float,
    engines: tuple[dict[str, dict[str, Any]], list[str]] = ({}, []),
) -> list[str]:
    """Write the Kubernetes files; the paths written (inside ``directory``). ``memory``: GiB each
    service needs, to judge where the device plugin may place time-sliced pods otherwise;
    ``engines``: the engine container of each service that has one, and the notes on where its
    image and weights come from (:func:`_engine_containers`)."""
    from gpuplan.deploy.k8s.sharing import (
        NodeRisk,
        SharedDeployment,
        SharingLayout,
        placement_note,
        schedule_note,
        sharing_manifests,
        time_slice_risks,
    )
    from gpuplan.simulate.share import TIME_SLICE_MEMORY_SHARE

    if directory.exists() and any(directory.iterdir()):
        raise InputError.worded(N_("--k8s-out {folder} is not empty; give a new directory"), folder=directory)
    if plan.sharing != "whole" and gpus_per_node is None:
        # Which node holds which GPU decides where each slice or share must run: no number is assumed.
        raise InputError.worded(
            N_(
                "--k8s-out: GPUs per node unknown (the price was given, or no offer priced it); give "
                "--gpus-per-node N or gpus_per_node: in the services file"
            )
        )
    per_node = gpus_per_node or 1
    risks: list[NodeRisk] = []
    gpus = sorted({p.gpu_index for p in plan.placements})
    nodes = sorted({g // per_node for g in gpus})
    if plan.sharing == "mig":
        per_gpu = []
        for g in range(max(gpus, default=-1) + 1):
            counts: dict[str, int] = {}
            for p in plan.placements:
                if p.gpu_index == g:
                    counts[p.slice] = counts.get(p.slice, 0) + 1
            per_gpu.append(counts)
        layout = SharingLayout(sharing="mig", mig_per_gpu=tuple(per_gpu), gpus_per_node=per_node)
    elif plan.sharing == "time-slice":
        on_gpu = [
            sum(1 for p in plan.placements if p.gpu_index == g) for g in range(max(gpus, default=-1) + 1)
        ]
        # Per node, the most services one of its GPUs carries: no more shares than the packing
        # fills (a GPU a service has alone is advertised once, no second pod beside it).
        replicas = tuple(
            max(1, max(on_gpu[n * per_node : (n + 1) * per_node], default=1))
            for n in range(max(nodes, default=0) + 1)
        )
        layout = SharingLayout(sharing="time-slice", time_slice_replicas=replicas, gpus_per_node=per_node)
        pods = [
            [(p.service, memory.get(p.service, 0.0)) for p in plan.placements if p.gpu_index == g]
            for g in range(max(gpus, default=-1) + 1)
        ]
        risks = time_slice_risks(pods, per_node, replicas, gpu_memory_gib * TIME_SLICE_MEMORY_SHARE)
    elif plan.sharing == "mps":
        parts = int(plan.services[0].slice.split("/")[-1]) if plan.services else 1
        layout = SharingLayout(
            sharing="mps", time_slice_replicas=(parts,) * (max(nodes, default=0) + 1), gpus_per_node=per_node
        )
    else:
        layout = SharingLayout(sharing="whole")
    containers, notes = engines
    deps = []
    for s in plan.services:
        resource = f"nvidia.com/mig-{s.slice}" if plan.sharing == "mig" else "nvidia.com/gpu"
        container = containers.get(s.name)
        if plan.sharing == "whole":
            deps.append(
                SharedDeployment(name=s.name, resource=resource, replicas=s.instances, container=container)
            )
            continue
        # One Deployment per node the service's instances were packed onto, pinned to it.
        on_node: dict[int, int] = {}
        for p in plan.placements:
            if p.service == s.name:
                on_node[p.gpu_index // per_node] = on_node.get(p.gpu_index // per_node, 0) + 1
        for n, count in sorted(on_node.items()):
            name = s.name if len(on_node) == 1 else f"{s.name}-node-{n}"
            deps.append(
                SharedDeployment(name=name, resource=resource, replicas=count, node=n, container=container)
            )
    from gpuplan.deploy.output import write_files

    files = sharing_manifests(layout, deps, notes)
    if plan.hours is not None:
        h = plan.hours
        files.append(schedule_note(h.schedule.window.said, h.start_up_s / 60.0, layout))
    if risks:
        files.append(placement_note(risks, plan.gpu_id))
    # Inside the directory only, all files or none (deploy's writer: no link followed out of it).
    write_files(files, directory)
    if risks:
        console(stderr=True).print(
            _(
                "warning: on {nodes} the device plugin may put services on one GPU that the packing kept "
                "apart (up to {need:.0f} GiB on a {cap:.0f} GiB GPU); see k8s/PLACEMENT.md"
            ).format(
                nodes=item_list(f"gpuplan-node-{r.node}" for r in risks),
                need=max(r.worst_memory_gib for r in risks),
                cap=risks[0].memory_gib,
            ),
            markup=False,
            soft_wrap=True,
        )
    return [f.path for f in files]
