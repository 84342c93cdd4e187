"""GCP's N1 hosts of attachable GPUs, replayed from the shipped catalog: every host size GCP allows
stays an offer of its own, priced and timed with its own vCPUs; a one-vCPU host of four T4s is
bounded by that vCPU (known, not unknown) and does not rank first for an image job."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuplan.api import plan
from gpuplan.catalog import open_store
from gpuplan.workload import Workload
from stand_in_profiles import resnet50_profile

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_a_one_vcpu_host_of_four_t4s_is_bounded_by_its_vcpu_and_does_not_rank_first(
    fresh_catalog: Path,
) -> None:
    workload = Workload.from_yaml(EXAMPLES / "resnet50-imagenet.yaml")
    store = open_store(str(fresh_catalog))
    try:
        answer = plan(
            workload,
            store=store,
            profile=resnet50_profile("gcp", activations_bytes=2e9),
            providers=["gcp"],
            regions=["us-central1"],
            pricing=["on_demand"],
            max_gpus=4,
            deadline_h=2000,
            budget_usd=1e6,
            top=5000,
        )
    finally:
        store.close()
    by_type = {o.instance_type: o for o in answer.options}
    tiny = by_type["n1-standard-1 + 4x nvidia-tesla-t4"]
    # 1 vCPU × 100 images/s feeds 90 epochs of ImageNet in 1,281,167 × 90 / 100 s = 320 h.
    assert tiny.input_bound and tiny.job_time_h > 300
    assert not any(f.fact == "vcpus" for f in tiny.unknown_facts)
    first = answer.recommended
    assert first.instance_type != tiny.instance_type and first.total_cost_usd < tiny.total_cost_usd
    # The big hosts of the same four T4s are offers too, each at its own vCPUs (the stand-in
    # profile's GPUs outrun 64 vCPUs too: 1 / 64 of the time, not 1 / 64 of a missing fact).
    roomy = by_type["n1-standard-64 + 4x nvidia-tesla-t4"]
    # The work, not the set-up both pay alike (150 GB copied at the disk's assumed 0.131 GB/s: 19 min).
    assert roomy.compute_time_h == pytest.approx(tiny.compute_time_h / 64, rel=0.05)
