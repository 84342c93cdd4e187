"""The JSON documents: published schemas match the models, and a real plan reaches every target."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuplan.cli import app
from gpuplan.deploy import GENERATORS, GenerateOptions, LaunchSpec, generate
from gpuplan.documents import (
    AUTOSCALE_SCHEMA_VERSION,
    BUDGET_SCHEMA_VERSION,
    CATALOG_INFO_SCHEMA_VERSION,
    DOCUMENTS,
    ESTIMATE_SCHEMA_VERSION,
    GPUS_SCHEMA_VERSION,
    HISTORY_SCHEMA_VERSION,
    IMPORT_SCHEMA_VERSION,
    IMPORTS_SCHEMA_VERSION,
    JOB_SCHEMA_VERSION,
    MEASURE_SCHEMA_VERSION,
    OFFERS_SCHEMA_VERSION,
    PLAN_SCHEMA_VERSION,
    PRICE_CHANGES_SCHEMA_VERSION,
    REFRESH_SCHEMA_VERSION,
    SERVE_SCHEMA_VERSION,
    SHARE_SCHEMA_VERSION,
    TCO_SCHEMA_VERSION,
    UNDO_SCHEMA_VERSION,
    PlanDocument,
)
from gpuplan.documents.schemas import schema_texts
from stand_in_profiles import bert_large_profile

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()


def test_committed_schemas_are_current() -> None:
    for name, text in schema_texts().items():
        path = ROOT / "docs" / "schemas" / name
        assert path.is_file(), f"{name} missing: run python tools/gen_schemas.py"
        assert path.read_text(encoding="utf-8") == text, f"{name} is stale: run python tools/gen_schemas.py"


def test_each_document_declares_its_schema_version() -> None:
    versions = {
        "plan": PLAN_SCHEMA_VERSION,
        "plan-infeasible": PLAN_SCHEMA_VERSION,
        "estimate": ESTIMATE_SCHEMA_VERSION,
        "measure": MEASURE_SCHEMA_VERSION,
        "measure-recordings": MEASURE_SCHEMA_VERSION,
        "offers": OFFERS_SCHEMA_VERSION,
        "gpus": GPUS_SCHEMA_VERSION,
        "simulate-autoscale": AUTOSCALE_SCHEMA_VERSION,
        "simulate-share": SHARE_SCHEMA_VERSION,
        "tco": TCO_SCHEMA_VERSION,
        "catalog-info": CATALOG_INFO_SCHEMA_VERSION,
        "catalog-import": IMPORT_SCHEMA_VERSION,
        "catalog-imports": IMPORTS_SCHEMA_VERSION,
        "catalog-undo": UNDO_SCHEMA_VERSION,
        "catalog-history": HISTORY_SCHEMA_VERSION,
        "catalog-refresh": REFRESH_SCHEMA_VERSION,
        **{name: SERVE_SCHEMA_VERSION for name in DOCUMENTS if name.startswith("serve-")},
        "serve-budget": BUDGET_SCHEMA_VERSION,
        "serve-budget-year": BUDGET_SCHEMA_VERSION,
        "serve-job": JOB_SCHEMA_VERSION,
        "serve-price-changes": PRICE_CHANGES_SCHEMA_VERSION,
    }
    assert set(versions) == set(DOCUMENTS)
    for name, model in DOCUMENTS.items():
        assert model.model_fields["schema_version"].default == versions[name]


def test_each_document_says_its_schema_version_first() -> None:
    # The month's budget document began with its year's figures (a base class's), schema_version
    # seventh, in its schema and in every answer: a reader finds the version first in every other.
    texts = schema_texts()
    for name, model in DOCUMENTS.items():
        assert next(iter(model.model_fields)) == "schema_version", name
        schema = json.loads(texts[f"{name}.schema.json"])
        assert next(iter(schema["properties"])) == "schema_version", name


def test_the_offers_document_carries_every_field_of_an_offer() -> None:
    # A field added to the catalog's OfferPrice must be declared in the document too (the
    # document refuses unknown keys, so `offers --json` would fail at run time otherwise).
    from dataclasses import fields

    from gpuplan.catalog.model import OfferPrice
    from gpuplan.documents import OfferItem

    # Written under names that carry their currency and unit (offers schema 2):
    renamed = {"price", "currency", "unit", "exchange_rate_usd_per_unit", "exchange_rate_as_of"}
    missing = [f.name for f in fields(OfferPrice) if f.name not in {*OfferItem.model_fields, *renamed}]
    assert missing == []


@pytest.fixture(scope="module")
def real_plan(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``gpuplan plan examples/bert-large-squad.yaml --json`` as the CLI writes it."""
    d = tmp_path_factory.mktemp("plan_doc")
    profile = d / "profile.json"
    profile.write_text(bert_large_profile("documents-test").to_json(), encoding="utf-8")
    args = ["--db", str(d / "catalog.sqlite"), "plan", str(ROOT / "examples" / "bert-large-squad.yaml")]
    r = runner.invoke(app, [*args, "--profile", str(profile), "--json", "--top", "3"])
    assert r.exit_code == 0, r.output
    path = d / "plan.json"
    path.write_text(r.stdout, encoding="utf-8")
    return path


def test_real_plan_output_is_a_valid_plan_document(real_plan: Path) -> None:
    text = real_plan.read_text(encoding="utf-8")
    doc = PlanDocument.model_validate_json(text)
    assert doc.recommended.gpu_count == doc.recommended.gpus_per_node * doc.recommended.nodes
    # Written and read by one model: a second trip changes nothing.
    assert PlanDocument.model_validate_json(doc.to_json()) == doc
    assert isinstance(json.loads(text)["candidates"], int)


@pytest.mark.parametrize("target", [g.name for g in GENERATORS])
def test_real_plan_output_deploys_to_every_target(real_plan: Path, target: str) -> None:
    doc = PlanDocument.model_validate_json(real_plan.read_text(encoding="utf-8"))
    spec = LaunchSpec.from_plan_json(real_plan)
    rec = doc.recommended
    assert (spec.provider, spec.instance_type, spec.pricing) == (rec.provider, rec.instance_type, rec.pricing)
    assert (spec.gpus_per_node, spec.nodes) == (rec.gpus_per_node, rec.nodes)
    files = generate(spec, target, GenerateOptions(out_dir="/srv/launch"))
    assert files and all(f.content for f in files)


def test_real_plan_output_records_the_digest_of_its_workload_as_deploy_reads_it(
    real_plan: Path, tmp_path: Path
) -> None:
    # deploy checks the fit again of a plan whose workload was edited after planning, and only then
    from gpuplan.deploy.spec import LaunchSpec

    def plan_edited(path: Path) -> bool | None:
        return LaunchSpec.from_plan_json(path).plan_edited

    assert plan_edited(real_plan) is False
    doc = json.loads(real_plan.read_text(encoding="utf-8"))
    doc["workload"]["inputs"]["batch_size"] *= 2
    edited = tmp_path / "plan.json"
    edited.write_text(json.dumps(doc, indent=4), encoding="utf-8")
    assert plan_edited(edited) is True


def test_deploy_cli_reads_real_plan_output(real_plan: Path, tmp_path: Path) -> None:
    r = runner.invoke(app, ["deploy", str(real_plan), "--target", "k8s", "--out", str(tmp_path / "k8s")])
    assert r.exit_code == 0, r.output
    assert any((tmp_path / "k8s").iterdir())


def test_real_plan_output_states_the_checkpoint_deploy_sizes_its_volume_and_grace_from(
    real_plan: Path,
) -> None:
    doc = PlanDocument.model_validate_json(real_plan.read_text(encoding="utf-8"))
    assert doc.checkpoint_gb is not None and doc.checkpoint_gb > 0
    # written at the plan's assumed 0.131 GB/s, gp3's baseline (JobFacts.checkpoint_write_gbps)
    assert doc.checkpoint_write_min == pytest.approx(doc.checkpoint_gb / 0.131 / 60)
    spec = LaunchSpec.from_plan_json(real_plan)
    assert (spec.checkpoint_gb, spec.checkpoint_write_min) == (doc.checkpoint_gb, doc.checkpoint_write_min)
