"""The Chinese messages call spot capacity one thing, 抢占式 (Alibaba Cloud's 抢占式实例): a plan's
AWS band line had said 竞价中断区间 where every other line says 抢占式, which reads as another kind of
capacity. 竞价 is still read as an input (``vocab.PricingModel``: Tencent and Volcano Engine's
竞价实例), never written."""

from __future__ import annotations

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
