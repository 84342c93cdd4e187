"""The user's negotiated discounts: stored apart from list prices, applied when prices are read.

A discount is a percentage off the list price for a provider, or for one instance family of it
(``p5`` covers ``p5.48xlarge`` but not ``p5e.48xlarge``; ``a2-ultragpu`` covers ``a2-ultragpu-8g``;
``Standard_ND`` covers ``Standard_ND96asr_v4``). A family that covers none of the provider's
instance types in the catalog is refused, with the nearest ones.
The most specific family wins over a provider-wide discount. It applies to every pricing model of
the offers it covers; ``OfferPrice`` keeps the list price beside the discounted one. It is taken off
list prices only: a price imported in gpuplan's own format (``catalog import --format gpuplan``: a
quote, a negotiated rate) is the user's own figure, never discounted again.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from gpuplan.catalog.providers import PROVIDERS
from gpuplan.errors import InputError, NotFoundError, Phrase
from gpuplan.i18n.messages import N_

if TYPE_CHECKING:
    from collections.abc import Callable

    from sqlalchemy import Connection

    from gpuplan.catalog.store import Store

__all__ = ["OWN_PRICES", "Discount", "clear_discount", "discounted", "discounts", "matching", "set_discount"]


#: The import kind of prices in gpuplan's own format: the user's own figures (see the module's text).
OWN_PRICES = "own"


#: The largest discount kept: more leaves under a hundredth of the list price, which is no negotiated
#: price (99.99999 % was shown as "100 % off" and made a g4dn the cheapest T4 at $0.000000).
MAX_PERCENT = 99.0


def discounted(import_kind: str | None) -> bool:
    """Whether a price imported as ``import_kind`` is a list price a discount is taken off."""
    return import_kind != OWN_PRICES


@dataclass(frozen=True, kw_only=True)
class Discount:
    provider: str
    family: str
    """Instance family it covers; '' = every instance type of the provider."""
    percent: float
    """Percent off the list price, 0 < percent < 100."""
    set_at: str
    note: str = ""


def _boundary(name: str, i: int) -> bool:
    """Whether a family may end before ``name[i]``: at a separator, or where letters turn to digits
    (Azure's series: ``Standard_ND`` | ``96asr_v4``)."""
    return name[i] in "._-+" or (name[i].isdigit() and name[i - 1].isalpha())


def covers(family: str, instance_type: str) -> bool:
    """Whether ``family`` names ``instance_type``'s family: a prefix of it ending at a boundary
    (``p5`` covers ``p5.48xlarge``, not ``p5e.48xlarge``; ``Standard_ND`` covers ``Standard_ND96asr_v4``)."""
    if not family or instance_type == family:
        return True
    return instance_type.startswith(family) and _boundary(instance_type, len(family))


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


def set_discount(
    store: Store,
    provider: str,
    percent: float,
    family: str = "",
    note: str = "",
    *,
    also: Callable[[Connection, Discount], None] | None = None,
) -> Discount:
    """Store (or replace) a discount; InputError for a percentage outside 0 < p ≤ :data:`MAX_PERCENT`."""
    prov = PROVIDERS.cast(provider)
    if not (math.isfinite(percent) and 0 < percent <= MAX_PERCENT):
        raise InputError.worded(
            N_("discount percent must be more than 0 and at most {most:g}, got {percent:.10g}"),
            most=MAX_PERCENT,
            percent=percent,
        )
    from gpuplan.bounded import control_character  # lazy: it imports PyYAML, which listing does not need

    bad = control_character(note) or control_character(family)
    if bad is not None:
        # the note is listed under the figure: a newline would forge a line of its own
        raise InputError.worded(
            N_(
                "a discount's note and family must be one line of printable text (got the control "
                "character U+{code:04X})"
            ),
            code=ord(bad),
        )
    family = family.strip()
    if family:
        _check_family(store, prov, family)
    from gpuplan.catalog import schema as t
    from gpuplan.catalog.transactions import upsert, writing

    d = Discount(
        provider=prov,
        family=family,
        percent=percent,
        set_at=datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
        note=note,
    )
    row = {"provider": prov, "family": family, "percent": percent, "set_at": d.set_at, "note": note}
    with writing(store.engine) as conn:
        upsert(conn, t.discounts, row, ["provider", "family"])
        if also is not None:  # the team service's audit entry: in the same transaction as the change
            also(conn, d)
    store.invalidate_caches()
    return d


def _families(instance_type: str) -> list[str]:
    """Every family name :func:`covers` accepts for ``instance_type``: each prefix ending before a
    separator, and the whole name (``a2-ultragpu-8g`` -> ``a2``, ``a2-ultragpu``, ``a2-ultragpu-8g``)."""
    return [instance_type[:i] for i in range(1, len(instance_type)) if _boundary(instance_type, i)] + [
        instance_type
    ]


def _check_family(store: Store, provider: str, family: str) -> None:
    """NotFoundError (with the nearest families) when ``family`` covers none of the provider's
    instance types in the catalog: a typo (``p5x``) would otherwise be a discount that never
    applies while the plan shows list prices. A provider with no offers yet is not judged."""
    types = [
        r.instance_type
        for r in store._query(
            "SELECT DISTINCT instance_type FROM offers WHERE provider = :provider", {"provider": provider}
        )
    ]
    if not types or any(covers(family, i) for i in types):
        return
    known = sorted({f for i in types for f in _families(i)})
    raise NotFoundError(
        "instance family",
        family,
        known,
        hint=Phrase(N_("no {provider} instance type in the catalog is of it"), provider=provider),
    )


def clear_discount(
    store: Store, provider: str, family: str = "", *, also: Callable[[Connection], None] | None = None
) -> bool:
    """Remove a discount; False if there was none. ``also``: run in the same transaction when one
    was removed (the team service's audit entry)."""
    prov = PROVIDERS.cast(provider)
    from sqlalchemy import delete

    from gpuplan.catalog import schema as t
    from gpuplan.catalog.transactions import writing

    with writing(store.engine) as conn:
        n = conn.execute(
            delete(t.discounts).where(t.discounts.c.provider == prov, t.discounts.c.family == family.strip())
        ).rowcount
        if n and also is not None:
            also(conn)
    store.invalidate_caches()
    return bool(n)
