"""The dashboard clicked through in Debian's Chromium (Playwright for Python, the system browser:
Playwright cannot download its own here): every page, in English and Chinese, at 1280×800 and
390×844 — search offers and sort them, plan and save a plan, price history, tco, the team's budget,
plans and price changes. Skipped, saying why, without Chromium or Playwright.

``GPUPLAN_SCREENSHOTS=docs/images pytest tests/web/test_dashboard_browser.py`` also writes the
screenshots the documentation shows.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from serve_helpers import bert_workload, make_tokens
from server_process import serving

playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is a dev dependency")
CHROMIUM = os.environ.get("GPUPLAN_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None:
    pytest.skip(
        "no Chromium to click the dashboard in (apt-get install -y chromium fonts-noto-cjk)",
        allow_module_level=True,
    )

SIZES = {"desktop": (1280, 800), "phone": (390, 844)}
SHOTS = os.environ.get("GPUPLAN_SCREENSHOTS")


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory, seeded_catalog: Path
) -> Iterator[tuple[str, dict[str, str]]]:
    folder = tmp_path_factory.mktemp("dashboard")
    db = folder / "catalog.sqlite"
    shutil.copyfile(seeded_catalog, db)
    tokens = make_tokens(str(db))
    if SHOTS:
        # The documentation's pictures show a real trace of the example, not the stand-in profile.
        from gpuplan.catalog import open_store
        from gpuplan.profile import profile, profile_key, trace

        store = open_store(str(db))
        try:
            w = bert_workload()
            real = trace(w)
            from gpuplan.profile import PROFILE_SCHEMA_VERSION

            store.local.put_profile(profile_key(w), PROFILE_SCHEMA_VERSION, real.to_json())
            assert profile(w, store.local).flops_per_step == real.flops_per_step
        finally:
            store.close()
    with serving(str(db), "--job-workers", "0", log=folder / "serve.log") as (base, _proc):
        yield base, tokens


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


def _shot(page: Any, name: str) -> None:
    if SHOTS:
        page.evaluate("document.querySelectorAll('.scroll').forEach((e) => { e.scrollLeft = 0; })")
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"dashboard-{name}.png"), full_page=False)


def _open(page: Any, base: str, name: str, lang: str, token: str) -> None:
    page.goto(f"{base}/ui/{name}?lang={lang}")
    page.fill("#token", token)
    page.dispatch_event("#token", "change")


def _fits(page: Any) -> None:
    # Nothing wider than the screen: wide tables scroll inside their own box.
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")


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
        _open(page, base, "offers", lang, tokens["admin"])
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
        _fits(page)
        _shot(page, f"offers-{tag}")

        # Plan: the BERT fine-tune of the examples, planned, its report shown, saved for the month
        _open(page, base, "plan", lang, tokens["plan"])
        page.fill("input[name=name]", f"bert-{tag}")
        page.click("#plan")
        page.wait_for_selector("#recommended")
        page.wait_for_function("document.querySelector('#report').srcdoc.length > 1000", timeout=60_000)
        page.frame_locator("#report").locator("h1").wait_for(timeout=60_000)
        assert "$" in page.inner_text("#recommended")
        page.click("#saveworkload")
        page.wait_for_function(f"document.querySelector('#status').textContent.includes('bert-{tag} v1')")
        page.select_option("select[name=saved]", f"bert-{tag}")
        page.click("#saveplan")
        page.wait_for_function("document.querySelector('#status').textContent.includes('#')")
        _fits(page)
        page.evaluate("document.querySelector('#summary').scrollIntoView()")
        _shot(page, f"plan-{tag}")

        # Price history: chart and table of one instance type
        _open(page, base, "history", lang, tokens["read"])
        page.click("#show")
        page.wait_for_selector("#chart .main-svg")
        page.wait_for_selector("#table tbody tr")
        _fits(page)
        _shot(page, f"history-{tag}")

        # TCO: three years of 8 A100s on the US clouds
        _open(page, base, "tco", lang, tokens["plan"])
        page.click("#tco")
        page.wait_for_selector("#tcototal")
        assert "$" in page.inner_text("#tcototal")
        _fits(page)
        _shot(page, f"tco-{tag}")

        # Team: budget, the plan saved above, today's prices
        _open(page, base, "team", lang, tokens["admin"])
        page.wait_for_selector("#budgetcard")
        page.fill("input[name=amount]", "5000")
        page.click("#setbudget")
        page.wait_for_function("document.querySelector('#budgetcard .amount').textContent.includes('5,000')")
        page.wait_for_selector(f"#plans td:text('bert-{tag}')")
        page.click("#changes")
        page.wait_for_selector("#changestable tbody tr", timeout=60_000)
        _fits(page)
        _shot(page, f"team-{tag}")
        assert not errors, errors
    finally:
        context.close()


def test_a_wrong_token_shows_the_servers_line_in_the_page(
    server: tuple[str, dict[str, str]], browser: Any
) -> None:
    base, _ = server
    page = browser.new_page()
    try:
        _open(page, base, "offers", "zh", "gpuplan_00000000_wrong")
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
        _open(page, base, "offers", "en", tokens["read"])
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

        _open(page, base, "plan", "zh", tokens["plan"])
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

        _open(page, base, "team", "en", tokens["admin"])
        page.wait_for_selector("#budgetcard")
        for typed in ("", "-5"):
            page.fill("input[name=amount]", typed)
            page.click("#setbudget")
            page.wait_for_selector("#error:not([hidden])")
            assert (
                page.inner_text("#error")
                == "Give the month's budget as a number, 0 or more (in yuan: more than 0)."
            )
        assert not puts, puts  # nothing was sent: no budget of 0 set by an empty field
        # A budget in yuan is sent as such, shown in dollars at the catalog's rate with the conversion.
        page.fill("input[name=amount]", "70000")
        page.select_option("select[name=amount_currency]", "CNY")
        page.click("#setbudget")
        page.wait_for_function("document.querySelector('#budgetcard').textContent.includes('¥70,000.00')")
        assert len(puts) == 1, puts
    finally:
        page.close()


def test_the_workload_used_is_the_example(server: tuple[str, dict[str, str]]) -> None:
    # The plan page starts from examples/bert-large-squad.yaml, whose stand-in profile is cached.
    w = bert_workload()
    assert w["model"]["preset"] == "bert-large" and w["inputs"]["seq_len"] == 384
