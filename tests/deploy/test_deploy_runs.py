"""Deploy output that runs as written: labels the API server accepts, the user's package in the image,
exit code 143 after SIGTERM, and a README in every generated folder."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from deploy_helpers import FIXTURES, k8s_options, plan_doc, refused_without_gpu, serve_workload, yaml_docs

from gpuplan.deploy import GenerateOptions, LaunchSpec, generate, target_names, write_files
from gpuplan.errors import DeployError
from gpuplan.i18n import use_language

#: The API server's label value rule (k8s.io/apimachinery validation.go, LabelValueFmt), 63 chars.
LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")
OWN_MODEL = Path(__file__).parents[2] / "examples" / "own-model" / "text-classifier.yaml"


def _label_values(doc: Any) -> list[str]:
    """Every value of a ``labels``, ``matchLabels`` or ``nodeSelector`` mapping, at any depth."""
    found: list[str] = []
    if isinstance(doc, dict):
        for k, v in doc.items():
            if k in ("labels", "matchLabels", "nodeSelector") and isinstance(v, dict):
                found.extend(str(x) for x in v.values())
            else:
                found.extend(_label_values(v))
    elif isinstance(doc, list):
        for v in doc:
            found.extend(_label_values(v))
    return found


def _specs(tmp_path: Path) -> list[LaunchSpec]:
    article = plan_doc(instance_type="A100 40GB (article 004 table)", gpu="A100-SXM4-40GB", gpu_count=1)
    gcp_host = "n1-standard-4 + 1x nvidia-tesla-t4"
    gcp_pair = plan_doc(provider="gcp", region="us-central1", instance_type=gcp_host, gpu="T4", gpu_count=1)
    return [
        LaunchSpec.from_plan(article),
        LaunchSpec.from_plan(gcp_pair),
        LaunchSpec.from_plan_json(FIXTURES / "plan_multinode_gcp.json"),
        LaunchSpec.from_workload(
            serve_workload(tmp_path), gpu="A100-SXM4-80GB", provider="gcp", pricing="spot"
        ),
        LaunchSpec.from_workload(OWN_MODEL, gpu="T4", provider="azure", pricing="spot"),
    ]


def test_every_label_value_is_valid_for_the_api_server(tmp_path: Path) -> None:
    for spec in _specs(tmp_path):
        values = [v for d in yaml_docs(generate(spec, "k8s", k8s_options(spec))) for v in _label_values(d)]
        assert values
        for v in values:
            assert len(v) <= 63 and LABEL_VALUE.fullmatch(v), (spec.instance_type, v)


def test_a_descriptive_instance_type_becomes_a_note_not_a_selector(tmp_path: Path) -> None:
    spec = _specs(tmp_path)[0]
    job = next(f.content for f in generate(spec, "k8s") if f.path == "k8s/job.yaml")
    assert "A100 40GB (article 004 table)" in job.split("apiVersion")[0]  # in the header comment only
    assert "instance-type: A100" not in job
    gcp = next(f.content for f in generate(_specs(tmp_path)[1], "k8s") if f.path == "k8s/job.yaml")
    assert "node.kubernetes.io/instance-type: n1-standard-4\n" in gcp


def test_every_generated_folder_has_a_readme(tmp_path: Path) -> None:
    for spec in _specs(tmp_path):
        for target in target_names():
            try:
                files = generate(spec, target)
            except Exception:
                continue  # a target that cannot launch this spec says so (tested elsewhere)
            paths = {f.path for f in files}
            # project/ holds a copy of the user's own package: its subfolders are theirs, not ours.
            folders = {
                str(Path(p).parent) for p in paths if not p.startswith("project/") or p.count("/") == 1
            }
            for folder in folders:
                readme = "README.md" if folder == "." else f"{folder}/README.md"
                assert readme in paths, (target, folder)


def test_the_image_contains_the_users_package_and_installs_it(tmp_path: Path) -> None:
    spec = LaunchSpec.from_workload(OWN_MODEL, gpu="T4")
    out = tmp_path / "d"
    write_files(generate(spec, "docker"), out)
    dockerfile = (out / "Dockerfile").read_text()
    assert "COPY project/ /workspace/project/\n" in dockerfile
    assert (
        "RUN pip install --no-cache-dir /workspace/project -c /workspace/project/torch-constraints.txt\n"
        in dockerfile
    )
    assert (out / "project" / "mytransformer" / "model.py").is_file()
    # The copied project builds as `pip install` builds it (its PEP 517 backend, offline), and the
    # entry point imports from the built wheel alone.
    wheels = tmp_path / "wheels"
    subprocess.run(
        [sys.executable, "-c", f"from setuptools import build_meta as b; b.build_wheel({str(wheels)!r})"],
        cwd=out / "project", check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    (wheel,) = wheels.glob("mytransformer-*.whl")
    r = subprocess.run(
        [sys.executable, "-c", "import mytransformer.model as m; print(m.build.__name__)"],
        env={**os.environ, "PYTHONPATH": str(wheel)},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert r.stdout.strip() == "build"


def test_a_plan_from_elsewhere_copies_no_local_files(tmp_path: Path) -> None:
    doc = plan_doc()
    doc["workload"]["model"] = {"python": "mytransformer.model:build", "project_dir": str(OWN_MODEL.parent)}
    plan = tmp_path / "plan.json"  # a plan file outside the project folder it names
    plan.write_text(__import__("json").dumps(doc))
    # Nothing is copied from the folder the plan names; an image without the model's package would
    # fail on import, so none is written: the user names the folder with --project.
    with pytest.raises(DeployError, match=f"its package mytransformer is not in {tmp_path}, .*--project DIR"):
        generate(LaunchSpec.from_plan_json(plan), "docker")
    files = generate(LaunchSpec.from_plan_json(plan, project=OWN_MODEL.parent), "docker")
    assert [f.source for f in files if f.source] == [
        str(OWN_MODEL.parent / "mytransformer" / name) for name in ("__init__.py", "model.py")
    ]


def _fake_torchrun(tmp_path: Path) -> Path:
    """Stands in for `python -m torch.distributed.run`: on SIGTERM it exits 1, as torchrun does."""
    fake = tmp_path / "fake-python"
    fake.write_text(
        "#!/usr/bin/env bash\n"
        "trap 'echo got-term >> \"$FAKE_LOG\"; exit 1' TERM\n"
        'echo started >> "$FAKE_LOG"\n'
        "for i in $(seq 600); do sleep 0.1; done\n"
    )
    fake.chmod(0o755)
    return fake


@pytest.mark.parametrize("to_group", [False, True], ids=["pid-1-only", "whole-group"])
def test_sigterm_gives_exit_code_143_once_forwarded(tmp_path: Path, to_group: bool) -> None:
    """SIGTERM to launch.sh alone (what Kubernetes and `docker stop` send to PID 1) or to its whole
    process group: torchrun gets it exactly once, and launch.sh exits 143, not torchrun's 1."""
    spec = LaunchSpec.from_workload(FIXTURES / "train.yaml", count=2)
    out = tmp_path / "o"
    write_files(generate(spec, "torchrun", GenerateOptions(steps=3)), out)
    log = tmp_path / "log"
    env = {**os.environ, "PYTHON": str(_fake_torchrun(tmp_path)), "FAKE_LOG": str(log)}
    proc = subprocess.Popen(["bash", str(out / "launch.sh")], cwd=out, env=env, start_new_session=True)
    deadline = time.monotonic() + 30
    while not (log.exists() and "started" in log.read_text()):
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.02)
    if to_group:
        os.killpg(proc.pid, signal.SIGTERM)
    else:
        os.kill(proc.pid, signal.SIGTERM)
    assert proc.wait(timeout=30) == 143
    assert log.read_text().split() == ["started", "got-term"]


def test_an_uninterrupted_launch_keeps_torchruns_exit_status(tmp_path: Path) -> None:
    spec = LaunchSpec.from_workload(FIXTURES / "train.yaml", count=1)
    out = tmp_path / "o"
    write_files(generate(spec, "torchrun"), out)
    for status in (0, 3):
        fake = tmp_path / f"py{status}"
        fake.write_text(f"#!/bin/sh\nexit {status}\n")
        fake.chmod(0o755)
        r = subprocess.run(["bash", str(out / "launch.sh")], cwd=out, env={**os.environ, "PYTHON": str(fake)})
        assert r.returncode == status


def test_train_py_refuses_a_machine_without_a_visible_gpu_unless_asked_for_the_cpu(tmp_path: Path) -> None:
    """A rented GPU machine whose container cannot see the GPUs must not train at GPU prices on its
    CPU: train.py stops with one line saying what to check; --device cpu trains there on purpose."""
    out = tmp_path / "o"
    write_files(generate(LaunchSpec.from_workload(FIXTURES / "train.yaml", count=1), "torchrun"), out)
    tiny = ["--steps", "1", "--width", "16", "--depth", "1", "--num-workers", "0", "--ckpt-dir", "ck"]
    refused_without_gpu(out, "train.py", *tiny, doing="train")
    assert not (out / "ck").exists()
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    r = subprocess.run(
        [sys.executable, "train.py", *tiny, "--device", "cpu"],
        cwd=out,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stdout + r.stderr


def _batch_job(tmp_path: Path) -> LaunchSpec:
    p = tmp_path / "titles.yaml"
    p.write_text(
        "name: titles\ntask: infer\nmodel: {preset: bert-base}\ninputs: {batch_size: 4, seq_len: 8}\n"
    )
    return LaunchSpec.from_workload(p, gpu="L4", provider="gcp")


@pytest.mark.parametrize(
    ("runner", "targets"),
    [
        ("train.py", ("torchrun", "docker", "k8s", "skypilot")),
        ("serve.py", ("docker", "k8s")),  # skypilot writes no serve.py service
        ("batch.py", ("docker", "k8s", "skypilot")),
    ],
)
def test_every_readme_says_its_script_refuses_a_machine_without_a_visible_gpu(
    tmp_path: Path, runner: str, targets: tuple[str, ...]
) -> None:
    # serve.py and batch.py had taken the CPU silently where CUDA saw no GPU; now that they refuse as
    # train.py does, a README that said nothing would leave a dry run's refusal unexplained.
    if runner == "train.py":
        spec = LaunchSpec.from_workload(FIXTURES / "train.yaml", gpu="L4", provider="gcp")
    elif runner == "serve.py":  # bert-base: an encoder, which no LLM engine serves
        spec = LaunchSpec.from_workload(serve_workload(tmp_path, model="bert-base"), gpu="L4", provider="gcp")
    else:
        spec = _batch_job(tmp_path)
    for target in targets:
        files = generate(spec, target, k8s_options(spec, GenerateOptions(out_dir=str(tmp_path / "o"))))
        readme = next(f.content for f in files if f.path == "README.md")
        assert f"{runner} stops at once with one line saying what to check" in readme, target
        # What runs the script on the GPU nodes (an entrypoint, a command, a task's run) never asks
        # for the CPU; the scripts themselves (and the ConfigMap holding them) name it in their help.
        launched = [f for f in files if not f.path.endswith((".py", ".md", "code-configmap.yaml"))]
        assert launched and not [f.path for f in launched if "--device" in f.content], target
        assert "`--device cpu` runs it on the CPU on purpose (a dry run)" in readme, target
        with use_language("zh"):
            files = generate(spec, target, k8s_options(spec, GenerateOptions(out_dir=str(tmp_path / "o"))))
        readme = next(f.content for f in files if f.path == "README.md")
        assert f"{runner} 会立即停止" in readme and "`--device cpu` 则有意在 CPU 上运行" in readme, target


def test_an_engines_readme_says_nothing_of_serve_pys_device_option(tmp_path: Path) -> None:
    # GPT-2 has Hub weights: vLLM serves it, in its own image; serve.py is not written.
    spec = LaunchSpec.from_workload(serve_workload(tmp_path), gpu="L4", provider="gcp")
    files = generate(spec, "docker")
    assert "serve.py" not in {f.path for f in files}
    assert "--device cpu" not in next(f.content for f in files if f.path == "README.md")
