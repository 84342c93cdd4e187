"""The stock/tuned table (``report/stack.levels_table``): which column is the workload's own."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from rich.console import Console

from gpuplan.perf.sweep import EstimateOutcome
from gpuplan.report.stack import levels_table
from gpuplan.workload import Workload


def _outcome(step_s: float) -> EstimateOutcome:
    estimate: Any = SimpleNamespace(step_time_s=step_s, throughput=8192 / step_s, anchored=None)
    return EstimateOutcome(gpu="H100-SXM", gpu_count=1, estimate=estimate)


def _text(table: Any) -> str:
    console = Console(width=120, record=True)
    console.print(table)
    return console.export_text()


def test_a_level_column_is_called_yours_only_where_its_figures_are_the_workload_s() -> None:
    w = Workload.from_dict(
        {
            "name": "w",
            "model": {"preset": "gpt2"},
            "inputs": {"batch_size": 8, "seq_len": 1024},
            "stack": "tuned",
        }
    )
    stock = ("stock", [_outcome(0.045)])
    # The tuned level pads GPT-2's vocabulary, this workload does not: its own step differs.
    mine, tuned = [_outcome(0.037)], ("tuned", [_outcome(0.019)])
    text = _text(levels_table(mine, [stock, tuned], "tokens_per_s", w.software_stack))
    assert "yours" in text and "tuned (yours)" not in text
    # The same figures: the tuned column is the workload's own.
    text = _text(levels_table(tuned[1], [stock, tuned], "tokens_per_s", w.software_stack))
    assert "tuned (yours)" in text


def test_levels_that_change_nothing_are_one_line_not_three_equal_columns() -> None:
    # was: a table of "yours", "stock" and "tuned" with the same figure three times (a model of
    # the user's own code at inference, which runs nothing a level changes)
    w = Workload.from_dict(
        {
            "name": "w",
            "task": "infer",
            "model": {"preset": "gpt2"},
            "inputs": {"batch_size": 8, "seq_len": 1024},
        }
    )
    same = [_outcome(0.045)]
    text = _text(
        levels_table(same, [("stock", same), ("tuned", [_outcome(0.045)])], "tokens_per_s", w.software_stack)
    )
    assert "same figures" in text and "tuned" in text and "45" not in text
