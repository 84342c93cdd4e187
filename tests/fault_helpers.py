"""Fault injection for tests: a small tmpfs (a full or read-only disk), kill -9 at a random point of a
child process, and the tally of (tried / survived / lost) per kind of fault."""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

#: Where the tallies of one test session are appended (one JSON line per kind of fault), for the
#: issue's report: `cat $GPUPLAN_FAULT_TALLY` after `pytest -k faults`.
TALLY_FILE = os.environ.get("GPUPLAN_FAULT_TALLY")


@contextmanager
def small_tmpfs(folder: Path, size: str) -> Iterator[Path]:
    """A tmpfs of ``size`` mounted at ``folder`` (root only); the test is skipped where it cannot be."""
    folder.mkdir(parents=True, exist_ok=True)
    r = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)], capture_output=True
    )
    if r.returncode != 0:
        pytest.skip("cannot mount a small tmpfs here (needs root): the full-disk case is not exercised")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False, capture_output=True)


def remount(folder: Path, options: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{options}", str(folder)], check=True, capture_output=True)


#: Children fork from a server that has gpuplan's catalog and SQLAlchemy imported already, so each
#: costs only its work (a fresh interpreter would spend more time importing than the kill window).
_CTX = multiprocessing.get_context("forkserver")
_CTX.set_forkserver_preload(
    [
        "gpuplan.catalog",
        "gpuplan.catalog.snapshot",
        "gpuplan.catalog.refresh",
        "sqlalchemy",
        "alembic.command",
    ]
)


def _run(go: Any, work: Callable[..., None], args: tuple[Any, ...]) -> None:
    go.set()
    work(*args)


def start_child(work: Callable[..., None], *args: Any) -> tuple[Any, Any]:
    """``work(*args)`` in a child process; returns (process, event set when its work begins)."""
    go = _CTX.Event()
    proc = _CTX.Process(target=_run, args=(go, work, args))
    proc.start()
    return proc, go


def wait_go(child: tuple[Any, Any], timeout_s: float = 60) -> float:
    """Block until the child's work begins; returns the time it did."""
    proc, go = child
    assert go.wait(timeout_s), f"child did not start (exit code {proc.exitcode})"
    return time.monotonic()


def finish(child: tuple[Any, Any], timeout_s: float = 180) -> int:
    """Wait for the child; its exit code."""
    proc, _ = child
    proc.join(timeout_s)
    assert proc.exitcode is not None, "child did not finish"
    return int(proc.exitcode)


def kill_at_random(child: tuple[Any, Any], within_s: float, rng: random.Random) -> bool:
    """SIGKILL the child at a uniformly random moment within ``within_s`` of its start.
    Returns True when the kill landed while it was still running."""
    proc, _ = child
    wait_go(child)
    time.sleep(rng.uniform(0, within_s))
    alive = proc.is_alive()
    if alive:
        try:
            os.kill(proc.pid, signal.SIGKILL)
        except ProcessLookupError:  # it ended between the check and the kill: the kill did not land
            alive = False
    proc.join(60)
    return alive


# ---- the children's work ---------------------------------------------------------------------


def create_catalog(path: str) -> None:
    """Create, migrate and seed a catalog."""
    from gpuplan.catalog import open_store

    open_store(path).close()


def import_offers(path: str, tag: str, rows: int) -> None:
    """One import of ``rows`` synthetic AWS offers."""
    from gpuplan.catalog import OfferRow, PriceRow, open_store

    store = open_store(path, seed=False)
    price = dict(currency="USD", unit="hour", as_of="2026-11-01", source="fault test", confidence="high")
    offers = [
        OfferRow(provider="aws", region="us-east-1", zone=None, instance_type=f"fault{tag}.{i}xlarge",
                 gpu="T4", gpu_count=1, vcpus=4, memory_gib=16, network_gbps=None, interconnect=None,
                 source="fault test", prices=(PriceRow(pricing="on_demand", amount=0.5 + i / 1e4, **price),))
        for i in range(rows)
    ]  # fmt: skip
    report = store.import_offers(offers, provider="aws", source=f"fault import {tag}", kind="manual")
    store.close()
    if report.prices_imported != rows:
        raise SystemExit(3)


def record(kind: str, tried: int, survived: int, lost: int, **extra: object) -> None:
    """Keep a tally (printed with -s, and appended to $GPUPLAN_FAULT_TALLY when set)."""
    line = {"kind": kind, "tried": tried, "survived": survived, "lost": lost, **extra}
    print(json.dumps(line))
    if TALLY_FILE:
        with open(TALLY_FILE, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(line) + "\n")


def refresh_from(path: str, replay_dir: str, providers: list[str], keys: dict[str, str], now: str) -> None:
    """``gpuplan catalog refresh --from replay_dir`` of ``providers`` (recorded responses, no network)."""
    from gpuplan.catalog import open_store
    from gpuplan.catalog.providers import Credentials
    from gpuplan.catalog.refresh import RefreshOptions, refresh

    store = open_store(path)
    options = RefreshOptions(credentials=Credentials(values=keys), replay_dir=Path(replay_dir), now=now)
    outcomes = refresh(store, providers, options)
    store.close()
    if any(o.status != "ok" for o in outcomes):
        raise SystemExit(3)
