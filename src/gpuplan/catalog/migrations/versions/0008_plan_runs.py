"""Catalog v8: a saved plan says how many times it runs in its month, and a plan saved again for
the same workload and month replaces the one before in the month's planned spend.

A plan's cost is one run's (one job of the workload); a nightly job runs thirty times a month, so
the month's planned spend is each plan's cost times its runs (``runs_per_month``; plans saved
before keep 1, what the spend counted them as). A plan of a workload saved again for the same
month had been counted beside the earlier one: the earlier is now marked ``replaced`` (kept in the
history, out of the spend). Plans saved before the revision are marked so too, all but the newest
planned one of each workload and month, so a budget that counted a re-saved plan twice counts it
once.

Revision ID: 0008_plan_runs
Revises: 0007_refresh_words
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_plan_runs"
down_revision = "0007_refresh_words"
branch_labels = None
depends_on = None

#: All but the newest planned plan of each workload and month (an id is given in saving order).
_REPLACE_OLDER = """
UPDATE team_plans SET status = 'replaced'
WHERE status = 'planned' AND EXISTS (
    SELECT 1 FROM team_plans AS newer
    WHERE newer.workload_id = team_plans.workload_id AND newer.month = team_plans.month
      AND newer.status = 'planned' AND newer.id > team_plans.id
)
"""


def upgrade() -> None:
    with op.batch_alter_table("team_plans") as batch:
        batch.add_column(sa.Column("runs_per_month", sa.Integer(), nullable=False, server_default="1"))
    op.execute(_REPLACE_OLDER)


def downgrade() -> None:
    # the replaced plans are planned again: before this revision every planned plan was counted
    op.execute("UPDATE team_plans SET status = 'planned' WHERE status = 'replaced'")
    with op.batch_alter_table("team_plans") as batch:
        batch.drop_column("runs_per_month")
