"""Traces: CSV in with one-line errors and limits, seeded generators that reproduce."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gpuplan.errors import InputError
from gpuplan.i18n import use_language
from gpuplan.i18n.error_text import error_text
from gpuplan.simulate import Shape, bursty_trace, diurnal_trace, read_trace_csv, step_trace

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "simulate" / "load-bursty-2h-synthetic.csv"


def test_reads_seconds_and_token_columns(tmp_path: Path) -> None:
    f = tmp_path / "t.csv"
    f.write_text("timestamp,prompt_tokens,output_tokens\n10.5,100,20\n10.0,50,10\n12,10,1\n")
    tr = read_trace_csv(f)
    assert tr.arrival_s.tolist() == [0.0, 0.5, 2.0]  # sorted, from the first arrival
    assert tr.prompt_tokens.tolist() == [50, 100, 10]
    assert not tr.synthetic


def test_reads_the_azure_llm_trace_columns_and_seven_digit_fractions(tmp_path: Path) -> None:
    f = tmp_path / "azure.csv"
    f.write_text(
        "TIMESTAMP,ContextTokens,GeneratedTokens\n"
        "2023-11-16 18:15:46.6805900,374,44\n"
        "2023-11-16 18:15:50.9951690,396,109\n"
    )
    tr = read_trace_csv(f)
    assert tr.arrival_s[1] == pytest.approx(4.314579, abs=1e-6)
    assert tr.output_tokens.tolist() == [44, 109]
    assert tr.start_of_day_s == pytest.approx(18 * 3600 + 15 * 60 + 46.68059, abs=1e-3)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty file"),
        ("when,x\n1,2\n", "no timestamp column"),
        ("timestamp\n1\nabc\n", "line 3"),
        ("timestamp,output_tokens\n1,0\n", "output_tokens must be ≥ 1"),
        # Which row, in the file's order (the trace is sorted by time after reading).
        (
            "timestamp,prompt_tokens\n5,1\n2,7\n3,-4\n",
            "prompt_tokens must be ≥ 0 on every line; request 3 .counted from the first after the "
            "header. has -4",
        ),
        # The column as the file names it (an Azure trace's), not gpuplan's name for it.
        (
            "TIMESTAMP,ContextTokens,GeneratedTokens\n0,-374,44\n1,374,44\n",
            "ContextTokens must be ≥ 0 on every line; request 1 ",
        ),
        ("timestamp\n1\n2023-01-01 00:00:00\n", "mixes numbers and date-times"),
        ("timestamp\n", "no requests"),
        # A field over the csv module's limit (128 KiB): in a row, in the header (was a traceback).
        ("timestamp,prompt_tokens,output_tokens\n0,1,1\n1," + "x" * 131073 + ",1\n", "not readable as CSV"),
        ("timestamp," + "y" * 140000 + "\n0,1\n", "not readable as CSV"),
    ],
)
def test_bad_csv_is_one_line(tmp_path: Path, text: str, message: str) -> None:
    f = tmp_path / "bad.csv"
    f.write_text(text)
    with pytest.raises(InputError, match=message) as e:
        read_trace_csv(f)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize(
    ("rows", "line", "fields"),
    [("0,10,20\n1,10,20,99\n2,10,20\n", 3, 4), ("0,10,20,5\n1,10,20\n", 2, 4), ("0,10,20\n1,10\n", 3, 2)],
)
def test_a_row_with_more_or_fewer_columns_than_the_header_is_refused_naming_its_line(
    tmp_path: Path, rows: str, line: int, fields: int
) -> None:
    # a row with a column more had been read silently (its cells taken as the header's), a cut one refused
    f = tmp_path / "load.csv"
    f.write_text("# recorded\ntimestamp,prompt_tokens,output_tokens\n" + rows)
    with pytest.raises(InputError) as e:
        read_trace_csv(f)
    assert str(e.value) == f"trace load.csv line {line + 1} has {fields} fields, expected 3"
    with use_language("zh"):
        assert "\n" not in error_text(e.value) and f"{line + 1}" in error_text(e.value)


@pytest.mark.parametrize(
    ("header", "column", "meant"),
    [
        ("TIMESTAMP,ContextTokens,GeneratedTokns", "GeneratedTokns", "GeneratedTokens"),
        ("timestamp,promt_tokens", "promt_tokens", "prompt_tokens"),
    ],
)
def test_a_token_column_typed_wrong_is_refused_not_read_as_no_token_counts(
    tmp_path: Path, header: str, column: str, meant: str
) -> None:
    # 'GeneratedTokns' had been read as a trace without output counts: every request took the
    # workload's 211 tokens and the SLO miss moved from 0 % to 18.6 % without a word.
    f = tmp_path / "t.csv"
    f.write_text(header + "\n" + "\n".join(",".join(["1"] * len(header.split(","))) for _ in range(3)) + "\n")
    with pytest.raises(InputError) as e:
        read_trace_csv(f)
    assert str(e.value).startswith(
        f"trace t.csv: column {column!r} is not one gpuplan reads; did you mean {meant!r}?"
    )
    with use_language("zh"):
        assert "您是不是指" in error_text(e.value)


def test_a_column_of_its_own_beside_the_token_columns_is_still_read(tmp_path: Path) -> None:
    f = tmp_path / "t.csv"
    f.write_text("timestamp,output_len,prompt_tokens\n0,5,7\n1,5,7\n")
    assert read_trace_csv(f).prompt_tokens is not None


def test_the_shipped_and_the_azure_traces_still_load() -> None:
    from azure_traces import CODE, CONV, azure

    assert len(read_trace_csv(EXAMPLE).arrival_s) > 0
    # the Azure LLM inference traces of 2023 (their README: 8,819 and 19,366 requests)
    assert [len(read_trace_csv(azure(name)).arrival_s) for name in (CODE, CONV)] == [8819, 19366]


def test_what_the_csv_reader_stops_on_is_said_in_the_users_language(tmp_path: Path) -> None:
    # was: the csv module's English ("field larger than field limit (131072)") in any language
    f = tmp_path / "long.csv"
    f.write_text("timestamp,prompt_tokens,output_tokens\n0,1,1\n1," + "x" * 131073 + ",1\n")
    with pytest.raises(InputError) as e:
        read_trace_csv(f)
    assert "(a field longer than 131,072 characters, the CSV reader's limit)" in str(e.value), e.value
    with use_language("zh"):
        zh = error_text(e.value)
    assert "超过" in zh and "field" not in zh, zh


def test_a_csv_error_not_known_by_name_is_quoted_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # was: "not readable as CSV (not readable as CSV (Python's csv module says 'odd'))"
    import csv

    from gpuplan.simulate import trace as trace_module

    def stop(*_: object) -> None:
        raise csv.Error("odd")

    monkeypatch.setattr(trace_module, "_read_checked", stop)
    f = tmp_path / "t.csv"
    f.write_text("timestamp\n0\n")
    with pytest.raises(InputError) as e:
        read_trace_csv(f)
    assert str(e.value).count("CSV (") == 1 and "'odd'" in str(e.value), e.value


def test_size_limit_and_missing_file(tmp_path: Path) -> None:
    f = tmp_path / "big.csv"
    f.write_text("timestamp\n" + "".join(f"{i}\n" for i in range(20)))
    with pytest.raises(InputError, match="more than 10 requests"):
        read_trace_csv(f, max_rows=10)
    with pytest.raises(InputError, match="not found"):
        read_trace_csv(tmp_path / "nope.csv")


def test_generators_are_seeded_and_keep_their_mean_rate() -> None:
    # A whole day: the diurnal mean is the mean over 24 h.
    s = Shape(mean_requests_per_s=4.0, duration_s=24 * 3600, seed=11, prompt_tokens=300, output_tokens=100)
    for gen in (diurnal_trace, bursty_trace, step_trace):
        a, b = gen(s), gen(s)
        assert np.array_equal(a.arrival_s, b.arrival_s)
        assert a.synthetic
        assert a.requests / s.duration_s == pytest.approx(4.0, rel=0.1)
        assert a.output_tokens.mean() == pytest.approx(100, rel=0.05)
    other = diurnal_trace(Shape(mean_requests_per_s=4.0, duration_s=6 * 3600, seed=12))
    assert not np.array_equal(other.arrival_s[:100], diurnal_trace(s).arrival_s[:100])


def test_step_trace_jumps_by_its_factor() -> None:
    tr = step_trace(Shape(mean_requests_per_s=2.0, duration_s=4000, seed=3), factor=3.0)
    before = np.sum(tr.arrival_s < 2000)
    after = np.sum(tr.arrival_s >= 2000)
    assert after / before == pytest.approx(3.0, rel=0.15)


def test_shipped_example_is_labelled_synthetic() -> None:
    tr = read_trace_csv(EXAMPLE)
    assert tr.synthetic
    assert tr.requests > 10_000


@pytest.mark.parametrize("generate", [diurnal_trace, bursty_trace, step_trace])
def test_a_shape_on_a_schedule_has_requests_only_in_its_hours(generate) -> None:
    tr = generate(Shape(peak_requests_per_s=0.5, duration_s=2 * 86_400.0, hours=(8.0, 18.0)))
    hour = tr.arrival_s % 86_400.0 / 3600.0
    assert tr.requests > 0 and bool(np.all((hour >= 8.0) & (hour < 18.0)))
    assert tr.rate is not None and tr.rate.mean_requests_per_s < tr.rate.peak_requests_per_s
