"""perf layer: Profile × GPU × count × parallelism → step time, memory fit, throughput, advice.

Pure arithmetic over a traced :class:`~gpuplan.profile.model.Profile` and GPU datasheets; it never
imports torch.

- :class:`EstimateRequest` — what one estimate needs (profile, GPU, count, parallelism, link,
  calibration, job size, gradient accumulation, torch.compile), travelling as one object.
- :func:`run_estimate` (:func:`estimate`, its keyword form) — one GPU configuration →
  :class:`Estimate` (fits?, memory per GPU as nvidia-smi would show it, step time, throughput,
  job time, each with a range), through the five stages of ``perf/stages/``: layout → compute
  time → communication and overlap → memory → spread.
- :func:`load_calibration` reads the fitted efficiencies (``perf/calibration.json``), the one
  thing taken from the offline fit (:mod:`gpuplan.calibration`, which this layer never imports).
- :func:`estimate_all` — many requests (one profile over many GPUs), with :func:`advise` where
  it does not fit and LLM decode/serving figures (:func:`decode_estimate`,
  :func:`serving_estimate`) for decoders.
- :class:`Link` — how the GPUs talk (NVLink/PCIe inside a node, network between nodes).
- :class:`InputPipeline` — the host CPUs that decode an image workload's samples (a bound on them).
- :func:`batch_sweep` — latency, throughput and memory per batch size.
"""

from typing import TYPE_CHECKING

# Eager: the function ``estimate`` must shadow its own submodule's name (``from gpuplan.perf import
# estimate`` is the function), and every caller of this layer reaches that module anyway.
from gpuplan.perf.estimate import (
    SOFTWARE_LEVEL,
    Estimate,
    EstimateRequest,
    JobSize,
    estimate,
    run_estimate,
)

if TYPE_CHECKING:
    from gpuplan.perf.advisor import Advice, advise
    from gpuplan.perf.calibration import Calibration, load_calibration
    from gpuplan.perf.inference import (
        BatchPoint,
        DecodeEstimate,
        ServingEstimate,
        batch_sweep,
        decode_estimate,
        serving_estimate,
    )
    from gpuplan.perf.input_pipeline import InputPipeline, image_input_pipeline
    from gpuplan.perf.links import Link, NetworkSpec
    from gpuplan.perf.memory import MemoryEstimate
    from gpuplan.perf.sweep import EstimateOutcome, ServingLoad, estimate_all
    from gpuplan.perf.workload_request import job_size, request_for, serving_load

__all__ = [
    "SOFTWARE_LEVEL",
    "Advice",
    "BatchPoint",
    "Calibration",
    "DecodeEstimate",
    "Estimate",
    "EstimateOutcome",
    "EstimateRequest",
    "InputPipeline",
    "JobSize",
    "Link",
    "MemoryEstimate",
    "NetworkSpec",
    "ServingEstimate",
    "ServingLoad",
    "advise",
    "batch_sweep",
    "decode_estimate",
    "estimate",
    "estimate_all",
    "image_input_pipeline",
    "job_size",
    "load_calibration",
    "request_for",
    "run_estimate",
    "serving_estimate",
    "serving_load",
]

#: Where each name lives: imported on first use, so that a caller of one stage (the planner's
#: estimator, ``plan.risk``'s time distribution) does not import the advisor, the sweeps and the
#: serving model as well.
_HOME = {
    "Advice": "gpuplan.perf.advisor",
    "advise": "gpuplan.perf.advisor",
    "Calibration": "gpuplan.perf.calibration",
    "load_calibration": "gpuplan.perf.calibration",
    "BatchPoint": "gpuplan.perf.inference",
    "DecodeEstimate": "gpuplan.perf.inference",
    "ServingEstimate": "gpuplan.perf.inference",
    "batch_sweep": "gpuplan.perf.inference",
    "decode_estimate": "gpuplan.perf.inference",
    "serving_estimate": "gpuplan.perf.inference",
    "InputPipeline": "gpuplan.perf.input_pipeline",
    "image_input_pipeline": "gpuplan.perf.input_pipeline",
    "Link": "gpuplan.perf.links",
    "NetworkSpec": "gpuplan.perf.links",
    "MemoryEstimate": "gpuplan.perf.memory",
    "EstimateOutcome": "gpuplan.perf.sweep",
    "ServingLoad": "gpuplan.perf.sweep",
    "estimate_all": "gpuplan.perf.sweep",
    "job_size": "gpuplan.perf.workload_request",
    "request_for": "gpuplan.perf.workload_request",
    "serving_load": "gpuplan.perf.workload_request",
}


def __getattr__(name: str) -> object:
    from importlib import import_module

    try:
        home = _HOME[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(import_module(home), name)
    globals()[name] = value
    return value
