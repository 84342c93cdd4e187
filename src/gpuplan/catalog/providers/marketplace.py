"""GPU names as the marketplaces write them (Lambda, RunPod, Vast.ai), mapped to hardware ids.

Explicit tables, not substring matching: a name missing here is reported by the fetcher, never guessed.
"""

from __future__ import annotations

__all__ = ["MARKETPLACE_GPUS", "marketplace_gpu"]

#: Lower-cased marketplace GPU names -> canonical hardware id. The memory size decides A100 variants.
MARKETPLACE_GPUS: dict[str, str] = {
    "h100 sxm": "H100-SXM",
    "h100 sxm5": "H100-SXM",
    "h100 80gb hbm3": "H100-SXM",
    "h100 pcie": "H100-PCIE",
    "h100 nvl": "H100-NVL",
    "h200": "H200-SXM",
    "h200 sxm": "H200-SXM",
    "h200 nvl": "H200-NVL",
    "b200": "B200",
    "a100 sxm4 40gb": "A100-SXM4-40GB",
    "a100 sxm4 80gb": "A100-SXM4-80GB",
    "a100 sxm 80gb": "A100-SXM4-80GB",
    "a100 80gb sxm": "A100-SXM4-80GB",
    "a100 pcie 40gb": "A100-PCIE-40GB",
    "a100 pcie 80gb": "A100-PCIE-80GB",
    "a100 80gb pcie": "A100-PCIE-80GB",
    "a10": "A10",
    "l40s": "L40S",
    "l4": "L4",
    "t4": "T4",
    "tesla t4": "T4",
    "v100 16gb": "V100-SXM2-16GB",
    "v100 32gb": "V100-SXM2-32GB",
    "a100 40gb": "A100-SXM4-40GB",
    "a100 80gb": "A100-SXM4-80GB",
    "a100-80gb": "A100-SXM4-80GB",
    "h100 80gb": "H100-SXM",
    "tesla v100": "V100-SXM2-16GB",
    "rtx 4090": "RTX-4090",
    "geforce rtx 4090": "RTX-4090",
    "rtx 3090": "RTX-3090",
    "geforce rtx 3090": "RTX-3090",
    "mi300x": "MI300X",
}


def marketplace_gpu(name: str, memory_gb: float | None = None) -> str | None:
    """Hardware id of a marketplace GPU name ('A100 SXM4' + 80 GB -> A100-SXM4-80GB), or None."""
    key = " ".join(name.lower().replace("_", " ").replace("-", " ").split())
    if key in MARKETPLACE_GPUS:
        return MARKETPLACE_GPUS[key]
    if memory_gb is not None:
        # The memory size tells A100 40/80 GB and V100 16/32 GB apart.
        if memory_gb > 60:
            size = "80gb"
        elif memory_gb > 30:
            size = "40gb"
        elif memory_gb > 20:
            size = "32gb"
        else:
            size = "16gb"
        if f"{key} {size}" in MARKETPLACE_GPUS:
            return MARKETPLACE_GPUS[f"{key} {size}"]
    return None
