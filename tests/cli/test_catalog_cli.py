"""CLI: gpus, offers, catalog import|export|info, error lines and exit codes, no torch import."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gpuplan.catalog import PROVIDERS, open_store
from gpuplan.catalog.revisions import HEAD_REVISION
from gpuplan.cli import app
from gpuplan.errors import CatalogImportError, DataError, NotFoundError

FIXTURES = Path(__file__).resolve().parents[1] / "catalog" / "fixtures"
runner = CliRunner()


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli") / "seeded.sqlite"
    open_store(str(path)).close()
    return path


@pytest.fixture
def db(seeded: Path, tmp_path: Path) -> str:
    path = tmp_path / "gpuplan.sqlite"
    shutil.copy(seeded, path)
    return str(path)


def _offers(stdout: str) -> list[dict[str, Any]]:
    doc = json.loads(stdout)
    assert doc["schema_version"] == 3
    items: list[dict[str, Any]] = doc["offers"]
    return items


def test_offers_json_contract(db: str) -> None:
    result = runner.invoke(app, ["--db", db, "offers", "--json", "--all-regions"])
    assert result.exit_code == 0, result.output
    items = _offers(result.stdout)
    required = {
        "provider",
        "region",
        "zone",
        "instance_type",
        "gpu",
        "gpu_count",
        "vcpus",
        "memory_gib",
        "pricing",
        "published_currency",
        "published_unit",
        "price_usd_per_hour",
        "price_usd_per_gpu_hour",
        "price_cny_per_hour",
        "price_cny_per_gpu_hour",
        "price_usd_per_month",
        "price_cny_per_month",
        "as_of",
        "source",
        "stale",
        "price_reason",
    }
    assert all(required <= set(item) for item in items)
    assert {i["provider"] for i in items} == set(PROVIDERS)
    priced = [i for i in items if i["pricing"] is not None]
    assert len({i["pricing"] for i in priced}) >= 4
    assert all(i["price_usd_per_hour"] > 0 and i["as_of"] and i["source"] for i in priced)
    assert all(i["price_usd_per_hour"] is None and i["price_reason"] for i in items if i["pricing"] is None)


def test_ambiguous_family_lists_every_variant(db: str) -> None:
    result = runner.invoke(app, ["--db", db, "offers", "--gpu", "a100", "--json"])
    assert result.exit_code == 0, result.output
    gpus = {i["gpu"] for i in _offers(result.stdout)}
    assert {"A100-SXM4-40GB", "A100-SXM4-80GB", "A100-PCIE-80GB"} <= gpus


@pytest.mark.parametrize(("name", "family"), [("H10", "H100"), ("h100-sx", "H100-SXM"), ("A10:8", None)])
def test_a_piece_of_a_gpu_name_is_refused_not_widened(tmp_path: Path, name: str, family: str | None) -> None:
    # "H10" begins every H100 variant's id; it names none of them, and nothing is opened or written.
    db = tmp_path / "never.sqlite"
    result = runner.invoke(app, ["--db", str(db), "offers", "--gpu", name])
    if family is None:  # "A10" is a whole id: no error on the name
        assert result.exit_code == 0, result.output
        return
    assert isinstance(result.exception, NotFoundError), result.output
    assert f"did you mean '{family}'" in str(result.exception)
    assert not db.exists()


def test_gpu_with_count(db: str) -> None:
    result = runner.invoke(app, ["--db", db, "offers", "--gpu", "h100:8", "--json"])
    items = _offers(result.stdout)
    assert items and all(i["gpu_count"] == 8 and i["gpu"].startswith("H100") for i in items)


def test_offers_table_shows_unknown_with_reason_and_the_rate_note(db: str) -> None:
    # Wide enough for whole cells (COLUMNS is what a pipe's width follows).
    result = runner.invoke(app, ["--db", db, "offers", "--provider", "huawei"], env={"COLUMNS": "220"})
    assert result.exit_code == 0, result.output
    # The price cell says "unknown"; why is in the notes column, and a reason seven rows share is
    # said once under the table (it had filled fifteen lines of every row).
    assert result.stdout.count("price unknown (note 1)") == 7, result.stdout
    assert result.stdout.count("specs only") == 1 and "note 1: price unknown: specs only" in result.stdout
    assert "not convertible" not in result.stdout
    result = runner.invoke(app, ["--db", db, "offers", "--provider", "alibaba", "--usd-per-cny", "0.14"])
    assert "1 USD = 7.1429 CNY" in result.stdout  # 1 / 0.14 = 7.142857…


def test_usd_per_cny_env_var(db: str) -> None:
    result = runner.invoke(
        app, ["--db", db, "offers", "--provider", "alibaba", "--json"], env={"GPUPLAN_USD_PER_CNY": "0.15"}
    )
    doc = json.loads(result.stdout)
    assert doc["exchange_rate"]["usd_per_unit"] == 0.15
    items = [i for i in doc["offers"] if i["published_currency"] == "CNY" and i["pricing"]]
    assert items and all(
        i["price_usd_per_hour"] == pytest.approx(i["price_cny_per_hour"] * 0.15) for i in items
    )


def test_max_price_and_currency(db: str) -> None:
    result = runner.invoke(
        app,
        ["--db", db, "offers", "--max-price", "20", "--currency", "cny", "--usd-per-cny", "0.125", "--json"],
    )
    assert result.exit_code == 0, result.output
    items = _offers(result.stdout)
    assert json.loads(result.stdout)["display_currency"] == "CNY"
    assert items and all(i["price_cny_per_hour"] <= 20 for i in items)


@pytest.mark.parametrize(
    ("args", "error", "text"),
    [
        (["offers", "--pricing", "bogus"], NotFoundError, "unknown pricing model 'bogus'"),
        (["offers", "--currency", "EUR"], NotFoundError, "EUR is not a currency gpuplan prices in"),
        (["offers", "--provider", "awz"], NotFoundError, "did you mean 'aws'"),
        (["offers", "--gpu", "h1000"], NotFoundError, "did you mean"),
        (["offers", "--sort", "speed"], NotFoundError, "unknown sort key"),
        (["offers", "--usd-per-cny", "-1"], DataError, "USD per CNY must be a positive number"),
    ],
)
def test_bad_flag_values_raise_one_line_errors(db: str, args: list[str], error: type, text: str) -> None:
    result = runner.invoke(app, ["--db", db, *args])
    assert isinstance(result.exception, error), result.output
    assert text in str(result.exception)
    assert "\n" not in str(result.exception)


def test_error_becomes_one_line_and_exit_1(db: str) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "from gpuplan.cli import main; main()",
            "--db",
            db,
            "offers",
            "--pricing",
            "bogus",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines() == [proc.stderr.strip()]
    assert proc.stderr.startswith("error: unknown pricing model 'bogus'")


def test_gpus_json(db: str) -> None:
    result = runner.invoke(app, ["--db", db, "gpus", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["schema_version"] == 2
    gpus = {g["id"]: g for g in doc["gpus"]}
    keys = {
        "id",
        "name",
        "memory_gib",
        "memory_bandwidth_gbps",
        "fp32_tflops",
        "tf32_tflops",
        "bf16_tflops",
        "fp16_tflops",
        "fp8_tflops",
        "interconnect",
        "source",
        "cheapest",
    }
    assert all(keys <= set(g) for g in gpus.values())
    assert gpus["A100-SXM4-40GB"]["fp8_tflops"] is None
    h100 = gpus["H100-SXM"]
    assert (h100["bf16_tflops"], h100["fp32_tflops"]) == (989.5, 67)
    best = h100["cheapest"]["on_demand"]
    # the cheapest on-demand H100 SXM GPU-hour of every offer in the catalog
    offers = _offers(runner.invoke(app, ["--db", db, "offers", "--gpu", "H100-SXM", "--json"]).stdout)
    lowest = min(o["price_usd_per_gpu_hour"] for o in offers if o["pricing"] == "on_demand")
    assert best["price_usd_per_gpu_hour"] == pytest.approx(lowest)
    assert best["as_of"] and best["source"] and best["confidence"]
    assert set(h100["cheapest"]) == {"on_demand", "spot", "monthly", "reserved_1y", "reserved_3y"}


def test_gpus_table(db: str) -> None:
    # every column (the interconnect, all five pricing models) fits 240 columns
    result = runner.invoke(app, ["--db", db, "gpus"], env={"COLUMNS": "240"})
    assert result.exit_code == 0, result.output
    assert "H200-SXM" in result.stdout and "NVLink 3" in result.stdout and "reserved_3y" in result.stdout


def test_gpus_table_tells_an_unpublished_rate_from_a_path_the_part_lacks(db: str) -> None:
    # "—" had read alike for the H20's FP8 (tensor cores, rate published nowhere) and the T4's (none)
    r = runner.invoke(app, ["--db", db, "gpus"], env={"COLUMNS": "200"})
    rows = {line.split()[0]: line.split() for line in r.stdout.splitlines() if line.split()}
    # GPU, mem, GB/s, FP32, TF32, BF16, FP8
    assert rows["H20"][6] == "?" and rows["L20"][6] == "?" and rows["T4"][5:7] == ["—", "—"]
    # a peak no source publishes, derived, is marked so, and --json says how
    assert rows["L20"][5] == "~118.7" and rows["H100-SXM"][5][0].isdigit()
    assert "~ = derived, not published" in " ".join(r.stdout.split())
    doc = json.loads(runner.invoke(app, ["--db", db, "gpus", "--json"]).stdout)
    basis = {g["id"]: g["peak_basis"] for g in doc["gpus"]}
    assert basis["L20"].startswith("derived, not published") and basis["H100-SXM"] is None
    assert rows["H100-SXM"][5] not in ("?", "—")
    assert "? = the part has these tensor cores but no source publishes their rate" in " ".join(
        r.stdout.split()
    )


@pytest.mark.parametrize("width", [80, 100, 120])
def test_gpus_table_fits_narrow_consoles_with_whole_gpu_names(db: str, width: int) -> None:
    result = runner.invoke(app, ["--db", db, "gpus"], env={"COLUMNS": str(width)})
    assert result.exit_code == 0, result.output
    assert max(len(line) for line in result.stdout.splitlines()) <= width
    assert "…" not in result.stdout
    for gpu in ("V100-SXM2-16GB", "V100-PCIE-16GB", "A100-SXM4-80GB", "H200-SXM"):
        assert gpu in result.stdout


def test_gpus_in_yuan_and_chinese(db: str) -> None:
    result = runner.invoke(app, ["--db", db, "gpus", "--currency", "CNY", "--lang", "zh"])
    assert result.exit_code == 0, result.output
    assert "¥" in result.stdout and "按量付费" in result.stdout and "$" not in result.stdout


def test_catalog_info(db: str) -> None:
    result = runner.invoke(app, ["--db", db, "catalog", "info", "--json"])
    assert result.exit_code == 0, result.output
    info = json.loads(result.stdout)
    assert len(info["providers"]) == len(PROVIDERS) and info["schema_revision"] == HEAD_REVISION
    by = {c["provider"]: c for c in info["coverage"]}
    assert set(by) == set(info["providers"]) and by["aws"]["offers"] > 0 and by["aws"]["last_refresh"] is None
    assert "on_demand" in by["aws"]["pricing_models"] and by["aws"]["newest_as_of"]
    table = runner.invoke(app, ["--db", db, "catalog", "info"], env={"COLUMNS": "220"})
    assert "schema revision" in table.stdout and "last refresh" in table.stdout


def test_catalog_import_reports_lines(db: str) -> None:
    result = runner.invoke(
        app,
        [
            "--db",
            db,
            "catalog",
            "import",
            "--format",
            "skypilot",
            str(FIXTURES / "aws_v8_broken.csv"),
            "--provider",
            "aws",
            "--as-of",
            "2026-11-30",
        ],
    )
    assert result.exit_code == 3, result.output  # some rows rejected, the others imported
    # Z100: no datasheet, not lost (the summary wraps where the console is narrow)
    assert "4 rows rejected, 1 row skipped" in " ".join(result.stdout.split())
    assert "truncated" in result.stdout and "Z100" in result.stdout
    # line 5's spot 9.5 above its on-demand 8.22609 is dropped, its on-demand price kept
    out = " ".join(result.stdout.split())
    expected = (
        "warning: spot price on line 5 (g5.12xlarge in ap-northeast-1: spot 9.5, on-demand 8.22609): "
        "spot above on-demand: not a spot discount, dropped; the on-demand price is imported"
    )
    assert expected in out, out
    assert "repeats" not in out, out


def test_offers_json_carries_the_floored_price_plans_cost_and_the_listed_one_beside(
    db: str, tmp_path: Path
) -> None:
    # was: an undated (or stale) spot price below a dated one was in the price_ fields at its own
    # figure, which a script reading the JSON took, while the table and plans used the dated one
    from datetime import date, timedelta

    fresh_day = (date.today() - timedelta(days=10)).isoformat()
    prices = tmp_path / "prices.csv"
    prices.write_text(
        "provider,region,zone,instance_type,gpu,gpu_count,vcpus,memory_gib,pricing,price,currency,unit,"
        "as_of,source\n"
        "gcp,us-central1,,test-a100-stale,A100-SXM4-80GB,8,96,1360,spot,4.0,USD,hour,2025-01-10,console\n"
        f"gcp,us-east1,,test-a100-fresh,A100-SXM4-80GB,8,96,1360,spot,11.0,USD,hour,{fresh_day},console\n",
        encoding="utf-8",
    )
    imported = runner.invoke(app, ["--db", db, "catalog", "import", str(prices), "--format", "gpuplan"])
    assert imported.exit_code == 0, imported.output
    args = ["--db", db, "offers", "--gpu", "A100-SXM4-80GB", "--pricing", "spot", "--all-regions"]
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    items = _offers(result.stdout)
    by_type = {(o["provider"], o["instance_type"], o["region"]): o for o in items}
    # a dated price older than the limit, below a fresh one of its GPU: costed at the fresh one
    stale = by_type["gcp", "test-a100-stale", "us-central1"]
    assert stale["price_usd_per_hour"] == pytest.approx(11.0)
    assert stale["price_usd_per_gpu_hour"] == pytest.approx(11.0 / 8)
    assert stale["price_cny_per_hour"] > stale["floor"]["best_case_cny_per_hour"]
    assert {k: stale["floor"][k] for k in ("held", "basis", "region", "as_of", "staleness")} == {
        "held": "stale",
        "basis": "gpu-catalog",
        "region": "gcp/us-east1",
        "as_of": fresh_day,
        "staleness": "fresh",
    }
    assert stale["floor"]["best_case_usd_per_hour"] == pytest.approx(4.0) and stale["as_of"] == "2025-01-10"
    assert by_type["gcp", "test-a100-fresh", "us-east1"]["floor"] is None  # a fresh price is its own
    # the shipped Azure A100 80GB spot price, undated ($0.45/GPU-h): the dated floor of its GPU
    azure = by_type["azure", "Standard_ND96amsr_A100_v4", "eastus"]
    assert azure["floor"]["held"] == "undated" and azure["floor"]["basis"] in ("gpu-region", "gpu-catalog")
    assert azure["floor"]["best_case_usd_per_gpu_hour"] < 0.5 < azure["price_usd_per_gpu_hour"]
    # the table prints the same figure: $11.00/h for the stale row
    table = runner.invoke(app, args, env={"COLUMNS": "250"})
    [line] = [x for x in table.stdout.splitlines() if "test-a100-stale" in x]
    assert "$11.00" in line and "$4.00" not in line
    # gpus --json's cheapest is picked at the same floored figures ($0.50/GPU-h stale is not it), and
    # its table prints that figure; its legend says a stale price is held as an undated one is
    gpus = json.loads(runner.invoke(app, ["--db", db, "gpus", "--json"]).stdout)
    [a100] = [g["cheapest"]["spot"] for g in gpus["gpus"] if g["id"] == "A100-SXM4-80GB"]
    assert a100["instance_type"] != "test-a100-stale" and a100["price_usd_per_gpu_hour"] > 0.5
    gpus_table = runner.invoke(app, ["--db", db, "gpus"], env={"COLUMNS": "120"}).stdout
    [row] = [x.split() for x in gpus_table.splitlines() if x.startswith("A100-SXM4-80GB ")]
    assert f"${a100['price_usd_per_gpu_hour']:.2f}" in row
    assert "undated or older than the staleness limit is shown" in " ".join(gpus_table.split())


def test_catalog_import_wrong_header_is_an_error(db: str) -> None:
    result = runner.invoke(
        app,
        [
            "--db",
            db,
            "catalog",
            "import",
            str(FIXTURES / "azure_vms_v6_gpu_sample.csv"),
            "--provider",
            "aws",
            "--as-of",
            "2026-11-30",
        ],
    )
    assert isinstance(result.exception, CatalogImportError)


def test_catalog_export_csv_and_json(db: str, tmp_path: Path) -> None:
    result = runner.invoke(app, ["--db", db, "catalog", "export", "--format", "csv"])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert rows and {r["provider"] for r in rows} >= {"aws", "tencent"}
    out = tmp_path / "catalog.json"
    result = runner.invoke(app, ["--db", db, "catalog", "export", "--format", "json", "--out", str(out)])
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    assert doc["schema_version"] == 3 and len(doc["offers"]) == len(rows)
    # what plans cost each price at, as `offers --json` says it (the export left it out)
    costed = [o for o in doc["offers"] if o["floor"] is not None]
    assert costed and all(o["pricing"] == "spot" and o["floor"]["what"] for o in costed)
    assert all(o["price_usd_per_hour"] > o["floor"]["best_case_usd_per_hour"] for o in costed)


def test_catalog_export_csv_states_the_rate_of_each_converted_price(db: str) -> None:
    # The CSV gave a yuan price's USD figures without the rate, date or source they were converted
    # at (the JSON export states them in exchange_rate).
    doc = json.loads(runner.invoke(app, ["--db", db, "catalog", "export", "--format", "json"]).stdout)
    rate = doc["exchange_rate"]
    for args, usd_per_cny in (([], rate["usd_per_unit"]), (["--cny-per-usd", "7.2"], 1 / 7.2)):
        result = runner.invoke(app, ["--db", db, "catalog", "export", *args])
        assert result.exit_code == 0, result.output
        rows = list(csv.DictReader(io.StringIO(result.stdout)))
        cny = [r for r in rows if r["currency"] == "CNY" and r["price"] and r["unit"] == "hour"]
        assert cny and all(float(r["usd_per_unit"]) == pytest.approx(usd_per_cny) for r in cny)
        assert all(r["rate_as_of"] and r["rate_source"] for r in cny)
        for r in cny:
            assert float(r["price"]) * float(r["usd_per_unit"]) == pytest.approx(
                float(r["price_usd_per_hour"])
            )
        usd = [r for r in rows if r["currency"] == "USD"]
        assert usd and all(r["usd_per_unit"] == r["rate_as_of"] == r["rate_source"] == "" for r in usd)


@pytest.mark.parametrize("args", [["--help"], ["--db", "{db}", "offers", "--json"]])
def test_help_and_offers_do_not_import_torch(db: str, args: list[str]) -> None:
    code = (
        "import sys\n"
        "from gpuplan.cli import main\n"
        f"sys.argv = ['gpuplan', *{[a.replace('{db}', db) for a in args]!r}]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "sys.stderr.write('TORCH=' + str('torch' in sys.modules))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, env=os.environ.copy()
    )
    assert "TORCH=False" in proc.stderr, proc.stderr


@pytest.mark.parametrize("args", [["offers", "--gpu", "H100"], ["offers", "--json", "--all-regions"]])
def test_offers_table_and_json_do_without_pydantic(db: str, args: list[str]) -> None:
    # Start-up budget: the document models (pydantic) are for the other --json documents; the table
    # and the offers listing are written without them, and Typer's converters are not built.
    code = (
        "import io, sys, contextlib\n"
        "from gpuplan.cli import main\n"
        f"sys.argv = ['gpuplan', '--db', {db!r}, *{args!r}]\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "    try:\n        main()\n    except SystemExit:\n        pass\n"
        "print(len(out.getvalue()) > 1000, 'pydantic' in sys.modules)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.stdout.strip() == "True False", proc.stdout + proc.stderr


def test_region_typo_suggests(db: str) -> None:
    result = runner.invoke(app, ["--db", db, "offers", "--region", "us-east-1x"])
    assert isinstance(result.exception, NotFoundError)
    assert "did you mean 'us-east-1'" in str(result.exception)


def test_stale_days_option(db: str) -> None:
    fresh = _offers(runner.invoke(app, ["--db", db, "offers", "--json", "--stale-days", "36500"]).stdout)
    assert not any(i["stale"] for i in fresh)
    old = _offers(runner.invoke(app, ["--db", db, "offers", "--json", "--stale-days", "0"]).stdout)
    assert all(i["stale"] for i in old if i["as_of"])


def test_offers_on_a_ready_database_reads_without_sqlalchemy(db: str) -> None:
    # Startup budget: SQLAlchemy alone costs ~0.3 s of CPU; a seeded SQLite catalog at head is read
    # with the standard library's sqlite3.
    code = (
        "import sys\n"
        "from gpuplan.cli import main\n"
        f"sys.argv = ['gpuplan', '--db', {db!r}, 'offers', '--json']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "sys.stderr.write('SQLA=' + str('sqlalchemy' in sys.modules))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert "SQLA=False" in proc.stderr, proc.stderr
    assert json.loads(proc.stdout)


def test_a_rate_the_wrong_way_round_is_one_line_and_cny_per_usd_reads_it_right(db: str) -> None:
    bad = runner.invoke(app, ["--db", db, "offers", "--provider", "alibaba", "--usd-per-cny", "7.2"])
    assert bad.exit_code == 1
    assert "--cny-per-usd 7.2" in str(bad.exception) or "--cny-per-usd 7.2" in bad.output
    good = runner.invoke(
        app, ["--db", db, "offers", "--provider", "alibaba", "--cny-per-usd", "7.2", "--json"]
    )
    assert good.exit_code == 0, good.output
    assert json.loads(good.stdout)["exchange_rate"]["units_per_usd"] == pytest.approx(7.2)


@pytest.mark.parametrize("currency", ["USD", "CNY"])
def test_offers_json_text_is_the_documents_json(db: str, currency: str) -> None:
    # The command writes the listing without a model per offer; it must be byte for byte what the
    # document model writes (and so what its schema describes), in either display currency.
    from gpuplan.catalog.query import OfferQuery, list_offers
    from gpuplan.documents import OffersDocument
    from gpuplan.documents.base import ExchangeRateDoc
    from gpuplan.documents.catalog import OfferItem
    from gpuplan.report.catalog import offers_json
    from gpuplan.report.offers_json import OFFER_ITEM_FIELDS, offers_json_text

    assert tuple(OfferItem.model_fields) == OFFER_ITEM_FIELDS

    store = open_store(db)
    try:
        listing = list_offers(store, OfferQuery(all_regions=True, currency=currency))
    finally:
        store.close()
    text = offers_json_text(listing)
    assert len(listing.views) > 1000
    assert text == offers_json(listing).to_json()
    doc = OffersDocument.model_validate_json(text)
    assert isinstance(doc.exchange_rate, ExchangeRateDoc)  # the rate's fields written in order too


def test_offers_json_in_pieces_is_the_document_in_one_piece(db: str) -> None:
    # The command writes the document in pieces of a slice of offers each, moved to the depth of
    # the document's list: joined, they are orjson's document in one piece, whatever the slices.
    from dataclasses import replace

    import orjson

    from gpuplan.catalog.query import OfferQuery, list_offers
    from gpuplan.report.offers_json import offer_items, offers_json_chunks, rate_fields

    store = open_store(db)
    try:
        listing = list_offers(store, OfferQuery(all_regions=True, currency="CNY"))
    finally:
        store.close()
    assert any(v.offer.term for v in listing.views) and any(v.offer.compliance_claimed for v in listing.views)
    n = len(listing.views)
    for views, per_chunk in [
        (listing.views, 1),
        (listing.views, 7),
        (listing.views, n),
        (listing.views, n - 1),
        (listing.views[:1], 256),
        ((), 256),
    ]:
        part = replace(listing, views=views)
        whole = {
            "schema_version": 3,
            "display_currency": part.currency,
            "exchange_rate": rate_fields(part.cny_rate),
            "offers": offer_items(part),
            "empty_reason": part.empty_reason,
            "country_unknown": list(part.country_unknown),
            "low_confidence_left_out": part.low_confidence_left_out,
            "hosts_left_out": part.hosts_left_out,
        }
        expected = orjson.dumps(whole, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)
        assert b"".join(offers_json_chunks(part, per_chunk)) == expected, (len(views), per_chunk)


@pytest.mark.parametrize(
    ("encoding", "errors"),
    [("utf-8", "strict"), ("UTF8", "strict"), ("latin-1", "replace"), ("utf-16", "strict")],
)
def test_offers_json_bytes_are_written_as_the_text_would_be(
    monkeypatch: pytest.MonkeyPatch, encoding: str, errors: str
) -> None:
    # A UTF-8 stdout takes the document's bytes as they are; any other gets the text, encoded as
    # the stream encodes it; text written before comes first either way.
    from gpuplan.cli.catalog_cmds import _write_utf8

    text = '{\n  "source": "「云服务器」 8 × H100"\n}\n'
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding=encoding, errors=errors)
    monkeypatch.setattr(sys, "stdout", stream)
    stream.write("before\n")
    _write_utf8(text.encode())
    stream.write("after\n")
    stream.flush()
    assert raw.getvalue() == ("before\n" + text + "after\n").encode(encoding, errors)
    plain = io.StringIO()  # no byte stream under it (contextlib.redirect_stdout)
    monkeypatch.setattr(sys, "stdout", plain)
    _write_utf8(text.encode())
    assert plain.getvalue() == text


def test_an_empty_listing_for_a_pricing_model_says_what_the_sources_lack(db: str) -> None:
    # Azure sells reservations; the catalog has no dated copy of their prices: unknown with the
    # reason, not a bare "0 offers."
    result = runner.invoke(
        app, ["--db", db, "offers", "--provider", "azure", "--pricing", "reserved_1y"], env={"COLUMNS": "400"}
    )
    assert result.exit_code == 0, result.output
    assert "0 offers." in result.stdout
    assert "no reserved_1y price of azure in the catalog: its sources publish none" in result.stdout
    assert (
        "azure reserved 1y/3y (every size): no dated public copy of Azure's reservation prices"
        in result.stdout
    )
    doc = json.loads(
        runner.invoke(
            app, ["--db", db, "offers", "--provider", "azure", "--pricing", "reserved_1y", "--json"]
        ).stdout
    )
    assert doc["offers"] == [] and doc["empty_reason"].startswith("no reserved_1y price of azure")
    full = json.loads(runner.invoke(app, ["--db", db, "offers", "--provider", "azure", "--json"]).stdout)
    assert full["offers"] and full["empty_reason"] is None


@pytest.mark.parametrize("columns", ["40", "60", "80"])
def test_a_console_too_narrow_for_columns_shows_every_offer_with_its_price(db: str, columns: str) -> None:
    # At 60 columns the narrowest table lost its price columns (Rich drops what cannot fit).
    args = ["--db", db, "offers", "--gpu", "H100", "--pricing", "on_demand"]
    n = len(json.loads(runner.invoke(app, [*args, "--json"]).stdout)["offers"])
    text = runner.invoke(app, args, env={"COLUMNS": columns}).stdout
    assert n > 3 and text.count("USD/h $") == n, text[:2000]
    assert max(len(line) for line in text.splitlines()) <= int(columns)


def test_a_console_wide_enough_to_fold_keeps_the_table(db: str) -> None:
    text = runner.invoke(
        app, ["--db", db, "offers", "--gpu", "H100", "--pricing", "on_demand"], env={"COLUMNS": "100"}
    ).stdout
    assert "where / instance / GPUs" in text and "USD/h $" not in text


def test_one_rejected_row_is_one_row(db: str, tmp_path: Path) -> None:
    f = tmp_path / "one.csv"
    f.write_text(
        "\n".join((FIXTURES / "aws_vms_v8_gpu_sample.csv").read_text().splitlines()[:2]) + "\nbad,row\n"
    )
    result = runner.invoke(
        app, ["--db", db, "catalog", "import", str(f), "--provider", "aws", "--as-of", "2026-11-30"]
    )
    assert "; 1 row rejected." in result.stdout, result.output


def test_every_spot_row_says_its_interruption_band_or_why_it_is_unknown(db: str) -> None:
    # was: Alibaba's L20 spot rows said only "age unknown (up to 6.1 y)" and AWS's showed none of
    # the bands their JSON carried; the JSON's null band had no reason
    from gpuplan.catalog.providers import facts

    alibaba_note = facts("alibaba").spot.rate_note
    doc = runner.invoke(
        app, ["--db", db, "offers", "--gpu", "L20", "--pricing", "spot", "--all-regions", "--json"]
    )
    items = _offers(doc.stdout)
    assert items and all(o["interruption_band"] is None for o in items)
    assert {o["interruption_reason"] for o in items} == {alibaba_note}
    table = runner.invoke(
        app,
        ["--db", db, "offers", "--gpu", "L20", "--pricing", "spot", "--all-regions"],
        env={"COLUMNS": "2000"},
    )
    rows = [line for line in table.stdout.splitlines() if line.startswith("alibaba ")]
    assert rows and all("interruption rate unknown" in line and alibaba_note not in line for line in rows)
    # the provider's reason once, under the table, not on every row of a long listing
    assert table.stdout.count(alibaba_note) == 1
    assert f"Spot interruption rate unknown (alibaba): {alibaba_note}." in table.stdout
    aws = _offers(
        runner.invoke(app, ["--db", db, "offers", "--provider", "aws", "--pricing", "spot", "--json"]).stdout
    )
    banded = [o for o in aws if o["interruption_band"] is not None]
    assert banded and all(o["interruption_reason"] is None for o in banded)
    assert all(o["interruption_reason"] for o in aws if o["interruption_band"] is None)
    shown = runner.invoke(
        app, ["--db", db, "offers", "--provider", "aws", "--pricing", "spot"], env={"COLUMNS": "2000"}
    ).stdout
    band = banded[0]
    [line] = [ln for ln in shown.splitlines() if f" {band['instance_type']} " in ln]
    assert f"interruption rate {band['interruption_band']} a month" in line
    # not a spot price: no interruption field, no note
    on_demand = _offers(runner.invoke(app, ["--db", db, "offers", "--gpu", "L20", "--json"]).stdout)
    assert all(o["interruption_reason"] is None for o in on_demand if o["pricing"] != "spot")


def test_a_spot_rows_interruption_note_reads_in_chinese(db: str) -> None:
    result = runner.invoke(
        app,
        ["--db", db, "offers", "--gpu", "L20", "--pricing", "spot", "--lang", "zh"],
        env={"COLUMNS": "2000"},
    )
    assert result.exit_code == 0, result.output
    assert "中断率未知" in result.stdout and "抢占式实例中断率未知（alibaba）：阿里云" in result.stdout, (
        result.stdout[-800:]
    )


def test_catalog_info_in_chinese_lists_its_items_with_the_enumeration_comma(db: str) -> None:
    # The providers and the counts by provider and by pricing model were parted by ，(a clause
    # separator) in Chinese; the items of a list are parted by 、.
    result = runner.invoke(app, ["--db", db, "--lang", "zh", "catalog", "info"], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    rows: dict[str, str] = {}
    for line in result.stdout.splitlines():  # the summary's rows, before the coverage table's heads
        if line.strip():
            rows.setdefault(line.split()[0], line)
    assert "alibaba、aws、azure" in rows["云厂商"], rows["云厂商"]
    assert re.search(r"alibaba \d+、aws \d+、", rows["报价"]), rows["报价"]
    assert re.search(r"按量付费 \d+、抢占式 \d+、", rows["价格"]), rows["价格"]
    assert not any(mark in rows[key] for key in ("云厂商", "报价", "价格") for mark in ("，", ", "))
