"""Each node's launch disk holds what the plan priced on it: the dataset and the checkpoints, with
room for the OS and the image (a fixed 256 GB disk had been asked for a plan that priced 1,235 GB),
and the README says the launch copies no data."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from deploy_helpers import by_path, plan_doc, serve_workload, validate_skypilot_task

from gpuplan.cli import main
from gpuplan.deploy import GenerateOptions, LaunchSpec, generate
from gpuplan.deploy.k8s.storage import FETCH_IMAGES
from gpuplan.deploy.spec import DEFAULT_DISK_GB, MAX_DISK_GB, launch_disk_gb, weights_disk_gb
from gpuplan.errors import DeployError
from service_plans import llama1b_two_to_a_node

#: SkyPilot's task names its folder by absolute path
OPTIONS = GenerateOptions(out_dir="/srv/launch")


def test_the_launch_disk_is_sized_from_the_plans_disk() -> None:
    # 1,200 GB of dataset + 2 × 17.27 GB of checkpoints = 1,234.54 GB; × 1.15 filesystem headroom
    # + 64 GB for the OS and the image = 1,483.7 GB, up to a whole 64 GB: 1,536
    assert launch_disk_gb(1234.54) == 1536
    # a small job keeps the default disk as its floor
    assert launch_disk_gb(10.0) == DEFAULT_DISK_GB == 256
    spec = LaunchSpec.from_plan({**plan_doc(), "disk_gb": 1234.54})
    assert spec.disk_size_gb == 1536 and spec.planned_disk_gb == 1234.54
    task = yaml.safe_load(by_path(generate(spec, "skypilot", OPTIONS))["task.yaml"])
    assert task["resources"]["disk_size"] == 1536


def test_a_plan_without_its_disk_keeps_the_default_and_says_nothing_of_a_copy() -> None:
    spec = LaunchSpec.from_plan(plan_doc())
    assert spec.disk_size_gb == DEFAULT_DISK_GB and spec.planned_disk_gb is None
    assert "copy no data" not in by_path(generate(spec, "skypilot", OPTIONS))["README.md"]


def test_the_readme_says_the_launch_copies_no_data_and_where_to_put_it() -> None:
    spec = LaunchSpec.from_plan({**plan_doc(), "disk_gb": 1234.54})
    # SkyPilot fetches data kept in S3 itself, k8s into a pod volume (tests below)
    for target in ("torchrun",):
        readme = " ".join(by_path(generate(spec, target, OPTIONS))["README.md"].split())
        assert "The plan priced 1,235 GB on each node's disk" in readme, target
        assert "each node needs a 1,536 GB disk" in readme, target
        assert (
            "These files copy no data: before training starts, copy your dataset onto every node's disk"
            in readme
        )
    # a pod's own filesystem is no node's disk: Kubernetes gives the pod a volume for the dataset and
    # fills it (test_deploy_k8s_volumes.py)
    readme = " ".join(by_path(generate(spec, "k8s", OPTIONS))["README.md"].split())
    assert "onto every node's disk" not in readme and "disk_size" not in readme
    assert re.search(r"Each training pod gets a [0-9,]+ GiB volume at /data", readme), readme[:400]


#: Llama-3.1-405B in bf16, as the plan counts one replica's weights (405 B parameters × 2 bytes).
WEIGHTS_405B_GB = 810.0


def _engine_task(spec: LaunchSpec) -> tuple[dict[str, Any], str]:
    files = by_path(generate(spec, "skypilot", OPTIONS))
    task = yaml.safe_load(files["task.yaml"])
    validate_skypilot_task(task)
    return task, " ".join(files["README.md"].split())


def test_a_service_from_its_workload_file_gets_a_disk_that_holds_its_weights(tmp_path: Path) -> None:
    # a 405B's 810 GB of weights had been given SkyPilot's default 256 GB disk, and the replica's
    # download filled it before it served: 810 × 1.15 + 64 GB = 995.5 GB, up to a whole 64: 1,024
    workload = serve_workload(tmp_path, model="llama-70b", top="tensor_parallel: 8\n")
    spec = LaunchSpec.from_workload(workload, gpu="H200-SXM", count=8, provider="aws")
    assert spec.disk_size_gb == DEFAULT_DISK_GB
    task, readme = _engine_task(spec.with_weights_gb(WEIGHTS_405B_GB))
    assert "service" in task and task["resources"]["disk_size"] == 1024
    assert "Each replica's disk is 1,024 GB (`disk_size`): the 810.0 GB of weights" in readme
    # a 70B's 141.1 GB need 226.3 GB: the default disk holds them, and stays the floor
    task, readme = _engine_task(spec.with_weights_gb(141.1))
    assert task["resources"]["disk_size"] == DEFAULT_DISK_GB
    assert "Each replica's disk is 256 GB (`disk_size`): the 141.1 GB of weights" in readme


def test_a_service_planned_with_a_bucket_gets_a_disk_for_its_weights_and_keeps_a_larger_plan() -> None:
    # a plan that keeps its storage in a bucket (`plan --storage object`) states no disk: the
    # engine still downloads the weights onto each replica's own disk
    bucket = LaunchSpec.from_plan(llama1b_two_to_a_node(plan_doc()))
    assert bucket.planned_disk_gb is None and bucket.disk_size_gb == DEFAULT_DISK_GB
    task, _ = _engine_task(bucket.with_weights_gb(WEIGHTS_405B_GB))
    assert "service" in task and task["resources"]["disk_size"] == 1024
    # the plan's disk (the weights, and anything else it keeps there) where it is the larger
    planned = LaunchSpec.from_plan({**llama1b_two_to_a_node(plan_doc()), "disk_gb": 1234.54})
    assert planned.with_weights_gb(WEIGHTS_405B_GB).disk_size_gb == 1536
    # weights set again are sized again, not kept at the largest seen
    assert bucket.with_weights_gb(WEIGHTS_405B_GB).with_weights_gb(2.5).disk_size_gb == DEFAULT_DISK_GB


def test_weights_no_launch_disk_holds_are_refused_in_one_line() -> None:
    # 60,000 GB × 1.15 + 64 is beyond the 65,536 GB cap: a capped disk would fill during the download
    assert weights_disk_gb(56_900.0) == MAX_DISK_GB
    with pytest.raises(DeployError) as refused:
        LaunchSpec.from_plan(plan_doc()).with_weights_gb(60_000.0)
    message = str(refused.value)
    assert "\n" not in message
    assert message == (
        "a replica's 60,000 GB of weights need a 69,120 GB disk with room for the OS and the image, "
        "more than the 65,536 GB launch files ask for: serve the model in a smaller precision"
    )


@pytest.mark.parametrize(
    ("model", "gb", "disk", "said"),
    [
        # Meta's checkpoint is bfloat16: vLLM downloads 141.1 GB whatever precision it runs in (the
        # fp32 trace's 282.2 GB had been sized, a disk twice the size)
        ("{preset: llama-70b}", "141.1", 256, "They are counted in bfloat16, as the checkpoint stores them"),
        # a fine-tune of it whose stored dtype is not known: at fp32, said so; 282.2 GB × 1.15 + 64 =
        # 388.5 GB, up to a whole 64: 448
        ("{preset: llama-70b, hub_id: acme/llama-70b-tuned}", "282.2", 448, "is not known here"),
        # the fine-tune's dtype given by the workload (its config.json's torch_dtype): as stored, not
        # at fp32's bound (a 448 GB disk, and twice the download counted in the cold start)
        (
            "{preset: llama-70b, hub_id: acme/llama-70b-tuned, checkpoint_dtype: bf16}",
            "141.1",
            256,
            "They are counted in bfloat16, as the checkpoint stores them",
        ),
    ],
)
def test_a_batch_job_from_its_workload_file_gets_a_disk_that_holds_its_weights(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    model: str,
    gb: str,
    disk: int,
    said: str,
) -> None:
    # a batch job's vLLM downloads the weights as a service's engine does, but only a service's
    # disk was sized from them: Llama-3.1-70B in fp32 (282.2 GB) had SkyPilot's default 256 GB disk
    workload = tmp_path / "batch.yaml"
    workload.write_text(
        f"name: summaries-70b\ntask: infer\nmodel: {model}\n"
        "inputs: {batch_size: 8, seq_len: 1024, output_tokens: 256}\nprecision: fp32\n"
        "data: {samples: 20000, size_gb: 1, results_gb: 1}\n"
    )
    out = tmp_path / "o"
    argv = ["gpuplan", "--db", str(tmp_path / "x.db"), "deploy", str(workload), "-t", "skypilot"]
    monkeypatch.setattr(sys, "argv", [*argv, "-o", str(out), "--gpu", "H100-SXM:8", "--force-fit"])
    with pytest.raises(SystemExit) as e:
        main()
    _, err = capsys.readouterr()
    assert e.value.code in (0, None), err
    task = yaml.safe_load((out / "task.yaml").read_text())
    validate_skypilot_task(task)
    assert "vllm_batch.py" in task["run"] and "service" not in task
    assert task["resources"]["disk_size"] == disk
    readme = " ".join((out / "README.md").read_text().split())
    assert f"Each node's disk is {disk} GB (`disk_size`): the {gb} GB of weights vLLM downloads" in readme
    assert said in readme


def test_a_plans_disk_no_launch_disk_holds_is_refused_in_one_line() -> None:
    # was: capped at 65,536 GB without a word, a disk the dataset's copy would fill
    assert launch_disk_gb(56_900.0) == MAX_DISK_GB
    for refused_by in (
        lambda: launch_disk_gb(60_000.0),
        lambda: LaunchSpec.from_plan({**plan_doc(), "disk_gb": 60_000.0}),
    ):
        with pytest.raises(DeployError) as refused:
            refused_by()
        assert str(refused.value) == (
            "the plan's 60,000 GB on each node's disk (the dataset, the checkpoints it keeps and any model "
            "weights) need a 69,120 GB disk with room for the OS and the image, more than the 65,536 GB "
            "launch files ask for: plan it with its data in a bucket (--storage object)"
        )


@pytest.mark.parametrize(
    ("provider", "region", "command"),
    [
        ("alibaba", "cn-shanghai", "`ossutil cp -r oss://YOUR-BUCKET/PREFIX/ /data/`"),
        ("tencent", "ap-shanghai", "`coscli sync -r cos://YOUR-BUCKET/PREFIX/ /data/`"),
        ("huawei", "cn-north-4", "`obsutil sync obs://YOUR-BUCKET/PREFIX /data`"),
        ("volcengine", "cn-beijing", "`tosutil cp -r tos://YOUR-BUCKET/PREFIX/ /data/`"),
        ("azure", "eastus", "`azcopy copy 'https://ACCOUNT.blob.core.windows.net/CONTAINER/PREFIX' /data"),
        ("aws", "us-east-1", "`aws s3 sync s3://YOUR-BUCKET/PREFIX /data`"),
        ("gcp", "us-central1", "`gcloud storage rsync -r gs://YOUR-BUCKET/PREFIX /data`"),
    ],
)
def test_the_data_copy_is_said_with_the_plans_own_clouds_storage_command(
    provider: str, region: str, command: str
) -> None:
    # was: an Alibaba plan's README told its user to copy the data with `aws s3 sync s3://…` or
    # `gcloud storage rsync gs://…`, neither of which reads Alibaba's OSS (the data kept in the
    # plan's own region: data kept elsewhere is read with its own provider's tool,
    # test_deploy_dataset_copy.py)
    doc = plan_doc(provider=provider, region=region)
    doc["workload"] = {
        **doc["workload"],
        "data": {**doc["workload"]["data"], "location": f"{provider}/{region}"},
    }
    spec = LaunchSpec.from_plan({**doc, "disk_gb": 1234.54})
    others = {"aws s3 sync", "gcloud storage", "ossutil", "coscli", "obsutil", "tosutil", "azcopy"}
    tool = next(t for t in others if t in command)
    for target in ("torchrun", "k8s", "docker"):
        readme = by_path(generate(spec, target, OPTIONS))["README.md"]
        if target == "k8s" and provider in FETCH_IMAGES:
            # the pod's init container runs the tool itself, on the address the user sets
            assert f"`{FETCH_IMAGES[provider].command}`" in readme and tool in readme
        else:
            assert f"(for example {command}" in readme, target
        assert [t for t in others - {tool} if t in readme] == [], target


def test_a_provider_without_a_known_storage_command_is_given_two_common_ones() -> None:
    # the data on the user's own site (no data.location): copied from wherever it is kept
    doc = plan_doc(provider="runpod", region="US")
    doc["workload"] = {
        **doc["workload"],
        "data": {k: v for k, v in doc["workload"]["data"].items() if k != "location"},
    }
    spec = LaunchSpec.from_plan({**doc, "disk_gb": 1234.54})
    readme = by_path(generate(spec, "torchrun", OPTIONS))["README.md"]
    assert (
        "(for example `aws s3 sync s3://YOUR-BUCKET/PREFIX /data` or "
        "`gcloud storage rsync -r gs://YOUR-BUCKET/PREFIX /data`)" in readme
    )


def test_a_managed_skypilot_job_fetches_the_dataset_from_its_bucket_on_every_start() -> None:
    # was: no file mount of the data and "These files copy no data: … copy your dataset onto every
    # node's disk", which a managed job recovered on a fresh cluster never gets
    doc = {**plan_doc(pricing="spot"), "disk_gb": 1234.54}
    doc["workload"] = {
        **doc["workload"],
        "data": {"samples": 88000, "size_gb": 1000, "location": "aws/us-east-1"},
    }
    files = by_path(generate(LaunchSpec.from_plan(doc), "skypilot", OPTIONS))
    task = yaml.safe_load(files["task.yaml"])
    validate_skypilot_task(task)
    assert task["file_mounts"]["/data"] == {"source": "s3://${DATASET_BUCKET}", "mode": "COPY"}
    assert task["envs"]["DATASET_BUCKET"] is None  # required at launch
    assert task["resources"]["disk_size"] == 1536
    readme = " ".join(files["README.md"].split())
    assert "sky jobs launch task.yaml --env DATASET_BUCKET=YOUR-BUCKET/PREFIX" in readme
    assert "copy no data" not in readme
    assert "a managed job recovered on new nodes included" in readme
    assert "`disk_size` asks for 1,536 GB" in readme
    assert "One node's copy of 1,000 GB takes" in readme and "as the plan bills it at set-up" in readme


def test_data_on_the_users_own_site_is_not_fetched_and_the_readme_says_to_copy_it() -> None:
    doc = {**plan_doc(), "disk_gb": 1234.54}
    doc["workload"] = {**doc["workload"], "data": {"samples": 88000, "size_gb": 1000}}
    task = yaml.safe_load(by_path(generate(LaunchSpec.from_plan(doc), "skypilot", OPTIONS))["task.yaml"])
    assert "/data" not in task["file_mounts"] and "DATASET_BUCKET" not in task.get("envs", {})


def test_a_workload_file_sizes_the_disk_from_its_dataset_as_a_plan_does(tmp_path: Path) -> None:
    # was: disk_size 256 for a 1,000 GB dataset from the workload file, 1280 from the plan
    wl = tmp_path / "w.yaml"
    wl.write_text(
        "name: pre\ntask: train\nmodel: {preset: bert-base}\ninputs: {batch_size: 8, seq_len: 128}\n"
        "data: {samples: 1000, size_gb: 1000, location: aws/us-east-1}\n"
    )
    spec = LaunchSpec.from_workload(wl, gpu="H100-SXM", count=8, provider="aws", region="us-east-1")
    assert spec.disk_size_gb == 1216  # 1,000 GB with 15 % headroom and 64 GB for the OS, in 64 GB steps
    readme = " ".join(by_path(generate(spec, "skypilot", OPTIONS))["README.md"].split())
    assert "`disk_size` asks for 1,216 GB on each node: the 1,000 GB dataset (data.size_gb)" in readme


@pytest.mark.parametrize(
    ("model", "said"),
    [
        ("{preset: llama-8b, hub_id: acme/x, checkpoint_dtype: bf61}", "'float32', 'float16' or 'bfloat16'"),
        ("{preset: llama-8b, checkpoint_dtype: bf16}", "give hub_id with it"),
    ],
)
def test_a_checkpoint_dtype_is_one_of_the_stored_ones_and_comes_with_its_checkpoint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], model: str, said: str
) -> None:
    from one_line import refused

    workload = tmp_path / "w.yaml"
    workload.write_text(f"name: w\ntask: infer\nmodel: {model}\ninputs: {{batch_size: 1, seq_len: 128}}\n")
    assert said in refused(["--db", str(tmp_path / "x.db"), "estimate", str(workload)], capsys)
