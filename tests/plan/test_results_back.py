"""What a job writes back to its data's location: ``data.results_gb``, read from the workload and
priced as egress out of the option's region; a batch inference job that does not state it is not
priced at 0 as if nothing came back, and no option wins because its results' cost is unknown."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from plan_helpers import AWS_TIERS, ddp_profile, offer, toy_estimator

from gpuplan.errors import InputError
from gpuplan.plan import Constraints, CostFacts, JobFacts, OfferTable, Plan, RegionCosts, plan_offers
from gpuplan.plan.build_inputs import job_facts_from
from gpuplan.plan.result import Option
from gpuplan.workload import Workload
from one_line import refused

#: 50 M titles embedded by BERT-Large, the data in Hangzhou: the batch inference job of the report.
EMBED: dict[str, Any] = {
    "name": "title-embed",
    "task": "infer",
    "model": {"preset": "bert-large"},
    "inputs": {"batch_size": 256, "seq_len": 32},
    "precision": "amp-fp16",
    "data": {"samples": 50_000_000, "location": "alibaba/cn-hangzhou"},
}

HANGZHOU = ("alibaba", "cn-hangzhou")


def _embed(**data: Any) -> dict[str, Any]:
    return {**EMBED, "data": {**EMBED["data"], **data}}


def test_results_gb_is_a_key_of_data_and_round_trips() -> None:
    w = Workload.from_dict(_embed(results_gb=100))
    assert w.data is not None and w.data.results_gb == 100.0
    assert w.to_dict()["data"]["results_gb"] == 100.0
    assert Workload.from_dict(w.to_dict()).data == w.data


@pytest.mark.parametrize("value", [-5, ".inf", "abc", 1e12])
def test_a_results_size_out_of_range_is_refused_in_one_line(
    value: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "embed.yaml"
    path.write_text(
        "name: title-embed\ntask: infer\nmodel: {preset: bert-large}\n"
        "inputs: {batch_size: 256, seq_len: 32}\n"
        f"data: {{samples: 50000000, location: alibaba/cn-hangzhou, results_gb: {value}}}\n",
        encoding="utf-8",
    )
    line = refused(["plan", str(path)], capsys)
    assert "data.results_gb" in line and "unknown key" not in line, line


def test_a_service_is_refused_a_results_size() -> None:
    spec = {
        **_embed(results_gb=10),
        "model": {"preset": "llama-8b"},
        "inputs": {"batch_size": 16, "seq_len": 768},
        "precision": "bf16",
        "serving": {"requests_per_s": 5, "prompt_tokens": 512, "output_tokens": 256},
    }
    with pytest.raises(InputError, match=r"data\.results_gb: a service's responses go to its clients"):
        Workload.from_dict(spec)


def test_the_stated_size_is_what_the_job_sends_back() -> None:
    job, notes = job_facts_from(Workload.from_dict(_embed(results_gb=100)), None)
    assert job.result_size_gb == 100.0 and not job.results_unpriced and job.data_location == HANGZHOU
    assert "results sent back 100 GB (data.results_gb)" in notes


def test_a_batch_inference_job_that_states_none_is_said_unpriced_not_zero() -> None:
    job, notes = job_facts_from(Workload.from_dict(EMBED), None)
    assert job.results_unpriced and job.result_size_gb == 0.0
    said = [n for n in notes if n.startswith("data.results_gb not given")]
    assert said and "alibaba/cn-hangzhou" in said[0] and "results_gb: 102.4" in said[0], notes


def test_a_service_s_results_are_not_the_batch_jobs() -> None:
    spec = {
        **EMBED,
        "model": {"preset": "llama-8b"},
        "inputs": {"batch_size": 16, "seq_len": 768},
        "precision": "bf16",
        "serving": {"requests_per_s": 5, "prompt_tokens": 512, "output_tokens": 256},
    }
    job, notes = job_facts_from(Workload.from_dict(spec), None)
    assert not job.results_unpriced and job.result_size_gb == 0.0
    assert not any("results_gb" in n for n in notes)


def test_a_training_job_sends_its_weights_back_unless_told_otherwise() -> None:
    profile = ddp_profile("w")
    train = {
        "name": "w",
        "task": "train",
        "model": {"preset": "gpt2"},
        "inputs": {"batch_size": 8, "seq_len": 128},
    }
    job, _ = job_facts_from(Workload.from_dict({**train, "data": {"samples": 1000}}), profile)
    # 1e9 trainable weights × 2 bytes = 2 GB
    assert job.result_size_gb == pytest.approx(2.0) and not job.results_unpriced
    job, _ = job_facts_from(
        Workload.from_dict({**train, "data": {"samples": 1000, "results_gb": 7.5}}), profile
    )
    assert job.result_size_gb == 7.5 and not job.results_unpriced


def _regions() -> list[RegionCosts]:
    return [
        RegionCosts(
            provider="aws",
            region="us-east-2",
            internet_egress=AWS_TIERS,
            inter_region_usd_per_gb=0.02,
            block_storage_usd_per_gb_month=0.08,
        ),
        RegionCosts(
            provider="alibaba",
            region="cn-hangzhou",
            internet_egress=AWS_TIERS,  # not read: these results stay in the region
            inter_region_usd_per_gb=0.1,
            block_storage_usd_per_gb_month=0.08,
        ),
    ]


def _plan(job: JobFacts) -> Plan:
    # Two 1-GPU A100 offers, 8 h of work each: Ohio's at $1/h, Hangzhou's at $2/h.
    rows = [
        offer(instance_type="ohio", region="us-east-2", gpu_count=1, price_usd=1.0, country="US"),
        offer(
            provider="alibaba",
            region="cn-hangzhou",
            instance_type="hangzhou",
            gpu_count=1,
            price_usd=2.0,
            country="CN",
        ),
    ]
    estimate = toy_estimator(peak_gib=10.0)
    return plan_offers(
        OfferTable.from_rows(rows), CostFacts(_regions()), job, estimate, Constraints(max_gpus=1)
    )  # type: ignore[arg-type]


def _unpriced(o: Option) -> bool:
    from gpuplan.plan.options import RESULTS_UNPRICED_FLAG

    return RESULTS_UNPRICED_FLAG in o.flags


def _option(plan: Plan, name: str) -> Option:
    return next(o for o in plan.options if o.instance_type == name)


def _egress_out(o: Option) -> float:
    return next(i.cost_usd for i in o.cost_breakdown.items if i.component == "egress_out")


def test_stated_results_are_priced_out_of_another_region_at_its_egress_rate() -> None:
    job, _ = job_facts_from(Workload.from_dict(_embed(results_gb=100)), None)
    plan = _plan(job)
    # 100 GB out of AWS Ohio to the internet, every GB priced (no free allowance): 100 × $0.09 = $9
    assert _egress_out(_option(plan, "ohio")) == pytest.approx(9.0)
    assert _egress_out(_option(plan, "hangzhou")) == 0.0  # the results stay where the data is
    assert not any(_unpriced(o) for o in plan.options)


def test_results_of_unknown_size_never_let_another_region_win() -> None:
    # 8 h × $1 against 8 h × $2 (plus the same set-up): with nothing to send back, Ohio is cheaper.
    assert [o.instance_type for o in _plan(JobFacts(task="infer", data_location=HANGZHOU)).options] == [
        "ohio",
        "hangzhou",
    ]
    # With results of a size nobody stated, Ohio is cheaper only while they are under ~89 GB
    # ($8 / $0.09): it is ranked after Hangzhou, flagged and named.
    job, _ = job_facts_from(Workload.from_dict(EMBED), None)
    plan = _plan(job)
    assert [o.instance_type for o in plan.options] == ["hangzhou", "ohio"]
    assert _unpriced(_option(plan, "ohio")) and not _unpriced(_option(plan, "hangzhou"))
    said = [n for n in plan.notes if n.startswith("results back: 1 option outside alibaba/cn-hangzhou")]
    assert said and "ohio" in said[0], plan.notes
    assert plan.personas[0].option.instance_type == "hangzhou"  # the budget pick too
    # Ohio's cost before its results is no point on the cost/time front: it would push Hangzhou off.
    assert [o.instance_type for o in plan.pareto] == ["hangzhou"]


def test_with_no_option_in_the_data_s_region_none_is_ranked_apart() -> None:
    # Data in Shanghai, where neither offer is: both would send the results over a priced link.
    job, notes = job_facts_from(Workload.from_dict(_embed(location="alibaba/cn-shanghai")), None)
    plan = _plan(job)
    assert job.results_unpriced and [o.instance_type for o in plan.options] == ["ohio", "hangzhou"]
    assert not any(_unpriced(o) for o in plan.options)
    assert not any(n.startswith("results back:") for n in plan.notes)
    assert any(n.startswith("data.results_gb not given") and "cn-shanghai" in n for n in notes)


def test_the_service_takes_the_results_size_in_a_request_s_workload_and_names_a_bad_one() -> None:
    from gpuplan.web.requests import RefusedValue
    from gpuplan.web.service import read_workload

    w = read_workload(_embed(results_gb=100))
    assert w.data is not None and w.data.results_gb == 100.0
    with pytest.raises(RefusedValue) as info:
        read_workload(_embed(results_gb=-1))
    assert info.value.field == "workload.data.results_gb"


def test_the_batch_inference_example_states_its_results() -> None:
    from gpuplan.workload import load_workload

    w = load_workload(Path(__file__).resolve().parents[2] / "examples" / "bert-embed-titles.yaml")
    job, _ = job_facts_from(w, None)
    # 50 M embeddings × 1,024 values × 2 bytes = 102.4 GB
    assert job.result_size_gb == pytest.approx(50e6 * 1024 * 2 / 1e9) and not job.results_unpriced


def test_a_front_point_without_its_results_back_says_so() -> None:
    # Where every option that fits for certain is outside the data's region, the front is drawn from
    # them: each cost shown there is before the results back, and the text says so.
    from dataclasses import replace

    from gpuplan.report.plan_view import _front

    job, _ = job_facts_from(Workload.from_dict(EMBED), None)
    plan = _plan(job)
    shown = replace(plan, pareto=(_option(plan, "ohio"), _option(plan, "hangzhou")))
    ohio, hangzhou = (str(line) for line in _front(shown)[1:])
    assert "ohio" in ohio and ohio.endswith("(before its results back, not priced)")
    assert "hangzhou" in hangzhou and "results back" not in hangzhou
