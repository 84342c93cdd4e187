"""``estimate --measured-speedup`` / ``--measured-throughput`` over the API: a team's service reads a
measured speed-up against the estimate as the command does (the answer's ``scaling_gap``), and a
measurement that cannot be read is refused when the request comes in, naming its field, before
anything is queued."""

from __future__ import annotations

import sqlite3

import pytest
from serve_helpers import Service, bert_workload, cache_stand_in

_INSTANCE = "ecs.gn8is-8x.32xlarge"  # 8 × L20 over PCIe


def _jobs(service: Service) -> int:
    with sqlite3.connect(service.db) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM jobs").fetchone()[0])


def _estimate(service: Service, **fields: object):  # type: ignore[no-untyped-def]
    workload = bert_workload()
    cache_stand_in(service.db, workload)
    body = {"workload": workload, **fields}
    return service.client.post("/api/v1/estimate", json=body, headers=service.auth("plan"))


def test_a_measured_speed_up_is_read_against_the_estimate(service: Service) -> None:
    # BERT-large on 8 × L20 over PCIe, estimated about 3.9× one L20: 2× measured leaves a gap
    r = _estimate(service, instance=_INSTANCE, measured_speedup=2)
    assert r.status_code == 200, r.text
    [row] = r.json()["estimates"]
    gap = row["scaling_gap"]
    assert gap is not None and gap["given"] == "speedup" and gap["measured_speedup"] == 2.0
    assert gap["gap_s"] > 0
    assert gap["estimated_speedup"] == pytest.approx(row["scaling"]["speedup"])
    assert gap["causes"], gap
    # a throughput is read the same way; without either, no gap
    r = _estimate(service, instance=_INSTANCE, measured_throughput=100)
    assert r.status_code == 200 and r.json()["estimates"][0]["scaling_gap"]["given"] == "throughput", r.text
    r = _estimate(service, instance=_INSTANCE)
    assert r.status_code == 200 and r.json()["estimates"][0]["scaling_gap"] is None, r.text


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"gpus": ["L20"], "measured_speedup": 5}, "measured_speedup: give the GPUs you measured on (count"),
        ({"measured_speedup": 5}, "measured_speedup: name the GPU you measured on (gpus NAME or instance"),
        (
            {"gpus": ["L20:8"], "measured_speedup": 5, "measured_throughput": 9},
            "give measured_speedup or measured_throughput, not both",
        ),
    ],
)
def test_a_measurement_that_cannot_be_read_is_refused_before_a_job(
    service: Service, fields: dict[str, object], words: str
) -> None:
    before = _jobs(service)
    r = _estimate(service, **fields)
    assert r.status_code == 400 and _jobs(service) == before, r.text
    body = r.json()
    assert words in body["error"] and "--" not in body["error"], body


def test_a_measurement_out_of_bounds_is_refused(service: Service) -> None:
    for value in (0, -1, 1e6):
        r = _estimate(service, gpus=["L20:8"], measured_speedup=value)
        assert r.status_code == 400 and r.json()["field"] == "measured_speedup", r.text
