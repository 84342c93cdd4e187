"""The team's records beside the catalog (``gpuplan serve``): API tokens, the audit log, rate windows,
saved workloads and plans with their history, and budgets of a month or a year.

Like :mod:`gpuplan.catalog.local_store`, the tables live in the catalog's database (one file or
server to back up, one migration chain) but belong to this module; the service in ``gpuplan.web``
is its only user besides ``gpuplan serve token``. Every change is written with its audit row in the
same transaction, so the log cannot miss a change that happened nor record one that did not.

Tokens are stored as the SHA-256 of the token, never the token: a token is 32 random bytes, so a
fast hash is enough (a slow password hash protects guessable secrets, which these are not); the
comparison is constant-time.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy import JSON, and_, cast, insert, select, type_coerce, update

from gpuplan.bounded import control_character, mixed_scripts, reading
from gpuplan.catalog import schema as t
from gpuplan.catalog.model import ExchangeRate
from gpuplan.catalog.transactions import upsert, writing
from gpuplan.errors import AbsentError, ForbiddenError, InputError, NotFoundError, Phrase
from gpuplan.i18n.messages import N_
from gpuplan.i18n.phrases import listed
from gpuplan.units import MAX_RUNS_PER_MONTH

#: The largest monthly budget accepted (the service's request schema says the same).
MAX_BUDGET_USD = 1e12
#: A saved plan's states: counted in its month's spend, taken out by hand, or saved again since
#: (the newer plan of the same workload and month is counted in its place).
PLAN_STATUSES = ("planned", "cancelled", "replaced")

if TYPE_CHECKING:
    from sqlalchemy import ColumnElement, Connection, Engine

__all__ = [
    "PLAN_STATUSES",
    "SCOPES",
    "AuditEntry",
    "Budget",
    "SavedPlan",
    "SavedWorkload",
    "TeamStore",
    "TokenInfo",
    "check_plannable",
    "now_iso",
]

#: Token scopes, each including the ones before it: read < plan < admin.
SCOPES = ("read", "plan", "admin")
_TOKEN_PREFIX = "gpuplan_"
T = TypeVar("T")


def now_iso(at: datetime | None = None) -> str:
    """UTC time as ISO-8601 text to the second (the format every table here stores)."""
    return (at or datetime.now(timezone.utc)).astimezone(timezone.utc).isoformat(timespec="seconds")


def _once_more_on_conflict(write: Callable[[], T]) -> T:
    """``write()``, tried again when a concurrent writer took the same key first (PostgreSQL runs
    two such transactions side by side; SQLite's ``BEGIN IMMEDIATE`` never lets them meet)."""
    from sqlalchemy.exc import IntegrityError

    for _ in range(4):
        try:
            return write()
        except IntegrityError:
            continue
    return write()


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True, kw_only=True)
class TokenInfo:
    """A token as stored: never the token itself."""

    id: int
    name: str
    """Who holds it: the name history and the audit log show."""
    prefix: str
    """The token's public part (``gpuplan_<prefix>_…``), safe to show and log."""
    scopes: tuple[str, ...]
    rate_per_minute: int
    created_at: str
    expires_at: str | None
    revoked_at: str | None
    team: str | None = None
    """The holder's team: the plans they save are that team's. None: no team (their plans count in
    the whole service's budget only)."""

    def allows(self, scope: str) -> bool:
        """True when this token's highest scope includes ``scope`` (read < plan < admin)."""
        best = max((SCOPES.index(s) for s in self.scopes if s in SCOPES), default=-1)
        return SCOPES.index(scope) <= best

    def expired(self, now: datetime | None = None) -> bool:
        return self.expires_at is not None and self.expires_at <= now_iso(now)


@dataclass(frozen=True, kw_only=True)
class AuditEntry:
    id: int
    at: str
    actor: str
    action: str
    target: str
    details: dict[str, Any]


@dataclass(frozen=True, kw_only=True)
class SavedWorkload:
    name: str
    version: int
    spec: dict[str, Any]
    saved_by: str
    saved_at: str
    team: str | None = None
    """The team that owns the workload: the team of the token that first saved it. Only its tokens
    (and admins) save new versions of it or plan it. None: no team (saved before workloads had
    teams, or by a token of no team): any token saves and plans it."""
    unchanged: bool = False
    """From :meth:`TeamStore.save_workload` only: the spec saved is this version's, the newest,
    already, so no version was added (a client that saves again what it sent, a retried request)."""


@dataclass(frozen=True, kw_only=True)
class SavedPlan:
    id: int
    workload: str
    workload_version: int
    month: str
    constraints: dict[str, Any]
    recommended: dict[str, Any] | None
    """The plan document's recommended option (None when the plan has none)."""
    document: dict[str, Any] | None
    """The whole plan document as it was; None in a listing (:meth:`TeamStore.plans`), which reads
    only the recommended option out of each (a plan document is 100-200 KB)."""
    total_cost_usd: float | None
    prices_as_of: str | None
    catalog_import_id: int | None
    created_by: str
    created_at: str
    status: str
    """planned (counted in its month's spend), cancelled, or replaced (the workload was planned again
    for the month since)."""
    runs_per_month: int = 1
    """How many times the plan runs in its month; its cost (``total_cost_usd``) is one run's (what
    the month costs, sharing a commitment and a data copy among its runs, is
    ``gpuplan.commit.recurring.plan_month``'s)."""
    team: str | None = None
    """The team of the token that saved it (None: no team)."""
    usd_per_cny: float | None = None
    """The CNY rate the plan was priced at (its document's ``exchange_rate``): prices kept in yuan
    were converted to ``total_cost_usd`` at it, so the cost in yuan is ``total_cost_usd`` at it
    again. None: the plan recorded none (the catalog had no CNY rate then)."""
    plan_version: int | None = None
    """The plan document's ``schema_version`` (before 3, a service's cost is its peak fleet all
    month, whatever its day); None: not stated."""
    display_currency: str = "USD"
    """The currency the plan was made in: its document's ``display_currency`` (CNY for a plan asked
    in yuan, or for a workload budgeted in yuan), US dollars where it states none."""
    without_stale_prices: dict[str, Any] | None = None
    """The plan document's ``without_stale_prices``: where the recommended option's price was not
    known to be current when it was planned, the best option on prices known to be current (its
    ``option``, None where no feasible option had one); None where the price was known current, or
    the document has none."""


@dataclass(frozen=True, kw_only=True)
class Budget:
    month: str
    """``YYYY-MM``; for a year's budget (:meth:`TeamStore.year_budget`), the year, ``YYYY``."""
    amount_usd: float
    """The budget as given in US dollars; for one given in yuan (``amount_cny``), its dollars at the
    rate of the day it was set, a record only: a yuan budget is compared in yuan, and shown in
    dollars at the catalog's newest rate."""
    note: str
    """The setter's own words (for a budget set before catalog revision 0006 in yuan, also the
    conversion as it was worded then)."""
    set_by: str
    set_at: str
    amount_cny: float | None = None
    """The budget as given in yuan, the amount it is compared in; None: given in US dollars."""
    cny_rate: ExchangeRate | None = None
    """The rate ``amount_usd`` was worked out at from ``amount_cny`` when set, with its age then."""
    team: str | None = None
    """The team whose budget it is; None: the whole service's."""


def _budget_of(row: Mapping[str, Any]) -> Budget:
    """A ``team_budgets`` or ``team_year_budgets`` row (as written, or as read back) as a
    :class:`Budget`."""
    rate = (
        None
        if row["amount_cny"] is None or row["cny_usd_per_unit"] is None
        else ExchangeRate(
            currency="CNY",
            usd_per_unit=row["cny_usd_per_unit"],
            as_of=row["cny_rate_as_of"] or "",
            source=row["cny_rate_source"] or "",
            age_days=row["cny_rate_age_days"],
        )
    )
    return Budget(
        month=row["month"] if "month" in row else row["year"],
        amount_usd=row["amount_usd"],
        note=row["note"],
        set_by=row["set_by"],
        set_at=row["set_at"],
        amount_cny=row["amount_cny"] if rate else None,
        cny_rate=rate,
        team=row["team"] or None,
    )


def _token_info(r: Any) -> TokenInfo:
    return TokenInfo(
        id=r.id,
        name=r.name,
        prefix=r.prefix,
        scopes=tuple(s for s in r.scopes.split(",") if s),
        rate_per_minute=r.rate_per_minute,
        created_at=r.created_at,
        expires_at=r.expires_at,
        revoked_at=r.revoked_at,
        team=r.team,
    )


#: ``YYYY-MM`` in ASCII digits, 01-12: strptime's ``%Y`` also reads full-width ２０２６, so a plan was
#: kept under a month no listing or budget of "2026-12" finds.
_MONTH = re.compile(r"[0-9]{4}-(0[1-9]|1[0-2])")
#: ``YYYY`` in ASCII digits (a year's budget).
_YEAR = re.compile(r"[0-9]{4}")


def _check_runs(runs: int) -> None:
    if isinstance(runs, bool) or not isinstance(runs, int) or not 1 <= runs <= MAX_RUNS_PER_MONTH:
        raise InputError.worded(
            N_("runs per month {runs!r}: give a whole number from 1 to {limit} (hourly in a 31-day month)"),
            runs=runs,
            limit=MAX_RUNS_PER_MONTH,
        )


#: A team's name: letters, digits, '.', '-', '_' and inner spaces (as a saved workload's).
_TEAM = re.compile(r"[\w.\-]([\w.\- ]*[\w.\-])?")


def check_team(team: str) -> str:
    """A team's name as given (1 to 64 letters, digits, '.', '-', '_', inner spaces), or InputError."""
    if not isinstance(team, str) or len(team) > 64 or _TEAM.fullmatch(team) is None:
        raise InputError.worded(
            N_("team {team!r}: give 1 to 64 letters, digits, '.', '-', '_' or inner spaces"), team=team
        )
    _refuse_lookalike(N_("team"), team)
    return team


def check_year(year: str) -> str:
    """``YYYY`` (ASCII digits, not 0000) or InputError."""
    if not isinstance(year, str) or _YEAR.fullmatch(year) is None or year == "0000":
        raise InputError.worded(N_("year {year!r}: write YYYY, e.g. 2027"), year=year)
    return year


def check_month(month: str) -> str:
    """``YYYY-MM`` or InputError."""
    if not isinstance(month, str) or _MONTH.fullmatch(month) is None or month.startswith("0000"):
        raise InputError.worded(N_("month {month!r}: write YYYY-MM, e.g. 2026-12"), month=month)
    return month


class TeamStore:
    """Tokens, audit log, rate windows, saved workloads and plans, and budgets of one database."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    # -- audit -------------------------------------------------------------------------------------

    @staticmethod
    def audit(conn: Connection, actor: str, action: str, target: str, details: dict[str, Any]) -> None:
        """One audit row, in the caller's transaction (the change and its record commit together)."""
        conn.execute(
            insert(t.audit_log).values(
                at=now_iso(),
                actor=actor[:64],
                action=action[:64],
                target=target[:1000],
                details=json.dumps(details, sort_keys=True, ensure_ascii=False, default=str),
            )
        )

    def record(self, actor: str, action: str, target: str, details: dict[str, Any]) -> None:
        """An audit row on its own (a change made elsewhere in its own transaction, e.g. an import)."""
        with writing(self.engine) as conn:
            self.audit(conn, actor, action, target, details)

    def audit_entries(self, limit: int = 200) -> list[AuditEntry]:
        c = t.audit_log.c
        with self.engine.connect() as conn:
            rows = conn.execute(select(t.audit_log).order_by(c.id.desc()).limit(limit)).all()
        return [
            AuditEntry(
                id=r.id,
                at=r.at,
                actor=r.actor,
                action=r.action,
                target=r.target,
                details=json.loads(r.details),
            )
            for r in rows
        ]

    # -- tokens ------------------------------------------------------------------------------------

    def create_token(
        self,
        name: str,
        scope: str,
        *,
        rate_per_minute: int = 120,
        expires_in_days: float | None = None,
        actor: str = "cli",
        team: str | None = None,
    ) -> tuple[str, TokenInfo]:
        """A new token for ``name`` with ``scope`` (and those below it), of ``team`` when given (the
        plans its holder saves are that team's). Returns the token — shown once, never stored — and
        its record."""
        if team is not None:
            team = check_team(team.strip())
        if scope not in SCOPES:
            from gpuplan.errors import UnknownChoiceError

            raise UnknownChoiceError("scope", scope, SCOPES)
        name = name.strip()
        # no control or format character (an ESC colour sequence, a right-to-left override: a name
        # that prints as another in `serve token list` and the audit log)
        if not name or len(name) > 64 or control_character(name) is not None:
            raise InputError.worded(N_("token name {name!r}: give 1 to 64 printable characters"), name=name)
        _refuse_lookalike(N_("token name"), name)
        if not 1 <= rate_per_minute <= 1_000_000:
            raise InputError.worded(
                N_("rate limit {rate}: give 1 to 1000000 requests per minute"), rate=rate_per_minute
            )
        if expires_in_days is not None and not 0 < expires_in_days <= 3650:
            raise InputError.worded(N_("expiry {days}: give 1 to 3650 days"), days=expires_in_days)
        prefix = secrets.token_hex(4)
        token = f"{_TOKEN_PREFIX}{prefix}_{secrets.token_urlsafe(32)}"
        scopes = ",".join(SCOPES[: SCOPES.index(scope) + 1])
        expires = (
            now_iso(datetime.now(timezone.utc) + timedelta(days=expires_in_days)) if expires_in_days else None
        )
        with writing(self.engine) as conn:
            rows = conn.execute(select(t.api_tokens.c.name, t.api_tokens.c.revoked_at)).all()
            taken = next((r for r in rows if reading(r.name) == reading(name)), None)
            # the same name, or one that reads the same (Alice, ａｌｉｃｅ). A revoked token keeps its
            # name for good: a job is its owner's by the token name that queued it (web/routes_team.py
            # `_job`), so a name given again would hand the new holder the old holder's jobs.
            if taken is not None and taken.revoked_at is not None:
                raise InputError.worded(
                    N_(
                        "the token name {name!r} was a revoked token's: a name is never given again "
                        "(its jobs stay its holder's); pick another name"
                    ),
                    name=taken.name,
                )
            if taken is not None:
                raise InputError.worded(
                    N_("a token named {name!r} exists; pick another name"), name=taken.name
                )
            conn.execute(
                insert(t.api_tokens).values(
                    name=name,
                    prefix=prefix,
                    token_sha256=_digest(token),
                    scopes=scopes,
                    rate_per_minute=rate_per_minute,
                    created_at=now_iso(),
                    expires_at=expires,
                    revoked_at=None,
                    team=team,
                )
            )
            details = {"scopes": scopes, "prefix": prefix, "expires_at": expires, "team": team}
            self.audit(conn, actor, "token.create", name, details)
        info = self.token_by_prefix(prefix)
        assert info is not None
        return token, info

    def tokens(self) -> list[TokenInfo]:
        with self.engine.connect() as conn:
            rows = conn.execute(select(t.api_tokens).order_by(t.api_tokens.c.id)).all()
        return [_token_info(r) for r in rows]

    def token_by_prefix(self, prefix: str) -> TokenInfo | None:
        with self.engine.connect() as conn:
            r = conn.execute(select(t.api_tokens).where(t.api_tokens.c.prefix == prefix)).first()
        return None if r is None else _token_info(r)

    def verify_token(self, token: str) -> TokenInfo | None:
        """The record of ``token`` when it is one of ours and not revoked (expiry is the caller's
        to judge, so that it can say so); None otherwise."""
        if not token.startswith(_TOKEN_PREFIX) or len(token) > 200:
            return None
        prefix = token[len(_TOKEN_PREFIX) :].partition("_")[0]
        with self.engine.connect() as conn:
            r = conn.execute(select(t.api_tokens).where(t.api_tokens.c.prefix == prefix)).first()
        if r is None or r.revoked_at is not None:
            return None
        if not hmac.compare_digest(r.token_sha256, _digest(token)):
            return None
        return _token_info(r)

    def revoke_token(self, name: str, *, actor: str = "cli") -> TokenInfo:
        c = t.api_tokens.c
        with writing(self.engine) as conn:
            r = conn.execute(select(t.api_tokens).where(c.name == name)).first()
            if r is None:
                known = [x.name for x in conn.execute(select(c.name)).all()]
                raise NotFoundError("token", name, known, hint=N_("see gpuplan serve token list"))
            if r.revoked_at is None:
                conn.execute(update(t.api_tokens).where(c.id == r.id).values(revoked_at=now_iso()))
                self.audit(conn, actor, "token.revoke", name, {"prefix": r.prefix})
        info = self.token_by_prefix(r.prefix)
        assert info is not None
        return info

    # -- rate windows ------------------------------------------------------------------------------

    def count_requests(self, token_id: int, minute: int, n: int = 1) -> int:
        """Add ``n`` requests of ``token_id`` to ``minute`` (Unix time // 60); the count so far.

        Shared by every worker and replica through the database; windows older than an hour are
        dropped on the way."""

        def write() -> int:
            with writing(self.engine) as conn:
                return self._count(conn, token_id, minute, n)

        return _once_more_on_conflict(write)

    @staticmethod
    def _count(conn: Connection, token_id: int, minute: int, n: int) -> int:
        c = t.rate_windows.c
        done = conn.execute(
            update(t.rate_windows)
            .where(c.token_id == token_id, c.minute == minute)
            .values(count=c.count + n)
            .returning(c.count)
        ).first()
        if done is not None:
            return int(done[0])
        conn.execute(t.rate_windows.delete().where(c.token_id == token_id, c.minute < minute - 60))
        conn.execute(insert(t.rate_windows).values(token_id=token_id, minute=minute, count=n))
        return n

    # -- workloads ---------------------------------------------------------------------------------

    def save_workload(
        self,
        name: str,
        spec: dict[str, Any],
        *,
        actor: str,
        team: str | None = None,
        admin: bool = False,
    ) -> SavedWorkload:
        """Store ``spec`` as the next version of workload ``name`` (created on first save, as
        ``team``'s: the saver's). A workload another team owns is refused (ForbiddenError) unless
        ``admin``: its team's plans would plan the other team's spec. A spec equal to the newest
        version's is not kept again: that version is returned, ``unchanged`` (judged inside the
        write's transaction, so concurrent saves of one spec keep one version)."""
        now = now_iso()
        text = json.dumps(spec, sort_keys=True, ensure_ascii=False)
        return _once_more_on_conflict(lambda: self._save_workload(name, spec, text, now, actor, team, admin))

    def _save_workload(
        self,
        name: str,
        spec: dict[str, Any],
        text: str,
        now: str,
        actor: str,
        team: str | None,
        admin: bool,
    ) -> SavedWorkload:
        w, v = t.team_workloads.c, t.team_workload_versions.c
        with writing(self.engine) as conn:
            # The workload's row locked (PostgreSQL; SQLite's BEGIN IMMEDIATE already serialises
            # writers): concurrent saves of one name take their version numbers in turn, not the
            # same max + 1 (a unique-key 500, the save lost).
            row = conn.execute(select(w.id, w.team).where(w.name == name).with_for_update()).first()
            if row is None:
                _refuse_lookalike(N_("workload name"), name)
                names = conn.execute(select(w.name)).scalars()
                # not the name itself: created by a concurrent save since the select above, it is
                # no look-alike, and the insert below conflicts and is tried again (finding it)
                kept = next((n for n in names if n != name and reading(n) == reading(name)), None)
                if kept is not None:  # BERT, ｂｅｒｔ or 𝐛𝐞𝐫𝐭 beside bert: no one could tell them apart
                    raise InputError.worded(
                        N_("workload name {name!r} reads as the saved {kept!r}: save it under that name"),
                        name=name,
                        kept=kept,
                    )
                key = conn.execute(
                    insert(t.team_workloads).values(name=name, created_by=actor, created_at=now, team=team)
                ).inserted_primary_key
                assert key is not None
                wid = key[0]
                version = 1
                owner = team
            else:
                owner = row.team
                if owner is not None and owner != team and not admin:
                    raise ForbiddenError.worded(
                        N_(
                            "workload {name!r} belongs to team {owner!r}: only its tokens or an admin "
                            "save new versions of it; save yours under another name"
                        ),
                        name=name,
                        owner=owner,
                    )
                wid = row.id
                newest = conn.execute(
                    select(v.version, v.spec, v.saved_by, v.saved_at)
                    .where(v.workload_id == wid)
                    .order_by(v.version.desc())
                    .limit(1)
                ).first()
                if newest is not None and _same_spec(newest.spec, text):
                    return SavedWorkload(
                        name=name,
                        version=newest.version,
                        spec=json.loads(newest.spec),
                        saved_by=newest.saved_by,
                        saved_at=newest.saved_at,
                        team=owner,
                        unchanged=True,
                    )
                version = (newest.version if newest is not None else 0) + 1
            conn.execute(
                insert(t.team_workload_versions).values(
                    workload_id=wid, version=version, spec=text, saved_by=actor, saved_at=now
                )
            )
            self.audit(conn, actor, "workload.save", name, {"version": version, "team": owner})
        return SavedWorkload(name=name, version=version, spec=spec, saved_by=actor, saved_at=now, team=owner)

    def workload_versions(self, name: str | None = None) -> list[SavedWorkload]:
        """Every saved version (of ``name`` when given), newest first."""
        w, v = t.team_workloads.c, t.team_workload_versions.c
        stmt = (
            select(w.name, v.version, v.spec, v.saved_by, v.saved_at, w.team)
            .join_from(t.team_workload_versions, t.team_workloads, v.workload_id == w.id)
            .order_by(w.name, v.version.desc())
        )
        if name is not None:
            stmt = stmt.where(w.name == name)
        with self.engine.connect() as conn:
            rows = conn.execute(stmt).all()
        return [
            SavedWorkload(
                name=r.name,
                version=r.version,
                spec=json.loads(r.spec),
                saved_by=r.saved_by,
                saved_at=r.saved_at,
                team=r.team,
            )
            for r in rows
        ]

    def workload(self, name: str, version: int | None = None) -> SavedWorkload:
        found = self.workload_versions(name)
        if not found:
            known = sorted({x.name for x in self.workload_versions()})
            raise NotFoundError("saved workload", name, known)
        if version is None:
            return found[0]
        for x in found:
            if x.version == version:
                return x
        raise InputError.worded(
            N_("workload {name!r} has no version {version} (newest: {newest})"),
            name=name,
            version=version,
            newest=found[0].version,
        )

    # -- plans -------------------------------------------------------------------------------------

    def save_plan(
        self,
        workload: SavedWorkload,
        *,
        month: str,
        constraints: dict[str, Any],
        document: dict[str, Any],
        catalog_import_id: int | None,
        actor: str,
        document_text: str | None = None,
        runs_per_month: int = 1,
        team: str | None = None,
        admin: bool = False,
    ) -> SavedPlan:
        """Keep a plan of a saved workload version: who, when, on which prices, for which month,
        run how many times in it, for which team (the saver's). The team's earlier planned plan of
        the workload for the month, if any, is marked replaced (the month's spend counts each
        workload's newest plan once per team). A workload another team owns is refused
        (ForbiddenError, :func:`check_plannable`) unless ``admin``.
        ``document_text``: the document as JSON text when the caller has it (it is not written again)."""
        check_month(month)
        _check_runs(runs_per_month)
        check_plannable(workload, team, admin=admin)
        rec = document.get("recommended") or {}
        w = t.team_workloads.c
        now = now_iso()
        total = rec.get("total_cost_usd")
        as_of = rec.get("as_of")
        # Written before the transaction: other writers wait for as short a time as may be.
        constraints_text = json.dumps(constraints, sort_keys=True)
        if document_text is None:
            document_text = json.dumps(document, ensure_ascii=False)
        with writing(self.engine) as conn:
            found = conn.execute(select(w.id, w.team).where(w.name == workload.name)).one()
            # as it is now, in the transaction (``workload`` was read before it)
            check_plannable(replace(workload, team=found.team), team, admin=admin)
            wid = found.id
            replaced = self._replace_planned(conn, wid, month, team)
            key = conn.execute(
                insert(t.team_plans).values(
                    workload_id=wid,
                    workload_version=workload.version,
                    month=month,
                    constraints=constraints_text,
                    document=document_text,
                    total_cost_usd=total,
                    prices_as_of=as_of,
                    catalog_import_id=catalog_import_id,
                    created_by=actor,
                    created_at=now,
                    status="planned",
                    runs_per_month=runs_per_month,
                    team=team,
                )
            ).inserted_primary_key
            assert key is not None
            pid = key[0]
            self.audit(
                conn,
                actor,
                "plan.save",
                f"{workload.name}@{workload.version}",
                {
                    "plan_id": pid,
                    "month": month,
                    "total_cost_usd": total,
                    "runs_per_month": runs_per_month,
                    "replaced": replaced,
                    "team": team,
                },
            )
        return SavedPlan(
            id=int(pid),
            workload=workload.name,
            workload_version=workload.version,
            month=month,
            constraints=json.loads(constraints_text),
            recommended=document.get("recommended"),
            document=document,
            total_cost_usd=total,
            prices_as_of=as_of,
            catalog_import_id=catalog_import_id,
            created_by=actor,
            created_at=now,
            status="planned",
            runs_per_month=runs_per_month,
            team=team,
            usd_per_cny=_usd_per_cny(document.get("exchange_rate")),
            plan_version=_version(document.get("schema_version")),
            without_stale_prices=_dict_or_none(document.get("without_stale_prices")),
            display_currency=_currency_or_usd(document.get("display_currency")),
        )

    @staticmethod
    def _replace_planned(
        conn: Connection, workload_id: int, month: str, team: str | None, *, but: int | None = None
    ) -> list[int]:
        """Mark ``team``'s planned plans of the workload for ``month`` (all but plan ``but``)
        replaced; their ids."""
        p = t.team_plans.c
        where = [
            p.workload_id == workload_id,
            p.month == month,
            p.status == "planned",
            p.team.is_not_distinct_from(team),
        ]
        if but is not None:
            where.append(p.id != but)
        ids = [int(i) for i in conn.execute(select(p.id).where(*where)).scalars()]
        if ids:
            conn.execute(update(t.team_plans).where(p.id.in_(ids)).values(status="replaced"))
        return ids

    def _plans(self, where: Any = None, *, with_document: bool = False) -> list[SavedPlan]:
        p, w = t.team_plans.c, t.team_workloads.c
        # The listing reads the recommended option out of each document in the database, not the
        # documents: parsing 2,000 of them in Python took seconds per request.
        columns = [c for c in t.team_plans.c if c is not p.document or with_document]
        dialect = self.engine.dialect.name
        stmt = select(
            *columns,
            w.name,
            _document_field(dialect, "recommended").label("recommended"),
            _document_field(dialect, "exchange_rate").label("exchange_rate"),
            _document_field(dialect, "schema_version").label("plan_version"),
            _document_field(dialect, "without_stale_prices").label("without_stale_prices"),
            _document_field(dialect, "display_currency").label("display_currency"),
        )
        stmt = stmt.join_from(t.team_plans, t.team_workloads, p.workload_id == w.id)
        if where is not None:
            stmt = stmt.where(where)
        with self.engine.connect() as conn:
            rows = conn.execute(stmt.order_by(p.id.desc())).all()
        return [
            SavedPlan(
                id=r.id,
                workload=r.name,
                workload_version=r.workload_version,
                month=r.month,
                constraints=json.loads(r.constraints),
                recommended=r.recommended,
                document=json.loads(r.document) if with_document else None,
                total_cost_usd=r.total_cost_usd,
                prices_as_of=r.prices_as_of,
                catalog_import_id=r.catalog_import_id,
                created_by=r.created_by,
                created_at=r.created_at,
                status=r.status,
                runs_per_month=r.runs_per_month,
                team=r.team,
                usd_per_cny=_usd_per_cny(r.exchange_rate),
                plan_version=_version(r.plan_version),
                without_stale_prices=_dict_or_none(r.without_stale_prices),
                display_currency=_currency_or_usd(r.display_currency),
            )
            for r in rows
        ]

    def plans(
        self, month: str | None = None, *, year: str | None = None, team: str | None = None
    ) -> list[SavedPlan]:
        """Saved plans, newest first (of ``month``, of a ``year``'s months, of ``team`` when given),
        without their documents."""
        p = t.team_plans.c
        where = [
            *([p.month == check_month(month)] if month else []),
            *([p.month.like(f"{check_year(year)}-%")] if year else []),
            *([p.team == team] if team is not None else []),
        ]
        return self._plans(and_(*where) if where else None)

    def plan(self, plan_id: int, *, with_document: bool = True) -> SavedPlan:
        """One saved plan, with its document unless ``with_document`` is False."""
        found = self._plans(t.team_plans.c.id == plan_id, with_document=with_document)
        if not found:
            raise AbsentError.worded(N_("no saved plan {id}"), id=plan_id)
        return found[0]

    def set_plan_status(
        self,
        plan_id: int,
        status: str,
        *,
        actor: str,
        team: str | None = None,
        admin: bool = False,
    ) -> SavedPlan:
        """Cancel a plan, or plan it again (then the workload's other planned plan of its month, if
        any, is replaced: a month counts one plan of each workload). Only the plan's team (``team``:
        the caller's; a plan of no team, a caller of no team) or an ``admin`` changes it; another's
        is ForbiddenError."""
        if status not in ("planned", "cancelled"):
            from gpuplan.errors import UnknownChoiceError

            raise UnknownChoiceError("plan status", status, ("planned", "cancelled"))
        owner = self.plan(plan_id, with_document=False).team
        if owner != team and not admin:
            if owner is None:
                raise ForbiddenError.worded(
                    N_("plan {id} has no team: only a token of no team or an admin changes it; ask an admin"),
                    id=plan_id,
                )
            raise ForbiddenError.worded(
                N_(
                    "plan {id} belongs to team {owner!r}: only its tokens or an admin change it; ask "
                    "team {owner!r}"
                ),
                id=plan_id,
                owner=owner,
            )
        p = t.team_plans.c
        with writing(self.engine) as conn:
            details: dict[str, Any] = {"status": status}
            if status == "planned":
                row = conn.execute(select(p.workload_id, p.month, p.team).where(p.id == plan_id)).one()
                details["replaced"] = self._replace_planned(
                    conn, row.workload_id, row.month, row.team, but=plan_id
                )
            conn.execute(update(t.team_plans).where(p.id == plan_id).values(status=status))
            self.audit(conn, actor, "plan.status", str(plan_id), details)
        return self.plan(plan_id, with_document=False)

    # -- budgets -----------------------------------------------------------------------------------

    def set_budget(
        self,
        month: str,
        amount_usd: float,
        *,
        note: str = "",
        actor: str,
        given_cny: tuple[float, ExchangeRate] | None = None,
        team: str | None = None,
    ) -> Budget:
        """Keep ``month``'s budget, the whole service's or ``team``'s; ``given_cny``: it was given as
        that many yuan, converted to ``amount_usd`` at that rate (kept, so that a reader is told so
        in their own language)."""
        key = {"month": check_month(month)}
        return self._keep_budget(
            t.team_budgets, key, amount_usd, note=note, actor=actor, given_cny=given_cny, team=team
        )

    def set_year_budget(self, year: str, amount_usd: float, *, actor: str, **given: Any) -> Budget:
        """Keep ``year``'s budget (``YYYY``), the whole service's or ``team``'s: ``given`` holds
        :meth:`set_budget`'s ``note``, ``given_cny`` and ``team``, checked, converted and audited as
        a month's; its :attr:`Budget.month` is the year."""
        key = {"year": check_year(year)}
        return self._keep_budget(t.team_year_budgets, key, amount_usd, actor=actor, **given)

    def _keep_budget(
        self,
        table: Any,
        key: dict[str, str],
        amount_usd: float,
        *,
        actor: str,
        note: str = "",
        given_cny: tuple[float, ExchangeRate] | None = None,
        team: str | None = None,
    ) -> Budget:
        """A budget kept in ``table`` under ``team`` and ``key`` (its month, or its year), with its
        audit row: the checks, the yuan and its rate, and the audit entry a month's and a year's share."""
        if team is not None:
            self.check_known_team(team)
        if not (0 <= amount_usd <= MAX_BUDGET_USD):  # NaN too
            raise InputError.worded(
                N_("budget {amount:g}: give 0 to {limit:,.0f} US dollars"),
                amount=amount_usd,
                limit=MAX_BUDGET_USD,
            )
        if (bad := control_character(note)) is not None:
            # the note is shown beside the month's spend: a newline would forge a line of its own
            raise InputError.worded(
                N_(
                    "a budget's note must be one line of printable text (got the control character "
                    "U+{code:04X})"
                ),
                code=ord(bad),
            )
        now = now_iso()
        cny, rate = given_cny if given_cny is not None else (None, None)
        details: dict[str, Any] = {"amount_usd": amount_usd, "note": note[:500], "team": team}
        if rate is not None:
            details |= {"amount_cny": cny, "usd_per_cny": rate.usd_per_unit, "rate_as_of": rate.as_of}
        row = {
            "team": team or "",
            **key,
            "amount_usd": amount_usd,
            "note": note[:500],
            "set_by": actor,
            "set_at": now,
            "amount_cny": cny,
            "cny_usd_per_unit": rate.usd_per_unit if rate else None,
            "cny_rate_as_of": rate.as_of if rate else None,
            "cny_rate_source": rate.source if rate else None,
            "cny_rate_age_days": rate.age_days if rate else None,
        }
        [period] = key.values()
        with writing(self.engine) as conn:
            upsert(conn, table, row, ["team", *key])
            self.audit(conn, actor, "budget.set", f"{team}/{period}" if team else period, details)
        return _budget_of(row)

    def budget(self, month: str, team: str | None = None) -> Budget | None:
        """``month``'s budget: the whole service's, or ``team``'s."""
        return self._kept_budget(t.team_budgets, "month", check_month(month), team)

    def year_budget(self, year: str, team: str | None = None) -> Budget | None:
        """``year``'s budget (``YYYY``): the whole service's, or ``team``'s."""
        return self._kept_budget(t.team_year_budgets, "year", check_year(year), team)

    def _kept_budget(self, table: Any, key: str, period: str, team: str | None) -> Budget | None:
        """The budget of ``team`` (None: the whole service) kept in ``table`` under its ``key``
        column (``month``, ``year``) equal to ``period``."""
        with self.engine.connect() as conn:
            r = conn.execute(
                select(table).where(table.c[key] == period, table.c.team == (team or ""))
            ).first()
        return None if r is None else _budget_of(dict(r._mapping))

    def budgets(self, month: str) -> list[Budget]:
        """Every team's budget of ``month`` (not the whole service's), by team."""
        b = t.team_budgets.c
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(t.team_budgets).where(b.month == check_month(month), b.team != "").order_by(b.team)
            ).all()
        return [_budget_of(dict(r._mapping)) for r in rows]

    def teams(self) -> list[str]:
        """Every team a token belongs to, a budget is set for or a plan was saved under, sorted."""
        with self.engine.connect() as conn:
            found = {
                *conn.execute(select(t.api_tokens.c.team).distinct()).scalars(),
                *conn.execute(select(t.team_plans.c.team).distinct()).scalars(),
                *conn.execute(select(t.team_budgets.c.team).distinct()).scalars(),
                *conn.execute(select(t.team_year_budgets.c.team).distinct()).scalars(),
            }
        return sorted(x for x in found if x)

    def check_known_team(self, team: str) -> str:
        """``team`` when a token belongs to it or it has a budget or plans; else NotFoundError (with
        the nearest known names): a misspelt team would read as one with no budget and no plans."""
        known = self.teams()
        if team not in known:
            hint = N_("a team is named when its tokens are made: gpuplan serve token create --team")
            raise NotFoundError("team", team, known, hint=hint)
        return team

    # -- catalog state -----------------------------------------------------------------------------

    def catalog_state(self) -> tuple[int | None, str]:
        """(the newest import's id, a digest of everything else a plan reads from the database): the
        discounts, and the size and newest row of the tables of measurements (``gpuplan bench``,
        ``gpuplan measure``) and exchange rates. A new import, refresh, undo, discount, measurement
        or rate changes it. Asked at every plan request: two plain statements, compiled once."""
        with self.engine.connect() as conn:
            state = list(conn.exec_driver_sql(_STATE_SQL).one())
            rows = [list(r) for r in conn.exec_driver_sql(_DISCOUNTS_SQL).all()]
        newest = state[0]
        digest = hashlib.sha256(json.dumps([state, rows]).encode()).hexdigest()[:16]
        return (int(newest) if newest is not None else None), digest


#: What :meth:`TeamStore.catalog_state` counts: the newest row and the number of rows of each table
#: a plan reads besides the offers (the imports first: its newest id is the state's import), and the
#: imports undone (an undo keeps the import's row: its prices gone, the plans cached with them go).
_STATE_SQL = (
    "SELECT "
    + ", ".join(
        f"(SELECT max(id) FROM {table}), (SELECT count(*) FROM {table})"
        for table in ("imports", "bench_results", "step_measurements", "exchange_rates")
    )
    + ", (SELECT count(*) FROM imports WHERE undone_at IS NOT NULL)"
)
#: Each discount's pricing model is in it: a discount moved from one model to another changes plans.
_DISCOUNTS_SQL = "SELECT provider, family, pricing, percent FROM discounts ORDER BY provider, family, pricing"


def _document_field(dialect: str, field: str) -> ColumnElement[Any]:
    """The plan document's ``field`` (``recommended``, ``exchange_rate``, ``schema_version``), taken
    out by the database (SQLite's ``json_extract``, PostgreSQL's ``->`` on the text cast to
    ``json``) and read back as JSON reads it (a dict, a number)."""
    document = t.team_plans.c.document
    if dialect == "postgresql":
        return cast(document, JSON)[field]
    # SQLite (json_extract, built in since 3.38; in the JSON1 extension before): no cast, which
    # would give the text SQLite's NUMERIC affinity.
    return type_coerce(document, JSON)[field]


def _version(value: Any) -> int | None:
    """A plan document's ``schema_version`` as stored (None: not a whole number)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _currency_or_usd(value: Any) -> str:
    """A plan document's ``display_currency`` as stored: CNY, else US dollars (absent, or any other)."""
    return "CNY" if value == "CNY" else "USD"


def _dict_or_none(value: Any) -> dict[str, Any] | None:
    """A plan document's object field as stored (None: absent, null or not an object)."""
    return value if isinstance(value, dict) else None


def _usd_per_cny(rate: Any) -> float | None:
    """US dollars per yuan of a plan document's ``exchange_rate`` (None: none, or not a CNY one)."""
    if not isinstance(rate, dict) or rate.get("currency") != "CNY":
        return None
    value = rate.get("usd_per_unit")
    return float(value) if isinstance(value, int | float) and value > 0 else None


def _same_spec(stored: str, text: str) -> bool:
    """Whether a stored version's spec is ``text`` (``json.dumps(spec, sort_keys=True,
    ensure_ascii=False)``), read back and written the same way: a version stored otherwise is
    compared by its content, not its bytes."""
    if stored == text:
        return True
    return json.dumps(json.loads(stored), sort_keys=True, ensure_ascii=False) == text


def check_plannable(workload: SavedWorkload, team: str | None, *, admin: bool = False) -> None:
    """ForbiddenError when ``workload`` is owned by a team other than ``team`` (the saver's) and the
    saver is no ``admin``: a plan is kept only of a workload the saver's team owns or of one of no
    team."""
    if workload.team is None or workload.team == team or admin:
        return
    raise ForbiddenError.worded(
        N_(
            "workload {name!r} belongs to team {owner!r}: only its tokens or an admin plan it; "
            "save your own workload under another name and plan that"
        ),
        name=workload.name,
        owner=workload.team,
    )


def scopes_text(scopes: Sequence[str]) -> str:
    return ",".join(scopes)


def _refuse_lookalike(what: str, name: str) -> None:
    """A name that mixes alphabets whose letters look alike (``bеrt`` with a Cyrillic ``е``)."""
    scripts = mixed_scripts(name)
    if scripts:
        raise InputError.worded(
            N_("{what} {name!r} mixes {scripts} letters, which look alike: write it in one alphabet"),
            what=Phrase(what),
            name=name,
            scripts=listed(s.title() for s in scripts),
        )
