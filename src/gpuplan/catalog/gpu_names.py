"""How providers and catalogs name GPUs, mapped to canonical ids of :mod:`gpuplan.hardware`.

Explicit tables, not substring matching: a name missing here is reported, never guessed.
"""

from __future__ import annotations

__all__ = ["SKYPILOT_ACCELERATORS", "SNAPSHOT_GPU_NAMES", "SNAPSHOT_GPU_OVERRIDES", "UNMAPPED_GPU_NAMES"]

#: GPU names as written in shared/data/instance_types.csv -> canonical hardware id.
#: Memory size and form factor decide the variant; where the source leaves the form factor out,
#: the comment says what the instance family is (an 8-GPU NVLink/NVSwitch box is SXM).
SNAPSHOT_GPU_NAMES: dict[str, str] = {
    "T4": "T4",
    "T4 (graphics)": "T4",
    "A10G": "A10G",
    "A10": "A10",
    "A10 (1/6 GPU)": "A10",  # Azure NV6ads A10 v5: a 1/6 vGPU partition; gpu_count carries the fraction
    "L4": "L4",
    "L40S": "L40S",
    # "V100 16GB" without a form factor: AWS p3 and Alibaba gn6v are SXM2 boxes; the hardware
    # catalog resolves "v100-16gb" to the SXM2 part as well.
    "V100 16GB": "V100-SXM2-16GB",
    "V100 16GB (SXM2/NVLink)": "V100-SXM2-16GB",
    "V100 32GB": "V100-SXM2-32GB",
    "V100 32GB PCIe": "V100-PCIE-32GB",
    "A100 40GB SXM4": "A100-SXM4-40GB",
    "A100 80GB SXM4": "A100-SXM4-80GB",
    "A100 80GB PCIe": "A100-PCIE-80GB",
    # "A100 40GB"/"A100 80GB" without a form factor: GCP a2, Alibaba gn7/gn7e, Tencent GT4, Huawei
    # p3 are SXM4 (NVLink/NVSwitch) families; the hardware catalog resolves "a100-40gb" to SXM4 too.
    "A100 40GB": "A100-SXM4-40GB",
    "A100 80GB": "A100-SXM4-80GB",
    "H100 80GB SXM": "H100-SXM",
    "H100 80GB": "H100-SXM",  # GCP a3-highgpu: H100 SXM (NVLink 4/NVSwitch)
    "H100 NVL 94GB": "H100-NVL",
    "H200 141GB": "H200-SXM",  # AWS p5e/p5en, Azure ND H200 v5, GCP a3-ultragpu: HGX H200 (SXM)
    "AMD MI300X 192GB": "MI300X",
}

#: Per-instance exceptions to SNAPSHOT_GPU_NAMES, where the family decides the variant.
SNAPSHOT_GPU_OVERRIDES: dict[tuple[str, str], str] = {
    # Azure NCv3 carries PCIe V100 16 GB cards (no NVLink), unlike AWS p3's SXM2 parts.
    ("azure", "Standard_NC6s_v3"): "V100-PCIE-16GB",
}

#: Names in instance_types.csv that are deliberately not mapped, with the reason the builder prints.
UNMAPPED_GPU_NAMES: dict[str, str] = {
    "A800-SXM4-80GB": "no A800 in the hardware catalog (China-market A100 variant with a cut NVLink; "
    "its datasheet numbers are not in shared/data/gpu_specs.csv)",
    "A800 80GB": "no A800 in the hardware catalog",
    "A100 (80G per queue comment)": "GPU variant not determinable (A100 80G from a YAML comment; "
    "SXM4 vs PCIe unknown; UNVERIFIED source)",
    "T4 (unverified)": "specification not read (flavor name only; GPU count, vCPU and memory unknown)",
}

#: SkyPilot catalog AcceleratorName -> canonical id, per provider (the same name means different
#: parts on different clouds: Azure's "A100-80GB" NC A100 v4 is PCIe, GCP's a2-ultragpu is SXM4).
#: AWS v8 also carries GpuInfo memory; the memory-qualified key is tried first.
SKYPILOT_ACCELERATORS: dict[str, dict[str, str]] = {
    "aws": {
        "T4": "T4",
        "A10G": "A10G",
        "L4": "L4",
        "L40S": "L40S",
        "V100@16384": "V100-SXM2-16GB",  # p3: SXM2 16 GB
        "V100@32768": "V100-SXM2-32GB",  # p3dn: SXM2 32 GB
        "A100@40960": "A100-SXM4-40GB",  # p4d
        "A100-80GB@81920": "A100-SXM4-80GB",  # p4de
        "H100": "H100-SXM",  # p5
        "H200": "H200-SXM",  # p5e/p5en
    },
    "gcp": {
        "T4": "T4",
        "L4": "L4",
        "V100": "V100-SXM2-16GB",  # GCP's attachable V100 is the 16 GB SXM2 part
        "A100": "A100-SXM4-40GB",
        "A100-80GB": "A100-SXM4-80GB",
        "H100": "H100-SXM",
        "H100-MEGA": "H100-SXM",
        "H200": "H200-SXM",
    },
    "azure": {
        "T4": "T4",
        "A10": "A10",
        "V100": "V100-PCIE-16GB",  # NCv3: PCIe V100 16 GB
        "A100": "A100-SXM4-40GB",  # ND96asr_v4
        "A100-80GB": "A100-PCIE-80GB",  # NC A100 v4 (ND96amsr is SXM4: known instance types win)
        "H100": "H100-NVL",  # NC H100 v5 are H100 NVL 94 GB (ND H100 v5 via the known instance type)
        "H200": "H200-SXM",
        "MI300X": "MI300X",
    },
}
