"""Each constructed fixture machine gives the findings a person would expect of it."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest

from gpuplan.machine import CHECKS, Finding, MachineFacts, Severity, TorchFacts, diagnose
from gpuplan.machine.facts import GpuFacts

Load = Callable[[str], MachineFacts]


def _by(findings: list[Finding], check: str) -> list[Finding]:
    return [f for f in findings if f.check == check]


def _worst(findings: list[Finding]) -> Severity:
    return max((f.severity for f in findings), key=lambda s: s.rank)


def test_every_check_is_registered_once() -> None:
    names = [c.__name__ for c in CHECKS]
    assert len(names) == len(set(names))
    assert all(n.startswith("check_") for n in names)


def test_healthy_h100_has_no_warning_or_error(load_facts: Load) -> None:
    findings = diagnose(load_facts("healthy_h100"))
    assert _worst(findings) is Severity.INFO  # only the NCCL_DEBUG tip for a multi-GPU box
    assert _by(findings, "cuda_compat")[0].severity is Severity.OK  # driver CUDA 12.8 >= build 12.8
    gpus = _by(findings, "gpu")
    assert [f.gpu_index for f in gpus] == [0, 1]
    assert "datasheet H100-SXM" in gpus[0].message
    assert "NCCL_DEBUG=INFO" in _by(findings, "nccl_env")[0].message


def test_a100_with_driver_470_cannot_run_a_cuda_12_build(load_facts: Load) -> None:
    findings = diagnose(load_facts("a100_old_driver"))
    compat = _by(findings, "cuda_compat")
    assert [f.severity for f in compat] == [Severity.ERROR]
    # CUDA 12.x needs driver >= 525.60.13 (minor-version compatibility table); 470 supports CUDA 11.4.
    assert "525.60.13" in compat[0].message and "11.4" in compat[0].message
    assert compat[0].fix is not None and "12.8" not in compat[0].fix.split("wheel")[0]
    torch_cuda = _by(findings, "torch_cuda")
    assert [f.severity for f in torch_cuda] == [Severity.ERROR]


def test_vgpu_is_flagged_and_unknown_facts_are_not_judged(load_facts: Load) -> None:
    findings = diagnose(load_facts("vgpu"))
    virt = _by(findings, "virtualization")
    assert [f.severity for f in virt] == [Severity.WARNING]
    assert "vGPU" in virt[0].message
    # A vGPU profile name is not a datasheet GPU: said, not guessed.
    assert _by(findings, "gpu")[0].severity is Severity.INFO
    # NVML refuses PCIe, ECC, clocks and persistence inside the guest: no finding claims anything.
    for check in ("pcie_link", "ecc", "clocks", "persistence_mode", "mig"):
        assert _by(findings, check) == []
    # Driver CUDA 12.4 < build 12.6, same major, driver 550 >= 525.60.13: minor-version compatibility.
    assert _by(findings, "cuda_compat")[0].severity is Severity.WARNING


def test_ecc_errors_and_thermal_throttling_are_errors(load_facts: Load) -> None:
    findings = diagnose(load_facts("ecc_thermal"))
    ecc = _by(findings, "ecc")
    assert [f.severity for f in ecc] == [Severity.ERROR]
    assert "3 uncorrected" in ecc[0].message
    clocks = {f.message.split("limited by ")[1].split(" (")[0]: f.severity for f in _by(findings, "clocks")}
    assert clocks == {
        "power cap": Severity.INFO,
        "software thermal slowdown": Severity.WARNING,
        "hardware thermal slowdown": Severity.ERROR,
    }
    assert "92 °C" in _by(findings, "clocks")[0].message
    assert [f.severity for f in _by(findings, "gpu_memory_in_use")] == [Severity.WARNING]


def test_narrow_pcie_link_under_load_warns_but_idle_downclock_is_info(load_facts: Load) -> None:
    findings = diagnose(load_facts("pcie_gen3_x8"))
    busy = [f for f in _by(findings, "pcie_link") if f.gpu_index == 0]
    idle = [f for f in _by(findings, "pcie_link") if f.gpu_index == 1]
    assert [f.severity for f in busy] == [Severity.WARNING]
    assert "Gen3 x8 under load" in busy[0].message and "Gen4 x16" in busy[0].message
    assert [f.severity for f in idle] == [Severity.INFO]
    assert "idle GPUs lower the link" in idle[0].message
    nccl = {f.message.split(":")[0].split("=")[0]: f.severity for f in _by(findings, "nccl_env")}
    assert nccl == {
        "NCCL_P2P_DISABLE": Severity.WARNING,
        "NCCL_SOCKET_IFNAME": Severity.INFO,
        "NCCL_DEBUG": Severity.INFO,
    }
    assert [f.severity for f in _by(findings, "persistence_mode")] == [Severity.INFO]
    assert [f.severity for f in _by(findings, "ecc")] == [Severity.INFO, Severity.INFO]  # ECC off on both
    # how much slower, as the estimator prices it (perf/links.py: 0.40 of PCIe's rate through host
    # memory, 0.70 peer to peer), where it had said "several times slower"
    [p2p] = [f for f in _by(findings, "nccl_env") if f.message.startswith("NCCL_P2P_DISABLE")]
    assert "about 0.4 of PCIe's rate instead of 0.7" in p2p.message


def test_no_driver_cpu_machine_says_so_plainly() -> None:
    facts = MachineFacts(
        host="laptop",
        python_version="3.11.9",
        platform="Linux",
        torch=TorchFacts(installed=True, version="2.13.0+cpu"),
        driver=None,
        nvml_error="no NVIDIA driver found (the NVML library libnvidia-ml is not installed)",
    )
    findings = diagnose(facts)
    driver = _by(findings, "driver")
    assert [f.severity for f in driver] == [Severity.WARNING]
    assert "No NVIDIA GPU" in driver[0].message and "no NVIDIA driver found" in driver[0].message
    assert _worst(findings) is Severity.WARNING


def test_cpu_only_torch_on_a_gpu_machine_is_an_error(load_facts: Load) -> None:
    facts = load_facts("healthy_h100")
    facts = dataclasses.replace(facts, torch=TorchFacts(installed=True, version="2.13.0+cpu"))
    torch_cuda = _by(diagnose(facts), "torch_cuda")
    assert [f.severity for f in torch_cuda] == [Severity.ERROR]
    assert torch_cuda[0].fix is not None and "download.pytorch.org/whl/cu" in torch_cuda[0].fix


def test_empty_cuda_visible_devices_is_named_as_the_cause(load_facts: Load) -> None:
    facts = load_facts("healthy_h100")
    torch = dataclasses.replace(facts.torch, cuda_available=False, device_count=0, device_names=())
    facts = dataclasses.replace(facts, torch=torch, env={"CUDA_VISIBLE_DEVICES": ""})
    (finding,) = _by(diagnose(facts), "torch_cuda")
    assert finding.severity is Severity.ERROR
    assert finding.fix is not None and "CUDA_VISIBLE_DEVICES" in finding.fix


def test_torch_missing_is_an_error_with_install_advice() -> None:
    facts = MachineFacts(
        host="h",
        python_version="3.11.9",
        platform="Linux",
        torch=TorchFacts(installed=False, import_error="ModuleNotFoundError: No module named 'torch'"),
        driver=None,
        nvml_error="no NVIDIA driver found",
    )
    findings = diagnose(facts)
    (torch_finding,) = _by(findings, "torch")
    assert torch_finding.severity is Severity.ERROR and "not installed" in torch_finding.message
    assert _by(findings, "torch_cuda") == []


@pytest.mark.parametrize(
    ("mig_current", "mig_pending", "severities"),
    [(True, True, [Severity.WARNING]), (False, True, [Severity.WARNING]), (False, False, [])],
)
def test_mig_enabled_or_pending_warns(
    load_facts: Load, mig_current: bool, mig_pending: bool, severities: list[Severity]
) -> None:
    facts = load_facts("healthy_h100")
    assert facts.driver is not None
    gpu = dataclasses.replace(
        facts.driver.gpus[0], mig_mode_current=mig_current, mig_mode_pending=mig_pending
    )
    facts = dataclasses.replace(facts, driver=dataclasses.replace(facts.driver, gpus=(gpu,)))
    assert [f.severity for f in diagnose(facts) if f.check == "mig"] == severities


@pytest.mark.parametrize(
    ("value", "severity"),
    [
        ("docker0", Severity.WARNING),  # Docker's local bridge: other nodes cannot reach it
        ("lo", Severity.WARNING),  # the loopback
        ("=docker0", Severity.WARNING),
        ("eth0,docker", Severity.WARNING),
        ("^docker,lo", Severity.INFO),  # excluding them is what NCCL's own default does
        ("ens5", Severity.INFO),
    ],
)
def test_a_socket_interface_other_nodes_cannot_reach_is_a_warning(
    value: str, severity: Severity, load_facts: Load
) -> None:
    # The generated launch.sh says never to bootstrap over the docker0/lo bridge; doctor agrees.
    facts = load_facts("healthy_h100")
    facts = dataclasses.replace(facts, env={**facts.env, "NCCL_SOCKET_IFNAME": value})
    found = [f for f in _by(diagnose(facts), "nccl_env") if "NCCL_SOCKET_IFNAME" in f.message]
    assert [f.severity for f in found] == [severity]
    if severity is Severity.WARNING:
        assert "cannot reach" in found[0].message and found[0].fix


def test_the_version_a_cuda_image_stamps_is_not_an_nccl_setting(load_facts: Load) -> None:
    """CUDA and NGC container images set NCCL_VERSION (doctor on an H200 VM said "other NCCL
    settings: NCCL_VERSION=2.28.3-1"); NCCL reads no such variable. A real one is still shown."""
    facts = load_facts("healthy_h100")
    stamped = dataclasses.replace(facts, env={**facts.env, "NCCL_VERSION": "2.28.3-1"})
    assert not [f for f in _by(diagnose(stamped), "nccl_env") if "NCCL_VERSION" in f.message]
    tuned = dataclasses.replace(facts, env={**facts.env, "NCCL_VERSION": "2.28.3-1", "NCCL_ALGO": "Ring"})
    other = [f.message for f in _by(diagnose(tuned), "nccl_env") if f.message.startswith("other")]
    assert other == ["other NCCL settings: NCCL_ALGO=Ring"]


def test_cpu_threads_per_gpu_are_counted_and_compared_with_a_typical_instance(load_facts: Load) -> None:
    # A DDP run only 2.4× one GPU on a lab box: the threads that decode its images had been checked
    # nowhere. healthy_h100 has 2 × H100-SXM; the shipped catalog's typical 2-GPU H100-SXM instance
    # has more vCPUs per GPU than 16 ÷ 2 = 8.
    from gpuplan.perf.typical_host import typical_host

    facts = load_facts("healthy_h100")
    assert _by(diagnose(facts), "cpu_threads") == []  # facts recorded before the count: nothing claimed
    typical = typical_host("H100-SXM", 2)
    assert typical is not None and typical.vcpus_per_gpu > 8
    [few] = _by(diagnose(dataclasses.replace(facts, cpu_threads=16)), "cpu_threads")
    assert few.severity is Severity.INFO
    assert few.message.startswith(
        f"16 CPU threads for 2 GPUs: 8 per GPU, fewer than the {typical.vcpus_per_gpu:g} per GPU of a "
        f"typical cloud instance of {typical.gpus_per_instance} × H100-SXM"
    ), few.message
    assert few.fix is not None and "gpuplan estimate WORKLOAD --gpu H100-SXM:2 --vcpus 16" in few.fix
    many = 2 * int(typical.vcpus_per_gpu) + 2
    [enough] = _by(diagnose(dataclasses.replace(facts, cpu_threads=many)), "cpu_threads")
    assert enough.message == f"{many} CPU threads for 2 GPUs: {many / 2:g} per GPU"
    # no GPU at all: the count alone
    none = dataclasses.replace(facts, driver=None, torch=TorchFacts(installed=False), cpu_threads=4)
    [alone] = _by(diagnose(none), "cpu_threads")
    assert alone.message == "4 CPU threads; no GPU seen" and alone.severity is Severity.OK


def _a10g(index: int) -> GpuFacts:
    # what NVML reports for a g5's GPU: 23,028 MiB usable of the 24 GB part
    return GpuFacts(index=index, name="NVIDIA A10G", memory_total_bytes=23_028 * 2**20)


def test_eight_a10g_are_told_of_aws_topology_file_for_g5_48xlarge(load_facts: Load) -> None:
    # NVIDIA/nccl issue #1298: on a g5.48xlarge (8 × A10G) NCCL's own detection gives a slower
    # all-reduce than AWS's topology file; doctor cannot ask the instance type, and 8 × A10G is that one.
    facts = load_facts("healthy_h100")
    assert facts.driver is not None
    g5 = dataclasses.replace(
        facts, driver=dataclasses.replace(facts.driver, gpus=tuple(_a10g(i) for i in range(8)))
    )
    [topo] = [f for f in _by(diagnose(g5), "nccl_env") if "g5.48xlarge" in f.message]
    assert topo.severity is Severity.INFO and "https://github.com/NVIDIA/nccl/issues/1298" in topo.message
    assert topo.fix is not None and "NCCL_TOPO_FILE" in topo.fix
    assert "https://github.com/aws/aws-ofi-nccl/blob/master/topology/g5.48xl-topo.xml" in topo.fix
    # Set already: nothing to say but that it is set. Four A10G (g5.12xlarge, one socket) need none.
    given = dataclasses.replace(g5, env={**g5.env, "NCCL_TOPO_FILE": "/opt/g5.48xl-topo.xml"})
    assert not [f for f in _by(diagnose(given), "nccl_env") if "g5.48xlarge" in f.message]
    four = dataclasses.replace(
        facts, driver=dataclasses.replace(facts.driver, gpus=tuple(_a10g(i) for i in range(4)))
    )
    assert not [f for f in _by(diagnose(four), "nccl_env") if "NCCL_TOPO_FILE" in (f.fix or "")]
    # The two H100 of the fixture: no topology file.
    assert not [f for f in _by(diagnose(facts), "nccl_env") if "NCCL_TOPO_FILE" in (f.fix or "")]
