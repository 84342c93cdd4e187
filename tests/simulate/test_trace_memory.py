"""A trace whose last line is bad is read again line by line (to name that line) after Arrow's fast
parse fails: what that parse freed is handed back first. The memory it then holds (typed arrays, 8
bytes a value) is measured in benchmarks/bench_trace_file.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuplan.errors import InputError
from gpuplan.simulate.trace import read_trace_csv


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
