"""Marketplace rows of the China-market A800 resolve to its 80 GB datasheet rows."""

from __future__ import annotations

from gpuplan.catalog.gpu_names import market_gpu


def test_cudos_a800_pci_80gb_is_the_a800_pcie() -> None:
    # Cudo's rows (SkyPilot catalog cudo/vms.csv): "intel-ice-lake-a800-pci_1x2v4gb", GpuInfo 81920 MiB
    assert market_gpu("A800", "intel-ice-lake-a800-pci_1x2v4gb", 81920, 1.0) == ("A800-PCIE-80GB", "")
    assert market_gpu("A800", "a800-sxm4 node", 8 * 81920, 8.0) == ("A800-SXM4-80GB", "")


def test_an_a800_without_its_form_factor_is_the_slower_pcie_part() -> None:
    gpu, note = market_gpu("A800", "a800 box", 81920, 1.0)
    assert gpu == "A800-PCIE-80GB" and "form factor not stated" in note


def test_an_a800_not_of_80_gb_is_not_mapped_and_says_why() -> None:
    for mib in (40960, None):
        gpu, note = market_gpu("A800", "a800-pci", mib, 1.0)
        assert gpu is None and "80 GB" in note, mib
