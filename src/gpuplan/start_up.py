"""How long a serving replica takes from "add a replica" to "it serves": one model for every command.

``plan`` bills a service's day and its spot replacements by it (``plan/service_day.py``,
``plan/spot.py``), ``deploy`` sizes its start-up probes from it and says it in its READMEs
(``deploy/engine.py``), and ``simulate autoscale`` starts the replicas a policy adds with it
(``simulate/replica.py``): one replica has one start-up in all three.

A start-up is three named parts, each with its source:

- the instance's boot and image pull, :data:`INSTANCE_BOOT_S` (assumed; a command that starts the
  replica on a node already up, as a Kubernetes startup probe counts from the container's start,
  leaves it out and says so: :attr:`StartUp.boot_left_out`);
- the weights of the replicas starting together on the instance read through its one disk, at the
  rate the workload gives (``data.copy_gbps``, ``plan --copy-gbps``, ``simulate --storage-gbps``),
  else :data:`gpuplan.units.ASSUMED_DISK_GBPS` (EBS gp3's baseline, the conservative bound);
- the engine's own start, :data:`ENGINE_START_S` (assumed).

Where the weights' size is not known the read is not either: the start-up is then the bound deploy
gives a replica to come up (:data:`ENGINE_STARTUP_S`) after the boot, never a shorter guess.

A service on a schedule starts its instances that start-up before its hours (:meth:`StartUp.lead_min`):
rounded up to the whole minute, the step a cron line (KEDA's cron scaler, a crontab) fires at and the
only margin added. ``plan`` bills those minutes before each day's hours, ``deploy`` (and the service's
deploy, through :func:`gpuplan.api.launch_weights`) writes its cron lines with them, ``simulate
autoscale`` starts its replicas so and ``simulate share`` bills a scheduled packing's nodes so: one lead
in all of them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from gpuplan.i18n import _
from gpuplan.units import ASSUMED_DISK_GBPS

__all__ = [
    "ENGINE_STARTUP_S",
    "ENGINE_START_S",
    "INSTANCE_BOOT_S",
    "StartUp",
    "replica_start_up",
]

#: ASSUMPTION: 10 minutes to get a new instance and boot it, pull the container image and start the
#: process, the time a spot restart costs a job (``JobFacts.restart_h``); for a serving replica the
#: engine's own start (:data:`ENGINE_START_S`) is counted on top, so the two overlap a little, on
#: the long side (unknown is never the best case).
INSTANCE_BOOT_S = 10 * 60.0
#: ASSUMPTION: 60 s of a serving replica's start that do not depend on the model's size: the
#: container and the engine starting, the CUDA context, and capturing the decode CUDA graphs (vLLM
#: logs tens of seconds for graph capture and torch.compile on an 8B model).
ENGINE_START_S = 60.0
#: Seconds a replica of the engine is given to come up (download and load the weights, capture
#: CUDA graphs) before it is taken to have failed: the Kubernetes startup probe's budget, SkyServe's
#: readiness probe's initial delay, at least (``gpuplan.deploy.engine.startup_seconds``). Where the
#: weights' size is not known, the start-up after the boot is taken as this bound.
ENGINE_STARTUP_S = 30 * 60


@dataclass(frozen=True, kw_only=True)
class StartUp:
    """One replica's start-up (:func:`replica_start_up`): its parts and where each comes from."""

    weights_gb: float | None
    """One replica's weights, GB; None: not known (the start is then :data:`ENGINE_STARTUP_S`)."""
    read_gbps: float
    """The rate the instance's disk reads the weights at, GB/s."""
    read_given: str | None
    """Where :attr:`read_gbps` was given (``data.copy_gbps``, ``--storage-gbps``); None: assumed."""
    boot_s: float
    """The instance's boot and image pull, s (0 where left out)."""
    boot_left_out: str | None
    """Why the boot is not counted, in words (a node already up); None: counted."""
    engine_s: float = ENGINE_START_S
    """The engine's own start, s."""

    def read_s(self, replicas: int = 1) -> float | None:
        """Seconds ``replicas`` replicas starting together take to read their weights through the
        instance's one disk; None where the weights' size is not known."""
        if self.weights_gb is None:
            return None
        return replicas * self.weights_gb / self.read_gbps

    def seconds(self, replicas: int = 1) -> float:
        """Seconds from adding the instance (or, with the boot left out, from the container's start)
        to ``replicas`` replicas starting together on it serving. Where the weights' size is not
        known: the boot and :data:`ENGINE_STARTUP_S`, the bound."""
        read = self.read_s(replicas)
        if read is None:
            return self.boot_s + ENGINE_STARTUP_S
        return self.boot_s + self.engine_s + read

    def boot_words(self) -> str:
        """The boot part, in words."""
        return _("{minutes:.0f} min for a new instance to boot and pull the image (assumed)").format(
            minutes=INSTANCE_BOOT_S / 60
        )

    def rate_words(self) -> str:
        """The read rate and its source, in words."""
        if self.read_given is not None:
            return _("{rate:g} GB/s ({given})").format(rate=self.read_gbps, given=self.read_given)
        return _("{rate:g} GB/s (assumed: AWS EBS gp3's baseline)").format(rate=self.read_gbps)

    def parts_words(self, replicas: int = 1) -> str:
        """How :meth:`seconds` adds up, in words: each part with its source, and the boot said where
        it is left out."""
        if self.weights_gb is None:
            parts = _(
                "the weights' size not known: the {budget:.0f} min deploy gives a replica to come up, "
                "the bound"
            ).format(budget=ENGINE_STARTUP_S / 60)
        else:
            parts = _(
                "{engine:.0f} s engine start (assumed) + {k} × {gb:,.1f} GB of weights read at {rate}"
            ).format(engine=self.engine_s, k=replicas, gb=self.weights_gb, rate=self.rate_words())
        if self.boot_left_out is None:
            return _("{boot} + {parts}").format(boot=self.boot_words(), parts=parts)
        return _(
            "{parts}; the {minutes:.0f} min a new instance takes to boot and pull the image are not "
            "counted: {why}"
        ).format(parts=parts, minutes=INSTANCE_BOOT_S / 60, why=self.boot_left_out)

    def lead_min(self, replicas: int = 1) -> int:
        """Whole minutes before a schedule's hours a new instance of ``replicas`` replicas is started
        so that they serve from its first minute: :meth:`seconds`, its boot counted, rounded up to
        the minute a cron line fires at (the only margin: nothing else is added, so what plan bills
        is what deploy's cron runs)."""
        return math.ceil(self.with_boot().seconds(replicas) / 60.0 - 1e-9)

    def lead_words(self, replicas: int = 1) -> str:
        """What :meth:`lead_min` is made of, in words: its parts and sources, their sum, and the
        rounding up to the whole minute."""
        up = self.with_boot()
        return _(
            "{lead} min: {parts} = {total:.1f} min, rounded up to the whole minute a cron line starts at"
        ).format(
            lead=self.lead_min(replicas), parts=up.parts_words(replicas), total=up.seconds(replicas) / 60.0
        )

    def with_boot(self) -> StartUp:
        """The same start-up with the instance's boot counted (what a new instance takes)."""
        return replace(self, boot_s=INSTANCE_BOOT_S, boot_left_out=None)


def replica_start_up(
    weights_gb: float | None,
    read_gbps: float | None = None,
    *,
    given: str | None = None,
    boot_s: float = INSTANCE_BOOT_S,
    boot_left_out: str | None = None,
) -> StartUp:
    """A replica's start-up: ``weights_gb`` read at ``read_gbps`` (given in ``given``, e.g.
    ``data.copy_gbps``; None: :data:`~gpuplan.units.ASSUMED_DISK_GBPS`, assumed), after the
    instance's boot (``boot_s``) unless ``boot_left_out`` says why it is not counted. A weights'
    size that is not positive is taken as not known."""
    if read_gbps is None:
        read_gbps, given = ASSUMED_DISK_GBPS, None
    known = weights_gb if weights_gb is not None and weights_gb > 0 else None
    return StartUp(
        weights_gb=known,
        read_gbps=read_gbps,
        read_given=given,
        boot_s=0.0 if boot_left_out is not None else boot_s,
        boot_left_out=boot_left_out,
    )
