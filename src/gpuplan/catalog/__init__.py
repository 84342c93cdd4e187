"""The offer catalog: instance types, prices per pricing model, transfer, storage and licence facts,
dated and sourced, in an embedded store (SQLite by default, PostgreSQL by URL).

    from gpuplan.catalog import open_store
    store = open_store()            # the user's database, created and seeded on first use
    store.offers(gpu="a100", pricing="spot")
"""

from gpuplan.catalog.gpu_hour import GpuHourPrice
from gpuplan.catalog.model import (
    HOURS_PER_MONTH,
    BenchResult,
    BillingPolicy,
    CatalogInfo,
    ComplianceLabel,
    Confidence,
    Currency,
    ExchangeRate,
    ImportReport,
    LicenceFee,
    OfferPrice,
    OfferRow,
    PriceRow,
    PriceUnit,
    PricingModel,
    RejectedRow,
    StoragePrice,
    StoredMeasurement,
    TransferTier,
)
from gpuplan.catalog.open_catalog import DEFAULT_STALE_AFTER_DAYS, default_db_path, open_store
from gpuplan.catalog.providers import PROVIDERS
from gpuplan.catalog.query import display_money
from gpuplan.catalog.store import Store

__all__ = [
    "DEFAULT_STALE_AFTER_DAYS",
    "HOURS_PER_MONTH",
    "PROVIDERS",
    "BenchResult",
    "BillingPolicy",
    "CatalogInfo",
    "ComplianceLabel",
    "Confidence",
    "Currency",
    "ExchangeRate",
    "GpuHourPrice",
    "ImportReport",
    "LicenceFee",
    "OfferPrice",
    "OfferRow",
    "PriceRow",
    "PriceUnit",
    "PricingModel",
    "RejectedRow",
    "StoragePrice",
    "Store",
    "StoredMeasurement",
    "TransferTier",
    "default_db_path",
    "display_money",
    "open_store",
]
