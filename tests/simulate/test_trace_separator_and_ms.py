"""A trace's file said for what it is: milliseconds read as seconds (a window about 1,000× too long),
and columns separated by tabs or semicolons rather than commas."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuplan.errors import InputError
from gpuplan.simulate import check_window
from gpuplan.simulate.trace import read_trace_csv


def _trace(tmp_path: Path, name: str, header: str, sep: str, times: list[int]) -> Path:
    path = tmp_path / name
    rows = [sep.join([str(t), "800", "200"]) for t in times]
    path.write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    return path


def test_milliseconds_read_as_seconds_past_the_window_ask_whether_they_are_milliseconds(
    tmp_path: Path,
) -> None:
    # was: "trace weekday spans 166.7 days, longer than the 31 days…", with nothing on the unit
    path = _trace(
        tmp_path, "weekday.csv", "timestamp,prompt_tokens,output_tokens", ",", [105, 209, 14_400_134]
    )
    trace = read_trace_csv(path)
    with pytest.raises(InputError) as e:
        check_window(trace.name, trace.duration_s, [], seconds_column=trace.seconds_column)
    line = str(e.value)
    assert "166.7 days" in line and "as milliseconds it would span 4 h" in line
    assert "name the column timestamp_ms" in line


def test_a_column_named_milliseconds_or_a_window_of_seconds_is_not_asked_about(tmp_path: Path) -> None:
    # already milliseconds: 166.7 days of them are past the window, and no hint to rename it
    path = _trace(tmp_path, "ms.csv", "timestamp_ms,prompt_tokens,output_tokens", ",", [0, 14_400_134_000])
    trace = read_trace_csv(path)
    with pytest.raises(InputError) as e:
        check_window(trace.name, trace.duration_s, [], seconds_column=trace.seconds_column)
    assert "timestamp_ms" not in str(e.value)
    # far past 1,000× the window: milliseconds would not bring it within, no question asked
    path = _trace(tmp_path, "long.csv", "timestamp,prompt_tokens,output_tokens", ",", [0, 10**10])
    trace = read_trace_csv(path)
    with pytest.raises(InputError) as e:
        check_window(trace.name, trace.duration_s, [], seconds_column=trace.seconds_column)
    assert "timestamp_ms" not in str(e.value)


@pytest.mark.parametrize(("sep", "words"), [("\t", "tabs"), (";", "semicolons")])
def test_a_trace_separated_by_tabs_or_semicolons_is_said_so(tmp_path: Path, sep: str, words: str) -> None:
    # was: "no timestamp column (header is timestamp\tprompt_tokens\toutput_tokens); name it 'timestamp'"
    header = sep.join(["Timestamp", "prompt_tokens", "output_tokens", "request_id"])
    path = _trace(tmp_path, "t.tsv", header, sep, [0, 1, 2])
    with pytest.raises(InputError) as e:
        read_trace_csv(path)
    assert str(e.value) == (
        f"trace t.tsv: its columns are separated by {words}, not commas: save it as CSV (comma-separated)"
    )


def test_a_one_column_header_without_a_time_column_is_still_told_to_name_one(tmp_path: Path) -> None:
    path = _trace(tmp_path, "x.csv", "when\tprompt_tokens", "\t", [0])
    with pytest.raises(InputError) as e:
        read_trace_csv(path)
    assert "no timestamp column" in str(e.value)
