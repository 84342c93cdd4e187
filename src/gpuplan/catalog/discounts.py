"""The user's negotiated discounts: stored apart from list prices, applied when prices are read.

A discount is a percentage off the list price for a provider, or for one instance family of it
(``p5`` covers ``p5.48xlarge`` but not ``p5e.48xlarge``; ``a2-ultragpu`` covers ``a2-ultragpu-8g``).
The most specific family wins over a provider-wide discount. It applies to every pricing model of
the offers it covers; ``OfferPrice`` keeps the list price beside the discounted one.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from gpuplan.catalog.providers import PROVIDERS
from gpuplan.errors import InputError
from gpuplan.i18n.messages import N_

if TYPE_CHECKING:
    from gpuplan.catalog.store import Store

__all__ = ["Discount", "clear_discount", "discounts", "matching", "set_discount"]


@dataclass(frozen=True, kw_only=True)
class Discount:
    provider: str
    family: str
    """Instance family it covers; '' = every instance type of the provider."""
    percent: float
    """Percent off the list price, 0 < percent < 100."""
    set_at: str
    note: str = ""


def covers(family: str, instance_type: str) -> bool:
    """Whether ``family`` names ``instance_type``'s family (a prefix ending at a separator)."""
    if not family:
        return True
    if instance_type == family:
        return True
    if not instance_type.startswith(family):
        return False
    return re.match(r"[._\-+]", instance_type[len(family)]) is not None


def matching(found: list[Discount], provider: str, instance_type: str) -> Discount | None:
    """The discount for an offer: the longest covering family of its provider, else None."""
    best: Discount | None = None
    for d in found:
        if (
            d.provider == provider
            and covers(d.family, instance_type)
            and (best is None or len(d.family) > len(best.family))
        ):
            best = d
    return best


def discounts(store: Store) -> list[Discount]:
    """Every stored discount."""
    rows = store._query(
        "SELECT provider, family, percent, set_at, note FROM discounts ORDER BY provider, family"
    )
    return [
        Discount(provider=r.provider, family=r.family, percent=r.percent, set_at=r.set_at, note=r.note)
        for r in rows
    ]


def set_discount(store: Store, provider: str, percent: float, family: str = "", note: str = "") -> Discount:
    """Store (or replace) a discount; InputError for a percentage outside 0 < p < 100."""
    prov = PROVIDERS.cast(provider)
    if not (math.isfinite(percent) and 0 < percent < 100):
        raise InputError.worded(
            N_("discount percent must be between 0 and 100 (exclusive), got {percent:g}"), percent=percent
        )
    family = family.strip()
    from sqlalchemy import delete, insert

    from gpuplan.catalog import schema as t

    d = Discount(
        provider=prov,
        family=family,
        percent=percent,
        set_at=datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
        note=note,
    )
    with store.engine.begin() as conn:
        conn.execute(
            delete(t.discounts).where(t.discounts.c.provider == prov, t.discounts.c.family == family)
        )
        conn.execute(
            insert(t.discounts).values(
                provider=prov, family=family, percent=percent, set_at=d.set_at, note=note
            )
        )
    store.invalidate_caches()
    return d


def clear_discount(store: Store, provider: str, family: str = "") -> bool:
    """Remove a discount; False if there was none."""
    prov = PROVIDERS.cast(provider)
    from sqlalchemy import delete

    from gpuplan.catalog import schema as t

    with store.engine.begin() as conn:
        n = conn.execute(
            delete(t.discounts).where(t.discounts.c.provider == prov, t.discounts.c.family == family.strip())
        ).rowcount
    store.invalidate_caches()
    return bool(n)
