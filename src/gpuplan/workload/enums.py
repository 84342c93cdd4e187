"""The closed vocabularies of a workload spec, as string enums with a forgiving ``cast``."""

from __future__ import annotations

from enum import Enum
from typing import TypeVar

from gpuplan.errors import closest

__all__ = [
    "ActivationCheckpointing",
    "Objective",
    "OptimizerName",
    "Parallelism",
    "Precision",
    "Task",
    "cast_enum",
]

E = TypeVar("E", bound="_Choice")


class _Choice(str, Enum):
    """A string enum whose values are what users write in YAML."""

    def __str__(self) -> str:
        return self.value

    @classmethod
    def cast(cls: type[E], value: object) -> E:
        """``value`` as a member; case, ``_`` and spaces are forgiven. Raises ValueError with did-you-mean."""
        return cast_enum(cls, value)


def cast_enum(cls: type[E], value: object) -> E:
    """Member of ``cls`` written as ``value`` (``AMP_BF16``, ``amp_bf16`` and ``amp-bf16`` all match)."""
    if isinstance(value, cls):
        return value
    text = str(value).strip().lower().replace("_", "-").replace(" ", "-")
    for member in cls:
        if member.value == text:
            return member
    known = [m.value for m in cls]
    hint = closest(text, known)
    did = f"did you mean {' or '.join(repr(h) for h in hint)}? " if hint else ""
    raise ValueError(f"unknown value {value!r}; {did}(one of {', '.join(known)})")


class Task(_Choice):
    TRAIN = "train"
    FINETUNE = "finetune"
    INFER = "infer"


class Precision(_Choice):
    FP32 = "fp32"
    TF32 = "tf32"
    AMP_FP16 = "amp-fp16"
    AMP_BF16 = "amp-bf16"
    BF16 = "bf16"
    FP8 = "fp8"


class OptimizerName(_Choice):
    SGD = "sgd"
    ADAM = "adam"
    ADAMW = "adamw"
    ADAMW_FUSED = "adamw-fused"
    ADAFACTOR = "adafactor"


class Parallelism(_Choice):
    DDP = "ddp"
    FSDP = "fsdp"
    ZERO1 = "zero1"
    ZERO2 = "zero2"
    ZERO3 = "zero3"


class ActivationCheckpointing(_Choice):
    """What backward recomputes instead of keeping from forward."""

    NONE = "none"
    FULL = "full"
    """Every transformer block (ResNet stage) is recomputed; only its input is kept."""
    SELECTIVE = "selective"
    """Matmul and attention outputs are kept; the cheap ops between them are recomputed."""


class Objective(_Choice):
    COST = "cost"
    TIME = "time"
    BALANCED = "balanced"
