"""Helpers of the service tests: a workload whose stand-in profile is cached (plans answer without
tracing), tokens of each scope, and the client of one service."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from stand_in_profiles import bert_large_profile

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def bert_workload() -> dict[str, Any]:
    import yaml

    return yaml.safe_load((EXAMPLES / "bert-large-squad.yaml").read_text(encoding="utf-8"))


#: An 8-GPU instance on a monthly quote (an example figure, as a team's imported quote would be).
MONTHLY_QUOTE = [
    {
        "provider": "volcengine",
        "region": "cn-beijing",
        "instance_type": "ecs.gni3.8xlarge",
        "gpu": "A100-SXM4-80GB",
        "gpu_count": 8,
        "vcpus": 128,
        "memory_gib": 1024,
        "pricing": "monthly",
        "price": 160000,
        "currency": "CNY",
        "unit": "month",
        "as_of": "2026-11-20",
        "source": "EXAMPLE figure",
    }
]


def nightly_workload() -> dict[str, Any]:
    """The BERT fine-tune with 2 TB of data in Alibaba's Beijing region, no budget or providers of
    its own (the plan request names them)."""
    w = bert_workload()
    w["data"] = {**w["data"], "size_gb": 2000, "location": "alibaba/cn-beijing"}
    w["constraints"] = {"deadline": "12h"}
    return w


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


def hold_the_minute(monkeypatch: Any, second: float = 5.0) -> None:
    """Stop the rate limiter's clock ``second`` seconds into one minute.

    The limit counts requests per calendar minute, so two requests a test sends back to back can fall
    either side of a minute's end and both be let through: a test of the limit holds the clock still.
    """
    from types import SimpleNamespace

    start = 1_800_000_000.0  # a whole minute (30,000,000 × 60 s)
    monkeypatch.setattr("gpuplan.web.auth.time", SimpleNamespace(time=lambda: start + second))
