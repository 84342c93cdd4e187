"""``gpuplan estimate``: does the workload fit, how fast is a step, how long is the job, on each GPU."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

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
    currency_shown,
    resolve_usd_per_cny,
)
from gpuplan.cli._network import network_gbps_option, network_kind_option
from gpuplan.cli._numbers import finite_in, whole_number
from gpuplan.cli._profiles import load_profile, open_cache
from gpuplan.cli._progress import TRACING, spinner
from gpuplan.hardware.gpus import MAX_GPU_COUNT, MAX_HOST_VCPUS
from gpuplan.i18n import _, set_money
from gpuplan.units import MAX_MEASURED_THROUGHPUT, MIN_MEASURED, split_list

if TYPE_CHECKING:
    from gpuplan.api import InstanceLinks
    from gpuplan.catalog import Store
    from gpuplan.perf.anchor import StepMeasurement
    from gpuplan.workload import Workload


def estimate_cmd(
    ctx: typer.Context,
    workload_file: Annotated[
        Path, typer.Argument(help="Workload YAML file.", metavar="WORKLOAD", show_default=False)
    ],
    gpu: Annotated[
        list[str] | None,
        typer.Option(
            "--gpu",
            "-g",
            help="GPU to estimate (repeatable or comma-separated; NAME or NAME:COUNT). Default: all.",
        ),
    ] = None,
    count: Annotated[
        int | None,
        typer.Option(
            "--count",
            "-n",
            parser=whole_number(1, MAX_GPU_COUNT),
            help=(
                "GPUs per configuration (default: one replica, tensor_parallel × pipeline_parallel; "
                "with --instance, the instance's GPUs)."
            ),
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the stable JSON document.")] = False,
    network_gbps: Annotated[
        float | None,
        network_gbps_option(
            "Inter-node network per node, Gbit/s (default: unknown: 100 TCP at the point, "
            "2.5 TCP at the slow end, 3,200 RDMA at the fast end)."
        ),
    ] = None,
    network_kind: Annotated[
        str | None,
        network_kind_option(
            "rdma (EFA, InfiniBand, RoCE: efa, infiniband, ib and roce read as rdma) or tcp (default with "
            "--network-gbps: tcp at the point, "
            "rdma at the fast end)."
        ),
    ] = None,
    instance: Annotated[
        str | None,
        typer.Option(
            "--instance",
            help="Instance type from the catalog: its GPU, GPUs per node, NVLink, network, vCPUs and RAM.",
        ),
    ] = None,
    vcpus: Annotated[
        int | None,
        typer.Option(
            "--vcpus",
            parser=whole_number(1, MAX_HOST_VCPUS),
            help="CPU threads (vCPUs) of the machine the GPUs are in, as `nproc` counts them: a machine "
            "of your own, which has no instance type (with --instance: replaces the catalog's). An "
            "image job's DataLoader decodes on them.",
        ),
    ] = None,
    providers: Annotated[
        str | None,
        typer.Option(
            "--providers",
            "--provider",
            help="Comma list: price the advice's other GPUs only at these providers (aws,alibaba …; "
            "replaces the workload's constraints.providers, as plan's option does).",
        ),
    ] = None,
    regions: Annotated[
        str | None,
        typer.Option(
            "--regions",
            "--region",
            help="Comma list of regions the advice's other GPUs are priced in (cn-beijing,us-east-1 …).",
        ),
    ] = None,
    countries: Annotated[
        str | None,
        typer.Option(
            "--countries",
            help="Comma list of countries the advice's other GPUs are priced in, by ISO code or name: "
            "CN,US or China …, or EU.",
        ),
    ] = None,
    allow_low_confidence: Annotated[
        bool,
        typer.Option(
            "--allow-low-confidence",
            help="Also price a bigger GPU in the advice on prices labelled low-confidence ("
            "two published Chinese GPU guide articles' 2024 price tables), as plan does with it.",
        ),
    ] = False,
    measured_speedup: Annotated[
        float | None,
        typer.Option(
            "--measured-speedup",
            parser=finite_in(MIN_MEASURED, MAX_GPU_COUNT),
            help="The speed-up you measured on these GPUs over one GPU of the kind (throughput of all "
            "over one's): estimate compares it with its own and ranks the likely causes of a gap.",
        ),
    ] = None,
    measured_throughput: Annotated[
        float | None,
        typer.Option(
            "--measured-throughput",
            parser=finite_in(MIN_MEASURED, MAX_MEASURED_THROUGHPUT),
            help="The throughput you measured on these GPUs, all together, in the table's unit "
            "(tokens/s for a sequence model, else samples/s): compared as --measured-speedup is.",
        ),
    ] = None,
    lang: LangOption = None,
    currency: CurrencyOption = "USD",
    usd_per_cny: UsdPerCnyOption = None,
    cny_per_usd: CnyPerUsdOption = None,
    force_rate: ForceRateOption = False,
    project: ProjectOption = None,
) -> None:
    """Whether WORKLOAD fits each GPU, its step time, throughput and job time, with advice if it does not."""
    apply_language(lang)
    from gpuplan.cli._simulate_common import check_currency, display_money_for

    currency = check_currency(currency)  # a misspelt currency: one line, before the trace
    rate = resolve_usd_per_cny(usd_per_cny, cny_per_usd)
    from gpuplan.api import (
        estimate,
        measured_scaling,
        offered_gpu_hours,
        own_host,
        refuse_two_counts,
        refuse_unread_speedup,
        refuse_unrunnable,
        refuse_unsplit,
    )
    from gpuplan.cli._settings import settings
    from gpuplan.report.estimate import estimate_json, estimate_view
    from gpuplan.workload import load_workload

    workload = load_workload(workload_file, project=project).placed(
        providers=_listed(providers), regions=_listed(regions), countries=_listed(countries)
    )
    currency = currency_shown(ctx, currency, in_yuan=workload.shown_currency() == "CNY")
    if gpu:
        from gpuplan.hardware import parse_gpu_spec

        # "--gpu H100,L40S" as "--gpu H100 --gpu L40S"; every name checked before the trace, so a
        # typo costs one line at once, not a trace first.
        gpu = [g for item in gpu for g in split_list(item)]
        for g in gpu:
            if parse_gpu_spec(g)[0].id == "A10":
                # "a10" is NVIDIA's A10 (125 bf16 TFLOPS), not the A10G of AWS's g5 instances (70):
                # an AWS user typing "a10" had been estimated 26 % faster than their card, unsaid.
                sys.stderr.write(
                    _(
                        "note: {name} is NVIDIA's A10; AWS's g5 instances carry the A10G: "
                        "write --gpu A10G for it"
                    ).format(name=g)
                    + "\n"
                )
        refuse_two_counts(gpu, count)
        # Every GPU named lacks the precision's tensor cores (fp8 on an A100): that line now.
        refuse_unrunnable(workload, gpu)
    # One store for all three: the profile cache, the `gpuplan bench` results that refine estimates
    # and the offers the advice prefers GPUs of (seeded on first use: on a fresh catalog every
    # "use a bigger GPU" had said "not offered in the catalog").
    store = open_cache(settings(ctx).db, seed=True, usd_per_cny=rate, force_rate=force_rate)
    try:
        # the advice's prices in the currency asked for, at the catalog's dated rate (said below)
        money = display_money_for(store, currency)
        set_money(money)
        links = _network(settings(ctx).db, instance, gpu, network_gbps, network_kind)
        network, gpu, host = links.network, list(links.gpus) if links.gpus else None, links.host
        count = links.count(count)  # an instance's own GPUs, unless --count says otherwise
        if vcpus is not None:
            host = own_host(host, vcpus, gpu, count, workload)
        # A count the tensor × pipeline split does not divide: that line now, not after the trace.
        refuse_unsplit(workload, gpu, count)
        scaling = measured_scaling(workload, gpu, count, measured_speedup, measured_throughput)
        with spinner(_(TRACING).format(name=workload.name), quiet=as_json) as say:
            prof = load_profile(workload, settings(ctx).db, store=store)
            say(_("estimating…"))
            measured = store.local.bench_results() if store is not None else []
            # the bigger GPUs the advice names are priced where the workload may run
            # (what a job of each count pays: whole instances holding its GPUs)
            offers = store.offers() if store is not None else None
            offered = (
                None
                if offers is None
                else lambda n: offered_gpu_hours(
                    workload, offers, count=n, allow_low_confidence=allow_low_confidence
                )
            )
            steps = _measured_steps(store, workload)
            report = estimate(
                workload,
                gpu or None,
                count=count,
                profile=prof,
                measurements=measured,
                network=network,
                host=host,
                offered_gpus=offered,
                # The stock and tuned stacks' profiles come through the same cache.
                levels=True,
                level_profile=lambda wl: load_profile(wl, settings(ctx).db, store=store),
                measured_steps=steps,
                # the advice's checkpointing and combined rows: the workload written with them
                retrace_advice=True,
                measured_scaling=scaling,
            )
    finally:
        if store is not None:
            store.close()
    prof, outcomes, cal = report.profile, list(report.outcomes), report.calibration
    levels = [(lv.level, lv.outcomes) for lv in report.levels]
    if gpu and all(o.error for o in outcomes):
        # Every GPU the user named cannot run this workload at all (fp8 on an A100 …): that is an
        # error of the request, not a table of blanks.
        from gpuplan.errors import EstimateError

        raise EstimateError(str(outcomes[0].error))
    if scaling is not None:
        refuse_unread_speedup(report, scaling)
    if as_json:
        doc = estimate_json(
            prof,
            outcomes,
            cal,
            parallelism=workload.parallelism.value,
            gradient_accumulation=workload.gradient_accumulation,
            tensor_parallel=workload.tensor_parallel,
            pipeline_parallel=workload.pipeline_parallel,
            stack=report.stack,
            levels=levels,
            checkpoints=report.checkpoints,
        )
        sys.stdout.write(doc.to_json())
        return
    console().print(
        estimate_view(
            prof,
            outcomes,
            cal,
            stack=report.stack,
            levels=levels,
            gradient_accumulation=workload.gradient_accumulation,
            checkpoints=report.checkpoints,
        )
    )
    # The rate is said where an amount was converted with it: the only money an estimate shows is a
    # bigger GPU's price in its advice (the rate's paragraph under a table of times said nothing).
    priced = any(
        a.gpu_price is not None and a.gpu_price.price_usd_per_gpu_hour is not None
        for o in [*outcomes, *(x for _level, level_outcomes in levels for x in level_outcomes)]
        for a in o.advice
    )
    if priced and (note := money.rate_note()):
        console().print(note)
    if steps and not any(o.estimate is not None and o.estimate.anchored for o in outcomes):
        # Recordings of this workload exist but none anchors these GPUs (a CPU recording, a GPU
        # without a datasheet): the table alone would not say that the measurement was seen.
        from gpuplan.perf.anchor import not_anchored_note

        newest = max(steps, key=lambda m: m.measured_at)
        sys.stderr.write(_("note: {line}").format(line=not_anchored_note(newest)) + "\n")


def _listed(text: str | None) -> list[str] | None:
    """A comma list as given (None: not given)."""
    if text is None:
        return None
    return list(split_list(text))


def _measured_steps(store: Store | None, workload: Workload) -> list[StepMeasurement]:
    """The workload's ``gpuplan measure`` recordings in the catalog (a warning for one that does
    not read: an estimate goes on without it)."""
    if store is None:
        return []
    from gpuplan.errors import StoreError
    from gpuplan.i18n.error_text import error_text
    from gpuplan.perf.anchor import workload_measurements

    try:
        steps, problems = workload_measurements(workload, store.local.step_measurements)
    except StoreError as e:
        sys.stderr.write(_("warning: measurements not read ({error})").format(error=error_text(e)) + "\n")
        return []
    for line in problems:
        sys.stderr.write(_("warning: a stored measurement was skipped: {why}").format(why=line) + "\n")
    return steps


def _network(
    db: str | None,
    instance: str | None,
    gpu: list[str] | None,
    network_gbps: float | None,
    network_kind: str | None,
) -> InstanceLinks:
    """The links the user gave, or the catalog's facts of ``instance`` (which also names the GPU),
    and the instance's host: its GPUs, vCPUs and RAM (``gpuplan.api.instance_links``, which the
    service shares)."""
    from gpuplan.api import instance_links

    if instance is None:
        links = instance_links(None, None, gpus=gpu, network_gbps=network_gbps, network_kind=network_kind)
    else:
        from gpuplan.catalog import open_store

        store = open_store(db)  # the catalog, seeded on first use (the profile cache need not be)
        try:
            links = instance_links(
                store, instance, gpus=gpu, network_gbps=network_gbps, network_kind=network_kind
            )
        finally:
            store.close()
    return links


def register(app: typer.Typer) -> None:
    """Add this group's commands to `app`."""
    app.command("estimate")(estimate_cmd)
