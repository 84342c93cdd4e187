"""The one way the CLI gets a workload's Profile: a saved file, the store's cache, or a fresh trace."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpuplan.errors import StoreError
from gpuplan.i18n import _
from gpuplan.i18n.error_text import error_text

if TYPE_CHECKING:
    from gpuplan.catalog import Store
    from gpuplan.catalog.local_store import LocalStore
    from gpuplan.profile.model import Profile
    from gpuplan.workload import Workload


def open_cache(
    db: str | None, *, seed: bool = False, usd_per_cny: float | None = None, force_rate: bool = False
) -> Store | None:
    """The catalog store as a profile cache, or None (with a warning) when it cannot be opened:
    a broken cache must not block an estimate. ``seed``: load the shipped offers on first use, for
    a caller that reads them too (under a second, once); ``usd_per_cny``, ``force_rate``: the
    user's CNY rate, as ``open_store`` takes it."""
    from gpuplan.catalog.open_catalog import open_store

    try:
        return open_store(db, seed=seed, usd_per_cny=usd_per_cny, force_rate=force_rate)
    except StoreError as e:
        from gpuplan.i18n import _
        from gpuplan.i18n.error_text import error_text

        sys.stderr.write(
            _("warning: profile cache unavailable ({error}); tracing without it").format(error=error_text(e))
            + "\n"
        )
        return None


#: ``load_profile(store=…)`` default: no store was opened yet, so open ``db`` for the cache.
OPEN_DB: Any = object()


def load_profile(
    workload: Workload, db: str | None, saved: Path | None = None, *, store: Store | None = OPEN_DB
) -> Profile:
    """A saved profile (``--profile``), else the cached one, else a fresh trace (then cached).

    ``store``: an already open catalog to use as the cache, or None when opening it failed (trace
    without a cache); by default ``db`` is opened for it.
    """
    from gpuplan.profile import profile

    if saved is not None:
        from gpuplan.profile.saved import read_saved_profile

        return read_saved_profile(saved, workload)
    if store is not OPEN_DB:
        return profile(workload, _TolerantCache(store.local) if store is not None else None)
    cache = open_cache(db)
    try:
        return profile(workload, _TolerantCache(cache.local) if cache is not None else None)
    finally:
        if cache is not None:
            cache.close()


class _TolerantCache:
    """The store as a profile cache whose failures are a one-line warning, never a lost estimate: a
    read-only catalog file or folder, a full disk, another writer holding the lock past the busy
    timeout. The trace is the expensive part; a cache that cannot keep it is only slower next time."""

    def __init__(self, store: LocalStore) -> None:
        self._store = store
        self._warned = False

    def _warn(self, line: str, error: StoreError) -> None:
        if not self._warned:  # one warning per command, whichever of read and write failed first
            sys.stderr.write(line.format(error=error_text(error)) + "\n")
            self._warned = True

    def get_profile(self, key: str, schema_version: int) -> str | None:
        try:
            return self._store.get_profile(key, schema_version)
        except StoreError as e:
            self._warn(_("warning: profile cache not read ({error}); tracing the workload"), e)
            return None

    def put_profile(self, key: str, schema_version: int, payload: str) -> None:
        try:
            self._store.put_profile(key, schema_version, payload)
        except StoreError as e:
            self._warn(_("warning: profile not cached ({error}); the estimate is unaffected"), e)
