"""A denoiser that generates images (``inputs.denoising_steps``, ``guidance``), as the user's own
code: its estimate counts images, not denoiser calls; a service of it needs no tokens, is planned on
the denoiser's step (no KV cache), checked against its p95 and priced per 1,000 images."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

pytest.importorskip("torch")

from gpuplan.plan.answer_bytes import image_answer_bytes
from gpuplan.profile.key import key_fields, profile_key
from gpuplan.workload.spec import load_workload
from one_line import answered, refused

UNETS = Path(__file__).parent / "fixtures" / "unetproj"
SERVICE = UNETS / "tiny-unet-service.yaml"


def _write(folder: Path, doc: dict[str, object]) -> Path:
    """``doc`` as a workload in ``folder``, beside a copy of the stand-in's package."""
    folder.mkdir(parents=True, exist_ok=True)
    if not (folder / "tinyunet").exists():
        shutil.copytree(UNETS / "tinyunet", folder / "tinyunet", ignore=shutil.ignore_patterns("__pycache__"))
    path = folder / "w.yaml"
    path.write_text(yaml.safe_dump({**doc, "model": {"python": "tinyunet.model:build"}}), encoding="utf-8")
    return path


def _service(**changes: object) -> dict[str, object]:
    doc = yaml.safe_load(SERVICE.read_text(encoding="utf-8"))
    for key, value in changes.items():
        part, field = key.split("__")
        doc[part] = {**doc[part], field: value}
    return doc


def _estimate(path: Path, capsys: pytest.CaptureFixture[str], gpu: str = "A10") -> dict[str, float]:
    doc = json.loads(answered(["estimate", str(path), "--gpu", gpu, "--json"], capsys))
    return doc["estimates"][0]


def test_a_generation_jobs_throughput_is_images_not_denoiser_calls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # was: "throughput (images/s) 250" for denoiser calls of 2 latents; then 60 calls an image (30
    # steps × 2 with guidance), 4.17 images/s on A10; now a guided step is one call of twice the
    # batch, as a service's image counts it: about 30 calls' time on this launch-bound batch, 8.34
    job = {
        "name": "gen",
        "task": "infer",
        "inputs": {"batch_size": 2, "image_size": 128},
        "precision": "bf16",
        "stack": {"input_pipeline": "synthetic"},
        "data": {"samples": 60_000},
    }
    calls = _estimate(_write(tmp_path / "calls", job), capsys)
    job["inputs"] = {**job["inputs"], "denoising_steps": 30, "guidance": True}  # type: ignore[dict-item]
    job["data"] = {"samples": 1000}  # images now: 30 guided steps each
    images = _estimate(_write(tmp_path / "images", job), capsys)
    assert images["step_time_s"] == pytest.approx(calls["step_time_s"])
    per_image = calls["throughput"] / images["throughput"]  # calls of the traced batch an image
    assert per_image * (1 + 1e-6) >= 30 and per_image < 60 * 0.9  # was 60
    assert images["job_time_h"] == pytest.approx(calls["job_time_h"] * per_image / 60)
    out = answered(["estimate", str(tmp_path / "images" / "w.yaml"), "--gpu", "A10"], capsys)
    said = (
        f"an image {per_image:.3g} of them (inputs.denoising_steps; with guidance a step is one call of twice"
    )
    assert said in " ".join(out.split())


def test_an_image_service_is_planned_without_tokens_and_priced_per_thousand_images(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # was: "serving.prompt_tokens: required field is missing"; with tokens, every option "does not
    # fit" (a decoder LLM's KV cache asked of a UNet) and the advice to relax the p95 target
    plan = json.loads(answered(["plan", str(SERVICE), "--gpus", "L20", "--json"], capsys))
    rec = plan["recommended"]
    service = rec["service"]
    assert rec["usd_per_million_output_tokens"] is None
    images = 2 * 3600 * 730  # the peak all month, one image a request
    assert rec["usd_per_thousand_images"] == pytest.approx(rec["total_cost_usd"] / images * 1000)
    # an image alone is its 60 denoiser calls of the traced batch; the p95 adds the wait for a place
    one = 1 / service["replica_capacity_requests_per_s"]  # a batch of one image
    assert one < service["p95_latency_s"] <= 8.0
    assert service["utilisation"] <= 0.8
    assert math.isclose(service["requests_per_s"], 2.0)
    notes = " ".join(plan["notes"])
    assert "image service: one request is one image, 30 denoising steps of one denoiser call each" in notes
    assert "with guidance each of twice the traced batch of 1" in notes
    assert "The text encoders and the VAE decoder are not counted" in notes
    text = " ".join(answered(["plan", str(SERVICE), "--gpus", "L20"], capsys).split())
    assert "Cost per 1,000 images: at least" in text


def test_an_image_services_images_to_clients_are_priced_at_their_bound_unless_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # was: "the images sent to clients are not priced": $0.00 of egress for 5,256,000 images a month
    plan = json.loads(answered(["plan", str(SERVICE), "--gpus", "L20", "--json"], capsys))
    egress = plan["recommended"]["cost_breakdown"]["egress_usd"]
    assert egress > 0
    notes = " ".join(plan["notes"])
    bound = image_answer_bytes(128)  # base64 of 128 × (3 × 128 + 1) bytes, framing included
    assert bound == 68_360
    assert f"{bound:,} bytes each, the bound for an image of 128×128 px (inputs.image_size)" in notes
    assert "a PNG of it is typically about 25,000 bytes" in notes
    # the bound is what a stated size of the same bytes costs; a smaller stated size costs less
    given = _write(tmp_path / "given", _service(serving__response_bytes=bound))
    same = json.loads(answered(["plan", str(given), "--gpus", "L20", "--json"], capsys))
    assert same["recommended"]["cost_breakdown"]["egress_usd"] == pytest.approx(egress)
    png = _write(tmp_path / "png", _service(serving__response_bytes=25_000))
    less = json.loads(answered(["plan", str(png), "--gpus", "L20", "--json"], capsys))
    assert less["recommended"]["cost_breakdown"]["egress_usd"] == pytest.approx(egress * 25_000 / bound)


def test_an_image_service_past_every_gpus_memory_is_told_of_memory_not_latency(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # was: "a lower request rate or a looser p95 target" for a batch no GPU holds
    doc = _service(inputs__batch_size=200_000)
    line = refused(["plan", str(_write(tmp_path, doc)), "--gpus", "L20"], capsys)
    assert "not fitting in memory" in line and "p95" not in line
    assert "a GPU with more memory, or a smaller inputs.batch_size" in line


def test_an_image_service_that_misses_its_p95_says_so_with_the_best_reached(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = refused(
        ["plan", str(_write(tmp_path, _service(serving__p95_latency_ms=10))), "--gpus", "L20"], capsys
    )
    assert "no option meets the p95 latency target of 10 ms: the best reached is" in line


def test_a_guided_step_is_one_call_of_twice_the_batch_not_two_calls(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # was: 60 calls of the traced batch an image (30 steps × 2): diffusers runs one call of the
    # doubled batch a step, which a small batch bound by the CPU's launches runs in about one call's time
    plan = json.loads(answered(["plan", str(SERVICE), "--gpus", "L20", "--json"], capsys))
    image_s = 1 / plan["recommended"]["service"]["replica_capacity_requests_per_s"]  # a batch of one
    step_s = _estimate(SERVICE, capsys, gpu="L20")["step_time_s"]  # one call of the traced batch
    assert 30 * step_s <= image_s * (1 + 1e-6)
    assert image_s < 60 * step_s * 0.9


def test_a_guided_step_holds_the_activations_of_twice_the_batch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # was: the memory plan fits on at the traced batch of 64, guided or not (0.051 GiB allocated,
    # 0.46 required on L20); diffusers runs the denoiser on the doubled batch: 0.10 and 0.51
    plain = _write(tmp_path / "plain", _service(inputs__batch_size=64, inputs__guidance=False))
    guided = _write(tmp_path / "guided", _service(inputs__batch_size=64))
    wider = _write(tmp_path / "wider", _service(inputs__batch_size=128, inputs__guidance=False))
    allocated = [
        _estimate(p, capsys, gpu="L20")["memory"]["peak_allocated_gib"] for p in (plain, guided, wider)
    ]
    assert allocated[1] > allocated[0] * 1.5
    assert allocated[1] == pytest.approx(allocated[2], rel=0.05)  # what a call of 128 latents holds
    needed = [
        json.loads(answered(["plan", str(p), "--gpus", "L20", "--json"], capsys))["recommended"][
            "memory_needed_gib"
        ]
        for p in (plain, guided)
    ]
    assert needed[1] - needed[0] > (allocated[1] - allocated[0]) * 0.99  # the figure plan fits on
    out = " ".join(answered(["estimate", str(guided), "--gpu", "L20"], capsys).split())
    assert "guidance: each denoiser call runs 128 latents" in out
    assert "its activations are counted at 128" in out


def test_the_denoiser_calls_an_image_takes_leave_the_trace_key_as_it_was(tmp_path: Path) -> None:
    # was: every workload's key took "guidance": false, so each profile and recording stored before
    # image generation was orphaned (measure --from refused a recording of the very workload)
    inputs = {"batch_size": 2, "seq_len": 32}
    text = {"name": "t", "task": "infer", "model": {"preset": "gpt2"}, "inputs": inputs}
    assert key_fields(load_workload(text))["inputs"] == inputs
    # one traced denoiser call, however many an image makes, with or without guidance
    keys = {
        profile_key(_write(tmp_path, _service(**changes)))
        for changes in ({}, {"inputs__guidance": False}, {"inputs__denoising_steps": 50})
    }
    assert len(keys) == 1


@pytest.mark.parametrize(
    ("changes", "said"),
    [
        ({"serving__prompt_tokens": 77}, "an image service's request is one image"),
        ({"serving__tpot_p95_ms": 50}, "an image service (inputs.denoising_steps) has p95_latency_ms"),
    ],
)
def test_a_service_is_of_tokens_or_of_images(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], changes: dict[str, object], said: str
) -> None:
    doc = _service(**changes)
    if doc["inputs"].get("denoising_steps") is None:  # type: ignore[union-attr]
        doc["inputs"] = {"batch_size": 1, "image_size": 128}
    line = refused(["estimate", str(_write(tmp_path, doc)), "--gpu", "L20"], capsys)
    assert said in line


def test_tco_takes_an_image_service_demand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # was: AssertionError deep in the engine's slots (an image service has no prompt or answer tokens)
    _write(tmp_path, yaml.safe_load(SERVICE.read_text(encoding="utf-8")))
    usage = tmp_path / "usage.yaml"
    usage.write_text(
        "horizon_months: 3\nstart: 2027-01\ncurrency: USD\n"
        "demands:\n  - {name: images, workload: w.yaml, runs_per_month: 1}\n"
        "constraints: {countries: [CN]}\n",
        encoding="utf-8",
    )
    out = " ".join(answered(["tco", str(usage), "--allow-code"], capsys).split())
    assert "images" in out and "solver:" in out


def test_simulate_autoscale_of_an_image_service_agrees_with_plan(capsys: pytest.CaptureFixture[str]) -> None:
    # was: "an image service (inputs.denoising_steps) has no replica model here yet: ... give
    # --replica slots=N,tpot_ms=T to simulate it by hand"
    plan = json.loads(answered(["plan", str(SERVICE), "--gpus", "L20", "--json"], capsys))["recommended"]
    service = plan["service"]
    args = ["simulate", "autoscale", str(SERVICE), "--gpu", "L20", "--shape", "step", "--rate", "2"]
    args += ["--peak", "2", "--hours", "4", "--policy", f"fixed:replicas={service['replicas']}"]
    doc = json.loads(answered([*args, "--json"], capsys))
    # one image a request, on a replica of the plan's: its batch of places, each image the plan's time
    assert doc["replica"]["slots"] == 1
    assert 1 / doc["replica"]["time_per_output_token_s"] == pytest.approx(
        service["replica_capacity_requests_per_s"], rel=1e-6
    )
    policy = doc["policies"][0]
    assert policy["usd_per_million_output_tokens"] is None
    # the instances alone, at the plan's fleet: within the plan's all-in price (storage, set-up),
    # less the images sent to clients, which the simulation does not price
    all_in = plan["usd_per_thousand_images"]
    served = all_in * (1 - plan["cost_breakdown"]["egress_usd"] / plan["total_cost_usd"])
    assert policy["usd_per_thousand_images"] == pytest.approx(served, rel=0.05)
    assert policy["usd_per_thousand_images"] <= served
    # both meet the p95 target of 8 s, and the report sets its p95 beside the plan's very figure
    assert [o["met"] for o in policy["slos"]] == [True]
    assert service["p95_latency_s"] <= 8.0
    text = " ".join(answered(args, capsys).split())
    planned = service["p95_latency_s"]
    shown = f"{planned * 1e3:.0f} ms" if planned < 1 else f"{planned:.2f} s"
    assert f"than the plan's {shown} for 1 replica at the trace's peak of 2 requests/s" in text
    assert "per 1,000 images (" in text and "per million" not in text


@pytest.mark.parametrize(
    ("target", "said"),
    [
        ("k8s", None),
        ("docker", None),
        ("skypilot", "the skypilot target writes training tasks and the services of serving engines"),
        ("torchrun", "torchrun launches training, not a service"),
    ],
)
def test_deploy_of_an_image_service_writes_serve_py_or_refuses_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], target: str, said: str | None
) -> None:
    # was: AssertionError (the share's fit check asked the service for its request's tokens)
    path = _write(tmp_path / "w", yaml.safe_load(SERVICE.read_text(encoding="utf-8")))
    args = ["deploy", str(path), "--target", target, "--out", str(tmp_path / "out"), "--gpu", "L20"]
    args += ["--share-gpu", "2", "--image", "registry.example/unet:1", "--project", str(tmp_path / "w")]
    answered(["estimate", str(path), "--gpu", "L20"], capsys)  # the trace deploy reads
    if said is not None:
        line = refused(args, capsys)
        assert said in line and "use --target" in line
        return
    answered(args, capsys)
    serve = (tmp_path / "out" / "serve.py").read_text(encoding="utf-8")
    assert "train.build_model" in serve  # the user's denoiser, built by train.py's entry point


def test_deploy_refuses_an_image_service_whose_replica_does_not_fit_its_share(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path / "w", _service(inputs__batch_size=20_000))
    args = ["deploy", str(path), "--target", "k8s", "--out", str(tmp_path / "out"), "--gpu", "L20"]
    answered(["estimate", str(path), "--gpu", "L20"], capsys)  # the trace deploy reads
    line = refused([*args, "--share-gpu", "4", "--image", "registry.example/unet:1"], capsys)
    # judged in its quarter of the GPU's memory, as a preset's service is (the fit check had judged
    # it on the whole L20, and only the share's check after it refused it, in other words); the
    # guided denoiser's activations at twice the batch: 35.2 GiB (18.0 GiB counted them once)
    assert "the job does not fit 1/4 of L20: it needs 35.2 GiB" in line
    assert "11.2 GiB usable; it fits with: a whole GPU to each replica instead of 4 to a GPU" in line


def test_deploy_share_gpu_sizes_a_user_code_services_fleet_as_plan_does_at_that_share(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 20 images/s on L20, two replicas time-sharing each GPU: plan sizes 14 replicas on 7 x L20
    # (1.88 images/s a replica in its half); deploy --share-gpu 2 of the user's code had sized the
    # fleet of whole GPUs: "needs 6 x L20" (4.17 images/s a replica) and 6 maxReplicas
    path = _write(tmp_path / "w", _service(serving__requests_per_s=20))
    shared = _write(tmp_path / "s", _service(serving__requests_per_s=20, serving__share_gpu=2))
    answered(["estimate", str(path), "--gpu", "L20"], capsys)  # the trace deploy reads
    plan = json.loads(answered(["plan", str(shared), "--gpus", "L20", "--json"], capsys))
    (option, *_rest) = plan["options"]
    fleet, gpus = option["service"]["replicas"], option["gpus_per_node"] * option["nodes"]
    assert (fleet, gpus) == (14, 7)
    args = ["deploy", str(path), "--target", "k8s", "--gpu", "L20", "--image", "registry.example/unet:1"]
    args += ["--share-gpu", "2", "--project", str(tmp_path / "w")]
    line = refused([*args, "--out", str(tmp_path / "refused")], capsys)
    assert f"the service's load, 20 req/s, needs {gpus} x L20 by gpuplan's estimate" in line
    answered([*args, "--count", "1", "--out", str(tmp_path / "out")], capsys)
    hpa = yaml.safe_load((tmp_path / "out" / "k8s" / "hpa.yaml").read_text(encoding="utf-8"))
    assert hpa["spec"]["maxReplicas"] == fleet


def test_deploys_max_replicas_of_an_image_service_is_the_fleet_plan_sizes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 20 images/s on L20: plan's fleet is 6 replicas (4.17 images/s each at full load, 80 % of it)
    path = _write(tmp_path / "w", _service(serving__requests_per_s=20))
    plan = json.loads(answered(["plan", str(path), "--gpus", "L20", "--json"], capsys))
    fleet = min(o["service"]["replicas"] for o in plan["options"])
    assert fleet > 2
    args = ["deploy", str(path), "--target", "k8s", "--gpu", "L20", "--image", "registry.example/unet:1"]
    args += ["--project", str(tmp_path / "w")]
    # was: written on one GPU whatever the load; now refused as a language model's service is
    line = refused([*args, "--out", str(tmp_path / "refused")], capsys)
    assert f"the service's load, 20 req/s, needs {fleet} x L20 by gpuplan's estimate" in line
    assert f"give --count {fleet}" in line
    answered([*args, "--count", "1", "--out", str(tmp_path / "out")], capsys)
    hpa = yaml.safe_load((tmp_path / "out" / "k8s" / "hpa.yaml").read_text(encoding="utf-8"))
    # was 2: room to double the one GPU given
    assert hpa["spec"]["maxReplicas"] == fleet
    readme = " ".join((tmp_path / "out" / "README.md").read_text(encoding="utf-8").split())
    assert (
        f"is the fleet `gpuplan plan` sizes for the service's peak on L20, by gpuplan's estimate: {fleet}"
        in readme
    )


def _simulated(path: Path, rate: float, capsys: pytest.CaptureFixture[str]) -> tuple[dict[str, Any], str]:
    args = ["simulate", "autoscale", str(path), "--gpu", "L20", "--shape", "step", "--rate", f"{rate:g}"]
    args += ["--peak", f"{rate:g}", "--hours", "4", "--policy", "fixed:replicas=1"]
    doc = json.loads(answered([*args, "--json"], capsys))
    return doc, " ".join(answered(args, capsys).split())


def test_an_image_services_simulation_has_no_ttft_and_says_saturation_only_when_true(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # one place a replica (batch 1), about half busy at 2 images/s
    doc, text = _simulated(SERVICE, 2, capsys)
    policy = doc["policies"][0]
    # was: a TTFT column equal to e2e, its p95 the image's
    ttft = policy["latency"]["ttft"]
    assert ttft["p95_s"] is None and "no first token" in ttft["note"]
    assert policy["latency"]["e2e"]["p95_s"] is not None and policy["latency"]["e2e"]["note"] is None
    assert "TTFT and TPOT: —: an image service's request is one image, delivered whole" in text
    # was: "ran near saturation for 240 min" at half the replica's capacity (the batch counted the
    # request about to start beside those running)
    assert policy["utilisation"] < 0.6
    assert policy["behaviour"]["saturated_s"] == 0 and "near saturation" not in text
    # at 94 % of its capacity it is near saturation, and said so
    busy, text = _simulated(SERVICE, 3.9, capsys)
    assert busy["policies"][0]["behaviour"]["saturated_s"] > 0 and "ran near saturation" in text


def test_an_image_services_saturation_speaks_of_its_images_not_prompts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # was: "(batch ≥ 80% of the slots or prompts ≥ 50% of the compute)" of a service with no prompts
    busy, text = _simulated(SERVICE, 3.9, capsys)
    assert busy["policies"][0]["behaviour"]["saturated_s"] > 0
    assert "(images in progress ≥ 80% of the batch a replica makes at once)" in text
    assert "prompts" not in text


@pytest.mark.parametrize("slo", ["ttft_p95=2s", "e2e_p95=8s,tpot_p95=80ms"])
def test_an_image_services_simulation_refuses_a_token_target(
    slo: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # was: --slo ttft_p95=2s scored against each image's end-to-end latency (an image's "first token")
    args = ["simulate", "autoscale", str(SERVICE), "--gpu", "L20", "--shape", "step", "--rate", "2"]
    line = refused([*args, "--policy", "fixed:replicas=1", "--slo", slo], capsys)
    name = slo.split(",")[-1].split("=")[0]
    assert f"--slo {name}: an image service's request is one image, delivered whole" in line
    assert "give e2e_p95=TIME (the whole image) or queue_p95=TIME" in line


def _record_step(path: Path, recording: Path, step_s: float, capsys: pytest.CaptureFixture[str]) -> None:
    """A ``gpuplan measure`` recording of ``path`` stored here: the CPU's, relabelled as a step of
    ``step_s`` on an L20."""
    sizes = ["--steps", "2", "--warmup", "1", "--profiled", "1", "--device", "cpu"]
    answered(["measure", str(path), *sizes, "--out", str(recording), "--no-store", "--json"], capsys)
    doc = json.loads(recording.read_text(encoding="utf-8"))
    doc["device"].update(kind="cuda", gpu_id="L20", name="NVIDIA L20")
    low, high = step_s * 0.975, step_s * 1.025
    doc["step_time"].update(median_s=step_s, low_s=low, high_s=high, samples_s=[low, high])
    doc["kernel_time_s"] = {"gemm": step_s * 0.75, "attention": 0.0, "memory": step_s / 8}
    doc["kernel_time_s"] |= {"communication": 0.0, "other": 0.0, "busy_s": step_s * 0.875}
    doc["notes"] = []
    recording.write_text(json.dumps(doc), encoding="utf-8")
    answered(["measure", str(path), "--from", str(recording)], capsys)


def _planned_on_a_recorded_step(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[Path, dict[str, Any]]:
    """The service's workload file, its denoiser call recorded at 40 ms on L20 (the estimate's step
    is about 8 ms), and plan's recommended option on L20, anchored on it."""
    path = _write(tmp_path / "w", yaml.safe_load(SERVICE.read_text(encoding="utf-8")))
    _record_step(path, tmp_path / "rec.json", 0.04, capsys)
    plan = json.loads(answered(["plan", str(path), "--gpus", "L20", "--json"], capsys))["recommended"]
    return path, plan


def test_simulate_times_an_image_on_the_measured_step_as_plan_does(
    tmp_path: Path, fresh_catalog: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GPUPLAN_DB", str(fresh_catalog))
    path, plan = _planned_on_a_recorded_step(tmp_path, capsys)
    capacity = plan["service"]["replica_capacity_requests_per_s"]
    assert 1 / capacity == pytest.approx(30 * 0.04, rel=0.05)  # anchored: 30 calls of 40 ms
    simulated, _text = _simulated(path, 0.5, capsys)
    # was 0.24 s an image (the estimate's step, unanchored) beside plan's 1.2 s
    assert 1 / simulated["replica"]["time_per_output_token_s"] == pytest.approx(capacity, rel=1e-6)


def test_simulate_sets_its_p95_beside_the_plans_anchored_p95(
    tmp_path: Path, fresh_catalog: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GPUPLAN_DB", str(fresh_catalog))
    path, plan = _planned_on_a_recorded_step(tmp_path, capsys)
    service = plan["service"]
    args = ["simulate", "autoscale", str(path), "--gpu", "L20", "--shape", "step", "--rate", "2"]
    args += ["--peak", "2", "--hours", "4", "--policy", f"fixed:replicas={service['replicas']}"]
    text = " ".join(answered(args, capsys).split())
    planned = service["p95_latency_s"]
    shown = f"{planned * 1e3:.0f} ms" if planned < 1 else f"{planned:.2f} s"
    # was the unanchored estimate's p95 (about 0.3 s) beside a simulation of the measured 1.2 s
    # image, "Both rest on the same image time" under it
    fleet = f"{service['replicas']} replicas at the trace's peak of 2 requests/s"
    assert f"the plan's {shown} for {fleet}" in text or f"is the plan's for {fleet}" in text
