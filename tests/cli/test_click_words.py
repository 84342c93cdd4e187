"""Typer's and Click's own words ("Usage:", "[default: …]", usage errors) follow --lang."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from gpuplan.cli import app
from gpuplan.cli._click_words import ERRORS, TYPER_WORDS, localised_usage_error
from gpuplan.i18n import use_language

runner = CliRunner()

#: Click's and Typer's English words; none may be left in a Chinese help page or usage error.
ENGLISH_WORDS = re.compile(
    r"Usage:|\bOptions\b|\bCommands\b|\bArguments\b|\[default:|\[env var:|\[required\]|\bError\b"
    r"|No such|Missing|Invalid value|Try '|for help|Did you mean|Possible options|requires an"
    r"|unexpected extra|Input should|\[OPTIONS\]|COMMAND \[ARGS\]"
)

#: A command line for (nearly) every usage-error template, and the Chinese it must show.
USAGE_ERRORS = [
    (["plan", "--bogus", "x"], "没有选项：--bogus"),
    (["plan", "--deadlin", "1d"], "可能是：--baseline, --deadline"),
    (["plan"], "缺少参数 'WORKLOAD'；参见"),
    (["plann"], "您是不是指 'plan'"),
    (["catalog", "nothing-like-it"], "没有命令 'nothing-like-it'"),
    (["plan", "job.yaml", "extra"], "多余的参数：extra"),
    (["plan", "job.yaml", "--deadline"], "选项 '--deadline' 需要一个值"),
    (["plan", "job.yaml", "--top", "0"], "'--top' 的值无效：应不小于 1"),
    (["plan", "job.yaml", "--max-nodes", "abc"], "应为整数"),
    (["plan", "job.yaml", "--budget-usd", "lots"], "lots 不是金额：请写成 5,000 或 5k"),
    (["deploy", "plan.json"], "缺少选项 '--target' / '-t'"),
]


@pytest.mark.parametrize(("args", "chinese"), USAGE_ERRORS, ids=[" ".join(a) for a, _ in USAGE_ERRORS])
def test_a_usage_error_under_zh_is_chinese_with_no_click_english(args: list[str], chinese: str) -> None:
    res = runner.invoke(app, ["--lang", "zh", *args], env={"COLUMNS": "120"})
    assert res.exit_code == 2, res.output
    assert chinese in res.output
    assert "错误" in res.output
    assert not ENGLISH_WORDS.findall(res.output), res.output
    assert not re.search(r"[。.][；;]", res.output), res.output  # one sentence end, not two


def test_a_usage_error_is_one_line_with_its_help_hint_in_chinese() -> None:
    res = runner.invoke(app, ["plan", "--bogus", "--lang", "zh"], env={"COLUMNS": "120"})
    assert res.exit_code == 2
    assert res.output.splitlines() == [
        "错误：没有选项：--bogus（可能是：--gpu, --gpus, --out）；参见 'gpuplan plan --help'"
    ]


@pytest.mark.parametrize(
    "args",
    [
        ["plan", "--bogus"],
        ["plan"],
        ["plann"],
        ["plan", "job.yaml", "--top", "0"],
        ["estimate", "x", "--gpu"],
    ],
    ids=lambda a: " ".join(a),
)
def test_a_usage_error_is_one_line_and_exit_2_not_clicks_box(args: list[str]) -> None:
    res = runner.invoke(app, args, env={"COLUMNS": "120"})
    assert res.exit_code == 2
    lines = res.output.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "--help'" in lines[0], res.output
    assert "╭" not in res.output and "Usage:" not in res.output


@pytest.mark.parametrize("command", [["plan"], ["catalog"], []], ids=lambda c: " ".join(c) or "gpuplan")
def test_a_help_page_under_zh_has_typers_words_in_chinese(command: list[str]) -> None:
    res = runner.invoke(app, [*command, "--help", "--lang", "zh"], env={"COLUMNS": "120"})
    assert res.exit_code == 0, res.output
    assert "用法：gpuplan" in res.output and "选项" in res.output and "[环境变量 GPUPLAN_LANG]" in res.output
    assert not ENGLISH_WORDS.findall(res.output), ENGLISH_WORDS.findall(res.output)


def test_plan_help_under_zh_shows_default_and_required_in_chinese() -> None:
    out = runner.invoke(app, ["plan", "--help", "--lang", "zh"], env={"COLUMNS": "120"}).output
    assert "[默认：10]" in out and "[必填]" in out and "参数" in out


def test_english_help_and_errors_are_typers_own_before_and_after_a_chinese_run() -> None:
    lines = (["plan", "--help"], ["plan", "--bogus"], ["plann"], ["plan", "job.yaml", "--top", "0"])
    before = [runner.invoke(app, a, env={"COLUMNS": "100"}).output for a in lines]
    for a in lines:
        runner.invoke(app, [*a, "--lang", "zh"], env={"COLUMNS": "100"})
    after = [runner.invoke(app, a, env={"COLUMNS": "100"}).output for a in lines]
    assert after == before
    assert "Usage: gpuplan plan [OPTIONS]" in before[0] and "[default: 10]" in before[0]
    assert before[1] == (
        "error: No such option: --bogus (Possible options: --gpu, --gpus, --out); see 'gpuplan plan --help'\n"
    )
    assert "Invalid value for '--top': Input should be greater than or equal to 1" in before[3]


def test_english_leaves_typers_word_constants_as_typer_set_them() -> None:
    import typer.rich_utils as rich_utils

    runner.invoke(app, ["plan", "--help", "--lang", "zh"])
    assert TYPER_WORDS["DEFAULT_STRING"] != rich_utils.DEFAULT_STRING
    runner.invoke(app, ["plan", "--help", "--lang", "en"])
    for name, english in TYPER_WORDS.items():
        assert getattr(rich_utils, name) == english, name


def test_every_error_template_has_placeholders_the_regex_can_read() -> None:
    from typer._click.exceptions import UsageError

    with use_language("zh"):
        for template in ERRORS:
            english = template.format(
                name="'--x'",
                options="--a, --b",
                suggestions="'y'",
                arguments="z",
                count=2,
                reason="why",
                envvar="'X'",
            )
            text = localised_usage_error(UsageError(english)).format_message()
            assert text != english, template


def test_an_unknown_usage_message_is_left_as_it_was() -> None:
    from typer._click.exceptions import UsageError

    error = UsageError("Something Click never says.")
    with use_language("zh"):
        assert localised_usage_error(error) is error
