"""``gpuplan offers`` shows the market as it is: every provider, region and GPU asked for, a price
the snapshot took out said as unknown with its reason, low-confidence rows kept apart, the order
readable from what is shown."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gpuplan.catalog import open_store
from gpuplan.cli import app
from one_line import refused

runner = CliRunner()


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("offers") / "seeded.sqlite"
    open_store(str(path)).close()
    return path


@pytest.fixture
def db(seeded: Path, tmp_path: Path) -> str:
    path = tmp_path / "gpuplan.sqlite"
    shutil.copy(seeded, path)
    return str(path)


def _json(db: str, *args: str) -> list[dict[str, Any]]:
    result = runner.invoke(app, ["--db", db, "offers", "--json", *args])
    assert result.exit_code == 0, result.output
    offers: list[dict[str, Any]] = json.loads(result.stdout)["offers"]
    return offers


@pytest.mark.parametrize(
    "args",
    [
        ["--provider", "aws", "--provider", "gcp"],
        ["--provider", "aws,gcp"],
        ["--provider", "AWS, gcp"],
        # as plan spells it (was "No such option: --providers")
        ["--providers", "aws,gcp"],
    ],
)
def test_several_providers_are_all_listed(db: str, args: list[str]) -> None:
    offers = _json(db, "--gpu", "H100-SXM", "--pricing", "on_demand", *args)
    assert {o["provider"] for o in offers} == {"aws", "gcp"}


def test_several_regions_and_gpus_are_all_listed(db: str) -> None:
    both = ["--region", "us-east1", "--regions", "europe-west4"]
    offers = _json(db, "--provider", "gcp", "--gpu", "A100-SXM4-40GB", "--all-regions", *both)
    assert {o["region"] for o in offers} == {"us-east1", "europe-west4"}
    gpus = _json(db, "--provider", "aws", "--gpu", "A100-SXM4-40GB,H100-SXM", "--pricing", "on_demand")
    assert {o["gpu"] for o in gpus} == {"A100-SXM4-40GB", "H100-SXM"}
    table = runner.invoke(app, ["--db", db, "offers", "--provider", "gcp", "--gpu", "A100-SXM4-40GB", *both])
    assert table.exit_code == 0, table.output
    assert "us-east1" in table.stdout and "europe-west4" in table.stdout


@pytest.mark.parametrize(
    "args",
    [
        # a repeated --pricing had kept the last: a 1-year against 3-year comparison read 3 years only
        ["--pricing", "reserved_1y", "--pricing", "reserved_3y"],
        # a comma list had been refused as one unknown name
        ["--pricing", "reserved_1y,reserved_3y"],
    ],
)
def test_several_pricing_models_are_all_listed(db: str, args: list[str]) -> None:
    offers = _json(db, "--provider", "aws", "--region", "us-east-1", "--gpu", "L40S", *args)
    assert {o["pricing"] for o in offers} == {"reserved_1y", "reserved_3y"}
    one = _json(db, "--provider", "aws", "--region", "us-east-1", "--gpu", "L40S", "--pricing", "reserved_1y")
    assert len([o for o in offers if o["pricing"] == "reserved_1y"]) == len(one)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--pricing", "reserved_1y,reservd_3y"], "unknown pricing model 'reservd_3y'"),
        # had been "did you mean 'cn-qingdao'?"
        (["--region", "singapore"], "'singapore' names a country, not a region"),
        (["--provider", "aws,gcpp"], "unknown provider 'gcpp'; did you mean 'gcp'?"),
        (["--provider", "gcp", "--region", "us-east1,europe-wst4"], "unknown region 'europe-wst4'"),
        (["--gpu", "a100:8,h100:4"], "different counts"),
    ],
)
def test_each_name_of_a_list_is_checked(db: str, args: list[str], said: str) -> None:
    result = runner.invoke(app, ["--db", db, "offers", *args])
    assert result.exit_code != 0
    assert said in str(result.exception)


def test_an_on_demand_price_taken_out_is_listed_unknown_with_its_reason(db: str) -> None:
    # skipped.csv: GCP's europe-west4 A100 on-demand prices are another price list filed as
    # on-demand and are taken out; the offers stay (their spot prices are listed)
    asked = [
        "--provider",
        "gcp",
        "--region",
        "europe-west4",
        "--gpu",
        "A100-SXM4-40GB",
        "--pricing",
        "on_demand",
    ]
    offers = _json(db, *asked)
    one = next(o for o in offers if o["instance_type"] == "a2-highgpu-1g")
    assert one["pricing"] == "on_demand" and one["price_usd_per_hour"] is None
    assert "another price list filed as on-demand (skipped.csv)" in one["price_reason"]
    table = runner.invoke(app, ["--db", db, "offers", *asked], env={"COLUMNS": "200"})
    assert table.exit_code == 0, table.output
    assert "0 offers" not in table.stdout
    assert "a2-highgpu-1g" in table.stdout and "unknown" in table.stdout
    assert "another price list filed as on-demand" in table.stdout


def test_a_price_taken_out_ranks_after_every_known_one_and_is_not_counted_as_cheap(db: str) -> None:
    asked = ["--provider", "gcp", "--gpu", "A100-SXM4-40GB", "--pricing", "on_demand"]
    cheapest = _json(db, *asked)
    assert all(o["price_usd_per_hour"] is not None for o in cheapest)  # a known price wins each type
    every = _json(db, *asked, "--all-regions")
    prices = [o["price_usd_per_hour"] for o in every]
    unknown = prices.index(None)
    assert all(p is not None for p in prices[:unknown]) and all(p is None for p in prices[unknown:])
    capped = runner.invoke(app, ["--db", db, "offers", *asked, "--all-regions", "--max-price", "1000"])
    assert capped.exit_code == 0, capped.output
    assert "europe-west4" not in capped.stdout


def test_low_confidence_rows_are_left_out_unless_asked_and_counted(db: str) -> None:
    # the source articles' 2024 tables (aws/unspecified "A100 40GB (GPU platform guide table)"):
    # plans leave them out by default, and so does the listing, saying how many
    asked = ["--provider", "aws", "--gpu", "A100", "--pricing", "spot"]
    result = runner.invoke(app, ["--db", db, "offers", "--json", *asked])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["offers"] and all(o["confidence"] != "low" for o in doc["offers"])
    assert doc["low_confidence_left_out"] >= 1
    every = _json(db, *asked, "--allow-low-confidence")
    assert any(o["confidence"] == "low" for o in every)
    table = runner.invoke(app, ["--db", db, "offers", *asked], env={"COLUMNS": "200"})
    assert "unspecified" not in table.stdout
    assert "left out" in table.stdout and "--allow-low-confidence shows" in table.stdout


def test_catalog_info_says_a_pricing_model_only_low_confidence_rows_give_apart(db: str) -> None:
    # an article's "monthly" A100 row is no AWS pricing model: said apart, not among AWS's
    result = runner.invoke(app, ["--db", db, "catalog", "info", "--json"])
    assert result.exit_code == 0, result.output
    aws = next(c for c in json.loads(result.stdout)["coverage"] if c["provider"] == "aws")
    assert "monthly" not in aws["pricing_models"] and "on_demand" in aws["pricing_models"]
    assert aws["low_confidence_only"] == ["monthly"]
    table = runner.invoke(app, ["--db", db, "catalog", "info"], env={"COLUMNS": "200"})
    [line] = [x for x in table.stdout.splitlines() if x.startswith("aws ")]
    assert "monthly" not in line
    assert "aws monthly" in table.stdout.split("Pricing models only low-confidence prices give")[1]


def test_catalog_info_says_a_provider_priced_at_low_confidence_only_has_no_usable_pricing_model(
    db: str,
) -> None:
    # huawei "8 / 1 / 1" beside a bare "—", the mark of a provider with no price at all (mithril):
    # its one priced offer is an article's A100 row, on_demand and spot at low confidence only
    for columns, layout in (("200", 0), ("90", 1)):
        table = runner.invoke(app, ["--db", db, "catalog", "info"], env={"COLUMNS": columns})
        assert table.exit_code == 0, table.output
        lines = table.stdout.splitlines()
        at = next(i for i, x in enumerate(lines) if x.startswith("huawei "))
        cell = " ".join(lines[at : at + 3]) if layout else lines[at]
        assert "none usable:" in cell and "low-confidence" in cell, cell
        [mithril] = [x for x in lines if x.startswith("mithril ")]
        assert "—" in mithril and "none usable" not in mithril


def test_the_price_column_reads_in_the_order_the_table_is_ranked(db: str) -> None:
    # p5en spot in eu-north-1: listed $10.44 but undated, below the region's dated $11.01 that
    # plans cost it at, and ranked at; its column had shown $10.44 among dearer-looking rows
    # ranked before it
    args = ["--db", db, "offers", "--provider", "aws", "--gpu", "H200", "--all-regions"]
    table = runner.invoke(app, args, env={"COLUMNS": "400"})
    assert table.exit_code == 0, table.output
    rows = [ln.split() for ln in table.stdout.splitlines() if ln.startswith("aws ")]
    cells = [next(c for c in row if c.startswith("$") or c == "unknown") for row in rows]
    known = [float(c.strip("$").replace(",", "")) for c in cells if c != "unknown"]
    assert known and known == sorted(known)
    floored = [ln for ln in table.stdout.splitlines() if "listed $10.44/h" in ln]
    assert floored and "$11.01" in floored[0]
    assert "shown, and ranked, at that one" in table.stdout


def test_a_convertible_reserved_term_is_said_in_the_table(db: str) -> None:
    # p5.48xlarge's reserved_1y is a Convertible term: the JSON's term.offering_class said it, the
    # table did not
    asked = ["--provider", "aws", "--gpu", "H100-SXM", "--count", "8", "--pricing", "reserved_1y"]
    [p5] = [o for o in _json(db, *asked) if o["instance_type"] == "p5.48xlarge"]
    assert p5["term"]["offering_class"] == "convertible"
    table = runner.invoke(app, ["--db", db, "offers", *asked], env={"COLUMNS": "250"})
    [line] = [ln for ln in table.stdout.splitlines() if "p5.48xlarge" in ln]
    assert "Convertible reserved term" in line


@pytest.mark.parametrize("count", ["0", "100"])
def test_a_count_out_of_range_is_refused_in_words_of_what_it_counts(
    count: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # through the console entry point, in this process: exit 2, one line on stderr, no traceback
    line = refused(["offers", "--count", count], capsys, code=2)
    assert f"{count} GPUs per instance: give a whole number from 1 to" in line
    assert "Input should be" not in line


def test_the_cheapest_region_is_said_of_the_regions_whose_price_is_known(db: str) -> None:
    # a2-highgpu-1g on demand: 10 GCP regions carry it, 4 of them with the price taken out
    asked = ["--provider", "gcp", "--gpu", "A100-SXM4-40GB", "--pricing", "on_demand"]
    every = _json(db, *asked, "--all-regions")
    known = {o["region"] for o in every if o["instance_type"] == "a2-highgpu-1g" and o["price_usd_per_hour"]}
    [one] = [o for o in _json(db, *asked) if o["instance_type"] == "a2-highgpu-1g"]
    assert (
        one["regions_compared"]
        == len(known)
        < len({o["region"] for o in every if o["instance_type"] == "a2-highgpu-1g"})
    )


def test_an_offer_priced_in_no_region_is_not_called_the_cheapest_of_them(db: str) -> None:
    # was: "p5.48xlarge … unknown … price unknown (note 1), cheapest of 5 regions"
    asked = ["--provider", "aws", "--gpu", "H100-SXM"]
    unpriced = [o for o in _json(db, *asked) if o["price_usd_per_hour"] is None and o["regions_compared"] > 1]
    assert unpriced
    result = runner.invoke(app, ["--db", db, "offers", *asked], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    said = " ".join(result.stdout.split())
    assert f"no known price in any of its {unpriced[0]['regions_compared']} regions" in said, said


@pytest.mark.parametrize(
    ("lang", "region", "why"),
    [("en", "unspecified", "the source names no region"), ("zh", "未注明地域", "价格来源未注明地域")],
)
def test_a_row_whose_source_names_no_region_says_so(db: str, lang: str, region: str, why: str) -> None:
    # was: "tencent/未注明地域" on Tencent's monthly T4 with nothing beside it: the price overview it
    # comes from names no region (Tencent's price doc: "mainly mainland China"), which the row now says
    asked = ["--provider", "tencent", "--gpu", "T4", "--pricing", "monthly"]
    [row] = [o for o in _json(db, *asked) if o["instance_type"] == "GN7.2XLARGE32"]
    assert row["region"] == "unspecified"
    result = runner.invoke(app, ["--db", db, "--lang", lang, "offers", *asked], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    [line] = [ln for ln in result.stdout.splitlines() if "GN7.2XLARGE32" in ln]
    assert region in line and why in line, line
    # a row whose region is named says nothing of the kind
    named = runner.invoke(
        app, ["--db", db, "offers", "--provider", "tencent", "--gpu", "T4"], env={"COLUMNS": "400"}
    )
    assert all("names no region" not in ln for ln in named.stdout.splitlines() if "unspecified" not in ln)


def test_hosts_provider_lists_only_machines_a_provider_runs_and_counts_the_rest(db: str) -> None:
    # offers had no way to keep community hosts out, nor said which offers were on one: a user with
    # EU data saw vast's and lium's machines beside the clouds' with nothing to tell them apart
    asked = ["--gpu", "RTX-4090,H100", "--all-regions"]
    every = runner.invoke(app, ["--db", db, "offers", "--json", *asked])
    assert every.exit_code == 0, every.output
    doc = json.loads(every.stdout)
    kinds = {(o["provider"], o["host_kind"]) for o in doc["offers"]}
    assert ("vast", "community_host") in kinds and ("aws", "cloud_vm") in kinds
    assert doc["hosts_left_out"] == 0
    community = sum(
        o["host_kind"] not in ("cloud_vm", "bare_metal", "secure_cloud", "resold") for o in doc["offers"]
    )
    for spelt in ("provider", "Provider only"):  # plan's vocabulary, aliases and all
        kept = runner.invoke(app, ["--db", db, "offers", "--json", *asked, "--hosts", spelt])
        assert kept.exit_code == 0, kept.output
        provider_run = json.loads(kept.stdout)
        assert provider_run["offers"] and {o["host_kind"] for o in provider_run["offers"]} <= {
            "cloud_vm", "bare_metal", "secure_cloud", "resold"
        }  # fmt: skip
        assert provider_run["hosts_left_out"] == community > 0
        assert provider_run["empty_reason"] is None
    assert _json(db, *asked, "--hosts", "any") == doc["offers"]


def test_the_table_says_the_host_kind_and_what_hosts_provider_left_out(db: str) -> None:
    asked = ["--db", db, "offers", "--gpu", "RTX-4090"]
    table = runner.invoke(app, asked, env={"COLUMNS": "80"})
    assert table.exit_code == 0, table.output
    assert "vast/" in table.stdout and "community host" in table.stdout
    assert all(len(line) <= 80 for line in table.stdout.splitlines())
    kept = runner.invoke(app, [*asked, "--hosts", "provider"], env={"COLUMNS": "200"})
    assert kept.exit_code == 0, kept.output
    assert "vast/" not in kept.stdout and "lium/" not in kept.stdout
    assert "left out by --hosts provider" in kept.stdout and "--hosts any shows" in kept.stdout


def test_a_misspelt_hosts_rule_is_refused_as_plan_refuses_it(capsys: pytest.CaptureFixture[str]) -> None:
    said = refused(["offers", "--hosts", "provder"], capsys)
    assert said == "error: unknown host rule 'provder'; did you mean 'provider'?"


def test_a_spot_band_the_sources_disagree_on_is_the_one_plan_costs_and_says_so(db: str) -> None:
    # was: p5.48xlarge spot in Tokyo shown at "<5%" (published band), the better of two sources,
    # while plan costs it at "10-15%", the worst of them
    spot = [
        o
        for o in _json(db, "--gpu", "H100", "--countries", "JP")
        if o["instance_type"] == "p5.48xlarge" and o["pricing"] == "spot" and o["interruption_bands"]
    ]
    assert spot
    for o in spot:
        bands = o["interruption_bands"]
        assert o["interruption_band"] == bands[0]["band"] == "10-15%" and bands[0]["costed"]
        assert [b["band"] for b in bands[1:]] == ["<5%"] and not bands[1]["costed"]
    from gpuplan.report.catalog import spot_note

    store = open_store(db)
    try:
        row = next(
            r
            for r in store.offers()
            if r.instance_type == "p5.48xlarge" and r.pricing == "spot" and r.region == "ap-northeast-1"
        )
    finally:
        store.close()
    note = spot_note(row)
    assert note == (
        "interruption rate 10-15% a month (published band, the worst of the sources; another: <5%)"
    )
