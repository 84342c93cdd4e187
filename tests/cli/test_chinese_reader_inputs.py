"""What a Chinese reader types and reads: a full-width colon in YAML, a Chinese country typo, the
clouds by their Chinese names, a price per month, a spot band's source in a simulation."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from unittest import mock

import pytest

from gpuplan.catalog import PROVIDERS
from gpuplan.cli import main
from gpuplan.i18n import use_language
from gpuplan.plan.spot import band_rate_per_hour

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def zh(
    fresh_catalog: Path, capsys: pytest.CaptureFixture[str]
) -> Callable[..., subprocess.CompletedProcess[str]]:
    """``zh(*args)``: the command as a user runs it, in Chinese, through gpuplan's console entry
    point in this process (on a copy of the seeded catalog): its exit status, stdout and stderr. A
    traceback would fail the test where it is raised."""

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        argv = ["gpuplan", "--lang", "zh", "--db", str(fresh_catalog), *args]
        capsys.readouterr()
        code: int | str | None = 0
        with mock.patch.object(sys, "argv", argv):
            try:
                main()
            except SystemExit as e:
                code = e.code
        said = capsys.readouterr()
        assert code is None or isinstance(code, int), code  # a message as the status: not a refusal of ours
        return subprocess.CompletedProcess(argv, code or 0, said.out, said.err)

    return run


def test_a_full_width_colon_after_a_key_is_named_on_its_own_line(
    tmp_path: Path, zh: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    # It was "t7.yaml:8:1：YAML 格式错误：could not find expected ':'": the parser's English, a line late.
    text = (EXAMPLES / "bert-large-squad.yaml").read_text(encoding="utf-8")
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("precision:"))
    lines[at] = lines[at].replace("precision:", "precision：", 1)
    w = tmp_path / "w.yaml"
    w.write_text("\n".join(lines) + "\n", encoding="utf-8")
    r = zh("estimate", str(w), "--gpu", "T4")
    assert r.returncode != 0
    assert f"w.yaml:{at + 1}：'precision' 后面是全角冒号“：”；YAML 需要半角冒号“:”" in r.stderr, r.stderr


def test_a_chinese_country_typo_gets_a_did_you_mean(
    zh: Callable[..., subprocess.CompletedProcess[str]],
) -> None:
    r = zh("plan", str(EXAMPLES / "bert-large-squad.yaml"), "--countries", "中囯")
    assert r.returncode != 0 and "您是不是指" in r.stderr and "中国" in r.stderr, r.stderr


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("阿里云", "alibaba"),
        ("腾讯云", "tencent"),
        ("华为云", "huawei"),
        ("火山引擎", "volcengine"),
        # as typed in pinyin (was "unknown provider 'huoshan'" with no suggestion)
        ("huoshan", "volcengine"),
        ("aliyun", "alibaba"),
    ],
)
def test_the_chinese_clouds_answer_to_their_chinese_names(name: str, code: str) -> None:
    assert PROVIDERS.cast(name) == code


def test_a_spot_band_read_from_the_catalog_is_said_in_the_readers_language() -> None:
    rate = band_rate_per_hour("10-15%")
    assert rate is not None
    with use_language("zh"):
        shown = rate.shown()
    assert "目录中的中断率区间 '10-15%'" in shown and "interruption band" not in shown
    with use_language("en"):
        assert rate.shown().startswith("interruption bands '10-15%' per month from the catalog")


def test_a_monthly_price_reads_per_month_not_calendar_month() -> None:
    from gpuplan.i18n import _

    with use_language("zh"):
        assert _("month") == "月"  # "¥15,160/月", as offers shows it (it was "/月份")


@pytest.mark.parametrize(
    ("text", "amount"),
    [
        ("1200000", 1_200_000.0),
        ("1,200,000", 1_200_000.0),
        ("1_200_000", 1_200_000.0),
        ("120万", 1_200_000.0),
        ("1.2亿", 120_000_000.0),
        ("¥1,200,000", 1_200_000.0),
        ("￥120万", 1_200_000.0),
        ("1200000元", 1_200_000.0),
        ("CNY 5000", 5_000.0),
        ("120万元", 1_200_000.0),
        ("120万 人民币", 1_200_000.0),
    ],
)
def test_a_budget_in_yuan_is_read_as_people_write_it(text: str, amount: float) -> None:
    from gpuplan.cli._numbers import money_in

    assert money_in(0.01, 1e13, "cny", "--budget-usd")(text) == amount


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("$5000", "$5000 is in another currency: give it with --budget-usd"),
        ("1,20,000", "1,20,000 is not an amount: write it as 1,200,000 or 120万"),
        ("十万", "十万 is not an amount"),
        ("-5万", "Input should be greater than or equal to 0.01"),
        # dollars by their Chinese name: 美元 ends in the yuan's 元, and had been read as "5000美" yuan,
        # then "not an amount"
        ("5000美元", "5000美元 is in another currency: give it with --budget-usd"),
        ("3万美金", "3万美金 is in another currency: give it with --budget-usd"),
    ],
)
def test_a_budget_that_is_no_amount_of_yuan_is_refused_in_words(text: str, words: str) -> None:
    from pydantic_core import PydanticCustomError

    from gpuplan.cli._numbers import money_in

    with pytest.raises(PydanticCustomError) as e:
        money_in(0.01, 1e13, "cny", "--budget-usd")(text)
    assert words in str(e.value)


@pytest.mark.parametrize(
    ("text", "amount"), [("5000美元", 5_000.0), ("120万美元", 1_200_000.0), ("2万美金", 20_000.0)]
)
def test_dollars_written_by_their_chinese_name_are_dollars(text: str, amount: float) -> None:
    from gpuplan.units import read_money

    assert read_money(text) == (amount, "usd")


def test_a_budget_of_120_wan_plans_and_a_wrong_one_is_one_chinese_line(
    zh: Callable[..., subprocess.CompletedProcess[str]],
) -> None:
    ok = zh("plan", str(EXAMPLES / "resnet50-imagenet.yaml"), "--budget-cny", "120万", "--json")
    assert ok.returncode == 0, ok.stderr
    bad = zh("plan", str(EXAMPLES / "resnet50-imagenet.yaml"), "--budget-cny", "abc")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
    assert "abc 不是金额" in bad.stderr, bad.stderr


def test_the_clouds_take_the_names_skypilot_and_terraform_give_them() -> None:
    assert PROVIDERS.cast("alicloud") == "alibaba"
    assert PROVIDERS.cast("huaweicloud") == "huawei"
    assert PROVIDERS.cast("tencentcloud") == "tencent"


def test_the_clouds_take_their_names_written_with_a_hyphen() -> None:
    # `offers --provider tencent-cloud` was "云厂商 'tencent-cloud' 无法识别；您是不是指 'tencent'？"
    # (exit 1), while aliyun, 腾讯云 and huaweicloud were taken
    for written, code in (
        ("tencent-cloud", "tencent"),
        ("Tencent Cloud", "tencent"),
        ("huawei-cloud", "huawei"),
        ("alibaba-cloud", "alibaba"),
        ("volcano-engine", "volcengine"),
        ("google-cloud", "gcp"),
    ):
        assert PROVIDERS.cast(written) == code, written


def test_a_full_width_colon_inside_a_section_is_named_not_the_sections_class(
    tmp_path: Path, zh: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    # `  budget_cny：20000` under constraints: is one string to YAML; it was "constraints: 应为映射（键:
    # 值）或 ConstraintsSpec 实例", a class name no workload file spells and no word of the colon.
    text = (EXAMPLES / "bert-large-squad.yaml").read_text(encoding="utf-8")
    w = tmp_path / "w.yaml"
    w.write_text(text.split("constraints:")[0] + "constraints:\n  budget_cny：20000\n", encoding="utf-8")
    r = zh("estimate", str(w), "--gpu", "T4")
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert "constraints: 应为键值映射，但 'budget_cny：20000' 中用了全角冒号“：”" in r.stderr, r.stderr
    assert "ConstraintsSpec" not in r.stderr


def test_a_tab_in_the_indentation_is_named(
    tmp_path: Path, zh: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    # It was "YAML 格式错误：found character that cannot start any token": libyaml's English.
    w = tmp_path / "w.yaml"
    w.write_text(
        "name: x\ntask: train\nmodel: {preset: llama-8b}\ninputs:\n\tbatch_size: 8\n", encoding="utf-8"
    )
    r = zh("estimate", str(w), "--gpu", "T4")
    assert r.returncode != 0
    assert "w.yaml:5:1：这一行用制表符（Tab）缩进；YAML 只能用空格缩进" in r.stderr, r.stderr


@pytest.mark.parametrize(
    ("word", "model"),
    [
        ("包月", "monthly"),
        ("按量付费", "on_demand"),
        ("抢占式", "spot"),
        ("竞价实例", "spot"),
        ("1 年预留", "reserved_1y"),
    ],
)
def test_the_pricing_models_answer_to_the_chinese_names_the_tables_print(word: str, model: str) -> None:
    from gpuplan.vocab import PricingModel

    assert PricingModel.cast(word) == model
