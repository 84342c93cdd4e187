"""A SkyPilot-layout file's regions are checked against the provider's known regions, as a price
list of one's own is: a mistyped one (``us-wset-2``) is refused with the name it is closest to, not
stored as a new place; one gpuplan does not know but not a slip of a known one (GCP's
``asia-northeast2`` beside ``asia-northeast1``, another number) is kept, and the summary names it."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from skypilot_rows import A10G_INFO, import_file, vms_file

FIXTURES = Path(__file__).parent / "fixtures"
AWS_HEADER = (FIXTURES / "aws_vms_v8_gpu_sample.csv").read_text().splitlines()[0]
LAMBDA_HEADER = (FIXTURES / "skypilot_lambda_sample.csv").read_text().splitlines()[0]


def _g5(region: str, zone: str = "usw2-az2") -> str:
    return f"g5.8xlarge,A10G,1.0,32.0,128.0,{A10G_INFO},2.448,0.9322,{region},{zone},x86_64"


def _offers_in(db: Path, region: str) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT count(*) FROM offers WHERE region = ?", (region,)).fetchone()[0])


def test_a_mistyped_region_is_refused_with_did_you_mean(tmp_path: Path, db_path: Path) -> None:
    r = import_file(
        db_path, vms_file(tmp_path, AWS_HEADER, _g5("us-wset-2"), _g5("us-west-2")), "aws", "--json"
    )
    assert r.exit_code == 3, r.output  # a row lost, the others imported
    doc = json.loads(r.stdout)
    (refused,) = doc["rejected"]
    assert refused["line"] == 2
    assert refused["reason"].startswith("unknown region of aws 'us-wset-2'; did you mean 'us-west-2'"), (
        refused
    )
    assert _offers_in(db_path, "us-wset-2") == 0
    assert doc["warnings"] == []


def test_an_unknown_region_unlike_any_known_one_is_kept_and_named(tmp_path: Path, db_path: Path) -> None:
    lines = (_g5("ap-southeast-9", "apse9-az1"), _g5("ap-southeast-9", "apse9-az2"))
    r = import_file(db_path, vms_file(tmp_path, AWS_HEADER, *lines), "aws", "--json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["rejected"] == []
    assert doc["warnings"] == [
        "new region ap-southeast-9 of aws (lines 2, 3): not one of the regions gpuplan knows; "
        "its offers are imported as the file names them"
    ]
    assert _offers_in(db_path, "ap-southeast-9") == 3  # the region's on-demand offer, two zones' spot


def test_the_summary_names_a_new_region(tmp_path: Path, db_path: Path) -> None:
    r = import_file(db_path, vms_file(tmp_path, AWS_HEADER, _g5("ap-southeast-9", "apse9-az1")), "aws")
    assert r.exit_code == 0, r.output
    assert "warning: new region ap-southeast-9 of aws (line 2)" in " ".join(r.output.split()), r.output


def test_real_lambda_regions_pass(tmp_path: Path, db_path: Path) -> None:
    r = import_file(db_path, FIXTURES / "skypilot_lambda_sample.csv", "lambda", "--json")
    # its CPU-only row is skipped as no GPU instance, which is no row lost: exit 0
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["rejected"] == [] and [x["reason"] for x in doc["skipped"]] == [
        "no accelerator (not a GPU instance)"
    ]
    assert json.loads(r.stdout)["warnings"] == []


def test_an_accelerator_gpuplan_has_no_datasheet_of_or_a_priceless_row_is_skipped_not_lost(
    tmp_path: Path, db_path: Path
) -> None:
    # was: AWS's own SkyPilot file exited 3 on every import for its FPGA, Radeon and new-chip rows
    # and its p5e rows listed without a price, so a nightly script could not tell a lost row
    fpga = "f1.16xlarge,Virtex UltraScale (VU9P),8.0,64.0,976.0,,14.52,3.794800,eu-west-1,euw1-az1,x86_64"
    priceless = f"g5.8xlarge,A10G,1.0,32.0,128.0,{A10G_INFO},,,us-west-2,usw2-az2,x86_64"
    r = import_file(
        db_path, vms_file(tmp_path, AWS_HEADER, _g5("us-west-2"), fpga, priceless), "aws", "--json"
    )
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["rejected"] == [] and [(x["line"], x["skipped"]) for x in doc["skipped"]] == [
        (3, True),
        (4, True),
    ]
    # a slip of the name of a GPU the instance type has is lost, with did-you-mean
    typo = _g5("us-west-2").replace("A10G", "A1OG")
    r = import_file(db_path, vms_file(tmp_path, AWS_HEADER, _g5("us-west-2"), typo), "aws", "--json")
    assert r.exit_code == 3, r.output
    [lost] = json.loads(r.stdout)["rejected"]
    assert not lost["skipped"] and "did you mean 'A10G'" in lost["reason"], lost
