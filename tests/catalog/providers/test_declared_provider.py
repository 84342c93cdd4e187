"""A provider gpuplan has no module of (AutoDL, a Chinese GPU marketplace) is declared with
``catalog import FILE --format gpuplan --new-provider autodl``: its quote is stored, listed and
planned at the conservative bounds of every fact gpuplan does not know, marked so; only the
provider-agnostic launchers deploy to it."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from gpuplan.catalog import providers
from gpuplan.cli import app
from gpuplan.errors import CatalogImportError, InputError, NotFoundError
from stand_in_profiles import bert_large_profile

HEADER = "provider,region,instance_type,gpu,gpu_count,pricing,price,currency,unit,as_of,source"
#: One RTX 4090 on AutoDL, 1.98 yuan an hour, as the lab read it.
AUTODL = "autodl,cn-hangzhou,rtx4090-1,RTX-4090,1,on_demand,1.98,CNY,hour,2026-12-01,AutoDL price page"

WORKLOAD = """
name: bert-large-autodl
task: finetune
model: {preset: bert-large}
inputs: {batch_size: 32, seq_len: 384}
precision: amp-fp16
optimizer: adamw
parallelism: ddp
data: {samples: 88000, epochs: 2, size_gb: 0.5}
constraints:
  deadline: 200h
  budget_usd: 5000
  providers: [autodl]
  pricing: [on_demand]
  objective: cost
"""

runner = CliRunner()


@pytest.fixture(autouse=True)
def _no_declared_after() -> Iterator[None]:
    """A test that opens a catalog leaves its declared providers in the process: forget them."""
    yield
    providers.use_declared([])


def _file(tmp_path: Path, *lines: str) -> Path:
    f = tmp_path / "autodl.csv"
    f.write_text("\n".join([HEADER, *lines]) + "\n", encoding="utf-8")
    return f


def _run(db: Path, *args: str) -> Result:
    return runner.invoke(app, ["--db", str(db), *args])


def _ok(db: Path, *args: str) -> str:
    r = _run(db, *args)
    assert r.exit_code == 0, (r.output, r.exception)
    return r.stdout


def _plan(db: Path, tmp_path: Path, workload: str) -> dict[str, Any]:
    (tmp_path / "job.yaml").write_text(workload, encoding="utf-8")
    (tmp_path / "profile.json").write_text(bert_large_profile("autodl-test").to_json(), encoding="utf-8")
    return json.loads(  # type: ignore[no-any-return]
        _ok(db, "plan", str(tmp_path / "job.yaml"), "--profile", str(tmp_path / "profile.json"), "--json")
    )


def test_an_unknown_marketplace_is_not_offered_as_another_and_the_refusal_says_how_to_declare_it(
    tmp_path: Path, db_path: Path
) -> None:
    r = _run(db_path, "catalog", "import", str(_file(tmp_path, AUTODL)), "--format", "gpuplan")
    assert isinstance(r.exception, CatalogImportError), r.output
    message = str(r.exception)
    assert "unknown provider 'autodl')" in message and "runpod" not in message, message
    assert "declare it: --new-provider CODE" in message and message.endswith("nothing was imported")


def test_a_declared_provider_is_imported_listed_and_planned_at_the_conservative_bounds(
    tmp_path: Path, db_path: Path
) -> None:
    f = _file(tmp_path, AUTODL)
    _ok(db_path, "catalog", "import", str(f), "--format", "gpuplan", "--new-provider", "autodl")
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("SELECT code, country FROM declared_providers").fetchall() == [("autodl", None)]

    # a later command knows it from the catalog (the name is checked before the catalog opens)
    providers.use_declared([])
    offers = json.loads(_ok(db_path, "offers", "--provider", "autodl", "--all-regions", "--json"))["offers"]
    assert [(o["instance_type"], o["price_cny_per_hour"]) for o in offers] == [("rtx4090-1", 1.98)]
    assert offers[0]["vcpus"] is None and offers[0]["network_gbps"] is None

    providers.use_declared([])
    doc = _plan(db_path, tmp_path, WORKLOAD)
    options = doc["options"]
    assert options and {o["provider"] for o in options} == {"autodl"}
    flags = [f for o in options for f in o["flags"]]
    assert any(f.startswith("a provider you declared: its facts are unknown") for f in flags), flags
    assert "billing granularity unknown: hourly assumed" in flags
    # its host, egress and storage unknown: costed at the catalog's bounds, not taken as free
    unknown = {u["fact"] for o in options for u in o["unknown_facts"]}
    assert {"ram", "egress_price", "storage_price"} <= unknown, unknown
    # its region's country is not guessed from "cn-": unknown
    assert {o["country"] for o in options} <= {None, ""}, [o["country"] for o in options]

    # a countries constraint leaves it out, and says why
    providers.use_declared([])
    with_countries = WORKLOAD.replace("objective: cost", "objective: cost\n  countries: [CN]")
    (tmp_path / "cn.yaml").write_text(with_countries, encoding="utf-8")
    r = _run(db_path, "plan", str(tmp_path / "cn.yaml"), "--profile", str(tmp_path / "profile.json"))
    assert (
        r.exit_code != 0
        and "the country of autodl is unknown (a provider you declared without --country" in str(r.exception)
    ), (r.output, r.exception)

    # beside a provider of known country, the plan has options and says why autodl has none
    providers.use_declared([])
    doc = _plan(
        db_path, tmp_path, with_countries.replace("providers: [autodl]", "providers: [autodl, alibaba]")
    )
    assert doc["options"] and {o["provider"] for o in doc["options"]} == {"alibaba"}
    assert any(n.startswith("countries: the offers of autodl are left out") for n in doc["notes"]), doc[
        "notes"
    ]

    # declared again with its country: planned in China
    _ok(
        db_path,
        "catalog",
        "import",
        str(f),
        "--format",
        "gpuplan",
        "--new-provider",
        "autodl",
        "--country",
        "CN",
    )
    providers.use_declared([])
    doc = _plan(db_path, tmp_path, with_countries)
    assert doc["options"] and {o["country"] for o in doc["options"]} == {"CN"}
    (tmp_path / "plan.json").write_text(json.dumps(doc), encoding="utf-8")

    # no launcher knows it but the provider-agnostic ones
    providers.use_declared([])
    r = _run(
        db_path, "deploy", str(tmp_path / "plan.json"), "--target", "skypilot", "--out", str(tmp_path / "s")
    )
    assert r.exit_code != 0 and "a provider you declared" in str(r.exception), (r.output, r.exception)
    providers.use_declared([])
    _ok(db_path, "deploy", str(tmp_path / "plan.json"), "--target", "torchrun", "--out", str(tmp_path / "t"))
    providers.use_declared([])
    _ok(db_path, "deploy", str(tmp_path / "plan.json"), "--target", "docker", "--out", str(tmp_path / "d"))


def test_a_file_that_imports_nothing_declares_nothing(tmp_path: Path, db_path: Path) -> None:
    bad = AUTODL.replace("RTX-4090", "RTX-9999")
    r = _run(
        db_path,
        "catalog",
        "import",
        str(_file(tmp_path, bad)),
        "--format",
        "gpuplan",
        "--new-provider",
        "autodl",
    )
    assert isinstance(r.exception, CatalogImportError), r.output
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("SELECT count(*) FROM declared_providers").fetchone() == (0,)


@pytest.mark.parametrize(
    ("code", "said"),
    [
        ("AutoDL!", "use lower-case letters, digits and '-'"),
        ("../etc", "use lower-case letters, digits and '-'"),
        ("1cloud", "use lower-case letters, digits and '-'"),
        ("a" * 33, "at most 32 characters"),
        ("runpod", "is a provider gpuplan knows (runpod)"),
        ("aliyun", "is a provider gpuplan knows (aliyun)"),
        ("lambda-labs", "is a provider gpuplan knows (lambda_labs)"),
    ],
)
def test_a_declared_code_is_a_safe_name_of_no_provider_gpuplan_knows(
    tmp_path: Path, db_path: Path, code: str, said: str
) -> None:
    f = _file(tmp_path, AUTODL)
    r = _run(db_path, "catalog", "import", str(f), "--format", "gpuplan", "--new-provider", code)
    assert isinstance(r.exception, InputError) and said in str(r.exception), (r.output, r.exception)
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("SELECT count(*) FROM declared_providers").fetchone() == (0,)


def test_a_spot_price_of_a_declared_provider_is_refused(tmp_path: Path, db_path: Path) -> None:
    spot = AUTODL.replace("on_demand,1.98", "spot,0.99")
    f = _file(tmp_path, AUTODL, spot)
    r = _run(
        db_path, "catalog", "import", str(f), "--format", "gpuplan", "--new-provider", "autodl", "--json"
    )
    assert r.exit_code == 3, r.output
    reasons = [row["reason"] for row in json.loads(r.stdout)["rejected"]]
    assert reasons and reasons[0].startswith("a spot price of a provider you declared"), reasons


def test_a_catalog_of_revision_0011_is_upgraded_to_hold_declared_providers(tmp_path: Path) -> None:
    from old_catalog import downgrade_to, upgrade_to
    from sqlalchemy import create_engine, inspect

    from gpuplan.catalog import open_store
    from gpuplan.catalog.declaring import declare_provider

    path = tmp_path / "old.sqlite"
    engine = create_engine(f"sqlite:///{path}")
    try:
        with engine.begin() as conn:
            upgrade_to(conn, "0011_discount_pricing")
        assert "declared_providers" not in inspect(engine).get_table_names()
    finally:
        engine.dispose()
    store = open_store(str(path), seed=False)  # upgrades to head
    try:
        assert declare_provider(store, "my-cloud", country="CN") == ("my_cloud", True)
        assert providers.PROVIDERS.cast("My-Cloud") == "my_cloud"
        assert providers.facts("my_cloud").region("anywhere-1") is not None
        assert providers.facts("my_cloud").region("anywhere-1").country == "CN"  # type: ignore[union-attr]
    finally:
        store.close()
    engine = create_engine(f"sqlite:///{path}")
    try:
        with engine.begin() as conn:
            downgrade_to(conn, "0011_discount_pricing")
        assert "declared_providers" not in inspect(engine).get_table_names()
    finally:
        engine.dispose()


def test_offers_countries_keeps_the_countries_asked_and_says_which_regions_it_cannot_place(
    tmp_path: Path, db_path: Path
) -> None:
    f = _file(tmp_path, AUTODL)
    _ok(db_path, "catalog", "import", str(f), "--format", "gpuplan", "--new-provider", "autodl")
    providers.use_declared([])
    doc = json.loads(_ok(db_path, "offers", "--countries", "CN,US", "--all-regions", "--json"))
    # "cn-hangzhou" is the marketplace's own name: not taken for China, left out, and named
    assert "autodl" not in {o["provider"] for o in doc["offers"]}
    assert "autodl/cn-hangzhou" in doc["country_unknown"], doc["country_unknown"]
    assert {"alibaba", "aws"} <= {o["provider"] for o in doc["offers"]}
    assert not {o["region"] for o in doc["offers"]} & {"eu-west-1", "europe-west4", "ap-northeast-1"}

    providers.use_declared([])
    table = _ok(db_path, "offers", "--countries", "China", "--provider", "autodl")
    assert "left out by --countries: the offers in autodl/cn-hangzhou" in " ".join(table.split()), table

    # a typo is one line with "did you mean", as plan --countries says it
    providers.use_declared([])
    r = _run(db_path, "offers", "--countries", "CN,Chna")
    assert isinstance(r.exception, NotFoundError) and "did you mean 'china'" in str(r.exception), r.output

    # declared with its country, it is listed in China
    _ok(
        db_path,
        "catalog",
        "import",
        str(f),
        "--format",
        "gpuplan",
        "--new-provider",
        "autodl",
        "--country",
        "CN",
    )
    providers.use_declared([])
    doc = json.loads(_ok(db_path, "offers", "--countries", "中国", "--provider", "autodl", "--json"))
    assert [o["region"] for o in doc["offers"]] == ["cn-hangzhou"] and doc["country_unknown"] == []
