"""Fuzzed SkyPilot price files: the importer and the gates answer every file with rows that pass
sane bounds or with gpuplan's own one-line error; hostile numbers and names never get through."""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpuplan.catalog.gates import MAX_GPUS_PER_INSTANCE, MIN_GPU_FRACTION, check_offer
from gpuplan.catalog.importers import parse_skypilot
from gpuplan.catalog.importers.skypilot import HEADERS
from gpuplan.errors import GpuplanError

_NUMBERS = st.sampled_from(
    ["1", "4.0", "8", "0.167", "2.448", "0.5", "1e999", "-1e999", "nan", "inf", "5e-324", "1e-300", "-1",
     "0", "", "1" + "0" * 400, "3.0.1", " 2 ", "0x10", "1_000"]
)  # fmt: skip
_NAMES = st.sampled_from(
    ["g5.12xlarge", "p4d.24xlarge", "us-east-1", "us-east-1\nx", "a\rb", "us\x00east", "a\u2028b", "'q'",
     "", "x" * 300, "A10G", "A100", "T4", "V100", "H100", "nvidia-tesla-t4", "{'Gpus': [{'Count': 1}]}",
     "{" * 50, "{'Gpus': " + "[" * 300 + "]" * 300 + "}"]
)  # fmt: skip


def _row(provider: str) -> st.SearchStrategy[list[str]]:
    numeric = {"AcceleratorCount", "vCPUs", "MemoryGiB", "Price", "SpotPrice"}
    return st.tuples(*[(_NUMBERS if h in numeric else _NAMES) for h in HEADERS[provider]]).map(list)


@st.composite
def _files(draw: st.DrawFn) -> tuple[str, str]:
    provider = draw(st.sampled_from(sorted(HEADERS)))
    rows = draw(st.lists(_row(provider), min_size=1, max_size=6))
    if draw(st.booleans()):
        rows.append(draw(st.lists(_NAMES, max_size=14)))  # a row of the wrong width
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(HEADERS[provider])
    writer.writerows(rows)
    return provider, buf.getvalue()


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(file=_files())
def test_fuzzed_price_files_pass_sane_rows_or_fail_in_one_own_line(
    tmp_path: Path, file: tuple[str, str]
) -> None:
    provider, text = file
    path = tmp_path / "f.csv"
    path.write_text(text, encoding="utf-8")
    try:
        parsed = parse_skypilot(path, provider, as_of="2026-11-01")
    except GpuplanError as e:
        assert "\n" not in str(e), str(e)
        return
    for row in parsed.rows:
        reasons = check_offer(row, provider=provider, known_instances={}, on_demand_hourly=lambda _r: None)
        if reasons:
            continue
        # What passes is sane: finite, real GPU counts, positive prices, names without control characters.
        assert MIN_GPU_FRACTION <= row.gpu_count <= MAX_GPUS_PER_INSTANCE
        assert all(math.isfinite(p.amount) and p.amount >= 0.01 * row.gpu_count for p in row.prices)
        for name in (row.region, row.instance_type, row.zone or ""):
            assert name.isascii() and name.isprintable() and "'" not in name
