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
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from gpuplan.bounded import printable
from gpuplan.cli._access import ProjectOption
from gpuplan.cli._files import write_text_atomic
from gpuplan.cli._given_price import GivenPrice, given_price, off_the_catalog, price_usd
from gpuplan.cli._help import SuggestingGroup
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
from gpuplan.cli._progress import TRACING
from gpuplan.cli._simulate_common import check_currency, check_out, display_money_for, open_store
from gpuplan.cli.simulate_share import add_share
from gpuplan.errors import InputError
from gpuplan.hardware.gpus import MAX_GPU_COUNT
from gpuplan.i18n import N_, _

#: ``gpuplan.simulate.trace.MAX_TOKENS``, which imports numpy: written out here so that the command
#: line is built without it (``tests/cli/test_hostile_one_line.py`` keeps the two equal).
_MAX_TOKENS = 10_000_000

if TYPE_CHECKING:
    import numpy as np

    from gpuplan.catalog import OfferPrice, Store
    from gpuplan.perf.links import NetworkSpec
    from gpuplan.profile.model import Profile
    from gpuplan.simulate import Policy, ReplicaModel, Trace
    from gpuplan.workload import Workload

#: The p95 latency ``plan`` estimates for a load (requests/s) over a fleet (replicas): what
#: :func:`gpuplan.api.with_plan_p95` asks of a simulated service.
PlanP95 = Callable[[float, int], float | None]

__all__ = ["register"]

app = typer.Typer(
    name="simulate",
    help="Before paying for a policy, simulate it: autoscaling on a load trace, GPU sharing of services.",
    no_args_is_help=True,
    cls=SuggestingGroup,  # "did you mean" for an unknown command (cli/_help.py)
)


@app.callback()
def _simulate_group(lang: LangOption = None) -> None:
    # --lang is accepted on the group too (`gpuplan simulate --lang zh …`); the root group has
    # already read it from the command line for --help (cli/_help.py).
    apply_language(lang)


SHAPES = ("diurnal", "bursty", "step")


def _shape_trace(
    shape: str,
    rate: tuple[float | None, float | None],
    hours: float,
    seed: int,
    prompt: int | None,
    output: int | None,
    in_hours: tuple[float, float] | None = None,
    p95: tuple[int | None, int | None] = (None, None),
) -> Trace:
    """A generated trace; ``rate`` is (mean, peak) requests/s, either None; ``in_hours``: the hours
    of each day its requests arrive in (a service's schedule), None: every hour; ``p95``: the
    95th-percentile prompt and answer its lengths are drawn to (None: the published ratio's)."""
    from gpuplan.errors import NotFoundError
    from gpuplan.simulate import Shape, bursty_trace, diurnal_trace, step_trace

    s = Shape(
        mean_requests_per_s=rate[0],
        peak_requests_per_s=rate[1],
        duration_s=hours * 3600,
        seed=seed,
        prompt_tokens=prompt,
        output_tokens=output,
        prompt_tokens_p95=p95[0],
        output_tokens_p95=p95[1],
        hours=in_hours,
    )
    if shape == "diurnal":
        return diurnal_trace(s)
    if shape == "bursty":
        return bursty_trace(s)
    if shape == "step":
        return step_trace(s)
    raise NotFoundError("trace shape", shape, SHAPES)


def _max_for_load(
    policies: list[Policy],
    trace: Trace,
    replica: ReplicaModel,
    *,
    estimate_capacity: float | None = None,
    latency_share: float | None = None,
) -> list[Policy]:
    """:func:`gpuplan.simulate.autoscale.max_for_trace`: the service's simulate route sets the same
    default."""
    from gpuplan.simulate.autoscale import max_for_trace

    return max_for_trace(
        policies, trace, replica, estimate_capacity=estimate_capacity, latency_share=latency_share
    )


def _replica(
    ctx: typer.Context,
    w: Workload,
    file_name: str,
    gpu_id: str,
    store: Store | None,
    lengths: tuple[np.ndarray, np.ndarray],
    engine_text: str | None,
    network: NetworkSpec | None,
    share: int,
    gpus_per_instance: int = 1,
) -> tuple[ReplicaModel, float, float | None, float | None, PlanP95]:
    """The estimator's continuous-batching replica for this trace, the bytes its cold start reads
    (its checkpoint's, :func:`~gpuplan.simulate.replica.checkpoint_bytes`), one replica's capacity
    at full load by the estimate plans size fleets with (None: it gives none), which a queue
    policy's default target is chosen from beside the replica's own, and the lower share of it the
    workload's latency targets need, as plan sizes replicas for them, in whole instances of
    ``gpus_per_instance`` GPUs (None: none), and the p95 latency ``plan`` estimates for a load over
    a fleet (:func:`gpuplan.api.with_plan_p95`'s)."""
    from gpuplan.api import estimate_replica_figures, plan_p95_latency
    from gpuplan.cli._profiles import load_profile
    from gpuplan.cli._progress import spinner
    from gpuplan.cli._settings import settings
    from gpuplan.errors import EstimateError
    from gpuplan.hardware import get_gpu
    from gpuplan.simulate.replica import ServingStack, checkpoint_bytes, estimator_replica

    if w.task.value != "infer":
        raise InputError.worded(
            N_("{file}: simulate autoscale needs task: infer (or give --replica)"), file=file_name
        )
    with spinner(_(TRACING).format(name=w.name), quiet=not sys.stderr.isatty()):
        prof = load_profile(w, settings(ctx).db, store=store)
    if w.serves_traced_calls:
        return _image_replica(w, gpu_id, prof, share, store)
    if prof.shape.family != "decoder":
        raise EstimateError.worded(
            N_(
                "{name}: the replica model needs a decoder LLM (KV cache, decode steps); "
                "give --replica slots=N,tpot_ms=T for another model"
            ),
            name=w.name,
        )
    stack = ServingStack.of(w, engine_text=engine_text, replicas_per_gpu=share, network=network)
    replica, weights = estimator_replica(
        prof, get_gpu(gpu_id), stack, prompt_tokens=lengths[0], output_tokens=lengths[1]
    )
    return (
        replica,
        checkpoint_bytes(w, prof, weights),
        *estimate_replica_figures(
            w, gpu_id, prof, replicas_per_gpu=share, gpus_per_instance=gpus_per_instance
        ),
        lambda rate, n: plan_p95_latency(
            w, gpu_id, prof, replicas_per_gpu=share, requests_per_s=rate, replicas=n
        ),
    )


def _image_replica(
    w: Workload, gpu_id: str, prof: Profile, share: int, store: Store | None
) -> tuple[ReplicaModel, float, float | None, float | None, PlanP95]:
    """An image service's replica as ``plan`` sizes it (:func:`gpuplan.api.image_step`, one
    estimate): its batch of places, each image its denoiser calls × the call's time, that call
    anchored on the workload's ``gpuplan measure`` recordings in ``store`` as plan's is; the bytes
    its cold start reads, its capacity, no latency share (held at the sizing utilisation, as plan
    sizes it), and the p95 latency plan estimates for a load over a fleet, of the same step."""
    from gpuplan.api import image_step
    from gpuplan.errors import EstimateError
    from gpuplan.perf.anchor import workload_measurements
    from gpuplan.simulate.replica import checkpoint_bytes, image_replica

    steps = workload_measurements(w, store.local.step_measurements)[0] if store is not None else []
    step = image_step(w, gpu_id, prof, replicas_per_gpu=share, measured_steps=steps)
    if step is None or not step.capacity_images_per_s > 0:
        raise EstimateError.worded(
            N_("{name}: the estimate gives no step of the model on {gpu} (`gpuplan estimate` says why)"),
            name=w.name,
            gpu=gpu_id,
        )
    rep = image_replica(gpu_id, step, replicas_per_gpu=share, forward_pass=w.serves_forward_passes)
    # the weights as the checkpoint stores them (at fp32 where its dtype is not known)
    return (
        rep,
        checkpoint_bytes(w, prof, 0.0),
        step.capacity_images_per_s,
        None,
        lambda rate, n: step.serving(rate, n).p95_latency_s,
    )


@app.command("autoscale")
def autoscale_cmd(
    ctx: typer.Context,
    workload_file: Annotated[
        Path, typer.Argument(help="Inference workload YAML (task: infer, serving:).", metavar="WORKLOAD")
    ],
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
            help="Mean requests/s of a generated trace, in the shape's own proportions unless --peak is "
            "given too (default: the workload's serving.mean_requests_per_s, if given).",
            parser=finite_float,
        ),
    ] = None,
    peak: Annotated[
        float | None,
        typer.Option(
            "--peak",
            help="Peak requests/s of a generated trace: a diurnal day's busiest minute, a burst, a step's "
            "upper level (default: the workload's serving.requests_per_s, the load the plan sizes for). "
            "With --rate or --peak, the workload's rates are not used.",
            parser=finite_float,
        ),
    ] = None,
    hours: Annotated[
        float, typer.Option("--hours", help="Length of a generated trace.", parser=finite_float)
    ] = 24.0,
    gpu: Annotated[
        str | None, typer.Option("--gpu", "-g", help="GPU of one replica (default A100-SXM4-80GB).")
    ] = None,
    instance: Annotated[
        str | None,
        typer.Option(
            "--instance",
            help="Instance type from the catalog a replica runs on: its GPU, how its GPUs are joined, "
            "its prices.",
        ),
    ] = None,
    policy: Annotated[
        list[str] | None,
        typer.Option(
            "--policy",
            "-p",
            help="A policy, repeatable: fixed:replicas=4, target:target=0.7,max=10, "
            "queue:per_replica=48, scheduled:at=0h@2/8h@6, gpu-util:80 (the HPA gpuplan deploy "
            "writes: DCGM GPU utilisation in percent; target, min and max default to the "
            "workload's serving block). Without a max, target, queue and gpu-util scale to twice the "
            "replicas the trace's peak needs.",
        ),
    ] = None,
    policies: Annotated[Path | None, typer.Option("--policies", help="A YAML list of policies.")] = None,
    replica: Annotated[
        str | None,
        typer.Option(
            "--replica", help="Replica speed instead of the estimator: slots=N,tpot_ms=T,prefill_tps=R."
        ),
    ] = None,
    slo: Annotated[
        str | None,
        typer.Option(
            "--slo",
            help="Latency targets METRIC_pN=TIME (queue, ttft, tpot, e2e): ttft_p95=2s,tpot_p95=80ms "
            "(default: the workload's p95_latency_ms end to end, ttft_p95_ms and tpot_p95_ms).",
        ),
    ] = None,
    slo_ms: Annotated[
        float | None,
        typer.Option(
            "--slo-ms",
            help="End-to-end p95 target in ms, as --slo e2e_p95=… (default: the workload's p95_latency_ms).",
            parser=finite_float,
        ),
    ] = None,
    trace_scale: Annotated[
        float | None,
        typer.Option(
            "--trace-scale",
            help="Re-time the trace: its arrivals K times as fast (load × K).",
            parser=finite_float,
        ),
    ] = None,
    trace_tile_hours: Annotated[
        float | None,
        typer.Option(
            "--trace-tile-hours",
            help="Re-time the trace: repeat it to fill this many hours.",
            parser=finite_float,
        ),
    ] = None,
    engine: Annotated[
        str | None,
        typer.Option(
            "--engine",
            help="Serving engine settings, comma-separated: max_num_seqs=N, max_batched_tokens=N, "
            "chunked_prefill=on or off, prefix_caching=on or off (default: those of the workload's "
            "serving.engine for the GPU; vLLM's if it names none).",
        ),
    ] = None,
    tensor_parallel: Annotated[
        int | None,
        typer.Option(
            "--tensor-parallel",
            parser=whole_number(1, MAX_GPU_COUNT),  # a workload's own bound (MAX_MODEL_PARALLEL)
            help="GPUs one replica is split over, in place of the workload's tensor_parallel: the split "
            "a plan chose for a workload that states none (deploy's replay commands give it).",
            show_default=False,
        ),
    ] = None,
    storage_gbps: Annotated[
        float | None,
        typer.Option(
            "--storage-gbps",
            help="Weights read rate at a replica's start, GB/s (default: the workload's data.copy_gbps, "
            "else 0.131: a gp3 volume's baseline).",
            parser=finite_float,
        ),
    ] = None,
    timeout_s: Annotated[
        float, typer.Option("--timeout-s", help="Drop a request that waited this long.", parser=finite_float)
    ] = 120.0,
    on_demand_price: Annotated[
        GivenPrice | None,
        typer.Option(
            "--on-demand-price",
            help="Price per replica-hour with its currency: ¥34.74, 34.74 CNY or $4.8 (a bare number is "
            "USD, and refused with --currency CNY). Default: the catalog's cheapest.",
            parser=given_price,
            metavar="PRICE",
        ),
    ] = None,
    spot_price: Annotated[
        GivenPrice | None,
        typer.Option(
            "--spot-price",
            help="Price per spot replica-hour, written as --on-demand-price is.",
            parser=given_price,
            metavar="PRICE",
        ),
    ] = None,
    commit_price: Annotated[
        GivenPrice | None,
        typer.Option(
            "--commit-price",
            help="Price per committed replica-hour (a policy's commit=N), written as --on-demand-price "
            "is: a month's price ÷ 730 h. Default: the catalog's monthly or reserved price.",
            parser=given_price,
            metavar="PRICE",
        ),
    ] = None,
    spot_rate: Annotated[
        float | None,
        typer.Option(
            "--spot-rate",
            help="Spot reclaims per spot instance-hour (a reclaim takes every replica on the instance).",
            parser=finite_float,
        ),
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
    check_out(out)
    currency = check_currency(currency)
    from gpuplan.api import replica_host
    from gpuplan.report.autoscale import autoscale_html, autoscale_json, autoscale_view
    from gpuplan.simulate import (
        SimulationSettings,
        load_policies,
        parse_policy,
        read_trace_csv,
        retime,
        simulate_autoscale,
    )
    from gpuplan.simulate.inputs import (
        autoscale_slos,
        check_commit_price,
        fleet_prices,
        parse_replica,
        policy_fleets,
        prices_by_policy,
        request_tokens,
        request_tokens_p95,
        storage_bytes_per_s,
    )
    from gpuplan.simulate.policy import as_deployed, service_hours
    from gpuplan.simulate.replica import cold_start, new_instance_start_up
    from gpuplan.workload import load_workload

    SimulationSettings(timeout_s=timeout_s, spot_notice_s=spot_notice_s)  # refused before any work
    if shape is not None and shape not in SHAPES:  # a misspelt shape is said before what else is missing
        from gpuplan.errors import NotFoundError

        raise NotFoundError("trace shape", shape, SHAPES)
    w = load_workload(workload_file, project=project)
    if tensor_parallel is not None:
        w = _split(w, tensor_parallel)
    yuan = w.constraints is not None and w.constraints.budget_cny is not None
    currency = currency_shown(ctx, currency, in_yuan=w.shown_currency() == "CNY")
    if w.serving is None and replica is None:
        raise InputError.worded(
            N_("{file}: add serving: (requests_per_s, prompt_tokens, output_tokens)"), file=workload_file.name
        )
    # replicas time-sharing a GPU run and are billed so, as plan prices them
    share = w.replicas_per_gpu
    pols = [parse_policy(p) for p in policy or []] + (load_policies(policies) if policies else [])
    # gpu-util as deploy writes the HPA: the serving block's target and replica range, unless the
    # policy names them itself
    # on a schedule (serving.schedule) a generated day is a scheduled day in its time zone: the
    # policies run none outside its hours, as deploy's KEDA cron trigger; a recorded trace's times
    # are not known to be in that zone, so it is replayed as recorded, and the report says so
    schedule = w.serving.schedule.window if w.serving is not None and w.serving.schedule else None
    on_schedule = schedule is not None and shape is not None
    pols = as_deployed(pols, w.serving, on_schedule=on_schedule)
    if not pols:
        raise InputError.worded(
            N_("give at least one --policy (e.g. --policy target:target=0.7) or --policies FILE")
        )
    if (trace is None) == (shape is None):
        raise InputError.worded(N_("give --trace FILE.csv or --shape diurnal|bursty|step (one of them)"))
    # an image service's request is one image: no prompt, one "output" (the image), whatever
    # token columns a trace file has
    prompt, output = (0, 1) if w.serves_traced_calls else request_tokens(w.serving)
    if trace is not None:
        tr = read_trace_csv(trace)
        if w.serves_traced_calls:
            tr = replace(tr, prompt_tokens=None, output_tokens=None)
        if trace_scale is not None or trace_tile_hours is not None:
            tr = retime(
                tr,
                rate_scale=1.0 if trace_scale is None else trace_scale,
                tile_to_s=None if trace_tile_hours is None else trace_tile_hours * 3600,
            )
    else:
        if trace_scale is not None or trace_tile_hours is not None:
            raise InputError.worded(N_("--trace-scale and --trace-tile-hours re-time a --trace file"))
        # A rate of 0 is given (and refused by the trace's check), not the workload's. By default the
        # day the plan was sized for: its peak is serving.requests_per_s, its mean the month's
        # mean where the workload gives one (the plan's cost per token is counted at it).
        rates: tuple[float | None, float | None] = (rate, peak)
        if rate is None and peak is None and w.serving is not None:
            rates = (w.serving.mean_requests_per_s, w.serving.requests_per_s)
        if rates == (None, None):
            raise InputError.worded(
                N_("--shape needs --rate or --peak (or serving.requests_per_s in the workload)")
            )
        tr = _shape_trace(
            str(shape),
            rates,
            hours,
            seed,
            prompt,
            output,
            service_hours(w.serving),
            (None, None) if w.serves_traced_calls else request_tokens_p95(w.serving),
        )
    tr = tr.with_tokens(prompt, output)
    if w.serves_traced_calls:  # its requests have no tokens to say were taken from the workload
        tr = replace(tr, default_prompt_tokens=None, default_output_tokens=None)
    slos = autoscale_slos(
        slo,
        slo_ms,
        w.serving.p95_latency_ms if w.serving else None,
        w.serving.ttft_p95_ms if w.serving else None,
        w.serving.tpot_p95_ms if w.serving else None,
        images=w.serves_traced_calls,
        forward_pass=w.serves_forward_passes,
    )
    storage_rate = storage_bytes_per_s(storage_gbps)
    store = open_store(ctx, currency, (usd_per_cny, cny_per_usd, force_rate))
    try:
        gpu_id, network = replica_host(store, gpu, instance)
        money = display_money_for(store, currency)
        cny = store.find_exchange_rate("CNY") if store is not None else None  # stated in --json
        offers = store.offers(gpu=gpu_id) if store is not None else []
        if instance is not None:
            offers = [o for o in offers if o.instance_type.lower() == instance.lower()]
        given_usd = {
            key: price_usd(price, flag=flag, currency=currency, budget_cny=yuan, store=store)
            for key, flag, price in (
                ("on_demand", "--on-demand-price", on_demand_price),
                ("spot", "--spot-price", spot_price),
                ("commit", "--commit-price", commit_price),
            )
        }
        assert tr.prompt_tokens is not None and tr.output_tokens is not None
        lengths = (tr.prompt_tokens, tr.output_tokens)
        weights: float | None = None
        plan_p95: PlanP95 | None = None
        estimate_capacity: float | None = None
        latency_share: float | None = None
        if replica:
            if engine:
                raise InputError.worded(
                    N_("--engine sets the estimator's replica; --replica gives its figures")
                )
            rep = parse_replica(replica, gpu_id)
        else:
            rep, weights, estimate_capacity, latency_share, plan_p95 = _replica(
                ctx,
                w,
                workload_file.name,
                gpu_id,
                store,
                lengths,
                engine,
                network,
                share,
                # the named instance's GPUs: the whole instances a plan of it buys
                gpus_per_instance=int(offers[0].gpu_count) if instance is not None and offers else 1,
            )
        # an autoscaler's max that neither the policy nor the serving block gives follows the load
        # (before the fleet is priced: its largest fleet is what is bought)
        pols = _max_for_load(pols, tr, rep, estimate_capacity=estimate_capacity, latency_share=latency_share)
        check_commit_price(given_usd["commit"], pols)
        given = {
            "on_demand_usd": given_usd["on_demand"],
            "spot_usd": given_usd["spot"],
            "commit_usd": given_usd["commit"],
            "spot_rate_per_hour": spot_rate,
            "gpus_per_replica": w.tensor_parallel,
            "replicas_per_gpu": share,
            # priced only where the workload's constraints allow, as plan prices it
            "constraints": w.constraints,
            # the prices' notes in the display currency, the sources' own figures beside them
            "money": money,
        }
        prices = fleet_prices(offers, gpu_id, **given, **policy_fleets(pols))  # type: ignore[arg-type]
        own_prices = prices_by_policy(offers, gpu_id, pols, **given)
        if instance is not None and any(v is not None for v in given_usd.values()):
            _held_to_the_catalog(offers, gpu_id, given, given_usd, instance, pols)
    finally:
        if store is not None:
            store.close()
    copy_gbps = w.data.copy_gbps if w.data is not None else None
    cold_s, cold_words = cold_start(weights, storage_rate, copy_gbps)
    res = simulate_autoscale(
        tr,
        rep,
        pols,
        prices,
        SimulationSettings(
            slos=slos,
            timeout_s=timeout_s,
            spot_notice_s=spot_notice_s,
            seed=seed,
            cold_start_s=cold_s,
            cold_start_source=cold_words,
            # a schedule's fleet is started before its hours by a new instance's start-up, as plan
            # bills it and deploy's cron lines start it
            start_up=new_instance_start_up(weights, storage_rate, copy_gbps),
            estimate_capacity_requests_per_s=estimate_capacity,
            latency_share=latency_share,
            schedule=schedule,
            schedule_applied=on_schedule,
        ),
        policy_prices=own_prices,
    )
    if plan_p95 is not None:
        from gpuplan.api import with_plan_p95

        res = with_plan_p95(res, plan_p95)
    if out is not None:
        write_text_atomic(out, autoscale_html(res, money))
    if as_json:
        doc = autoscale_json(res, cny, money.currency)
        sys.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
        return
    console().print(autoscale_view(res, money))
    if out is not None:  # as tco says it
        console(stderr=True).print(_("report written to {path}").format(path=out))


def _split(w: Workload, tensor_parallel: int) -> Workload:
    """``w`` with each replica split over ``tensor_parallel`` GPUs (``--tensor-parallel``), refused
    where the workload's own file would be: replicas time-sharing a GPU (``serving.share_gpu``) have
    no GPUs to split over. A split the model's attention heads do not divide is refused where the
    replica is built, in the words plan and estimate use (``estimator_replica``)."""
    if tensor_parallel > 1 and w.serving is not None and w.serving.replicas_per_gpu > 1:
        raise InputError.worded(
            N_(
                "--tensor-parallel {n}: the workload's replicas time-share one GPU each (serving.share_gpu); "
                "leave one of them out"
            ),
            n=tensor_parallel,
        )
    return w.model_copy(update={"tensor_parallel": tensor_parallel})


def _held_to_the_catalog(
    offers: list[OfferPrice],
    gpu_id: str,
    given: dict[str, Any],
    given_usd: dict[str, float | None],
    instance: str,
    pols: list[Policy],
) -> None:
    """Warn where a given price is far from the catalog's price of the named instance, priced as the
    given one would be (per replica-hour, for the same fleet)."""
    from gpuplan.simulate.inputs import fleet_prices, policy_fleets
    from gpuplan.simulate.policy import COMMIT_PRICINGS
    from gpuplan.vocab import pricing_name

    try:
        unpriced: dict[str, Any] = {
            **given,
            "on_demand_usd": None,
            "spot_usd": None,
            "commit_usd": None,
            **policy_fleets(pols),
        }
        held = fleet_prices(offers, gpu_id, **unpriced)
    except InputError:
        return  # the catalog holds no price of it to compare with
    money = given["money"]
    committed = [(k, "--commit-price", "commit") for k in held.usd_per_hour if k in COMMIT_PRICINGS]
    for key, flag, given_key in (
        ("on_demand", "--on-demand-price", "on_demand"),
        ("spot", "--spot-price", "spot"),
        *committed,
    ):
        mine, theirs = given_usd[given_key], held.usd_per_hour.get(key)
        if mine is not None and theirs is not None:
            off_the_catalog(flag, mine, theirs, instance, pricing_name(key), money)


@app.command("trace")
def trace_cmd(
    out: Annotated[Path, typer.Option("--out", "-o", help="CSV file to write.")],
    shape: Annotated[
        str | None,
        typer.Argument(help="diurnal, bursty or step (or --from a recorded trace).", metavar="SHAPE"),
    ] = None,
    source: Annotated[
        Path | None,
        typer.Option("--from", help="Re-time a recorded trace CSV instead (e.g. the Azure LLM trace)."),
    ] = None,
    scale: Annotated[
        float,
        typer.Option(
            "--scale", help="With --from: arrivals K times as fast (load × K).", parser=finite_float
        ),
    ] = 1.0,
    tile_hours: Annotated[
        float | None,
        typer.Option(
            "--tile-hours", help="With --from: repeat it to fill this many hours.", parser=finite_float
        ),
    ] = None,
    rate: Annotated[
        float | None,
        typer.Option(
            "--rate",
            help="Mean requests per second, in the shape's own proportions unless --peak is given too "
            "(default 5 without --peak).",
            parser=finite_float,
        ),
    ] = None,
    peak: Annotated[
        float | None,
        typer.Option(
            "--peak",
            help="Peak requests per second: a diurnal day's busiest minute, a burst, a step's upper level.",
            parser=finite_float,
        ),
    ] = None,
    hours: Annotated[float, typer.Option("--hours", help="Length of the trace.", parser=finite_float)] = 24.0,
    seed: Annotated[int, typer.Option("--seed", parser=whole_number(0), help="Same seed, same trace.")] = 0,
    # A trace holds at most MAX_TOKENS per request (the reader refuses more): so does a generated one.
    # The defaults are simulate.inputs.DEFAULT_PROMPT_TOKENS and DEFAULT_OUTPUT_TOKENS (numpy-free here).
    prompt_tokens: Annotated[
        int, typer.Option("--prompt-tokens", parser=whole_number(1, _MAX_TOKENS), help="Mean prompt tokens.")
    ] = 512,
    output_tokens: Annotated[
        int, typer.Option("--output-tokens", parser=whole_number(1, _MAX_TOKENS), help="Mean output tokens.")
    ] = 256,
    lang: LangOption = None,
) -> None:
    """Write a trace CSV: a synthetic (seeded) load shape, or a recorded trace re-timed (--from)."""
    import numpy as np

    from gpuplan.i18n import ngettext

    apply_language(lang)
    if (shape is None) == (source is None):
        raise InputError.worded(N_("give a shape (diurnal, bursty or step) or --from TRACE.csv, one of them"))
    f = io.StringIO()
    if source is not None:
        from gpuplan.simulate import read_trace_csv, retime

        tr = retime(
            read_trace_csv(source),
            rate_scale=scale,
            tile_to_s=None if tile_hours is None else tile_hours * 3600,
        )
        # The first line is the note the reader keeps; the licence of the source goes with it.
        # Names on one line each: a file name with a newline would start a data row of its own.
        f.write(f"# {printable(tr.note)}\n")
        f.write(f"# derived from {printable(source.name)}: the licence and attribution of that file apply\n")
        times = tr.arrival_s
    else:
        if rate is None and peak is None:
            rate = 5.0
        tr = _shape_trace(shape or "", (rate, peak), hours, seed, prompt_tokens, output_tokens)
        given = (f"--rate {rate:g} " if rate is not None else "") + (
            f"--peak {peak:g} " if peak is not None else ""
        )
        f.write(f"# SYNTHETIC {shape} trace, not recorded load: gpuplan simulate trace {shape} ")
        f.write(f"{given}--hours {hours:g} --seed {seed}\n")
        assert tr.rate is not None
        f.write(
            f"# rate: mean {tr.rate.mean_requests_per_s:.6g} requests/s, "
            f"peak {tr.rate.peak_requests_per_s:.6g} requests/s\n"
        )
        times = tr.arrival_s
    tr = tr.with_tokens(prompt_tokens, output_tokens)
    assert tr.prompt_tokens is not None and tr.output_tokens is not None
    np.savetxt(
        f,
        np.column_stack([times, tr.prompt_tokens, tr.output_tokens]),
        fmt=["%.6f" if source is not None else "%.3f", "%d", "%d"],
        delimiter=",",
        header="timestamp,prompt_tokens,output_tokens",
        comments="",
    )
    # Written whole once built: an interrupted run leaves no half trace that reads as a short one.
    write_text_atomic(out, f.getvalue(), what="trace")
    wrote = ngettext("wrote {n} request to {path}", "wrote {n} requests to {path}", tr.requests)
    sys.stderr.write(wrote.format(n=f"{tr.requests:,}", path=out) + "\n")
    for line in _rate_lines(tr):
        sys.stderr.write(line + "\n")


def _rate_lines(tr: Trace) -> list[str]:
    """What ``simulate trace`` says of the trace it wrote, beyond its size: a generated trace's mean
    and peak, and the lines the report of a simulation would add about the trace."""
    from gpuplan.report.autoscale import trace_rate_lines

    return trace_rate_lines(tr.name, tr.rate, tr.slow_median_gap_s)


def register(root: typer.Typer) -> None:
    """Add the ``simulate`` group to the root app."""
    add_share(app)
    root.add_typer(app)
