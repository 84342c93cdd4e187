"""The deploy tests' fixtures; their helpers are in ``deploy_helpers.py``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from deploy_helpers import FIXTURES
from torchrun_helpers import reap

from gpuplan.deploy import LaunchSpec


@pytest.fixture(autouse=True)
def _reap_torchrun_runs() -> Iterator[None]:
    """After each test, end the torchrun runs it left (see torchrun_helpers.reap)."""
    yield
    reap()


@pytest.fixture
def spot_plan() -> LaunchSpec:
    return LaunchSpec.from_plan_json(FIXTURES / "plan_spot_aws.json")


@pytest.fixture
def multinode_plan() -> LaunchSpec:
    return LaunchSpec.from_plan_json(FIXTURES / "plan_multinode_gcp.json")
