"""A service whose request is one image made by a denoiser (``inputs.denoising_steps``): its
capacity and p95 latency from the denoiser's step, with no KV cache and no tokens.

One replica runs the traced batch (``inputs.batch_size`` images) through the image's denoiser
calls (steps × 2 with guidance, each a call of that batch): an image takes ``calls × step`` alone,
and the replica finishes ``batch`` of them in that time. The queue is taken as M/M/c with the
batch's places as its servers (``perf.inference``'s wait for a slot, the language models' own
approximation): a request waits only when every place of the batch is taken. The text encoders and
the VAE decoder are not counted unless the traced model includes them.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuplan.perf.inference import _wait_p95

__all__ = ["ImageServing", "image_serving"]


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


def image_serving(
    *, step_s: float, calls: int, batch: int, requests_per_s: float, replicas: int, time_share: float = 1.0
) -> ImageServing:
    """The replica of an image service: ``step_s`` one denoiser call of ``batch`` images, ``calls``
    of them an image, ``requests_per_s`` (one image each) split evenly over ``replicas``;
    ``time_share``: the share of its GPU's time a replica time-sharing it runs (1: a GPU each), its
    image and its capacity in wall time."""
    image = calls * step_s / time_share
    capacity = batch / image if image > 0 else 0.0
    rate = requests_per_s / replicas
    wait = _wait_p95(rate, capacity, batch)
    return ImageServing(
        image_s=image,
        capacity_images_per_s=capacity,
        utilisation=rate / capacity if capacity > 0 else float("inf"),
        p95_latency_s=None if wait is None else image + wait,
    )
