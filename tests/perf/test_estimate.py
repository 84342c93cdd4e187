"""Step time, throughput, job time and ranges of a whole estimate."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from perf_helpers import SIMPLE_CAL, make_profile, op

from gpuplan.hardware import get_gpu
from gpuplan.perf.estimate import SOFTWARE_FASTER, SOFTWARE_SLOWER, JobSize, estimate
from gpuplan.profile.model import Profile
from gpuplan.vocab import MemoryVerdict

A100 = get_gpu("A100-SXM4-80GB")
CAL = replace(SIMPLE_CAL, time_band=1.1)


def test_step_time_is_the_sum_of_per_op_rooflines(simple_train_profile: Profile) -> None:
    e = estimate(simple_train_profile, A100, calibration=CAL)
    # matmuls: 3e12 / (312e12 × 0.7) = 13.74 ms; elementwise: (4 + 6 + 16) e9 / (2039e9 × 0.9) = 14.17 ms
    expected = 3e12 / (312e12 * 0.7) + 26e9 / (2039e9 * 0.9)
    assert e.step_time_s == pytest.approx(expected)
    assert e.step_time_s == pytest.approx(27.9e-3, rel=1e-2)
    assert e.throughput_unit == "samples_per_s"
    assert e.throughput == pytest.approx(8 / expected)


def test_ranges_bracket_the_point_by_band_and_software_spread(simple_train_profile: Profile) -> None:
    e = estimate(simple_train_profile, A100, calibration=CAL)
    # quadrature on a log scale: exp(√(ln² 1.1 + ln² 1.344)) = 1.364 slower; with 1.272: 1.295 faster
    slower = math.exp(math.hypot(math.log(1.1), math.log(SOFTWARE_SLOWER)))
    faster = math.exp(math.hypot(math.log(1.1), math.log(SOFTWARE_FASTER)))
    assert slower == pytest.approx(1.364, abs=1e-3) and faster == pytest.approx(1.295, abs=1e-3)
    assert e.step_time_s_low == pytest.approx(e.step_time_s / faster)
    assert e.step_time_s_high == pytest.approx(e.step_time_s * slower)
    assert e.throughput_low < e.throughput < e.throughput_high
    assert e.peak_memory_gib_low < e.peak_memory_gib < e.peak_memory_gib_high


def test_sequence_models_report_tokens_and_job_time() -> None:
    p = make_profile(ops=(op("forward", flops=1e12), op("backward", flops=2e12)), seq_len=1024)
    e = estimate(p, A100, calibration=CAL, job=JobSize(samples=8_000, epochs=2))
    step = 3e12 / (312e12 * 0.7)
    assert e.throughput_unit == "tokens_per_s"
    assert e.throughput == pytest.approx(8 * 1024 / step)
    # 8000 samples × 2 epochs / 8 per step = 2000 steps × 13.74 ms = 27.5 s
    assert e.job_time_h == pytest.approx(2000 * step / 3600)
    assert e.job_time_h_low is not None and e.job_time_h_high is not None
    assert e.job_time_h_low < e.job_time_h < e.job_time_h_high


def test_a_job_smaller_than_the_gpus_is_no_faster_on_more_of_them() -> None:
    # each data-parallel rank reads its share of an epoch, padded: 1 sample is one rank's work
    # whatever the GPU count (it was 1/64 of one GPU's time on 64 GPUs)
    p = make_profile(ops=(op("forward", flops=1e12), op("backward", flops=2e12)), seq_len=1024)
    job = JobSize(samples=1, epochs=1)
    one = estimate(p, A100, calibration=CAL, job=job)
    eight = estimate(p, A100, calibration=CAL, job=job, count=8)
    assert one.job_time_h is not None and eight.job_time_h is not None
    assert eight.job_time_h >= one.job_time_h * 0.99  # no faster (its collectives can make it slower)
    # a large job is split as before: 8,000 samples on 8 GPUs, 1,000 each
    big = estimate(p, A100, calibration=CAL, job=JobSize(samples=8_000, epochs=1), count=8)
    assert big.job_time_h == pytest.approx(8_000 / big.samples_per_step * big.step_time_s / 3600)


def test_gradient_accumulation_amortises_the_optimizer(simple_train_profile: Profile) -> None:
    one = estimate(simple_train_profile, A100, calibration=CAL)
    acc = estimate(simple_train_profile, A100, calibration=CAL, grad_accum_steps=4)
    micro = one.phases.forward_s + one.phases.backward_s
    assert acc.step_time_s == pytest.approx(4 * micro + one.phases.optimizer_s)
    assert acc.samples_per_step == 32
    assert acc.throughput > one.throughput  # the optimizer runs once per 4 micro-batches


def test_the_memory_verdict_reads_the_whole_band_against_capacity(simple_train_profile: Profile) -> None:
    # 16e9 B of model state + 4 GiB activations = 18.9 GiB traced → ≈21.2 GiB shown
    e = estimate(simple_train_profile, A100, calibration=CAL)
    assert e.fits and e.memory_verdict is MemoryVerdict.FITS
    assert e.peak_memory_gib == pytest.approx((16e9 / 1024**3 + 4) * 1.10 + 0.40 + 8.125 / 1024, rel=1e-3)
    l4 = estimate(simple_train_profile, get_gpu("L4"), calibration=CAL)
    m = l4.memory
    assert m.capacity_gib == pytest.approx(22.5)  # 24 GB GDDR6 with ECC: 15/16 usable
    # What must fit is 19.7 GiB at the point, but its band reaches above the 22.5 usable: the
    # point alone would say "fits", the band says "may not fit" (and it is not ruled out).
    assert m.required_gib_low < m.required_gib <= m.capacity_gib < m.required_gib_high
    assert l4.memory_verdict is MemoryVerdict.MAY_NOT_FIT and not l4.fits and not m.ruled_out
    assert any(n.startswith("may not fit: ") for n in l4.notes)
    big = make_profile(ops=simple_train_profile.ops, params=2_000_000_000)  # 32e9 B of state alone
    over = estimate(big, get_gpu("L4"), calibration=CAL)
    assert over.memory.required_gib_low > over.memory.capacity_gib
    assert over.memory_verdict is MemoryVerdict.DOES_NOT_FIT and over.memory.ruled_out


def test_a_training_step_in_cuda_graphs_is_not_bound_by_the_cpu_issuing_kernels() -> None:
    from dataclasses import replace

    from perf_helpers import make_profile, op

    from gpuplan.hardware import get_gpu
    from gpuplan.perf.calibration import PRIOR
    from gpuplan.perf.estimate import EstimateRequest, run_estimate

    # 2,000 tiny kernels per micro-batch: at 20 µs of host time each the CPU needs 40 ms, the GPU
    # far less. Eager, the step is host-bound; replayed from a CUDA graph it is the GPU's time.
    prof = make_profile(
        ops=(
            op("forward", "other", bytes_moved=1e6, count=1000, name="aten.add"),
            op("backward", "other", bytes_moved=1e6, count=1000, name="aten.add"),
        )
    )
    cal = replace(PRIOR, min_kernel_time_us=1.0)
    base = EstimateRequest(profile=prof, gpu=get_gpu("H100-SXM"), calibration=cal)
    eager = run_estimate(base)
    graphs = run_estimate(base.changed(cuda_graphs=True))
    assert eager.compute_time_s == pytest.approx(2000 * PRIOR.host_overhead_us * 1e-6)
    assert graphs.compute_time_s < 0.1 * eager.compute_time_s
    assert any("CUDA graphs" in n for n in graphs.notes)
    # Inference replays graphs unless told otherwise; training does not.
    assert base.replays_graphs is False


def test_an_inference_step_in_cuda_graphs_is_not_host_bound_and_says_what_it_assumes() -> None:
    # was: cuda_graphs changed nothing for a forward pass (the same step to the last digit with
    # true and false), while the estimate said it assumed CUDA graphs and flagged the step host-bound
    from gpuplan.perf.calibration import PRIOR
    from gpuplan.perf.estimate import EstimateRequest, run_estimate

    prof = make_profile(
        ops=(op("forward", "other", bytes_moved=1e6, count=2000, name="aten.add"),), task="infer"
    )
    cal = replace(PRIOR, min_kernel_time_us=1.0)
    base = EstimateRequest(profile=prof, gpu=get_gpu("H100-SXM"), calibration=cal)
    eager = run_estimate(base.changed(cuda_graphs=False))
    graphs = run_estimate(base.changed(cuda_graphs=True))
    assert eager.compute_time_s == pytest.approx(2000 * PRIOR.host_overhead_us * 1e-6)
    assert any("host-bound" in n for n in eager.notes)
    assert graphs.compute_time_s < 0.1 * eager.compute_time_s
    assert not any("host-bound" in n for n in graphs.notes)
    assert any("2,000 kernels" in n and "cannot be captured whole" in n for n in graphs.notes)
    # Unstated, the graphs are a serving engine's decode steps: the forward pass itself runs eager.
    assert run_estimate(base).compute_time_s == eager.compute_time_s


def test_a_step_mostly_waiting_on_the_network_says_so() -> None:
    # 7 B parameters sharded over 16 GPUs of two nodes on an unknown network (100 Gbit/s at the
    # point): each step gathers and reduces 14 GB of bf16 weights and gradients and computes little.
    # The table showed a step time 6× the 8-GPU one with nothing to say why.
    p = make_profile(ops=(op(flops=1e13), op(phase="backward", flops=2e13)), params=7_000_000_000)
    e = estimate(p, get_gpu("H100-SXM"), count=16, parallelism="fsdp", calibration=CAL)
    assert e.comm_exposed_s > 0.5 * e.step_time_s
    (line,) = [n for n in e.notes if n.startswith("communication not hidden behind compute")]
    assert f"({e.comm_exposed_s:.3g} s of {e.step_time_s:.3g} s)" in line
    alone = estimate(p, get_gpu("H100-SXM"), count=1, calibration=CAL)
    assert not any(n.startswith("communication not hidden") for n in alone.notes)
