"""The providers a catalog declares (table ``declared_providers``): read when the catalog opens and
made providers of the process (:func:`gpuplan.catalog.providers.use_declared`), written by
``catalog import FILE --new-provider CODE``. What a declared provider is:
:mod:`gpuplan.catalog.providers.declared`."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import TYPE_CHECKING

from gpuplan.catalog import providers

if TYPE_CHECKING:
    from gpuplan.catalog.store import Store

__all__ = ["declare_provider", "load_declared", "undeclare_unused"]


def load_declared(store: Store) -> None:
    """Make the providers ``store`` declares providers of this process (and forget any other
    catalog's)."""
    rows = store._query("SELECT code, display_name, country FROM declared_providers ORDER BY code")
    if not rows and not providers.any_declared():
        return  # none declared, none to forget: the providers' modules stay unimported (a listing's speed)
    from gpuplan.catalog.providers.declared import declared_module

    providers.use_declared(
        [declared_module(r.code, display_name=r.display_name, country=r.country) for r in rows]
    )


def declare_provider(store: Store, written: str, *, country: str | None = None) -> tuple[str, bool]:
    """Declare the provider ``written`` (checked by :func:`declared_code`) in ``store``: its code and
    whether it is new. Declared again, its country is set to ``country`` where one is given."""
    from sqlalchemy import insert, select, update

    from gpuplan.catalog import schema as t
    from gpuplan.catalog.providers.declared import declared_code
    from gpuplan.catalog.transactions import writing

    code = declared_code(written, providers.built_in_spellings())
    d = t.declared_providers
    with writing(store.engine) as conn:
        held = conn.execute(select(d.c.country).where(d.c.code == code)).first()
        if held is None:
            now = datetime.now(timezone.utc).replace(microsecond=0).isoformat()
            conn.execute(
                insert(d).values(code=code, display_name=written.strip(), country=country, declared_at=now)
            )
        elif country is not None and held.country != country:
            conn.execute(update(d).where(d.c.code == code).values(country=country))
    store.invalidate_caches()
    load_declared(store)
    return code, held is None


def undeclare_unused(store: Store, code: str) -> None:
    """Forget the declared provider ``code`` where the catalog holds no offer of it (a declaration
    whose import stored nothing: a file unusable as a whole leaves the catalog as it was)."""
    from sqlalchemy import delete, exists, select

    from gpuplan.catalog import schema as t
    from gpuplan.catalog.transactions import writing

    d, o = t.declared_providers, t.offers
    with writing(store.engine) as conn:
        if not conn.execute(select(exists().where(o.c.provider == code))).scalar():
            conn.execute(delete(d).where(d.c.code == code))
    load_declared(store)
