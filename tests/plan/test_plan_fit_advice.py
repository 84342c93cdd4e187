"""A plan that no option is left in because the job fits none of the GPUs left says what the
estimate's advisor finds fits one of them (``perf/advisor.py``), not only the counts."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from plan_helpers import CAL, aws_costs, ddp_profile, offer, toy_estimator

from gpuplan.i18n import use_language
from gpuplan.i18n.error_text import error_text
from gpuplan.plan import Constraints, CostFacts, JobFacts, OfferTable, plan_offers
from gpuplan.plan.api import _with_fit_advice
from gpuplan.plan.planner import PlanInfeasibleError
from gpuplan.workload import Workload

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _refusal(gpus: tuple[str, ...], peak_gib: float) -> PlanInfeasibleError:
    rows = [
        *(offer(region=f"r{i}") for i in range(20)),
        offer(instance_type="g5.xlarge", gpu="A10G", gpu_count=1, gpu_memory_gib=24, price_usd=1.0),
    ]
    with pytest.raises(PlanInfeasibleError) as caught:
        plan_offers(
            OfferTable.from_rows(rows),
            CostFacts([aws_costs()]),
            JobFacts(),
            toy_estimator(peak_gib=peak_gib),
            Constraints(gpus=gpus),
        )
    return caught.value


def test_the_refusal_names_the_gpu_memory_left_out() -> None:
    # the GPU filter left out 160 candidates, memory the A10G's 8: memory is what to act on
    assert _refusal(("A10G",), 30).fit_gpu == "A10G"
    # the largest GPU left out for memory is the one named
    assert _refusal(("A10G", "A100-SXM4-40GB"), 50).fit_gpu == "A100-SXM4-40GB"
    # a filter alone left none: no GPU to advise on
    assert _refusal(("T4",), 10).fit_gpu is None


def test_the_advisor_s_changes_that_fit_are_named_on_the_line() -> None:
    # 30 GiB of activations on a 24 GB RTX 4090 do not fit at 256 images; micro-batches do
    prof = ddp_profile("resnet50-imagenet")
    prof = replace(prof, peak=replace(prof.peak, activations_bytes=30 * 1024**3))
    workload = Workload.from_yaml(EXAMPLES / "resnet50-imagenet.yaml")
    error = PlanInfeasibleError("no option is left: candidates excluded by does_not_fit 8")
    error.fit_gpu, error.excluded = "RTX-4090", {"does_not_fit": 8}
    advised = _with_fit_advice(error, workload, prof, CAL)
    assert advised is not error and advised.excluded == {"does_not_fit": 8} and advised.fit_gpu == "RTX-4090"
    line = str(advised)
    assert line.startswith("no option is left: candidates excluded by does_not_fit 8: on one RTX-4090, ")
    assert "micro-batch" in line
    with use_language("zh"):  # the advice is worded as the CLI words it, in the reader's language
        chinese = error_text(_with_fit_advice(error, workload, prof, CAL))
    assert "对一块 RTX-4090 而言，能让它放下的改动有" in chinese and "微批" in chinese
    # no GPU named: the line is left as it is
    plain = PlanInfeasibleError("no option is left: candidates excluded by gpu 8")
    assert _with_fit_advice(plain, workload, prof, CAL) is plain
