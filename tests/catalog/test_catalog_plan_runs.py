"""Catalog revision 0008: a saved plan keeps how many times it runs in its month, and the month
counts one planned plan per workload; a database of revision 0007 upgrades with its budget and
plans, a plan saved twice then counted once."""

from __future__ import annotations

from pathlib import Path

from old_catalog import upgrade_to
from sqlalchemy import create_engine, text

from gpuplan.catalog import open_store
from gpuplan.catalog.team_store import TeamStore
from gpuplan.commit.recurring import plan_month

_PLAN = (
    "INSERT INTO team_plans (id, workload_id, workload_version, month, constraints, document, "
    "total_cost_usd, prices_as_of, catalog_import_id, created_by, created_at, status) VALUES "
    "(:id, :wid, 1, :month, '{}', '{\"recommended\": null}', :cost, NULL, NULL, 'plan-user', "
    "'2026-12-01T00:00:00+00:00', :status)"
)


def _catalog_at_0007(url: str) -> None:
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            upgrade_to(conn, "0007_refresh_words")
            conn.execute(
                text(
                    "INSERT INTO team_budgets (month, amount_usd, note, set_by, set_at) "
                    "VALUES ('2027-01', 4100.0, 'three teams', 'admin', '2026-12-01T00:00:00+00:00')"
                )
            )
            for wid, name in ((1, "embed"), (2, "tagger")):
                conn.execute(
                    text(
                        "INSERT INTO team_workloads (id, name, created_by, created_at) "
                        "VALUES (:id, :name, 'plan-user', '2026-12-01T00:00:00+00:00')"
                    ),
                    {"id": wid, "name": name},
                )
            for row in (
                (1, 1, "2027-01", 4.02, "planned"),  # the embed plan, saved twice: counted twice
                (2, 2, "2027-01", 8.32, "planned"),
                (3, 1, "2027-01", 4.02, "planned"),
                (4, 1, "2027-02", 4.02, "planned"),  # another month's
                (5, 2, "2027-01", 9.99, "cancelled"),
            ):
                conn.execute(
                    text(_PLAN),
                    dict(zip(("id", "wid", "month", "cost", "status"), row, strict=True)),
                )
    finally:
        engine.dispose()


def test_a_catalog_of_revision_0007_upgrades_with_its_budget_and_counts_a_resaved_plan_once(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.sqlite"
    _catalog_at_0007(f"sqlite:///{path}")
    store = open_store(str(path), seed=False)  # upgrades to head
    try:
        team = TeamStore(store.engine)
        budget = team.budget("2027-01")
        assert budget is not None and (budget.amount_usd, budget.note) == (4100.0, "three teams")
        plans = {p.id: p for p in team.plans()}
        assert {i: p.status for i, p in plans.items()} == {
            1: "replaced",
            2: "planned",
            3: "planned",
            4: "planned",
            5: "cancelled",
        }
        assert {p.runs_per_month for p in plans.values()} == {1}
        counted = [
            plan_month(p.recommended, p.total_cost_usd, p.runs_per_month).total_usd
            for p in team.plans("2027-01")
            if p.status == "planned"
        ]
        assert sorted(counted) == [4.02, 8.32]  # 12.34, where 16.36 had been counted
    finally:
        store.close()
