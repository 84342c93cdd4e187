"""The doctor's checks: pure functions of :class:`MachineFacts` to findings; no I/O, no torch, no NVML.

Each check looks at one concern and returns its findings (possibly none, when the concern does not
apply). This module holds the software-stack checks (Python, PyTorch, driver, CUDA compatibility,
NCCL settings); :mod:`.gpu_checks` the per-GPU ones. ``CHECKS`` is the explicit, ordered registry;
:func:`diagnose` runs it.
"""

from __future__ import annotations

from collections.abc import Callable

from gpuplan.catalog.providers import PROVIDERS
from gpuplan.catalog.providers import facts as provider_facts
from gpuplan.catalog.providers.base import NcclTopologyFile
from gpuplan.i18n import _
from gpuplan.i18n.phrases import item_list
from gpuplan.machine.cpu_checks import check_cpu_threads
from gpuplan.machine.cuda_compat import CudaCompatStatus, cuda_compat
from gpuplan.machine.facts import MachineFacts
from gpuplan.machine.findings import Finding, Severity
from gpuplan.machine.gpu_checks import (
    check_clocks,
    check_ecc,
    check_gpus,
    check_mig,
    check_pcie,
    check_peer_access,
    check_persistence,
    check_virtualization,
    gpus_of,
)
from gpuplan.machine.identify import identify_gpu

__all__ = ["CHECKS", "diagnose"]

_TORCH_INSTALL_URL = "https://pytorch.org/get-started/locally/"


def check_python(facts: MachineFacts) -> list[Finding]:
    """Python version and platform, for the record."""
    return [
        Finding(
            check="python",
            severity=Severity.OK,
            message=_("Python {version} on {platform}").format(
                version=facts.python_version, platform=facts.platform
            ),
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
                message=_("PyTorch is not installed ({error})").format(error=t.import_error),
                fix=_(
                    "pip install torch; on a GPU machine pick the wheel for a CUDA version the driver "
                    "supports ({url})"
                ).format(url=_TORCH_INSTALL_URL),
            )
        ]
    if t.cuda_build:
        build = _("built for CUDA {version}").format(version=t.cuda_build)
    elif t.hip_build:
        build = _("built for ROCm {version}").format(version=t.hip_build)
    else:
        build = _("CPU-only build")
    message = _("PyTorch {version} ({build})").format(version=t.version, build=build)
    return [Finding(check="torch", severity=Severity.OK, message=message)]


def _reason(text: str | None) -> str:
    # The probe's reasons are English facts marked N_(); never _("") (gettext's "" is the catalog header).
    return _(text) if text else str(text)


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
                    message=_("CUDA works but the driver cannot be inspected: {error}").format(
                        error=_reason(facts.nvml_error)
                    ),
                    fix=_("pip install 'gpuplan[nvml]' to check driver, ECC, clocks and PCIe"),
                )
            ]
        return [
            Finding(
                check="driver",
                severity=Severity.WARNING,
                message=_("No NVIDIA GPU usable on this machine: {error}").format(
                    error=_reason(facts.nvml_error)
                ),
                fix=_(
                    "Expected on a laptop or CI runner without a GPU. On a GPU machine: install the NVIDIA "
                    "driver (the provider's GPU image, or e.g. `sudo apt install nvidia-driver-550`), "
                    "reboot, and check that `nvidia-smi` lists the GPUs"
                ),
            )
        ]
    if d.cuda_driver_version_str:
        driver = _("NVIDIA driver {version}, supports CUDA up to {cuda}").format(
            version=d.driver_version, cuda=d.cuda_driver_version_str
        )
    else:
        driver = _("NVIDIA driver {version}").format(version=d.driver_version)
    if not d.gpus:
        return [
            Finding(
                check="driver",
                severity=Severity.ERROR,
                message=_("{driver} is loaded but reports no GPU").format(driver=driver),
                fix=_(
                    "Check `nvidia-smi` and `dmesg | grep -i nvrm`; in a container, run it with `--gpus all` "
                    "(NVIDIA Container Toolkit)"
                ),
            )
        ]
    return [Finding(check="driver", severity=Severity.OK, message=driver)]


def check_cuda_compat(facts: MachineFacts) -> list[Finding]:
    """Can the driver run the CUDA version PyTorch was built with? (rules in :mod:`.cuda_compat`)"""
    d, t = facts.driver, facts.torch
    if d is None or not t.cuda_build:
        return []
    c = cuda_compat(
        driver_version=d.driver_version, driver_cuda_version=d.cuda_driver_version, build_cuda=t.cuda_build
    )
    reinstall = _("or install a PyTorch wheel built for CUDA {cuda} or older ({url})").format(
        cuda=c.driver_cuda, url=_TORCH_INSTALL_URL
    )
    if c.status is CudaCompatStatus.SUPPORTED:
        return [
            Finding(
                check="cuda_compat",
                severity=Severity.OK,
                message=_("driver supports CUDA {driver_cuda} ≥ PyTorch's CUDA {build_cuda}").format(
                    driver_cuda=c.driver_cuda, build_cuda=c.build_cuda
                ),
            )
        ]
    if c.status is CudaCompatStatus.MINOR_COMPAT:
        return [
            Finding(
                check="cuda_compat",
                severity=Severity.WARNING,
                message=_(
                    "driver {driver} supports CUDA {driver_cuda}, older than PyTorch's CUDA "
                    "{build_cuda}: it runs through CUDA minor-version compatibility, with a limited feature "
                    "set (no JIT of newer PTX; some calls fail with cudaErrorCallRequiresNewerDriver)"
                ).format(driver=d.driver_version, driver_cuda=c.driver_cuda, build_cuda=c.build_cuda),
                fix=_("Upgrade the driver to one that supports CUDA {build_cuda}, {reinstall}").format(
                    build_cuda=c.build_cuda, reinstall=reinstall
                ),
            )
        ]
    if c.status is CudaCompatStatus.TOO_OLD:
        return [
            Finding(
                check="cuda_compat",
                severity=Severity.ERROR,
                message=_(
                    "driver {driver} (CUDA {driver_cuda}) is too old for PyTorch's CUDA "
                    "{build_cuda}, which needs a driver ≥ {min_driver} (Linux): CUDA cannot start"
                ).format(
                    driver=d.driver_version,
                    driver_cuda=c.driver_cuda or "?",
                    build_cuda=c.build_cuda,
                    min_driver=c.min_driver,
                ),
                fix=_(
                    "Upgrade the NVIDIA driver to ≥ {min_driver}, {reinstall}. On data-center GPUs the "
                    "cuda-compat forward-compatibility package is another way"
                ).format(min_driver=c.min_driver, reinstall=reinstall),
            )
        ]
    return [
        Finding(
            check="cuda_compat",
            severity=Severity.INFO,
            message=_(
                "cannot tell whether driver {driver} runs PyTorch's CUDA {build_cuda} "
                "(the driver did not report its CUDA version)"
            ).format(driver=d.driver_version, build_cuda=t.cuda_build),
            fix=_(
                "Compare `nvidia-smi`'s 'CUDA Version' with torch.version.cuda: it must be the same or newer"
            ),
        )
    ]


#: First CUDA toolkit that generates code for each compute capability (major, minor), from NVIDIA's
#: CUDA Toolkit release notes: Volta 9.0, Turing 10.0, A100 11.0, GA10x 11.1, Ada and Hopper 11.8,
#: Blackwell (B200) 12.8. CUDA 13.0 dropped Volta (and older) again.
_FIRST_CUDA_FOR_ARCH: dict[tuple[int, int], tuple[int, int]] = {
    (7, 0): (9, 0),
    (7, 5): (10, 0),
    (8, 0): (11, 0),
    (8, 6): (11, 1),
    (8, 9): (11, 8),
    (9, 0): (11, 8),
    (10, 0): (12, 8),
}
_LAST_CUDA_MAJOR_FOR_VOLTA = 12


def _version(text: str) -> tuple[int, int] | None:
    parts = text.strip().split(".")
    try:
        return int(parts[0]), int(parts[1]) if len(parts) > 1 else 0
    except ValueError:
        return None


def check_arch_support(facts: MachineFacts) -> list[Finding]:
    """Can the CUDA PyTorch was built with generate kernels for each GPU's architecture?

    A wheel built with CUDA 11.7 has no Hopper (sm_90) code: on an H100 every kernel fails with "no
    kernel image is available" although the driver is fine and ``torch.cuda.is_available()`` is True.
    """
    from gpuplan.machine.identify import identify_gpu

    d, t = facts.driver, facts.torch
    build = _version(t.cuda_build) if t.cuda_build else None
    if build is None:
        return []
    names: list[tuple[int | None, str, str | None]] = []
    if d is not None and d.gpus:
        names = [(g.index, g.name, g.compute_capability) for g in d.gpus]
    else:
        names = [(i, n, None) for i, n in enumerate(t.device_names)]
    found: list[Finding] = []
    for index, name, cc_text in names:
        if cc_text is None:
            sheet = identify_gpu(name)
            cc_text = sheet.compute_capability if sheet is not None else None
        cc = _version(cc_text) if cc_text else None
        if cc is None:
            continue
        first = _FIRST_CUDA_FOR_ARCH.get(cc)
        built = f"CUDA {build[0]}.{build[1]}"
        if first is not None and build < first:
            found.append(
                Finding(
                    check="arch_support",
                    severity=Severity.ERROR,
                    message=_(
                        "{gpu} (compute capability {cc}) needs CUDA ≥ {first_cuda}; "
                        "this PyTorch was built with {built} and has no kernels for it"
                    ).format(gpu=name, cc=cc_text, first_cuda=f"{first[0]}.{first[1]}", built=built),
                    fix=_("Install a PyTorch wheel built for CUDA {first_cuda} or newer ({url})").format(
                        first_cuda=f"{first[0]}.{first[1]}", url=_TORCH_INSTALL_URL
                    ),
                    gpu_index=index,
                )
            )
        elif cc[0] == 7 and cc[1] == 0 and build[0] > _LAST_CUDA_MAJOR_FOR_VOLTA:
            found.append(
                Finding(
                    check="arch_support",
                    severity=Severity.ERROR,
                    message=_(
                        "{gpu} is a Volta GPU, which CUDA 13 no longer supports; this PyTorch was "
                        "built with {built}"
                    ).format(gpu=name, built=built),
                    fix=_("Install a PyTorch wheel built for CUDA 12.x ({url})").format(
                        url=_TORCH_INSTALL_URL
                    ),
                    gpu_index=index,
                )
            )
        elif first is not None:
            found.append(
                Finding(
                    check="arch_support",
                    severity=Severity.OK,
                    message=_("{built} targets {gpu} (compute capability {cc})").format(
                        built=built, gpu=name, cc=cc_text
                    ),
                    gpu_index=index,
                )
            )
    return found


def check_torch_cuda(facts: MachineFacts) -> list[Finding]:
    """``torch.cuda.is_available()`` and why it is False when GPUs exist."""
    t, gpus = facts.torch, gpus_of(facts)
    if not t.installed:
        return []
    visible = facts.env.get("CUDA_VISIBLE_DEVICES")
    if t.cuda_available:
        found = [
            Finding(
                check="torch_cuda",
                severity=Severity.OK,
                message=_("torch.cuda.is_available() is True; {count} device(s): {names}").format(
                    count=t.device_count, names=item_list(t.device_names)
                ),
            )
        ]
        if gpus and t.device_count < len(gpus) and visible is not None:
            found.append(
                Finding(
                    check="torch_cuda",
                    severity=Severity.INFO,
                    message=_(
                        "PyTorch sees {count} of {total} GPUs because CUDA_VISIBLE_DEVICES={visible}"
                    ).format(count=t.device_count, total=len(gpus), visible=visible),
                )
            )
        return found
    if not gpus:
        if t.cuda_build:
            message = _(
                "torch.cuda.is_available() is False: PyTorch is a CUDA build, but there is no GPU; "
                "it will run on the CPU"
            )
        else:
            message = _(
                "torch.cuda.is_available() is False: PyTorch is a CPU-only build; it will run on the CPU"
            )
        return [Finding(check="torch_cuda", severity=Severity.INFO, message=message)]
    if not t.cuda_build:
        return [
            Finding(
                check="torch_cuda",
                severity=Severity.ERROR,
                message=_(
                    "PyTorch {version} is a CPU-only build, so it cannot use the {count} GPU(s) here"
                ).format(version=t.version, count=len(gpus)),
                fix=_(
                    "Reinstall PyTorch from a CUDA wheel index, e.g. `pip install torch --index-url "
                    "https://download.pytorch.org/whl/cu128` ({url})"
                ).format(url=_TORCH_INSTALL_URL),
            )
        ]
    if visible is not None and visible.strip() in ("", "-1", "none", "void"):
        fix = _("CUDA_VISIBLE_DEVICES={visible} hides every GPU: unset it or list the GPUs (0,1,…)").format(
            visible=repr(visible)
        )
    else:
        fix = _(
            "Check the cuda_compat finding above; in a container run with `--gpus all` (NVIDIA Container "
            "Toolkit); check that /dev/nvidia* is readable; after a driver upgrade, reboot"
        )
    return [
        Finding(
            check="torch_cuda",
            severity=Severity.ERROR,
            message=_("torch.cuda.is_available() is False although the driver lists {count} GPU(s)").format(
                count=len(gpus)
            ),
            fix=fix,
        )
    ]


def _flag_on(value: str | None) -> bool:
    return value is not None and value.strip().lower() in ("1", "true", "yes", "on")


def check_nccl_env(facts: MachineFacts) -> list[Finding]:
    """NCCL and CUDA environment variables that change multi-GPU speed or debugging."""
    env = facts.env
    found = []
    multi_gpu = len(gpus_of(facts)) >= 2 or facts.torch.device_count >= 2
    if _flag_on(env.get("NCCL_P2P_DISABLE")):
        found.append(
            Finding(
                check="nccl_env",
                severity=Severity.WARNING,
                message=_(
                    "NCCL_P2P_DISABLE=1: GPUs cannot talk directly (NVLink / PCIe peer-to-peer); "
                    "all-reduce goes through host memory: about 0.4 of PCIe's rate instead of 0.7, and a "
                    "small share of NVLink's where the GPUs have it"
                ),
                fix=_("Unset it unless P2P hangs on this machine (some VMs and hosts with PCIe ACS need it)"),
            )
        )
    if _flag_on(env.get("NCCL_SHM_DISABLE")):
        found.append(
            Finding(
                check="nccl_env",
                severity=Severity.WARNING,
                message=_("NCCL_SHM_DISABLE=1: intra-node traffic without P2P falls back to sockets"),
                fix=_(
                    "Unset it; in Docker give the container enough shared memory (`--shm-size=16g` or "
                    "`--ipc=host`)"
                ),
            )
        )
    if _flag_on(env.get("NCCL_IB_DISABLE")):
        found.append(
            Finding(
                check="nccl_env",
                severity=Severity.INFO,
                message=_(
                    "NCCL_IB_DISABLE=1: InfiniBand/RoCE is off, so traffic between nodes uses TCP "
                    "sockets (fine on one node, slow across nodes)"
                ),
                fix=_(
                    "Unset it on multi-node jobs with InfiniBand or RoCE (EFA on AWS uses the aws-ofi-nccl "
                    "plugin)"
                ),
            )
        )
    if "NCCL_SOCKET_IFNAME" in env:
        value = env["NCCL_SOCKET_IFNAME"]
        local = _node_local_interfaces(value)
        if local:
            found.append(
                Finding(
                    check="nccl_env",
                    severity=Severity.WARNING,
                    message=_(
                        "NCCL_SOCKET_IFNAME={value}: {names} is this machine's own bridge or loopback, "
                        "which other nodes cannot reach: a job across nodes hangs at NCCL's bootstrap"
                    ).format(value=value, names=item_list(local)),
                    fix=_(
                        "Name the network card between the nodes (`ip -br addr`: eth0, ens5 …), or unset "
                        "it: NCCL's default already skips docker* and lo"
                    ),
                )
            )
        else:
            found.append(
                Finding(
                    check="nccl_env",
                    severity=Severity.INFO,
                    message=_(
                        "NCCL_SOCKET_IFNAME={value}: NCCL bootstraps over this interface; it "
                        "must exist on every node (`ip link`)"
                    ).format(value=value),
                )
            )
    if "NCCL_DEBUG" in env:
        found.append(
            Finding(
                check="nccl_env",
                severity=Severity.INFO,
                message=_(
                    "NCCL_DEBUG={value}: NCCL logs its topology and transports (good for "
                    "diagnosis, noisy in production)"
                ).format(value=env["NCCL_DEBUG"]),
            )
        )
    elif multi_gpu:
        found.append(
            Finding(
                check="nccl_env",
                severity=Severity.INFO,
                message=_("to diagnose slow or hanging multi-GPU training, run it once with NCCL_DEBUG=INFO"),
                fix=_("Look for 'via P2P/IPC' or 'NVLS' (fast) versus 'via NET/Socket' (slow) in the log"),
            )
        )
    if multi_gpu and "NCCL_TOPO_FILE" not in env and (topology := _topology_file(facts)) is not None:
        found.append(
            Finding(
                check="nccl_env",
                severity=Severity.INFO,
                message=_(
                    "{gpus} × {gpu}: the GPUs of an AWS {instance}, where NCCL's own detection of the "
                    "layout can make all-reduce slower than it could be; {reported} ({report})"
                ).format(
                    gpus=topology.gpus,
                    gpu=topology.gpu,
                    instance=topology.instance,
                    reported=_(topology.reported),
                    report=topology.report_url,
                ),
                fix=_(
                    "Download AWS's topology file {file} ({url}) and set NCCL_TOPO_FILE to the path of "
                    "your copy"
                ).format(file=topology.file_name, url=topology.url),
            )
        )
    if _flag_on(env.get("CUDA_LAUNCH_BLOCKING")):
        found.append(
            Finding(
                check="nccl_env",
                severity=Severity.WARNING,
                message=_(
                    "CUDA_LAUNCH_BLOCKING=1 serialises every kernel launch: for debugging only, it slows "
                    "training a lot"
                ),
                fix=_("Unset it for real runs"),
            )
        )
    # Read above; and NCCL_VERSION, the release CUDA and NGC container images stamp (NCCL reads no such).
    known = {
        "NCCL_P2P_DISABLE",
        "NCCL_SHM_DISABLE",
        "NCCL_IB_DISABLE",
        "NCCL_SOCKET_IFNAME",
        "NCCL_DEBUG",
        "NCCL_VERSION",
    }
    others = [f"{k}={v}" for k, v in env.items() if k.startswith("NCCL_") and k not in known]
    if others:
        found.append(
            Finding(
                check="nccl_env",
                severity=Severity.INFO,
                message=_("other NCCL settings: {settings}").format(settings=item_list(others)),
            )
        )
    return found


def _topology_file(facts: MachineFacts) -> NcclTopologyFile | None:
    """The NCCL topology file of the instance this machine's GPUs make: the doctor cannot ask the
    instance type (the metadata service is the provider's, and not every machine is a cloud's), so
    it goes by NVML's GPUs, all of one model and as many as the instance has (8 × A10G: only AWS's
    g5.48xlarge carries them). None: no such instance."""
    gpus = gpus_of(facts)
    models = {identify_gpu(g.name, memory_bytes=g.memory_total_bytes) for g in gpus}
    if len(models) != 1 or (model := models.pop()) is None:
        return None
    for provider in PROVIDERS.values():
        for known in provider_facts(provider).nccl_topology_files:
            if known.gpu == model.id and known.gpus == len(gpus):
                return known
    return None


#: Every check, in the order the report shows them.
CHECKS: tuple[Callable[[MachineFacts], list[Finding]], ...] = (
    check_python,
    check_torch,
    check_driver,
    check_cuda_compat,
    check_arch_support,
    check_torch_cuda,
    check_gpus,
    check_mig,
    check_virtualization,
    check_pcie,
    check_peer_access,
    check_ecc,
    check_persistence,
    check_clocks,
    check_cpu_threads,
    check_nccl_env,
)


def diagnose(facts: MachineFacts) -> list[Finding]:
    """Run every check on ``facts``; findings in check order."""
    return [finding for check in CHECKS for finding in check(facts)]


#: Interface name prefixes no other node can reach: Docker's local bridges and the loopback (the
#: ones NCCL's own default, ``NCCL_SOCKET_IFNAME=^docker,lo``, leaves out; NCCL environment variables,
#: https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-socket-ifname).
_NODE_LOCAL_PREFIXES = ("docker", "lo")


def _node_local_interfaces(value: str) -> list[str]:
    """The names of ``NCCL_SOCKET_IFNAME`` (a comma list of prefixes; ``=name``: exact; a leading ``^``
    excludes the whole list) that select a node-local interface (docker0, lo)."""
    if value.startswith("^"):
        return []
    names = [n.strip().removeprefix("=") for n in value.split(",")]
    return [n for n in names if n and any(n.startswith(p) for p in _NODE_LOCAL_PREFIXES)]
