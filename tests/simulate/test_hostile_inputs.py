"""Hostile simulation inputs fail in one line naming what is wrong: non-finite numbers, FIFOs, alias
bombs, overflowing counts — in services, policies, traces, replica and price settings."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gpuplan.errors import InputError
from gpuplan.simulate import Shape, bursty_trace, load_policies, parse_policy, read_trace_csv, retime
from gpuplan.simulate.inputs import fleet_prices, load_services, parse_replica

BOMB = 'a: &a ["x","x","x","x","x","x","x","x","x"]\n' + "".join(
    f"{b}: &{b} [{', '.join([f'*{a}'] * 9)}]\n" for a, b in zip("abcdefgh", "bcdefghi", strict=True)
)


def _one_line(exc: pytest.ExceptionInfo[InputError], *words: str) -> None:
    msg = str(exc.value)
    assert "\n" not in msg, msg
    for w in words:
        assert w in msg, msg


SERVICE = {
    "name": "a",
    "memory_gib": "9",
    "requests_per_s": "1",
    "capacity_requests_per_s": "9",
    "latency_ms": "9",
}


@pytest.mark.parametrize(
    ("field", "value"), [("memory_gib", ".inf"), ("requests_per_s", ".nan"), ("latency_ms", "-.inf")]
)
def test_a_services_file_refuses_non_finite_numbers_naming_the_field(
    field: str, value: str, tmp_path: Path
) -> None:
    p = tmp_path / "services.yaml"
    service = ", ".join(f"{k}: {value if k == field else v}" for k, v in SERVICE.items())
    p.write_text(f"services:\n  - {{{service}}}\n")
    with pytest.raises(InputError) as e:
        load_services(p)
    _one_line(e, f"services.0.{field}", "finite")


def test_services_and_policies_files_that_are_fifos_or_alias_bombs_are_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(BOMB + "services: *i\n")
    for load in (load_services, load_policies):
        with pytest.raises(InputError) as e:
            load(fifo)  # before: blocked forever waiting for a writer
        _one_line(e, "not a regular file")
        with pytest.raises(InputError) as e:
            load(bomb)
        _one_line(e, "aliases expand")


@pytest.mark.parametrize(
    ("kind", "given", "field", "value"),
    [
        ("target", "target=0.7", "startup", "inf"),
        ("target", "", "target", "nan"),
        ("queue", "", "per_replica", "inf"),
        ("fixed", "replicas=2", "period", "inf"),
        ("target", "target=0.7", "down_window", "-inf"),
    ],
)
def test_a_policy_with_a_non_finite_number_is_refused(
    kind: str, given: str, field: str, value: str, tmp_path: Path
) -> None:
    with pytest.raises(InputError) as e:
        parse_policy(f"{kind}:{given + ',' if given else ''}{field}={value}")
    _one_line(e, f"{field} must be a finite number")
    p = tmp_path / "policies.yaml"
    yaml_value = value.replace("inf", ".inf").replace("nan", ".nan")  # YAML's spelling
    p.write_text(
        f"- {{kind: {kind}, {given.replace('=', ': ') + ', ' if given else ''}{field}: {yaml_value}}}\n"
    )
    with pytest.raises(InputError) as e:
        load_policies(p)
    _one_line(e, f"{field} must be a finite number")


@pytest.mark.parametrize(
    ("spec", "said"),
    [
        ("fixed:replicas=2,replicas=3", "policy 'fixed:replicas=2,replicas=3': replicas is given twice"),
        ("scheduled:at=0h@2/0h@3", "schedule: the hour 0h is given twice"),
    ],
)
def test_a_policy_that_says_one_thing_twice_is_refused(spec: str, said: str) -> None:
    # the later value stood silently (3 replicas, or the schedule's last entry for the hour)
    with pytest.raises(InputError) as e:
        parse_policy(spec)
    _one_line(e, said)


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("0,10,1e999", ("line 2", "not a token count")),
        ("0,nan,10", ("line 2", "not a token count")),
        ("0,10.5,10", ("line 2", "not a token count")),
        ("0,10,99999999999", ("line 2", "not a token count")),
        ("inf,10,10", ("line 2", "timestamp is not a finite number")),
        # float() read "1_5" as 15 and full-width or Arabic-Indic digits as ASCII ones
        ("1_5,10,10", ("line 2", "timestamp '1_5' is neither a number nor a date-time")),
        ("１.5,10,10", ("line 2", "timestamp '１.5' is neither a number nor a date-time")),
        ("0,1_0,10", ("line 2", "'1_0' is not a token count")),
        ("0,10,١٠", ("line 2", "'١٠' is not a token count")),
        # a cut line was "cannot read ['0', '10'] (list index out of range)"
        ("0,10", ("trace t.csv line 2 has 2 fields, expected 3",)),
    ],
)
def test_a_trace_with_a_bad_number_names_its_line(line: str, words: tuple[str, ...], tmp_path: Path) -> None:
    p = tmp_path / "t.csv"
    p.write_text(f"timestamp,prompt_tokens,output_tokens\n{line}\n1,10,10\n")
    with pytest.raises(InputError) as e:
        read_trace_csv(p)  # before: 1e999 was an OverflowError traceback
    _one_line(e, *words)


def test_a_trace_that_is_a_fifo_is_not_called_missing(tmp_path: Path) -> None:
    fifo = tmp_path / "t.csv"
    os.mkfifo(fifo)
    with pytest.raises(InputError) as e:
        read_trace_csv(fifo)
    _one_line(e, "not a regular file")


def test_replica_prices_and_shapes_refuse_non_finite_numbers() -> None:
    with pytest.raises(InputError) as e:
        parse_replica("slots=8,tpot_ms=inf", "L4")  # before: a traceback
    _one_line(e, "tpot_ms=inf is not a finite number")
    nan, inf = float("nan"), float("inf")
    with pytest.raises(InputError) as e:
        fleet_prices([], "L4", on_demand_usd=nan)
    _one_line(e, "--on-demand-price")
    with pytest.raises(InputError) as e:
        fleet_prices([], "L4", on_demand_usd=1.0, spot_usd=inf)
    _one_line(e, "--spot-price")
    with pytest.raises(InputError) as e:
        fleet_prices([], "L4", on_demand_usd=1.0, spot_rate_per_hour=nan)
    _one_line(e, "--spot-rate")
    with pytest.raises(InputError) as e:
        bursty_trace(Shape(mean_requests_per_s=inf))
    _one_line(e, "rate")
    with pytest.raises(InputError) as e:
        bursty_trace(Shape(mean_requests_per_s=1, duration_s=nan))
    _one_line(e, "duration")


def test_a_trace_whose_requests_all_arrive_at_one_instant_can_be_repeated(tmp_path: Path) -> None:
    # Three requests at t = 1 have no span: repeating them to fill an hour divided by a period of 0
    # (a ZeroDivisionError traceback). Like a one-request trace, it lasts one second.
    p = tmp_path / "t.csv"
    p.write_text("timestamp,prompt_tokens,output_tokens\n1,10,10\n1,10,10\n1,10,10\n")
    trace = read_trace_csv(p)
    assert trace.duration_s == 1.0
    tiled = retime(trace, tile_to_s=10.0)
    # copies one period apart: 1 s + 1 s / (3 - 1) = 1.5 s; 7 copies start before 10 s
    assert tiled.requests == 3 * 7 and float(tiled.arrival_s[-1]) == 9.0


@pytest.mark.parametrize(
    ("scale", "tile_s", "said"),
    [
        (1e-308, None, "at 1e-308× its arrivals would come later than any time"),
        (1e308, 3600.0, "makes more than 10,000,000 requests"),
    ],
)
def test_a_re_timing_past_what_a_number_holds_is_one_line_not_a_trace_of_inf(
    tmp_path: Path, scale: float, tile_s: float | None, said: str
) -> None:
    # --scale 1e-308 wrote timestamps "inf" (a trace the reader then refuses); --scale 1e308 with
    # --tile-hours was an OverflowError traceback.
    p = tmp_path / "t.csv"
    p.write_text("timestamp,prompt_tokens,output_tokens\n0,10,10\n5,10,10\n")
    with pytest.raises(InputError) as e:
        retime(read_trace_csv(p), rate_scale=scale, tile_to_s=tile_s)
    _one_line(e, said)
