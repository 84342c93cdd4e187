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

from gpuplan.perf.advisor import Advice, advise
from gpuplan.perf.calibration import Calibration, load_calibration
from gpuplan.perf.estimate import SOFTWARE_LEVEL, Estimate, EstimateRequest, JobSize, estimate, run_estimate
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
