"""The snapshot builder reads a SkyPilot catalog directory (clouds and marketplaces) and a gpuhunt CSV."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "catalog" / "fixtures"
sys.path.insert(0, str(REPO / "tools"))

from snapshot_sources import gpuhunt_rows, skypilot_rows  # noqa: E402


@pytest.fixture
def catalog_dir(tmp_path: Path) -> Path:
    for cloud, name in (
        ("aws", "aws_vms_v8_gpu_sample.csv"),
        ("gcp", "gcp_v8_synthetic_pair.csv"),
        ("azure", "azure_vms_v6_gpu_sample.csv"),
        ("lambda", "skypilot_lambda_sample.csv"),
    ):
        (tmp_path / cloud).mkdir()
        shutil.copy(FIXTURES / name, tmp_path / cloud / "vms.csv")
    return tmp_path


def test_skypilot_directory_yields_clouds_and_marketplaces_with_the_given_date(catalog_dir: Path) -> None:
    found = {p: (rows, rejected) for p, rows, rejected in skypilot_rows(catalog_dir, "2026-11-28")}
    assert set(found) == {"aws", "gcp", "azure", "lambda"}
    aws_rows, _ = found["aws"]
    assert {r.instance_type for r in aws_rows} >= {"g5.12xlarge", "g5.8xlarge"}
    assert all(p.as_of == "2026-11-28" for r in aws_rows for p in r.prices)
    lam, rejected = found["lambda"]
    [v100] = lam
    assert (v100.instance_type, v100.gpu, v100.gpu_count) == ("gpu_8x_v100", "V100-SXM2-16GB", 8.0)
    assert rejected == 1  # the A6000 is not in the hardware catalog


def test_gpuhunt_csv_rows_keep_spot_apart_and_skip_unknown_gpus() -> None:
    rows, skipped = gpuhunt_rows(FIXTURES / "gpuhunt_sample.csv", "aws", "2026-11-28")
    assert [(r.instance_type, r.prices[0].pricing, r.prices[0].amount) for r in rows] == [
        ("gpu_1x_h100_sxm5", "on_demand", 3.78),
        ("p5.48xlarge", "on_demand", 55.04),
        ("p5.48xlarge", "spot", 21.96),
    ]
    assert len(skipped) == 1 and "GH200" in skipped[0]


def test_builder_adds_a_skypilot_directory_only_with_a_date(catalog_dir: Path, tmp_path: Path) -> None:
    shared = REPO.parent / "shared" / "data"
    if not (shared / "instance_types.csv").is_file():
        shared = Path("/work/shared/data")
    if not (shared / "instance_types.csv").is_file():
        pytest.skip("needs shared/data")
    cmd = [
        sys.executable,
        str(REPO / "tools" / "build_snapshot.py"),
        "--shared",
        str(shared),
        "--out",
        str(tmp_path / "o"),
    ]
    no_date = subprocess.run([*cmd, "--skypilot-catalog", str(catalog_dir)], capture_output=True, text=True)
    assert no_date.returncode == 1 and "--as-of" in no_date.stderr
    ok = subprocess.run(
        [*cmd, "--skypilot-catalog", str(catalog_dir), "--as-of", "2026-11-28"],
        capture_output=True,
        text=True,
    )
    assert ok.returncode == 0, ok.stderr
    assert "skypilot lambda: 1 offer rows" in ok.stdout
    offers = (tmp_path / "o" / "offers.csv").read_text()
    assert "gpu_8x_v100" in offers and "g5.12xlarge" in offers
