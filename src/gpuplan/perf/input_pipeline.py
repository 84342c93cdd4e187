"""The CPU input pipeline of an image workload: how many images per second the host's vCPUs feed.

An image job decodes each JPEG and augments it (random-resized crop, flip, normalise) on the CPU
in DataLoader workers before the GPU sees it. When the instance has too few vCPUs per GPU the
GPUs wait for data: samples/s is bounded by ``vCPUs × images/s per vCPU``. Text and token
workloads read pre-tokenised arrays and are not bounded here.

The rate per vCPU is an ASSUMPTION with a range (no calibration row measures it; the
DeepLearningExamples ResNet-50 training rows are bounded by it on their DGX hosts,
``calibration/cases.py``):

- "A single core decodes 50–200 images per second depending on resolution" (JPEG decode only):
  https://www.systemoverflow.com/learn/ml-cv-systems/image-preprocessing/production-data-pipeline-design-and-throughput
  (read 2026-12-01).
- 955 images/s from 8 PyTorch DataLoader workers on a Ryzen 9 9950X3D, decoding 1024×1024 JPEGs
  and resizing to 224×224 with flip, rotation and colour jitter: 955 / 8 ≈ 119 images/s per
  worker (one worker ≈ one core): https://isztld.com/posts/gpu-preprocessing.html (read 2026-12-01).

- At least 154 images/s per DataLoader worker process with a physical core to itself: NVIDIA's
  ResNet-50 AMP training reached 2,470 images/s on one A100 of a DGX A100 with ``data_backend:
  pytorch`` and 16 workers per GPU — the configs.yml of the commit that published that table
  (NVIDIA/DeepLearningExamples@7bdfc81d, 2021-04-20: ``DGXA100: workers: 16``; the 10 of later
  revisions came after it), with no CPU affinity (``gpu_affinity`` arrived on 2021-11-22,
  @0fadac23): 16 workers on a host of 128 cores (2 × AMD EPYC 7742, 64 cores each:
  mlcommons/training_results_v0.7@c6640611 NVIDIA/systems/dgxa100_ngc20.06_pytorch.json), read
  2026-12-02.

A cloud vCPU is one hyperthread (half a physical core on most x86 instances), and ImageNet's
JPEGs average about 400×350 px (smaller than that benchmark's): both taken together, 100 images/s
per vCPU is the point, 50–250 the range (the high end an ASSUMPTION above every figure read: it
once stood on a DGX A100 figure of 247 images/s per worker that counted 10 workers where the run
had 16). That rate is a hyperthread's on a busy core: "an application running on one logical
processor of a busy core can expect slightly more than half of the throughput that it obtains
while running alone" (VMware, vSphere 4.1 Resource Management,
"Hyperthreading", pubs.vmware.com, read 2026-12-02), and two threads on one core run "25 % or
more" faster than one (Tom's Hardware, "Hyper-Threading Technology", 2013-10-31, read
2026-12-02). So a DataLoader worker — one single-threaded process — that has a physical core to
itself decodes :data:`ALONE_ON_CORE` = 2 / 1.25 = 1.6 × the rate of a vCPU, 160 images/s at the
point (the DGX A100 figure above: at least 154). A workload's ``stack.loader_workers`` fill the
host's physical cores (:data:`THREADS_PER_CORE` vCPUs each) one worker per core first, then two:
all the job's GPUs on a node share its cores, so 8 GPUs × 8 workers on a DGX-1's 40 cores (2 ×
Xeon E5-2698 v4) leave 24 cores running two workers and 16 running one: 24 × 200 + 16 × 160 =
7,360 images/s for the node, where one GPU's 8 workers alone take 8 × 160 = 1,280.

The host's RAM bounds the pipeline too. Every epoch touches the whole dataset (a distributed
sampler reshuffles it across nodes each epoch), so each node needs all of it: when the host's page
cache can hold it, epochs after the first read it from memory; when it cannot, every sample is read
from the instance's disk again, and samples/s is bounded by ``disk GB/s ÷ bytes per sample``. The
disk rate is the planner's storage assumption (:data:`STORAGE_READ_GBPS`); the share of RAM the page
cache may use is :data:`PAGE_CACHE_SHARE`. Both are ASSUMPTIONS, labelled wherever they bind.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from gpuplan.errors import EstimateError
from gpuplan.i18n import N_, _
from gpuplan.units import ASSUMED_DISK_GBPS

if TYPE_CHECKING:
    from gpuplan.perf.typical_host import TypicalHost

__all__ = [
    "ALONE_ON_CORE",
    "IMAGES_PER_S_PER_VCPU",
    "IMAGES_PER_S_PER_VCPU_HIGH",
    "IMAGES_PER_S_PER_VCPU_LOW",
    "PAGE_CACHE_SHARE",
    "STORAGE_READ_GBPS",
    "THREADS_PER_CORE",
    "DatasetReads",
    "Host",
    "HostInput",
    "InputPipeline",
    "dataset_reads",
    "image_input_pipeline",
    "input_pipeline",
    "typical_input_pipeline",
    "typical_reads",
]

#: JPEG decode + random-resized crop + flip per vCPU, images/s (ASSUMPTION; sources above).
IMAGES_PER_S_PER_VCPU = 100.0
IMAGES_PER_S_PER_VCPU_LOW = 50.0
IMAGES_PER_S_PER_VCPU_HIGH = 250.0
#: Hardware threads (vCPUs) per physical core: two on SMT x86 hosts (ASSUMPTION where the host does
#: not say; a cloud vCPU is one hyperthread).
THREADS_PER_CORE = 2
#: A worker process alone on a physical core decodes this many times a busy hyperthread's rate:
#: 2 / 1.25 (two threads on one core run about 25 % faster than one; sources above).
ALONE_ON_CORE = 2.0 / 1.25

#: Read bandwidth of the instance's disk that holds the dataset, GB/s. ASSUMPTION: the planner's
#: storage bandwidth (``plan.input_types.JobFacts.checkpoint_write_gbps``), the EBS gp3 baseline of
#: 125 MiB/s (:data:`gpuplan.units.ASSUMED_DISK_GBPS`), the conservative bound where it is not known.
STORAGE_READ_GBPS = ASSUMED_DISK_GBPS
#: Share of the host's RAM the page cache may hold the dataset in. ASSUMPTION: 0.8 — the rest for
#: the training processes and their DataLoader workers.
PAGE_CACHE_SHARE = 0.8
_GB_PER_GIB = 1.073741824


@dataclass(frozen=True, kw_only=True)
class Host:
    """The instance whose CPUs, RAM and disk feed its GPUs; None fields are unknown."""

    gpus: float
    """GPUs of the instance."""
    vcpus: float | None = None
    ram_gib: float | None = None
    vcpus_given: bool = False
    """``vcpus`` is the user's own count (``gpuplan estimate --vcpus``: a machine of their own, which
    no catalog lists), not the catalog's of a named instance."""


@dataclass(frozen=True, kw_only=True)
class DatasetReads:
    """The dataset read again from the instance's disk every epoch: its page cache cannot hold it."""

    dataset_gb: float
    bytes_per_sample: float
    ram_gib: float
    """The host's RAM (the dataset is larger than :data:`PAGE_CACHE_SHARE` of it)."""
    gpus_per_node: float
    """GPUs sharing the node's disk."""

    def samples_per_s(self, gpus: int) -> float:
        """Samples/s the disks of ``gpus`` GPUs' hosts read in all (each node reads from its own)."""
        nodes = gpus / self.gpus_per_node
        return nodes * STORAGE_READ_GBPS * 1e9 / self.bytes_per_sample


@dataclass(frozen=True, kw_only=True)
class InputPipeline:
    """What feeds the GPUs: the host CPUs that decode and augment an image workload's samples, and
    the disk that holds a dataset the page cache cannot (either may be absent: not bounded)."""

    vcpus_per_gpu: float | None = None
    """Decoding processes per GPU: the instance's vCPUs divided by its GPUs (every vCPU a
    DataLoader worker), or fewer where the workload names its ``loader_workers``; None: the decode
    is not bounded (text, or not known)."""
    source: str = "catalog"
    """Where the count comes from: ``catalog`` (the instance's vCPUs), ``workers`` (the
    workload's ``stack.loader_workers``) or ``typical`` (no instance known: a typical instance of
    the GPU in the catalog, :attr:`typical`, which bounds only the slow end of the range)."""
    serial: bool = False
    """``loader_workers: 0``: one process decodes in the training loop, between the GPU's steps."""
    vcpus_given: bool = False
    """The host's vCPUs are the user's count (:attr:`Host.vcpus_given`), not a catalog's."""
    reads: DatasetReads | None = None
    """The dataset re-read from disk each epoch; None when the page cache holds it (or no size)."""
    typical: TypicalHost | None = None
    """Where ``source`` is ``typical``: the catalog's typical instance the count is taken from."""

    @property
    def slow_end_only(self) -> bool:
        """The host is not known (a typical one stands in): it bounds the slow end of the range
        alone, and the point and the fast end keep the GPUs' time (the pipeline keeps up)."""
        return self.source == "typical"

    cores_per_gpu: float | None = None
    """Physical cores of the host per GPU the job runs on it, where the workload's workers are
    fewer than its vCPUs: each worker has a core to itself (:data:`ALONE_ON_CORE` × a vCPU's rate)
    until the cores run out, then two share one. None: not known (each worker at a vCPU's rate)."""

    def __post_init__(self) -> None:
        if self.vcpus_per_gpu is not None and not self.vcpus_per_gpu > 0:
            raise EstimateError.worded(
                N_("vCPUs per GPU must be positive, got {vcpus:g}"), vcpus=self.vcpus_per_gpu
            )

    def decoding_vcpus_per_gpu(self) -> float | None:
        """The decode of one GPU's share in vCPUs at :data:`IMAGES_PER_S_PER_VCPU` each: the
        workers one per core first (each :data:`ALONE_ON_CORE`), then two per core (one vCPU each).
        E.g. 8 workers on 5 cores: 3 cores of two (6) + 2 cores of one (2 × 1.6) = 9.2."""
        workers, cores = self.vcpus_per_gpu, self.cores_per_gpu
        if workers is None or cores is None:
            return workers
        if workers >= THREADS_PER_CORE * cores:
            return THREADS_PER_CORE * cores
        if workers <= cores:
            return workers * ALONE_ON_CORE
        shared = workers - cores  # cores running two workers; the rest run one
        return shared * THREADS_PER_CORE + (cores - shared) * ALONE_ON_CORE

    def samples_per_s(self, gpus: int) -> tuple[float, float, float]:
        """(point, low, high) samples/s the hosts of ``gpus`` GPUs feed in all."""
        per_gpu = self.decoding_vcpus_per_gpu()
        if per_gpu is not None:
            vcpus = per_gpu * gpus
            point, low, high = (
                vcpus * IMAGES_PER_S_PER_VCPU,
                vcpus * IMAGES_PER_S_PER_VCPU_LOW,
                vcpus * IMAGES_PER_S_PER_VCPU_HIGH,
            )
        else:
            point = low = high = math.inf
        if self.reads is not None:
            disk = self.reads.samples_per_s(gpus)
            point, low, high = min(point, disk), min(low, disk), min(high, disk)
        return point, low, high

    def describe(self, gpus: int) -> str:
        parts = []
        per_gpu = self.decoding_vcpus_per_gpu()
        if self.vcpus_per_gpu is not None and per_gpu is not None:
            vcpus = per_gpu * gpus
            figures = dict(
                rate=IMAGES_PER_S_PER_VCPU,
                rate_low=IMAGES_PER_S_PER_VCPU_LOW,
                rate_high=IMAGES_PER_S_PER_VCPU_HIGH,
                gpus=gpus,
                point=vcpus * IMAGES_PER_S_PER_VCPU,
                low=vcpus * IMAGES_PER_S_PER_VCPU_LOW,
                high=vcpus * IMAGES_PER_S_PER_VCPU_HIGH,
            )
            if (t := self.typical) is not None:
                parts.append(
                    _(
                        "{host} × {rate_low:g}–{rate:g} images/s per vCPU (JPEG decode + random-resized "
                        "crop, assumed) × {gpus} GPU = {low:,.0f}–{point:,.0f} images/s"
                    ).format(host=t.describe(), **figures)
                )
            elif self.source == "workers" and self.cores_per_gpu is not None:
                parts.append(
                    _(
                        "{workers:g} DataLoader workers per GPU on {cores:g} physical cores per GPU (one "
                        "worker alone on a core decodes {alone:g} × a vCPU's {rate:g} images/s, two on "
                        "one core a vCPU's each: assumed; range {rate_low:g}–{rate_high:g} per vCPU) × "
                        "{gpus} GPU = {point:,.0f} images/s ({low:,.0f}–{high:,.0f})"
                    ).format(
                        workers=self.vcpus_per_gpu, cores=self.cores_per_gpu, alone=ALONE_ON_CORE, **figures
                    )
                )
            elif self.source == "workers":
                parts.append(
                    _(
                        "{workers:g} DataLoader workers per GPU × {rate:g} images/s each (JPEG decode + "
                        "random-resized crop, assumed; range {rate_low:g}–{rate_high:g}) × {gpus} GPU = "
                        "{point:,.0f} images/s ({low:,.0f}–{high:,.0f})"
                    ).format(workers=self.vcpus_per_gpu, **figures)
                )
            else:
                parts.append(
                    _(
                        "{vcpus:g} vCPUs per GPU × {rate:g} images/s per vCPU (JPEG decode + "
                        "random-resized crop, assumed; range {rate_low:g}–{rate_high:g}) × {gpus} GPU = "
                        "{point:,.0f} images/s ({low:,.0f}–{high:,.0f})"
                    ).format(vcpus=self.vcpus_per_gpu, **figures)
                )
        if (r := self.reads) is not None and self.typical is not None:
            parts.append(
                _(
                    "the dataset ({size:g} GB) does not fit {share:.0%} of a typical instance's {ram:g} GiB "
                    "RAM (the median per GPU of the instance types with {n} × {gpu} in the catalog): re-read "
                    "from disk every epoch at {gbps:g} GB/s per node (assumed) = {rate:,.0f} samples/s"
                ).format(
                    size=r.dataset_gb,
                    share=PAGE_CACHE_SHARE,
                    ram=r.ram_gib,
                    n=self.typical.gpus_per_instance,
                    gpu=self.typical.gpu,
                    gbps=STORAGE_READ_GBPS,
                    rate=r.samples_per_s(gpus),
                )
            )
        elif (r := self.reads) is not None:
            parts.append(
                _(
                    "the dataset ({size:g} GB) does not fit {share:.0%} of the host's {ram:g} GiB RAM: "
                    "re-read from disk every epoch at {gbps:g} GB/s per node (assumed) = {rate:,.0f} "
                    "samples/s"
                ).format(
                    size=r.dataset_gb,
                    share=PAGE_CACHE_SHARE,
                    ram=r.ram_gib,
                    gbps=STORAGE_READ_GBPS,
                    rate=r.samples_per_s(gpus),
                )
            )
        return _("; ").join(parts)


@dataclass(frozen=True, kw_only=True)
class HostInput:
    """What an estimate took an image job's decoding host to be, and what it did to the step."""

    vcpus_per_gpu: float | None
    """Decoding processes per GPU taken (:attr:`InputPipeline.vcpus_per_gpu`); None: only the disk."""
    source: str
    """:attr:`InputPipeline.source`: ``catalog``, ``workers`` or ``typical``."""
    basis: str
    """Where the count comes from, in words (English; the JSON document's)."""
    instance_types: int | None = None
    """``typical``: how many of the catalog's instance types the median is over."""
    typical: TypicalHost | None = None
    """``typical``: the catalog's typical instance that stood in (which instance types, of what)."""
    bounded: bool
    """It made the step time, or (``typical``) the slow end of its range, longer."""
    slow_end_factor: float
    """The slow end of the step's range over the GPUs' own slow end (1.0: not moved)."""
    said: str = ""
    """The row's note on a known host that bounds the step (input-bound, or decoded between steps),
    in the current language; "" where it does not, or a typical host stands in."""
    notes: tuple[str, ...] = ()
    """Every note the host added to the estimate's (``said`` among them), in the current language:
    what the lines under the estimate table say of the host already."""
    rereads: bool = False
    """The dataset does not fit the host's page cache (a typical host's, where ``source`` is
    ``typical``): it is read from disk every epoch."""


def host_input(
    pipe: InputPipeline, bounded: bool, slow_end_factor: float, said: str = "", notes: tuple[str, ...] = ()
) -> HostInput:
    """The summary of ``pipe`` an estimate carries (``bounded``: it lengthened the step or its range;
    ``said``: the note that says how a known host bounds the step; ``notes``: all the host's notes)."""
    if pipe.typical is not None and pipe.vcpus_per_gpu is None:
        basis = pipe.typical.ram_source
    elif pipe.typical is not None:
        basis = pipe.typical.source
        if pipe.reads is not None:
            basis += "; " + pipe.typical.ram_source
    elif pipe.source == "workers":
        basis = "the workload's stack.loader_workers" if not pipe.serial else "stack.loader_workers: 0"
    elif pipe.vcpus_per_gpu is not None:
        basis = "the vCPUs given (--vcpus)" if pipe.vcpus_given else "the named instance's vCPUs"
    else:
        basis = "the instance's disk (the dataset does not fit its page cache)"
    return HostInput(
        vcpus_per_gpu=pipe.vcpus_per_gpu,
        source=pipe.source,
        basis=basis,
        instance_types=pipe.typical.instance_types if pipe.typical is not None else None,
        typical=pipe.typical,
        bounded=bounded,
        slow_end_factor=slow_end_factor,
        said=said,
        notes=notes,
        rereads=pipe.reads is not None,
    )


def dataset_reads(
    dataset_gb: float | None, samples_per_epoch: float | None, epochs: float, host: Host
) -> DatasetReads | None:
    """The disk reads of a dataset the host's page cache cannot hold, or None: no size known, one
    epoch (read once, during set-up's copy), RAM unknown (the caller decides what unknown means), or
    it fits. e.g. ImageNet-1k, 140 GB, on a host of 64 GiB: 140 / 1.0737 = 130 GiB > 0.8 × 64 →
    re-read: 140e9 / 1,281,167 = 109 kB per image, 0.131 GB/s ÷ 109 kB = 1,199 images/s per node."""
    if not dataset_gb or not samples_per_epoch or epochs <= 1 or host.ram_gib is None:
        return None
    if dataset_gb / _GB_PER_GIB <= PAGE_CACHE_SHARE * host.ram_gib:
        return None
    return DatasetReads(
        dataset_gb=dataset_gb,
        bytes_per_sample=dataset_gb * 1e9 / samples_per_epoch,
        ram_gib=host.ram_gib,
        gpus_per_node=host.gpus,
    )


def image_input_pipeline(
    image_size: int | None,
    vcpus: float | None,
    gpus_per_node: float,
    *,
    source: str = "catalog",
    kind: str = "dataloader",
    workers: int | None = None,
) -> InputPipeline | None:
    """The pipeline of an image workload on an instance of ``vcpus`` and ``gpus_per_node`` GPUs.

    ``kind`` is the workload's ``stack.input_pipeline``: only ``dataloader`` decodes on the CPUs
    (``dali`` decodes on the GPU with nvJPEG, ``synthetic`` decodes nothing: neither is bounded
    here). ``workers``: the DataLoader's ``num_workers`` per GPU, at most one per vCPU; 0 decodes in
    the training process, one batch after another with the GPUs' work.

    None when the workload has no images (``image_size`` None), its pipeline is not the CPUs', or
    neither the workers nor the instance's vCPUs are known (then nothing is bounded: unknown is not
    zero).
    """
    if image_size is None or kind != "dataloader" or not gpus_per_node > 0:
        return None
    per_gpu = vcpus / gpus_per_node if vcpus is not None and vcpus > 0 else None
    if workers is not None:
        if workers == 0:
            return InputPipeline(vcpus_per_gpu=1.0, source="workers", serial=True)
        if per_gpu is None:
            return InputPipeline(vcpus_per_gpu=float(workers), source="workers")
        if workers < per_gpu:
            # Fewer workers than vCPUs: each takes a physical core of its own while they last.
            return InputPipeline(
                vcpus_per_gpu=float(workers), source="workers", cores_per_gpu=per_gpu / THREADS_PER_CORE
            )
    if per_gpu is None:
        return None
    return InputPipeline(vcpus_per_gpu=per_gpu, source=source)


def typical_input_pipeline(
    image_size: int | None,
    typical: TypicalHost | None,
    *,
    kind: str = "dataloader",
    workers: int | None = None,
    reads: DatasetReads | None = None,
) -> InputPipeline | None:
    """The pipeline of a workload whose instance is not known, on ``typical`` (the catalog's
    typical instance of its GPU and count, :mod:`gpuplan.perf.typical_host`): it bounds the slow end
    of the range only. Its vCPUs decode an image workload's samples, unless they would bound nothing
    anyway (a GPU-side or synthetic pipeline, the workload's own ``loader_workers``); ``reads``: the
    dataset its RAM's page cache cannot hold (:func:`typical_reads`). None where neither bounds
    anything, or no typical host is known."""
    if typical is None:
        return None
    decodes = image_size is not None and kind == "dataloader" and workers is None
    if not decodes and reads is None:
        return None
    return InputPipeline(
        vcpus_per_gpu=typical.vcpus_per_gpu if decodes else None,
        source="typical",
        typical=typical,
        reads=reads,
    )


def typical_reads(
    dataset_gb: float | None, samples_per_epoch: float | None, epochs: float, typical: TypicalHost | None
) -> DatasetReads | None:
    """:func:`dataset_reads` on ``typical``'s RAM (its median per GPU × its GPUs), where the
    instance's RAM is not known: the conservative end takes a typical host, not the best case (a
    page cache that holds any dataset). None as :func:`dataset_reads`, or without a typical RAM."""
    if typical is None or typical.ram_gib_per_gpu is None:
        return None
    gpus = float(typical.gpus_per_instance)
    host = Host(gpus=gpus, ram_gib=typical.ram_gib_per_gpu * gpus)
    return dataset_reads(dataset_gb, samples_per_epoch, epochs, host)


def input_pipeline(
    image_size: int | None,
    host: Host,
    reads: DatasetReads | None,
    *,
    kind: str = "dataloader",
    workers: int | None = None,
) -> InputPipeline | None:
    """What feeds the GPUs on ``host``: its vCPUs (or the workload's DataLoader workers) for an image
    workload, its disk for a dataset its RAM cannot cache; None when neither bounds anything."""
    decode = image_input_pipeline(image_size, host.vcpus, host.gpus, kind=kind, workers=workers)
    if decode is not None and host.vcpus_given:
        decode = replace(decode, vcpus_given=True)
    if reads is None:
        return decode
    if decode is None:
        return InputPipeline(reads=reads)
    return InputPipeline(
        vcpus_per_gpu=decode.vcpus_per_gpu,
        source=decode.source,
        serial=decode.serial,
        vcpus_given=decode.vcpus_given,
        reads=reads,
    )
