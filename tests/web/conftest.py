"""A service on a copy of one seeded SQLite catalog, tokens of each scope, and a cached stand-in
profile so that plans answer without tracing (tests that trace say so)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="gpuplan serve's extra is not installed (pip install 'gpuplan[serve]')")

from serve_helpers import Service, bert_workload, cache_stand_in, make_tokens


@pytest.fixture(scope="session")
def seeded_catalog(tmp_path_factory: pytest.TempPathFactory, catalog_template: Path) -> Path:
    """A catalog created and seeded once (at the head revision, with the stand-in profile cached)."""
    import shutil

    db = tmp_path_factory.mktemp("seeded") / "catalog.sqlite"
    shutil.copyfile(catalog_template, db)  # seeded already: the stand-in is added to a copy
    cache_stand_in(str(db), bert_workload())
    return db


@pytest.fixture
def fresh_db(seeded_catalog: Path, tmp_path: Path) -> str:
    """A copy of the seeded catalog for one test."""
    import shutil

    db = tmp_path / "catalog.sqlite"
    shutil.copyfile(seeded_catalog, db)
    return str(db)


@pytest.fixture
def service(fresh_db: str, tmp_path: Path) -> Iterator[Service]:
    from fastapi.testclient import TestClient

    from gpuplan.web.app import create_app
    from gpuplan.web.config import ServeConfig

    db = fresh_db
    tokens = make_tokens(db)
    app = create_app(ServeConfig(db=db, jobs_inline=True, scratch_dir=str(tmp_path / "scratch")))
    with TestClient(app) as client:
        yield Service(client=client, db=db, tokens=tokens)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Chromium for a dashboard test module (which imports dashboard_helpers: skipped,
    saying why, where there is none)."""
    from dashboard_helpers import launch_browser

    yield from launch_browser()
