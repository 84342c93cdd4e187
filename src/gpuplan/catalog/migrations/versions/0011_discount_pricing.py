"""Catalog v11: a negotiated discount names the pricing models it is taken off.

A discount had been one percentage for a provider (or one instance family of it), taken off every
pricing model, spot and reservations included; an enterprise agreement's discount is on
pay-as-you-go prices, and a team that had one was shown spot cheaper than it is. ``discounts`` now
holds one row per pricing model (``pricing``: ``on_demand``, ``spot``, ``monthly``,
``reserved_1y``, ``reserved_3y``), keyed by provider, family and pricing model.

A discount stored before this revision had been entered as one for every pricing model, and was
applied so: it keeps that meaning, as one row for each of the five models, each with its percent,
date and note. A downgrade keeps one row per provider and family (the on-demand one where there is
one), which then applies to every model again.

Revision ID: 0011_discount_pricing
Revises: 0010_workload_teams
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011_discount_pricing"
down_revision = "0010_workload_teams"
branch_labels = None
depends_on = None

#: The pricing models of this revision, written out (not imported) so that a later list cannot
#: change what this migration writes: the meaning of a discount entered as "all models".
_MODELS = ("on_demand", "spot", "monthly", "reserved_1y", "reserved_3y")


def upgrade() -> None:
    op.drop_index("ix_discounts_key", table_name="discounts")
    with op.batch_alter_table("discounts") as batch:
        batch.add_column(sa.Column("pricing", sa.String(length=16), nullable=True))
    # every row so far is NULL here: a copy for each model but the first, then the first
    for model in _MODELS[1:]:
        op.execute(
            sa.text(
                "INSERT INTO discounts (provider, family, percent, set_at, note, pricing) "
                "SELECT provider, family, percent, set_at, note, :model FROM discounts WHERE pricing IS NULL"
            ).bindparams(model=model)
        )
    op.execute(
        sa.text("UPDATE discounts SET pricing = :model WHERE pricing IS NULL").bindparams(model=_MODELS[0])
    )
    with op.batch_alter_table("discounts") as batch:
        batch.alter_column("pricing", existing_type=sa.String(length=16), nullable=False)
    op.create_index("ix_discounts_key", "discounts", ["provider", "family", "pricing"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_discounts_key", table_name="discounts")
    # one row per provider and family: the on-demand one where there is one, else the first
    op.execute(
        sa.text(
            "DELETE FROM discounts WHERE pricing <> 'on_demand' AND EXISTS (SELECT 1 FROM discounts d "
            "WHERE d.provider = discounts.provider AND d.family = discounts.family "
            "AND d.pricing = 'on_demand')"
        )
    )
    op.execute(
        sa.text(
            "DELETE FROM discounts WHERE id NOT IN "
            "(SELECT min(d.id) FROM discounts d GROUP BY d.provider, d.family)"
        )
    )
    with op.batch_alter_table("discounts") as batch:
        batch.drop_column("pricing")
    op.create_index("ix_discounts_key", "discounts", ["provider", "family"], unique=True)
