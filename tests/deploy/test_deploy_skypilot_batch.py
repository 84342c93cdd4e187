"""Batch inference on SkyPilot: a managed job whose ``run`` starts a batch.py per GPU group on each
node over a bucket, checked against SkyPilot 0.14.1's schemas, and its ``run`` executed by bash
for every node with the environment SkyPilot gives it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from deploy_helpers import FIXTURES, by_path, plan_doc, validate_skypilot_task

from gpuplan.deploy import GenerateOptions, LaunchSpec, generate, write_files
from gpuplan.i18n import use_language

#: Where the launch files go: SkyPilot's workdir names it (an absolute path).
LAUNCH = GenerateOptions(out_dir="/srv/launch", run_id="20261207-0c9969")


def _batch_plan(doc: dict[str, Any] | None = None) -> LaunchSpec:
    """The served Llama plan (4 x g6e.xlarge, one L40S each, $5,440.50) without its serving block,
    of a decoder whose Hub weights are not known: batch.py runs it (a Hub model runs on vLLM, which
    this target refuses)."""
    doc = doc or json.loads((FIXTURES / "plan_serve_llama_aws.json").read_text())
    doc["workload"]["serving"] = None
    return LaunchSpec.from_plan(doc).model_copy(update={"hf_model_id": None})


def _spot_batch_plan() -> LaunchSpec:
    """The spot fixture plan (1 x p4d.24xlarge, 8 A100 on spot, us-east-1) as batch inference."""
    doc = plan_doc()
    doc["workload"] = {**doc["workload"], "task": "infer", "serving": None}
    return LaunchSpec.from_plan(doc)


def _workload(tmp_path: Path, **launch: Any) -> LaunchSpec:
    p = tmp_path / "titles.yaml"
    p.write_text(
        "name: titles\ntask: infer\nmodel: {preset: bert-base}\ninputs: {batch_size: 4, seq_len: 8}\n"
    )
    return LaunchSpec.from_workload(p, **launch)


def _task(spec: LaunchSpec, options: GenerateOptions = LAUNCH) -> dict[str, Any]:
    return yaml.safe_load(by_path(generate(spec, "skypilot", options))["task.yaml"])


def test_a_batch_plan_is_a_managed_job_on_the_plans_nodes_valid_under_skypilots_schemas() -> None:
    task = _task(_batch_plan())
    validate_skypilot_task(task)  # the task, its resources and its bucket (the storage schema)
    r = task["resources"]
    # 4 x g6e.xlarge, one L40S each, on demand in us-east-1, as the plan priced
    assert (r["infra"], r["instance_type"], r["accelerators"], r["use_spot"]) == (
        "aws/us-east-1",
        "g6e.xlarge",
        "L40S:1",
        False,
    )
    assert task["num_nodes"] == 4
    # A failed shard runs again (its chunks kept); batch.py's SIGTERM exit is a recovery, not an error.
    assert r["job_recovery"] == {
        "strategy": "FAILOVER",
        "max_restarts_on_errors": 3,
        "recover_on_exit_codes": [143],
    }
    assert "network_tier" not in r  # the shards never talk to each other
    assert task["envs"]["SHARD_COUNT"] == "4"
    # was "llama8b-chat-service-data": a global name, taken by the first user of the workload
    assert task["envs"]["DATA_BUCKET"] == "llama8b-chat-service-20261207-0c9969-data"
    (mount,) = task["file_mounts"].items()
    assert mount == (
        "/data",
        {"name": "${DATA_BUCKET}", "source": "/srv/launch/data", "mode": "MOUNT", "persistent": True},
    )
    assert {task["envs"][k] for k in ("INPUT_PATH", "OUTPUT_DIR", "CKPT_DIR")} == {
        "/data/inputs",
        "/data/outputs",
        "/data/checkpoints",
    }
    assert task["workdir"] == "/srv/launch"
    files = by_path(generate(_batch_plan(), "skypilot", LAUNCH))
    assert sorted(files) == [
        ".skyignore",
        "README.md",
        "batch.py",
        "preset_model.py",
        "task.yaml",
        "train.py",
    ]
    assert files[".skyignore"].splitlines() == ["/data", "/outputs"]  # the bucket carries the inputs


def test_a_spot_plan_recovers_on_spot_in_its_region() -> None:
    task = _task(_spot_batch_plan())
    validate_skypilot_task(task)
    r = task["resources"]
    assert (r["infra"], r["accelerators"], r["use_spot"]) == ("aws/us-east-1", "A100:8", True)
    assert r["job_recovery"]["strategy"] == "FAILOVER" and task["num_nodes"] == 1
    assert task["envs"]["SHARD_COUNT"] == "8"


def test_a_long_name_still_makes_a_bucket_name_of_63_characters_at_most(tmp_path: Path) -> None:
    spec = _workload(tmp_path, gpu="L4").model_copy(update={"name": "a" * 62 + "b"})
    bucket = _task(spec)["envs"]["DATA_BUCKET"]
    assert bucket == "a" * 42 + "-20261207-0c9969-data" and len(bucket) == 63


def test_a_batch_task_needs_the_absolute_folder_of_its_files() -> None:
    from gpuplan.errors import DeployError

    with pytest.raises(DeployError, match="absolute path of the folder") as e:
        generate(_batch_plan(), "skypilot")
    assert "\n" not in str(e.value)


# ---- the run script, executed by bash for every node --------------------------------------------

#: A python3 that records the environment SkyPilot's run gives each shard, then exits with the
#: status FAIL_<index> names (0 without one).
_STUB = """#!/bin/sh
printf '%s %s %s %s %s\\n' "$JOB_COMPLETION_INDEX" "$SHARD_COUNT" "${CUDA_VISIBLE_DEVICES-all}" \\
  "$INPUT_PATH" "$*" > "$RECORD/shard-$JOB_COMPLETION_INDEX.$SKYPILOT_NODE_RANK"
eval "exit \\${FAIL_$JOB_COMPLETION_INDEX:-0}"
"""


def _run_nodes(
    task: dict[str, Any],
    tmp_path: Path,
    fail: dict[int, int] | None = None,
    stderr: list[str] | None = None,
) -> tuple[list[int], dict[int, tuple[int, str, str, str, str]]]:
    """Each node's exit status, and what each shard was started with: (node, SHARD_COUNT,
    CUDA_VISIBLE_DEVICES, INPUT_PATH, batch.py's arguments) by JOB_COMPLETION_INDEX. A shard
    started twice fails the test. ``stderr``: each node's standard error is added to it."""
    bin_dir, record = tmp_path / "bin", tmp_path / "record"
    bin_dir.mkdir(exist_ok=True)
    record.mkdir(exist_ok=True)
    stub = bin_dir / "python3"
    stub.write_text(_STUB)
    stub.chmod(0o755)
    nodes = task["num_nodes"]
    gpus = int(task["resources"]["accelerators"].split(":")[1])
    codes = []
    for rank in range(nodes):
        env = {
            "PATH": f"{bin_dir}:{os.environ['PATH']}",
            "RECORD": str(record),
            **task["envs"],
            # What SkyPilot sets on every node (sky/skylet/constants.py, 0.14.1)
            "SKYPILOT_NODE_RANK": str(rank),
            "SKYPILOT_NUM_NODES": str(nodes),
            "SKYPILOT_NODE_IPS": "\n".join(f"10.0.0.{n + 1}" for n in range(nodes)),
            "SKYPILOT_NUM_GPUS_PER_NODE": str(gpus),
            **{f"FAIL_{k}": str(v) for k, v in (fail or {}).items()},
        }
        done = subprocess.run(
            ["bash", "-c", task["run"]], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
        )
        codes.append(done.returncode)
        if stderr is not None:
            stderr.append(done.stderr)
    shards: dict[int, tuple[int, str, str, str, str]] = {}
    for f in record.iterdir():
        index, node = (int(x) for x in f.name.removeprefix("shard-").split("."))
        assert index not in shards, f"shard {index} started twice"
        said, count, devices, inputs, args = f.read_text().rstrip("\n").split(" ", 4)
        assert said == str(index)
        shards[index] = (node, count, devices, inputs, args)
    return codes, shards


@pytest.mark.parametrize(("gpus", "nodes", "split"), [(1, 2, 1), (4, 2, 1), (4, 2, 2), (8, 2, 4), (1, 3, 1)])
def test_the_run_starts_every_shard_once_across_nodes_each_on_its_own_gpus(
    gpus: int, nodes: int, split: int, tmp_path: Path
) -> None:
    spec = _workload(tmp_path, gpu="L4", count=gpus, nodes=nodes).model_copy(
        update={"tensor_parallel": split}
    )
    task = _task(spec)
    validate_skypilot_task(task)
    codes, shards = _run_nodes(task, tmp_path)
    assert codes == [0] * nodes
    total = nodes * gpus // split
    per_node = gpus // split
    assert sorted(shards) == list(range(total))  # each index exactly once, over every node
    for index, (node, count, devices, inputs, args) in shards.items():
        assert count == str(total) and inputs == "/data/inputs" and args == "batch.py"
        assert node == index // per_node  # node r runs r x per_node to r x per_node + per_node - 1
        first = index % per_node * split
        # A node of one shard gives it every GPU; else each shard its own group of `split`.
        expected = "all" if per_node == 1 else ",".join(str(first + k) for k in range(split))
        assert devices == expected


def test_a_failing_shard_fails_its_node_after_every_other_shard_has_finished(tmp_path: Path) -> None:
    task = _task(_workload(tmp_path, gpu="L4", count=2, nodes=2))
    # Shard 3 (node 1) fails with 2 (batch.py's bad input); shard 2 beside it is stopped by SIGTERM.
    codes, shards = _run_nodes(task, tmp_path, fail={3: 2, 2: 143})
    assert codes == [0, 2]  # the genuine failure is what the node reports, not the SIGTERM
    assert sorted(shards) == [0, 1, 2, 3]  # every shard ran: a failure stops none of the others


@pytest.mark.parametrize(
    ("lang", "said"),
    [("en", "node 1: a shard exited with status 2"), ("zh", "节点 1：一个分片以状态码 2 退出")],
)
def test_a_failed_shard_is_said_in_the_deploy_s_language(lang: str, said: str, tmp_path: Path) -> None:
    # as launch.sh's messages are: the deploy's language, the node and status filled in by bash
    with use_language(lang):
        task = _task(_workload(tmp_path, gpu="L4", count=2, nodes=2))
    stderr: list[str] = []
    codes, _ = _run_nodes(task, tmp_path, fail={3: 2}, stderr=stderr)
    assert codes == [0, 2]
    assert stderr == ["", said + "\n"]


def test_a_preempted_shard_alone_makes_the_node_exit_143_for_recovery(tmp_path: Path) -> None:
    task = _task(_workload(tmp_path, gpu="L4", count=2, nodes=2))
    codes, _ = _run_nodes(task, tmp_path, fail={0: 143})
    assert codes == [143, 0]
    assert 143 in task["resources"]["job_recovery"]["recover_on_exit_codes"]


def test_the_run_with_the_real_batch_py_writes_every_sample_once_and_resumes(tmp_path: Path) -> None:
    # The run script of 2 nodes x 2 shards, each node's run in turn, with the real batch.py on a
    # CPU: a local folder stands for the bucket every node mounts.
    launch = tmp_path / "launch"
    spec = _workload(tmp_path, gpu="L4", count=2, nodes=2)
    files = generate(spec, "skypilot", GenerateOptions(out_dir=str(launch)))
    write_files(files, launch)
    task = yaml.safe_load(by_path(files)["task.yaml"])
    data = tmp_path / "bucket"
    (data / "inputs").mkdir(parents=True)
    lines = [json.dumps([(3 * i + j) % 100 for j in range(8)]) for i in range(11)]
    (data / "inputs" / "a.jsonl").write_text("\n".join(lines) + "\n")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    # python3 is this interpreter (it has torch), with the tiny stand-in model's arguments, on the
    # CPU on purpose (the run itself passes no --device: on the GPU nodes batch.py needs a GPU).
    tiny = "--width 16 --depth 1 --ckpt-dir none --chunk-size 2 --device cpu"
    (bin_dir / "python3").write_text(f'#!/bin/sh\nexec {sys.executable} "$@" {tiny}\n')
    (bin_dir / "python3").chmod(0o755)

    def run_all() -> list[str]:
        logs = []
        for rank in range(2):
            env = {
                **os.environ,
                **task["envs"],
                "PATH": f"{bin_dir}:{os.environ['PATH']}",
                "OMP_NUM_THREADS": "1",
                "INPUT_PATH": str(data / "inputs"),
                "OUTPUT_DIR": str(data / "outputs"),
                "SKYPILOT_NODE_RANK": str(rank),
            }
            done = subprocess.run(
                ["bash", "-c", task["run"]], cwd=launch, env=env, capture_output=True, text=True, timeout=300
            )
            assert done.returncode == 0, done.stdout + done.stderr
            logs.append(done.stdout)
        return logs

    logs = run_all()
    outputs = [
        json.loads(line)
        for p in sorted((data / "outputs").glob("chunk-*.jsonl"))
        for line in p.read_text().splitlines()
    ]
    # every line once, in input order: each row names its file and the byte offset its line starts at
    starts = [sum(len(x) + 1 for x in lines[:i]) for i in range(11)]
    assert [(o["file"], o["offset"]) for o in outputs] == [("a.jsonl", b) for b in starts]
    assert all(re.search(rf"shard {k}/4\] done", "".join(logs)) for k in range(4))
    # The job run again (a recovery): every chunk is in the bucket already, none is written twice.
    again = "".join(run_all())
    assert "wrote" not in again and again.count("0 chunks written") == 4


def test_the_readme_says_how_to_upload_launch_watch_fetch_and_the_cost() -> None:
    readme = by_path(generate(_batch_plan(), "skypilot", LAUNCH))["README.md"]
    for command in (
        'pip install "skypilot[aws]" && sky check',
        "export DATA_BUCKET=llama8b-chat-service-20261207-0c9969-data",
        "mkdir -p data/inputs && cp inputs.jsonl data/inputs/",
        "sky jobs launch -n llama8b-chat-service task.yaml --env DATA_BUCKET",
        "sky jobs queue",
        "sky jobs logs -n llama8b-chat-service",
        'aws s3 sync "s3://$DATA_BUCKET/outputs" outputs/',
        "cat outputs/chunk-*.jsonl > outputs.jsonl",
        "sky jobs cancel -n llama8b-chat-service",  # bad inputs fail every restart the same way
    ):
        assert command in readme
    assert "$5,440.50 all-in: 730.2 h on 4 x g6e.xlarge" in readme
    assert "4 shard(s) at once, 1 on each node" in readme


def test_without_a_cloud_the_readme_says_where_skypilot_puts_the_bucket(tmp_path: Path) -> None:
    readme = by_path(generate(_workload(tmp_path, gpu="L4"), "skypilot", LAUNCH))["README.md"]
    assert "sky storage ls" in readme and "s3://$DATA_BUCKET" in readme and "gs://$DATA_BUCKET" in readme
    assert 'az storage blob download-batch --account-name "$AZ_ACCOUNT"' in readme  # the third store
    assert "No plan priced this run" in readme


#: A stand-in for the Azure CLI: two storage accounts named sky…, the container in the second only;
#: it writes what download-batch is asked for, and a chunk where the pattern says.
_FAKE_AZ = """#!/usr/bin/env bash
case "$1 $2 $3" in
  "storage account list") echo skyaaaa1111; echo skybbbb2222 ;;
  "storage container exists")
    want="--account-name skybbbb2222 --name $DATA_BUCKET --auth-mode login"
    if [[ "$*" == *"$want"* ]]; then echo true; else echo false; fi ;;
  "storage blob download-batch")
    echo "$*" > az-download.txt; mkdir -p outputs && echo '{"index": 0}' > outputs/chunk-00000000.jsonl ;;
  *) echo "unexpected: $*" >&2; exit 2 ;;
esac
"""


def test_an_azure_plan_copies_its_outputs_out_of_the_container_skypilot_made(tmp_path: Path) -> None:
    # The README had given S3 and GCS commands only: on Azure, SkyPilot keeps the bucket as a Blob
    # container in a storage account of its own, whose name the user does not know.
    azure = _batch_plan().model_copy(
        update={"provider": "azure", "region": "eastus", "instance_type": "Standard_NC24ads_A100_v4"}
    )
    readme = by_path(generate(azure, "skypilot", LAUNCH))["README.md"]
    assert 'pip install "skypilot[azure]"' in readme and "s3://" not in readme and "gs://" not in readme
    assert "Storage Blob Data Owner" in " ".join(readme.split())
    (block,) = [b for b in re.findall(r"^```bash\n(.*?)^```", readme, re.S | re.M) if "az storage" in b]
    subprocess.run(["bash", "-n"], input=block, text=True, check=True)
    # Run as written, with the stand-in az first on PATH: the account holding the container is found,
    # outputs/ copied from it, and the chunks joined.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "az").write_text(_FAKE_AZ)
    (bin_dir / "az").chmod(0o755)
    fetch = "\n".join(line for line in block.splitlines() if not line.startswith("sky storage delete"))
    env = {
        **os.environ,
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "DATA_BUCKET": "llama8b-chat-service-data",
    }
    subprocess.run(["bash", "-e", "-c", fetch], cwd=tmp_path, env=env, check=True)
    asked = (tmp_path / "az-download.txt").read_text().split()
    assert asked[asked.index("--account-name") + 1] == "skybbbb2222"
    assert asked[asked.index("--source") + 1] == "llama8b-chat-service-data"
    assert (
        asked[asked.index("--pattern") + 1] == "outputs/*" and asked[asked.index("--destination") + 1] == "."
    )
    assert (tmp_path / "outputs.jsonl").read_text() == '{"index": 0}\n'


def test_the_chinese_readme() -> None:
    from gpuplan.i18n import use_language

    with use_language("zh"):
        readme = by_path(generate(_batch_plan(), "skypilot", LAUNCH))["README.md"]
    assert "$5,440.50" in readme and "sky jobs launch -n llama8b-chat-service task.yaml" in readme
    assert "sky jobs logs -n llama8b-chat-service" in readme
    for english in (
        "A managed job",
        "Put them in",
        "They are in the bucket",
        "A shard that fails",
        "Bad inputs",
        "Run and watch",
    ):
        assert english not in readme
    assert "托管" in readme and "存储桶" in readme


# ---- an LLM with Hub weights: vllm_batch.py on vLLM's image -------------------------------------


def _llm_batch_plan() -> LaunchSpec:
    """The served Llama plan without its serving block, its Hub id kept: vLLM runs it."""
    doc = json.loads((FIXTURES / "plan_serve_llama_aws.json").read_text())
    doc["workload"]["serving"] = None
    return LaunchSpec.from_plan(doc)


def test_an_llm_batch_job_runs_vllm_batch_py_on_vllms_image_with_the_k8s_jobs_arguments(
    tmp_path: Path,
) -> None:
    # was refused: the skypilot target's batch job ran batch.py, a random stand-in of the Hub model
    spec = _llm_batch_plan()
    files = by_path(generate(spec, "skypilot", LAUNCH))
    assert sorted(files) == [".skyignore", "README.md", "task.yaml", "vllm_batch.py"]
    task = yaml.safe_load(files["task.yaml"])
    validate_skypilot_task(task)
    r = task["resources"]
    # vLLM's image is the nodes' runtime, as the service of the model gets it; nothing to install
    assert r["image_id"] == "docker:vllm/vllm-openai:v0.14.0" and "setup" not in task
    assert r["job_recovery"]["recover_on_exit_codes"] == [143] and task["num_nodes"] == 4
    assert task["secrets"] == {"HF_TOKEN": None}  # given at launch, never written
    envs = task["envs"]
    assert (envs["CHUNK_SIZE"], envs["CONCURRENCY"], envs["SHARD_COUNT"]) == ("1024", "32", "4")
    assert "CKPT_DIR" not in envs
    # Every shard once, each started with the arguments the Kubernetes Job gives vllm_batch.py.
    (job,) = [
        d
        for d in yaml.safe_load_all(by_path(generate(spec, "k8s"))["k8s/job.yaml"])
        if d and d["kind"] == "Job"
    ]
    command = job["spec"]["template"]["spec"]["containers"][0]["command"]
    codes, shards = _run_nodes(task, tmp_path)
    assert codes == [0] * 4 and sorted(shards) == [0, 1, 2, 3]
    for _node, _count, _devices, _inputs, args in shards.values():
        assert args == " ".join(["vllm_batch.py", *command[command.index("--") :]])


def test_an_llm_batch_readme_says_the_request_format_the_token_and_the_engine() -> None:
    readme = by_path(generate(_llm_batch_plan(), "skypilot", LAUNCH))["README.md"]
    assert "sky jobs launch -n llama8b-chat-service task.yaml --env DATA_BUCKET --secret HF_TOKEN" in readme
    assert '"url": "/v1/chat/completions"' in readme and "prompts.jsonl > inputs.jsonl" in readme
    assert "mkdir -p data/inputs && cp inputs.jsonl data/inputs/" in readme
    assert "running vllm_batch.py over its part of the inputs" in readme
    assert "response.body.choices[0].message.content" in readme
    assert "Each shard starts the engine once" in readme and "stand-in" not in readme
    assert "$5,440.50 all-in: 730.2 h on 4 x g6e.xlarge" in readme


def test_inputs_kept_in_s3_are_read_from_that_bucket_not_uploaded_from_the_laptop() -> None:
    # was: `source: …/data` uploaded the inputs from the folder although data.location said S3 us-east-1
    spec = _spot_batch_plan().model_copy(update={"data_location": "aws/us-east-1"})
    files = by_path(generate(spec, "skypilot", LAUNCH))
    task = yaml.safe_load(files["task.yaml"])
    validate_skypilot_task(task)
    assert task["file_mounts"]["/inputs"] == {"source": "s3://${DATASET_BUCKET}", "mode": "MOUNT"}
    assert task["envs"]["INPUT_PATH"] == "/inputs" and task["envs"]["DATASET_BUCKET"] is None
    readme = " ".join(files["README.md"].split())
    assert "--env DATASET_BUCKET=YOUR-BUCKET/PREFIX" in readme
    assert "cp inputs.jsonl data/inputs/" not in readme
    # inputs on the user's own site: uploaded from data/ as before
    plain = _task(_spot_batch_plan().model_copy(update={"data_location": None}))
    assert "/inputs" not in plain["file_mounts"] and plain["envs"]["INPUT_PATH"] == "/data/inputs"
