"""The Chinese messages call one thing by one name: on-demand capacity is 按量付费 (按量 for short),
as the clouds' own consoles and the pricing-model column say it; tco's "全按需总额" beside "全部按量付费"
read as two kinds of capacity. 按需 is left where it means "as needed". A job's time is 任务用时, as
estimate's table heads its column (and a job's length 任务时长): the line under the table had said
"按实测速率，作业耗时 …" of the same figure."""

from __future__ import annotations

import re
from pathlib import Path

from babel.messages.pofile import read_po

PO = Path(__file__).resolve().parents[2] / "src/gpuplan/i18n/locale/zh/LC_MESSAGES/gpuplan.po"
#: A message about on-demand capacity, however the English writes it (``dynamic_ondemand_fallback``).
_ON_DEMAND = re.compile(r"on[-_ ]?demand", re.IGNORECASE)


def _messages() -> list[tuple[str, tuple[str, ...]]]:
    """Each message of the Chinese catalog: its English (first form) and its Chinese forms."""
    with PO.open("rb") as f:
        catalog = read_po(f, locale="zh")
    return [
        (
            str(m.id if isinstance(m.id, str) else m.id[0]),
            m.string if isinstance(m.string, tuple) else (m.string,),
        )
        for m in catalog
        if m.id
    ]


def test_no_chinese_message_calls_on_demand_by_another_name() -> None:
    other = [en[:60] for en, zh in _messages() if _ON_DEMAND.search(en) and any("按需" in s for s in zh if s)]
    assert other == [], other


def test_no_chinese_message_calls_the_jobs_time_by_another_name() -> None:
    other = [
        (en[:60], word)
        for en, zh in _messages()
        for word in ("作业耗时", "作业时间", "作业时长", "作业的时长", "作业的用时", "作业的时间")
        if any(word in s for s in zh if s)
    ]
    assert other == [], other
