"""Every --help screen fits 80, 100 and 120 columns whole, in English and Chinese: nothing cut."""

from __future__ import annotations

import re
from typing import Any

import pytest
import typer.main
from typer.testing import CliRunner

from gpuplan.cli import app
from gpuplan.cli._help_layout import CjkText, _wrap
from gpuplan.i18n import _, use_language

runner = CliRunner()
ROOT = typer.main.get_command(app)


def _all_commands(command: Any, path: list[str]) -> list[tuple[list[str], Any]]:
    found = [(path, command)]
    for name, sub in sorted((getattr(command, "commands", None) or {}).items()):
        found += _all_commands(sub, [*path, name])
    return found


COMMANDS = _all_commands(ROOT, [])
_LAYOUT = re.compile(r"[\s│╭╮╰╯─]")


def _flat(text: str) -> str:
    """``text`` without spaces, line breaks and panel borders (where wrapping may put them)."""
    return _LAYOUT.sub("", text)


def _cut_lines(output: str) -> list[str]:
    """Lines that end in "…" where no help text has one: Rich's ellipsis for a cut cell."""
    own = "".join(t for _p, c in COMMANDS for t in [c.help or ""] + [p.help or "" for p in c.params])
    with use_language("zh"):
        own += "".join(_(t) for t in own.split("\n") if t)
    cut = []
    for line in output.splitlines():
        body = line.rstrip().rstrip("│").rstrip()
        if body.endswith("…") and body.split()[-1] != "…" and body.split()[-1] not in own:
            cut.append(line)
    return cut


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("width", [80, 100, 120])
def test_every_help_screen_fits_the_width_and_shows_every_text_whole(language: str, width: int) -> None:
    for path, command in COMMANDS:
        out = runner.invoke(app, [*path, "--help", "--lang", language], env={"COLUMNS": str(width)}).output
        assert max(len(line) for line in out.splitlines()) <= width, path
        assert not _cut_lines(out), (path, _cut_lines(out))
        flat = _flat(out)
        with use_language(language):
            texts = [_(p.help) for p in command.params if p.help and not getattr(p, "hidden", False)]
        missing = [t for t in texts if _flat(t) not in flat]
        assert not missing, (language, width, path, missing)


def test_chinese_help_has_no_spaces_pushed_in_after_its_punctuation() -> None:
    out = runner.invoke(app, ["plan", "--help", "--lang", "zh"], env={"COLUMNS": "120"}).output
    assert "为 WORKLOAD 排序选出运行位置：GPU、数量、云厂商" in out
    assert not re.search(r"[，；：。、）] \S", out.replace("│", ""))


def test_chinese_text_breaks_between_characters_and_keeps_latin_words_whole() -> None:
    lines = _wrap("读取各云厂商自己的价目表并追加其价格，每个云厂商一个事务：--provider aws。", 16)
    assert all(len(line) * 2 <= 16 + len(re.findall(r"[ -~]", line)) for line in lines)
    assert not any(line[0] in "，。：" for line in lines)  # a closing mark never starts a line
    assert "--provider" in "".join(lines).replace(" ", "") and any("--provider" in ln for ln in lines)
    # A Latin word wider than the column is folded, not lost.
    assert "".join(_wrap("x" * 25, 10)) == "x" * 25


def test_cjk_text_measures_its_widest_line_and_a_short_minimum() -> None:
    from rich.console import Console

    console = Console(width=80)
    m = CjkText("一二三四五\n一二").__rich_measure__(console, console.options)
    assert (m.minimum, m.maximum) == (2, 10)
