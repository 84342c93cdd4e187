"""An unknown command of any group gets "did you mean": a slip of a name, or a word its help uses."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import typer.main
from typer.testing import CliRunner

from gpuplan.cli import app
from gpuplan.cli._help import SuggestingGroup
from gpuplan.cli._lazy import LazyCommands

runner = CliRunner()


def _groups(command: Any, path: str) -> Iterator[tuple[str, Any]]:
    ctx = typer.Context(command)
    for name in command.list_commands(ctx):
        sub = command.get_command(ctx, name)
        if hasattr(sub, "list_commands"):
            yield f"{path} {name}", sub
            yield from _groups(sub, f"{path} {name}")


def test_every_command_group_suggests() -> None:
    # A group made without cls=SuggestingGroup would answer "No such command 'show'" and no more.
    groups = dict(_groups(typer.main.get_command(app), "gpuplan"))
    assert "gpuplan catalog" in groups and "gpuplan serve token" in groups
    assert {path for path, g in groups.items() if not isinstance(g, SuggestingGroup)} == set()


@pytest.mark.parametrize(
    ("line", "meant"),
    [
        (["catalog", "show"], "'info'"),  # the group's help: "show what it holds"; info: "Show where …"
        (["catalog", "inf"], "'info'"),  # a slip, as Typer suggests it
        (["catalog", "discount", "remove"], "'clear'"),  # clear: "Remove a discount."
        (["catalog", "recordings", "show"], "'list'"),  # list: "Show the stored recordings …"
        (["ofers"], "'offers'"),
    ],
)
def test_an_unknown_command_of_a_group_names_the_one_meant(line: list[str], meant: str) -> None:
    result = runner.invoke(app, line)
    assert result.exit_code == 2
    assert f"Did you mean {meant}?" in result.output


def test_the_suggestion_is_written_in_chinese() -> None:
    result = runner.invoke(app, ["catalog", "show", "--lang", "zh"])
    assert result.exit_code == 2
    assert "您是不是指 'info'？" in result.output


def test_the_root_suggests_by_help_word_without_building_its_commands() -> None:
    root = typer.main.get_command(app)
    ctx = typer.Context(root)
    assert root.suggestions(ctx, "list") == ["gpus", "offers"]  # type: ignore[attr-defined]
    commands = root.commands  # type: ignore[attr-defined]
    assert isinstance(commands, LazyCommands) and commands.built() == {}


def test_a_word_no_command_means_gets_no_suggestion() -> None:
    result = runner.invoke(app, ["catalog", "zzz"])
    assert result.exit_code == 2
    assert "Did you mean" not in result.output
