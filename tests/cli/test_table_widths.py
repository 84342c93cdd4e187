"""Tables at 80, 100 and 120 columns (and piped): no line is wider, no identifier is cut or wrapped.

The offers, catalog info, simulate and tco tables pick the widest of their layouts that fits,
as the plan table does; identifiers (instance types, regions, policy names) stay whole on a line.
"""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len
from rich.console import Console
from typer.testing import CliRunner

from gpuplan.cli import app
from gpuplan.i18n import use_language
from gpuplan.i18n.places import place

ROOT = Path(__file__).resolve().parents[2]
TRACE = ROOT / "examples" / "simulate" / "load-bursty-2h-synthetic.csv"
WORKLOAD = ROOT / "examples" / "llm-inference-service.yaml"
FIXTURES = ROOT / "tests" / "catalog" / "fixtures"
WIDTHS = (80, 100, 120)
LANGS = ("en", "zh")

runner = CliRunner()


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("widths") / "gpuplan.sqlite"
    res = runner.invoke(app, ["--db", str(path), "catalog", "info"])
    assert res.exit_code == 0, res.output
    return path


@pytest.fixture
def db(seeded: Path, tmp_path: Path) -> str:
    copy = tmp_path / "gpuplan.sqlite"
    shutil.copy(seeded, copy)
    return str(copy)


def _lines(args: list[str], width: int) -> list[str]:
    res = runner.invoke(app, args, env={"COLUMNS": str(width)}, catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return res.stdout.splitlines()


def _assert_fits_and_whole(lines: list[str], width: int, identifiers: set[str]) -> None:
    widest = max(lines, key=cell_len)
    assert cell_len(widest) <= width, widest
    # Rich marks a cut cell with "…"; the catalog's date ranges are written "from … to".
    assert "…" not in "\n".join(lines).replace(" … ", " ~ ")
    cut = sorted(i for i in identifiers if not any(i in line for line in lines))
    assert not cut, f"cut or wrapped at {width} columns: {cut}"


#: The whole market (8,000 offers, ~10 s of table rendering) once, at the narrowest console in the
#: wider script; the other width x language pairs on every H100 offer (450 rows from 19 providers).
_OFFER_CASES = [
    (width, lang, () if (width, lang) == (80, "zh") else ("--gpu", "h100"))
    for width in WIDTHS
    for lang in LANGS
]


@pytest.mark.parametrize(("width", "lang", "subset"), _OFFER_CASES)
def test_offers_fit_and_keep_every_instance_type_and_region_whole(
    db: str, width: int, lang: str, subset: tuple[str, ...]
) -> None:
    args = ["--db", db, "offers", "--all-regions", "--lang", lang, "--currency", "CNY", *subset]
    doc = json.loads(runner.invoke(app, [*args, "--json"]).stdout)
    with use_language(lang):  # the catalog's "unspecified" region is shown in the language
        ids = {o["instance_type"] for o in doc["offers"]} | {
            place(o["provider"], o["region"]) for o in doc["offers"]
        }
    assert len(ids) > 40
    _assert_fits_and_whole(_lines(args, width), width, ids)


def test_offers_use_one_line_per_offer_when_the_console_is_wide(db: str) -> None:
    lines = _lines(["--db", db, "offers", "--provider", "aws"], 400)
    doc = json.loads(runner.invoke(app, ["--db", db, "offers", "--provider", "aws", "--json"]).stdout)
    # header, rule, one line per offer, then the count, the rate line, each reason for an unknown
    # price that several offers share, once per provider, why a spot row's interruption rate is
    # unknown, how many low-confidence prices were left out, and that an undated spot price is
    # shown at its region's dated one
    unknown = [ln for ln in lines if ln.startswith("Spot interruption rate unknown (")]
    assert len(unknown) == any(
        o["pricing"] == "spot" and o["interruption_band"] is None for o in doc["offers"]
    )
    reasons = [
        o["price_reason"] for o in doc["offers"] if o["price_usd_per_hour"] is None and o["price_reason"]
    ]
    shared = {r for r in reasons if reasons.count(r) > 1}
    notes = [ln for ln in lines if ln.startswith("note ")]
    assert len(notes) == len(shared)
    left_out = [ln for ln in lines if "low-confidence prices left out" in ln or "shown, and ranked" in ln]
    floored = any(
        "listed" in ln and "as plans cost it" in ln for ln in lines
    )  # an offer shown at its region's dated spot price
    assert len(left_out) == (doc["low_confidence_left_out"] > 0) + floored
    assert len(lines) == 2 + len(doc["offers"]) + 2 + len(notes) + len(unknown) + len(left_out)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("width", WIDTHS)
def test_catalog_info_fits_and_keeps_pricing_codes_whole(db: str, width: int, lang: str) -> None:
    lines = _lines(["--db", db, "catalog", "info", "--lang", lang], width)
    codes = {"reserved_3y", "on_demand", "volcengine", "2026-09-06"} if lang == "en" else {"volcengine"}
    _assert_fits_and_whole(lines, width, codes)


POLICIES = ("fixed:replicas=4", "target:target=0.7,max=10", "queue:per_replica=48,max=10,spot=0.5")


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("width", WIDTHS)
def test_simulate_policies_fit_with_whole_policy_names(width: int, lang: str) -> None:
    args = ["simulate", "autoscale", str(WORKLOAD), "--shape", "step", "--rate", "2", "--hours", "0.5"]
    args += ["--replica", "slots=64,tpot_ms=40,prefill_tps=3000", "--on-demand-price", "0.7"]
    args += ["--spot-price", "0.3", "--lang", lang]
    for p in POLICIES:
        args += ["--policy", p]
    _assert_fits_and_whole(_lines(args, width), width, set(POLICIES))


def test_piped_output_without_columns_is_120_wide_at_most(db: str) -> None:
    res = runner.invoke(app, ["--db", db, "offers", "--all-regions", "--gpu", "h100"], catch_exceptions=False)
    assert max(cell_len(line) for line in res.stdout.splitlines()) <= 120


@pytest.mark.parametrize("width", WIDTHS)
def test_price_history_fits_with_whole_regions_and_dates(db: str, width: int) -> None:
    lines = _lines(["--db", db, "catalog", "history", "--instance", "p5.48xlarge", "--lang", "zh"], width)
    _assert_fits_and_whole(lines, width, {"p5.48xlarge", "us-east-1", "2025-11-30", "2026-01-21–2026-12-02"})


@pytest.mark.parametrize("width", [80, 200])
def test_price_history_keeps_each_source_whole_with_its_line(db: str, width: int) -> None:
    # The source was cut at 60 characters: the commit, line and date a reader follows were lost.
    text = " ".join(_lines(["--db", db, "catalog", "history", "--instance", "g5.xlarge"], width))
    assert re.search(r"@00148f2,\s+line\s+\d+", text), text[:1500]  # folded at 80, whole


def _table_characters(table: object) -> Counter[str]:
    """Every character of a Rich table's header and cells but spaces (the ones a wrap may drop)."""
    from rich.table import Table

    assert isinstance(table, Table), table
    out: Counter[str] = Counter()
    for column in table.columns:
        for cell in [column.header, *column.cells]:
            assert isinstance(cell, str), cell
            out.update(ch for ch in cell if not ch.isspace())
    return out


#: offers whose notes hold the price's age and a long price: cut at the console's edge at 80
#: columns in both languages ("age unknown (up" / "y)"; "过期（2." / "度", "$900.00/").
_KEPT_CASES = [
    (["offers", "--gpu", "H100-SXM", "--pricing", "spot"], "en"),
    (["offers", "--gpu", "A100", "--provider", "tencent", "--currency", "CNY"], "zh"),
    (["offers", "--gpu", "A100", "--provider", "tencent", "--currency", "CNY"], "en"),
    (["gpus"], "en"),
    (["gpus"], "zh"),
]


@pytest.mark.parametrize("width", [60, 80])
@pytest.mark.parametrize(("args", "lang"), _KEPT_CASES)
def test_every_character_of_every_cell_is_printed(
    db: str, width: int, args: list[str], lang: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gpuplan.report import common

    shown: list[object] = []
    layout = common.Widest.__rich_console__

    def recorded(self: common.Widest, console: Any, options: Any) -> Any:
        for part in layout(self, console, options):
            shown.append(part)
            yield part

    monkeypatch.setattr(common.Widest, "__rich_console__", recorded)
    lines = _lines(["--db", db, *args, "--lang", lang], width)
    assert max(cell_len(line) for line in lines) <= width
    (table,) = shown
    # the table is printed first; the notes under it (which may repeat its characters) are left out
    console = Console(width=width, markup=False, emoji=False)
    height = len(console.render_lines(table, console.options, pad=False))  # type: ignore[arg-type]
    printed = Counter(ch for line in lines[:height] for ch in line if not ch.isspace())
    lost = _table_characters(table) - printed
    assert not lost, f"cut at {width} columns: {dict(lost)}\n" + "\n".join(lines[:40])
