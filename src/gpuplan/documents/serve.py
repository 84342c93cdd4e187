"""The documents ``gpuplan serve`` answers with besides the CLI's own (plan, estimate, offers …):
jobs, errors, the team's saved workloads and plans, budgets, price changes, discounts, audit.

Money is in USD, named so (``total_cost_usd``); unknown is null, never 0.
"""

from __future__ import annotations

from typing import Any, Literal

from gpuplan.documents.base import Document

__all__ = [
    "SERVE_SCHEMA_VERSION",
    "AuditDocument",
    "AuditItem",
    "BudgetDocument",
    "CountriesDocument",
    "CountryItem",
    "DiscountItem",
    "DiscountsDocument",
    "ErrorDocument",
    "HealthDocument",
    "JobDocument",
    "PriceChangeItem",
    "PriceChangesDocument",
    "SavedPlanItem",
    "SavedPlansDocument",
    "WorkloadVersionItem",
    "WorkloadsDocument",
]

SERVE_SCHEMA_VERSION = 1


class ErrorDocument(Document):
    """What every refused request gets: one line, in the request's language."""

    schema_version: int = SERVE_SCHEMA_VERSION
    error: str
    """What is wrong and how to fix it."""
    kind: str
    """The error's class (``InputError``, ``NotFoundError``, ``unauthorized`` …)."""
    field: str | None = None
    """For a request refused (400) for one of its values or keys, whoever refused it (the request's
    schema, ``invalid_request``, or a check of the value): that value's field or parameter as the
    request names it (``max_price``, ``deadline``, ``workload.inputs.batch_size``,
    ``workload.model.python``, ``hf_config_json``, ``usage.constraints.providers``, ``job_id``; a
    misspelt key by its own path, ``workload.constraints.deadlin``); None otherwise."""
    message: str | None = None
    """For a request refused for one of its values: what is wrong with it, without the field's
    path that ``error`` begins with (a form names the field by its own label); None otherwise."""


class HealthDocument(Document):
    schema_version: int = SERVE_SCHEMA_VERSION
    status: Literal["ok", "unavailable"]
    database: str
    """The catalog's database kind (``sqlite``, ``postgresql``); ``not checked`` from ``/live``."""
    reachable: bool | None = None
    """Whether the database answered; null from ``/live`` (which does not ask it)."""
    database_url: str | None = None
    """Where the catalog lives (password hidden): only for a token of the admin scope."""
    schema_revision: str | None
    version: str


class JobDocument(Document):
    """A background job (tracing, planning, simulating): poll it, or follow ``events``."""

    schema_version: int = SERVE_SCHEMA_VERSION
    job_id: str
    kind: str
    status: Literal["queued", "running", "done", "failed"]
    progress: float
    """0 to 1."""
    message: str
    created_by: str
    created_at: str
    started_at: str | None
    finished_at: str | None
    attempts: int
    """How many workers started it (more than 1: a worker stopped and another took it over)."""
    error: str | None
    result: dict[str, Any] | None
    """The finished job's document (plan, estimate, simulate-autoscale)."""
    href: str
    """Where to poll it; ``href + "/events"`` streams it (server-sent events)."""


class WorkloadVersionItem(Document):
    name: str
    version: int
    spec: dict[str, Any]
    saved_by: str
    saved_at: str


class WorkloadsDocument(Document):
    schema_version: int = SERVE_SCHEMA_VERSION
    workloads: list[WorkloadVersionItem]
    """Newest version first within each name."""


class SavedPlanItem(Document):
    id: int
    workload: str
    workload_version: int
    month: str
    """YYYY-MM the spend is planned for."""
    status: Literal["planned", "cancelled"]
    total_cost_usd: float | None
    """The recommended option's all-in cost when it was planned."""
    recommended: str | None
    """provider/region/instance × nodes, pricing."""
    prices_as_of: str | None
    """The date of the recommended option's price when it was planned (``gpuplan offers``' ``as_of``)."""
    prices_age_days: int | None = None
    """How old that price is today: days since the earliest day ``prices_as_of`` allows; None when
    undated."""
    prices_staleness: Literal["fresh", "stale", "unknown"] | None = None
    """That price against the catalog's staleness limit today, as ``gpuplan offers`` judges an
    offer's: fresh even at its oldest, stale even at its youngest, or unknown (the date's bounds
    straddle the limit, or there is none)."""
    catalog_import_id: int | None
    created_by: str
    created_at: str
    constraints: dict[str, Any]
    document: dict[str, Any] | None = None
    """The plan document as it was (only when one plan is asked for)."""


class SavedPlansDocument(Document):
    schema_version: int = SERVE_SCHEMA_VERSION
    plans: list[SavedPlanItem]


class BudgetDocument(Document):
    """A month's budget and the spend the team's saved plans put against it."""

    schema_version: int = SERVE_SCHEMA_VERSION
    month: str
    budget_usd: float | None
    """None: no budget set for the month."""
    budget_cny: float | None = None
    """The budget as given in yuan (``budget_usd`` is it at the rate its note states); None: given in
    US dollars, or no budget."""
    planned_usd: float
    """Sum of the month's planned (not cancelled) plans whose cost is known."""
    unknown_cost_plans: int
    """Planned plans whose cost is unknown, not counted in ``planned_usd`` (so it may be more)."""
    remaining_usd: float | None
    used_pct: float | None
    note: str | None
    set_by: str | None
    set_at: str | None
    plans: list[SavedPlanItem]


class PriceChangeItem(Document):
    plan_id: int
    workload: str
    month: str
    recommended: str | None
    then_usd: float | None
    then_as_of: str | None
    then_age_days: int | None = None
    """How old the price the plan rests on is today, days (as ``SavedPlanItem.prices_age_days``)."""
    then_staleness: Literal["fresh", "stale", "unknown"] | None = None
    """That price against the catalog's staleness limit today (as ``SavedPlanItem.prices_staleness``)."""
    now_usd: float | None
    """The same option (provider, region, instance, nodes, pricing) priced on today's catalog;
    None when it is no longer offered or its price is unknown."""
    change_pct: float | None
    """(now − then) / then × 100; positive = dearer."""
    best_now_usd: float | None
    """Today's recommended option for the same workload version and constraints."""
    best_now: str | None
    note: str | None


class PriceChangesDocument(Document):
    schema_version: int = SERVE_SCHEMA_VERSION
    checked_at: str
    plans: list[PriceChangeItem]


class DiscountItem(Document):
    provider: str
    family: str
    """Instance family, or "" for every family of the provider."""
    percent: float
    set_at: str
    note: str


class DiscountsDocument(Document):
    schema_version: int = SERVE_SCHEMA_VERSION
    discounts: list[DiscountItem]


class CountryItem(Document):
    country: str
    """ISO 3166 alpha-2 code."""
    name: str
    """Its ISO 3166 name in the request's language."""
    latitude: float | None
    """Of the country's first time zone's city (IANA zone.tab); None when unknown."""
    longitude: float | None
    offers: int
    """Offers with a known price in the country."""
    cheapest_usd_per_gpu_hour: float | None
    cheapest: str | None
    """provider/region/instance of the cheapest."""


class CountriesDocument(Document):
    """The offers explorer's map: offers and the cheapest GPU-hour per country."""

    schema_version: int = SERVE_SCHEMA_VERSION
    map_source: str | None
    """Where the dots' coordinates come from; None when no zone.tab was found (no map)."""
    countries: list[CountryItem]


class AuditItem(Document):
    id: int
    at: str
    actor: str
    action: str
    target: str
    details: dict[str, Any]


class AuditDocument(Document):
    schema_version: int = SERVE_SCHEMA_VERSION
    entries: list[AuditItem]
