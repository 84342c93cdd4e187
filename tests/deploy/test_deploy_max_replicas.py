"""A serving block's ``max_replicas`` below the replicas the service would start holds the start
to it, and the README says so: what it holds (the load and not the spot spare, or not the load)
and what to set. The spare's sentence had counted the load from the held start (``max_replicas: 4``
of a plan's 4 replicas and a spare: "beside the 3 that carry the load", "a reclaim leaves the load
carried"), and a start held below the load was said nowhere."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from deploy_helpers import by_path, serve_workload, spot_service_plan

from gpuplan.deploy import LaunchSpec, generate
from gpuplan.i18n import use_language


def _readme(spec: LaunchSpec, target: str = "k8s") -> str:
    return " ".join(by_path(generate(spec, target))["README.md"].split())


def _held(most: int) -> dict[str, Any]:
    """The spot plan of 4 replicas for the load and 1 spare, its serving block's max_replicas ``most``."""
    doc = spot_service_plan(on_demand=0.9)
    doc["workload"]["serving"] = {**doc["workload"]["serving"], "max_replicas": most}
    return doc


def test_a_max_that_holds_the_load_but_not_the_spare_says_so() -> None:
    spec = LaunchSpec.from_plan(_held(4))
    assert spec.serving is not None and spec.serving.min_replicas == 4
    readme = _readme(spec)
    assert "beside the 3 that carry the load" not in readme
    assert "a reclaim leaves the load carried" not in readme
    assert (
        "The plan priced a spare instance against spot reclaims (spare replicas: 1, beside the 4 that "
        "carry the load), but the serving block's max_replicas, 4, holds the load and not the spare: "
        "the service starts 4, so a reclaim leaves the load short while its replacement starts. Set "
        "serving.max_replicas to at least 5 to run the spare the plan priced."
    ) in readme
    assert "max_replicas, 4, holds the load and not the spare" in _readme(spec, "skypilot")
    with use_language("zh"):
        assert "max_replicas 为 4，只容得下负载、容不下备用副本" in _readme(spec)


def test_a_max_below_the_load_says_requests_queue() -> None:
    readme = _readme(LaunchSpec.from_plan(_held(3)))
    assert "beside the 2 that carry the load" not in readme
    assert (
        "The serving block's max_replicas, 3, is below the 4 replicas the plan priced for the load, and "
        "leaves out the 1 spare it priced against spot reclaims: the service starts and scales to at "
        "most 3, so requests queue at the planned load. Set serving.max_replicas to at least 5."
    ) in readme


def test_a_max_that_holds_the_start_says_nothing_of_it() -> None:
    readme = _readme(LaunchSpec.from_plan(_held(5)))
    assert "beside the 4 that carry the load): the service starts all 5" in readme
    assert "is below the" not in readme and "holds the load" not in readme


def test_a_max_below_the_gpus_given_says_so(tmp_path: Path) -> None:
    workload = serve_workload(tmp_path, "max_replicas: 2")
    readme = _readme(LaunchSpec.from_workload(workload, gpu="L4", count=3))
    assert (
        "The serving block's max_replicas, 2, is below the 3 replicas of the GPUs given (--count): the "
        "service starts and scales to at most 2. Set serving.max_replicas to at least 3, or give fewer GPUs."
    ) in readme
