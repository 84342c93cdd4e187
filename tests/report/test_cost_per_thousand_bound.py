"""A service's cost per 1,000 requests (images, million tokens) where no mean load is given is a
lower bound: the month's cost over the requests of the peak rate held every hour served, which no
month exceeds. It read "at least $0.00096 (… the most there can be …)", "at least" and "the most"
in one sentence, in English and in Chinese (至少 … 这是可能的最大值)."""

from __future__ import annotations

from pathlib import Path

from babel.messages.pofile import read_po

from gpuplan.i18n import use_language
from gpuplan.report.plan_view import _per_thousand

PO = Path(__file__).resolve().parents[2] / "src/gpuplan/i18n/locale/zh/LC_MESSAGES/gpuplan.po"


def test_a_floor_per_thousand_requests_says_it_is_a_lower_bound_in_either_language() -> None:
    with use_language("en"):
        en = _per_thousand("requests", 0.00096, None)
    assert en.startswith("Cost per 1,000 requests: at least $0.00096 (a lower bound: "), en
    assert "the most" not in en and "serving.requests_per_s, held every hour served" in en, en
    with use_language("zh"):
        zh = _per_thousand("requests", 0.00096, None)
    assert "至少" in zh and "这是下限" in zh and "最大" not in zh and "最多" not in zh, zh
    # at the mean load the figure is the figure itself
    with use_language("en"):
        assert "at least" not in _per_thousand("requests", 0.00096, 20.0)


def test_no_cost_per_line_says_at_least_and_the_most_of_one_figure() -> None:
    with PO.open("rb") as f:
        catalog = read_po(f, locale="zh")
    floors = [
        m for m in catalog if isinstance(m.id, str) and m.id.startswith("Cost per") and "at least" in m.id
    ]
    assert len(floors) == 3  # per 1,000 images, per 1,000 requests, per million tokens
    for m in floors:
        assert "the most" not in m.id and "lower bound" in m.id, m.id
        assert "下限" in m.string and "最大" not in m.string and "最多" not in m.string, m.string
