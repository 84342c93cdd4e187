"""The doctor on machines RECORDED in public GitHub issues, not constructed (fixtures/recorded/).

Each test quotes the recorded lines it relies on. The JSON fixtures are the converter's output
(tests/machine/recorded.py) and a test keeps them in step with the text. Findings are asserted by check
id and severity; the recordings predate today's drivers, so they pin how the checks read real, older
output (missing sections, N/A values, 2020-era version numbers) as well as the verdicts.
"""

from __future__ import annotations

import pytest
from recorded import (
    RECORDINGS,
    Recording,
    gpu_from_excerpt,
    load_recorded,
    machine_from_recording,
    parse_collect_env,
    parse_nvidia_smi_q,
    read_recorded,
)

from gpuplan.machine import Finding, MachineFacts, Severity, diagnose
from gpuplan.machine.cuda_compat import CudaCompatStatus, cuda_compat
from gpuplan.machine.facts import DriverFacts
from gpuplan.machine.gpu_checks import check_clocks, check_ecc, check_pcie

#: Checks about PyTorch: meaningless for a recording that holds only nvidia-smi output.
_TORCH_CHECKS = {"python", "torch", "torch_cuda", "cuda_compat", "peer_access"}


def _by(findings: list[Finding], check: str) -> list[tuple[Severity, int | None]]:
    return [(f.severity, f.gpu_index) for f in findings if f.check == check]


def _driver_side(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.check not in _TORCH_CHECKS]


@pytest.mark.parametrize("recording", RECORDINGS, ids=lambda r: r.name)
def test_json_fixture_is_the_converter_output(recording: Recording) -> None:
    # Regenerate with `python tests/machine/recorded.py` after changing the converter.
    assert recording.json_path().read_text(encoding="utf-8") == recording.to_json()
    assert load_recorded(recording.name) == recording.facts()


def test_v100_with_driver_418_cannot_run_torch_built_for_cuda_10_2() -> None:
    # pytorch/pytorch#43058, collect_env:
    #   PyTorch version: 1.6.0 / CUDA used to build PyTorch: 10.2 / Is CUDA available: No
    #   GPU 0: Tesla V100-PCIE-16GB / GPU 1: Tesla V100-PCIE-16GB / Nvidia driver version: 418.67
    # and its nvidia-smi header:  Driver Version: 418.67       CUDA Version: 10.1
    facts = load_recorded("v100_pcie_driver418_torch16")
    assert (facts.torch.version, facts.torch.cuda_build, facts.torch.cuda_available) == (
        "1.6.0",
        "10.2",
        False,
    )
    assert facts.driver is not None and facts.driver.cuda_driver_version == 10010
    findings = diagnose(facts)
    # What the reporter hit: a CUDA 10.2 build needs driver >= 440.33; CUDA 10 had no minor-version
    # compatibility, so a driver of CUDA 10.1 cannot start it. The doctor says so and how to fix it.
    compat = [f for f in findings if f.check == "cuda_compat"]
    assert [f.severity for f in compat] == [Severity.ERROR]
    assert "440.33" in compat[0].message and "10.1" in compat[0].message
    assert compat[0].fix is not None and "440.33" in compat[0].fix and "CUDA 10.1 or older" in compat[0].fix
    assert _by(findings, "torch_cuda") == [(Severity.ERROR, None)]
    assert _by(findings, "gpu") == [
        (Severity.OK, 0),
        (Severity.OK, 1),
    ]  # both on the V100-PCIE-16GB datasheet
    assert _by(findings, "driver") == [(Severity.OK, None)]
    # collect_env and the table header say nothing of MIG, PCIe, ECC, clocks: no finding claims anything.
    for check in ("mig", "virtualization", "pcie_link", "ecc", "clocks", "persistence_mode"):
        assert _by(findings, check) == []


def test_cuda_10_2_on_a_cuda_10_1_driver_is_too_old_not_unknown() -> None:
    # The bug the V100 recording exposed: before the fix this was UNKNOWN ("the driver did not report
    # its CUDA version", though it had), because the minor-compatibility table starts at CUDA 11.
    c = cuda_compat(driver_version="418.67", driver_cuda_version=10010, build_cuda="10.2")
    assert (c.status, c.min_driver) == (CudaCompatStatus.TOO_OLD, "440.33")
    # Without NVML's CUDA version, the per-version minimum driver still decides.
    assert cuda_compat(driver_version="418.67", driver_cuda_version=None, build_cuda="10.2").status is (
        CudaCompatStatus.TOO_OLD
    )
    assert cuda_compat(driver_version="440.33", driver_cuda_version=None, build_cuda="10.2").status is (
        CudaCompatStatus.SUPPORTED
    )
    assert cuda_compat(driver_version="418.67", driver_cuda_version=10010, build_cuda="10.1").status is (
        CudaCompatStatus.SUPPORTED
    )


def test_h100_sxm_with_a_current_stack_is_healthy() -> None:
    # Skovorp/feral#18, collect_env from an H100-SXM pod:
    #   PyTorch version: 2.9.1+cu126 / CUDA used to build PyTorch: 12.6 / Is CUDA available: True
    #   GPU models and configuration: GPU 0: NVIDIA H100 80GB HBM3 / Nvidia driver version: 580.126.09
    facts = load_recorded("h100_sxm_torch29_cu126")
    assert (facts.python_version, facts.torch.device_names) == ("3.11.14", ("NVIDIA H100 80GB HBM3",))
    findings = diagnose(facts)
    assert _by(findings, "torch_cuda") == [(Severity.OK, None)]
    assert "datasheet H100-SXM" in next(f.message for f in findings if f.check == "gpu")
    # No error or warning. The one INFO: collect_env does not carry the driver's CUDA version (NVML's
    # nvmlSystemGetCudaDriverVersion would), so the compatibility verdict is left open, not guessed.
    assert [(f.check, f.severity) for f in findings if f.severity is not Severity.OK] == [
        ("cuda_compat", Severity.INFO)
    ]


def test_h100_pcie_with_a_cuda_11_7_wheel_reads_as_available() -> None:
    # pytorch/pytorch#110153, collect_env:
    #   NVIDIA H100 PCIe with CUDA capability sm_90 is not compatible with the current PyTorch installation.
    #   PyTorch version: 2.0.1+cu117 / CUDA used to build PyTorch: 11.7 / Is CUDA available: True
    #   GPU models and configuration: GPU 0: NVIDIA H100 PCIe / Nvidia driver version: 535.104.12
    facts = load_recorded("h100_pcie_torch20_cu117")
    assert (facts.torch.cuda_build, facts.torch.cuda_available, facts.torch.device_count) == ("11.7", True, 1)
    findings = diagnose(facts)
    assert _by(findings, "gpu") == [(Severity.OK, 0)]  # datasheet H100-PCIE
    assert _by(findings, "torch_cuda") == [(Severity.OK, None)]


def test_h100_pcie_with_a_cuda_11_7_wheel_is_an_error() -> None:
    # What the reporter hit (same recording): every kernel fails, "no kernel image is available".
    findings = diagnose(load_recorded("h100_pcie_torch20_cu117"))
    [arch] = [f for f in findings if f.check == "arch_support"]
    assert arch.severity is Severity.ERROR
    assert "needs CUDA ≥ 11.8" in arch.message and "11.7" in arch.message


def test_p100_with_persistence_off() -> None:
    # PyTorch-BigGraph#151, nvidia-smi -q:
    #   Driver Version : 418.67 / CUDA Version : 10.1
    #   Product Name : Tesla P100-PCIE-16GB / Persistence Mode : Disabled
    # (no "MIG Mode" block: driver 418 predates MIG, so NVML's answer would be NOT_SUPPORTED → None)
    facts = load_recorded("p100_pcie_driver418")
    assert facts.driver is not None
    (gpu,) = facts.driver.gpus
    assert (gpu.name, gpu.persistence_mode, gpu.mig_mode_current) == ("Tesla P100-PCIE-16GB", False, None)
    findings = _driver_side(diagnose(facts))
    assert _by(findings, "driver") == [(Severity.OK, None)]
    assert _by(findings, "gpu") == [(Severity.OK, 0)]  # the P100 PCIe datasheet row names this GPU
    assert _by(findings, "persistence_mode") == [(Severity.INFO, None)]
    assert max(f.severity.rank for f in findings) == Severity.INFO.rank


def test_a100_sxm4_healthy_with_mig_off_and_nothing_pending() -> None:
    # NVIDIA/k8s-device-plugin#343, nvidia-smi -a:
    #   Driver Version : 450.203.03 / CUDA Version : 11.0 / Product Name : A100-SXM4-40GB
    #   Persistence Mode : Enabled / MIG Mode / Current : Disabled / Pending : Disabled
    # The reporter's MIG set-up had reverted after a reboot: at recording time MIG is off with no
    # change pending, so the whole GPU is what CUDA gets and there is nothing to warn about.
    facts = load_recorded("a100_sxm4_driver450")
    assert facts.driver is not None
    (gpu,) = facts.driver.gpus
    assert (gpu.mig_mode_current, gpu.mig_mode_pending, gpu.persistence_mode) == (False, False, True)
    findings = _driver_side(diagnose(facts))
    assert _by(findings, "gpu") == [(Severity.OK, 0)]
    assert "datasheet A100-SXM4-40GB" in next(f.message for f in findings if f.check == "gpu")
    assert _by(findings, "mig") == []
    assert _by(findings, "persistence_mode") == []
    assert all(f.severity is Severity.OK for f in findings)


def test_a100_pcie_on_a_gen3_host_is_noted_and_idle_clocks_are_fine() -> None:
    # NVIDIA/nvidia-docker#1473: nvidia-container-cli info (NVRM version: 460.27.04, CUDA version: 11.2,
    # Model: A100-PCIE-40GB twice) and the -q block of Bus Id 00000000:24:00.0:
    #   PCIe Generation / Max : 3 / Current : 3;  Link Width / Max : 16x / Current : 16x
    #   Clocks Throttle Reasons / Idle : Active (every other reason: Not Active)
    facts = load_recorded("a100_pcie_mig_driver460")
    assert facts.driver is not None
    gpu = facts.driver.gpus[1]
    assert (gpu.pcie_gen_max, gpu.pcie_gen_current, gpu.pcie_width_max, gpu.pcie_width_current) == (
        3,
        3,
        16,
        16,
    )
    assert gpu.clock_event_reasons == ("GPU_IDLE",)
    findings = _driver_side(diagnose(facts))
    assert _by(findings, "driver") == [(Severity.OK, None)]
    assert _by(findings, "gpu") == [(Severity.OK, 0), (Severity.OK, 1)]
    # The link runs at its maximum, but the A100 is a Gen4 part: the host caps it at Gen3 (half the
    # host<->device bandwidth), an INFO with the figures.
    pcie = [f for f in findings if f.check == "pcie_link"]
    assert [(f.severity, f.gpu_index) for f in pcie] == [(Severity.OK, 1), (Severity.INFO, 1)]
    assert "Gen3" in pcie[1].message and "Gen4" in pcie[1].message
    assert _by(findings, "clocks") == [(Severity.OK, 1)]
    assert "(idle)" in next(f.message for f in findings if f.check == "clocks")


def test_mig_a100_volatile_ecc_na_is_not_reported_as_clean() -> None:
    # NVIDIA/nvidia-docker#1473, another -q excerpt of that MIG-mode A100-PCIE-40GB:
    #   Utilization / Gpu : N/A;  Ecc Mode / Current : Enabled
    #   ECC Errors / Volatile / SRAM Uncorrectable : N/A / DRAM Uncorrectable : N/A
    # With MIG on, the driver gives no device-level volatile counts: unknown, not zero. The doctor must
    # neither claim "no uncorrected errors" nor raise an alarm.
    gpu = gpu_from_excerpt(
        read_recorded("a100_pcie_mig_driver460.memory-ecc.nvidia-smi-q.txt"), index=0, name="A100-PCIE-40GB"
    )
    assert (gpu.ecc_enabled, gpu.ecc_volatile_uncorrected, gpu.utilization_gpu_pct) == (True, None, None)
    facts = MachineFacts(
        host="nvidia-docker#1473",
        python_version="unknown",
        platform="unknown",
        torch=load_recorded("a100_pcie_mig_driver460").torch,
        driver=DriverFacts(driver_version="460.27.04", cuda_driver_version=11020, gpus=(gpu,)),
    )
    assert check_ecc(facts) == []
    assert check_pcie(facts) == [] and check_clocks(facts) == []  # sections absent from this excerpt


def test_converter_reads_older_collect_env_wording() -> None:
    # 2020-era collect_env says "Is CUDA available: No" and lists GPUs on the lines after the key.
    torch, fields, names = parse_collect_env(read_recorded("v100_pcie_driver418_torch16.collect_env.txt"))
    assert names == ("Tesla V100-PCIE-16GB", "Tesla V100-PCIE-16GB")
    assert torch.cuda_available is False and torch.device_names == () and torch.device_count == 0
    assert torch.cudnn_version is None  # "cuDNN version: Could not collect" is the system lib anyway
    assert fields["Nvidia driver version"] == "418.67"


def test_converter_refuses_text_of_the_wrong_kind() -> None:
    with pytest.raises(ValueError, match="Driver Version"):
        parse_nvidia_smi_q(read_recorded("v100_pcie_driver418_torch16.collect_env.txt"))
    with pytest.raises(ValueError, match="PyTorch version"):
        parse_collect_env(read_recorded("p100_pcie_driver418.nvidia-smi-q.txt"))
    with pytest.raises(ValueError, match="driver"):
        machine_from_recording(
            source="mismatch",
            collect_env=read_recorded("v100_pcie_driver418_torch16.collect_env.txt"),
            nvidia_smi="| NVIDIA-SMI 450.80.02    Driver Version: 450.80.02    CUDA Version: 11.0     |",
        )
