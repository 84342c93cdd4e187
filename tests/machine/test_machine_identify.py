"""Driver-reported GPU names map to datasheet ids, or to None — never to a guess."""

from __future__ import annotations

import pytest

from gpuplan.machine import identify_gpu

_GIB = 1024**3


@pytest.mark.parametrize(
    ("name", "gpu_id"),
    [
        ("NVIDIA H100 80GB HBM3", "H100-SXM"),
        ("NVIDIA H100 PCIe", "H100-PCIE"),
        ("NVIDIA H100 NVL", "H100-NVL"),
        ("NVIDIA H200", "H200-SXM"),
        ("NVIDIA A100-SXM4-80GB", "A100-SXM4-80GB"),
        ("NVIDIA A100-SXM4-40GB MIG 1g.5gb", "A100-SXM4-40GB"),
        ("NVIDIA A100 80GB PCIe", "A100-PCIE-80GB"),
        ("NVIDIA A100-PCIE-40GB", "A100-PCIE-40GB"),
        ("Tesla V100-SXM2-16GB", "V100-SXM2-16GB"),
        ("Tesla T4", "T4"),
        ("NVIDIA A10G", "A10G"),
        ("NVIDIA L4", "L4"),
        ("NVIDIA L40S", "L40S"),
        ("NVIDIA GeForce RTX 4090", "RTX-4090"),
    ],
)
def test_known_driver_names(name: str, gpu_id: str) -> None:
    gpu = identify_gpu(name)
    assert gpu is not None and gpu.id == gpu_id


@pytest.mark.parametrize("name", ["GRID A100-20C", "NVIDIA H800", "AMD EPYC 7R13", "llvmpipe"])
def test_unknown_names_give_none(name: str) -> None:
    assert identify_gpu(name) is None


def test_memory_settles_an_ambiguous_name_only_when_one_choice_fits() -> None:
    # "NVIDIA A100" matches four parts; 80 GiB fits two of them (PCIe and SXM4), so still unknown.
    assert identify_gpu("NVIDIA A100", memory_bytes=80 * _GIB) is None
    v100 = identify_gpu("NVIDIA V100 PCIe", memory_bytes=32 * _GIB)
    assert v100 is not None and v100.id == "V100-PCIE-32GB"


def test_memory_vetoes_a_match_it_contradicts() -> None:
    # 24 GiB is no H100 of any form factor: no datasheet rather than a wrong one.
    assert identify_gpu("NVIDIA H100 PCIe", memory_bytes=24 * _GIB) is None


def test_mig_instance_keeps_its_parent_datasheet_despite_small_memory() -> None:
    gpu = identify_gpu("NVIDIA A100-SXM4-40GB MIG 1g.5gb", memory_bytes=5 * _GIB)
    assert gpu is not None and gpu.id == "A100-SXM4-40GB"
