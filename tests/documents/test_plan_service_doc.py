"""A plan option's service figures (replicas, capacity, p95 latency at the load) in the document:
optional, so a file written before them still reads, and checked when read."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from gpuplan.documents import PlanOption

OPTION: dict[str, Any] = dict(
    provider="aws",
    region="us-east-1",
    instance_type="g6e.xlarge",
    gpu="L40S",
    gpu_count=2,
    gpus_per_node=1,
    nodes=2,
    pricing="on_demand",
)
SERVICE: dict[str, Any] = dict(
    requests_per_s=5.0,
    replicas=2,
    replica_gpus=1,
    replica_capacity_requests_per_s=4.0,
    capacity_requests_per_s=8.0,
    utilisation=0.625,
    p95_latency_s=11.1,
)


def test_a_file_without_service_figures_reads_as_none() -> None:
    assert PlanOption.read(OPTION).service is None


def test_service_figures_read_back_and_an_unknown_latency_is_null_with_its_reason() -> None:
    o = PlanOption.read({**OPTION, "service": SERVICE})
    assert o.service is not None
    assert (o.service.replicas, o.service.capacity_requests_per_s, o.service.p95_latency_s) == (2, 8.0, 11.1)
    unknown = {**SERVICE, "p95_latency_s": None, "p95_unknown": "overloaded"}
    o = PlanOption.read({**OPTION, "service": unknown})
    assert o.service is not None and o.service.p95_latency_s is None and o.service.p95_unknown == "overloaded"


@pytest.mark.parametrize("field, value", [("replicas", 0), ("capacity_requests_per_s", -1.0)])
def test_impossible_service_figures_are_refused(field: str, value: object) -> None:
    with pytest.raises(ValidationError, match=field):
        PlanOption.read({**OPTION, "service": {**SERVICE, field: value}})
