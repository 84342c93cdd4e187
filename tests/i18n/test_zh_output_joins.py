"""Chinese output as a Chinese reader writes it: a translated word put into a sentence without the
spaces the English needed, lists joined with 、, reasons and sources in words, amounts in the asked
currency, help wrapped between words, and near names suggested, Simplified first."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from english_left import english_left
from test_chinese_spacing import spaced_between_chinese
from typer.testing import CliRunner

from gpuplan.i18n import _, use_language
from one_line import answered, refused

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"


@pytest.fixture(autouse=True)
def _own_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUPLAN_DB", str(tmp_path / "catalog.sqlite"))
    monkeypatch.setenv("COLUMNS", "200")


def test_a_chinese_word_put_into_a_chinese_message_takes_no_space_and_a_latin_one_keeps_it() -> None:
    from gpuplan.i18n.messages import ChineseMessage

    with use_language("zh"):
        title = _("Notebooks and experiments on {sharing}")
        assert isinstance(title, ChineseMessage)
        assert title.format(sharing="整卡") == "整卡上的笔记本与实验"
        assert title.format(sharing="MIG") == "MIG 上的笔记本与实验"
    spaced = ChineseMessage("选用 {a}，与 {b} 相同，{n} %，共 {k} 个，{x} {y}")
    assert (
        spaced.format(a="整卡", b="时间片", n=80, k=3, x="甲", y="乙")
        == "选用整卡，与时间片相同，80%，共 3 个，甲乙"
    )
    with use_language("en"):  # English is written as it was
        assert _("Notebooks and experiments on {sharing}").format(sharing="whole") == (
            "Notebooks and experiments on whole"
        )


def test_the_lengths_a_simulation_is_on_keep_a_space_before_a_latin_word() -> None:
    # deploy's note had read "模拟的数字基于serving 块中的请求长度": the message had no space before
    # {lengths}, which begins with a Latin word (serving) or a Chinese one (轨迹)
    with use_language("zh"):
        on = _("; the simulation's figure is on {lengths}")
        serving = on.format(lengths=_("the serving block's request lengths, every request at them"))
        trace = on.format(lengths=_("the request lengths of trace {trace}").format(trace="evening.csv"))
    assert serving.startswith("；模拟的数字基于 serving 块中的请求长度"), serving
    assert trace.startswith("；模拟的数字基于轨迹 evening.csv 的请求长度"), trace


def test_simulate_share_in_chinese_names_whole_gpus_and_its_sources_in_chinese(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = answered(
        ["simulate", "share", str(EXAMPLES / "simulate/notebooks.yaml"), "--lang", "zh", "--currency", "CNY"],
        capsys,
    )
    assert "whole：" not in out and "整卡：无" in out, out
    assert " 上的笔记本与实验" not in out.replace("MIG 上", "")
    assert re.search(r"\d %", out) is None, re.findall(r".{10}\d %.{5}", out)
    # the rate's source in our words (the publisher's title and URL kept), the price costed in yuan
    assert "CFETS central parity" not in out and "as reported by" not in out and "中间价" in out, out
    assert "gpuplan's shared instance table" not in out and ", line " not in out
    assert re.search(r"按 [\d.]+ USD/", out) is None, out
    # one space between two Chinese characters (a table's columns are parted by more)
    gaps = [g for line in out.splitlines() for g in spaced_between_chinese(line) if len(g) == 3]
    assert gaps == [], gaps


def test_a_rate_source_of_our_words_reads_in_chinese_and_keeps_titles_and_urls() -> None:
    from gpuplan.i18n.sources import source_words

    source = (
        "CFETS central parity 6.9858 CNY per USD on 2026-01-27, as reported by Xinhua 'Market exchange "
        "rates in China -- Jan. 27' (2026-01-27), read 2026-12-02 at http://example.org/c.html "
        "(a copy of the Xinhua English page)"
    )
    assert source_words(source) == source
    with use_language("zh"):
        said = source_words(source)
    assert "'Market exchange rates in China -- Jan. 27'" in said and "http://example.org/c.html" in said
    assert english_left(said) == [], said
    assert said.startswith("中国外汇交易中心（CFETS）2026-01-27 人民币兑美元中间价 1 USD = 6.9858 CNY"), said


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_option_left_says_each_reason_in_words(lang: str, capsys: pytest.CaptureFixture[str]) -> None:
    line = refused(["plan", str(EXAMPLES / "llama7b-lora.yaml"), "--gpus", "T4", "--lang", lang], capsys)
    assert re.search(r"\b[a-z]+_[a-z_]+ \d", line) is None, (
        line
    )  # "does_not_fit 2,448", "min_gpu_memory 20,800"
    assert ("other GPUs" if lang == "en" else "其他 GPU") in line, line


def test_a_lora_plan_says_once_which_gpu_counts_cannot_hold_its_global_batch(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = answered(["plan", str(EXAMPLES / "llama7b-lora.yaml"), "--lang", "zh"], capsys)
    flat = out.replace("\n", "")
    assert flat.count("的整数倍") == 1, re.findall(r"[^；]*整数倍", flat)
    assert re.search(r"[\d、]+ 块 GPU：均无法做到", flat), flat


def test_help_in_chinese_never_splits_a_latin_word_at_80_columns() -> None:
    from gpuplan.cli import app

    out = (
        CliRunner()
        .invoke(app, ["simulate", "autoscale", "--help", "--lang", "zh"], env={"COLUMNS": "80"})
        .output
    )
    words = {w for w in re.findall(r"[A-Za-z0-9.$¥-]+", " ".join(out.split("│")))}
    assert "CN" not in words and "--pea" not in words, out
    assert "34.74 CNY" in re.sub(r"\s*│\s*", " ", out) or "CNY" in words, out


def test_a_currency_near_one_of_its_chinese_names_is_suggested(capsys: pytest.CaptureFixture[str]) -> None:
    line = refused(["offers", "--currency", "人民b", "--lang", "zh"], capsys)
    assert "'CNY'" in line, line
    english = refused(["offers", "--currency", "人民b", "--lang", "en"], capsys)
    assert "did you mean 'CNY'" in english, english


def test_a_chinese_reader_is_offered_the_simplified_country_name_first() -> None:
    from gpuplan.errors import NotFoundError
    from gpuplan.i18n.countries import country_codes

    with use_language("zh"), pytest.raises(NotFoundError) as e:
        country_codes("中华")
    assert e.value.suggestions.index("中国") < e.value.suggestions.index("中國"), e.value.suggestions


def _joined_into_a_message(path: Path) -> list[int]:
    """Lines where ``", ".join(…)`` is put into a message (``.format``, ``.worded``, ``Phrase``, a
    ``…refused`` helper)."""
    found = []
    for call in ast.walk(ast.parse(path.read_text())):
        f = getattr(call, "func", None)
        name = getattr(f, "attr", None) or getattr(f, "id", None)
        # (a module's own refusal helper, such as the workload's ``_refused``, words a message too)
        if isinstance(call, ast.Call) and (
            name in ("format", "worded", "Phrase") or str(name).endswith("refused")
        ):
            for kw in call.keywords:
                for node in ast.walk(kw.value):
                    joiner = getattr(getattr(node, "func", None), "value", None)
                    if isinstance(joiner, ast.Constant) and joiner.value == ", " and node.func.attr == "join":  # type: ignore[attr-defined]
                        found.append(node.lineno)  # type: ignore[attr-defined]
    return found


def test_no_list_is_joined_with_an_english_comma_into_a_message() -> None:
    # tco had said "A100-SXM4-80GB, L20 没有这样的价格", deploy "train.py, serve.py"; item_list and
    # listed join with 、 in Chinese
    src = REPO / "src/gpuplan"
    found = [
        f"{p.relative_to(src)}:{n}"
        for p in src.rglob("*.py")
        if "templates" not in p.parts
        for n in _joined_into_a_message(p)
    ]
    assert found == [], found
