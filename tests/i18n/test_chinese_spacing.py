"""Chinese typography puts no space between two Chinese characters: a translation that kept the
English's space between two words ("请写成 名称:数量", "GPU → 主机 拷贝") reads as a gap in the
sentence. A space between Chinese and Latin letters or digits is a matter of style and stays."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

PO = Path(__file__).resolve().parents[2] / "src/gpuplan/i18n/locale/zh/LC_MESSAGES/gpuplan.po"

#: Han characters, CJK punctuation (、。「」) and the full-width forms (，：；（）).
_CJK = "\u4e00-\u9fff\u3000-\u303f\uff00-\uffef"
_GAP = re.compile(f"[{_CJK}] +[{_CJK}]")
#: Code in backticks and placeholders are not Chinese prose; each stands in as one non-Chinese mark.
_NOT_PROSE = re.compile(r"`[^`]*`|\{[^{}]*\}")


def spaced_between_chinese(text: str) -> list[str]:
    """The spaces that part two Chinese characters, each with the two characters around it."""
    return _GAP.findall(_NOT_PROSE.sub("\x00", text))


def test_the_check_sees_a_space_between_chinese_and_not_beside_latin_code_or_placeholders() -> None:
    assert spaced_between_chinese("请写成 名称:数量") == ["成 名"]
    assert spaced_between_chinese("GPU → 主机 拷贝") == ["机 拷"]
    assert spaced_between_chinese("按 {price}/GB·月 计，数量 ，") == ["月 计", "量 ，"]
    assert spaced_between_chinese("数量至少为 1 个 GPU，见 `名称 数量` 与 {名称} 说明") == []


def test_no_chinese_message_puts_a_space_between_two_chinese_characters() -> None:
    pofile = pytest.importorskip("babel.messages.pofile", reason="babel (a dev dependency) reads the .po")
    with PO.open("rb") as f:
        catalog = pofile.read_po(f, locale="zh")
    spaced = []
    for m in catalog:
        forms = m.string if isinstance(m.string, tuple) else (m.string,)
        gaps = [g for form in forms if m.id for g in spaced_between_chinese(form)]
        if gaps:
            spaced.append(f"{gaps} in {forms[0]!r}")
    assert not spaced, f"{len(spaced)} messages:\n" + "\n".join(spaced)


def test_sentences_joined_in_code_put_no_space_after_a_chinese_end_or_closing_bracket() -> None:
    # A note and its warning, each translated on its own, were joined with " " (…换算（截至 …）。 警告：…).
    from gpuplan.i18n import use_language
    from gpuplan.i18n.numbers import Money
    from gpuplan.i18n.phrases import sentences

    assert sentences("CNY prices at 7.1 (as of 2026-01-01)", "Warning: old.") == (
        "CNY prices at 7.1 (as of 2026-01-01) Warning: old."
    )
    assert sentences("标价按 1 USD = 7.1 CNY 换算（截至 2026-01-01）", "警告：汇率已过时。") == (
        "标价按 1 USD = 7.1 CNY 换算（截至 2026-01-01）警告：汇率已过时。"
    )
    old = Money(
        currency="CNY", units_per_usd=7.1, as_of="2026-01-01", source="ecb", age_days=200, stale_after_days=30
    )
    assert "(as of 2026-01-01; " in old.rate_note() and ". Warning: " in old.rate_note()
    with use_language("zh"):
        note = old.rate_note()
    assert "。警告：" in note and spaced_between_chinese(note) == [], note


def test_a_latin_word_put_after_chinese_keeps_its_space_and_a_chinese_one_drops_it() -> None:
    # tco's refusal of every other instance read "ecs.gn7i 的GPU 互连未知": the message had no space
    # before {what}, which is a Latin word (GPU) or a Chinese one (网络)
    from gpuplan.i18n import _, use_language

    message = "{what} on {sized} is not known, so no other instance is known to run its hours as fast"
    with use_language("zh"):
        said = {w: _(message).format(what=_(w), sized="ecs.gn7i") for w in ("its GPU link", "its network")}
    assert said["its GPU link"].startswith("ecs.gn7i 的 GPU 互连未知"), said
    assert said["its network"].startswith("ecs.gn7i 的网络未知"), said
