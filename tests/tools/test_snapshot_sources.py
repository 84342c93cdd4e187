"""The snapshot builder: a gpuhunt CSV as an extra input, the sources folder and its manifest."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "catalog" / "fixtures"
SOURCES = REPO.parent / "shared" / "data"
sys.path.insert(0, str(REPO / "tools"))

from snapshot_manifest import SKYPILOT, check_copy  # noqa: E402
from snapshot_sources import gpuhunt_rows  # noqa: E402

needs_sources = pytest.mark.skipif(not (SOURCES / "skypilot_catalog").is_dir(), reason="needs ../shared/data")


def test_the_builder_reads_gpuhunt_csvs_with_the_catalogs_own_reader() -> None:
    rows, skipped = gpuhunt_rows(FIXTURES / "gpuhunt_sample.csv", "aws", "2026-11-28")
    assert [(r.instance_type, [(p.pricing, p.amount) for p in r.prices]) for r in rows] == [
        ("gpu_1x_h100_sxm5", [("on_demand", 3.78)]),
        ("p5.48xlarge", [("on_demand", 55.04), ("spot", 21.96)]),  # one offer, both prices
    ]
    assert len(skipped) == 2 and "not a GPU instance" in skipped[0] and "GH200" in skipped[1]


def test_every_registered_marketplace_of_skypilots_catalog_has_a_manifest_entry() -> None:
    from gpuplan.catalog.importers.skypilot_markets import MARKET_LAYOUTS

    assert {f.provider for f in SKYPILOT} == {"aws", "azure", "gcp", *MARKET_LAYOUTS}
    for f in SKYPILOT:
        earliest, _, read = f.as_of.partition("/")
        assert earliest < read and f.bound.evidence and f.upstream.startswith("catalogs/v")


@needs_sources
def test_a_copy_the_manifest_does_not_date_is_refused_in_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "sources"
    shutil.copytree(SOURCES, folder, ignore=shutil.ignore_patterns("traces", "price_api_samples"))
    shutil.copytree(SOURCES.parent / "seeds", tmp_path / "seeds")
    newer = folder / "skypilot_catalog" / "vast_v8_vms.csv"
    newer.chmod(0o644)
    newer.write_text(newer.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert check_copy(newer, next(f.sha256 for f in SKYPILOT if f.provider == "vast"))
    result = subprocess.run(
        [sys.executable, str(REPO / "tools" / "build_snapshot.py"), "--sources", str(folder), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1
    [line] = result.stderr.strip().splitlines()
    assert "vast_v8_vms.csv is not the copy tools/snapshot_manifest.py dates" in line


def test_a_folder_without_the_instance_table_is_refused(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(REPO / "tools" / "build_snapshot.py"), "--sources", str(tmp_path), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1 and "pass --sources DIR" in result.stderr
