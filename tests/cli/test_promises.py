"""What the help texts and the README promise, checked as a user reads them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuplan.cli import app
from gpuplan.vocab import pricing_name
from one_line import refused

ROOT = Path(__file__).resolve().parents[2]
SERVICES = ROOT / "examples" / "simulate" / "services.yaml"


def test_gpus_shows_every_column_its_help_names_on_a_wide_terminal(tmp_path: Path) -> None:
    db = tmp_path / "catalog.sqlite"
    help_text = CliRunner().invoke(app, ["gpus", "--help"], env={"COLUMNS": "200"}).output
    assert "bandwidth" in help_text and "FP32/TF32/BF16/FP8" in help_text and "interconnect" in help_text
    out = CliRunner().invoke(app, ["--db", str(db), "gpus"], env={"COLUMNS": "200"}).output
    head = out.splitlines()[0]
    for column in ("mem GiB", "GB/s", "FP32", "TF32", "BF16", "FP8", "interconnect"):
        assert column in head, (column, head)
    for pricing in ("on_demand", "spot", "monthly", "reserved_1y", "reserved_3y"):
        assert pricing_name(pricing) in head, (pricing, head)
    assert max(len(line) for line in out.splitlines()) <= 200


def test_simulate_share_says_which_gpu_a_service_is_on_not_a_count() -> None:
    out = CliRunner().invoke(
        app, ["simulate", "share", str(SERVICES), "--price", "3"], env={"COLUMNS": "120"}
    )
    assert out.exit_code == 0, out.output
    head = next(line for line in out.output.splitlines() if line.startswith("Service "))
    assert "on GPU #" in head and not re.search(r"\bGPUs\b", head)


@pytest.mark.parametrize("value", ["6", "6.5", " 12 "])
def test_a_deadline_without_a_unit_is_refused_in_one_line(
    value: str, fresh_catalog: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Refused before the workload is traced: "6" is six hours, days or minutes, a factor 24 or 60 apart.
    args = [
        "--db",
        str(fresh_catalog),
        "plan",
        str(ROOT / "examples" / "resnet50-imagenet.yaml"),
        "--deadline",
        value,
    ]
    line = refused(args, capsys)
    assert "has no unit" in line and f"{value.strip()}h (hours)" in line


def test_the_readme_says_how_to_install_torch_on_a_cpu_only_and_on_a_cuda_machine() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    setup = readme.split("## Set up, run, test", 1)[1].split("```", 2)[1]
    assert "pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu" in setup
    assert re.search(r"--index-url https://download\.pytorch\.org/whl/cu\d+", setup)
    assert "CPU-only" in setup and "CUDA" in setup
