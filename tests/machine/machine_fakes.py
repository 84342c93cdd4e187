"""A fake pynvml module for the probe tests: pynvml's function names, constants and error type."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any


class FakeNVMLError(Exception):
    """Mimics pynvml.NVMLError: carries the NVML return code in ``value``."""

    def __init__(self, value: int) -> None:
        super().__init__(f"NVML error {value}")
        self.value = value


NOT_SUPPORTED = 3
#: Put in a GPU spec to make that query fail with NVML_ERROR_NOT_SUPPORTED.
UNSUPPORTED: Any = object()
LIBRARY_NOT_FOUND = 12
DRIVER_NOT_LOADED = 9


class FakeNvml:
    """A stand-in for the pynvml module: same function names, constants and error type.

    ``gpus`` maps an NVML function name (without the ``nvmlDevice`` prefix) to its return value per
    GPU; a value of ``UNSUPPORTED`` (or a missing key) makes the call raise like a GPU that lacks the feature.
    """

    NVMLError = FakeNVMLError
    NVML_ERROR_NOT_SUPPORTED = NOT_SUPPORTED
    NVML_ERROR_LIBRARY_NOT_FOUND = LIBRARY_NOT_FOUND
    NVML_ERROR_DRIVER_NOT_LOADED = DRIVER_NOT_LOADED
    NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1
    NVML_VOLATILE_ECC = 0
    NVML_TEMPERATURE_GPU = 0

    def __init__(
        self,
        gpus: list[dict[str, Any]],
        *,
        driver: str = "570.172.08",
        cuda: int = 12080,
        init_error: int | None = None,
    ) -> None:
        self._gpus = gpus
        self._driver = driver
        self._cuda = cuda
        self._init_error = init_error
        self.calls: list[str] = []
        self.initialised = False
        self.shut_down = False

    def nvmlInit(self) -> None:
        if self._init_error is not None:
            raise FakeNVMLError(self._init_error)
        self.initialised = True

    def nvmlShutdown(self) -> None:
        self.shut_down = True

    def nvmlSystemGetDriverVersion(self) -> str:
        return self._driver

    def nvmlSystemGetCudaDriverVersion(self) -> int:
        return self._cuda

    def nvmlDeviceGetCount(self) -> int:
        return len(self._gpus)

    def nvmlDeviceGetHandleByIndex(self, index: int) -> int:
        return index

    def __getattr__(self, name: str) -> Any:
        # Any other nvmlDeviceGetX(handle, *args) answers from the per-GPU table.
        if not name.startswith("nvmlDeviceGet"):
            raise AttributeError(name)
        key = name.removeprefix("nvmlDeviceGet")
        if not any(key in spec for spec in self._gpus):
            raise AttributeError(name)  # like an older pynvml without this function

        def call(handle: int, *args: Any) -> Any:
            self.calls.append(name)
            value = self._gpus[handle].get(key, UNSUPPORTED)
            if value is UNSUPPORTED:
                raise FakeNVMLError(NOT_SUPPORTED)
            return value

        return call


def nvml_gpu(**overrides: Any) -> dict[str, Any]:
    """Per-GPU NVML answers of a healthy, idle H100 SXM, in pynvml's documented return types."""
    gpu: dict[str, Any] = {
        "Name": "NVIDIA H100 80GB HBM3",
        "MemoryInfo": SimpleNamespace(total=85_520_809_984, used=524_288_000, free=84_996_521_984),
        "CudaComputeCapability": (9, 0),
        "MigMode": [0, 0],
        "VirtualizationMode": 0,
        "CurrPcieLinkGeneration": 5,
        "MaxPcieLinkGeneration": 5,
        "CurrPcieLinkWidth": 16,
        "MaxPcieLinkWidth": 16,
        "UtilizationRates": SimpleNamespace(gpu=0, memory=0),
        "EccMode": [1, 1],
        "TotalEccErrors": 0,
        "PersistenceMode": 1,
        "CurrentClocksEventReasons": 0x1,
        "Temperature": 33,
    }
    gpu.update(overrides)
    return gpu
