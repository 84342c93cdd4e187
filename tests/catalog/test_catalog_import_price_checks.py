"""``catalog import FILE`` in SkyPilot's layout is checked against the catalog's prices as a price
list of one's own is: a price per GPU-hour ten times out of line is refused row by row, and a file of
a yuan-charging provider (whose ``Price`` the layout defines as USD) with yuan typed in is refused
whole — read as dollars, each figure would stand about seven times too high."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from skypilot_rows import vms_file
from typer.testing import CliRunner, Result

from gpuplan.cli import app
from gpuplan.errors import CatalogImportError

ROOT = Path(__file__).resolve().parents[2]
FORK_HEADER = (ROOT / "tools" / "skypilot_fork" / "alicloud_v8_vms_cn.csv").read_text().splitlines()[0]
FIXTURES_DIR = Path(__file__).parent / "fixtures"
AWS_HEADER = (FIXTURES_DIR / "aws_vms_v8_gpu_sample.csv").read_text().splitlines()[0]
#: The fork's own row (USD = the CNY price x 0.138): 1.3270908 USD is 9.6166 CNY an hour.
A10_USD = (
    "ecs.gn7i-c8g1.2xlarge,A10,1,8,30,A10 24GB,1.3270908,0.41939663,cn-beijing,cn-beijing-i,ecs.gn7i,X86"
)
#: The same offer with its yuan figures typed into the USD columns.
A10_YUAN = "ecs.gn7i-c8g1.2xlarge,A10,1,8,30,A10 24GB,9.6166,3.039106,cn-beijing,cn-beijing-i,ecs.gn7i,X86"


def _import(db: Path, f: Path, provider: str, *extra: str) -> Result:
    return CliRunner().invoke(
        app,
        [
            "--db",
            str(db),
            "catalog",
            "import",
            str(f),
            "--provider",
            provider,
            "--as-of",
            "2026-11-20",
            *extra,
        ],
    )


def _prices(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT count(*) FROM prices").fetchone()[0])


def test_yuan_typed_into_the_usd_price_of_an_alibaba_file_refuses_the_file(
    tmp_path: Path, db_path: Path
) -> None:
    before = _prices(db_path)
    r = _import(
        db_path,
        vms_file(tmp_path, FORK_HEADER, A10_USD.replace("cn-beijing-i", "cn-beijing-l"), A10_YUAN),
        "alibaba",
    )
    assert isinstance(r.exception, CatalogImportError), r.output
    line = str(r.exception)
    assert "\n" not in line
    assert "Price 9.6166 of ecs.gn7i-c8g1.2xlarge in cn-beijing (line 3) looks like yuan" in line, line
    assert "the catalog holds 9.617 CNY/hour for it (" in line and "USD at the CNY rate of " in line, line
    assert line.endswith(
        "the SkyPilot layout's Price is USD: import yuan prices with --format gpuplan and currency CNY; "
        "nothing was imported"
    ), line
    assert _prices(db_path) == before  # the good row of the same file neither


def test_the_same_offer_in_dollars_as_the_layout_says_imports(tmp_path: Path, db_path: Path) -> None:
    r = _import(db_path, vms_file(tmp_path, FORK_HEADER, A10_USD), "alibaba", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["prices_imported"] == 2


def test_a_skypilot_price_ten_times_out_of_line_is_refused_naming_both_figures(
    tmp_path: Path, db_path: Path
) -> None:
    # 1 x A10G at 500 USD an hour (under the gates' ceiling of 1,000 USD per GPU-hour): the catalog's
    # dearest A10G on-demand GPU-hour is 6.962 USD (g5.16xlarge in sa-east-1).
    wild = "g5.xlarge,A10G,1.0,4.0,16.0,,500,,us-east-1,use1-az1,x86_64"
    sound = "g5.2xlarge,A10G,1.0,8.0,32.0,,1.212,,us-east-1,use1-az1,x86_64"
    r = _import(db_path, vms_file(tmp_path, AWS_HEADER, wild, sound), "aws", "--json")
    assert r.exit_code == 3, r.output  # some rows rejected, the others imported
    doc = json.loads(r.stdout)
    assert doc["prices_imported"] == 1
    (refused,) = doc["rejected"]
    assert refused["line"] == 2
    assert refused["reason"].startswith(
        "on_demand price 500 USD/hour of g5.xlarge in us-east-1 is 497x the on_demand price the catalog "
        "holds for it in aws us-east-1 (1.006 USD/hour as of 2026-09-06/2026-12-02), more than 2.6x off: "
        "a monthly price typed as hourly?"
    ), refused["reason"]
    # an instance type the catalog holds no price of is held to its GPU's range: 10x the dearest
    # A10G on-demand GPU-hour, 6.962 USD (g5.16xlarge in sa-east-1)
    unknown = wild.replace("g5.xlarge", "g5.nano")
    r = _import(db_path, vms_file(tmp_path, AWS_HEADER, unknown, sound), "aws", "--json")
    (refused,) = json.loads(r.stdout)["rejected"]
    assert refused["reason"].startswith(
        "on_demand price 500 USD/hour is 500 USD per GPU-hour, more than 10x the highest on_demand "
        "price the catalog holds for A10G (6.962 USD per GPU-hour, aws g5.16xlarge sa-east-1)"
    ), refused["reason"]


def test_a_spot_price_is_held_to_its_on_demand_price_not_to_another_zones_spot(
    tmp_path: Path, db_path: Path
) -> None:
    # The catalog holds g5.8xlarge's on-demand price in us-west-2 in dollars (2.448 USD): a spot price
    # of 5.93 is 2.4x it, above the 1.8x a spot price stands at (the refusal names the on-demand
    # figure, not "the catalog's yuan figure"); the line's on-demand 9.0 is 3.7x the held one.
    info = (FIXTURES_DIR / "aws_vms_v8_gpu_sample.csv").read_text().splitlines()[2].split('"')[1]
    line = f'g5.8xlarge,A10G,1.0,32.0,128.0,"{info}",9.0,5.93,us-west-2,usw2-az2,x86_64'
    r = _import(db_path, vms_file(tmp_path, AWS_HEADER, line), "aws", "--json")
    assert r.exit_code == 1, r.output
    (refused,) = json.loads(r.stdout)["rejected"]
    reason = refused["reason"]
    assert "yuan figure" not in reason, reason
    assert reason.startswith(
        "on_demand price 9 USD/hour of g5.8xlarge in us-west-2 is 3.7x the on_demand price the catalog "
        "holds for it in aws us-west-2 (2.448 USD/hour as of 2026-01-21/2026-12-02), more than 2.6x off"
    ), reason
    assert (
        "spot price 5.93 USD/hour of g5.8xlarge in us-west-2 is, hour for hour, 2.4x the on_demand price "
        "the catalog holds for it in aws us-west-2 (2.448 USD/hour as of 2026-01-21/2026-12-02), outside "
        "the 0.05-1.8x a spot price stands at"
    ) in reason, reason
    # One region's zones differ by up to 8.8x in spot (eu-south-2's g6e.48xlarge: 3.4148 in eus2-az2,
    # 30.1669 in eus2-az3): the zone's real price, held to the on-demand price, is taken.
    g6e = "g6e.48xlarge,L40S,8.0,192.0,1536.0,,31.75027,30.1669,eu-south-2,eus2-az3,x86_64"
    r = _import(db_path, vms_file(tmp_path, AWS_HEADER, g6e), "aws", "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["rejected"] == [], r.output
