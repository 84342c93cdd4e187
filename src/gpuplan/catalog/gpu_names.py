"""How providers and catalogs name GPUs, mapped to canonical ids of :mod:`gpuplan.hardware`.

Explicit tables, not substring matching: a name missing here is reported, never guessed.
"""

from __future__ import annotations

__all__ = [
    "SKYPILOT_ACCELERATORS",
    "SKYPILOT_MARKET_FAMILIES",
    "SKYPILOT_MARKET_GPUS",
    "SKYPILOT_MARKET_UNMAPPED",
    "SNAPSHOT_GPU_NAMES",
    "SNAPSHOT_GPU_OVERRIDES",
    "UNMAPPED_GPU_NAMES",
    "market_gpu",
]

#: GPU names as the snapshot's instance table writes them -> canonical hardware id.
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
    "A800-SXM4-80GB": "A800-SXM4-80GB",
}

#: Per-instance exceptions to SNAPSHOT_GPU_NAMES, where the family decides the variant.
SNAPSHOT_GPU_OVERRIDES: dict[tuple[str, str], str] = {
    # Azure NCv3 carries PCIe V100 16 GB cards (no NVLink), unlike AWS p3's SXM2 parts.
    ("azure", "Standard_NC6s_v3"): "V100-PCIE-16GB",
}

#: Names in instance_types.csv that are deliberately not mapped, with the reason the builder prints.
UNMAPPED_GPU_NAMES: dict[str, str] = {
    "A800 80GB": "A800 variant not determinable (a veMLP flavor; SXM4 vs PCIe not stated)",
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
        # p3dn as SkyPilot's AWS v8 file names it (AcceleratorName V100-32GB, GpuInfo 32768 MiB),
        # github.com/skypilot-org/skypilot-catalog catalogs/v8/aws/vms.csv, read 2026-12-04
        "V100-32GB": "V100-SXM2-32GB",
        "A100@40960": "A100-SXM4-40GB",  # p4d
        "A100-80GB@81920": "A100-SXM4-80GB",  # p4de
        "H100": "H100-SXM",  # p5
        "H200": "H200-SXM",  # p5e/p5en
        "B200": "B200",  # p6-b200
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
        "B200": "B200",  # a4-highgpu
    },
    "azure": {
        "T4": "T4",
        "A10": "A10",
        "V100": "V100-PCIE-16GB",  # NCv3: PCIe V100 16 GB
        # ND40rs_v2: "8 GPUs, NVIDIA V100 (NVLink) 32 GiB" (Microsoft Learn, NDv2-series specs,
        # MicrosoftDocs/azure-docs articles/virtual-machines/sizes/gpu-accelerated/includes/
        # ndv2-series-specs.md, ms.date 2024-04-18, read 2026-12-06): the NVLink part is SXM2
        "V100-32GB": "V100-SXM2-32GB",
        "A100": "A100-SXM4-40GB",  # ND96asr_v4
        "A100-80GB": "A100-PCIE-80GB",  # NC A100 v4 (ND96amsr is SXM4: known instance types win)
        "H100": "H100-NVL",  # NC H100 v5 are H100 NVL 94 GB (ND H100 v5 via the known instance type)
        "H200": "H200-SXM",
        "MI300X": "MI300X",
    },
}

#: SkyPilot marketplace accelerator names (upper case, without ``-``, ``_`` and spaces) -> the GPU
#: family and what the name itself fixes: ``(family, form factor or None, GB or None)``. The family
#: picks the hardware id in :func:`market_gpu` from the form factor and memory the row states.
SKYPILOT_MARKET_FAMILIES: dict[str, tuple[str, str | None, int | None]] = {
    "H100": ("H100", None, None),
    "H100SXM": ("H100", "sxm", None),
    "H10080GSXM5": ("H100", "sxm", None),
    "H10080GPCIE": ("H100", "pcie", None),
    "H10080GPCIENVLINK": ("H100", "pcie", None),  # PCIe cards joined by NVLink bridges
    "H200": ("H200", None, None),
    "A100": ("A100", None, None),
    "A10080GB": ("A100", None, 80),
    "A10080G": ("A100", None, 80),  # Alibaba Cloud's GPUSpec ("A100 80G")
    "A10040G": ("A100", None, 40),
    "A10080GPCIE": ("A100", "pcie", 80),
    "A10080GPCIENVLINK": ("A100", "pcie", 80),
    "A800": ("A800", None, None),  # the China-market A100 (NVLink cut to 400 GB/s)
    "A80040G": ("A800", None, 40),  # Alibaba ebmgn7v ("A800 40G"): refused, no 40 GB A800 row
    "V100": ("V100", None, 16),
    "V10032GB": ("V100", None, 32),
}
#: Marketplace names that decide the part alone.
SKYPILOT_MARKET_GPUS: dict[str, str] = {
    "T4": "T4",
    "P4": "P4",
    "A10": "A10",
    "L4": "L4",
    "L40S": "L40S",
    "B200": "B200",
    "MI300X": "MI300X",
    "RTX4090": "RTX-4090",
    "RTX3090": "RTX-3090",
    "P100": "P100-PCIE-16GB",  # the 16 GB PCIe card is the P100 the clouds rent
    "A40": "A40",
    "A6000": "RTX-A6000",  # Lambda, Shadeform, Prime Intellect: the RTX A6000 48 GB
    "RTXA6000": "RTX-A6000",
    "L40": "L40",
    "RTX5090": "RTX-5090",
    "L20": "L20",  # Alibaba gn8is/gn8ia/ebmgn8is ("L20 48GB"): one part, the 48 GB PCIe card
}
_PRO_6000 = (
    "RTX PRO 6000 Blackwell (server and workstation editions): no datasheet row; NVIDIA's published "
    "tensor figures (with sparsity, FP4) do not give the dense FP16/BF16 rate with FP32 accumulate the "
    "estimator needs"
)
_RTX_6000_ADA = (
    "RTX 6000 Ada: no datasheet row; the datasheet read gives tensor figures with sparsity only, not the "
    "dense FP16/BF16 rate with FP32 accumulate the estimator needs"
)
#: Marketplace GPU names deliberately not mapped, with the reason the builder lists them under.
SKYPILOT_MARKET_UNMAPPED: dict[str, str] = {
    "GAUDI2": "Intel Gaudi 2 is not a CUDA GPU; gpuplan estimates PyTorch on NVIDIA and AMD GPUs",
    "GB200": "a GB200 superchip pairs a Grace CPU with two B200 GPUs; gpuplan has no per-GPU figures for it",
    "GB300": "a GB300 superchip pairs a Grace CPU with two B300 GPUs; gpuplan has no per-GPU figures for it",
    "A16": "an A16 board carries four small GPUs; gpuplan has no datasheet row for it",
    "M4000": "Quadro M4000 (Maxwell, 2015): too old for gpuplan's PyTorch estimates",
    "P4000": "Quadro P4000 (Pascal workstation card): no datasheet row in gpuplan's hardware catalog",
    "RTX6000": "Lambda's 'RTX6000' is the Quadro RTX 6000 (Turing, 24 GB): no datasheet row in gpuplan's "
    "hardware catalog",
    "B300": "B300: no datasheet row yet; NVIDIA publishes its figures per HGX B300 system (with sparsity, "
    "FP4), and dense per-GPU FP16/BF16 peaks were not confirmed from a primary source",
    "GH200": "GH200: the superchip's GPU (an H100 with 96 GB HBM3 sharing memory with a Grace CPU) has no "
    "datasheet row; gpuplan does not model the shared CPU memory",
    "MI355X": "AMD Instinct MI355X: no datasheet row in gpuplan's hardware catalog",
    "RTXPRO6000": _PRO_6000,
    "RTXPRO6000S": _PRO_6000,
    "RTXPRO6000WK": _PRO_6000,
    "RTXPRO600096GB": _PRO_6000,
    "RTXPROSERVER6000": _PRO_6000,
    "RTX6000ADA": _RTX_6000_ADA,
    "H": "Alibaba gn8v/ebmgn8v as the SkyPilot-format catalog writes them ('H 96GB'): a 96 GB Hopper "
    "part, very probably the H20, but no source read names the part; not mapped without one",
}
_NO_DATASHEET = "no datasheet row for this GPU in gpuplan's hardware catalog (hardware/data/gpus.csv)"


#: Why an A800 row not stated as 80 GB is left out (the 40 GB A800 is another card, with no row).
_A800_NOT_80GB = "an A800 not stated as 80 GB: gpuplan's hardware catalog has the 80 GB A800 parts only"


def _form(hint: str) -> str | None:
    """The form factor a row's names state: ``sxm``, ``nvl`` (H100/H200 NVL, not NVLink), ``pcie``."""
    import re

    if "sxm" in hint:
        return "sxm"
    if re.search(r"nvl(?!ink)", hint):
        return "nvl"
    if "pci" in hint:
        return "pcie"
    return None


def _memory_gb(
    hint: str, fixed: int | None, mib: int | None, count: float, sizes: tuple[int, int]
) -> int | None:
    """The family's memory size (A100: 40/80 GB, V100: 16/32 GB): the name's, else the row's text,
    else GpuInfo (whose ``SizeInMiB`` some files give per GPU and others for all GPUs)."""
    import re

    if fixed is not None:
        return fixed
    m = re.search(rf"(?<![\dv])({sizes[0]}|{sizes[1]})\s?g", hint)  # "80gb", "_80G"; not "16v32gb"
    if m and not re.search(r"\dv" + m[1], hint):
        return int(m[1])
    for value in (mib / count if mib and count else None, mib):
        if value is not None:
            for gb in sizes:
                if abs(value - gb * 1024) <= 0.06 * gb * 1024:
                    return gb
    return None


def market_gpu(
    accelerator: str, hint: str, mib: int | None = None, count: float = 1.0
) -> tuple[str | None, str]:
    """(hardware id or None, note) of a marketplace row's GPU: ``accelerator`` is SkyPilot's
    AcceleratorName; ``hint`` the row's other names (instance type, upstream type, GpuInfo name).

    Where the row does not say the form factor (an ``H100`` that may be SXM or PCIe), the slower
    part is taken — the PCIe card, the H200 NVL, the 40 GB A100 when the memory is not stated — and
    the note says so: an estimate must not be optimistic because a fact is missing. None: the GPU is
    not in the hardware catalog, and the note says why.
    """
    key = "".join(ch for ch in accelerator.upper() if ch.isalnum())
    if key in SKYPILOT_MARKET_GPUS:
        return SKYPILOT_MARKET_GPUS[key], ""
    if key not in SKYPILOT_MARKET_FAMILIES:
        return None, SKYPILOT_MARKET_UNMAPPED.get(key, _NO_DATASHEET)
    family, fixed_form, fixed_gb = SKYPILOT_MARKET_FAMILIES[key]
    text = hint.lower()
    form = fixed_form or _form(text)
    assumed = "" if form else "form factor not stated: the slower {part} assumed"
    if family == "H100":
        gpu = {"sxm": "H100-SXM", "nvl": "H100-NVL"}.get(form or "", "H100-PCIE")
    elif family == "H200":
        gpu = "H200-SXM" if form == "sxm" else "H200-NVL"
    elif family == "A100":
        gb = _memory_gb(text, fixed_gb, mib, count, (40, 80))
        if gb is None:
            assumed = (assumed + "; " if assumed else "") + "memory not stated: the 40 GB part assumed"
            gb = 40
        gpu = f"A100-{'SXM4' if form == 'sxm' else 'PCIE'}-{gb}GB"
    elif family == "A800":
        if _memory_gb(text, fixed_gb, mib, count, (40, 80)) != 80:
            return None, _A800_NOT_80GB
        gpu = "A800-SXM4-80GB" if form == "sxm" else "A800-PCIE-80GB"
    else:  # V100
        gb = _memory_gb(text, fixed_gb, mib, count, (16, 32)) or 16
        gpu = f"V100-{'SXM2' if form == 'sxm' else 'PCIE'}-{gb}GB"
    return gpu, assumed.format(part=gpu)
