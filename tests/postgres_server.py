"""A throwaway PostgreSQL server for the catalog tests, or the one a URL names.

``GPUPLAN_TEST_POSTGRES_URL`` (an empty database the tests may fill) wins. Without it, a server is
started in a temporary folder when this machine has PostgreSQL's own programs (``initdb`` and
``pg_ctl``, e.g. Debian's ``postgresql`` package) and the driver (``pip install 'gpuplan[postgres]'``):
trust authentication, a Unix socket only (no TCP port opened), stopped at the end of the session.
As root, it runs as the ``postgres`` user (the server refuses root). Where none of this is at hand —
CI installs only what the project's files install — the PostgreSQL tests are skipped, saying why.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

URL_ENV = "GPUPLAN_TEST_POSTGRES_URL"


@dataclass(frozen=True)
class Server:
    url: str
    """SQLAlchemy URL of the server's ``postgres`` database (or the given one)."""
    own: bool
    """True for a throwaway server: each test gets a database of its own."""


def _program(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return candidates[-1] if candidates else None


def start() -> Iterator[Server]:
    """Yield a server (see the module docstring), or skip the test."""
    given = os.environ.get(URL_ENV)
    if given:
        yield Server(url=given, own=False)
        return
    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.skip(f"PostgreSQL not tested: no driver (pip install 'gpuplan[postgres]') and no {URL_ENV}")
    initdb, pg_ctl = _program("initdb"), _program("pg_ctl")
    if not (initdb and pg_ctl):
        pytest.skip(f"PostgreSQL not tested: no server programs (initdb, pg_ctl) here and no {URL_ENV}")
    # Not under pytest's tmp_path: its folders are private to root, which the server's user is not.
    folder = Path(tempfile.mkdtemp(prefix="gpuplan-pg-"))
    try:
        yield from _serve(folder, initdb, pg_ctl)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _serve(folder: Path, initdb: str, pg_ctl: str) -> Iterator[Server]:
    prefix: list[str] = []
    if os.geteuid() == 0:
        import pwd

        try:
            user = pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("PostgreSQL not tested: running as root and there is no 'postgres' user to run it")
        os.chown(folder, user.pw_uid, user.pw_gid)
        prefix = ["runuser", "-u", "postgres", "--"]
    data = folder / "data"
    run = lambda *cmd: subprocess.run([*prefix, *cmd], capture_output=True, text=True, timeout=120)  # noqa: E731
    made = run(initdb, "-D", str(data), "-A", "trust", "-U", "postgres", "--no-sync")
    if made.returncode != 0:
        pytest.skip(f"PostgreSQL not tested: initdb failed ({made.stderr.strip()[:200]})")
    options = f"-c listen_addresses='' -k {folder} -p 5432 -c fsync=off -c max_connections=40"
    up = run(pg_ctl, "-D", str(data), "-o", options, "-l", str(folder / "server.log"), "-w", "start")
    if up.returncode != 0:
        pytest.skip(f"PostgreSQL not tested: the server did not start ({up.stderr.strip()[:200]})")
    try:
        yield Server(url=f"postgresql+psycopg://postgres@/postgres?host={folder}&port=5432", own=True)
    finally:
        run(pg_ctl, "-D", str(data), "-m", "immediate", "stop")


def fresh_database(server: Server, name: str) -> str:
    """The URL of an empty database: a new one on an own server, else the given one emptied."""
    from sqlalchemy import create_engine, text

    engine = create_engine(server.url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            if not server.own:
                conn.execute(text("DROP SCHEMA public CASCADE; CREATE SCHEMA public"))
                return server.url
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
            conn.execute(text(f'CREATE DATABASE "{name}"'))
    finally:
        engine.dispose()
    return server.url.replace("/postgres?", f"/{name}?", 1)
