"""tco and plan on one rule for stale prices and for a service on spot: allowing spot never raises
the year's total, a service runs where its plan recommends, and tco's --stale-days and --budget."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from gpuplan.catalog import Store, open_store
from gpuplan.commit import load_usage, tco
from gpuplan.commit.model import Demand
from one_line import answered, refused

#: The chat service of a user's year (a fine-tuned Llama 3.1 8B on vLLM), as its workload file gives it.
_CHAT = """\
name: chat-8b
task: infer
model: {preset: llama-8b}
inputs: {batch_size: 32, seq_len: 2048}
precision: bf16
serving:
  requests_per_s: 12
  mean_requests_per_s: 3
  prompt_tokens: 1200
  output_tokens: 300
  p95_latency_ms: 15000
  ttft_p95_ms: 1500
  tpot_p95_ms: 60
  engine: "vllm==0.11.0"
  users_in: [US]
  min_replicas: 1
  max_replicas: 12
constraints:
  providers: [aws, gcp]
  countries: [US]
  pricing: [on_demand, reserved_1y, spot]
"""

_PLACES = {"providers": ["aws", "gcp"], "countries": ["US"]}


@pytest.fixture(scope="module")
def chat_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("chat")
    (folder / "chat8b.yaml").write_text(_CHAT)
    return folder


@pytest.fixture(scope="module")
def store(seeded_copy: Callable[[str], Path]) -> Iterator[Store]:
    st = open_store(str(seeded_copy("tco-spot")))
    yield st
    st.close()


def _year(folder: Path, pricing: list[str], **demand: object) -> object:
    return load_usage(
        {
            "horizon_months": 12,
            "base_dir": str(folder),
            "demands": [{"name": "chat-8b", "workload": "chat8b.yaml", "runs_per_month": 1, **demand}],
            "constraints": {**_PLACES, "pricing": pricing},
        }
    )


def test_allowing_spot_never_raises_the_years_total(chat_dir: Path, store: Store) -> None:
    # was: without spot, the service was sized on its planner's cheapest option, 2 H100 on an
    # on-demand price of unknown age (aws p5.4xlarge), and the year cost $647,306; allowed spot, its
    # cheapest was a stale spot price, so it was sized on the best among prices known to be current
    # (8 A100 40GB on p4d.24xlarge), the undated on-demand price dropped too: $754,467. One rule
    # now, whatever the pricing allowed: sized on prices known to be current.
    firm = tco(_year(chat_dir, ["on_demand", "reserved_1y"], interruptible=False), store=store)
    with_spot = tco(_year(chat_dir, ["on_demand", "reserved_1y", "spot"], interruptible=True), store=store)
    assert with_spot.schedule.total_usd <= firm.schedule.total_usd + 0.01
    # and both sized by the same rule: neither on a price not known to be current where the plan
    # has an option on current ones
    for report in (firm, with_spot):
        (source,) = report.demands
        if source.held_out is not None:
            assert "among prices known to be current" in source.how


def test_sizing_holds_out_a_stale_on_demand_price_as_it_holds_out_a_stale_spot_one() -> None:
    # was: only a stale spot or commitment price sent the sizing to the plan's best current option;
    # an undated on-demand one sized the demand, so the same file sized differently with spot allowed
    from types import SimpleNamespace

    from gpuplan.commit.adapters import _sizing_option

    stale_on_demand = SimpleNamespace(pricing="on_demand", label="aws/us-east-1 2× p5.4xlarge on_demand")
    current = SimpleNamespace(pricing="on_demand", label="aws/us-east-1 p4d.24xlarge on_demand")
    planned = SimpleNamespace(
        recommended=stale_on_demand, without_stale_prices=SimpleNamespace(option=current)
    )
    assert _sizing_option(planned) == (current, stale_on_demand)  # type: ignore[arg-type]
    fresh = SimpleNamespace(recommended=current, without_stale_prices=None)
    assert _sizing_option(fresh) == (current, None)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def current_store(seeded_copy: Callable[[str], Path]) -> Iterator[Store]:
    """Every price taken to be current (a 20-year limit), so that plan recommends spot on its own."""
    st = open_store(str(seeded_copy("tco-spot-current")), stale_after_days=7300)
    yield st
    st.close()


def test_plan_and_tco_put_the_service_on_the_same_pricing(chat_dir: Path, current_store: Store) -> None:
    # was: plan recommended spot for the service (a spare instance priced in) while tco, on the same
    # allowed pricing, kept it on demand: "not interruptible, so not run on spot".
    from gpuplan.plan import plan_workload
    from gpuplan.profile import profile as trace_profile
    from gpuplan.workload.spec import load_workload

    pricing = ["on_demand", "reserved_1y", "spot"]
    workload = load_workload(chat_dir / "chat8b.yaml")
    prof = trace_profile(workload, current_store.local)
    overrides = {**_PLACES, "pricing": tuple(pricing), "commitment": "1y"}
    planned = plan_workload(workload, prof, current_store, overrides=overrides, top=1).recommended
    report = tco(_year(chat_dir, pricing), store=current_store)
    (demand,) = report.problem.demands
    bought = {key.split("/")[1] for key in report.schedule.hourly_bought if key.endswith("/chat-8b")}
    bought |= {c.offer.pricing for c in report.schedule.commitments}
    assert bought == {planned.pricing}
    if planned.pricing == "spot":
        # priced as the plan prices a service on spot: a spare unit beside its fleet
        assert demand.interruptible and demand.spare_replica_gpus >= 1
        assert report.schedule.spot_overhead["chat-8b"] > 1.0
        assert planned.spot is not None and planned.spot.service is not None
        assert planned.spot.service.spare_instances >= 1
    # interruptible: false keeps it off spot, said
    firm = tco(_year(chat_dir, pricing, interruptible=False), store=current_store)
    assert not any("/spot/" in key for key in firm.schedule.hourly_bought)
    assert "chat-8b: not run on spot although the usage allows it: interruptible: false in the usage" in (
        firm.notes
    )


#: A weekly LoRA fine-tune that checkpoints every 30 minutes and keeps 3 (its workload file).
_FINETUNE = """\
name: weekly-finetune
task: finetune
model:
  preset: llama-8b
  lora: {rank: 16, targets: [q, k, v, o]}
inputs: {batch_size: 4, seq_len: 2048}
precision: bf16
optimizer: adamw
gradient_checkpointing: true
parallelism: ddp
data: {tokens: 50000000, epochs: 1, size_gb: 0.2, location: aws/us-east-1}
checkpoint: {every_min: 30, keep: 3}
constraints:
  deadline: 1d
"""

#: A nightly batch inference job (no serving block): it resumes on spot by its output chunks.
_BATCH = """\
name: nightly-batch
task: infer
model: {preset: llama-8b}
inputs: {batch_size: 64, seq_len: 1024, output_tokens: 256}
precision: bf16
data: {samples: 500000, size_gb: 2, location: aws/us-east-1, results_gb: 1}
constraints:
  deadline: 6h
"""

_JOB_PRICING = ["on_demand", "spot"]


@pytest.fixture(scope="module")
def jobs_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("jobs")
    (folder / "finetune.yaml").write_text(_FINETUNE)
    (folder / "batch.yaml").write_text(_BATCH)
    return folder


def _jobs_year(folder: Path, *demands: dict[str, object]) -> object:
    return load_usage(
        {
            "horizon_months": 12,
            "base_dir": str(folder),
            "demands": list(demands),
            "constraints": {**_PLACES, "pricing": _JOB_PRICING},
        }
    )


def _firm_said(notes: Sequence[str]) -> list[str]:
    return [n for n in notes if "not run on spot although the usage allows it" in n]


@pytest.mark.parametrize(
    ("file", "name"), [("finetune.yaml", "weekly-finetune"), ("batch.yaml", "nightly-batch")]
)
def test_a_job_that_resumes_runs_on_spot_as_its_plan_prices_it(
    jobs_dir: Path, current_store: Store, file: str, name: str
) -> None:
    # was: tco kept a fine-tune that checkpoints every 30 min, and batch inference that resumes by its
    # output chunks, on demand ("not interruptible … a job not said to checkpoint and resume") while
    # plan of the same file recommended spot: the year priced at ~4× the plan's runs.
    from gpuplan.plan import plan_workload
    from gpuplan.profile import profile as trace_profile
    from gpuplan.workload.spec import load_workload

    workload = load_workload(jobs_dir / file)
    prof = trace_profile(workload, current_store.local)
    overrides = {**_PLACES, "pricing": tuple(_JOB_PRICING)}
    planned = plan_workload(workload, prof, current_store, overrides=overrides, top=1).recommended
    assert planned.pricing == "spot"
    report = tco(
        _jobs_year(jobs_dir, {"name": name, "workload": file, "runs_per_month": 4}), store=current_store
    )
    (demand,) = report.problem.demands
    assert demand.interruptible
    (key,) = [k for k in report.schedule.hourly_bought if k.endswith(f"/{name}")]
    bought = report.schedule.hourly_used[key]
    assert (bought.provider, bought.region, bought.instance_type, bought.pricing) == (
        planned.provider,
        planned.region,
        planned.instance_type,
        "spot",
    )
    # a run's GPU time on spot, its reclaims' overhead included, is the plan's (compute and spot
    # overhead; storage and transfers are the run's data costs, counted apart)
    per_run = (
        demand.gpu_hours_per_run
        * bought.usd_per_unit_hour
        / bought.gpus_per_unit
        * report.schedule.hourly_packing[key]
        * report.schedule.spot_overhead[name]
    )
    plan_gpu = planned.cost_breakdown.compute_usd + planned.cost_breakdown.spot_overhead_usd
    assert per_run == pytest.approx(plan_gpu, rel=0.01)
    assert _firm_said(report.notes) == []


def test_interruptible_false_keeps_a_checkpointing_job_off_spot_and_says_so(
    jobs_dir: Path, current_store: Store
) -> None:
    year = _jobs_year(
        jobs_dir,
        {"name": "weekly-finetune", "workload": "finetune.yaml", "runs_per_month": 4, "interruptible": False},
        # a fine-tune whose demand says it has no checkpoint starts over after a reclaim
        {"name": "no-state", "workload": "finetune.yaml", "runs_per_month": 4, "checkpoint_gb": 0},
    )
    report = tco(year, store=current_store)
    assert not any(d.interruptible for d in report.problem.demands)
    assert not any("/spot/" in key for key in report.schedule.hourly_bought)
    # the true reason for each; never that a job with a checkpoint does not checkpoint
    assert _firm_said(report.notes) == [
        "weekly-finetune: not run on spot although the usage allows it: interruptible: false in the usage",
        "no-state: not run on spot although the usage allows it: no checkpoint, so a reclaim would restart a "
        "run from its beginning; interruptible: true runs it there all the same",
    ]


def _two_replicas(**more: object) -> Demand:
    """A service of 2 one-GPU replicas all month, on spot with its spare."""
    return Demand(
        name="s",
        gpu="H100-SXM",
        gpu_hours=(1460.0,),
        interruptible=True,
        spare_replica_gpus=1,
        run_hours=730.0,
        gpus_per_run=2.0,
        gpu_hours_per_run=1460.0,
        **more,  # type: ignore[arg-type]
    )


def test_a_services_spare_on_spot_is_one_replicas_instances_beside_its_fleet() -> None:
    from gpuplan.commit.model import PricedOffer
    from gpuplan.commit.recourse import spot_overhead

    # 2 one-GPU replicas all month on 1-GPU instances: 3 paid for 2 used
    service = _two_replicas()
    one_gpu = PricedOffer(
        provider="gcp",
        region="us-east4",
        instance_type="a3-highgpu-1g",
        gpu="H100-SXM",
        gpus_per_unit=1.0,
        pricing="spot",
        usd_per_unit_hour=2.0,
        interruptions_per_hour=0.01,
    )
    assert spot_overhead(service, one_gpu) == pytest.approx(1.5)


def test_a_services_spare_adds_its_disks_and_licences_but_not_a_second_bucket() -> None:
    # was: the spare's overhead factor multiplied the whole of the run's storage, the one bucket the
    # fleet shares included, though the spare adds instances (each with its launch disk and its
    # licence fees), not a bucket; a job's overhead (a longer run) still holds its bucket longer
    from gpuplan.commit.model import RunData

    data = RunData(
        provider="gcp",
        region="us-east4",
        transfer_usd=6.0,
        storage_usd=30.0,  # $20 of launch disks, and the $10 bucket
        bucket_usd=10.0,
        licence_usd=4.0,
    )
    rate = _two_replicas(run_data=(data,)).data_usd_per_gpu_hour("gcp", "us-east4", overhead=1.5)
    assert rate == pytest.approx((6.0 + (20.0 + 4.0) * 1.5 + 10.0) / 1460.0)
    job = Demand(name="j", gpu="H100-SXM", gpu_hours=(1460.0,), gpu_hours_per_run=1460.0, run_data=(data,))
    assert job.data_usd_per_gpu_hour("gcp", "us-east4", overhead=1.5) == pytest.approx(
        (6.0 + (30.0 + 4.0) * 1.5) / 1460.0
    )


def test_a_runs_bucket_is_its_part_of_the_storage(tmp_path: Path, store: Store) -> None:
    # the one bucket of a workload kept in object storage, by its bytes for the run's hours, beside
    # each instance's launch disk for the hours the instances run
    from gpuplan.commit.adapters import _run_data
    from gpuplan.plan.build_inputs import cost_facts_from_store
    from gpuplan.plan.input_types import JobFacts

    job = JobFacts(weights_gb=16.0, dataset_gb=100.0, storage_kind="object")  # type: ignore[call-arg]
    runs = _run_data(store, _year(tmp_path, ["spot"]), "L40S", job, nodes=3, run_h=730.0, instance_h=1500.0)  # type: ignore[arg-type]
    assert runs and job.bucket_gb > 0
    for r in runs[:3]:
        c = cost_facts_from_store(store, [(r.provider, r.region)]).charges(r.provider, r.region, job)
        assert r.bucket_usd == pytest.approx(job.bucket_gb * c.storage_usd_per_gb_hour * 730.0)
        assert r.storage_usd == pytest.approx(
            job.launch_disk_gb * c.disk_usd_per_gb_hour * 1500.0 + r.bucket_usd
        )


_DIRECT = "horizon_months: 12\ndemands: [{name: a, gpu: A100-SXM4-40GB, gpus: 8, hours_per_month: 730}]\n"


@pytest.fixture(scope="module")
def db(seeded_copy: Callable[[str], Path]) -> Path:
    return seeded_copy("tco-options")


def test_tco_takes_stale_days_as_offers_does(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    usage = tmp_path / "u.yaml"
    usage.write_text(_DIRECT)
    doc = json.loads(answered(["--db", str(db), "tco", str(usage), "--json", "--stale-days", "7300"], capsys))
    assert doc["stale_after_days"] == 7300
    # every price within 20 years is current: no stale price in the total, none held out beside it
    assert doc["stale_prices_in_total"] == 0 and doc["with_stale_prices"] is None
    assert (
        json.loads(answered(["--db", str(db), "tco", str(usage), "--json"], capsys))["stale_after_days"]
        == 180
    )
    said = refused(["--db", str(db), "tco", str(usage), "--stale-days", "-1"], capsys, code=2)
    assert "--stale-days" in said


def test_tco_says_the_total_against_a_budget(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    usage = tmp_path / "u.yaml"
    usage.write_text(_DIRECT)
    base = ["--db", str(db), "tco", str(usage)]
    doc = json.loads(answered([*base, "--json", "--budget", "$50k"], capsys))
    total = doc["total_cost_usd"]
    assert total > 50_000
    assert doc["against_budget_usd"] == {
        "budget_usd": 50_000.0,
        "budget_cny": None,  # given in dollars
        "within": False,
        "over_usd": pytest.approx(total - 50_000, abs=0.01),
        "left_usd": 0.0,
        "total_to_budget": pytest.approx(total / 50_000, abs=1e-4),
        "within_without_spot": None,  # nothing bought on spot: no total without it
    }
    assert doc["spot_fallbacks"] == [] and doc["total_without_spot_usd"] is None
    text = answered([*base, "--budget", "$50k"], capsys)
    assert "Budget $50,000: the total is over it by" in text
    within = json.loads(answered([*base, "--json", "--budget", "10m"], capsys))["against_budget_usd"]
    assert within["within"] and within["left_usd"] == pytest.approx(10e6 - total, abs=0.01)
    assert "the total is within it, leaving" in answered([*base, "--budget", "10m"], capsys)
    # in yuan, at the catalog's rate, and said in Chinese
    zh = answered([*base, "--budget", "¥35万", "--lang", "zh"], capsys)
    assert "预算" in zh and "Budget" not in zh
    # full-width brackets in Chinese (it had read "$50,104 (¥350,000 …"), and shown in yuan, the
    # yuan figure said once (it had read "预算 ¥350,000 (¥350,000 按人民币…")
    assert "（¥350,000 按人民币（CNY）理解，汇率 1 USD = " in zh
    in_yuan = " ".join(
        answered([*base, "--budget", "¥35万", "--lang", "zh", "--currency", "CNY"], capsys).split()
    )
    assert "预算 ¥350,000（按人民币（CNY）理解，汇率 1 USD = " in in_yuan, in_yuan
    # said as read as yuan, at which rate, of which date and age: ¥ is the yen's sign too (a yen
    # budget had been taken for yuan without a word)
    yuan = json.loads(answered([*base, "--json", "--budget", "¥35万"], capsys))
    rate = yuan["exchange_rate"]
    assert yuan["against_budget_usd"]["budget_cny"] == 350_000.0
    assert yuan["against_budget_usd"]["budget_usd"] == pytest.approx(350_000 * rate["usd_per_unit"], abs=0.01)
    text = " ".join(answered([*base, "--budget", "¥35万"], capsys).split())  # as read, not as wrapped
    said = re.search(
        r"Budget \$[\d,]+ \(¥350,000 read as yuan \(CNY\) at ([\d.]+) CNY per USD, (\S+), (\d+) days? old\)",
        text,
    )
    assert said is not None, text
    assert float(said[1]) == pytest.approx(1 / rate["usd_per_unit"], abs=1e-4) and said[2] == rate["as_of"]
    assert json.loads(answered([*base, "--json"], capsys))["against_budget_usd"] is None
    assert "--budget" in refused([*base, "--budget", "lots"], capsys, code=2)


#: A daily ranker retrain in Hangzhou, BERT-base on 8 GPUs, data kept in mainland China, where every
#: price the catalog has (Alibaba Cloud's, Tencent Cloud's) is undated or years old.
_RANKER = {
    "name": "rec-ranker-daily",
    "task": "finetune",
    "model": {"preset": "bert-base"},
    "inputs": {"batch_size": 64, "seq_len": 256},
    "precision": "amp-fp16",
    "optimizer": "adamw",
    "parallelism": "ddp",
    "data": {"samples": 20_000_000, "epochs": 1, "size_gb": 40, "location": "alibaba/cn-hangzhou"},
    "constraints": {"deadline": "6h", "countries": ["CN"], "min_gpus": 8, "max_gpus": 8},
}
_RANKER_PRICING = ["on_demand", "spot", "monthly"]


def test_plan_and_tco_rest_on_the_same_price_when_every_price_is_stale(tmp_path: Path, store: Store) -> None:
    # was: plan recommended alibaba/cn-hangzhou ecs.gn6e-c12g1.24xlarge on spot (undated, ¥6.13 a
    # GPU-hour) while tco, sized on that option, bought its hours on demand at the same row's equally
    # undated ¥19.75: the year's headline ¥628,087 instead of ¥481,674.
    from gpuplan.plan import plan_workload
    from gpuplan.profile import profile as trace_profile
    from gpuplan.workload.spec import load_workload

    (tmp_path / "ranker.yaml").write_text(json.dumps(_RANKER))
    workload = load_workload(tmp_path / "ranker.yaml")
    prof = trace_profile(workload, store.local)
    planned = plan_workload(workload, prof, store, overrides={"pricing": tuple(_RANKER_PRICING)}, top=1)
    best = planned.recommended
    assert best.stale and (
        planned.without_stale_prices is None or planned.without_stale_prices.option is None
    )
    usage = load_usage(
        {
            "horizon_months": 12,
            "base_dir": str(tmp_path),
            "demands": [
                {"name": "ranker", "workload": "ranker.yaml", "runs_per_month": 30, "interruptible": True}
            ],
            "constraints": {"countries": ["CN"], "pricing": _RANKER_PRICING},
        }
    )
    report = tco(usage, store=store)
    assert best.gpu in report.without_current_price
    (key,) = [k for k in report.schedule.hourly_bought if k.endswith("/ranker")]
    bought = report.schedule.hourly_used[key]
    assert (bought.provider, bought.region, bought.instance_type, bought.pricing) == (
        best.provider,
        best.region,
        best.instance_type,
        best.pricing,
    )
    assert bought.usd_per_unit_hour == pytest.approx(best.price_usd_per_hour, rel=1e-6)
    # the headline says the total on prices known to be current is unknown, not a figure
    from gpuplan.report.tco import summary_lines

    assert "on prices known to be current: unknown (none for" in summary_lines(report)[0]
    # the yuan prices' rate is said as the footer says it (1 USD = 6.9858 CNY, its source in the
    # reader's words): it had read "at 0.143148 USD each", the source's English inside Chinese
    rate = store.find_exchange_rate("CNY")
    assert rate is not None
    (note,) = [n for n in report.notes if n.startswith("prices in CNY converted to USD")]
    assert note.startswith(f"prices in CNY converted to USD at 1 USD = {1 / rate.usd_per_unit:.4f} CNY (")
    from gpuplan.i18n import use_language

    with use_language("zh"):
        zh = tco(usage, store=store)
    (note,) = [n for n in zh.notes if n.startswith("CNY 价格按")]
    assert "中国外汇交易中心" in note and "central parity" not in note


def test_the_on_demand_fallback_is_not_planned_where_the_gpu_has_an_on_demand_price(
    chat_dir: Path, current_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    # was: a demand sized on spot was planned a second time, on demand only, whatever the schedule
    # bought; the fallback reads that plan only where the schedule buys spot of a GPU type with no
    # on-demand price where the demand may run
    import importlib

    plans = importlib.import_module("gpuplan.plan")  # the package: gpuplan.plan is also a function
    calls: list[object] = []
    planner = plans.plan_workload

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(kwargs.get("overrides"))
        return planner(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(plans, "plan_workload", counted)
    report = tco(_year(chat_dir, ["on_demand", "reserved_1y", "spot"]), store=current_store)
    (fallback,) = report.schedule.spot_fallbacks
    assert fallback.same_gpu and fallback.usd is not None
    assert len(calls) == 1  # the sizing only
