"""examples/README.md's variations say what the planner does on the shipped catalog: the one marked
infeasible is, and the example's own constraints are not.

The ResNet-50 step is the traced calibration fixture (ResNet-50 v1.5, AMP, 256 images per GPU: the
example's workload), so no test traces.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from gpuplan.api import plan
from gpuplan.catalog import Store, open_store
from gpuplan.errors import InfeasibleError
from gpuplan.plan import parse_duration_h
from gpuplan.profile.model import Profile
from gpuplan.workload import load_workload

ROOT = Path(__file__).resolve().parents[2]
PROFILE = ROOT / "tests" / "calibration" / "fixtures" / "profiles" / "resnet50-v1.5-554630c7d30796ec.json"


@pytest.fixture(scope="module")
def store(seeded_copy: Callable[[str], Path]) -> Iterator[Store]:
    st = open_store(str(seeded_copy("examples")))
    yield st
    st.close()


def _resnet() -> Profile:
    return Profile.from_json(PROFILE.read_text(encoding="utf-8"))


def _readme_lines(marker: str) -> list[list[str]]:
    text = (ROOT / "examples" / "README.md").read_text(encoding="utf-8")
    lines = [
        line.split("#", 1)[0]
        for line in text.splitlines()
        if line.startswith("gpuplan plan") and marker in line
    ]
    return [shlex.split(line) for line in lines]


def test_the_variation_the_readme_calls_infeasible_is(store: Store) -> None:
    lines = [a for a in _readme_lines("# infeasible") if "resnet50-imagenet.yaml" in a[2]]
    assert lines, "examples/README.md names an infeasible variation of the ResNet-50 example"
    for args in lines:
        flags = dict(zip(args[3::2], args[4::2], strict=False))
        workload = load_workload(ROOT / args[2])
        with pytest.raises(InfeasibleError, match="no option meets"):
            plan(
                workload,
                store=store,
                profile=_resnet(),
                deadline_h=parse_duration_h(flags["--deadline"]),
                budget_usd=float(flags["--budget-usd"]),
            )


def test_the_example_as_written_is_feasible(store: Store) -> None:
    workload = load_workload(ROOT / "examples" / "resnet50-imagenet.yaml")
    result = plan(workload, store=store, profile=_resnet())
    assert result.recommended.job_time_h <= 48 and result.recommended.total_cost_usd <= 3000
    assert re.search(r"\d", result.recommended.label)
