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
    "QUEUE_TABLES",
    "api_tokens",
    "audit_log",
    "bench_results",
    "billing_policies",
    "compliance_labels",
    "declared_providers",
    "discounts",
    "exchange_rates",
    "imports",
    "jobs",
    "licence_fees",
    "metadata",
    "offers",
    "plan_cache",
    "prices",
    "profile_cache",
    "rate_windows",
    "refresh_runs",
    "step_measurements",
    "storage_prices",
    "team_budgets",
    "team_plans",
    "team_workload_versions",
    "team_workloads",
    "team_year_budgets",
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
    # What was imported and whether it stands (revision 0013; NULL for an import stored before, and
    # the file's for a file import only): the file's name and SHA-256, the --as-of given, the offers
    # and prices it added, and when ``catalog import --undo`` took them out (NULL: it stands).
    Column("file_name", Text, nullable=True),
    Column("file_sha256", String(64), nullable=True),
    Column("as_of", String(32), nullable=True),
    Column("offers_added", Integer, nullable=True),
    Column("prices_added", Integer, nullable=True),
    Column("undone_at", String(32), nullable=True),
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
    # The import that created the offer (revision 0013; NULL for an offer stored before it, which no
    # undo removes). No foreign key: adding one meant rebuilding SQLite's offers table under its prices.
    Column("import_id", Integer, nullable=True),
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
    Column("message", Text, nullable=False),  # the line in English
    # the line's words in no language (JSON, gpuplan.catalog.stored_words), written in the reader's
    # language when read; NULL for runs recorded before revision 0007
    Column("message_words", Text, nullable=True),
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
    # the pricing model it is taken off (on_demand, spot, …): one row per model (revision 0011)
    Column("pricing", String(16), nullable=False),
    Column("percent", Float, nullable=False),
    Column("set_at", String(32), nullable=False),
    Column("note", Text, nullable=False),
)

#: Providers the user declared (``catalog import --new-provider``), whose facts gpuplan does not know
#: (revision 0012): ``country`` NULL = unknown.
declared_providers = Table(
    "declared_providers",
    metadata,
    Column("code", String(32), primary_key=True),
    Column("display_name", String(100), nullable=False),
    Column("country", String(2), nullable=True),
    Column("declared_at", String(32), nullable=False),
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
    # What was measured, without the trace's and torch's versions (revision 0005); NULL for a row
    # stored before, matched by its profile key (``gpuplan.profile.key.is_recording_of``).
    Column("measurement_key", String(64), nullable=True),
    Column("workload_name", String(255), nullable=False),
    Column("device", String(16), nullable=False),
    Column("gpu_id", String(64), nullable=True),
    Column("device_name", String(256), nullable=False),
    Column("measured_at", String(40), nullable=False),
    Column("stored_at", String(32), nullable=False),
    Column("schema_version", Integer, nullable=False),
    Column("payload", Text, nullable=False),
)

# The team service (`gpuplan serve`, revision 0003). Times are ISO-8601 UTC text, as elsewhere here.

api_tokens = Table(
    "api_tokens",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(64), nullable=False),  # who: shown in history and the audit log
    Column("prefix", String(16), nullable=False),  # the token's public part, to find its row
    Column("token_sha256", String(64), nullable=False),  # never the token itself
    Column("scopes", String(64), nullable=False),  # comma list: read, plan, admin
    Column("rate_per_minute", Integer, nullable=False),
    Column("created_at", String(32), nullable=False),
    Column("expires_at", String(32), nullable=True),
    Column("revoked_at", String(32), nullable=True),
    Column("team", String(64), nullable=True),  # the holder's team; NULL: none (revision 0009)
)

audit_log = Table(
    "audit_log",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("at", String(32), nullable=False),
    Column("actor", String(64), nullable=False),
    Column("action", String(64), nullable=False),
    Column("target", Text, nullable=False),
    Column("details", Text, nullable=False),  # JSON; never a secret
)

jobs = Table(
    "jobs",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("kind", String(32), nullable=False),
    Column("request", Text, nullable=False),  # JSON of the request, as validated
    Column("status", String(16), nullable=False),  # queued | running | done | failed | cancelled
    Column("progress", Float, nullable=False),
    Column("message", Text, nullable=False),
    Column("result", Text, nullable=True),  # JSON document when done
    Column("error", Text, nullable=True),
    Column("created_by", String(64), nullable=False),
    Column("created_at", String(32), nullable=False),
    Column("started_at", String(32), nullable=True),
    Column("finished_at", String(32), nullable=True),
    Column("heartbeat_at", String(32), nullable=True),
    Column("attempts", Integer, nullable=False),
)

plan_cache = Table(
    "plan_cache",
    metadata,
    Column("key", String(64), primary_key=True),  # request + catalog state + day
    Column("created_at", String(32), nullable=False),
    Column("document", Text, nullable=False),
)

rate_windows = Table(
    "rate_windows",
    metadata,
    Column("token_id", Integer, primary_key=True),
    Column("minute", Integer, primary_key=True),  # Unix time // 60
    Column("count", Integer, nullable=False),
)

team_workloads = Table(
    "team_workloads",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(128), nullable=False),
    Column("created_by", String(64), nullable=False),
    Column("created_at", String(32), nullable=False),
    # the team of the token that first saved it: only that team's tokens save it again (NULL: no
    # team, any token's)
    Column("team", String(64), nullable=True),
)

team_workload_versions = Table(
    "team_workload_versions",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("workload_id", Integer, ForeignKey("team_workloads.id"), nullable=False),
    Column("version", Integer, nullable=False),
    Column("spec", Text, nullable=False),  # the workload as JSON
    Column("saved_by", String(64), nullable=False),
    Column("saved_at", String(32), nullable=False),
)

team_plans = Table(
    "team_plans",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("workload_id", Integer, ForeignKey("team_workloads.id"), nullable=False),
    Column("workload_version", Integer, nullable=False),
    Column("month", String(7), nullable=False),  # YYYY-MM the spend is planned for
    Column("constraints", Text, nullable=False),  # JSON of the plan request's constraints
    Column("document", Text, nullable=False),  # the plan document as it was
    Column("total_cost_usd", Float, nullable=True),  # the recommended option's, then
    Column("prices_as_of", String(32), nullable=True),  # the recommended price's date
    Column("catalog_import_id", Integer, nullable=True),  # the newest import when planned
    Column("created_by", String(64), nullable=False),
    Column("created_at", String(32), nullable=False),
    Column("status", String(16), nullable=False),  # planned | cancelled | replaced (saved again)
    # times the plan runs in its month (a nightly job: 30); its cost is one run's (revision 0008)
    Column("runs_per_month", Integer, nullable=False, server_default="1"),
    Column("team", String(64), nullable=True),  # the saver's token's team; NULL: none (revision 0009)
)


def _budget_table(name: str, period: str, length: int) -> Table:
    """A table of budgets keyed by team ('' for the whole service) and ``period``: ``month``
    (``team_budgets``, revision 0009) or ``year`` (``team_year_budgets``, revision 0014)."""
    return Table(
        name,
        metadata,
        Column("team", String(64), primary_key=True),
        Column(period, String(length), primary_key=True),
        Column("amount_usd", Float, nullable=False),
        Column("note", Text, nullable=False),
        Column("set_by", String(64), nullable=False),
        Column("set_at", String(32), nullable=False),
        # A budget given in yuan: the yuan, and the rate it was kept in US dollars at (NULL: given
        # in dollars, or set before revision 0006, whose note then holds the conversion as it was
        # worded).
        Column("amount_cny", Float, nullable=True),
        Column("cny_usd_per_unit", Float, nullable=True),
        Column("cny_rate_as_of", String(32), nullable=True),
        Column("cny_rate_source", Text, nullable=True),
        Column("cny_rate_age_days", Integer, nullable=True),
    )


#: A team's budget, or the whole service's (team ''), for a month, YYYY-MM.
team_budgets = _budget_table("team_budgets", "month", 7)
#: The same for a year, YYYY.
team_year_budgets = _budget_table("team_year_budgets", "year", 4)

#: Tables the job queue library (huey) creates in the same database for `gpuplan serve` (its SQLite
#: storage's names, then its PostgreSQL storage's with our prefix): its own format, not declared
#: here, but gpuplan's (a catalog holding them is not another application's).
QUEUE_TABLES = ("kv", "schedule", "task", "counter", "huey_kv", "huey_schedule", "huey_task", "huey_counter")

Index("ix_offers_key", offers.c.provider, offers.c.region, offers.c.zone, offers.c.instance_type, unique=True)
Index("ix_offers_gpu", offers.c.gpu)
Index("ix_prices_offer_pricing", prices.c.offer_id, prices.c.pricing, prices.c.as_of)
Index("ix_transfer_provider_region", transfer_prices.c.provider, transfer_prices.c.region)
Index("ix_storage_provider_region", storage_prices.c.provider, storage_prices.c.region)
Index("ix_exchange_rates_currency", exchange_rates.c.currency, exchange_rates.c.as_of)
Index("ix_bench_results_gpu", bench_results.c.gpu_id)
Index("ix_step_measurements_key", step_measurements.c.profile_key, step_measurements.c.measured_at)
Index("ix_step_measurements_measured", step_measurements.c.measurement_key, step_measurements.c.measured_at)
Index("ix_refresh_runs_provider", refresh_runs.c.provider, refresh_runs.c.id)
Index("ix_discounts_key", discounts.c.provider, discounts.c.family, discounts.c.pricing, unique=True)
Index("ix_api_tokens_prefix", api_tokens.c.prefix, unique=True)
Index("ix_api_tokens_name", api_tokens.c.name, unique=True)
Index("ix_audit_log_at", audit_log.c.at)
Index("ix_jobs_status", jobs.c.status, jobs.c.heartbeat_at)
Index("ix_team_workloads_name", team_workloads.c.name, unique=True)
Index(
    "ix_team_workload_versions_key",
    team_workload_versions.c.workload_id,
    team_workload_versions.c.version,
    unique=True,
)
Index("ix_team_plans_month", team_plans.c.month)
