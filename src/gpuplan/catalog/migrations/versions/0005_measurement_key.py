"""Catalog v5: a stored measurement is found by what was measured, not by its trace key.

The trace key (``profile_key``) also hashes the Profile schema and the torch version, so a new
schema or a torch upgrade orphaned every stored recording. ``measurement_key`` leaves them out.
The rows stored before keep NULL: the key cannot be rebuilt from a row alone (the recording names
its workload's trace key, not the workload), so the reader matches them by their trace key under
each earlier schema and the recording's own torch version (``gpuplan.profile.key.is_recording_of``).

Revision ID: 0005_measurement_key
Revises: 0004_step_measurements
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_measurement_key"
down_revision = "0004_step_measurements"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("step_measurements") as batch:
        batch.add_column(sa.Column("measurement_key", sa.String(length=64), nullable=True))
    op.create_index("ix_step_measurements_measured", "step_measurements", ["measurement_key", "measured_at"])


def downgrade() -> None:
    op.drop_index("ix_step_measurements_measured", table_name="step_measurements")
    with op.batch_alter_table("step_measurements") as batch:
        batch.drop_column("measurement_key")
