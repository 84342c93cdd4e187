"""The stored format, declared column by column (SQLAlchemy Core).

The schema is created and changed only by the Alembic migrations in ``migrations/versions``;
these Table objects mirror the head revision for queries. Adding a field to a dataclass cannot
change the stored format: every query names its columns.
"""

from __future__ import annotations

from sqlalchemy import Column, Float, ForeignKey, Index, Integer, MetaData, String, Table, Text

from gpuplan.catalog.revisions import HEAD_REVISION, KNOWN_REVISIONS

__all__ = [
    "HEAD_REVISION",
    "KNOWN_REVISIONS",
    "bench_results",
    "billing_policies",
    "compliance_labels",
    "discounts",
    "exchange_rates",
    "imports",
    "licence_fees",
    "metadata",
    "offers",
    "prices",
    "profile_cache",
    "refresh_runs",
    "step_measurements",
    "storage_prices",
    "transfer_prices",
]


metadata = MetaData()

imports = Table(
    "imports",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("provider", String(32), nullable=True),  # None: a snapshot spanning providers
    Column("kind", String(32), nullable=False),  # snapshot | skypilot | manual
    Column("source", Text, nullable=False),
    Column("snapshot_id", String(64), nullable=True),
    Column("imported_at", String(32), nullable=False),
    Column("rows_ok", Integer, nullable=False),
    Column("rows_rejected", Integer, nullable=False),
)

offers = Table(
    "offers",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("provider", String(32), nullable=False),
    Column("region", String(64), nullable=False),
    Column("zone", String(64), nullable=False),  # '' = region-wide (NULL would defeat the unique index)
    Column("instance_type", String(128), nullable=False),
    Column("gpu", String(64), nullable=False),
    Column("gpu_count", Float, nullable=False),
    Column("vcpus", Float, nullable=True),
    Column("memory_gib", Float, nullable=True),
    Column("network_gbps", Float, nullable=True),
    Column("interconnect", Text, nullable=True),
    Column("source", Text, nullable=False),
    Column("price_reason", Text, nullable=True),
    Column("notes", Text, nullable=False),
    Column("network_kind", String(32), nullable=True),  # EFA | InfiniBand | RoCE | TCP
    Column("local_nvme_gb", Float, nullable=True),
)

prices = Table(
    "prices",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("offer_id", Integer, ForeignKey("offers.id"), nullable=False),
    Column("pricing", String(32), nullable=False),
    Column("amount", Float, nullable=False),
    Column("currency", String(8), nullable=False),
    Column("unit", String(16), nullable=False),
    Column("as_of", String(32), nullable=False),
    Column("source", Text, nullable=False),
    Column("confidence", String(16), nullable=False),
    Column("interruption_band", String(32), nullable=True),
    Column("term_json", Text, nullable=True),
    Column("import_id", Integer, ForeignKey("imports.id"), nullable=False),
    Column("fetched_at", String(32), nullable=True),  # set by catalog refresh
)

refresh_runs = Table(
    "refresh_runs",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("provider", String(32), nullable=False),
    Column("started_at", String(32), nullable=False),
    Column("status", String(16), nullable=False),  # ok | failed | skipped
    Column("message", Text, nullable=False),
    Column("offers", Integer, nullable=False),
    Column("prices", Integer, nullable=False),
    Column("rejected", Integer, nullable=False),
    Column("sources", Text, nullable=False),  # JSON list of URLs
    Column("import_id", Integer, ForeignKey("imports.id"), nullable=True),
)

discounts = Table(
    "discounts",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("provider", String(32), nullable=False),
    Column("family", String(64), nullable=False),  # '' = every instance type of the provider
    Column("percent", Float, nullable=False),
    Column("set_at", String(32), nullable=False),
    Column("note", Text, nullable=False),
)

transfer_prices = Table(
    "transfer_prices",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("provider", String(32), nullable=False),
    Column("region", String(64), nullable=False),
    Column("kind", String(32), nullable=False),
    Column("start_gb", Float, nullable=False),
    Column("end_gb", Float, nullable=True),
    Column("price_per_gb", Float, nullable=True),
    Column("currency", String(8), nullable=False),
    Column("quantity_unit", String(8), nullable=False),
    Column("as_of", String(32), nullable=True),
    Column("source", Text, nullable=False),
    Column("confidence", String(16), nullable=False),
    Column("description", Text, nullable=False),
    Column("is_default_region", Integer, nullable=False),
    Column("reason", Text, nullable=True),
    Column("import_id", Integer, ForeignKey("imports.id"), nullable=False),
)

storage_prices = Table(
    "storage_prices",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("provider", String(32), nullable=False),
    Column("region", String(64), nullable=False),
    Column("kind", String(16), nullable=False),
    Column("storage_class", String(128), nullable=False),
    Column("price", Float, nullable=True),
    Column("currency", String(8), nullable=False),
    Column("unit", String(16), nullable=False),
    Column("as_of", String(32), nullable=True),
    Column("source", Text, nullable=False),
    Column("confidence", String(16), nullable=False),
    Column("notes", Text, nullable=False),
    Column("is_default_region", Integer, nullable=False),
    Column("reason", Text, nullable=True),
    Column("import_id", Integer, ForeignKey("imports.id"), nullable=False),
)

licence_fees = Table(
    "licence_fees",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("provider", String(32), nullable=False),
    Column("region", String(64), nullable=False),
    Column("item", String(128), nullable=False),
    Column("applies", Integer, nullable=True),
    Column("price", Float, nullable=True),
    Column("currency", String(8), nullable=True),
    Column("unit", String(16), nullable=True),
    Column("as_of", String(32), nullable=True),
    Column("source", Text, nullable=False),
    Column("reason", Text, nullable=True),
    Column("import_id", Integer, ForeignKey("imports.id"), nullable=False),
)

billing_policies = Table(
    "billing_policies",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("provider", String(32), nullable=False),
    Column("region", String(64), nullable=False),
    Column("granularity_s", Integer, nullable=True),
    Column("min_billing_s", Integer, nullable=True),
    Column("as_of", String(32), nullable=True),
    Column("source", Text, nullable=True),
    Column("reason", Text, nullable=True),
    Column("import_id", Integer, ForeignKey("imports.id"), nullable=False),
)

compliance_labels = Table(
    "compliance_labels",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("provider", String(32), nullable=False),
    Column("region", String(64), nullable=False),
    Column("label", String(128), nullable=False),
    Column("as_of", String(32), nullable=True),
    Column("source", Text, nullable=False),
    Column("confidence", String(16), nullable=False),
    Column("import_id", Integer, ForeignKey("imports.id"), nullable=False),
)

exchange_rates = Table(
    "exchange_rates",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("currency", String(8), nullable=False),
    Column("usd_per_unit", Float, nullable=False),
    Column("as_of", String(32), nullable=False),
    Column("source", Text, nullable=False),
)

profile_cache = Table(
    "profile_cache",
    metadata,
    Column("key", String(128), primary_key=True),
    Column("schema_version", Integer, nullable=False),
    Column("created_at", String(32), nullable=False),
    Column("payload", Text, nullable=False),
)

bench_results = Table(
    "bench_results",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("gpu_id", String(64), nullable=True),
    Column("device_name", String(128), nullable=False),
    Column("host", String(255), nullable=False),
    Column("measured_at", String(32), nullable=False),
    Column("metric", String(64), nullable=False),
    Column("dtype", String(16), nullable=True),
    Column("value", Float, nullable=False),
    Column("unit", String(32), nullable=False),
    Column("datasheet_value", Float, nullable=True),
    Column("details", Text, nullable=False),
)

step_measurements = Table(
    "step_measurements",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("profile_key", String(128), nullable=False),
    Column("workload_name", String(255), nullable=False),
    Column("device", String(16), nullable=False),
    Column("gpu_id", String(64), nullable=True),
    Column("device_name", String(256), nullable=False),
    Column("measured_at", String(40), nullable=False),
    Column("stored_at", String(32), nullable=False),
    Column("schema_version", Integer, nullable=False),
    Column("payload", Text, nullable=False),
)

Index("ix_offers_key", offers.c.provider, offers.c.region, offers.c.zone, offers.c.instance_type, unique=True)
Index("ix_offers_gpu", offers.c.gpu)
Index("ix_prices_offer_pricing", prices.c.offer_id, prices.c.pricing, prices.c.as_of)
Index("ix_transfer_provider_region", transfer_prices.c.provider, transfer_prices.c.region)
Index("ix_storage_provider_region", storage_prices.c.provider, storage_prices.c.region)
Index("ix_exchange_rates_currency", exchange_rates.c.currency, exchange_rates.c.as_of)
Index("ix_bench_results_gpu", bench_results.c.gpu_id)
Index("ix_step_measurements_key", step_measurements.c.profile_key, step_measurements.c.measured_at)
Index("ix_refresh_runs_provider", refresh_runs.c.provider, refresh_runs.c.id)
Index("ix_discounts_key", discounts.c.provider, discounts.c.family, unique=True)
