"""A price file's zones must be zones of its rows' regions, in the provider's own form: a file is
someone else's input, and each zone it names becomes an offer (20,000 made-up zones had been 20,000
offers). Providers whose naming is not known keep their zones, up to a bound per region."""

from __future__ import annotations

import csv
import json
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from gpuplan.catalog.zones import MAX_ZONES_PER_REGION, zone_problem
from gpuplan.cli import app

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures"
SNAPSHOT = ROOT / "src" / "gpuplan" / "catalog" / "data" / "offers.csv"
AWS_SAMPLE = FIXTURES / "aws_vms_v8_gpu_sample.csv"


def _import(db: Path, f: Path, *args: str) -> Result:
    return CliRunner().invoke(
        app, ["--db", str(db), "catalog", "import", str(f), *args, "--as-of", "2026-11-20"]
    )


def _zones(db: Path, provider: str) -> set[tuple[str, str]]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT region, zone FROM offers WHERE provider = ? AND zone != ''", (provider,))
        return {(r, z) for r, z in rows}


def _offers(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT count(*) FROM offers").fetchone()[0])


def test_every_zone_of_the_shipped_snapshot_is_one_of_its_region() -> None:
    with SNAPSHOT.open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    refused = [
        (r["provider"], r["region"], r["zone"])
        for r in rows
        if zone_problem(r["provider"], r["region"], r["zone"]) is not None
    ]
    assert refused == []
    per_region = Counter({(r["provider"], r["region"], r["zone"]) for r in rows if r["zone"]})
    most = Counter((p, region) for p, region, _ in per_region).most_common(1)[0][1]
    assert most <= MAX_ZONES_PER_REGION  # 24 (RunPod's US)


@pytest.mark.parametrize(
    ("provider", "region", "good", "bad"),
    [
        (
            "aws",
            "us-east-1",
            ["us-east-1a", "us-east-1-bos-1a", "use1-az4", "use1-atl2-az1"],
            ["us-east-2a", "use2-az1", "us-east-1", "fake-zone-1"],
        ),
        ("aws", "ap-northeast-1", ["ap-northeast-1c", "apne1-az1"], ["apse1-az1", "ap-northeast-1-1"]),
        ("aws", "us-gov-west-1", ["usgw1-az1", "us-gov-west-1a"], ["usw1-az1"]),
        (
            "gcp",
            "us-central1",
            ["us-central1-a", "us-central1-ai1a"],
            ["us-central2-a", "a", "us-central1-aa"],
        ),
        ("azure", "eastus", ["1", "2", "3"], ["4", "eastus-1"]),
        ("alibaba", "cn-hangzhou", ["cn-hangzhou-h"], ["cn-beijing-h", "cn-hangzhou-1", "cn-hangzhouh"]),
        ("tencent", "ap-guangzhou", ["ap-guangzhou-3"], ["ap-guangzhou-a", "ap-shanghai-3"]),
        ("huawei", "cn-north-4", ["cn-north-4a"], ["cn-north-4-a", "cn-north-1a"]),
        ("volcengine", "cn-beijing", ["cn-beijing-a"], ["cn-shanghai-a", "cn-beijing-1"]),
        ("oci", "af-casablanca-1", ["AF-CASABLANCA-1-AD-1"], ["AF-JOHANNESBURG-1-AD-1"]),
    ],
)
def test_a_zone_must_be_of_its_region_in_the_providers_form(
    provider: str, region: str, good: list[str], bad: list[str]
) -> None:
    assert [z for z in good if zone_problem(provider, region, z) is not None] == []
    assert [z for z in bad if zone_problem(provider, region, z) is None] == []


def test_a_recorded_file_with_real_zones_imports_them_all(tmp_path: Path, db_path: Path) -> None:
    with AWS_SAMPLE.open(encoding="utf-8") as f:
        in_file = {(r["Region"], r["AvailabilityZone"]) for r in csv.DictReader(f)}
    r = _import(db_path, AWS_SAMPLE, "--provider", "aws", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["rejected"] == []
    assert in_file <= _zones(db_path, "aws")


def _made_up(tmp_path: Path, n: int) -> Path:
    """The recorded AWS sample, then ``n`` copies of its us-west-2 line each with a made-up zone."""
    lines = AWS_SAMPLE.read_text(encoding="utf-8").splitlines()
    [g5] = [x for x in lines if ",us-west-2,usw2-az2," in x]
    made_up = [g5.replace(",usw2-az2,", f",fake-zone-{i},") for i in range(n)]
    f = tmp_path / "made_up.csv"
    f.write_text("\n".join([*lines, *made_up]) + "\n", encoding="utf-8")
    return f


def test_made_up_zones_are_refused_and_counted(tmp_path: Path, db_path: Path) -> None:
    f = _made_up(tmp_path, 300)
    n_sample = len(AWS_SAMPLE.read_text(encoding="utf-8").splitlines())
    before = _zones(db_path, "aws")
    r = _import(db_path, f, "--provider", "aws", "--json")
    assert r.exit_code == 3, r.output  # some rows rejected, the others imported
    doc: dict[str, Any] = json.loads(r.stdout)
    rejected = doc["rejected"]
    assert len(rejected) == 300
    assert [x["line"] for x in rejected] == list(range(n_sample + 1, n_sample + 301))
    assert rejected[0]["reason"] == (
        "zone 'fake-zone-0' is not a zone of aws region us-west-2 (its zones read like us-west-2a, usw2-az1)"
    )
    assert _zones(db_path, "aws") == before  # the sample's zones are in the snapshot already
    # the text says the cause once, with its count and first line
    text = _import(db_path, f, "--provider", "aws")
    assert f"zone not of its region: 300 rows rejected (first on line {n_sample + 1})" in text.stdout


def _lambda_quote(tmp_path: Path, zones: list[str]) -> Path:
    header = "provider,region,zone,instance_type,gpu,gpu_count,pricing,price,currency,unit,as_of,source"
    lines = [
        f"lambda,us-east-1,{z},gpu_8x_v100,V100-PCIE-16GB,8,on_demand,6.32,USD,hour,2026-11-20,our quote"
        for z in zones
    ]
    f = tmp_path / "lambda.csv"
    f.write_text("\n".join([header, *lines]) + "\n", encoding="utf-8")
    return f


def test_zones_of_a_provider_whose_naming_is_not_known_are_bounded_per_region(
    tmp_path: Path, db_path: Path
) -> None:
    extra = 6
    zones = [f"dc-{i}" for i in range(MAX_ZONES_PER_REGION + extra)]
    before = _offers(db_path)
    r = _import(db_path, _lambda_quote(tmp_path, zones), "--format", "gpuplan", "--json")
    assert r.exit_code == 3, r.output  # some rows rejected, the others imported
    rejected = json.loads(r.stdout)["rejected"]
    # the first 64 zones are kept as written; each one past the bound is refused
    assert [x["line"] for x in rejected] == list(
        range(MAX_ZONES_PER_REGION + 2, MAX_ZONES_PER_REGION + 2 + extra)
    )
    assert rejected[0]["reason"] == (
        f"zone 'dc-{MAX_ZONES_PER_REGION}' would be one more than the {MAX_ZONES_PER_REGION} zones a "
        "region may have (lambda region us-east-1)"
    )
    assert _offers(db_path) == before + MAX_ZONES_PER_REGION
    # a later file cannot add more: the bound counts the zones the catalog holds
    r = _import(db_path, _lambda_quote(tmp_path, ["dc-new"]), "--format", "gpuplan", "--json")
    assert r.exit_code != 0
    assert _offers(db_path) == before + MAX_ZONES_PER_REGION
