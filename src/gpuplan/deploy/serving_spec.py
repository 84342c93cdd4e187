"""How an inference workload is deployed: the workload's ``serving:`` block with deploy's defaults.

Apart from ``deploy/spec.py`` (which re-exports it) so that each module stays one job.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from gpuplan.deploy.grammar import ENGINE_PIN, MAX_REPLICAS, MAX_SEQ_LEN, MIG_PROFILE
from gpuplan.errors import Phrase
from gpuplan.i18n.messages import N_
from gpuplan.workload.spec import MAX_SHARE_GPU, QUARTER_CARD, ScheduleSpec, utilization_percent

__all__ = ["PeakFleet", "ServingDeployment"]


class ServingDeployment(BaseModel):
    """How an inference workload is deployed: the workload's ``serving:`` block (its
    :class:`~gpuplan.workload.spec.ServingSpec`) with deploy's defaults filled in."""

    model_config = ConfigDict(extra="ignore", frozen=True, allow_inf_nan=False)

    requests_per_s: float | None = Field(default=None, gt=0, le=1e9)
    """Expected load, requests per second (informational in the generated files)."""
    gpu_utilization_target: float = Field(default=80.0, gt=0, le=100)
    """Scale out when average GPU utilisation passes this, percent (the articles' ">80 %" rule)."""
    share_gpu: int = Field(default=1, ge=1, le=MAX_SHARE_GPU)
    """Replicas that time-share one GPU (NVIDIA device-plugin time-slicing); 1 = a whole GPU each.
    ``true`` in YAML means 4, the articles' "1/4 card": four replicas of this one service on each
    card, not several services (``simulate share`` packs those)."""
    mig_profile: str | None = None
    """A MIG profile such as ``1g.10gb``; each replica then requests ``nvidia.com/mig-<profile>``."""
    min_replicas: int = Field(default=1, ge=0, le=MAX_REPLICAS)
    """The fewest replicas the autoscaler keeps; 0 only on a :attr:`schedule`."""
    max_replicas: int = Field(default=8, ge=1, le=MAX_REPLICAS)
    schedule: ScheduleSpec | None = None
    """The hours the service runs (the serving block's ``schedule``): none outside them."""
    start_replicas: int | None = Field(default=None, ge=1, le=MAX_REPLICAS)
    """Replicas started at launch where they differ from ``min_replicas``: the plan's count for the
    load it priced, above a serving block's own ``min_replicas`` (the autoscaler may go down to that
    minimum when the load falls); None: start ``min_replicas``."""
    floor_from_plan: bool = False
    ceiling_from_start: bool = False
    """``max_replicas`` is deploy's room to double the replicas started (the serving block gives
    none): a workload file's is the peak fleet by the estimate instead, where it has one
    (:meth:`~gpuplan.deploy.spec.LaunchSpec.with_peak_fleet`)."""
    committed_floor_given: int | None = Field(default=None, ge=1, le=MAX_REPLICAS)
    """The serving block's own ``min_replicas`` where it was below the replicas a plan bought on
    committed capacity and was raised to them (paid for the term either way); None otherwise."""
    spare_floor_given: int | None = Field(default=None, ge=1, le=MAX_REPLICAS)
    """The serving block's own ``min_replicas`` where a spot plan's spare was added to it: the
    autoscaler's floor is the load's floor and the spare the plan priced against reclaims, which an
    autoscaler held at the block's own floor had removed at the first quiet hour; None otherwise."""
    """``min_replicas`` is the plan's count for the load it priced (the serving block gives none):
    the autoscaler never goes below the replicas priced for the peak, all month."""
    prompt_tokens: int | None = Field(default=None, ge=1, le=MAX_SEQ_LEN)
    output_tokens: int | None = Field(default=None, ge=1, le=MAX_SEQ_LEN)
    """Tokens of a request's prompt and of its answer, as the plan priced them (the engine's
    context length is their sum)."""
    engine: str | None = None
    """The serving engine the plan priced: ``vllm``, ``sglang``, or either pinned (``vllm==0.8.5``);
    None: not named."""
    prefix_caching: bool | None = None
    """The engine keeps computed prefixes for reuse (vLLM ``--enable-prefix-caching``, SGLang's
    radix cache); None: the engine's default."""

    @field_validator("engine")
    @classmethod
    def _engine(cls, v: str | None) -> str | None:
        # A plan file may come from someone else: the engine reaches an image tag and a command
        # line, so only the workload spec's own spelling passes, re-checked here.
        if v is None:
            return None
        if not v.isascii() or not ENGINE_PIN.fullmatch(v):
            raise ValueError(
                Phrase(N_('engine {engine!r}: write it as "vllm==0.8.5" (or vllm, sglang)'), engine=v[:60])
            )
        return v

    @field_validator("gpu_utilization_target")
    @classmethod
    def _utilization(cls, v: float) -> float:
        return utilization_percent(v)  # deploy's --utilization-target 0.8 too

    @field_validator("share_gpu", mode="before")
    @classmethod
    def _bool_means_quarter(cls, v: object) -> object:
        if v is True:
            return QUARTER_CARD
        if v is False or v is None:
            return 1
        return v

    @field_validator("mig_profile")
    @classmethod
    def _mig_shape(cls, v: str | None) -> str | None:
        if v is None:
            return None
        v = v.strip().lower().removeprefix("nvidia.com/mig-").removeprefix("mig-")
        # NVIDIA's profile names: <compute slices>g.<memory>gb, optionally +me / +gfx suffixes.
        if not v.isascii() or not MIG_PROFILE.fullmatch(v):
            raise ValueError(
                Phrase(
                    N_(
                        "MIG profile {profile!r}: NVIDIA's profiles are <compute slices, 1 to 7>g."
                        "<memory>gb, as 1g.10gb or 3g.40gb"
                    ),
                    profile=v,
                )
            )
        return v

    @model_validator(mode="after")
    def _one_sharing_mode(self) -> ServingDeployment:
        if self.mig_profile and self.share_gpu > 1:
            raise ValueError(Phrase(N_("choose either mig_profile or share_gpu, not both")))
        if self.max_replicas < self.min_replicas:
            raise ValueError(Phrase(N_("max_replicas is below min_replicas")))
        if self.min_replicas == 0 and self.schedule is None:
            raise ValueError(
                Phrase(
                    N_(
                        "min_replicas 0 needs a schedule (serving.schedule: the hours it runs, none "
                        "outside them); without one, at least 1"
                    )
                )
            )
        if self.start_replicas is not None and not (
            self.min_replicas <= self.start_replicas <= self.max_replicas
        ):
            raise ValueError(Phrase(N_("start_replicas must be between min_replicas and max_replicas")))
        return self

    @property
    def launch_replicas(self) -> int:
        """Replicas running when the service starts (:attr:`start_replicas`, else the minimum; at
        least 1: a scheduled service's floor of 0 is outside its hours)."""
        return max(1, self.start_replicas if self.start_replicas is not None else self.min_replicas)


class PeakFleet(BaseModel):
    """The replicas ``gpuplan plan`` sizes a service's fleet at for its stated peak
    (``serving.requests_per_s``) on one GPU, by the estimate deploy checks the workload with
    (``ServingEstimate.gpus_needed``: each replica loaded to at most the share of its capacity plans
    size fleets for, and as many more as the latency targets need)."""

    model_config = ConfigDict(frozen=True, allow_inf_nan=False)

    replicas: int = Field(ge=1)
    requests_per_s: float = Field(gt=0)
    """The peak the fleet carries (``serving.requests_per_s``)."""
    replica_capacity_requests_per_s: float = Field(gt=0)
    """What one replica completes at full load."""
    gpu: str
