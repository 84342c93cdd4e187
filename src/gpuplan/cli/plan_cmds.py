"""``gpuplan plan``: ranked options with all-in cost, Pareto front, spot risk and the reason for the pick.

Heavy modules (the store, the tracer) are imported inside the command: ``gpuplan plan --help`` does
not import torch.
"""

from __future__ import annotations

import gc
import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from gpuplan.cli._access import ProjectOption
from gpuplan.cli._i18n import (
    CnyPerUsdOption,
    CurrencyOption,
    ForceRateOption,
    LangOption,
    UsdPerCnyOption,
    apply_language,
    console,
    option_given,
    resolve_usd_per_cny,
)
from gpuplan.cli._network import network_gbps_option, network_kind_option
from gpuplan.cli._numbers import finite_float, finite_in, money_in, whole_number
from gpuplan.cli._places import CountriesOption, ProvidersOption, RegionsOption
from gpuplan.cli._profiles import load_profile
from gpuplan.cli._progress import spinner
from gpuplan.errors import InputError, NotFoundError
from gpuplan.hardware.gpus import MAX_PLANNED_GPUS, MAX_PLANNED_NODES
from gpuplan.i18n import N_, _
from gpuplan.units import (
    MAX_BUDGET_CNY,
    MAX_BUDGET_USD,
    MAX_MEASURED_THROUGHPUT,
    MAX_STORAGE_GBPS,
    MIN_BUDGET,
    MIN_MEASURED,
    MIN_STORAGE_GBPS,
    split_list,
)

if TYPE_CHECKING:
    from gpuplan.catalog import Store
    from gpuplan.catalog.model import ExchangeRate
    from gpuplan.plan.result import Plan
    from gpuplan.workload import Workload

__all__ = ["PlanOptions", "register"]


def _names(text: str | None) -> tuple[str, ...] | None:
    if text is None:
        return None
    names = split_list(text)
    return names or None


def _with_users(workload: Workload, text: str) -> Workload:
    """``workload`` with ``--users-in``'s countries as its ``serving.users_in`` (ISO codes): a
    misspelt country is one line with "did you mean", a workload with no service refused."""
    from gpuplan.catalog.region_countries import country_codes_of

    names = _names(text)
    if not names:
        raise InputError.worded(N_("--users-in: list at least one country, e.g. SG or Singapore"))
    if workload.serving is None:
        raise InputError.worded(
            N_(
                "--users-in is for a service: {name} has no serving: block, whose targets the round trip "
                "adds to"
            ),
            name=workload.name,
        )
    try:
        codes = tuple(dict.fromkeys(code for name in names for code in country_codes_of(name, "--users-in")))
    except NotFoundError as e:
        hint = N_(
            "--users-in takes the countries your users are in: ISO codes or names (GB, Singapore) or EU"
        )
        raise NotFoundError(e.kind, e.name, e.known, hint=hint, suggestions=e.suggestions) from None
    return workload.model_copy(update={"serving": workload.serving.model_copy(update={"users_in": codes})})


def _gpu_names(text: str | None) -> tuple[str, ...] | None:
    """``--gpus``' names; a number among them is refused with the option that takes a count (``plan
    --gpus 0`` had been answered with GPU names like it: "did you mean 'L40' or 'L20'") unless it is
    a GPU's model number (``4090``: the RTX-4090, as ``estimate --gpu 4090`` reads it)."""
    names = _names(text)
    for name in names or ():
        if name.isascii() and name.isdigit() and not _is_gpu_number(name):
            raise InputError.worded(
                N_(
                    "--gpus {value}: give GPU names (T4,A10G,H100 …; `gpuplan gpus` lists them); "
                    "for a GPU count use --min-gpus and --max-gpus (the same number: exactly that many)"
                ),
                value=name,
            )
        if _COUNTED.fullmatch(name):
            # "2x8", "8xH100": a shape, as instances are named; it had been "unknown GPU '2x8'"
            raise InputError.worded(
                N_(
                    "--gpus {value}: give GPU names (T4,A10G,H100 …; `gpuplan gpus` lists them); counts "
                    "go in --min-gpus, --max-gpus (GPUs in all) and --max-nodes (instances)"
                ),
                value=name,
            )
    return names


def _is_gpu_number(name: str) -> bool:
    """Whether the number ``name`` names a GPU of the hardware catalog (``4090``, ``3090``) by the
    resolver ``estimate --gpu`` uses; ``8`` names none and is a count."""
    from gpuplan.hardware import gpus_named

    try:
        gpus_named(name)
    except NotFoundError:
        return False
    return True


#: A count written into a GPU name: ``2x8``, ``8xH100``, ``8 × A100``, ``4*L4``.
_COUNTED = re.compile(r"\d+\s*[x×*]\s*\S+", re.IGNORECASE)


@dataclass(frozen=True, kw_only=True)
class PlanOptions:
    """Everything ``gpuplan plan`` was asked, as typed: built once from the command line, then
    handed down whole. Each field is the option of the same name (``--help`` says more)."""

    workload_file: Path
    """The workload YAML."""
    project: Path | None = None
    """The folder the files the workload names may lie in (``--project``); None = its own folder."""
    deadline: str | None = None
    """Finish within this long (``12h``, ``2d``, ``90m``); overrides the YAML."""
    budget_usd: float | None = None
    """Spend at most this many US dollars, all-in."""
    budget_cny: float | None = None
    """Spend at most this many yuan, all-in (converted at the catalog's dated rate)."""
    providers: str | None = None
    """Comma list of providers."""
    gpus: str | None = None
    """Comma list of GPU names (a family name: each of its variants)."""
    regions: str | None = None
    """Comma list of regions."""
    countries: str | None = None
    """Comma list of countries (ISO code or name)."""
    hosts: str | None = None
    """``provider`` (only hosts a provider runs) or ``any``; overrides ``constraints.hosts``."""
    users_in: str | None = None
    """Comma list of the countries a service's users are in (ISO code or name); replaces
    ``serving.users_in``."""
    pricing: str | None = None
    """Comma list of pricing models."""
    max_gpus: int | None = None
    """At most this many GPUs in all."""
    min_gpus: int | None = None
    """At least this many GPUs in all (with ``max_gpus`` the same: exactly that many)."""
    max_nodes: int | None = None
    """At most this many instances."""
    min_gpu_memory_gib: float | None = None
    """Only GPUs with at least this memory, GiB."""
    interconnect: str | None = None
    """Required GPU link inside a node (``nvlink``)."""
    network_gbps: float | None = None
    """Inter-node network per instance, Gbit/s, for the instances the catalog gives none."""
    network_kind: str | None = None
    """``rdma`` or ``tcp``: the kind of that network (TCP where not given)."""
    copy_gbps: float | None = None
    """The rate the team measured copying the dataset onto an instance's disk, GB/s."""
    measured_throughput: float | None = None
    """The throughput the team measured on ``measured_on``, all its GPUs together."""
    measured_on: str | None = None
    """``GPU:COUNT`` the throughput was measured on."""
    compliance: str | None = None
    """Comma list of required compliance labels."""
    objective: str | None = None
    """``cost``, ``time`` or ``balanced``."""
    commitment: str | None = None
    """Longest commitment accepted: ``none``, ``monthly``, ``1y``, ``3y``."""
    upfront: str | None = None
    """How much of a reservation is paid upfront: ``none``, ``partial``, ``all``."""
    allow_low_confidence: bool = False
    """Also plan on prices and facts labelled low-confidence (an article's compliance claim)."""
    top: int = 10
    """Options to show."""
    baseline: str | None = None
    """Savings baseline ``provider/region/instance[/pricing]``; None: on-demand p4d in us-east-1."""
    unknown_costs: str = "assume"
    """``assume`` (price an unknown storage/egress price conservatively) or ``exclude``."""
    storage: str = "block"
    """Where dataset and checkpoints live: ``block`` or ``object``."""
    egress_free_tier: bool = False
    """The account's monthly free egress may pay for the job's first GBs."""
    usd_per_cny: float | None = None
    """US dollars per yuan for this run (overrides the catalog's dated rate)."""
    cny_per_usd: float | None = None
    """The same rate the other way round."""
    force_rate: bool = False
    """Accept a rate far from the catalog's."""
    currency: str = "USD"
    """Currency amounts are shown in."""
    currency_given: bool = True
    """``currency`` was asked for; False: the default, which a budget in yuan turns to CNY (a team
    that budgets in yuan reads its plan in yuan)."""
    saved_profile: Path | None = None
    """A saved profile JSON to use instead of tracing."""
    as_json: bool = False
    """Print the JSON plan document."""
    out: Path | None = None
    """Also write a report: ``FILE.html`` or ``FILE.md`` (+ ``FILE.svg``)."""

    def overrides(self) -> dict[str, Any]:
        """The constraints given on the command line, by name (None: keep the workload's)."""
        from gpuplan.plan import parse_duration_h

        return {
            "deadline_h": parse_duration_h(self.deadline) if self.deadline is not None else None,
            "budget_usd": self.budget_usd,
            "budget_cny": self.budget_cny,
            "providers": _names(self.providers.lower() if self.providers else None),
            "gpus": _gpu_names(self.gpus),
            "regions": _names(self.regions),
            "countries": _names(self.countries),
            "hosts": self.hosts,
            "pricing": _names(self.pricing.lower().replace("-", "_") if self.pricing else None),
            "max_gpus": self.max_gpus,
            "min_gpus": self.min_gpus,
            "max_nodes": self.max_nodes,
            "min_gpu_memory_gib": self.min_gpu_memory_gib,
            "interconnect": self.interconnect,
            "compliance": _names(self.compliance),
            "objective": self.objective,
            "commitment": self.commitment.lower() if self.commitment else None,
            "upfront": self.upfront,
            "allow_low_confidence": self.allow_low_confidence or None,
        }


def plan_cmd(
    ctx: typer.Context,
    workload_file: Annotated[
        Path, typer.Argument(help="Workload YAML file.", metavar="WORKLOAD", show_default=False)
    ],
    deadline: Annotated[
        str | None,
        typer.Option(help="Finish within this long, unit required: 12h, 2d, 90m (overrides the YAML)."),
    ] = None,
    budget_usd: Annotated[
        float | None,
        typer.Option(
            "--budget-usd",
            help="Spend at most this, all-in (5000, 5,000, $5k).",
            parser=money_in(MIN_BUDGET, MAX_BUDGET_USD, "usd", "--budget-cny"),
        ),
    ] = None,
    budget_cny: Annotated[
        float | None,
        typer.Option(
            "--budget-cny",
            help="Spend at most this many yuan, all-in (1,200,000 or 1.2m; at the catalog's dated rate; not "
            "with --budget-usd). The plan is then shown in yuan, unless --currency says otherwise.",
            parser=money_in(MIN_BUDGET, MAX_BUDGET_CNY, "cny", "--budget-usd"),
        ),
    ] = None,
    # the singular names too, as `offers` and `deploy` spell them
    providers: ProvidersOption = None,
    gpus: Annotated[
        str | None,
        typer.Option(
            "--gpus",
            "--gpu",
            help="Comma list of GPUs to choose from: T4,L4,A10G,A100 (a family name allows each of its "
            "variants; `gpuplan gpus` lists them).",
        ),
    ] = None,
    regions: RegionsOption = None,
    countries: CountriesOption = None,
    hosts: Annotated[
        str | None,
        typer.Option(
            help="Which hosts the GPUs may be on: any (default) or provider, only machines a provider "
            "runs in its own or vetted data centres (a cloud VM, bare metal; community hosts and "
            "hosts of unknown kind left out). Overrides constraints.hosts."
        ),
    ] = None,
    users_in: Annotated[
        str | None,
        typer.Option(
            "--users-in",
            help="A service: comma list of the countries its users are in, by ISO code or name (SG,CN); "
            "the network round trip from each region to the farthest is added to its p95 time-to-first-"
            "token and latency targets (replaces serving.users_in)",
        ),
    ] = None,
    pricing: Annotated[
        str | None,
        typer.Option(
            help="Comma list of pricing models: on_demand, spot, monthly, reserved_1y, reserved_3y."
        ),
    ] = None,
    max_gpus: Annotated[
        int | None,
        typer.Option(
            "--max-gpus",
            parser=whole_number(1, MAX_PLANNED_GPUS),
            help="At most this many GPUs in all: 1 to 256 (default 64, what the planner searches unless "
            "asked; a larger search takes longer and more memory).",
        ),
    ] = None,
    min_gpus: Annotated[
        int | None,
        typer.Option(
            "--min-gpus",
            parser=whole_number(1, MAX_PLANNED_GPUS),
            help="At least this many GPUs in all, 1 to 256: a recipe tuned for its GPU count (with "
            "--max-gpus the same number: exactly that many). A service's are its whole fleet's, every "
            "replica's together. Overrides constraints.min_gpus.",
        ),
    ] = None,
    max_nodes: Annotated[
        int | None,
        typer.Option(
            "--max-nodes",
            parser=whole_number(1, MAX_PLANNED_NODES),
            help=(
                "At most this many instances, 1 to 256 (default 8 for a job, what a team can get; for a "
                "service, whose replicas are independent servers, the GPU limit)."
            ),
        ),
    ] = None,
    min_gpu_memory_gib: Annotated[
        float | None,
        typer.Option(
            "--min-gpu-memory-gib", help="Only GPUs with at least this memory.", parser=finite_float
        ),
    ] = None,
    interconnect: Annotated[
        str | None,
        typer.Option(
            help="Required GPU link inside a multi-GPU node (one GPU needs none): nvlink, nvswitch, "
            "pcie or infinity fabric."
        ),
    ] = None,
    network_gbps: Annotated[
        float | None,
        network_gbps_option(
            "Inter-node network per instance, Gbit/s, for the instances the catalog gives none (your "
            "provider's fabric; without it they are ranked at the slowest GPU network, 2.5 TCP). A "
            "network the catalog states is kept."
        ),
    ] = None,
    network_kind: Annotated[
        str | None,
        network_kind_option(
            "rdma (EFA, InfiniBand, RoCE: efa, infiniband, ib and roce read as rdma) or tcp (default with "
            "--network-gbps: tcp)."
        ),
    ] = None,
    copy_gbps: Annotated[
        float | None,
        typer.Option(
            "--copy-gbps",
            help="The rate you measured copying the dataset onto an instance's disk (or reading it), "
            "GB/s, 0.001 to 1000: each instance's set-up copy is timed and billed at it, or at the "
            "instance's network where the catalog states a slower one. Overrides data.copy_gbps; "
            "without either, 0.131 (gp3's baseline) is assumed.",
            parser=finite_in(MIN_STORAGE_GBPS, MAX_STORAGE_GBPS),
        ),
    ] = None,
    measured_throughput: Annotated[
        float | None,
        typer.Option(
            "--measured-throughput",
            parser=finite_in(MIN_MEASURED, MAX_MEASURED_THROUGHPUT),
            help="The throughput you measured, all the GPUs of --measured-on together, in the "
            "estimate's unit (tokens/s for a sequence model, else samples/s): the job times of that "
            "GPU and count take the measured/estimated ratio, and a measured slowdown is assumed of "
            "every other GPU and count (said in the plan's notes). Needs --measured-on.",
        ),
    ] = None,
    measured_on: Annotated[
        str | None,
        typer.Option(
            "--measured-on",
            metavar="GPU:COUNT",
            help="The GPUs --measured-throughput was measured on, NAME:COUNT (H100-SXM:8).",
        ),
    ] = None,
    compliance: Annotated[str | None, typer.Option(help="Comma list of required compliance labels.")] = None,
    objective: Annotated[
        str | None,
        typer.Option(
            help="cost (default: the cheapest that meets deadline and budget, ties by time), "
            "time, or balanced (cost × time)."
        ),
    ] = None,
    commitment: Annotated[
        str | None,
        typer.Option(help="Longest commitment you accept: none, monthly, 1y, 3y (reserved needs 1y/3y)."),
    ] = None,
    upfront: Annotated[
        str | None,
        typer.Option(
            help="How much of a reservation you pay upfront: none (default), partial or all; reserved "
            "prices are costed at that option's effective rate where the catalog has it."
        ),
    ] = None,
    allow_low_confidence: Annotated[
        bool,
        typer.Option(
            "--allow-low-confidence",
            help="Also plan on prices and facts labelled low-confidence (two published Chinese GPU "
            "guide articles' 2024 price tables, "
            "an article's compliance claim).",
        ),
    ] = False,
    top: Annotated[int, typer.Option(min=1, help="Options to show.")] = 10,
    baseline: Annotated[
        str | None,
        typer.Option(
            help="Savings baseline: provider/region/instance, optionally /pricing. "
            "Default: on-demand A100 (p4d.24xlarge), AWS us-east-1; for a service, the cheapest "
            "on-demand option that meets its targets."
        ),
    ] = None,
    unknown_costs: Annotated[
        str,
        typer.Option(
            "--unknown-costs",
            help="assume: price an unknown storage/egress price conservatively (labelled); "
            "exclude: leave such regions out.",
        ),
    ] = "assume",
    storage: Annotated[
        str,
        typer.Option(
            help="Where dataset and checkpoints live: block (a disk per node) or object (a bucket)."
        ),
    ] = "block",
    egress_free_tier: Annotated[
        bool,
        typer.Option(
            "--egress-free-tier",
            help="Your account's monthly free egress is unused: let it pay for the job's first GBs.",
        ),
    ] = False,
    usd_per_cny: UsdPerCnyOption = None,
    cny_per_usd: CnyPerUsdOption = None,
    force_rate: ForceRateOption = False,
    currency: CurrencyOption = "USD",
    lang: LangOption = None,
    saved_profile: Annotated[
        Path | None,
        typer.Option("--profile", help="Use a saved profile JSON instead of tracing.", show_default=False),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the stable JSON document.")] = False,
    out: Annotated[
        Path | None,
        typer.Option(help="Also write a report: FILE.html (self-contained) or FILE.md (+ FILE.svg)."),
    ] = None,
    project: ProjectOption = None,
) -> None:
    """Rank where to run WORKLOAD: GPU, count, provider, region and pricing model, priced all-in."""
    apply_language(lang)
    from gpuplan.cli._settings import settings

    options = PlanOptions(
        workload_file=workload_file,
        project=project,
        deadline=deadline,
        budget_usd=budget_usd,
        budget_cny=budget_cny,
        providers=providers,
        gpus=gpus,
        regions=regions,
        countries=countries,
        hosts=hosts,
        users_in=users_in,
        pricing=pricing,
        max_gpus=max_gpus,
        min_gpus=min_gpus,
        max_nodes=max_nodes,
        min_gpu_memory_gib=min_gpu_memory_gib,
        interconnect=interconnect,
        network_gbps=network_gbps,
        network_kind=network_kind,
        copy_gbps=copy_gbps,
        measured_throughput=measured_throughput,
        measured_on=measured_on,
        compliance=compliance,
        objective=objective,
        commitment=commitment,
        upfront=upfront,
        allow_low_confidence=allow_low_confidence,
        top=top,
        baseline=baseline,
        unknown_costs=unknown_costs,
        storage=storage,
        egress_free_tier=egress_free_tier,
        usd_per_cny=usd_per_cny,
        cny_per_usd=cny_per_usd,
        force_rate=force_rate,
        currency=currency,
        currency_given=option_given(ctx, "currency"),
        saved_profile=saved_profile,
        as_json=as_json,
        out=out,
    )
    _import_numpy_single_threaded()
    with _cycle_collection_paused():
        run_plan(options, settings(ctx).db)


def _import_numpy_single_threaded() -> None:
    """Import numpy with OpenBLAS's thread pool at one thread, unless the user set its size.

    The planner's arrays are element-wise work that BLAS never runs, yet numpy's import starts
    OpenBLAS's pool of one thread per CPU: over a quarter of the import's CPU time on a 2-CPU
    machine. The variable is read once, when the library loads, and is put back at once: a process
    this one starts sees the environment as it was."""
    if "numpy" in sys.modules or "OPENBLAS_NUM_THREADS" in os.environ:
        return
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    try:
        import numpy  # noqa: F401
    finally:
        del os.environ["OPENBLAS_NUM_THREADS"]


@contextmanager
def _cycle_collection_paused() -> Iterator[None]:
    """Python's cycle collector off for one plan, back on after.

    A plan allocates about a million short-lived objects (offer rows, estimates, options); each
    time they pile up, the collector walks every object the process holds, the hundreds of
    thousands the imports made included, and finds almost nothing to free: a tenth of the command's
    CPU time. Reference counting still frees what the plan drops; the peak memory is unchanged
    (``benchmarks/bench_plan.py`` measures both)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def run_plan(options: PlanOptions, db: str | None) -> None:
    """Plan ``options.workload_file`` over the catalog at ``db`` and print (and write) the result."""
    from gpuplan.api import replica_load_on
    from gpuplan.catalog import display_money, open_store
    from gpuplan.i18n import set_money
    from gpuplan.plan import PlanInfeasibleError, plan_workload
    from gpuplan.plan.api import check_plan_constraints
    from gpuplan.plan.measured_rate import checked_measured_rate
    from gpuplan.plan.network import checked_given_network
    from gpuplan.workload import load_workload

    if options.budget_usd is not None and options.budget_cny is not None:
        raise InputError.worded(N_("give the budget once: --budget-usd or --budget-cny, not both"))
    out = options.out
    if out is not None and out.suffix.lower() not in (".html", ".md"):
        # An empty --out is Path("."): say what was typed, not the folder it became.
        raise InputError.worded(N_("--out {path}: write a .html or .md file"), path=out if out.name else "''")
    if out is not None:
        from gpuplan.cli._files import check_writable

        # said before the planning, naming the path typed (a .md report's chart goes beside it)
        check_writable(out)
        if out.suffix.lower() == ".md":
            check_writable(out.with_suffix(".svg"))
    # the rate given on the command line is the workload's own from here: the plan's document
    # carries it to deploy
    workload = load_workload(options.workload_file, project=options.project).with_copy_gbps(options.copy_gbps)
    if options.users_in is not None:
        workload = _with_users(workload, options.users_in)
    # a measured throughput's mistakes are said before the trace
    measured = checked_measured_rate(workload, options.measured_throughput, options.measured_on)
    asked = options.currency if options.currency_given else None
    currency = workload.shown_currency(asked, budget_usd=options.budget_usd, budget_cny=options.budget_cny)
    options = replace(options, currency=currency)
    overrides = options.overrides()
    # A spinner on a terminal only: piped or --json output stays clean.
    profiling = _("profiling {name} (cached after the first run)…").format(name=workload.name)
    with spinner(profiling, quiet=options.as_json) as say:
        # One store: the catalog to plan over is also the profile cache.
        rate = resolve_usd_per_cny(options.usd_per_cny, options.cny_per_usd)
        store = open_store(db, usd_per_cny=rate, force_rate=options.force_rate)
        try:
            shown = display_money(store, options.currency)
            set_money(shown)
            cny_rate = store.find_exchange_rate("CNY")
            # A mistyped baseline is the user's error, said before the profile and the planning.
            baseline = _checked_baseline(store, options.baseline) if options.baseline else None
            # Constraints that contradict each other leave nothing whatever the trace says: said first.
            check_plan_constraints(workload, overrides, store)
            checked_given_network(options.network_gbps, options.network_kind)
            prof = load_profile(workload, db, options.saved_profile, store=store)
            say(_("planning over the catalog…"))
            try:
                plan = plan_workload(
                    workload,
                    prof,
                    store,
                    overrides=overrides,
                    top=options.top,
                    baseline=baseline,
                    unknown_costs=options.unknown_costs,
                    storage=options.storage,
                    egress_free_tier=options.egress_free_tier,
                    network_gbps=options.network_gbps,
                    network_kind=options.network_kind,
                    replica_load=replica_load_on,
                    measured=measured,
                )
            except PlanInfeasibleError as e:
                if options.as_json:
                    # `plan --json > plan.json` gets a document that says why, not an empty file; the
                    # line still goes to stderr and the exit code is still 1.
                    _write_infeasible(e, workload.name)
                raise
            if options.as_json:
                # each option's data copy is priced at its region's object storage: from the catalog
                document = _plan_document(plan, workload, cny_rate, shown.currency, store)
        finally:
            store.close()

    if out is not None:
        _write_report(plan, workload.name, out)
    if options.as_json:
        sys.stdout.write(document)
        return
    from gpuplan.report.plan_view import (
        plan_view,
    )  # not report.plan: the --json document models stay unloaded

    console().print(plan_view(plan))
    if out is not None:
        console(stderr=True).print(_("report written to {path}").format(path=out))


def _plan_document(
    plan: Plan, workload: Workload, cny_rate: ExchangeRate | None, currency: str, store: Store
) -> str:
    """``plan --json``'s document as written: the service's (``web.service.plan_document``) for the
    same plan, each option's ``data_copy`` filled from the catalog ``store``."""
    from gpuplan.commit.recurring import with_data_copies
    from gpuplan.documents.plan import PlanDocument
    from gpuplan.report.plan import plan_json

    document = plan_json(plan, workload.to_dict(), cny_rate, currency).model_dump(mode="json")
    return PlanDocument.model_validate(with_data_copies(document, store)).to_json()


def _write_infeasible(e: Any, name: str) -> None:
    """The document ``plan --json`` prints where no option is feasible (``PlanInfeasibleDocument``)."""
    from gpuplan.bounded import printable
    from gpuplan.documents.plan import PlanInfeasibleDocument
    from gpuplan.i18n.error_text import error_text

    doc = PlanInfeasibleDocument(error=printable(error_text(e)), excluded=e.excluded, workload=name)
    sys.stdout.write(doc.to_json())


def _checked_baseline(store: Any, text: str) -> Any:
    """``--baseline`` read and found among the catalog's offers (``provider/region/instance[/pricing]``);
    a part that names nothing there raises InputError with "did you mean" over the catalog's names."""
    from gpuplan.catalog.providers import PROVIDERS
    from gpuplan.errors import GpuplanError, NotFoundError
    from gpuplan.plan import BaselineSpec
    from gpuplan.vocab import PricingModel

    spec = BaselineSpec.parse(text)
    try:
        provider = PROVIDERS.cast(spec.provider)
        pricing = PricingModel.cast(spec.pricing).value
        offers = store.offers(provider=provider)
        regions = sorted({o.region for o in offers})
        if spec.region not in regions:
            raise NotFoundError("region", spec.region, regions)
        here = [o for o in offers if o.region == spec.region]
        types = sorted({o.instance_type for o in here})
        if spec.instance_type not in types:
            raise NotFoundError("instance type", spec.instance_type or "", types)
        sold = sorted({o.pricing for o in here if o.instance_type == spec.instance_type})
        if pricing not in sold:
            raise NotFoundError("pricing model", spec.pricing, sold)
    except GpuplanError as e:
        raise InputError.worded(N_("--baseline {text}: {error}"), text=text, error=e) from e
    return BaselineSpec(
        provider=provider,
        region=spec.region,
        instance_type=spec.instance_type,
        gpu_prefix=None,
        pricing=pricing,
    )


def _write_report(plan: Any, title: str, out: Path) -> None:
    from gpuplan.cli._files import write_text_atomic
    from gpuplan.report.plan_html import cost_time_svg, plan_html, plan_markdown

    if out.suffix.lower() == ".html":
        write_text_atomic(out, plan_html(plan, title))
    else:
        svg = out.with_suffix(".svg")
        write_text_atomic(svg, cost_time_svg(plan))
        write_text_atomic(out, plan_markdown(plan, title, svg.name))


def register(app: typer.Typer) -> None:
    """Add this group's commands to `app`."""
    app.command("plan")(plan_cmd)
