"""What a file import says of itself: the date it gave its prices (a SkyPilot file carries none, so
one must be given), rows rejected apart from rows skipped, and a price already recorded not
recorded again."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from skypilot_rows import A10G_INFO, import_file, vms_file
from typer.testing import CliRunner

from gpuplan.cli import app
from gpuplan.errors import InputError
from gpuplan.i18n.error_text import error_text

FIXTURES = Path(__file__).parent / "fixtures"
SAMPLE = FIXTURES / "aws_vms_v8_gpu_sample.csv"
AWS_HEADER = SAMPLE.read_text().splitlines()[0]


def _aws_line(*, itype: str = "g5.8xlarge", gpu: str = "A10G", price: str = "2.448") -> str:
    return f"{itype},{gpu},1.0,32.0,128.0,{A10G_INFO},{price},0.9322,us-west-2,usw2-az2,x86_64"


def _import(db: Path, *args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(app, ["--db", str(db), "catalog", "import", *args])


def test_a_skypilot_file_without_as_of_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    # Dated today by default, a months-old download passed its spot prices off as today's: a plan
    # costed on them came out 22 % cheaper than on the dated prices they displaced.
    db = tmp_path / "catalog.sqlite"
    r = _import(db, str(SAMPLE), "--provider", "aws")
    # (the CLI's main() writes it as "error: <line>" and exits 1)
    assert isinstance(r.exception, InputError), (r.output, r.exception)
    said = (
        "a SkyPilot catalog file carries no date: give --as-of, the day its prices were read "
        "(the day you downloaded it: --as-of 2026-11-30, or a month: --as-of 2026-11); nothing was imported"
    )
    assert error_text(r.exception) == said
    assert not db.exists()  # refused before the catalog is opened


def test_the_summary_line_and_the_json_say_the_date_the_prices_were_given(tmp_path: Path) -> None:
    db = tmp_path / "catalog.sqlite"
    r = _import(db, str(SAMPLE), "--provider", "aws", "--as-of", "2026-10-15")
    assert r.exit_code in (0, 3), r.output
    head = r.output.splitlines()[0]
    assert "prices imported, dated 2026-10-15;" in head, head
    doc = json.loads(_import(db, str(SAMPLE), "--provider", "aws", "--as-of", "2026-10", "--json").stdout)
    assert doc["dated"] == ["2026-10"], doc["dated"]


def test_a_row_skipped_is_not_counted_as_rejected_in_the_summary_the_warning_or_the_json(
    tmp_path: Path, db_path: Path
) -> None:
    # The summary said "2 rows rejected", the warning "rejected: 1" and the JSON listed the unknown
    # GPU's row under "rejected" with "skipped": true.
    f = vms_file(
        tmp_path,
        AWS_HEADER,
        _aws_line(),
        _aws_line(itype="g9.8xlarge", gpu="H300"),  # a GPU gpuplan has no datasheet of: skipped
        _aws_line(itype="g5.4xlarge", price="-1.624"),  # a negative price: rejected
    )
    r = import_file(db_path, f, "aws")
    assert r.exit_code == 3, r.output
    head = " ".join(r.stdout.split())
    assert "; 1 row rejected, 1 row skipped (not priced by gpuplan: no GPU, or a GPU it has no" in head, head
    assert "warning: rows of " in r.stderr and " rejected: 1 (listed above)" in r.stderr, r.stderr
    assert "skipped: unknown GPU 'H300'" in head, head
    doc = json.loads(import_file(db_path, f, "aws", "--json").stdout)
    assert [row["line"] for row in doc["rejected"]] == [4], doc["rejected"]
    assert [(row["line"], row["skipped"]) for row in doc["skipped"]] == [(3, True)], doc["skipped"]


def test_a_file_whose_every_row_is_skipped_says_skipped_not_rejected(tmp_path: Path, db_path: Path) -> None:
    # was: "0 rows rejected, 1 row skipped", then "no row … passed the gates (1 rejected)"
    f = vms_file(tmp_path, AWS_HEADER, _aws_line(itype="g9.8xlarge", gpu="H300"))
    r = import_file(db_path, f, "aws")
    assert r.exit_code == 1, r.output
    said = str(r.exception)
    assert "passed the gates (0 rejected, 1 skipped); nothing was imported" in said, r.output


def test_the_same_file_imported_twice_on_the_same_date_adds_no_price(tmp_path: Path, db_path: Path) -> None:
    # The second import had appended every price again: p5 us-east-1 went from 8 history rows to 20,
    # each (pricing, as_of, price) twice.
    f = vms_file(tmp_path, AWS_HEADER, _aws_line(), _aws_line(itype="g5.4xlarge", price="1.624"))
    first = json.loads(import_file(db_path, f, "aws", "--json").stdout)
    assert first["prices_imported"] == 4 and first["prices_already_recorded"] == 0, first
    with sqlite3.connect(db_path) as conn:
        before = conn.execute("SELECT count(*) FROM prices").fetchone()[0]
    again = import_file(db_path, f, "aws")
    assert again.exit_code == 0, again.output
    head = " ".join(again.stdout.split())
    assert "0 prices imported, dated 2026-11-20, 4 prices already recorded;" in head, head
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("SELECT count(*) FROM prices").fetchone()[0] == before
    # another date, or another amount, is a new observation: appended (history is kept)
    later = json.loads(import_file(db_path, f, "aws", "--json", "--as-of", "2026-11-21").stdout)
    assert later["prices_imported"] == 4 and later["prices_already_recorded"] == 0, later
