"""The host's part of an estimate, applied to shared GPU stages, is the whole estimate's, number for
number: ``host_finish(gpu_stages(r), p)`` and ``run_estimate(r with input_pipeline p)`` agree exactly."""

from __future__ import annotations

from dataclasses import replace

import pytest
from perf_helpers import SIMPLE_CAL

from gpuplan.hardware import get_gpu
from gpuplan.perf.estimate import (
    EstimateRequest,
    JobSize,
    finish_estimate,
    gpu_stages,
    host_figures,
    host_finish,
    run_estimate,
)
from gpuplan.perf.input_pipeline import DatasetReads, InputPipeline
from gpuplan.perf.links import Link
from stand_in_profiles import resnet50_profile

CAL = replace(SIMPLE_CAL, time_band=1.1)
READS = DatasetReads(dataset_gb=140.0, bytes_per_sample=109_000.0, ram_gib=64.0, gpus_per_node=8)
PIPELINES = [
    None,
    InputPipeline(vcpus_per_gpu=1.0),  # far too few: input-bound
    InputPipeline(vcpus_per_gpu=12.0),  # bound at the slow end of the CPU rate only, on some GPUs
    InputPipeline(vcpus_per_gpu=500.0),  # never bound
    InputPipeline(vcpus_per_gpu=4.0, source="workers"),
    InputPipeline(vcpus_per_gpu=1.0, source="workers", serial=True),  # added, not overlapped
    InputPipeline(reads=READS),  # the disk, not the CPUs
    InputPipeline(vcpus_per_gpu=12.0, reads=READS),
]


@pytest.mark.parametrize(("gpu_id", "count", "nodes"), [("H100-SXM", 8, 1), ("T4", 4, 4), ("A10G", 1, 1)])
def test_host_finish_equals_the_whole_estimate_on_every_host(gpu_id: str, count: int, nodes: int) -> None:
    gpu = get_gpu(gpu_id)
    link = Link.for_gpus(gpu, count * nodes, gpus_per_node=count)  # network unknown when nodes > 1
    base = EstimateRequest(
        profile=resnet50_profile("test", activations_bytes=2e9),
        gpu=gpu,
        count=count * nodes,
        link=link,
        calibration=CAL,
        job=JobSize(samples=1_281_167, epochs=90),
    )
    stages = gpu_stages(base)  # computed once, for a request with no host at all
    seen_bound = set()
    for pipe in PIPELINES:
        whole = run_estimate(base.changed(input_pipeline=pipe))
        part = host_finish(stages, pipe)
        assert (part.job_time_h, part.job_time_h_low, part.job_time_h_high) == (
            whole.job_time_h,
            whole.job_time_h_low,
            whole.job_time_h_high,
        )
        assert (part.spread.step_s, part.spread.low_s, part.spread.high_s) == (
            whole.step_time_s,
            whole.step_time_s_low,
            whole.step_time_s_high,
        )
        assert part.spread.input_bound == whole.input_bound
        assert part.spread.input_samples_per_s == whole.input_samples_per_s
        assert part.notes == whole.notes
        # The figures alone (what the planner reads of every host) are the same numbers.
        assert host_figures(stages, pipe) == (
            part.spread.step_s,
            part.spread.input_bound,
            part.job_time_h,
            part.job_time_h_low,
            part.job_time_h_high,
        )
        seen_bound.add(whole.input_bound)
    assert seen_bound == {True, False}  # the hosts above cover both sides of the bound


@pytest.mark.parametrize(("gpu_id", "count"), [("H100-SXM", 16), ("T4", 8)])
def test_stages_like_another_network_equal_their_own(gpu_id: str, count: int) -> None:
    """``gpu_stages(r, like=…)`` over another network or spread reuses what one GPU runs, and the
    estimate it finishes is the one computed from scratch, notes included."""
    gpu = get_gpu(gpu_id)
    first = EstimateRequest(
        profile=resnet50_profile("test", activations_bytes=2e9),
        gpu=gpu,
        count=count,
        link=Link.for_gpus(gpu, count, gpus_per_node=count // 2),  # two nodes, network unknown
        calibration=CAL,
        job=JobSize(samples=1_281_167, epochs=90),
    )
    like = gpu_stages(first)
    for per_node, gbit_s in [(count // 2, 100.0), (count // 4, 3200.0), (count // 2, None)]:
        link = Link.for_gpus(gpu, count, gpus_per_node=per_node)
        if gbit_s is not None:
            link = replace(link, network_gbit_s=gbit_s, network_source="catalog")
        request = first.changed(link=link)
        shared, own = gpu_stages(request, like), gpu_stages(request)
        assert shared.layout == own.layout
        assert repr(finish_estimate(shared, request)) == repr(run_estimate(request))
