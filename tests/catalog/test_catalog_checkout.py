"""``catalog import --skypilot DIR`` / ``--gpuhunt DIR``: a folder of newer catalogs refreshes the
catalog offline, one transaction per provider, history kept, with the snapshot's own reader and
steps; a missing folder, a malformed file or a cloud gpuplan does not know is one line each.

The SkyPilot checkout is built from the real files in the maintainers' sources folder
(``../shared/data/skypilot_catalog``, which CI has), laid out as SkyPilot's repository lays them out.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuplan.catalog import open_store
from gpuplan.catalog.checkout import gpuhunt_files, skypilot_files
from gpuplan.catalog.history import price_history
from gpuplan.catalog.importers.gpuhunt import GPUHUNT_COLUMNS, parse_gpuhunt
from gpuplan.cli import app
from gpuplan.errors import GpuplanError
from gpuplan.i18n.error_text import error_text

REPO = Path(__file__).resolve().parents[2]
SKYPILOT = REPO.parent / "shared" / "data" / "skypilot_catalog"
GPUHUNT = Path(__file__).parent / "fixtures" / "gpuhunt_v2"
needs_sources = pytest.mark.skipif(not SKYPILOT.is_dir(), reason="needs the sources folder ../shared/data")
runner = CliRunner()
AS_OF = "2026-11-30"
#: The sources folder's copies and where SkyPilot's repository keeps each.
LAYOUT = {
    "aws_v8_vms_gpu.csv": "catalogs/v8/aws/vms.csv",
    "azure_v6_vms_gpu.csv": "catalogs/v6/azure/vms.csv",  # Azure is in v6 only
    "lambda_v8_vms.csv": "catalogs/v8/lambda/vms.csv",
    "vast_v8_vms.csv": "catalogs/v8/vast/vms.csv",
    "mithril_v8_vms.csv": "catalogs/v8/mithril/vms.csv",
}


def checkout(tmp_path: Path) -> Path:
    """A SkyPilot catalog checkout of real files, plus an older schema version of Lambda's (never
    read: v8 has Lambda) and a cloud gpuplan has no provider for."""
    root = tmp_path / "skypilot-catalog"
    for name, rel in LAYOUT.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SKYPILOT / name, root / rel)
    (root / "catalogs/v7/lambda").mkdir(parents=True)
    (root / "catalogs/v7/lambda/vms.csv").write_text("not, the, newest\n")  # hand-made: must not be read
    (root / "catalogs/v8/ibm").mkdir(parents=True)
    (root / "catalogs/v8/ibm/vms.csv").write_text("InstanceType,Price\nbx2-2x8,0.1\n")  # hand-made
    return root


def _import(db: Path, *args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["--db", str(db), "catalog", "import", *args])


def _counts(db: Path, provider: str) -> tuple[int, int]:
    store = open_store(str(db))
    [row] = store._query(
        "SELECT COUNT(DISTINCT o.id) AS offers, COUNT(p.id) AS prices FROM offers o "
        "LEFT JOIN prices p ON p.offer_id = o.id WHERE o.provider = :p",
        {"p": provider},
    )
    store.close()
    return row.offers, row.prices


@needs_sources
def test_a_skypilot_checkout_refreshes_each_provider_in_its_own_transaction(
    db_path: Path, tmp_path: Path
) -> None:
    root = checkout(tmp_path)
    assert [(f.provider, f.label) for f in skypilot_files(root)] == [
        ("aws", "catalogs/v8/aws/vms.csv"),
        ("azure", "catalogs/v6/azure/vms.csv"),
        ("lambda", "catalogs/v8/lambda/vms.csv"),  # the newest version that has the cloud
        ("vast", "catalogs/v8/vast/vms.csv"),
        ("mithril", "catalogs/v8/mithril/vms.csv"),
        (None, "catalogs/v8/ibm/vms.csv"),
    ]
    offers_before = {p: _counts(db_path, p)[0] for p in ("aws", "azure", "lambda", "vast")}
    result = _import(db_path, "--skypilot", str(root), "--as-of", AS_OF)
    assert result.exit_code == 0, result.output
    lines = result.stdout.strip().splitlines()
    assert [ln.split(":")[0] for ln in lines] == ["aws", "azure", "lambda", "vast", "mithril", "ibm"]
    assert all(": ok: " in ln for ln in lines[:5])
    assert lines[-1] == (
        "ibm: skipped: gpuplan has no provider for SkyPilot's ibm catalog (catalogs/v8/ibm/vms.csv)"
    )
    assert "(0 new offers)" in lines[0]  # the snapshot's offers: the same reader, the same steps
    assert "prices taken out, as the shipped snapshot takes them out" in lines[4]  # Mithril's
    for provider, offers in offers_before.items():
        assert _counts(db_path, provider)[0] == offers
    # History kept: the shipped (bounded) date and the import's day, the figure of the source row.
    store = open_store(str(db_path))
    on_demand = [p for p in price_history(store, "p5.48xlarge", "us-east-1") if p.pricing == "on_demand"]
    assert {p.as_of for p in on_demand} >= {AS_OF} and len({p.as_of for p in on_demand}) >= 2
    assert {p.price_usd_per_hour for p in on_demand if p.as_of == AS_OF} == {55.04}
    [run] = store._query("SELECT status, message, sources FROM refresh_runs WHERE provider = 'aws'")
    assert run.status == "ok" and "catalogs/v8/aws/vms.csv" in run.sources
    store.close()


@needs_sources
def test_a_malformed_file_changes_nothing_for_its_provider_and_the_others_import(
    db_path: Path, tmp_path: Path
) -> None:
    root = checkout(tmp_path)
    vast = root / "catalogs/v8/vast/vms.csv"
    lines = vast.read_text(encoding="utf-8").splitlines()
    lines.insert(20, "1x-H100-8-16384,H100,1,8,16.0,\"{'Gpus': [unterminated")  # hand-made broken line
    vast.write_text("\n".join(lines) + "\n", encoding="utf-8")
    before = _counts(db_path, "vast")
    result = _import(
        db_path, "--skypilot", str(root), "--as-of", AS_OF, "--provider", "vast", "--provider", "lambda"
    )
    assert result.exit_code == 1
    out = result.stdout.strip().splitlines()
    assert [ln.split(":")[0] for ln in out] == ["lambda", "vast"]
    assert out[0].startswith("lambda: ok: ")
    assert out[1].startswith("vast: failed (") and "nothing was imported" in out[1]
    assert "kept the last good data" in out[1]
    assert _counts(db_path, "vast") == before


@needs_sources
def test_a_price_ten_times_off_the_catalogs_is_refused_in_a_folder_import_as_in_a_file_import(
    db_path: Path, tmp_path: Path
) -> None:
    # was: a folder import skipped the checks a one-file import makes; a price typed 100 times too
    # high (329 for 3.29) went into the catalog.
    root = checkout(tmp_path)
    lam = root / "catalogs/v8/lambda/vms.csv"
    text = lam.read_text(encoding="utf-8")
    row = "gpu_1x_h100_pcie,H100,1.0,26.0,200.0,3.29,europe-central-1,"
    assert row in text
    lam.write_text(text.replace(row, row.replace(",3.29,", ",329.0,")), encoding="utf-8")  # hand-made
    result = _import(db_path, "--skypilot", str(root), "--as-of", AS_OF, "--provider", "lambda")
    # the others imported, the row lost said (it had exited 0, as if nothing was)
    assert result.exit_code == 3, result.output
    assert result.stderr == (
        "warning: rows of the folder's files refused: 1 (said above); the others were imported "
        "(exit status 3)\n"
    )
    [line] = result.stdout.strip().splitlines()
    assert line.startswith("lambda: ok: ") and "1 price refused, out of line with the catalog's" in line, line
    store = open_store(str(db_path))
    try:
        hist = price_history(store, "gpu_1x_h100_pcie", "europe-central-1")
    finally:
        store.close()
    assert all(p.price_usd_per_hour < 100 for p in hist), [p.price_usd_per_hour for p in hist]


@pytest.mark.parametrize(
    ("case", "args", "says"),
    [
        ("missing folder", ["--skypilot", "{tmp}/nowhere", "--as-of", AS_OF], "does not exist"),
        ("a file, not a folder", ["--skypilot", "{tmp}/file.txt", "--as-of", AS_OF], "is not a folder"),
        ("no catalog in it", ["--skypilot", "{tmp}/empty", "--as-of", AS_OF], "expected catalogs/v8/<cloud>"),
        ("no date", ["--skypilot", "{tmp}/empty"], "give --as-of"),
        ("not a date", ["--skypilot", "{tmp}/empty", "--as-of", "yesterday"], "is not a date"),
        ("two sources", ["--skypilot", "{tmp}", "--gpuhunt", "{tmp}", "--as-of", AS_OF], "give one of"),
        ("no gpuhunt files", ["--gpuhunt", "{tmp}/empty", "--as-of", AS_OF], "expected <provider>.csv"),
        ("--json", ["--gpuhunt", str(GPUHUNT), "--as-of", AS_OF, "--json"], "one line per provider"),
        (
            "a provider not there",
            ["--gpuhunt", str(GPUHUNT), "--as-of", AS_OF, "--provider", "azure"],
            "has no catalog file for azure",
        ),
    ],
)
def test_a_wrong_folder_or_option_is_one_line_and_exit_1(
    db_path: Path, tmp_path: Path, case: str, args: list[str], says: str
) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "file.txt").write_text("x")
    result = _import(db_path, *(a.format(tmp=tmp_path) for a in args))
    # The CLI's main() writes a GpuplanError as "error: <line>" and exits 1 (tests/cli check that).
    assert isinstance(result.exception, GpuplanError), (case, result.output, result.exception)
    line = error_text(result.exception)
    assert says in line and "\n" not in line, (case, line)


def test_a_link_out_of_the_folder_is_named_and_not_read(db_path: Path, tmp_path: Path) -> None:
    folder = tmp_path / "gpuhunt"
    folder.mkdir()
    shutil.copyfile(GPUHUNT / "aws.csv", folder / "aws.csv")
    (tmp_path / "elsewhere.csv").write_text((GPUHUNT / "gcp.csv").read_text())
    (folder / "gcp.csv").symlink_to(tmp_path / "elsewhere.csv")
    before = _counts(db_path, "gcp")
    result = _import(db_path, "--gpuhunt", str(folder), "--as-of", AS_OF)
    assert result.exit_code == 1
    aws, gcp = result.stdout.strip().splitlines()
    assert aws.startswith("aws: ok: ") and gcp.startswith("gcp: failed (gcp.csv links out of the folder")
    assert _counts(db_path, "gcp") == before


def test_gpuhunt_files_import_under_gpuhunts_provider_names(db_path: Path) -> None:
    assert [(f.name, f.provider) for f in gpuhunt_files(GPUHUNT)] == [
        ("aws", "aws"),
        ("gcp", "gcp"),
        ("vastai", "vast"),  # gpuhunt's name, the registry's alias
        ("vultr", None),
    ]
    result = _import(db_path, "--gpuhunt", str(GPUHUNT), "--as-of", AS_OF, "--lang", "zh")
    assert result.exit_code == 0, result.output
    lines = result.stdout.strip().splitlines()
    assert [ln.split(":")[0] for ln in lines] == ["aws", "gcp", "vast", "vultr"]
    assert "成功" in lines[0] and "已跳过" in lines[-1] and "gpuhunt 的 vultr 价目" in lines[-1]


def test_gpuhunt_rows_read_its_columns_zones_and_spot_flag() -> None:
    header = (GPUHUNT / "aws.csv").read_text().splitlines()[0]
    assert tuple(header.split(",")) == GPUHUNT_COLUMNS  # gpuhunt's CATALOG_V2_FIELDS, in order
    aws = parse_gpuhunt(GPUHUNT / "aws.csv", "aws", as_of=AS_OF)
    [p5] = aws.rows
    assert (p5.gpu, p5.gpu_count, p5.vcpus) == ("H100-SXM", 8, 192)  # AWS's H100 through its name table
    assert [(p.pricing, p.amount) for p in p5.prices] == [("on_demand", 55.04), ("spot", 21.96)]
    assert [r.reason for r in aws.rejected] == ["no accelerator (not a GPU instance)"]
    gcp = parse_gpuhunt(GPUHUNT / "gcp.csv", "gcp", as_of=AS_OF)
    assert {(r.region, r.zone, r.instance_type, r.gpu) for r in gcp.rows} == {
        ("us-central1", "us-central1-a", "n1-standard-4 + 1x nvidia-tesla-t4", "T4"),
        ("us-central1", "us-central1-b", "n1-standard-4 + 1x nvidia-tesla-t4", "T4"),
        ("us-central1", "us-central1-a", "a2-highgpu-1g", "A100-SXM4-40GB"),
    }
    assert "v5litepod" in gcp.rejected[0].reason  # a TPU is no GPU of the hardware catalog


def test_a_second_price_of_the_same_offer_and_a_bad_spot_flag_are_refused_by_line(tmp_path: Path) -> None:
    text = (GPUHUNT / "aws.csv").read_text()
    lines = text.splitlines()
    (tmp_path / "aws.csv").write_text(
        "\n".join([*lines, lines[1].replace("55.04", "54.00"), lines[2].replace(",True,", ",yes,")]) + "\n"
    )  # hand-made: line 5 repeats line 2's on-demand price, line 6 spells spot "yes"
    parsed = parse_gpuhunt(tmp_path / "aws.csv", "aws", as_of=AS_OF)
    reasons = {r.line: r.reason for r in parsed.rejected}
    assert reasons[5] == "a second on_demand price of the same offer (line 2)"
    assert reasons[6] == "spot 'yes' is not True or False"


@pytest.mark.parametrize("written", ["55_04", "５５.04", "٥٥.04", "0x37"])
def test_a_gpuhunt_price_that_is_no_ascii_decimal_is_refused_by_line(tmp_path: Path, written: str) -> None:
    # float() read "55_04" as 5504 and the full-width or Arabic-Indic digits as 55.04: prices a file
    # never meant, imported as if written plainly.
    header, first, *_ = (GPUHUNT / "aws.csv").read_text().splitlines()
    (tmp_path / "aws.csv").write_text(f"{header}\n{first.replace('55.04', written)}\n")
    parsed = parse_gpuhunt(tmp_path / "aws.csv", "aws", as_of=AS_OF)
    assert not parsed.rows
    assert [(r.line, r.reason) for r in parsed.rejected] == [(2, f"price {written!r} is not a number")]
