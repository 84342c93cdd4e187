"""gpus.csv ``memory_gib`` is the physical capacity; usable memory is derived once (no double count)."""

from __future__ import annotations

import pytest

from gpuplan.hardware import get_gpu
from gpuplan.perf.memory import CONTEXT_GIB, usable_memory_gib

MIB_PER_GIB = 1024
#: nvidia-smi's total for an NVIDIA L4 (ECC on): "0MiB / 23034MiB" in the public nvidia-smi outputs
#: of L4 machines found by code search on 2026-12-01 (several repositories, GCE g2 and others).
L4_NVIDIA_SMI_MIB = 23034


def test_l4_and_a10g_are_stored_as_their_physical_24_gib() -> None:
    assert get_gpu("L4").memory_gib == 24
    assert get_gpu("A10G").memory_gib == 24


def test_usable_memory_of_an_l4_is_nvidia_smis_total_within_the_cuda_context() -> None:
    usable_mib = usable_memory_gib(get_gpu("L4")) * MIB_PER_GIB
    # 24 GiB x 15/16 (ECC reserve) = 22.5 GiB = 23040 MiB; nvidia-smi reports 23034 MiB (6 MiB apart).
    assert usable_mib == pytest.approx(23040)
    context_low_mib = CONTEXT_GIB["Ada Lovelace"][0] * MIB_PER_GIB  # 0.30 GiB = 307 MiB
    # A double count (22.4 GiB in the table, then 1/16 off again: 21.0 GiB = 21504 MiB) would be
    # 1530 MiB below nvidia-smi and fail here.
    assert abs(usable_mib - L4_NVIDIA_SMI_MIB) <= context_low_mib
