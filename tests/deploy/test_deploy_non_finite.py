"""deploy refuses a plan whose numbers are not finite, naming the field, instead of dropping them."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from deploy_helpers import plan_doc

from gpuplan.deploy import LaunchSpec
from gpuplan.errors import DeployError


@pytest.mark.parametrize("field", ["job_time_h", "checkpoint_interval_min", "total_cost_usd"])
def test_deploy_refuses_a_plan_with_a_non_finite_number_instead_of_dropping_it(field: str) -> None:
    # Before: inf became null, and an infinite checkpoint interval silently became the default 30 min.
    with pytest.raises(DeployError) as e:
        LaunchSpec.from_plan(plan_doc(**{field: math.inf}))
    msg = str(e.value)
    assert "\n" not in msg and f"{field}: must be a finite number" in msg


def test_a_plan_file_with_infinity_as_a_string_is_one_line(tmp_path: Path) -> None:
    doc = plan_doc(total_cost_usd="Infinity")  # JSON has no Infinity; a string is what gets through
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(DeployError, match=r"total_cost_usd: must be a finite number") as e:
        LaunchSpec.from_plan_json(path)
    assert "\n" not in str(e.value)


def test_a_plan_file_giving_a_key_twice_is_refused_naming_the_key(tmp_path: Path) -> None:
    # json.loads kept the last "instance_type" and said nothing (a YAML file giving a key twice is
    # refused): the launch files were written for whichever came last.
    text = json.dumps(plan_doc(), indent=1)
    assert text.count('"instance_type": ') >= 1
    twice = text.replace('"instance_type": ', '"instance_type": "p5.48xlarge",\n  "instance_type": ', 1)
    path = tmp_path / "plan.json"
    path.write_text(twice)
    with pytest.raises(DeployError) as e:
        LaunchSpec.from_plan_json(path)
    msg = str(e.value)
    assert "\n" not in msg and "'instance_type' is given twice in one object" in msg, msg
