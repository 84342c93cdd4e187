"""The doctor's per-GPU checks, from NVML facts: inventory, MIG, virtualization, PCIe, ECC, clocks.

Pure functions of :class:`MachineFacts`; registered in :data:`gpuplan.machine.checks.CHECKS`.
"""

from __future__ import annotations

from gpuplan.i18n import N_, _
from gpuplan.i18n.phrases import item_list
from gpuplan.machine.facts import GpuFacts, MachineFacts
from gpuplan.machine.findings import Finding, Severity
from gpuplan.machine.identify import identify_gpu

__all__ = [
    "check_clocks",
    "check_ecc",
    "check_gpus",
    "check_mig",
    "check_pcie",
    "check_peer_access",
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
                    message=_(
                        "GPU {index}: {name}{memory}; not in gpuplan's datasheet table, so `gpuplan "
                        "bench` cannot compare it with a datasheet"
                    ).format(index=g.index, name=g.name, memory=mem),
                    gpu_index=g.index,
                )
            )
        else:
            found.append(
                Finding(
                    check="gpu",
                    severity=Severity.OK,
                    message=_("GPU {index}: {name}{memory} (datasheet {gpu})").format(
                        index=g.index, name=g.name, memory=mem, gpu=gpu.id
                    ),
                    gpu_index=g.index,
                )
            )
        if g.memory_used_bytes and g.memory_total_bytes and g.memory_used_bytes > 0.1 * g.memory_total_bytes:
            found.append(
                Finding(
                    check="gpu_memory_in_use",
                    severity=Severity.WARNING,
                    message=_(
                        "GPU {index}: {used_gib} GiB of memory are already in use by other processes"
                    ).format(index=g.index, used_gib=f"{g.memory_used_bytes / _GIB:.1f}"),
                    fix=_(
                        "See `nvidia-smi` for the processes; a leftover job, or a GPU shared with other "
                        "tenants"
                    ),
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
                    message=_(
                        "GPU {index}: MIG is enabled; CUDA programs get MIG instances (a fraction of "
                        "the SMs and memory each), not the whole GPU; datasheet peaks overstate what one gets"
                    ).format(index=g.index),
                    fix=_(
                        "Fine if you rented a slice. For the whole GPU: `sudo nvidia-smi -i "
                        "{index} -mig 0` and a GPU reset (the provider may not allow it)"
                    ).format(index=g.index),
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
                    message=_("GPU {index}: a MIG mode change is pending (now {now}, next {next})").format(
                        index=g.index, now=_on_off(g.mig_mode_current), next=_on_off(g.mig_mode_pending)
                    ),
                    fix=_("Reset the GPU (`sudo nvidia-smi -i {index} -r`) or reboot to apply it").format(
                        index=g.index
                    ),
                    gpu_index=g.index,
                )
            )
    return found


def _on_off(flag: bool | None) -> str:
    return _("on") if flag else _("off")


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
                    message=_("GPU {index}: bare metal").format(index=g.index),
                    gpu_index=g.index,
                )
            )
        elif mode == "PASSTHROUGH":
            found.append(
                Finding(
                    check="virtualization",
                    severity=Severity.OK,
                    message=_("GPU {index}: the whole physical GPU is passed through to this VM").format(
                        index=g.index
                    ),
                    gpu_index=g.index,
                )
            )
        elif mode == "VGPU":
            found.append(
                Finding(
                    check="virtualization",
                    severity=Severity.WARNING,
                    message=_(
                        "GPU {index}: this is a vGPU — a share of a physical GPU, time-sliced or "
                        "partitioned with other VMs; speed and memory can be a fraction of the datasheet, "
                        "and P2P, unified memory or profiling may be disabled"
                    ).format(index=g.index),
                    fix=_(
                        "Run `gpuplan bench` to see what you really get; if you paid for a whole GPU, ask "
                        "the provider for a passthrough or bare-metal instance"
                    ),
                    gpu_index=g.index,
                )
            )
        else:
            found.append(
                Finding(
                    check="virtualization",
                    severity=Severity.INFO,
                    message=_(
                        "GPU {index}: virtualization mode {mode} — this machine is a vGPU hypervisor host"
                    ).format(index=g.index, mode=mode),
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
                        message=_(
                            "GPU {index}: PCIe link runs at {now} under load ({busy_pct} % busy), below its "
                            "maximum {best}; host↔device copies are slower"
                        ).format(index=g.index, now=now, busy_pct=g.utilization_gpu_pct, best=best),
                        fix=_(
                            "Check the slot, riser and BIOS PCIe speed settings (`nvidia-smi -q -d PCIE`); "
                            "on a cloud VM, report it to the provider"
                        ),
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
                        message=_(
                            "GPU {index}: PCIe link at {now} now, maximum {best}; idle GPUs lower the "
                            "link to save power, so this is expected unless it stays so under load"
                        ).format(index=g.index, now=now, best=best),
                        fix=_("Re-check while the GPU is busy (e.g. during `gpuplan bench`)"),
                        gpu_index=g.index,
                    )
                )
        else:
            found.append(
                Finding(
                    check="pcie_link",
                    severity=Severity.OK,
                    message=_("GPU {index}: PCIe link {now}").format(index=g.index, now=now),
                    gpu_index=g.index,
                )
            )
        if g.pcie_width_max is not None and g.pcie_width_max < 16:
            found.append(
                Finding(
                    check="pcie_link",
                    severity=Severity.WARNING,
                    message=_(
                        "GPU {index}: the link is at most x{width}, so host↔device bandwidth is at "
                        "most {width}/16 of a x16 link"
                    ).format(index=g.index, width=g.pcie_width_max),
                    fix=_("Move the GPU to a x16 slot, or ask the provider about the host's topology"),
                    gpu_index=g.index,
                )
            )
        gpu = identify_gpu(g.name, memory_bytes=g.memory_total_bytes)
        if gpu is not None and g.pcie_gen_max is not None and g.pcie_gen_max < gpu.pcie_gen:
            found.append(
                Finding(
                    check="pcie_link",
                    severity=Severity.INFO,
                    message=_(
                        "GPU {index}: the host limits the link to Gen{host_gen}; "
                        "the GPU supports Gen{gpu_gen}"
                    ).format(index=g.index, host_gen=g.pcie_gen_max, gpu_gen=gpu.pcie_gen),
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
                    message=_(
                        "GPU {index}: {count} uncorrected ECC error(s) since the "
                        "driver loaded; computations on this GPU may be corrupt"
                    ).format(index=g.index, count=g.ecc_volatile_uncorrected),
                    fix=_(
                        "Stop jobs on it; check `nvidia-smi -q -d ECC,PAGE_RETIREMENT,ROW_REMAPPER`; reset "
                        "the GPU or reboot; if errors return, the GPU is failing: ask the provider for "
                        "another machine"
                    ),
                    gpu_index=g.index,
                )
            )
        elif g.ecc_enabled is False:
            found.append(
                Finding(
                    check="ecc",
                    severity=Severity.INFO,
                    message=_(
                        "GPU {index}: ECC is off (a little more memory, no memory error detection)"
                    ).format(index=g.index),
                    fix=_("For long training runs: `sudo nvidia-smi -i {index} -e 1` and reboot").format(
                        index=g.index
                    ),
                    gpu_index=g.index,
                )
            )
        elif g.ecc_enabled and g.ecc_volatile_uncorrected == 0:
            found.append(
                Finding(
                    check="ecc",
                    severity=Severity.OK,
                    message=_("GPU {index}: ECC on, no uncorrected errors").format(index=g.index),
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
            message=_(
                "persistence mode is off on GPU(s) {indices}: the driver tears the GPU "
                "down when no process uses it, so each new process starts seconds slower"
            ).format(indices=item_list(map(str, off))),
            fix=_("`sudo nvidia-smi -pm 1`, or better enable the nvidia-persistenced service"),
        )
    ]


#: NVML clock-event reasons that mean trouble, with severity and advice (nvml.h, "Clocks Event Reasons").
_CLOCK_REASONS: dict[str, tuple[Severity, str, str]] = {
    "HW_SLOWDOWN": (
        Severity.ERROR,
        N_("hardware slowdown (clocks cut by half or more: overheating or power supply)"),
        N_("Check temperatures and power cables/PSU; on a cloud VM, ask the provider to move you"),
    ),
    "HW_THERMAL_SLOWDOWN": (
        Severity.ERROR,
        N_("hardware thermal slowdown (the GPU is too hot)"),
        N_("Check airflow and fans; on a cloud VM, ask the provider to move you"),
    ),
    "HW_POWER_BRAKE_SLOWDOWN": (
        Severity.ERROR,
        N_("external power brake (the system's power supply asserted a slowdown)"),
        N_("Check the PSU and power cabling; on a cloud VM, ask the provider to move you"),
    ),
    "SW_THERMAL_SLOWDOWN": (
        Severity.WARNING,
        N_("software thermal slowdown (the driver lowers clocks to keep the GPU below its thermal limit)"),
        N_("Improve cooling; sustained throughput will be below the datasheet"),
    ),
    "SW_POWER_CAP": (
        Severity.INFO,
        N_(
            "power cap (normal at full load; if the GPU is idle, check the power limit with "
            "`nvidia-smi -q -d POWER`)"
        ),
        "",
    ),
    "APPLICATIONS_CLOCKS_SETTING": (
        Severity.INFO,
        N_("application clocks set below the maximum"),
        N_("`sudo nvidia-smi -rac` resets them"),
    ),
    "SYNC_BOOST": (Severity.INFO, N_("sync boost (clocks held to those of the slowest GPU of a group)"), ""),
    "DISPLAY_CLOCK_SETTING": (Severity.INFO, N_("display clock setting"), ""),
}


def check_clocks(facts: MachineFacts) -> list[Finding]:
    """Why clocks are below maximum (nvmlDeviceGetCurrentClocksEventReasons)."""
    found = []
    for g in gpus_of(facts):
        if g.clock_event_reasons is None:
            continue
        temp = (
            _(" at {temperature_c} °C").format(temperature_c=g.temperature_c)
            if g.temperature_c is not None
            else ""
        )
        reported = [r for r in g.clock_event_reasons if r in _CLOCK_REASONS]
        if not reported:
            idle = _(" (idle)") if "GPU_IDLE" in g.clock_event_reasons else ""
            found.append(
                Finding(
                    check="clocks",
                    severity=Severity.OK,
                    message=_("GPU {index}: no clock slowdown{idle}{temperature}").format(
                        index=g.index, idle=idle, temperature=temp
                    ),
                    gpu_index=g.index,
                )
            )
        for reason in reported:
            severity, what, fix = _CLOCK_REASONS[reason]
            found.append(
                Finding(
                    check="clocks",
                    severity=severity,
                    message=_("GPU {index}: clocks limited by {reason}{temperature}").format(
                        index=g.index, reason=_(what), temperature=temp
                    ),
                    fix=_(fix) if fix else None,
                    gpu_index=g.index,
                )
            )
    return found


def check_peer_access(facts: MachineFacts) -> list[Finding]:
    """Can the visible GPUs read each other's memory (CUDA peer access, NCCL's P2P transport)? Without it
    NCCL copies every collective through host memory, which is slower (``perf.links`` takes an
    all-reduce at 0.40 of PCIe's rate instead of 0.70)."""
    t = facts.torch
    if not t.cuda_available:
        return [
            Finding(
                check="peer_access",
                severity=Severity.INFO,
                message=_("peer access (P2P) between GPUs not checked: PyTorch sees no CUDA GPU here"),
            )
        ]
    if t.device_count < 2:
        return []  # one GPU: nothing to join
    if t.peer_access is None:
        return [
            Finding(
                check="peer_access",
                severity=Severity.INFO,
                message=_("peer access (P2P) between the {count} GPUs could not be read").format(
                    count=t.device_count
                ),
                fix=_("`nvidia-smi topo -p2p r` shows it (OK: peer to peer)"),
            )
        ]
    m = t.peer_access
    denied = [f"{i}↔{j}" for i in range(len(m)) for j in range(i + 1, len(m)) if not (m[i][j] and m[j][i])]
    if not denied:
        return [
            Finding(
                check="peer_access",
                severity=Severity.OK,
                message=_("the {count} GPUs reach each other peer to peer (P2P)").format(count=len(m)),
            )
        ]
    sheets = [identify_gpu(name) for name in t.device_names]
    if any(g is not None and not g.pcie_peer_access for g in sheets):
        fix = _(
            "NVIDIA's driver gives GeForce cards no P2P: expected, and `gpuplan estimate` costs such a "
            "machine at the slower rate; data-centre or workstation cards (L40S, RTX A6000 …) have P2P"
        )
    else:
        fix = _(
            "`nvidia-smi topo -p2p r` shows why (CNS, TNS: the chipset or topology; NS: not supported). On "
            "bare metal, check PCIe ACS and the IOMMU (NCCL's troubleshooting guide); in a VM, ask the "
            "provider for GPUs passed through with P2P"
        )
    return [
        Finding(
            check="peer_access",
            severity=Severity.WARNING,
            message=_(
                "no peer access (P2P) between GPUs {pairs}: NCCL copies their traffic through host memory, "
                "slower than GPU to GPU"
            ).format(pairs=item_list(denied)),
            fix=fix,
        )
    ]
