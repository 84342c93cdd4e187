"""Catalog v10: a saved workload belongs to a team, the team of the token that first saved it.

Teams sharing a service could save new versions of each other's workloads (the plans of the team
that owned the name then planned the other team's spec) and cancel each other's plans.
``team_workloads.team`` (NULL: no team) is the owner; a workload saved before this revision has no
team, and any token of the plan scope may still save it again, as before.

Revision ID: 0010_workload_teams
Revises: 0009_teams
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010_workload_teams"
down_revision = "0009_teams"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("team_workloads") as batch:
        batch.add_column(sa.Column("team", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("team_workloads") as batch:
        batch.drop_column("team")
