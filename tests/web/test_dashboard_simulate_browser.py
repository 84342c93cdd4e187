"""The dashboard's simulate page clicked through in Debian's Chromium: a preset's inference service
under two policies, SLOs on TTFT and TPOT, spot replicas with their price, a generated load and an
uploaded trace file; the result per policy (cost, latency percentiles, SLO misses, drops), in
English and Chinese, on a desktop and a phone screen. Skipped, saying why, without Chromium or
Playwright.

``GPUPLAN_SCREENSHOTS=docs/images pytest tests/web/test_dashboard_simulate_browser.py`` also writes
the screenshots.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dashboard_helpers import SIZES, dashboard, fits, open_page, shot

#: A replica's own figures: the page simulates without tracing the model.
REPLICA = "slots=64,tpot_ms=40,prefill_tps=3000"


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory, seeded_catalog: Path
) -> Iterator[tuple[str, dict[str, str]]]:
    # Simulate is always a job: one worker thread runs it.
    with dashboard(tmp_path_factory.mktemp("dashboard-simulate"), seeded_catalog, job_workers=1) as served:
        yield served


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
        assert first[0] == "fixed:replicas=2" and first[1].startswith("$")
        assert first[3].endswith(("ms", " s")) and first[6].endswith("%")
        headers = page.locator("#table th").all_inner_texts()
        assert headers == _words(
            lang, "Policy", "Cost", "Replica-hours", "Latency p50", "Latency p95", "Latency p99",
            "SLO misses", "Dropped", "Interruptions", "Most replicas",
        )  # fmt: skip
        slos = page.locator("#slos tbody tr td:nth-child(2)").all_inner_texts()
        assert sorted(slos) == ["tpot_p95", "tpot_p95", "ttft_p95", "ttft_p95"]
        assert "$0.30" in page.inner_text("#simresult")  # the spot price per replica-hour given
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
    assert saved.status_code == 201, saved.text
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
