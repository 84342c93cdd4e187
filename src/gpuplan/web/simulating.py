"""``gpuplan simulate autoscale`` over the API: on a generated trace (``shape``) or on a trace CSV
sent in the request (``trace_csv``, read by the command's own reader within its bounds).

:func:`check_simulate` runs when the request comes in, before it is queued: everything that can be
judged without tracing the workload (an inference workload with a ``serving:`` block, the
policies, the GPU, the trace: an uploaded one read whole, a generated one's size against the
bounds on work), so that a bad request is refused in one line at once instead of failing its job
later. The job (:func:`simulate_document`) runs the same checks again on the stored request (the
row is data) and goes on to trace and simulate.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpuplan.errors import EstimateError, InputError
from gpuplan.i18n.messages import N_
from gpuplan.web.requests import SimulateRequest

if TYPE_CHECKING:
    from gpuplan.catalog import Store
    from gpuplan.simulate import Policy, Shape, Trace
    from gpuplan.workload import Workload
    from gpuplan.workload.spec import ServingSpec

__all__ = ["check_simulate", "simulate_document"]

#: The name an uploaded trace has in the reader's messages ("trace trace.csv: line 7: …").
UPLOAD_NAME = "trace.csv"


def _serving(workload: Workload) -> ServingSpec:
    if workload.task.value != "infer" or workload.serving is None:
        raise InputError.worded(N_("simulate needs an inference workload: task: infer with a serving: block"))
    return workload.serving


def _policies(request: SimulateRequest) -> list[Policy]:
    from gpuplan.simulate import parse_policy

    return [parse_policy(p) for p in request.policies]


def _one_trace(request: SimulateRequest) -> None:
    if request.trace_csv is not None and request.shape is not None:
        raise InputError.worded(N_("give trace_csv (a trace CSV) or shape (a generated trace), not both"))
    retimed = request.trace_scale is not None or request.trace_tile_hours is not None
    if request.trace_csv is None and retimed:
        raise InputError.worded(N_("trace_scale and trace_tile_hours re-time a trace_csv"))


def _shape(request: SimulateRequest, serving: ServingSpec) -> Shape:
    from gpuplan.simulate import Shape

    rate = request.rate or serving.requests_per_s
    if rate is None:
        raise InputError.worded(N_("give rate (or serving.requests_per_s in the workload)"))
    return Shape(
        mean_requests_per_s=rate,
        duration_s=request.hours * 3600,
        seed=request.seed,
        prompt_tokens=serving.prompt_tokens,
        output_tokens=serving.output_tokens,
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
        trace = read_trace_csv(path)
    if request.trace_scale is not None or request.trace_tile_hours is not None:
        trace = retime(
            trace,
            rate_scale=1.0 if request.trace_scale is None else request.trace_scale,
            tile_to_s=None if request.trace_tile_hours is None else request.trace_tile_hours * 3600,
        )
    return trace


def check_simulate(request: SimulateRequest, workload: Workload, scratch: Path) -> None:
    """Refuse (InputError, NotFoundError: one line) what the job would fail on before tracing."""
    from gpuplan.hardware import resolve_gpu
    from gpuplan.simulate import check_shape, check_window

    serving = _serving(workload)
    policies = _policies(request)
    _one_trace(request)
    resolve_gpu(request.gpu)
    if request.trace_csv is not None:
        trace = _uploaded(request, scratch)
        check_window(trace.name, trace.duration_s, policies)
    else:
        shape = _shape(request, serving)
        check_shape(shape)
        check_window(request.shape or "diurnal", shape.duration_s, policies)


def _trace(request: SimulateRequest, serving: ServingSpec, scratch: Path) -> Trace:
    from gpuplan.simulate import bursty_trace, diurnal_trace, step_trace

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
    return trace.with_tokens(serving.prompt_tokens, serving.output_tokens)


def simulate_document(
    store: Store,
    request: SimulateRequest,
    workload: Workload,
    scratch: Path,
    progress: Callable[[float, str], None] = lambda _f, _m: None,
) -> dict[str, Any]:
    """``gpuplan simulate autoscale --json``'s document, on the request's trace or shape."""
    from gpuplan.hardware import get_gpu, resolve_gpu
    from gpuplan.perf.workload_request import serving_engine
    from gpuplan.profile import profile
    from gpuplan.report.autoscale import autoscale_json
    from gpuplan.simulate import SimulationSettings, Slo, simulate_autoscale
    from gpuplan.simulate.inputs import fleet_prices
    from gpuplan.simulate.replica import (
        DEFAULT_STORAGE_BYTES_PER_S,
        ServingStack,
        cold_start,
        estimator_replica,
    )

    serving = _serving(workload)
    policies = _policies(request)
    trace = _trace(request, serving, scratch)
    gpu_id = resolve_gpu(request.gpu).id
    progress(0.05, "tracing")
    prof = profile(workload, store.local)
    if prof.shape.family != "decoder":
        raise EstimateError.worded(
            N_("{name}: the replica model needs a decoder LLM (KV cache, decode steps)"), name=workload.name
        )
    progress(0.5, "simulating")
    assert trace.prompt_tokens is not None and trace.output_tokens is not None
    stack = ServingStack(
        tensor_parallel=workload.tensor_parallel,
        cuda_graphs=workload.uses_cuda_graphs,
        compiled=workload.compile,
        engine_cpu=serving_engine(workload),
        engine_name=serving.engine_name,
        engine_version=serving.engine_version,
        prefix_caching=serving.prefix_caching,
    )
    replica, weights = estimator_replica(
        prof,
        get_gpu(gpu_id),
        stack,
        mean_prompt_tokens=float(trace.prompt_tokens.mean()),
        mean_output_tokens=float(trace.output_tokens.mean()),
    )
    cold_s, cold_words = cold_start(weights, DEFAULT_STORAGE_BYTES_PER_S)
    prices = fleet_prices(
        store.offers(gpu=gpu_id),
        gpu_id,
        gpus_per_replica=workload.tensor_parallel,
        fleet_replicas=max(p.max_replicas for p in policies),
    )
    slo_ms = request.slo_ms or serving.p95_latency_ms
    slos = (Slo(metric="e2e", percentile=95.0, threshold_s=slo_ms / 1000),) if slo_ms else ()
    settings = SimulationSettings(
        slos=slos, seed=request.seed, cold_start_s=cold_s, cold_start_source=cold_words
    )
    return autoscale_json(simulate_autoscale(trace, replica, policies, prices, settings))
