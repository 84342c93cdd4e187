"""The team service (`gpuplan serve`): API tokens (hashed), the audit log, background jobs, the plan
cache, per-token rate windows, and the team's saved workloads, plans and monthly budgets.

Revision ID: 0003_serve
Revises: 0002_refresh_discounts
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_serve"
down_revision = "0002_refresh_discounts"
branch_labels = None
depends_on = None


def _id() -> sa.Column:
    return sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True)


def _text(name: str, length: int | None = None, *, null: bool = False) -> sa.Column:
    kind = sa.String(length=length) if length else sa.Text()
    return sa.Column(name, kind, nullable=null)


def upgrade() -> None:
    op.create_table(
        "api_tokens",
        _id(),
        _text("name", 64),
        _text("prefix", 16),
        _text("token_sha256", 64),
        _text("scopes", 64),
        sa.Column("rate_per_minute", sa.Integer(), nullable=False),
        _text("created_at", 32),
        _text("expires_at", 32, null=True),
        _text("revoked_at", 32, null=True),
    )
    op.create_index("ix_api_tokens_prefix", "api_tokens", ["prefix"], unique=True)
    op.create_index("ix_api_tokens_name", "api_tokens", ["name"], unique=True)
    op.create_table(
        "audit_log",
        _id(),
        _text("at", 32),
        _text("actor", 64),
        _text("action", 64),
        _text("target"),
        _text("details"),
    )
    op.create_index("ix_audit_log_at", "audit_log", ["at"])
    op.create_table(
        "jobs",
        sa.Column("id", sa.String(length=32), primary_key=True),
        _text("kind", 32),
        _text("request"),
        _text("status", 16),
        sa.Column("progress", sa.Float(), nullable=False),
        _text("message"),
        _text("result", null=True),
        _text("error", null=True),
        _text("created_by", 64),
        _text("created_at", 32),
        _text("started_at", 32, null=True),
        _text("finished_at", 32, null=True),
        _text("heartbeat_at", 32, null=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
    )
    op.create_index("ix_jobs_status", "jobs", ["status", "heartbeat_at"])
    op.create_table(
        "plan_cache",
        sa.Column("key", sa.String(length=64), primary_key=True),
        _text("created_at", 32),
        _text("document"),
    )
    op.create_table(
        "rate_windows",
        sa.Column("token_id", sa.Integer(), primary_key=True),
        sa.Column("minute", sa.Integer(), primary_key=True),
        sa.Column("count", sa.Integer(), nullable=False),
    )
    op.create_table(
        "team_workloads",
        _id(),
        _text("name", 128),
        _text("created_by", 64),
        _text("created_at", 32),
    )
    op.create_index("ix_team_workloads_name", "team_workloads", ["name"], unique=True)
    op.create_table(
        "team_workload_versions",
        _id(),
        sa.Column("workload_id", sa.Integer(), sa.ForeignKey("team_workloads.id"), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        _text("spec"),
        _text("saved_by", 64),
        _text("saved_at", 32),
    )
    op.create_index(
        "ix_team_workload_versions_key", "team_workload_versions", ["workload_id", "version"], unique=True
    )
    op.create_table(
        "team_plans",
        _id(),
        sa.Column("workload_id", sa.Integer(), sa.ForeignKey("team_workloads.id"), nullable=False),
        sa.Column("workload_version", sa.Integer(), nullable=False),
        _text("month", 7),
        _text("constraints"),
        _text("document"),
        sa.Column("total_cost_usd", sa.Float(), nullable=True),
        _text("prices_as_of", 32, null=True),
        sa.Column("catalog_import_id", sa.Integer(), nullable=True),
        _text("created_by", 64),
        _text("created_at", 32),
        _text("status", 16),
    )
    op.create_index("ix_team_plans_month", "team_plans", ["month"])
    op.create_table(
        "team_budgets",
        sa.Column("month", sa.String(length=7), primary_key=True),
        sa.Column("amount_usd", sa.Float(), nullable=False),
        _text("note"),
        _text("set_by", 64),
        _text("set_at", 32),
    )


def downgrade() -> None:
    for index, table in (
        ("ix_team_plans_month", "team_plans"),
        ("ix_team_workload_versions_key", "team_workload_versions"),
        ("ix_team_workloads_name", "team_workloads"),
        ("ix_jobs_status", "jobs"),
        ("ix_audit_log_at", "audit_log"),
        ("ix_api_tokens_name", "api_tokens"),
        ("ix_api_tokens_prefix", "api_tokens"),
    ):
        op.drop_index(index, table_name=table)
    for table in (
        "team_budgets",
        "team_plans",
        "team_workload_versions",
        "team_workloads",
        "rate_windows",
        "plan_cache",
        "jobs",
        "audit_log",
        "api_tokens",
    ):
        op.drop_table(table)
