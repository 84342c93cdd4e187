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


class _FakeEvent:
    """torch.cuda.Event stand-in; only used by CudaEventTimer, which the GPU-path tests replace."""

    def __init__(self, enable_timing: bool = False) -> None:
        self.enable_timing = enable_timing

    def record(self) -> None: ...

    def synchronize(self) -> None: ...

    def elapsed_time(self, other: _FakeEvent) -> float:
        return 1.0


class FakeCudaTorch:
    """The real (CPU) torch, dressed as a CUDA machine with ``gpu_count`` GPUs named ``gpu_name``.

    Tensors asked for on ``cuda`` are made on the CPU, ``pin_memory`` is dropped and CUDA autocast
    becomes CPU autocast, so the bench's GPU code paths run here. Used only with a fixed timer: the
    numbers such a run produces pin the arithmetic and never describe a real GPU.
    """

    def __init__(
        self,
        *,
        gpu_name: str,
        memory_bytes: int,
        gpu_count: int,
        capability: tuple[int, int],
        l2_bytes: int = 0,
    ) -> None:
        import torch

        self._torch = torch
        self.__version__ = torch.__version__
        self.cuda = SimpleNamespace(
            is_available=lambda: True,
            device_count=lambda: gpu_count,
            get_device_properties=lambda i: SimpleNamespace(
                name=gpu_name, total_memory=memory_bytes, L2_cache_size=l2_bytes
            ),
            get_device_capability=lambda i=0: capability,
            is_bf16_supported=lambda: capability[0] >= 8,
            synchronize=lambda: None,
            Event=_FakeEvent,
        )
        real_nn = torch.nn

        def encoder_layer(*args: Any, device: Any = None, **kwargs: Any) -> Any:
            return real_nn.TransformerEncoderLayer(*args, **kwargs)

        self.nn = SimpleNamespace(TransformerEncoderLayer=encoder_layer)

    def _cpu(self, fn_name: str) -> Any:
        fn = getattr(self._torch, fn_name)

        def call(*args: Any, device: Any = None, pin_memory: bool = False, **kwargs: Any) -> Any:
            return fn(*args, **kwargs)

        return call

    def __getattr__(self, name: str) -> Any:
        if name in ("randn", "empty", "ones", "zeros"):
            return self._cpu(name)
        if name == "autocast":
            return lambda device_type, dtype: self._torch.autocast("cpu", dtype=dtype)
        return getattr(self._torch, name)
