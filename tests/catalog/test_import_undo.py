"""An import can be undone: its prices and the offers it alone created go, the prices it had
superseded are current again, the undo is recorded, and a refused undo changes nothing; a catalog
made by revision 0012 keeps its rows when it is migrated."""

from __future__ import annotations

import contextlib
import hashlib
from pathlib import Path
from typing import Any

import pytest
from old_catalog import downgrade_to, upgrade_to
from sqlalchemy import create_engine, text
from typer.testing import CliRunner

from gpuplan.catalog import open_store
from gpuplan.catalog.revisions import HEAD_REVISION
from gpuplan.catalog.team_store import TeamStore
from gpuplan.catalog.undo import list_imports
from gpuplan.cli import app
from one_line import refused

# wide enough that file names and sentences are not wrapped or cut (xdist workers see 80 columns)
runner = CliRunner(env={"COLUMNS": "200"})
ROOT = Path(__file__).resolve().parents[2]
#: The smallest recorded files the catalog tests import: six AWS instance types of SkyPilot's catalog
#: (prices the seeded catalog holds under another date) and the example price list of one's own,
#: whose two Alibaba offers the catalog does not hold.
AWS_SAMPLE = Path(__file__).parent / "fixtures" / "aws_vms_v8_gpu_sample.csv"
OWN_PRICES = ROOT / "examples" / "prices" / "alibaba-quote.csv"
#: Every table an undo may touch, each in a fixed order.
TABLES = ("offers", "prices", "imports", "audit_log", "declared_providers")


def _dump(db_path: Path, tables: tuple[str, ...] = TABLES) -> dict[str, list[tuple[Any, ...]]]:
    engine = create_engine(f"sqlite:///{db_path}")
    try:
        with engine.connect() as conn:
            return {
                name: [tuple(r) for r in conn.execute(text(f"SELECT * FROM {name} ORDER BY 1"))]
                for name in tables
            }
    finally:
        engine.dispose()


def _import(db: str, *args: str) -> int:
    r = runner.invoke(app, ["--db", db, "catalog", "import", *args])
    assert r.exit_code == 0, r.output
    [line] = [x for x in r.stdout.splitlines() if "--undo" in x]
    return int(line.split()[1].rstrip(";"))


def _current(db_path: Path) -> dict[tuple[str, str, str, str | None], tuple[float | None, str | None]]:
    with contextlib.closing(open_store(str(db_path), seed=False)) as store:
        return {
            (o.provider, o.region, o.instance_type, o.pricing): (o.price, o.as_of)
            for o in store.offers(provider=["aws", "alibaba"])
        }


def test_undoing_imports_leaves_offers_and_prices_as_they_were(db_path: Path) -> None:
    db = str(db_path)
    before = _dump(db_path, ("offers", "prices"))
    current_before = _current(db_path)
    aws = _import(db, str(AWS_SAMPLE), "--format", "skypilot", "--provider", "aws", "--as-of", "2026-11-30")
    own = _import(db, str(OWN_PRICES), "--format", "gpuplan")
    assert _current(db_path) != current_before  # the imports changed the current prices
    listed = runner.invoke(app, ["--db", db, "catalog", "imports"])
    assert listed.exit_code == 0, listed.output
    assert "alibaba-quote.csv" in listed.stdout and "aws_vms_v8_gpu_sample" in listed.stdout
    assert "2026-11-30" in listed.stdout  # the --as-of given

    # the older one first: the newer one's offers and prices stand meanwhile
    r = runner.invoke(app, ["--db", db, "catalog", "import", "--undo", str(aws)])
    assert r.exit_code == 0, r.output
    assert f"undid import {aws} (aws, aws_vms_v8_gpu_sample.csv): removed " in r.stdout
    assert "recorded before the import again" in r.stdout  # it had superseded the snapshot's prices
    r = runner.invoke(app, ["--db", db, "catalog", "import", "--undo", str(own)])
    assert r.exit_code == 0, r.output
    assert f"undid import {own} (alibaba, alibaba-quote.csv): removed 3 prices and 2 offers." in r.stdout

    assert _dump(db_path, ("offers", "prices")) == before
    assert _current(db_path) == current_before
    # the imports stay, undone; the undo is in the audit log with what it removed
    rows = _dump(db_path, ("imports",))["imports"]
    assert [r[-1] is not None for r in rows if r[0] in (aws, own)] == [True, True]
    engine = create_engine(f"sqlite:///{db_path}")
    try:
        with engine.connect() as conn:
            audit = conn.execute(text("SELECT actor, action, target FROM audit_log ORDER BY id")).all()
    finally:
        engine.dispose()
    assert [tuple(a) for a in audit] == [("cli", "catalog.undo", str(aws)), ("cli", "catalog.undo", str(own))]


def test_undoing_an_unknown_id_is_one_line_naming_the_ids_and_changes_nothing(
    db_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(db_path)
    own = _import(db, str(OWN_PRICES), "--format", "gpuplan")
    before = _dump(db_path)
    line = refused(["--db", db, "catalog", "import", "--undo", "999"], capsys, code=2)
    assert f"no import 999 in the catalog; imports that can be undone: {own} " in line, line
    assert _dump(db_path) == before


def test_undoing_twice_or_the_snapshot_is_refused_in_one_line(
    db_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(db_path)
    own = _import(db, str(OWN_PRICES), "--format", "gpuplan")
    assert runner.invoke(app, ["--db", db, "catalog", "import", "--undo", str(own)]).exit_code == 0
    before = _dump(db_path)
    line = refused(["--db", db, "catalog", "import", "--undo", str(own)], capsys)
    assert line.startswith(f"error: import {own} was undone already (") and "nothing changed" in line
    line = refused(["--db", db, "catalog", "import", "--undo", "1"], capsys)
    assert line.startswith("error: import 1 is one of the shipped snapshot's"), line
    assert _dump(db_path) == before


def test_an_undo_changes_the_catalog_state_plans_are_cached_under(db_path: Path) -> None:
    # the undone import keeps its row (the newest id and the count of imports stay): a plan cached
    # with its prices must not be served once they are gone
    db = str(db_path)
    own = _import(db, str(OWN_PRICES), "--format", "gpuplan")
    with contextlib.closing(open_store(db, seed=False)) as store:
        state = TeamStore(store.engine).catalog_state()
    assert runner.invoke(app, ["--db", db, "catalog", "import", "--undo", str(own)]).exit_code == 0
    with contextlib.closing(open_store(db, seed=False)) as store:
        after = TeamStore(store.engine).catalog_state()
    assert after[0] == state[0] and after[1] != state[1]


def _make_0012_catalog(url: str) -> None:
    """A catalog as revision 0012 left it: one import of one offer with two dated prices."""
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            upgrade_to(conn, "0012_declared_providers")
            conn.execute(
                text(
                    "INSERT INTO imports (id, provider, kind, source, imported_at, rows_ok, rows_rejected) "
                    "VALUES (1, 'aws', 'skypilot', 'vms.csv', '2026-11-01T00:00:00+00:00', 1, 0)"
                )
            )
            conn.execute(
                text(
                    "INSERT INTO offers (id, provider, region, zone, instance_type, gpu, gpu_count, source, "
                    "notes) VALUES (1, 'aws', 'us-east-1', '', 'p4d.24xlarge', 'A100-SXM4-40GB', 8, "
                    "'vms.csv', '')"
                )
            )
            conn.execute(
                text(
                    "INSERT INTO prices (offer_id, pricing, amount, currency, unit, as_of, source, "
                    "confidence, import_id) VALUES (1, 'on_demand', 32.77, 'USD', 'hour', '2026-11-01', "
                    "'vms.csv', 'high', 1)"
                )
            )
    finally:
        engine.dispose()


def test_a_catalog_of_revision_0012_keeps_its_rows_and_its_imports_undo_without_their_offers(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.sqlite"
    _make_0012_catalog(f"sqlite:///{path}")
    old = _dump(path, ("offers", "prices", "imports"))
    with contextlib.closing(open_store(str(path), seed=False)) as store:  # upgrades to head
        assert store.revision == HEAD_REVISION  # 0013 and every migration after it
    new = _dump(path, ("offers", "prices", "imports"))
    # every row kept, the columns added empty: an offer of before names no import, nor do its counts
    assert [r[:-1] for r in new["offers"]] == old["offers"] and new["offers"][0][-1] is None
    assert new["prices"] == old["prices"]
    assert [r[:8] for r in new["imports"]] == old["imports"] and set(new["imports"][0][8:]) == {None}
    listed = runner.invoke(app, ["--db", str(path), "catalog", "imports"])
    assert "stored before gpuplan recorded them" in listed.stdout, listed.output
    r = runner.invoke(app, ["--db", str(path), "catalog", "import", "--undo", "1"])
    assert r.exit_code == 0, r.output
    assert "removed 1 price and 0 offers." in r.stdout
    assert "its offers stay" in r.stdout
    # (the command line seeded the shipped snapshot beside them, as on a user's first command)
    assert _dump(path, ("offers",))["offers"][0] == new["offers"][0]
    engine = create_engine(f"sqlite:///{path}")
    try:
        with engine.connect() as conn:
            assert conn.execute(text("SELECT count(*) FROM prices WHERE import_id = 1")).scalar() == 0
    finally:
        engine.dispose()
    # and down again: the columns go, the rows stay
    engine = create_engine(f"sqlite:///{path}")
    try:
        with engine.begin() as conn:
            downgrade_to(conn, "0012_declared_providers")
    finally:
        engine.dispose()
    assert _dump(path, ("offers",))["offers"][0] == old["offers"][0]


def test_a_folder_imports_files_are_listed_with_their_as_of_and_undone(db_path: Path) -> None:
    db = str(db_path)
    before = _dump(db_path, ("offers", "prices"))
    folder = Path(__file__).parent / "fixtures" / "gpuhunt_v2"
    r = runner.invoke(
        app,
        [
            "--db",
            db,
            "catalog",
            "import",
            "--gpuhunt",
            str(folder),
            "--provider",
            "aws",
            "--as-of",
            "2026-11-30",
        ],
    )
    assert r.exit_code == 0, r.output
    with contextlib.closing(open_store(db, seed=False)) as store:
        [entry] = [e for e in list_imports(store) if e.undoable]
    assert (entry.provider, entry.file_name, entry.as_of) == ("aws", "aws.csv", "2026-11-30")
    assert entry.file_sha256 == hashlib.sha256((folder / "aws.csv").read_bytes()).hexdigest()
    assert entry.prices_added == entry.prices_held > 0
    r = runner.invoke(app, ["--db", db, "catalog", "import", "--undo", str(entry.id)])
    assert r.exit_code == 0, r.output
    assert _dump(db_path, ("offers", "prices")) == before


def test_undoing_the_first_of_two_imports_of_one_file_says_the_second_holds_nothing_of_it(
    db_path: Path,
) -> None:
    # the second import found every price already recorded and wrote none: they were the first's
    db = str(db_path)
    first = _import(db, str(OWN_PRICES), "--format", "gpuplan")
    second = _import(db, str(OWN_PRICES), "--format", "gpuplan")
    r = runner.invoke(app, ["--db", db, "catalog", "import", "--undo", str(first)])
    assert r.exit_code == 0, r.output
    said = " ".join(r.stdout.split())
    assert (
        f"Import {second} read the same file: the prices it found already recorded were this import's" in said
    )
    assert "import the file again to have them back" in said


def test_imports_and_an_undo_are_json_documents_of_their_published_schemas(db_path: Path) -> None:
    # A script that imports a supplier's file and takes it back had only tables to parse.
    import json

    import jsonschema

    db = str(db_path)
    own = _import(db, str(OWN_PRICES), "--format", "gpuplan")
    listed = runner.invoke(app, ["--db", db, "catalog", "imports", "--json"])
    assert listed.exit_code == 0, listed.output
    doc = json.loads(listed.stdout)
    jsonschema.validate(doc, json.loads((ROOT / "docs/schemas/catalog-imports.schema.json").read_text()))
    [entry] = [e for e in doc["imports"] if e["id"] == own]
    assert (entry["provider"], entry["file_name"], entry["prices_added"]) == (
        "alibaba",
        "alibaba-quote.csv",
        3,
    )
    assert entry["undoable"] and entry["undone_at"] is None and doc["snapshot_hidden"] > 0

    r = runner.invoke(app, ["--db", db, "catalog", "import", "--undo", str(own), "--json"])
    assert r.exit_code == 0, r.output
    undone = json.loads(r.stdout)
    jsonschema.validate(undone, json.loads((ROOT / "docs/schemas/catalog-undo.schema.json").read_text()))
    assert (undone["import_id"], undone["prices_removed"], undone["offers_removed"]) == (own, 3, 2)
    # the listing then says it is undone and holds no price
    [entry] = [
        e
        for e in json.loads(runner.invoke(app, ["--db", db, "catalog", "imports", "--json"]).stdout)[
            "imports"
        ]
        if e["id"] == own
    ]
    assert entry["undone_at"] is not None and entry["prices_held"] == 0
