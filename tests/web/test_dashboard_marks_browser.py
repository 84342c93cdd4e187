"""What the dashboard marks and says beyond the Offers tab, clicked through in Debian's Chromium: a
saved plan's prices and a price history's prices not known to be current are marked beside their
date as an offer's are (the words of ``gpuplan offers``), the map names countries in the page's
language, a refused value (the tco page's too) is named by the form's own label, the tco card gives
the total without stale spot and commitment prices beside its own, and the price check of the saved
plans says it is checking while it runs. Skipped, saying why, without Chromium or
Playwright."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from dashboard_helpers import dashboard, open_page

from gpuplan.i18n import _, use_language


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory, seeded_catalog: Path
) -> Iterator[tuple[str, dict[str, str]]]:
    with dashboard(tmp_path_factory.mktemp("dashboard-marks"), seeded_catalog, job_workers=0) as served:
        yield served


def _date_commitments_today(db: Path) -> None:
    """The catalog copy's commitment prices dated today: a tco schedule buys only commitments at
    prices known to be current, and the shipped ones are past the staleness limit."""
    import sqlite3

    with sqlite3.connect(db) as con:
        con.execute(
            "UPDATE prices SET as_of = ? WHERE pricing IN ('monthly', 'reserved_1y', 'reserved_3y')",
            (date.today().isoformat(),),
        )


@pytest.fixture(scope="module")
def current_commitments(
    tmp_path_factory: pytest.TempPathFactory, seeded_catalog: Path
) -> Iterator[tuple[str, dict[str, str]]]:
    """The dashboard on a catalog whose commitment prices are current."""
    folder = tmp_path_factory.mktemp("dashboard-commitments")
    with dashboard(folder, seeded_catalog, job_workers=0, prepare=_date_commitments_today) as served:
        yield served


def _zh_page(browser: Any) -> Any:
    page = browser.new_context(viewport={"width": 1280, "height": 800}, locale="zh-CN").new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    return page


def _marks(as_of: list[str]) -> list[str]:
    """The marks ``gpuplan offers`` puts beside prices of these dates today, in Chinese (fresh: none)."""
    from gpuplan.catalog.dates import DEFAULT_STALE_AFTER_DAYS, price_age
    from gpuplan.report.common import price_age_words

    ages = [price_age(a, date.today(), DEFAULT_STALE_AFTER_DAYS) for a in as_of]
    with use_language("zh"):
        return [price_age_words(a.age_days, a.staleness) for a in ages if a.staleness != "fresh"]


def test_a_saved_plan_whose_prices_are_not_known_current_is_marked_as_an_offer_is(
    server: tuple[str, dict[str, str]], browser: Any
) -> None:
    import httpx
    from serve_helpers import bert_workload

    base, tokens = server
    plan = {"Authorization": "Bearer " + tokens["plan"]}
    httpx.post(f"{base}/api/v1/workloads", json={"name": "aged", "workload": bert_workload()}, headers=plan)
    answer = httpx.post(
        f"{base}/api/v1/plans", json={"name": "aged", "month": "2027-05"}, headers=plan, timeout=120
    )
    assert answer.status_code == 201, answer.text
    saved = answer.json()
    expected = _marks([saved["prices_as_of"]])
    assert expected, "the seeded catalog's cheapest price is not known to be current"
    page = _zh_page(browser)
    try:
        open_page(page, base, "team", "zh", tokens["admin"])
        row = page.locator("#plans tbody tr", has_text="aged").first
        row.wait_for()
        # beside the date, in the "Prices as of" column, the words the Offers tab uses
        headers = page.locator("#plans thead th").all_inner_texts()
        with use_language("zh"):
            column = headers.index(_("Prices as of"))  # found by its heading: columns come and go
        cell = row.locator("td").nth(column)
        assert cell.locator(".agewarn").all_inner_texts() == expected
        assert cell.inner_text().startswith(saved["prices_as_of"])
        page.click("#changes")
        changed = page.locator("#changestable tbody tr", has_text="aged").first
        changed.wait_for(timeout=60_000)
        assert changed.locator("td").nth(6).locator(".agewarn").all_inner_texts() == expected
        assert not page.errors, page.errors
    finally:
        page.context.close()


def test_the_price_history_marks_a_price_not_known_current_as_the_offers_tab_does(
    server: tuple[str, dict[str, str]], browser: Any
) -> None:
    import httpx

    base, tokens = server
    instance = "ecs.gn6v-c8g1.2xlarge"
    auth = {"Authorization": "Bearer " + tokens["read"]}
    prices = httpx.get(f"{base}/api/v1/catalog/history?instance={instance}", headers=auth).json()["prices"]
    expected = _marks([p["as_of"] for p in prices])
    assert expected, "the seeded catalog has old prices of this instance"
    page = _zh_page(browser)
    try:
        open_page(page, base, "history", "zh", tokens["read"])
        page.wait_for_selector("#table tbody tr")  # the page's own instance, shown on the token
        page.fill("input[name=instance]", instance)
        page.click("#show")
        providers = sorted({p["provider"] for p in prices})
        page.wait_for_function(
            "([n, providers]) => { const rows = [...document.querySelectorAll('#table tbody tr')];"
            " return rows.length === n && rows.every((r) => providers.includes(r.cells[0].textContent)); }",
            arg=[len(prices), providers],
        )
        # in the As-of column (the 5th), in the table's order: the API's, oldest first
        assert page.locator("#table td:nth-child(5) .agewarn").all_inner_texts() == expected
        assert not page.errors, page.errors
    finally:
        page.context.close()


def test_the_map_names_countries_in_chinese(server: tuple[str, dict[str, str]], browser: Any) -> None:
    base, tokens = server
    page = _zh_page(browser)
    try:
        open_page(page, base, "offers", "zh", tokens["read"])
        page.fill("input[name=gpu]", "H100")
        page.click("#search")
        page.wait_for_selector("#map svg circle[data-country=DE]", timeout=60_000)
        title = page.locator("#map svg circle[data-country=DE] title").text_content() or ""
        # the page's full-width colon; the cheapest GPU-hour in the page's currency, yuan, as the table
        assert title.startswith("德国：") and "¥" in title and "$" not in title, title
    finally:
        page.context.close()


def test_a_refused_value_is_named_by_the_forms_label_without_the_fields_path(
    server: tuple[str, dict[str, str]], browser: Any
) -> None:
    # The page showed the API's line, "query.max_price: 应大于 0": a path for programs, not a reader.
    base, tokens = server
    with use_language("zh"):
        label, problem = _("Max price/h"), _("Input should be greater than {limit}").format(limit=0)
    page = _zh_page(browser)
    try:
        open_page(page, base, "offers", "zh", tokens["read"])
        page.fill("input[name=max_price]", "0")  # the form takes 0; the API wants more than 0
        page.click("#search")
        page.wait_for_selector("#error:not([hidden])", timeout=60_000)
        assert page.inner_text("#error") == f"{label}：{problem}"
    finally:
        page.context.close()


@pytest.mark.parametrize(
    ("control", "value", "label"), [("providers", "awz", "Providers"), ("gpu", "A100X", "GPU")]
)
def test_a_refused_tco_value_is_named_by_the_forms_label_without_the_usage_files_path(
    server: tuple[str, dict[str, str]], browser: Any, control: str, value: str, label: str
) -> None:
    # The page showed the usage file's path first ("constraints.providers: …", "demand 'demand': …"),
    # words for the command line: the API's 400 carried no field for the form to name.
    import httpx

    base, tokens = server
    page = _zh_page(browser)
    sent: list[Any] = []
    page.on("request", lambda r: sent.append(r.post_data_json) if "/api/v1/tco" in r.url else None)
    try:
        open_page(page, base, "tco", "zh", tokens["plan"])
        page.fill(f"input[name={control}]", value)
        page.click("#tco")
        page.wait_for_selector("#error:not([hidden])", timeout=60_000)
        shown = page.inner_text("#error")
        auth = {"Authorization": "Bearer " + tokens["plan"]}
        doc = httpx.post(f"{base}/api/v1/tco?lang=zh", json=sent[-1], headers=auth, timeout=60).json()
        with use_language("zh"):
            named = _(label)
        assert doc["message"] and value in doc["message"], doc
        assert shown == f"{named}：{doc['message']}", shown
        assert not page.errors, page.errors
    finally:
        page.context.close()


def test_the_price_check_says_it_is_checking_while_it_runs(
    server: tuple[str, dict[str, str]], browser: Any
) -> None:
    import httpx
    from serve_helpers import bert_workload

    base, tokens = server
    plan = {"Authorization": "Bearer " + tokens["plan"]}
    httpx.post(
        f"{base}/api/v1/workloads", json={"name": "checked", "workload": bert_workload()}, headers=plan
    )
    r = httpx.post(
        f"{base}/api/v1/plans", json={"name": "checked", "month": "2027-06"}, headers=plan, timeout=120
    )
    assert r.status_code == 201, r.text
    planned = [
        p for p in httpx.get(f"{base}/api/v1/plans", headers=plan).json()["plans"] if p["status"] == "planned"
    ]
    with use_language("zh"):
        said = _("Checking today's prices of the saved plans ({n})…").format(n=len(planned))
    page = _zh_page(browser)
    try:
        open_page(page, base, "team", "zh", tokens["admin"])
        page.locator("#plans tbody tr", has_text="checked").first.wait_for()
        # what the page shows between the click and the answer, recorded as it appears
        page.evaluate(
            """() => { window.seen = []; new MutationObserver(() => {
                 const box = document.querySelector('#checking');
                 if (box) window.seen.push([box.textContent.trim(), !!box.querySelector('progress'),
                   document.querySelector('#changes').disabled]);
               }).observe(document.querySelector('#changestable'), { childList: true, subtree: true }); }"""
        )
        page.click("#changes")
        page.wait_for_selector("#changestable tbody tr", timeout=60_000)
        assert [said, True, True] in page.evaluate("window.seen"), page.evaluate("window.seen")
        assert page.locator("#checking").count() == 0 and not page.is_disabled("#changes")
        assert not page.errors, page.errors
    finally:
        page.context.close()


def test_the_tco_page_in_chinese_names_pricing_models_in_its_chart_and_its_commitments(
    current_commitments: tuple[str, dict[str, str]], browser: Any
) -> None:
    # The commitments were shown as the API's JSON ("pricing": "reserved_1y") on a Chinese page.
    from gpuplan.vocab import PRICING_RULES, pricing_name

    base, tokens = current_commitments
    page = _zh_page(browser)
    answers: list[dict[str, Any]] = []
    page.on("response", lambda r: answers.append(r.json()) if "/api/v1/tco" in r.url else None)
    try:
        open_page(page, base, "tco", "zh", tokens["plan"])
        page.fill("input[name=horizon_months]", "14")
        page.fill("input[name=hours]", "500")
        page.click("#tco")
        page.wait_for_selector("#tcototal", timeout=60_000)
        page.wait_for_selector("#chart .legendtext", timeout=60_000)
        doc = answers[-1]
        bought = doc["commitments"]
        assert bought, "the solver buys a commitment for 14 months of 500 h"
        kinds = sorted({k for m in doc["monthly"] for k in m["cost_usd_by_pricing"]})
        with use_language("zh"):
            legend = sorted(pricing_name(k) for k in kinds)
            words = [_(PRICING_RULES[c["pricing"]].label) for c in bought]
            commitment = _("Commitment")
        shown = sorted(e.text_content() or "" for e in page.locator("#chart .legendtext").all())
        assert shown == legend, (shown, legend)
        rows = [
            r
            for r in page.locator("#table tbody tr").all()
            if r.locator("td").first.inner_text() == commitment
        ]
        lines = [r.locator("td").nth(1).inner_text() for r in rows]
        assert len(lines) == len(bought) and all(w in line for w, line in zip(words, lines, strict=True)), (
            lines
        )
        assert not any('"pricing"' in line or "{" in line for line in lines), lines
        assert not page.errors, page.errors
    finally:
        page.context.close()


_STALE_V4 = {
    "with_stale_spot": {
        "spot_prices_used": 2,
        "spot_prices_left_out": 3,
        "total_cost_usd": 12345.5,
        "savings_pct": 4.0,
        "needed": False,
        "prices": [],
    }
}
_STALE_V5 = {
    "with_stale_prices": {
        "prices_used": 1,
        "prices_left_out": 2,
        "total_cost_usd": 12345.5,
        "savings_pct": 4.0,
        "needed": False,
        "stale_prices": [{"pricing": "monthly"}],
        "prices": [],
        "commitments": [],
    }
}


@pytest.mark.parametrize(
    ("stale_doc", "n", "kind"),
    [(_STALE_V4, 2, "spot price(s)"), (_STALE_V5, 1, "commitment price(s)")],
    ids=["v4-spot", "v5-commitment"],
)
def test_the_tco_card_gives_the_total_with_stale_prices_beside_its_own(
    server: tuple[str, dict[str, str]], browser: Any, stale_doc: dict[str, Any], n: int, kind: str
) -> None:
    # The card showed total_cost_usd alone where the tco text's headline gives the second figure.
    # The server's answer is passed on with a cheaper total that stale prices would give, as the
    # tco document states one (the seeded catalog's prices may all be current): a document of
    # version 4 (stale spot prices), and one of version 5 whose stale price is a monthly subscription.
    base, tokens = server
    page = _zh_page(browser)

    def stale(route: Any) -> None:
        answer = route.fetch()
        doc = answer.json()
        doc["stale_prices_in_total"] = 2
        doc.pop("with_stale_prices", None)
        doc.update(stale_doc)
        route.fulfill(response=answer, json=doc)

    page.route("**/api/v1/tco*", stale)
    try:
        open_page(page, base, "tco", "zh", tokens["plan"])
        page.click("#tco")
        page.wait_for_selector("#tcototal", timeout=60_000)
        with use_language("zh"):
            words = _(
                "{cheaper} with {n} {kind} stale or of unknown age, left out of it as they may have changed"
            ).format(n=n, cheaper="$12,345.50", kind=_(kind))
        assert page.inner_text("#tcototal .stalespot") == words
        assert not page.errors, page.errors
    finally:
        page.context.close()
