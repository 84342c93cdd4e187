"""Catalog revision 0009: a token may belong to a team, a plan is its saver's team's, and a month's
budget is the whole service's or a team's; a database of revision 0008 upgrades with its budget
kept as the whole service's."""

from __future__ import annotations

from pathlib import Path

import pytest
from old_catalog import upgrade_to
from sqlalchemy import create_engine, text

from gpuplan.catalog import open_store
from gpuplan.catalog.team_store import TeamStore


def _catalog_at_0008(url: str) -> None:
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            upgrade_to(conn, "0008_plan_runs")
            conn.execute(
                text(
                    "INSERT INTO team_budgets (month, amount_usd, note, set_by, set_at, amount_cny, "
                    "cny_usd_per_unit, cny_rate_as_of, cny_rate_source, cny_rate_age_days) VALUES "
                    "('2027-01', 4200.0, 'three teams', 'admin', '2026-12-01T00:00:00+00:00', 30000.0, "
                    "0.14, '2026-11-30', 'ECB', 1)"
                )
            )
    finally:
        engine.dispose()


def test_a_catalog_of_revision_0008_keeps_its_budget_as_the_services_and_takes_team_budgets(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.sqlite"
    _catalog_at_0008(f"sqlite:///{path}")
    store = open_store(str(path), seed=False)  # upgrades to head
    try:
        team = TeamStore(store.engine)
        kept = team.budget("2027-01")
        assert kept is not None and kept.team is None
        assert (kept.amount_usd, kept.amount_cny, kept.note) == (4200.0, 30000.0, "three teams")
        assert kept.cny_rate is not None and kept.cny_rate.as_of == "2026-11-30"
        _token, info = team.create_token("alice", "plan", team="nlp")
        assert info.team == "nlp" and team.teams() == ["nlp"]
        # the same month, for the team: a budget of its own beside the service's
        team.set_budget("2027-01", 1000.0, actor="admin", team="nlp")
        assert team.budget("2027-01", "nlp").amount_usd == 1000.0  # type: ignore[union-attr]
        assert team.budget("2027-01").amount_usd == 4200.0  # type: ignore[union-attr]
        assert [b.team for b in team.budgets("2027-01")] == ["nlp"]
    finally:
        store.close()


def _catalog_at_0009(url: str) -> None:
    """A 0009 catalog with a workload of two versions and inference's plan of it."""
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            upgrade_to(conn, "0009_teams")
            at = "2026-12-01T00:00:00+00:00"
            conn.execute(
                text(
                    "INSERT INTO team_workloads (id, name, created_by, created_at) "
                    f"VALUES (1, 'llama8b-chat', 'infer', '{at}')"
                )
            )
            for version, saver in ((1, "infer"), (2, "train")):
                conn.execute(
                    text(
                        "INSERT INTO team_workload_versions (workload_id, version, spec, saved_by, saved_at) "
                        f"VALUES (1, {version}, '{{\"workload\": {{}}}}', '{saver}', '{at}')"
                    )
                )
            conn.execute(
                text(
                    "INSERT INTO team_plans (id, workload_id, workload_version, month, constraints, "
                    "document, total_cost_usd, prices_as_of, catalog_import_id, created_by, created_at, "
                    "status, runs_per_month, team) VALUES (5, 1, 1, '2027-01', '{}', '{}', 1973.18, NULL, "
                    f"NULL, 'infer', '{at}', 'planned', 1, 'inference')"
                )
            )
    finally:
        engine.dispose()


def test_a_catalog_of_revision_0009_keeps_its_workloads_as_of_no_team_and_its_plans_teams(
    tmp_path: Path,
) -> None:
    from gpuplan.errors import ForbiddenError

    path = tmp_path / "old.sqlite"
    _catalog_at_0009(f"sqlite:///{path}")
    store = open_store(str(path), seed=False)  # upgrades to head
    try:
        team = TeamStore(store.engine)
        kept = team.workload_versions("llama8b-chat")
        assert [(w.version, w.saved_by, w.team) for w in kept] == [(2, "train", None), (1, "infer", None)]
        plan = team.plan(5, with_document=False)
        assert (plan.team, plan.status, plan.total_cost_usd) == ("inference", "planned", 1973.18)
        # a workload saved before it had a team is anyone's, as it was: it stays of no team
        again = team.save_workload(
            "llama8b-chat", {"workload": {"name": "v3"}}, actor="train", team="training"
        )
        assert (again.version, again.team) == (3, None)
        # a new one is its saver's team's, and no other team's to save or plan
        own = team.save_workload("llama8b-train", {"workload": {}}, actor="train", team="training")
        assert own.team == "training"
        with pytest.raises(ForbiddenError, match="'training'"):
            team.save_workload("llama8b-train", {"workload": {}}, actor="infer", team="inference")
        with pytest.raises(ForbiddenError, match="'training'"):
            team.save_plan(
                own,
                month="2027-01",
                constraints={},
                document={},
                catalog_import_id=None,
                actor="infer",
                team="inference",
            )
        # the plan kept before is its team's to cancel
        with pytest.raises(ForbiddenError, match="'inference'"):
            team.set_plan_status(5, "cancelled", actor="train", team="training")
        assert team.plan(5, with_document=False).status == "planned"
        done = team.set_plan_status(5, "cancelled", actor="infer", team="inference")
        assert done.status == "cancelled"
    finally:
        store.close()
