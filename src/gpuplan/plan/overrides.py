"""Constraints given by name on top of a workload's own (``gpuplan.plan(w, deadline_h=12, …)``).

:class:`PlanOverrides` is the typed form of those keyword arguments: every field of
:class:`~gpuplan.plan.constraints.Constraints`, each None when not given. A name that is not a
constraint is refused with "did you mean …" instead of Python's bare ``TypeError``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from gpuplan.errors import NotFoundError
from gpuplan.plan.constraints import Constraints
from gpuplan.vocab import Objective

__all__ = ["PlanOverrides"]


def _names(value: Any) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return (value,)
    if isinstance(value, Sequence):
        return tuple(str(v) for v in value)
    return value  # not a list of names: Constraints' own checks name the problem


@dataclass(frozen=True, kw_only=True)
class PlanOverrides:
    """Constraints that replace the workload's, field by field; None = keep the workload's."""

    deadline_h: float | None = None
    budget_usd: float | None = None
    providers: tuple[str, ...] | None = None
    gpus: tuple[str, ...] | None = None
    regions: tuple[str, ...] | None = None
    countries: tuple[str, ...] | None = None
    hosts: str | None = None
    pricing: tuple[str, ...] | None = None
    max_gpus: int | None = None
    min_gpus: int | None = None
    max_nodes: int | None = None
    min_gpu_memory_gib: float | None = None
    interconnect: str | None = None
    compliance: tuple[str, ...] | None = None
    commitment: str | None = None
    upfront: str | None = None
    objective: Objective | None = None
    allow_low_confidence: bool | None = None

    @classmethod
    def from_mapping(cls, given: Mapping[str, Any]) -> PlanOverrides:
        """The overrides named in ``given`` (keyword arguments); a name that is not a constraint
        raises NotFoundError with the nearest names."""
        known = [f.name for f in fields(cls)]
        for name in given:
            if name not in known:
                raise NotFoundError("constraint", name, known)
        values = {k: v for k, v in given.items() if v is not None}
        for name in ("providers", "gpus", "regions", "countries", "pricing", "compliance"):
            if name in values:
                values[name] = _names(values[name])
        if "objective" in values:
            values["objective"] = Objective.cast(values["objective"])
        return cls(**values)

    def apply(self, base: Constraints) -> Constraints:
        """``base`` with every given override in place (validated as Constraints validates)."""
        given = {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) is not None}
        return replace(base, **given)
