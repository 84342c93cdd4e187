"""What the probe learns about the local machine, as typed, JSON-round-trippable facts.

``MachineFacts`` is the only input of the doctor's checks (:mod:`gpuplan.machine.checks`), so a
machine can be recorded once (``gpuplan doctor --json`` prints its facts) and diagnosed anywhere.
Unknown is ``None``: a query NVML answers with ``NVML_ERROR_NOT_SUPPORTED`` is not a zero.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gpuplan.errors import DataError
from gpuplan.i18n import N_

__all__ = ["DriverFacts", "GpuFacts", "MachineFacts", "TorchFacts", "cuda_version_str"]

#: Version of the ``MachineFacts`` JSON layout; bump it when a field changes meaning.
FACTS_SCHEMA_VERSION = 1


def cuda_version_str(version: int | None) -> str | None:
    """NVML's integer CUDA version (``1000 * major + 10 * minor``, e.g. 12040) as ``"12.4"``."""
    if version is None:
        return None
    return f"{version // 1000}.{(version % 1000) // 10}"


@dataclass(frozen=True, kw_only=True)
class GpuFacts:
    """One GPU as NVML reports it. Every field NVML may refuse (NOT_SUPPORTED, NO_PERMISSION) is optional."""

    index: int
    """NVML device index (the order of ``nvidia-smi``, not necessarily CUDA's)."""
    name: str
    """``nvmlDeviceGetName``, e.g. ``NVIDIA H100 80GB HBM3``."""
    memory_total_bytes: int | None = None
    """``nvmlDeviceGetMemoryInfo().total``."""
    memory_used_bytes: int | None = None
    """``nvmlDeviceGetMemoryInfo().used``: memory other processes hold right now."""
    compute_capability: str | None = None
    """``nvmlDeviceGetCudaComputeCapability`` as ``"9.0"``."""
    mig_mode_current: bool | None = None
    """``nvmlDeviceGetMigMode()[0]``; None where the GPU has no MIG (NOT_SUPPORTED)."""
    mig_mode_pending: bool | None = None
    """``nvmlDeviceGetMigMode()[1]``: the mode after the next GPU reset."""
    virtualization_mode: str | None = None
    """``nvmlDeviceGetVirtualizationMode`` by name: NONE, PASSTHROUGH, VGPU, HOST_VGPU, HOST_VSGA."""
    pcie_gen_current: int | None = None
    """``nvmlDeviceGetCurrPcieLinkGeneration``: drops at idle to save power."""
    pcie_gen_max: int | None = None
    """``nvmlDeviceGetMaxPcieLinkGeneration``: the best the GPU *and* this system's slot allow."""
    pcie_width_current: int | None = None
    """``nvmlDeviceGetCurrPcieLinkWidth`` (lanes)."""
    pcie_width_max: int | None = None
    """``nvmlDeviceGetMaxPcieLinkWidth`` (lanes)."""
    utilization_gpu_pct: int | None = None
    """``nvmlDeviceGetUtilizationRates().gpu``: tells an idle GPU (downclocked link) from a busy one."""
    ecc_enabled: bool | None = None
    """``nvmlDeviceGetEccMode()[0]``; None where the GPU has no ECC (GeForce)."""
    ecc_volatile_uncorrected: int | None = None
    """``nvmlDeviceGetTotalEccErrors(UNCORRECTED, VOLATILE)``: since the driver last loaded."""
    persistence_mode: bool | None = None
    """``nvmlDeviceGetPersistenceMode``; Linux only."""
    clock_event_reasons: tuple[str, ...] | None = None
    """Set bits of ``nvmlDeviceGetCurrentClocksEventReasons`` by name (``SW_POWER_CAP`` …)."""
    temperature_c: int | None = None
    """``nvmlDeviceGetTemperature(NVML_TEMPERATURE_GPU)``, °C."""


@dataclass(frozen=True, kw_only=True)
class DriverFacts:
    """The NVIDIA driver, from NVML; present only when ``nvmlInit`` succeeded."""

    driver_version: str
    """``nvmlSystemGetDriverVersion``, e.g. ``"550.54.15"``."""
    cuda_driver_version: int | None
    """``nvmlSystemGetCudaDriverVersion``: the newest CUDA the driver supports, ``1000*major + 10*minor``."""
    gpus: tuple[GpuFacts, ...] = ()

    @property
    def cuda_driver_version_str(self) -> str | None:
        """``cuda_driver_version`` as ``"12.4"``."""
        return cuda_version_str(self.cuda_driver_version)


@dataclass(frozen=True, kw_only=True)
class TorchFacts:
    """The PyTorch installation as ``import torch`` sees it."""

    installed: bool
    """False when ``import torch`` fails; every other field is then None/empty."""
    import_error: str | None = None
    """Why ``import torch`` failed, one line."""
    version: str | None = None
    """``torch.__version__``, e.g. ``"2.13.0+cu128"``."""
    cuda_build: str | None = None
    """``torch.version.cuda``: the CUDA the wheel was built with (``"12.8"``); None for CPU/ROCm builds."""
    hip_build: str | None = None
    """``torch.version.hip`` for ROCm builds."""
    cuda_available: bool = False
    """``torch.cuda.is_available()``."""
    device_count: int = 0
    """``torch.cuda.device_count()``."""
    device_names: tuple[str, ...] = ()
    """``torch.cuda.get_device_name(i)`` for each visible device."""
    cudnn_version: int | None = None
    """``torch.backends.cudnn.version()``."""
    nccl_version: str | None = None
    """``torch.cuda.nccl.version()`` as ``"2.21.5"``; None without CUDA."""
    bf16_supported: bool | None = None
    """``torch.cuda.is_bf16_supported()``; None without CUDA."""
    peer_access: tuple[tuple[bool, ...], ...] | None = None
    """``torch.cuda.can_device_access_peer(i, j)`` for every pair of visible devices (row ``i``,
    column ``j``; the diagonal True): whether NCCL can go GPU to GPU (P2P) or must copy through host
    memory. None: not asked (fewer than two GPUs, the query failed, or facts recorded before gpuplan
    asked)."""


@dataclass(frozen=True, kw_only=True)
class MachineFacts:
    """Everything the doctor looks at, gathered by :func:`gpuplan.machine.probe.probe_machine`."""

    host: str
    """Host name."""
    python_version: str
    """``platform.python_version()``."""
    platform: str
    """``platform.platform()``, e.g. ``Linux-6.8.0-x86_64-with-glibc2.36``."""
    torch: TorchFacts
    driver: DriverFacts | None
    """None when NVML could not start; ``nvml_error`` says why."""
    nvml_error: str | None = None
    """Why NVML is unavailable: pynvml not installed, library not found (no driver), driver not loaded."""
    env: dict[str, str] = field(default_factory=dict)
    """The diagnosis-relevant environment variables that are set (NCCL_*, CUDA_VISIBLE_DEVICES …)."""
    cpu_threads: int | None = None
    """CPU threads this process may run on (``os.sched_getaffinity``, else ``os.cpu_count()``): what
    an image job's DataLoader workers decode on; None: not known (facts recorded before gpuplan
    counted them)."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict; :meth:`from_dict` reads it back."""
        data = dataclasses.asdict(self)
        data["schema_version"] = FACTS_SCHEMA_VERSION
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MachineFacts:
        """Build facts from :meth:`to_dict` output (or a hand-written fixture of the same shape)."""
        try:
            version = data.get("schema_version", FACTS_SCHEMA_VERSION)
            # JSON's true is not version 1 (Python's True == 1 would let it through).
            if isinstance(version, bool) or version != FACTS_SCHEMA_VERSION:
                raise DataError.worded(
                    N_(
                        "machine facts have schema version {version}, this gpuplan reads "
                        "{reads}; record them again with `gpuplan doctor --json`"
                    ),
                    version=json.dumps(version, ensure_ascii=False)[:40],
                    reads=FACTS_SCHEMA_VERSION,
                )
            torch_data = dict(data["torch"])
            torch_data["device_names"] = tuple(torch_data.get("device_names", ()))
            peers = torch_data.get("peer_access")
            if peers is not None:
                torch_data["peer_access"] = tuple(tuple(bool(v) for v in row) for row in peers)
            driver = None
            if data.get("driver") is not None:
                drv = dict(data["driver"])
                gpus = []
                for g in drv.pop("gpus", ()):
                    g = dict(g)
                    if g.get("clock_event_reasons") is not None:
                        g["clock_event_reasons"] = tuple(g["clock_event_reasons"])
                    gpus.append(GpuFacts(**g))
                driver = DriverFacts(**drv, gpus=tuple(gpus))
            return cls(
                host=data["host"],
                python_version=data["python_version"],
                platform=data["platform"],
                torch=TorchFacts(**torch_data),
                driver=driver,
                nvml_error=data.get("nvml_error"),
                env=dict(data.get("env", {})),
                cpu_threads=data.get("cpu_threads"),
            )
        except (KeyError, TypeError) as e:
            raise DataError.worded(
                N_("machine facts are malformed: {why}; expected the shape `doctor --json` prints"), why=e
            ) from e
