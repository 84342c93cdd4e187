"""``serving.schedule``: the hours a service runs, its days and its IANA time zone; each mistake is
one line naming the field, a misspelt weekday or zone with "did you mean"; ``min_replicas: 0`` only
with a schedule."""

from __future__ import annotations

from typing import Any

import pytest

from gpuplan.catalog.city_zones import city_zones
from gpuplan.errors import WorkloadError
from gpuplan.i18n import use_language
from gpuplan.i18n.error_text import error_text
from gpuplan.workload import Workload


def _service(schedule: dict[str, Any] | None = None, **serving: Any) -> dict[str, Any]:
    sv: dict[str, Any] = {"requests_per_s": 4, "prompt_tokens": 800, "output_tokens": 300, **serving}
    if schedule is not None:
        sv["schedule"] = schedule
    return {
        "name": "assistant",
        "task": "infer",
        "model": {"preset": "gpt2"},
        "inputs": {"batch_size": 1, "seq_len": 1024},
        "serving": sv,
    }


OFFICE = {"hours": "09:00-19:00", "days": "mon-fri", "time_zone": "Asia/Shanghai"}


def _error(d: dict[str, Any]) -> WorkloadError:
    with pytest.raises(WorkloadError) as e:
        Workload.from_dict(d)
    assert "\n" not in str(e.value)
    return e.value


def test_office_hours_are_read_as_a_week_of_minutes() -> None:
    sv = Workload.from_dict(_service(OFFICE, min_replicas=0)).serving
    assert sv is not None and sv.schedule is not None and sv.scales_down
    w = sv.schedule.window
    assert (w.start_min, w.end_min, w.weekdays, w.zone) == (540, 1140, (0, 1, 2, 3, 4), "Asia/Shanghai")
    assert w.hours_per_week == 50 and int(w.week_minutes().sum()) == 50 * 60
    assert w.said == "09:00-19:00 mon-fri (Asia/Shanghai)"
    assert sv.served_hours_per_month == pytest.approx(50 * 730 / 168)


@pytest.mark.parametrize(
    ("days", "want"),
    [
        (["monday", "Wed", "fri"], ("mon", "wed", "fri")),
        ("mon,wed", ("mon", "wed")),
        ("sat-mon", ("mon", "sat", "sun")),
        (None, ("mon", "tue", "wed", "thu", "fri", "sat", "sun")),
    ],
)
def test_days_are_written_as_a_range_a_list_or_left_out(days: object, want: tuple[str, ...]) -> None:
    schedule = {k: v for k, v in {**OFFICE, "days": days}.items() if v is not None}
    sv = Workload.from_dict(_service(schedule)).serving
    assert sv is not None and sv.schedule is not None and sv.schedule.days == want


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"days": "mon-fir"}, "serving.schedule.days: unknown weekday 'fir'; did you mean 'fri'?"),
        ({"time_zone": "Asia/Shanghia"}, "unknown time zone 'Asia/Shanghia'; did you mean 'Asia/Shanghai'"),
        ({"hours": "9-17"}, "serving.schedule.hours: hours '9-17': write them as 09:00-19:00"),
        ({"hours": "19:00-09:00"}, "the end is not after the start"),
        ({"hours": "09:00-25:00"}, "write them as 09:00-19:00"),
        ({"hours": "00:00-24:00", "days": "mon-sun"}, "is no schedule: leave it out"),
    ],
)
def test_a_bad_schedule_is_one_line(change: dict[str, str], words: str) -> None:
    assert words in str(_error(_service({**OFFICE, **change})))


def test_every_wrong_value_of_a_schedule_is_named_in_its_one_line() -> None:
    # was: "serving.schedule.hours: hours '8-18': … (and 2 more problems)", the weekday and the time
    # zone said only once the hours were fixed
    e = _error(_service({"hours": "8-18", "days": "mon-fry", "time_zone": "Europe/Munich"}))
    said = str(e)
    assert said.startswith(
        "serving.schedule.hours: hours '8-18': write them as 09:00-19:00 (24-hour clock, local time) "
        "(also serving.schedule.days: unknown weekday 'fry'; did you mean 'fri'?; "
        "serving.schedule.time_zone: unknown time zone 'Europe/Munich'; Munich is in Germany: did you mean "
        "'Europe/Berlin'?)"
    ), said
    assert "more problems" not in said
    with use_language("zh"):
        zh = error_text(e)
    assert (
        "（另外：serving.schedule.days: 星期 'fry' 无法识别；您是不是指 'fri'？；serving.schedule.time_zone:"
        in zh
    )


def test_problems_past_the_ones_named_are_counted() -> None:
    bad = {"hours": "8-18", "days": "mon-fry", "time_zone": "Europe/Munich"}
    said = str(_error({**_service(bad, requests_per_s=-1, prompt_tokens=0, output_tokens=0), "name": 7}))
    assert said.endswith("; and 2 more problems)"), said
    assert said.count("; serving.") == 3, said


def test_a_schedule_needs_its_time_zone() -> None:
    schedule = {k: v for k, v in OFFICE.items() if k != "time_zone"}
    assert "serving.schedule.time_zone" in str(_error(_service(schedule)))


def test_min_replicas_zero_only_with_a_schedule() -> None:
    e = _error(_service(min_replicas=0))
    assert "min_replicas 0 needs a schedule" in str(e)
    with use_language("zh"):
        assert "min_replicas" in error_text(e) and "您" in error_text(e)


def test_simulate_replays_a_scheduled_services_hours_with_at_least_one_replica() -> None:
    # simulate autoscale replays the hours a service runs: its floor of 0 is outside them
    from gpuplan.simulate.policy import as_deployed, parse_policy

    sv = Workload.from_dict(_service(OFFICE, min_replicas=0)).serving
    (policy,) = as_deployed([parse_policy("queue:max=4")], sv)
    assert policy.min_replicas == 1


@pytest.mark.parametrize(
    ("zone", "words"),
    [
        # was: "did you mean 'Europe/Zurich' or 'Europe/Monaco' or 'Europe/Nicosia'?" (the nearest spellings)
        ("Europe/Munich", "Munich is in Germany: did you mean 'Europe/Berlin'?"),
        ("Asia/Beijing", "Beijing is in China: did you mean 'Asia/Shanghai'?"),
        ("America/San_Francisco", "San Francisco is in United States: did you mean 'America/Los_Angeles'?"),
        ("Asia/Mumbai", "Mumbai is in India: did you mean 'Asia/Kolkata'?"),
        ("Europe/Frankfurt", "Frankfurt is in Germany: did you mean 'Europe/Berlin'?"),
    ],
)
def test_a_time_zone_written_as_a_city_offers_its_countrys_zone(zone: str, words: str) -> None:
    said = str(_error(_service({**OFFICE, "time_zone": zone})))
    assert said == f"serving.schedule.time_zone: unknown time zone {zone!r}; {words}", said


def test_a_city_the_table_places_is_given_its_own_zone_not_the_nearest_zone_city() -> None:
    # Canberra is a link the tz database keeps (accepted as written where this machine has it); the
    # table gives it Sydney's. Seattle is nearer Boise's zone city, Munich nearer Busingen's.
    for zone, country, want in [
        ("Australia/Canberra", "AU", "Australia/Sydney"),
        ("America/Seattle", "US", "America/Los_Angeles"),
        ("Europe/Munich", "DE", "Europe/Berlin"),
    ]:
        found = city_zones(zone)
        assert found is not None and (found.country, found.zones) == (country, (want,)), zone


def test_a_city_not_known_keeps_the_nearest_spellings() -> None:
    said = str(_error(_service({**OFFICE, "time_zone": "Europe/Gotham"})))
    assert "unknown time zone 'Europe/Gotham'; did you mean 'Europe/" in said, said
    assert " is in " not in said


def test_a_time_zone_written_as_a_city_reads_in_chinese() -> None:
    e = _error(_service({**OFFICE, "time_zone": "Europe/Munich"}))
    with use_language("zh"):
        zh = error_text(e)
    want = "时区 'Europe/Munich' 无法识别；Munich 位于德国：您是不是指 'Europe/Berlin'？"
    assert zh == f"serving.schedule.time_zone: {want}", zh
