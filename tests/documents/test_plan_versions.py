"""deploy reads plan files of schema version 1 (written before money fields named their unit) as
well as versions 2 and 3, and refuses any other version in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpuplan.deploy import LaunchSpec
from gpuplan.documents import PlanOption
from gpuplan.documents.plan import upgrade_v1_option
from gpuplan.errors import DeployError

V1_PLAN = Path(__file__).resolve().parents[1] / "deploy" / "fixtures" / "plan_spot_aws.json"


def _v1(**recommended: object) -> dict:  # type: ignore[type-arg]
    doc = json.loads(V1_PLAN.read_text(encoding="utf-8"))
    assert doc["schema_version"] == 1
    doc["recommended"].update(recommended)
    return doc


def test_a_version_1_monthly_price_becomes_price_usd_per_month() -> None:
    option = _v1(pricing="monthly", price_usd=1800.0, price_unit_hours=730.0)["recommended"]
    upgraded = PlanOption.read(upgrade_v1_option(option))
    assert (upgraded.price_unit, upgraded.price_usd_per_month) == ("month", 1800.0)
    hourly = PlanOption.read(upgrade_v1_option({**option, "price_usd": 2.5, "price_unit_hours": 1.0}))
    assert (hourly.price_unit, hourly.price_usd_per_month) == ("hour", None)


def test_deploy_reads_a_version_1_plan_with_its_old_money_fields(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(_v1(price_usd=21.96, price_unit_hours=1.0)), encoding="utf-8")
    spec = LaunchSpec.from_plan_json(path)
    assert spec.provider == "aws" and spec.pricing == "spot"


def test_a_version_2_plan_with_a_version_1_field_is_refused(tmp_path: Path) -> None:
    # Version 2 has no price_usd: an old field in a new file is a malformed file, not read silently.
    doc = _v1(price_usd=21.96)
    doc["schema_version"] = 2
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(DeployError, match="recommended option is malformed"):
        LaunchSpec.from_plan_json(path)


@pytest.mark.parametrize("version", [3, 4, 5])
def test_deploy_still_reads_a_version_3_to_5_plan(tmp_path: Path, version: int) -> None:
    # version 4 changed what a service day's hours are (its start-ups billed), version 5 added a
    # service's schedule to its day, and version 6 prices the launch disk as storage, none of which
    # deploy reads: a plan saved before still deploys
    doc = _v1(price_usd=21.96, price_unit_hours=1.0)
    doc["recommended"] = upgrade_v1_option(doc["recommended"])
    doc["schema_version"] = version
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert LaunchSpec.from_plan_json(path).provider == "aws"
