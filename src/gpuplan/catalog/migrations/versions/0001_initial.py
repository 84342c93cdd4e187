"""Initial catalog schema: offers, appended prices, transfer/storage/licence/billing facts,
exchange rates, and the tables other layers keep in the same database (profile cache, bench results).

Revision ID: 0001_initial
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001_initial"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "imports",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("provider", sa.String(length=32), nullable=True),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("snapshot_id", sa.String(length=64), nullable=True),
        sa.Column("imported_at", sa.String(length=32), nullable=False),
        sa.Column("rows_ok", sa.Integer(), nullable=False),
        sa.Column("rows_rejected", sa.Integer(), nullable=False),
    )
    op.create_table(
        "offers",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("provider", sa.String(length=32), nullable=False),
        sa.Column("region", sa.String(length=64), nullable=False),
        sa.Column("zone", sa.String(length=64), nullable=False),
        sa.Column("instance_type", sa.String(length=128), nullable=False),
        sa.Column("gpu", sa.String(length=64), nullable=False),
        sa.Column("gpu_count", sa.Float(), nullable=False),
        sa.Column("vcpus", sa.Float(), nullable=True),
        sa.Column("memory_gib", sa.Float(), nullable=True),
        sa.Column("network_gbps", sa.Float(), nullable=True),
        sa.Column("interconnect", sa.Text(), nullable=True),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("price_reason", sa.Text(), nullable=True),
        sa.Column("notes", sa.Text(), nullable=False),
    )
    op.create_table(
        "prices",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("offer_id", sa.Integer(), sa.ForeignKey("offers.id"), nullable=False),
        sa.Column("pricing", sa.String(length=32), nullable=False),
        sa.Column("amount", sa.Float(), nullable=False),
        sa.Column("currency", sa.String(length=8), nullable=False),
        sa.Column("unit", sa.String(length=16), nullable=False),
        sa.Column("as_of", sa.String(length=32), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("confidence", sa.String(length=16), nullable=False),
        sa.Column("interruption_band", sa.String(length=32), nullable=True),
        sa.Column("term_json", sa.Text(), nullable=True),
        sa.Column("import_id", sa.Integer(), sa.ForeignKey("imports.id"), nullable=False),
    )
    op.create_table(
        "transfer_prices",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("provider", sa.String(length=32), nullable=False),
        sa.Column("region", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("start_gb", sa.Float(), nullable=False),
        sa.Column("end_gb", sa.Float(), nullable=True),
        sa.Column("price_per_gb", sa.Float(), nullable=True),
        sa.Column("currency", sa.String(length=8), nullable=False),
        sa.Column("quantity_unit", sa.String(length=8), nullable=False),
        sa.Column("as_of", sa.String(length=32), nullable=True),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("confidence", sa.String(length=16), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("is_default_region", sa.Integer(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("import_id", sa.Integer(), sa.ForeignKey("imports.id"), nullable=False),
    )
    op.create_table(
        "storage_prices",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("provider", sa.String(length=32), nullable=False),
        sa.Column("region", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("storage_class", sa.String(length=128), nullable=False),
        sa.Column("price", sa.Float(), nullable=True),
        sa.Column("currency", sa.String(length=8), nullable=False),
        sa.Column("unit", sa.String(length=16), nullable=False),
        sa.Column("as_of", sa.String(length=32), nullable=True),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("confidence", sa.String(length=16), nullable=False),
        sa.Column("notes", sa.Text(), nullable=False),
        sa.Column("is_default_region", sa.Integer(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("import_id", sa.Integer(), sa.ForeignKey("imports.id"), nullable=False),
    )
    op.create_table(
        "licence_fees",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("provider", sa.String(length=32), nullable=False),
        sa.Column("region", sa.String(length=64), nullable=False),
        sa.Column("item", sa.String(length=128), nullable=False),
        sa.Column("applies", sa.Integer(), nullable=True),
        sa.Column("price", sa.Float(), nullable=True),
        sa.Column("currency", sa.String(length=8), nullable=True),
        sa.Column("unit", sa.String(length=16), nullable=True),
        sa.Column("as_of", sa.String(length=32), nullable=True),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("import_id", sa.Integer(), sa.ForeignKey("imports.id"), nullable=False),
    )
    op.create_table(
        "billing_policies",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("provider", sa.String(length=32), nullable=False),
        sa.Column("region", sa.String(length=64), nullable=False),
        sa.Column("granularity_s", sa.Integer(), nullable=True),
        sa.Column("min_billing_s", sa.Integer(), nullable=True),
        sa.Column("as_of", sa.String(length=32), nullable=True),
        sa.Column("source", sa.Text(), nullable=True),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("import_id", sa.Integer(), sa.ForeignKey("imports.id"), nullable=False),
    )
    op.create_table(
        "compliance_labels",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("provider", sa.String(length=32), nullable=False),
        sa.Column("region", sa.String(length=64), nullable=False),
        sa.Column("label", sa.String(length=128), nullable=False),
        sa.Column("as_of", sa.String(length=32), nullable=True),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("confidence", sa.String(length=16), nullable=False),
        sa.Column("import_id", sa.Integer(), sa.ForeignKey("imports.id"), nullable=False),
    )
    op.create_table(
        "exchange_rates",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("currency", sa.String(length=8), nullable=False),
        sa.Column("usd_per_unit", sa.Float(), nullable=False),
        sa.Column("as_of", sa.String(length=32), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
    )
    op.create_table(
        "profile_cache",
        sa.Column("key", sa.String(length=128), primary_key=True),
        sa.Column("schema_version", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.String(length=32), nullable=False),
        sa.Column("payload", sa.Text(), nullable=False),
    )
    op.create_table(
        "bench_results",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("gpu_id", sa.String(length=64), nullable=True),
        sa.Column("device_name", sa.String(length=128), nullable=False),
        sa.Column("host", sa.String(length=255), nullable=False),
        sa.Column("measured_at", sa.String(length=32), nullable=False),
        sa.Column("metric", sa.String(length=64), nullable=False),
        sa.Column("dtype", sa.String(length=16), nullable=True),
        sa.Column("value", sa.Float(), nullable=False),
        sa.Column("unit", sa.String(length=32), nullable=False),
        sa.Column("datasheet_value", sa.Float(), nullable=True),
        sa.Column("details", sa.Text(), nullable=False),
    )
    op.create_index("ix_offers_gpu", "offers", ["gpu"], unique=False)
    op.create_index("ix_offers_key", "offers", ["provider", "region", "zone", "instance_type"], unique=True)
    op.create_index("ix_prices_offer_pricing", "prices", ["offer_id", "pricing", "as_of"], unique=False)
    op.create_index("ix_transfer_provider_region", "transfer_prices", ["provider", "region"], unique=False)
    op.create_index("ix_storage_provider_region", "storage_prices", ["provider", "region"], unique=False)
    op.create_index("ix_exchange_rates_currency", "exchange_rates", ["currency", "as_of"], unique=False)
    op.create_index("ix_bench_results_gpu", "bench_results", ["gpu_id"], unique=False)


def downgrade() -> None:
    op.drop_table("bench_results")
    op.drop_table("profile_cache")
    op.drop_table("exchange_rates")
    op.drop_table("compliance_labels")
    op.drop_table("billing_policies")
    op.drop_table("licence_fees")
    op.drop_table("storage_prices")
    op.drop_table("transfer_prices")
    op.drop_table("prices")
    op.drop_table("offers")
    op.drop_table("imports")
