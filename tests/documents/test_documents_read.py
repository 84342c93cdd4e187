"""Documents read from a file refuse NaN and infinity, naming the field; written ones turn them to null."""

from __future__ import annotations

import math
from typing import Any

import pytest
from pydantic import ValidationError

from gpuplan.documents import PlanOption, PlanWorkload

OPTION: dict[str, Any] = dict(
    provider="aws",
    region="us-east-1",
    instance_type="p4d.24xlarge",
    gpu="A100-SXM4-40GB",
    gpu_count=8,
    gpus_per_node=8,
    pricing="on_demand",
)


@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan, "Infinity", "-inf", "NaN"])
def test_a_read_document_refuses_a_non_finite_number_naming_its_field(value: object) -> None:
    with pytest.raises(ValidationError) as e:
        PlanOption.read({**OPTION, "total_cost_usd": value})
    [err] = e.value.errors()
    assert err["loc"] == ("total_cost_usd",)
    assert "finite" in err["msg"]


def test_nested_parts_and_kept_extra_keys_are_checked_too() -> None:
    with pytest.raises(ValidationError) as e:
        parts = dict(
            compute_usd="inf", storage_usd=0.0, egress_usd=0.0, licence_usd=0.0, spot_overhead_usd=0.0
        )
        PlanOption.read({**OPTION, "cost_breakdown": parts})
    assert e.value.errors()[0]["loc"] == ("cost_breakdown", "compute_usd")
    with pytest.raises(ValidationError, match="constraints: must be a finite number"):
        PlanWorkload.read({"name": "x", "constraints": {"budget_usd": -math.inf}})
    with pytest.raises(ValidationError, match="finite"):
        PlanWorkload.read({"name": "x", "serving": {"requests_per_s": math.nan}})


def test_a_written_document_still_turns_non_finite_numbers_into_null() -> None:
    written = PlanOption.model_validate({**OPTION, "job_time_h": math.inf, "total_cost_usd": math.nan})
    assert written.job_time_h is None and written.total_cost_usd is None
    assert PlanOption.read({**OPTION, "job_time_h": 2.5}).job_time_h == 2.5


def test_a_refused_number_or_node_split_carries_its_words_for_the_users_language() -> None:
    from gpuplan.deploy.reasons import reason
    from gpuplan.errors import DeployError, Phrase
    from gpuplan.i18n import use_language
    from gpuplan.i18n.error_text import error_text

    with pytest.raises(ValidationError) as finite:
        PlanOption.read({**OPTION, "total_cost_usd": math.inf})
    with pytest.raises(ValidationError) as split:
        PlanOption.read({**OPTION, "gpu_count": 8, "gpus_per_node": 4, "nodes": 3})
    for e, english, chinese in (
        (finite, "must be a finite number, not NaN or infinity", "必须是有限的数，不能是 NaN 或无穷大"),
        (split, "gpu_count 8 is not a multiple of nodes 3", "gpu_count 8 不是 nodes 3 的整数倍"),
    ):
        said = reason(e.value.errors()[0])
        assert isinstance(said, Phrase)
        assert str(said) == english
        with use_language("zh"):
            assert error_text(DeployError.worded("{why}", why=said)) == chinese


def test_a_zero_node_count_is_the_error_named_not_a_missing_gpus_per_node() -> None:
    # Before: "gpus_per_node: Field required (and 1 more)": the per-node split was not filled in
    # when nodes was invalid, so the first error named a field the file may leave out.
    option = {k: v for k, v in OPTION.items() if k != "gpus_per_node"}
    with pytest.raises(ValidationError) as e:
        PlanOption.read({**option, "nodes": 0})
    assert [err["loc"] for err in e.value.errors()] == [("nodes",)]
