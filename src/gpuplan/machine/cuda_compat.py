"""Does this NVIDIA driver run this PyTorch build's CUDA? NVIDIA's compatibility rules, as code.

Sources (read 2026-11):
- CUDA Compatibility guide, "Minor Version Compatibility"
  (https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html): from CUDA 11
  on, an application built with any toolkit of a major family runs, *with a limited feature set*, on
  a driver of at least that family's minimum (11.x: >= 450.80.02, 12.x: >= 525.60.13, 13.x: >= 580
  on Linux). The limits: no JIT of PTX newer than the driver, and APIs that need a newer driver fail
  with ``cudaErrorCallRequiresNewerDriver``.
- The same guide, "Backward compatibility": a newer driver runs every older CUDA.
- ``nvmlSystemGetCudaDriverVersion`` returns the newest CUDA version the installed driver supports
  (``1000 * major + 10 * minor``), which is what ``nvidia-smi`` prints as "CUDA Version".

PyTorch's pip wheels bundle their own CUDA runtime and libraries (cuBLAS, cuDNN, NCCL), so the only
thing that must match on the machine is the driver — which is what this module judges.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

__all__ = [
    "MIN_DRIVER_FOR_CUDA_BEFORE_11",
    "MIN_DRIVER_FOR_CUDA_MAJOR",
    "CudaCompat",
    "CudaCompatStatus",
    "cuda_compat",
]

#: Minimum Linux driver for minor-version compatibility within a CUDA major family (guide, Table 1,
#: and the CUDA Toolkit Release Notes, Table 3). Windows numbers differ (452.39, 527.41 …).
MIN_DRIVER_FOR_CUDA_MAJOR: dict[int, tuple[int, ...]] = {
    11: (450, 80, 2),
    12: (525, 60, 13),
    13: (580,),
}


#: Before CUDA 11 there was no minor-version compatibility: a build needed a driver of at least its
#: own toolkit version (CUDA Toolkit Release Notes, Table 3, Linux x86_64 minimums).
MIN_DRIVER_FOR_CUDA_BEFORE_11: dict[tuple[int, int], tuple[int, ...]] = {
    (9, 0): (384, 81),
    (9, 1): (390, 46),
    (9, 2): (396, 26),
    (10, 0): (410, 48),
    (10, 1): (418, 39),
    (10, 2): (440, 33),
}


class CudaCompatStatus(str, Enum):
    """How well the driver runs the build's CUDA."""

    SUPPORTED = "supported"
    """The driver supports the build's CUDA version or newer (backward compatibility)."""
    MINOR_COMPAT = "minor_compat"
    """Same major, older minor: runs through minor-version compatibility with a limited feature set."""
    TOO_OLD = "too_old"
    """The driver cannot run this CUDA: CUDA initialisation fails."""
    UNKNOWN = "unknown"
    """Not enough facts to say (unparseable versions)."""


@dataclass(frozen=True, kw_only=True)
class CudaCompat:
    """The verdict and the figures behind it."""

    status: CudaCompatStatus
    build_cuda: str
    """The CUDA version PyTorch was built with, ``"12.8"``."""
    driver_cuda: str | None
    """The newest CUDA the driver supports, ``"12.4"``."""
    min_driver: str | None
    """The minimum driver of the build's CUDA major family, ``"525.60.13"`` (before 11: of its version)."""


def _parse_version(text: str) -> tuple[int, ...] | None:
    try:
        return tuple(int(p) for p in text.strip().split("."))
    except ValueError:
        return None


def cuda_compat(*, driver_version: str, driver_cuda_version: int | None, build_cuda: str) -> CudaCompat:
    """Judge ``build_cuda`` (``torch.version.cuda``) against the driver NVML reports."""
    build = _parse_version(build_cuda)
    driver = _parse_version(driver_version)
    if build is None or len(build) < 2:
        return CudaCompat(
            status=CudaCompatStatus.UNKNOWN, build_cuda=build_cuda, driver_cuda=None, min_driver=None
        )
    major, minor = build[0], build[1]
    before_11 = major < 11
    if before_11:
        minimum = MIN_DRIVER_FOR_CUDA_BEFORE_11.get((major, minor))
    else:
        minimum = MIN_DRIVER_FOR_CUDA_MAJOR.get(major)
    min_text = ".".join(str(p) for p in minimum) if minimum else None
    drv_cuda: tuple[int, int] | None = None
    if driver_cuda_version is not None:
        drv_cuda = (driver_cuda_version // 1000, (driver_cuda_version % 1000) // 10)
    drv_cuda_text = f"{drv_cuda[0]}.{drv_cuda[1]}" if drv_cuda else None

    def verdict(status: CudaCompatStatus) -> CudaCompat:
        return CudaCompat(
            status=status, build_cuda=build_cuda, driver_cuda=drv_cuda_text, min_driver=min_text
        )

    if drv_cuda is not None:
        if drv_cuda >= (major, minor):
            return verdict(CudaCompatStatus.SUPPORTED)
        if drv_cuda[0] < major or before_11:
            # Minor-version compatibility never crosses a major version, and before CUDA 11 it did
            # not exist: a 10.2 build on a driver of CUDA 10.1 fails to initialise.
            return verdict(CudaCompatStatus.TOO_OLD)
    # Same major and an older minor, or NVML gave no CUDA version: the minimum driver decides.
    if minimum is None or driver is None:
        return verdict(CudaCompatStatus.UNKNOWN)
    if driver < minimum:
        return verdict(CudaCompatStatus.TOO_OLD)
    if before_11:
        return verdict(CudaCompatStatus.SUPPORTED)
    if drv_cuda is None:
        return verdict(CudaCompatStatus.UNKNOWN)
    return verdict(CudaCompatStatus.MINOR_COMPAT)
