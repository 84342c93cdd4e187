"""GPU datasheets: the shipped table (``data/gpus.csv``), typed, and name resolution.

Every figure is a *dense* datasheet peak (no structured sparsity). A figure the datasheet does not
give, or a path the GPU does not have (BF16 on Volta, FP8 before Hopper/Ada), is ``None``.
"""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from functools import cache, lru_cache
from importlib import resources

from gpuplan.errors import AmbiguousNameError, DataError, InputError, NotFoundError, Phrase, closest
from gpuplan.i18n import N_

__all__ = [
    "DEFAULT_PLANNED_GPUS",
    "GPU",
    "MAX_GPU_COUNT",
    "MAX_GPU_MEMORY_GIB",
    "MAX_NETWORK_GBIT_S",
    "MAX_PLANNED_GPUS",
    "MAX_PLANNED_NODES",
    "MIN_NETWORK_GBIT_S",
    "achievable_matmul_fraction",
    "all_gpus",
    "architecture_measured",
    "get_gpu",
    "gpu_by_driver_name",
    "gpus_named",
    "launch_month",
    "parse_gpu_spec",
    "resolve_gpu",
    "same_chip_measured",
]

#: The largest per-node network between instances a user may state, Gbit/s: about thirty times
#: the fastest fabric sold (3,200 Gbit/s, ``perf.links.FAST_NETWORK_GBIT_S``); a larger figure is a
#: typo, not a network.
MAX_NETWORK_GBIT_S = 1e5
#: The smallest: 1 Mbit/s, far below the slowest GPU instance network listed (2.5 Gbit/s,
#: ``perf.links.SLOW_NETWORK_GBIT_S``); a smaller figure is a slip of the unit (1e-308 made a step
#: time infinite and the service's answer a 500).
MIN_NETWORK_GBIT_S = 0.001

#: Most CPU threads a machine may be stated to have (``gpuplan estimate --vcpus``): over five times
#: the largest two-socket server (AMD EPYC 9965: 192 cores, 384 threads a socket; AMD, "AMD EPYC
#: 9965", https://www.amd.com/en/products/processors/server/epyc/9005-series/amd-epyc-9965.html,
#: 2024-10); a larger figure is a typo, not a machine.
MAX_HOST_VCPUS = 4096
#: Most GPUs a configuration may name (``--gpu NAME:COUNT``, ``--count``, the service's ``count`` and
#: ``max_gpus``): 512 nodes of 8; a count past it is a typo, and estimated it gives a meaningless
#: step time (10^15 s for 10^20 GPUs).
MAX_GPU_COUNT = 4096
#: GPUs in all the planner enumerates for one job or service unless ``--max-gpus`` says otherwise
#: (the planning budget: 1–64 GPUs over the whole catalog, what keeps a plan within seconds).
DEFAULT_PLANNED_GPUS = 64
#: Most GPUs in all ``plan --max-gpus`` (the service's and a workload's ``max_gpus``) may ask the
#: planner to enumerate. No data structure sets it: the candidates are one row per offer × count,
#: so their time and memory grow with it. Measured on the shipped catalog (a 72B service at 40
#: requests/s, short of its load on 64 GPUs, 84 GPUs planned at 128): 64 GPUs 1.7 s of CPU and 176
#: MB, 256 GPUs 3.6 s and 475 MB, 512 GPUs 6.4 s and 821 MB; 256 keeps a plan under half a GB.
MAX_PLANNED_GPUS = 256
#: A GPU floor (``min_gpus``, ``plan --min-gpus``) above the limit (``max_gpus``): the workload,
#: ``plan`` and the service refuse it in these words.
MIN_OVER_MAX_GPUS = N_(
    "min_gpus {min} is more than max_gpus {max}: give min_gpus at most max_gpus (the same number "
    "plans exactly that many GPUs)"
)
#: Most instances the planner lays one job on: each holds at least one GPU, so a node limit past
#: :data:`MAX_PLANNED_GPUS` never binds (``plan --max-nodes``, the service's and the workload's
#: ``max_nodes`` stop here).
MAX_PLANNED_NODES = MAX_PLANNED_GPUS

#: Most memory a GPU filter may ask of one GPU (``constraints.min_gpu_memory_gib``, the service's
#: ``min_gpu_memory_gib``), GiB: 21 times the largest GPU in the shipped table (MI300X, 192 GiB in
#: ``data/gpus.csv``); a filter past it is a typo (GB for MB) and would leave every GPU out.
MAX_GPU_MEMORY_GIB = 4096

#: The precisions a peak is published for, as used by ``GPU.peak_tflops``.
DTYPE_PATHS = ("fp32", "tf32", "fp16", "bf16", "fp8", "int8")


@dataclass(frozen=True, kw_only=True)
class GPU:
    """One GPU model as its datasheet describes it."""

    id: str
    """Canonical id, e.g. ``A100-SXM4-80GB``."""
    name: str
    """Human name, e.g. ``NVIDIA A100 SXM4 80GB``."""
    aliases: tuple[str, ...]
    """Lower-case names people type for this GPU (``a100-80gb``, ``h100 sxm``)."""
    vendor: str
    architecture: str
    compute_capability: str | None
    """CUDA compute capability (``8.0``); None for non-NVIDIA parts."""
    form_factor: str
    memory_gib: float
    """Physical memory as the datasheet states it, GiB (NVIDIA's "24 GB" on an L4 is 24 GiB of
    GDDR6). Not what a process can use: ECC reserve and firmware are deducted once, in
    :func:`gpuplan.perf.memory.usable_memory_gib` (L4: 24 × 15/16 = 22.5 GiB; nvidia-smi 23034 MiB).
    See ``hardware/data/README.md``."""
    memory_type: str
    memory_bandwidth_gbps: float
    """Peak memory bandwidth, GB/s."""
    fp32_tflops: float | None
    """Non-tensor FP32 peak, TFLOP/s."""
    tf32_tflops: float | None
    """Dense TF32 tensor-core peak, TFLOP/s; None where the GPU has no TF32."""
    fp16_tflops: float | None
    """Dense FP16 tensor-core peak (FP32 accumulate), TFLOP/s."""
    bf16_tflops: float | None
    """Dense BF16 tensor-core peak, TFLOP/s; None before Ampere."""
    fp8_tflops: float | None
    """Dense FP8 tensor-core peak, TFLOP/s; None before Ada/Hopper."""
    int8_tops: float | None
    """Dense INT8 tensor-core peak, TOP/s."""
    nvlink_gen: int | None
    """NVLink generation; None without NVLink."""
    nvlink_gbps: float | None
    """NVLink (or Infinity Fabric) bandwidth per GPU, GB/s, both directions together."""
    pcie_gen: int
    """PCIe generation of the host link."""
    mig_max_instances: int
    """Most MIG instances; 0 where MIG is not supported."""
    tdp_w: float | None
    consumer: bool
    """A GeForce (consumer) card, as rental marketplaces offer."""
    source: str
    notes: str
    skypilot_name: str | None = None
    """SkyPilot's accelerator name (``A100-80GB``), as in SkyPilot 0.14.1's
    ``sky.catalog.get_common_gpus()`` or, for the GPUs only marketplaces rent, the ``AcceleratorName``
    its catalogs (``catalogs/v8/<cloud>/vms.csv``) give them all alike (``RTX4090``, ``A40``,
    ``MI300X``); SkyPilot does not tell SXM from PCIe, nor NVL (``H100``, ``H200``). None = SkyPilot
    has none, or its catalogs spell it differently per cloud (the RTX A6000: ``A6000``, ``RTXA6000``)."""
    gke_accelerator: str | None = None
    """GKE's ``cloud.google.com/gke-accelerator`` node label (``nvidia-a100-80gb``), per GCP's GPU
    list (the same mapping as SkyPilot 0.14.1 ``get_gke_accelerator_name``). None = not on GKE."""
    driver_names: tuple[str, ...] = ()
    """Names the NVIDIA driver (NVML, nvidia-smi) reports that the id and aliases do not resolve,
    e.g. ``NVIDIA H100 80GB HBM3`` for the SXM5 part."""
    sm_count: int | None = None
    """Streaming multiprocessors (the width of one wave of GEMM tiles, ``perf/gemm.py``), from the
    architecture whitepaper or the CUDA cores a datasheet lists (``sm_source``); None where no
    public document gives it (A10G, B200, MI300X)."""
    sm_source: str = ""
    matmul_fraction: float | None = None
    """The largest dense BF16 matmul rate measured on this GPU over its datasheet peak (FP16 on
    Volta and Turing, which have no BF16 tensor cores): Maximum Achievable Matmul FLOPS (the best of
    a search over shapes) where published, else the median over users' runs of the best square
    ``torch.mm``: how much of the peak one matmul reached on the part as it runs (its clocks, its
    power limit, its vendor's BLAS). Above 1 where a GeForce card holds clocks over its rated boost.
    None where no public measurement was read (``matmul_fraction_source`` says so);
    :func:`achievable_matmul_fraction` then gives the lowest known fraction of the vendor's GPUs of
    its architecture."""
    matmul_fraction_source: str = ""
    matmul_fraction_fp8: float | None = None
    """The same for FP8 (``float8_e4m3fn``) matmuls over the dense FP8 peak; None where not measured
    or the GPU has no FP8 tensor cores."""
    matmul_fraction_fp8_source: str = ""
    launched: str | None = None
    """The month the part was first announced or sold, ``YYYY-MM`` (the earliest month any source
    read gives: no price of it can be older); None where no source was read
    (``launched_source`` says why). Bounds the age of a price its source does not date
    (:func:`gpuplan.catalog.dates.price_age`)."""
    launched_source: str = ""
    """Where ``launched`` was read (with the day it was read), or why it is None."""
    peak_basis: str = ""
    """How the tensor-core peaks were had where no source publishes them (the L20's: derived from a
    sibling part's rate per SM per clock); "" where they are published figures."""

    @property
    def launched_on(self) -> date | None:
        """The first day of the launch month; None where it is not known."""
        if self.launched is None:
            return None
        year, month = self.launched.split("-")
        return date(int(year), int(month), 1)

    @property
    def pcie_peer_access(self) -> bool:
        """Whether NVIDIA's driver lets two of these cards read and write each other's memory over PCIe
        (CUDA peer access, which NCCL's P2P transport needs); without it NCCL copies through host memory
        (its SHM transport). Not on GeForce cards, the table's ``consumer`` rows:

        - RTX 4090: an NVIDIA representative confirmed on NVIDIA's developer forum that it does not
          support P2P (PurePC, in Polish, "NVIDIA GeForce RTX 4090 - amerykańska firma potwierdza, że jej
          topowy układ nie obsługuje profesjonalnego trybu peer-to-peer",
          https://www.purepc.pl/nvidia-geforce-rtx-4090-amerykanska-firma-potwierdza-ze-jej-topowy-uklad-nie-obsluguje-profesjonalnego-trybu-peer-to-peer,
          read 2026-12-06); the interface NVIDIA's P2P normally uses, MAILBOXP2P, "is not present or
          disabled in hardware" on it (tinygrad, README of github.com/tinygrad/open-gpu-kernel-modules,
          "NVIDIA Linux Open GPU with P2P support", a driver fork that adds P2P over BAR1, read
          2026-12-06).
        - RTX 3090: P2P cannot be enabled between the eight of one server (github.com/NVIDIA/nccl
          issue 1127, "Cannot enable P2P communication in RTX3090 server", 2023-12-26); "3090 does
          not support peer access. Only workstation cards (e.g. Ada 6000) or V100, A100, H100 have
          this feature" (github.com/efeslab/Nanoflow issue 22, 2024-11-01). A pair joined by an
          NVLink bridge does reach each other (github.com/huggingface/accelerate issue 2328,
          2024-01-12): :class:`~gpuplan.perf.links.Link` takes a bridged pair over NVLink, where this
          does not enter.
        - RTX 5090: ``nvidia-smi topo -p2p rw`` between two gives "GNS" (GPU not supported)
          (github.com/noonghunna/club-3090 issue 1130, read 2026-12-06); "The driver needs to be
          modified to fully unlock P2P capability in RTX 5090" (github.com/tinygrad/open-gpu-kernel-modules
          issue 29, 2025-03-31).

        Data-centre and workstation parts (H100 PCIe, L40S, A40, RTX A6000 …) have it, as the Nanoflow
        answer above says; a host whose PCIe ACS or IOMMU blocks it is the machine's fault, which
        ``gpuplan doctor`` reports. A patched driver can give GeForce cards P2P; an estimate does not
        assume one.
        """
        return not self.consumer

    @property
    def pcie_gbps(self) -> float:
        """PCIe x16 bandwidth, GB/s, both directions together (Gen3 32, Gen4 64, Gen5 128)."""
        return 32.0 * 2 ** (self.pcie_gen - 3)

    @property
    def interconnect(self) -> str:
        """One line: NVLink generation and bandwidth (if any) and the PCIe generation."""
        parts = []
        if self.nvlink_gbps:
            link = f"NVLink {self.nvlink_gen}" if self.nvlink_gen else "Infinity Fabric"
            parts.append(f"{link} ({self.nvlink_gbps:g} GB/s)")
        parts.append(f"PCIe Gen{self.pcie_gen} ({self.pcie_gbps:g} GB/s)")
        return ", ".join(parts)

    def peak_tflops(self, dtype_path: str) -> float | None:
        """The dense peak for ``dtype_path`` (one of ``DTYPE_PATHS``), or None if the GPU lacks it."""
        if dtype_path not in DTYPE_PATHS:
            raise ValueError(f"unknown dtype path {dtype_path!r}; expected one of {DTYPE_PATHS}")
        attr = "int8_tops" if dtype_path == "int8" else f"{dtype_path}_tflops"
        value: float | None = getattr(self, attr)
        return value


def _launch_month(text: str) -> str | None:
    """A ``launched`` cell: ``YYYY-MM`` or empty (not known)."""
    text = text.strip()
    if not text:
        return None
    if not re.fullmatch(r"\d{4}-(0[1-9]|1[0-2])", text):
        raise ValueError(f"launched {text!r} is not YYYY-MM")
    return text


def launch_month(gpu_id: str) -> str | None:
    """The launch month (``YYYY-MM``) of the GPU with this canonical id; None where it is not known
    or the id is not in the table (an offer's GPU the table lacks keeps its price's own bounds)."""
    g = _index().get(gpu_id)
    return g.launched if g is not None else None


def _opt_float(row: dict[str, str], key: str) -> float | None:
    value = row[key].strip()
    return float(value) if value else None


@cache
def all_gpus() -> tuple[GPU, ...]:
    """Every GPU of the shipped table, in table order."""
    text = resources.files("gpuplan.hardware").joinpath("data/gpus.csv").read_text(encoding="utf-8")
    gpus = []
    for i, row in enumerate(csv.DictReader(text.splitlines()), start=2):
        try:
            gpus.append(
                GPU(
                    id=row["id"],
                    name=row["name"],
                    aliases=tuple(a.strip().lower() for a in row["aliases"].split(";") if a.strip()),
                    vendor=row["vendor"],
                    architecture=row["architecture"],
                    compute_capability=row["compute_capability"] or None,
                    form_factor=row["form_factor"],
                    memory_gib=float(row["memory_gib"]),
                    memory_type=row["memory_type"],
                    memory_bandwidth_gbps=float(row["memory_bandwidth_gbps"]),
                    fp32_tflops=_opt_float(row, "fp32_tflops"),
                    tf32_tflops=_opt_float(row, "tf32_tflops"),
                    fp16_tflops=_opt_float(row, "fp16_tflops"),
                    bf16_tflops=_opt_float(row, "bf16_tflops"),
                    fp8_tflops=_opt_float(row, "fp8_tflops"),
                    int8_tops=_opt_float(row, "int8_tops"),
                    nvlink_gen=int(row["nvlink_gen"]) if row["nvlink_gen"] else None,
                    nvlink_gbps=_opt_float(row, "nvlink_gbps"),
                    pcie_gen=int(row["pcie_gen"]),
                    mig_max_instances=int(row["mig_max_instances"]),
                    tdp_w=_opt_float(row, "tdp_w"),
                    consumer=row["consumer"] == "true",
                    source=row["source"],
                    notes=row["notes"],
                    skypilot_name=row["skypilot_name"] or None,
                    gke_accelerator=row["gke_accelerator"] or None,
                    driver_names=tuple(n.strip() for n in row["driver_names"].split(";") if n.strip()),
                    sm_count=int(row["sm_count"]) if row["sm_count"] else None,
                    sm_source=row["sm_source"],
                    matmul_fraction=_opt_float(row, "matmul_fraction"),
                    matmul_fraction_source=row["matmul_fraction_source"],
                    matmul_fraction_fp8=_opt_float(row, "matmul_fraction_fp8"),
                    matmul_fraction_fp8_source=row["matmul_fraction_fp8_source"],
                    launched=_launch_month(row["launched"]),
                    launched_source=row["launched_source"],
                    peak_basis=row["peak_basis"],
                )
            )
        except (KeyError, ValueError) as e:
            raise DataError.worded(
                N_("gpus.csv line {line} is malformed: {why}; the package data is broken"), line=i, why=e
            ) from e
    return tuple(gpus)


def achievable_matmul_fraction(gpu: GPU, path: str = "bf16") -> float:
    """The share of its datasheet peak a matmul reaches on ``gpu``: measured (``gpus.csv``
    ``matmul_fraction``, ``matmul_fraction_fp8`` for the ``fp8`` path, the BF16 one for the other
    tensor paths), or, unmeasured, its measured twin's (:func:`same_chip_measured`: the same chip at
    the same clocks), else the lowest measured of its vendor's GPUs of the same architecture
    (the same tensor cores and BLAS kernels; an H100 NVL is costed like the H100 PCIe, not like a
    72 W L4), else of its vendor's GPUs, else of all — an unknown part is never taken to reach more
    of its datasheet than the worst measured one of its kind. An unmeasured FP8 fraction is at most
    the GPU's BF16 one."""
    attr = "matmul_fraction_fp8" if path == "fp8" else "matmul_fraction"
    own: float | None = getattr(gpu, attr)
    if own is not None:
        return own
    twin = same_chip_measured(gpu, path)
    if twin is not None:
        return float(getattr(twin, attr))
    lowest = _lowest_measured(attr, gpu.vendor, gpu.architecture)
    return min(lowest, achievable_matmul_fraction(gpu)) if path == "fp8" else lowest


def same_chip_measured(gpu: GPU, path: str = "bf16") -> GPU | None:
    """A GPU with a measured matmul fraction for ``path`` that is ``gpu``'s chip at ``gpu``'s
    clocks: the same vendor, architecture, SM count and memory type, and the same datasheet peak on
    that path (an H800 SXM is the H100 SXM's GH100 with its NVLink cut; an A800 the A100's). A
    matmul runs on one GPU's SMs, so such a twin reaches the same share of the same peak; a part of
    the chip at other clocks or power (the H100 NVL) is no twin. The lowest measured, if several."""
    attr = "matmul_fraction_fp8" if path == "fp8" else "matmul_fraction"
    peak = "fp8_tflops" if path == "fp8" else "bf16_tflops"
    if gpu.sm_count is None or getattr(gpu, peak) is None:
        return None
    twins = [
        g
        for g in all_gpus()
        if g.id != gpu.id
        and getattr(g, attr) is not None
        and (g.vendor, g.architecture, g.sm_count, g.memory_type)
        == (gpu.vendor, gpu.architecture, gpu.sm_count, gpu.memory_type)
        and getattr(g, peak) == getattr(gpu, peak)
    ]
    return min(twins, key=lambda g: float(getattr(g, attr)), default=None)


def architecture_measured(gpu: GPU, path: str = "bf16") -> bool:
    """Whether another GPU of ``gpu``'s vendor and architecture has a measured matmul fraction for
    ``path`` — what :func:`achievable_matmul_fraction` takes an unmeasured one's from; otherwise it
    is the lowest of the vendor's (or of all) GPUs."""
    attr = "matmul_fraction_fp8" if path == "fp8" else "matmul_fraction"
    return any(
        getattr(g, attr) is not None and g.vendor == gpu.vendor and g.architecture == gpu.architecture
        for g in all_gpus()
    )


@cache
def _lowest_measured(attr: str, vendor: str, architecture: str) -> float:
    """The lowest measured ``attr`` of the datasheet table's GPUs of that vendor and architecture,
    else of that vendor, else of all (a planner asks this thousands of times per plan)."""
    known = [(g.vendor, g.architecture, v) for g in all_gpus() if (v := getattr(g, attr)) is not None]
    return min(
        [v for v_, arch, v in known if v_ == vendor and arch == architecture]
        or [v for v_, _, v in known if v_ == vendor]
        or [v for *_, v in known]
        or [1.0]
    )


@cache
def _index() -> dict[str, GPU]:
    return {g.id: g for g in all_gpus()}


@cache
def _driver_index() -> dict[str, GPU]:
    return {n.lower(): g for g in all_gpus() for n in g.driver_names}


def gpu_by_driver_name(name: str) -> GPU | None:
    """The GPU whose ``driver_names`` column lists ``name`` (case-insensitive); None otherwise
    (then :func:`resolve_gpu` on the name is the next try)."""
    return _driver_index().get(name.strip().lower())


def get_gpu(gpu_id: str) -> GPU:
    """The GPU with this exact canonical id (use :func:`resolve_gpu` for what people type)."""
    try:
        return _index()[gpu_id]
    except KeyError:
        return resolve_gpu(gpu_id)


@lru_cache(maxsize=4096)
def _norm(name: str) -> str:
    """Fold case and separators, drop vendor words: ``'NVIDIA H100 SXM'`` -> ``h100-sxm``.

    Kept for the names seen: :func:`resolve_gpu` folds every id and alias of the table on each
    call, three regular expressions each, and a price file resolves its GPU on every row."""
    s = name.strip().lower()
    s = re.sub(r"\b(nvidia|tesla|geforce|amd|instinct)\b", " ", s)
    s = re.sub(r"[\s_]+", "-", s.strip())
    s = re.sub(r"-+", "-", s).strip("-")
    return s


def parse_gpu_spec(spec: str) -> tuple[GPU, int | None]:
    """Parse ``'V100:8'`` or ``'a100'`` into a GPU and an optional count (1 to :data:`MAX_GPU_COUNT`)."""
    name, sep, count = spec.partition(":")
    n: int | None = None
    if sep:
        if not re.fullmatch(r"[0-9]+", count.strip()) or int(count) < 1:  # ASCII: "²".isdigit()
            if not (count.isprintable() and any(c.isdigit() for c in count)) and not _names_a_gpu(
                name, count
            ):
                # "H100: y\n#" (a tampered plan file) is a name that is no GPU, not a count to fix
                raise _unknown_gpu(spec)
            raise NotFoundError("GPU count", count, [], hint=N_("write NAME:COUNT with a count of 1 or more"))
        n = int(count)
        if n > MAX_GPU_COUNT:
            raise InputError.worded(
                N_("{spec!r}: at most {limit:,} GPUs; write NAME:COUNT with a count from 1 to {limit:,}"),
                spec=spec[:60],
                limit=MAX_GPU_COUNT,
            )
    return resolve_gpu(name), n


def _names_a_gpu(name: str, count: str) -> bool:
    """Whether ``name`` is a GPU and ``count`` a printable word after it: ``A10G:eight`` is a count
    to fix, as ``A10G:0`` is (it had been "unknown GPU 'A10G:eight'; did you mean 'A10G'?")."""
    if not (count.strip() and count.isprintable()):
        return False
    try:
        resolve_gpu(name)
    except NotFoundError:
        return False
    return True


def _words(name: str) -> list[str]:
    return [w for w in _norm(name).split("-") if w]


@cache
def _tokens(g: GPU) -> frozenset[str]:
    """The whole words a GPU can be named by: those of its id and aliases, ``sxm`` for an SXM4/SXM5
    module, and its memory (``80gb``, or ``80g`` as Chinese clouds write it)."""
    words = {w for n in (g.id, *g.aliases) for w in _words(n)}
    words |= {"sxm" for w in tuple(words) if re.fullmatch(r"sxm\d", w)}
    words |= {f"{g.memory_gib:g}gb", f"{g.memory_gib:g}g"}
    return frozenset(words)


@cache
def _model_words(g: GPU) -> frozenset[str]:
    """The words that name the model itself: the first of its id and of each alias (``h100``,
    ``rtx``, ``4090``) -- not a form factor or a memory size, which name no GPU on their own."""
    return frozenset(ws[0] for n in (g.id, *g.aliases) if (ws := _words(n)))


def _family(key: str) -> list[GPU]:
    """Every GPU that each of ``key``'s words names as a whole word, one of them its model:
    ``h100`` is the SXM, PCIe and NVL parts; ``a100-80gb`` is A100-SXM4-80GB *and* A100-PCIE-80GB
    (both A100, both 80 GB), whatever alias one of them carries. A part of a word (``h10``,
    ``a100-sx``) names nothing: a typo is refused, not widened to every GPU it begins."""
    typed = set(key.split("-")) - {""}
    return [g for g in all_gpus() if typed <= _tokens(g) and typed & _model_words(g)]


def _family_names() -> list[str]:
    """The model words several GPUs share (``A100``, ``H100``): names ``offers --gpu`` lists a family by."""
    seen: dict[str, int] = {}
    for g in all_gpus():
        for w in _model_words(g):
            seen[w] = seen.get(w, 0) + 1
    return [w.upper() for w, n in seen.items() if n > 1]


def resolve_gpu(name: str) -> GPU:
    """Resolve what a person types (``a100``, ``A100-80GB``, ``h100 sxm``) to one GPU.

    Case, spaces, ``-``, ``_`` and vendor words (``NVIDIA``, ``Tesla``) are forgiven. An exact id
    wins. Otherwise the name must mean one part: every GPU that has it as an alias, or whose whole
    words (id, aliases, memory size) the name's words all are, one of them its model, is a match
    -- an alias that one part carries does not hide another part it fits as well (``A100-80GB`` is
    the SXM4 and the PCIe card). Several matches raise :class:`AmbiguousNameError` with the choices
    (``offers`` lists them all); none -- a typo, or a piece of a name such as ``H10`` -- raises
    :class:`NotFoundError` with the nearest names.
    """
    if ":" in name:
        return parse_gpu_spec(name)[0]
    if not name.isprintable():
        raise _unknown_gpu(name)
    key = _norm(name)
    if not key:
        raise NotFoundError("GPU", name, [g.id for g in all_gpus()])
    by_id = [g for g in all_gpus() if key == _norm(g.id)]
    if len(by_id) == 1:
        return by_id[0]
    exact = [g for g in all_gpus() if key in {_norm(a) for a in g.aliases}]
    matches = list(dict.fromkeys([*exact, *_family(key)]))
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        raise AmbiguousNameError("GPU", name, [g.id for g in matches])
    raise _unknown_gpu(name)


#: A GeForce model number with a "D" after it (``4090D``, ``RTX 4090 D``, ``5090D V2``): NVIDIA's
#: China-market variants, not in the catalog. The nearest name is the card without the "D", a
#: different part: suggesting it would estimate another card.
_CHINA_VARIANT = re.compile(r"(?:rtx)?(\d{4})d(?:v\d)?")
#: The model numbers that have such a variant: the RTX 4090 D and 5090 D, whose measurements the
#: catalog's RTX-4090 and RTX-5090 rows leave out as other parts (``data/gpus.csv``, matmul sources).
_CHINA_VARIANT_OF = frozenset({"4090", "5090"})


def _china_variant(name: str) -> NotFoundError | None:
    """The refusal of a China-market "D" variant of a catalog GeForce card (None for another name):
    not in the catalog, a different card from the one it is named after, and no suggestion of it."""
    m = _CHINA_VARIANT.fullmatch(_norm(name).replace("-", ""))
    if m is None or m.group(1) not in _CHINA_VARIANT_OF:
        return None
    base = [g for g in all_gpus() if g.consumer and m.group(1) in _model_words(g)]
    if not base:
        return None
    return NotFoundError(
        "GPU",
        name[:80],
        [],
        hint=Phrase(
            N_(
                "the {name} is not in the catalog: it is a different card from the {base}, sold in "
                "China, whose datasheet figures gpuplan does not have; an estimate on the {base} would "
                "be of another card"
            ),
            name=f"RTX {m.group(1)} D",
            base=base[0].id,
        ),
    )


def _unknown_gpu(name: str) -> NotFoundError:
    """An unknown GPU, with the nearest names to what it begins with (its printable words before
    any ':' or control character). The message quotes the name with repr: never a raw control
    character."""
    variant = _china_variant(name)
    if variant is not None:
        return variant
    # Match against ids, aliases and family names, but suggest canonical ids and families, each once.
    owner = {g.id: g.id for g in all_gpus()} | {a: g.id for g in all_gpus() for a in g.aliases}
    owner |= {f: f for f in _family_names()}
    head = re.split(r"[:\x00-\x1f\x7f-\x9f]", name, maxsplit=1)[0].strip() or name
    hits = list(dict.fromkeys(owner[h] for h in closest(head, owner, n=6)))[:3]
    return NotFoundError("GPU", name[:80], hits, hint=N_("`gpuplan gpus` lists them"))


def gpus_named(name: str) -> list[GPU]:
    """The GPUs a filter names: the one :func:`resolve_gpu` finds, or every part of a family name
    (``h100``: the SXM, PCIe and NVL parts). A name that is neither raises :class:`NotFoundError`
    with the nearest names, as :func:`resolve_gpu` does."""
    try:
        return [resolve_gpu(name)]
    except AmbiguousNameError as e:
        return [get_gpu(c) for c in e.choices]


def same_chip(a: GPU, b: GPU) -> bool:
    """Whether ``a`` and ``b`` are one chip at the same clocks: the same vendor, architecture, SM
    count and memory type, and the same BF16 (else FP16) datasheet peak (an H800 SXM and an H100
    SXM: the H800 is the GH100 with its NVLink cut), as :func:`same_chip_measured` reads it."""
    return (
        a.sm_count is not None
        and (a.vendor, a.architecture, a.sm_count, a.memory_type)
        == (b.vendor, b.architecture, b.sm_count, b.memory_type)
        and _tensor_peak(a) == _tensor_peak(b)
    )


def _tensor_peak(g: GPU) -> float | None:
    """The 16-bit tensor peak, TFLOPS: BF16, else FP16 (Volta and Turing have no BF16)."""
    return g.bf16_tflops if g.bf16_tflops is not None else g.fp16_tflops


def nearest_gpus(asked: Sequence[GPU], among: Iterable[str]) -> list[str]:
    """The GPU ids of ``among`` nearest to any of ``asked``, nearest first: the same chip
    (:func:`same_chip`), then the same vendor and architecture, then the rest; within each, by how
    far apart their 16-bit tensor peaks and memory sizes are (ratios, so that 80 against 96 GB
    counts as 1,000 against 1,200 TFLOPS does). A part with no tensor peak comes after those that
    have one. ``asked`` itself is not among the answers."""
    own = {g.id for g in asked}

    def distance(g: GPU) -> tuple[int, float, str]:
        best: tuple[int, float] = (3, math.inf)
        for a in asked:
            kind = (
                0 if same_chip(a, g) else 1 if (a.vendor, a.architecture) == (g.vendor, g.architecture) else 2
            )
            pa, pg = _tensor_peak(a), _tensor_peak(g)
            apart = (
                abs(math.log(pg / pa)) + abs(math.log(g.memory_gib / a.memory_gib))
                if pa and pg and a.memory_gib > 0 and g.memory_gib > 0
                else math.inf
            )
            best = min(best, (kind, apart))
        return (*best, g.id)

    known = [_index()[i] for i in dict.fromkeys(among) if i in _index() and i not in own]
    return [g.id for g in sorted(known, key=distance)]
