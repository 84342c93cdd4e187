"""Catalog v4: the workload steps ``gpuplan measure`` timed on real GPUs (the recording as JSON).

Revision ID: 0004_step_measurements
Revises: 0003_serve
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_step_measurements"
down_revision = "0003_serve"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "step_measurements",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("profile_key", sa.String(length=128), nullable=False),
        sa.Column("workload_name", sa.String(length=255), nullable=False),
        sa.Column("device", sa.String(length=16), nullable=False),
        sa.Column("gpu_id", sa.String(length=64), nullable=True),
        sa.Column("device_name", sa.String(length=256), nullable=False),
        sa.Column("measured_at", sa.String(length=40), nullable=False),
        sa.Column("stored_at", sa.String(length=32), nullable=False),
        sa.Column("schema_version", sa.Integer(), nullable=False),
        sa.Column("payload", sa.Text(), nullable=False),
    )
    op.create_index("ix_step_measurements_key", "step_measurements", ["profile_key", "measured_at"])


def downgrade() -> None:
    op.drop_index("ix_step_measurements_key", table_name="step_measurements")
    op.drop_table("step_measurements")
