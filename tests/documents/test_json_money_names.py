"""Every ``--json`` output, walked key by key: a schema version, integer counts, and money that
names its currency (and a price its unit), whatever ``--currency`` shows.

The rule for money, applied to every number (or null) in every document:

- a number's name is its key, and, when it is an entry of a map of numbers (``{"spot": 1.0}``),
  also the map's key (``cost_usd_by_pricing``);
- it holds money when a ``_``-separated word of a name is one of :data:`MONEY_WORDS` (``price``,
  ``cost``, ``spend``, ``saving(s)``, ``charge``, ``fee``, ``budget``, ``prepaid``, ``amount``;
  ``prices_imported`` counts prices, it is not one);
- it must then carry a currency token (``usd`` or ``cny``, as a ``_``-separated word) in a name,
  unless it is a ratio: a key ending ``_pct``, ``_percent``, ``_ratio`` or ``_fraction``;
- a price (a name with ``price``) also names its unit: ``_per_<unit>`` (``price_usd_per_hour``),
  or is the price of a whole term (``term_price_usd``, ``prepaid_total_cny``);
- :data:`NOT_MONEY` lists the maps whose keys are words, not fields (``excluded.budget`` counts
  candidates the budget left out).

Each command runs once on the shipped catalog (stand-in profiles, no tracing), in USD and in CNY
where it shows money, and a test checks that every command with ``--json`` is run here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer.main
from typer.testing import CliRunner

from gpuplan.cli import app, estimate_cmds
from stand_in_profiles import bert_large_profile

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
FIXTURES = ROOT / "tests" / "catalog" / "fixtures"

MONEY_WORDS = frozenset(
    {"price", "cost", "spend", "saving", "savings", "charge", "fee", "budget", "prepaid", "amount"}
)
CURRENCY = re.compile(r"(^|_)(usd|cny)(_|$)")
RATIO = re.compile(r"_(pct|percent|ratio|fraction)$")
#: Keys that count things: their values are integers.
COUNT = re.compile(r"(^|_)(count|candidates|feasible|nodes|units|imports|offers|prices|requests)$|^gpus_per_")
#: Maps of counts keyed by a reason, whose keys may be money words.
NOT_MONEY = {"excluded": "candidates left out, counted by their first reason (budget, deadline …)"}
#: Commands that write JSON without --json, run here too.
OTHER_JSON = {"catalog export": "--format json"}
#: Commands with --json that this test does not run, and why.
NOT_RUN = {
    "bench": "runs a real measurement (seconds of CPU); it shows no money",
    "measure": "runs real steps of a model (or replays a recording: tests/cli/test_measure_cli.py); no money",
    "catalog refresh": "reads the providers' price lists (test_catalog_discounts_history.py runs it on a "
    "provider without its key); counts and words, no money",
}

runner = CliRunner()


def _is_money(key: str) -> bool:
    return not MONEY_WORDS.isdisjoint(key.lower().split("_"))


def _leaves(doc: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any, bool]]:
    """(path of keys, value, whether it is an entry of a map of numbers) of every value that is not
    an object or a list, list indices left out of the path."""
    if isinstance(doc, dict):
        numeric = bool(doc) and all(_is_number(v) for v in doc.values())
        for k, v in doc.items():
            if isinstance(v, dict | list):
                yield from _leaves(v, (*path, str(k)))
            else:
                yield (*path, str(k)), v, numeric
    elif isinstance(doc, list):
        for v in doc:
            yield from _leaves(v, path)


def _numbers(doc: Any) -> list[tuple[tuple[str, ...], Any, bool]]:
    """The leaves that hold numbers: numbers, and nulls where the same key never holds text (a
    ``price_reason`` that is null here and a sentence there is text)."""
    leaves = list(_leaves(doc))
    texty = {path for path, value, _m in leaves if not _is_number(value)}
    return [(path, v, m) for path, v, m in leaves if _is_number(v) and path not in texty]


def _is_number(x: Any) -> bool:
    return x is None or (isinstance(x, int | float) and not isinstance(x, bool))


def money_problems(doc: Any) -> list[str]:
    """The money keys of ``doc`` that break the rule of the module docstring."""
    problems = set()
    for path, _value, in_map in _numbers(doc):
        if RATIO.search(path[-1]) or (in_map and len(path) > 1 and path[-2] in NOT_MONEY):
            continue
        names = path[-2:] if in_map and len(path) > 1 else path[-1:]
        if not any(_is_money(name) for name in names):
            continue
        where = ".".join(path)
        if not any(CURRENCY.search(name) for name in names):
            problems.add(f"{where}: money without a currency in its name")
        price = next((name for name in names if "price" in name), None)
        if price is not None and "_per_" not in price and not re.search(r"term|total", price):
            problems.add(f"{where}: a price without its unit (_per_hour, _per_month …)")
    return sorted(problems)


def count_problems(doc: Any) -> list[str]:
    """Counts written as non-whole numbers or as floats."""
    return sorted(
        {
            ".".join(path)
            for path, value, _in_map in _numbers(doc)
            if path and COUNT.search(path[-1]) and isinstance(value, float) and value == int(value)
        }
    )


def test_the_rule_catches_unnamed_money_and_lets_named_money_and_ratios_pass() -> None:
    bad = {
        "price_per_hour": 2.5,  # the offers document before schema 2
        "price_usd": 1800.0,  # plan schema 1: USD per price_unit_hours
        "monthly": [{"total_cost": 3.0, "cost_by_pricing": {"spot": 1.0}}],
        "price": None,
        "excluded": {"budget": 3},  # a count keyed by a reason: not money
    }
    assert money_problems(bad) == [
        "monthly.cost_by_pricing.spot: money without a currency in its name",
        "monthly.total_cost: money without a currency in its name",
        "price: a price without its unit (_per_hour, _per_month …)",
        "price: money without a currency in its name",
        "price_per_hour: money without a currency in its name",
        "price_usd: a price without its unit (_per_hour, _per_month …)",
    ]
    good = {
        "price_cny_per_month": 2500.0,
        "cost_usd_by_pricing": {"spot": 1.0},
        "cost_breakdown": {"egress_usd": 0.0},
        "savings_vs_baseline_pct": 12.0,
        "term": {"term_price_usd": 9.0, "prepaid_total_cny": 10.0},
        "price_source": "a page",  # text about money is not money
        "prices_imported": 3,  # a count of prices
    }
    assert money_problems(good) == []
    assert count_problems({"gpu_count": 8.0, "nodes": 2, "units": 0.5}) == ["gpu_count"]


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, Any]]]:
    """Each --json command's documents, by command name (``catalog history``), from one catalog."""
    d = tmp_path_factory.mktemp("json_money")
    db = ["--db", str(d / "catalog.sqlite")]
    profile = d / "bert.json"
    profile.write_text(bert_large_profile("json-money").to_json(), encoding="utf-8")
    bert = str(EXAMPLES / "bert-large-squad.yaml")
    llm = str(EXAMPLES / "llm-inference-service.yaml")
    plan_args = ["plan", bert, "--profile", str(profile), "--top", "3", "--json"]
    runs: dict[str, list[list[str]]] = {
        "gpus": [["gpus", "--json"], ["gpus", "--json", "--currency", "CNY"]],
        "offers": [["offers", "--json", "--all-regions"], ["offers", "--json", "--currency", "CNY"]],
        "catalog info": [["catalog", "info", "--json"]],
        "catalog discount list": [["catalog", "discount", "list", "--json"]],
        "catalog recordings list": [["catalog", "recordings", "list", "--json"]],
        "catalog history": [
            ["catalog", "history", "--instance", "GN7.2XLARGE32", "--json", "--currency", "CNY"],
            ["catalog", "history", "--instance", "p4d.24xlarge", "--json"],
        ],
        "catalog import": [
            [
                "catalog",
                "import",
                str(FIXTURES / "aws_vms_v8_gpu_sample.csv"),
                "--provider",
                "aws",
                "--as-of",
                "2026-11-30",
                "--json",
            ]
        ],
        "catalog imports": [["catalog", "imports", "--json"]],
        "plan": [plan_args, [*plan_args, "--currency", "CNY"]],
        "estimate": [["estimate", bert, "--gpu", "A100-SXM4-80GB", "--gpu", "T4", "--json"]],
        "tco": [
            ["tco", str(EXAMPLES / "tco" / "reserved-plus-spot.yaml"), "--json"],
            ["tco", str(EXAMPLES / "tco" / "alibaba-3y-subscription.yaml"), "--json", "--currency", "CNY"],
        ],
        "simulate autoscale": [
            [
                "simulate",
                "autoscale",
                llm,
                "--shape",
                "bursty",
                "--hours",
                "0.25",
                "--gpu",
                "L4",
                "--replica",
                "slots=64,tpot_ms=40,prefill_tps=3000",
                "--policy",
                "fixed:replicas=2",
                "--json",
                "--currency",
                "CNY",
            ],
        ],
        "simulate share": [
            ["simulate", "share", str(EXAMPLES / "simulate" / "services.yaml"), "--sharing", "mig", "--json"]
        ],
        "doctor": [["doctor", "--json"]],
        "serve token list": [["serve", "token", "list", "--json"]],
    }
    out: dict[str, list[dict[str, Any]]] = {}
    mp = pytest.MonkeyPatch()
    # estimate traces the model; the stand-in profile takes its place.
    mp.setattr(estimate_cmds, "load_profile", lambda *a, **kw: bert_large_profile("json-money"))
    try:
        for name, arg_lists in runs.items():
            for args in arg_lists:
                r = runner.invoke(app, [*db, *args])
                assert r.exit_code == 0, f"{args}: {r.output}"
                out.setdefault(name, []).append(json.loads(r.stdout))
        plan_file = d / "plan.json"
        plan_file.write_text(json.dumps(out["plan"][0]), encoding="utf-8")
        r = runner.invoke(app, [*db, "deploy", str(plan_file), "-t", "k8s", "-o", str(d / "k8s"), "--json"])
        assert r.exit_code == 0, r.output
        out["deploy"] = [json.loads(r.stdout)]
        r = runner.invoke(app, [*db, "catalog", "export", "--format", "json"])
        assert r.exit_code == 0, r.output
        out["catalog export"] = [json.loads(r.stdout)]
    finally:
        mp.undo()
    return out


def _json_commands() -> set[str]:
    found = set()

    def walk(command: Any, path: tuple[str, ...]) -> None:
        children = getattr(command, "commands", None)
        if children:
            for name, child in children.items():
                walk(child, (*path, name))
        elif any("--json" in p.opts for p in command.params):
            found.add(" ".join(path))

    walk(typer.main.get_command(app), ())
    return found


def test_every_json_command_is_walked(outputs: dict[str, list[dict[str, Any]]]) -> None:
    assert _json_commands() | set(OTHER_JSON) == set(outputs) | set(NOT_RUN)


def test_every_document_has_a_schema_version(outputs: dict[str, list[dict[str, Any]]]) -> None:
    for name, docs in outputs.items():
        for doc in docs:
            assert isinstance(doc, dict) and isinstance(doc.get("schema_version"), int), name


def test_every_money_field_names_its_currency_and_unit(outputs: dict[str, list[dict[str, Any]]]) -> None:
    problems = {name: p for name, docs in outputs.items() for doc in docs if (p := money_problems(doc))}
    assert problems == {}


def test_counts_are_integers(outputs: dict[str, list[dict[str, Any]]]) -> None:
    problems = {name: p for name, docs in outputs.items() for doc in docs if (p := count_problems(doc))}
    assert problems == {}


def test_money_fields_do_not_change_with_the_currency(outputs: dict[str, list[dict[str, Any]]]) -> None:
    # The same command in USD and in CNY writes the same numbers under the same keys (only the
    # display currency and the texts for people differ).
    for name in ("gpus", "plan"):
        usd, cny = outputs[name]
        assert usd["display_currency"] == "USD" and cny["display_currency"] == "CNY"
        assert list(_numbers(usd)) == list(_numbers(cny)), name
