"""The doctor's checks: pure functions of :class:`MachineFacts` to findings; no I/O, no torch, no NVML.

Each check looks at one concern and returns its findings (possibly none, when the concern does not
apply). ``CHECKS`` is the explicit, ordered registry; :func:`diagnose` runs it.
"""

from __future__ import annotations

from collections.abc import Callable

from gpuplan.machine.cuda_compat import CudaCompatStatus, cuda_compat
from gpuplan.machine.facts import GpuFacts, MachineFacts
from gpuplan.machine.findings import Finding, Severity
from gpuplan.machine.identify import identify_gpu

__all__ = ["CHECKS", "diagnose"]

_GIB = 1024**3
#: Above this utilisation (%) a GPU counts as busy, so a narrowed PCIe link is not idle power saving.
_BUSY_UTILIZATION_PCT = 50
_TORCH_INSTALL_URL = "https://pytorch.org/get-started/locally/"


def _gpus(facts: MachineFacts) -> tuple[GpuFacts, ...]:
    return facts.driver.gpus if facts.driver else ()


def check_python(facts: MachineFacts) -> list[Finding]:
    """Python version and platform, for the record."""
    return [
        Finding(
            check="python", severity=Severity.OK, message=f"Python {facts.python_version} on {facts.platform}"
        )
    ]


def check_torch(facts: MachineFacts) -> list[Finding]:
    """Is PyTorch installed, and which build (CPU, CUDA x.y, ROCm)?"""
    t = facts.torch
    if not t.installed:
        return [
            Finding(
                check="torch",
                severity=Severity.ERROR,
                message=f"PyTorch is not installed ({t.import_error})",
                fix=f"pip install torch; on a GPU machine pick the wheel for a CUDA version the driver "
                f"supports ({_TORCH_INSTALL_URL})",
            )
        ]
    if t.cuda_build:
        build = f"built for CUDA {t.cuda_build}"
    elif t.hip_build:
        build = f"built for ROCm {t.hip_build}"
    else:
        build = "CPU-only build"
    return [Finding(check="torch", severity=Severity.OK, message=f"PyTorch {t.version} ({build})")]


def check_driver(facts: MachineFacts) -> list[Finding]:
    """Is there an NVIDIA driver, which version, and does it see GPUs?"""
    d = facts.driver
    if d is None:
        if facts.torch.cuda_available:
            # pynvml missing or NVML refused, yet CUDA works: the GPU is fine, only the doctor is blind.
            return [
                Finding(
                    check="driver",
                    severity=Severity.INFO,
                    message=f"CUDA works but the driver cannot be inspected: {facts.nvml_error}",
                    fix="pip install 'gpuplan[nvml]' to check driver, ECC, clocks and PCIe",
                )
            ]
        return [
            Finding(
                check="driver",
                severity=Severity.WARNING,
                message=f"No NVIDIA GPU usable on this machine: {facts.nvml_error}",
                fix="Expected on a laptop or CI runner without a GPU. On a GPU machine: install the NVIDIA "
                "driver (the provider's GPU image, or e.g. `sudo apt install nvidia-driver-550`), reboot, "
                "and check that `nvidia-smi` lists the GPUs",
            )
        ]
    cuda = f", supports CUDA up to {d.cuda_driver_version_str}" if d.cuda_driver_version_str else ""
    if not d.gpus:
        return [
            Finding(
                check="driver",
                severity=Severity.ERROR,
                message=f"NVIDIA driver {d.driver_version}{cuda} is loaded but reports no GPU",
                fix="Check `nvidia-smi` and `dmesg | grep -i nvrm`; in a container, run it with `--gpus all` "
                "(NVIDIA Container Toolkit)",
            )
        ]
    return [Finding(check="driver", severity=Severity.OK, message=f"NVIDIA driver {d.driver_version}{cuda}")]


def check_cuda_compat(facts: MachineFacts) -> list[Finding]:
    """Can the driver run the CUDA version PyTorch was built with? (rules in :mod:`.cuda_compat`)"""
    d, t = facts.driver, facts.torch
    if d is None or not t.cuda_build:
        return []
    c = cuda_compat(
        driver_version=d.driver_version, driver_cuda_version=d.cuda_driver_version, build_cuda=t.cuda_build
    )
    reinstall = f"or install a PyTorch wheel built for CUDA {c.driver_cuda} or older ({_TORCH_INSTALL_URL})"
    if c.status is CudaCompatStatus.SUPPORTED:
        return [
            Finding(
                check="cuda_compat",
                severity=Severity.OK,
                message=f"driver supports CUDA {c.driver_cuda} ≥ PyTorch's CUDA {c.build_cuda}",
            )
        ]
    if c.status is CudaCompatStatus.MINOR_COMPAT:
        return [
            Finding(
                check="cuda_compat",
                severity=Severity.WARNING,
                message=f"driver {d.driver_version} supports CUDA {c.driver_cuda}, older than PyTorch's CUDA "
                f"{c.build_cuda}: it runs through CUDA minor-version compatibility, with a limited feature "
                "set (no JIT of newer PTX; some calls fail with cudaErrorCallRequiresNewerDriver)",
                fix=f"Upgrade the driver to one that supports CUDA {c.build_cuda}, {reinstall}",
            )
        ]
    if c.status is CudaCompatStatus.TOO_OLD:
        return [
            Finding(
                check="cuda_compat",
                severity=Severity.ERROR,
                message=f"driver {d.driver_version} (CUDA {c.driver_cuda or '?'}) is too old for PyTorch's "
                "CUDA "
                f"{c.build_cuda}, which needs a driver ≥ {c.min_driver} (Linux): CUDA cannot start",
                fix=f"Upgrade the NVIDIA driver to ≥ {c.min_driver}, {reinstall}. On data-center GPUs the "
                "cuda-compat forward-compatibility package is another way",
            )
        ]
    return [
        Finding(
            check="cuda_compat",
            severity=Severity.INFO,
            message=f"cannot tell whether driver {d.driver_version} runs PyTorch's CUDA {t.cuda_build} "
            f"(the driver did not report its CUDA version)",
            fix="Compare `nvidia-smi`'s 'CUDA Version' with torch.version.cuda: it must be the same or newer",
        )
    ]


def check_torch_cuda(facts: MachineFacts) -> list[Finding]:
    """``torch.cuda.is_available()`` and why it is False when GPUs exist."""
    t, gpus = facts.torch, _gpus(facts)
    if not t.installed:
        return []
    visible = facts.env.get("CUDA_VISIBLE_DEVICES")
    if t.cuda_available:
        found = [
            Finding(
                check="torch_cuda",
                severity=Severity.OK,
                message=f"torch.cuda.is_available() is True; {t.device_count} device(s): "
                f"{', '.join(t.device_names)}",
            )
        ]
        if gpus and t.device_count < len(gpus) and visible is not None:
            found.append(
                Finding(
                    check="torch_cuda",
                    severity=Severity.INFO,
                    message=f"PyTorch sees {t.device_count} of {len(gpus)} GPUs because "
                    f"CUDA_VISIBLE_DEVICES={visible}",
                )
            )
        return found
    if not gpus:
        build = "a CUDA build, but there is no GPU" if t.cuda_build else "a CPU-only build"
        return [
            Finding(
                check="torch_cuda",
                severity=Severity.INFO,
                message=f"torch.cuda.is_available() is False: PyTorch is {build}; it will run on the CPU",
            )
        ]
    if not t.cuda_build:
        return [
            Finding(
                check="torch_cuda",
                severity=Severity.ERROR,
                message=f"PyTorch {t.version} is a CPU-only build, so it cannot use the {len(gpus)} GPU(s) "
                "here",
                fix=f"Reinstall PyTorch from a CUDA wheel index, e.g. `pip install torch --index-url "
                f"https://download.pytorch.org/whl/cu128` ({_TORCH_INSTALL_URL})",
            )
        ]
    if visible is not None and visible.strip() in ("", "-1", "none", "void"):
        fix = f"CUDA_VISIBLE_DEVICES={visible!r} hides every GPU: unset it or list the GPUs (0,1,…)"
    else:
        fix = (
            "Check the cuda_compat finding above; in a container run with `--gpus all` (NVIDIA Container "
            "Toolkit); check that /dev/nvidia* is readable; after a driver upgrade, reboot"
        )
    return [
        Finding(
            check="torch_cuda",
            severity=Severity.ERROR,
            message=f"torch.cuda.is_available() is False although the driver lists {len(gpus)} GPU(s)",
            fix=fix,
        )
    ]


def check_gpus(facts: MachineFacts) -> list[Finding]:
    """Each GPU: name, memory, the datasheet gpuplan compares it with, memory others already hold."""
    found = []
    for g in _gpus(facts):
        mem = f", {g.memory_total_bytes / _GIB:.1f} GiB" if g.memory_total_bytes else ""
        gpu = identify_gpu(g.name, memory_bytes=g.memory_total_bytes)
        if gpu is None:
            found.append(
                Finding(
                    check="gpu",
                    severity=Severity.INFO,
                    message=f"GPU {g.index}: {g.name}{mem}; not in gpuplan's datasheet table, so `gpuplan "
                    "bench` cannot compare it with a datasheet",
                    gpu_index=g.index,
                )
            )
        else:
            found.append(
                Finding(
                    check="gpu",
                    severity=Severity.OK,
                    message=f"GPU {g.index}: {g.name}{mem} (datasheet {gpu.id})",
                    gpu_index=g.index,
                )
            )
        if g.memory_used_bytes and g.memory_total_bytes and g.memory_used_bytes > 0.1 * g.memory_total_bytes:
            found.append(
                Finding(
                    check="gpu_memory_in_use",
                    severity=Severity.WARNING,
                    message=f"GPU {g.index}: {g.memory_used_bytes / _GIB:.1f} GiB of memory are already in "
                    "use by other processes",
                    fix="See `nvidia-smi` for the processes; a leftover job, or a GPU shared with other "
                    "tenants",
                    gpu_index=g.index,
                )
            )
    return found


def check_mig(facts: MachineFacts) -> list[Finding]:
    """MIG: a slice of a GPU is not the GPU (nvmlDeviceGetMigMode)."""
    found = []
    for g in _gpus(facts):
        if g.mig_mode_current:
            found.append(
                Finding(
                    check="mig",
                    severity=Severity.WARNING,
                    message=f"GPU {g.index}: MIG is enabled; CUDA programs get MIG instances (a fraction of "
                    "the SMs and memory each), not the whole GPU; datasheet peaks overstate what one gets",
                    fix="Fine if you rented a slice. For the whole GPU: `sudo nvidia-smi -i "
                    f"{g.index} -mig 0` and a GPU reset (the provider may not allow it)",
                    gpu_index=g.index,
                )
            )
        if (
            g.mig_mode_pending is not None
            and g.mig_mode_current is not None
            and g.mig_mode_pending != g.mig_mode_current
        ):
            found.append(
                Finding(
                    check="mig",
                    severity=Severity.WARNING,
                    message=f"GPU {g.index}: a MIG mode change is pending (now "
                    f"{'on' if g.mig_mode_current else 'off'}, next {'on' if g.mig_mode_pending else 'off'})",
                    fix=f"Reset the GPU (`sudo nvidia-smi -i {g.index} -r`) or reboot to apply it",
                    gpu_index=g.index,
                )
            )
    return found


def check_virtualization(facts: MachineFacts) -> list[Finding]:
    """Bare metal, passthrough or vGPU (nvmlDeviceGetVirtualizationMode)."""
    found = []
    for g in _gpus(facts):
        mode = g.virtualization_mode
        if mode is None:
            continue
        if mode == "NONE":
            found.append(
                Finding(
                    check="virtualization",
                    severity=Severity.OK,
                    message=f"GPU {g.index}: bare metal",
                    gpu_index=g.index,
                )
            )
        elif mode == "PASSTHROUGH":
            found.append(
                Finding(
                    check="virtualization",
                    severity=Severity.OK,
                    message=f"GPU {g.index}: the whole physical GPU is passed through to this VM",
                    gpu_index=g.index,
                )
            )
        elif mode == "VGPU":
            found.append(
                Finding(
                    check="virtualization",
                    severity=Severity.WARNING,
                    message=f"GPU {g.index}: this is a vGPU — a share of a physical GPU, time-sliced or "
                    "partitioned with other VMs; speed and memory can be a fraction of the datasheet, and "
                    "P2P, unified memory or profiling may be disabled",
                    fix="Run `gpuplan bench` to see what you really get; if you paid for a whole GPU, ask "
                    "the provider for a passthrough or bare-metal instance",
                    gpu_index=g.index,
                )
            )
        else:
            found.append(
                Finding(
                    check="virtualization",
                    severity=Severity.INFO,
                    message=f"GPU {g.index}: virtualization mode {mode} — this machine is a vGPU hypervisor "
                    "host",
                    gpu_index=g.index,
                )
            )
    return found


def _link(gen: int | None, width: int | None) -> str:
    return f"Gen{gen if gen is not None else '?'} x{width if width is not None else '?'}"


def check_pcie(facts: MachineFacts) -> list[Finding]:
    """PCIe link now vs its maximum, with the idle caveat; a slot narrower or older than the GPU."""
    found = []
    for g in _gpus(facts):
        gens = (g.pcie_gen_current, g.pcie_gen_max)
        widths = (g.pcie_width_current, g.pcie_width_max)
        if None in gens and None in widths:
            continue
        now = _link(g.pcie_gen_current, g.pcie_width_current)
        best = _link(g.pcie_gen_max, g.pcie_width_max)
        degraded = any(cur is not None and top is not None and cur < top for cur, top in (gens, widths))
        if degraded:
            busy = g.utilization_gpu_pct is not None and g.utilization_gpu_pct >= _BUSY_UTILIZATION_PCT
            if busy:
                found.append(
                    Finding(
                        check="pcie_link",
                        severity=Severity.WARNING,
                        message=f"GPU {g.index}: PCIe link runs at {now} under load "
                        f"({g.utilization_gpu_pct} % busy), below its maximum {best}; host↔device copies are "
                        "slower",
                        fix="Check the slot, riser and BIOS PCIe speed settings (`nvidia-smi -q -d PCIE`); "
                        "on a cloud VM, report it to the provider",
                        gpu_index=g.index,
                    )
                )
            else:
                # NB: NVIDIA GPUs lower the link generation when idle to save power (nvidia-smi -q shows
                # "Link Gen Current" at 1 at idle), so a slow link now says nothing by itself.
                found.append(
                    Finding(
                        check="pcie_link",
                        severity=Severity.INFO,
                        message=f"GPU {g.index}: PCIe link at {now} now, maximum {best}; idle GPUs lower the "
                        "link to save power, so this is expected unless it stays so under load",
                        fix="Re-check while the GPU is busy (e.g. during `gpuplan bench`)",
                        gpu_index=g.index,
                    )
                )
        else:
            found.append(
                Finding(
                    check="pcie_link",
                    severity=Severity.OK,
                    message=f"GPU {g.index}: PCIe link {now}",
                    gpu_index=g.index,
                )
            )
        if g.pcie_width_max is not None and g.pcie_width_max < 16:
            found.append(
                Finding(
                    check="pcie_link",
                    severity=Severity.WARNING,
                    message=f"GPU {g.index}: the link is at most x{g.pcie_width_max}, so host↔device "
                    "bandwidth is at "
                    f"most {g.pcie_width_max}/16 of a x16 link",
                    fix="Move the GPU to a x16 slot, or ask the provider about the host's topology",
                    gpu_index=g.index,
                )
            )
        gpu = identify_gpu(g.name, memory_bytes=g.memory_total_bytes)
        if gpu is not None and g.pcie_gen_max is not None and g.pcie_gen_max < gpu.pcie_gen:
            found.append(
                Finding(
                    check="pcie_link",
                    severity=Severity.INFO,
                    message=f"GPU {g.index}: the host limits the link to Gen{g.pcie_gen_max}; the GPU "
                    "supports "
                    f"Gen{gpu.pcie_gen}",
                    gpu_index=g.index,
                )
            )
    return found


def check_ecc(facts: MachineFacts) -> list[Finding]:
    """Uncorrected ECC errors since the driver loaded (volatile counter); ECC switched off."""
    found = []
    for g in _gpus(facts):
        if g.ecc_volatile_uncorrected:
            found.append(
                Finding(
                    check="ecc",
                    severity=Severity.ERROR,
                    message=f"GPU {g.index}: {g.ecc_volatile_uncorrected} uncorrected ECC error(s) since the "
                    "driver loaded; computations on this GPU may be corrupt",
                    fix="Stop jobs on it; check `nvidia-smi -q -d ECC,PAGE_RETIREMENT,ROW_REMAPPER`; reset "
                    "the GPU or reboot; if errors return, the GPU is failing: ask the provider for another "
                    "machine",
                    gpu_index=g.index,
                )
            )
        elif g.ecc_enabled is False:
            found.append(
                Finding(
                    check="ecc",
                    severity=Severity.INFO,
                    message=f"GPU {g.index}: ECC is off (a little more memory, no memory error detection)",
                    fix=f"For long training runs: `sudo nvidia-smi -i {g.index} -e 1` and reboot",
                    gpu_index=g.index,
                )
            )
        elif g.ecc_enabled and g.ecc_volatile_uncorrected == 0:
            found.append(
                Finding(
                    check="ecc",
                    severity=Severity.OK,
                    message=f"GPU {g.index}: ECC on, no uncorrected errors",
                    gpu_index=g.index,
                )
            )
    return found


def check_persistence(facts: MachineFacts) -> list[Finding]:
    """Persistence mode off makes the first CUDA call of every process slow (driver re-initialisation)."""
    off = [g.index for g in _gpus(facts) if g.persistence_mode is False]
    if not off:
        return []
    return [
        Finding(
            check="persistence_mode",
            severity=Severity.INFO,
            message=f"persistence mode is off on GPU(s) {', '.join(map(str, off))}: the driver tears the GPU "
            "down when no process uses it, so each new process starts seconds slower",
            fix="`sudo nvidia-smi -pm 1`, or better enable the nvidia-persistenced service",
        )
    ]


#: NVML clock-event reasons that mean trouble, with severity and advice (nvml.h, "Clocks Event Reasons").
_CLOCK_REASONS: dict[str, tuple[Severity, str, str]] = {
    "HW_SLOWDOWN": (
        Severity.ERROR,
        "hardware slowdown (clocks cut by half or more: overheating or power supply)",
        "Check temperatures and power cables/PSU; on a cloud VM, ask the provider to move you",
    ),
    "HW_THERMAL_SLOWDOWN": (
        Severity.ERROR,
        "hardware thermal slowdown (the GPU is too hot)",
        "Check airflow and fans; on a cloud VM, ask the provider to move you",
    ),
    "HW_POWER_BRAKE_SLOWDOWN": (
        Severity.ERROR,
        "external power brake (the system's power supply asserted a slowdown)",
        "Check the PSU and power cabling; on a cloud VM, ask the provider to move you",
    ),
    "SW_THERMAL_SLOWDOWN": (
        Severity.WARNING,
        "software thermal slowdown (the driver lowers clocks to keep the GPU below its thermal limit)",
        "Improve cooling; sustained throughput will be below the datasheet",
    ),
    "SW_POWER_CAP": (
        Severity.INFO,
        "power cap (normal at full load; if the GPU is idle, check the power limit with `nvidia-smi -q -d "
        "POWER`)",
        "",
    ),
    "APPLICATIONS_CLOCKS_SETTING": (
        Severity.INFO,
        "application clocks set below the maximum",
        "`sudo nvidia-smi -rac` resets them",
    ),
    "SYNC_BOOST": (Severity.INFO, "sync boost (clocks held to those of the slowest GPU of a group)", ""),
    "DISPLAY_CLOCK_SETTING": (Severity.INFO, "display clock setting", ""),
}


def check_clocks(facts: MachineFacts) -> list[Finding]:
    """Why clocks are below maximum (nvmlDeviceGetCurrentClocksEventReasons)."""
    found = []
    for g in _gpus(facts):
        if g.clock_event_reasons is None:
            continue
        temp = f" at {g.temperature_c} °C" if g.temperature_c is not None else ""
        reported = [r for r in g.clock_event_reasons if r in _CLOCK_REASONS]
        if not reported:
            idle = " (idle)" if "GPU_IDLE" in g.clock_event_reasons else ""
            found.append(
                Finding(
                    check="clocks",
                    severity=Severity.OK,
                    message=f"GPU {g.index}: no clock slowdown{idle}{temp}",
                    gpu_index=g.index,
                )
            )
        for reason in reported:
            severity, what, fix = _CLOCK_REASONS[reason]
            found.append(
                Finding(
                    check="clocks",
                    severity=severity,
                    message=f"GPU {g.index}: clocks limited by {what}{temp}",
                    fix=fix or None,
                    gpu_index=g.index,
                )
            )
    return found


def _flag_on(value: str | None) -> bool:
    return value is not None and value.strip().lower() in ("1", "true", "yes", "on")


def check_nccl_env(facts: MachineFacts) -> list[Finding]:
    """NCCL and CUDA environment variables that change multi-GPU speed or debugging."""
    env = facts.env
    found = []
    multi_gpu = len(_gpus(facts)) >= 2 or facts.torch.device_count >= 2
    if _flag_on(env.get("NCCL_P2P_DISABLE")):
        found.append(
            Finding(
                check="nccl_env",
                severity=Severity.WARNING,
                message="NCCL_P2P_DISABLE=1: GPUs cannot talk directly (NVLink / PCIe peer-to-peer); "
                "all-reduce goes through host memory, several times slower",
                fix="Unset it unless P2P hangs on this machine (some VMs and hosts with PCIe ACS need it)",
            )
        )
    if _flag_on(env.get("NCCL_SHM_DISABLE")):
        found.append(
            Finding(
                check="nccl_env",
                severity=Severity.WARNING,
                message="NCCL_SHM_DISABLE=1: intra-node traffic without P2P falls back to sockets",
                fix="Unset it; in Docker give the container enough shared memory (`--shm-size=16g` or "
                "`--ipc=host`)",
            )
        )
    if _flag_on(env.get("NCCL_IB_DISABLE")):
        found.append(
            Finding(
                check="nccl_env",
                severity=Severity.INFO,
                message="NCCL_IB_DISABLE=1: InfiniBand/RoCE is off, so traffic between nodes uses TCP "
                "sockets (fine on one node, slow across nodes)",
                fix="Unset it on multi-node jobs with InfiniBand or RoCE (EFA on AWS uses the aws-ofi-nccl "
                "plugin)",
            )
        )
    if "NCCL_SOCKET_IFNAME" in env:
        found.append(
            Finding(
                check="nccl_env",
                severity=Severity.INFO,
                message=f"NCCL_SOCKET_IFNAME={env['NCCL_SOCKET_IFNAME']}: NCCL bootstraps over this "
                "interface; it "
                "must exist on every node (`ip link`)",
            )
        )
    if "NCCL_DEBUG" in env:
        found.append(
            Finding(
                check="nccl_env",
                severity=Severity.INFO,
                message=f"NCCL_DEBUG={env['NCCL_DEBUG']}: NCCL logs its topology and transports (good for "
                "diagnosis, noisy in production)",
            )
        )
    elif multi_gpu:
        found.append(
            Finding(
                check="nccl_env",
                severity=Severity.INFO,
                message="to diagnose slow or hanging multi-GPU training, run it once with NCCL_DEBUG=INFO",
                fix="Look for 'via P2P/IPC' or 'NVLS' (fast) versus 'via NET/Socket' (slow) in the log",
            )
        )
    if _flag_on(env.get("CUDA_LAUNCH_BLOCKING")):
        found.append(
            Finding(
                check="nccl_env",
                severity=Severity.WARNING,
                message="CUDA_LAUNCH_BLOCKING=1 serialises every kernel launch: for debugging only, it slows "
                "training a lot",
                fix="Unset it for real runs",
            )
        )
    known = {"NCCL_P2P_DISABLE", "NCCL_SHM_DISABLE", "NCCL_IB_DISABLE", "NCCL_SOCKET_IFNAME", "NCCL_DEBUG"}
    others = [f"{k}={v}" for k, v in env.items() if k.startswith("NCCL_") and k not in known]
    if others:
        found.append(
            Finding(
                check="nccl_env", severity=Severity.INFO, message=f"other NCCL settings: {', '.join(others)}"
            )
        )
    return found


#: Every check, in the order the report shows them.
CHECKS: tuple[Callable[[MachineFacts], list[Finding]], ...] = (
    check_python,
    check_torch,
    check_driver,
    check_cuda_compat,
    check_torch_cuda,
    check_gpus,
    check_mig,
    check_virtualization,
    check_pcie,
    check_ecc,
    check_persistence,
    check_clocks,
    check_nccl_env,
)


def diagnose(facts: MachineFacts) -> list[Finding]:
    """Run every check on ``facts``; findings in check order."""
    return [finding for check in CHECKS for finding in check(facts)]
