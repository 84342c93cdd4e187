"""The GPU's architecture against the CUDA PyTorch was built with (check ``arch_support``)."""

from __future__ import annotations

import pytest

from gpuplan.machine.checks import check_arch_support
from gpuplan.machine.facts import DriverFacts, GpuFacts, MachineFacts, TorchFacts
from gpuplan.machine.findings import Severity


def _facts(gpu_name: str, cc: str | None, cuda_build: str) -> MachineFacts:
    return MachineFacts(
        host="h",
        python_version="3.11.7",
        platform="Linux",
        torch=TorchFacts(installed=True, version=f"2.x+cu{cuda_build}", cuda_build=cuda_build),
        driver=DriverFacts(
            driver_version="580.65.06",
            cuda_driver_version=13000,
            gpus=(GpuFacts(index=0, name=gpu_name, compute_capability=cc),),
        ),
    )


@pytest.mark.parametrize(
    ("name", "cc", "build", "severity"),
    [
        ("NVIDIA H100 80GB HBM3", "9.0", "11.7", Severity.ERROR),  # Hopper needs CUDA 11.8
        ("NVIDIA H100 80GB HBM3", "9.0", "11.8", Severity.OK),
        ("NVIDIA A100-SXM4-80GB", "8.0", "12.1", Severity.OK),
        ("NVIDIA L4", None, "11.7", Severity.ERROR),  # cc from the datasheet: Ada 8.9 needs 11.8
        ("Tesla V100-SXM2-16GB", "7.0", "13.0", Severity.ERROR),  # CUDA 13 dropped Volta
        ("Tesla V100-SXM2-16GB", "7.0", "12.8", Severity.OK),
    ],
)
def test_arch_support(name: str, cc: str | None, build: str, severity: Severity) -> None:
    [finding] = check_arch_support(_facts(name, cc, build))
    assert finding.severity is severity
    if severity is Severity.ERROR:
        assert finding.fix and "PyTorch wheel" in finding.fix


def test_no_verdict_without_a_cuda_build_or_an_architecture() -> None:
    assert check_arch_support(_facts("NVIDIA H100 80GB HBM3", "9.0", "")) == []
    assert check_arch_support(_facts("Some Unknown GPU", None, "12.4")) == []
