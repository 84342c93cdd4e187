"""Catalog v2: network kind and local NVMe per offer, fetch time per price, refresh runs, and the
user's negotiated discounts (kept apart from list prices, applied at query time).

Revision ID: 0002_refresh_discounts
Revises: 0001_initial
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002_refresh_discounts"
down_revision = "0001_initial"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("offers") as batch:
        batch.add_column(sa.Column("network_kind", sa.String(length=32), nullable=True))
        batch.add_column(sa.Column("local_nvme_gb", sa.Float(), nullable=True))
    with op.batch_alter_table("prices") as batch:
        batch.add_column(sa.Column("fetched_at", sa.String(length=32), nullable=True))
    op.create_table(
        "refresh_runs",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("provider", sa.String(length=32), nullable=False),
        sa.Column("started_at", sa.String(length=32), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("message", sa.Text(), nullable=False),
        sa.Column("offers", sa.Integer(), nullable=False),
        sa.Column("prices", sa.Integer(), nullable=False),
        sa.Column("rejected", sa.Integer(), nullable=False),
        sa.Column("sources", sa.Text(), nullable=False),
        sa.Column("import_id", sa.Integer(), sa.ForeignKey("imports.id"), nullable=True),
    )
    op.create_index("ix_refresh_runs_provider", "refresh_runs", ["provider", "id"])
    op.create_table(
        "discounts",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("provider", sa.String(length=32), nullable=False),
        sa.Column("family", sa.String(length=64), nullable=False),
        sa.Column("percent", sa.Float(), nullable=False),
        sa.Column("set_at", sa.String(length=32), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
    )
    op.create_index("ix_discounts_key", "discounts", ["provider", "family"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_discounts_key", table_name="discounts")
    op.drop_table("discounts")
    op.drop_index("ix_refresh_runs_provider", table_name="refresh_runs")
    op.drop_table("refresh_runs")
    with op.batch_alter_table("prices") as batch:
        batch.drop_column("fetched_at")
    with op.batch_alter_table("offers") as batch:
        batch.drop_column("local_nvme_gb")
        batch.drop_column("network_kind")
