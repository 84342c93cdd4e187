"""``catalog import --skypilot DIR`` / ``--gpuhunt DIR`` check regions as ``catalog import FILE``
does: a slip of a known region is refused with did-you-mean, a region gpuplan does not know is kept
and named in a warning; an unknown GPU name is not read."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from skypilot_rows import A10G_INFO
from typer.testing import CliRunner, Result

from gpuplan.cli import app

AWS_HEADER = (Path(__file__).parent / "fixtures" / "aws_vms_v8_gpu_sample.csv").read_text().splitlines()[0]
GPUHUNT_HEADER = (
    "instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot,disk_size,gpu_vendor,"
    "flags,cpu_arch,provider_data"
)


def _aws_line(region: str, *, gpu: str = "A10G", zone: str = "usw2-az2") -> str:
    return f"g5.8xlarge,{gpu},1.0,32.0,128.0,{A10G_INFO},2.448,0.9322,{region},{zone},x86_64"


def _import(db: Path, *args: str) -> Result:
    return CliRunner().invoke(app, ["--db", str(db), "catalog", "import", *args, "--as-of", "2026-11-20"])


def _offers_in(db: Path, region: str) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT count(*) FROM offers WHERE region = ?", (region,)).fetchone()[0])


def test_a_skypilot_folder_refuses_a_mistyped_region_and_warns_of_a_new_one(
    tmp_path: Path, db_path: Path
) -> None:
    vms = tmp_path / "checkout" / "catalogs" / "v8" / "aws" / "vms.csv"
    vms.parent.mkdir(parents=True)
    lines = [
        _aws_line("us-west-2"),
        _aws_line("us-wset-2"),
        _aws_line("ap-southeast-9", zone="apse9-az2"),  # a zone of its own region
        _aws_line("us-west-2", gpu="A1OG"),
    ]
    vms.write_text("\n".join([AWS_HEADER, *lines]) + "\n", encoding="utf-8")
    r = _import(db_path, "--skypilot", str(tmp_path / "checkout"))
    # two rows lost (the mistyped region, the slip of a GPU name): the others imported, exit 3
    assert r.exit_code == 3 and "rows of the folder's files refused: 2" in r.output, r.output
    out = " ".join(r.stdout.split())
    assert out.startswith("aws: ok: "), out
    refused = "1 line refused for a mistyped region (unknown region of aws 'us-wset-2'; "
    refused += "did you mean 'us-west-2'"
    assert refused in out, out
    assert "new region ap-southeast-9 of aws (line 4)" in out, out
    assert "1 source line not read" in out, out  # A1OG: the GPU-name check of the reader
    assert _offers_in(db_path, "us-wset-2") == 0
    assert _offers_in(db_path, "ap-southeast-9") == 2  # the region's on-demand, the zone's spot


def test_a_gpuhunt_folder_refuses_a_mistyped_region(tmp_path: Path, db_path: Path) -> None:
    folder = tmp_path / "gpuhunt"
    folder.mkdir()
    rows = [
        "p5.48xlarge,us-east-1,55.04,192,2048.0,8,H100,80.0,False,,nvidia,,x86,{}",
        "p5.48xlarge,us-eats-1,55.04,192,2048.0,8,H100,80.0,False,,nvidia,,x86,{}",
    ]
    (folder / "aws.csv").write_text("\n".join([GPUHUNT_HEADER, *rows]) + "\n", encoding="utf-8")
    r = _import(db_path, "--gpuhunt", str(folder))
    assert r.exit_code == 3 and "rows of the folder's files refused: 1" in r.output, r.output
    out = " ".join(r.stdout.split())
    refused = "1 line refused for a mistyped region (unknown region of aws 'us-eats-1'; "
    refused += "did you mean 'us-east-1'"
    assert refused in out, out
    assert _offers_in(db_path, "us-eats-1") == 0
