"""A batch generation job's cost per million tokens: the option's all-in cost over the tokens the run
reads and generates, the definition a service's figure has (the all-in cost over the tokens of the
work priced). It had been null for every batch job, so a nightly summarisation run could not be set
beside an API's price per million tokens; where the all-in cost is not known (results sent back of
no stated size), it stays null with the reason, never the floor."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from plan_helpers import AWS_TIERS, offer, toy_estimator

from gpuplan.plan import Constraints, CostFacts, JobFacts, OfferTable, Plan, RegionCosts, plan_offers
from gpuplan.plan.build_inputs import job_facts_from
from gpuplan.plan.result import Option
from gpuplan.workload import Workload, load_workload

ROOT = Path(__file__).resolve().parents[2]

#: 2 M chats (prompts of 1,024 tokens) summarised in 256 tokens by Llama-3.1-8B, the data in Hangzhou.
SUMMARIES: dict[str, Any] = {
    "name": "chat-summaries",
    "task": "infer",
    "model": {"preset": "llama-8b"},
    "inputs": {"batch_size": 64, "seq_len": 1024, "output_tokens": 256},
    "precision": "bf16",
    "data": {"samples": 2_000_000, "location": "alibaba/cn-hangzhou", "results_gb": 2},
}


def _summaries(**data: Any) -> Workload:
    return Workload.from_dict({**SUMMARIES, "data": {**SUMMARIES["data"], **data}})


def test_the_run_reads_and_generates_its_samples_prompts_and_answers() -> None:
    job, _ = job_facts_from(load_workload(ROOT / "examples" / "llm-batch-summaries.yaml"), None)
    # 2,000,000 samples × 1,024 prompt tokens = 2.048e9; × 256 generated = 5.12e8
    assert job.run_tokens == (2_048_000_000, 512_000_000)
    job, _ = job_facts_from(_summaries(epochs=2), None)  # every pass reads and generates again
    assert job.run_tokens == (4_096_000_000, 1_024_000_000)
    # No answer generated: not a generation job, nothing to divide by (as a training job).
    embed = {**SUMMARIES, "inputs": {"batch_size": 64, "seq_len": 1024}}
    assert job_facts_from(Workload.from_dict(embed), None)[0].run_tokens is None


def _plan(job: JobFacts) -> Plan:
    # Two 1-GPU A100 offers, 8 h of work each: Ohio's at $1/h, Hangzhou's (the data's region) at $2/h.
    rows = [
        offer(instance_type="ohio", region="us-east-2", gpu_count=1, price_usd=1.0, country="US"),
        offer(
            provider="alibaba", region="cn-hangzhou", instance_type="hangzhou", gpu_count=1, price_usd=2.0,
            country="CN",
        ),
    ]  # fmt: skip
    regions = [
        RegionCosts(
            provider=p, region=r, internet_egress=AWS_TIERS, inter_region_usd_per_gb=0.02,
            block_storage_usd_per_gb_month=0.08,
        )
        for p, r in (("aws", "us-east-2"), ("alibaba", "cn-hangzhou"))
    ]  # fmt: skip
    return plan_offers(
        OfferTable.from_rows(rows),
        CostFacts(regions),
        job,
        toy_estimator(peak_gib=10.0),
        Constraints(max_gpus=1),
    )  # type: ignore[arg-type]


def _option(plan: Plan, name: str) -> Option:
    return next(o for o in plan.options if o.instance_type == name)


def _view(plan: Plan) -> str:
    from rich.console import Console

    from gpuplan.report.plan_view import plan_view

    console = Console(width=200, record=True)
    console.print(plan_view(plan))
    return " ".join(console.export_text().split())


def test_each_option_costs_its_all_in_cost_over_the_runs_tokens_per_million() -> None:
    from gpuplan.report.plan import option_json

    job, _ = job_facts_from(_summaries(), None)
    plan = _plan(job)
    for o in plan.options:
        # 512 M generated tokens; 2,048 M + 512 M = 2,560 M read and generated
        assert o.usd_per_million_output_tokens == pytest.approx(o.total_cost_usd / 512)
        assert o.usd_per_million_tokens == pytest.approx(o.total_cost_usd / 2560)
        assert o.usd_per_million_tokens_unknown is None
        doc = option_json(o).model_dump()
        assert doc["usd_per_million_output_tokens"] == pytest.approx(o.total_cost_usd / 512)
        assert doc["usd_per_million_tokens"] == pytest.approx(o.total_cost_usd / 2560)
    text = _view(plan)
    rec = plan.recommended.total_cost_usd
    assert f"Cost per million tokens: ${rec / 512:.3f} per million output tokens" in text, text
    assert "the all-in cost over the tokens the run reads and generates" in text
    assert "at least" not in text.split("Cost per million tokens:")[1].split(")")[0]


def test_a_cost_not_known_leaves_the_figure_null_and_says_why() -> None:
    from gpuplan.report.plan import option_json

    # results_gb not given: Ohio's results cross a priced link at a price nobody knows, so its all-in
    # cost (and any figure over it) is only a floor; Hangzhou's stay in the region.
    job, _ = job_facts_from(_summaries(results_gb=None), None)
    plan = _plan(job)
    ohio, hangzhou = _option(plan, "ohio"), _option(plan, "hangzhou")
    assert ohio.usd_per_million_output_tokens is None and ohio.usd_per_million_tokens is None
    assert ohio.usd_per_million_tokens_unknown is not None
    assert "data.results_gb not given" in ohio.usd_per_million_tokens_unknown
    assert (
        option_json(ohio).model_dump()["usd_per_million_tokens_unknown"]
        == ohio.usd_per_million_tokens_unknown
    )
    assert hangzhou.usd_per_million_output_tokens == pytest.approx(hangzhou.total_cost_usd / 512)
    # Data at the user's own site: every option's results go out unpriced.
    job, _ = job_facts_from(_summaries(results_gb=None, location=None), None)
    plan = _plan(job)
    assert all(o.usd_per_million_tokens is None and o.usd_per_million_tokens_unknown for o in plan.options)
    assert "Cost per million tokens: not known: the results sent back are not priced" in _view(plan)


def test_a_batch_job_costs_its_all_in_cost_over_its_samples_per_thousand() -> None:
    # was: no per-sample figure for a batch job (2.4 M audio windows divided by hand)
    from gpuplan.report.plan import option_json

    embed = Workload.from_dict({**SUMMARIES, "inputs": {"batch_size": 64, "seq_len": 1024}})
    job, _ = job_facts_from(embed, None)
    assert job.run_samples == 2_000_000
    plan = _plan(job)
    for o in plan.options:
        assert o.usd_per_thousand_samples == pytest.approx(o.total_cost_usd / 2000)
        assert option_json(o).model_dump()["usd_per_thousand_samples"] == pytest.approx(
            o.total_cost_usd / 2000
        )
    rec = plan.recommended.total_cost_usd
    assert f"Cost per 1,000 samples: ${rec / 2000:.4f}" in _view(plan)
    # results of no stated size sent over a priced link: not known, and said why
    job, _ = job_facts_from(_summaries(results_gb=None), None)
    ohio = _option(_plan(job), "ohio")
    assert ohio.usd_per_thousand_samples is None
    assert "data.results_gb not given" in (ohio.usd_per_thousand_samples_unknown or "")
    # a training job has none
    train = {**SUMMARIES, "task": "train", "inputs": {"batch_size": 8, "seq_len": 1024}}
    assert job_facts_from(Workload.from_dict(train), None)[0].run_samples is None
