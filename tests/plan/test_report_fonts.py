"""The Chinese reports name CJK fonts, and Chromium draws every Chinese character with one of them.

Debian's Chromium with no CJK font named by the page drew the report's Chinese as empty boxes
where its fallback found none, and in a Japanese face where it found fonts-noto-cjk's JP one first.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from datetime import date
from pathlib import Path

import pytest
from plan_helpers import aws_costs, offer, toy_estimator

from chromium_fonts import browser, cjk_fonts
from gpuplan.commit import Demand, PricedOffer, TcoProblem, TcoReport, load_usage, optimise
from gpuplan.commit.adapters import DemandSource
from gpuplan.i18n import Money, use_language, use_money
from gpuplan.plan import Constraints, CostFacts, JobFacts, OfferTable, plan_offers
from gpuplan.report.fonts import CJK_FAMILIES, FONT_STACK
from gpuplan.report.plan_html import plan_html
from gpuplan.report.tco_html import tco_html

CNY = Money.from_rate("CNY", usd_per_unit=0.14, as_of="2024-11-25", source="test")


def _plan():  # type: ignore[no-untyped-def]
    rows = [
        offer(),
        offer(instance_type="p5.48xlarge", gpu="H100-SXM5-80GB", gpu_memory_gib=80.0, price_usd=55.0),
    ]
    job = JobFacts(dataset_gb=50, checkpoint_gb=2, data_location=("aws", "us-east-1"))
    return plan_offers(
        OfferTable.from_rows(rows), CostFacts([aws_costs()]), job, toy_estimator(), Constraints()
    )


def _tco() -> TcoReport:
    usage = load_usage(
        {
            "horizon_months": 3,
            "demands": [{"name": "d", "gpu": "A100-SXM4-40GB", "gpus": 1, "hours_per_month": 730}],
        }
    )
    offers = (
        PricedOffer(
            provider="aws", region="us-east-1", instance_type="p.x", gpu="A100-SXM4-40GB", gpus_per_unit=1.0,
            pricing="on_demand", usd_per_unit_hour=2.0, as_of="2026-11-09",
        ),
    )  # fmt: skip
    problem = TcoProblem(
        horizon_months=3,
        demands=(Demand(name="d", gpu="A100-SXM4-40GB", gpu_hours=(730.0,) * 3),),
        offers=offers,
    )
    return TcoReport(
        usage=usage,
        problem=problem,
        schedule=optimise(problem),
        demands=(DemandSource(name="d", gpu="A100-SXM4-40GB", gpu_hours_total=2190.0, how="given"),),
        money=CNY,
        notes=(),
        today=date(2026, 12, 1),
    )


def _pages() -> dict[str, str]:
    with use_language("zh"), use_money(CNY):
        return {"plan": plan_html(_plan(), "中文报告"), "tco": tco_html(_tco(), "中文报告")}


def test_every_report_and_chart_names_the_cjk_fonts() -> None:
    assert all(f"'{family}'" in FONT_STACK for family in CJK_FAMILIES)
    for name, page in _pages().items():
        own = re.sub(r"<script.*?</script>", "", page, flags=re.DOTALL)  # the page's own, not plotly.js's
        stacks = re.findall(r'font-family[=:]\s*"?([^";}]+)', own)
        assert stacks, name
        for stack in stacks:
            # The body's CSS and every SVG chart's text: none falls back to a bare "sans-serif".
            assert "Noto Sans CJK SC" in stack and "Microsoft YaHei" in stack, (name, stack)


def _installed_cjk() -> set[str]:
    if shutil.which("fc-list") is None:
        return set()
    out = subprocess.run(
        ["fc-list", ":lang=zh", "family"], capture_output=True, text=True, check=False
    ).stdout
    names = {part.strip() for line in out.splitlines() for part in line.split(",")}
    return names & set(CJK_FAMILIES)


@pytest.mark.parametrize("report", ["plan", "tco"])
def test_chromium_draws_every_chinese_character_with_a_named_cjk_font(report: str, tmp_path: Path) -> None:
    binary = browser()
    if binary is None:
        pytest.skip("no headless Chromium (apt-get install -y chromium): the fonts are not checked")
    if not _installed_cjk():
        pytest.skip("no CJK font of the report's stack installed (apt-get install -y fonts-noto-cjk)")
    page = tmp_path / f"{report}.html"
    page.write_text(_pages()[report], encoding="utf-8")
    # Elements Chromium drew no font for are not on screen (the print-only charts, SVG tooltips).
    drawn = [d for d in cjk_fonts(binary, page) if d[2]]
    assert len(drawn) > 10, drawn  # headings, table heads, notes, chart labels
    for text, chinese, fonts in drawn:
        # Every Chinese character was drawn by one of the stack's CJK families (Simplified Chinese
        # forms), none by a Latin font's empty box nor by a Japanese fallback.
        by_stack = sum(n for family, n in fonts.items() if family in CJK_FAMILIES)
        assert by_stack >= chinese, (text, chinese, fonts)
