"""Where a simulation's price comes from: the catalog offer it was read from (its publisher's text,
its date and its confidence, as the catalog holds them) or the user's own figure, and, beside a
catalog price not known to hold today, the best one that is (as ``plan`` shows beside its own)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PriceBasis"]


@dataclass(frozen=True, kw_only=True)
class PriceBasis:
    """One price a simulation is costed at, and what it rests on."""

    usd_per_hour: float
    """The figure used: per replica-hour (``simulate autoscale``) or per hour of the GPUs a plan
    needs, bought as whole instances (``simulate share``)."""
    given: bool
    """The user's own figure (``--on-demand-price``): no offer, no source of the catalog's."""
    usd_per_instance_hour: float | None = None
    """The offer's price of one instance (its conservative figure); None for the user's figure."""
    published_price: float | None = None
    """The offer's price of one instance as the catalog holds it, in ``published_currency`` per
    ``published_unit`` (a yuan price is kept in yuan); None for the user's figure."""
    published_currency: str = ""
    published_unit: str = ""
    """``hour`` or ``month``."""
    replicas_per_instance: int | None = None
    """``simulate autoscale``: replicas one instance holds, which share its price (a fleet pays
    whole instances); None for ``simulate share`` and the user's figure."""
    gpus_per_instance: float | None = None
    """The offer's GPUs per instance (what one instance-hour buys); None for the user's figure."""
    provider: str = ""
    region: str = ""
    instance_type: str = ""
    as_of: str = ""
    """The price's date as the catalog holds it (``2025-03/2026-12-02``: observed at some time
    between the two)."""
    confidence: str = ""
    """``high`` (the provider's own list or API) or ``secondary`` (a dated compilation of them)."""
    source: str = ""
    """Who published the price, as the catalog states it (publisher, file or URL, line)."""
    known_current: bool = True
    """The price is known to be within the catalog's staleness limit (plan's test:
    ``plan.costing.not_known_current``)."""
    date_words: str = ""
    """Why the price is not known to hold today, naming its date ("" where it is known to)."""
    stale_after_days: int = 0
    """The staleness limit the catalog was opened with."""
    current: PriceBasis | None = None
    """Beside a price not known current: the best price of the same GPU and pricing model that is,
    chosen the same way; None where the price is current or the catalog has none."""
