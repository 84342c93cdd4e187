"""The checkpoints the launch's train.py writes off spot, for a job whose work is known but whose
offer is not (``gpuplan estimate``): the plan's own figures (``JobFacts``: the checkpoint's size,
the interval, the write bandwidth) and its own formula (:func:`gpuplan.plan.spot.checkpoint_writes_h`),
so that an estimate's job time and a plan's agree but for what only an offer gives (the set-up)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpuplan.plan.input_types import JobFacts
from gpuplan.plan.spot import checkpoint_writes_h

__all__ = ["LaunchCheckpoints", "launch_checkpoints"]


@dataclass(frozen=True, kw_only=True)
class LaunchCheckpoints:
    """One job's checkpoints as the plan prices them off spot (on-demand, reserved, monthly): one
    of ``checkpoint_gb`` every ``interval_min``, written synchronously (every GPU waits) at
    ``write_gbps``, the storage bandwidth the plan assumes where it does not know the disk."""

    checkpoint_gb: float
    """One checkpoint: trainable weights at the precision's own bytes + optimizer state + buffers, GB."""
    write_gbps: float
    """The write bandwidth the plan assumes (``JobFacts.checkpoint_write_gbps``), GB/s."""
    interval_min: float
    """The workload's ``checkpoint.every_min``, else the launch's default interval, lengthened where
    a write is slow (``JobFacts.checkpoint_interval_h``: the interval the plan and train.py take)."""
    interval_stated: bool
    """True where ``interval_min`` is the workload's own."""
    interval_lengthened: bool = False
    """True where ``interval_min`` is longer than the launch's default because one write is slow
    (``JobFacts.checkpoint_interval_lengthened``)."""

    @property
    def write_min(self) -> float:
        """Minutes one checkpoint takes to write."""
        return self.checkpoint_gb / self.write_gbps / 60.0

    def hours(self, work_h: float) -> float:
        """Hours spent writing checkpoints over ``work_h`` hours of training (at least one write)."""
        return float(
            checkpoint_writes_h(np.array([work_h]), self.write_min / 60.0, self.interval_min / 60.0)[0]
        )

    def writes(self, work_h: float) -> float:
        """Checkpoints written over ``work_h`` hours of training."""
        return self.hours(work_h) / (self.write_min / 60.0)


def launch_checkpoints(job: JobFacts) -> LaunchCheckpoints | None:
    """The checkpoints ``job`` writes off spot, as the plan costs them; None where it writes none
    (inference, a service, a job with no profile)."""
    if not job.writes_checkpoints_off_spot:
        return None
    return LaunchCheckpoints(
        checkpoint_gb=job.checkpoint_gb,
        write_gbps=job.checkpoint_write_gbps,
        interval_min=job.checkpoint_interval_h * 60.0,
        interval_stated=job.checkpoint_every_stated,
        interval_lengthened=job.checkpoint_interval_lengthened,
    )
