"""kill -9 during ``catalog refresh --from DIR`` (recorded responses, no network): afterwards the
catalog opens, each provider has its old prices or the whole new set, ``catalog info`` works, and
every refresh import has its ``refresh_runs`` row (and every ok row its import).

The kills land at seeded random moments over the length of a clean run, so they fall before,
inside and between the providers' transactions.
"""

from __future__ import annotations

import random
import shutil
import sqlite3
import time
from pathlib import Path

import respx
from typer.testing import CliRunner

from fault_helpers import finish, kill_at_random, record, refresh_from, start_child, wait_go
from gpuplan.catalog import Store, open_store
from gpuplan.catalog.providers import Credentials
from gpuplan.catalog.refresh import RefreshOptions, refresh
from gpuplan.cli import app

from .conftest import NOW

PROVIDERS = ["aws", "azure", "gcp", "alibaba", "tencent", "lambda", "runpod", "vast"]
KEYS = {
    "GOOGLE_API_KEY": "k",
    "TENCENTCLOUD_SECRET_ID": "AKIDtest",
    "TENCENTCLOUD_SECRET_KEY": "secret",
    "LAMBDA_API_KEY": "k",
    "RUNPOD_API_KEY": "k",
}
#: The refresh the child replays (a later fetch time than the recording, so its rows are its own).
LATER = "2026-12-01T06:00:00+00:00"


def _refresh_prices(path: Path) -> dict[str, int]:
    """Prices appended by refresh imports, per provider."""
    with sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True) as db:
        rows = db.execute(
            "SELECT imports.provider, COUNT(prices.id) FROM imports "
            "JOIN prices ON prices.import_id = imports.id "
            "WHERE imports.kind = 'refresh' GROUP BY imports.provider"
        ).fetchall()
    return dict(rows)


def _errors(path: Path, new: dict[str, int]) -> list[str]:
    """What is wrong after a killed refresh (empty: consistent)."""
    try:
        open_store(str(path)).close()
    except Exception as e:  # any failure to open is the finding
        return [f"does not open: {e}"]
    errors = []
    for provider, n in _refresh_prices(path).items():
        if n != new[provider]:
            errors.append(f"{provider}: {n} refresh prices, neither 0 nor the whole {new[provider]}")
    with sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True) as db:
        unrecorded = db.execute(
            "SELECT id, provider FROM imports WHERE kind = 'refresh' AND id NOT IN "
            "(SELECT import_id FROM refresh_runs WHERE status = 'ok' AND import_id IS NOT NULL)"
        ).fetchall()
        orphan_runs = db.execute(
            "SELECT id, provider FROM refresh_runs WHERE status = 'ok' AND (import_id IS NULL OR import_id "
            "NOT IN (SELECT id FROM imports WHERE kind = 'refresh'))"
        ).fetchall()
        twice = db.execute(
            "SELECT provider FROM refresh_runs GROUP BY provider HAVING COUNT(*) > 1"
        ).fetchall()
    errors += [f"refresh import {i} ({p}) has no ok run recorded" for i, p in unrecorded]
    errors += [f"ok run {i} ({p}) has no import" for i, p in orphan_runs]
    errors += [f"{p}: more than one run recorded for one refresh" for (p,) in twice]
    info = CliRunner().invoke(app, ["--db", str(path), "catalog", "info"])
    if info.exit_code != 0:
        errors.append(f"catalog info exits {info.exit_code}: {info.output.strip()[:200]}")
    return errors


def test_kill_9_during_a_refresh_leaves_each_provider_old_or_new_whole(
    store: Store, api: respx.MockRouter, seeded_db: Path, tmp_path: Path
) -> None:
    recordings = tmp_path / "recorded"
    saved = refresh(
        store, PROVIDERS, RefreshOptions(now=NOW, credentials=Credentials(values=KEYS), save_dir=recordings)
    )
    assert [o.status for o in saved] == ["ok"] * len(PROVIDERS), [o.line() for o in saved]
    store.close()
    # A clean replay on a fresh copy of the seeded catalog (no refresh yet): the "new whole" per
    # provider, and how long a refresh takes.
    clean = tmp_path / "clean.sqlite"
    shutil.copy(seeded_db, clean)
    child = start_child(refresh_from, str(clean), str(recordings), PROVIDERS, KEYS, LATER)
    t0 = wait_go(child)
    assert finish(child) == 0
    took = time.monotonic() - t0
    new = _refresh_prices(clean)
    assert set(new) == set(PROVIDERS) and all(new.values())
    assert not _errors(clean, new)

    rng = random.Random(14)
    tried = landed = lost = 0
    partial = 0
    # 8 kills; more (up to 24) while fewer than 3 landed mid-run or none between two providers'
    # transactions: a load spike that slowed the clean replay above makes later runs end before kills
    # timed from it, and a kill lands between two transactions only by chance.
    while tried < 8 or ((landed < 3 or partial < 1) and tried < 24):
        path = tmp_path / f"k{tried}.sqlite"
        shutil.copy(seeded_db, path)
        landed += kill_at_random(
            start_child(refresh_from, str(path), str(recordings), PROVIDERS, KEYS, LATER), took * 1.1, rng
        )
        tried += 1
        errors = _errors(path, new)
        lost += bool(errors)
        assert not errors, (tried, errors)
        partial += 0 < len(_refresh_prices(path)) < len(PROVIDERS)
    record("kill -9 during catalog refresh --from", tried, tried - lost, lost, killed_mid_run=landed)
    assert landed >= 3  # most kills land while the refresh is still running
    assert partial >= 1  # and some between two providers' transactions


def test_a_hostile_replay_folder_fails_in_one_line_and_reads_nothing_outside(
    store: Store, api: respx.MockRouter, tmp_path: Path
) -> None:
    import json
    import os

    recordings = tmp_path / "recorded"
    [saved] = refresh(store, ["vast"], RefreshOptions(now=NOW, save_dir=recordings))
    assert saved.status == "ok"
    index_path = recordings / "vast" / "index.json"
    index = json.loads(index_path.read_text())
    secret = tmp_path / "secret.txt"
    secret.write_text('{"offers": []}')
    (recordings / "vast" / "fifo.body").unlink(missing_ok=True)
    os.mkfifo(recordings / "vast" / "fifo.body")
    (recordings / "vast" / "link.body").symlink_to(secret)
    for planted, words in [
        ("../../secret.txt", "plain file names"),
        (str(secret), "plain file names"),
        ("link.body", "links out of"),
        ("fifo.body", "not a regular file"),
    ]:
        index_path.write_text(json.dumps({k: {**v, "file": planted} for k, v in index.items()}))
        [out] = refresh(store, ["vast"], RefreshOptions(now=LATER, replay_dir=recordings))
        assert out.status == "failed" and words in out.message, out.message
        assert "\n" not in out.message and "kept the last good data" in out.message
    index_path.write_text("[1, 2]")
    [out] = refresh(store, ["vast"], RefreshOptions(now=LATER, replay_dir=recordings))
    assert out.status == "failed" and "not a gpuplan replay index" in out.message
