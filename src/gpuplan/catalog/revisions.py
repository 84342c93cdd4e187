"""Schema revisions this code knows (stdlib only, so the read path can check them without SQLAlchemy)."""

from __future__ import annotations

__all__ = ["HEAD_REVISION", "KNOWN_REVISIONS"]

#: The newest migration this code knows; a test keeps it equal to Alembic's head.
HEAD_REVISION = "0014_year_budgets"
#: Every revision this code can upgrade from; a database at another revision is from a newer gpuplan.
KNOWN_REVISIONS = (
    "0001_initial",
    "0002_refresh_discounts",
    "0003_serve",
    "0004_step_measurements",
    "0005_measurement_key",
    "0006_budget_currency",
    "0007_refresh_words",
    "0008_plan_runs",
    "0009_teams",
    "0010_workload_teams",
    "0011_discount_pricing",
    "0012_declared_providers",
    "0013_import_undo",
    "0014_year_budgets",
)
