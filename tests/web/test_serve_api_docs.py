"""``/api/docs`` is off unless ``serve --api-docs``; on, Swagger UI's files come from this origin (the
swagger-ui-bundle package) under the dashboard's Content-Security-Policy. FastAPI's own page had
loaded them from cdn.jsdelivr.net (floating version, no integrity hash, no CSP) on the origin where
the dashboard keeps the user's token."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from gpuplan.errors import InputError
from gpuplan.web.app import create_app
from gpuplan.web.config import ServeConfig


@pytest.fixture
def swagger_ui_bundle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A stand-in swagger-ui-bundle package (its layout: ``swagger_ui_path``, the dist's files)."""
    package = tmp_path / "site" / "swagger_ui_bundle"
    files = package / "vendor" / "swagger-ui-5"
    files.mkdir(parents=True)
    (package / "__init__.py").write_text(
        "from pathlib import Path\nswagger_ui_path = Path(__file__).parent / 'vendor' / 'swagger-ui-5'\n"
    )
    (files / "swagger-ui-bundle.js").write_text("window.SwaggerUIBundle = function () {};\n")
    (files / "swagger-ui.css").write_text(".swagger-ui {}\n")
    (files / "favicon-32x32.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.delitem(sys.modules, "swagger_ui_bundle", raising=False)
    yield files


def test_the_docs_page_is_off_by_default_and_the_openapi_document_is_served(
    fresh_db: str, tmp_path: Path
) -> None:
    with TestClient(create_app(ServeConfig(db=fresh_db, jobs_inline=True, scratch_dir=str(tmp_path)))) as c:
        assert c.get("/api/docs").status_code == 404
        assert c.get("/api/openapi.json").json()["info"]["title"] == "gpuplan"


def test_the_docs_page_loads_only_from_its_own_origin_under_the_dashboards_csp(
    fresh_db: str, tmp_path: Path, swagger_ui_bundle: Path
) -> None:
    config = ServeConfig(db=fresh_db, jobs_inline=True, scratch_dir=str(tmp_path), api_docs=True)
    with TestClient(create_app(config)) as c:
        r = c.get("/api/docs")
        assert r.status_code == 200
        assert r.headers["content-security-policy"].startswith("default-src 'self';")
        assert "connect-src 'self'" in r.headers["content-security-policy"]
        assert r.headers["x-content-type-options"] == "nosniff"
        assert "://" not in r.text  # no other origin: no CDN, no favicon from fastapi.tiangolo.com
        referenced = re.findall(r'(?:src|href)="([^"]+)"', r.text)
        assert sorted(referenced) == [
            "/api/docs/static/favicon-32x32.png",
            "/api/docs/static/swagger-ui-bundle.js",
            "/api/docs/static/swagger-ui.css",
        ]
        for path in referenced:
            assert c.get(path).status_code == 200, path
        assert "'/api/openapi.json'" in r.text and '"validatorUrl": null' in r.text


def test_docs_asked_for_without_the_package_are_refused_in_one_line(
    fresh_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "swagger_ui_bundle", None)  # not importable
    with pytest.raises(InputError, match=r"^serve --api-docs .* pip install swagger-ui-bundle"):
        create_app(ServeConfig(db=fresh_db, jobs_inline=True, scratch_dir=str(tmp_path), api_docs=True))
