"""`gpuplan serve --db` refuses a database that is not gpuplan's as every command does: one line, and
the file byte for byte as it was — no job-queue tables of huey's, no WAL files beside it. The job
worker once created its queue in the file before the catalog check ran."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("huey")

#: Each way `gpuplan serve` opens the catalog: the server (which starts a worker), the worker alone
#: (one per replica) and the token commands.
COMMANDS = {
    "serve": ["serve", "--port", "1", "--job-workers", "0"],
    "worker": ["serve", "worker"],
    "token": ["serve", "token", "create", "--name", "ci"],
}


def _foreign(path: Path) -> Path:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE offers (id INTEGER PRIMARY KEY, sku TEXT)")
        db.execute("CREATE TABLE audit (sku TEXT)")
        db.execute(
            "CREATE TRIGGER offers_audit AFTER INSERT ON offers BEGIN INSERT INTO audit VALUES (new.sku); END"
        )
        db.execute("INSERT INTO offers (sku) VALUES ('theirs')")
    db.close()
    return path


@pytest.mark.parametrize("command", list(COMMANDS))
def test_serve_refuses_a_foreign_database_untouched(tmp_path: Path, command: str) -> None:
    db = _foreign(tmp_path / "theirs.db")
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUPLAN_")}
    r = subprocess.run(
        [sys.executable, "-m", "gpuplan", "--db", str(db), *COMMANDS[command]],
        capture_output=True,
        text=True,
        timeout=60,  # a server that started would be stopped here and fail the test
        env=env,
        check=False,
    )
    assert r.returncode == 1, r.stderr[-2000:]
    assert r.stderr == (
        f"error: {db} is not a gpuplan catalog (it holds trigger offers_audit, table audit); "
        "it was left unchanged: point --db at a new file\n"
    )
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["theirs.db"]  # no -wal, -shm or lock file
