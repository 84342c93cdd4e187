"""``--help`` and every command's output in the language of the command line, env or locale."""

from __future__ import annotations

import pytest
import typer.main
from typer.testing import CliRunner

from gpuplan.cli import app
from gpuplan.cli._help import help_messages
from gpuplan.cli._i18n import invocation_language
from gpuplan.i18n import Language, _, use_language

runner = CliRunner()

COMMANDS = [
    [],
    ["offers"],
    ["gpus"],
    ["estimate"],
    ["plan"],
    ["deploy"],
    ["doctor"],
    ["bench"],
    ["tco"],
    ["catalog"],
    ["catalog", "info"],
    ["catalog", "refresh"],
    ["catalog", "history"],
    ["catalog", "discount", "set"],
    ["simulate", "autoscale"],
    ["simulate", "share"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "gpuplan")
def test_help_is_chinese_with_lang_zh_before_or_after_help(command: list[str]) -> None:
    for args in ([*command, "--help", "--lang", "zh"], [*command, "--lang=zh", "--help"]):
        res = runner.invoke(app, args, env={"COLUMNS": "120"})
        assert res.exit_code == 0, res.output
        assert "选项" in res.stdout and "显示此帮助并退出" in res.stdout
        assert "Show this message and exit" not in res.stdout


def test_help_follows_gpuplan_lang_then_the_locale_and_defaults_to_english() -> None:
    assert "报价目录" in runner.invoke(app, ["catalog", "--help"], env={"GPUPLAN_LANG": "zh"}).stdout
    assert "报价目录" in runner.invoke(app, ["catalog", "--help"], env={"LANG": "zh_CN.UTF-8"}).stdout
    english = runner.invoke(app, ["catalog", "--help"]).stdout
    assert "The offer catalog" in english and "报价目录" not in english
    # --lang on the line beats the environment, whichever way round
    line = runner.invoke(app, ["catalog", "--help", "--lang", "en"], env={"GPUPLAN_LANG": "zh"}).stdout
    assert "The offer catalog" in line


def test_a_second_invocation_in_another_language_gets_its_own_help() -> None:
    assert "报价目录" in runner.invoke(app, ["catalog", "--help", "--lang", "zh"]).stdout
    assert "The offer catalog" in runner.invoke(app, ["catalog", "--help", "--lang", "en"]).stdout


def test_every_help_text_of_every_command_has_its_chinese() -> None:
    texts = help_messages(typer.main.get_command(app))
    assert len(texts) > 100  # every option of every command, and the command docstrings
    with use_language("zh"):
        same = [t for t in texts if _(t) == t]
    assert not same, same[:5]


@pytest.mark.parametrize(
    ("args", "environ", "language"),
    [
        (["offers", "--lang", "zh"], {}, Language.ZH),
        (["--lang=zh", "offers"], {"LANG": "en_US.UTF-8"}, Language.ZH),
        (["offers"], {"GPUPLAN_LANG": "zh", "LANG": "en_US.UTF-8"}, Language.ZH),
        (["offers"], {"LANG": "zh_CN.UTF-8"}, Language.ZH),
        (["offers", "--lang", "fr"], {"LANG": "zh_CN.UTF-8"}, Language.ZH),  # the option reports "fr"
        (["deploy", "--", "--lang", "zh"], {}, Language.EN),
        (["offers"], {}, Language.EN),
    ],
)
def test_the_language_of_a_command_line(args: list[str], environ: dict[str, str], language: Language) -> None:
    assert invocation_language(args, environ) is language


def test_a_global_lang_reaches_the_command_output() -> None:
    res = runner.invoke(app, ["--lang", "zh", "catalog", "info"], env={"COLUMNS": "120"})
    assert res.exit_code == 0, res.output
    assert "数据库" in res.stdout and "按云厂商" in res.stdout


def test_an_unknown_language_is_one_line_with_the_known_ones() -> None:
    res = runner.invoke(app, ["catalog", "info", "--lang", "fr"])
    assert res.exit_code != 0
    assert "en, zh" in str(res.exception)


@pytest.mark.parametrize(
    ("args", "chinese"),
    [
        (["catalog", "discount", "list", "--lang", "zh"], "未设置折扣"),
        (["offers", "--lang", "zh", "--provider", "aws"], "实例"),
        (["doctor", "--lang", "zh"], "检查项"),
    ],
)
def test_catalog_and_machine_views_speak_chinese(args: list[str], chinese: str) -> None:
    res = runner.invoke(app, args, env={"COLUMNS": "120"})
    assert res.exit_code == 0, res.output
    assert chinese in res.stdout


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_flag_is_shown_without_a_type_as_it_takes_no_value(lang: str) -> None:
    # Typer 0.29 printed `--spot <bool>`; `--spot true` is then refused as an extra argument
    res = runner.invoke(app, ["--lang", lang, "deploy", "--help"], env={"COLUMNS": "120"})
    assert res.exit_code == 0
    lines = {
        line.split()[1]: line for line in res.stdout.splitlines() if line.startswith("│") and "--" in line
    }
    assert "<bool>" not in lines["--spot"] and "<bool>" not in lines["--help"]
    # an option that takes a value still says what (in Chinese, in Chinese words)
    assert ("<str>" if lang == "en" else "<文本>") in lines["--gpu"]
