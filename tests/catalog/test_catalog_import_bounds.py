"""A price CSV is read as a stream with a row cap: a 250 MB file stops at the cap without holding the
file, a GpuInfo count of ``1e999`` is a rejected row, and the table of rejected rows stays short."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuplan.bounded import MAX_CSV_BYTES, MAX_CSV_ROWS
from gpuplan.catalog.importers import parse_skypilot
from gpuplan.cli import app
from gpuplan.errors import CatalogImportError, InputError

FIXTURES = Path(__file__).parent / "fixtures"
SAMPLE = FIXTURES / "aws_vms_v8_gpu_sample.csv"

#: In a child limited to 512 MiB of address space, with the row cap at 1,000 so that the test is
#: quick: a reader that held the 250 MB file (or a row per line) dies of MemoryError there.
_CHILD = """\
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (512 << 20, 512 << 20))
import gpuplan.catalog.importers.skypilot as skypilot
import gpuplan.catalog.importers.skypilot_common as common
from gpuplan.errors import CatalogImportError, InputError
common.MAX_CSV_ROWS = 1000
try:
    skypilot.parse_skypilot(sys.argv[1], "aws", as_of="2026-11-30")
except CatalogImportError as e:
    print(e)
"""


def _rows(n: int) -> str:
    header, *lines = SAMPLE.read_text().splitlines()
    return header + "\n" + "".join(lines[i % len(lines)] + "\n" for i in range(n))


def test_a_250_mb_price_csv_stops_at_the_row_cap_without_holding_the_file(tmp_path: Path) -> None:
    big = tmp_path / "vms.csv"
    with big.open("w") as f:
        f.write(_rows(2000))
        f.truncate(250_000_000)  # sparse: 250 MB by its size, on no disk (NUL bytes past the rows)
    assert MAX_CSV_BYTES > big.stat().st_size > 249_000_000
    r = subprocess.run(
        [sys.executable, "-c", _CHILD, str(big)], capture_output=True, text=True, timeout=60, check=False
    )
    assert r.returncode == 0, r.stderr[-2000:]
    said = (
        f"{big} has more than 1,000 rows, the limit of a price file; split it by region; nothing was imported"
    )
    assert r.stdout == said + "\n", r.stdout


def test_the_row_cap_counts_data_rows_and_names_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gpuplan.catalog.importers.skypilot_common as common

    assert MAX_CSV_ROWS == 200_000  # the figure SECURITY.md states
    monkeypatch.setattr(common, "MAX_CSV_ROWS", 10)
    exactly = tmp_path / "ten.csv"
    exactly.write_text(_rows(10) + "\n\n")  # blank lines are not rows
    assert len(parse_skypilot(exactly, "aws", as_of="2026-11-30").rows) > 0
    over = tmp_path / "eleven.csv"
    over.write_text(_rows(11))
    with pytest.raises(CatalogImportError, match="more than 10 rows, the limit of a price file"):
        parse_skypilot(over, "aws", as_of="2026-11-30")


def test_a_byte_that_is_not_utf8_deep_in_the_file_names_the_line(tmp_path: Path) -> None:
    f = tmp_path / "vms.csv"
    f.write_bytes(_rows(300).encode() + b"p5.48xlarge,H100,8.0,\xff\n")
    with pytest.raises(CatalogImportError) as e:
        parse_skypilot(f, "aws", as_of="2026-11-30")
    assert str(e.value) == (
        f"price file {str(f)!r} line 302 is not UTF-8 text (byte 22 of the line); nothing was imported"
    )


def test_a_price_file_saved_as_gbk_is_told_to_be_saved_as_utf8(tmp_path: Path) -> None:
    # Excel's plain "CSV" on Chinese Windows writes GBK: the refusal had named only the byte
    f = tmp_path / "vms.csv"
    f.write_bytes(_rows(3).encode() + "p5.48xlarge,H100,8.0,华北\n".encode("gbk"))
    with pytest.raises(CatalogImportError) as e:
        parse_skypilot(f, "aws", as_of="2026-11-30")
    assert "line 5 is not UTF-8 text (byte 22 of the line): it reads as GBK" in str(e.value)
    assert "save it as UTF-8 (Excel: 'CSV UTF-8')" in str(e.value)


def test_a_workload_saved_as_gbk_is_told_to_be_saved_as_utf8(tmp_path: Path) -> None:
    from gpuplan.errors import GpuplanError
    from gpuplan.workload import load_workload

    f = tmp_path / "w.yaml"
    f.write_bytes("name: 中文模型\ntask: train\n".encode("gbk"))
    with pytest.raises(GpuplanError) as e:
        load_workload(f)
    assert "is not UTF-8 text (byte 6): it reads as GBK" in str(e.value), str(e.value)
    latin = tmp_path / "l.yaml"
    latin.write_bytes("name: caf\xe9\n".encode("latin-1"))  # not Chinese: no GBK hint
    with pytest.raises(GpuplanError) as e:
        load_workload(latin)
    assert "GBK" not in str(e.value) and "is not UTF-8 text" in str(e.value)


def test_a_file_without_newlines_is_not_read_whole(tmp_path: Path) -> None:
    f = tmp_path / "vms.csv"
    with f.open("w") as out:
        out.write(_rows(3).replace("\n", "\r"))  # old Mac line endings: one 250 MB line
        out.truncate(250_000_000)
    with pytest.raises(CatalogImportError) as e:
        parse_skypilot(f, "aws", as_of="2026-11-30")
    assert str(e.value) == (
        f"price file {str(f)!r} line 1 is longer than 1,048,576 bytes; nothing was imported"
    )


@pytest.mark.parametrize("count", ["1e999", "True", "2.5", "-1", "'x'", "1" + "0" * 400])
def test_a_gpuinfo_count_that_is_no_count_is_a_rejected_row(tmp_path: Path, count: str) -> None:
    header, first, *rest = SAMPLE.read_text().splitlines()
    bad = first.replace("'Count': 4", f"'Count': {count}")
    assert bad != first
    f = tmp_path / "vms.csv"
    f.write_text("\n".join([header, bad, *rest]) + "\n")
    parsed = parse_skypilot(f, "aws", as_of="2026-11-30")
    [why] = [r for r in parsed.rejected if r.line == 2]
    assert "GpuInfo Count" in why.reason
    assert "is not a number from 0 to 1,024" in why.reason or "is not a whole number" in why.reason
    assert len(parsed.rows) == 2 * len(rest) - 1  # the other lines (one without spot) import as before


def test_the_table_of_rejected_rows_shows_fifty_and_counts_the_rest(tmp_path: Path, db_path: Path) -> None:
    header, first, *_ = SAMPLE.read_text().splitlines()
    cpu = "m5.large,,,2.0,8.0,,0.096,0.0377,us-east-1,use1-az1,x86_64"
    f = tmp_path / "vms.csv"
    f.write_text("\n".join([header, first, *[cpu] * 120]) + "\n")
    result = CliRunner().invoke(
        app, ["--db", str(db_path), "catalog", "import", str(f), "--provider", "aws", "--as-of", "2026-11-30"]
    )
    assert result.exit_code == 0, result.output  # CPU rows are skipped as no GPU instance, none lost
    # the summary wraps where the console is narrow (80 columns under xdist)
    assert "0 rows rejected, 120 rows skipped" in " ".join(result.output.split())
    assert "… and 70 more rows (every one with its line and reason in --json)" in result.output
    assert result.output.count("m5.large") == 50


@pytest.mark.parametrize(
    ("as_of", "said"),
    [
        ("2099-01-01", "--as-of '2099-01-01' is after today"),
        ("2026-11/2026-10-01", "--as-of '2026-11/2026-10-01' is not a date; write 2026-11-30"),
    ],
)
def test_an_import_dated_in_the_future_or_backwards_is_refused_and_changes_nothing(
    tmp_path: Path, as_of: str, said: str
) -> None:
    # A price "observed" in 2099 would be the freshest price of its offer for decades.
    db = str(tmp_path / "catalog.sqlite")
    args = ["--db", db, "catalog", "import", str(SAMPLE), "--provider", "aws", "--as-of", as_of]
    r = CliRunner().invoke(app, args)
    assert isinstance(r.exception, InputError), r.output
    assert str(r.exception).startswith(said) and "\n" not in str(r.exception)
    history = CliRunner().invoke(app, ["--db", db, "catalog", "history", "--json"])
    assert "2099" not in history.output and "2026-11/2026-10-01" not in history.output


def test_a_price_file_saved_by_excel_with_a_byte_order_mark_reads_like_one_without(tmp_path: Path) -> None:
    # Excel's "CSV UTF-8" starts the file with U+FEFF: it was taken into the first column's name,
    # and the file refused as "does not have the SkyPilot aws header".
    bom = tmp_path / "bom.csv"
    bom.write_bytes(b"\xef\xbb\xbf" + SAMPLE.read_bytes())

    def offers(path: Path) -> list[tuple[str, str, list[tuple[str, float]]]]:
        rows = parse_skypilot(path, "aws", as_of="2026-11-30").rows
        return [(r.instance_type, r.region, [(p.pricing, p.amount) for p in r.prices]) for r in rows]

    assert offers(bom) == offers(SAMPLE) != []


def test_one_offer_priced_twice_differently_in_one_file_is_refused_on_both_lines(tmp_path: Path) -> None:
    # The later line silently stood as the current price, and the earlier line's spot check was
    # made against the later line's on-demand figure.
    header, first, *_ = SAMPLE.read_text().splitlines()
    # (6.0 stays within 2.6x of the catalog's price of the offer: a figure further off is refused as
    # out of line with it before the lines are compared)
    cheaper = first.replace(",8.22609,", ",6.0,")
    f = tmp_path / "twice.csv"
    f.write_text(f"{header}\n{first}\n{cheaper}\n")
    db = str(tmp_path / "catalog.sqlite")
    r = CliRunner().invoke(
        app, ["--db", db, "catalog", "import", str(f), "--provider", "aws", "--as-of", "2026-11-30", "--json"]
    )
    doc = json.loads(r.stdout)
    reasons = {row["line"]: row["reason"] for row in doc["rejected"]}
    said = "on_demand priced 6, 8.22609 for the same offer in one import (lines 2, 3): keep one"
    assert reasons[2].startswith(said) and reasons[3].startswith(said), reasons
    assert "spot price" not in reasons[2]
    same = tmp_path / "same.csv"
    same.write_text(f"{header}\n{first}\n{first}\n")  # a repeated figure is no conflict
    again = CliRunner().invoke(
        app,
        ["--db", db, "catalog", "import", str(same), "--provider", "aws", "--as-of", "2026-11-30", "--json"],
    )
    assert json.loads(again.stdout)["rejected"] == []


_ALIBABA_HEADER = (
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,"
    "AvailabilityZone,Generation,Arch"
)


def _alibaba_line(price: str) -> str:
    return f"ecs.gn7i-c8g1.2xlarge,A10,1,8,30,A10 24GB,{price},,cn-hangzhou,cn-hangzhou-i,ecs.gn7i,X86"


def test_a_marketplace_file_pricing_one_offer_twice_is_refused_on_both_lines_in_chinese(
    tmp_path: Path, db_path: Path
) -> None:
    # The marketplace reader joined the two lines into one row: the refusal named line 2 only
    # ("lines 2"), and its pricing model stayed "on_demand" in a Chinese line.
    f = tmp_path / "twice.csv"
    f.write_text(f"{_ALIBABA_HEADER}\n{_alibaba_line('1.5')}\n{_alibaba_line('1.7')}\n")
    args = [
        "--db",
        str(db_path),
        "catalog",
        "import",
        str(f),
        "--provider",
        "alibaba",
        "--as-of",
        "2026-11-30",
    ]
    doc = json.loads(CliRunner().invoke(app, [*args, "--json"]).stdout)
    reasons = {row["line"]: row["reason"] for row in doc["rejected"]}
    assert sorted(reasons) == [2, 3], reasons
    assert all("(lines 2, 3)" in r for r in reasons.values()), reasons
    zh = CliRunner().invoke(app, ["--lang", "zh", *args])
    assert "按量付费价格" in zh.output and "on_demand" not in zh.output, zh.output
    same = tmp_path / "same.csv"
    same.write_text(f"{_ALIBABA_HEADER}\n{_alibaba_line('1.5')}\n{_alibaba_line('1.5')}\n")
    again = CliRunner().invoke(
        app,
        [
            "--db",
            str(db_path),
            "catalog",
            "import",
            str(same),
            "--provider",
            "alibaba",
            "--as-of",
            "2026-11-30",
            "--json",
        ],
    )
    assert json.loads(again.stdout)["rejected"] == [], again.stdout


def test_a_negative_price_of_a_converted_layout_is_refused_in_the_files_own_figure(tmp_path: Path) -> None:
    # The Alibaba/Tencent layout keeps Price / 0.138 in CNY: the refusal quoted -10.8696, a figure
    # the file never wrote.
    f = tmp_path / "negative.csv"
    f.write_text(f"{_ALIBABA_HEADER}\n{_alibaba_line('-1.5')}\n")
    [refused] = parse_skypilot(f, "alibaba", as_of="2026-11-30").rejected
    assert refused.reason == "Price -1.5 is not a positive amount", refused.reason


def test_the_table_of_rejected_rows_escapes_control_characters_of_the_file(
    tmp_path: Path, db_path: Path
) -> None:
    # The instance type and region columns were printed as the file had them: an ESC sequence in
    # them recoloured (or retitled) the terminal, where the reason column was escaped already.
    header, first, *_ = SAMPLE.read_text().splitlines()
    bad = first.replace("g5.12xlarge", "p3.\x1b[31mred", 1).replace(
        "ap-northeast-1", "us-\x1b]0;title\x07east", 1
    )
    assert bad.count("\x1b") == 2
    f = tmp_path / "esc.csv"
    f.write_text(f"{header}\n{bad.replace(',8.22609,', ',x,')}\n")
    result = CliRunner().invoke(
        app, ["--db", str(db_path), "catalog", "import", str(f), "--provider", "aws", "--as-of", "2026-11-30"]
    )
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert "p3.\\x1b[31mred" in result.output and "us-\\x1b]0;title\\x07east" in result.output


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        (",8.22609,", ",8_22609,", "Price '8_22609' is not a number"),
        (",8.22609,", ",８.22609,", "Price '８.22609' is not a number"),
        (",48.0,", ",4_8.0,", "vCPUs '4_8.0' is not a number"),
        ("'Count': 4,", "'Count': '４',", "GpuInfo Count"),
    ],
)
def test_a_price_file_number_that_is_no_ascii_decimal_rejects_its_line(
    tmp_path: Path, old: str, new: str, said: str
) -> None:
    # float() read "8_22609" as 822609 and full-width digits as ASCII ones.
    header, first, *_ = SAMPLE.read_text().splitlines()
    assert old in first
    f = tmp_path / "vms.csv"
    f.write_text(f"{header}\n{first.replace(old, new, 1)}\n")
    parsed = parse_skypilot(f, "aws", as_of="2026-11-30")
    assert not parsed.rows
    [why] = parsed.rejected
    assert why.line == 2 and said in why.reason, why.reason
