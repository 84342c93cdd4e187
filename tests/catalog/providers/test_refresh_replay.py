"""``catalog refresh --from DIR`` with a folder someone else recorded: it may hold only some
providers, and its files are read within bounds. No test here touches the network."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuplan.catalog import open_store
from gpuplan.catalog.providers import PROVIDERS
from gpuplan.catalog.refresh import RefreshOptions, refresh
from gpuplan.cli import app
from one_line import refused

from .conftest import NOW, recorded_api

LATER = "2026-12-01T06:00:00+00:00"


@pytest.fixture(scope="module")
def aws_and_vast(tmp_path_factory: pytest.TempPathFactory, seeded_db: Path) -> Iterator[Path]:
    """A colleague's recording of AWS and Vast.ai only, as ``--save`` writes it."""
    out = tmp_path_factory.mktemp("recorded")
    db = out.parent / "recording.sqlite"
    shutil.copy(seeded_db, db)
    with recorded_api():
        done = refresh(open_store(str(db)), ["aws", "vast"], RefreshOptions(now=NOW, save_dir=out))
    assert [o.status for o in done] == ["ok", "ok"], [o.line() for o in done]
    yield out


def _runs_and_prices(db: Path) -> tuple[int, int]:
    with sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True) as c:
        [(runs,)] = c.execute("SELECT COUNT(*) FROM refresh_runs").fetchall()
        [(prices,)] = c.execute("SELECT COUNT(*) FROM prices").fetchall()
    return runs, prices


def _refresh(db: Path, *args: str) -> tuple[int, list[str]]:
    result = CliRunner().invoke(app, ["--db", str(db), "catalog", "refresh", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout.strip().splitlines()


def test_a_folder_of_some_providers_refreshes_them_and_skips_the_others_once(
    db_path: Path, aws_and_vast: Path
) -> None:
    # was: a "failed (no saved responses in …/azure (index.json missing))" line for each of the 24
    # providers and the rate the folder does not hold, and exit 1
    code, lines = _refresh(db_path, "--from", str(aws_and_vast))
    by = {ln.split(":")[0]: ln for ln in lines}
    assert by["aws"].startswith("aws: ok") and by["vast"].startswith("vast: ok"), lines
    absent = [p for p in PROVIDERS if p not in ("aws", "vast")] + ["exchange rates"]
    assert sorted(by) == sorted(["aws", "vast", *absent]) and len(lines) == len(by), lines
    for name in absent:
        assert by[name] == f"{name}: not recorded in {aws_and_vast}: skipped", by[name]
    assert code == 0, lines


def test_a_provider_absent_from_the_folder_is_not_recorded_as_a_run(
    db_path: Path, aws_and_vast: Path
) -> None:
    # catalog info keeps saying when azure was last refreshed, not that a replay of others skipped it
    before, _ = _runs_and_prices(db_path)
    _refresh(db_path, "--from", str(aws_and_vast))
    after, _ = _runs_and_prices(db_path)
    assert after == before + 2  # aws and vast


def test_naming_a_provider_the_folder_lacks_is_one_line_and_writes_nothing(
    db_path: Path, aws_and_vast: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _runs_and_prices(db_path)
    line = refused(
        ["--db", str(db_path), "catalog", "refresh", "--from", str(aws_and_vast), "--provider", "aws",
         "--provider", "Azure"],
        capsys,
    )  # fmt: skip
    assert line == (
        f"error: {aws_and_vast} holds no saved responses of azure (it holds aws, vast): leave it out, "
        "or record it with --save"
    ), line
    assert _runs_and_prices(db_path) == before  # aws, named first, was not refreshed either


def test_asking_for_the_rate_from_a_folder_without_it_is_one_line_and_writes_nothing(
    db_path: Path, aws_and_vast: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _runs_and_prices(db_path)
    line = refused(
        [
            "--db",
            str(db_path),
            "catalog",
            "refresh",
            "--from",
            str(aws_and_vast),
            "--provider",
            "vast",
            "--rates",
        ],
        capsys,
    )
    assert f"{aws_and_vast} holds no saved responses of exchange rates (it holds aws, vast)" in line, line
    assert _runs_and_prices(db_path) == before


def test_a_folder_that_holds_no_provider_is_one_line(
    db_path: Path, aws_and_vast: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    line = refused(["--db", str(db_path), "catalog", "refresh", "--from", str(empty)], capsys)
    assert line.startswith(
        f"error: {empty} holds no saved responses: --save writes one folder per provider"
    ), line
    # One provider's own folder given instead of the folder above it: say which to give.
    line = refused(["--db", str(db_path), "catalog", "refresh", "--from", str(aws_and_vast / "aws")], capsys)
    assert line == (
        f"error: {aws_and_vast / 'aws'} holds one provider's saved responses; give the folder above it: "
        f"--from {aws_and_vast}"
    ), line


def test_a_provider_recorded_but_unreadable_still_fails(
    db_path: Path, aws_and_vast: Path, tmp_path: Path
) -> None:
    replay = tmp_path / "replay"
    shutil.copytree(aws_and_vast, replay)
    (replay / "vast" / "index.json").unlink()  # the folder is there: a broken recording, not an absent one
    code, lines = _refresh(db_path, "--from", str(replay), "--provider", "aws", "--provider", "vast")
    assert lines[0].startswith("aws: ok"), lines
    assert lines[1].startswith("vast: failed (no saved responses in"), lines
    assert code == 1
