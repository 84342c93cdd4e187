"""The Chinese messages call spot capacity one thing, 抢占式 (Alibaba Cloud's 抢占式实例): a plan's
AWS band line had said 竞价中断区间 where every other line says 抢占式, which reads as another kind of
capacity. 竞价 is still read as an input (``vocab.PricingModel``: Tencent and Volcano Engine's
竞价实例), never written."""

from __future__ import annotations

import re
from pathlib import Path

from babel.messages.pofile import read_po

PO = Path(__file__).resolve().parents[2] / "src/gpuplan/i18n/locale/zh/LC_MESSAGES/gpuplan.po"


def test_no_chinese_message_calls_spot_by_another_name() -> None:
    with PO.open("rb") as f:
        catalog = read_po(f, locale="zh")
    other = [
        str(m.id)[:60]
        for m in catalog
        if m.id and any("竞价" in s for s in (m.string if isinstance(m.string, tuple) else (m.string,)) if s)
    ]
    assert other == [], other


#: Chinese prose around a word: Han characters and the punctuation that ends or parts a clause.
#: The enumeration comma 、 is not among them: ``on_demand、spot、monthly`` lists the pricing codes
#: one types, and a code in brackets after its name (``抢占式（spot）``) is the code itself.
_PROSE = "\u4e00-\u9fff，。；："
#: "spot" as a word of a Chinese sentence: Chinese on both sides (a space between allowed).
_SPOT_IN_PROSE = re.compile(rf"[{_PROSE}] ?spot ?[{_PROSE}]", re.IGNORECASE)
#: Code in backticks and placeholders are not prose.
_NOT_PROSE = re.compile(r"`[^`]*`|\{[^{}]*\}")


def spot_in_prose(text: str) -> list[str]:
    """Where ``text`` says spot in a Chinese sentence instead of 抢占式."""
    return _SPOT_IN_PROSE.findall(_NOT_PROSE.sub("\x00", text))


def test_the_check_sees_spot_in_a_sentence_and_not_as_a_code_flag_or_product() -> None:
    assert spot_in_prose("以上是非 spot 时的写入：在 spot 上，plan 改按") == ["非 spot 时", "在 spot 上"]
    assert spot_in_prose("AWS 默认会终止被回收的 Spot 实例") == ["的 Spot 实"]
    assert spot_in_prose("on_demand、spot、monthly；也可写：按量、抢占式") == []
    assert spot_in_prose("请用 --pricing spot，或 `pricing: spot`；抢占式（spot）和 Spot VM 的中断率") == []


def test_no_chinese_sentence_says_spot_for_the_capacity() -> None:
    # "在 spot 上，检查点写入…" and "以上是非 spot 时的写入" had kept the English word in the prose
    with PO.open("rb") as f:
        catalog = read_po(f, locale="zh")
    said = [
        (str(m.id)[:60], found)
        for m in catalog
        if m.id
        for s in (m.string if isinstance(m.string, tuple) else (m.string,))
        if s and (found := spot_in_prose(s))
    ]
    assert said == [], said
