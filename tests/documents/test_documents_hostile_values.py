"""Property: a document from someone else with non-finite, boolean or huge numbers is refused in one
line of gpuplan's own, or read with every number it declares finite and no boolean taken for a
number — plans given to ``deploy``, and the simulation's and ``tco``'s YAML files."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from gpuplan.deploy import LaunchSpec
from gpuplan.errors import GpuplanError

PLAN = json.loads(
    (Path(__file__).resolve().parents[1] / "deploy" / "fixtures" / "plan_spot_aws.json").read_text()
)
#: Numbers of the plan that its document models declare (the workload's extra keys are kept as given
#: and not used by deploy).
PLAN_NUMBERS = [
    ("schema_version",),
    *(
        ("recommended", k)
        for k in ("gpu_count", "nodes", "job_time_h", "total_cost_usd", "price_usd_per_hour")
    ),
    ("recommended", "checkpoint_interval_min"),
    ("workload", "inputs", "batch_size"),
    ("workload", "inputs", "seq_len"),
    ("workload", "data", "samples"),
    ("workload", "data", "epochs"),
    ("workload", "data", "size_gb"),
]
#: What a file from elsewhere may hold where a number is expected.
HOSTILE = st.one_of(
    st.sampled_from([math.inf, -math.inf, math.nan, True, False, 10**400, -(10**400), 1e308, -1e308, 0, -1]),
    st.sampled_from(["Infinity", "-inf", "NaN", "1e999", "true", "", "12"]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-(10**30), max_value=10**30),
)


def _numbers(x: Any) -> list[object]:
    if isinstance(x, dict):
        return [n for v in x.values() for n in _numbers(v)]
    if isinstance(x, list | tuple):
        return [n for v in x for n in _numbers(v)]
    return [x] if isinstance(x, int | float) else []


@settings(max_examples=60, deadline=None)
@example(changes=[(("schema_version",), True)])
@example(changes=[(("recommended", "gpu_count"), True)])
@example(changes=[(("workload", "inputs", "batch_size"), math.inf)])
@given(changes=st.lists(st.tuples(st.sampled_from(PLAN_NUMBERS), HOSTILE), min_size=1, max_size=3))
def test_a_plan_with_hostile_numbers_is_refused_in_one_line_or_read_finite(
    changes: list[tuple[tuple[str, ...], object]],
) -> None:
    doc = copy.deepcopy(PLAN)
    for path, value in changes:
        part = doc
        for key in path[:-1]:
            part = part[key]
        part[path[-1]] = value
    try:
        spec = LaunchSpec.from_plan(doc)
    except GpuplanError as e:
        assert "\n" not in str(e) and len(str(e)) < 1000, str(e)
        return
    # Read: no boolean was taken for a number, and every number of the launch is finite.
    final = dict(changes)  # a later change of the same field wins
    assert not any(isinstance(v, bool) for v in final.values()), (changes, spec)
    dumped = spec.model_dump()
    assert all(math.isfinite(n) for n in _numbers(dumped) if not isinstance(n, bool)), (changes, dumped)


SERVICE = {"name": "a", "memory_gib": 9, "requests_per_s": 1, "capacity_requests_per_s": 9, "latency_ms": 9}
SERVICE_NUMBERS = ["memory_gib", "requests_per_s", "capacity_requests_per_s", "latency_ms", "p95_latency_ms"]
USAGE_NUMBERS = [
    "gpus",
    "hours_per_month",
    "growth_pct_per_month",
    "start_month",
    "run_hours",
    "checkpoint_gb",
]
POLICY_NUMBERS = ["replicas", "min", "max", "startup", "period", "spot"]


FILE_NUMBERS = [
    *(("services", k) for k in SERVICE_NUMBERS),
    *(("usage", k) for k in USAGE_NUMBERS),
    *(("policies", k) for k in POLICY_NUMBERS),
]


@pytest.mark.parametrize(("which", "key"), FILE_NUMBERS)
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=HOSTILE)
@example(value=True)
@example(value=math.inf)
@example(value=10**400)
def test_simulation_and_tco_files_with_hostile_numbers_are_one_line_or_read_finite(
    tmp_path_factory: pytest.TempPathFactory, which: str, key: str, value: object
) -> None:
    from gpuplan.commit.usage import Usage
    from gpuplan.simulate import load_policies
    from gpuplan.simulate.inputs import load_services

    path = tmp_path_factory.mktemp("f") / f"{which}.yaml"
    load: Any
    if which == "services":
        path.write_text(yaml.safe_dump({"services": [{**SERVICE, key: value}]}))
        load = load_services
    elif which == "usage":
        demand = {"name": "s", "gpu": "L4", "gpus": 4, "hours_per_month": 730, key: value}
        path.write_text(yaml.safe_dump({"horizon_months": 12, "demands": [demand]}))
        load = Usage.from_yaml
    else:
        path.write_text(yaml.safe_dump([{"kind": "fixed", "replicas": 2, key: value}]))
        load = load_policies
    try:
        read = load(path)
    except GpuplanError as e:
        assert "\n" not in str(e) and len(str(e)) < 1000, str(e)
        return
    assert not isinstance(value, bool), (which, key, value)  # true is not 1
    numbers = _numbers(read.model_dump() if hasattr(read, "model_dump") else [vars(p) for p in read])
    assert all(math.isfinite(n) for n in numbers if not isinstance(n, bool)), (which, key, value, numbers)
