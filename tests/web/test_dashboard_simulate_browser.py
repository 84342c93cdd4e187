"""The dashboard's simulate page clicked through in Debian's Chromium: a preset's inference service
under two policies, SLOs on TTFT and TPOT, spot replicas with their price, a generated load and an
uploaded trace file; the result per policy (cost, latency percentiles, SLO misses, drops), in
English and Chinese, on a desktop and a phone screen; what each catalog price rests on (its
publisher's text, date and confidence, and beside a price not known to hold today the best one
that is), shown as text whatever the text holds. Skipped, saying why, without Chromium or
Playwright.

``GPUPLAN_SCREENSHOTS=docs/images pytest tests/web/test_dashboard_simulate_browser.py`` also writes
the screenshots.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from dashboard_helpers import SIZES, dashboard, fits, open_page, shot

#: A replica's own figures: the page simulates without tracing the model.
REPLICA = "slots=64,tpot_ms=40,prefill_tps=3000"
#: The GPU whose catalog prices the price-basis tests read.
GPU = "A100-SXM4-80GB"
#: A GPU none of whose on-demand prices in the shipped catalog is known to hold today (every one
#: undated or older than the staleness limit); the A100 80 GB's AWS price is dated 2026-11-09.
UNDATED_GPU = "A100-PCIE-80GB"


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory, seeded_catalog: Path
) -> Iterator[tuple[str, dict[str, str]]]:
    # Simulate is always a job: one worker thread runs it.
    with dashboard(tmp_path_factory.mktemp("dashboard-simulate"), seeded_catalog, job_workers=1) as served:
        yield served


#: A publisher's text as a hostile catalog row could hold it: the page must show it as text.
HOSTILE_SOURCE = 'Example list <img src=x onerror="window.__pwned = 1"> line 7'
#: What the priced server's catalog was made to hold (filled by ``_doctor``).
DOCTORED: dict[str, str] = {}


def _doctor(db: Path) -> None:
    """The seeded catalog with the cheapest A100 on-demand prices (of unknown age in the seed)
    carrying ``HOSTILE_SOURCE``, and the next dearer one dated today, so that the page has a price
    not known to hold today and the best known-current one beside it."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT p.id, p.amount / o.gpu_count, p.as_of, o.provider FROM prices p JOIN offers o "
            "ON o.id = p.offer_id WHERE o.gpu = ? AND p.pricing = 'on_demand' "
            "AND p.currency = 'USD' ORDER BY p.amount / o.gpu_count",
            (GPU,),
        ).fetchall()
        cheapest = rows[0][1]
        stale = [r for r in rows if r[1] == cheapest]
        dearer = next(r for r in rows if r[1] > cheapest)
        assert all("/" in r[2] for r in stale), stale  # observed at an unknown time: not known current
        conn.executemany("UPDATE prices SET source = ? WHERE id = ?", [(HOSTILE_SOURCE, r[0]) for r in stale])
        today = date.today().isoformat()
        conn.execute("UPDATE prices SET as_of = ?, confidence = 'high' WHERE id = ?", (today, dearer[0]))
        DOCTORED.update(as_of=stale[0][2], current_provider=dearer[3], current_as_of=today)


@pytest.fixture(scope="module")
def priced_server(
    tmp_path_factory: pytest.TempPathFactory, seeded_catalog: Path
) -> Iterator[tuple[str, dict[str, str]]]:
    with dashboard(
        tmp_path_factory.mktemp("dashboard-simulate-priced"), seeded_catalog, job_workers=1, prepare=_doctor
    ) as served:
        yield served


#: a label's colon as the page's language writes it (full-width in Chinese)
COLON = {"en": ": ", "zh": "："}


def _words(lang: str, *words: str) -> list[str]:
    from gpuplan.i18n import _, use_language

    with use_language(lang):
        return [_(w) for w in words]


def _sent(page: Any) -> list[dict[str, Any]]:
    bodies: list[dict[str, Any]] = []
    page.on(
        "request",
        lambda r: (
            bodies.append(json.loads(r.post_data or "null"))
            if r.method == "POST" and r.url.split("?")[0].endswith("/api/v1/simulate")
            else None
        ),
    )
    return bodies


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("size", list(SIZES))
def test_a_simulation_with_slos_and_spot_replicas_shows_each_policys_outcome(
    server: tuple[str, dict[str, str]], browser: Any, lang: str, size: str
) -> None:
    base, tokens = server
    width, height = SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    sent = _sent(page)
    try:
        open_page(page, base, "simulate", lang, tokens["plan"])
        title, simulate, targets = _words(lang, "Simulate", "Simulate", "Latency targets (SLOs)")
        assert title in page.inner_text("h1") and targets in page.inner_text("#simform")
        page.select_option("select[name=shape]", "bursty")
        page.fill("input[name=hours]", "2")
        page.fill("textarea[name=policies]", "fixed:replicas=2\nqueue:per_replica=24,max=4,spot=0.5")
        page.fill("input[name=slo]", "ttft_p95=2s,tpot_p95=80ms")
        page.fill("input[name=replica]", REPLICA)
        page.fill("input[name=on_demand_price]", "0.7")
        page.fill("input[name=spot_price]", "0.3")
        page.fill("input[name=spot_rate]", "0.5")
        page.click("#simulate")
        page.wait_for_selector("#simresult", timeout=60_000)
        body = sent[-1]
        assert body["slo"] == "ttft_p95=2s,tpot_p95=80ms" and body["replica"] == REPLICA
        assert (body["spot_price"], body["spot_rate"], body["shape"], body["hours"]) == (
            0.3,
            0.5,
            "bursty",
            2,
        )
        assert body["workload"]["serving"] == {
            "requests_per_s": 2,
            "prompt_tokens": 512,
            "output_tokens": 256,
        }
        rows = page.locator("#table tbody tr")
        assert rows.count() == 2
        first = rows.nth(0).locator("td").all_inner_texts()
        # the prices in the page language's currency: the picker starts at yuan on the Chinese page
        assert body["currency"] == ("CNY" if lang == "zh" else "USD")
        assert first[0] == "fixed:replicas=2" and first[1].startswith("¥" if lang == "zh" else "$")
        assert first[3].endswith(("ms", " s")) and first[6].endswith("%")
        headers = page.locator("#table th").all_inner_texts()
        assert headers == _words(
            lang, "Policy", "Cost", "Replica-hours", "Latency p50", "Latency p95", "Latency p99",
            "SLO misses", "Dropped", "Interruptions", "Most replicas",
        )  # fmt: skip
        slos = page.locator("#slos tbody tr td:nth-child(2)").all_inner_texts()
        assert sorted(slos) == ["tpot_p95", "tpot_p95", "ttft_p95", "ttft_p95"]
        assert ("¥0.30" if lang == "zh" else "$0.30") in page.inner_text(
            "#simresult"
        )  # the spot price per replica-hour given
        fits(page)
        shot(page, f"simulate-{lang}-{size}")
        assert simulate and not errors, errors
    finally:
        context.close()


def test_an_uploaded_trace_file_is_simulated(
    server: tuple[str, dict[str, str]], browser: Any, tmp_path: Path
) -> None:
    base, tokens = server
    trace = tmp_path / "load.csv"
    trace.write_text(
        "timestamp,prompt_tokens,output_tokens\n"
        + "".join(f"{i * 0.5},{200 + i},{50}\n" for i in range(240)),
        encoding="utf-8",
    )
    page = browser.new_page()
    sent = _sent(page)
    try:
        open_page(page, base, "simulate", "en", tokens["plan"])
        page.set_input_files("input[name=trace_file]", str(trace))
        page.wait_for_function("document.querySelector('[name=trace_csv]').value.length > 100")
        assert page.input_value("select[name=shape]") == "csv"
        page.fill("input[name=replica]", REPLICA)
        page.fill("input[name=on_demand_price]", "1")
        page.click("#simulate")
        page.wait_for_selector("#simresult", timeout=60_000)
        assert "shape" not in sent[-1] and sent[-1]["trace_csv"] == trace.read_text(encoding="utf-8").strip()
        assert "240 requests" in page.inner_text("#simresult") and "recorded" in page.inner_text("#simresult")
    finally:
        page.close()


def test_the_prices_are_sent_in_the_currency_the_form_says(
    server: tuple[str, dict[str, str]], browser: Any
) -> None:
    """A price in yuan is sent with currency CNY (the server converts it at the catalog's rate);
    each price's label says its currency. The labels had said USD, and the API took every price
    in dollars."""
    base, tokens = server
    page = browser.new_page()
    sent = _sent(page)
    try:
        open_page(page, base, "simulate", "en", tokens["plan"])
        labels = page.locator("#simform label:has(.price-currency)")
        assert labels.count() == 2
        assert labels.nth(0).inner_text().startswith("On-demand price/h, USD")
        page.select_option("select[name=currency]", "CNY")
        assert labels.nth(0).inner_text().startswith("On-demand price/h, CNY")
        assert labels.nth(1).inner_text().startswith("Spot price/h, CNY")
        page.fill("input[name=replica]", REPLICA)
        page.fill("input[name=hours]", "1")
        page.fill("input[name=on_demand_price]", "18.49")
        page.click("#simulate")
        page.wait_for_selector("#simresult", timeout=60_000)
        assert (sent[-1]["currency"], sent[-1]["on_demand_price"]) == ("CNY", 18.49)
        # in yuan, as asked, with the rate the dollars were shown at (they had been shown in dollars)
        shown = page.inner_text("#simresult")
        assert "¥18.49" in shown and "$" not in shown, shown
        assert "Exchange rate: 1 USD = " in shown and " CNY (" in shown, shown
        assert all(
            c.startswith("¥") for c in page.locator("#table tbody tr td:nth-child(2)").all_inner_texts()
        )
    finally:
        page.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_saved_workload_budgeted_in_yuan_is_answered_in_yuan(
    server: tuple[str, dict[str, str]], browser: Any, lang: str
) -> None:
    """A team counting in yuan reads its simulation's costs in yuan, as its plan; the page had
    shown them in dollars whatever the currency asked."""
    import httpx

    base, tokens = server
    spec = {
        "name": "yuan-chat",
        "task": "infer",
        "model": {"preset": "gpt2"},
        "inputs": {"batch_size": 4, "seq_len": 512},
        "precision": "bf16",
        "serving": {"requests_per_s": 1, "prompt_tokens": 300, "output_tokens": 100},
        "constraints": {"budget_cny": 50000},
    }
    auth = {"Authorization": "Bearer " + tokens["plan"]}
    saved = httpx.post(f"{base}/api/v1/workloads", json={"name": "yuan-chat", "workload": spec}, headers=auth)
    # the other language's run saved it already on this server: the same content is its version, unchanged
    assert saved.status_code in (200, 201), saved.text
    page = browser.new_page()
    responses: list[Any] = []
    page.on("response", lambda r: responses.append(r))
    try:
        open_page(page, base, "simulate", lang, tokens["plan"])
        page.wait_for_selector("select[name=saved] option[value=yuan-chat]", state="attached")
        page.select_option("select[name=saved]", "yuan-chat")
        page.fill("input[name=replica]", REPLICA)
        page.fill("input[name=hours]", "1")
        page.click("#simulate")
        page.wait_for_selector("#simresult", timeout=60_000)
        doc = _answer(responses)
        assert doc["display_currency"] == "CNY"
        rate = doc["exchange_rate"]["units_per_usd"]
        costs = page.locator("#table tbody tr td:nth-child(2)").all_inner_texts()
        assert costs and all(c.startswith("¥") for c in costs), costs
        # the policy's USD cost at the document's rate (¥ and the number as the page writes it)
        yuan = float(costs[0].lstrip("¥").replace(",", ""))
        assert yuan == pytest.approx(doc["policies"][0]["cost_usd"] * rate, abs=0.006)
        (label,) = _words(lang, "Exchange rate")
        assert f"{label}{COLON[lang]}1 USD = " in page.inner_text("#simresult")
    finally:
        page.close()


def test_a_bad_option_shows_the_servers_line_and_an_empty_trace_is_refused_on_the_page(
    server: tuple[str, dict[str, str]], browser: Any
) -> None:
    base, tokens = server
    page = browser.new_page()
    sent = _sent(page)
    try:
        open_page(page, base, "simulate", "en", tokens["plan"])
        page.fill("input[name=slo]", "ttft_p95=soon")
        page.fill("input[name=replica]", REPLICA)
        page.click("#simulate")
        page.wait_for_selector("#error:not([hidden])")
        assert "ttft_p95=soon" in page.inner_text("#error") and not page.locator("#simresult").count()
        page.select_option("select[name=shape]", "csv")
        page.click("#simulate")
        page.wait_for_function("document.querySelector('#error').textContent.startsWith('Paste a trace CSV')")
        assert len(sent) == 1, sent  # the empty trace was not sent
    finally:
        page.close()


def test_a_saved_inference_workload_is_simulated_as_saved(
    server: tuple[str, dict[str, str]], browser: Any
) -> None:
    import httpx

    base, tokens = server
    spec = {
        "name": "team-chat",
        "task": "infer",
        "model": {"preset": "gpt2"},
        "inputs": {"batch_size": 4, "seq_len": 512},
        "precision": "bf16",
        "serving": {"requests_per_s": 1, "prompt_tokens": 300, "output_tokens": 100},
    }
    auth = {"Authorization": "Bearer " + tokens["plan"]}
    saved = httpx.post(f"{base}/api/v1/workloads", json={"name": "team-chat", "workload": spec}, headers=auth)
    # the other language's run saved it already on this server: the same content is its version, unchanged
    assert saved.status_code in (200, 201), saved.text
    page = browser.new_page()
    sent = _sent(page)
    try:
        open_page(page, base, "simulate", "en", tokens["plan"])
        page.wait_for_selector("select[name=saved] option[value=team-chat]", state="attached")
        page.select_option("select[name=saved]", "team-chat")
        page.fill("input[name=replica]", REPLICA)
        page.fill("input[name=hours]", "1")
        page.click("#simulate")
        page.wait_for_selector("#simresult", timeout=60_000)
        assert sent[-1]["workload"] == spec, sent[-1]["workload"]
    finally:
        page.close()


def _answer(responses: list[Any]) -> dict[str, Any]:
    """The simulation the page was given: the last answer (its job's, or the POST's) that holds one."""
    for r in reversed(responses):
        if "/api/v1/" in r.url and r.ok:
            doc = r.json()
            result = doc.get("result") if isinstance(doc.get("result"), dict) else doc
            if isinstance(result, dict) and "prices" in result:
                return result
    raise AssertionError("no simulation among the page's answers")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_each_catalog_price_shows_its_source_date_confidence_and_the_best_current_one_as_text(
    priced_server: tuple[str, dict[str, str]], browser: Any, lang: str
) -> None:
    base, tokens = priced_server
    page = browser.new_page(viewport={"width": 390, "height": 844})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    responses: list[Any] = []
    page.on("response", lambda r: responses.append(r))
    try:
        open_page(page, base, "simulate", lang, tokens["plan"])
        page.fill("input[name=gpu]", GPU)
        page.fill("input[name=hours]", "1")
        page.fill("textarea[name=policies]", "fixed:replicas=2")
        page.fill("input[name=replica]", REPLICA)
        page.click("#simulate")
        page.wait_for_selector("#simresult", timeout=60_000)
        basis = _answer(responses)["prices"]["basis"]["on_demand"]
        assert basis["price_source"] == HOSTILE_SOURCE and basis["known_current"] is False
        current = basis["best_known_current"]
        assert current["provider"] == DOCTORED["current_provider"]
        assert current["as_of"] == DOCTORED["current_as_of"]
        line = page.locator("#simresult .basis[data-pricing=on_demand]").inner_text()
        label_source, label_as_of, label_confidence, label_best = _words(
            lang, "Price source", "As of", "Confidence", "Best known-current price"
        )
        on_demand, secondary, high = _words(lang, "on demand", "secondary", "high")
        # the pricing model and the confidences in words, not the catalog's codes (on_demand)
        assert line.startswith(on_demand + COLON[lang])
        # the publisher's text as the catalog holds it, shown as text: no element made of it, no script run
        assert f"{label_source}{COLON[lang]}{HOSTILE_SOURCE}" in line
        assert (
            f"{label_as_of}{COLON[lang]}{DOCTORED['as_of']}" in line
            and f"{label_confidence}{COLON[lang]}{secondary}" in line
        )
        assert basis["date_note"] and basis["date_note"] in line
        assert label_best + COLON[lang] in line and current["price_source"] in line
        assert (
            f"{label_as_of}{COLON[lang]}{current['as_of']}" in line
            and f"{label_confidence}{COLON[lang]}{high}" in line
        )
        # the policy's cost at that price, beside the one at the price of unknown age
        cost_note = _answer(responses)["policies"][0]["known_current_note"]
        assert cost_note and cost_note in page.locator("#simresult .basis-note").inner_text()
        assert page.locator("#simresult img").count() == 0
        assert page.evaluate("window.__pwned === undefined")
        fits(page)
        page.locator("#simresult").scroll_into_view_if_needed()
        shot(page, f"simulate-prices-{lang}-phone")
        assert not errors, errors
    finally:
        page.close()


def test_a_price_given_in_the_form_says_so_and_a_price_without_a_current_one_says_none_is_known(
    server: tuple[str, dict[str, str]], browser: Any
) -> None:
    base, tokens = server
    page = browser.new_page()
    responses: list[Any] = []
    page.on("response", lambda r: responses.append(r))
    try:
        open_page(page, base, "simulate", "en", tokens["plan"])
        page.fill("input[name=gpu]", UNDATED_GPU)
        page.fill("input[name=hours]", "1")
        page.fill("textarea[name=policies]", "fixed:replicas=1\nfixed:replicas=1,spot=1")
        page.fill("input[name=replica]", REPLICA)
        page.fill("input[name=spot_price]", "0.3")
        page.click("#simulate")
        page.wait_for_selector("#simresult", timeout=60_000)
        basis = _answer(responses)["prices"]["basis"]
        assert basis["spot"]["given"] is True and basis["on_demand"]["given"] is False
        assert "your own figure" in page.locator("#simresult .basis[data-pricing=spot]").inner_text()
        # the seeded catalog holds no on-demand price of this GPU known to hold today
        assert basis["on_demand"]["best_known_current"] is None
        line = page.locator("#simresult .basis[data-pricing=on_demand]").inner_text()
        assert basis["on_demand"]["price_source"] in line
        assert "Best known-current price: none in the catalog" in line
    finally:
        page.close()
