"""A throughput the team measured on one GPU configuration changes the plan
(``plan --measured-throughput N --measured-on GPU:COUNT``): the measured configuration's job time is
the estimate's × the measured step over the estimated one; a measured slowdown is carried to every
other GPU and count as an assumption (an unmeasured GPU is not ranked ahead for want of a
measurement); a measured speed-up is not; the plan says which.

An outside tester had measured 220,000 tok/s on 8 × H100-SXM where the estimate said 291,300:
``estimate`` explained the gap but its table, and plan's deadline and cost, kept the 26 h job."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from gpuplan.api import estimate
from gpuplan.errors import InputError
from gpuplan.perf import load_calibration
from gpuplan.plan import EstimateKey
from gpuplan.plan.build_inputs import make_estimator
from gpuplan.plan.measured_rate import MeasuredRate, checked_measured_rate, rate_scaling
from gpuplan.profile.model import Profile
from gpuplan.workload import Workload
from one_line import refused
from stand_in_profiles import TOY_LLM_WORKLOAD, toy_llm_profile

_WORKLOAD = {**TOY_LLM_WORKLOAD, "parallelism": "fsdp"}
_H100X8 = EstimateKey(gpu="H100-SXM", gpus_per_node=8, nodes=1, interconnect="NVLink", network_gbps=None)
_A100X8 = EstimateKey(
    gpu="A100-SXM4-80GB", gpus_per_node=8, nodes=1, interconnect="NVLink", network_gbps=None
)
_H100X4 = EstimateKey(gpu="H100-SXM", gpus_per_node=4, nodes=1, interconnect="NVLink", network_gbps=None)


@pytest.fixture(scope="module")
def profile() -> Profile:
    return toy_llm_profile()


def _estimated_throughput(profile: Profile) -> float:
    (o,) = estimate(Workload.from_dict(_WORKLOAD), ["H100-SXM:8"], profile=profile).outcomes
    assert o.estimate is not None
    return o.estimate.throughput


def _rows(profile: Profile, throughput: float | None) -> tuple[dict[EstimateKey, float], tuple[str, ...]]:
    w = Workload.from_dict(_WORKLOAD)
    cal = load_calibration()
    rate = (
        None
        if throughput is None
        else rate_scaling(MeasuredRate(throughput=throughput, gpu="H100-SXM", count=8), w, profile, cal)
    )
    fn, notes = make_estimator(w, profile, cal, rate=rate)
    return {k: fn(k).job_time_h for k in (_H100X8, _A100X8, _H100X4)}, notes


def test_a_slower_measurement_sets_its_configuration_and_is_assumed_of_the_others(profile: Profile) -> None:
    est = _estimated_throughput(profile)
    before, _ = _rows(profile, None)
    after, notes = _rows(profile, est / 1.5)
    for key in (_H100X8, _A100X8, _H100X4):
        assert math.isfinite(before[key])
        assert after[key] == pytest.approx(before[key] * 1.5, rel=1e-6), key
    note = next(n for n in notes if n.startswith("job times at your measured throughput"))
    assert "on H100-SXM ×8" in note and "a step × 1.50 the estimate's" in note
    assert "every other GPU and count is assumed as much slower than its estimate (not measured" in note


def test_a_faster_measurement_is_not_assumed_of_other_gpus(profile: Profile) -> None:
    est = _estimated_throughput(profile)
    before, _ = _rows(profile, None)
    after, notes = _rows(profile, est * 1.25)
    assert after[_H100X8] == pytest.approx(before[_H100X8] / 1.25, rel=1e-6)
    assert after[_A100X8] == pytest.approx(before[_A100X8], rel=1e-9)
    assert after[_H100X4] == pytest.approx(before[_H100X4], rel=1e-9)
    assert any("every other GPU and count keeps its estimate" in n for n in notes)


def test_one_gpus_throughput_given_for_eight_is_questioned(profile: Profile) -> None:
    est = _estimated_throughput(profile)
    _after, notes = _rows(profile, est / 8)
    assert any("if that is one GPU's throughput, give all 8 GPUs' together" in n for n in notes)


@pytest.mark.parametrize(
    ("throughput", "on", "words"),
    [
        (1000.0, None, "--measured-throughput: name the GPUs you measured it on"),
        (None, "H100-SXM:8", "--measured-on: give the throughput you measured there too"),
        (1000.0, "H100-SXM", "--measured-on H100-SXM: give the GPU count too, H100-SXM:COUNT"),
    ],
)
def test_an_incomplete_measurement_is_one_line(throughput: float | None, on: str | None, words: str) -> None:
    with pytest.raises(InputError, match=words.replace("(", r"\(")):
        checked_measured_rate(Workload.from_dict(_WORKLOAD), throughput, on)


def test_no_measurement_changes_nothing() -> None:
    assert checked_measured_rate(Workload.from_dict(_WORKLOAD), None, None) is None


def test_the_command_line_says_a_mistake_in_one_line_before_tracing(
    tmp_path: Path, fresh_catalog: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wl = tmp_path / "w.yaml"
    wl.write_text(
        "name: toy\ntask: train\nmodel: {preset: gpt2-xl}\ninputs: {batch_size: 4, seq_len: 1024}\n"
        "precision: amp-bf16\nparallelism: fsdp\ndata: {samples: 200000, epochs: 1}\n",
        encoding="utf-8",
    )
    base = ["--db", str(fresh_catalog), "plan", str(wl), "--measured-throughput", "220000"]
    assert "did you mean 'H100-SXM'" in refused([*base, "--measured-on", "H100-SMX:8"], capsys)
    assert "--measured-on NAME:COUNT (H100-SXM:8)" in refused(base, capsys)
