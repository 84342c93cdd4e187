"""The narrow layout of "where each policy lost requests" heads each policy's column with its name:
it had been 1, 2 …, numbers the policy table beside it did not show in its wide layout."""

from __future__ import annotations

from types import SimpleNamespace

from rich.console import Console

from gpuplan.report.autoscale import _losses_table
from gpuplan.simulate.autoscale import LOSS_CAUSES


def _policy(name: str) -> SimpleNamespace:
    losses = SimpleNamespace(counts=dict.fromkeys(LOSS_CAUSES, 0), peak_bin_s=None, peak_lost=0)
    return SimpleNamespace(name=name, losses=losses)


def test_the_narrow_losses_table_heads_its_columns_with_the_policies_names() -> None:
    res = SimpleNamespace(policies=[_policy("fixed:replicas=4"), _policy("target:target=0.7,max=20")])
    console = Console(width=100, record=True)
    console.print(_losses_table(res, 1))  # type: ignore[arg-type]
    text = console.export_text()
    assert "fixed:replicas=4" in text and "target:target=0.7,max=20" in text, text
