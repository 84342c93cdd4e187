"""Map the names NVML and PyTorch report (``NVIDIA H100 80GB HBM3``) to gpuplan's datasheet GPUs.

Driver names differ from marketing names and from gpuplan's aliases, and one name can cover two
parts (an H100 SXM reports "NVIDIA H100 80GB HBM3"). An explicit table handles the names that
``resolve_gpu`` cannot; everything else goes through ``resolve_gpu``, with the memory size to settle
an ambiguous match. A name nothing matches gives ``None`` (no datasheet), never a guess.
"""

from __future__ import annotations

import re

from gpuplan.errors import AmbiguousNameError, NotFoundError
from gpuplan.hardware import GPU, all_gpus, get_gpu, gpu_by_driver_name, resolve_gpu

__all__ = ["identify_gpu"]


_GIB = 1024**3
#: A MIG device reports its parent's name plus the profile: "NVIDIA A100-SXM4-40GB MIG 1g.5gb".
_MIG_SUFFIX = re.compile(r"\s+MIG\s+\S+$", re.IGNORECASE)


def _fits(gpu: GPU, memory_bytes: int) -> bool:
    # The driver reports usable memory, a little below the datasheet figure (80 GB part: 79.6 GiB).
    return abs(gpu.memory_gib - memory_bytes / _GIB) <= 0.1 * gpu.memory_gib


def identify_gpu(name: str, *, memory_bytes: int | None = None) -> GPU | None:
    """The datasheet GPU for a driver-reported ``name``; ``memory_bytes`` settles or vetoes a match.

    Returns None for a GPU not in the table (or a vGPU profile name such as ``GRID A100-4C``), for a
    name that stays ambiguous, and for a match whose memory contradicts the device's.
    """
    base = _MIG_SUFFIX.sub("", name.strip())
    if base != name.strip():
        memory_bytes = None  # a MIG instance has a slice of its parent's memory, not a different part
    # Names the driver reports that the ids and aliases do not resolve: gpus.csv driver_names.
    known = gpu_by_driver_name(base)
    try:
        gpu = known if known is not None else resolve_gpu(base)
    except AmbiguousNameError as e:
        if memory_bytes is None:
            return None
        near = [g for g in (get_gpu(c) for c in e.choices) if _fits(g, memory_bytes)]
        return near[0] if len(near) == 1 else None
    except NotFoundError:
        return None
    if memory_bytes is None or _fits(gpu, memory_bytes):
        return gpu
    # The name matched a sibling with other memory ("V100 PCIe" is the 16 GB alias; a 32 GB card says
    # so by its memory): take the one part of the same architecture and form factor that fits.
    siblings = [
        g
        for g in all_gpus()
        if g.architecture == gpu.architecture and g.form_factor == gpu.form_factor and _fits(g, memory_bytes)
    ]
    return siblings[0] if len(siblings) == 1 else None
