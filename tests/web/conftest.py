"""A service on a fresh SQLite catalog, tokens of each scope, and a cached stand-in profile so that
plans answer without tracing (tests that trace say so)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="gpuplan serve's extra is not installed (pip install 'gpuplan[serve]')")

from fastapi.testclient import TestClient  # noqa: E402

from stand_in_profiles import bert_large_profile  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def bert_workload() -> dict[str, Any]:
    import yaml

    return yaml.safe_load((EXAMPLES / "bert-large-squad.yaml").read_text(encoding="utf-8"))


def cache_stand_in(db: str, workload: dict[str, Any]) -> None:
    """Put a stand-in profile for ``workload`` in the catalog's profile cache (no tracing)."""
    from gpuplan.catalog import open_store
    from gpuplan.profile import PROFILE_SCHEMA_VERSION, profile_key

    store = open_store(db)
    try:
        key = profile_key(workload)
        store.local.put_profile(key, PROFILE_SCHEMA_VERSION, bert_large_profile(key).to_json())
    finally:
        store.close()


@dataclass
class Service:
    client: TestClient
    db: str
    tokens: dict[str, str]

    def auth(self, scope: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[scope]}"}


def make_tokens(db: str, rate: int = 10_000) -> dict[str, str]:
    from gpuplan.catalog import open_store
    from gpuplan.catalog.team_store import TeamStore

    store = open_store(db)
    try:
        team = TeamStore(store.engine)
        return {
            s: team.create_token(f"{s}-user", s, rate_per_minute=rate)[0] for s in ("read", "plan", "admin")
        }
    finally:
        store.close()


@pytest.fixture(scope="session")
def seeded_catalog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A catalog created and seeded once (at the head revision, with the stand-in profile cached)."""
    db = tmp_path_factory.mktemp("seeded") / "catalog.sqlite"
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
    from gpuplan.web.app import create_app
    from gpuplan.web.config import ServeConfig

    db = fresh_db
    tokens = make_tokens(db)
    app = create_app(ServeConfig(db=db, jobs_inline=True, scratch_dir=str(tmp_path / "scratch")))
    with TestClient(app) as client:
        yield Service(client=client, db=db, tokens=tokens)
