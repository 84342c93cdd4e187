"""What train.py's checkpoints ask of the machine: the disk that holds them. Sized from the plan's
checkpoint, so that every target says the same figures."""

from __future__ import annotations

import math

from gpuplan.deploy.spec import LaunchSpec
from gpuplan.i18n.messages import _

__all__ = [
    "CHECKPOINTS_ON_DISK",
    "UNKNOWN_DISK_GIB",
    "checkpoint_disk_gib",
    "checkpoint_disk_note",
]

#: Checkpoints in the checkpoint folder at the most, the one being written included: train.py's
#: ``KEEP_CHECKPOINTS`` (it deletes the oldest down to one before each write), and what the plan
#: prices as stored (``gpuplan.plan.input_types.JobFacts.checkpoints_kept``).
CHECKPOINTS_ON_DISK = 2

#: Room on the volume beyond the checkpoints' bytes, as a share of them: the filesystem's own
#: (ext4 keeps 5 % of its blocks for root by default: mke2fs(8), ``-m``) and a checkpoint somewhat
#: larger than the plan's estimate (pickled metadata, RNG states).
DISK_HEADROOM = 0.15

#: The smallest checkpoint volume written, GiB: a small model's checkpoints and the filesystem's own.
MIN_DISK_GIB = 20

#: The checkpoint volume where the checkpoint's size is not known (a workload file, or a plan
#: written before it kept the size): room for two checkpoints of a model that fits one node.
UNKNOWN_DISK_GIB = 200

_GIB = 2**30


def checkpoint_disk_gib(spec: LaunchSpec) -> int:
    """The checkpoint volume, GiB: :data:`CHECKPOINTS_ON_DISK` of the plan's checkpoints plus
    :data:`DISK_HEADROOM`, up to a multiple of 10, at least :data:`MIN_DISK_GIB`;
    :data:`UNKNOWN_DISK_GIB` where the checkpoint's size is not known."""
    if spec.checkpoint_gb is None:
        return UNKNOWN_DISK_GIB
    need = CHECKPOINTS_ON_DISK * spec.checkpoint_gb * 1e9 * (1 + DISK_HEADROOM) / _GIB
    return max(MIN_DISK_GIB, 10 * math.ceil(need / 10))


def checkpoint_disk_note(spec: LaunchSpec) -> str:
    """How big the checkpoint folder's disk must be, in words (a README sentence, or a manifest's
    comment): the plan's checkpoint, how many are on disk at once, and the size with headroom."""
    if spec.checkpoint_gb is None:
        return _(
            "The checkpoint folder's disk must hold {n} checkpoints at once (train.py deletes the oldest "
            "before it writes the next); their size is not known without a plan (deploy the plan file "
            "to have it said)."
        ).format(n=CHECKPOINTS_ON_DISK)
    return _(
        "One checkpoint is {gb} GB (the plan's: fp32 trainable weights + optimizer state + buffers), and "
        "the checkpoint folder holds {n} at once at the most (train.py deletes the oldest before it "
        "writes the next): its disk needs {need} GB free, {gib} GiB with room for the filesystem."
    ).format(
        gb=f"{spec.checkpoint_gb:.2f}",
        n=CHECKPOINTS_ON_DISK,
        need=f"{CHECKPOINTS_ON_DISK * spec.checkpoint_gb:.0f}",
        gib=checkpoint_disk_gib(spec),
    )
