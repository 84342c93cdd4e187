"""``gpuplan bench`` measurements of one GPU, as ceilings on the fitted efficiencies.

A bench measures how close this unit gets to its datasheet on the simplest kernels: a large square
matmul per dtype and a large device copy. The fitted efficiencies (``perf/calibration.json``) are
whole-model fractions of the datasheet peak; they include what a bare GEMM or copy does not show
(smaller and oddly shaped GEMMs, eager launches, unfused kernels). So a measurement caps them: a
unit that reaches less of its datasheet than the fit assumes (power-capped, throttled, a cut-down
part) is slowed to what it showed; a healthy one keeps the fitted figures. Where the calibration
takes its tensor-core efficiencies as fractions of each GPU's measured achievable matmul rate
(``Calibration.matmul_fractions``), this unit's bench matmul takes the place of the published
measurement of the model (``Calibration.for_gpu``): both are a bare GEMM's share of the datasheet.

perf never imports the catalog: any objects with :class:`BenchMeasurement`'s fields will do
(``gpuplan.catalog.BenchResult`` rows from ``store.local.bench_results()``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

from gpuplan.i18n import _

__all__ = ["BANDWIDTH_METRIC", "MATMUL_METRIC", "BenchMeasurement", "MeasuredGPU", "measured_gpus"]

#: The metric names ``gpuplan bench`` writes (``gpuplan.machine.results``; a contract, not renamed).
MATMUL_METRIC = "matmul_tflops"
BANDWIDTH_METRIC = "memory_bandwidth_gbps"
#: The bench's matmul dtype names, which are also the roofline's dtype paths.
_PATHS = frozenset({"fp32", "tf32", "fp16", "bf16", "fp8", "int8"})


class BenchMeasurement(Protocol):
    """The fields of one bench row that the estimator reads."""

    @property
    def gpu_id(self) -> str | None: ...
    @property
    def measured_at(self) -> str: ...
    @property
    def metric(self) -> str: ...
    @property
    def dtype(self) -> str | None: ...
    @property
    def value(self) -> float: ...
    @property
    def datasheet_value(self) -> float | None: ...


@dataclass(frozen=True, kw_only=True)
class MeasuredGPU:
    """What a bench showed for one GPU model: measured / datasheet, per matmul dtype and for memory."""

    gpu_id: str
    measured_at: str
    """ISO timestamp of the newest measurement used."""
    matmul_fraction: tuple[tuple[str, float], ...] = field(default_factory=tuple)
    """(dtype path, measured TFLOP/s / datasheet TFLOP/s), each at most 1."""
    bandwidth_fraction: float | None = None
    """Measured copy bandwidth / datasheet bandwidth, at most 1; None when not measured."""

    def matmul(self, path: str) -> float | None:
        """The measured fraction for one dtype path, or None if that dtype was not measured."""
        return dict(self.matmul_fraction).get(path)

    def describe(self) -> str:
        parts = [
            _("{path} matmul {fraction:.2f}").format(path=path, fraction=f)
            for path, f in self.matmul_fraction
        ]
        if self.bandwidth_fraction is not None:
            parts.append(_("memory bandwidth {fraction:.2f}").format(fraction=self.bandwidth_fraction))
        return _(
            "measured on this GPU by gpuplan bench at {when} ({parts} of datasheet; these cap the "
            "fitted efficiencies)"
        ).format(when=self.measured_at, parts=_(", ").join(parts))


def _fraction(row: BenchMeasurement) -> float | None:
    if row.datasheet_value is None or row.datasheet_value <= 0 or row.value <= 0:
        return None  # nothing to compare with (unknown GPU, MIG instance) or a failed measurement
    # NB: above 1 is a boost clock or a mislabelled part; the datasheet stays the ceiling.
    return min(row.value / row.datasheet_value, 1.0)


def measured_gpus(results: Iterable[BenchMeasurement]) -> tuple[MeasuredGPU, ...]:
    """One :class:`MeasuredGPU` per GPU id in ``results``, from the newest row of each metric/dtype.

    Rows without a GPU id or a datasheet figure, and metrics the roofline does not use (host
    copies, training step, all-reduce), are ignored.
    """
    newest: dict[tuple[str, str, str | None], BenchMeasurement] = {}
    for row in results:
        if row.gpu_id is None or _fraction(row) is None:
            continue
        if row.metric == MATMUL_METRIC and row.dtype not in _PATHS:
            continue
        if row.metric not in (MATMUL_METRIC, BANDWIDTH_METRIC):
            continue
        key = (row.gpu_id, row.metric, row.dtype if row.metric == MATMUL_METRIC else None)
        # ISO timestamps of one writer sort chronologically as strings.
        if key not in newest or row.measured_at >= newest[key].measured_at:
            newest[key] = row
    out = []
    for gpu_id in sorted({k[0] for k in newest}):
        rows = {k: r for k, r in newest.items() if k[0] == gpu_id}
        matmul = tuple(
            sorted((str(k[2]), f) for k, r in rows.items() if k[1] == MATMUL_METRIC if (f := _fraction(r)))
        )
        bw_row = rows.get((gpu_id, BANDWIDTH_METRIC, None))
        out.append(
            MeasuredGPU(
                gpu_id=gpu_id,
                measured_at=max(r.measured_at for r in rows.values()),
                matmul_fraction=matmul,
                bandwidth_fraction=_fraction(bw_row) if bw_row is not None else None,
            )
        )
    return tuple(out)
