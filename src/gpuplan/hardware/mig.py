"""NVIDIA MIG profiles per GPU: which GPU-instance profiles each GPU offers, their slices and memory.

A GPU in MIG mode has 8 memory slices and 7 compute slices. A GPU-instance profile ``Ng.Mgb``
takes N compute slices and a run of memory slices that must begin at one of its allowed start
indices; two instances may not share a memory slice, and the compute slices used add up to at
most 7. The start indices and sizes are what ``nvidia-smi mig -lgipp`` prints, identical on A100
and H100 (and H200, whose profiles carry the same IDs 19/20/15/14/9/5/0)::

    Profile ID 19 (1g)       Placements: {0,1,2,3,4,5,6}:1
    Profile ID 20 (1g+me)    Placements: {0,1,2,3,4,5,6}:1
    Profile ID 15 (1g, 2/8)  Placements: {0,2,4,6}:2
    Profile ID 14 (2g)       Placements: {0,2,4}:2
    Profile ID  9 (3g)       Placements: {0,4}:4
    Profile ID  5 (4g)       Placement : {0}:4
    Profile ID  0 (7g)       Placement : {0}:8

Sources (read 2026-12-01): NVIDIA Multi-Instance GPU User Guide, "Supported MIG Profiles"
(https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html: profile names,
fractions, instance counts) and "Getting Started with MIG" (the ``-lgipp`` output above, A100 40GB);
the same ``-lgipp`` output recorded on H100 and H100 NVL in public notes. Memory per instance (GiB) is
the ``nvidia-smi mig -lgip`` column where a published output was found (A100 40GB: the guide;
H100 80GB: public ``-lgip`` output; H200: NVIDIA/mig-parted issue #120); A100 80GB uses the H100 80GB
figures (the same 8 × 10 GB split), labelled on the table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gpuplan.errors import InputError, NotFoundError, Phrase
from gpuplan.i18n.messages import N_
from gpuplan.i18n.phrases import listed

__all__ = ["COMPUTE_SLICES", "MEMORY_SLICES", "MigGpu", "MigProfile", "mig_gpu", "mig_gpus"]

MEMORY_SLICES = 8
COMPUTE_SLICES = 7

_STARTS = {
    "1": (0, 1, 2, 3, 4, 5, 6),
    "1w": (0, 2, 4, 6),  # the 1g profile with two memory slices (1g.10gb on A100 40GB, 1g.20gb …)
    "2": (0, 2, 4),
    "3": (0, 4),
    "4": (0,),
    "7": (0,),
}
_SIZE = {"1": 1, "1w": 2, "2": 2, "3": 4, "4": 4, "7": 8}
_COMPUTE = {"1": 1, "1w": 1, "2": 2, "3": 3, "4": 4, "7": 7}
_MAX = {"1": 7, "1w": 4, "2": 3, "3": 2, "4": 1, "7": 1}


@dataclass(frozen=True, kw_only=True)
class MigProfile:
    """One GPU-instance profile of one GPU."""

    name: str
    """As the device plugin names it: ``3g.40gb`` → resource ``nvidia.com/mig-3g.40gb``."""
    compute_slices: int
    memory_slices: int
    memory_gib: float
    starts: tuple[int, ...]
    """Memory-slice indices an instance may begin at."""
    max_instances: int
    media_extensions: bool = False

    @property
    def speed_fraction(self) -> float:
        """Share of the whole GPU's serving speed: min(compute share, memory-bandwidth share).

        LLM decode is bound by memory bandwidth, which MIG partitions with the memory slices;
        compute-bound work follows the SMs. The smaller share is the conservative speed.
        """
        return min(self.compute_slices / COMPUTE_SLICES, self.memory_slices / MEMORY_SLICES)


@dataclass(frozen=True, kw_only=True)
class MigGpu:
    gpu_ids: tuple[str, ...]
    """Canonical ids in the hardware catalog this table applies to."""
    profiles: tuple[MigProfile, ...]
    memory_note: str
    """Where the slice sizes come from: a catalog message, in English (``_()`` it to show it)."""

    def profile(self, name: str) -> MigProfile:
        for p in self.profiles:
            if p.name == name:
                return p
        hint = Phrase(N_("on {gpu}"), gpu=self.gpu_ids[0])
        raise NotFoundError("MIG profile", name, [p.name for p in self.profiles], hint=hint)


def _table(ids: tuple[str, ...], rows: Sequence[tuple[str, str, float]], note: str) -> MigGpu:
    profiles = []
    for name, kind, gib in rows:
        me = name.endswith("+me")
        profiles.append(
            MigProfile(
                name=name,
                compute_slices=_COMPUTE[kind],
                memory_slices=_SIZE[kind],
                memory_gib=gib,
                starts=_STARTS[kind],
                max_instances=1 if me else _MAX[kind],
                media_extensions=me,
            )
        )
    return MigGpu(gpu_ids=ids, profiles=tuple(profiles), memory_note=note)


_H100_80 = (
    ("1g.10gb", "1", 9.75),
    ("1g.10gb+me", "1", 9.75),
    ("1g.20gb", "1w", 19.62),
    ("2g.20gb", "2", 19.62),
    ("3g.40gb", "3", 39.50),
    ("4g.40gb", "4", 39.50),
    ("7g.80gb", "7", 79.25),
)

_TABLES = (
    _table(
        ("A100-SXM4-40GB", "A100-PCIE-40GB"),
        (
            ("1g.5gb", "1", 4.75),
            ("1g.5gb+me", "1", 4.75),
            ("1g.10gb", "1w", 9.75),
            ("2g.10gb", "2", 9.75),
            ("3g.20gb", "3", 19.62),
            ("4g.20gb", "4", 19.62),
            ("7g.40gb", "7", 39.38),
        ),
        N_("nvidia-smi mig -lgip (MIG user guide); 1g.10gb taken equal to 2g.10gb (same two memory slices)"),
    ),
    _table(
        ("A100-SXM4-80GB", "A100-PCIE-80GB"),
        _H100_80,
        N_("H100 80GB's nvidia-smi -lgip figures (same 8 × 10 GB split); not seen on an A100 80GB"),
    ),
    _table(("H100-SXM", "H100-PCIE"), _H100_80, N_("nvidia-smi mig -lgip on an H100 80GB (public output)")),
    _table(
        ("H200-SXM", "H200-NVL"),
        (
            ("1g.18gb", "1", 16.00),
            ("1g.18gb+me", "1", 16.00),
            ("1g.35gb", "1w", 32.25),
            ("2g.35gb", "2", 32.25),
            ("3g.71gb", "3", 69.50),
            ("4g.71gb", "4", 69.50),
            ("7g.141gb", "7", 139.75),
        ),
        N_("nvidia-smi mig -lgip on an H200 (NVIDIA/mig-parted issue #120); 2g.35gb taken equal to 1g.35gb"),
    ),
)


def mig_gpus() -> tuple[MigGpu, ...]:
    return _TABLES


def mig_gpu(gpu_id: str) -> MigGpu:
    """The MIG table of a canonical GPU id; a one-line error for a GPU without one."""
    for t in _TABLES:
        if gpu_id in t.gpu_ids:
            return t
    known = [i for t in _TABLES for i in t.gpu_ids]
    raise InputError.worded(
        N_("{gpu} has no MIG profile table here (MIG tables: {known}); use --sharing time-slice or whole"),
        gpu=gpu_id,
        known=listed(known),
    )
