"""The typical host that stands in for an unnamed instance: the median vCPUs per GPU of the
catalog's priced instance types of a GPU, at the instance size a job runs on."""

from __future__ import annotations

import pytest

from gpuplan.perf import typical_host as th
from gpuplan.perf.input_pipeline import InputPipeline, typical_input_pipeline

# Per GPU, per GPUs per instance: vCPUs per GPU of each (provider, instance type).
TABLE = {
    "A100-SXM4-80GB": {
        1: {("a", "x1"): 8.0, ("b", "y1"): 12.0, ("c", "z1"): 30.0},
        8: {("a", "x8"): 12.0, ("b", "y8"): 12.0, ("c", "z8"): 30.0, ("d", "w8"): 16.0},
    },
    "T4": {4: {("a", "t4"): 0.25, ("b", "t4b"): 12.0}},
}


@pytest.fixture
def table(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(th, "_catalog_hosts", lambda: TABLE)


@pytest.mark.usefixtures("table")
def test_the_median_of_the_instance_types_of_the_jobs_size() -> None:
    one = th.typical_host("A100-SXM4-80GB", 1)
    # 1 GPU: the 1-GPU types 8, 12, 30 → median 12 (not the fewest, 8).
    assert one is not None and (one.vcpus_per_gpu, one.instance_types, one.gpus_per_instance) == (12.0, 3, 1)
    # 2 GPUs: the smallest size that holds them, 8: 12, 12, 16, 30 → (12 + 16) / 2 = 14.
    two = th.typical_host("A100-SXM4-80GB", 2)
    assert two is not None and (two.vcpus_per_gpu, two.gpus_per_instance) == (14.0, 8)
    # 64 GPUs span nodes: the largest size, 8.
    many = th.typical_host("A100-SXM4-80GB", 64)
    assert many is not None and many.gpus_per_instance == 8 and many.own_offers


@pytest.mark.usefixtures("table")
def test_a_gpu_without_offers_says_its_rate_is_unknown_and_takes_every_gpus_types() -> None:
    h = th.typical_host("B300", 1)
    # No B300 in the table: every GPU's 1-GPU types (8, 12, 30) → 12, said as not its own.
    assert h is not None and not h.own_offers and h.vcpus_per_gpu == 12.0 and h.instance_types == 3
    assert "unknown" in h.describe() and "B300" in h.describe()
    assert "any GPU" in h.source


def test_an_empty_catalog_gives_no_typical_host(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(th, "_catalog_hosts", lambda: {})
    assert th.typical_host("A100-SXM4-80GB", 1) is None


def test_the_shipped_catalog_has_a_typical_host_for_every_priced_gpu() -> None:
    hosts = th._catalog_hosts()
    assert "A100-SXM4-80GB" in hosts and "T4" in hosts
    for gpu, sizes in hosts.items():
        for types in sizes.values():
            assert types and all(v > 0 for v in types.values()), gpu
    h = th.typical_host("H100-SXM", 8)
    assert h is not None and h.own_offers and h.gpus_per_instance == 8 and h.vcpus_per_gpu > 1


@pytest.mark.usefixtures("table")
def test_only_a_dataloader_image_job_without_its_own_workers_gets_a_typical_pipeline() -> None:
    t = th.typical_host("A100-SXM4-80GB", 1)
    pipe = typical_input_pipeline(224, t)
    assert isinstance(pipe, InputPipeline) and pipe.slow_end_only and pipe.vcpus_per_gpu == 12.0
    assert typical_input_pipeline(None, t) is None  # text
    assert typical_input_pipeline(224, t, kind="dali") is None
    assert typical_input_pipeline(224, t, kind="synthetic") is None
    assert typical_input_pipeline(224, t, workers=4) is None  # the workload says its workers
    assert typical_input_pipeline(224, None) is None
