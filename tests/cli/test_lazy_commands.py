"""The root group builds a command only when it is used, and lists, suggests and converts as before."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import typer.main
from typer.testing import CliRunner

from gpuplan.cli import COMMANDS, app
from gpuplan.cli._lazy import LazyCommands, _registered

runner = CliRunner()


def test_the_table_names_every_registered_command_once() -> None:
    # Eagerly, as Typer would build them from every register function: the same names, no more.
    eager: list[str] = []
    for register in dict.fromkeys(COMMANDS.values()):
        eager += list(typer.main.get_group(_registered(register)).commands)
    assert sorted(eager) == sorted(COMMANDS)


def test_the_root_lists_every_command_in_table_order_without_building_one() -> None:
    root = typer.main.get_command(app)
    children = root.commands  # type: ignore[attr-defined]
    assert isinstance(children, LazyCommands)
    assert root.list_commands(typer.Context(root)) == list(COMMANDS)  # type: ignore[attr-defined]
    assert children.built() == {}
    assert children["offers"].name == "offers"
    assert list(children.built()) == ["offers"]


def test_a_mistyped_command_still_gets_its_suggestion() -> None:
    result = runner.invoke(app, ["ofers"])
    assert result.exit_code == 2
    assert "Did you mean 'offers'?" in result.output


def test_values_still_go_through_typer_conversion() -> None:
    # An integer option given on the line: Typer's own (pydantic) conversion and error words.
    result = runner.invoke(app, ["--db", "unused.sqlite", "offers", "--count", "x"])
    assert result.exit_code == 2
    assert "Input should be a valid integer" in result.output
    result = runner.invoke(app, ["--db", "unused.sqlite", "offers", "--count", "0"])
    assert result.exit_code == 2
    assert "0 GPUs per instance: give a whole number from 1 to" in result.output  # the parser's words


def test_a_command_imports_only_its_own_module_and_not_pydantic(tmp_path: Path) -> None:
    # A provider typo fails before the database is opened, after every option was converted: the
    # options left at None and the strings need neither pydantic (Typer's adapters) nor any other
    # command's module. If Typer moves its per-parameter converter, pydantic shows up here.
    code = (
        "import sys\n"
        "from gpuplan.cli import main\n"
        f"sys.argv = ['gpuplan', '--db', {str(tmp_path / 'x.sqlite')!r}, 'offers', '--provider', 'awz',"
        " '--currency', 'USD', '--json']\n"
        "try:\n    main()\nexcept SystemExit as e:\n    print('EXIT', e.code)\n"
        "cmds = sorted(m for m in sys.modules if m.startswith('gpuplan.cli.') and m.endswith('_cmds'))\n"
        "print('PYDANTIC', 'pydantic' in sys.modules, 'CMDS', cmds)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert "did you mean 'aws'" in proc.stderr, proc.stderr
    assert "EXIT 1" in proc.stdout, proc.stdout
    # (the catalog group's subcommands live in three modules: catalog_cmds, recordings_cmds, refresh_cmds)
    catalog = "['gpuplan.cli.catalog_cmds', 'gpuplan.cli.recordings_cmds', 'gpuplan.cli.refresh_cmds']"
    assert f"PYDANTIC False CMDS {catalog}" in proc.stdout


def test_the_root_help_lists_stand_ins_that_read_as_the_built_commands(monkeypatch: Any) -> None:
    from gpuplan.cli._help import LocalisedGroup

    screens = {}
    for summaries in (True, False):
        monkeypatch.setattr(LocalisedGroup, "summaries", summaries)
        for lang in ("en", "zh"):
            result = runner.invoke(app, ["--lang", lang, "--help"], env={"COLUMNS": "100"})
            assert result.exit_code == 0, result.output
            screens[(summaries, lang)] = result.output
    assert screens[(True, "en")] == screens[(False, "en")]
    assert screens[(True, "zh")] == screens[(False, "zh")]
    assert "offers" in screens[(True, "en")] and "列出" in screens[(True, "zh")]


def test_a_path_argument_and_an_int_default_need_no_typer_adapter(tmp_path: Path) -> None:
    # `plan FILE` converts a path (Typer's path checks, no pydantic TypeAdapter) and leaves --top at
    # its int default; the missing file is reported by the workload loader as before.
    db, missing = str(tmp_path / "x.sqlite"), str(tmp_path / "no.yaml")
    code = (
        "import sys\n"
        "from gpuplan.cli import main\n"
        f"sys.argv = ['gpuplan', '--db', {db!r}, 'plan', {missing!r}]\n"
        "try:\n    main()\nexcept SystemExit as e:\n    print('EXIT', e.code)\n"
        "print('ADAPTERS', 'typer._adapters' in sys.modules)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert "no.yaml" in proc.stderr, proc.stderr
    assert "EXIT 1" in proc.stdout and "ADAPTERS False" in proc.stdout, proc.stdout


def test_the_light_conversions_give_what_typer_gives() -> None:
    # The same values through the light coercer and through Typer's own adapter.
    from typer._coercion import build_runtime_param

    from gpuplan.cli._lazy import _LightCoercion

    root = typer.main.get_command(app)
    plan = root.commands["plan"]  # type: ignore[attr-defined]
    params = {p.name: p for p in plan.params}
    ctx = typer.Context(plan)
    for name, value in (("workload_file", "examples/a.yaml"), ("top", 10), ("top", 1), ("deadline", "2d")):
        param = params[name]
        light = _LightCoercion(param).coerce(value, param=param, ctx=ctx)
        full = build_runtime_param(param.type_descriptor).coerce(value, param=param, ctx=ctx)
        assert light == full and type(light) is type(full), (name, value)


def test_a_repeatable_string_option_converts_as_typer_converts_it() -> None:
    # `offers --provider aws --provider gcp`: the light coercer's list is Typer's, and a left-out one
    # is Typer's () (no pydantic adapter for either)
    from typer._coercion import build_runtime_param

    from gpuplan.cli._lazy import _LightCoercion

    root = typer.main.get_command(app)
    offers = root.commands["offers"]  # type: ignore[attr-defined]
    params = {p.name: p for p in offers.params}
    ctx = typer.Context(offers)
    for name, value in (("provider", ["aws", "gcp"]), ("region", ("us-east-1",)), ("gpu", None)):
        param = params[name]
        light = _LightCoercion(param).coerce(value, param=param, ctx=ctx)
        full = build_runtime_param(param.type_descriptor).coerce(value, param=param, ctx=ctx)
        assert light == full and type(light) is type(full), (name, value)
