"""The documents of the catalog's own commands: ``catalog info``, ``catalog import`` (and its
``--undo``), ``catalog imports`` and ``catalog history`` (``--json``).

History prices name their currency and unit as the offers document does: USD always, CNY wherever
the catalog has a CNY rate (stated once in ``exchange_rate``), the exact published amount in the
field of its ``published_currency`` and ``published_unit``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from gpuplan.documents.base import Count, Document, ExchangeRateDoc

__all__ = [
    "CATALOG_INFO_SCHEMA_VERSION",
    "HISTORY_SCHEMA_VERSION",
    "IMPORTS_SCHEMA_VERSION",
    "IMPORT_SCHEMA_VERSION",
    "REFRESH_SCHEMA_VERSION",
    "UNDO_SCHEMA_VERSION",
    "CatalogInfoDocument",
    "HistoryDocument",
    "HistoryPrice",
    "ImportDocument",
    "ImportEntryDoc",
    "ImportsDocument",
    "ProviderCoverageDoc",
    "RateDoc",
    "RefreshDocument",
    "RefreshOutcomeDoc",
    "RejectedRowDoc",
    "UndoDocument",
]

CATALOG_INFO_SCHEMA_VERSION = 1
IMPORT_SCHEMA_VERSION = 1
IMPORTS_SCHEMA_VERSION = 1
UNDO_SCHEMA_VERSION = 1
REFRESH_SCHEMA_VERSION = 1
#: 1: was a bare list of prices with ``amount``/``currency``/``unit``; now a document.
HISTORY_SCHEMA_VERSION = 1


class RateDoc(Document):
    """One dated exchange rate the catalog holds."""

    currency: str
    usd_per_unit: float
    """US dollars per one unit of ``currency``."""
    as_of: str
    source: str
    age_days: Count | None = None
    """Days from ``as_of`` to the day of the run; None when ``as_of`` is not a day."""
    stale: bool = False
    """Older than 30 days (or not dated to the day): ``catalog refresh --rates`` fetches a new one."""


class ProviderCoverageDoc(Document):
    """What the catalog holds of one provider."""

    provider: str
    offers: int = Field(ge=0)
    priced_offers: int = Field(ge=0)
    regions: int = Field(ge=0)
    pricing_models: list[str]
    """The pricing models a price not labelled low-confidence gives."""
    oldest_as_of: str | None
    newest_as_of: str | None
    last_refresh: str | None
    low_confidence_only: list[str] = Field(default_factory=list)
    """The pricing models only low-confidence prices give (the source articles' 2024 tables),
    which plans, tco and offers leave out unless asked."""
    """What the last ``catalog refresh`` of the provider did (its one line), or None."""


class CatalogInfoDocument(Document):
    """``gpuplan catalog info --json``: where the catalog lives and what it holds."""

    schema_version: Literal[1] = 1
    location: str
    """Database URL, password masked."""
    schema_revision: str
    providers: list[str]
    offers: int = Field(ge=0)
    prices: int = Field(ge=0)
    offers_by_provider: dict[str, int]
    prices_by_pricing: dict[str, int]
    oldest_as_of: str | None
    newest_as_of: str | None
    imports: int = Field(ge=0)
    exchange_rates: list[RateDoc]
    stale_after_days: int = Field(ge=0)
    coverage: list[ProviderCoverageDoc]


class RejectedRowDoc(Document):
    """One row an import refused, with why."""

    line: int | None
    instance_type: str
    region: str
    reason: str
    skipped: bool = False
    """True: a row of what gpuplan does not price (no GPU, an accelerator it has no datasheet of),
    left out by design; an import whose refused rows are all skipped exits 0."""


class RefreshOutcomeDoc(Document):
    """What the refresh of one provider (or of the exchange rate) did."""

    provider: str
    """The provider's code, or ``ecb`` for the exchange rate (the ECB's daily reference rates)."""
    status: Literal["ok", "failed", "skipped"]
    """``failed``: nothing changed, the last good data kept; ``skipped``: keys missing, or not asked."""
    message: str
    """The line the command prints, in the user's language."""
    offers: int = Field(ge=0)
    prices: int = Field(ge=0)
    rejected: int = Field(ge=0)
    sources: list[str]
    """The price lists read (URLs or API names)."""
    started_at: str


class RefreshDocument(Document):
    """``gpuplan catalog refresh --json``: one outcome per provider, in the order they finished."""

    schema_version: Literal[1] = 1
    outcomes: list[RefreshOutcomeDoc]


class ImportDocument(Document):
    """``gpuplan catalog import --json``: what the import stored and what it refused."""

    schema_version: Literal[1] = 1
    provider: str
    source: str
    offers_imported: int = Field(ge=0)
    prices_imported: int = Field(ge=0)
    prices_already_recorded: int = Field(0, ge=0)
    """Prices the catalog held already for the same offer, pricing model, date and amount: not
    recorded again."""
    rejected: list[RejectedRowDoc]
    """Rows refused (lost: the exit status is 3 when some are)."""
    skipped: list[RejectedRowDoc] = Field(default_factory=list)
    """Rows of what gpuplan does not price (no GPU, an accelerator it has no datasheet of), left out
    by design; not counted among the rejected."""
    import_id: int | None
    """Id of the import in the catalog; None when nothing was written."""
    dated: list[str] = Field(default_factory=list)
    """The dates (``as_of``) of the prices imported, earliest first."""
    warnings: list[str] = Field(default_factory=list)
    """What was imported but should be looked at, one line each (a region gpuplan does not know)."""


class ImportEntryDoc(Document):
    """One import of the catalog, as ``catalog imports`` lists it."""

    id: int
    """The id ``catalog import --undo ID`` takes."""
    imported_at: str
    provider: str | None
    """None: the shipped snapshot's facts, of every provider."""
    kind: str
    """How the prices came in: ``file``, ``refresh``, ``snapshot-offers`` …"""
    source: str
    file_name: str | None
    """The file read (None: not a file import, or stored before the catalog recorded it)."""
    file_sha256: str | None
    as_of: str | None
    """The ``--as-of`` given (None: none, or stored before the catalog recorded it)."""
    rows_ok: int = Field(ge=0)
    rows_rejected: int = Field(ge=0)
    offers_added: int | None = Field(ge=0)
    """Offers it created; None for an import stored before the catalog recorded them."""
    prices_added: int | None = Field(ge=0)
    prices_held: int = Field(ge=0)
    """Its prices the catalog holds now (none once undone)."""
    undone_at: str | None
    undoable: bool
    """False for the shipped snapshot's imports."""


class ImportsDocument(Document):
    """``gpuplan catalog imports --json``: the catalog's imports, oldest first."""

    schema_version: Literal[1] = 1
    imports: list[ImportEntryDoc]
    snapshot_hidden: int = Field(ge=0)
    """The shipped snapshot's imports left out (``--all`` lists them)."""


class UndoDocument(Document):
    """``gpuplan catalog import --undo ID --json``: what undoing one import removed."""

    schema_version: Literal[1] = 1
    import_id: int
    provider: str | None
    source: str
    file_name: str | None
    prices_removed: int = Field(ge=0)
    offers_removed: int = Field(ge=0)
    offers_kept: int = Field(ge=0)
    """Offers it created that another import has priced since: they stay, with those prices."""
    prices_current_again: int = Field(ge=0)
    """Offer prices whose current price was this import's and is now the one recorded before it."""
    offers_recorded: bool
    """False for an import stored before the catalog recorded its offers: they stay."""
    same_file: list[int]
    """Other imports that stand and read the same file: a price they found already recorded was
    this import's, not written again, and is gone with it."""


class HistoryPrice(Document):
    """One dated price of the instance type."""

    provider: str
    region: str
    zone: str | None
    instance_type: str
    pricing: str
    published_currency: str
    published_unit: Literal["hour", "month"]
    price_usd_per_hour: float | None
    """Per instance-hour, USD (a month ÷ 730 h; CNY at ``exchange_rate``), after the user's
    discount; None when the published currency has no rate."""
    price_cny_per_hour: float | None
    price_usd_per_month: float | None
    """For a price published per month (None for hourly prices)."""
    price_cny_per_month: float | None
    discount_percent: float | None
    as_of: str
    source: str
    confidence: str
    fetched_at: str | None
    imported_by: str
    """How the price entered the catalog: ``snapshot-offers``, ``refresh``, ``skypilot`` …"""
    age_days: int | None = None
    """Days since the earliest day ``as_of`` allows (the oldest the price can be), counted to the day
    the catalog was read; None when ``as_of`` does not read as a date."""
    staleness: Literal["fresh", "stale", "unknown"] | None = None
    """Against the catalog's staleness limit (``--stale-days``, default 180), as ``gpuplan offers``
    judges an offer's price: fresh even at its oldest, stale even at its youngest, or unknown."""


class HistoryDocument(Document):
    """``gpuplan catalog history --json``: every dated price of one instance type, oldest first."""

    schema_version: Literal[1] = 1
    instance_type: str
    display_currency: Literal["USD", "CNY"]
    """The currency the table shows (``--currency``); the fields below do not depend on it."""
    exchange_rate: ExchangeRateDoc | None
    """The CNY rate of every ``_cny_`` figure; None when the catalog has none."""
    prices: list[HistoryPrice]
