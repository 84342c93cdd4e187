"""NCCL all-reduce timing across the local GPUs: one process per GPU, as DDP runs.

Processes are started with the ``spawn`` method (CUDA cannot be used in forked children) and meet
through a file in a temporary directory, so no port and no environment variable is needed. Rank 0
times ``repeats`` all-reduces with CUDA events after a barrier and sends the median back.
"""

from __future__ import annotations

import importlib
import statistics
import tempfile
from datetime import timedelta
from pathlib import Path
from typing import Any

from gpuplan.errors import GpuplanError
from gpuplan.i18n import N_

__all__ = ["measure_allreduce"]

#: How long NCCL may take to form the group before the bench gives up, rather than hang.
_INIT_TIMEOUT = timedelta(seconds=120)


def _worker(
    rank: int, world_size: int, init_file: str, nbytes: int, warmup: int, repeats: int, queue: Any
) -> None:
    torch = importlib.import_module("torch")
    dist = importlib.import_module("torch.distributed")
    torch.cuda.set_device(rank)
    dist.init_process_group(
        "nccl",
        init_method=f"file://{init_file}",
        rank=rank,
        world_size=world_size,
        timeout=_INIT_TIMEOUT,
        device_id=torch.device("cuda", rank),
    )
    try:
        buf = torch.ones(nbytes // 4, dtype=torch.float32, device="cuda")
        for _warm in range(warmup):
            dist.all_reduce(buf)
        torch.cuda.synchronize()
        samples = []
        for _rep in range(repeats):
            dist.barrier()
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            dist.all_reduce(buf)
            end.record()
            end.synchronize()
            samples.append(start.elapsed_time(end) / 1000.0)  # ms -> s
        if rank == 0:
            queue.put(statistics.median(samples))
    finally:
        dist.destroy_process_group()


def measure_allreduce(*, world_size: int, nbytes: int, warmup: int, repeats: int) -> float:
    """Median seconds of one all-reduce of ``nbytes`` per GPU over ``world_size`` local GPUs."""
    mp = importlib.import_module("torch.multiprocessing")
    ctx = mp.get_context("spawn")
    queue = ctx.SimpleQueue()
    with tempfile.TemporaryDirectory(prefix="gpuplan-allreduce-") as tmp:
        init_file = str(Path(tmp) / "rendezvous")
        try:
            mp.start_processes(
                _worker,
                args=(world_size, init_file, nbytes, warmup, repeats, queue),
                nprocs=world_size,
                join=True,
                start_method="spawn",
            )
        except Exception as e:  # ProcessRaisedException carries the worker's traceback text
            first_line = str(e).splitlines()[0] if str(e) else ""
            raise GpuplanError.worded(
                N_(
                    "the all-reduce benchmark failed: {error}; run `gpuplan doctor` and retry with "
                    "NCCL_DEBUG=INFO"
                ),
                error=first_line,
            ) from e
    if queue.empty():
        raise GpuplanError.worded(
            N_("the all-reduce benchmark returned no timing; retry with NCCL_DEBUG=INFO")
        )
    return float(queue.get())
