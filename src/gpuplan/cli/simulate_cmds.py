"""``gpuplan simulate``: autoscaling policies on a load trace, GPU sharing of several services.

    gpuplan simulate autoscale W.yaml --trace load.csv --gpu A100-SXM4-80GB \\
        --policy fixed:replicas=4 --policy target:target=0.7,max=10 --policy queue:per_replica=48
    gpuplan simulate trace diurnal --rate 5 --hours 24 --out load.csv
    gpuplan simulate share services.yaml --gpu A100-SXM4-80GB --sharing mig --k8s-out k8s-share/

Heavy modules (numpy engine, scipy, the tracer) load inside the commands.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from gpuplan.cli._access import AllowCodeOption, ProjectOption
from gpuplan.cli._files import write_text_atomic
from gpuplan.cli._i18n import (
    CnyPerUsdOption,
    CurrencyOption,
    ForceRateOption,
    LangOption,
    UsdPerCnyOption,
    apply_language,
    console,
    resolve_usd_per_cny,
)
from gpuplan.cli._numbers import finite_float, whole_number
from gpuplan.cli._progress import TRACING
from gpuplan.errors import InputError
from gpuplan.i18n import N_, _

#: ``gpuplan.simulate.trace.MAX_TOKENS``, which imports numpy: written out here so that the command
#: line is built without it (``tests/cli/test_hostile_one_line.py`` keeps the two equal).
_MAX_TOKENS = 10_000_000

if TYPE_CHECKING:
    from gpuplan.catalog import Store
    from gpuplan.i18n import Money
    from gpuplan.simulate import ReplicaModel, Trace
    from gpuplan.simulate.share import SharePlan
    from gpuplan.workload import Workload

__all__ = ["register"]

app = typer.Typer(
    name="simulate",
    help="Before paying for a policy, simulate it: autoscaling on a load trace, GPU sharing of services.",
    no_args_is_help=True,
)


@app.callback()
def _simulate_group(lang: LangOption = None) -> None:
    # --lang is accepted on the group too (`gpuplan simulate --lang zh …`); the root group has
    # already read it from the command line for --help (cli/_help.py).
    apply_language(lang)


SHAPES = ("diurnal", "bursty", "step")


def _money(store: Store | None, currency: str) -> Money:
    from gpuplan.catalog import display_money
    from gpuplan.i18n import Money

    if currency.upper() == "USD" or store is None:
        if currency.upper() != "USD":
            raise InputError.worded(
                N_("--currency CNY needs the catalog's exchange rate; the catalog cannot be opened")
            )
        return Money.usd()
    return display_money(store, currency)


def _open_store(ctx: typer.Context, currency: str, rate: tuple[float | None, float | None, bool]) -> Store:
    """The catalog, with the user's CNY rate (``--usd-per-cny``/``--cny-per-usd``, ``--force-rate``)."""
    from gpuplan.catalog import open_store
    from gpuplan.cli._settings import settings

    usd_per_cny, cny_per_usd, force = rate
    return open_store(
        settings(ctx).db, usd_per_cny=resolve_usd_per_cny(usd_per_cny, cny_per_usd), force_rate=force
    )


def _check_currency(currency: str) -> None:
    # A misspelt --currency fails in one line ("did you mean"), before any tracing or simulation.
    from gpuplan.vocab import Currency

    Currency.cast(currency)


def _check_out(out: Path | None) -> None:
    if out is not None and out.suffix.lower() not in (".html", ".htm"):
        raise InputError.worded(N_("--out {path}: write a .html file"), path=out)


def _shape_trace(
    shape: str, rate: float, hours: float, seed: int, prompt: int | None, output: int | None
) -> Trace:
    from gpuplan.errors import NotFoundError
    from gpuplan.simulate import Shape, bursty_trace, diurnal_trace, step_trace

    s = Shape(
        mean_requests_per_s=rate,
        duration_s=hours * 3600,
        seed=seed,
        prompt_tokens=prompt,
        output_tokens=output,
    )
    if shape == "diurnal":
        return diurnal_trace(s)
    if shape == "bursty":
        return bursty_trace(s)
    if shape == "step":
        return step_trace(s)
    raise NotFoundError("trace shape", shape, SHAPES)


def _replica(
    ctx: typer.Context, w: Workload, file_name: str, gpu_id: str, store: Store | None, mean_ctx: float
) -> ReplicaModel:
    from gpuplan.cli._profiles import load_profile
    from gpuplan.cli._progress import spinner
    from gpuplan.cli._settings import settings
    from gpuplan.errors import EstimateError
    from gpuplan.hardware import get_gpu
    from gpuplan.perf.inference import decode_estimate
    from gpuplan.simulate import replica_from_decode

    if w.task.value != "infer":
        raise InputError.worded(
            N_("{file}: simulate autoscale needs task: infer (or give --replica)"), file=file_name
        )
    with spinner(_(TRACING).format(name=w.name), quiet=not sys.stderr.isatty()):
        prof = load_profile(w, settings(ctx).db, store=store)
    if prof.shape.family != "decoder":
        raise EstimateError.worded(
            N_(
                "{name}: the replica model needs a decoder LLM (KV cache, decode steps); "
                "give --replica slots=N,tpot_ms=T for another model"
            ),
            name=w.name,
        )
    g = get_gpu(gpu_id)
    graphs, compiled = w.cuda_graphs, w.compile
    return replica_from_decode(
        decode_estimate(prof, g, cuda_graphs=graphs, compiled=compiled),
        single=decode_estimate(prof, g, batch=1, cuda_graphs=graphs, compiled=compiled),
        mean_context_tokens=mean_ctx,
    )


@app.command("autoscale")
def autoscale_cmd(
    ctx: typer.Context,
    workload_file: Annotated[Path, typer.Argument(help="Inference workload YAML (task: infer, serving:).")],
    trace: Annotated[
        Path | None,
        typer.Option(
            "--trace", help="Trace CSV: a timestamp column, optionally prompt_tokens and output_tokens."
        ),
    ] = None,
    shape: Annotated[
        str | None, typer.Option("--shape", help="Generate a trace instead: diurnal, bursty or step.")
    ] = None,
    rate: Annotated[
        float | None,
        typer.Option(
            "--rate",
            help="Mean requests/s of a generated trace (default: the workload's).",
            parser=finite_float,
        ),
    ] = None,
    hours: Annotated[
        float, typer.Option("--hours", help="Length of a generated trace.", parser=finite_float)
    ] = 24.0,
    gpu: Annotated[str, typer.Option("--gpu", "-g", help="GPU of one replica.")] = "A100-SXM4-80GB",
    policy: Annotated[
        list[str] | None,
        typer.Option(
            "--policy",
            "-p",
            help="A policy, repeatable: fixed:replicas=4, target:target=0.7,max=10, "
            "queue:per_replica=48, scheduled:at=0h@2/8h@6.",
        ),
    ] = None,
    policies: Annotated[Path | None, typer.Option("--policies", help="A YAML list of policies.")] = None,
    replica: Annotated[
        str | None,
        typer.Option(
            "--replica", help="Replica speed instead of the estimator: slots=N,tpot_ms=T,prefill_tps=R."
        ),
    ] = None,
    slo_ms: Annotated[
        float | None,
        typer.Option(
            "--slo-ms",
            help="Latency target of a request (default: the workload's p95_latency_ms).",
            parser=finite_float,
        ),
    ] = None,
    timeout_s: Annotated[
        float, typer.Option("--timeout-s", help="Drop a request that waited this long.", parser=finite_float)
    ] = 120.0,
    on_demand_price: Annotated[
        float | None,
        typer.Option(
            "--on-demand-price",
            help="USD per replica-hour (default: the catalog's cheapest).",
            parser=finite_float,
        ),
    ] = None,
    spot_price: Annotated[
        float | None, typer.Option("--spot-price", help="USD per spot replica-hour.", parser=finite_float)
    ] = None,
    spot_rate: Annotated[
        float | None,
        typer.Option("--spot-rate", help="Spot interruptions per replica-hour.", parser=finite_float),
    ] = None,
    spot_notice_s: Annotated[
        float, typer.Option("--spot-notice-s", help="Warning before a spot reclaim.", parser=finite_float)
    ] = 30.0,
    seed: Annotated[
        int,
        typer.Option("--seed", parser=whole_number(0), help="Seed of generated traces and interruptions."),
    ] = 0,
    out: Annotated[
        Path | None, typer.Option("--out", help="Also write an HTML report with the chart.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the stable JSON document.")] = False,
    lang: LangOption = None,
    currency: CurrencyOption = "USD",
    usd_per_cny: UsdPerCnyOption = None,
    cny_per_usd: CnyPerUsdOption = None,
    force_rate: ForceRateOption = False,
    project: ProjectOption = None,
) -> None:
    """Replay a load trace under scaling policies: cost, latency percentiles, SLO misses, drops."""
    apply_language(lang)
    _check_out(out)
    _check_currency(currency)
    from gpuplan.hardware import resolve_gpu
    from gpuplan.report.simulate import autoscale_html, autoscale_json, autoscale_view
    from gpuplan.simulate import (
        SimulationSettings,
        load_policies,
        parse_policy,
        read_trace_csv,
        simulate_autoscale,
    )
    from gpuplan.simulate.inputs import fleet_prices, parse_replica
    from gpuplan.workload import load_workload

    w = load_workload(workload_file, project=project)
    if w.serving is None and replica is None:
        raise InputError.worded(
            N_("{file}: add serving: (requests_per_s, prompt_tokens, output_tokens)"), file=workload_file.name
        )
    pols = [parse_policy(p) for p in policy or []] + (load_policies(policies) if policies else [])
    if not pols:
        raise InputError.worded(
            N_("give at least one --policy (e.g. --policy target:target=0.7) or --policies FILE")
        )
    if (trace is None) == (shape is None):
        raise InputError.worded(N_("give --trace FILE.csv or --shape diurnal|bursty|step (one of them)"))
    prompt = w.serving.prompt_tokens if w.serving else 512
    output = w.serving.output_tokens if w.serving else 256
    if trace is not None:
        tr = read_trace_csv(trace)
    else:
        mean_rate = rate or (w.serving.requests_per_s if w.serving else None)
        if mean_rate is None:
            raise InputError.worded(N_("--shape needs --rate (or serving.requests_per_s in the workload)"))
        tr = _shape_trace(str(shape), mean_rate, hours, seed, prompt, output)
    tr = tr.with_tokens(prompt, output)
    gpu_id = resolve_gpu(gpu).id
    store = _open_store(ctx, currency, (usd_per_cny, cny_per_usd, force_rate))
    try:
        prices = fleet_prices(
            store.offers(gpu=gpu_id) if store is not None else [],
            gpu_id,
            on_demand_usd=on_demand_price,
            spot_usd=spot_price,
            spot_rate_per_hour=spot_rate,
        )
        money = _money(store, currency)
        assert tr.prompt_tokens is not None and tr.output_tokens is not None
        mean_ctx = float(tr.prompt_tokens.mean() + tr.output_tokens.mean() / 2)
        rep = (
            parse_replica(replica, gpu_id)
            if replica
            else _replica(ctx, w, workload_file.name, gpu_id, store, mean_ctx)
        )
    finally:
        if store is not None:
            store.close()
    slo = (
        slo_ms / 1000
        if slo_ms
        else (w.serving.p95_latency_ms / 1000 if w.serving and w.serving.p95_latency_ms else None)
    )
    res = simulate_autoscale(
        tr,
        rep,
        pols,
        prices,
        SimulationSettings(slo_s=slo, timeout_s=timeout_s, spot_notice_s=spot_notice_s, seed=seed),
    )
    if out is not None:
        write_text_atomic(out, autoscale_html(res, money))
    if as_json:
        sys.stdout.write(json.dumps(autoscale_json(res), indent=2, ensure_ascii=False) + "\n")
        return
    console().print(autoscale_view(res, money))


@app.command("trace")
def trace_cmd(
    shape: Annotated[str, typer.Argument(help="diurnal, bursty or step.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="CSV file to write.")],
    rate: Annotated[
        float, typer.Option("--rate", help="Mean requests per second.", parser=finite_float)
    ] = 5.0,
    hours: Annotated[float, typer.Option("--hours", help="Length of the trace.", parser=finite_float)] = 24.0,
    seed: Annotated[int, typer.Option("--seed", parser=whole_number(0), help="Same seed, same trace.")] = 0,
    # A trace holds at most MAX_TOKENS per request (the reader refuses more): so does a generated one.
    prompt_tokens: Annotated[
        int, typer.Option("--prompt-tokens", parser=whole_number(1, _MAX_TOKENS), help="Mean prompt tokens.")
    ] = 512,
    output_tokens: Annotated[
        int, typer.Option("--output-tokens", parser=whole_number(1, _MAX_TOKENS), help="Mean output tokens.")
    ] = 256,
    lang: LangOption = None,
) -> None:
    """Write a synthetic (seeded, reproducible) trace CSV of a common load shape."""
    import numpy as np

    from gpuplan.i18n import _

    apply_language(lang)
    tr = _shape_trace(shape, rate, hours, seed, prompt_tokens, output_tokens)
    assert tr.prompt_tokens is not None and tr.output_tokens is not None
    f = io.StringIO()
    f.write(f"# SYNTHETIC {shape} trace, not recorded load: gpuplan simulate trace {shape} ")
    f.write(f"--rate {rate:g} --hours {hours:g} --seed {seed}\n")
    np.savetxt(
        f,
        np.column_stack([tr.arrival_s, tr.prompt_tokens, tr.output_tokens]),
        fmt=["%.3f", "%d", "%d"],
        delimiter=",",
        header="timestamp,prompt_tokens,output_tokens",
        comments="",
    )
    # Written whole once built: an interrupted run leaves no half trace that reads as a short one.
    write_text_atomic(out, f.getvalue(), what="trace")
    sys.stderr.write(_("wrote {n} requests to {path}").format(n=f"{tr.requests:,}", path=out) + "\n")


@app.command("share")
def share_cmd(
    ctx: typer.Context,
    services_file: Annotated[Path, typer.Argument(help="services.yaml: the services to place.")],
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
    price: Annotated[
        float | None,
        typer.Option(
            "--price",
            help="USD per GPU-hour (default: the catalog's cheapest on-demand).",
            parser=finite_float,
        ),
    ] = None,
    k8s_out: Annotated[
        Path | None, typer.Option("--k8s-out", help="Write the Kubernetes configuration into this directory.")
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
    """Pack inference services onto GPUs (whole, MIG slices, time-slicing): GPUs, cost, headroom, k8s."""
    apply_language(lang)
    _check_out(out)
    _check_currency(currency)
    from gpuplan.cli._services import estimate_services
    from gpuplan.cli._settings import settings
    from gpuplan.confine import Folder
    from gpuplan.errors import NotFoundError
    from gpuplan.hardware import resolve_gpu
    from gpuplan.report.simulate import share_html, share_json, share_view
    from gpuplan.simulate.inputs import fleet_prices, load_services
    from gpuplan.simulate.share import SHARINGS, ShareOptions, pack_services

    if sharing not in (*SHARINGS, "best"):
        raise NotFoundError("sharing", sharing, [*SHARINGS, "best"])
    spec = load_services(services_file)
    name = gpu or spec.gpu
    if not name:
        raise InputError.worded(N_("give --gpu (or gpu: in the services file)"))
    g = resolve_gpu(name)
    access = (Folder.of(services_file, project), allow_code)
    estimated = estimate_services(settings(ctx).db, spec, services_file, g.id, access)
    demands = spec.demands(estimated)
    store = _open_store(ctx, currency, (usd_per_cny, cny_per_usd, force_rate))
    try:
        per_hour = price
        if per_hour is None and store is not None:
            try:
                per_hour = fleet_prices(store.offers(gpu=g.id), g.id).usd_per_hour["on_demand"]
            except InputError:
                per_hour = None  # the report says "price unknown" rather than inventing one
        money = _money(store, currency)
    finally:
        if store is not None:
            store.close()
    base = dict(
        gpu_id=g.id,
        gpu_memory_gib=g.memory_gib,
        price_usd_per_hour=per_hour,
        target_utilisation=target,
        time_slice_penalty=time_slice_penalty,
    )
    if sharing == "best":
        plans, refused = [], []
        for s in SHARINGS:
            try:
                plans.append(pack_services(demands, ShareOptions(sharing=s, **base)))  # type: ignore[arg-type]
            except InputError as e:
                refused.append(e)  # e.g. no MIG on this GPU
        if not plans:  # what no sharing can place (no services, a load past the limit) says why
            raise refused[0]
        plan = min(plans, key=lambda p: (len(p.unplaced), p.gpus_needed, SHARINGS.index(p.sharing)))
    else:
        plan = pack_services(demands, ShareOptions(sharing=sharing, **base))  # type: ignore[arg-type]
    if k8s_out is not None:
        _write_k8s(plan, k8s_out)
    if out is not None:
        write_text_atomic(out, share_html(plan, money))
    if as_json:
        sys.stdout.write(json.dumps(share_json(plan), indent=2, ensure_ascii=False) + "\n")
        return
    console().print(share_view(plan, money))


def _write_k8s(plan: SharePlan, directory: Path) -> None:
    from gpuplan.deploy.k8s.sharing import SharedDeployment, SharingLayout, sharing_manifests

    if directory.exists() and any(directory.iterdir()):
        raise InputError.worded(N_("--k8s-out {folder} is not empty; give a new directory"), folder=directory)
    gpus = sorted({p.gpu_index for p in plan.placements})
    if plan.sharing == "mig":
        per_gpu = []
        for g in gpus:
            counts: dict[str, int] = {}
            for p in plan.placements:
                if p.gpu_index == g:
                    counts[p.slice] = counts.get(p.slice, 0) + 1
            per_gpu.append(counts)
        layout = SharingLayout(sharing="mig", mig_per_gpu=tuple(per_gpu))
    elif plan.sharing == "time-slice":
        most = max((sum(1 for p in plan.placements if p.gpu_index == g) for g in gpus), default=1)
        layout = SharingLayout(sharing="time-slice", time_slice_replicas=max(2, most))
    elif plan.sharing == "mps":
        parts = int(plan.services[0].slice.split("/")[-1]) if plan.services else 1
        layout = SharingLayout(sharing="mps", time_slice_replicas=parts)
    else:
        layout = SharingLayout(sharing="whole")
    deps = [
        SharedDeployment(
            name=s.name,
            resource=f"nvidia.com/mig-{s.slice}" if plan.sharing == "mig" else "nvidia.com/gpu",
            replicas=s.instances,
        )
        for s in plan.services
    ]
    from gpuplan.deploy.output import write_files

    # Inside the directory only, all files or none (deploy's writer: no link followed out of it).
    write_files(sharing_manifests(layout, deps), directory)


def register(root: typer.Typer) -> None:
    """Add the ``simulate`` group to the root app."""
    root.add_typer(app)
