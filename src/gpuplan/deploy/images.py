"""Which PyTorch container image runs on which GPU, and what driver it needs.

The choice follows CUDA compute capability, not the GPU's name, because that is what decides whether
a PyTorch build carries kernels for the card:

* PyTorch's CUDA 12.8 (and 13.0) builds target Turing (7.5) through Blackwell (10.0, 12.0); its CUDA
  12.4/12.6 builds still carry Volta (7.0). Source: the "PyTorch CUDA support matrix" in
  pytorch/pytorch RELEASE.md, restated in pytorch/pytorch#172352 (2026); the V100 failure
  "minimum cuda capability supported by this library is 7.5" on a cu128 build is vllm-project/vllm#19185.
* CUDA 13 removes offline compilation and library support for Maxwell, Pascal and Volta (CUDA 12.9
  toolkit release notes, "Deprecated architectures"), so a V100 must stay on a CUDA 12 image.
* Blackwell needs CUDA 12.8 or newer; PyTorch 2.7 is the first release with CUDA 12.8 builds
  (PyTorch 2.7 release blog, April 2025). Hopper needs CUDA 11.8 or newer, which both images exceed.

The tags are official ``pytorch/pytorch`` tags of the form ``<torch>-cuda<x.y>-cudnn9-runtime``;
``2.7.0-cuda12.8-cudnn9-runtime`` is listed among the Docker Hub tags in Salad's PyTorch guide
(docs.salad.com, 2026) and ``2.5.1-cuda12.4-cudnn9-runtime`` is the 2.5.1 release's CUDA 12.4 image.
NVIDIA's NGC image ``nvcr.io/nvidia/pytorch:YY.MM-py3`` works too; its release notes list the CUDA
version of each monthly tag, so pick one whose CUDA matches the row below. Override with
``--base-image``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpuplan.errors import DeployError
from gpuplan.hardware import GPU
from gpuplan.i18n.messages import N_

if TYPE_CHECKING:
    from gpuplan.catalog.providers.base import Region

__all__ = [
    "ESTIMATOR_TORCH",
    "FILES_IMAGE",
    "BaseImage",
    "base_image_for",
    "in_mainland_china",
    "maybe_mainland_china",
    "registry_note",
    "setup_torch_words",
    "side_image_note",
]

#: The small image of a Kubernetes batch job's data pod, which holds its volume for ``kubectl cp``
#: (which needs ``tar`` in the container: busybox has it): Docker Hub's official ``busybox``, so
#: pulled from docker.io like the PyTorch images, and no option of ``deploy`` replaces it.
FILES_IMAGE = "busybox:1.37"

#: The PyTorch release gpuplan's estimator traces models under: the pin of the ``torch`` extra in
#: pyproject.toml (the estimator patches private torch APIs verified on it alone; a test keeps the
#: two equal). A plan file does not record the torch that traced it, so this is what a README names.
ESTIMATOR_TORCH = "2.13.0"


@dataclass(frozen=True, kw_only=True)
class BaseImage:
    """A PyTorch container image and what it needs from the host."""

    image: str
    cuda: str
    """CUDA version inside the image."""
    driver_note: str
    """One line about the host driver this image needs (marked for translation: a comment)."""
    reason: str
    """Why this image for this GPU (a comment in the generated files, marked for translation)."""
    torch: str
    """The PyTorch release in the image, e.g. ``2.7.0``."""
    pip_torch: str
    """The same PyTorch for ``pip install`` on a machine without the image (a SkyPilot VM): the
    version and the wheel index of its CUDA build (PyTorch's "Previous versions" page)."""


# CUDA 12.x runs on any R525+ driver through CUDA minor-version compatibility (NVIDIA "CUDA
# Compatibility" guide: 12.x needs >= 525.60.13 on Linux); a driver of the image's own branch
# is still recommended, and Blackwell cards need the R570 branch that introduced them.
_CUDA_12_8 = BaseImage(
    image="pytorch/pytorch:2.7.0-cuda12.8-cudnn9-runtime",
    cuda="12.8",
    driver_note=N_(
        "driver R570 or newer (CUDA 12.8); R525+ works for pre-Blackwell cards via "
        "minor-version compatibility"
    ),
    reason=N_(
        "PyTorch 2.7 with CUDA 12.8 has kernels for compute capability 7.5 to 12.0 (Turing to Blackwell)"
    ),
    torch="2.7.0",
    pip_torch='"torch==2.7.0" --index-url https://download.pytorch.org/whl/cu128',
)
_CUDA_12_4 = BaseImage(
    image="pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime",
    cuda="12.4",
    driver_note=N_("driver R550 or newer (CUDA 12.4); R525+ works via minor-version compatibility"),
    reason=N_(
        "Volta (compute capability 7.0) is absent from PyTorch's CUDA 12.8+ builds and from CUDA 13; "
        "the CUDA 12.4 build still carries sm_70 kernels"
    ),
    torch="2.5.1",
    pip_torch='"torch==2.5.1" --index-url https://download.pytorch.org/whl/cu124',
)


def base_image_for(gpu: GPU | None) -> BaseImage:
    """The base image for ``gpu`` (None = unknown GPU: the newest image, which covers 7.5 and up)."""
    if gpu is None:
        return _CUDA_12_8
    if gpu.vendor != "nvidia" or gpu.compute_capability is None:
        raise DeployError.worded(
            N_("{gpu} is not an NVIDIA GPU: no CUDA image fits; pass --base-image with a ROCm PyTorch image"),
            gpu=gpu.id,
        )
    major, _, minor = gpu.compute_capability.partition(".")
    cc = (int(major), int(minor or 0))
    if cc < (7, 0):
        raise DeployError.worded(
            N_("{gpu} (compute capability {capability}) is too old for current PyTorch"),
            gpu=gpu.id,
            capability=gpu.compute_capability,
        )
    return _CUDA_12_4 if cc < (7, 5) else _CUDA_12_8


def setup_torch_words(gpu: GPU | None) -> str:
    """A SkyPilot README's paragraph on the PyTorch its setup installs (:func:`base_image_for`'s, not
    the one gpuplan's estimate was traced under, :data:`ESTIMATOR_TORCH`): which one and why, that
    the estimate's memory and time are of the other release, and how to run that one instead. The
    image's release is kept because a CUDA build of it with kernels for the GPU is known to exist
    (the Docker image's own); a build of the traced release for every GPU and driver is not. ""
    for a GPU not NVIDIA's, where the setup installs no PyTorch."""
    if gpu is not None and gpu.vendor != "nvidia":
        return ""  # the setup installs none: a ROCm build is the user's to install
    from gpuplan.i18n import _

    image = base_image_for(gpu)
    name = gpu.id if gpu is not None else _("the GPU")
    return _(
        "PyTorch: the setup of task.yaml keeps a PyTorch the VM's image already has and prints the "
        "version it runs; where there is none it installs torch {version} (its CUDA {cuda} build), "
        "the release gpuplan's Docker image for {gpu} starts from (`{image}`): {reason}. gpuplan's "
        "estimate of this job was traced under torch {traced}, the release gpuplan pins (a plan file "
        "does not record the torch that traced it): another release can keep other activations and "
        "run other kernels, so the peak memory and step time it gets can differ from the estimate's. To "
        "run torch {traced}, change the torch line of the setup to `pip install torch=={traced} "
        "--index-url https://download.pytorch.org/whl/cuXYZ` with a CUDA build of it that has "
        'kernels for {gpu} and that your driver runs (PyTorch\'s "Previous versions" page, '
        "https://pytorch.org/get-started/previous-versions/, lists each release's builds)."
    ).format(
        version=image.torch,
        cuda=image.cuda,
        gpu=name,
        image=image.image,
        reason=_(image.reason),
        traced=ESTIMATOR_TORCH,
    )


def in_mainland_china(provider: str | None, region: str | None) -> bool:
    """The provider's own facts place ``region`` in mainland China (False where either is unknown)."""
    found = _region(provider, region)
    return found is not None and found.country == "CN"


def maybe_mainland_china(provider: str | None, region: str | None) -> bool:
    """The region is not known (none given, the catalog's "unspecified", or none of the provider's)
    and the provider is a Chinese cloud (``ProviderFacts.mainland_china_cloud``: Alibaba Cloud,
    Tencent Cloud, Huawei Cloud, Volcano Engine, which have regions abroad too): the launch may be
    in mainland China, so the notes for there are said, as conditions."""
    if not provider or _region(provider, region) is not None:
        return False
    from gpuplan.catalog.providers import REGISTRY

    module = REGISTRY.get(provider)
    return module is not None and module.FACTS.mainland_china_cloud


def _region(provider: str | None, region: str | None) -> Region | None:
    """The provider's facts of ``region``; None where either is unknown."""
    if not provider or not region:
        return None
    from gpuplan.catalog.providers import REGISTRY

    module = REGISTRY.get(provider)
    return module.FACTS.region(region) if module is not None else None


def registry_note(provider: str | None, region: str | None) -> str:
    """A README sentence for a launch in mainland China, where Docker Hub is often slow or
    unreachable: where to put the image instead; said as a condition where the region is unknown
    and the provider has mainland regions ('' elsewhere)."""
    from gpuplan.i18n import _

    if maybe_mainland_china(provider, region):
        return _(
            "No region of {provider} is named: pick one before applying. If it is in mainland "
            "China, Docker Hub (docker.io) is often slow or unreachable from there: copy the image to "
            "your cloud's registry (Alibaba Cloud ACR, Tencent Cloud TCR, Huawei Cloud SWR, Volcano "
            "Engine CR) or a mirror you trust, and give it with --base-image (docker) or --image (k8s)."
        ).format(provider=provider)
    if not in_mainland_china(provider, region):
        return ""
    return _(
        "This plan runs in mainland China ({provider} {region}), where Docker Hub (docker.io) is often slow "
        "or unreachable: copy the image to your cloud's registry (Alibaba Cloud ACR, Tencent Cloud TCR, "
        "Huawei Cloud SWR, Volcano Engine CR) or a mirror you trust, and give it with --base-image (docker) "
        "or --image (k8s)."
    ).format(provider=provider, region=region)


def side_image_note(provider: str | None, region: str | None, image: str, file: str) -> str:
    """A README sentence for a launch in mainland China whose ``file`` runs ``image`` from Docker Hub
    besides the job's own image, which no option of ``deploy`` replaces (a batch job's data pod:
    :data:`FILES_IMAGE`): that it must be copied too, and where to give the copy ('' elsewhere; where
    the region is unknown it follows :func:`registry_note`'s condition)."""
    if not in_mainland_china(provider, region) and not maybe_mainland_china(provider, region):
        return ""
    from gpuplan.i18n import _

    return _(
        "The pod of {file} runs `{image}`, from Docker Hub too: copy it to the same registry or mirror "
        "and give the copy's name as its `image:` in {file}."
    ).format(file=file, image=image)
