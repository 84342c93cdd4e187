"""Batch inference of a decoder LLM with Hub weights: the batch job runs on vLLM's image, one vLLM
server a shard sent the shard's requests and its answers written a chunk at a time (vllm_batch.py),
sharded and resumed as batch.py does; any other batch job keeps batch.py, its files as they were.
vllm_batch.py runs for real here on a CPU, with a stand-in for vLLM's server (a module
``vllm.entrypoints.openai.api_server`` that answers each request with its own words) first on its
path."""

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
from deploy_helpers import FIXTURES, by_path, chunk_outputs, finish, validate_k8s, yaml_docs

from gpuplan.deploy import LaunchSpec, generate, write_files

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


def test_k8s_runs_vllms_server_on_its_image_with_the_services_settings() -> None:
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
    assert _flag(runner, "--model") == "meta-llama/Llama-3.1-8B-Instruct"
    # The engine settings of the plan's service of the same model: its tensor parallelism and share
    # of GPU memory, as the serving path derives them.
    served = generate(LaunchSpec.from_plan(_SERVICE), "k8s")
    (deployment,) = [d for d in yaml_docs(served) if d["kind"] == "Deployment"]
    args = deployment["spec"]["template"]["spec"]["containers"][0]["args"]
    for name in ("--tensor-parallel-size", "--gpu-memory-utilization"):
        assert _flag(runner, name) == _flag(args, name)
    # The requests the plan priced are inputs.seq_len tokens, and a chat template adds its own: the
    # engine's cap, not the model's 131,072
    assert _flag(runner, "--max-model-len") == str(768 + 64)
    assert "--port" not in runner and "--host" not in runner  # vllm_batch.py's: 127.0.0.1, a free port
    env = {e["name"]: e for e in container["env"]}
    assert env["SHARD_COUNT"]["value"] == "4" and env["CHUNK_SIZE"]["value"] == str(64 * 16)
    assert env["CONCURRENCY"]["value"] == str(2 * 16)  # two batches in flight, as vLLM's runner keeps
    assert env["INPUT_PATH"]["value"] == "/data/inputs" and env["OUTPUT_DIR"]["value"] == "/data/outputs"
    # The token as the service takes it: from the Secret, never written in a file; required, since
    # Llama is gated (a pod without it would start and fail on its first download)
    assert env["HF_TOKEN"] == {
        "name": "HF_TOKEN",
        "valueFrom": {"secretKeyRef": {"name": "hf-token", "key": "token", "optional": False}},
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
    assert line["body"]["model"] == "meta-llama/Llama-3.1-8B-Instruct" and line["body"]["messages"]
    assert "kubectl create secret generic hf-token --from-literal=token=$HF_TOKEN" in readme
    assert "kubectl get job llama8b-chat-service --watch" in readme
    assert "kubectl cp llama8b-chat-service-data:/data/outputs ./outputs" in readme
    assert "response.body.choices[0].message.content" in readme and "custom_id" in readme
    assert "$5,440.50 all-in: 730.2 h on 4 x g6e.xlarge" in readme
    assert "stand-in" not in readme and "batch.py" not in readme.replace("vllm_batch.py", "")
    assert "Each shard starts the engine once" in readme and "afresh" not in readme
    for block in _fences(readme, "bash"):
        subprocess.run(["bash", "-n"], input=block, text=True, check=True)


def test_the_readme_says_the_requests_in_flight_and_the_chunk(tmp_path: Path) -> None:
    p = tmp_path / "chats.yaml"
    p.write_text(
        "name: chats\ntask: infer\nmodel: {preset: llama-8b}\ninputs: {batch_size: 4, seq_len: 2048}\n"
        "data: {samples: 100000, epochs: 1}\n"
    )
    files = generate(LaunchSpec.from_workload(p, gpu="L40S", count=2), "k8s")
    env = {e["name"]: e.get("value") for e in _job(files)["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert env["CHUNK_SIZE"] == "256" and env["CONCURRENCY"] == "8"
    readme = by_path(files)["README.md"]
    assert "sends it 8 requests at a time (CONCURRENCY: two batches of the workload's 4" in readme
    assert "a chunk of 256 requests (64 batches) at a time" in readme
    assert "engine starts a shard" not in readme  # once a shard, not once a chunk


def test_a_job_in_mainland_china_is_told_where_else_the_weights_come_from() -> None:
    cn = _llm_batch_plan().model_copy(update={"provider": "alibaba", "region": "cn-beijing"})
    readme = by_path(generate(cn, "k8s"))["README.md"]
    assert (
        "Each shard of the job downloads `meta-llama/Llama-3.1-8B-Instruct` from the Hugging Face Hub"
        in readme
    )
    assert "VLLM_USE_MODELSCOPE=True" in readme
    hk = cn.model_copy(update={"region": "cn-hongkong"})
    assert "huggingface.co is often unreachable" not in by_path(generate(hk, "k8s"))["README.md"]


def test_a_job_in_mainland_china_is_told_the_data_pods_image_is_on_docker_hub_too() -> None:
    # The note had named the job's image only; the data pod's busybox comes from docker.io too, and
    # no option replaces it: a pod stuck in ImagePullBackOff before a single input is copied in.
    cn = _llm_batch_plan().model_copy(update={"provider": "alibaba", "region": "cn-beijing"})
    for spec in (cn, cn.model_copy(update={"hf_model_id": None})):  # vLLM's job, and batch.py's
        files = by_path(generate(spec, "k8s"))
        (pod,) = yaml_docs([f for f in generate(spec, "k8s") if f.path == "k8s/data-pod.yaml"])
        image = pod["spec"]["containers"][0]["image"]
        assert image.startswith("busybox:")
        readme = " ".join(files["README.md"].split())
        assert "Docker Hub (docker.io) is often slow or unreachable" in readme  # the job's image
        assert f"The pod of k8s/data-pod.yaml runs `{image}`, from Docker Hub too" in readme
    readme = by_path(generate(_llm_batch_plan(), "k8s"))["README.md"]  # us-east-1: neither
    assert "Docker Hub" not in readme and "busybox" not in readme


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
    assert json.loads(cmd)[:3] == ["--", "--model", "meta-llama/Llama-3.1-8B-Instruct"]
    assert "CHUNK_SIZE=1024" in dockerfile and "CONCURRENCY=32" in dockerfile
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


# ---- vllm_batch.py, for real, on a CPU, with a stand-in server --------------------------------------

#: vLLM's server as a stand-in: --model, --host, --port and the engine's arguments; /health, and
#: /v1/chat/completions, /v1/completions and /v1/embeddings answered with the request's own words
#: after FAKE_REQUEST_S; a model other than --model answered 404, a message "refuse me" 400, as vLLM
#: answers a request it refuses. Each start is logged to FAKE_CALLS, each request's count of requests
#: in flight to FAKE_FLIGHT; it exits FAKE_FAIL at start where set, and 3 at the FAKE_DIE_AT-th request.
_FAKE_SERVER = """
import argparse, json, os, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
p = argparse.ArgumentParser()
p.add_argument("--model", required=True)
p.add_argument("--host", required=True)
p.add_argument("--port", type=int, required=True)
args, engine = p.parse_known_args()
with open(os.environ["FAKE_CALLS"], "a") as log:
    log.write(json.dumps({"model": args.model, "host": args.host, "engine": engine}) + "\\n")
if os.environ.get("FAKE_FAIL"):
    sys.exit(int(os.environ["FAKE_FAIL"]))
lock, state = threading.Lock(), {"seen": 0, "flying": 0}

class Handler(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def answer(self, status, value):
        data = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.answer(200, {}) if self.path == "/health" else self.answer(404, {})

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with lock:
            state["seen"] += 1
            state["flying"] += 1
            with open(os.environ["FAKE_FLIGHT"], "a") as log:
                log.write(f"{state['flying']}\\n")
            if state["seen"] == int(os.environ.get("FAKE_DIE_AT", "0")):
                os._exit(3)
            failing = state["seen"] > int(os.environ.get("FAKE_500_AFTER", "1000000"))
        done = False
        try:
            time.sleep(float(os.environ.get("FAKE_REQUEST_S", "0")))
            with lock:  # out of flight before the answer leaves: the next request may come at once
                state["flying"] -= 1
                done = True
            if failing:  # vLLM's answer where its engine failed
                return self.answer(500, {"error": {"message": "EngineDeadError", "code": 500}})
            if body.get("model") != args.model:
                return self.answer(404, {"error": {"message": "The model does not exist."}})
            if self.path == "/v1/chat/completions":
                said = body["messages"][0]["content"]
                if said == "refuse me":
                    return self.answer(400, {"error": {"message": "refused", "code": 400}})
                return self.answer(200, {"choices": [{"message": {"role": "assistant", "content": said}}]})
            if self.path == "/v1/completions":
                return self.answer(200, {"choices": [{"text": body["prompt"]}]})
            return self.answer(404, {})
        finally:
            if not done:
                with lock:
                    state["flying"] -= 1

ThreadingHTTPServer((args.host, args.port), Handler).serve_forever()
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
    (package / "api_server.py").write_text(_FAKE_SERVER)
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
        env={
            **os.environ,
            "PYTHONPATH": str(fake),
            "FAKE_CALLS": str(launch.parent / "calls.jsonl"),
            "FAKE_FLIGHT": str(launch.parent / "flight.txt"),
            **env,
        },
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _starts(launch: Path) -> list[dict[str, Any]]:
    calls = launch.parent / "calls.jsonl"
    return [json.loads(c) for c in calls.read_text().splitlines()] if calls.exists() else []


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


def _request(custom_id: str, said: str, url: str = "/v1/chat/completions", **body: Any) -> str:
    if url == "/v1/completions":
        body = {"prompt": said, **body}
    else:
        body = {"messages": [{"role": "user", "content": said}], **body}
    return json.dumps({"custom_id": custom_id, "method": "POST", "url": url, "body": body}) + "\n"


def test_vllm_batch_py_starts_vllm_once_a_shard_writes_whole_chunks_and_resumes(
    launch: Path, tmp_path: Path
) -> None:
    prompts = [f"chat number {i}: summarise me" for i in range(13)]
    requests = _prepare(launch, tmp_path / "in", prompts)
    assert [r["custom_id"] for r in requests] == [f"p-{i}" for i in range(13)]
    assert all(r["body"]["model"] == "meta-llama/Llama-3.1-8B-Instruct" for r in requests)
    out = tmp_path / "out"
    runner = _runner_args(launch)
    common = ["--input", str(tmp_path / "in"), "--output", str(out), "--shards", "2", "--chunk-size", "3"]

    # Shard 0 (the first half of the inputs' bytes: p-0 to p-6, 3 chunks) runs on one server,
    # started with the Job's arguments.
    code, log = finish(_run(launch, *common, "--shard", "0", "--concurrency", "2", *runner))
    assert code == 0 and "done: 3 chunks written (7 requests), 0 already written before" in log, log
    (start,) = _starts(launch)
    assert start["model"] == "meta-llama/Llama-3.1-8B-Instruct" and start["host"] == "127.0.0.1"
    assert start["engine"] == runner[3:]  # --tensor-parallel-size … as the Job says

    # Shard 1 (p-7 to p-12: 2 chunks) is stopped by SIGTERM, as Kubernetes stops a pod, once its
    # chunk 0 is written and while chunk 1's requests are in flight.
    proc = _run(launch, *common, "--shard", "1", "--concurrency", "2", *runner, FAKE_REQUEST_S="1")
    deadline = time.monotonic() + 60
    while not (out / "chunk-00001-00000000.jsonl").exists():
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()[0]
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    code, log = finish(proc)
    assert code == 143 and "Traceback" not in log, log
    assert not (out / "chunk-00001-00000001.jsonl").exists()
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]  # the chunk cut short left nothing
    first = out / "chunk-00001-00000000.jsonl"
    written = first.stat()

    # Started again (a new pod for the index): it skips its chunk 0, runs chunk 1, exits 0.
    code, log = finish(_run(launch, *common, "--shard", "1", *runner))
    assert code == 0 and "wrote chunk-00001-00000001.jsonl" in log and "chunk-00001-00000000" not in log, log
    assert "done: 1 chunks written (3 requests), 1 already written before" in log
    assert (first.stat().st_ino, first.stat().st_mtime_ns) == (written.st_ino, written.st_mtime_ns)
    assert len(_starts(launch)) == 3  # one server a run: shard 0, shard 1, shard 1 again
    # Every request answered once, in input order, the chunks in name order, as vLLM's runner writes.
    outputs = chunk_outputs(out)
    assert [o["custom_id"] for o in outputs] == [f"p-{i}" for i in range(13)]
    assert [o["response"]["body"]["choices"][0]["message"]["content"] for o in outputs] == prompts
    assert all(o["response"]["status_code"] == 200 and o["error"] is None for o in outputs)

    # Once more: nothing left to do, vLLM not started.
    code, log = finish(_run(launch, *common, "--shard", "1", *runner))
    assert code == 0 and "done: 0 chunks written (0 requests), 2 already written before" in log, log
    assert len(_starts(launch)) == 3


def test_vllm_batch_py_keeps_its_concurrency_in_flight_across_chunks(launch: Path, tmp_path: Path) -> None:
    given = tmp_path / "in.jsonl"
    given.write_text("".join(_request(f"r-{i}", f"say {i}") for i in range(12)))
    out = tmp_path / "out"
    args = ["--input", str(given), "--output", str(out), "--chunk-size", "3", "--concurrency", "4"]
    code, log = finish(_run(launch, *args, *_runner_args(launch), FAKE_REQUEST_S="0.3"))
    assert code == 0 and "done: 4 chunks written (12 requests)" in log, log
    flight = [int(n) for n in (tmp_path / "flight.txt").read_text().split()]
    # Never more than asked; four at once, so a chunk's next requests went out before one was written
    assert len(flight) == 12 and max(flight) == 4
    assert [o["custom_id"] for o in chunk_outputs(out)] == [f"r-{i}" for i in range(12)]


def test_vllm_batch_py_writes_what_vllm_refuses_and_fills_in_the_model(launch: Path, tmp_path: Path) -> None:
    given = tmp_path / "in.jsonl"
    given.write_text(
        _request("a", "refuse me")
        + _request("b", "no model given")  # the body's model filled in: the stand-in 404s without it
        + _request("c", "Once upon", url="/v1/completions", model="meta-llama/Llama-3.1-8B-Instruct")
    )
    out = tmp_path / "out"
    code, log = finish(
        _run(launch, "--input", str(given), "--output", str(out), "--chunk-size", "3", *_runner_args(launch))
    )
    assert code == 0, log
    assert "vLLM refused 1 requests (status not 200: see their error)" in log  # said, not only written
    a, b, c = chunk_outputs(out)
    assert a["custom_id"] == "a" and a["response"]["status_code"] == 400 and a["response"]["body"] is None
    assert a["error"] == {"error": {"message": "refused", "code": 400}}
    assert b["response"]["status_code"] == 200 and b["response"]["body"]["choices"][0]["message"]["content"]
    assert c["response"]["body"] == {"choices": [{"text": "Once upon"}]}


def test_vllm_batch_py_checks_every_line_before_vllm_starts_and_leaves_no_chunk_where_vllm_fails(
    launch: Path, tmp_path: Path
) -> None:
    runner = _runner_args(launch)
    out = tmp_path / "out"

    def run(lines: str, *more: str, **env: str) -> tuple[int, str]:
        given = tmp_path / "in.jsonl"
        given.write_text(lines)
        return finish(
            _run(
                launch,
                "--input",
                str(given),
                "--output",
                str(out),
                "--chunk-size",
                "3",
                *more,
                *runner,
                **env,
            )
        )

    good = "".join(_request(f"r-{i}", f"say {i}") for i in range(7))
    for bad, said in [
        ('{"custom_id": "a"}\n', "in.jsonl:8: missing method, url, body"),
        (_request("x", "hi", url="/v1/files"), "in.jsonl:8: url '/v1/files' is not one of"),
        (
            _request("x", "hi", model="Qwen/Qwen2.5-7B"),
            "in.jsonl:8: model 'Qwen/Qwen2.5-7B', but this job serves",
        ),
        (_request("x", "hi", stream=True), "in.jsonl:8: stream is on"),
        ("not json\n", "in.jsonl:8: not JSON"),
    ]:
        # the bad line is the last chunk's: refused before the server starts, no chunk written
        code, log = run(good + bad)
        assert code == 2 and said in log and "Traceback" not in log, log
        assert _starts(launch) == [] and not list(out.glob("chunk-*"))

    code, log = run("\n")  # an upstream step that wrote nothing: no night's work done (it had exited 0)
    assert code == 2 and "in.jsonl hold no request" in log and _starts(launch) == [], log
    code, log = run(good, FAKE_FAIL="1")
    assert code == 1 and "exited with status 1 before it was ready" in log and "Traceback" not in log, log
    code, log = run(good, "--concurrency", "1", FAKE_DIE_AT="5")  # dies at chunk 1's second request
    assert code == 3 and "vLLM's server exited with status 3" in log and "Traceback" not in log, log
    assert sorted(p.name for p in out.glob("chunk-*")) == ["chunk-00000-00000000.jsonl"]
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]
    # Outputs cut at another chunk size are not mixed with this run's.
    code, log = finish(
        _run(
            launch, "--input", str(tmp_path / "in.jsonl"), "--output", str(out), "--chunk-size", "2", *runner
        )
    )
    assert code == 2 and "run with --chunk-size 3" in log, log
    # vLLM's arguments are needed; the host and port are the script's.
    for args, said in [([], "--model"), ([*runner, "--port", "9000"], "--port is this script's to set")]:
        proc = _run(
            launch, "--input", str(tmp_path / "in.jsonl"), "--output", str(out), "--chunk-size", "3", *args
        )
        code, log = finish(proc)
        assert code == 2 and said in log, log


def test_a_generation_job_caps_the_context_at_prompt_and_answer_and_keeps_the_engine_full(
    tmp_path: Path,
) -> None:
    from gpuplan.hardware import get_gpu
    from gpuplan.perf.engines import engine_defaults

    p = tmp_path / "chats.yaml"
    p.write_text(
        "name: chats\ntask: infer\nmodel: {preset: llama-8b}\n"
        "inputs: {batch_size: 4, seq_len: 1024, output_tokens: 200}\ndata: {samples: 1000}\n"
    )
    files = generate(LaunchSpec.from_workload(p, gpu="L40S", count=2), "k8s")
    (container,) = _job(files)["spec"]["template"]["spec"]["containers"]
    # the requests the plan priced: 1,024 prompt and 200 answer tokens, and the chat template's own
    # (a prompt of exactly 1,024 tokens had been refused: "you requested 1254 tokens")
    assert _flag(container["command"], "--max-model-len") == str(1024 + 200 + 64)
    env = {e["name"]: e.get("value") for e in container["env"]}
    # the plan prices an always-full engine: twice its cap on running sequences in flight, as
    # vLLM's own batch runner keeps, not two batches of 4
    cap = engine_defaults(get_gpu("L40S")).max_num_seqs
    assert env["CONCURRENCY"] == str(2 * cap) and 2 * cap > 8
    readme = by_path(files)["README.md"]
    (example,) = _fences(readme, "json")
    assert json.loads(example)["body"]["max_tokens"] == 200
    (prepare,) = [b for b in _fences(readme, "bash") if "prompts.jsonl" in b]
    assert "meta-llama/Llama-3.1-8B-Instruct 200 < prompts.jsonl" in prepare
    assert "twice the engine's cap on running sequences" in readme


@pytest.mark.parametrize(
    ("target", "said", "not_said"),
    [
        ("k8s", "put it in the Secret `hf-token`", "docker run"),
        ("docker", "export HF_TOKEN before the `docker run` commands", "Secret"),
        ("skypilot", "export HF_TOKEN before `sky jobs launch`", "Secret"),
    ],
)
def test_each_targets_readme_says_where_its_token_comes_from(target: str, said: str, not_said: str) -> None:
    # the docker and skypilot READMEs had told the user to put it in a Kubernetes Secret
    from gpuplan.deploy import GenerateOptions

    options = GenerateOptions(out_dir="/srv/launch") if target == "skypilot" else None
    files = generate(_llm_batch_plan(), target, *([options] if options else []))
    readme = " ".join(by_path(files)["README.md"].split())
    (sentence,) = [s for s in readme.split(". ") if s.startswith("Gated models")]
    assert said in sentence and not_said not in sentence


def test_vllm_batch_py_keeps_no_server_error_as_an_answer_and_no_chunk_of_other_inputs(
    launch: Path, tmp_path: Path
) -> None:
    runner = _runner_args(launch)
    given, out = tmp_path / "in.jsonl", tmp_path / "out"
    given.write_text("".join(_request(f"r-{i}", f"say {i}") for i in range(6)))
    args = ["--input", str(given), "--output", str(out), "--chunk-size", "3", "--concurrency", "1"]
    # vLLM answers 500 once its engine fails (EngineDeadError): asked again, then the run stops
    # without the chunk; it had been written as that request's answer and kept on the rerun
    code, log = finish(_run(launch, *args, *runner, FAKE_500_AFTER="4"))
    assert code == 1 and "vLLM answered 500 to a request 3 times" in log and "Traceback" not in log, log
    assert sorted(p.name for p in out.glob("chunk-*")) == ["chunk-00000-00000000.jsonl"]
    code, log = finish(_run(launch, *args, *runner))
    assert code == 0 and "1 chunks written (3 requests), 1 already written before" in log, log
    assert [o["response"]["status_code"] for o in chunk_outputs(out)] == [200] * 6
    # The next night's inputs into the same outputs: refused before vLLM starts, not kept as tonight's
    starts = len(_starts(launch))
    given.write_text("".join(_request(f"r-{i}", f"tuesday {i}") for i in range(6)))
    code, log = finish(_run(launch, *args, *runner))
    assert code == 2 and "chunk-00000-00000000.jsonl was written from other inputs" in log, log
    assert len(_starts(launch)) == starts


def test_the_readmes_prepare_command_keeps_chinese_prompts_as_written(tmp_path: Path) -> None:
    # json.dumps' default had written each character as \uXXXX: an inputs file of Chinese chats
    # twice the size, read twice by every shard
    readme = by_path(generate(_llm_batch_plan(), "k8s"))["README.md"]
    (command,) = [b for b in _fences(readme, "bash") if "prompts.jsonl" in b]
    (tmp_path / "prompts.jsonl").write_text(json.dumps({"prompt": "总结这段客服对话"}) + "\n")
    subprocess.run(
        ["bash", "-e", "-c", command.replace("python3 ", f"{sys.executable} ")], cwd=tmp_path, check=True
    )
    line = (tmp_path / "inputs.jsonl").read_text(encoding="utf-8")
    assert "总结这段客服对话" in line and "\\u" not in line
    assert json.loads(line)["body"]["messages"][0]["content"] == "总结这段客服对话"


def test_a_plan_shown_in_yuan_says_the_runs_cost_in_yuan_at_its_own_rate() -> None:
    # the plan had been made with --currency CNY (¥807.98) and its README said only "$115.66"
    doc = json.loads(json.dumps(_SERVICE))
    doc["workload"]["serving"] = None
    doc["display_currency"] = "CNY"
    doc["exchange_rate"] = {"currency": "CNY", "usd_per_unit": 0.14315, "units_per_usd": 6.9858,
                            "as_of": "2026-01-27", "source": "CFETS"}  # fmt: skip
    spec = LaunchSpec.from_plan(doc)
    readme = " ".join(by_path(generate(spec, "k8s"))["README.md"].split())
    assert spec.run_cost_usd is not None
    cny = spec.run_cost_usd * 6.9858
    assert f"¥{cny:,.2f} ($5,440.50 at the plan's 1 USD = 6.9858 CNY, 2026-01-27) all-in" in readme
    # a rate a plan file should not hold is not taken: the dollars alone
    doc["exchange_rate"]["units_per_usd"] = 1e9
    readme = by_path(generate(LaunchSpec.from_plan(doc), "k8s"))["README.md"]
    assert "$5,440.50 all-in" in readme and "¥" not in readme


def _generation_job(tmp_path: Path, preset: str, seq_len: int = 1024) -> list[Any]:
    p = tmp_path / f"{preset}.yaml"
    p.write_text(
        f"name: gen\ntask: infer\nmodel: {{preset: {preset}}}\n"
        f"inputs: {{batch_size: 4, seq_len: {seq_len}, output_tokens: 100}}\ndata: {{samples: 1000}}\n"
    )
    return generate(LaunchSpec.from_workload(p, gpu="L40S", count=1), "k8s")


def test_a_pretrained_llama_preset_runs_its_instruction_tuned_checkpoint_and_says_so(tmp_path: Path) -> None:
    # Meta's base checkpoint answers a chat poorly (Llama 3.2's base tokenizer has no chat template
    # at all): the job had loaded meta-llama/Llama-3.1-8B and sent it chat requests.
    files = _generation_job(tmp_path, "llama-8b")
    (container,) = _job(files)["spec"]["template"]["spec"]["containers"]
    assert _flag(container["command"], "--model") == "meta-llama/Llama-3.1-8B-Instruct"
    readme = by_path(files)["README.md"]
    assert "`meta-llama/Llama-3.1-8B-Instruct` is the instruction-tuned checkpoint" in readme
    assert "the pretrained `meta-llama/Llama-3.1-8B` is not tuned to follow a prompt" in readme
    (example,) = _fences(readme, "json")
    assert json.loads(example)["url"] == "/v1/chat/completions"


def test_a_checkpoint_without_a_chat_template_gets_plain_completions(tmp_path: Path) -> None:
    # GPT-2 has no chat template: vLLM refuses /v1/chat/completions to it, so every request of the
    # README's own making had come back an error.
    files = _generation_job(tmp_path, "gpt2", seq_len=512)
    readme = by_path(files)["README.md"]
    (example,) = _fences(readme, "json")
    line = json.loads(example)
    assert line["url"] == "/v1/completions" and line["body"]["prompt"] and "messages" not in line["body"]
    assert "`openai-community/gpt2` has no chat template" in readme
    assert "response.body.choices[0].text" in readme and "message.content" not in readme
    launch = tmp_path / "launch"
    write_files(files, launch)
    requests = _prepare(launch, tmp_path / "in", ["Once upon a time", "In a hole in the ground"])
    assert [r["url"] for r in requests] == ["/v1/completions"] * 2
    assert [r["body"]["prompt"] for r in requests] == ["Once upon a time", "In a hole in the ground"]
    assert all(
        r["body"]["model"] == "openai-community/gpt2" and r["body"]["max_tokens"] == 100 for r in requests
    )


def test_vllm_batch_py_refuses_a_custom_id_given_twice_in_its_shard_before_vllm_starts(
    launch: Path, tmp_path: Path
) -> None:
    # The outputs are matched to the inputs by custom_id, which the OpenAI Batch API and vLLM's
    # BatchRequestInput say is unique in a batch: two answers under one id had been written, and
    # which answer is whose was lost. A shard reads only its own part of the inputs: it checks its
    # own lines, and the README says a custom_id in two shards' parts is not seen.
    readme = " ".join((launch / "README.md").read_text().split())
    assert "a custom_id given twice in the shard's part, stops the shard at once" in readme
    assert "A custom_id given in two shards' parts is not seen" in readme
    runner = _runner_args(launch)
    folder, out = tmp_path / "in", tmp_path / "out"
    folder.mkdir()

    def shard(n: int, shards: int = 1) -> tuple[int, str]:
        args = ["--input", str(folder), "--output", str(out), "--chunk-size", "2"]
        return finish(_run(launch, *args, "--shards", str(shards), "--shard", str(n), *runner))

    # "r-1" is on a.jsonl:2 and b.jsonl:5 (after a blank line), in different chunks of the shard.
    (folder / "a.jsonl").write_text("".join(_request(f"r-{i}", f"say {i}") for i in range(4)))
    (folder / "b.jsonl").write_text(
        "".join(_request(f"r-{i}", f"say {i}") for i in (4, 5, 6)) + "\n" + _request("r-1", "again")
    )
    code, log = shard(0)
    assert code == 2 and "Traceback" not in log, log
    assert "custom_id given more than once: 'r-1' on a.jsonl:2, b.jsonl:5" in log, log
    assert _starts(launch) == [] and not list(out.glob("chunk-*"))

    # Three duplicates, each named; in three shards the last one's part (b.jsonl's last lines)
    # holds "r-9" twice: that shard refuses, naming it.
    (folder / "b.jsonl").write_text(
        _request("r-0", "again") + _request("r-2", "again") + _request("r-9", "x") * 2
    )
    code, log = shard(0)
    said = "'r-0' on a.jsonl:1, b.jsonl:1; 'r-2' on a.jsonl:3, b.jsonl:2; 'r-9' on b.jsonl:3, b.jsonl:4"
    assert code == 2 and said in log, log
    out = tmp_path / "out3"  # the refused runs' outputs were cut for one shard
    code, log = shard(2, shards=3)
    assert code == 2 and "custom_id given more than once: 'r-9' on b.jsonl:3, b.jsonl:4." in log, log
    assert _starts(launch) == []

    out = tmp_path / "out"
    # A custom_id that is no string cannot name an output: refused on its own line.
    (folder / "b.jsonl").write_text(_request("r-4", "fine").replace('"r-4"', "4"))
    code, log = shard(0, shards=1)
    assert code == 2 and "b.jsonl:1: custom_id must be a string" in log, log

    # Unique again: the job runs.
    (folder / "b.jsonl").write_text(_request("r-4", "fine"))
    code, log = shard(0, shards=1)
    assert code == 0 and "done: 3 chunks written (5 requests)" in log, log
    assert [o["custom_id"] for o in chunk_outputs(out)] == [f"r-{i}" for i in range(5)]


def test_a_spot_service_starts_the_spare_its_plan_priced() -> None:
    # The plan priced one spare spot instance beside the 4 replicas of the load; the Deployment
    # had run 4, so each reclaim left the service below its load target, unlike the plan's figures.
    doc = json.loads(json.dumps(_SERVICE))
    doc["recommended"]["pricing"] = "spot"
    doc["recommended"]["spot"] = {
        "interruptions_per_instance_hour": 1 / 24,
        "mtbi_h": 4.8,
        "rate_source": "assumed",
        "rate_assumed": True,
        "checkpoint_write_min": None,
        "checkpoint_interval_min": None,
        "checkpoint_overhead_h": None,
        "expected_lost_h": None,
        "expected_interruptions": 182.5,
        "service": {
            "interruptions_per_month": 152.1,
            "down_min_per_reclaim": 10.5,
            "down_assumed": "a replacement and the weights read back",
            "replicas": 4,
            "replicas_per_reclaim": 1,
            "replica_hours_down_per_month": 26.6,
            "below_target_share": 0.036,
            "spare_instances": 1,
            "spare_usd": 300.0,
            "below_target_share_with_spare": 0.0003,
            "spare_interruptions_per_month": 30.4,
        },
    }
    spec = LaunchSpec.from_plan(doc)
    assert spec.spare_replicas == 1
    assert spec.serving is not None and spec.serving.min_replicas == 5
    files = generate(spec, "k8s")
    (deployment,) = [d for d in yaml_docs(files) if d["kind"] == "Deployment"]
    assert deployment["spec"]["replicas"] == 5
    readme = " ".join(by_path(files)["README.md"].split())
    assert (
        "a spare instance against spot reclaims (spare replicas: 1, beside the 4 that carry the load)"
        in readme
    )
    assert "the service starts all 5" in readme
    # the autoscaler's room above them (twice the load's, the spare once) is billed apart, which the
    # plan did not price
    assert (
        "Replicas the autoscaler adds above the 5 the plan priced (up to 9) are not in the plan's cost"
        in readme
    )


def test_the_autoscalers_room_above_the_plan_is_said_in_money() -> None:
    # The plan calls its fleet all month the bound; the HPA may run twice its replicas: a team read
    # the plan's figure as the most the service could cost. The README says the ceiling's cost.
    spec = LaunchSpec.from_plan(json.loads(json.dumps(_SERVICE)))
    assert spec.serving is not None and spec.instance_usd_per_hour is not None
    priced, most = spec.serving.min_replicas, spec.serving.max_replicas
    per_instance = spec.gpus_per_node // (spec.tensor_parallel * spec.pipeline_parallel)
    more = -(-most // per_instance) - (-(-priced // per_instance))
    assert more > 0
    readme = " ".join(by_path(generate(spec, "k8s"))["README.md"].split())
    amount = more * 730 * spec.instance_usd_per_hour
    assert (
        f"At {most} replicas all month that is ${amount:,.2f} more than the plan's fleet ({more} more "
        f"instance(s) × 730 h × ${spec.instance_usd_per_hour:,.3f}/h)"
    ) in readme, readme
