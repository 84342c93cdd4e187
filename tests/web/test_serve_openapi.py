"""schemathesis against the served OpenAPI document: generated requests to every operation, with an
admin token, get no 5xx, and every answer has a documented status, content type and the schema of
its status (the published documents' models). Generation is derandomised (the same cases each
run) and bounded per operation; nothing is traced (jobs are queued in the catalog, not run)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_helpers import make_tokens

schemathesis = pytest.importorskip("schemathesis", reason="schemathesis is a dev dependency")

from hypothesis import HealthCheck, Phase, settings  # noqa: E402
from schemathesis import checks as st_checks  # noqa: E402


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, seeded_catalog: Path) -> Iterator[tuple[object, str]]:
    import shutil

    from gpuplan.web.app import create_app
    from gpuplan.web.config import ServeConfig

    folder = tmp_path_factory.mktemp("openapi")
    db = folder / "catalog.sqlite"
    shutil.copyfile(seeded_catalog, db)
    token = make_tokens(str(db), rate=1_000_000)["admin"]
    app = create_app(ServeConfig(db=str(db), scratch_dir=str(folder / "scratch")))
    yield app, token
    app.state.runner.close()
    app.state.stores.close()


CHECKS = (
    st_checks.not_a_server_error,
    st_checks.status_code_conformance,
    st_checks.content_type_conformance,
    st_checks.response_schema_conformance,
    st_checks.response_headers_conformance,
)


def test_every_operation_answers_within_its_schema(served: tuple[object, str]) -> None:
    from hypothesis import given

    app, token = served
    schema = schemathesis.openapi.from_asgi("/api/openapi.json", app)
    failures: list[str] = []
    operations = 0
    for result in schema.get_all_operations():
        operation = result.ok()
        operations += 1

        @settings(
            max_examples=6,
            deadline=None,
            derandomize=True,
            database=None,
            phases=[Phase.explicit, Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        @given(case=operation.as_strategy())
        def run(case: object) -> None:
            case.call_and_validate(headers={"Authorization": f"Bearer {token}"}, checks=CHECKS)  # type: ignore[attr-defined]

        try:
            run()
        except BaseException as e:
            if isinstance(e, KeyboardInterrupt):
                raise
            failures.append(f"{operation.label}: {str(e)[:1500]}")
    assert operations >= 25
    assert not failures, "\n\n".join(failures)


def test_openapi_describes_document_fields(served: tuple[object, str]) -> None:
    """The document models read their fields' docstrings only when a schema is rendered: the
    OpenAPI document, built on its first request, still carries them."""
    app, _token = served
    spec = app.openapi()  # type: ignore[attr-defined]
    currency = spec["components"]["schemas"]["OffersDocument"]["properties"]["display_currency"]
    assert currency["description"].startswith("The currency the table would show")


def test_openapi_bounds_are_json_schemas_words(served: tuple[object, str]) -> None:
    # Thirteen bounds (budgets, amounts, an offer's gpu_count) were written "ge"/"le"/"gt", which JSON
    # Schema does not know: a client generated from the document lost them.
    app, _token = served
    spec = app.openapi()  # type: ignore[attr-defined]
    found: list[str] = []

    def walk(node: object, path: str) -> None:
        if isinstance(node, dict):
            found.extend(f"{path}/{k}" for k in ("ge", "le", "gt", "lt") if k in node)
            for key, value in node.items():
                walk(value, f"{path}/{key}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, f"{path}[{i}]")

    walk(spec, "")
    assert found == []
    schemas = spec["components"]["schemas"]
    [budget, _written, _null] = schemas["PlanRequest"]["properties"]["budget_usd"]["anyOf"]
    assert (budget["minimum"], budget["maximum"]) == (0.01, 1e12)
    [amount, _written, _null] = schemas["BudgetRequest"]["properties"]["amount_cny"]["anyOf"]
    assert amount["minimum"] == 0.01  # a fen at least: less is no amount


def test_openapi_says_an_amount_may_be_written_as_a_string(served: tuple[object, str]) -> None:
    # budget_usd, budget_cny, amount_usd and amount_cny were declared numbers only, while the server
    # reads "¥1.2M", "1,200,000", "1.2 万": a client generated from the document could not send them
    app, _token = served
    schemas = app.openapi()["components"]["schemas"]  # type: ignore[attr-defined]
    for model, field, sign in (
        ("PlanRequest", "budget_usd", "$"),
        ("PlanRequest", "budget_cny", "¥"),
        ("BudgetRequest", "amount_usd", "$"),
        ("BudgetRequest", "amount_cny", "¥"),
    ):
        branches = schemas[model]["properties"][field]["anyOf"]
        assert [b["type"] for b in branches] == ["number", "string", "null"], (field, branches)
        number, written, _null = branches
        assert "minimum" in number and "maximum" in number and "minimum" not in written, field
        assert "万" in written["description"] and sign in written["description"], field
