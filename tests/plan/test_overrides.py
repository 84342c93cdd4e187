"""Constraints given by name to gpuplan.plan(): typed, and a typo says "did you mean"."""

from __future__ import annotations

from dataclasses import fields

import pytest

from gpuplan.errors import NotFoundError
from gpuplan.plan import Constraints, Objective
from gpuplan.plan.overrides import PlanOverrides


def test_overrides_name_exactly_the_constraints() -> None:
    assert [f.name for f in fields(PlanOverrides)] == [f.name for f in fields(Constraints)]


def test_a_misspelt_constraint_suggests_the_right_one() -> None:
    with pytest.raises(NotFoundError, match=r"unknown constraint 'deadlin_h'; did you mean 'deadline_h'"):
        PlanOverrides.from_mapping({"deadlin_h": 12})


def test_given_overrides_replace_the_base_and_none_keeps_it() -> None:
    base = Constraints(deadline_h=10, budget_usd=100)
    out = PlanOverrides.from_mapping({"budget_usd": None, "providers": "aws", "objective": "Time"}).apply(
        base
    )
    assert (out.deadline_h, out.budget_usd, out.providers) == (10, 100, ("aws",))
    assert out.objective is Objective.TIME
