"""The doctor's per-GPU checks, from NVML facts: inventory, MIG, virtualization, PCIe, ECC, clocks.

Pure functions of :class:`MachineFacts`; registered in :data:`gpuplan.machine.checks.CHECKS`.
"""

from __future__ import annotations

from gpuplan.machine.facts import GpuFacts, MachineFacts
from gpuplan.machine.findings import Finding, Severity
from gpuplan.machine.identify import identify_gpu

__all__ = [
    "check_clocks",
    "check_ecc",
    "check_gpus",
    "check_mig",
    "check_pcie",
    "check_persistence",
    "check_virtualization",
]

_GIB = 1024**3
#: Above this utilisation (%) a GPU counts as busy, so a narrowed PCIe link is not idle power saving.
_BUSY_UTILIZATION_PCT = 50


def gpus_of(facts: MachineFacts) -> tuple[GpuFacts, ...]:
    """The GPUs NVML listed; none without a driver."""
    return facts.driver.gpus if facts.driver else ()


def check_gpus(facts: MachineFacts) -> list[Finding]:
    """Each GPU: name, memory, the datasheet gpuplan compares it with, memory others already hold."""
    found = []
    for g in gpus_of(facts):
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
    for g in gpus_of(facts):
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
    for g in gpus_of(facts):
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
    for g in gpus_of(facts):
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
    for g in gpus_of(facts):
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
    off = [g.index for g in gpus_of(facts) if g.persistence_mode is False]
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
    for g in gpus_of(facts):
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
