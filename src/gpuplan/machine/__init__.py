"""The local machine: ``doctor`` (is the GPU stack sane?) and ``bench`` (is it as fast as its datasheet?).

doctor: :func:`probe_machine` gathers :class:`MachineFacts` (NVML through pynvml, PyTorch, the
environment mapping the caller passes); :func:`diagnose` turns them into :class:`Finding` objects with
pure checks. bench: :func:`run_bench` measures the device into :class:`BenchResult` records for the
catalog store. Neither imports torch or pynvml until called.
"""

from gpuplan.machine.bench import BenchProgress, BenchReport, BenchSizes, BenchSkip, default_sizes, run_bench
from gpuplan.machine.checks import CHECKS, diagnose
from gpuplan.machine.facts import DriverFacts, GpuFacts, MachineFacts, TorchFacts
from gpuplan.machine.findings import Finding, Severity
from gpuplan.machine.identify import identify_gpu
from gpuplan.machine.probe import probe_machine
from gpuplan.machine.results import METRICS, BenchResult, efficiency

__all__ = [
    "CHECKS",
    "METRICS",
    "BenchProgress",
    "BenchReport",
    "BenchResult",
    "BenchSizes",
    "BenchSkip",
    "DriverFacts",
    "Finding",
    "GpuFacts",
    "MachineFacts",
    "Severity",
    "TorchFacts",
    "default_sizes",
    "diagnose",
    "efficiency",
    "identify_gpu",
    "probe_machine",
    "run_bench",
]
