"""The HTML report: offline (plotly.js's basic bundle embedded), charts with legends, the table's price
per hour, breakdown and memory, a print fallback; rendered in a real headless Chromium when one is
installed."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from plan_helpers import aws_costs, offer, toy_estimator

from gpuplan.i18n import Money, use_language, use_money
from gpuplan.plan import Constraints, CostFacts, JobFacts, OfferTable, plan_offers
from gpuplan.report.plan_charts import plotly_js
from gpuplan.report.plan_html import plan_html, plan_markdown
from gpuplan.report.plan_svg import breakdown_svg, cost_time_svg, gpu_svg

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def _plan():  # type: ignore[no-untyped-def]
    rows = [
        offer(),
        offer(pricing="spot", price_usd=8.0, interruption_band=">20%"),
        offer(instance_type="g5|x", gpu="A10G", gpu_count=1, gpu_memory_gib=24, price_usd=1.2),
        offer(provider="tencent", region="ap-guangzhou", country="CN", instance_type="GT4", price_usd=20.0),
    ]
    job = JobFacts(dataset_gb=200, checkpoint_gb=5, data_location=("aws", "us-east-1"))
    return plan_offers(
        OfferTable.from_rows(rows), CostFacts([aws_costs()]), job, toy_estimator(), Constraints(deadline_h=30)
    )


def test_html_is_offline_and_has_the_charts_the_table_and_a_print_fallback() -> None:
    html = plan_html(_plan(), "toy <job>")
    assert "toy &lt;job&gt;" in html
    assert plotly_js() in html  # embedded whole: the page works offline
    page = html.replace(plotly_js(), "")
    assert "<script src=" not in page and "http" not in page.split("<body>")[0]  # nothing fetched
    assert "Plotly.newPlot" in html or "Plotly.react" in html
    for div in ("cost-time", "breakdown", "per-gpu"):
        assert f'id="{div}"' in html
    assert "Pareto front" in html and "baseline" in html  # legend entries
    assert "pricing / per hour" in html and "peak memory / GPU" in html and "breakdown" in html
    assert "$21.96/h" in html  # the p4d's price per hour
    assert "@media print" in html
    # Each of the three charts has its static SVG twin, for print and browsers without JavaScript,
    # once: a style in <noscript> shows it without JavaScript (the SVG is not repeated there).
    assert html.count('<div class="static"><svg') == 3 and page.count("<svg") == 3
    assert "<noscript><svg" not in html


def test_html_page_embeds_plotlys_basic_bundle_not_the_full_one() -> None:
    # The full bundle that the plotly package ships is 4.8 MB: a report was 4.9 MB, all but 70 KB of
    # it plotly.js for trace types (maps, 3-D, WebGL) that no chart of the page draws.
    html = plan_html(_plan(), "toy")
    assert plotly_js().startswith("/**\n* plotly.js (basic - minified) v")
    assert len(plotly_js().encode()) < 1_300_000
    assert len(html.encode()) < 1_400_000


def test_static_charts_have_a_legend_numbered_points_and_several_ticks() -> None:
    svg = cost_time_svg(_plan())
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
    assert "Pareto front" in svg and "recommended" in svg and "baseline" in svg
    assert svg.count('text-anchor="end"') >= 3  # y ticks: more than two
    assert ">1</text>" in svg  # the top option is numbered as in the table
    bars = breakdown_svg(_plan())
    assert "compute" in bars and "egress" in bars and "<rect" in bars


def test_per_gpu_fallback_names_each_gpu_with_its_step_time_and_memory_against_capacity() -> None:
    plan = _plan()
    svg = gpu_svg(plan, {"A100-SXM4-40GB": 40.0, "A10G": 24.0})
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
    assert "A100-SXM4-40GB ×" in svg and "A10G ×1" in svg
    assert "20.0 / 40" in svg and "20.0 / 24" in svg  # the toy estimator's 20 GiB peak per GPU
    assert svg.count('stroke="#c0392b"') == 2  # one capacity mark per GPU model
    assert "step time" in svg and "peak memory" in svg and "GPU memory" in svg  # the legend
    with use_language("zh"):
        assert "显存" in gpu_svg(plan, {})


def test_a_service_has_no_step_time_bar_but_keeps_its_memory_fit() -> None:
    from dataclasses import replace

    plan = _plan()
    services = tuple(replace(o, step_time_s=None) for o in plan.options)
    svg = gpu_svg(replace(plan, options=services, pareto=services), {"A10G": 24.0})
    assert ">—</text>" in svg and "20.0 / 24" in svg


def test_report_in_chinese_and_yuan() -> None:
    cny = Money.from_rate("CNY", usd_per_unit=0.125, as_of="2024-11-25", source="CFETS")
    with use_language("zh"), use_money(cny):
        html = plan_html(_plan(), "toy")
    assert 'lang="zh-CN"' in html and "帕累托前沿" in html and "¥175.68/小时" in html  # 21.96 × 8


def test_markdown_report_escapes_pipes() -> None:
    md = plan_markdown(_plan(), "toy", "toy.svg")
    assert "(toy.svg)" in md and "g5\\|x" in md


def test_markdown_report_shows_a_shared_files_name_as_typed_not_as_html_or_a_link() -> None:
    md = plan_markdown(_plan(), "<script>alert(1)</script> [pay](javascript:x) & co", "toy.svg")
    head = md.splitlines()[0]
    assert head == "# gpuplan: &lt;script&gt;alert(1)&lt;/script&gt; \\[pay\\](javascript:x) &amp; co"
    assert "<script>" not in md and "[pay]" not in md


def test_markdown_report_writes_a_quoted_command_as_code_not_as_escaped_backticks() -> None:
    # the network line quotes the command that times the job on TCP: it read
    # (\`gpuplan estimate WORKLOAD …\`) in the .md, backslashes and all, and not as code
    md = plan_markdown(_plan(), "toy (`gpuplan estimate W.yaml -n 16 --network-kind tcp`) [x]", "toy.svg")
    assert md.splitlines()[0] == "# gpuplan: toy (`gpuplan estimate W.yaml -n 16 --network-kind tcp`) \\[x\\]"
    # a backtick with no pair opens no code span: shown as typed
    md = plan_markdown(_plan(), "it`s <b>", "toy.svg")
    assert md.splitlines()[0] == "# gpuplan: it\\`s &lt;b&gt;"


def _browser() -> str | None:
    for name in BROWSERS:
        if path := shutil.which(name):
            return path
    return None


def test_report_renders_in_headless_chromium_without_console_errors(tmp_path: Path) -> None:
    browser = _browser()
    if browser is None:
        pytest.skip("no headless Chromium found (apt-get install chromium); the report is not rendered")
    page = tmp_path / "plan.html"
    page.write_text(plan_html(_plan(), "toy"), encoding="utf-8")
    png = tmp_path / "plan.png"
    run = subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
            "--window-size=1200,1600",
            f"--screenshot={png}",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HOME": str(tmp_path)},
        check=False,
    )
    console = [line for line in run.stderr.splitlines() if ":CONSOLE" in line]
    assert not console, console
    data = png.read_bytes()
    assert data.startswith(b"\x89PNG")
    # A blank 1200×1600 page compresses to a few KB; charts and a table are far more.
    assert len(data) > 40_000


def _dom(browser: str, page: Path) -> str:
    """The page's DOM once loaded and its scripts run (``--dump-dom``)."""
    run = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1200,1600",
         "--virtual-time-budget=5000", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=120, env={**os.environ, "HOME": str(page.parent)},
        check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout


def test_each_interactive_chart_draws_its_traces_in_headless_chromium(tmp_path: Path) -> None:
    """The embedded bundle has every trace type the figures use: each chart's traces are drawn."""
    browser = _browser()
    if browser is None:
        pytest.skip("no headless Chromium found (apt-get install chromium); the charts are not drawn")
    import re

    plan = _plan()
    page = tmp_path / "plan.html"
    page.write_text(plan_html(plan, "toy"), encoding="utf-8")
    dom = _dom(browser, page)
    charts = {}
    for div in ("cost-time", "breakdown", "per-gpu"):
        start = dom.index(f'id="{div}"')
        chart = dom[start : dom.index("</h2>", start)]
        charts[div] = re.findall(r'<g class="trace (scatter|bars)', chart)
    # Pareto front, ranked options, recommended, baseline; five charges; step time, memory, capacity.
    assert charts["cost-time"] == ["scatter"] * 4, charts
    assert charts["breakdown"] == ["bars"] * 5, charts
    assert charts["per-gpu"] == ["bars", "bars", "scatter"], charts
    start = dom.index('id="cost-time"')
    points = dom[start : dom.index("</h2>", start)].count('class="point"')
    assert points >= len(plan.options) + 2  # each ranked option, the recommendation, the baseline


def test_without_javascript_the_static_charts_show_in_place_of_the_interactive_ones(tmp_path: Path) -> None:
    browser = _browser()
    if browser is None:
        pytest.skip("no headless Chromium found (apt-get install chromium); the page is not shown")
    playwright = pytest.importorskip("playwright.sync_api", reason="playwright is a dev dependency")
    page_file = tmp_path / "plan.html"
    page_file.write_text(plan_html(_plan(), "toy"), encoding="utf-8")
    shown = {}
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=browser, args=["--no-sandbox"])
        for scripts in (True, False):
            page = b.new_context(java_script_enabled=scripts).new_page()
            page.goto(page_file.as_uri())
            shown[scripts] = [
                sum(el.is_visible() for el in page.locator(f".{kind} svg").all())
                for kind in ("static", "interactive")
            ]
        b.close()
    # With JavaScript, plotly's charts (each more than one SVG layer) and no static one; without,
    # the three static charts and nothing of plotly's.
    static, interactive = shown[True]
    assert static == 0 and interactive >= 3, shown
    assert shown[False] == [3, 0], shown


def test_ranked_table_fits_the_page_width_in_headless_chromium(tmp_path: Path) -> None:
    browser = _browser()
    if browser is None:
        pytest.skip("no headless Chromium found (apt-get install chromium); the layout is not measured")
    # The page measures itself once laid out and writes the widths into the DOM that Chromium dumps.
    probe = (
        "<script>addEventListener('load', () => { const t = document.querySelector('.wide table');"
        " const p = document.body; document.body.dataset.fit = t.scrollWidth + '/' + p.clientWidth; });"
        "</script></body>"
    )
    # Long instance names, a spot option with its risk notes: the 16-column table of wave 2 was
    # 1397 px wide on this plan's 1185 px page.
    rows = [
        offer(instance_type=f"n1-standard-{i} + 1x nvidia-tesla-a100", price_usd=20.0 + i) for i in range(8)
    ]
    rows.append(offer(pricing="spot", price_usd=8.0, interruption_band=">20%"))
    job = JobFacts(dataset_gb=200, checkpoint_gb=5, data_location=("aws", "us-east-1"))
    plan = plan_offers(
        OfferTable.from_rows(rows), CostFacts([aws_costs()]), job, toy_estimator(), Constraints(deadline_h=30)
    )
    page = tmp_path / "plan.html"
    page.write_text(plan_html(plan, "wide").replace("</body>", probe), encoding="utf-8")
    run = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1200,1600",
         "--virtual-time-budget=5000", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=120, env={**os.environ, "HOME": str(tmp_path)}, check=False,
    )  # fmt: skip
    import re

    found = re.search(r'data-fit="(\d+)/(\d+)"', run.stdout)
    assert found, run.stderr[-2000:]
    table_px, page_px = int(found[1]), int(found[2])
    assert table_px <= page_px, f"the table is {table_px}px wide on a {page_px}px page"


def test_time_ticks_are_round_hours_or_whole_days() -> None:
    from gpuplan.report.plan_svg import hours_tick

    # 1-2-5 ticks are round hours: 50 h stays "50 h", not "2.08333 d"; whole days read as days.
    assert [hours_tick(h) for h in (0.5, 20, 50, 72, 500)] == ["0.5 h", "20 h", "50 h", "3 d", "500 h"]
