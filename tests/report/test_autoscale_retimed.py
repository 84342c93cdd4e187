"""simulate's header line of a re-timed trace says "re-timed" once: the trace's note begins with the
same words (the comment line `simulate trace --from` writes), which had followed "Re-timed: "."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuplan.i18n import use_language
from gpuplan.report.autoscale import retimed_line
from gpuplan.simulate import read_trace_csv, retime

TRACE = Path(__file__).resolve().parents[2] / "examples" / "simulate" / "load-bursty-2h-synthetic.csv"


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en", "Re-timed from load-bursty-2h-synthetic: 2× its rate, repeated to fill 3 h."),
        ("zh", "重定时自 load-bursty-2h-synthetic: 2× its rate, repeated to fill 3 h。"),
    ],
)
def test_a_re_timed_trace_is_said_re_timed_once(lang: str, said: str) -> None:
    note = retime(read_trace_csv(TRACE), rate_scale=2, tile_to_s=3 * 3600).note
    assert note == "re-timed from load-bursty-2h-synthetic: 2× its rate, repeated to fill 3 h"
    with use_language(lang):
        line = retimed_line(note)
    assert line == said
    assert line.lower().count("re-timed") <= 1
