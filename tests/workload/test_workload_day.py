"""``serving.day``: a service's day as its team knows it, requests/s at times of day; its mean is the
workload's mean, and each bad form is one line (above the peak, a bad time, one point, a mean that is
not the day's, beside a schedule)."""

from __future__ import annotations

from typing import Any

import pytest

from gpuplan.errors import WorkloadError
from gpuplan.workload import Workload

#: A chatbot's day: quiet at night, 3 -> 40 requests/s from 19:30 to 20:00, busy until 23:00.
EVENING = {"00:00": 3, "19:30": 3, "20:00": 40, "23:00": 40, "23:30": 3}


#: A chatbot sized for 40 requests/s.
CHATBOT: dict[str, Any] = {
    "name": "chatbot",
    "task": "infer",
    "model": {"preset": "gpt2"},
    "inputs": {"batch_size": 1, "seq_len": 1024},
    "serving": {"requests_per_s": 40, "prompt_tokens": 800, "output_tokens": 300},
}


def _service(**serving: Any) -> dict[str, Any]:
    return {**CHATBOT, "serving": {**CHATBOT["serving"], **serving}}


def _error(**serving: Any) -> str:
    with pytest.raises(WorkloadError) as e:
        Workload.from_dict(_service(**serving))
    assert "\n" not in str(e.value)
    return str(e.value)


def test_a_day_loads_sorted_and_its_mean_is_the_workloads_mean() -> None:
    sv = Workload.from_dict(_service(day=dict(reversed(list(EVENING.items()))))).serving
    assert sv is not None and sv.load_day is not None
    assert list(sv.day or {}) == ["00:00", "19:30", "20:00", "23:00", "23:30"]
    # 3 all day, plus 37 for 3 h and half that over each 30-min ramp: 3 + 37 × 3.5 / 24
    assert sv.mean_requests_per_s == pytest.approx(3 + 37 * 3.5 / 24)
    assert sv.billed_requests_per_s == pytest.approx(3 + 37 * 3.5 / 24)
    # the day's mean, written beside it within 1 %, is taken
    near = Workload.from_dict(_service(day=EVENING, mean_requests_per_s=8.4)).serving
    assert near is not None and near.mean_requests_per_s == pytest.approx(3 + 37 * 3.5 / 24)


@pytest.mark.parametrize(
    ("serving", "words"),
    [
        ({"day": {**EVENING, "20:00": 50}}, ("50 requests/s", "requests_per_s (40)")),
        ({"day": {"00:00": 3, "25:00": 4}}, ("'25:00'", '"19:30"')),
        # 19:30 unquoted, which YAML reads as 1170: the time it was, said back quoted
        ({"day": {"00:00": 3, 1170: 40}}, ("time 1170 is 19:30 unquoted", 'write it "19:30"')),
        ({"day": {"00:00": 3, 2000: 40}}, ("2000", '"19:30"', "quoted")),
        ({"day": {"00:00": 3}}, ("at least two times",)),
        ({"day": {"00:00": 3, "20:00": -1}}, ("0 or more",)),
        ({"day": EVENING, "mean_requests_per_s": 15}, ("(15)", "8.396")),
        (
            {"day": EVENING, "schedule": {"hours": "09:00-19:00", "time_zone": "Asia/Shanghai"}},
            ("serving.day and serving.schedule",),
        ),
    ],
)
def test_a_bad_day_is_refused_in_one_line(serving: dict[str, Any], words: tuple[str, ...]) -> None:
    said = _error(**serving)
    assert all(w in said for w in words), said


def test_the_days_points_are_listed_as_the_readers_language_lists() -> None:
    # a Chinese plan had listed them with ASCII commas ("00:00 3, 19:30 3")
    from gpuplan.day_load import LoadDay
    from gpuplan.i18n import use_language

    day = LoadDay(points=((0, 3.0), (1170, 3.0), (1200, 40.0)))
    assert day.said == "00:00 3, 19:30 3, 20:00 40"
    with use_language("zh"):
        assert day.said == "00:00 3、19:30 3、20:00 40"
