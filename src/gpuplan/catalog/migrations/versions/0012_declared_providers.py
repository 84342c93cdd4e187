"""Catalog v12: providers the user declares (``catalog import FILE --new-provider CODE``).

A marketplace gpuplan has no module of (AutoDL, GPUShare, Matpool, Featurize …) could not hold a
price: every row had to name a provider of the registry. ``declared_providers`` holds the ones a
user declares, one row each: the code their offers are filed under, the name shown, and the country
of their regions where the user gave it (NULL: unknown). Nothing else is known of them; the planner
costs them at the conservative bounds. A downgrade drops the table (their offers stay, unplanned).

Revision ID: 0012_declared_providers
Revises: 0011_discount_pricing
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012_declared_providers"
down_revision = "0011_discount_pricing"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "declared_providers",
        sa.Column("code", sa.String(length=32), primary_key=True),
        sa.Column("display_name", sa.String(length=100), nullable=False),
        sa.Column("country", sa.String(length=2), nullable=True),
        sa.Column("declared_at", sa.String(length=32), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("declared_providers")
