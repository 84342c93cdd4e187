"""The CPU input pipeline of image workloads: its rate, and the bound it puts on the step time."""

from __future__ import annotations

from dataclasses import replace

import pytest
from perf_helpers import SIMPLE_CAL, make_profile, op

from gpuplan.errors import EstimateError
from gpuplan.hardware import get_gpu
from gpuplan.perf.estimate import EstimateRequest, JobSize, run_estimate
from gpuplan.perf.input_pipeline import (
    ALONE_ON_CORE,
    IMAGES_PER_S_PER_VCPU,
    IMAGES_PER_S_PER_VCPU_HIGH,
    IMAGES_PER_S_PER_VCPU_LOW,
    InputPipeline,
    image_input_pipeline,
)

H100 = get_gpu("H100-SXM")
CAL = replace(SIMPLE_CAL, time_band=1.1)
# 256 images per GPU; 0.3 + 0.6 TFLOP of bf16 convolutions: on an H100 (989 TFLOPS dense bf16 at
# 0.5 efficiency) ≈ 0.9e12 / 4.9e14 ≈ 1.8 ms — far faster than any CPU feeds 256 images.
IMAGE_PROFILE = make_profile(
    batch_size=256,
    params=25_000_000,
    ops=(op("forward", "conv", flops=0.3e12), op("backward", "conv", flops=0.6e12)),
)


def test_rate_per_vcpu_is_a_labelled_range_around_the_point() -> None:
    assert IMAGES_PER_S_PER_VCPU_LOW < IMAGES_PER_S_PER_VCPU < IMAGES_PER_S_PER_VCPU_HIGH
    # 12 vCPUs per GPU × 8 GPUs = 96 vCPUs: 96 × 100 = 9,600 images/s (96 × 50 … 96 × 250).
    assert InputPipeline(vcpus_per_gpu=12).samples_per_s(8) == (9600.0, 4800.0, 24000.0)


def test_only_image_workloads_on_instances_with_known_vcpus_get_a_pipeline() -> None:
    assert image_input_pipeline(None, 96, 8) is None  # text: pre-tokenised, not decoded per step
    assert image_input_pipeline(224, None, 8) is None  # vCPUs unknown: nothing bounded, not zero
    pipe = image_input_pipeline(224, 96, 8)
    assert pipe is not None and pipe.vcpus_per_gpu == 12  # 96 vCPUs ÷ 8 GPUs
    with pytest.raises(EstimateError):
        InputPipeline(vcpus_per_gpu=0)


def test_too_few_vcpus_bound_the_step_and_flag_it() -> None:
    base = EstimateRequest(
        profile=IMAGE_PROFILE, gpu=H100, count=8, calibration=CAL, job=JobSize(samples=1e6)
    )
    free = run_estimate(base)
    fed = run_estimate(base.changed(input_pipeline=InputPipeline(vcpus_per_gpu=12)))
    # 256 × 8 = 2,048 images per step ÷ 9,600 images/s = 0.2133 s, far above the GPUs' time.
    assert free.step_time_s < 0.05
    assert fed.input_bound and not free.input_bound
    assert fed.step_time_s == pytest.approx(2048 / 9600)
    assert fed.samples_per_s == pytest.approx(9600)
    assert fed.input_samples_per_s == pytest.approx(9600)
    # The range follows the CPU rate's range: 2048 ÷ 24,000 … 2048 ÷ 4,800 s.
    assert fed.step_time_s_low == pytest.approx(2048 / 24000)
    assert fed.step_time_s_high == pytest.approx(2048 / 4800)
    # 1e6 images ÷ 9,600 images/s = 104.2 s of job.
    assert fed.job_time_h == pytest.approx(1e6 / 9600 / 3600)
    assert any(n.startswith("input-bound") for n in fed.notes)


def test_enough_vcpus_leave_the_gpu_estimate_alone() -> None:
    base = EstimateRequest(profile=IMAGE_PROFILE, gpu=H100, calibration=CAL)
    free = run_estimate(base)
    # 1e6 vCPUs per GPU: 1e8 images/s, 256 images in 2.6 µs ≪ the GPU's ~2 ms.
    fed = run_estimate(base.changed(input_pipeline=InputPipeline(vcpus_per_gpu=1e6)))
    assert not fed.input_bound
    assert fed.step_time_s == free.step_time_s
    assert fed.step_time_s_high == free.step_time_s_high
    assert fed.input_samples_per_s == pytest.approx(1e8)
    assert free.input_samples_per_s is None


def test_only_a_cpu_decoding_pipeline_is_bounded_and_its_workers_cap_it() -> None:
    # DALI decodes on the GPU and synthetic data decodes nothing: the CPUs bound neither.
    assert image_input_pipeline(224, 96, 8, kind="dali") is None
    assert image_input_pipeline(224, 96, 8, kind="synthetic") is None
    # 4 DataLoader workers per GPU on a host of 12 vCPUs (6 cores) per GPU: the 4 workers decode.
    pipe = image_input_pipeline(224, 96, 8, workers=4)
    assert pipe is not None and (pipe.vcpus_per_gpu, pipe.source, pipe.cores_per_gpu) == (4.0, "workers", 6.0)
    # More workers than vCPUs: the vCPUs bound it. Workers given, vCPUs unknown: the workers do.
    capped = image_input_pipeline(224, 96, 8, workers=32)
    assert capped is not None and (capped.vcpus_per_gpu, capped.source) == (12.0, "catalog")
    alone = image_input_pipeline(224, None, 8, workers=6)
    assert alone is not None and alone.vcpus_per_gpu == 6.0


def test_decoding_in_the_training_process_adds_to_the_step_instead_of_overlapping() -> None:
    base = EstimateRequest(profile=IMAGE_PROFILE, gpu=H100, count=1, calibration=CAL)
    free = run_estimate(base)
    serial = image_input_pipeline(224, None, 1, workers=0)
    assert serial is not None and serial.serial
    slow = run_estimate(base.changed(input_pipeline=serial))
    # 256 images ÷ 100 images/s of the one process = 2.56 s, added to the GPU's own time.
    assert slow.step_time_s == pytest.approx(free.step_time_s + 256 / IMAGES_PER_S_PER_VCPU)
    assert slow.input_bound
    assert any("not overlapped" in n for n in slow.notes)


def test_a_typical_host_bounds_the_slow_end_only() -> None:
    from gpuplan.perf.typical_host import TypicalHost

    t = TypicalHost(vcpus_per_gpu=12, instance_types=5, gpu="H100-SXM", gpus_per_instance=8, own_offers=True)
    job = JobSize(samples=1e6)
    base = EstimateRequest(profile=IMAGE_PROFILE, gpu=H100, count=8, calibration=CAL, job=job)
    free = run_estimate(base)
    typ = run_estimate(
        base.changed(input_pipeline=InputPipeline(vcpus_per_gpu=12, source="typical", typical=t))
    )
    # The point and the fast end stay the GPUs' own; the slow end: 2,048 images ÷ (96 vCPUs × 50) = 0.427 s.
    assert typ.step_time_s == free.step_time_s and typ.step_time_s_low == free.step_time_s_low
    assert typ.step_time_s_high == pytest.approx(2048 / 4800)
    assert not typ.input_bound and typ.input_samples_per_s is None
    assert typ.job_time_h_high == pytest.approx(1e6 / 4800 / 3600)
    h = typ.host_input
    assert h is not None and h.source == "typical" and h.bounded and h.instance_types == 5
    assert h.slow_end_factor == pytest.approx((2048 / 4800) / free.step_time_s_high)
    assert any("12 vCPUs per GPU, the median of 5 instance types with 8 × H100-SXM" in n for n in typ.notes)


def test_a_worker_with_a_core_to_itself_decodes_faster_than_a_busy_hyperthread() -> None:
    # A single-threaded worker alone on a core: 2 / 1.25 = 1.6 × a busy hyperthread's 100 images/s.
    assert pytest.approx(1.6) == ALONE_ON_CORE
    # One GPU of an 8-GPU DGX A100 (256 vCPUs, 128 cores) with 16 workers: the other GPUs idle, so
    # each worker has a core: 16 × 160 = 2,560 images/s (NVIDIA published 2,470 for ResNet-50 AMP).
    one = image_input_pipeline(224, 256, 1, workers=16)
    assert one is not None and one.samples_per_s(1)[0] == pytest.approx(2560)
    # All 8 GPUs: 128 workers on 128 cores, still one each: 8 × 2,560 = 20,480.
    eight = image_input_pipeline(224, 256, 8, workers=16)
    assert eight is not None and eight.samples_per_s(8)[0] == pytest.approx(20480)


def test_workers_of_all_the_nodes_gpus_share_its_cores_two_to_a_core_once_one_each_runs_out() -> None:
    # DGX-1: 80 vCPUs (2 × 20-core Xeon E5-2698 v4), 8 workers per GPU. One GPU: 8 workers on 40
    # cores, one each: 8 × 160 = 1,280 images/s. Eight GPUs: 64 workers on 40 cores, 24 cores run
    # two (24 × 200) and 16 run one (16 × 160): 7,360 images/s, 920 per GPU (NVIDIA published 8,322
    # for ResNet-50 AMP on 8 V100s, 1,200 on one).
    one = image_input_pipeline(224, 80, 1, workers=8)
    eight = image_input_pipeline(224, 80, 8, workers=8)
    assert one is not None and one.samples_per_s(1)[0] == pytest.approx(1280)
    assert eight is not None and eight.samples_per_s(8)[0] == pytest.approx(7360)
    # The range scales the vCPU rate: 7,360 × 50/100 … × 250/100.
    assert eight.samples_per_s(8)[1:] == pytest.approx((3680, 18400))
    # Workers filling every vCPU decode at a vCPU's rate each, as an instance's vCPUs do.
    full = InputPipeline(vcpus_per_gpu=10.0, source="workers", cores_per_gpu=5.0)
    assert full.samples_per_s(8)[0] == pytest.approx(8000)
    assert "physical cores" in eight.describe(8)


def test_the_decode_and_the_disk_are_joined_in_the_users_language() -> None:
    # Both parts of a host that decodes and re-reads its dataset were joined by an ASCII "; " in
    # Chinese too, one clause's full-width punctuation beside the other's English separator.
    from gpuplan.i18n import use_language
    from gpuplan.perf.input_pipeline import DatasetReads

    reads = DatasetReads(dataset_gb=140.0, bytes_per_sample=109_000.0, ram_gib=64.0, gpus_per_node=8.0)
    pipe = InputPipeline(vcpus_per_gpu=12.0, reads=reads)
    english = pipe.describe(8)
    assert english.count("; ") >= 1 and "re-read from disk every epoch" in english
    with use_language("zh"):
        chinese = pipe.describe(8)
    decode, disk = chinese.split("；", 1)[0], chinese.rsplit("；", 1)[-1]
    assert "; " not in chinese, chinese
    assert decode != disk and "12 " in decode and "140 GB" in disk, chinese
