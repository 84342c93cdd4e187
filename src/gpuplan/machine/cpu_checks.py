"""The doctor's count of CPU threads per GPU: what an image job's DataLoader decodes on.

gpuplan's figures for an image job bound its samples/s by the host's vCPUs (one DataLoader worker
per vCPU at an assumed decode rate, :mod:`gpuplan.perf.input_pipeline`); where no instance is
named, the slow end takes a typical cloud instance of the GPU (:mod:`gpuplan.perf.typical_host`).
A machine of the user's own has no instance type: this check counts its threads, says how they
compare with that typical instance, and how to estimate with them (``gpuplan estimate --vcpus``).
"""

from __future__ import annotations

from gpuplan.i18n import _
from gpuplan.machine.facts import MachineFacts
from gpuplan.machine.findings import Finding, Severity
from gpuplan.machine.gpu_checks import gpus_of
from gpuplan.machine.identify import identify_gpu

__all__ = ["check_cpu_threads"]


def check_cpu_threads(facts: MachineFacts) -> list[Finding]:
    """CPU threads and, with GPUs, threads per GPU; fewer than a typical cloud instance of the same
    GPU has are said so (a factual line: a text job does not decode on them)."""
    threads = facts.cpu_threads
    if threads is None:
        return []
    gpus = gpus_of(facts)
    count = len(gpus) or facts.torch.device_count
    if count < 1:
        message = _("{threads} CPU threads; no GPU seen").format(threads=threads)
        return [Finding(check="cpu_threads", severity=Severity.OK, message=message)]
    per_gpu = threads / count
    ids = {g.id for g in (identify_gpu(x.name, memory_bytes=x.memory_total_bytes) for x in gpus) if g}
    name = next(iter(ids)) if len(ids) == 1 and len(gpus) == count else None
    fix = _(
        "estimate an image job on this machine with its threads: `gpuplan estimate WORKLOAD --gpu "
        "{gpu}:{count} --vcpus {threads}`"
    ).format(gpu=name or "GPU", count=count, threads=threads)
    message = _("{threads} CPU threads for {count} GPUs: {per:g} per GPU").format(
        threads=threads, count=count, per=round(per_gpu, 1)
    )
    typical = _typical_vcpus_per_gpu(name, count) if name else None
    if typical is not None and per_gpu < typical[0]:
        message = _(
            "{threads} CPU threads for {count} GPUs: {per:g} per GPU, fewer than the {typical:g} per GPU of "
            "a typical cloud instance of {size} × {gpu} (the median of {n} instance types), which "
            "`gpuplan estimate` takes without --instance or --vcpus; an image job's DataLoader "
            "decodes on them (about {rate:g} images/s per thread, assumed)"
        ).format(
            threads=threads,
            count=count,
            per=round(per_gpu, 1),
            typical=typical[0],
            size=typical[1],
            gpu=name,
            n=typical[2],
            rate=_images_per_s_per_vcpu(),
        )
    return [Finding(check="cpu_threads", severity=Severity.INFO, message=message, fix=fix)]


def _typical_vcpus_per_gpu(gpu: str, count: int) -> tuple[float, int, int] | None:
    """The vCPUs per GPU of the shipped catalog's typical instance of ``count`` × ``gpu``, its GPUs
    and the instance types it is the median of; None where the catalog has none of that GPU."""
    from gpuplan.perf.typical_host import typical_host  # the shipped catalog: read only with a GPU

    host = typical_host(gpu, count)
    if host is None or not host.own_offers:
        return None
    return host.vcpus_per_gpu, host.gpus_per_instance, host.instance_types


def _images_per_s_per_vcpu() -> float:
    from gpuplan.perf.input_pipeline import IMAGES_PER_S_PER_VCPU

    return IMAGES_PER_S_PER_VCPU
