"""The dashboard: six pages served by the API's own process, in English or Chinese.

Each page is a small HTML shell (its words from the gettext catalog, like the CLI's) and one
script (``static/app.js``) that calls the API with the token the user pasted (kept in the
browser's ``localStorage``, sent as ``Authorization: Bearer``, never in a URL). The plan page shows
the CLI's own HTML report (``report/plan_html.py``); the charts use the report's plotly.js basic bundle.
"""

from __future__ import annotations

import html
import json
from functools import cache
from pathlib import Path
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from gpuplan.i18n import N_, _, use_language
from gpuplan.web.auth import request_language

__all__ = ["PAGES", "router"]

router = APIRouter(include_in_schema=False)
_STATIC = Path(__file__).parent / "static"

#: The pages, in menu order: path name → title.
PAGES = {
    "offers": N_("Offers"),
    "plan": N_("Plan"),
    "history": N_("Price history"),
    "tco": N_("TCO"),
    "simulate": N_("Simulate"),
    "team": N_("Team plans and budget"),
}

#: Words the script shows (translated into the page as a JSON object).
_SCRIPT_WORDS = (
    N_("Provider"),
    N_("Region"),
    N_("Instance"),
    N_("GPU"),
    N_("Pricing"),
    N_("Price/h"),
    N_("Price/GPU·h"),
    N_("Costed at/h"),
    N_("As of"),
    N_("Confidence"),
    N_("Country"),
    N_("Offers"),
    N_("Cheapest GPU-hour"),
    N_("unknown"),
    N_("Paste a token first (gpuplan serve token create)."),
    N_("queued"),
    N_("running"),
    N_("done"),
    N_("failed"),
    N_("Recommended"),
    N_("Total cost"),
    N_("Job time"),
    N_("Workload"),
    N_("Version"),
    N_("Month"),
    N_("Cost then"),
    N_("Cost now"),
    N_("Change"),
    N_("Today's best"),
    N_("Who"),
    N_("When"),
    N_("Status"),
    N_("Cancel"),
    N_("Budget"),
    N_("Planned"),
    N_("Remaining"),
    # the planned spend with each plan on a stale or undated price at its best option on prices
    # known to be current (the budget's planned_current_usd)
    N_("On current prices"),
    N_("no option on current prices"),
    N_("no budget set"),
    # a saved plan's month cost: a service's autoscaled day or its peak fleet (the plan's own words)
    N_("Priced as"),
    N_("saved"),
    N_("already saved, unchanged"),
    N_("Saved by"),
    N_("Total over the horizon"),
    # beside that total where spot or commitment prices not known to be current, left out of it,
    # would lower it (the tco headline's), {kind} one of the three below
    N_("{cheaper} with {n} {kind} stale or of unknown age, left out of it as they may have changed"),
    N_("at {n} {kind} stale or of unknown age; without them the demand cannot be met"),
    N_("spot price(s)"),
    N_("commitment price(s)"),
    N_("spot and commitment price(s)"),
    N_("All on-demand"),
    N_("Savings"),
    N_("hours"),
    N_("Note"),
    N_("Kind"),
    N_("Commitment"),
    N_("no prices for this instance"),
    N_("dots: offers per country; colour: cheapest GPU-hour (green cheap, red dear)"),
    N_("no map: this server has no time zone table to place countries"),
    N_("plans whose cost is unknown are not counted"),
    # the remaining budget where plans of unknown cost are not counted in it
    N_("at most {amount}"),
    # the year's budget beside the month's, in the year budget's currency
    N_("Year {year}: budget {budget} · planned {planned} · remaining {remaining}"),
    N_("Exchange rate"),
    N_(
        "Costs in yuan: cost now and today's best at this rate; cost then at the rate each plan was "
        "priced at, as its budget counts it."
    ),
    N_("Give the month's budget as a number, 0 or more (in yuan: more than 0)."),
    # the year's budget form (PUT /api/v1/budget/YYYY), refused as the month's is before anything is sent
    N_("Give the year's budget as a number, 0 or more (in yuan: more than 0)."),
    N_("Give the year as YYYY, e.g. 2027."),
    N_("Policy"),
    N_("Cost"),
    N_("Replica-hours"),
    N_("Latency p50"),
    N_("Latency p95"),
    N_("Latency p99"),
    N_("SLO misses"),
    N_("Dropped"),
    N_("Interruptions"),
    N_("Most replicas"),
    N_("SLOs"),
    N_("Target"),
    N_("Achieved"),
    N_("met"),
    N_("missed"),
    N_("Trace"),
    N_("requests"),
    N_("synthetic"),
    N_("recorded"),
    N_("Replica"),
    N_("slots"),
    N_("Prices per replica-hour"),
    N_("Spot reclaims per hour"),
    N_("Price source"),
    N_("your own figure"),
    N_("Best known-current price"),
    N_("none in the catalog"),
    N_("Paste a trace CSV or choose a file, or pick a generated shape."),
    # a price's age where it is not known to be current, in the words of `gpuplan offers`
    N_("stale ({age})"),
    N_("age unknown (up to {age})"),
    N_("age unknown (at most {age}: the {gpu} launched {launched})"),
    N_("stale"),
    N_("{n} d"),
    N_("{n} mo"),
    N_("{n} y"),
    N_("Prices as of"),
    N_("date unknown"),
    # a price-history point whose price is dated only as a range
    N_("dated {range}: drawn at its latest day"),
    # a saved plan's status
    N_("planned"),
    N_("cancelled"),
    # a saved plan whose workload was planned again for the month since (the newer one is counted)
    N_("replaced"),
    # while today's prices of the saved plans are checked (each is planned again)
    N_("Checking today's prices of the saved plans ({n})…"),
    # a commitment the tco solver bought: its start month and term
    N_("from {month}, {n} months"),
    # how many times a saved plan's workload runs in its month (nightly: 30), and what that costs
    # (the saved plans' columns, and the plan form's field)
    N_("Runs in the month"),
    N_("Month's cost"),
    # a month's budget and plans: one team's (as its tokens are made with), or the whole service's
    N_("Team"),
)


#: The form's words (written inside the markup below, where the extractor cannot see them).
_FORM_WORDS = (
    N_("API token"),
    N_("Batch size per GPU"),
    N_("Budget currency"),
    N_("Check today's prices"),
    N_("Currency"),
    N_("Deadline"),
    N_("Epochs"),
    N_("Number of GPUs"),
    N_("Hours per month"),
    N_("Interruptible (spot)"),
    N_("Map by country"),
    N_("Max price/h"),
    N_("Model preset"),
    N_("Months"),
    N_("Name"),
    N_("Plan report"),
    N_("Precision"),
    N_("Price changes"),
    N_("Providers"),
    N_("Samples"),
    N_("Save plan for the month"),
    N_("Save workload"),
    N_("Saved plans"),
    N_("whole service"),
    N_("Saved workload"),
    N_("Saved workloads"),
    N_("Search"),
    N_("Sequence length"),
    N_("Set budget"),
    N_("Set year budget"),
    N_("Year"),
    N_("Year's budget"),
    N_("Show"),
    N_("Solve"),
    N_("Start"),
    N_("Task"),
    N_("Image size"),
    N_("Requests per second"),
    N_("Prompt tokens"),
    N_("Output tokens"),
    N_("Load"),
    N_("Hours"),
    N_("Generated: diurnal"),
    N_("Generated: bursty"),
    N_("Generated: step"),
    N_("Trace CSV (below)"),
    N_("Trace CSV"),
    N_("Trace file"),
    N_("Instance type"),
    N_("Policies, one per line"),
    N_("Latency targets (SLOs)"),
    N_("Replica figures instead of the estimate"),
    N_("Engine settings"),
    N_("Price currency"),
    N_("On-demand price/h"),
    N_("Spot price/h"),
    N_("Spot notice, s"),
    N_("Timeout, s"),
    N_("Seed"),
)


@cache
def _asset(name: str) -> bytes:
    if name == "plotly.js":
        # The HTML report's own file, plotly.js's basic bundle (1.2 MB, not the 4.8 MB full one): the
        # dashboard's charts are scatter lines (price history) and stacked bars (tco), both in it.
        from gpuplan.report.plan_charts import plotly_js

        return plotly_js().encode("utf-8")
    return (_STATIC / name).read_bytes()


_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}


@router.get("/static/{name}")
def static(request: Request, name: str) -> Response:
    if name not in ("app.js", "app.css", "plotly.js"):
        with use_language(request_language(request)):
            raise HTTPException(status_code=404, detail=_("no file {name}").format(name=name))
    return Response(
        _asset(name), media_type=_TYPES[Path(name).suffix], headers={"Cache-Control": "max-age=3600"}
    )


@router.get("/")
def home(request: Request) -> RedirectResponse:
    lang = request.query_params.get("lang")
    return RedirectResponse(
        f"/ui/offers?lang={lang}" if lang in ("en", "zh") else "/ui/offers", status_code=307
    )


def _presets() -> list[str]:
    from gpuplan.workload.presets.registry import PRESETS

    return list(PRESETS)


def _body(page: str) -> str:
    """The page's own controls (the script fills in the rest)."""
    e = html.escape
    L = _labels()
    if page == "offers":
        from gpuplan.vocab import pricing_name

        pricing = "".join(f'<option value="{p}">{e(pricing_name(p))}</option>' for p in _pricing())
        return f"""
<form id="filters" class="bar">
  <label>{L["GPU"]} <input name="gpu" placeholder="H100, a100, L4" size="10"></label>
  <label>{L["Provider"]} <input name="provider" placeholder="aws, alibaba" size="9"></label>
  <label>{L["Pricing"]} <select name="pricing"><option value="">—</option>{pricing}</select></label>
  <label>{L["Currency"]} {_currencies("currency")}</label>
  <label>{L["Max price/h"]} <input name="max_price" type="number" min="0" step="any" size="6"></label>
  <button type="submit" id="search">{L["Search"]}</button>
</form>
<section><h2>{L["Map by country"]}</h2><div id="map" class="map"></div></section>
<section><h2>{L["Offers"]} <small id="count"></small></h2><div id="table" class="scroll"></div>
<p id="rate" class="legend"></p></section>"""
    if page == "plan":
        options = "".join(f'<option value="{p}">{p}</option>' for p in _presets())
        return f"""
<form id="planform" class="grid">
  <label>{L["Saved workload"]} <select name="saved"><option value="">—</option></select></label>
  <label>{L["Name"]} <input name="name" value="my-job" required></label>
  <label>{L["Model preset"]} <select name="preset">{options}</select></label>
  <label>{L["Task"]} <select name="task"><option>train</option><option>finetune</option><option>infer</option></select></label>
  <label>{L["Batch size per GPU"]} <input name="batch_size" type="number" min="1" value="32"></label>
  <label>{L["Sequence length"]} <input name="seq_len" type="number" min="1" placeholder="—"></label>
  <label>{L["Image size"]} <input name="image_size" type="number" min="1" placeholder="224"></label>
  <label>{L["Precision"]} <select name="precision"><option>amp-bf16</option><option>amp-fp16</option><option>bf16</option><option>bf16-master</option><option>fp16-master</option><option>fp32</option><option>tf32</option></select></label>
  <label>{L["Samples"]} <input name="samples" type="number" min="1" value="1281167"></label>
  <label>{L["Epochs"]} <input name="epochs" type="number" min="1" value="1"></label>
  <label>{L["Deadline"]} <input name="deadline" placeholder="12h, 2d"></label>
  <label>{L["Budget"]} <input name="budget" type="number" min="0" step="any"></label>
  <label>{L["Budget currency"]} {_currencies("budget_currency")}</label>
  <label>{L["Providers"]} <input name="providers" placeholder="aws,gcp,alibaba"></label>
  <label>{L["Currency"]} {_currencies("currency")}</label>
  <label>{L["Month"]} <input name="month" type="month"></label>
  <label>{L["Runs in the month"]} <input name="runs_per_month" type="number" min="1" max="744" value="1"></label>
  <div class="buttons">
    <button type="submit" id="plan">{L["Plan"]}</button>
    <button type="button" id="saveworkload">{L["Save workload"]}</button>
    <button type="button" id="saveplan">{L["Save plan for the month"]}</button>
  </div>
</form>
<div id="status" class="status" role="status"></div>
<div id="summary"></div>
<iframe id="report" title="{L["Plan report"]}" sandbox="allow-scripts"></iframe>"""
    if page == "history":
        return f"""
<form id="historyform" class="bar">
  <label>{L["Instance"]} <input name="instance" value="p4d.24xlarge" required></label>
  <label>{L["Region"]} <input name="region" placeholder="—"></label>
  <label>{L["Currency"]} {_currencies("currency")}</label>
  <button type="submit" id="show">{L["Show"]}</button>
</form>
<div id="chart" class="chart"></div><div id="table" class="scroll"></div><p id="rate" class="legend"></p>"""
    if page == "tco":
        return f"""
<form id="tcoform" class="grid">
  <label>{L["Months"]} <input name="horizon_months" type="number" min="1" max="120" value="36"></label>
  <label>{L["Start"]} <input name="start" type="month" value="2027-01"></label>
  <label>{L["Providers"]} <input name="providers" value="aws,azure,gcp"></label>
  <label>{L["GPU"]} <input name="gpu" value="A100-SXM4-40GB"></label>
  <label>{L["Number of GPUs"]} <input name="gpus" type="number" min="1" value="8"></label>
  <label>{L["Hours per month"]} <input name="hours" type="number" min="1" max="744" value="730"></label>
  <label>{L["Interruptible (spot)"]} <input name="interruptible" type="checkbox"></label>
  <div class="buttons"><button type="submit" id="tco">{L["Solve"]}</button></div>
</form>
<div id="summary"></div><div id="chart" class="chart"></div><div id="table" class="scroll"></div>"""
    if page == "simulate":
        return _simulate_body()
    return f"""
<form id="budgetform" class="bar">
  <label>{L["Month"]} <input name="month" type="month" required></label>
  <label>{L["Team"]} <input name="team" maxlength="64" placeholder="{L["whole service"]}"></label>
  <label>{L["Budget"]} <input name="amount" type="number" min="0" step="any"></label>
  <label>{L["Budget currency"]} {_currencies("amount_currency")}</label>
  <button type="button" id="setbudget">{L["Set budget"]}</button>
</form>
<form id="yearbudgetform" class="bar">
  <label>{L["Year"]} <input name="year" inputmode="numeric" pattern="[0-9]{{4}}" maxlength="4" size="5" required></label>
  <label>{L["Year's budget"]} <input name="year_amount" type="number" min="0" step="any"></label>
  <label>{L["Budget currency"]} {_currencies("year_amount_currency")}</label>
  <button type="button" id="setyearbudget">{L["Set year budget"]}</button>
</form>
<div id="yearstatus" class="status" role="status"></div>
<section><h2>{L["Budget"]}</h2><div id="budget"></div><div id="teams" class="scroll"></div></section>
<section><h2>{L["Saved plans"]}</h2><div id="plans" class="scroll"></div><div id="monthnotes" role="note"></div></section>
<section><h2>{L["Price changes"]} <button type="button" id="changes">{L["Check today's prices"]}</button></h2>
<div id="changestable" class="scroll"></div></section>
<section><h2>{L["Saved workloads"]}</h2><div id="workloads" class="scroll"></div></section>"""


def _default_currency() -> str:
    """The currency a page's pickers start at: yuan on a Chinese page (its reader counts in yuan),
    US dollars on an English one; the other is one choice away."""
    from gpuplan.i18n.messages import Language, current_language

    return "CNY" if current_language() == Language.ZH else "USD"


def _currencies(name: str) -> str:
    """A currency picker named ``name``: USD and CNY, the page language's (:func:`_default_currency`)
    chosen."""
    chosen = _default_currency()
    options = "".join(f"<option{' selected' if c == chosen else ''}>{c}</option>" for c in ("USD", "CNY"))
    return f'<select name="{name}">{options}</select>'


def _decoder_presets() -> list[str]:
    """The presets a replica can be estimated for: decoder LLMs (KV cache, decode steps)."""
    from gpuplan.workload.presets.registry import PRESETS

    return [name for name, info in PRESETS.items() if info.family == "decoder"]


def _simulate_body() -> str:
    """The simulate page: an inference workload (a saved one, else a preset's), its load (a generated shape or a trace CSV),
    the policies to compare, latency targets and the replica's, prices' and spot's options."""
    L = _labels()
    options = "".join(
        f'<option value="{p}"{" selected" if p == "gpt2" else ""}>{p}</option>' for p in _decoder_presets()
    )
    shapes = "".join(
        f'<option value="{v}">{L[w]}</option>'
        for v, w in (
            ("diurnal", "Generated: diurnal"),
            ("bursty", "Generated: bursty"),
            ("step", "Generated: step"),
            ("csv", "Trace CSV (below)"),
        )
    )
    return f"""
<form id="simform" class="grid">
  <label>{L["Saved workload"]} <select name="saved"><option value="">—</option></select></label>
  <label>{L["Model preset"]} <select name="preset">{options}</select></label>
  <label>{L["Precision"]} <select name="precision"><option>bf16</option><option>fp16</option><option>fp32</option></select></label>
  <label>{L["Requests per second"]} <input name="rate" type="number" min="0" step="any" value="2"></label>
  <label>{L["Prompt tokens"]} <input name="prompt_tokens" type="number" min="1" value="512"></label>
  <label>{L["Output tokens"]} <input name="output_tokens" type="number" min="1" value="256"></label>
  <label>{L["Load"]} <select name="shape">{shapes}</select></label>
  <label>{L["Hours"]} <input name="hours" type="number" min="0" step="any" value="24"></label>
  <label>{L["GPU"]} <input name="gpu" value="L4"></label>
  <label>{L["Instance type"]} <input name="instance" placeholder="g6.xlarge"></label>
  <label class="wide">{L["Policies, one per line"]} <textarea name="policies" rows="3">fixed:replicas=2
target:target=0.7,max=6</textarea></label>
  <label>{L["Latency targets (SLOs)"]} <input name="slo" placeholder="ttft_p95=2s,tpot_p95=80ms"></label>
  <label>{L["Replica figures instead of the estimate"]} <input name="replica" placeholder="slots=64,tpot_ms=40,prefill_tps=3000"></label>
  <label>{L["Engine settings"]} <input name="engine" placeholder="max_num_seqs=128"></label>
  <label>{L["Price currency"]} {_currencies("currency")}</label>
  <label><span>{L["On-demand price/h"]}, <span class="price-currency">{_default_currency()}</span></span> <input name="on_demand_price" type="number" min="0" step="any"></label>
  <label><span>{L["Spot price/h"]}, <span class="price-currency">{_default_currency()}</span></span> <input name="spot_price" type="number" min="0" step="any"></label>
  <label>{L["Spot reclaims per hour"]} <input name="spot_rate" type="number" min="0" step="any"></label>
  <label>{L["Spot notice, s"]} <input name="spot_notice_s" type="number" min="0" step="any" value="30"></label>
  <label>{L["Timeout, s"]} <input name="timeout_s" type="number" min="0" step="any" value="120"></label>
  <label>{L["Seed"]} <input name="seed" type="number" min="0" value="0"></label>
  <label>{L["Trace file"]} <input name="trace_file" type="file" accept=".csv,text/csv"></label>
  <label class="wide">{L["Trace CSV"]} <textarea name="trace_csv" rows="3" placeholder="timestamp,prompt_tokens,output_tokens"></textarea></label>
  <div class="buttons"><button type="submit" id="simulate">{L["Simulate"]}</button></div>
</form>
<div id="status" class="status" role="status"></div>
<div id="summary"></div><div id="table" class="scroll"></div><div id="slos" class="scroll"></div>"""


def _labels() -> dict[str, str]:
    """Every word of the pages, translated and escaped for HTML, by its English text."""
    words = (*PAGES.values(), *_SCRIPT_WORDS, *_FORM_WORDS)
    return {w: html.escape(_(w)) for w in words}


def _pricing() -> list[str]:
    from gpuplan.vocab import PricingModel

    return list(PricingModel.values())


def _code_words() -> dict[str, str]:
    """The catalog's codes the script shows, in the page's language: a pricing model as tables
    name it (by its code, ``on_demand``) and in words (``pricing:on_demand``, for sentences), and a
    price's confidence (``confidence:secondary``). The API's answers keep the codes."""
    from gpuplan.vocab import PRICING_RULES, Confidence, confidence_name, pricing_name

    names = {p: pricing_name(p) for p in _pricing()}
    labels = {f"pricing:{p}": _(PRICING_RULES[p].label) for p in _pricing()}
    return names | labels | {f"confidence:{c}": confidence_name(c) for c in Confidence.values()}


def _page(page: str, lang: str) -> str:
    other = "zh" if lang == "en" else "en"
    L = _labels()
    nav = "".join(
        f'<a href="/ui/{name}?lang={lang}"{" aria-current=page" if name == page else ""}>{L[title]}</a>'
        for name, title in PAGES.items()
    )
    script_words = {w: _(w) for w in _SCRIPT_WORDS} | _code_words()
    words = json.dumps(script_words, ensure_ascii=False).replace("</", "<\\/")
    return f"""<!doctype html>
<html lang="{"zh-CN" if lang == "zh" else "en"}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>gpuplan · {L[PAGES[page]]}</title><link rel="icon" href="data:,">
<link rel="stylesheet" href="/static/app.css"></head>
<body data-page="{page}" data-lang="{lang}">
<header><strong class="brand">gpuplan</strong><nav>{nav}</nav>
<div class="who"><input id="token" type="password" autocomplete="off" placeholder="{L["API token"]}"
 aria-label="{L["API token"]}"><a id="lang" href="/ui/{page}?lang={other}">{"English" if lang == "zh" else "中文"}</a></div>
</header>
<main><h1>{L[PAGES[page]]}</h1><div id="error" class="error" role="alert" hidden></div>{_body(page)}</main>
<script>window.T = {words};</script>
<script src="/static/plotly.js" defer></script><script src="/static/app.js" defer></script>
</body></html>"""


@router.get("/ui/{page}", response_class=HTMLResponse)
def page(request: Request, page: str) -> HTMLResponse:
    lang = request_language(request)
    if page not in PAGES:
        with use_language(lang):
            raise HTTPException(status_code=404, detail=_("no page {page}").format(page=page))
    with use_language(lang):
        text = _page(page, lang)
    return HTMLResponse(text, headers=SECURITY_HEADERS)


#: The pages load only their own scripts and the API of the same origin.
SECURITY_HEADERS: dict[str, Any] = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self' 'unsafe-inline' 'unsafe-eval'; "
    "style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-src 'self' about: data:; "
    "connect-src 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
