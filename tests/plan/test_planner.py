"""The planner end to end on hand-made offers and a toy estimator."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from plan_helpers import aws_costs, offer, toy_estimator

from gpuplan.errors import InfeasibleError, InputError
from gpuplan.i18n.error_text import phrase_text
from gpuplan.plan import (
    BaselineSpec,
    Constraints,
    CostFacts,
    JobFacts,
    Objective,
    OfferTable,
    PlanInfeasibleError,
    plan_offers,
)
from gpuplan.plan.candidates import precision_refusals, refusal_words
from gpuplan.plan.rank import explain_winner
from gpuplan.plan.spot import BATCH_CHUNK_BATCHES
from gpuplan.plan.unknowns import UnknownFact
from gpuplan.report.plan_view import spot_lines

JOB = JobFacts(dataset_gb=200, checkpoint_gb=5, data_location=("aws", "us-east-1"))


def _plan(rows, constraints=None, job=JOB, **kw):  # type: ignore[no-untyped-def]
    return plan_offers(
        OfferTable.from_rows(rows),
        CostFacts([aws_costs()]),
        job,
        toy_estimator(),
        constraints or Constraints(),
        **kw,
    )


#: One checkpoint of JOB (5 GB) written at 0.131 GB/s (gp3's baseline): 5 / 0.131 = 38.168 s, h.
WRITE_H = 5 / 0.131 / 3600


def test_hand_computed_all_in_cost_of_one_on_demand_node() -> None:
    # 8 × A100: toy job time 8 GPU-h / 8 = 1 h, plus the checkpoints train.py writes every 30 min:
    # 1 h / 0.5 h = 2 writes × 38.168 s = 0.0212044 h -> 1.0212044 h = 3,676.34 s; billed per
    # second -> 3,677 s × $21.96/h = $22.4297.
    # Block storage, one node: (200 + 2 × 5) = 210 GB on a disk launched as 320 GB (210 × 1.15 + 64
    # = 305.5 GB, up to a whole 64), × $0.08/GB-month × 1.0212044 h / 730 h = $0.0358121 (was the
    # 210 GB alone, $0.0235017). Same region as the data: egress $0. Total $22.4655121.
    plan = _plan([offer()], Constraints(max_gpus=8))
    rec = plan.recommended
    assert rec.job_time_h == pytest.approx(1.0 + 2 * WRITE_H)
    assert rec.job_time_h == pytest.approx(1.0212044, rel=1e-6)
    assert rec.cost_breakdown.compute_usd == pytest.approx(22.4297, rel=1e-6)
    assert plan.disk_gb == 210.0 and plan.launch_disk_gb == 320
    assert rec.cost_breakdown.storage_usd == pytest.approx(0.0358121, rel=1e-5)
    assert rec.cost_breakdown.egress_usd == 0.0
    assert rec.total_cost_usd == pytest.approx(22.4655121, rel=1e-6)


def test_on_demand_pays_for_the_checkpoints_the_launch_writes() -> None:
    # Off spot, train.py still saves every DEFAULT_CHECKPOINT_INTERVAL_MIN (30 min), synchronously:
    # the same W·C/τ as spot's, with τ the launch's interval. 1 h of work: 2 writes, 0.0212044 h,
    # billed as compute (their share of the $22.4297 billed: × 0.0212044 / 1.0212044 = $0.465733)
    # and said beside the time.
    from gpuplan.units import DEFAULT_CHECKPOINT_INTERVAL_MIN

    rec = _plan([offer()], Constraints(max_gpus=8)).recommended
    w = rec.checkpoints
    assert w is not None and not w.interval_stated
    assert w.interval_min == rec.checkpoint_interval_min == DEFAULT_CHECKPOINT_INTERVAL_MIN == 30.0
    assert w.writes == pytest.approx(2.0)
    assert w.overhead_h == pytest.approx(2 * WRITE_H)
    assert w.usd == pytest.approx(22.4297 * 2 * WRITE_H / (1 + 2 * WRITE_H))
    [item] = [i for i in rec.cost_breakdown.items if i.component == "checkpoints"]
    assert item.included_in == "compute" and item.cost_usd == pytest.approx(w.usd)
    [line] = spot_lines(rec)
    assert line.startswith("checkpoints: every 30 min (as the train.py of `gpuplan deploy` writes them")
    assert "2 × 38 s = 1.3 min, $0.47" in line
    # a job that writes no checkpoint pays for none
    bare = _plan([offer()], Constraints(max_gpus=8), job=replace(JOB, checkpoint_gb=0)).recommended
    assert bare.checkpoints is None and bare.job_time_h == pytest.approx(1.0)


def test_ranked_options_list_each_offer_once_and_pareto_keeps_node_counts() -> None:
    rows = [offer(), offer(instance_type="a2", gpu_count=1, price_usd=3.67)]
    plan = _plan(rows, Constraints(max_gpus=16, objective=Objective.TIME), top=10)
    keys = [(o.provider, o.region, o.instance_type, o.pricing) for o in plan.options]
    assert len(keys) == len(set(keys)) == 2
    assert len({o.nodes for o in plan.pareto}) > 1  # the time/cost trade-off across node counts stays


def test_the_checkpoint_writes_count_against_the_deadline_off_spot() -> None:
    # The toy's 1 h of work (its range 0.9–1.2 h) against a 1.05 h deadline: without writes the miss
    # probability is P(W > 1.05 h); with train.py's two writes (W × 1.0212 for W = 1 h) it is
    # P(W > 1.05 / 1.0212 = 1.0282 h), which is larger.
    from gpuplan.plan.risk import deadline_miss, work_distribution

    rec = _plan([offer()], Constraints(max_gpus=8, deadline_h=1.05)).recommended
    work = work_distribution(1.0, 0.9, 1.2)
    assert rec.deadline_miss_probability == pytest.approx(
        deadline_miss(work, 1.05, stretch=1.0 + 2 * WRITE_H), rel=1e-9
    )
    assert rec.deadline_miss_probability > deadline_miss(work, 1.05)  # type: ignore[operator]


def test_set_up_time_is_part_of_the_job_and_billed() -> None:
    # Same node as above plus 15 min of set-up: 1 h + 0.25 h + 2 checkpoint writes (0.0212044 h)
    # = 1.2712044 h = 4,576.34 s, billed per second -> 4,577 s × $21.96/h = $27.9197 of compute.
    job = JobFacts(dataset_gb=200, checkpoint_gb=5, data_location=("aws", "us-east-1"), setup_h=0.25)
    rec = _plan([offer()], Constraints(max_gpus=8), job=job).recommended
    assert rec.job_time_h == pytest.approx(1.25 + 2 * WRITE_H)
    assert rec.cost_breakdown.compute_usd == pytest.approx(27.9197, rel=1e-6)


def test_hourly_billing_rounds_a_short_job_up() -> None:
    # 1 × A100 at $3.67/h, hourly billing, job 8 h / 1 GPU -> exactly 8 h; at 2 GPUs (2 nodes,
    # 0.9 scaling per doubling) 8 / 2 / 0.9 = 4.444 h -> billed 5 h × 2 × 3.67 = $36.70.
    rows = [offer(instance_type="a2", gpu_count=1, price_usd=3.67, billing_granularity_s=3600.0)]
    plan = _plan(rows, Constraints(max_gpus=2, objective=Objective.TIME))
    rec = plan.recommended
    assert rec.nodes == 2
    assert rec.billed_hours == pytest.approx(5.0)
    assert rec.cost_breakdown.compute_usd == pytest.approx(36.70)


def test_breakdown_sums_to_total_for_every_option() -> None:
    rows = [offer(), offer(pricing="spot", price_usd=8.0, interruption_band="5-10%"),
            offer(instance_type="g5", gpu="A10G", gpu_count=1, gpu_memory_gib=24, price_usd=1.0)]  # fmt: skip
    plan = _plan(rows, top=20)
    for o in (*plan.options, *plan.pareto):
        assert o.cost_breakdown.total_usd == pytest.approx(o.total_cost_usd)
        assert o.total_cost_usd_low <= o.total_cost_usd <= o.total_cost_usd_high
        assert o.job_time_h_low <= o.job_time_h <= o.job_time_h_high


def test_candidates_span_one_to_sixty_four_gpus_and_unpriced_ones_are_counted() -> None:
    # 1-GPU offer -> 64 node counts; 8-GPU offer -> 8; the unpriced 8-GPU offer's 8 are counted.
    rows = [
        offer(instance_type="a2", gpu_count=1, price_usd=3.67),
        offer(),
        offer(instance_type="x", price_usd=None),
    ]
    plan = _plan(rows, Constraints(max_nodes=64))
    assert plan.candidates == 64 + 8 + 8
    assert plan.excluded == {"unpriced": 8}
    assert all(o.instance_type != "x" for o in plan.options)


def test_scale_out_stops_at_eight_instances_unless_asked_and_the_plan_says_so() -> None:
    # 1-GPU offer: 8 node counts by default (a team rarely gets more instances unasked), 64 with
    # --max-nodes 64; --max-gpus 4 caps the total.
    rows = [offer(instance_type="a2", gpu_count=1, price_usd=3.67)]
    default = _plan(rows)
    assert default.candidates == 8
    assert max(o.nodes for o in default.pareto) <= 8
    assert any("at most 8 instances and 64 GPUs" in n for n in default.notes)
    capped = _plan(rows, Constraints(max_gpus=4))
    assert max(o.gpu_count for o in capped.pareto) <= 4
    assert any("at most 8 instances and 4 GPUs" in n for n in capped.notes)


def test_min_gpus_leaves_out_the_options_of_fewer_gpus_in_all() -> None:
    # A recipe tuned for its GPU count (8-GPU DDP at its global batch) could not be planned as such:
    # the plan recommended 1-2 GPUs and there was no floor to ask for.
    rows = [offer(instance_type="a2", gpu_count=1, price_usd=3.67), offer()]
    free = _plan(rows, Constraints(max_gpus=16))
    assert min(o.gpu_count for o in free.options) < 8
    floor = _plan(rows, Constraints(min_gpus=8, max_gpus=16))
    assert floor.options and all(o.gpu_count >= 8 for o in floor.options)
    # the 1-GPU instance at 1 to 7 instances and nothing of the 8-GPU one
    assert floor.excluded["min_gpus"] == 7
    exact = _plan(rows, Constraints(min_gpus=8, max_gpus=8))
    assert {o.gpu_count for o in exact.options} == {8}
    assert {(o.instance_type, o.nodes) for o in exact.options} == {("a2", 8), ("p4d.24xlarge", 1)}


def test_min_gpus_past_the_default_search_is_searched() -> None:
    # 64 GPUs are searched unless --max-gpus says more: a floor of 100 had left nothing to plan
    rows = [offer(instance_type="a2", gpu_count=1, price_usd=3.67)]
    plan = _plan(rows, Constraints(min_gpus=100, max_nodes=128))
    assert {o.gpu_count for o in plan.options} == {100}


def test_min_gpus_above_max_gpus_is_refused_naming_both() -> None:
    with pytest.raises(InputError) as info:
        Constraints(min_gpus=16, max_gpus=8)
    assert str(info.value).startswith("min_gpus 16 is more than max_gpus 8"), str(info.value)
    with pytest.raises(InputError, match="min_gpus 300 is more than the planner searches"):
        Constraints(min_gpus=300)
    with pytest.raises(InputError, match="min_gpus must be at least 1"):
        Constraints(min_gpus=0)


def test_spot_option_carries_its_risk_and_overhead() -> None:
    rows = [offer(pricing="spot", price_usd=8.0, interruption_band="")]
    plan = _plan(rows, Constraints(max_gpus=8, deadline_h=2.0))
    o = plan.recommended
    assert o.spot is not None and o.spot.rate_assumed
    assert "spot interruption rate assumed" in o.flags
    # MTBI 24 h (assumed default), C = 5 GB / 0.131 GB/s (gp3's baseline) = 38.17 s;
    # τ = sqrt(2 × 38.17/3600 × 24) = 0.7134 h
    assert o.checkpoint_interval_min == pytest.approx(math.sqrt(2 * 5 / 0.131 / 3600 * 24) * 60, rel=1e-6)
    assert o.cost_breakdown.spot_overhead_usd > 0
    assert o.job_time_h > o.compute_time_h
    assert 0.0 < o.deadline_miss_probability < 0.1  # type: ignore[operator]


def test_a_spot_job_without_checkpoints_is_costed_as_restarting_from_the_beginning() -> None:
    # Inference keeps no checkpoints, and nothing resumes it: W = 1 h of work + set-up on one
    # 8-GPU instance at the assumed 1/24 /h; T = (e^(W/24) − 1)(24 + R), not W / (1 − R/24).
    job = replace(JOB, checkpoint_gb=0.0)
    rows = [offer(pricing="spot", price_usd=8.0, interruption_band="")]
    o = _plan(rows, Constraints(max_gpus=8, deadline_h=1.6), job=job).recommended
    assert o.spot is not None and o.spot.checkpoint_interval_min is None
    # a restart also copies the 200 GB dataset again (a reclaim is taken to lose the disk)
    work, restart = 1.0 + job.setup_h, job.spot_restart_h + job.dataset_copy_h
    interruptions = math.expm1(work / 24)
    assert o.job_time_h == pytest.approx(interruptions * (24 + restart), rel=1e-9)
    assert o.spot.expected_interruptions == pytest.approx(interruptions, rel=1e-9)
    assert o.spot.expected_lost_h == pytest.approx(o.job_time_h - work, rel=1e-9)
    # the deadline's miss probability is the same model's: one interruption late in a 1-h run
    # leaves no time to run it again by 1.6 h (about 2.6 %); a job that resumed would need two or
    # three interruptions within the 1.6 h (about 0.01 %)
    assert o.deadline_miss_probability is not None and 0.01 < o.deadline_miss_probability < 0.1
    assert "restarts the job from the beginning" in spot_lines(o)[0]


def test_a_spot_batch_inference_job_resumes_by_its_output_chunks() -> None:
    # Batch inference keeps no checkpoint, but the batch job deploy writes keeps its outputs in
    # chunks of 64 batches and a reclaimed shard skips those written: an interruption loses half a
    # chunk and the restart, T = W / (1 − λ(τ/2 + R)), not (e^(λW) − 1)(1/λ + R) as from scratch.
    # (its inputs in a bucket: a restart copies no dataset again, the chunks alone are under test)
    job = replace(JOB, task="infer", checkpoint_gb=0.0, storage_kind="object")
    rows = [offer(pricing="spot", price_usd=8.0, interruption_band="")]
    toy = toy_estimator()

    def estimate(key):  # type: ignore[no-untyped-def]
        return replace(toy(key), step_time_s=2.0)  # type: ignore[operator]

    o = plan_offers(
        OfferTable.from_rows(rows),
        CostFacts([aws_costs()]),
        job,
        estimate,
        Constraints(max_gpus=8, deadline_h=1.6),
    ).recommended
    assert o.spot is not None and o.step_time_s == 2.0
    tau = BATCH_CHUNK_BATCHES * o.step_time_s / 3600.0
    work, restart = 1.0 + job.setup_h, job.spot_restart_h
    assert o.spot.resume_chunk_min == pytest.approx(tau * 60, rel=1e-9)
    assert o.spot.checkpoint_interval_min is None  # no checkpoint of its own (none written)
    assert o.job_time_h == pytest.approx(work / (1 - (tau / 2 + restart) / 24), rel=1e-9)
    assert o.job_time_h < math.expm1(work / 24) * (24 + restart)  # less than starting over
    line = spot_lines(o)[0]
    assert "resumes by output chunks of" in line and "gpuplan deploy" in line
    # the deadline's miss probability is a resuming job's too: two or three interruptions in 1.6 h
    assert o.deadline_miss_probability is not None and o.deadline_miss_probability < 0.01


def test_reserved_prices_need_a_commitment() -> None:
    rows = [offer(), offer(pricing="reserved_1y", price_usd=13.0, term_hours=8760.0)]
    plan = _plan(rows, Constraints(max_gpus=8))
    # on-demand: nodes 2..8 exceed 8 GPUs (7); reserved: all 8 node counts lack a commitment.
    assert plan.excluded == {"needs_commitment": 8, "max_gpus": 7}
    committed = _plan(rows, Constraints(max_gpus=8, commitment="1y", objective=Objective.COST))
    pricings = {o.pricing for o in committed.options}
    assert "reserved_1y" in pricings
    reserved = next(o for o in committed.options if o.pricing == "reserved_1y")
    assert reserved.cost_breakdown.compute_usd == pytest.approx(13.0 * 8760)


def test_filters_exclude_by_their_own_reason() -> None:
    rows = [
        offer(),
        offer(provider="alibaba", region="cn-shanghai", country="CN", instance_type="gn7", price_usd=30.0),
        offer(
            instance_type="g4", gpu="T4", gpu_memory_gib=16.0, gpu_count=4, interconnect="PCIe", price_usd=4.0
        ),
    ]
    plan = _plan(rows, Constraints(countries=("US",), interconnect="nvlink", min_gpu_memory_gib=20), top=50)
    assert plan.excluded["country"] == 8
    assert plan.excluded["interconnect"] == 8  # every T4 node count (1..8 instances) has > 1 GPU
    assert {o.instance_type for o in plan.options} == {"p4d.24xlarge"}


def test_low_confidence_prices_decide_nothing_unless_allowed() -> None:
    # The article's $2.20/GPU-h A100 would win on price; it is labelled low-confidence.
    rows = [offer(), offer(instance_type="article", gpu_count=1, price_usd=2.2, confidence="low")]
    plan = _plan(rows, Constraints(max_gpus=8))
    assert plan.excluded["low_confidence_price"] == 8  # 1..8 one-GPU nodes
    assert {o.instance_type for o in plan.options} == {"p4d.24xlarge"}
    allowed = _plan(rows, Constraints(max_gpus=8, allow_low_confidence=True, objective=Objective.COST))
    assert allowed.recommended.instance_type == "article"
    # only low-confidence rows: the refusal names the flag that plans on them (it named a key alone)
    with pytest.raises(InfeasibleError, match="low-confidence price filter left none") as e:
        _plan(rows[1:], Constraints(max_gpus=8))
    assert "--allow-low-confidence" in str(e.value)


def test_a_gpu_without_the_precisions_tensor_cores_is_left_out_for_that_not_for_memory() -> None:
    # was: a bf16 job's T4s were counted as does_not_fit, and the plan told a user whose ResNet fits
    # a T4's memory to lower the batch size; the estimate said why (no BF16 tensor cores)
    t4 = offer(
        instance_type="g4dn", gpu="T4", gpu_memory_gib=16.0, gpu_count=1, interconnect="PCIe", price_usd=0.5
    )
    job = replace(JOB, precision="amp-bf16")
    with pytest.raises(
        InfeasibleError,
        match=r"without a path for the precision 1\b.*T4 has no BF16 tensor cores \(use amp-fp16\)",
    ) as refusal:
        _plan([t4], Constraints(max_gpus=1), job=job)
    assert "not fitting in memory" not in str(refusal.value)  # the reason is the precision, not memory
    plan = _plan([offer(), t4], Constraints(max_gpus=8), job=job)
    assert plan.excluded["no_precision_path"] == 8 and "does_not_fit" not in plan.excluded  # 1..8 nodes
    assert any("T4: 8 candidates left out (no_precision_path): bf16 needs Ampere" in n for n in plan.notes)
    # the same T4 at amp-fp16 has its path, as an L20 (BF16 units) and an A100 have at bf16
    assert not precision_refusals(["T4"], replace(JOB, precision="amp-fp16"))
    assert set(precision_refusals(["T4", "L20", "A100-SXM4-80GB"], job)) == {"T4"}
    # GPUs refused for the same reason share one sentence (it was repeated whole for each)
    both = phrase_text(refusal_words(precision_refusals(["T4", "V100-SXM2-16GB"], job)))
    assert both.count("bf16 needs Ampere or newer") == 1 and both.endswith("; the same for V100-SXM2-16GB")


def test_model_too_big_for_every_gpu_is_infeasible_with_a_hint() -> None:
    rows = [offer()]
    with pytest.raises(
        InfeasibleError, match=r"not fitting in memory 8 \(peak memory per GPU at least 100\.0 GiB\)"
    ):
        plan_offers(
            OfferTable.from_rows(rows), CostFacts([]), JOB, toy_estimator(peak_gib=100), Constraints()
        )


def test_deadline_and_budget_together_name_both_sides() -> None:
    # A100 8 GPU-h, H100 4 GPU-h; with 1 node: A100 1 h for ~$22, H100 0.5 h + one checkpoint
    # write (38 s) for ~$28.1.
    rows = [offer(), offer(instance_type="p5", gpu="H100-SXM5-80GB", gpu_memory_gib=80, price_usd=55.04)]
    with pytest.raises(PlanInfeasibleError) as info:
        _plan(rows, Constraints(deadline_h=0.6, budget_usd=25.0, max_gpus=8))
    msg = str(info.value)
    assert msg.startswith("no option meets 36 min under $25.00")
    assert "the fastest within budget takes 1.0 h" in msg
    assert "the cheapest within 36 min costs $28.13" in msg
    assert info.value.excluded["over_deadline"] >= 1


def test_savings_against_the_default_baseline() -> None:
    rows = [offer(), offer(pricing="spot", price_usd=8.0, interruption_band="<5%")]
    plan = _plan(rows, Constraints(max_gpus=8))
    assert plan.baseline is not None and plan.baseline.pricing == "on_demand"
    assert plan.recommended.pricing == "spot"
    expected = (
        100 * (plan.baseline.total_cost_usd - plan.recommended.total_cost_usd) / plan.baseline.total_cost_usd
    )
    assert plan.savings_vs_baseline_pct == pytest.approx(expected)
    assert plan.savings_vs_baseline_pct > 50  # type: ignore[operator]


def test_named_baseline_missing_from_the_catalog_is_said_not_invented() -> None:
    plan = _plan([offer()], baseline=BaselineSpec.parse("azure/eastus/Standard_ND96asr_v4"))
    assert plan.baseline is None and plan.savings_vs_baseline_pct is None
    assert "not in the catalog" in plan.baseline_note


def test_time_objective_recommends_the_fastest_and_pareto_has_no_dominated_option() -> None:
    rows = [offer(), offer(instance_type="p5", gpu="H100-SXM5-80GB", gpu_memory_gib=80, price_usd=55.04),
            offer(instance_type="a2", gpu_count=1, price_usd=3.67)]  # fmt: skip
    plan = _plan(rows, Constraints(objective=Objective.TIME))
    assert plan.recommended.job_time_h == min(o.job_time_h for o in plan.pareto)
    for a in plan.pareto:
        for b in plan.pareto:
            assert not (b.total_cost_usd < a.total_cost_usd and b.job_time_h < a.job_time_h)


def test_personas_and_explanation_are_filled() -> None:
    rows = [offer(), offer(pricing="spot", price_usd=8.0), offer(instance_type="p5", gpu="H100-SXM5-80GB",
            gpu_memory_gib=80, price_usd=55.04, compliance=("MLPS-3",))]  # fmt: skip
    plan = _plan(rows)
    picks = {p.persona: p for p in plan.personas}
    assert picks["budget"].option is not None and picks["budget"].option.pricing == "spot"
    assert picks["kubernetes"].option is not None and picks["kubernetes"].option.kubernetes == "EKS"
    assert picks["compliance"].option is not None and picks["compliance"].option.gpu.startswith("H100")
    assert plan.why and plan.why[0].startswith("vs ")
    assert picks["budget"].rule == "lowest expected all-in cost, spot included"


def test_the_budget_pick_does_not_say_spot_is_included_where_spot_is_not_allowed() -> None:
    rows = [offer(), offer(pricing="spot", price_usd=8.0)]
    plan = _plan(rows, Constraints(pricing=("on_demand", "monthly")))
    budget = next(p for p in plan.personas if p.persona == "budget")
    assert budget.option is not None and budget.option.pricing == "on_demand"
    assert budget.rule == "lowest expected all-in cost"


def test_compliance_labels_match_however_they_are_written() -> None:
    # "mlps3" asked; the catalog says "MLPS 2.0 level 3" for the Alibaba region only.
    rows = [
        offer(),
        offer(provider="alibaba", region="cn-shanghai", country="CN", instance_type="gn7", price_usd=30.0,
              compliance=("MLPS 2.0 level 3",)),
    ]  # fmt: skip
    plan = _plan(rows, Constraints(compliance=("mlps3",), max_gpus=8))
    assert {o.provider for o in plan.options} == {"alibaba"}
    assert plan.excluded["compliance"] == 8
    picks = {p.persona: p for p in plan.personas}
    assert picks["compliance"].option is not None and picks["compliance"].option.provider == "alibaba"


def test_a_claimed_compliance_label_counts_only_when_asked_and_is_marked_as_a_claim() -> None:
    # Huawei's MLPS 2.0 level 3 is an undated article's claim (confidence low), Alibaba's a
    # certificate: the claim had met --compliance mlps-3 and been shown as the region's label.
    from gpuplan.i18n import _, use_language
    from gpuplan.plan.options import COMPLIANCE_CLAIMED_FLAG
    from gpuplan.report.plan import option_json

    huawei = offer(
        provider="huawei",
        region="cn-north-4",
        country="CN",
        instance_type="p2s",
        price_usd=20.0,
        compliance_claimed=("MLPS 2.0 level 3",),
    )
    alibaba = offer(
        provider="alibaba",
        region="cn-shanghai",
        country="CN",
        instance_type="gn7",
        price_usd=30.0,
        compliance=("MLPS 2.0 level 3",),
    )
    certain = _plan([offer(), huawei, alibaba], Constraints(compliance=("mlps-3",), max_gpus=8))
    assert {o.provider for o in certain.options} == {"alibaba"}
    assert not any(COMPLIANCE_CLAIMED_FLAG in o.flags for o in certain.options)
    picks = {p.persona: p for p in certain.personas}
    assert "claimed" not in picks["compliance"].rule

    asked = Constraints(compliance=("mlps-3",), max_gpus=8, allow_low_confidence=True)
    plan = _plan([offer(), huawei, alibaba], asked)
    assert plan.recommended.provider == "huawei"
    assert COMPLIANCE_CLAIMED_FLAG in plan.recommended.flags
    assert not any(COMPLIANCE_CLAIMED_FLAG in o.flags for o in plan.options if o.provider == "alibaba")
    picks = {p.persona: p for p in plan.personas}
    assert picks["compliance"].option is not None and picks["compliance"].option.provider == "huawei"
    assert (
        "MLPS 2.0 level 3 (claimed by a low-confidence source, not a certificate)" in picks["compliance"].rule
    )
    doc = option_json(plan.recommended)
    assert (doc.compliance, doc.compliance_claimed) == ([], ["MLPS 2.0 level 3"])
    with use_language("zh"):
        zh = next(
            p.rule for p in _plan([offer(), huawei, alibaba], asked).personas if p.persona == "compliance"
        )
        flag = _(COMPLIANCE_CLAIMED_FLAG)
    assert "MLPS 2.0 level 3（仅为低可信度来源的说法，并非证书）" in zh and "allow_low_confidence" in zh, zh
    assert flag.startswith("合规认证仅为低可信度来源的说法，并非证书"), flag


def test_the_compliance_persona_asked_for_no_label_counts_certain_labels_only() -> None:
    claimed = offer(provider="huawei", region="cn-north-4", country="CN", instance_type="p2s", price_usd=20.0,
                    compliance_claimed=("MLPS 2.0 level 3",))  # fmt: skip
    for allow in (False, True):
        plan = _plan([offer(), claimed], Constraints(max_gpus=8, allow_low_confidence=allow))
        pick = next(p for p in plan.personas if p.persona == "compliance")
        assert pick.option is None, allow
        assert "not counted" in pick.rule and "reliable source" in pick.note
    certain = replace(claimed, compliance=("MLPS 2.0 level 3",), compliance_claimed=())
    pick = next(
        p for p in _plan([offer(), certain], Constraints(max_gpus=8)).personas if p.persona == "compliance"
    )
    assert pick.option is not None and pick.option.provider == "huawei"


def test_explanation_names_the_main_driver() -> None:
    # Spot at $8/h beats on-demand at $21.96/h for the same 1 h on the same instance: the pricing
    # model is the driver ($13.96 of the difference).
    rows = [offer(), offer(pricing="spot", price_usd=8.0, interruption_band="<5%")]
    plan = _plan(rows, Constraints(max_gpus=8, objective=Objective.COST))
    assert plan.recommended.pricing == "spot"
    assert "pricing model (spot vs on_demand)" in plan.why[0]
    # A faster GPU that also costs less in total: the time part of compute is the driver.
    rows = [offer(instance_type="p5", gpu="H100-SXM5-80GB", gpu_memory_gib=80, price_usd=30.0), offer()]
    plan = _plan(rows, Constraints(max_gpus=8, objective=Objective.COST))
    assert plan.recommended.gpu.startswith("H100")
    assert "GPU speed (H100-SXM5-80GB vs A100-SXM4-40GB)" in plan.why[0]
    # One GPU against eight: the count is named with the GPU, not put on the GPU's speed alone
    rows = [offer(instance_type="one", gpu="H100-SXM5-80GB", gpu_memory_gib=80, gpu_count=1, price_usd=1.0),
            offer(instance_type="eight", gpu_count=8, price_usd=30.0)]  # fmt: skip
    plan = _plan(rows, Constraints(max_gpus=8, max_nodes=1, objective=Objective.COST))
    assert plan.recommended.instance_type == "one"
    assert "price per hour (1× H100-SXM5-80GB vs 8× A100-SXM4-40GB)" in plan.why[0]


def test_a_driver_far_larger_than_the_difference_says_what_offset_it() -> None:
    # "$0.92 (4.2%) cheaper, …; main cost driver: price per hour ($138.27)" read as if something cost
    # $138: the cheaper hour was nearly all paid back by the longer job
    rows = [offer(instance_type="p5", gpu="H100-SXM5-80GB", gpu_memory_gib=80, price_usd=45.0), offer()]
    plan = _plan(rows, Constraints(max_gpus=8, objective=Objective.COST))
    why = plan.why[0]
    assert "$0.54 (2.3%) cheaper" in why, why
    assert why.endswith(
        "main cost driver: price per hour (A100-SXM4-40GB vs H100-SXM5-80GB) ($23.53), mostly offset by "
        "job time (GPU speed and count) (−$22.97)"
    ), why


def test_unknown_regional_prices_can_exclude_instead_of_assume() -> None:
    # Tencent has no storage or egress price in the facts: "assume" keeps it with labelled
    # assumptions, "exclude" leaves its one candidate within 8 GPUs out, with its own reason.
    rows = [
        offer(),
        offer(provider="tencent", region="ap-guangzhou", country="CN", instance_type="GT4", price_usd=5.0),
    ]
    assumed = _plan(rows, Constraints(max_gpus=8))
    tencent = next(o for o in assumed.options if o.provider == "tencent")
    assert any("assumed" in a for a in tencent.assumptions)
    assert tencent.cost_breakdown.storage_usd > 0 and tencent.cost_breakdown.egress_usd > 0
    excluded = _plan(rows, Constraints(max_gpus=8), unknown_costs="exclude")
    assert all(o.provider != "tencent" for o in excluded.options)
    assert excluded.excluded["unknown_cost_component"] == 1


def test_an_empty_catalog_says_so() -> None:
    with pytest.raises(InfeasibleError, match="no GPU offers"):
        plan_offers(OfferTable.from_rows([]), CostFacts([]), JOB, toy_estimator(), Constraints())


def test_a_misspelt_provider_or_region_suggests_the_right_one() -> None:
    from gpuplan.errors import NotFoundError

    with pytest.raises(NotFoundError, match="did you mean 'aws'"):
        _plan([offer()], Constraints(providers=("awss",)))
    with pytest.raises(NotFoundError, match="did you mean 'us-east-1'"):
        _plan([offer()], Constraints(regions=("us-east1x",)))


def test_a_service_compares_cost_for_the_same_period_not_seconds_faster() -> None:
    # A service: every option is capacity for the same month; "0 s faster" would say nothing.
    from gpuplan.i18n import use_language

    service = JobFacts(dataset_gb=0, checkpoint_gb=0, data_location=("aws", "us-east-1"), calendar_months=1.0)
    rows = [
        offer(),
        offer(instance_type="p4d.b", price_usd=25.0),
        offer(instance_type="p4d.c", price_usd=30.0),
    ]
    plan = _plan(rows, Constraints(max_gpus=8, objective=Objective.COST), job=service)
    assert plan.why and all("of service" in w and "faster" not in w for w in plan.why)
    with use_language("zh"):
        plan = _plan(rows, Constraints(max_gpus=8, objective=Objective.COST), job=service)
    assert all("同样" in w and "快" not in w for w in plan.why)


def test_two_jobs_of_about_the_same_time_are_not_called_faster() -> None:
    # The same instance in two regions: the same job time, so the line says so instead of "0 s faster".
    rows = [offer(), offer(region="us-west-2", price_usd=25.0)]
    plan = _plan(rows, Constraints(max_gpus=8, objective=Objective.COST))
    assert "about the same time" in plan.why[0] and "0 s" not in plan.why[0]


def test_a_gpu_limit_past_the_planners_search_is_refused_naming_it() -> None:
    # A workload file's constraints.max_gpus and a library caller reach Constraints without the
    # CLI's flag check: 1000 was silently searched as 64.
    from gpuplan.errors import InputError
    from gpuplan.plan.constraints import MAX_TOTAL_GPUS

    with pytest.raises(InputError) as e:
        Constraints(max_gpus=1000)
    assert str(e.value) == (
        f"max_gpus 1000 is more than the planner searches: at most {MAX_TOTAL_GPUS} GPUs in all; "
        f"give 1 to {MAX_TOTAL_GPUS}"
    )
    assert Constraints(max_gpus=MAX_TOTAL_GPUS).total_gpu_limit == MAX_TOTAL_GPUS


def test_a_node_limit_past_the_planners_search_is_refused_naming_it() -> None:
    # Each instance holds at least one GPU and the planner searches at most MAX_TOTAL_GPUS in all:
    # max_nodes 100000 was taken as if that many instances had been looked at.
    from gpuplan.errors import InputError
    from gpuplan.hardware.gpus import MAX_PLANNED_NODES

    with pytest.raises(InputError) as e:
        Constraints(max_nodes=MAX_PLANNED_NODES + 1)
    assert str(e.value) == (
        f"max_nodes {MAX_PLANNED_NODES + 1} is more than the planner searches: at most "
        f"{MAX_PLANNED_NODES} instances (one GPU each at the least); give 1 to {MAX_PLANNED_NODES}"
    )
    for service in (False, True):
        assert Constraints(max_nodes=MAX_PLANNED_NODES).node_limit(service=service) == MAX_PLANNED_NODES


def test_a_tie_is_said_as_one_not_as_cheaper_by_nothing() -> None:
    # Two offers alike in price, time and what is known of them: the winner is first of equals,
    # not "$0.00 (0%) cheaper ... ranked ahead by the lowest all-in cost".
    rows = [offer(), offer(instance_type="p4d.24xlarge-twin")]
    plan = _plan(rows, Constraints(max_gpus=8), top=2)
    a, b = plan.options
    assert a.total_cost_usd == b.total_cost_usd
    [why] = plan.why
    assert why == (
        f"vs {b.label}: the same all-in cost ($22.47), about the same time (1.0 h); "
        "a tie on cost, time and unknown facts: either will do"
    )
    # One whose figures rest on an unknown (here: its egress price) comes second, and the line
    # says that is why: an unknown never wins a tie.
    egress = UnknownFact(fact="egress_price", assumed="the highest the catalog knows")
    unknown = replace(b, unknown_facts=(egress,))
    [why] = explain_winner([a, unknown], Objective.COST)
    assert why.endswith("ranked ahead: fewer unknown facts (0 against 1)"), why


def test_a_named_provider_that_gives_no_option_is_said_with_its_reasons() -> None:
    # Volcano Engine named beside AWS, its one offer unpriced: it had dropped out of the ranking
    # without a word to a user who preferred it
    rows = [offer(), offer(provider="volcengine", region="cn-beijing", country="CN", price_usd=None)]
    plan = _plan(rows, Constraints(providers=("aws", "volcengine")))
    assert all(o.provider == "aws" for o in plan.options)
    [note] = [n for n in plan.notes if n.startswith("volcengine (named in providers)")]
    # its offers all unpriced: the catalog, not a filter, is what leaves it out (was: "its 8
    # candidates were left out (8 unpriced)")
    assert note.startswith(
        "volcengine (named in providers): no option; no offer of volcengine in the catalog has a price "
        "this plan can use (1 row: unpriced 1); bring your own quotes with `gpuplan catalog import FILE "
        "--format gpuplan --provider volcengine`"
    ), note
    # one priced offer it has, left out by a filter: the candidates are counted by reason
    rows.append(offer(provider="volcengine", region="cn-shanghai", country="CN", price_usd=30.0))
    plan = _plan(rows, Constraints(providers=("aws", "volcengine"), regions=("us-east-1", "cn-beijing")))
    [note] = [n for n in plan.notes if n.startswith("volcengine (named in providers)")]
    assert note.startswith("volcengine (named in providers): no option; its "), note
    assert " candidate" in note and "unpriced" in note
    # a provider that gives options, or one named alone, says nothing of the kind
    assert not [n for n in _plan(rows, Constraints(providers=("aws",))).notes if "named in providers" in n]


def test_a_named_provider_whose_offers_have_no_known_country_says_so_not_by_country() -> None:
    # was: "volcengine (named in providers): no option; its 264 candidates were left out (264
    # country)" with --countries CN, when its offers' region is "unspecified" (the price's source
    # names none): it read as if Volcano Engine sold only outside China.
    rows = [
        offer(provider="alibaba", region="cn-beijing", country="CN"),
        offer(provider="volcengine", region="unspecified", country=""),
        offer(provider="volcengine", region="us-east-1", country="US"),
    ]
    plan = _plan(rows, Constraints(providers=("alibaba", "volcengine"), countries=("CN",)))
    [note] = [n for n in plan.notes if n.startswith("volcengine (named in providers)")]
    assert "8 whose region's country is unknown: unspecified, which the countries filter leaves out" in note
    assert "8 country" in note  # the one in the US is left out by country indeed


def test_a_named_provider_with_no_offer_in_the_countries_asked_says_the_catalog_lacks_it() -> None:
    # was: "azure (named in providers): no option; its 1,913 candidates were left out (1,881
    # country, …)" for an EU-only plan, as if the filter, not the catalog (whose Azure rows are all
    # in US regions), had taken Azure away.
    rows = [
        offer(region="eu-central-1", country="DE"),
        offer(provider="azure", region="eastus", country="US"),
        offer(provider="azure", region="unspecified", country=""),
    ]
    plan = _plan(rows, Constraints(providers=("aws", "azure"), countries=("DE", "FR")))
    [note] = [n for n in plan.notes if n.startswith("azure (named in providers)")]
    assert note.startswith(
        "azure (named in providers): no option; the catalog has no azure offer in the countries asked "
        "for (its regions with an offer are in: US); its 16 candidates were left out (8 country, 8 whose "
        "region's country is unknown: unspecified, which the countries filter leaves out); "
        "`gpuplan catalog refresh --provider azure` reads its price list (https://prices.azure.com/"
    ), note
    assert note.endswith("2 of them in the countries asked for: francecentral, germanywestcentral"), note
    assert "(it needs" not in note  # Azure's retail prices are public
    # a provider with an offer in the countries asked, left out for another reason, says its reasons
    rows[1] = offer(provider="azure", region="westeurope", country="DE", price_usd=None)
    [note] = [n for n in _plan(rows, Constraints(providers=("aws", "azure"), countries=("DE",))).notes
              if n.startswith("azure (named in providers)")]  # fmt: skip
    assert "the catalog has no azure offer" not in note and "unpriced" in note, note


def test_countries_without_providers_name_the_large_clouds_with_no_offer_there() -> None:
    # "--countries EU" had said nothing of Azure (the catalog's Azure offers are all in the US),
    # which only "--providers azure,aws" said; a marketplace (lium) is not named, nor a cloud with
    # an offer there, nor one with no offer of the GPUs considered
    rows = [
        offer(region="eu-central-1", country="DE"),
        offer(provider="azure", region="eastus", country="US"),
        offer(provider="azure", region="unspecified", country=""),
        offer(provider="alibaba", region="cn-hangzhou", country="CN"),
        offer(provider="alibaba", region="cn-hongkong", country="HK"),
        offer(provider="gcp", region="us-central1", country="US", gpu="H100-SXM5-80GB"),
        offer(provider="lium", region="US", country="US", instance_type="H100-SXM_8x"),
    ]
    plan = _plan(rows, Constraints(countries=("DE", "FR"), gpus=("A100",)))
    [note] = [n for n in plan.notes if n.startswith("no offer of the GPUs considered")]
    assert note == (
        "no offer of the GPUs considered in the countries asked for (DE, FR): azure (its offers are in "
        "US); alibaba (its offers are in CN, HK)"
    ), note
    # a provider named says it its own way; no countries, nothing to say
    for constraints in (Constraints(countries=("DE",), providers=("aws", "azure")), Constraints()):
        assert not [n for n in _plan(rows, constraints).notes if n.startswith("no offer of the GPUs")]
    # a cloud with an offer in the countries, even one left out for another reason, is not named
    rows[1] = offer(provider="azure", region="westeurope", country="DE", price_usd=None)
    [note] = [
        n for n in _plan(rows, Constraints(countries=("DE",))).notes if n.startswith("no offer of the GPUs")
    ]
    assert "azure" not in note and "alibaba" in note
    from gpuplan.i18n import use_language

    with use_language("zh"):
        notes = _plan(rows, Constraints(countries=("DE",))).notes
    [note] = [n for n in notes if n.startswith("在您限定的国家或地区（DE）没有所考虑 GPU 的报价：")]
    assert "alibaba（其报价位于 CN、HK）" in note, note


def test_a_named_provider_without_options_says_its_reasons_in_words_in_chinese() -> None:
    # the codes had stayed English in a Chinese line: "（8 unpriced）"
    from gpuplan.i18n import use_language

    rows = [
        offer(),
        offer(provider="volcengine", region="cn-beijing", country="CN", price_usd=None),
        offer(provider="volcengine", region="cn-shanghai", country="CN"),
    ]
    with use_language("zh"):
        plan = _plan(rows, Constraints(providers=("aws", "volcengine"), regions=("us-east-1", "cn-beijing")))
    [note] = [n for n in plan.notes if n.startswith("volcengine（")]
    assert "无报价 8 个" in note and "unpriced" not in note, note


def test_a_baseline_the_job_does_not_fit_says_so_not_either_of_two_causes() -> None:
    # a 60 GiB job: the 40 GB A100 baseline cannot hold it, an 80 GB H100 can; the note had said
    # "no priced offer, or the job does not fit on it"
    rows = [offer(), offer(instance_type="p5", gpu="H100-SXM5-80GB", gpu_memory_gib=80, price_usd=55.04)]
    plan = plan_offers(
        OfferTable.from_rows(rows), CostFacts([aws_costs()]), JOB, toy_estimator(peak_gib=60.0), Constraints()
    )
    assert plan.baseline is None
    assert plan.baseline_note.startswith("baseline aws/us-east-1 p4d.24xlarge ")
    assert plan.baseline_note.endswith(": every candidate left out (8 does_not_fit)"), plan.baseline_note


def test_a_gpu_filter_keeps_the_gpus_named_and_a_family_name_keeps_its_variants() -> None:
    # A student comparing spot T4, A10G and A100 had planned with --top 100000 and filtered the
    # JSON by hand: the filter is the planner's own, counted as its reason.
    rows = [
        offer(),
        offer(instance_type="g4dn.xlarge", gpu="T4", gpu_count=1, gpu_memory_gib=16.0, price_usd=0.53),
        offer(instance_type="g5.xlarge", gpu="A10G", gpu_count=1, gpu_memory_gib=24.0, price_usd=1.01),
    ]
    plan = _plan(rows, Constraints(gpus=("A100", "a10g"), max_gpus=8), top=20)
    assert {o.gpu for o in plan.options} == {"A100-SXM4-40GB", "A10G"}
    # the T4's one instance, at 1 to 8 nodes within max_gpus 8: 8 candidates left out as "gpu"
    assert plan.excluded["gpu"] == 8
    assert _plan(rows, Constraints(gpus=("A10G",), max_gpus=8)).recommended.gpu == "A10G"


def test_a_gpu_filter_that_leaves_none_says_so_and_a_misspelt_gpu_suggests_the_right_one() -> None:
    from gpuplan.errors import NotFoundError

    with pytest.raises(PlanInfeasibleError) as e:
        _plan([offer()], Constraints(gpus=("T4", "A10G")))
    assert str(e.value).startswith("no option is left: the catalog has no offer of T4, A10G: "), str(e.value)
    with pytest.raises(NotFoundError, match="unknown GPU 'A10x'; did you mean 'A10' or 'A10G'"):
        Constraints(gpus=("A10x",))


def test_a_named_provider_the_catalog_holds_no_offer_of_is_said_too() -> None:
    # every provider named gets its line: one without an offer had been passed over in silence
    plan = _plan([offer()], Constraints(providers=("aws", "tencent")))
    [note] = [n for n in plan.notes if "named in providers" in n]
    assert note == "tencent (named in providers): no option; the catalog holds no offer of it"


def test_a_gpu_the_catalog_sells_nowhere_is_said_with_the_nearest_priced_and_how_to_add_one() -> None:
    # was: "no option is left: the GPU filter (H800) left none; candidates excluded by gpu 71,657"
    # for a GPU `gpuplan gpus` lists but no price source the catalog ships sells
    rows = [offer(), offer(provider="gcp", region="us-central1", gpu="H100-SXM", price_usd=80.0)]
    with pytest.raises(PlanInfeasibleError) as info:
        _plan(rows, Constraints(gpus=("H800",)))
    assert str(info.value) == (
        "no option is left: the catalog has no offer of H800 (H800-SXM, H800-PCIE): gpuplan knows the "
        "GPU, but none of the price sources it ships lists it; the nearest GPUs the catalog prices: "
        "H100-SXM (the same chip), A100-SXM4-40GB; `gpuplan catalog import --format gpuplan FILE` adds "
        "a price of your own (a quote; examples/prices/README.md shows the file)"
    )
    # the nearest within the providers named, where they price one; one variant named is no family
    with pytest.raises(PlanInfeasibleError) as info:
        _plan(rows, Constraints(gpus=("h800-sxm",), providers=("aws",)))
    assert str(info.value).startswith(
        "no option is left: the catalog has no offer of h800-sxm: gpuplan knows the GPU, but none of the "
        "price sources it ships lists it; the nearest GPUs the catalog prices at aws: A100-SXM4-40GB; "
    )
    # sold, but not by the providers named: who does sell it
    with pytest.raises(PlanInfeasibleError) as info:
        _plan(rows, Constraints(gpus=("H100-SXM",), providers=("aws",)))
    assert str(info.value).startswith(
        "no option is left: the catalog has no offer of H100-SXM from aws; it prices it at gcp; "
        "the nearest GPUs the catalog prices at aws: A100-SXM4-40GB; "
    )
    # listed there, but with no price the plan can use: not said to be priced
    unpriced = [offer(), offer(provider="gcp", region="us-central1", gpu="H100-SXM", price_usd=None)]
    with pytest.raises(PlanInfeasibleError) as info:
        _plan(unpriced, Constraints(gpus=("H100-SXM",), providers=("aws",)))
    assert str(info.value).startswith(
        "no option is left: the catalog has no offer of H100-SXM from aws; its offers of it, from gcp, "
        "have no price this plan can use; "
    )
    # a price the plan may not use (low confidence) is no nearest GPU
    low = [offer(confidence="low")]
    with pytest.raises(PlanInfeasibleError) as info:
        _plan(low, Constraints(gpus=("H800",)))
    assert "nearest" not in str(info.value)


def test_volcano_engine_is_named_by_either_spelling_and_a_typo_is_told_the_code() -> None:
    from gpuplan.errors import NotFoundError

    assert Constraints(providers=("volcano", "火山引擎", "VolcEngine")).providers == ("volcengine",) * 3
    with pytest.raises(NotFoundError, match="did you mean 'volcengine'"):
        Constraints(providers=("volcanoe",))


def test_the_front_ends_at_the_performance_pick_and_shows_the_personas_picks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # was: a front holding 8 p5.48xlarge spot at 6.06 h for $1,572.93 beside 8 p5en.48xlarge spot at
    # 6.07 h for $737.72 (both "6.1 h"), and the text's 8 shown points leaving the latter, the
    # performance pick, out. Here an H100 node 0.6 % faster than an A100 one, at 2.5 times the price.
    import plan_helpers

    from gpuplan.report.plan_view import _front, _front_shown

    monkeypatch.setitem(plan_helpers.GPU_HOURS, "H100-SXM5-80GB", 7.95)
    rows = [
        offer(),
        offer(instance_type="p5.48xlarge", gpu="H100-SXM5-80GB", gpu_memory_gib=80, price_usd=55.04),
    ]
    plan = _plan(rows, Constraints(max_gpus=64))
    [perf] = [p.option for p in plan.personas if p.persona == "performance"]
    assert perf is not None and perf.instance_type == "p4d.24xlarge"
    assert plan.pareto[-1].label == perf.label  # nothing past it: faster by 0.6 % for more money
    assert all(o.instance_type == "p4d.24xlarge" for o in plan.pareto), [o.label for o in plan.pareto]
    # a long front shows 8 points: each persona's pick on it among them
    assert len(plan.pareto) == 8
    longer = (*plan.pareto, *plan.pareto[-3:])  # 11 points, as a front of 11 would be thinned
    mid = replace(plan.personas[0], option=longer[2])
    thinned = replace(plan, pareto=longer, personas=(mid, *plan.personas[1:]))
    assert 2 in _front_shown(thinned) and len(_front_shown(thinned)) == 8
    assert any(longer[2].label in t.plain for t in _front(thinned))
