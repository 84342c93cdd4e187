"""Turn text recorded on real machines (``nvidia-smi -q``, ``nvidia-smi``, ``collect_env``) into MachineFacts.

The recordings under ``fixtures/recorded/`` are outputs people pasted into public GitHub issues. This
converter fills :class:`MachineFacts` exactly as :mod:`gpuplan.machine.probe` would have on that
machine: the same units (bytes, lanes, °C), the same enum names (``PASSTHROUGH``, ``SW_POWER_CAP``) and
``None`` for every fact the text does not give, never a guessed default. It lives in the test tree:
it is a way to read recordings, not something the doctor needs.

Field by field, the ``nvidia-smi -q`` line and the NVML call behind both:

- ``Driver Version`` → ``nvmlSystemGetDriverVersion``; ``CUDA Version`` → ``nvmlSystemGetCudaDriverVersion``
  (``"11.0"`` → 11000).
- ``Product Name`` → ``nvmlDeviceGetName``; ``FB Memory Usage/Total, Used`` (MiB) →
  ``nvmlDeviceGetMemoryInfo``.
- ``MIG Mode/Current, Pending`` → ``nvmlDeviceGetMigMode``; ``GPU Virtualization Mode/Virtualization Mode``
  → ``nvmlDeviceGetVirtualizationMode``.
- ``PCI/GPU Link Info/PCIe Generation/Max, Current`` and ``Link Width/Max, Current`` (``16x``) → the four
  ``nvmlDevice*PcieLink*`` calls.
- ``Utilization/Gpu`` (``0 %``), ``Ecc Mode/Current``, ``Persistence Mode``, ``Temperature/GPU Current Temp``.
- ``ECC Errors/Volatile``: uncorrected errors are ``Double Bit/.../Total`` (drivers before 450) or
  ``SRAM Uncorrectable + DRAM Uncorrectable`` (450 on), as ``nvmlDeviceGetTotalEccErrors(UNCORRECTED,
  VOLATILE)``; asked only when ECC is on, like the probe.
- ``Clocks Event Reasons`` (``Clocks Throttle Reasons`` before driver 535): each ``Active`` line → its
  ``nvmlClocksEventReason*`` bit name, in the probe's bit order.

Compute capability is not in ``nvidia-smi -q`` before driver 510 and is left None.

``collect_env`` gives PyTorch's side: ``PyTorch version``, ``CUDA used to build PyTorch``, ``ROCM used to
build PyTorch``, ``Is CUDA available``, ``GPU models and configuration`` (from ``nvidia-smi -L``, so NVML
order), ``Nvidia driver version`` and ``Python version``. Its ``cuDNN version`` is the *system*
libcudnn, not ``torch.backends.cudnn.version()`` (the wheel's own), so it is not used; NCCL and bf16 are
not in it. The ``nvidia-smi`` table header gives the driver's CUDA version, which collect_env lacks.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from gpuplan.machine import MachineFacts
from gpuplan.machine.facts import DriverFacts, GpuFacts, TorchFacts
from gpuplan.machine.probe import CLOCK_EVENT_BITS

RECORDED = Path(__file__).parent / "fixtures" / "recorded"

_MIB = 1024**2
_GPU_HEADER = re.compile(r"^GPU [0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f]$")
_SMI_TABLE_HEADER = re.compile(r"Driver Version:\s*(\S+)\s+CUDA Version:\s*(\S+)")
_COLLECT_GPU = re.compile(r"^GPU (\d+):\s*(.+?)\s*$")

#: ``nvidia-smi -q`` clock-reason lines (both the 535+ "Event" and the older "Throttle" block) → NVML names.
CLOCK_REASON_LINES: dict[str, str] = {
    "Idle": "GPU_IDLE",
    "Applications Clocks Setting": "APPLICATIONS_CLOCKS_SETTING",
    "SW Power Cap": "SW_POWER_CAP",
    "HW Slowdown": "HW_SLOWDOWN",
    "Sync Boost": "SYNC_BOOST",
    "SW Thermal Slowdown": "SW_THERMAL_SLOWDOWN",
    "HW Thermal Slowdown": "HW_THERMAL_SLOWDOWN",
    "HW Power Brake Slowdown": "HW_POWER_BRAKE_SLOWDOWN",
    "Display Clock Setting": "DISPLAY_CLOCK_SETTING",
}
_CLOCK_SECTIONS = ("Clocks Event Reasons", "Clocks Throttle Reasons")

#: ``nvidia-smi -q`` virtualization modes → the probe's ``nvmlGpuVirtualizationMode_t`` names.
VIRT_MODE_LINES: dict[str, str] = {
    "none": "NONE",
    "pass-through": "PASSTHROUGH",
    "vgpu": "VGPU",
    "host vgpu": "HOST_VGPU",
    "host vsga": "HOST_VSGA",
}


def _value(raw: str | None) -> str | None:
    """A value as nvidia-smi prints it; its refusals (``N/A``, ``[N/A]``, ``[Not Supported]``) are None."""
    if raw is None:
        return None
    text = raw.strip()
    if not text or text.strip("[]").lower() in (
        "n/a",
        "not supported",
        "unknown error",
        "insufficient permissions",
    ):
        return None
    return text


def _flag(raw: str | None) -> bool | None:
    text = _value(raw)
    if text is None:
        return None
    if text.lower() in ("enabled", "active", "yes", "on", "true"):
        return True
    if text.lower() in ("disabled", "not active", "no", "off", "false"):
        return False
    raise ValueError(f"not an on/off value: {raw!r}")


def _number(raw: str | None, unit: str = "") -> int | None:
    """``"16x"``, ``"40536 MiB"``, ``"0 %"``, ``"34 C"`` → the integer (unit checked, then dropped)."""
    text = _value(raw)
    if text is None:
        return None
    if unit and not text.endswith(unit):
        raise ValueError(f"expected a value in {unit!r}, got {raw!r}")
    return int(text.removesuffix(unit).strip())


def cuda_version_int(text: str | None) -> int | None:
    """``"12.4"`` → 12040, NVML's ``1000 * major + 10 * minor``; None for N/A."""
    text = _value(text)
    if text is None:
        return None
    major, minor = text.split(".")[:2]
    return 1000 * int(major) + 10 * int(minor)


def _sections(block: list[str]) -> dict[tuple[str, ...], str]:
    """One GPU's ``-q`` block as ``{("PCI", "GPU Link Info", "PCIe Generation", "Max"): "3"}``.

    Sections nest by indentation; a line without ``:`` opens a section, ``key : value`` is a leaf.
    """
    out: dict[tuple[str, ...], str] = {}
    stack: list[tuple[int, str]] = []
    for line in block:
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" "))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        path = tuple(name for _, name in stack)
        key, sep, value = line.strip().partition(":")
        if sep:
            # "HW Thermal Slowdown" sits under "HW Slowdown" as a *leaf* with more indent: it is a
            # sibling reason, not a sub-section, so a leaf never joins the stack.
            out[(*path, key.strip())] = value.strip()
        else:
            stack.append((indent, key.strip()))
    return out


def _get(fields: dict[tuple[str, ...], str], *path: str) -> str | None:
    """A leaf by path, with the key's capitalisation as nvidia-smi varies it ("Virtualization mode").

    An exact path first; else the one leaf whose path *ends* with it, so an excerpt that starts inside
    a section (its ``PCI`` line cut off) still reads. Two such leaves are an error, never a guess.
    """
    wanted = tuple(p.lower() for p in path)
    lowered = {tuple(k.lower() for k in key): value for key, value in fields.items()}
    if wanted in lowered:
        return lowered[wanted]
    ends = [value for key, value in lowered.items() if key[-len(wanted) :] == wanted]
    if len(ends) > 1:
        raise ValueError(f"{'/'.join(path)} is ambiguous in this block")
    return ends[0] if ends else None


def _clock_reasons(fields: dict[tuple[str, ...], str]) -> tuple[str, ...] | None:
    active: set[str] = set()
    seen = False
    for key, value in fields.items():
        if len(key) == 2 and key[0] in _CLOCK_SECTIONS and key[1] in CLOCK_REASON_LINES:
            seen = True
            if _flag(value):
                active.add(CLOCK_REASON_LINES[key[1]])
    if not seen:
        return None
    return tuple(name for name in CLOCK_EVENT_BITS.values() if name in active)


def _ecc_volatile_uncorrected(fields: dict[tuple[str, ...], str]) -> int | None:
    old = _number(_get(fields, "ECC Errors", "Volatile", "Double Bit", "Total"))
    if old is not None:
        return old
    parts = [
        _number(_get(fields, "ECC Errors", "Volatile", name))
        for name in ("SRAM Uncorrectable", "DRAM Uncorrectable")
    ]
    known = [p for p in parts if p is not None]
    return sum(known) if known else None


def _gpu(index: int, fields: dict[tuple[str, ...], str]) -> GpuFacts:
    name = _value(_get(fields, "Product Name"))
    if name is None:
        raise ValueError(f"GPU {index} has no Product Name")
    total = _number(_get(fields, "FB Memory Usage", "Total"), "MiB")
    used = _number(_get(fields, "FB Memory Usage", "Used"), "MiB")
    virt = _value(_get(fields, "GPU Virtualization Mode", "Virtualization Mode"))
    ecc_enabled = _flag(_get(fields, "Ecc Mode", "Current"))
    link = ("GPU Link Info",)  # under "PCI"; matched as a path suffix, so an excerpt may lack that line
    return GpuFacts(
        index=index,
        name=name,
        memory_total_bytes=None if total is None else total * _MIB,
        memory_used_bytes=None if used is None else used * _MIB,
        compute_capability=_value(_get(fields, "Compute Capability")),
        mig_mode_current=_flag(_get(fields, "MIG Mode", "Current")),
        mig_mode_pending=_flag(_get(fields, "MIG Mode", "Pending")),
        virtualization_mode=None if virt is None else VIRT_MODE_LINES.get(virt.lower(), f"UNKNOWN_{virt}"),
        pcie_gen_current=_number(_get(fields, *link, "PCIe Generation", "Current")),
        pcie_gen_max=_number(_get(fields, *link, "PCIe Generation", "Max")),
        pcie_width_current=_number(_get(fields, *link, "Link Width", "Current"), "x"),
        pcie_width_max=_number(_get(fields, *link, "Link Width", "Max"), "x"),
        utilization_gpu_pct=_number(_get(fields, "Utilization", "Gpu"), "%"),
        ecc_enabled=ecc_enabled,
        ecc_volatile_uncorrected=_ecc_volatile_uncorrected(fields) if ecc_enabled else None,
        persistence_mode=_flag(_get(fields, "Persistence Mode")),
        clock_event_reasons=_clock_reasons(fields),
        temperature_c=_number(_get(fields, "Temperature", "GPU Current Temp"), "C"),
    )


def parse_nvidia_smi_q(text: str) -> DriverFacts:
    """``nvidia-smi -q`` (or ``-a``) text → :class:`DriverFacts`, one GpuFacts per ``GPU <bus id>`` block."""
    top: dict[str, str] = {}
    blocks: list[list[str]] = []
    for line in text.splitlines():
        if _GPU_HEADER.match(line.strip()) and not line.startswith(" "):
            blocks.append([])
        elif blocks and (line.startswith(" ") or not line.strip()):
            blocks[-1].append(line)
        else:
            key, sep, value = line.partition(":")
            if sep and not line.startswith(" "):
                top[key.strip()] = value.strip()
    driver = _value(top.get("Driver Version"))
    if driver is None:
        raise ValueError("no 'Driver Version' line: not nvidia-smi -q output")
    return DriverFacts(
        driver_version=driver,
        cuda_driver_version=cuda_version_int(top.get("CUDA Version")),
        gpus=tuple(_gpu(i, _sections(block)) for i, block in enumerate(blocks)),
    )


def gpu_from_excerpt(text: str, *, index: int, name: str) -> GpuFacts:
    """GpuFacts from an excerpt of one GPU's ``-q`` block that lacks its ``Product Name`` line.

    ``name`` must come from the same recording (another tool's output in the same post).
    """
    return _gpu(index, {("Product Name",): name, **_sections(text.splitlines())})


def parse_container_cli_info(text: str) -> DriverFacts:
    """``nvidia-container-cli info`` → DriverFacts: ``NVRM version`` is the driver, ``Model`` each GPU's name.

    It reads the same NVML calls (nvmlSystemGetDriverVersion, nvmlSystemGetCudaDriverVersion,
    nvmlDeviceGetName); every other per-GPU fact stays None.
    """
    driver: str | None = None
    cuda: int | None = None
    names: list[str] = []
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if not sep:
            continue
        key, value = key.strip(), value.strip()
        if key == "NVRM version":
            driver = value
        elif key == "CUDA version":
            cuda = cuda_version_int(value)
        elif key == "Model":
            names.append(value)
    if driver is None:
        raise ValueError("no 'NVRM version' line: not nvidia-container-cli info output")
    return DriverFacts(
        driver_version=driver,
        cuda_driver_version=cuda,
        gpus=tuple(GpuFacts(index=i, name=n) for i, n in enumerate(names)),
    )


def parse_smi_table_header(text: str) -> tuple[str, int | None]:
    """Plain ``nvidia-smi``'s header line → ``(driver version, NVML CUDA version)``."""
    m = _SMI_TABLE_HEADER.search(text)
    if m is None:
        raise ValueError("no 'Driver Version: … CUDA Version: …' line: not nvidia-smi output")
    return m.group(1), cuda_version_int(m.group(2))


def parse_collect_env(text: str) -> tuple[TorchFacts, dict[str, str], tuple[str, ...]]:
    """``python -m torch.utils.collect_env`` → (TorchFacts, the other key/value lines, GPU names)."""
    fields: dict[str, str] = {}
    gpus: list[tuple[int, str]] = []
    for line in text.splitlines():
        g = _COLLECT_GPU.match(line.strip())
        if g:
            gpus.append((int(g.group(1)), g.group(2)))
            continue
        key, sep, value = line.partition(":")
        if sep and value.strip():
            inline = _COLLECT_GPU.match(value.strip())
            if key.strip() == "GPU models and configuration" and inline:
                gpus.append((int(inline.group(1)), inline.group(2)))
            fields.setdefault(key.strip(), value.strip())
    unknown = ("could not collect", "n/a", "none")

    def known(key: str) -> str | None:
        v = fields.get(key)
        return None if v is None or v.lower() in unknown else v

    version = known("PyTorch version")
    if version is None:
        raise ValueError("no 'PyTorch version' line: not collect_env output")
    available = _flag(fields.get("Is CUDA available")) or False  # True/False; Yes/No before 1.7
    names = tuple(name for _, name in sorted(gpus))
    torch = TorchFacts(
        installed=True,
        version=version,
        cuda_build=known("CUDA used to build PyTorch"),
        hip_build=known("ROCM used to build PyTorch"),
        cuda_available=available,
        # The probe asks device_count()/get_device_name() only when CUDA is available.
        device_count=len(names) if available else 0,
        device_names=names if available else (),
        cudnn_version=None,  # collect_env's "cuDNN version" is the system library, not torch's own
        nccl_version=None,
        bf16_supported=None,
    )
    return torch, fields, names


def machine_from_recording(
    *,
    source: str,
    collect_env: str | None = None,
    nvidia_smi_q: str | None = None,
    nvidia_smi: str | None = None,
) -> MachineFacts:
    """MachineFacts from whichever recordings one machine has; ``source`` becomes the host name.

    Driver facts come from ``nvidia-smi -q`` when given; else from collect_env's driver version and GPU
    list (every per-GPU NVML fact then None), with the CUDA version from plain ``nvidia-smi``'s header.
    Without collect_env, PyTorch was not recorded: TorchFacts then says so in ``import_error``, and only
    the driver and GPU checks speak for that machine.
    """
    driver: DriverFacts | None = None
    python_version, platform = "unknown", "unknown"
    if collect_env is not None:
        torch, fields, names = parse_collect_env(collect_env)
        python_version = (fields.get("Python version") or "unknown").split()[0]
        platform = fields.get("Python platform") or fields.get("OS") or "unknown"
        driver_version = fields.get("Nvidia driver version")
        if driver_version and driver_version.lower() != "could not collect":
            driver = DriverFacts(
                driver_version=driver_version,
                cuda_driver_version=None,
                gpus=tuple(GpuFacts(index=i, name=n) for i, n in enumerate(names)),
            )
    else:
        torch = TorchFacts(installed=False, import_error="PyTorch was not part of this recording")
    if nvidia_smi is not None:
        smi_driver, smi_cuda = parse_smi_table_header(nvidia_smi)
        if driver is None:
            driver = DriverFacts(driver_version=smi_driver, cuda_driver_version=smi_cuda)
        else:
            if driver.driver_version != smi_driver:
                raise ValueError(f"collect_env says driver {driver.driver_version}, nvidia-smi {smi_driver}")
            driver = replace(driver, cuda_driver_version=smi_cuda)
    if nvidia_smi_q is not None:
        driver = parse_nvidia_smi_q(nvidia_smi_q)
    return MachineFacts(
        host=source,
        python_version=python_version,
        platform=platform,
        torch=torch,
        driver=driver,
        nvml_error=None if driver is not None else "no driver facts in this recording",
        env={},
    )


def read_recorded(name: str) -> str:
    """The text of ``fixtures/recorded/<name>``."""
    return (RECORDED / name).read_text(encoding="utf-8")


@dataclass(frozen=True, kw_only=True)
class Recording:
    """One real machine: where its text was posted, and how its facts are read from that text."""

    name: str
    source: str
    """The public page the text was copied from."""
    posted: str
    """When it was posted (ISO date; where the stored copy showed no post date, the date the text carries)."""
    what: str
    """What the recording shows, in one line."""
    files: tuple[str, ...]

    def facts(self) -> MachineFacts:
        """The MachineFacts the probe would have produced, read from the recorded files."""
        return _BUILDERS[self.name](self)

    def json_path(self) -> Path:
        return RECORDED / f"{self.name}.json"

    def to_json(self) -> str:
        doc = {
            "provenance": f"RECORDED on a real machine: text posted at {self.source} on {self.posted}, "
            f"read by tests/machine/recorded.py from {', '.join(self.files)}",
            "source": self.source,
            "posted": self.posted,
            "what": self.what,
            "facts": self.facts().to_dict(),
        }
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def _v100_pcie_driver418_torch16(r: Recording) -> MachineFacts:
    collect_env, smi = (read_recorded(f) for f in r.files)
    return machine_from_recording(source=r.source, collect_env=collect_env, nvidia_smi=smi)


def _collect_env_only(r: Recording) -> MachineFacts:
    return machine_from_recording(source=r.source, collect_env=read_recorded(r.files[0]))


def _q_only(r: Recording) -> MachineFacts:
    return machine_from_recording(source=r.source, nvidia_smi_q=read_recorded(r.files[0]))


def _a100_pcie_mig_driver460(r: Recording) -> MachineFacts:
    info, pci_clocks = (read_recorded(f) for f in r.files)
    driver = parse_container_cli_info(info)
    # The -q excerpt is the block of Bus Id 00000000:24:00.0, which nvidia-container-cli lists as
    # device index 1 (/dev/nvidia1); its name comes from the same listing.
    gpu1 = gpu_from_excerpt(pci_clocks, index=1, name=driver.gpus[1].name)
    driver = replace(driver, gpus=(driver.gpus[0], gpu1))
    return replace(machine_from_recording(source=r.source), driver=driver, nvml_error=None)


RECORDINGS: tuple[Recording, ...] = (
    Recording(
        name="v100_pcie_driver418_torch16",
        source="https://github.com/pytorch/pytorch/issues/43058",
        posted="2020-08-14",
        what="2x Tesla V100-PCIE-16GB, driver 418.67 (CUDA 10.1), PyTorch 1.6.0 built for CUDA 10.2: "
        "torch.cuda.is_available() is False",
        files=("v100_pcie_driver418_torch16.collect_env.txt", "v100_pcie_driver418_torch16.nvidia-smi.txt"),
    ),
    Recording(
        name="h100_pcie_torch20_cu117",
        source="https://github.com/pytorch/pytorch/issues/110153",
        posted="2023-09-27",
        what="1x NVIDIA H100 PCIe, driver 535.104.12, PyTorch 2.0.1 built for CUDA 11.7: CUDA available, "
        "but the wheel has no sm_90 kernels (its own warning says so)",
        files=("h100_pcie_torch20_cu117.collect_env.txt",),
    ),
    Recording(
        name="h100_sxm_torch29_cu126",
        source="https://github.com/Skovorp/feral/issues/18",
        posted="not shown in the stored copy; after 2025-10-22 (the build date of its Python)",
        what="1x NVIDIA H100 80GB HBM3 (an H100-SXM pod), driver 580.126.09, PyTorch 2.9.1 built for "
        "CUDA 12.6, CUDA available: healthy",
        files=("h100_sxm_torch29_cu126.collect_env.txt",),
    ),
    Recording(
        name="p100_pcie_driver418",
        source="https://github.com/facebookresearch/PyTorch-BigGraph/issues/151",
        posted="2020-07-13",
        what="1x Tesla P100-PCIE-16GB, driver 418.67 (CUDA 10.1), persistence mode off",
        files=("p100_pcie_driver418.nvidia-smi-q.txt",),
    ),
    Recording(
        name="a100_sxm4_driver450",
        source="https://github.com/NVIDIA/k8s-device-plugin/issues/343",
        posted="2022-11-03",
        what="A100-SXM4-40GB (first of 8), driver 450.203.03 (CUDA 11.0), persistence on, MIG off and "
        "no change pending",
        files=("a100_sxm4_driver450.nvidia-smi-q.txt",),
    ),
    Recording(
        name="a100_pcie_mig_driver460",
        source="https://github.com/NVIDIA/nvidia-docker/issues/1473",
        posted="2021-03-17 (the date its container-cli log lines carry)",
        what="2x A100-PCIE-40GB, driver 460.27.04 (CUDA 11.2), a MIG set-up; GPU 1's link at Gen3 x16 "
        "(Gen3 is its maximum in this host), idle",
        files=(
            "a100_pcie_mig_driver460.nvidia-container-cli-info.txt",
            "a100_pcie_mig_driver460.pci-clocks.nvidia-smi-q.txt",
        ),
    ),
)

_BUILDERS: dict[str, Callable[[Recording], MachineFacts]] = {
    "v100_pcie_driver418_torch16": _v100_pcie_driver418_torch16,
    "h100_pcie_torch20_cu117": _collect_env_only,
    "h100_sxm_torch29_cu126": _collect_env_only,
    "p100_pcie_driver418": _q_only,
    "a100_sxm4_driver450": _q_only,
    "a100_pcie_mig_driver460": _a100_pcie_mig_driver460,
}


def load_recorded(name: str) -> MachineFacts:
    """The committed JSON fixture ``fixtures/recorded/<name>.json``, read as the doctor reads facts."""
    doc = json.loads((RECORDED / f"{name}.json").read_text(encoding="utf-8"))
    assert doc["provenance"].startswith("RECORDED on a real machine")
    return MachineFacts.from_dict(doc["facts"])


if __name__ == "__main__":  # regenerate the JSON fixtures: python tests/machine/recorded.py
    for recording in RECORDINGS:
        recording.json_path().write_text(recording.to_json(), encoding="utf-8")
        print(f"wrote {recording.json_path()}")
