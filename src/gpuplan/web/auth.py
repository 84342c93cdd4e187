"""Who is calling, may they, and how often: bearer tokens with scopes, per-token rate limits, the
request's language, and the catalog store each request works on.

A token is sent as ``Authorization: Bearer gpuplan_…`` (never in a URL, which access logs keep).
Unknown, revoked or expired → 401; a scope below the endpoint's → 403; more requests in a minute
than the token's limit → 429 with ``Retry-After``. The count is kept in the database, so the limit
holds across workers and replicas.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Any

from fastapi import Depends, HTTPException, Request

if TYPE_CHECKING:
    from gpuplan.catalog import Store
    from gpuplan.catalog.team_store import TokenInfo
    from gpuplan.web.config import ServeConfig

__all__ = ["Caller", "StoreProvider", "TokenCheck", "admin_token", "authorised", "request_language"]


class StoreProvider:
    """One open catalog store per server thread and day (a store keeps one reader connection and
    today's date for staleness); its cached facts are dropped at each request so that a discount
    set through another worker shows at once.

    The server's threads come and go (the thread pool lets an idle one end); a new thread takes
    over the store of one that has ended instead of opening another (opening reads the shipped
    snapshot's files: milliseconds, and a store left behind would hold its connection)."""

    def __init__(self, config: ServeConfig) -> None:
        self.config = config
        self._local = threading.local()
        self._lock = threading.Lock()
        # [owner thread, day, store] of every open store
        self._held: list[list[Any]] = []

    def open(self, *, seed: bool = True) -> Store:
        """A store of its own (the job runner's); ``seed``: check that the shipped snapshot is
        loaded (hashing its files: the first open of a process does it, the threads' need not)."""
        from gpuplan.catalog import open_store

        return open_store(self.config.db, seed=seed)

    def get(self) -> Store:
        today = date.today()
        held = getattr(self._local, "held", None)
        if held is None or held[1] != today:
            held = self._take(today)
            self._local.held = held
        store: Store = held[2]
        store.invalidate_caches()
        return store

    def _take(self, today: date) -> list[Any]:
        """A store for this thread: one of an ended thread's from today, else a new one; stores
        of other days whose threads ended (or of this thread) are closed."""
        me = threading.current_thread()
        stale: list[Store] = []
        taken = None
        with self._lock:
            kept = []
            for entry in self._held:
                owner, day, store = entry
                free = owner is me or not owner.is_alive()
                if free and day != today:
                    stale.append(store)
                    continue
                if free and taken is None:
                    entry[0] = me
                    taken = entry
                kept.append(entry)
            self._held = kept
        for store in stale:
            store.close()
        if taken is None:
            taken = [me, today, self.open(seed=False)]
            with self._lock:
                self._held.append(taken)
        return taken

    def close(self) -> None:
        """Close every thread's store (at shutdown)."""
        with self._lock:
            held, self._held = self._held, []
        for _owner, _day, store in held:
            store.close()


class RateWindows:
    """Per-token request counts of this process, added to the database's shared count at least once
    a second (and at once for a small limit): one write per token and second instead of one per
    request. Across workers and replicas a token may overshoot its limit by at most what the other
    processes took in their last second."""

    FLUSH_S = 1.0

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # (token id, minute) -> [count in the database when last seen, requests not yet added, last add]
        self._windows: dict[tuple[int, int], list[float]] = {}

    def hit(self, team: Any, token_id: int, limit: int, now: float) -> int:
        """Count one request; the token's estimated count in this minute."""
        minute = int(now // 60)
        key = (token_id, minute)
        with self._lock:
            w = self._windows.setdefault(key, [0, 0, 0.0])
            w[1] += 1
            due = now - w[2] >= self.FLUSH_S or w[1] >= max(1, limit // 20)
            if not due:
                return int(w[0] + w[1])
            pending, w[1], w[2] = int(w[1]), 0, now
            for old in [k for k in self._windows if k[1] < minute]:
                del self._windows[old]
        total = team.count_requests(token_id, minute, pending)
        with self._lock:
            seen = self._windows.get(key)
            if seen is not None:
                seen[0] = max(seen[0], total)
                return int(seen[0] + seen[1])
        return int(total)


@dataclass(frozen=True)
class Caller:
    token: TokenInfo
    lang: str

    @property
    def name(self) -> str:
        return self.token.name

    @property
    def team(self) -> str | None:
        """The token's team: what it saves is that team's, and it changes only that team's."""
        return self.token.team

    @property
    def admin(self) -> bool:
        """An admin's token changes any team's workloads and plans."""
        return self.token.allows("admin")


def request_language(request: Request) -> str:
    """``?lang=zh|en``, else the first of Accept-Language that gpuplan speaks, else the default."""
    asked = request.query_params.get("lang")
    if asked in ("en", "zh"):
        return asked
    for part in request.headers.get("accept-language", "").split(","):
        code = part.split(";")[0].strip().lower()
        if code.startswith("zh"):
            return "zh"
        if code.startswith("en"):
            return "en"
    return str(getattr(request.app.state, "default_lang", "en"))


def admin_token(request: Request) -> bool:
    """Whether the request carries a valid, unexpired token of the admin scope. Never refuses: an
    endpoint open to anyone (``/health``) shows an admin more, and the others what anyone sees."""
    from gpuplan.catalog.team_store import TeamStore

    kind, _sep, token = request.headers.get("authorization", "").partition(" ")
    if kind.lower() != "bearer" or not token.strip():
        return False
    try:
        info = TeamStore(request.app.state.stores.get().engine).verify_token(token.strip())
    except Exception:  # a database that does not answer shows nothing more
        return False
    return info is not None and not info.expired() and info.allows("admin")


def _unauthorised(message: str) -> HTTPException:
    return HTTPException(status_code=401, detail=message, headers={"WWW-Authenticate": "Bearer"})


class TokenCheck:
    """The dependency of a route that needs a token allowing ``scope``: the :class:`Caller`, or
    401 (no token, an unknown, revoked or expired one), 403 (a scope below) or 429 (too often).
    A route's body is not judged before it (``web.strict_json``): a caller who may not call the
    route learns nothing about what it sent."""

    def __init__(self, scope: str) -> None:
        self.scope = scope

    def __call__(self, request: Request) -> Caller:
        from gpuplan.catalog.team_store import TeamStore
        from gpuplan.i18n import _, use_language

        scope = self.scope
        lang = request_language(request)
        with use_language(lang):
            header = request.headers.get("authorization", "")
            kind, _sep, token = header.partition(" ")
            if kind.lower() != "bearer" or not token.strip():
                raise _unauthorised(_("send a token: Authorization: Bearer gpuplan_…"))
            store = request.app.state.stores.get()
            team = TeamStore(store.engine)
            info = team.verify_token(token.strip())
            if info is None:
                raise _unauthorised(_("this token is not valid (unknown or revoked)"))
            if info.expired():
                raise _unauthorised(
                    _("this token expired at {at}; ask for a new one").format(at=info.expires_at)
                )
            if not info.allows(scope):
                raise HTTPException(
                    status_code=403,
                    detail=_("this token's scope ({scopes}) does not allow {scope}").format(
                        scopes=",".join(info.scopes), scope=scope
                    ),
                )
            now = time.time()
            count = request.app.state.rates.hit(team, info.id, info.rate_per_minute, now)
            if count > info.rate_per_minute:
                wait = 60 - int(now % 60)
                raise HTTPException(
                    status_code=429,
                    detail=_("more than {n} requests this minute for this token; try again in {s} s").format(
                        n=info.rate_per_minute, s=wait
                    ),
                    headers={"Retry-After": str(wait)},
                )
        return Caller(token=info, lang=lang)


def authorised(scope: str) -> Any:
    """A dependency that returns the :class:`Caller` when its token allows ``scope``."""
    return Depends(TokenCheck(scope))
