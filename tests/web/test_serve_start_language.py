"""`gpuplan --lang zh serve` (or `gpuplan serve --lang zh`) answers a request that names no language
in Chinese: a request's ?lang= or Accept-Language still wins."""

from __future__ import annotations

from pathlib import Path

import pytest
from serve_helpers import make_tokens


@pytest.mark.parametrize(
    "argv",
    [["--lang", "zh", "serve"], ["serve", "--lang", "zh"]],
    ids=["root-option", "serve-option"],
)
def test_a_service_started_in_chinese_answers_a_request_naming_no_language_in_chinese(
    fresh_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> None:
    # `gpuplan --lang zh serve` answered an API caller sending no Accept-Language in English
    # ("amount_cny: Input should be greater than or equal to 0.01"): only `serve --lang zh` set the
    # service's language, and the root's --lang changed the start-up line alone.
    import uvicorn
    from fastapi.testclient import TestClient
    from typer.testing import CliRunner

    from gpuplan.cli import app
    from gpuplan.web.app import create_app
    from gpuplan.web.config import ENV, ServeConfig

    monkeypatch.setenv(ENV, "")  # serve writes its configuration here for uvicorn's workers
    started: list[dict[str, object]] = []
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: started.append(k))
    res = CliRunner().invoke(
        app, ["--db", fresh_db, *argv, "--port", "1", "--job-workers", "0"], catch_exceptions=False
    )
    assert res.exit_code == 0 and len(started) == 1, res.output
    config = ServeConfig.from_env()
    assert config.default_lang == "zh"

    tokens = make_tokens(fresh_db)
    served = create_app(
        ServeConfig(
            db=fresh_db, jobs_inline=True, scratch_dir=str(tmp_path / "s"), default_lang=config.default_lang
        )
    )
    admin = {"Authorization": f"Bearer {tokens['admin']}"}
    with TestClient(served) as client:
        said = client.put("/api/v1/budget/2027-01", json={"amount_cny": -1}, headers=admin)
        assert said.status_code == 400 and said.json()["error"] == "amount_cny：应不小于 0.01", said.text
        asked = client.put(
            "/api/v1/budget/2027-01", json={"amount_cny": -1}, headers={**admin, "Accept-Language": "en"}
        )
        assert asked.json()["error"] == "amount_cny: Input should be greater than or equal to 0.01"
        assert (
            "应"
            not in client.put(
                "/api/v1/budget/2027-01?lang=en", json={"amount_cny": -1}, headers=admin
            ).json()["error"]
        )
