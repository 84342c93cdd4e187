"""A service plan's words on its load: a latency target in milliseconds too small for any hardware
is asked about as seconds, and a mean the day's shape cannot hold under the peak says at which mean
the fleet is priced and that the answers (egress, cost per token) stay at the mean given."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from one_line import answered, refused

CHAT = {
    "name": "chat-8b",
    "task": "infer",
    "model": {"preset": "llama-8b"},
    "inputs": {"batch_size": 32, "seq_len": 2048},
    "precision": "bf16",
    "serving": {
        "requests_per_s": 12,
        "mean_requests_per_s": 3,
        "prompt_tokens": 1200,
        "output_tokens": 300,
        "p95_latency_ms": 15000,
        "ttft_p95_ms": 1500,
        "tpot_p95_ms": 60,
        "min_replicas": 1,
        "max_replicas": 12,
    },
    "constraints": {"providers": ["aws", "gcp"], "countries": ["US"], "pricing": ["on_demand"]},
}


def _write(tmp_path: Path, **serving: object) -> Path:
    path = tmp_path / "chat.yaml"
    path.write_text(yaml.safe_dump({**CHAT, "serving": {**CHAT["serving"], **serving}}), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("ttft_p95_ms", 1.5, "time-to-first-token target of 1.5 ms"),
        ("tpot_p95_ms", 0.06, "time-per-output-token target of 0.06 ms"),
    ],
)
def test_a_target_of_less_than_hardware_can_answer_in_asks_whether_it_was_seconds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], field: str, value: float, said: str
) -> None:
    # was: "no option meets the p95 time-to-first-token target of 1.5 ms: the best reached is …"
    line = refused(["plan", str(_write(tmp_path, **{field: value}))], capsys)
    assert said in line
    assert f"did you mean {value:g} s ({value * 1000:g} ms)?" in line


def test_a_plausible_target_no_option_meets_is_not_asked_about(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = refused(["plan", str(_write(tmp_path, ttft_p95_ms=12))], capsys)
    assert "time-to-first-token target of 12 ms" in line and "did you mean" not in line


def test_a_mean_the_day_cannot_hold_names_the_mean_the_fleet_is_priced_at_and_the_answers_mean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # was: "priced as the fleet its day needs (mean 3, peak 12 requests/s…)" while the fleet was
    # priced at a mean of 6, and nothing said egress and the cost per token stayed at 3
    doc = json.loads(answered(["plan", str(_write(tmp_path)), "--json"], capsys))
    fleet = next(n for n in doc["notes"] if "priced as the fleet its day needs" in n)
    assert "(mean 6, peak 12 requests/s" in fleet
    egress = next(n for n in doc["notes"] if "answers to clients" in n)
    assert "3 requests/s (serving.mean_requests_per_s)" in egress
    words = doc["recommended"]["service_day"]["words"]
    assert "the mean is taken as 6" in words
    assert "the answers stay at the 3 requests/s given" in words
