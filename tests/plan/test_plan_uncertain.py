"""Unknown is never the best case: an option that may not fit in memory, or whose network is not
known, is shown but never ranked ahead of one that is known to work."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

from plan_helpers import CAL, aws_costs, ddp_profile, offer

from gpuplan.plan import (
    Constraints,
    CostFacts,
    EstimateKey,
    EstimateRow,
    JobFacts,
    OfferTable,
    plan_offers,
)
from gpuplan.plan.build_inputs import make_estimator
from gpuplan.plan.options import MAY_NOT_FIT_FLAG, OVER_MEMORY_FLAG
from gpuplan.report.plan import plan_json
from gpuplan.vocab import MemoryVerdict
from gpuplan.workload import Workload

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _estimator(uncertain: set[str], ruled_out: frozenset[str] = frozenset()):  # type: ignore[no-untyped-def]
    """1 h on 8 GPUs everywhere; the GPUs in ``uncertain`` may not fit, those in ``ruled_out`` cannot."""

    def est(key: EstimateKey) -> EstimateRow:
        return EstimateRow(
            fits=key.gpu not in ruled_out,
            memory_uncertain=key.gpu in uncertain,
            job_time_h=1.0,
            job_time_h_low=1.0,
            job_time_h_high=1.0,
            peak_memory_gib=70.0,
        )

    return est


ROWS = [
    offer(instance_type="cheap-maybe", gpu="A100-SXM4-40GB", gpu_memory_gib=40.0, price_usd=10.0),
    offer(instance_type="dear-sure", gpu="H100-SXM5-80GB", gpu_memory_gib=80.0, price_usd=30.0),
]


def _plan(estimator, top: int = 10):  # type: ignore[no-untyped-def]
    return plan_offers(
        OfferTable.from_rows(ROWS),
        CostFacts([aws_costs()]),
        JobFacts(),
        estimator,
        Constraints(max_gpus=8),
        top=top,
    )


def test_an_option_that_may_not_fit_ranks_after_those_that_fit_and_is_flagged() -> None:
    plan = _plan(_estimator({"A100-SXM4-40GB"}))
    # The A100 offer is a third of the price, but its memory band straddles the 40 GB: it is
    # shown, second, flagged — never the recommendation, the cheapest persona or the front.
    assert [o.instance_type for o in plan.options] == ["dear-sure", "cheap-maybe"]
    assert plan.recommended.instance_type == "dear-sure" and not plan.recommended.memory_uncertain
    maybe = plan.options[1]
    assert maybe.memory_uncertain and MAY_NOT_FIT_FLAG in maybe.flags
    assert maybe.total_cost_usd < plan.recommended.total_cost_usd
    assert {p.persona: p.option.instance_type for p in plan.personas if p.option}["budget"] == "dear-sure"
    assert [o.instance_type for o in plan.pareto] == ["dear-sure"]
    (note,) = [n for n in plan.notes if n.startswith("memory: ")]
    assert note.startswith("memory: 1 options may not fit") and "cheap-maybe" in note
    doc = plan_json(plan, {"name": "toy", "task": "train"})
    assert [o.memory_verdict for o in doc.options] == [MemoryVerdict.FITS, MemoryVerdict.MAY_NOT_FIT]


def test_an_option_that_may_not_fit_is_named_even_when_the_list_has_no_room_for_it() -> None:
    plan = _plan(_estimator({"A100-SXM4-40GB"}), top=1)
    assert [o.instance_type for o in plan.options] == ["dear-sure"]
    (note,) = [n for n in plan.notes if n.startswith("memory: ")]
    assert ", none in the top list" in note and "cheap-maybe" in note


def test_when_nothing_fits_for_certain_the_options_that_may_are_ranked_and_the_plan_says_so() -> None:
    plan = _plan(_estimator({"A100-SXM4-40GB", "H100-SXM5-80GB"}))
    assert plan.recommended.instance_type == "cheap-maybe" and plan.recommended.memory_uncertain
    assert all(MAY_NOT_FIT_FLAG in o.flags for o in plan.options)
    assert any(n.startswith("memory: no option fits for certain") for n in plan.notes)


def test_only_an_option_whose_whole_band_is_above_the_memory_is_left_out() -> None:
    plan = _plan(_estimator(set(), ruled_out=frozenset({"A100-SXM4-40GB"})))
    assert [o.instance_type for o in plan.options] == ["dear-sure"]
    assert plan.excluded.get("does_not_fit", 0) >= 1
    assert not any(n.startswith("memory: ") for n in plan.notes)


def _allocating(gib: float):  # type: ignore[no-untyped-def]
    """The estimator of the ResNet-50 example with ``gib`` GiB allocated at the peak."""
    prof = ddp_profile("resnet50-imagenet")
    prof = replace(prof, peak=replace(prof.peak, activations_bytes=gib * 1024**3 - 12e9))
    est, _ = make_estimator(Workload.from_yaml(EXAMPLES / "resnet50-imagenet.yaml"), prof, CAL)
    return est


def test_the_estimator_keeps_a_configuration_that_may_not_fit_and_marks_it() -> None:
    # 20 GiB allocated at the peak: on a 24 GiB RTX 4090 what must fit is 18.5–24.2 GiB over the
    # band — it may not fit, and the planner keeps it; on a 40 GB A100 it fits.
    est = _allocating(20)

    def row(gpu: str) -> EstimateRow:
        return est(EstimateKey(gpu=gpu, gpus_per_node=1, nodes=1, interconnect="", network_gbps=None))

    rtx, a100 = row("RTX-4090"), row("A100-SXM4-40GB")
    assert a100.fits and not a100.memory_uncertain
    assert rtx.fits and rtx.memory_uncertain and math.isfinite(rtx.job_time_h)
    assert any(n.startswith("may not fit: ") for n in rtx.notes)


def test_an_offer_whose_network_is_unknown_ranks_on_the_slow_end_of_plausible_fabrics() -> None:
    # Two 2-node offers of the same GPU and price: one states 400 Gbit/s EFA, the other states no
    # network. The unknown one is costed at 100 Gbit/s TCP: slower, so never ranked first; its
    # range still reaches what 3,200 Gbit/s RDMA would give.
    est, _ = make_estimator(
        Workload.from_yaml(EXAMPLES / "resnet50-imagenet.yaml"), ddp_profile("resnet50-imagenet"), CAL
    )

    def key(gbps: float | None, kind: str) -> EstimateKey:
        return EstimateKey(
            gpu="A100-SXM4-80GB",
            gpus_per_node=8,
            nodes=2,
            interconnect="NVSwitch",
            network_gbps=gbps,
            network_kind=kind,
        )

    known, unknown = est(key(400.0, "EFA")), est(key(None, ""))
    assert unknown.job_time_h > known.job_time_h
    assert unknown.job_time_h_low < known.job_time_h_low
    assert any(n.startswith("inter-node network unknown") for n in unknown.notes)
    rows = [
        offer(instance_type="stated", gpu="A100-SXM4-80GB", gpu_memory_gib=80.0, network_kind="EFA"),
        offer(instance_type="unstated", gpu="A100-SXM4-80GB", gpu_memory_gib=80.0, network_gbps=None),
    ]

    def two_nodes_only(k: EstimateKey) -> EstimateRow:  # a job that needs both nodes
        return (
            est(k)
            if k.nodes == 2
            else EstimateRow(
                fits=False, job_time_h=math.nan, job_time_h_low=math.nan, job_time_h_high=math.nan
            )
        )

    plan = plan_offers(
        OfferTable.from_rows(rows),
        CostFacts([aws_costs()]),
        JobFacts(),
        two_nodes_only,
        Constraints(max_gpus=16),
    )
    assert [(o.instance_type, o.nodes) for o in plan.options] == [("stated", 2), ("unstated", 2)]


def test_a_recommendation_that_may_not_fit_says_so_with_its_need_and_the_usable_memory() -> None:
    # As above, 20 GiB allocated at the peak on a 24 GiB RTX 4090, its only offer: recommended,
    # and its block says it may not fit with the band's top against the usable memory (a GeForce
    # card has no ECC: all 24 GiB usable), not only "peak memory … (RTX-4090, 24 GiB)".
    from rich.console import Console

    from gpuplan.i18n import use_language
    from gpuplan.report.plan_view import plan_view

    est = _allocating(20)
    plan = plan_offers(
        OfferTable.from_rows([offer(instance_type="rtx", gpu="RTX-4090", gpu_count=1, gpu_memory_gib=24.0)]),
        CostFacts([aws_costs()]),
        JobFacts(),
        est,
        Constraints(max_gpus=1),
    )
    rec = plan.recommended
    assert rec.memory_uncertain and rec.usable_memory_gib == 24.0
    assert rec.memory_needed_gib_high is not None and rec.memory_needed_gib_high > 24.0

    def text() -> str:
        console = Console(width=200, record=True)
        console.print(plan_view(plan))
        return " ".join(console.export_text().split())

    need = f"{rec.memory_needed_gib_high:.1f}"
    block = text().split("Recommended:")[1]
    assert f"(RTX-4090, 24 GiB); may not fit: needs up to {need} GiB of 24.0 usable" in block
    with use_language("zh"):
        assert f"可能放不下：最多需要 {need} GiB，可用 24.0 GiB" in text()


#: A 14B full fine-tune on 8 GPUs: 41.65 GiB must fit at the estimate's point (37.4–47.5 over its
#: range) against an A100-40GB's 39.4 GiB usable, as `estimate` gave it for the user whose job ran
#: out of memory there; the H100's 80 GB holds it, its range's top too.
NEED, NEED_LOW, NEED_HIGH = 41.653, 37.41, 47.50
USABLE = {"A100-SXM4-40GB": 39.4, "A100-SXM4-80GB": 44.0, "H100-SXM5-80GB": 78.9}


def _banded(over_high: set[str]):  # type: ignore[no-untyped-def]
    """1 h on 8 GPUs everywhere, with the memory above: where the usable memory is below the
    range's top (``over_high``) the option may not fit, and where below its point, it is over."""

    def est(key: EstimateKey) -> EstimateRow:
        usable = USABLE[key.gpu]
        return EstimateRow(
            fits=usable >= NEED_LOW,
            memory_uncertain=key.gpu in over_high,
            memory_over=key.gpu in over_high and usable < NEED,
            job_time_h=1.0,
            job_time_h_low=1.0,
            job_time_h_high=1.0,
            peak_memory_gib=44.87,
            memory_needed_gib=NEED,
            memory_needed_gib_high=NEED_HIGH,
            usable_memory_gib=usable,
        )

    return est


BANDED_ROWS = [
    offer(instance_type="cheap-over", gpu="A100-SXM4-40GB", gpu_memory_gib=40.0, price_usd=10.0),
    offer(instance_type="mid-maybe", gpu="A100-SXM4-80GB", gpu_memory_gib=80.0, price_usd=20.0),
    offer(instance_type="dear-sure", gpu="H100-SXM5-80GB", gpu_memory_gib=80.0, price_usd=30.0),
]


def _banded_plan(rows, over_high: set[str], top: int = 10):  # type: ignore[no-untyped-def]
    return plan_offers(
        OfferTable.from_rows(rows),
        CostFacts([aws_costs()]),
        JobFacts(),
        _banded(over_high),
        Constraints(max_gpus=8),
        top=top,
    )


def test_an_option_whose_estimate_does_not_fit_is_passed_over_for_a_dearer_one_whose_estimate_does() -> None:
    # Neither A100 fits for certain; the cheap one's point (41.65 GiB) is above its 39.4 usable, the
    # dearer one's is within its 44: the dearer one is recommended, the cheap one ranked last, flagged
    # apart, and one note names it with what it needs against what is usable.
    plan = _banded_plan(BANDED_ROWS[:2], {"A100-SXM4-40GB", "A100-SXM4-80GB"})
    assert [o.instance_type for o in plan.options] == ["mid-maybe", "cheap-over"]
    rec, over = plan.options
    assert plan.recommended.instance_type == "mid-maybe" and not rec.memory_over
    assert over.memory_over and over.total_cost_usd < rec.total_cost_usd
    assert OVER_MEMORY_FLAG in over.flags and MAY_NOT_FIT_FLAG not in over.flags
    assert MAY_NOT_FIT_FLAG in rec.flags and OVER_MEMORY_FLAG not in rec.flags
    assert {p.persona: p.option.instance_type for p in plan.personas if p.option}["budget"] == "mid-maybe"
    assert [o.instance_type for o in plan.pareto] == ["mid-maybe"]
    # the default baseline (an on-demand A100) is one the job would not run out of memory on
    assert plan.baseline is not None and plan.baseline.instance_type == "mid-maybe"
    (note,) = [n for n in plan.notes if n.startswith("memory: 1 option does not fit")]
    assert "cheap-over" in note and "needs 41.7 GiB per GPU, 39.4 GiB usable" in note
    # the JSON document carries it: the flag, the figures and the note
    doc = plan_json(plan, {"name": "toy", "task": "train"})
    assert [(o.memory_over, o.memory_needed_gib, o.usable_memory_gib) for o in doc.options] == [
        (False, NEED, 44.0),
        (True, NEED, 39.4),
    ]
    assert note in doc.notes


def test_memory_ranks_sure_then_point_within_then_point_above() -> None:
    plan = _banded_plan(BANDED_ROWS, {"A100-SXM4-40GB", "A100-SXM4-80GB"})
    assert [o.instance_type for o in plan.options] == ["dear-sure", "mid-maybe", "cheap-over"]
    notes = [n for n in plan.notes if n.startswith("memory: ")]
    assert len(notes) == 2 and any(n.startswith("memory: 1 option does not fit") for n in notes)
    # top 1: neither is shown, both are still named
    plan = _banded_plan(BANDED_ROWS, {"A100-SXM4-40GB", "A100-SXM4-80GB"}, top=1)
    assert all(", none in the top list" in n for n in plan.notes if n.startswith("memory: "))


def test_when_no_option_fits_at_its_estimate_the_recommendation_says_it_will_run_out_of_memory() -> None:
    from rich.console import Console

    from gpuplan.i18n import use_language
    from gpuplan.report.plan_view import plan_view

    plan = _banded_plan(BANDED_ROWS[:1], {"A100-SXM4-40GB"})
    rec = plan.recommended
    assert rec.instance_type == "cheap-over" and rec.memory_over and OVER_MEMORY_FLAG in rec.flags
    (note,) = [n for n in plan.notes if n.startswith("memory: ")]
    assert note.startswith("memory: no option fits at the memory estimate — the recommended aws/us-east-1 ")
    assert "needs 41.7 GiB per GPU, 39.4 GiB usable" in note and "run out of memory" in note

    def text() -> str:
        console = Console(width=200, record=True)
        console.print(plan_view(plan))
        return " ".join(console.export_text().split())

    block = text().split("Recommended:")[1]
    warning = "does not fit at the estimate: needs 41.7 GiB of 39.4 usable (range up to 47.5)"
    # under the headline, before what it costs
    assert warning in block and block.index(warning) < block.index("compute ")
    with use_language("zh"):
        assert "按估计放不下：需要 41.7 GiB，可用 39.4 GiB" in text()


def test_the_estimator_tells_a_point_above_the_memory_from_a_band_top_above_it() -> None:
    # 22 GiB allocated at the peak: 22.8 GiB must fit at the point (up to 26.5): an L4 (22.5 GiB
    # usable with ECC) holds only the low end; an RTX 4090 (24 GiB) holds the point, not the top.
    est = _allocating(22)

    def row(gpu: str) -> EstimateRow:
        return est(EstimateKey(gpu=gpu, gpus_per_node=1, nodes=1, interconnect="", network_gbps=None))

    l4, rtx = row("L4"), row("RTX-4090")
    assert l4.fits and l4.memory_uncertain and l4.memory_over
    assert l4.memory_needed_gib > l4.usable_memory_gib
    assert rtx.fits and rtx.memory_uncertain and not rtx.memory_over
    assert rtx.memory_needed_gib < rtx.usable_memory_gib < rtx.memory_needed_gib_high
    # planned on both, the cheaper L4 is passed over for the 4090
    plan = plan_offers(
        OfferTable.from_rows(
            [
                offer(instance_type="l4", gpu="L4", gpu_count=1, gpu_memory_gib=24.0, price_usd=0.5),
                offer(instance_type="rtx", gpu="RTX-4090", gpu_count=1, gpu_memory_gib=24.0, price_usd=2.0),
            ]
        ),
        CostFacts([aws_costs()]),
        JobFacts(),
        est,
        Constraints(max_gpus=1),
    )
    assert [o.instance_type for o in plan.options] == ["rtx", "l4"]
    assert plan.options[1].total_cost_usd < plan.recommended.total_cost_usd


def test_a_named_provider_whose_options_all_rank_below_the_list_is_said_with_why() -> None:
    # was: Tencent named beside Alibaba, Huawei and Volcano Engine, its only options ones that may
    # not fit in memory: the providers without an option each had a line, Tencent none at all
    rows = [ROWS[1], replace(ROWS[0], provider="tencent", region="ap-nanjing", country="CN")]

    def named(top: int) -> list[str]:
        plan = plan_offers(
            OfferTable.from_rows(rows),
            CostFacts([aws_costs()]),
            JobFacts(),
            _estimator({"A100-SXM4-40GB"}),
            Constraints(max_gpus=8, providers=("aws", "tencent")),
            top=top,
        )
        assert plan.options[0].provider == "aws"
        return [n for n in plan.notes if "named in providers" in n]

    [note] = named(top=1)
    assert note.startswith(
        "tencent (named in providers): its 1 option ranks below the 1 shown: none fits in memory for "
        "certain (1 may not fit): tencent/ap-nanjing cheap-maybe on_demand, "
    ), note
    assert named(top=10) == []  # listed, it needs no line
