"""Chinese output breaks between characters, not only at spaces, and no line starts with a closing mark."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.cells import cell_len
from rich.console import Group
from rich.table import Table
from rich.text import Text
from typer.testing import CliRunner

from gpuplan.cli import app
from gpuplan.cli._i18n import console

ROOT = Path(__file__).resolve().parents[2]

#: the marks the kinsoku rule keeps off the start of a line
_CLOSING = "，。）」；：！？、"


Capture = tuple[pytest.MonkeyPatch, pytest.CaptureFixture[str]]


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Capture:
    return monkeypatch, capsys


def _printed(cli: Capture, renderable: object, width: int) -> list[str]:
    """What the CLI's console prints of ``renderable`` at ``width`` columns (piped)."""
    monkeypatch, capsys = cli
    monkeypatch.setenv("COLUMNS", str(width))
    capsys.readouterr()
    console().print(renderable)
    return capsys.readouterr().out.splitlines()


def test_a_table_title_keeps_its_closing_bracket_on_its_line(cli: Capture) -> None:
    table = Table(title=Text("不同软件栈下的吞吐量（token/s）"), title_justify="left")
    table.add_column("GPU")
    table.add_row("x" * 26)  # a table 30 wide: the title is 31
    lines = _printed(cli, table, 40)
    assert not any(line.strip() and line.strip()[0] in _CLOSING for line in lines), lines


def test_a_chinese_paragraph_fills_its_lines(cli: Capture) -> None:
    note = (
        "显存一列是 nvidia-smi 会显示的数值，含 PyTorch 缓存的显存块（显存不足前它会先释放缓存并重试）；"
        "能否放下比较的是单步实际所需与可用显存：L4 最多需要 21.3 GiB（可用 22.5）。"
    )
    lines = _printed(cli, Group(Text("x"), Text(note, style="dim")), 60)[1:]
    # broken at spaces only, the first line ended at "PyTorch", 12 cells short of the width
    assert all(cell_len(line.rstrip()) >= 56 for line in lines[:-1]), lines
    assert not any(line[0] in _CLOSING for line in lines), lines
    assert "".join(lines).replace(" ", "") == note.replace(" ", "")


def test_chinese_estimate_separates_with_the_full_width_semicolon(fresh_catalog: Path) -> None:
    # "原生 PyTorch; 无手写融合内核; …": the parts were joined with an ASCII "; "
    args = ["--db", str(fresh_catalog), "estimate", str(ROOT / "examples" / "llama7b-lora.yaml")]
    res = CliRunner().invoke(app, [*args, "--gpu", "L4", "--lang", "zh"], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    assert "原生 PyTorch；" in res.stdout, res.stdout
    assert "; " not in res.stdout, [line for line in res.stdout.splitlines() if "; " in line]
