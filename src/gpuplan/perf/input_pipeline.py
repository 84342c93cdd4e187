"""The CPU input pipeline of an image workload: how many images per second the host's vCPUs feed.

An image job decodes each JPEG and augments it (random-resized crop, flip, normalise) on the CPU
in DataLoader workers before the GPU sees it. When the instance has too few vCPUs per GPU the
GPUs wait for data: samples/s is bounded by ``vCPUs × images/s per vCPU``. Text and token
workloads read pre-tokenised arrays and are not bounded here.

The rate per vCPU is an ASSUMPTION with a range (no calibration row measures it):

- "A single core decodes 50–200 images per second depending on resolution" (JPEG decode only):
  https://www.systemoverflow.com/learn/ml-cv-systems/image-preprocessing/production-data-pipeline-design-and-throughput
  (read 2026-12-01).
- 955 images/s from 8 PyTorch DataLoader workers on a Ryzen 9 9950X3D, decoding 1024×1024 JPEGs
  and resizing to 224×224 with flip, rotation and colour jitter: 955 / 8 ≈ 119 images/s per
  worker (one worker ≈ one core): https://isztld.com/posts/gpu-preprocessing.html (read 2026-12-01).

- At least 247 images/s per DataLoader worker process on a DGX A100: NVIDIA's ResNet-50 AMP
  training reached 2,470 images/s on one A100 with ``data_backend: pytorch`` and 10 workers per GPU
  (NVIDIA/DeepLearningExamples@729963dd PyTorch/Classification/ConvNets/resnet50v1.5/README.md
  training table and configs.yml, read 2026-12-01), each worker on its own core of the host's 128.

A cloud vCPU is one hyperthread (half a physical core on most x86 instances), and ImageNet's
JPEGs average about 400×350 px (smaller than that benchmark's): both taken together, 100 images/s
per vCPU is the point, 50–250 the range (the high end from the DGX A100 figure, a full core per
worker). A workload's ``stack.loader_workers`` counts each worker at the same rate.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuplan.errors import EstimateError
from gpuplan.i18n import N_, _

__all__ = [
    "IMAGES_PER_S_PER_VCPU",
    "IMAGES_PER_S_PER_VCPU_HIGH",
    "IMAGES_PER_S_PER_VCPU_LOW",
    "InputPipeline",
    "image_input_pipeline",
]

#: JPEG decode + random-resized crop + flip per vCPU, images/s (ASSUMPTION; sources above).
IMAGES_PER_S_PER_VCPU = 100.0
IMAGES_PER_S_PER_VCPU_LOW = 50.0
IMAGES_PER_S_PER_VCPU_HIGH = 250.0


@dataclass(frozen=True, kw_only=True)
class InputPipeline:
    """The host CPUs that decode and augment an image workload's samples."""

    vcpus_per_gpu: float
    """Decoding processes per GPU: the instance's vCPUs divided by its GPUs (every vCPU a
    DataLoader worker), or fewer where the workload names its ``loader_workers``."""
    source: str = "catalog"
    """Where the count comes from: ``catalog`` (the instance's vCPUs) or ``workers`` (the
    workload's ``stack.loader_workers``)."""
    serial: bool = False
    """``loader_workers: 0``: one process decodes in the training loop, between the GPU's steps."""

    def __post_init__(self) -> None:
        if not self.vcpus_per_gpu > 0:
            raise EstimateError.worded(
                N_("vCPUs per GPU must be positive, got {vcpus:g}"), vcpus=self.vcpus_per_gpu
            )

    def samples_per_s(self, gpus: int) -> tuple[float, float, float]:
        """(point, low, high) images/s the CPUs of ``gpus`` GPUs' hosts feed in all."""
        vcpus = self.vcpus_per_gpu * gpus
        return (
            vcpus * IMAGES_PER_S_PER_VCPU,
            vcpus * IMAGES_PER_S_PER_VCPU_LOW,
            vcpus * IMAGES_PER_S_PER_VCPU_HIGH,
        )

    def describe(self, gpus: int) -> str:
        point, low, high = self.samples_per_s(gpus)
        if self.source == "workers":
            return _(
                "{workers:g} DataLoader workers per GPU × {rate:g} images/s each (JPEG decode + "
                "random-resized crop, assumed; range {rate_low:g}–{rate_high:g}) × {gpus} GPU = "
                "{point:,.0f} images/s ({low:,.0f}–{high:,.0f})"
            ).format(
                workers=self.vcpus_per_gpu,
                rate=IMAGES_PER_S_PER_VCPU,
                rate_low=IMAGES_PER_S_PER_VCPU_LOW,
                rate_high=IMAGES_PER_S_PER_VCPU_HIGH,
                gpus=gpus,
                point=point,
                low=low,
                high=high,
            )
        return _(
            "{vcpus:g} vCPUs per GPU × {rate:g} images/s per vCPU (JPEG decode + random-resized crop, "
            "assumed; range {rate_low:g}–{rate_high:g}) × {gpus} GPU = {point:,.0f} images/s "
            "({low:,.0f}–{high:,.0f})"
        ).format(
            vcpus=self.vcpus_per_gpu,
            rate=IMAGES_PER_S_PER_VCPU,
            rate_low=IMAGES_PER_S_PER_VCPU_LOW,
            rate_high=IMAGES_PER_S_PER_VCPU_HIGH,
            gpus=gpus,
            point=point,
            low=low,
            high=high,
        )


def image_input_pipeline(
    image_size: int | None,
    vcpus: float | None,
    gpus_per_node: float,
    *,
    source: str = "catalog",
    kind: str = "dataloader",
    workers: int | None = None,
) -> InputPipeline | None:
    """The pipeline of an image workload on an instance of ``vcpus`` and ``gpus_per_node`` GPUs.

    ``kind`` is the workload's ``stack.input_pipeline``: only ``dataloader`` decodes on the CPUs
    (``dali`` decodes on the GPU with nvJPEG, ``synthetic`` decodes nothing: neither is bounded
    here). ``workers``: the DataLoader's ``num_workers`` per GPU, at most one per vCPU; 0 decodes in
    the training process, one batch after another with the GPUs' work.

    None when the workload has no images (``image_size`` None), its pipeline is not the CPUs', or
    neither the workers nor the instance's vCPUs are known (then nothing is bounded: unknown is not
    zero).
    """
    if image_size is None or kind != "dataloader" or not gpus_per_node > 0:
        return None
    per_gpu = vcpus / gpus_per_node if vcpus is not None and vcpus > 0 else None
    if workers is not None:
        if workers == 0:
            return InputPipeline(vcpus_per_gpu=1.0, source="workers", serial=True)
        if per_gpu is None or workers < per_gpu:
            return InputPipeline(vcpus_per_gpu=float(workers), source="workers")
    if per_gpu is None:
        return None
    return InputPipeline(vcpus_per_gpu=per_gpu, source=source)
