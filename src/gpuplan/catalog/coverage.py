"""``catalog info`` per provider: offers, regions, pricing models, price dates, last refresh."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpuplan.catalog.providers import PROVIDERS

if TYPE_CHECKING:
    from gpuplan.catalog.store import Store

__all__ = ["ProviderCoverage", "coverage"]


@dataclass(frozen=True, kw_only=True)
class ProviderCoverage:
    provider: str
    offers: int
    priced_offers: int
    regions: int
    pricing_models: tuple[str, ...]
    """The pricing models a price not labelled low-confidence gives."""
    oldest_as_of: str | None
    newest_as_of: str | None
    last_refresh: str | None
    """What the last ``catalog refresh`` of the provider did (its one line, with its time), or None."""
    low_confidence_only: tuple[str, ...] = ()
    """The pricing models only low-confidence prices give (the source articles' 2024 tables), which
    plans, tco and offers leave out unless asked: not among ``pricing_models``."""


def coverage(store: Store) -> tuple[ProviderCoverage, ...]:
    """One entry per provider gpuplan knows, in registry order (zeros where it has no offers)."""
    from gpuplan.catalog.refresh import last_runs

    offers = {
        r.provider: r
        for r in store._query(
            "SELECT provider, COUNT(*) AS n, COUNT(DISTINCT region) AS regions FROM offers GROUP BY provider"
        )
    }
    prices = {
        r.provider: r
        for r in store._query(
            "SELECT o.provider, COUNT(DISTINCT o.id) AS priced, MIN(p.as_of) AS oldest, "
            "MAX(p.as_of) AS newest FROM prices p JOIN offers o ON o.id = p.offer_id GROUP BY o.provider"
        )
    }
    models: dict[str, list[str]] = {}
    low_only: dict[str, list[str]] = {}
    for r in store._query(
        "SELECT o.provider, p.pricing, MIN(CASE WHEN p.confidence = 'low' THEN 1 ELSE 0 END) AS low "
        "FROM prices p JOIN offers o ON o.id = p.offer_id GROUP BY o.provider, p.pricing"
    ):
        # a pricing model only an article's figure gives is no pricing model the provider is known
        # to sell at: said apart
        (low_only if r.low else models).setdefault(r.provider, []).append(r.pricing)
    runs = last_runs(store)
    order = list(PROVIDERS)
    out = []
    for p in order:
        o, pr, run = offers.get(p), prices.get(p), runs.get(p)
        out.append(
            ProviderCoverage(
                provider=p,
                offers=int(o.n) if o else 0,
                priced_offers=int(pr.priced) if pr else 0,
                regions=int(o.regions) if o else 0,
                pricing_models=tuple(sorted(models.get(p, []), key=order_key)),
                oldest_as_of=pr.oldest if pr else None,
                newest_as_of=pr.newest if pr else None,
                # the message names its outcome ("ok: …", "failed (…)", "skipped: …"), in the
                # reader's language (kept in none: gpuplan.catalog.stored_words)
                last_refresh=f"{run.started_at} {run.message}" if run else None,
                low_confidence_only=tuple(sorted(low_only.get(p, []), key=order_key)),
            )
        )
    return tuple(out)


def order_key(pricing: str) -> int:
    from gpuplan.catalog.model import PricingModel

    values = [m.value for m in PricingModel]
    return values.index(pricing) if pricing in values else len(values)
