"""Gather :class:`MachineFacts` from NVML (``pynvml``) and PyTorch, with nothing judged here.

Both sources are injected so the probe is testable without a GPU: ``nvml`` is the ``pynvml`` module
(or any object with the same functions and constants), ``import_torch`` returns the ``torch`` module.
The environment is a mapping the caller passes in (the CLI gives ``os.environ``); the library never
reads it itself. Every NVML query that the GPU or driver refuses (``NVML_ERROR_NOT_SUPPORTED``,
``NO_PERMISSION``…) becomes ``None`` rather than failing the whole probe.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import platform
import socket
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any, TypeVar

from gpuplan.i18n import N_
from gpuplan.machine.facts import DriverFacts, GpuFacts, MachineFacts, TorchFacts

__all__ = ["ENV_PREFIXES", "ENV_VARS", "probe_driver", "probe_machine", "probe_torch"]

T = TypeVar("T")

#: Environment variables the doctor reads: all NCCL_* (NCCL's own knobs), plus the CUDA ones that
#: change what PyTorch sees. Only these are copied into the facts, so no secret can leak into a report.
ENV_PREFIXES = ("NCCL_",)
ENV_VARS = (
    "CUDA_VISIBLE_DEVICES",
    "CUDA_DEVICE_ORDER",
    "CUDA_LAUNCH_BLOCKING",
    "TORCH_NCCL_BLOCKING_WAIT",
    "TORCH_NCCL_ASYNC_ERROR_HANDLING",
    "NVIDIA_VISIBLE_DEVICES",
)

#: NVML's ``nvmlGpuVirtualizationMode_t`` values (nvml.h), by name.
_VIRT_MODE_NAMES = {0: "NONE", 1: "PASSTHROUGH", 2: "VGPU", 3: "HOST_VGPU", 4: "HOST_VSGA"}

#: ``nvmlClocksEventReason*`` bits (nvml.h, "Clocks Event Reasons"); pynvml exposes the same constants.
CLOCK_EVENT_BITS: dict[int, str] = {
    0x001: "GPU_IDLE",
    0x002: "APPLICATIONS_CLOCKS_SETTING",
    0x004: "SW_POWER_CAP",
    0x008: "HW_SLOWDOWN",
    0x010: "SYNC_BOOST",
    0x020: "SW_THERMAL_SLOWDOWN",
    0x040: "HW_THERMAL_SLOWDOWN",
    0x080: "HW_POWER_BRAKE_SLOWDOWN",
    0x100: "DISPLAY_CLOCK_SETTING",
}


def _relevant_env(env: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in sorted(env.items()) if k in ENV_VARS or k.startswith(ENV_PREFIXES)}


def _text(value: Any) -> str:
    # Older pynvml releases return bytes for names and versions.
    return value.decode() if isinstance(value, bytes) else str(value)


def _clock_reason_names(mask: int) -> tuple[str, ...]:
    names = [name for bit, name in CLOCK_EVENT_BITS.items() if mask & bit]
    unknown = mask & ~sum(CLOCK_EVENT_BITS)
    if unknown:
        names.append(f"OTHER_0x{unknown:x}")
    return tuple(names)


class _Nvml:
    """Calls into an injected pynvml, turning its refusals into None."""

    def __init__(self, nvml: Any) -> None:
        self.nvml = nvml

    def get(self, fn_name: str, *args: Any, convert: Callable[[Any], T] | None = None) -> T | None:
        fn = getattr(self.nvml, fn_name, None)
        if fn is None:  # an older pynvml without this function
            return None
        try:
            value = fn(*args)
        except self.nvml.NVMLError:
            return None
        return convert(value) if convert else value

    def clock_reasons(self, handle: Any) -> tuple[str, ...] | None:
        # "ClocksEventReasons" is the current name; "ClocksThrottleReasons" the deprecated one (NVML 535+).
        mask = self.get("nvmlDeviceGetCurrentClocksEventReasons", handle, convert=int)
        if mask is None:
            mask = self.get("nvmlDeviceGetCurrentClocksThrottleReasons", handle, convert=int)
        return None if mask is None else _clock_reason_names(mask)

    def gpu(self, index: int) -> GpuFacts:
        n = self.nvml
        h = n.nvmlDeviceGetHandleByIndex(index)
        mem = self.get("nvmlDeviceGetMemoryInfo", h)
        mig = self.get("nvmlDeviceGetMigMode", h)
        ecc = self.get("nvmlDeviceGetEccMode", h)
        util = self.get("nvmlDeviceGetUtilizationRates", h)
        cc = self.get("nvmlDeviceGetCudaComputeCapability", h)
        ecc_enabled = None if ecc is None else bool(ecc[0])
        return GpuFacts(
            index=index,
            name=_text(n.nvmlDeviceGetName(h)),
            memory_total_bytes=None if mem is None else int(mem.total),
            memory_used_bytes=None if mem is None else int(mem.used),
            compute_capability=None if cc is None else f"{cc[0]}.{cc[1]}",
            mig_mode_current=None if mig is None else bool(mig[0]),
            mig_mode_pending=None if mig is None else bool(mig[1]),
            virtualization_mode=self.get(
                "nvmlDeviceGetVirtualizationMode",
                h,
                convert=lambda v: _VIRT_MODE_NAMES.get(v, f"UNKNOWN_{v}"),
            ),
            pcie_gen_current=self.get("nvmlDeviceGetCurrPcieLinkGeneration", h, convert=int),
            pcie_gen_max=self.get("nvmlDeviceGetMaxPcieLinkGeneration", h, convert=int),
            pcie_width_current=self.get("nvmlDeviceGetCurrPcieLinkWidth", h, convert=int),
            pcie_width_max=self.get("nvmlDeviceGetMaxPcieLinkWidth", h, convert=int),
            utilization_gpu_pct=None if util is None else int(util.gpu),
            ecc_enabled=ecc_enabled,
            # Volatile counters reset when the driver reloads, so they speak of this boot, not of the
            # card's whole life (NVML docs, nvmlEccCounterType_t). Only asked when ECC is on.
            ecc_volatile_uncorrected=self.get(
                "nvmlDeviceGetTotalEccErrors",
                h,
                n.NVML_MEMORY_ERROR_TYPE_UNCORRECTED,
                n.NVML_VOLATILE_ECC,
                convert=int,
            )
            if ecc_enabled
            else None,
            persistence_mode=self.get("nvmlDeviceGetPersistenceMode", h, convert=lambda v: bool(v)),
            clock_event_reasons=self.clock_reasons(h),
            temperature_c=self.get("nvmlDeviceGetTemperature", h, n.NVML_TEMPERATURE_GPU, convert=int),
        )


# The reasons below are facts and stay in English (--json, fixtures); they are marked N_() so that the
# doctor's checks can show them translated (gpuplan.machine.checks, `_(facts.nvml_error)`).


def probe_driver(nvml: Any) -> tuple[DriverFacts | None, str | None]:
    """Driver and GPU facts from ``nvml`` (the pynvml module); ``(None, reason)`` when NVML cannot start."""
    try:
        nvml.nvmlInit()
    except nvml.NVMLError as e:
        code = getattr(e, "value", None)
        if code == getattr(nvml, "NVML_ERROR_LIBRARY_NOT_FOUND", object()):
            return None, N_("no NVIDIA driver found (the NVML library libnvidia-ml is not installed)")
        if code == getattr(nvml, "NVML_ERROR_DRIVER_NOT_LOADED", object()):
            return None, N_(
                "the NVIDIA driver is installed but not loaded (no GPU, or the kernel module failed)"
            )
        return None, f"NVML failed to start: {e}"
    try:
        q = _Nvml(nvml)
        count = int(nvml.nvmlDeviceGetCount())
        gpus = tuple(q.gpu(i) for i in range(count))
        return (
            DriverFacts(
                driver_version=_text(nvml.nvmlSystemGetDriverVersion()),
                cuda_driver_version=q.get("nvmlSystemGetCudaDriverVersion", convert=int),
                gpus=gpus,
            ),
            None,
        )
    except nvml.NVMLError as e:
        return None, f"NVML started but could not list the GPUs: {e}"
    finally:
        with contextlib.suppress(nvml.NVMLError):
            nvml.nvmlShutdown()


def _peer_access(torch: Any, count: int) -> tuple[tuple[bool, ...], ...] | None:
    """Which visible GPUs can read each other's memory (None: fewer than two, or torch refused)."""
    if count < 2:
        return None
    try:
        return tuple(
            tuple(i == j or bool(torch.cuda.can_device_access_peer(i, j)) for j in range(count))
            for i in range(count)
        )
    except Exception:  # an older torch without the call, or a driver error: not knowing is fine
        return None


def probe_torch(import_torch: Callable[[], ModuleType]) -> TorchFacts:
    """PyTorch facts; ``import_torch`` is ``lambda: importlib.import_module("torch")`` in real use."""
    try:
        torch: Any = import_torch()
    except ImportError as e:
        return TorchFacts(installed=False, import_error=f"{type(e).__name__}: {e}")
    except Exception as e:  # a broken install (missing libcudart, ABI mismatch) raises OSError & co.
        return TorchFacts(installed=False, import_error=f"import torch failed: {type(e).__name__}: {e}")
    available = bool(torch.cuda.is_available())
    count = int(torch.cuda.device_count()) if available else 0
    nccl: str | None = None
    bf16: bool | None = None
    if available:
        try:
            v = torch.cuda.nccl.version()
            nccl = ".".join(str(p) for p in v) if isinstance(v, tuple) else str(v)
        except Exception:  # NCCL is absent from some builds (Windows); not knowing is fine
            nccl = None
        bf16 = bool(torch.cuda.is_bf16_supported())
    cudnn = torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None
    return TorchFacts(
        installed=True,
        version=str(torch.__version__),
        cuda_build=torch.version.cuda,
        hip_build=getattr(torch.version, "hip", None),
        cuda_available=available,
        device_count=count,
        device_names=tuple(str(torch.cuda.get_device_name(i)) for i in range(count)),
        cudnn_version=None if cudnn is None else int(cudnn),
        nccl_version=nccl,
        bf16_supported=bf16,
        peer_access=_peer_access(torch, count),
    )


def _import_pynvml() -> tuple[Any | None, str | None]:
    try:
        return importlib.import_module("pynvml"), None
    except ImportError:
        return (
            None,
            N_(
                "nvidia-ml-py is not installed, so the driver cannot be queried (pip install 'gpuplan[nvml]')"
            ),
        )


def _import_torch() -> ModuleType:
    return importlib.import_module("torch")


def probe_machine(
    env: Mapping[str, str],
    *,
    nvml: Any | None = None,
    import_torch: Callable[[], ModuleType] = _import_torch,
) -> MachineFacts:
    """Everything the doctor needs. ``nvml=None`` imports pynvml (reported, not raised, if missing)."""
    reason: str | None = None
    if nvml is None:
        nvml, reason = _import_pynvml()
    driver = None
    if nvml is not None:
        driver, reason = probe_driver(nvml)
    return MachineFacts(
        host=socket.gethostname(),
        python_version=platform.python_version(),
        platform=platform.platform(),
        torch=probe_torch(import_torch),
        driver=driver,
        nvml_error=reason,
        env=_relevant_env(env),
        cpu_threads=cpu_threads(),
    )


def cpu_threads() -> int | None:
    """The CPU threads this process may run on: its affinity mask where the OS has one (a container
    or ``taskset`` may allow fewer than the machine has), else every CPU; None where neither is known."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count()
