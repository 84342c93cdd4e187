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
    assert str(e.value) == (
        f"{amount} is in {code}, which gpuplan does not price in (the catalog has no dated {code} rate): "
        "give the amount in USD or CNY"
    )
    assert read_amount("$60,000", "usd", "--budget-cny") == 60_000.0


@pytest.mark.parametrize(
    ("number", "gpu"), [("4090", "RTX-4090"), ("3090", "RTX-3090"), ("5090", "RTX-5090")]
)
def test_a_gpu_model_number_in_gpus_is_that_gpu(number: str, gpu: str) -> None:
    """``--gpus 4090`` is the RTX-4090, as ``estimate --gpu 4090`` reads it (it had been refused as a
    count: "give GPU names … for a GPU count use --min-gpus")."""
    gpus = PlanOptions(workload_file=Path("w.yaml"), gpus=f"{number},T4").overrides()["gpus"]
    assert gpus == (number, "T4")
    from gpuplan.hardware import gpus_named

    assert [g.id for g in gpus_named(number)] == [gpu]


def test_a_number_that_names_no_gpu_in_gpus_points_to_the_count_options() -> None:
    with pytest.raises(InputError) as e:
        PlanOptions(workload_file=Path("w.yaml"), gpus="8").overrides()
    assert str(e.value).startswith(
        "--gpus 8: give GPU names (T4,A10G,H100 …; `gpuplan gpus` lists them); for a GPU count"
    )
