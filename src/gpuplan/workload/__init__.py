"""The user's job: the workload spec, and where its model comes from.

Importing this package does not import torch (``gpuplan --help`` stays fast); model builders are
loaded only when a workload is traced.
"""

from gpuplan.vocab import (
    ActivationCheckpointing,
    Objective,
    OptimizerName,
    Parallelism,
    Precision,
    Task,
)
from gpuplan.workload.durations import parse_duration_hours
from gpuplan.workload.presets.registry import PRESETS, PresetInfo, get_preset
from gpuplan.workload.spec import (
    CheckpointSpec,
    ConstraintsSpec,
    DataSpec,
    InputsSpec,
    LoraSpec,
    ModelSpec,
    ServingSpec,
    Workload,
    load_workload,
)

__all__ = [
    "PRESETS",
    "ActivationCheckpointing",
    "CheckpointSpec",
    "ConstraintsSpec",
    "DataSpec",
    "InputsSpec",
    "LoraSpec",
    "ModelSpec",
    "Objective",
    "OptimizerName",
    "Parallelism",
    "Precision",
    "PresetInfo",
    "ServingSpec",
    "Task",
    "Workload",
    "get_preset",
    "load_workload",
    "parse_duration_hours",
]
