"""Catalog v6: a month's budget given in yuan keeps the yuan and the rate it was converted at.

The conversion had been kept as a sentence in the budget's note, worded in the language of whoever
set it, so a reader of the other language read it untranslated. The amount in yuan and the rate
(US dollars per yuan, its date, source and age when used) are now columns; the note holds the
setter's own words only, and the sentence is written when the budget is read, in the reader's
language. Budgets set before keep NULL here and their note as it was (the sentence in it cannot be
told from the setter's words).

Revision ID: 0006_budget_currency
Revises: 0005_measurement_key
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_budget_currency"
down_revision = "0005_measurement_key"
branch_labels = None
depends_on = None

_COLUMNS = (
    ("amount_cny", sa.Float),
    ("cny_usd_per_unit", sa.Float),
    ("cny_rate_as_of", lambda: sa.String(length=32)),
    ("cny_rate_source", sa.Text),
    ("cny_rate_age_days", sa.Integer),
)


def upgrade() -> None:
    with op.batch_alter_table("team_budgets") as batch:
        for name, kind in _COLUMNS:
            batch.add_column(sa.Column(name, kind(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("team_budgets") as batch:
        for name, _ in reversed(_COLUMNS):
            batch.drop_column(name)
