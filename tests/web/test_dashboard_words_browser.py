"""What the dashboard's pages say about the numbers they show, clicked through in Debian's Chromium:
a price not known to be current is marked beside its date (as ``gpuplan offers`` marks it), the map
asks for the table's filters, a plan's cost is in the currency it was planned in, and the team page
in Chinese names statuses and pricing models in Chinese, times in the reader's own format, and the
date of the prices each saved plan rests on. Skipped, saying why, without Chromium or Playwright."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from dashboard_helpers import dashboard, open_page

from gpuplan.i18n import _, use_language


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory, seeded_catalog: Path
) -> Iterator[tuple[str, dict[str, str]]]:
    with dashboard(tmp_path_factory.mktemp("dashboard-words"), seeded_catalog, job_workers=0) as served:
        yield served


def _zh_page(browser: Any) -> Any:
    return browser.new_context(viewport={"width": 1280, "height": 800}, locale="zh-CN").new_page()


def test_an_offer_of_a_stale_or_unknown_age_price_is_marked_beside_its_date(
    server: tuple[str, dict[str, str]], browser: Any
) -> None:
    import httpx

    from gpuplan.report.common import price_age_words

    base, tokens = server
    auth = {"Authorization": "Bearer " + tokens["read"]}
    offers = httpx.get(f"{base}/api/v1/offers?gpu=H100", headers=auth).json()["offers"]
    flagged = [o for o in offers if o["staleness"] in ("stale", "unknown")]
    assert flagged, "the seeded catalog has prices older than the limit"
    with use_language("zh"):
        expected = [
            price_age_words(o["age_days"], o["staleness"], o["gpu"], o["age_bound_launch"])
            for o in offers
            if o in flagged
        ]
        # the H100 NVL's undated prices are bounded by its launch (2023-03), as `offers` says
        assert any("H100-NVL 于 2023-03 发布" in words for words in expected)
    page = _zh_page(browser)
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/offers/countries" in r.url else None)
    try:
        open_page(page, base, "offers", "zh", tokens["read"])
        page.fill("input[name=gpu]", "H100")
        page.click("#search")
        page.wait_for_function(f"document.querySelector('#count').textContent === '({len(offers)})'")
        marks = page.locator("#table td .agewarn").all_inner_texts()
        assert marks == expected, (marks, expected)
        # the mark is in the As-of column, after the date it qualifies
        assert page.locator("#table td:nth-child(9) .agewarn").count() == len(flagged)
        # the map is drawn from the offers the table lists: the same provider and price cap
        page.fill("input[name=provider]", "aws")
        page.fill("input[name=max_price]", "50")
        with page.expect_request(lambda r: "/offers/countries" in r.url and "provider=" in r.url):
            page.click("#search")
        query = parse_qs(urlsplit(asked[-1]).query)
        assert query.get("provider") == ["aws"] and query.get("max_price") == ["50"], asked[-1]
        assert "/usr/" not in page.inner_text("#map")
    finally:
        page.context.close()


def test_a_plan_in_yuan_shows_its_cost_in_yuan(server: tuple[str, dict[str, str]], browser: Any) -> None:
    base, tokens = server
    page = _zh_page(browser)
    try:
        open_page(page, base, "plan", "zh", tokens["plan"])
        page.select_option("#planform select[name=currency]", "CNY")
        page.click("#plan")
        page.wait_for_selector("#recommended")
        cost = page.inner_text("#recommended .cost")
        assert cost.startswith("¥"), cost
    finally:
        page.context.close()


def test_the_team_page_in_chinese_has_no_english_codes_and_shows_local_times_and_price_dates(
    server: tuple[str, dict[str, str]], browser: Any
) -> None:
    import httpx
    from serve_helpers import bert_workload

    from gpuplan.vocab import pricing_name

    base, tokens = server
    plan = {"Authorization": "Bearer " + tokens["plan"]}
    httpx.post(
        f"{base}/api/v1/workloads", json={"name": "bert-team", "workload": bert_workload()}, headers=plan
    )
    answer = httpx.post(
        f"{base}/api/v1/plans", json={"name": "bert-team", "month": "2027-04"}, headers=plan, timeout=120
    )
    assert answer.status_code == 201, answer.text
    saved = answer.json()
    code = saved["document"]["recommended"]["pricing"]
    with use_language("zh"):
        words = {"planned": _("planned"), "pricing": pricing_name(code), "as of": _("Prices as of")}
    page = _zh_page(browser)
    try:
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        open_page(page, base, "team", "zh", tokens["admin"])
        page.wait_for_selector("#budgetcard")
        assert not errors and page.is_hidden("#error"), (errors, page.inner_text("#error"))
        page.wait_for_selector("#plans td:text('bert-team')")
        row = page.locator("#plans tbody tr", has_text="bert-team").first.locator("td").all_inner_texts()
        assert words["planned"] in row and "planned" not in row, row
        assert any(c.endswith(f", {words['pricing']}") for c in row) and not any(
            c.endswith(f", {code}") for c in row
        )
        # the date, with its age beside it where the price is not known to be current
        assert any(c.startswith(saved["prices_as_of"]) for c in row), row
        assert words["as of"] in page.locator("#plans th").all_inner_texts()
        # no raw UTC ISO stamps: the times are the reader's
        iso = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")
        assert not any(iso.search(c) for c in row), row
        assert not any(iso.search(c) for c in page.locator("#workloads td").all_inner_texts())
        page.click("#changes")
        page.wait_for_selector("#changestable tbody tr", timeout=60_000)
        assert words["as of"] in page.locator("#changestable th").all_inner_texts()
    finally:
        page.context.close()


def test_a_token_pasted_on_the_plan_page_loads_the_saved_workloads(
    server: tuple[str, dict[str, str]], browser: Any
) -> None:
    import httpx
    from serve_helpers import bert_workload

    base, tokens = server
    plan = {"Authorization": "Bearer " + tokens["plan"]}
    r = httpx.post(
        f"{base}/api/v1/workloads", json={"name": "pasted", "workload": bert_workload()}, headers=plan
    )
    assert r.status_code == 201, r.text
    page = _zh_page(browser)  # a new browser profile: no token kept from before
    try:
        open_page(page, base, "plan", "zh", tokens["plan"])
        page.wait_for_selector("select[name=saved] option[value=pasted]", state="attached")
    finally:
        page.context.close()


def test_a_price_dated_as_a_range_is_drawn_at_its_latest_day_with_the_range_on_hover(
    server: tuple[str, dict[str, str]], browser: Any
) -> None:
    import httpx

    base, tokens = server
    auth = {"Authorization": "Bearer " + tokens["read"]}
    instance = "ecs.gn6v-c8g1.2xlarge"
    prices = httpx.get(f"{base}/api/v1/catalog/history?instance={instance}", headers=auth).json()["prices"]
    ranged = [p for p in prices if "/" in p["as_of"]]
    assert ranged, "the seeded catalog dates this instance's prices as a range"
    page = _zh_page(browser)
    try:
        open_page(page, base, "history", "zh", tokens["read"])
        page.wait_for_selector("#chart .main-svg")  # the page's own instance, drawn on the token
        page.fill("input[name=instance]", instance)
        page.click("#show")
        # every price is drawn, none dropped for a date it cannot parse
        count = "document.querySelector('#chart').data.reduce((n, d) => n + d.x.length, 0)"
        page.wait_for_function(f"{count} === {len(prices)}")
        traces = page.evaluate("document.querySelector('#chart').data.map((d) => ({x: d.x, text: d.text}))")
        xs = [x for d in traces for x in d["x"]]
        texts = [x for d in traces for x in d["text"]]
        with use_language("zh"):
            said = _("dated {range}: drawn at its latest day")
        for p in ranged:
            end = p["as_of"].split("/")[1]
            assert end in xs and said.format(range=p["as_of"]) in texts, (p, xs, texts)
    finally:
        page.context.close()
