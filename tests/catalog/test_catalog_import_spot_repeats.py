"""``catalog import FILE`` drops a SkyPilot spot price that only repeats the on-demand one, as the
snapshot builder does, and keeps the line's on-demand price.

SkyPilot's AWS catalog writes the on-demand figure, rounded to four decimals, in ``SpotPrice`` where a
zone has no spot price (g5.24xlarge in eu-central-1: Price 10.184, SpotPrice 10.1841). Refusing the
line for it would lose a real on-demand price; the builder's rule
(:func:`~gpuplan.catalog.importers.skypilot_traps.spot_not_below_on_demand`) drops the spot price
with its reason, and the import says so in a warning line."""

from __future__ import annotations

import json
from pathlib import Path

from skypilot_rows import A10G_INFO
from typer.testing import CliRunner, Result

from gpuplan.cli import app

AWS_HEADER = (Path(__file__).parent / "fixtures" / "aws_vms_v8_gpu_sample.csv").read_text().splitlines()[0]


def _aws_line(*, itype: str = "g5.8xlarge", price: str, spot: str, zone: str = "usw2-az2") -> str:
    return f"{itype},A10G,1.0,32.0,128.0,{A10G_INFO},{price},{spot},us-west-2,{zone},x86_64"


def _import(tmp_path: Path, db: Path, *lines: str, extra: tuple[str, ...] = ("--json",)) -> Result:
    f = tmp_path / "vms.csv"
    f.write_text("\n".join([AWS_HEADER, *lines]) + "\n", encoding="utf-8")
    args = ["--db", str(db), "catalog", "import", str(f), "--provider", "aws", "--as-of", "2026-11-20"]
    return CliRunner().invoke(app, [*args, *extra])


def test_a_spot_price_repeating_the_on_demand_one_is_dropped_and_the_on_demand_kept(
    tmp_path: Path, db_path: Path
) -> None:
    r = _import(
        tmp_path,
        db_path,
        _aws_line(price="2.44809", spot="2.4481"),  # the on-demand figure, rounded up
        _aws_line(itype="g5.4xlarge", price="1.624", spot="0.61"),
    )
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["rejected"] == []
    assert doc["prices_imported"] == 3  # line 2's on-demand; line 3's on-demand and spot
    (warning,) = doc["warnings"]
    assert warning.startswith("spot price dropped on line 2 (g5.8xlarge in us-west-2: spot 2.4481, "), warning
    assert "on-demand 2.44809" in warning, warning


def test_the_summary_names_every_dropped_spot_price_in_one_warning(tmp_path: Path, db_path: Path) -> None:
    lines = [_aws_line(price="2.448", spot="2.448", zone=z) for z in ("usw2-az1", "usw2-az2", "usw2-az3")]
    r = _import(tmp_path, db_path, *lines, extra=())
    assert r.exit_code == 0, r.output
    out = " ".join(r.output.split())
    assert "aws: 0 new offers, 1 prices imported, dated 2026-11-20; 0 rows rejected." in out, out
    expected = "warning: 3 spot prices dropped (lines 2, 3, 4; first: g5.8xlarge in us-west-2: spot 2.448, "
    assert expected in out, out


def test_a_provider_whose_figures_are_not_prices_keeps_its_lines_refused(
    tmp_path: Path, db_path: Path
) -> None:
    # Mithril's one auction figure in both columns: dropping the spot copy would store it as on-demand
    f = tmp_path / "vms.csv"
    f.write_text(
        "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,SpotPrice,Region,GpuInfo\n"
        "ccs-h200.sxm.1x,H200,1,20,200,1.0,1.0,us-central2-b,\"{'Gpus': [{'Name': 'H200', 'Manufacturer': "
        "'NVIDIA', 'Count': 1, 'MemoryInfo': {'SizeInMiB': 144384}}], 'TotalGpuMemoryInMiB': 144384}\"\n",
        encoding="utf-8",
    )
    args = [
        "--db",
        str(db_path),
        "catalog",
        "import",
        str(f),
        "--provider",
        "mithril",
        "--as-of",
        "2026-11-30",
        "--json",
    ]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 1, r.output
    doc = json.loads(r.stdout)
    assert doc["prices_imported"] == 0
    assert doc["warnings"] == []
    assert "not below the on-demand" in doc["rejected"][0]["reason"]


def test_a_spot_price_above_the_on_demand_one_is_dropped_in_its_own_words(
    tmp_path: Path, db_path: Path
) -> None:
    # 9.5 beside 8.22 repeats nothing: it is dearer than on demand, so not a spot discount
    r = _import(
        tmp_path,
        db_path,
        _aws_line(itype="g5.12xlarge", price="8.22", spot="9.5"),
        _aws_line(price="2.44809", spot="2.4481", zone="usw2-az3"),
    )
    assert r.exit_code == 3, r.output  # some rows rejected, the others imported
    above, repeats = sorted(json.loads(r.stdout)["warnings"], key=lambda w: "repeats" in w)
    assert "g5.12xlarge in us-west-2: spot 9.5, on-demand 8.22" in above, above
    assert "spot above on-demand: not a spot discount, dropped" in above, above
    assert "repeats" not in above, above
    assert "g5.8xlarge in us-west-2: spot 2.4481, on-demand 2.44809" in repeats, repeats
    assert "repeats its on-demand price (no spot price published)" in repeats, repeats
