"""The probe turns pynvml's answers (a fake module here) and torch's into MachineFacts."""

from __future__ import annotations

import importlib
from types import ModuleType

from machine_fakes import DRIVER_NOT_LOADED, LIBRARY_NOT_FOUND, UNSUPPORTED, FakeNvml, nvml_gpu

from gpuplan.machine import MachineFacts, probe_machine
from gpuplan.machine.probe import probe_driver


def _no_torch() -> ModuleType:
    raise ModuleNotFoundError("No module named 'torch'")


def test_probe_reads_every_nvml_fact_of_a_healthy_gpu() -> None:
    nvml = FakeNvml([nvml_gpu(), nvml_gpu()])
    driver, reason = probe_driver(nvml)
    assert reason is None and driver is not None
    assert driver.driver_version == "570.172.08"
    assert driver.cuda_driver_version_str == "12.8"  # 12080 = 1000*12 + 10*8
    g = driver.gpus[0]
    assert g.name == "NVIDIA H100 80GB HBM3"
    assert g.memory_total_bytes == 85_520_809_984
    assert g.compute_capability == "9.0"
    assert (g.mig_mode_current, g.mig_mode_pending) == (False, False)
    assert g.virtualization_mode == "NONE"
    assert (g.pcie_gen_current, g.pcie_gen_max, g.pcie_width_current, g.pcie_width_max) == (5, 5, 16, 16)
    assert g.ecc_enabled is True and g.ecc_volatile_uncorrected == 0
    assert g.persistence_mode is True
    assert g.clock_event_reasons == ("GPU_IDLE",)
    assert g.temperature_c == 33
    assert len(driver.gpus) == 2
    assert nvml.shut_down


def test_not_supported_queries_become_none_not_zero() -> None:
    nvml = FakeNvml(
        [
            nvml_gpu(
                MigMode=UNSUPPORTED,
                EccMode=UNSUPPORTED,
                PersistenceMode=UNSUPPORTED,
                CurrPcieLinkGeneration=UNSUPPORTED,
                CurrentClocksEventReasons=UNSUPPORTED,
                VirtualizationMode=2,
            )
        ]
    )
    driver, _ = probe_driver(nvml)
    assert driver is not None
    g = driver.gpus[0]
    assert g.mig_mode_current is None and g.ecc_enabled is None and g.persistence_mode is None
    assert g.pcie_gen_current is None and g.pcie_gen_max == 5
    assert g.clock_event_reasons is None
    assert g.virtualization_mode == "VGPU"
    # ECC counters are not asked for when ECC mode is unknown.
    assert "nvmlDeviceGetTotalEccErrors" not in nvml.calls


def test_clock_reasons_fall_back_to_the_deprecated_throttle_call() -> None:
    spec = nvml_gpu(CurrentClocksThrottleReasons=0x4 | 0x40)
    del spec["CurrentClocksEventReasons"]
    driver, _ = probe_driver(FakeNvml([spec]))
    assert driver is not None
    assert driver.gpus[0].clock_event_reasons == ("SW_POWER_CAP", "HW_THERMAL_SLOWDOWN")


def test_unknown_clock_bits_are_kept_by_value() -> None:
    driver, _ = probe_driver(FakeNvml([nvml_gpu(CurrentClocksEventReasons=0x4 | 0x1000)]))
    assert driver is not None
    assert driver.gpus[0].clock_event_reasons == ("SW_POWER_CAP", "OTHER_0x1000")


def test_missing_nvml_library_reads_as_no_driver() -> None:
    driver, reason = probe_driver(FakeNvml([], init_error=LIBRARY_NOT_FOUND))
    assert driver is None
    assert reason is not None and "no NVIDIA driver found" in reason


def test_driver_not_loaded_is_told_apart() -> None:
    _, reason = probe_driver(FakeNvml([], init_error=DRIVER_NOT_LOADED))
    assert reason is not None and "not loaded" in reason


def test_probe_machine_copies_only_the_relevant_environment() -> None:
    env = {"NCCL_DEBUG": "INFO", "CUDA_VISIBLE_DEVICES": "0,1", "AWS_SECRET_ACCESS_KEY": "x", "HOME": "/root"}
    facts = probe_machine(env, nvml=FakeNvml([nvml_gpu()]), import_torch=_no_torch)
    assert facts.env == {"CUDA_VISIBLE_DEVICES": "0,1", "NCCL_DEBUG": "INFO"}


def test_probe_machine_without_torch_reports_it() -> None:
    facts = probe_machine({}, nvml=FakeNvml([], init_error=LIBRARY_NOT_FOUND), import_torch=_no_torch)
    assert facts.torch.installed is False
    assert facts.torch.import_error is not None and "torch" in facts.torch.import_error
    assert facts.driver is None


def test_probe_machine_with_real_cpu_torch() -> None:
    facts = probe_machine({}, nvml=FakeNvml([], init_error=LIBRARY_NOT_FOUND))
    torch = importlib.import_module("torch")
    assert facts.torch.installed and facts.torch.version == str(torch.__version__)
    assert facts.torch.cuda_available is False
    assert facts.python_version.count(".") == 2


def test_facts_round_trip_through_json_dict() -> None:
    facts = probe_machine({"NCCL_DEBUG": "WARN"}, nvml=FakeNvml([nvml_gpu()]), import_torch=_no_torch)
    assert MachineFacts.from_dict(facts.to_dict()) == facts


def test_probe_machine_counts_the_cpu_threads_this_process_may_use() -> None:
    # No GPU is needed for the count: the threads a container's affinity mask allows, not the host's.
    import os

    facts = probe_machine({}, nvml=FakeNvml([], init_error=LIBRARY_NOT_FOUND), import_torch=_no_torch)
    assert facts.cpu_threads == len(os.sched_getaffinity(0)) >= 1
    assert type(facts).from_dict(facts.to_dict()).cpu_threads == facts.cpu_threads
