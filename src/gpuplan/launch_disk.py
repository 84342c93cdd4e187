"""The disk each node is launched with for what it stores: one rule for the command that asks for it
and the one that prices it.

``deploy`` asks for it in the launch files (SkyPilot's ``disk_size``: ``deploy/spec.py``
``launch_disk_gb``), and ``plan`` (for ``tco`` too) prices it as each node's block storage
(``JobFacts.launch_disk_gb``): the bytes stored (the dataset, the checkpoints kept, any model
weights) with the filesystem's headroom and room for the OS and the image, in whole steps, at least
SkyPilot's default. The disk billed is the one launched, not the bytes on it, so both read this
rule; a room of its own below both, so that plan does not import deploy's launch files.
"""

from __future__ import annotations

import math

__all__ = [
    "DEFAULT_DISK_GB",
    "DISK_HEADROOM",
    "DISK_STEP_GB",
    "MAX_DISK_GB",
    "SYSTEM_DISK_GB",
    "disk_need_gb",
]

#: Room on a volume beyond the bytes it is sized for, as a share of them: the filesystem's own
#: (ext4 keeps 5 % of its blocks for root by default: mke2fs(8), ``-m``) and a checkpoint somewhat
#: larger than the plan's estimate (pickled metadata, RNG states). The checkpoint volume
#: (``gpuplan.deploy.checkpoints``) and the launch disk both take it.
DISK_HEADROOM = 0.15
#: The launch disk per node without a plan's storage to size it from, GB, and its floor with one:
#: room for the OS, the image, a small dataset and a few checkpoints. SkyPilot's own default
#: ``disk_size`` (``DEFAULT_DISK_SIZE_GB`` in sky/resources.py,
#: https://docs.skypilot.co/en/latest/_modules/sky/resources.html, read 2026-12-06).
DEFAULT_DISK_GB = 256
#: Room on a node's disk beside what the plan stores there, GB: the OS and the container image
#: (an allowance, not a measurement; NVIDIA's PyTorch images unpack to some tens of GB).
SYSTEM_DISK_GB = 64
#: A launch disk is asked for in whole steps of this many GB.
DISK_STEP_GB = 64
#: The largest disk a plan may ask for, GB (64 TiB, beyond any single cloud block volume a GPU
#: node boots with): a plan from elsewhere is bounded, and deploy refuses a larger need.
MAX_DISK_GB = 65_536


def disk_need_gb(stored_gb: float) -> int:
    """The launch disk of a node that stores ``stored_gb`` (the dataset, the checkpoints kept, any
    model weights; 0: nothing of the plan's), GB: those with :data:`DISK_HEADROOM` and
    :data:`SYSTEM_DISK_GB` for the OS and the image, up to a whole :data:`DISK_STEP_GB`, at least
    :data:`DEFAULT_DISK_GB`. Not capped: beyond :data:`MAX_DISK_GB` deploy refuses it
    (``deploy.spec.launch_disk_gb``), and a plan prices the need as it is."""
    need = stored_gb * (1.0 + DISK_HEADROOM) + SYSTEM_DISK_GB
    return max(DEFAULT_DISK_GB, DISK_STEP_GB * math.ceil(need / DISK_STEP_GB))
