"""A tco usage file given to plan, estimate or deploy is said to be one, as tco says of a workload."""

from __future__ import annotations

from pathlib import Path

import pytest

from one_line import refused

USAGE = """\
horizon_months: 12
start: 2027-01
currency: USD
demands:
  - name: chat
    workload: chat.yaml
    runs_per_month: 1
"""


@pytest.mark.parametrize("command", ["plan", "estimate"])
def test_a_usage_file_given_where_a_workload_goes_says_run_tco(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    # was: "year.yaml: unknown key 'horizon_months'; known keys: activation_checkpointing, …"
    path = tmp_path / "year.yaml"
    path.write_text(USAGE, encoding="utf-8")
    line = refused([command, str(path)], capsys)
    assert "is a tco usage file" in line and f"run `gpuplan tco {path}`" in line
    assert "unknown key" not in line


def test_a_workload_with_an_unknown_demands_key_is_still_a_workload(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "w.yaml"
    path.write_text("name: x\ntask: train\nmodel: {preset: gpt2}\ndemands: 3\n", encoding="utf-8")
    line = refused(["estimate", str(path)], capsys)
    assert "tco usage file" not in line and "demands" in line
