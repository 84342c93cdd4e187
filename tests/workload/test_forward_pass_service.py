"""A service whose request is one forward pass of a model that is neither a language model nor
an image generator (a classifier, an embedding, a segmentation): planned on the traced step
batched up to ``inputs.batch_size``, without tokens, simulated on the same replica, launched, and
worded as requests, never images or denoiser calls. A language model's service still gives its
tokens."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

pytest.importorskip("torch")

from one_line import answered, refused

SERVICE = {
    "name": "classify",
    "task": "infer",
    "model": {"preset": "resnet50"},
    "precision": "fp16",
    "inputs": {"batch_size": 8, "image_size": 224},
    "serving": {"requests_per_s": 50, "p95_latency_ms": 200, "response_bytes": 1200},
}


def _write(tmp_path: Path, doc: dict[str, object]) -> Path:
    path = tmp_path / "w.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return path


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_a_classifier_service_is_planned_per_forward_pass_and_priced_per_thousand_requests(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # was: "serving.prompt_tokens, output_tokens: required for a language model's service; a service
    # that generates images gives inputs.denoising_steps (and guidance) instead"
    path = _write(tmp_path, SERVICE)
    plan = json.loads(answered(["plan", str(path), "--gpus", "T4", "--json"], capsys))["recommended"]
    service = plan["service"]
    assert service["replicas"] >= 1 and service["p95_latency_s"] * 1e3 <= 200
    assert plan["usd_per_thousand_requests"] > 0 and plan["usd_per_thousand_images"] is None
    # each request one forward pass: 50 requests/s over the month, priced per 1,000 of them
    text = _flat(answered(["plan", str(path), "--gpus", "T4"], capsys))
    assert (
        "Cost per 1,000 requests" in text and "forward-pass service: one request is one forward pass" in text
    )
    assert "1,200 bytes each (serving.response_bytes)" in text
    for word in ("image service", "images", "denois"):
        assert word not in text


def test_simulate_autoscale_of_a_forward_pass_service_agrees_with_plan(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, SERVICE)
    plan = json.loads(answered(["plan", str(path), "--gpus", "T4", "--json"], capsys))["recommended"]
    service = plan["service"]
    args = ["simulate", "autoscale", str(path), "--gpu", "T4", "--shape", "step", "--rate", "50"]
    args += ["--peak", "50", "--hours", "2", "--policy", f"fixed:replicas={service['replicas']}"]
    doc = json.loads(answered([*args, "--json"], capsys))
    # the plan's replica: its batch of places, each request one call of the plan's step
    assert doc["replica"]["slots"] == 8
    assert 8 / doc["replica"]["time_per_output_token_s"] == pytest.approx(
        service["replica_capacity_requests_per_s"], rel=1e-6
    )
    policy = doc["policies"][0]
    assert policy["usd_per_thousand_requests"] > 0 and policy["usd_per_thousand_images"] is None
    assert policy["usd_per_million_output_tokens"] is None
    [slo] = policy["slos"]
    assert slo["met"] is True
    # the simulated p95 within a few % of the plan's at its peak (both the same forward pass)
    assert policy["latency"]["e2e"]["p95_s"] == pytest.approx(service["p95_latency_s"], rel=0.05)
    text = _flat(answered(args, capsys))
    assert "per 1,000 requests (" in text and "forward-pass service, as plan sizes it" in text
    for word in ("image", "denois"):
        assert word not in text.replace("pull the image", "")


def test_simulate_share_of_a_forward_pass_service_sizes_it_as_plan_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # was: a traceback (AssertionError in ServingSpec.tokens) for a services file naming it
    path = _write(tmp_path, SERVICE)
    plan = json.loads(answered(["plan", str(path), "--gpus", "T4", "--json"], capsys))["recommended"]
    service = plan["service"]
    services = tmp_path / "services.yaml"
    services.write_text("gpu: T4\nservices:\n  - {name: classify, workload: w.yaml}\n", encoding="utf-8")
    args = ["simulate", "share", str(services), "--sharing", "whole", "--price", "1"]
    [placed] = json.loads(answered([*args, "--json"], capsys))["services"]
    # the plan's replicas, each carrying the requests/s plan's replica does, at plan's p95
    assert placed["instances"] == service["replicas"]
    carried = 50 / service["replicas"] / placed["utilisation"]
    assert carried == pytest.approx(service["replica_capacity_requests_per_s"], rel=1e-6)
    assert placed["p95_latency_s"] == pytest.approx(service["p95_latency_s"], rel=1e-6)
    assert placed["ttft_p95_s"] is None
    text = _flat(answered(args, capsys))
    assert "forward-pass and image services estimated from their workload" in text
    assert "given by hand" not in text


def test_deploy_k8s_of_a_forward_pass_service(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, SERVICE)
    out = tmp_path / "out"
    args = ["deploy", str(path), "--target", "k8s", "--gpu", "T4", "--out", str(out)]
    answered([*args, "--image", "registry.example/classify:1"], capsys)
    assert (out / "serve.py").is_file() and (out / "k8s" / "deployment.yaml").is_file()


def test_its_egress_needs_response_bytes_and_a_language_model_still_gives_its_tokens(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    serving = {k: v for k, v in SERVICE["serving"].items() if k != "response_bytes"}  # type: ignore[attr-defined]
    line = refused(["plan", str(_write(tmp_path, {**SERVICE, "serving": serving})), "--gpus", "T4"], capsys)
    assert "serving.response_bytes: required for a service whose request is one forward pass" in line
    lm = {**SERVICE, "model": {"preset": "gpt2"}, "inputs": {"batch_size": 8, "seq_len": 128}}
    line = refused(["estimate", str(_write(tmp_path, lm)), "--gpu", "T4"], capsys)
    assert "serving.prompt_tokens, output_tokens: required for a language model's service" in line
    slow = {**SERVICE, "serving": {**serving, "tpot_p95_ms": 50}}
    line = refused(["estimate", str(_write(tmp_path, slow)), "--gpu", "T4"], capsys)
    assert "a service whose request is one forward pass has p95_latency_ms" in line


def test_simulate_share_of_services_kept_in_mainland_china_shows_yuan(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # as plan shows a workload that may run in mainland China only: in yuan, its clouds' own figures
    _write(tmp_path, {**SERVICE, "constraints": {"countries": ["CN"]}})
    services = tmp_path / "services.yaml"
    services.write_text("gpu: T4\nservices:\n  - {name: classify, workload: w.yaml}\n", encoding="utf-8")
    args = ["simulate", "share", str(services), "--sharing", "whole", "--price", "$1"]

    def month(*more: str) -> str:
        return next(x for x in _flat(answered([*args, *more], capsys)).split(". ") if "A month (730 h" in x)

    assert "¥" in month() and "$" not in month(), month()
    assert "$" in month("--currency", "USD"), month("--currency", "USD")
