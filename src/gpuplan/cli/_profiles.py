"""The one way the CLI gets a workload's Profile: a saved file, the store's cache, or a fresh trace."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from gpuplan.errors import InputError, StoreError

if TYPE_CHECKING:
    from gpuplan.profile.model import Profile
    from gpuplan.workload import Workload


def load_profile(workload: Workload, db: str | None, saved: Path | None = None) -> Profile:
    """A saved profile (``--profile``), else the store's cached one, else a fresh trace (then cached).

    A store that cannot be opened must not block an estimate: the trace runs without the cache and a
    warning says so.
    """
    from gpuplan.profile import profile
    from gpuplan.profile.model import Profile

    if saved is not None:
        try:
            return Profile.from_json(saved.read_text(encoding="utf-8"))
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise InputError(f"--profile {saved}: not a gpuplan profile JSON ({e})") from e
    from gpuplan.catalog.store import open_store

    try:
        store = open_store(db, seed=False)
    except StoreError as e:
        sys.stderr.write(f"warning: profile cache unavailable ({e}); tracing without it\n")
        return profile(workload, None)
    try:
        return profile(workload, store)
    finally:
        store.close()
