"""``gpuplan simulate autoscale`` over the API: on a generated trace (``shape``) or on a trace CSV
sent in the request (``trace_csv``, read by the command's own reader within its bounds).

:func:`check_simulate` runs when the request comes in, before it is queued: everything that can be
judged without tracing the workload (an inference workload with a ``serving:`` block unless the
replica's figures are given, the policies, the GPU or instance type, the SLOs, a given replica or
the engine's settings, the prices and spot options, the trace: an uploaded one read whole, a
generated one's size against the bounds on work), read by the command's own parsers, so that a
bad request is refused in one line at once instead of failing its job later. The job
(:func:`simulate_document`) runs the same checks again on the stored request (the row is data)
and goes on to trace and simulate.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpuplan.errors import EstimateError, InputError
from gpuplan.i18n.messages import N_
from gpuplan.web.requests import RefusedValue, SimulateRequest, refused_as

if TYPE_CHECKING:
    from gpuplan.catalog import Store
    from gpuplan.i18n import Money
    from gpuplan.perf.links import NetworkSpec
    from gpuplan.simulate import FleetPrices, Policy, ReplicaModel, Shape, Slo, Trace
    from gpuplan.workload import Workload
    from gpuplan.workload.spec import ServingSpec

__all__ = ["check_simulate", "simulate_document"]

#: The name an uploaded trace has in the reader's messages: its request field ("trace trace_csv
#: line 7: …"), not a file of the server's.
UPLOAD_NAME = "trace_csv"


def _serving(workload: Workload, request: SimulateRequest) -> ServingSpec | None:
    """The workload's ``serving:`` block: needed by the estimator's replica, not where the request
    gives the replica's figures (``replica``), as ``simulate autoscale`` with ``--replica``."""
    if request.replica is None and (workload.task.value != "infer" or workload.serving is None):
        needs = N_(
            "simulate needs an inference workload: task: infer with a serving: block (or give replica)"
        )
        field = "workload.task" if workload.task.value != "infer" else "workload.serving"
        raise RefusedValue.of(field, InputError.worded(needs))
    return workload.serving


def _estimator_serving(workload: Workload, request: SimulateRequest) -> ServingSpec:
    """The ``serving:`` block the estimator's replica is built from (no ``replica`` given)."""
    serving = _serving(workload, request)
    assert serving is not None and request.replica is None  # _serving refuses the request otherwise
    return serving


def _policies(request: SimulateRequest, workload: Workload) -> list[Policy]:
    """The request's policies, a gpu-util one filled from the workload's serving block as the CLI
    fills it (the HPA ``deploy`` writes)."""
    from gpuplan.simulate import parse_policy
    from gpuplan.simulate.policy import as_deployed

    policies = []
    for i, text in enumerate(request.policies):
        with refused_as(f"policies[{i}]"):
            policies.append(parse_policy(text))
    # on the workload's schedule where the day is generated (as the command line runs it)
    return as_deployed(policies, workload.serving, on_schedule=request.trace_csv is None)


def _one_trace(request: SimulateRequest) -> None:
    if request.trace_csv is not None and request.shape is not None:
        raise RefusedValue.of(
            "shape",
            InputError.worded(N_("give trace_csv (a trace CSV) or shape (a generated trace), not both")),
        )
    retimed = request.trace_scale is not None or request.trace_tile_hours is not None
    if request.trace_csv is None and retimed:
        raise RefusedValue.of(
            "trace_scale" if request.trace_scale is not None else "trace_tile_hours",
            InputError.worded(N_("trace_scale and trace_tile_hours re-time a trace_csv")),
        )


def _shape(request: SimulateRequest, serving: ServingSpec | None) -> Shape:
    from gpuplan.simulate import Shape
    from gpuplan.simulate.inputs import request_tokens, request_tokens_p95
    from gpuplan.simulate.policy import service_hours

    # As the command line: the rate given is the mean; by default the day the plan was sized for,
    # its peak serving.requests_per_s and its mean serving.mean_requests_per_s where given.
    mean, peak = request.rate, request.peak
    if mean is None and peak is None and serving is not None:
        mean, peak = serving.mean_requests_per_s, serving.requests_per_s
    if mean is None and peak is None:
        raise RefusedValue.of(
            "rate", InputError.worded(N_("give rate or peak (or serving.requests_per_s in the workload)"))
        )
    prompt, output = request_tokens(serving)
    prompt_p95, output_p95 = request_tokens_p95(serving)
    return Shape(
        mean_requests_per_s=mean,
        peak_requests_per_s=peak,
        duration_s=request.hours * 3600,
        seed=request.seed,
        prompt_tokens=prompt,
        output_tokens=output,
        prompt_tokens_p95=prompt_p95,
        output_tokens_p95=output_p95,
        hours=service_hours(serving),
    )


def _uploaded(request: SimulateRequest, scratch: Path) -> Trace:
    """The request's trace CSV through the command's reader (size, rows, window, every value),
    re-timed as asked; the file lives only while it is read."""
    from gpuplan.simulate import read_trace_csv, retime

    assert request.trace_csv is not None
    scratch.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="trace-", dir=scratch) as folder:
        path = Path(folder) / UPLOAD_NAME
        path.write_text(request.trace_csv, encoding="utf-8")
        with refused_as("trace_csv"):
            trace = read_trace_csv(path)
    if request.trace_scale is not None or request.trace_tile_hours is not None:
        # a tiling that would hold too many rows, or a scale that would
        with refused_as("trace_tile_hours" if request.trace_tile_hours is not None else "trace_scale"):
            trace = retime(
                trace,
                rate_scale=1.0 if request.trace_scale is None else request.trace_scale,
                tile_to_s=None if request.trace_tile_hours is None else request.trace_tile_hours * 3600,
            )
    return trace


@dataclass(frozen=True)
class _Options:
    """The request's options, read and checked as ``simulate autoscale`` reads its flags."""

    gpu_id: str
    network: NetworkSpec | None
    slos: tuple[Slo, ...]
    storage_bytes_per_s: float | None
    replica: ReplicaModel | None
    """Given figures (``replica``), else None: the estimator's replica."""
    prices: FleetPrices
    policy_prices: dict[str, FleetPrices]
    """By policy name, the prices of its own fleet (``inputs.prices_by_policy``)."""
    gpus_per_instance: int = 1
    """GPUs of the named instance (1 where none is named): the whole instances a plan of it buys,
    which the share a latency target needs is taken at, as the command line takes it."""


#: The request's prices per replica-hour, each in its ``currency``.
_PRICES = ("on_demand_price", "spot_price", "commit_price")


def shown_currency(request: SimulateRequest, workload: Workload) -> str:
    """``currency`` where given, else CNY for a workload budgeted in yuan, else USD: the command's
    rule (cli._i18n.currency_shown)."""
    return workload.shown_currency(request.currency)


def _given_usd(
    store: Store, request: SimulateRequest, workload: Workload
) -> tuple[Money, dict[str, float | None]]:
    """The money the notes are worded in, and the request's prices in USD: a yuan figure at the
    catalog's dated CNY rate, the one the notes show money at (the command's ``--on-demand-price
    ¥18.49``, cli._given_price). Without ``currency``, a price for a workload budgeted in yuan is
    refused, as the command refuses a bare number there: yuan or dollars, the two readings stand
    about seven times apart, and a guess is a seven-fold error one way or the other."""
    from gpuplan.catalog import display_money

    currency = shown_currency(request, workload)
    prices = {field: getattr(request, field) for field in _PRICES}
    if request.currency is None and currency == "CNY":
        for field, value in prices.items():
            if value is not None:
                raise RefusedValue.of(
                    field,
                    InputError.worded(
                        N_(
                            "{value:g}: in which currency? The workload's budget is in CNY: give currency "
                            "CNY for yuan or USD for dollars"
                        ),
                        value=value,
                    ),
                )
    money = display_money(store, currency)
    if currency == "USD":
        return money, prices
    return money, {k: v / money.units_per_usd if v is not None else None for k, v in prices.items()}


@contextmanager
def _in_yuan(money: Money, given: object, usd: float | None) -> Iterator[None]:
    """A refusal of a price given in yuan (its bound is in USD) says the yuan figure and what it
    is in dollars, not a dollar figure the caller never sent."""
    try:
        yield
    except InputError as e:
        if money.currency == "USD" or not isinstance(given, float) or usd is None:
            raise
        raise InputError.worded(
            N_("¥{value:,.2f} is {usd:,.2f} USD at the catalog's rate: {problem}"),
            value=given,
            usd=usd,
            problem=e,
        ) from None


def _options(store: Store, request: SimulateRequest, workload: Workload, policies: list[Policy]) -> _Options:
    from gpuplan.api import instance_links, replica_host
    from gpuplan.hardware import get_gpu, resolve_gpu
    from gpuplan.simulate import SimulationSettings
    from gpuplan.simulate.batching import parse_engine
    from gpuplan.simulate.engines import engine_defaults
    from gpuplan.simulate.inputs import (
        autoscale_slos,
        check_commit_price,
        check_given_prices,
        fleet_prices,
        parse_replica,
        policy_fleets,
        prices_by_policy,
        storage_bytes_per_s,
    )

    serving = _serving(workload, request)
    # the settings' own checks, run now so that a bad timeout or notice is refused before any work
    with refused_as("timeout_s"):
        SimulationSettings(timeout_s=request.timeout_s)
    with refused_as("spot_notice_s"):
        SimulationSettings(spot_notice_s=request.spot_notice_s)
    # slo_ms beside slo is the one refused ("give slo or slo_ms, not both")
    with refused_as("slo_ms" if request.slo_ms is not None else "slo"):
        slos = autoscale_slos(
            request.slo,
            request.slo_ms,
            serving.p95_latency_ms if serving else None,
            serving.ttft_p95_ms if serving else None,
            serving.tpot_p95_ms if serving else None,
        )
    with refused_as("storage_gbps"):
        storage = storage_bytes_per_s(request.storage_gbps)
    if request.gpu is not None:
        with refused_as("gpu"):
            resolve_gpu(request.gpu)
    if request.instance is not None:
        with refused_as("instance"):
            instance_links(store, request.instance)
    with refused_as("gpu"):  # the gpu is not the instance's own
        gpu_id, network = replica_host(store, request.gpu, request.instance)
    offers = store.offers(gpu=gpu_id)
    if request.instance is not None:
        offers = [o for o in offers if o.instance_type.lower() == request.instance.lower()]
    money, usd = _given_usd(store, request, workload)
    for field, price in (
        ("on_demand_price", {"on_demand_usd": usd["on_demand_price"]}),
        ("spot_price", {"spot_usd": usd["spot_price"]}),
        ("commit_price", {"commit_usd": usd["commit_price"]}),
        ("spot_rate", {"spot_rate_per_hour": request.spot_rate}),
    ):
        with refused_as(field), _in_yuan(money, getattr(request, field), usd.get(field)):
            check_given_prices(**price, gpus_per_replica=workload.tensor_parallel)
    with refused_as("commit_price"):
        check_commit_price(usd["commit_price"], policies)
    given = {
        "on_demand_usd": usd["on_demand_price"],
        "spot_usd": usd["spot_price"],
        "commit_usd": usd["commit_price"],
        "spot_rate_per_hour": request.spot_rate,
        # the prices' notes in the request's currency, as the command words them in its own
        "money": money,
        "gpus_per_replica": workload.tensor_parallel,
        # replicas time-sharing a GPU are billed so, as plan prices them (and run so: _estimated)
        "replicas_per_gpu": workload.replicas_per_gpu,
        # priced only where the workload's constraints allow, as plan prices it
        "constraints": workload.constraints,
    }
    prices = fleet_prices(offers, gpu_id, **given, **policy_fleets(policies))  # type: ignore[arg-type]
    own_prices = prices_by_policy(offers, gpu_id, policies, **given)
    replica = None
    if request.replica is not None:
        if request.engine is not None:
            raise RefusedValue.of(
                "engine",
                InputError.worded(N_("--engine sets the estimator's replica; --replica gives its figures")),
            )
        with refused_as("replica"):
            replica = parse_replica(request.replica, gpu_id)
    elif request.engine is not None:
        # read now against the GPU's defaults, so that a misspelt key is refused before tracing
        serving = _estimator_serving(workload, request)
        gpu = get_gpu(gpu_id)
        defaults = engine_defaults(
            gpu, serving.engine_name, serving.engine_version, tensor_parallel=workload.tensor_parallel
        )
        with refused_as("engine"):
            parse_engine(request.engine, defaults)
    per_instance = int(offers[0].gpu_count) if request.instance is not None and offers else 1
    return _Options(gpu_id, network, slos, storage, replica, prices, own_prices, max(1, per_instance))


def check_simulate(store: Store, request: SimulateRequest, workload: Workload, scratch: Path) -> None:
    """Refuse (InputError, NotFoundError, EstimateError: one line) what the job would fail on
    before tracing."""
    from gpuplan.api import refuse_unrunnable
    from gpuplan.simulate import check_shape, check_slots, check_window
    from gpuplan.workload.presets.registry import get_preset

    serving = _serving(workload, request)
    policies = _policies(request, workload)
    _one_trace(request)
    options = _options(store, request, workload, policies)
    given = options.replica
    if given is None:
        # the estimator's replica on a GPU without the precision's tensor cores (bf16 on a T4):
        # the job would fail after its trace; refused now, as /estimate refuses it (422)
        refuse_unrunnable(workload, [options.gpu_id])
        # a preset's family is known without tracing it (bert-large is an encoder: no decode steps)
        preset = workload.model.preset
        if preset is not None and get_preset(preset).family != "decoder":
            raise _not_a_decoder(workload)
    if given is not None:  # an estimated replica's slots are known only once it is traced
        for i, policy in enumerate(policies):
            with refused_as(f"policies[{i}]"):
                check_slots(given.slots, [policy])
    if request.trace_csv is not None:
        trace = _uploaded(request, scratch)
        name, duration_s, length = trace.name, trace.duration_s, "trace_csv"
        seconds_column = trace.seconds_column
    else:
        shape = _shape(request, serving)
        # rate × hours too many requests: the request's rate if it gives one, else its hours
        # (the rate is the workload's serving.requests_per_s)
        with refused_as("rate" if request.rate is not None else "hours"):
            check_shape(shape)
        name, duration_s, length = request.shape or "diurnal", shape.duration_s, "hours"
        seconds_column = False
    with refused_as(length):
        check_window(name, duration_s, [], seconds_column=seconds_column)
    for i, policy in enumerate(policies):
        with refused_as(f"policies[{i}]"):  # its decisions over the window
            check_window(name, duration_s, [policy])


def _not_a_decoder(workload: Workload) -> EstimateError:
    return EstimateError.worded(
        N_("{name}: the replica model needs a decoder LLM (KV cache, decode steps)"), name=workload.name
    )


def _trace(request: SimulateRequest, serving: ServingSpec | None, scratch: Path) -> Trace:
    from gpuplan.simulate import bursty_trace, diurnal_trace, step_trace
    from gpuplan.simulate.inputs import request_tokens

    _one_trace(request)
    if request.trace_csv is not None:
        trace = _uploaded(request, scratch)
    else:
        makers: dict[str, Callable[[Shape], Trace]] = {
            "diurnal": diurnal_trace,
            "bursty": bursty_trace,
            "step": step_trace,
        }
        trace = makers[request.shape or "diurnal"](_shape(request, serving))
    return trace.with_tokens(*request_tokens(serving))


def _estimated(
    store: Store,
    workload: Workload,
    request: SimulateRequest,
    options: _Options,
    trace: Trace,
    progress: Callable[[float, str], None],
) -> tuple[ReplicaModel, float, float | None, float | None]:
    """The estimator's continuous-batching replica for this trace, the bytes its cold start reads, one
    replica's capacity at full load by the estimate (None: it gives none) and the lower share of it
    the workload's latency targets need (None: none), as the command line's."""
    from gpuplan.api import estimate_replica_figures
    from gpuplan.hardware import get_gpu
    from gpuplan.profile import profile
    from gpuplan.simulate.replica import ServingStack, checkpoint_bytes, estimator_replica

    _estimator_serving(workload, request)  # refuses a request with no serving block to build it from
    progress(0.05, "tracing")
    prof = profile(workload, store.local)
    if prof.shape.family != "decoder":
        raise _not_a_decoder(workload)
    assert trace.prompt_tokens is not None and trace.output_tokens is not None
    stack = ServingStack.of(
        workload,
        engine_text=request.engine,
        replicas_per_gpu=options.prices.replicas_per_gpu,
        network=options.network,
    )
    replica, weights = estimator_replica(
        prof,
        get_gpu(options.gpu_id),
        stack,
        prompt_tokens=trace.prompt_tokens,
        output_tokens=trace.output_tokens,
    )
    capacity, latency_share = estimate_replica_figures(
        workload,
        options.gpu_id,
        prof,
        replicas_per_gpu=options.prices.replicas_per_gpu,
        gpus_per_instance=options.gpus_per_instance,
    )
    return replica, checkpoint_bytes(workload, prof, weights), capacity, latency_share


def simulate_document(
    store: Store,
    request: SimulateRequest,
    workload: Workload,
    scratch: Path,
    progress: Callable[[float, str], None] = lambda _f, _m: None,
) -> dict[str, Any]:
    """``gpuplan simulate autoscale --json``'s document, on the request's trace or shape."""
    from gpuplan.report.autoscale import autoscale_json
    from gpuplan.simulate import SimulationSettings, simulate_autoscale
    from gpuplan.simulate.autoscale import max_for_trace
    from gpuplan.simulate.replica import cold_start

    serving = _serving(workload, request)
    policies = _policies(request, workload)
    options = _options(store, request, workload, policies)
    trace = _trace(request, serving, scratch)
    weights: float | None = None
    replica = options.replica
    estimate_capacity: float | None = None
    latency_share: float | None = None
    if replica is None:
        replica, weights, estimate_capacity, latency_share = _estimated(
            store, workload, request, options, trace, progress
        )
    copy_gbps = workload.data.copy_gbps if workload.data is not None else None
    cold_s, cold_words = cold_start(weights, options.storage_bytes_per_s, copy_gbps)
    # a max that neither the policy nor the serving block gives follows the load, as the command
    # line sets it (the policy's own default, 8, had capped a service whose plan needs 18); its
    # fleets priced again, as the largest fleet is what is bought
    sized = max_for_trace(
        policies, trace, replica, estimate_capacity=estimate_capacity, latency_share=latency_share
    )
    if any(new is not old for new, old in zip(sized, policies, strict=True)):
        policies = sized
        options = _options(store, request, workload, policies)
    progress(0.5, "simulating")
    settings = SimulationSettings(
        slos=options.slos,
        timeout_s=request.timeout_s,
        spot_notice_s=request.spot_notice_s,
        seed=request.seed,
        cold_start_s=cold_s,
        cold_start_source=cold_words,
        estimate_capacity_requests_per_s=estimate_capacity,
        latency_share=latency_share,
        schedule=None
        if workload.serving is None or workload.serving.schedule is None
        else workload.serving.schedule.window,
        schedule_applied=request.trace_csv is None,
    )
    return autoscale_json(
        simulate_autoscale(
            trace, replica, policies, options.prices, settings, policy_prices=options.policy_prices
        ),
        # the money in the currency the request's notes are worded in: a dashboard reads it so
        store.find_exchange_rate("CNY"),
        shown_currency(request, workload),
    )
