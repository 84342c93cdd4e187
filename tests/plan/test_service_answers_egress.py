"""A service's answers leave the cloud to its clients every month: their bytes (requests × answer
tokens × bytes a streamed token) are priced at the region's internet egress — its conservative
bound where the catalog does not know it, never 0 — while a job's egress is what it was."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import pytest
from plan_helpers import aws_costs, offer

from gpuplan.i18n import use_language
from gpuplan.plan import Constraints, CostFacts, EstimateKey, EstimateRow, JobFacts, OfferTable, plan_offers
from gpuplan.plan.answer_bytes import ANSWER_FIXED_BYTES, STREAMED_TOKEN_BYTES, streamed_answer_bytes
from gpuplan.plan.build_inputs import job_facts_from
from gpuplan.plan.input_types import RegionCosts, UsdTransferTier
from gpuplan.plan.result import Option
from gpuplan.report.plan_html import plan_html
from gpuplan.report.plan_view import breakdown_words
from gpuplan.units import HOURS_PER_MONTH
from gpuplan.workload import Workload

#: The outside tester's chat service: 40 req/s peak, 18 on average, 800-token prompts, 300-token answers.
CHAT: dict[str, Any] = {
    "name": "qwen-chat",
    "task": "infer",
    "model": {"preset": "llama-8b"},
    "inputs": {"batch_size": 16, "seq_len": 1100},
    "precision": "bf16",
    "serving": {"requests_per_s": 40, "mean_requests_per_s": 18, "prompt_tokens": 800, "output_tokens": 300},
}

#: 18 req/s × 3,600 s × 730 h = 47,304,000 answers a month.
ANSWERS = 18 * 3600 * 730
#: One streamed answer of 300 tokens: 316 bytes a token (a 231-byte SSE event without its text, 5
#: bytes of text, 80 of HTTP chunk, TLS record and TCP/IP headers) × 300 + 747 = 95,547 bytes.
ANSWER_BYTES = 316 * 300 + 747

FLAT = 0.09
"""USD/GB of a region with one internet egress price, so that the arithmetic is in view."""


def _month(key: EstimateKey) -> EstimateRow:
    h = HOURS_PER_MONTH
    return EstimateRow(fits=True, job_time_h=h, job_time_h_low=h, job_time_h_high=h, peak_memory_gib=20.0)


def _flat(region: str = "us-east-1", usd_per_gb: float | None = FLAT) -> RegionCosts:
    tiers = None if usd_per_gb is None else (UsdTransferTier(upto_gb=math.inf, usd_per_gb=usd_per_gb),)
    return replace(aws_costs(), region=region, internet_egress=tiers)


def _service() -> JobFacts:
    job, _notes = job_facts_from(Workload.from_dict(CHAT), None)
    return job


def _plan(job: JobFacts, facts: CostFacts) -> Option:
    rows = OfferTable.from_rows([offer()])
    return plan_offers(rows, facts, job, _month, Constraints(max_gpus=8)).recommended


def test_the_answer_of_a_streamed_token_is_its_sse_event_and_framing() -> None:
    # 231 + 5 + (6 + 22 + 52) = 316; (250 + 80) + (14 + 80) + 21 + (149 + 74) + (5 + 74) = 747
    assert STREAMED_TOKEN_BYTES == 316
    assert ANSWER_FIXED_BYTES == 747
    assert streamed_answer_bytes(300) == 95_547


def test_a_chat_service_counts_its_answers_at_the_mean_rate_streamed() -> None:
    job, notes = job_facts_from(Workload.from_dict(CHAT), None)
    assert job.answers_per_month == pytest.approx(ANSWERS)
    assert job.answer_bytes == ANSWER_BYTES
    # 47,304,000 × 95,547 B = 4,519.8 GB a month
    assert job.answers_gb == pytest.approx(4519.75, abs=0.01)
    said = next(n for n in notes if "answers to clients" in n)
    assert "4,520 GB" in said and "streamed" in said and "serving.response_bytes" in said


def test_without_a_mean_the_peak_is_taken_all_month() -> None:
    spec = {**CHAT, "serving": {k: v for k, v in CHAT["serving"].items() if k != "mean_requests_per_s"}}
    job, notes = job_facts_from(Workload.from_dict(spec), None)
    assert job.answers_per_month == pytest.approx(40 * 3600 * 730)
    assert any("the peak, all month" in n for n in notes)


def test_the_workload_may_give_the_bytes_of_an_answer() -> None:
    # Answers sent whole, not streamed: 300 tokens × 5 bytes + 1 kB.
    spec = {**CHAT, "serving": {**CHAT["serving"], "response_bytes": 2500}}
    job, notes = job_facts_from(Workload.from_dict(spec), None)
    assert job.answer_bytes == 2500
    assert job.answers_gb == pytest.approx(ANSWERS * 2500 / 1e9)
    assert any("2,500 bytes each (serving.response_bytes)" in n for n in notes)


def test_a_chat_services_egress_is_its_answers_at_the_regions_internet_price() -> None:
    # was: egress $0.00 (in $0.00 × 1 copy, back $0.00). 4,519.75 GB × $0.09/GB = $406.78
    rows = OfferTable.from_rows([offer()])
    plan = plan_offers(rows, CostFacts([_flat()]), _service(), _month, Constraints(max_gpus=8))
    o = plan.recommended
    b = o.cost_breakdown
    assert b.egress_usd == pytest.approx(ANSWERS * ANSWER_BYTES / 1e9 * FLAT)
    assert b.egress_usd == pytest.approx(406.78, abs=0.01)
    out = next(i for i in b.items if i.component == "egress_out")
    assert out.cost_usd == pytest.approx(b.egress_usd)
    assert o.total_cost_usd == pytest.approx(b.total_usd)
    assert any("answers to clients 4,520 GB a month to the internet" in a for a in o.assumptions)
    assert "answers out $406.78" in breakdown_words(o)
    assert "answers to clients $406.78" in plan_html(plan, "chat")
    with use_language("zh"):
        assert "回答流出 $406.78" in breakdown_words(o)


def test_the_answers_pay_the_regions_egress_tiers() -> None:
    # AWS: 100 GB free is the account's, not this job's (egress_free_tier False); then 4,519.75 GB
    # in the 0.09 tier (up to 10 TB): every GB at 0.09.
    o = _plan(_service(), CostFacts([aws_costs()]))
    assert o.cost_breakdown.egress_usd == pytest.approx(4519.75 * 0.09, abs=0.01)


def test_a_region_of_unknown_egress_price_is_bounded_at_the_highest_known_not_zero() -> None:
    # The option's region knows no internet egress price; the dearest one the catalog knows is
    # 0.12 (another region): the answers are costed at it, the fact named, its best case at 0.05.
    facts = CostFacts([_flat(usd_per_gb=None), _flat("eu-west-1", 0.12), _flat("us-east-2", 0.05)])
    o = _plan(_service(), facts)
    assert o.cost_breakdown.egress_usd == pytest.approx(4519.75 * 0.12, abs=0.01)
    assert "egress_price" in {u.fact for u in o.unknown_facts}
    assert o.best_case_total_cost_usd == pytest.approx(o.total_cost_usd - 4519.75 * (0.12 - 0.05), abs=0.01)
    assert any("answers to clients: internet egress price of" in a for a in o.assumptions)


def test_the_answers_line_shows_the_rate_its_amount_was_charged_at() -> None:
    # was "answers to clients 4,520 GB a month to the internet, $555.93 ($0.12/GB)": the rate used,
    # the catalog's dearest, is 0.123, and 4,520 × 0.12 is $542.40, not the amount shown.
    facts = CostFacts([_flat(usd_per_gb=None), _flat("eu-west-1", 0.123)])
    o = _plan(_service(), facts)
    [said] = [a for a in o.assumptions if a.startswith("egress: answers to clients")]
    assert said == "egress: answers to clients 4,520 GB a month to the internet, $555.93 ($0.123/GB)", said
    # a rate the display rounds exactly is shown as ever
    [said] = [a for a in _plan(_service(), CostFacts([_flat()])).assumptions if "answers to clients" in a]
    assert said.endswith(", $406.78 ($0.09/GB)"), said


def test_a_training_job_pays_no_answers() -> None:
    # A training job's results back (2 GB to the user's own site) stay its only egress out: 2 × 0.09.
    job = JobFacts(task="train", results_gb=2.0)
    assert job.answers_gb == 0.0
    c = CostFacts([_flat()]).charges("aws", "us-east-1", job)
    assert c.egress_out_usd == pytest.approx(2 * FLAT)
    assert not any("answers" in a for a in c.assumptions)
    train = {**CHAT, "task": "train", "serving": None, "optimizer": "adamw"}
    facts, notes = job_facts_from(Workload.from_dict({k: v for k, v in train.items() if v is not None}), None)
    assert facts.answers_per_month == 0.0 and facts.answer_bytes == 0.0
    assert not any("answers to clients" in n for n in notes)
