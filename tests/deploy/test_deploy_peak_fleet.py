"""`gpuplan deploy` of a workload file: what does not fit the GPU named is refused in one line with
the figures and the flags that fit (``--gpu X``, ``--count N``), nothing written; and a service's
autoscaler scales to the fleet `gpuplan plan` sizes for its peak, not to twice the GPUs given (a
service started on one GPU had been written ``maxReplicas: 2`` where its peak needed 7)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from one_line import answered, refused

#: GPT-2 served at 200 requests/s: several L4 replicas carry its peak by the estimate.
_SERVICE = (
    "name: chat\ntask: infer\nmodel: {preset: gpt2}\ninputs: {batch_size: 8, seq_len: 256}\n"
    "precision: bf16\nserving: {requests_per_s: 200, prompt_tokens: 512, output_tokens: 256}\n"
)
#: A 70B model on one L4 (24 GB): its bf16 weights alone are about 131 GiB.
_BIG = (
    "name: big\ntask: infer\nmodel: {preset: llama-70b}\ninputs: {batch_size: 1, seq_len: 768}\n"
    "precision: bf16\nserving: {requests_per_s: 1, prompt_tokens: 512, output_tokens: 256}\n"
)


def _deploy_k8s_on_one_l4(job: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """``gpuplan deploy job --gpu L4 --count 1 -t k8s``'s folder."""
    out = tmp_path / "out"
    answered(
        ["deploy", str(job), "--gpu", "L4", "--count", "1", "-t", "k8s", "--image", "r/x:1", "-o", str(out)],
        capsys,
    )
    return out


def test_deploys_max_replicas_is_the_peak_fleet_plan_sizes(
    tmp_path: Path, fresh_catalog: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GPUPLAN_DB", str(fresh_catalog))
    job = tmp_path / "job.yaml"
    job.write_text(_SERVICE)
    plan = json.loads(answered(["plan", str(job), "--gpus", "L4", "--json"], capsys))
    # the fewest replicas of any option: those that carry the peak (others round up to instances)
    fleet = min(o["service"]["replicas"] for o in plan["options"])
    assert fleet > 2
    out = _deploy_k8s_on_one_l4(job, tmp_path, capsys)
    hpa = yaml.safe_load((out / "k8s" / "hpa.yaml").read_text())
    # was 2: room to double the one GPU given
    assert hpa["spec"]["minReplicas"] == 1 and hpa["spec"]["maxReplicas"] == fleet
    readme = " ".join((out / "README.md").read_text().split())
    assert (
        f"The autoscaler's maxReplicas, {fleet}, is the fleet `gpuplan plan` sizes for the service's peak on "
        f"L4, by gpuplan's estimate: {fleet} replicas carry its 200 requests/s (serving.requests_per_s)"
    ) in readme


def test_a_max_replicas_the_workload_gives_is_kept(
    tmp_path: Path, fresh_catalog: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GPUPLAN_DB", str(fresh_catalog))
    job = tmp_path / "job.yaml"
    job.write_text(_SERVICE.replace("output_tokens: 256}", "output_tokens: 256, max_replicas: 40}"))
    out = _deploy_k8s_on_one_l4(job, tmp_path, capsys)
    assert yaml.safe_load((out / "k8s" / "hpa.yaml").read_text())["spec"]["maxReplicas"] == 40
    assert "is the fleet `gpuplan plan` sizes" not in (out / "README.md").read_text()


def test_a_service_that_does_not_fit_the_gpu_is_refused_with_the_flags_that_fit(
    tmp_path: Path, fresh_catalog: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GPUPLAN_DB", str(fresh_catalog))
    job = tmp_path / "job.yaml"
    job.write_text(_BIG)
    out = tmp_path / "out"
    line = refused(
        ["deploy", str(job), "--gpu", "L4", "-t", "k8s", "--image", "r/x:1", "-o", str(out)], capsys
    )
    assert line.startswith("error: the job does not fit L4: it needs ")
    assert "] per GPU, 20.2 GiB, the serving engine's share" in line
    # was "it fits with: use B200 (180 GB)" alone: no flag of deploy's named
    assert "; use --gpu " in line and "(--force-fit writes the files anyway)" in line
    assert not out.exists()


def test_a_served_model_that_fits_split_is_told_the_count_and_the_split(
    tmp_path: Path, fresh_catalog: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # an 8B model served in fp16 (16 GB of weights) on a T4's 13.5 GiB engine share; two T4s hold it
    monkeypatch.setenv("GPUPLAN_DB", str(fresh_catalog))
    job = tmp_path / "job.yaml"
    job.write_text(_BIG.replace("llama-70b", "llama-8b").replace("precision: bf16", "precision: fp16"))
    out = tmp_path / "out"
    line = refused(
        ["deploy", str(job), "--gpu", "T4", "-t", "k8s", "--image", "r/x:1", "-o", str(out)], capsys
    )
    assert line.startswith("error: the job does not fit T4: it needs ")
    assert " or --count 2 with tensor_parallel: 2 in the workload (--force-fit" in line, line
    assert not out.exists()
