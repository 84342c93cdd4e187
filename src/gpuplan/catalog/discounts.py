"""The user's negotiated discounts: stored apart from list prices, applied when prices are read.

A discount is a percentage off the list price for a provider, or for one instance family of it
(``p5`` covers ``p5.48xlarge`` but not ``p5e.48xlarge``; ``a2-ultragpu`` covers ``a2-ultragpu-8g``;
``Standard_ND`` covers ``Standard_ND96asr_v4``), taken off the pricing models it names. A family
that covers none of the provider's instance types in the catalog is refused, with the nearest ones.
For a price of one pricing model, the most specific family whose discount names that model wins;
``OfferPrice`` keeps the list price beside the discounted one. It is taken off list prices only: a
price imported in gpuplan's own format (``catalog import --format gpuplan``: a quote, a negotiated
rate) is the user's own figure, never discounted again.

A discount that names no pricing model is taken off on-demand prices, and off the monthly
subscriptions of the Chinese clouds (their 包月 price is a published list price), never off
spot prices or reservations: an enterprise agreement's discount is on pay-as-you-go prices, a
reservation is priced by a term of its own, and a discount wrongly taken off spot would show spot
cheaper than it is. Unknown is never the best case, so a team whose contract does cover them names
them (``--pricing spot``). Microsoft's own terms draw that line for its commitment discount
(Microsoft Learn, "How the Azure reservation discount is applied to virtual machines",
https://learn.microsoft.com/en-us/azure/cost-management-billing/manage/understand-vm-reservation-charges,
2024-03-21: "Azure doesn't offer reservations for Spot VMs"); no public text was found that states
the terms of negotiated enterprise discounts themselves (they are private contracts), hence the
conservative reading.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from gpuplan.catalog.providers import PROVIDERS
from gpuplan.errors import InputError, NotFoundError, Phrase
from gpuplan.i18n.messages import N_
from gpuplan.units import split_list
from gpuplan.vocab import PricingModel

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from sqlalchemy import Connection

    from gpuplan.catalog.store import Store

__all__ = [
    "OWN_PRICES",
    "Discount",
    "clear_discount",
    "default_pricing",
    "discounted",
    "discounts",
    "matching",
    "pricing_models",
    "set_discount",
]


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
    pricing: tuple[str, ...]
    """The pricing models it is taken off (``on_demand``, ``spot``, …), in :class:`PricingModel`'s
    order; a price of another model is not discounted by it."""
    note: str = ""


def pricing_models(names: Iterable[str]) -> tuple[str, ...]:
    """The pricing models ``names`` name (each a name or a comma list: ``on_demand,spot``), in
    :class:`PricingModel`'s order, each once; UnknownChoiceError with "did you mean" for a typo."""
    named = {PricingModel.cast(part) for name in names for part in split_list(name)}
    return tuple(m.value for m in PricingModel if m in named)


def default_pricing(provider: str) -> tuple[str, ...]:
    """The models a discount that names none is taken off: on demand, and for a Chinese cloud its
    monthly subscriptions too (包月, a published list price as its pay-as-you-go one is; see the
    module's text). Decided by the provider, not by the prices the catalog happens to hold: one
    marketing article's monthly figure for an AWS A100 makes no AWS subscription."""
    from gpuplan.catalog.providers import REGISTRY

    module = REGISTRY.get(provider)
    if module is not None and module.FACTS.kind == "china_cloud":
        return (PricingModel.ON_DEMAND.value, PricingModel.MONTHLY.value)
    return (PricingModel.ON_DEMAND.value,)


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


def matching(found: list[Discount], provider: str, instance_type: str, pricing: str) -> Discount | None:
    """The discount for a price of ``pricing`` of an offer: the longest covering family of its
    provider among the discounts taken off that pricing model, else None."""
    best: Discount | None = None
    for d in found:
        if (
            d.provider == provider
            and pricing in d.pricing
            and covers(d.family, instance_type)
            and (best is None or len(d.family) > len(best.family))
        ):
            best = d
    return best


def prices_covered(store: Store, d: Discount) -> int:
    """How many prices in the catalog ``d`` is taken off: list prices (not the user's own imported
    quotes) of its provider, family and pricing models."""
    rows = store._query(
        "SELECT o.instance_type, p.pricing, i.kind AS import_kind FROM prices p "
        "JOIN offers o ON o.id = p.offer_id LEFT JOIN imports i ON i.id = p.import_id "
        "WHERE o.provider = :provider",
        {"provider": d.provider},
    )
    return sum(
        1
        for r in rows
        if r.pricing in d.pricing and covers(d.family, r.instance_type) and discounted(r.import_kind)
    )


def discounts(store: Store) -> list[Discount]:
    """Every stored discount: the rows set together (one per pricing model, the same percent, date and
    note) as one."""
    rows = store._query(
        "SELECT provider, family, pricing, percent, set_at, note FROM discounts ORDER BY provider, family"
    )
    order = {m.value: i for i, m in enumerate(PricingModel)}
    grouped: dict[tuple[str, str, float, str, str], list[str]] = {}
    for r in rows:
        grouped.setdefault((r.provider, r.family, r.percent, r.set_at, r.note), []).append(r.pricing)
    return [
        Discount(
            provider=provider,
            family=family,
            percent=percent,
            set_at=set_at,
            note=note,
            pricing=tuple(sorted(models, key=lambda m: order.get(m, len(order)))),
        )
        for (provider, family, percent, set_at, note), models in grouped.items()
    ]


def set_discount(
    store: Store,
    provider: str,
    percent: float,
    family: str = "",
    note: str = "",
    *,
    pricing: Iterable[str] | None = None,
    also: Callable[[Connection, Discount], None] | None = None,
) -> Discount:
    """Store (or replace) a discount for each pricing model of ``pricing`` (none named: those of
    :func:`default_pricing`; a model not named keeps its own discount, if it has one); InputError for
    a percentage outside 0 < p ≤ :data:`MAX_PERCENT`, UnknownChoiceError for a pricing model's typo."""
    prov = PROVIDERS.cast(provider)
    models = pricing_models(pricing or ())
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
    if not models:
        models = default_pricing(prov)
    from gpuplan.catalog import schema as t
    from gpuplan.catalog.transactions import upsert, writing

    d = Discount(
        provider=prov,
        family=family,
        percent=percent,
        set_at=datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
        note=note,
        pricing=models,
    )
    with writing(store.engine) as conn:
        for model in models:
            row = {
                "provider": prov,
                "family": family,
                "pricing": model,
                "percent": percent,
                "set_at": d.set_at,
                "note": note,
            }
            upsert(conn, t.discounts, row, ["provider", "family", "pricing"])
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
    store: Store,
    provider: str,
    family: str = "",
    *,
    pricing: Iterable[str] | None = None,
    also: Callable[[Connection], None] | None = None,
) -> tuple[str, ...]:
    """Remove the discount of each pricing model of ``pricing`` (none named: of every model); the
    models whose discount was removed, in :class:`PricingModel`'s order (none: there was none).
    ``also``: run in the same transaction when one was removed (the team service's audit entry)."""
    prov = PROVIDERS.cast(provider)
    models = pricing_models(pricing or ())
    from sqlalchemy import delete, select

    from gpuplan.catalog import schema as t
    from gpuplan.catalog.transactions import writing

    c = t.discounts.c
    where = [c.provider == prov, c.family == family.strip()]
    if models:
        where.append(c.pricing.in_(models))
    with writing(store.engine) as conn:
        found = {r[0] for r in conn.execute(select(c.pricing).where(*where))}
        if found:
            conn.execute(delete(t.discounts).where(*where))
            if also is not None:
                also(conn)
    store.invalidate_caches()
    return tuple(m.value for m in PricingModel if m.value in found)
