"""The dataset's set-up copy at the rate the team measured (``data.copy_gbps``, ``plan --copy-gbps``,
a plan request's ``copy_gbps``): every run had been billed a copy at gp3's 0.131 GB/s baseline (2 TB:
4.2 h, 73 % of an 8-GPU option's cost), with no way to give a measured rate. Each instance copies no
faster than its network where the catalog states one; an unknown network changes nothing."""

from __future__ import annotations

import importlib
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from plan_helpers import aws_costs, offer
from pydantic import ValidationError
from typer.testing import CliRunner

from gpuplan.errors import WorkloadError
from gpuplan.plan import Constraints, CostFacts, EstimateKey, EstimateRow, JobFacts, OfferTable, plan_offers
from gpuplan.plan.build_inputs import job_facts_from
from gpuplan.workload import Workload
from stand_in_profiles import bert_large_profile

BOOT_H = 10 / 60
# 2,000 GB at the assumed 0.131 GB/s: 4.24 h; at a measured 2 GB/s: 0.278 h
ASSUMED_H = 2000 / 0.131 / 3600
MEASURED_H = 2000 / 2.0 / 3600
# a fine-tune of BERT-Large also downloads its 340 M weights (4 bytes each, the checkpoint's dtype not
# known) at the assumed 0.131 GB/s, as a restart reads them back
BERT_BASE_H = 340e6 * 4 / 1e9 / 0.131 / 3600


def _workload(**data: object) -> Workload:
    return Workload.from_dict(
        {
            "name": "copy",
            "task": "train",
            "model": {"preset": "resnet50"},
            "inputs": {"batch_size": 64, "image_size": 224},
            "data": {"samples": 1000, "size_gb": 2000, "location": "alibaba/cn-beijing", **data},
        }
    )


def test_the_measured_rate_times_the_set_up_copy_and_is_said_as_the_users() -> None:
    job, notes = job_facts_from(_workload(copy_gbps=2), None)
    assert job.copy_gbps_stated and job.dataset_copy_gbps == 2.0
    assert job.setup_h == pytest.approx(BOOT_H + MEASURED_H)
    setup = next(n for n in notes if n.startswith("set-up"))
    assert "plus the dataset copied at 2 GB/s, the rate you measured (data.copy_gbps or --copy-gbps)" in setup
    assert "gp3" not in setup
    # checkpoints are still written at the disk's assumed rate: the measured figure is the copy's
    assert job.checkpoint_write_gbps == pytest.approx(0.131)


def test_without_a_rate_the_assumed_figure_is_kept_and_the_note_says_how_to_give_one() -> None:
    job, notes = job_facts_from(_workload(), None)
    assert not job.copy_gbps_stated
    assert job.setup_h == pytest.approx(BOOT_H + ASSUMED_H)
    setup = next(n for n in notes if n.startswith("set-up"))
    assert "plus the dataset copied at 0.131 GB/s, the baseline of AWS's gp3 volume" in setup
    assert "give the rate you measure copying the dataset onto an instance's disk as data.copy_gbps" in setup


def test_the_plans_rate_replaces_the_workloads() -> None:
    w = _workload(copy_gbps=0.5).with_copy_gbps(4.0)
    assert w.data is not None and w.data.copy_gbps == 4.0
    assert w.to_dict()["data"]["copy_gbps"] == 4.0  # the plan's document carries it to deploy
    assert _workload().with_copy_gbps(None).data.copy_gbps is None  # type: ignore[union-attr]


@pytest.mark.parametrize("bad", [0, -1, 2000])
def test_a_rate_out_of_bounds_is_refused_in_one_line(bad: float) -> None:
    with pytest.raises(WorkloadError, match="copy_gbps") as refused:
        _workload(copy_gbps=bad)
    assert "\n" not in str(refused.value)
    with pytest.raises(WorkloadError, match=r"--copy-gbps must be from 0.001 to 1,000 GB/s") as refused:
        _workload().with_copy_gbps(bad)
    assert "\n" not in str(refused.value)


def test_each_instance_copies_no_faster_than_its_network_and_an_unknown_one_changes_nothing() -> None:
    job = JobFacts(
        dataset_gb=2000.0, dataset_copy_gbps=2.0, copy_gbps_stated=True, setup_h=BOOT_H + MEASURED_H
    )
    # 8 Gbit/s = 1 GB/s, slower than the 2 GB/s measured: 2,000 s; 100 Gbit/s and an unknown one: the rate
    hours = job.setup_hours(np.array([1, 1, 1]), np.array([8.0, 100.0, math.nan]))
    assert hours.tolist() == pytest.approx(
        [BOOT_H + 2000 / 1.0 / 3600, BOOT_H + MEASURED_H, BOOT_H + MEASURED_H]
    )
    assert job.setup_hours(np.array([1])).tolist() == pytest.approx([BOOT_H + MEASURED_H])
    # a spot reclaim's copy again is at the same rate
    spot = JobFacts(**{**job.__dict__, "storage_kind": "block"})
    assert spot.recopy_hours(np.array([1, 1]), np.array([8.0, math.nan])).tolist() == pytest.approx(
        [2000 / 3600, MEASURED_H]
    )


def _one_hour(key: EstimateKey) -> EstimateRow:
    return EstimateRow(
        fits=True, job_time_h=1.0, job_time_h_low=1.0, job_time_h_high=1.0, peak_memory_gib=10.0
    )


def test_the_plan_bills_each_options_copy_at_its_own_network() -> None:
    # two offers alike but for their network: the slower one's copy (4 Gbit/s = 0.5 GB/s: 1.11 h)
    # is billed, the other's at the measured 2 GB/s (0.28 h)
    job, _notes = job_facts_from(_workload(copy_gbps=2, location="aws/us-east-1"), None)
    rows = [
        offer(instance_type=name, network_gbps=net, gpu_count=1, price_usd=10.0, min_billing_s=0.0)
        for name, net in (("slow.net", 4.0), ("fast.net", 100.0))
    ]
    plan = plan_offers(
        OfferTable.from_rows(rows),
        CostFacts([aws_costs()]),
        job,
        _one_hour,
        Constraints(max_nodes=1, max_gpus=1),
    )
    by_name = {o.instance_type: o for o in plan.options}
    setup = {
        n: next(i for i in o.cost_breakdown.items if i.component == "setup").cost_usd
        for n, o in by_name.items()
    }
    assert setup["fast.net"] == pytest.approx((BOOT_H + MEASURED_H) * 10.0)
    assert setup["slow.net"] == pytest.approx((BOOT_H + 2000 / 0.5 / 3600) * 10.0)
    assert plan.recommended.instance_type == "fast.net"


#: BERT-Large on a 2,000 GB dataset in us-east-1 (as JSON, which YAML reads)
_JOB = json.dumps(
    {
        "name": "copy-cli",
        "task": "finetune",
        "model": {"preset": "bert-large"},
        "inputs": {"batch_size": 32, "seq_len": 384},
        "precision": "amp-fp16",
        "data": {"samples": 88000, "epochs": 2, "size_gb": 2000, "location": "aws/us-east-1"},
        "constraints": {"providers": ["aws"], "pricing": ["on_demand"]},
    }
)


def _plan_json(tmp_path: Path, *args: str) -> tuple[int, str, dict[str, Any] | None]:
    from gpuplan.cli import app

    job, prof = tmp_path / "job.yaml", tmp_path / "p.json"
    job.write_text(_JOB, encoding="utf-8")
    prof.write_text(bert_large_profile("copy-cli").to_json(), encoding="utf-8")
    argv = ["--db", str(tmp_path / "c.sqlite"), "plan", str(job), "--profile", str(prof), "--json", *args]
    r = CliRunner().invoke(app, argv, env={"COLUMNS": "200"})
    return r.exit_code, r.output, json.loads(r.stdout) if r.exit_code == 0 else None


def test_plan_copy_gbps_shortens_the_set_up_and_the_document_carries_it(tmp_path: Path) -> None:
    code, out, assumed = _plan_json(tmp_path)
    assert code == 0 and assumed is not None, out
    code, out, measured = _plan_json(tmp_path, "--copy-gbps", "2")
    assert code == 0 and measured is not None, out
    assert measured["workload"]["data"]["copy_gbps"] == 2.0
    assert assumed["workload"]["data"].get("copy_gbps") is None

    def setup_h(doc: dict[str, Any]) -> float:
        rec = doc["recommended"]
        item = next(i for i in rec["cost_breakdown"]["items"] if i["component"] == "setup")
        return float(item["cost_usd"]) / float(rec["price_usd_per_hour"]) / float(item["multiplier"])

    assert setup_h(assumed) == pytest.approx(BOOT_H + ASSUMED_H + BERT_BASE_H, rel=1e-3)
    # the recommended instance's stated network is faster than 16 Gbit/s, or not stated
    assert setup_h(measured) == pytest.approx(BOOT_H + MEASURED_H + BERT_BASE_H, rel=1e-3)
    assert any("the rate you measured (data.copy_gbps or --copy-gbps)" in n for n in measured["notes"])


@pytest.mark.parametrize(
    ("bad", "said"),
    [
        ("0", "Input should be greater than or equal to 0.001"),
        ("5000", "Input should be less than or equal to 1000"),
        ("nan", "nan is not a finite number"),
    ],
)
def test_plan_refuses_a_copy_rate_out_of_bounds_in_one_line(tmp_path: Path, bad: str, said: str) -> None:
    code, out, _doc = _plan_json(tmp_path, "--copy-gbps", bad)
    line = " ".join(out.split())
    assert code == 2 and f"Invalid value for '--copy-gbps': {said}" in line and "Traceback" not in out


def test_the_services_plan_request_takes_the_rate_as_the_command_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from gpuplan.web import service
    from gpuplan.web.requests import OPTION_FIELDS, PlanRequest

    assert OPTION_FIELDS["--copy-gbps"] == "copy_gbps"
    workload = _workload().to_dict()
    for bad in (0, 5000):
        with pytest.raises(ValidationError, match="copy_gbps"):
            PlanRequest(workload=workload, copy_gbps=bad)
    seen: dict[str, Any] = {}
    monkeypatch.setattr(service, "_profile", lambda *_a: None)
    monkeypatch.setattr(
        importlib.import_module("gpuplan.plan"), "plan_workload", lambda *_a, **kw: seen.update(kw)
    )
    service._plan(None, PlanRequest(workload=workload, copy_gbps=2.5), _workload(), lambda *_a: None)  # type: ignore[arg-type]
    assert seen["copy_gbps"] == 2.5


def test_a_batch_inference_node_takes_its_shards_part_as_the_launchs_batch_py_reads_only_it() -> None:
    """The batch.py and vllm_batch.py ``gpuplan deploy`` writes cut the inputs' bytes into one range
    a shard and read only their own: a batch inference job's node is priced and timed its 1/N of
    the dataset, set-up and spot re-copy alike, and the dataset pays its transfer in once. They had
    read every line in every shard, and the plan priced a whole copy a node. A training job's node
    still takes it all."""
    batch = JobFacts(task="infer", dataset_gb=2000.0, setup_h=BOOT_H + ASSUMED_H)
    assert batch.resumes_by_chunks and batch.reads_its_shard and not batch.copies_per_node
    nodes = np.array([1, 2, 4])
    assert batch.setup_hours(nodes).tolist() == pytest.approx([BOOT_H + ASSUMED_H / n for n in (1, 2, 4)])
    assert batch.recopy_hours(nodes).tolist() == pytest.approx([ASSUMED_H / n for n in (1, 2, 4)])
    # the site's uplink carries the whole dataset once, in n parts
    uplink = JobFacts(task="infer", dataset_gb=2000.0, setup_h=BOOT_H + 8 * 2000 / 3600, upload_gbps=1.0)
    assert uplink.setup_hours(nodes).tolist() == pytest.approx([BOOT_H + 8 * 2000 / 3600] * 3)
    train = JobFacts(task="train", dataset_gb=2000.0, setup_h=BOOT_H + ASSUMED_H)
    assert train.copies_per_node and not train.reads_its_shard
    assert train.setup_hours(nodes).tolist() == pytest.approx([BOOT_H + ASSUMED_H] * 3)


def test_a_batch_jobs_reclaim_words_say_a_nodes_part_is_copied_again() -> None:
    # The plan's spot note said "each restart copies the 2,000 GB again" of a batch job whose nodes
    # each read (and re-copy) only their part; the figures were already the part's.
    from gpuplan.plan.notes import _recopy_words

    batch = JobFacts(task="infer", dataset_gb=2000.0, setup_h=BOOT_H + ASSUMED_H)
    said = _recopy_words(batch, [])
    assert "each restart copies its node's part of the 2,000 GB again" in said, said
    assert "1/n on each of n" in said and "reads the checkpoint back" not in said
    train = JobFacts(task="train", dataset_gb=2000.0, setup_h=BOOT_H + ASSUMED_H)
    assert "each restart copies the 2,000 GB again" in _recopy_words(train, [])
    assert batch.dataset_gb * float(batch.node_share(np.array([4.0]))[0]) == 500.0
    assert train.dataset_gb * float(train.node_share(np.array([4.0]))[0]) == 2000.0
