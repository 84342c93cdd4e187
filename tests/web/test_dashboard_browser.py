"""The dashboard clicked through in Debian's Chromium (Playwright for Python, the system browser:
Playwright cannot download its own here): every page, in English and Chinese, at 1280×800 and
390×844 — search offers and sort them, plan and save a plan, price history, tco, the team's budget,
plans and price changes. Skipped, saying why, without Chromium or Playwright.

``GPUPLAN_SCREENSHOTS=docs/images pytest tests/web/test_dashboard_browser.py`` also writes the
screenshots the documentation shows.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dashboard_helpers import SHOTS, SIZES, dashboard, fits, open_page, shot
from serve_helpers import bert_workload


def _real_trace(db: Path) -> None:
    """The documentation's pictures show a real trace of the example, not the stand-in profile."""
    from gpuplan.catalog import open_store
    from gpuplan.profile import PROFILE_SCHEMA_VERSION, profile, profile_key, trace

    store = open_store(str(db))
    try:
        w = bert_workload()
        real = trace(w)
        store.local.put_profile(profile_key(w), PROFILE_SCHEMA_VERSION, real.to_json())
        assert profile(w, store.local).flops_per_step == real.flops_per_step
    finally:
        store.close()


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory, seeded_catalog: Path
) -> Iterator[tuple[str, dict[str, str]]]:
    folder = tmp_path_factory.mktemp("dashboard")
    with dashboard(folder, seeded_catalog, job_workers=0, prepare=_real_trace if SHOTS else None) as served:
        yield served


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("size", list(SIZES))
def test_every_page_works_with_real_clicks(
    server: tuple[str, dict[str, str]], browser: Any, lang: str, size: str
) -> None:
    base, tokens = server
    width, height = SIZES[size]
    context = browser.new_context(
        viewport={"width": width, "height": height}, locale="zh-CN" if lang == "zh" else "en-US"
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    tag = f"{lang}-{size}"
    try:
        # Offers: search, map, sort by price per GPU-hour
        open_page(page, base, "offers", lang, tokens["admin"])
        page.fill("input[name=gpu]", "H100")
        page.click("#search")
        page.wait_for_selector("#table tbody tr")
        page.wait_for_selector("#map svg circle")
        page.click("#table th:nth-child(7)")
        cells = page.locator("#table tbody tr td:nth-child(7)").all_inner_texts()
        prices = [float(c.strip("$¥").replace(",", "")) for c in cells if c[:1] in "$¥"]
        assert prices == sorted(prices) and len(prices) >= 2
        # what plans cost an undated spot price at (the API filters and orders by it), its basis on hover
        assert ("方案计价/小时" if lang == "zh" else "Costed at/h") in page.locator(
            "#table th"
        ).all_inner_texts()
        costed = page.locator("#table td .costed")
        assert costed.count() >= 1 and "(20" in (costed.first.get_attribute("title") or "")
        assert ("报价" if lang == "zh" else "Offers") in page.inner_text("h1")
        fits(page)
        shot(page, f"offers-{tag}")

        # Plan: the BERT fine-tune of the examples, planned, its report shown, saved for the month
        open_page(page, base, "plan", lang, tokens["plan"])
        page.fill("input[name=name]", f"bert-{tag}")
        page.click("#plan")
        page.wait_for_selector("#recommended")
        page.wait_for_function("document.querySelector('#report').srcdoc.length > 1000", timeout=60_000)
        page.frame_locator("#report").locator("h1").wait_for(timeout=60_000)
        # in the page language's currency: the picker starts at yuan on the Chinese page
        assert ("¥" if lang == "zh" else "$") in page.inner_text("#recommended")
        page.click("#saveworkload")
        page.wait_for_function(f"document.querySelector('#status').textContent.includes('bert-{tag} v1')")
        # saved again as it is: no version 2, and the page says so
        from gpuplan.i18n import _, use_language

        with use_language(lang):
            again = f"{_('already saved, unchanged')}{'：' if lang == 'zh' else ': '}bert-{tag} v1"
        page.click("#saveworkload")
        page.wait_for_function(f"document.querySelector('#status').textContent === {again!r}")
        page.select_option("select[name=saved]", f"bert-{tag}")
        page.click("#saveplan")
        page.wait_for_function("document.querySelector('#status').textContent.includes('#')")
        fits(page)
        page.evaluate("document.querySelector('#summary').scrollIntoView()")
        shot(page, f"plan-{tag}")

        # Price history: chart and table of one instance type
        open_page(page, base, "history", lang, tokens["read"])
        page.click("#show")
        page.wait_for_selector("#chart .main-svg")
        page.wait_for_selector("#table tbody tr")
        fits(page)
        shot(page, f"history-{tag}")

        # TCO: three years of 8 A100s on the US clouds
        open_page(page, base, "tco", lang, tokens["plan"])
        page.click("#tco")
        page.wait_for_selector("#tcototal")
        assert "$" in page.inner_text("#tcototal")
        fits(page)
        shot(page, f"tco-{tag}")

        # Team: budget (a Chinese team's in yuan, shown in yuan with the plans' costs), the plan saved
        # above, today's prices
        open_page(page, base, "team", lang, tokens["admin"])
        page.wait_for_selector("#budgetcard")
        amount, currency, shown = ("35000", "CNY", "¥35,000") if lang == "zh" else ("5000", "USD", "$5,000")
        page.fill("input[name=amount]", amount)
        page.select_option("select[name=amount_currency]", currency)
        page.click("#setbudget")
        page.wait_for_function(
            f"document.querySelector('#budgetcard .amount').textContent.includes({shown!r})"
        )
        page.wait_for_selector(f"#plans td:text('bert-{tag}')")
        if lang == "zh":  # the plans' costs in the budget's yuan (the budget's note gives its dollars)
            assert "¥" in page.inner_text("#plans") and "$" not in page.inner_text("#plans")
        page.click("#changes")
        page.wait_for_selector("#changestable tbody tr", timeout=60_000)
        fits(page)
        page.evaluate("window.scrollTo(0, 0)")  # the picture shows the budget, not the button clicked last
        shot(page, f"team-{tag}")
        assert not errors, errors
    finally:
        context.close()


def test_the_charts_draw_with_plotlys_basic_bundle(server: tuple[str, dict[str, str]], browser: Any) -> None:
    # The dashboard loaded plotly's 4.8 MB full bundle for a line chart and a bar chart; it loads the
    # report's 1.2 MB basic one (scatter, bar, pie), and both charts still draw every point and bar.
    base, tokens = server
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        open_page(page, base, "history", "en", tokens["read"])
        page.click("#show")
        page.wait_for_selector("#chart .main-svg")
        traces = page.evaluate("Object.keys(window.Plotly.PlotSchema.get().traces).sort()")
        assert traces == ["bar", "pie", "scatter"], traces
        given = page.evaluate("document.querySelector('#chart').data.reduce((n, d) => n + d.x.length, 0)")
        drawn = page.locator("#chart .scatterlayer .point").count()
        assert given > 0 and drawn == given, (given, drawn)

        open_page(page, base, "tco", "en", tokens["plan"])
        page.click("#tco")
        page.wait_for_selector("#chart .main-svg", timeout=60_000)
        given = page.evaluate(
            "document.querySelector('#chart').data.reduce((n, d) => n + d.y.filter((y) => y > 0).length, 0)"
        )
        drawn = page.locator("#chart .barlayer .point path").count()
        assert given > 0 and drawn == given, (given, drawn)
        assert not errors, errors
    finally:
        page.close()


def test_a_wrong_token_shows_the_servers_line_in_the_page(
    server: tuple[str, dict[str, str]], browser: Any
) -> None:
    base, _ = server
    page = browser.new_page()
    try:
        open_page(page, base, "offers", "zh", "gpuplan_00000000_wrong")
        page.click("#search")
        page.wait_for_selector("#error:not([hidden])")
        assert "令牌" in page.inner_text("#error")
    finally:
        page.close()


def test_yuan_prices_on_the_dashboard_name_the_rate_its_date_and_the_warning(
    server: tuple[str, dict[str, str]], browser: Any
) -> None:
    import httpx

    base, tokens = server
    auth = {"Authorization": "Bearer " + tokens["read"]}
    rate = httpx.get(f"{base}/api/v1/offers?gpu=H100&currency=CNY", headers=auth).json()["exchange_rate"]
    page = browser.new_page()
    try:
        open_page(page, base, "offers", "en", tokens["read"])
        page.fill("input[name=gpu]", "H100")
        page.select_option("select[name=currency]", "CNY")
        page.click("#search")
        page.wait_for_selector("#table tbody tr")
        note = page.inner_text("#rate")
        assert note.startswith("Exchange rate: 1 USD = ") and f"({rate['as_of']};" in note
        assert (rate["warning"] or "") in note and ("days old" in note) == bool(rate["stale"])
        page.select_option("select[name=currency]", "USD")
        page.click("#search")
        page.wait_for_function("document.querySelector('#rate').textContent === ''")
    finally:
        page.close()


def test_a_yuan_budget_is_sent_as_budget_cny_and_an_empty_month_budget_is_refused_on_the_page(
    server: tuple[str, dict[str, str]], browser: Any
) -> None:
    # The plan form offered only budget_usd; the team form sent `Number("") || 0`, a budget of 0.
    import json

    base, tokens = server
    page = browser.new_page()
    sent: list[dict[str, Any]] = []
    page.on(
        "request",
        lambda r: (
            sent.append(json.loads(r.post_data or "null"))
            if r.method == "POST" and r.url.split("?")[0].endswith("/api/v1/plan")
            else None
        ),
    )
    puts: list[str] = []
    page.on("request", lambda r: puts.append(r.url) if r.method == "PUT" else None)
    try:
        from gpuplan.i18n import _, use_language

        open_page(page, base, "plan", "zh", tokens["plan"])
        with use_language("zh"):  # the labels are the catalog's Chinese
            labels = (_("Budget"), _("Budget currency"))
        form = page.inner_text("#planform")
        assert all(label in form for label in labels), form
        page.fill("input[name=budget]", "1400")
        page.select_option("select[name=budget_currency]", "CNY")
        page.click("#plan")
        page.wait_for_selector("#recommended")
        assert sent and sent[0]["budget_cny"] == 1400 and "budget_usd" not in sent[0], sent
        page.select_option("select[name=budget_currency]", "USD")
        page.click("#plan")
        page.wait_for_function("document.querySelector('#status').textContent !== ''")
        page.wait_for_selector("#recommended")
        page.wait_for_timeout(200)
        assert sent[-1]["budget_usd"] == 1400 and "budget_cny" not in sent[-1], sent

        open_page(page, base, "team", "en", tokens["admin"])
        page.wait_for_selector("#budgetcard")
        refused = "Give the month's budget as a number, 0 or more (in yuan: more than 0)."
        for typed in ("", "-5"):
            page.fill("input[name=amount]", typed)
            page.evaluate("document.querySelector('#error').textContent = ''")
            page.click("#setbudget")
            # the error line of the first refusal is still shown when the second is made: wait for
            # the text the click writes, not for the line to be visible
            page.wait_for_function(
                "document.querySelector('#error').textContent.trim() !== ''", timeout=60_000
            )
            page.wait_for_selector("#error:not([hidden])")
            assert page.inner_text("#error") == refused
        assert not puts, puts  # nothing was sent: no budget of 0 set by an empty field
        # A budget in yuan is sent as such, shown in dollars at the catalog's rate with the conversion.
        page.fill("input[name=amount]", "70000")
        page.select_option("select[name=amount_currency]", "CNY")
        page.click("#setbudget")
        page.wait_for_function("document.querySelector('#budgetcard').textContent.includes('¥70,000.00')")
        assert len(puts) == 1, puts
    finally:
        page.close()


def test_a_refusal_made_while_the_page_loads_is_not_wiped_by_the_loads_answer(
    server: tuple[str, dict[str, str]], browser: Any
) -> None:
    # Every answered request cleared the error line: a refusal shown while the page's own data was
    # still loading vanished when that data arrived (seen on a loaded machine, where the team page's
    # first load answers late).
    base, tokens = server
    page = browser.new_page()
    try:
        open_page(page, base, "team", "en", tokens["admin"])
        page.wait_for_selector("#budgetcard", timeout=60_000)
        # the next answers of /api/v1/workloads arrive 1.5 s late
        page.evaluate(
            """() => {
              const real = window.fetch.bind(window);
              window.fetch = async (url, init) => {
                const res = await real(url, init);
                if (String(url).includes("/api/v1/workloads")) await new Promise((r) => setTimeout(r, 1500));
                return res;
              };
            }"""
        )
        page.dispatch_event("input[name=month]", "change")  # the page loads its data again
        page.fill("input[name=amount]", "")
        page.click("#setbudget")
        refused = "Give the month's budget as a number, 0 or more (in yuan: more than 0)."
        assert page.inner_text("#error") == refused
        page.wait_for_timeout(2500)  # the load's answers have come
        assert page.is_visible("#error") and page.inner_text("#error") == refused
    finally:
        page.close()


def test_the_workload_used_is_the_example(server: tuple[str, dict[str, str]]) -> None:
    # The plan page starts from examples/bert-large-squad.yaml, whose stand-in profile is cached.
    w = bert_workload()
    assert w["model"]["preset"] == "bert-large" and w["inputs"]["seq_len"] == 384
