"""SkyPilot-format price lines for the import tests: an A10G instance's GpuInfo cell, a file of
lines under a header, and the import command run on it."""

from __future__ import annotations

from pathlib import Path

from click.testing import Result
from typer.testing import CliRunner

from gpuplan.cli import app

#: The GpuInfo cell of SkyPilot's AWS rows of a one-A10G instance (catalogs/v8/aws/vms.csv).
A10G_INFO = (
    "\"{'Gpus': [{'Name': 'A10G', 'Manufacturer': 'NVIDIA', 'Count': 1, 'LogicalGpuCount': 1, "
    "'GpuPartitionSize': 1.0, 'Workloads': ['ml-ai', 'graphics'], 'MemoryInfo': {'SizeInMiB': 22888}}], "
    "'TotalGpuMemoryInMiB': 22888}\""
)


def vms_file(tmp_path: Path, header: str, *lines: str) -> Path:
    f = tmp_path / "vms.csv"
    f.write_text("\n".join([header, *lines]) + "\n", encoding="utf-8")
    return f


def import_file(db: Path, f: Path, provider: str, *extra: str) -> Result:
    args = ["--db", str(db), "catalog", "import", str(f), "--provider", provider, "--as-of", "2026-11-20"]
    return CliRunner().invoke(app, [*args, *extra])
