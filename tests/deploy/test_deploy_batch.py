"""Batch inference (an inference workload without a serving: block): ``--target k8s`` writes an
Indexed Job whose pods each run batch.py over their shard, and batch.py runs for real on a CPU,
resuming a shard after an interruption without redoing the chunks it wrote."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from deploy_helpers import (
    FIXTURES,
    by_path,
    chunk_outputs,
    finish,
    refused_without_gpu,
    validate_k8s,
    yaml_docs,
)

from gpuplan.deploy import BATCH_TARGETS, LaunchSpec, generate, target_names, write_files
from gpuplan.errors import DeployError


def _llm_batch_plan(**recommended: Any) -> LaunchSpec:
    """The served Llama plan (4 x g6e.xlarge, one L40S each, $5,440.50) without its serving block:
    Llama 3.1 8B, whose Hub weights vLLM runs."""
    doc = json.loads((FIXTURES / "plan_serve_llama_aws.json").read_text())
    doc["workload"]["serving"] = None
    doc["recommended"].update(recommended)
    return LaunchSpec.from_plan(doc)


def _batch_plan(**recommended: Any) -> LaunchSpec:
    """That plan of a decoder whose Hub weights are not known: batch.py runs it (the stand-in)."""
    return _llm_batch_plan(**recommended).model_copy(update={"hf_model_id": None})


def _batch_workload(tmp_path: Path, **launch: Any) -> LaunchSpec:
    p = tmp_path / "titles.yaml"
    p.write_text(
        "name: titles\ntask: infer\nmodel: {preset: bert-base}\ninputs: {batch_size: 4, seq_len: 8}\n"
    )
    return LaunchSpec.from_workload(p, **launch)


def _job(files: list[Any]) -> dict[str, Any]:
    (job,) = [d for d in yaml_docs(files) if d["kind"] == "Job"]
    return job


def test_k8s_writes_an_indexed_job_of_a_shard_per_gpu_checked_against_the_kubernetes_schema() -> None:
    spec = _batch_plan()
    files = generate(spec, "k8s")
    docs = yaml_docs(files)
    assert sorted(d["kind"] for d in docs) == ["ConfigMap", "Job", "PersistentVolumeClaim", "Pod"]
    for doc in docs:
        validate_k8s(doc)
    job = _job(files)["spec"]
    # 4 instances of one L40S each: 4 shards at once, one GPU each
    assert job["completionMode"] == "Indexed"
    assert job["completions"] == job["parallelism"] == 4
    pod = job["template"]["spec"]
    (container,) = pod["containers"]
    assert container["resources"]["limits"] == {"nvidia.com/gpu": 1}
    assert container["command"] == ["python", "/workspace/batch.py"]
    env = {e["name"]: e["value"] for e in container["env"]}
    assert (
        env["SHARD_COUNT"] == "4"
        and env["INPUT_PATH"] == "/data/inputs"
        and env["OUTPUT_DIR"] == "/data/outputs"
    )
    # A reclaimed pod is not a failure: the Job starts its index again (restartPolicy Never is what
    # podFailurePolicy requires), and a failed shard is retried on its own.
    assert pod["restartPolicy"] == "Never"
    assert job["backoffLimitPerIndex"] >= 1 and "backoffLimit" not in job
    rules = job["podFailurePolicy"]["rules"]
    assert {"type": "DisruptionTarget", "status": "True"} in rules[0]["onPodConditions"]
    assert rules[0]["action"] == "Ignore"
    by_code = {r["onExitCodes"]["values"][0]: r["action"] for r in rules if "onExitCodes" in r}
    # bad inputs (2) fail the index at once; no GPU seen (3, the node's fault) is retried as any
    # failure, up to backoffLimitPerIndex: it had been 2 too, and failed the index at once
    assert by_code == {143: "Ignore", 2: "FailIndex", 3: "Count"}
    # No Service, no autoscaler, no Deployment: nothing stays up after the inputs are done.
    assert not any(d["kind"] in ("Deployment", "Service", "HorizontalPodAutoscaler") for d in docs)
    # The pod's code: train.py (the model) and batch.py from the ConfigMap.
    (configmap,) = [d for d in docs if d["kind"] == "ConfigMap"]
    assert sorted(configmap["data"]) == ["batch.py", "preset_model.py", "train.py"]  # llama-8b: its own code
    claim = next(d for d in docs if d["kind"] == "PersistentVolumeClaim")
    assert claim["spec"]["accessModes"] == ["ReadWriteMany"]  # every shard's pod writes it


def test_a_plan_of_eight_gpu_instances_runs_a_shard_per_gpu_and_one_split_model_per_pod(
    tmp_path: Path,
) -> None:
    spec = _batch_workload(tmp_path, gpu="H100-SXM", count=8, nodes=2)
    job = _job(generate(spec, "k8s"))["spec"]
    assert job["completions"] == job["parallelism"] == 16
    # A model the plan splits over 2 GPUs: a pod (and a copy of the model) per 2 GPUs
    split = spec.model_copy(update={"tensor_parallel": 2})
    files = generate(split, "k8s")
    job = _job(files)["spec"]
    assert job["completions"] == 8
    assert job["template"]["spec"]["containers"][0]["resources"]["limits"] == {"nvidia.com/gpu": 2}
    assert "runs the model on one of them" in by_path(files)["README.md"]


def test_the_readme_says_inputs_outputs_how_to_watch_and_the_plans_cost() -> None:
    readme = by_path(generate(_batch_plan(), "k8s"))["README.md"]
    assert "kubectl cp inputs.jsonl llama8b-chat-service-data:/data/inputs/inputs.jsonl" in readme
    assert "kubectl get job llama8b-chat-service --watch" in readme
    assert "kubectl cp llama8b-chat-service-data:/data/outputs ./outputs" in readme
    assert "JSON Lines" in readme and "chunk-00000-00000000.jsonl" in readme
    # the plan's total_cost_usd and job_time_h, on its 4 x g6e.xlarge
    assert "$5,440.50 all-in: 730.2 h on 4 x g6e.xlarge" in readme
    # preset llama-8b: batch.py runs it as train.py builds it from the preset's own code
    assert "batch.py runs preset llama-8b as train.py builds it from preset_model.py" in " ".join(
        readme.split()
    )
    # the volume's class comes first: a default disk class leaves a claim of several nodes Pending
    said = " ".join(readme.split())
    assert "First set storageClassName in k8s/data-pvc.yaml to a ReadWriteMany class, " in said
    assert said.index("First set storageClassName") < said.index("kubectl apply -f k8s/data-pvc.yaml")


def test_without_a_plan_the_readme_says_the_cost_is_not_known(tmp_path: Path) -> None:
    readme = by_path(generate(_batch_workload(tmp_path, gpu="L4"), "k8s"))["README.md"]
    assert "No plan priced this run" in readme and "$" not in readme


def test_the_chinese_readme_says_the_cost_in_chinese() -> None:
    from gpuplan.i18n import use_language

    with use_language("zh"):
        readme = by_path(generate(_batch_plan(), "k8s"))["README.md"]
    assert "$5,440.50" in readme and "kubectl get job llama8b-chat-service --watch" in readme
    assert "No plan" not in readme and "The plan prices" not in readme and "输入" in readme


@pytest.mark.parametrize("target", sorted(set(target_names()) - set(BATCH_TARGETS)))
def test_the_other_targets_refuse_a_batch_job_naming_the_one_that_writes_it(target: str) -> None:
    with pytest.raises(DeployError) as e:
        generate(_batch_plan(), target)
    assert "\n" not in str(e.value)
    assert f"--target {target} writes training jobs and always-on services" in str(e.value)
    assert "exits: use --target docker or --target k8s or --target skypilot; or add" in str(e.value)


@pytest.mark.parametrize("cost", [-1.0, 1e13])
def test_a_plans_cost_out_of_range_is_refused_in_one_line(cost: float) -> None:
    # The cost reaches the README: a plan from someone else gets no say beyond a plausible number.
    with pytest.raises(DeployError, match="run_cost_usd") as e:
        _batch_plan(total_cost_usd=cost)
    assert "\n" not in str(e.value)


def _fenced(readme: str) -> str:
    return "\n".join(re.findall(r"^```bash\n(.*?)^```", readme, re.S | re.M))


@pytest.mark.parametrize(("gpus", "nodes", "split"), [(1, 1, 1), (4, 1, 1), (4, 2, 1), (4, 2, 2), (1, 3, 1)])
def test_the_docker_readme_runs_every_shard_once_on_its_own_gpus(
    gpus: int, nodes: int, split: int, tmp_path: Path
) -> None:
    spec = _batch_workload(tmp_path, gpu="L4", count=gpus, nodes=nodes).model_copy(
        update={"tensor_parallel": split}
    )
    files = by_path(generate(spec, "docker"))
    assert 'ENTRYPOINT ["python", "/workspace/batch.py"]' in files["Dockerfile"]
    assert "COPY train.py batch.py /workspace/" in files["Dockerfile"]
    # The README's commands, run by bash on each machine with a docker that prints what it is given.
    work = tmp_path / "run"
    work.mkdir()
    (work / "inputs.jsonl").write_text("[1]\n")
    (work / "data" / "outputs").mkdir(parents=True)
    (work / "data" / "outputs" / "chunk-00000000.jsonl").write_text("{}\n")  # what the runs would write
    script = 'docker() { echo "docker $*"; }\n' + _fenced(files["README.md"])
    runs = []
    for machine in range(nodes):
        text = script.replace("MACHINE=0", f"MACHINE={machine}")
        done = subprocess.run(
            ["bash", "-e", "-c", text], cwd=work, capture_output=True, text=True, check=True
        )
        runs += [line for line in done.stdout.splitlines() if line.startswith("docker run")]
    shards = nodes * gpus // split
    assert len(runs) == shards
    if shards == 1:
        assert "JOB_COMPLETION_INDEX" not in runs[0] and "--gpus all" in runs[0]
        return
    # The runs start in the background: their lines come in any order. Each shard's index once, and
    # its own GPUs of its machine: 4 GPUs in 2 shards of 2 are "device=0,1" and "device=2,3".
    given = {
        int(re.search(r"JOB_COMPLETION_INDEX=(\d+)", r)[1]): re.search(r"--gpus (\S+)", r)[1]  # type: ignore[index]
        for r in runs
    }
    assert sorted(given) == list(range(shards))
    assert all(f"SHARD_COUNT={shards}" in r for r in runs)
    per_machine = gpus // split
    for index, devices in given.items():
        first = index % per_machine * split
        assert devices == (
            f'"device={",".join(str(first + k) for k in range(split))}"' if split > 1 else f"device={first}"
        )
    # Every shard's status is waited for, not the last one's: a shard that fails (bad inputs) is said.
    failing = 'docker() { case "$*" in *"JOB_COMPLETION_INDEX=1 "*) return 2;; esac; }\n' + _fenced(
        files["README.md"]
    )
    done = subprocess.run(["bash", "-c", failing], cwd=work, capture_output=True, text=True, check=True)
    assert f"shards failed: {1 if nodes == 1 or per_machine > 1 else 0}" in done.stdout, done.stdout


def test_a_service_plan_deploys_as_before() -> None:
    doc = json.loads((FIXTURES / "plan_serve_llama_aws.json").read_text())
    files = generate(LaunchSpec.from_plan(doc), "k8s")
    kinds = {d["kind"] for d in yaml_docs(files)}
    assert "Deployment" in kinds and "Job" not in kinds
    assert "batch.py" not in by_path(files)


# ---- batch.py, for real, on a CPU --------------------------------------------------------------------

#: A tiny stand-in: the generated batch.py run with these takes a fraction of a second a chunk, on the
#: CPU on purpose (without --device cpu, batch.py refuses a machine where CUDA sees no GPU).
_TINY = ["--device", "cpu", "--width", "16", "--depth", "1", "--ckpt-dir", "none", "--chunk-size", "3"]


def _inputs(folder: Path) -> list[Any]:
    """13 samples of 8 token ids in two files (read in name order), some with an id, a blank line."""
    folder.mkdir()
    samples: list[Any] = [
        {"id": f"t{i}", "input": [(7 * i + j) % 1000 for j in range(8)]}
        if i % 2
        else [(7 * i + j) % 1000 for j in range(8)]
        for i in range(13)
    ]
    (folder / "a.jsonl").write_text("".join(json.dumps(s) + "\n" for s in samples[:6]) + "\n")
    (folder / "b.jsonl").write_text("".join(json.dumps(s) + "\n" for s in samples[6:]))
    return samples


def _line_starts(folder: Path) -> list[tuple[str, int]]:
    """(file name, byte offset) of every line not blank of the .jsonl files in ``folder``, in order."""
    starts = []
    for f in sorted(folder.glob("*.jsonl")):
        offset = 0
        for line in f.read_bytes().splitlines(keepends=True):
            if line.strip():
                starts.append((f.name, offset))
            offset += len(line)
    return starts


def _run_py(launch: Path, *args: str, **kwargs: Any) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "batch.py", *args],
        cwd=launch,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        **kwargs,
    )


def test_batch_py_runs_two_shards_and_resumes_an_interrupted_one_without_redoing_its_chunks(
    tmp_path: Path,
) -> None:
    launch = tmp_path / "launch"
    write_files(generate(_batch_workload(tmp_path, gpu="L4", count=2), "k8s"), launch)
    samples = _inputs(tmp_path / "in")
    out, whole = tmp_path / "out", tmp_path / "whole"
    common = ["--input", str(tmp_path / "in"), "--shards", "2", *_TINY]

    # The same inputs in one uninterrupted shard: what the two shards together must write.
    code, log = finish(_run_py(launch, *common[:2], "--output", str(whole), *_TINY))
    assert code == 0, log
    expected = chunk_outputs(whole)
    # 13 samples in input order (the blank line skipped), each named by its file and the byte its
    # line starts at, with its id where it had one
    assert [(o["file"], o["offset"]) for o in expected] == _line_starts(tmp_path / "in")
    assert [o.get("id") for o in expected] == [s["id"] if isinstance(s, dict) else None for s in samples]
    assert all(len(o["output"]) == 8 for o in expected)  # a next-token id per position

    # Shard 0 (the first half of the inputs' bytes: 7 samples, 3 chunks) runs whole; shard 1 (the
    # other 6: 2 chunks) is stopped by SIGTERM, as Kubernetes stops a pod, once its first chunk is
    # written.
    code, log = finish(_run_py(launch, *common, "--output", str(out), "--shard", "0"))
    assert code == 0 and "done: 3 chunks written (7 samples)" in log, log
    proc = _run_py(launch, *common, "--output", str(out), "--shard", "1", "--throttle-s", "1.5")
    first = out / "chunk-00001-00000000.jsonl"
    deadline = time.monotonic() + 60
    while not first.exists():
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()[0]
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    code, log = finish(proc)
    assert code == 143, log  # the Job's podFailurePolicy does not count it as a failure
    assert not (out / "chunk-00001-00000001.jsonl").exists()
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]  # the chunk cut short left nothing
    written = first.stat()

    # Started again (a new pod for the index): it skips its chunk 0 and writes chunk 1, then exits 0.
    code, log = finish(_run_py(launch, *common, "--output", str(out), "--shard", "1"))
    assert code == 0, log
    assert "wrote chunk-00001-00000001.jsonl" in log and "chunk-00001-00000000" not in log
    assert "done: 1 chunks written (3 samples), 1 already written before" in log
    assert (first.stat().st_ino, first.stat().st_mtime_ns) == (written.st_ino, written.st_mtime_ns)
    # Both shards together: every sample once, in input order, as the uninterrupted run wrote them.
    assert chunk_outputs(out) == expected

    # Once more: nothing left to do.
    code, log = finish(_run_py(launch, *common, "--output", str(out), "--shard", "1"))
    assert code == 0 and "done: 0 chunks written (0 samples), 2 already written before" in log, log


@dataclass(frozen=True)
class _GoodRun:
    """One run of the one-GPU job's batch.py over two samples, with the tiny stand-in on the CPU."""

    launch: Path
    good: Path
    out: Path
    code: int
    log: str


@pytest.fixture(scope="module")
def one_gpu_job(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The files of the one-GPU batch job (``--target k8s``), written once for the module; the tests
    run its batch.py and write only in folders of their own."""
    folder = tmp_path_factory.mktemp("batch-one-gpu")
    write_files(generate(_batch_workload(folder, gpu="L4"), "k8s"), folder / "launch")
    return folder / "launch"


@pytest.fixture(scope="module")
def good_run(one_gpu_job: Path, tmp_path_factory: pytest.TempPathFactory) -> _GoodRun:
    """batch.py run once over a good input into a new output folder, with ``--device cpu`` and the
    tiny stand-in (``_TINY``): the run two tests check, a torch start-up less than each running it."""
    folder = tmp_path_factory.mktemp("batch-good-run")
    good = folder / "good.jsonl"
    good.write_text("[1, 2]\n[3, 4]\n")
    out = folder / "o"
    code, log = finish(_run_py(one_gpu_job, "--input", str(good), "--output", str(out), *_TINY))
    return _GoodRun(one_gpu_job, good, out, code, log)


def test_batch_py_refuses_bad_input_in_one_line_with_status_2(tmp_path: Path, good_run: _GoodRun) -> None:
    launch = good_run.launch
    bad = tmp_path / "bad.jsonl"
    bad.write_text("[1, 2]\nnot json\n")
    code, log = finish(_run_py(launch, "--input", str(bad), "--output", str(tmp_path / "o"), *_TINY))
    assert code == 2 and "bad.jsonl:2: not JSON" in log and "Traceback" not in log, log
    code, log = finish(
        _run_py(launch, "--input", str(tmp_path / "none"), "--output", str(tmp_path / "o"), *_TINY)
    )
    assert code == 2 and "no such file or folder" in log and "Traceback" not in log, log
    # An empty input (an upstream step that wrote nothing) is no run done: it had exited 0.
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    code, log = finish(_run_py(launch, "--input", str(empty), "--output", str(tmp_path / "o"), *_TINY))
    assert code == 2 and "empty.jsonl hold no sample" in log and "Traceback" not in log, log
    # Outputs cut at another chunk size are not mixed with this run's (a copy of them: the run's
    # own folder is shared with the next test).
    assert good_run.code == 0, good_run.log
    out = str(tmp_path / "o2")
    shutil.copytree(good_run.out, out)
    code, log = finish(_run_py(launch, "--input", str(good_run.good), "--output", out, *_TINY[:-1], "2"))
    assert code == 2 and "run with --chunk-size 3" in log, log


def test_batch_py_refuses_a_machine_without_a_visible_gpu_unless_asked_for_the_cpu(
    tmp_path: Path, good_run: _GoodRun
) -> None:
    # batch.py took the CPU silently where CUDA saw no GPU (a GPU node whose container cannot see
    # its GPUs): the batch ran at CPU speed, billed at the GPU's price.
    launch = good_run.launch
    out = tmp_path / "o"
    tiny = [a for a in _TINY if a not in ("--device", "cpu")]
    refused_without_gpu(
        launch, "batch.py", "--input", str(good_run.good), "--output", str(out), *tiny, doing="run the batch"
    )
    assert not out.exists()  # nothing written, not even the chunk size
    # --help says each status: a launcher's policy is written on them
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    help_ = [sys.executable, "batch.py", "--help"]
    shown = subprocess.run(help_, cwd=launch, env=env, capture_output=True, text=True, check=True).stdout
    said = " ".join(shown.split())
    assert "2 for bad inputs or arguments; 3 where CUDA sees no GPU" in said, said
    assert "cannot see is refused, with exit status 3" in said, said
    # The same arguments with --device cpu run (into a new folder, as the refused run had left none).
    assert good_run.code == 0 and "done: 1 chunks written (2 samples)" in good_run.log, good_run.log


def test_batch_py_never_keeps_a_chunk_written_from_other_inputs(tmp_path: Path, one_gpu_job: Path) -> None:
    # A chunk file had been taken as done whatever inputs it came from: a second night into the
    # same outputs kept the first night's, and a line removed from a fixed file shifted every
    # chunk after it (duplicates and gaps, exit 0).
    launch = one_gpu_job
    night = tmp_path / "night.jsonl"
    out = str(tmp_path / "o")
    night.write_text("".join(f"[{i}, {i + 1}]\n" for i in range(7)))
    assert finish(_run_py(launch, "--input", str(night), "--output", out, *_TINY))[0] == 0
    assert (tmp_path / "o" / "_inputs" / "chunk-00000-00000000.sha256").is_file()
    # the same inputs again: every chunk kept
    code, log = finish(_run_py(launch, "--input", str(night), "--output", out, *_TINY))
    assert code == 0 and "0 chunks written (0 samples), 3 already written before" in log, log
    for changed in (
        "".join(f"[{i + 100}, {i + 1}]\n" for i in range(7)),  # the next night's inputs
        "".join(f"[{i}, {i + 1}]\n" for i in range(7) if i != 1),  # a line removed
    ):
        night.write_text(changed)
        code, log = finish(_run_py(launch, "--input", str(night), "--output", out, *_TINY))
        assert code == 2 and "chunk-00000-00000000.jsonl was written from other inputs" in log, log
        assert "empty" in log and "Traceback" not in log


def test_service_settings_on_a_batch_job_are_refused_not_ignored() -> None:
    with pytest.raises(DeployError, match="share_gpu: only for services") as e:
        _batch_plan().with_serving(share_gpu=2)
    assert "batch inference" in str(e.value) and "\n" not in str(e.value)


def test_batch_py_shards_read_byte_ranges_and_together_run_every_line_once(
    tmp_path: Path, one_gpu_job: Path
) -> None:
    # Every shard had read every line of the inputs to cut chunk c for shard c % shards: a node of
    # a data-bound job read the whole dataset. Now each reads its byte range, and 1, 2 and 3 shards
    # write what one does: lines of uneven lengths, so the ranges' ends fall inside lines, a blank
    # line, a file without its last newline, and more shards than one file's lines.
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.jsonl").write_text(
        "".join(json.dumps([i] * (1 + 5 * (i % 3))) + "\n" for i in range(5)) + "\n"
    )
    (folder / "b.jsonl").write_text("\n".join(json.dumps({"id": f"b{i}", "input": [i, i]}) for i in range(4)))
    (folder / "c.jsonl").write_text(json.dumps([9] * 11) + "\n")
    tiny = [*_TINY[:-1], "2", "--batch-size", "1"]
    whole = tmp_path / "whole"
    code, log = finish(_run_py(one_gpu_job, "--input", str(folder), "--output", str(whole), *tiny))
    assert code == 0, log
    expected = chunk_outputs(whole)
    assert [(o["file"], o["offset"]) for o in expected] == _line_starts(folder)
    assert [o.get("id") for o in expected] == [None] * 5 + [f"b{i}" for i in range(4)] + [None]
    for shards in (2, 3):
        out = tmp_path / f"out{shards}"
        for n in range(shards):
            args = ["--input", str(folder), "--output", str(out), "--shards", str(shards), "--shard", str(n)]
            code, log = finish(_run_py(one_gpu_job, *args, *tiny))
            assert code == 0, log
        # the chunks in name order: every line once, in input order, as the one shard wrote them
        assert chunk_outputs(out) == expected
        assert {p.name[:11] for p in out.glob("chunk-*")} == {f"chunk-{n:05d}" for n in range(shards)}
    # another shard count into the same outputs would name other lines: refused
    code, log = finish(
        _run_py(one_gpu_job, "--input", str(folder), "--output", str(whole), "--shards", "2", *tiny)
    )
    assert code == 2 and "run with --shards 1" in log, log


def test_a_shards_byte_range_holds_the_lines_that_begin_in_it(tmp_path: Path) -> None:
    """The splitting both batch scripts run (``shard_lines``, the same in each), over many shard
    counts: every line is one shard's, whichever byte a range's end falls on."""
    import importlib.util

    templates = Path(__file__).parents[2] / "src/gpuplan/deploy/templates"
    path = templates / "vllm_batch_entry.py"
    # one splitting in both scripts (vllm_batch.py runs alone in vLLM's image, so it has its own copy)
    batch_py = (templates / "batch_entry.py").read_text()
    splitting = batch_py[batch_py.index("def shard_lines") : batch_py.index("def parse(")]
    assert splitting in path.read_text()
    loaded = importlib.util.spec_from_file_location("vllm_batch_under_test", path)
    assert loaded is not None and loaded.loader is not None
    module = importlib.util.module_from_spec(loaded)
    loaded.loader.exec_module(module)
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.jsonl").write_bytes(b"x\n" + b"yyyyyyyyyy\n" + b"\n" + b"zz\n")
    (folder / "b.jsonl").write_bytes(b"")
    (folder / "c.jsonl").write_bytes(b"\n".join(b"%d" % i * (i + 1) for i in range(9)))  # no last newline
    files = module.input_files(folder)
    every = [(f.name, offset, line) for f, offset, line in module.shard_lines(files, 0, 1)]
    assert len(every) == 4 + 9
    for shards in range(1, 40):
        parts = [
            [(f.name, offset, line) for f, offset, line in module.shard_lines(files, n, shards)]
            for n in range(shards)
        ]
        assert [row for part in parts for row in part] == every, shards
