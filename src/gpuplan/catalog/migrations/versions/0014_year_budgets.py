"""Catalog v14: a year's budget, the whole service's or a team's (``PUT /api/v1/budget/2027``).

A budget was a month's only: a team given ¥1,200,000 for the year entered it month by month, and
no figure said what the year's plans added up to against it. ``team_year_budgets`` is keyed by
team ('' for the whole service) and year (``YYYY``), with the columns of ``team_budgets``: the
amount in US dollars, the setter's note, who set it and when, and for one given in yuan the yuan and
the rate it was kept in dollars at. A downgrade drops the table (the years' budgets with it).

Revision ID: 0014_year_budgets
Revises: 0013_import_undo
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014_year_budgets"
down_revision = "0013_import_undo"
branch_labels = None
depends_on = None


#: The columns of ``team_budgets`` after its key (revisions 0009 and 0006), written out (not
#: imported from the schema): (name, type, whether NULL is allowed).
_COLUMNS = (
    ("amount_usd", sa.Float(), False),
    ("note", sa.Text(), False),
    ("set_by", sa.String(length=64), False),
    ("set_at", sa.String(length=32), False),
    ("amount_cny", sa.Float(), True),
    ("cny_usd_per_unit", sa.Float(), True),
    ("cny_rate_as_of", sa.String(length=32), True),
    ("cny_rate_source", sa.Text(), True),
    ("cny_rate_age_days", sa.Integer(), True),
)


def upgrade() -> None:
    op.create_table(
        "team_year_budgets",
        sa.Column("team", sa.String(length=64), primary_key=True),
        sa.Column("year", sa.String(length=4), primary_key=True),
        *(sa.Column(name, kind, nullable=null) for name, kind, null in _COLUMNS),
    )


def downgrade() -> None:
    op.drop_table("team_year_budgets")
