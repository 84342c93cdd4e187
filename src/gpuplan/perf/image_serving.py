"""A service whose request is a fixed count of calls of the traced step, with no KV cache and no
tokens: one image made by a denoiser (``inputs.denoising_steps``), or one forward pass of the
traced model on one sample (a classifier, an embedding, a segmentation; :func:`request_calls`),
its capacity and p95 latency from that step. The words below are an image's; a forward pass is
the same with one call a request and no guidance.

One replica runs the traced batch (``inputs.batch_size`` images) through the image's denoising
steps, each one denoiser call: of that batch, or with classifier-free guidance of twice it (diffusers'
pipelines concatenate the conditional and unconditional latents, ``torch.cat([latents] * 2)``, and
run the denoiser once on the doubled batch: ``StableDiffusionPipeline.__call__`` in huggingface/diffusers,
src/diffusers/pipelines/stable_diffusion/pipeline_stable_diffusion.py, read at commit 003c4c3e),
that call's time the traced call's scaled by the roofline at the doubled batch (:func:`image_calls`,
``perf.inference.batch_sweep``). An image takes ``calls × step`` alone, ``calls`` counted in calls
of the traced batch, and the replica finishes ``batch`` of them in that time. The queue is taken as
M/M/c with the batch's places as its servers (``perf.inference``'s wait for a slot, the language models' own
approximation): a request waits only when every place of the batch is taken. The text encoders and
the VAE decoder are not counted unless the traced model includes them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpuplan.perf.inference import TARGET_UTILISATION, _wait_p95

if TYPE_CHECKING:
    from gpuplan.hardware import GPU
    from gpuplan.perf.calibration import Calibration
    from gpuplan.profile import Profile
    from gpuplan.workload import Workload

__all__ = ["ImageServing", "ImageStep", "guided_call_ratio", "image_calls", "request_calls"]


def guided_call_ratio(profile: Profile, gpu: GPU, calibration: Calibration | None = None) -> float:
    """One denoiser call of twice the traced batch over one of the traced batch on ``gpu``: the
    roofline's latencies at both batches (``perf.inference.batch_sweep``: FLOPs and bytes scale
    with the batch, the host's floor stays), so 2 where the GPU is busy and near 1 where the CPU's
    launches bound a small batch; at least 1, at most 2."""
    from gpuplan.perf.inference import batch_sweep

    b = profile.batch_size
    one, two = batch_sweep(profile, gpu, (b, 2 * b), calibration=calibration)
    if not one.latency_s > 0:
        return 2.0
    return min(2.0, max(1.0, two.latency_s / one.latency_s))


def image_calls(
    workload: Workload, profile: Profile, gpu: GPU, calibration: Calibration | None = None
) -> float | None:
    """The denoiser calls of the traced batch one image's time is (None: the workload generates no
    images): ``denoising_steps``, each with ``guidance`` one call of twice the batch
    (:func:`guided_call_ratio` of a traced one). ``plan`` and ``simulate autoscale`` both take it."""
    steps = workload.inputs.denoising_steps
    if steps is None:
        return None
    if not workload.inputs.guidance:
        return float(steps)
    return steps * guided_call_ratio(profile, gpu, calibration)


def request_calls(
    workload: Workload, profile: Profile, gpu: GPU, calibration: Calibration | None = None
) -> float:
    """The calls of the traced batch one request of a service of traced calls
    (``Workload.serves_traced_calls``) takes: an image's (:func:`image_calls`), or 1 where the
    request is one forward pass of the traced model on one sample (a classifier's, an embedding's,
    a segmentation's), the server batching requests up to ``inputs.batch_size``."""
    calls = image_calls(workload, profile, gpu, calibration)
    return 1.0 if calls is None else calls


@dataclass(frozen=True, kw_only=True)
class ImageServing:
    """One replica of an image service at its share of the load."""

    image_s: float
    """One image alone: its denoiser calls × the step, in wall time (s)."""
    capacity_images_per_s: float
    """Images a second one replica finishes with its batch full."""
    utilisation: float
    """Its share of the load over its capacity (≥ 1: overloaded)."""
    p95_latency_s: float | None
    """An image's latency at the 95th percentile, the wait for a place in the batch included;
    None overloaded."""

    @property
    def carried(self) -> bool:
        """Its share of the load within the headroom a fleet is sized with (``perf.inference.
        TARGET_UTILISATION``, as a language model's fleet is), not overloaded."""
        return self.p95_latency_s is not None and self.utilisation <= TARGET_UTILISATION

    def late(self, p95_latency_ms: float | None) -> bool:
        """Carried, but its p95 past the service's target (``serving.p95_latency_ms``; None: none)."""
        return (
            self.carried
            and self.p95_latency_s is not None
            and p95_latency_ms is not None
            and self.p95_latency_s * 1000 > p95_latency_ms
        )


@dataclass(frozen=True, kw_only=True)
class ImageStep:
    """One replica of an image service apart from its load: ``step_s`` one denoiser call of
    ``batch`` images, ``calls`` of them an image (:func:`image_calls`), ``time_share`` the share of
    its GPU's time a replica time-sharing it runs (1: a GPU each), its image and its capacity in
    wall time. ``plan`` fits an option's replicas with it; ``simulate`` and ``deploy`` take it from
    one estimate (:func:`gpuplan.api.image_step`), whatever the loads they ask it at."""

    step_s: float
    calls: float
    batch: int
    time_share: float = 1.0

    @classmethod
    def of_capacity(cls, capacity_images_per_s: float, batch: int) -> ImageStep:
        """The replica a plan's option gives by its capacity at full load (images a second, in wall
        time) and its batch: an image alone takes ``batch / capacity``, which is all :meth:`serving`
        and :meth:`peak_replicas` read of its step, its calls and its time share."""
        return cls(step_s=batch / capacity_images_per_s, calls=1.0, batch=batch)

    @property
    def image_s(self) -> float:
        """One image alone: its calls × the step, in wall time (s)."""
        return self.calls * self.step_s / self.time_share

    @property
    def capacity_images_per_s(self) -> float:
        """Images a second one replica finishes with its batch full (0: no time known)."""
        image = self.image_s
        return self.batch / image if image > 0 else 0.0

    def serving(self, requests_per_s: float, replicas: int) -> ImageServing:
        """The replica with ``requests_per_s`` (one image each) split evenly over ``replicas``."""
        capacity = self.capacity_images_per_s
        rate = requests_per_s / replicas
        wait = _wait_p95(rate, capacity, self.batch)
        return ImageServing(
            image_s=self.image_s,
            capacity_images_per_s=capacity,
            utilisation=rate / capacity if capacity > 0 else float("inf"),
            p95_latency_s=None if wait is None else self.image_s + wait,
        )

    def peak_replicas(self, requests_per_s: float, p95_latency_ms: float | None) -> int | None:
        """The fewest replicas that carry an image service's ``requests_per_s`` as ``plan`` fits an
        option's (:meth:`serving` at that count, :attr:`ImageServing.carried` and not
        :meth:`ImageServing.late`): each within the sizing headroom, and as many more as the p95
        target needs. None where no count does (an image alone past the target, or no capacity)."""
        capacity = self.capacity_images_per_s
        if not capacity > 0 or not requests_per_s > 0:
            return None
        if p95_latency_ms is not None and self.image_s * 1000 > p95_latency_ms:
            return None  # the wait falls to nothing with more replicas, the image's own time never
        n = max(1, math.floor(requests_per_s / (capacity * TARGET_UTILISATION)))
        while True:  # ends: with replicas enough the wait is 0 and the p95 the image's time
            srv = self.serving(requests_per_s, n)
            if srv.carried and not srv.late(p95_latency_ms):
                return n
            n += 1
