"""Azure GPU VMs SkyPilot's catalog names in ways its name table did not read: ND40rs_v2's
``V100-32GB``, and an empty AcceleratorName on NCC40ads H100 v5 and the NCads A10 v4 sizes. Lines
copied from SkyPilot's Azure v6 catalog (``../shared/data/skypilot_catalog/azure_v6_vms_gpu.csv``)."""

from __future__ import annotations

from pathlib import Path

from gpuplan.catalog.importers import parse_skypilot

HEADER = (
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,Generation"
)
LINES = (
    "Standard_ND40rs_v2,V100-32GB,8,40.0,672,V100-32GB,22.032,2.42352,eastus,V2",
    "Standard_NCC40ads_H100_v5,,,40.0,320,,6.98,1.745,eastus2,V2",
    'Standard_NC32ads_A10_v4,,,32.0,400,,4.4,1.1,westus3,"V1,V2"',
    'Standard_NG16ads_V620_v1,,,16.0,32,,1.815,0.45375,eastus2,"V1,V2"',
    "Standard_NP10s,,,10.0,168,,1.65,0.33,eastus,V1",
)


def test_azure_gpu_vms_the_catalog_names_loosely_are_read_with_their_gpu_or_left_out_with_why(
    tmp_path: Path,
) -> None:
    f = tmp_path / "vms.csv"
    f.write_text("\n".join([HEADER, *LINES]) + "\n", encoding="utf-8")
    parsed = parse_skypilot(f, "azure", as_of="2026-11-30")
    got = {(r.instance_type, r.gpu, r.gpu_count) for r in parsed.rows}
    # ND40rs_v2: "8 GPUs, NVIDIA V100 (NVLink) 32 GiB" (it was "unknown GPU 'V100-32GB'");
    # NCC40ads_H100_v5: "1 GPU, Nvidia H100 GPU (94GB)" (it was "no accelerator")
    assert got == {("Standard_ND40rs_v2", "V100-SXM2-32GB", 8), ("Standard_NCC40ads_H100_v5", "H100-NVL", 1)}
    [caveat] = parsed.caveats
    assert caveat.line == 3 and caveat.reason.startswith("AcceleratorName empty in the source; 1 H100-NVL")
    skipped = {r.line: r.reason for r in parsed.rejected}
    assert all(r.skipped for r in parsed.rejected)
    # an A10 v4 size is never costed as a whole A10 (its GPU, a fraction or one or two, is not known)
    assert skipped[4].startswith("GPU not stated by the source nor by Microsoft's size pages"), skipped
    assert "AMD Radeon PRO V620" in skipped[5], skipped
    assert skipped[6] == "no accelerator (not a GPU instance)"  # NP: an FPGA VM
