"""--currency's help says every spelling the parser takes (``Currency.aliases``), in both
languages: `plan --currency RMB` was read as CNY while --help offered USD and CNY only."""

from __future__ import annotations

import re
from typing import Any

import pytest
import typer.main
from typer.testing import CliRunner

from gpuplan.cli import app
from gpuplan.i18n import _, use_language
from gpuplan.vocab import Currency

runner = CliRunner()
_LAYOUT = re.compile(r"[\s│╭╮╰╯─]")


def _command(path: list[str]) -> Any:
    command: Any = typer.main.get_command(app)
    for name in path:
        command = command.commands[name]
    return command


@pytest.mark.parametrize("path", [["plan"], ["tco"], ["simulate", "autoscale"]])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_currency_help_names_every_spelling_the_parser_takes(path: list[str], lang: str) -> None:
    (option,) = [p for p in _command(path).params if "--currency" in p.opts]
    with use_language(lang):
        said = _(option.help)
    # English names the Chinese spellings without writing them (Typer's own English screen cuts
    # a line of double-width characters); Chinese writes every one
    names = [a for a in Currency.aliases() if lang == "zh" or a.isascii()]
    assert names and all(a.lower() in said.lower() for a in names), (lang, said)
    if lang == "en":
        assert "either currency by its Chinese name" in said
    out = runner.invoke(app, [*path, "--help", "--lang", lang], env={"COLUMNS": "100"}).output
    assert _LAYOUT.sub("", said) in _LAYOUT.sub("", out)  # shown whole on the help screen
    assert {Currency.cast(a).code for a in Currency.aliases()} == {"USD", "CNY"}
