"""Catalog v13: an import can be undone (``catalog imports``, ``catalog import --undo ID``).

An import had kept its provider, kind, source and row counts, and each price the import that wrote
it; an offer kept nothing of the import that created it, so a wrong file (another team's, a wrong
``--as-of``, yuan typed as dollars) could be taken out only by deleting the database. ``imports``
now also keeps the file's name and SHA-256, the ``--as-of`` given, the offers and prices it added,
and when it was undone (NULL: it stands); ``offers.import_id`` names the import that created the
offer (NULL for every offer stored before this revision, which no undo removes).

``offers.import_id`` has no foreign key: adding one to SQLite's ``offers`` means rebuilding the
table beneath the prices that reference it. A downgrade drops the columns; an import undone before
it keeps its row, its prices gone.

Revision ID: 0013_import_undo
Revises: 0012_declared_providers
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013_import_undo"
down_revision = "0012_declared_providers"
branch_labels = None
depends_on = None

#: The columns this revision adds to ``imports``, written out (not imported from the schema).
_IMPORT_COLUMNS = (
    ("file_name", sa.Text()),
    ("file_sha256", sa.String(length=64)),
    ("as_of", sa.String(length=32)),
    ("offers_added", sa.Integer()),
    ("prices_added", sa.Integer()),
    ("undone_at", sa.String(length=32)),
)


def upgrade() -> None:
    with op.batch_alter_table("imports") as batch:
        for name, type_ in _IMPORT_COLUMNS:
            batch.add_column(sa.Column(name, type_, nullable=True))
    with op.batch_alter_table("offers") as batch:
        batch.add_column(sa.Column("import_id", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("offers") as batch:
        batch.drop_column("import_id")
    with op.batch_alter_table("imports") as batch:
        for name, _ in reversed(_IMPORT_COLUMNS):
            batch.drop_column(name)
