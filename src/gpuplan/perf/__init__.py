"""perf layer: Profile × GPU × count × parallelism → step time, memory fit, throughput, advice.

Pure arithmetic over a traced :class:`~gpuplan.profile.model.Profile` and GPU datasheets; it never
imports torch.
"""

from gpuplan.perf.advisor import Advice, advise
from gpuplan.perf.calibration import Calibration, load_calibration
from gpuplan.perf.estimate import SOFTWARE_LEVEL, Estimate, JobSize, estimate
from gpuplan.perf.inference import (
    BatchPoint,
    DecodeEstimate,
    ServingEstimate,
    batch_sweep,
    decode_estimate,
    serving_estimate,
)
from gpuplan.perf.memory import MemoryEstimate
from gpuplan.perf.parallel import Link
from gpuplan.perf.sweep import EstimateOutcome, ServingLoad, estimate_all

__all__ = [
    "SOFTWARE_LEVEL",
    "Advice",
    "BatchPoint",
    "Calibration",
    "DecodeEstimate",
    "Estimate",
    "EstimateOutcome",
    "JobSize",
    "Link",
    "MemoryEstimate",
    "ServingEstimate",
    "ServingLoad",
    "advise",
    "batch_sweep",
    "decode_estimate",
    "estimate",
    "estimate_all",
    "load_calibration",
    "serving_estimate",
]
