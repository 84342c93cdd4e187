"""One replica has one start-up in plan, deploy and ``simulate autoscale`` (``gpuplan.start_up``)."""

from __future__ import annotations

import pytest

from gpuplan.deploy.engine import cold_start, cold_start_s
from gpuplan.plan.input_types import JobFacts
from gpuplan.plan.service_day import start_up
from gpuplan.simulate.replica import cold_start as simulated_cold_start

WEIGHTS_GB = 16.06  # llama-8b in bfloat16, examples/llm-inference-service.yaml


def test_plan_deploy_and_simulate_count_the_same_start_up_for_one_replica() -> None:
    # 10 min boot and image pull + 60 s engine start + 16.06 GB at EBS gp3's 0.131 GB/s
    expected = 600 + 60 + WEIGHTS_GB / 0.131
    plan_h, plan_words = start_up(JobFacts(weights_gb=WEIGHTS_GB), 1, 1)  # type: ignore[call-arg]
    sim_s, sim_words = simulated_cold_start(WEIGHTS_GB * 1e9, None)
    assert plan_h * 3600 == pytest.approx(expected)
    assert sim_s == pytest.approx(expected)
    # deploy's probes count from the container's start: the same start-up less the boot, said
    assert cold_start_s(WEIGHTS_GB, 1) == pytest.approx(expected - 600)
    assert cold_start(WEIGHTS_GB).with_boot().seconds(1) == pytest.approx(expected)
    assert "not counted" in cold_start(WEIGHTS_GB).parts_words(1)
    assert plan_words in sim_words  # the same parts, in the same words


def test_a_given_copy_rate_reads_the_weights_in_all_three() -> None:
    # data.copy_gbps: 1 GB/s, the user's measured rate, in place of the assumed 0.131
    expected = 600 + 60 + 16.0 / 1.0
    job = JobFacts(weights_gb=16.0, dataset_copy_gbps=1.0, copy_gbps_stated=True)  # type: ignore[call-arg]
    plan_h, words = start_up(job, 8, 4)  # two replicas on an 8-GPU instance read through one disk
    assert plan_h * 3600 == pytest.approx(600 + 60 + 2 * 16.0) and "data.copy_gbps" in words
    assert simulated_cold_start(16e9, None, 1.0)[0] == pytest.approx(expected)
    assert cold_start(16.0, 1.0).with_boot().seconds(1) == pytest.approx(expected)
    # --storage-gbps, where given, is the simulation's own
    assert simulated_cold_start(16e9, 2e9, 1.0)[0] == pytest.approx(600 + 60 + 8.0)


def test_a_replica_of_unknown_size_starts_at_the_bound_not_a_short_guess() -> None:
    # simulate --replica: the weights are not known; the bound deploy gives a replica, after the boot
    seconds, words = simulated_cold_start(None, None)
    assert seconds == pytest.approx(600 + 30 * 60) and "not known" in words
    plan_h, _ = start_up(JobFacts(weights_gb=0.0), 8, 4)  # type: ignore[call-arg]
    assert plan_h * 3600 == pytest.approx(seconds)
