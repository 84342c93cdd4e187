"""A throughput the team measured on one GPU configuration, carried into the plan (``gpuplan plan
--measured-throughput N --measured-on GPU:COUNT``).

The measurement is read as ``gpuplan estimate --measured-throughput`` reads it
(:func:`gpuplan.perf.scaling_gap.measured_step_s`): a step of the configuration measured, set
against the estimate of that configuration on the link ``gpuplan estimate`` takes for it. The
ratio of the two steps scales each option's step and job hours (its checkpoint writes, set-up and
everything else the plan adds are costed on top, as for any option), and so its deadline and cost:

- an offer of the measured GPU and count: the ratio as measured (the offer's own link and host
  keep what they change in the estimate the ratio multiplies);
- every other GPU type or count: a measured *slowdown* is carried to it as an assumption, said on
  the plan and on each such option. What made the team's code slower than estimated on one GPU
  (its data loading, its Python, its kernels) most likely slows it on another too, and leaving
  the others at their estimate would rank them ahead of the measured configuration only because
  no one measured them: unknown is not the best case. A measured *speed-up* is not carried: the
  others keep their estimate, said, so that a gain seen on one GPU is not assumed of another.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpuplan.errors import EstimateError, GpuplanError, InputError
from gpuplan.i18n import N_, _, format_number

if TYPE_CHECKING:
    from gpuplan.perf.anchor import StepMeasurement
    from gpuplan.perf.calibration import Calibration
    from gpuplan.profile.model import Profile
    from gpuplan.workload import Workload

__all__ = ["MeasuredRate", "RateScaling", "checked_measured_rate", "rate_scaling"]


@dataclass(frozen=True, kw_only=True)
class MeasuredRate:
    """What the team measured: ``throughput`` (the estimate's unit: tokens/s for a sequence model,
    else samples/s) of ``count`` × ``gpu`` together."""

    throughput: float
    gpu: str
    """The GPU's id (``hardware.get_gpu``)."""
    count: int


@dataclass(frozen=True, kw_only=True)
class RateScaling:
    """A :class:`MeasuredRate` against the estimate of its configuration."""

    measured: MeasuredRate
    estimated_throughput: float
    unit: str
    """``tokens_per_s`` or ``samples_per_s``."""
    step_ratio: float
    """The measured step over the estimated one (above 1: slower than estimated)."""
    one_gpu_like: bool = False
    """The measurement times the GPU count falls in the estimate's 80 % range: it may be one GPU's
    throughput given for all of them."""

    def factor(self, gpu: str, count: int) -> float:
        """What the step and hours of an option of ``count`` × ``gpu`` are multiplied by: the
        measured ratio on the measured configuration, its slowdown carried to every other, a
        speed-up not carried (see the module)."""
        if (gpu == self.measured.gpu and count == self.measured.count) or self.step_ratio > 1.0:
            return self.step_ratio
        return 1.0

    def _figures(self) -> dict[str, str]:
        short = _("tok/s") if self.unit == "tokens_per_s" else _("samples/s")
        return {
            "measured": format_number(self.measured.throughput),
            "estimated": format_number(self.estimated_throughput),
            "unit": short,
            "gpu": self.measured.gpu,
            "count": str(self.measured.count),
            "ratio": f"{self.step_ratio:.2f}",
        }

    def note(self) -> str:
        """The plan's note: the measurement, and how every other configuration was treated."""
        head = _(
            "job times at your measured throughput: {measured} {unit} on {gpu} ×{count} against "
            "{estimated} estimated, a step × {ratio} the estimate's (--measured-throughput, "
            "--measured-on); offers of {gpu} ×{count} take that ratio"
        ).format(**self._figures())
        if self.step_ratio > 1.0:
            rest = _(
                "; every other GPU and count is assumed as much slower than its estimate (not measured: "
                "what slowed your code on one GPU most likely slows it on another, and an unmeasured "
                "GPU is not ranked ahead for want of a measurement); measure another to replace the "
                "assumption"
            )
        else:
            rest = _(
                "; every other GPU and count keeps its estimate (a speed-up measured on one GPU is not "
                "assumed of another)"
            )
        if self.one_gpu_like:
            rest += _(
                "; {measured} {unit} × {count} GPUs falls in the estimate's range: if that is one GPU's "
                "throughput, give all {count} GPUs' together"
            ).format(**self._figures())
        return head + rest


def checked_measured_rate(
    workload: Workload, throughput: float | None, on: str | None
) -> MeasuredRate | None:
    """``--measured-throughput`` and ``--measured-on`` read and checked before any tracing, each
    mistake one line; None where neither is given."""
    from gpuplan.hardware import parse_gpu_spec

    if throughput is None and on is None:
        return None
    if throughput is None:
        raise InputError.worded(
            N_("--measured-on: give the throughput you measured there too (--measured-throughput)")
        )
    if on is None or not on.strip():
        raise InputError.worded(
            N_(
                "--measured-throughput: name the GPUs you measured it on, --measured-on NAME:COUNT "
                "(H100-SXM:8)"
            )
        )
    if workload.serving is not None:
        raise InputError.worded(
            N_(
                "--measured-throughput: a service is planned on its request rate and latency, not a "
                "throughput; it applies to a training or batch inference job"
            )
        )
    gpu, count = parse_gpu_spec(on.strip())
    if count is None:
        raise InputError.worded(
            N_("--measured-on {on}: give the GPU count too, {gpu}:COUNT ({gpu}:1 for one GPU)"),
            on=on.strip()[:60],
            gpu=gpu.id,
        )
    return MeasuredRate(throughput=throughput, gpu=gpu.id, count=count)


def rate_scaling(
    measured: MeasuredRate,
    workload: Workload,
    profile: Profile,
    calibration: Calibration,
    measured_steps: tuple[StepMeasurement, ...] = (),
) -> RateScaling:
    """``measured`` against the estimate of its configuration (the link and host ``gpuplan
    estimate`` takes for it: no instance named), as ``estimate --measured-throughput`` reads it."""
    from gpuplan.hardware import get_gpu
    from gpuplan.i18n.error_text import error_text
    from gpuplan.perf.estimate import run_estimate
    from gpuplan.perf.links import bounded
    from gpuplan.perf.scaling_gap import MeasuredScaling, measured_step_s
    from gpuplan.perf.workload_request import request_for

    gpu = get_gpu(measured.gpu)
    try:
        est = run_estimate(
            request_for(
                workload,
                profile,
                gpu,
                count=measured.count,
                link=bounded(None).link(gpu, measured.count),
                calibration=calibration,
                measured_steps=measured_steps,
            )
        )
    except (EstimateError, GpuplanError) as e:
        raise InputError.worded(
            N_(
                "--measured-on {gpu}:{count}: there is no estimate there to read the measurement "
                "against ({why})"
            ),
            gpu=gpu.id,
            count=measured.count,
            why=error_text(e),
        ) from None
    step = measured_step_s(est, None, MeasuredScaling(throughput=measured.throughput))
    assert step is not None  # a throughput always reads as a step
    return RateScaling(
        measured=measured,
        estimated_throughput=est.throughput,
        unit=est.throughput_unit,
        step_ratio=step / est.step_time_s,
        one_gpu_like=measured.count > 1
        and est.throughput_low <= measured.throughput * measured.count <= est.throughput_high,
    )
