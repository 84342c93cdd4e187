"""Two inputs a user writes by habit, each refused saying what to write instead: a shape in
``--gpus`` (``2x8``: counts go in --min-gpus, --max-gpus and --max-nodes; it had been "unknown GPU '2x8'") and
a budget in pounds (a currency gpuplan does not take; it had been "is not an amount")."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic_core import PydanticCustomError

from gpuplan.cli.plan_cmds import PlanOptions
from gpuplan.errors import InputError
from gpuplan.units import read_amount


@pytest.mark.parametrize("shape", ["2x8", "8xH100", "8 × A100", "4*L4"])
def test_a_count_in_the_gpu_names_points_to_the_count_options(shape: str) -> None:
    with pytest.raises(InputError) as e:
        PlanOptions(workload_file=Path("w.yaml"), gpus=f"H100,{shape}").overrides()
    assert str(e.value) == (
        f"--gpus {shape}: give GPU names (T4,A10G,H100 …; `gpuplan gpus` lists them); counts go in "
        "--min-gpus, --max-gpus (GPUs in all) and --max-nodes (instances)"
    )
    assert PlanOptions(workload_file=Path("w.yaml"), gpus="H100,A10G").overrides()["gpus"] == ("H100", "A10G")


@pytest.mark.parametrize(("amount", "code"), [("£60,000", "GBP"), ("60,000 GBP", "GBP"), ("€60k", "EUR")])
def test_a_budget_in_another_currency_names_it(amount: str, code: str) -> None:
    with pytest.raises(PydanticCustomError) as e:
        read_amount(amount, "usd", "--budget-cny")
    assert (
        str(e.value) == f"{amount} is in {code}, which gpuplan does not take: give the amount in USD or CNY"
    )
    assert read_amount("$60,000", "usd", "--budget-cny") == 60_000.0
