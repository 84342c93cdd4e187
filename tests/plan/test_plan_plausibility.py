"""A plan ranked on a step that ``estimate`` flags as beyond the GPU's datasheets shows that flag:
on the option (text, HTML, JSON) and in the plan's notes, as ``estimate`` does for the same GPU."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path

import pytest
from plan_helpers import CAL, aws_costs, ddp_profile, offer, toy_estimator
from rich.console import Console

from gpuplan.perf.plausibility import Plausibility
from gpuplan.plan import Constraints, CostFacts, EstimateKey, EstimateRow, JobFacts, OfferTable, plan_offers
from gpuplan.plan.build_inputs import make_estimator
from gpuplan.plan.options import IMPLAUSIBLE_FLAG
from gpuplan.report.plan import plan_json, plan_view
from gpuplan.report.plan_html import plan_html
from gpuplan.workload import Workload

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
#: The words ``estimate`` printed for an A10 beside an A100 (a 2.6 B-parameter UNet, LoRA, bf16).
FLAG = (
    "A10G estimated at 0.53× A100-SXM4-80GB: more than its datasheets allow (0.29–0.40×: the BF16 peak "
    "and memory bandwidth ratios)"
)


def _flagged_estimator():  # type: ignore[no-untyped-def]
    """The toy estimator, with the A10G's step flagged as its estimate would be."""
    toy = toy_estimator()

    def est(key: EstimateKey) -> EstimateRow:
        row: EstimateRow = toy(key)  # type: ignore[operator]
        return replace(row, implausible=(FLAG,)) if key.gpu == "A10G" else row

    return est


def _plan():  # type: ignore[no-untyped-def]
    rows = [
        offer(),
        offer(instance_type="g5.xlarge", gpu="A10G", gpu_count=1, gpu_memory_gib=24, price_usd=0.5),
    ]
    return plan_offers(
        OfferTable.from_rows(rows), CostFacts([aws_costs()]), JobFacts(), _flagged_estimator(), Constraints()
    )


def test_an_option_ranked_on_a_flagged_estimate_carries_the_flag_and_the_plan_says_it() -> None:
    plan = _plan()
    # 24 h on one A10G at $0.50/h ($12) beat 1 h on 8 A100s at $21.96/h: the flagged GPU is recommended.
    assert plan.recommended.gpu == "A10G"
    assert IMPLAUSIBLE_FLAG in plan.recommended.flags and plan.recommended.implausible == (FLAG,)
    a100 = [o for o in plan.options if o.gpu == "A100-SXM4-40GB"]
    assert a100 and all(IMPLAUSIBLE_FLAG not in o.flags and not o.implausible for o in a100)
    (note,) = [n for n in plan.notes if FLAG in n]  # once, however many A10G options are listed
    assert note.startswith(
        "the options on A10G are timed and costed on an estimate that fails a datasheet check"
    )
    doc = plan_json(plan, {"name": "toy", "task": "train"})
    assert doc.recommended.implausible == [FLAG] and FLAG in " ".join(doc.notes)
    assert FLAG in plan_html(plan, "toy")
    out = io.StringIO()
    Console(file=out, width=200).print(plan_view(plan))
    text = "".join(out.getvalue().split())  # the terminal's wrapping aside
    assert "".join(IMPLAUSIBLE_FLAG.split()) in text and "".join(FLAG.split()) in text


def test_the_planner_estimator_carries_the_flags_the_compute_stage_found(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The compute stage's check (perf/plausibility.py) is where `estimate` gets its flags; the
    # planner's rows must carry the same ones.
    import gpuplan.perf.stages.compute as compute

    checked = compute.check

    def flagged(profile, gpu, calibration, step_s):  # type: ignore[no-untyped-def]
        found: Plausibility = checked(profile, gpu, calibration, step_s)
        return replace(found, flags=(f"{gpu.id} flagged",)) if gpu.id == "A10" else found

    monkeypatch.setattr(compute, "check", flagged)
    est, _notes = make_estimator(
        Workload.from_yaml(EXAMPLES / "resnet50-imagenet.yaml"), ddp_profile("resnet50-imagenet"), CAL
    )

    def row(gpu: str) -> EstimateRow:
        return est(EstimateKey(gpu=gpu, gpus_per_node=1, nodes=1, interconnect="", network_gbps=None))

    assert row("A10").implausible == ("A10 flagged",)
    assert row("L4").implausible == ()
