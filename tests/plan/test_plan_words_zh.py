"""Words a Chinese reader meets in a plan and an estimate that had named nothing they could place:
"源文章" (which articles?), a model family's code ("custom 类模型")."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from plan_helpers import aws_costs, offer, toy_estimator

from gpuplan.hardware import get_gpu
from gpuplan.i18n import use_language
from gpuplan.perf import estimate
from gpuplan.plan import Constraints, CostFacts, JobFacts, OfferTable, plan_offers
from gpuplan.profile.model import Profile

RESNET50 = (
    Path(__file__).resolve().parents[1]
    / "calibration"
    / "fixtures"
    / "profiles"
    / "resnet50-v1.5-554630c7d30796ec.json"
)


def test_the_baseline_names_the_articles_it_comes_from_in_chinese() -> None:
    rows = [
        offer(),
        offer(instance_type="g5.xlarge", gpu="A10G", gpu_count=1, gpu_memory_gib=24, price_usd=0.5),
    ]
    with use_language("zh"):
        plan = plan_offers(
            OfferTable.from_rows(rows), CostFacts([aws_costs()]), JobFacts(), toy_estimator(), Constraints()
        )
    assert plan.baseline_note.startswith("基准：aws/us-east-1 p4d.24xlarge")
    assert (
        "源文章" not in plan.baseline_note and "两篇已发表的中文 GPU 云服务器指南文章" in plan.baseline_note
    )


def test_a_model_of_ones_own_code_is_named_so_in_the_calibration_note() -> None:
    prof = Profile.from_json(RESNET50.read_text(encoding="utf-8"))
    custom = replace(prof, shape=replace(prof.shape, family="custom"))
    with use_language("zh"):
        notes = estimate(custom, get_gpu("A10")).notes
    (note,) = [n for n in notes if "没有校准数据：区间" in n]
    # the family's code, "custom", had been left in the Chinese sentence ("custom 类模型 没有校准数据")
    assert note.startswith("您自己代码中的模型（model.python）没有校准数据") and "custom" not in note
    with use_language("en"):
        (note,) = [
            n for n in estimate(custom, get_gpu("A10")).notes if n.startswith("no calibration rows of")
        ]
    assert note.startswith("no calibration rows of models of your own code (model.python)")
