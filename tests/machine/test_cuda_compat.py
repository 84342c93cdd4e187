"""NVIDIA's driver/CUDA compatibility rules (CUDA Compatibility guide, minor-version table)."""

from __future__ import annotations

import pytest

from gpuplan.machine.cuda_compat import CudaCompatStatus, cuda_compat


@pytest.mark.parametrize(
    ("driver", "driver_cuda", "build", "status"),
    [
        # Driver CUDA version >= build: backward compatibility.
        ("570.172.08", 12080, "12.8", CudaCompatStatus.SUPPORTED),
        ("580.65.06", 13000, "12.8", CudaCompatStatus.SUPPORTED),
        # Same major, older minor, driver >= 525.60.13: minor-version compatibility.
        ("535.183.01", 12020, "12.8", CudaCompatStatus.MINOR_COMPAT),
        # Same major, but below the family's minimum driver.
        ("520.61.05", 12000, "12.1", CudaCompatStatus.TOO_OLD),
        # Older major: never compatible (minor compatibility stays within a major).
        ("470.256.02", 11040, "12.8", CudaCompatStatus.TOO_OLD),
        ("575.57.08", 12090, "13.0", CudaCompatStatus.TOO_OLD),
        # 11.x builds need >= 450.80.02.
        ("450.80.02", 11000, "11.8", CudaCompatStatus.MINOR_COMPAT),
        ("450.51.06", 11000, "11.8", CudaCompatStatus.TOO_OLD),
        # No CUDA version from NVML: the minimum driver still rules out the impossible.
        ("470.256.02", None, "12.8", CudaCompatStatus.TOO_OLD),
        ("550.90.07", None, "12.8", CudaCompatStatus.UNKNOWN),
        ("550.90.07", 12040, "garbage", CudaCompatStatus.UNKNOWN),
    ],
)
def test_compat_rules(driver: str, driver_cuda: int | None, build: str, status: CudaCompatStatus) -> None:
    assert (
        cuda_compat(driver_version=driver, driver_cuda_version=driver_cuda, build_cuda=build).status is status
    )


def test_verdict_carries_the_figures() -> None:
    c = cuda_compat(driver_version="470.256.02", driver_cuda_version=11040, build_cuda="12.8")
    assert (c.driver_cuda, c.build_cuda, c.min_driver) == ("11.4", "12.8", "525.60.13")
