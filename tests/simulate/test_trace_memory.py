"""A trace whose last line is bad is read line by line (to name that line) in typed arrays, 8 bytes a
value: in Python lists, a file at the row cap held about 3 GB before its one-line refusal."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from gpuplan.errors import InputError
from gpuplan.simulate.trace import read_trace_csv

ROWS = 250_000


def test_a_bad_last_line_is_refused_holding_a_few_bytes_a_value(tmp_path: Path) -> None:
    f = tmp_path / "t.csv"
    with f.open("w") as out:
        out.write("timestamp,prompt_tokens,output_tokens\n")
        out.writelines(f"{i * 0.25:.3f},512,128\n" for i in range(ROWS))
        out.write("oops,1,1\n")
    tracemalloc.start()
    try:
        with pytest.raises(InputError, match=f"line {ROWS + 2}: cannot read"):
            read_trace_csv(f)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # Three 8-byte values a row (24 bytes), with room for the arrays' growth and the reader's own
    # objects (under 2 MB); in lists, a row took a pointer and a float or int object for each value
    # (about 76 bytes).
    assert peak < ROWS * 40, peak


def test_what_a_failed_fast_read_freed_is_handed_back_before_the_line_by_line_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pyarrow as pa

    pool = pa.default_memory_pool()
    released: list[bool] = []

    class Pool:
        def release_unused(self) -> None:
            released.append(True)
            pool.release_unused()

    monkeypatch.setattr(pa, "default_memory_pool", Pool)
    f = tmp_path / "t.csv"
    f.write_text("timestamp,prompt_tokens\n0,512\n1,512\noops,1\n")
    with pytest.raises(InputError, match="line 4: cannot read"):
        read_trace_csv(f)
    assert len(released) == 1  # after Arrow's parse failed, before the file was read again
    f.write_text("timestamp,prompt_tokens\n0,512\n1,512\n")
    assert read_trace_csv(f).requests == 2
    assert len(released) == 1  # a file Arrow reads keeps its columns: nothing to hand back
