"""Yen is not a currency gpuplan prices in (the catalog has no dated JPY rate), and ¥ is the yuan's
sign. A budget or a currency written as yen in any spelling is refused by name: ``--currency yen``
had been asked "did you mean 'CNY'?", a workload's ``budget_jpy`` "did you mean 'budget_cny'?", and
``--budget '60,000,000 JPY'`` or ``'6000万円'`` told "not an amount". Another currency's code (EUR,
GBP, KRW) is refused the same way; a misspelt code (CYN) is still asked "did you mean"."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from gpuplan.units import read_money
from one_line import refused

ROOT = Path(__file__).resolve().parents[2]
WORKLOAD = ROOT / "examples" / "resnet50-imagenet.yaml"
USAGE = ROOT / "examples" / "tco" / "reserved-plus-spot.yaml"

#: Yen as a user may write an amount of it: the code, the word, 円, 日元, JP¥.
YEN_AMOUNTS = ("60,000,000 JPY", "JPY 60000000", "6000万円", "JP¥60,000,000", "60万日元", "60000000 yen")


@pytest.mark.parametrize("amount", YEN_AMOUNTS)
@pytest.mark.parametrize(
    "args",
    [
        ["tco", str(USAGE), "--budget"],
        ["plan", str(WORKLOAD), "--budget-cny"],
        ["plan", str(WORKLOAD), "--budget-usd"],
    ],
)
def test_a_budget_in_yen_is_refused_as_yen(
    args: list[str], amount: str, capsys: pytest.CaptureFixture[str]
) -> None:
    line = refused([*args, amount], capsys, code=2)
    assert f"{amount} is in JPY, which gpuplan does not price in (the catalog has no dated JPY rate)" in line
    assert "give the amount in USD or CNY" in line and "not an amount" not in line


def test_the_yen_refusal_is_in_chinese(capsys: pytest.CaptureFixture[str]) -> None:
    line = refused(["--lang", "zh", "tco", str(USAGE), "--budget", "6000万円"], capsys, code=2)
    assert (
        "6000万円的货币是 JPY，gpuplan 不以它计价（目录中没有带日期的 JPY 汇率）：请以 USD 或 CNY 给出金额"
        in line
    )


@pytest.mark.parametrize("name", ["yen", "JPY", "jpy", "円", "日元", "JP¥"])
def test_currency_yen_is_not_offered_the_yuan(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    line = refused(["tco", str(USAGE), "--currency", name], capsys)
    assert "not a currency gpuplan prices in (the catalog has no dated JPY rate): use USD or CNY" in line
    assert "did you mean" not in line and "CNY'?" not in line


@pytest.mark.parametrize("code", ["EUR", "GBP", "KRW", "AUD"])
def test_another_currency_code_is_said_to_be_unsupported(
    code: str, capsys: pytest.CaptureFixture[str]
) -> None:
    line = refused(["plan", str(WORKLOAD), "--currency", code], capsys)
    assert line == (
        f"error: {code} is not a currency gpuplan prices in (the catalog has no dated {code} rate): "
        "use USD or CNY"
    )


def test_a_misspelt_code_is_still_asked_did_you_mean(capsys: pytest.CaptureFixture[str]) -> None:
    assert "did you mean 'CNY'?" in refused(["plan", str(WORKLOAD), "--currency", "CYN"], capsys)


def test_currency_yen_in_chinese(capsys: pytest.CaptureFixture[str]) -> None:
    line = refused(["--lang", "zh", "plan", str(WORKLOAD), "--currency", "日元"], capsys)
    assert line == (
        "错误：'日元' 即 JPY，不是 gpuplan 计价所用的货币（目录中没有带日期的 JPY 汇率）：请使用 USD 或 CNY"
    )


def _workload(tmp_path: Path, key: str) -> Path:
    doc = yaml.safe_load(WORKLOAD.read_text(encoding="utf-8"))
    doc["constraints"].pop("budget_usd", None)
    doc["constraints"][key] = 60_000_000
    path = tmp_path / "w.yaml"
    path.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("key", "code"), [("budget_jpy", "JPY"), ("budget_yen", "JPY"), ("budget_eur", "EUR")]
)
def test_a_budget_key_in_another_currency_is_refused_by_name(
    key: str, code: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = refused(["plan", str(_workload(tmp_path, key))], capsys)
    assert line.endswith(
        f"constraints: unknown key {key!r}: {code} is not a currency gpuplan prices in (the catalog has no "
        f"dated {code} rate): give the amount as budget_usd or budget_cny"
    ), line
    assert "did you mean" not in line


def test_a_misspelt_budget_key_is_still_asked_did_you_mean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = refused(["plan", str(_workload(tmp_path, "budget_cyn"))], capsys)
    assert "did you mean 'budget_cny'" in line


def test_the_budget_key_refusal_is_in_chinese(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = refused(["--lang", "zh", "plan", str(_workload(tmp_path, "budget_jpy"))], capsys)
    assert "未知的键 'budget_jpy'：JPY 不是 gpuplan 计价所用的货币（目录中没有带日期的 JPY 汇率）" in line


def test_the_yuan_signs_stay_the_yuan() -> None:
    from gpuplan.units import other_currency

    # ¥ and the full-width ￥ are how China writes the yuan: still CNY, as 元, CNY and RMB are
    for amount in ("¥600,000", "￥600,000", "600000元", "CNY 600000", "RMB600000", "60万元"):
        assert read_money(amount) == (600_000.0, "cny"), amount
    assert [other_currency(n) for n in ("yen", "円", "日元", "JP¥", "jpy", "eur")] == ["JPY"] * 5 + ["EUR"]
    assert [other_currency(n) for n in ("¥", "￥", "CNY", "rmb", "元", "USD", "CYN")] == [None] * 7
