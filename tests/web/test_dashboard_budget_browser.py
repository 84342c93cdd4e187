"""The team page says what the budget document notes, clicked through in Debian's Chromium: teams'
budgets that add up past the whole service's are shown beside the budget, in the page's language.
Skipped, saying why, without Chromium or Playwright."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dashboard_helpers import dashboard, open_page
from serve_helpers import bert_workload

MONTH = "2031-05"
#: A month whose only plan's cost is unknown.
UNKNOWN_MONTH = "2031-09"
#: The token of team nlp's alice, made before the server starts.
_NLP: dict[str, str] = {}
#: The tokens of teams rec and support, by team.
_YUAN_TEAMS: dict[str, str] = {}


def _teams(db: Path) -> None:
    """A token of team nlp, so that the team is known to the service."""
    from gpuplan.catalog import open_store
    from gpuplan.catalog.team_store import TeamStore

    store = open_store(str(db))
    try:
        team = TeamStore(store.engine)
        _NLP["Authorization"] = "Bearer " + team.create_token("alice", "plan", team="nlp")[0]
        for name in ("rec", "support"):  # two teams that count in yuan
            _YUAN_TEAMS[name] = "Bearer " + team.create_token(f"{name}-lead", "plan", team=name)[0]
        # a month of team nlp whose one plan had no feasible option: its cost is unknown
        workload = team.save_workload("distil", {"workload": {"name": "distil"}}, actor="alice", team="nlp")
        team.save_plan(
            workload,
            month=UNKNOWN_MONTH,
            constraints={},
            document={"schema_version": 4, "recommended": None},
            catalog_import_id=None,
            actor="alice",
            team="nlp",
        )
        team.set_budget(UNKNOWN_MONTH, 900.0, actor="admin", team="nlp")
    finally:
        store.close()


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory, seeded_catalog: Path
) -> Iterator[tuple[str, dict[str, str]]]:
    folder = tmp_path_factory.mktemp("dashboard-budget")
    with dashboard(folder, seeded_catalog, job_workers=0, prepare=_teams) as served:
        yield served


def _bert_planned(base: str, who: dict[str, str], name: str, month: str, **plan: str) -> None:
    """A BERT workload saved as ``name`` by ``who`` and planned for ``month`` (``plan``: the plan
    request's other fields, e.g. its currency)."""
    import httpx

    r = httpx.post(f"{base}/api/v1/workloads", json={"name": name, "workload": bert_workload()}, headers=who)
    assert r.status_code == 201, r.text
    body = {"name": name, "month": month, **plan}
    r = httpx.post(f"{base}/api/v1/plans", json=body, headers=who, timeout=120)
    assert r.status_code == 201, r.text


def _team_month(browser: Any, base: str, token: str, lang: str, month: str) -> tuple[Any, list[str]]:
    """The team page in ``lang``, showing ``month``, and the page errors it raises from then on."""
    page = browser.new_context(locale="zh-CN" if lang == "zh" else "en-US").new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    open_page(page, base, "team", lang, token)
    page.wait_for_selector("#budgetcard")
    page.fill("input[name=month]", month)
    page.dispatch_event("input[name=month]", "change")
    return page, errors


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_teams_budgets_over_the_services_are_said_on_the_team_page(
    server: tuple[str, dict[str, str]], browser: Any, lang: str
) -> None:
    import httpx

    base, tokens = server
    admin = {"Authorization": "Bearer " + tokens["admin"]}
    for q, amount in (("", 1000), ("?team=nlp", 1500)):
        r = httpx.put(f"{base}/api/v1/budget/{MONTH}{q}", json={"amount_usd": amount}, headers=admin)
        assert r.status_code == 200, r.text
    said = httpx.get(f"{base}/api/v1/budget/{MONTH}?lang={lang}", headers=admin).json()["notes"]
    assert len(said) == 1 and "$500.00" in said[0], said
    page = browser.new_context(locale="zh-CN" if lang == "zh" else "en-US").new_page()
    try:
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        open_page(page, base, "team", lang, tokens["admin"])
        page.wait_for_selector("#budgetcard")
        page.fill("input[name=month]", MONTH)
        page.dispatch_event("input[name=month]", "change")
        page.wait_for_function(
            "document.querySelector('#budgetcard .budgetnotes').textContent.includes('$500.00')",
            timeout=60_000,
        )
        assert page.inner_text("#budgetcard .budgetnotes") == said[0]
        assert not errors, errors
    finally:
        page.close()


def test_a_budget_in_yuan_is_shown_in_yuan_on_the_team_page(
    server: tuple[str, dict[str, str]], browser: Any
) -> None:
    # The team page formatted every budget figure with "$": a ¥50,000 budget read "$7,157.40", to be
    # converted back by hand, at a rate that may not be today's.
    import httpx

    base, tokens = server
    admin = {"Authorization": "Bearer " + tokens["admin"]}
    month = "2031-06"
    for q, body in (("", {"amount_cny": 50_000}), ("?team=nlp", {"amount_cny": 8_000})):
        r = httpx.put(f"{base}/api/v1/budget/{month}{q}", json=body, headers=admin)
        assert r.status_code == 200, r.text
    page = browser.new_context(locale="zh-CN").new_page()
    try:
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        open_page(page, base, "team", "zh", tokens["admin"])
        page.wait_for_selector("#budgetcard")
        page.fill("input[name=month]", month)
        page.dispatch_event("input[name=month]", "change")
        page.wait_for_function(
            "document.querySelector('#budgetcard .amount').textContent.includes('50,000.00')", timeout=60_000
        )
        assert page.inner_text("#budgetcard .amount") == "¥50,000.00"
        assert page.inner_text("#budgetcard .planned") == "¥0.00"
        assert page.inner_text("#budgetcard .remaining") == "¥50,000.00"
        assert "¥8,000.00" in page.inner_text("#teams") and "$" not in page.inner_text("#teams")
        # The price changes beside it were in dollars only: in yuan too, then as the budget counts the
        # plan (at the rate it was priced at), today's at the catalog's newest rate, named and dated.
        planner = {"Authorization": "Bearer " + tokens["plan"]}
        _bert_planned(base, planner, "embed", month)
        counted = next(p for p in httpx.get(f"{base}/api/v1/budget/{month}", headers=admin).json()["plans"])
        doc = httpx.get(f"{base}/api/v1/price-changes", headers=admin, timeout=120).json()
        [change] = [c for c in doc["plans"] if c["plan_id"] == counted["id"]]
        rate = doc["exchange_rate"]
        assert change["then_cny"] == round(counted["month_cost_cny"] / counted["runs_per_month"], 2)
        assert change["now_cny"] == round(change["now_usd"] * rate["units_per_usd"], 2)
        page.dispatch_event("input[name=month]", "change")  # the budget's plans again, then today's prices
        page.wait_for_selector("#plans td:text('embed')", timeout=60_000)
        page.click("#changes")
        page.wait_for_selector("#changestable tbody tr", timeout=60_000)
        row = page.locator("#changestable tbody tr", has_text="embed").first.locator("td").all_inner_texts()
        assert row[5] == f"¥{change['then_cny']:,.2f}" and row[7] == f"¥{change['now_cny']:,.2f}", row
        assert f"¥{change['best_now_cny']:,.2f}" in row[9], row
        assert "$" not in page.inner_text("#changestable tbody")
        said = page.inner_text("#changesrate")
        assert (
            f"1 USD = {rate['units_per_usd']:.4f} CNY" in said
            and rate["as_of"] in said
            and rate["source"] in said
        )
        assert not errors, errors
    finally:
        page.close()


def test_the_price_check_shows_the_shown_teams_plans_each_in_its_budgets_currency(
    server: tuple[str, dict[str, str]], browser: Any
) -> None:
    # The price check listed every team's plans, all in the shown budget's currency: beside the whole
    # service's yuan budget, team nlp's plans (its budget in dollars) were in yuan too.
    import httpx

    base, tokens = server
    admin, lone = (
        {"Authorization": "Bearer " + tokens["admin"]},
        {"Authorization": "Bearer " + tokens["plan"]},
    )
    month = "2031-07"
    for q, body in (("", {"amount_cny": 50_000}), ("?team=nlp", {"amount_usd": 1_500})):
        r = httpx.put(f"{base}/api/v1/budget/{month}{q}", json=body, headers=admin)
        assert r.status_code == 200, r.text
    for who, name in ((_NLP, "nlp-embed"), (lone, "lone-embed")):
        _bert_planned(base, who, name, month)
    page, errors = _team_month(browser, base, tokens["admin"], "en", month)
    try:
        page.wait_for_selector("#plans td:text('nlp-embed')", timeout=60_000)
        page.click("#changes")
        page.wait_for_selector("#changestable tbody tr", timeout=60_000)

        def row(name: str) -> list[str]:
            cells: list[str] = (
                page.locator("#changestable tbody tr", has_text=name).first.locator("td").all_inner_texts()
            )
            return cells

        nlp, other = row("nlp-embed"), row("lone-embed")
        assert nlp[2] == "nlp" and nlp[5].startswith("$") and nlp[7].startswith("$"), nlp
        assert other[2] == "—" and other[5].startswith("¥") and other[7].startswith("¥"), other
        assert "1 USD = " in page.inner_text("#changesrate")
        # team nlp shown: its plans only
        page.fill("input[name=team]", "nlp")
        page.dispatch_event("input[name=team]", "change")
        page.wait_for_selector("#plans td:text('nlp')", timeout=60_000)
        page.click("#changes")
        page.wait_for_selector("#changestable tbody tr", timeout=60_000)
        teams = page.locator("#changestable tbody tr td:nth-child(3)").all_inner_texts()
        assert teams and set(teams) == {"nlp"}, teams
        assert page.locator("#changesrate").count() == 0  # no plan in yuan: no rate to name
        assert not errors, errors
    finally:
        page.close()


def test_a_plans_month_of_runs_is_said_by_part_under_the_saved_plans(
    server: tuple[str, dict[str, str]], browser: Any
) -> None:
    # 30 nightly runs on one monthly subscription were counted as 30 subscriptions, with nothing on
    # the page to say how the month's figure was made
    import httpx
    from serve_helpers import MONTHLY_QUOTE, nightly_workload

    base, tokens = server
    admin = {"Authorization": "Bearer " + tokens["admin"]}
    planner = {"Authorization": "Bearer " + tokens["plan"]}
    month = "2031-08"
    r = httpx.post(f"{base}/api/v1/catalog/import?format=gpuplan", json=MONTHLY_QUOTE, headers=admin)
    assert r.status_code == 200, r.text
    r = httpx.post(
        f"{base}/api/v1/workloads", json={"name": "nightly", "workload": nightly_workload()}, headers=planner
    )
    assert r.status_code == 201, r.text
    body = {"name": "nightly", "month": month, "runs_per_month": 30, "providers": ["volcengine"]}
    r = httpx.post(
        f"{base}/api/v1/plans", json={**body, "pricing": ["monthly"]}, headers=planner, timeout=120
    )
    assert r.status_code == 201, r.text
    r = httpx.put(f"{base}/api/v1/budget/{month}", json={"amount_cny": 500_000}, headers=admin)
    assert r.status_code == 200, r.text
    plans = httpx.get(f"{base}/api/v1/budget/{month}?lang=zh", headers=admin).json()["plans"]
    [line] = [p for p in plans if p["workload"] == "nightly"]
    assert line["month_note"].startswith("30 次运行：") and "¥" in line["month_note"], line["month_note"]
    page, errors = _team_month(browser, base, tokens["admin"], "zh", month)
    try:
        page.wait_for_selector("#monthnotes .monthnote", timeout=60_000)
        said = page.locator("#monthnotes .monthnote", has_text="nightly").all_inner_texts()
        # the Chinese page's colon is full-width
        assert said == [f"#{line['id']} nightly：{line['month_note']}"], said
        assert not errors, errors
    finally:
        page.close()


def test_a_month_of_unknown_cost_is_not_shown_as_nothing_spent(
    server: tuple[str, dict[str, str]], browser: Any
) -> None:
    # the team's only plan had no feasible option: the page read "Planned: $0.00 · Remaining:
    # $900.00", the whole budget left
    base, tokens = server
    page, errors = _team_month(browser, base, tokens["admin"], "en", UNKNOWN_MONTH)
    try:
        page.fill("input[name=team]", "nlp")
        page.dispatch_event("input[name=team]", "change")
        page.wait_for_function(
            "document.querySelector('#budgetcard .amount').textContent.includes('900.00')", timeout=60_000
        )
        # nor as resting on a stale price: it rests on none
        assert page.inner_text("#budgetcard .planned") + page.inner_text("#budgetcard .current") == "unknown"
        assert page.inner_text("#budgetcard .remaining") == "—"
        assert page.inner_text("#budgetcard .legend").startswith("1: plans whose cost is unknown")
        assert not errors, errors
    finally:
        page.close()


def test_an_older_load_answering_last_does_not_overwrite_the_newer_one(
    server: tuple[str, dict[str, str]], browser: Any
) -> None:
    # The whole service's month was asked for, then team nlp's; when the first answer came last it
    # was drawn over the second: the page showed the whole service's budget beside the team in the box.
    import httpx

    base, tokens = server
    admin = {"Authorization": "Bearer " + tokens["admin"]}
    month = "2032-03"
    for q, amount in (("", 1000), ("?team=nlp", 1500)):
        r = httpx.put(f"{base}/api/v1/budget/{month}{q}", json={"amount_usd": amount}, headers=admin)
        assert r.status_code == 200, r.text
    page, errors = _team_month(browser, base, tokens["admin"], "en", month)
    held: list[Any] = []
    try:
        page.wait_for_function(
            "document.querySelector('#budgetcard .amount').textContent.includes('1,000.00')", timeout=60_000
        )
        whole = f"/api/v1/budget/{month}?lang="
        page.route(lambda url: whole in url, lambda route: held.append(route))
        page.dispatch_event("input[name=month]", "change")  # the whole service's, held back
        page.fill("input[name=team]", "nlp")
        page.dispatch_event("input[name=team]", "change")
        page.wait_for_function(
            "document.querySelector('#budgetcard .amount').textContent.includes('1,500.00')", timeout=60_000
        )
        assert len(held) == 1, held
        with page.expect_response(lambda r: whole in r.url):
            held[0].continue_()
        page.wait_for_timeout(500)  # the older answer's drawing, had it been drawn
        assert "1,500.00" in page.inner_text("#budgetcard .amount")
        assert not errors, errors
    finally:
        page.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_service_that_counts_in_yuan_is_shown_in_yuan_without_a_budget_of_its_own(
    server: tuple[str, dict[str, str]], browser: Any, lang: str
) -> None:
    # Two teams budgeting in yuan, their plans made in yuan, no budget of the whole service: the
    # card read "Budget: no budget set · Planned: $3,754.11" and the saved plans "$3,121.62"; and the
    # budget's currency picker started at USD on the Chinese page.
    import httpx

    base, tokens = server
    admin = {"Authorization": "Bearer " + tokens["admin"]}
    month = "2031-10" if lang == "en" else "2031-11"
    for team, amount in (("rec", "5万"), ("support", 100_000)):
        who = {"Authorization": _YUAN_TEAMS[team]}
        name = f"{team}-{lang}"
        _bert_planned(base, who, name, month, currency="CNY")
        r = httpx.put(f"{base}/api/v1/budget/{month}?team={team}", json={"amount_cny": amount}, headers=admin)
        assert r.status_code == 200, r.text
    page, errors = _team_month(browser, base, tokens["admin"], lang, month)
    try:
        # the picker starts at the page language's currency
        assert page.input_value("select[name=amount_currency]") == ("CNY" if lang == "zh" else "USD")
        doc = httpx.get(f"{base}/api/v1/budget/{month}", headers=admin).json()
        assert doc["display_currency"] == "CNY" and doc["planned_cny"] is not None
        page.wait_for_selector(f"#plans td:text('rec-{lang}')", timeout=60_000)
        page.wait_for_function("document.querySelector('#budgetcard .planned').textContent.startsWith('¥')")
        assert page.inner_text("#budgetcard .planned") == f"¥{doc['planned_cny']:,.2f}"
        rows = [
            page.locator("#plans tbody tr", has_text=f"{team}-{lang}").first.inner_text()
            for team in ("rec", "support")
        ]
        assert all("¥" in row and "$" not in row for row in rows), rows
        assert "$" not in page.inner_text("#teams")
        assert not errors, errors
    finally:
        page.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_years_budget_is_said_beside_the_months_on_the_team_page(
    server: tuple[str, dict[str, str]], browser: Any, lang: str
) -> None:
    # ¥1,200,000 for the year could only be entered month by month: the card said nothing of the year
    import httpx

    base, tokens = server
    admin = {"Authorization": "Bearer " + tokens["admin"]}
    year, month = ("2033", "2033-02") if lang == "en" else ("2034", "2034-02")
    who = {"Authorization": _YUAN_TEAMS["rec"]}
    name = f"rec-year-{lang}"
    _bert_planned(base, who, name, f"{year}-01", currency="CNY")
    r = httpx.put(f"{base}/api/v1/budget/{year}", json={"amount_cny": 1_200_000}, headers=admin)
    assert r.status_code == 200, r.text
    doc = httpx.get(f"{base}/api/v1/budget/{month}", headers=admin).json()
    planned, left = doc["year_planned_cny"], doc["year_remaining_cny"]
    assert planned > 0 and left == round(1_200_000 - planned, 2), doc
    page, errors = _team_month(browser, base, tokens["admin"], lang, month)
    try:
        page.wait_for_function(
            "document.querySelector('#budgetcard .year').textContent.includes('1,200,000.00')", timeout=60_000
        )
        said = page.inner_text("#budgetcard .year")
        if lang == "en":
            want = f"Year {year}: budget ¥1,200,000.00 · planned ¥{planned:,.2f} · remaining ¥{left:,.2f}"
        else:
            want = f"{year} 年：预算 ¥1,200,000.00 · 计划支出 ¥{planned:,.2f} · 剩余 ¥{left:,.2f}"
        assert said == want, said
        assert not errors, errors
    finally:
        page.close()


def _refused_on_the_page(page: Any, button: str, typed: dict[str, str], refused: str) -> None:
    """``typed`` (a field's name → its text) in the team page's forms, ``button`` clicked: the error
    line says ``refused`` (the first refusal's line may still be shown: wait for the click's text)."""
    for name, text in typed.items():
        page.fill(f"input[name={name}]", text)
    page.evaluate("document.querySelector('#error').textContent = ''")
    page.click(button)
    page.wait_for_function("document.querySelector('#error').textContent.trim() !== ''", timeout=60_000)
    assert page.inner_text("#error") == refused


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_years_budget_is_set_on_the_team_page_and_a_teams_year_over_it_is_said(
    server: tuple[str, dict[str, str]], browser: Any, lang: str
) -> None:
    # The page had a form for a month's budget only: a year's was set with curl, and the whole
    # service's month said nothing of a team's year over its budget.
    import httpx

    from gpuplan.i18n import _, use_language

    base, tokens = server
    admin = {"Authorization": "Bearer " + tokens["admin"]}
    year = "2035" if lang == "en" else "2036"
    who = {"Authorization": _YUAN_TEAMS["rec"]}
    name = f"rec-yearform-{lang}"
    _bert_planned(base, who, name, f"{year}-01", currency="CNY")
    puts: list[str] = []
    page, errors = _team_month(browser, base, tokens["admin"], lang, f"{year}-01")
    page.on("request", lambda r: puts.append(r.url) if r.method == "PUT" else None)
    try:
        page.fill("input[name=team]", "rec")
        page.dispatch_event("input[name=team]", "change")
        # the year form's currency starts at the page's: yuan on the Chinese page
        currency = page.input_value("select[name=year_amount_currency]")
        assert currency == ("CNY" if lang == "zh" else "USD")
        # refused as the month's budget is, before anything is sent
        with use_language(lang):
            bad_year, bad_amount = (
                _("Give the year as YYYY, e.g. 2027."),
                _("Give the year's budget as a number, 0 or more (in yuan: more than 0)."),
            )
        _refused_on_the_page(page, "#setyearbudget", {"year": "27", "year_amount": "5"}, bad_year)
        for typed in ("", "-5"):
            _refused_on_the_page(page, "#setyearbudget", {"year": year, "year_amount": typed}, bad_amount)
        page.select_option("select[name=year_amount_currency]", "CNY")
        _refused_on_the_page(page, "#setyearbudget", {"year_amount": "0"}, bad_amount)  # ¥0: refused
        assert not puts, puts
        # ¥0.50 for the year (its plan is more): set, its figures and the note said under the form
        page.fill("input[name=year_amount]", "0.5")
        page.click("#setyearbudget")
        page.wait_for_function(
            "document.querySelector('#yearstatus').textContent.includes('0.50')", timeout=60_000
        )
        assert len(puts) == 1 and f"/api/v1/budget/{year}?team=rec" in puts[0], puts
        doc = httpx.get(f"{base}/api/v1/budget/{year}?team=rec&lang={lang}", headers=admin).json()
        assert (doc["currency"], doc["budget_cny"]) == ("CNY", 0.5) and doc["planned_cny"] > 0.5
        planned = f"¥{doc['planned_cny']:,.2f}"
        said = page.locator("#yearstatus").inner_text().splitlines()
        head = (
            f"Year {year}: budget ¥0.50 · planned {planned}"
            if lang == "en"
            else f"{year} 年：预算 ¥0.50 · 计划支出 {planned}"
        )
        assert said[0].startswith(head) and said[1:] == doc["notes"], said
        # the team's month shows its year's line beside it
        page.wait_for_function("document.querySelector('#budgetcard .year').textContent.includes('0.50')")
        assert page.inner_text("#budgetcard .year").startswith(head)
        # the whole service's month: the team's year over its budget, said among its notes
        page.fill("input[name=team]", "")
        page.dispatch_event("input[name=team]", "change")
        [note] = doc["notes"]
        page.wait_for_function(
            "(n) => document.querySelector('#budgetcard .budgetnotes').textContent.includes(n)",
            arg=note,
            timeout=60_000,
        )
        assert not errors, errors
    finally:
        page.close()
