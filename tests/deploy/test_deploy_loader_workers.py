"""train.py starts the DataLoader workers per GPU that the plan's time assumes: the workload's
``stack.loader_workers``, else every vCPU of the chosen instance, else (instance unknown) a typical
instance's vCPUs per GPU, the figure the estimate's slow end takes — and its README says so."""

from __future__ import annotations

import json
import py_compile
import re
import sys
from pathlib import Path

import pytest
import yaml
from deploy_helpers import FIXTURES, by_path

from gpuplan.cli import main
from gpuplan.deploy import GenerateOptions, LaunchSpec, generate
from gpuplan.documents.plan import workload_digest
from gpuplan.perf.typical_host import typical_host
from gpuplan.workload import Workload

_VIT = (
    "name: vit\ntask: train\nmodel: {preset: vit-b16}\ninputs: {batch_size: 256, image_size: 224}\n"
    "precision: amp-bf16\noptimizer: adamw\nparallelism: ddp\n"
    "data: {samples: 1281167, epochs: 300, size_gb: 140}\n"
)


def _workers(train_py: str) -> int:
    match = re.search(r"^NUM_WORKERS = (\d+)", train_py, re.M)
    assert match, train_py[:2000]
    return int(match.group(1))


def _plan(tmp_path: Path, workload: str, **recommended: object) -> Path:
    doc = json.loads((FIXTURES / "plan_spot_aws.json").read_text())
    doc["workload"] = Workload.from_dict(yaml.safe_load(workload)).to_dict()
    doc["workload_sha256"] = workload_digest(doc["workload"])
    doc["recommended"] |= {
        "instance_type": "p5en.48xlarge",
        "gpu": "H200-SXM",
        "gpu_count": 8,
        "gpus_per_node": 8,
        "nodes": 1,
        "pricing": "spot",
        **recommended,
    }
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(doc))
    return plan


def test_an_image_job_starts_one_worker_per_vcpu_of_the_instance_as_the_plan_assumes(tmp_path: Path) -> None:
    spec = LaunchSpec.from_plan_json(_plan(tmp_path, _VIT)).with_host(192, 2048)
    files = by_path(generate(spec, "torchrun"))
    # p5en.48xlarge: 192 vCPUs / 8 GPUs = 24 workers per GPU (perf.input_pipeline: one per vCPU)
    assert _workers(files["train.py"]) == 24
    assert "default=NUM_WORKERS" in files["train.py"]
    assert "192 vCPUs / 8 GPUs" in files["train.py"]
    assert "The plan's time assumes 24 DataLoader workers per GPU" in files["README.md"]
    (tmp_path / "train.py").write_text(files["train.py"])
    py_compile.compile(str(tmp_path / "train.py"), doraise=True)


def test_the_workloads_loader_workers_are_the_default(tmp_path: Path) -> None:
    plan = _plan(tmp_path, _VIT + "stack: {loader_workers: 4}\n")
    spec = LaunchSpec.from_plan_json(plan).with_host(192, 2048)
    files = by_path(generate(spec, "skypilot", GenerateOptions(out_dir=str(tmp_path / "o"))))
    assert _workers(files["train.py"]) == 4
    assert "4 DataLoader workers per GPU (the workload's stack.loader_workers)" in files["README.md"]


def test_an_unknown_instance_takes_the_typical_hosts_vcpus_per_gpu_and_says_so(tmp_path: Path) -> None:
    job = tmp_path / "vit.yaml"
    job.write_text(_VIT)
    spec = LaunchSpec.from_workload(job, gpu="RTX-A6000", count=4)
    typical = typical_host("RTX-A6000", 4)
    assert typical is not None and typical.vcpus_per_gpu >= 2
    files = by_path(generate(spec, "torchrun"))
    assert _workers(files["train.py"]) == int(typical.vcpus_per_gpu)
    assert "The instance's vCPUs are not known here" in files["README.md"]


def test_a_text_job_keeps_two_workers_and_its_readme_says_the_plan_counts_none(tmp_path: Path) -> None:
    spec = LaunchSpec.from_plan_json(FIXTURES / "plan_spot_aws.json").with_host(96, 1152)
    files = by_path(generate(spec, "torchrun"))
    assert _workers(files["train.py"]) == 2
    assert "The plan's time assumes" not in files["README.md"]
    assert "the plan's time counts none for a job that decodes no images" in files["README.md"]


def test_deploy_of_a_plan_reads_the_instances_vcpus_from_the_catalog_for_every_target(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # g5.2xlarge: 8 vCPUs and 1 A10G, where a typical A10G instance has 16 vCPUs per GPU
    plan = _plan(tmp_path, _VIT, instance_type="g5.2xlarge", gpu="A10G", gpu_count=1, gpus_per_node=1)
    out = tmp_path / "o"
    monkeypatch.setattr(sys, "argv", ["gpuplan", "deploy", str(plan), "-t", "skypilot", "-o", str(out)])
    with pytest.raises(SystemExit) as e:
        main()
    assert e.value.code in (0, None), capsys.readouterr().err
    assert _workers((out / "train.py").read_text()) == 8


def test_the_torchrun_readmes_troubleshooting_covers_the_data_loader(tmp_path: Path) -> None:
    spec = LaunchSpec.from_plan_json(_plan(tmp_path, _VIT)).with_host(192, 2048)
    readme = by_path(generate(spec, "torchrun"))["README.md"]
    loader = readme[readme.index("If the GPUs wait for their data") :]
    assert "(24 per GPU by default, what the plan's time assumes)" in loader
    assert "`nproc`" in loader and "`nvidia-smi dmon -s u`" in loader and "`py-spy dump --pid PID`" in loader
    assert "https://docs.pytorch.org/docs/stable/data.html" in loader  # the source of what num_workers is
    # it sits beside the NCCL paragraph, under the same trouble
    assert readme.index("If it hangs or is slow across GPUs") < readme.index(
        "If the GPUs wait for their data"
    )


def test_without_an_instance_the_troubleshooting_says_the_workers_are_a_typical_hosts(tmp_path: Path) -> None:
    job = tmp_path / "vit.yaml"
    job.write_text(_VIT)
    readme = by_path(generate(LaunchSpec.from_workload(job, gpu="RTX-A6000", count=4), "torchrun"))[
        "README.md"
    ]
    assert "a typical instance's vCPUs per GPU: give your machine's" in readme


def test_a_workload_deployed_without_a_plan_speaks_of_the_estimate_not_a_plan(tmp_path: Path) -> None:
    job = tmp_path / "vit.yaml"
    job.write_text(_VIT)
    spec = LaunchSpec.from_workload(
        job, gpu="H200-SXM", count=8, provider="aws", instance_type="p5en.48xlarge"
    )
    files = by_path(generate(spec.with_host(192, 2048), "torchrun"))
    assert "gpuplan's estimate of this job assumes 24 DataLoader workers per GPU" in files["README.md"]
    assert "gpuplan's estimate of this job assumes every vCPU of p5en.48xlarge" in files["train.py"]
    for text in (files["README.md"], files["launch.sh"], files["train.py"]):
        for planned in ("plan's time", "the plan priced", "the plan assumed", "the plan's run", "plan's 187"):
            assert planned not in text, text
