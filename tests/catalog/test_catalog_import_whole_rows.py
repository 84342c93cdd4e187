"""``catalog import FILE`` takes a file's row whole or not at all, and says why.

A SkyPilot AWS line holds two prices (the region's on-demand, the zone's spot) that the reader splits
into two offers: a bad figure in one must refuse the line, not leave the other half stored while the
summary counts the line as rejected."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from skypilot_rows import A10G_INFO, import_file, vms_file

AWS_HEADER = (Path(__file__).parent / "fixtures" / "aws_vms_v8_gpu_sample.csv").read_text().splitlines()[0]


def _aws_line(
    *,
    itype: str = "g5.8xlarge",
    gpu: str = "A10G",
    price: str = "2.448",
    spot: str = "0.9322",
    region: str = "us-west-2",
) -> str:
    return f"{itype},{gpu},1.0,32.0,128.0,{A10G_INFO},{price},{spot},{region},usw2-az2,x86_64"


def _prices(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT count(*) FROM prices").fetchone()[0])


def test_a_negative_on_demand_price_refuses_the_lines_spot_price_too(tmp_path: Path, db_path: Path) -> None:
    before = _prices(db_path)
    r = import_file(db_path, vms_file(tmp_path, AWS_HEADER, _aws_line(price="-2.448")), "aws", "--json")
    assert _prices(db_path) == before, r.output  # the spot half of the line is not stored
    assert r.exit_code == 1, r.output
    doc = json.loads(r.stdout)
    assert doc["prices_imported"] == 0
    (refused,) = doc["rejected"]
    assert refused["line"] == 2
    assert "on_demand price -2.448 is not a positive amount" in refused["reason"], refused["reason"]


def test_a_spot_price_out_of_line_refuses_the_lines_on_demand_price_too(
    tmp_path: Path, db_path: Path
) -> None:
    # 0.015 USD spot for one A10G: refused by the check against the catalog's prices, not by the
    # gates (a spot price at or above the on-demand one is dropped before, with a warning)
    before = _prices(db_path)
    lines = (_aws_line(spot="0.015"), _aws_line(itype="g5.4xlarge", price="1.624", spot="0.61"))
    r = import_file(db_path, vms_file(tmp_path, AWS_HEADER, *lines), "aws", "--json")
    assert r.exit_code == 3, r.output  # a line lost, the other imported
    doc = json.loads(r.stdout)
    assert doc["prices_imported"] == 2  # the second line's two; none of the first's
    assert _prices(db_path) == before + 2
    (refused,) = doc["rejected"]
    assert refused["line"] == 2
    reason = refused["reason"]
    assert reason.startswith(
        "spot price 0.015 USD/hour of g5.8xlarge in us-west-2 is, hour for hour, 0.0061x the on_demand "
        "price the catalog holds for it in aws us-west-2 (2.448 USD/hour as of 2026-01-21/2026-12-02)"
    ), reason


def test_the_summary_counts_a_line_refused_whole_once(tmp_path: Path, db_path: Path) -> None:
    r = import_file(
        db_path,
        vms_file(
            tmp_path,
            AWS_HEADER,
            _aws_line(price="-2.448"),
            _aws_line(itype="g5.4xlarge", price="1.624", spot="0.61"),
        ),
        "aws",
    )
    assert r.exit_code == 3, r.output
    assert "aws: 0 new offers, 2 prices imported, dated 2026-11-20; 1 row rejected." in r.output, r.output
