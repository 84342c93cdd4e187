"""Catalog v9: teams. A token may belong to a team; a plan is kept under its saver's team; a month's
budget is the whole service's or one team's.

Three teams sharing one service had one budget between them, and no way to tell whose plans spent
it. ``api_tokens.team`` (NULL: no team) is set when a token is made; ``team_plans.team`` is the
team of the token that saved the plan; ``team_budgets`` is keyed by team and month, the team ''
being the whole service (every budget set before is the service's, as it was).

Revision ID: 0009_teams
Revises: 0008_plan_runs
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_teams"
down_revision = "0008_plan_runs"
branch_labels = None
depends_on = None

_BUDGET_COLUMNS = (
    "month, amount_usd, note, set_by, set_at, amount_cny, cny_usd_per_unit, cny_rate_as_of, "
    "cny_rate_source, cny_rate_age_days"
)


def _budgets(name: str, *, with_team: bool) -> None:
    team = [sa.Column("team", sa.String(length=64), primary_key=True)] if with_team else []
    op.create_table(
        name,
        *team,
        sa.Column("month", sa.String(length=7), primary_key=True),
        sa.Column("amount_usd", sa.Float(), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("set_by", sa.String(length=64), nullable=False),
        sa.Column("set_at", sa.String(length=32), nullable=False),
        sa.Column("amount_cny", sa.Float(), nullable=True),
        sa.Column("cny_usd_per_unit", sa.Float(), nullable=True),
        sa.Column("cny_rate_as_of", sa.String(length=32), nullable=True),
        sa.Column("cny_rate_source", sa.Text(), nullable=True),
        sa.Column("cny_rate_age_days", sa.Integer(), nullable=True),
    )


def upgrade() -> None:
    with op.batch_alter_table("api_tokens") as batch:
        batch.add_column(sa.Column("team", sa.String(length=64), nullable=True))
    with op.batch_alter_table("team_plans") as batch:
        batch.add_column(sa.Column("team", sa.String(length=64), nullable=True))
    # The primary key becomes (team, month): a new table, the budgets copied as the service's.
    _budgets("team_budgets_v9", with_team=True)
    op.execute(
        f"INSERT INTO team_budgets_v9 (team, {_BUDGET_COLUMNS}) "
        f"SELECT '', {_BUDGET_COLUMNS} FROM team_budgets"
    )
    op.drop_table("team_budgets")
    op.rename_table("team_budgets_v9", "team_budgets")


def downgrade() -> None:
    # the service's budgets only: a team's has no place before this revision
    _budgets("team_budgets_v8", with_team=False)
    op.execute(
        f"INSERT INTO team_budgets_v8 ({_BUDGET_COLUMNS}) SELECT {_BUDGET_COLUMNS} FROM team_budgets "
        "WHERE team = ''"
    )
    op.drop_table("team_budgets")
    op.rename_table("team_budgets_v8", "team_budgets")
    with op.batch_alter_table("team_plans") as batch:
        batch.drop_column("team")
    with op.batch_alter_table("api_tokens") as batch:
        batch.drop_column("team")
