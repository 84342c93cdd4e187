"""Batch inference of a decoder LLM with Hub weights: the batch job runs on vLLM's image, its batch
runner a chunk of the inputs at a time (vllm_batch.py), sharded and resumed as batch.py does; any
other batch job keeps batch.py, its files as they were. vllm_batch.py runs for real here on a CPU,
with a stand-in for vLLM's batch runner (a module ``vllm.entrypoints.openai.run_batch`` that copies
each request to an answer) first on its path."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from deploy_helpers import FIXTURES, by_path, validate_k8s, yaml_docs

from gpuplan.deploy import LaunchSpec, generate, write_files
from gpuplan.errors import DeployError

#: What the plan's service of the model runs (the same fixture with its serving block): the engine
#: settings a batch job of the model must get too.
_SERVICE = json.loads((FIXTURES / "plan_serve_llama_aws.json").read_text())


def _llm_batch_plan() -> LaunchSpec:
    """Llama 3.1 8B without a serving block, 4 x g6e.xlarge (one L40S each), batch 16, seq_len 768."""
    doc = json.loads(json.dumps(_SERVICE))
    doc["workload"]["serving"] = None
    return LaunchSpec.from_plan(doc)


def _job(files: list[Any]) -> dict[str, Any]:
    (job,) = [d for d in yaml_docs(files) if d["kind"] == "Job"]
    return job


def _flag(argv: list[str], name: str) -> str:
    return argv[argv.index(name) + 1]


def test_k8s_runs_vllms_batch_runner_on_its_image_with_the_services_settings() -> None:
    files = generate(_llm_batch_plan(), "k8s")
    docs = yaml_docs(files)
    for doc in docs:
        validate_k8s(doc)
    assert sorted(d["kind"] for d in docs) == ["ConfigMap", "Job", "PersistentVolumeClaim", "Pod"]
    job = _job(files)["spec"]
    assert job["completionMode"] == "Indexed" and job["completions"] == job["parallelism"] == 4
    pod = job["template"]["spec"]
    (container,) = pod["containers"]
    assert container["image"] == "vllm/vllm-openai:v0.14.0"
    command = container["command"]
    assert command[:3] == ["python3", "/workspace/vllm_batch.py", "--"]
    runner = command[3:]
    assert _flag(runner, "--model") == "meta-llama/Llama-3.1-8B"
    # The engine settings of the plan's service of the same model: its tensor parallelism and share
    # of GPU memory, as the serving path derives them.
    served = generate(LaunchSpec.from_plan(_SERVICE), "k8s")
    (deployment,) = [d for d in yaml_docs(served) if d["kind"] == "Deployment"]
    args = deployment["spec"]["template"]["spec"]["containers"][0]["args"]
    for name in ("--tensor-parallel-size", "--gpu-memory-utilization"):
        assert _flag(runner, name) == _flag(args, name)
    # The requests the plan priced are inputs.seq_len tokens: the engine's cap, not the model's 131,072
    assert _flag(runner, "--max-model-len") == "768"
    assert "--port" not in runner  # no server
    env = {e["name"]: e for e in container["env"]}
    assert env["SHARD_COUNT"]["value"] == "4" and env["CHUNK_SIZE"]["value"] == str(64 * 16)
    assert env["INPUT_PATH"]["value"] == "/data/inputs" and env["OUTPUT_DIR"]["value"] == "/data/outputs"
    # The token as the service takes it: from the Secret, never written in a file.
    assert env["HF_TOKEN"] == {
        "name": "HF_TOKEN",
        "valueFrom": {"secretKeyRef": {"name": "hf-token", "key": "token", "optional": True}},
    }
    assert container["resources"]["limits"] == {"nvidia.com/gpu": 1}
    mounts = {m["mountPath"] for m in container["volumeMounts"]}
    assert {"/data", "/root/.cache/huggingface", "/workspace"} <= mounts
    # Reclaims and SIGTERM are not failures; bad inputs fail the index: as batch.py's Job.
    assert pod["restartPolicy"] == "Never"
    assert [r["action"] for r in job["podFailurePolicy"]["rules"]] == ["Ignore", "Ignore", "FailIndex"]
    (configmap,) = [d for d in docs if d["kind"] == "ConfigMap"]
    assert sorted(configmap["data"]) == ["vllm_batch.py"]  # no stand-in model, no train.py
    assert "train.py" not in by_path(files) and "batch.py" not in by_path(files)
    assert "--from-file=vllm_batch.py" in by_path(files)["k8s/code-configmap.yaml"]


def test_a_model_split_over_two_gpus_runs_tensor_parallel_2_on_a_pod_of_two() -> None:
    spec = _llm_batch_plan().model_copy(update={"gpus_per_node": 4, "tensor_parallel": 2})
    job = _job(generate(spec, "k8s"))["spec"]
    assert job["completions"] == 8  # 4 nodes x 4 GPUs / 2
    (container,) = job["template"]["spec"]["containers"]
    assert _flag(container["command"], "--tensor-parallel-size") == "2"
    assert container["resources"]["limits"] == {"nvidia.com/gpu": 2}


def _fences(readme: str, lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", readme, re.S | re.M)


def test_the_readme_says_the_input_format_with_an_example_the_outputs_cost_and_watching() -> None:
    readme = by_path(generate(_llm_batch_plan(), "k8s"))["README.md"]
    (example,) = _fences(readme, "json")
    line = json.loads(example)
    assert line["url"] == "/v1/chat/completions" and line["method"] == "POST" and "custom_id" in line
    assert line["body"]["model"] == "meta-llama/Llama-3.1-8B" and line["body"]["messages"]
    assert "kubectl create secret generic hf-token --from-literal=token=$HF_TOKEN" in readme
    assert "kubectl get job llama8b-chat-service --watch" in readme
    assert "kubectl cp llama8b-chat-service-data:/data/outputs ./outputs" in readme
    assert "response.body.choices[0].message.content" in readme and "custom_id" in readme
    assert "$5,440.50 all-in: 730.2 h on 4 x g6e.xlarge" in readme
    assert "stand-in" not in readme and "batch.py" not in readme.replace("vllm_batch.py", "")
    assert "starts the engine afresh" in readme  # the time a chunk's restart takes, said
    for block in _fences(readme, "bash"):
        subprocess.run(["bash", "-n"], input=block, text=True, check=True)


def test_the_readme_counts_the_engine_starts_of_each_shard(tmp_path: Path) -> None:
    p = tmp_path / "chats.yaml"
    p.write_text(
        "name: chats\ntask: infer\nmodel: {preset: llama-8b}\ninputs: {batch_size: 4, seq_len: 2048}\n"
        "data: {samples: 100000, epochs: 1}\n"
    )
    files = generate(LaunchSpec.from_workload(p, gpu="L40S", count=2), "k8s")
    env = {e["name"]: e.get("value") for e in _job(files)["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert env["CHUNK_SIZE"] == "256"
    # 100,000 requests in chunks of 64 batches of 4: 391 chunks, each shard of 2 starting vLLM ~196 times
    readme = by_path(files)["README.md"]
    assert "The workload's 100,000 samples make 391 chunks: about 196 engine starts a shard." in readme
    assert "Each chunk of 256 requests (64 batches of the workload's 4)" in readme


def test_a_job_in_mainland_china_is_told_where_else_the_weights_come_from() -> None:
    cn = _llm_batch_plan().model_copy(update={"provider": "alibaba", "region": "cn-beijing"})
    readme = by_path(generate(cn, "k8s"))["README.md"]
    assert "Each pod of the job downloads `meta-llama/Llama-3.1-8B` from the Hugging Face Hub" in readme
    assert "VLLM_USE_MODELSCOPE=True" in readme
    hk = cn.model_copy(update={"region": "cn-hongkong"})
    assert "huggingface.co is often unreachable" not in by_path(generate(hk, "k8s"))["README.md"]


def test_the_chinese_readme() -> None:
    from gpuplan.i18n import use_language

    with use_language("zh"):
        readme = by_path(generate(_llm_batch_plan(), "k8s"))["README.md"]
    assert "$5,440.50" in readme and "输入" in readme and "vLLM" in readme
    assert "The job runs" not in readme and "One JSON Lines file" not in readme


def test_docker_builds_on_vllms_image_and_runs_a_container_per_shard(tmp_path: Path) -> None:
    spec = _llm_batch_plan().model_copy(update={"gpus_per_node": 2, "nodes": 1})
    files = by_path(generate(spec, "docker"))
    assert sorted(files) == [".dockerignore", "Dockerfile", "README.md", "vllm_batch.py"]
    dockerfile = files["Dockerfile"]
    assert "FROM vllm/vllm-openai:v0.14.0" in dockerfile and "COPY vllm_batch.py /workspace/" in dockerfile
    assert 'ENTRYPOINT ["python3", "/workspace/vllm_batch.py"]' in dockerfile
    (cmd,) = re.findall(r"^CMD (.*)$", dockerfile, re.M)
    assert json.loads(cmd)[:3] == ["--", "--model", "meta-llama/Llama-3.1-8B"]
    assert "HF_TOKEN=" not in dockerfile
    readme = files["README.md"]
    runs = "\n".join(_fences(readme, "bash"))
    assert "-e HF_TOKEN " in runs and "JOB_COMPLETION_INDEX=$i" in runs and "SHARD_COUNT=2" in runs
    for block in _fences(readme, "bash"):
        subprocess.run(["bash", "-n"], input=block, text=True, check=True)


def test_a_batch_job_of_a_model_without_hub_weights_writes_the_files_it_wrote_before(tmp_path: Path) -> None:
    p = tmp_path / "titles.yaml"
    p.write_text(
        "name: titles\ntask: infer\nmodel: {preset: bert-base}\ninputs: {batch_size: 4, seq_len: 8}\n"
    )
    spec = LaunchSpec.from_workload(p, gpu="L4", count=2)
    before = json.loads((FIXTURES / "batch_bert_l4x2_files.json").read_text())
    for target, expected in before.items():
        files = by_path(generate(spec, target))
        assert sorted(files) == expected.pop("paths")
        header = expected.pop("k8s/code-configmap.yaml (header)", None)
        if header is not None:
            assert "\n".join(files["k8s/code-configmap.yaml"].splitlines()[:3]) == header
        for path, content in expected.items():
            assert files[path] == content, f"{target}: {path}"


def test_the_chunk_is_the_one_the_plan_takes_a_reclaim_to_lose_half_of() -> None:
    from gpuplan.deploy.batch import CHUNK_BATCHES
    from gpuplan.plan.spot import BATCH_CHUNK_BATCHES

    assert CHUNK_BATCHES == BATCH_CHUNK_BATCHES


# ---- vllm_batch.py, for real, on a CPU, with a stand-in batch runner --------------------------------

#: vLLM's batch runner as a stand-in: -i IN -o OUT and the engine's arguments; an output line per
#: request, in order, the request's custom_id and body answered back. It writes its output a line at
#: a time with FAKE_LINE_S between lines (so a SIGTERM lands mid-chunk), logs each call to
#: FAKE_CALLS, and exits FAKE_FAIL where set.
_FAKE_RUN_BATCH = """
import argparse, json, os, sys, time
p = argparse.ArgumentParser()
p.add_argument("-i", "--input-file", required=True)
p.add_argument("-o", "--output-file", required=True)
p.add_argument("--model", required=True)
args, engine = p.parse_known_args()
with open(os.environ["FAKE_CALLS"], "a") as log:
    log.write(json.dumps({"i": args.input_file, "o": args.output_file, "model": args.model,
                          "engine": engine}) + "\\n")
if os.environ.get("FAKE_FAIL"):
    sys.exit(int(os.environ["FAKE_FAIL"]))
with open(args.input_file) as fin, open(args.output_file, "w") as fout:
    for n, line in enumerate(fin):
        req = json.loads(line)
        said = req["body"]["messages"][0]["content"]
        answer = {"choices": [{"message": {"role": "assistant", "content": said}}]}
        fout.write(json.dumps({"id": f"batch_req_{n}", "custom_id": req["custom_id"],
                               "response": {"status_code": 200, "request_id": str(n), "body": answer},
                               "error": None}) + "\\n")
        fout.flush()
        time.sleep(float(os.environ.get("FAKE_LINE_S", "0")))
"""


@pytest.fixture
def launch(tmp_path: Path) -> Path:
    """The files deploy writes for the Llama batch job, and the stand-in vLLM beside them."""
    out = tmp_path / "launch"
    write_files(generate(_llm_batch_plan(), "k8s"), out)
    fake = tmp_path / "fake"
    package = fake / "vllm" / "entrypoints" / "openai"
    package.mkdir(parents=True)
    for folder in (fake / "vllm", fake / "vllm" / "entrypoints", package):
        (folder / "__init__.py").write_text("")
    (package / "run_batch.py").write_text(_FAKE_RUN_BATCH)
    return out


def _runner_args(launch: Path) -> list[str]:
    """vLLM's arguments as the Job gives them (after ``--``)."""
    job = yaml_docs_from(launch / "k8s" / "job.yaml")
    command = job["spec"]["template"]["spec"]["containers"][0]["command"]
    return command[command.index("--") :]


def yaml_docs_from(path: Path) -> dict[str, Any]:
    import yaml

    (doc,) = [d for d in yaml.safe_load_all(path.read_text()) if d]
    return doc  # type: ignore[no-any-return]


def _run(launch: Path, *args: str, **env: str) -> subprocess.Popen[str]:
    fake = launch.parent / "fake"
    return subprocess.Popen(
        [sys.executable, "vllm_batch.py", *args],
        cwd=launch,
        env={**os.environ, "PYTHONPATH": str(fake), "FAKE_CALLS": str(launch.parent / "calls.jsonl"), **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _finish(proc: subprocess.Popen[str]) -> tuple[int, str]:
    out, _ = proc.communicate(timeout=120)
    return proc.returncode, out


def _prepare(launch: Path, folder: Path, prompts: list[str]) -> list[dict[str, Any]]:
    """The README's own command turns prompts into requests; split into two files (name order)."""
    readme = (launch / "README.md").read_text()
    (command,) = [b for b in _fences(readme, "bash") if "prompts.jsonl" in b]
    work = launch.parent / "prep"
    work.mkdir()
    (work / "prompts.jsonl").write_text("".join(json.dumps({"prompt": p}) + "\n" for p in prompts))
    subprocess.run(
        ["bash", "-e", "-c", command.replace("python3 ", f"{sys.executable} ")], cwd=work, check=True
    )
    lines = (work / "inputs.jsonl").read_text().splitlines()
    folder.mkdir()
    (folder / "a.jsonl").write_text("\n".join(lines[:5]) + "\n\n")  # a blank line, skipped
    (folder / "b.jsonl").write_text("\n".join(lines[5:]) + "\n")
    return [json.loads(line) for line in lines]


def _outputs(folder: Path) -> list[dict[str, Any]]:
    return [
        json.loads(line) for p in sorted(folder.glob("chunk-*.jsonl")) for line in p.read_text().splitlines()
    ]


def test_vllm_batch_py_shards_writes_whole_chunks_and_resumes_an_interrupted_shard(
    launch: Path, tmp_path: Path
) -> None:
    prompts = [f"chat number {i}: summarise me" for i in range(13)]
    requests = _prepare(launch, tmp_path / "in", prompts)
    assert [r["custom_id"] for r in requests] == [f"p-{i}" for i in range(13)]
    assert all(r["body"]["model"] == "meta-llama/Llama-3.1-8B" for r in requests)
    out = tmp_path / "out"
    runner = _runner_args(launch)
    common = ["--input", str(tmp_path / "in"), "--output", str(out), "--shards", "2", "--chunk-size", "3"]

    # Shard 0 runs chunks 0, 2, 4 of 5: vLLM is run once per chunk, with the Job's arguments.
    code, log = _finish(_run(launch, *common, "--shard", "0", *runner))
    assert code == 0 and "done: 3 chunks written (7 requests), 0 already written before" in log, log
    calls = [json.loads(c) for c in (tmp_path / "calls.jsonl").read_text().splitlines()]
    assert len(calls) == 3 and all(c["model"] == "meta-llama/Llama-3.1-8B" for c in calls)
    assert all(c["engine"] == runner[3:] for c in calls)  # --tensor-parallel-size … as the Job says
    assert all(Path(c["o"]).parent == out and Path(c["o"]).name.startswith(".chunk-") for c in calls)

    # Shard 1 (chunks 1, 3) is stopped by SIGTERM, as Kubernetes stops a pod, in the middle of
    # its second chunk: vLLM has written part of its output.
    proc = _run(launch, *common, "--shard", "1", *runner, FAKE_LINE_S="0.4")
    deadline = time.monotonic() + 60
    while not (list(out.glob(".chunk-00000003.jsonl.*.tmp")) and (out / "chunk-00000001.jsonl").exists()):
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()[0]
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    code, log = _finish(proc)
    assert code == 143, log
    assert not (out / "chunk-00000003.jsonl").exists()
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]  # the chunk cut short left nothing
    first = out / "chunk-00000001.jsonl"
    written = first.stat()

    # Started again (a new pod for the index): it skips chunk 1, runs chunk 3, exits 0.
    code, log = _finish(_run(launch, *common, "--shard", "1", *runner))
    assert code == 0 and "wrote chunk-00000003.jsonl" in log and "chunk-00000001" not in log, log
    assert "done: 1 chunks written (3 requests), 1 already written before" in log
    assert (first.stat().st_ino, first.stat().st_mtime_ns) == (written.st_ino, written.st_mtime_ns)
    # Every request answered once, in input order, the chunks in name order.
    outputs = _outputs(out)
    assert [o["custom_id"] for o in outputs] == [f"p-{i}" for i in range(13)]
    assert [o["response"]["body"]["choices"][0]["message"]["content"] for o in outputs] == prompts

    # Once more: nothing left to do, vLLM not started.
    calls_before = (tmp_path / "calls.jsonl").read_text()
    code, log = _finish(_run(launch, *common, "--shard", "1", *runner))
    assert code == 0 and "done: 0 chunks written (0 requests), 2 already written before" in log, log
    assert (tmp_path / "calls.jsonl").read_text() == calls_before


def test_vllm_batch_py_leaves_no_chunk_where_vllm_fails_and_refuses_bad_input(
    launch: Path, tmp_path: Path
) -> None:
    good = tmp_path / "good.jsonl"
    good.write_text(
        json.dumps({"custom_id": "a", "method": "POST", "url": "/v1/chat/completions", "body": {}}) + "\n"
    )
    runner = _runner_args(launch)
    out = tmp_path / "out"
    common = ["--input", str(good), "--output", str(out), "--chunk-size", "3"]
    code, log = _finish(_run(launch, *common, *runner, FAKE_FAIL="1"))
    assert code == 1 and "exited with status 1" in log and "Traceback" not in log, log
    assert not list(out.glob("chunk-*")) and not [p for p in out.iterdir() if p.name.endswith(".tmp")]

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"custom_id": "a"}\n')
    code, log = _finish(_run(launch, "--input", str(bad), "--output", str(out), "--chunk-size", "3", *runner))
    assert code == 2 and "bad.jsonl:1: missing method, url, body" in log and "Traceback" not in log, log
    # Outputs cut at another chunk size are not mixed with this run's.
    code, log = _finish(
        _run(launch, "--input", str(good), "--output", str(out), "--chunk-size", "2", *runner)
    )
    assert code == 2 and "run with --chunk-size 3" in log, log
    # vLLM's arguments are needed.
    code, log = _finish(_run(launch, *common))
    assert code == 2 and "--model" in log, log


def test_skypilot_refuses_an_llm_batch_job_it_would_run_as_a_random_stand_in() -> None:
    # the skypilot batch job runs batch.py; for a Hub model k8s and docker run vLLM instead
    with pytest.raises(DeployError, match=r"deploy with --target k8s or --target docker$") as e:
        generate(_llm_batch_plan(), "skypilot")
    assert "\n" not in str(e.value) and "meta-llama/" in str(e.value)
