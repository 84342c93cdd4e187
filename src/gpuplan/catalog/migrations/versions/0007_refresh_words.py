"""Catalog v7: a refresh's outcome is kept in no language, and read in the reader's.

The line of each run (``refresh_runs.message``) had been kept as written in the language the
refresh ran in: a refresh run with ``--lang zh`` showed Chinese to an English reader of ``catalog
info``. The line's English templates and their fields are now kept as JSON (``message_words``) and
written when the run is read; ``message`` holds the line in English. Runs recorded before keep
NULL here and their line as it was (the language it was written in is not known).

Revision ID: 0007_refresh_words
Revises: 0006_budget_currency
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_refresh_words"
down_revision = "0006_budget_currency"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("refresh_runs") as batch:
        batch.add_column(sa.Column("message_words", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("refresh_runs") as batch:
        batch.drop_column("message_words")
