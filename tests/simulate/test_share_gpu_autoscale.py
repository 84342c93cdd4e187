"""``simulate autoscale`` of a workload whose replicas time-share a GPU (``serving.share_gpu``).

n replicas to a GPU are billed as ``plan`` prices them, ``ceil(replicas / n)`` GPUs, and each runs
as the estimate has it: the time-sliced share of the GPU's time, ``(1 − TIME_SLICE_PENALTY) / n``,
with the KV cache that its 1/n of the memory holds beside its own copy of the weights.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gpuplan.catalog import OfferPrice
from gpuplan.errors import InputError
from gpuplan.hardware import get_gpu
from gpuplan.perf.inference import TIME_SLICE_PENALTY, time_slice_share
from gpuplan.profile.model import Profile
from gpuplan.simulate import Shape, SimulationSettings, parse_policy, simulate_autoscale, step_trace
from gpuplan.simulate.inputs import fleet_prices, parse_replica
from gpuplan.simulate.replica import ServingStack, estimator_replica
from gpuplan.workload import Workload, load_workload

ROOT = Path(__file__).resolve().parents[2]
PROFILE = ROOT / "tests" / "perf" / "fixtures" / "known" / "llama7b-infer-bf16.json"
A100 = get_gpu("A100-SXM4-80GB")


def _offer(gpus: int, per_gpu: float) -> OfferPrice:
    return OfferPrice(
        provider="cloud", region="r1", zone=None, instance_type=f"a100_{gpus}x", gpu=A100.id,
        gpu_count=float(gpus), vcpus=16.0 * gpus, memory_gib=200.0 * gpus, network_gbps=None,
        interconnect=None, pricing="on_demand", price=per_gpu * gpus, currency="USD", unit="hour",
        price_usd_per_hour=per_gpu * gpus, price_usd_per_gpu_hour=per_gpu, as_of="2026-01-21",
        source="test", confidence="secondary", interruption_band=None, billing_granularity_s=1,
        min_billing_s=60, term=None, compliance=(), stale=False, price_reason=None, as_of_precision="day",
    )  # fmt: skip


def test_the_time_share_is_the_estimates() -> None:
    # 4 to a GPU: (1 − 0.10) / 4 = 0.225 of its time each
    assert time_slice_share(4) == pytest.approx((1 - TIME_SLICE_PENALTY) / 4) == pytest.approx(0.225)
    assert time_slice_share(1) == 1.0


def test_four_replicas_sharing_a_gpu_pay_for_one_gpu_as_plan_prices_them() -> None:
    # was: four whole A100s at $1.38/h each ($55.20 over 10 h) whatever share_gpu said
    whole = fleet_prices([_offer(1, 1.38)], A100.id, fleet_replicas=4)
    shared = fleet_prices([_offer(1, 1.38)], A100.id, fleet_replicas=4, replicas_per_gpu=4)
    assert whole.usd_per_hour["on_demand"] == pytest.approx(1.38) and whole.per_instance("on_demand") == 1
    # $1.38 per instance-h shared by its 4 replicas: $0.345 per replica-hour
    assert shared.usd_per_hour["on_demand"] == pytest.approx(0.345) and shared.per_instance("on_demand") == 4
    assert shared.replicas_per_gpu == 4 and "4 time-sharing each GPU" in shared.source
    # on an 8-GPU instance: 8 × 4 = 32 replicas to it
    big = fleet_prices([_offer(8, 1.0)], A100.id, fleet_replicas=32, replicas_per_gpu=4)
    assert big.per_instance("on_demand") == 32 and big.usd_per_hour["on_demand"] == pytest.approx(8 / 32)
    trace = step_trace(Shape(mean_requests_per_s=0.5, duration_s=3600.0, seed=1)).with_tokens(128, 64)
    rep = parse_replica("slots=32,tpot_ms=30,prefill_tps=5000", A100.id)
    pol = [parse_policy("fixed:replicas=5")]
    settings = SimulationSettings(cold_start_s=1.0)
    res = simulate_autoscale(trace, rep, pol, shared, settings).policies[0]
    # 5 replicas, 4 to a GPU: ceil(5 / 4) = 2 GPUs for the hour (and a few seconds of drain) = 2 × $1.38
    assert res.replica_hours["on_demand"] == pytest.approx(5.0, rel=1e-3)
    assert res.instance_hours["on_demand"] == pytest.approx(2.0, rel=1e-3)
    assert res.cost_usd == pytest.approx(2 * 1.38, rel=1e-3)


@pytest.fixture(scope="module")
def prof() -> Profile:
    return Profile.from_json(PROFILE.read_text(encoding="utf-8"))


def test_a_replica_sharing_its_gpu_runs_at_its_time_share_with_its_share_of_the_memory(prof: Profile) -> None:
    lengths = {"prompt_tokens": np.array([512.0]), "output_tokens": np.array([256.0])}
    alone, _w = estimator_replica(prof, A100, ServingStack(), **lengths)
    shared, weights = estimator_replica(prof, A100, ServingStack(replicas_per_gpu=4), **lengths)
    f = time_slice_share(4)
    # Each time is its work's over its 0.225 share of the GPU's time (the estimate's 1/f).
    assert shared.time_share == pytest.approx(f) and shared.replicas_per_gpu == 4
    assert shared.tpot_s(1.0) == pytest.approx(alone.tpot_s(1.0) / f, rel=1e-9)
    assert shared.prefill_s([512.0], 0.0)[0] == pytest.approx(alone.prefill_s([512.0], 0.0)[0] / f)
    # Its KV cache: a quarter of the usable memory less its own weights (13.5 GB) and context,
    # far less than a quarter of the whole GPU's cache.
    assert shared.step is not None and alone.step is not None
    assert 0 < shared.step.kv_capacity_tokens < alone.step.kv_capacity_tokens / 4
    assert weights == pytest.approx(_w)
    assert "4 replicas time-share each GPU" in shared.source


def test_share_gpu_is_refused_where_a_replica_spans_several_gpus() -> None:
    # The workload refuses the pair when read (simulate had a copy of the refusal of its own).
    def workload(tensor_parallel: int, **serving: object) -> Workload:
        block = {"requests_per_s": 1, "prompt_tokens": 8, "output_tokens": 8, **serving}
        return load_workload(
            {
                "name": "s",
                "task": "infer",
                "model": {"preset": "gpt2"},
                "inputs": {"batch_size": 1, "seq_len": 16},
                "tensor_parallel": tensor_parallel,
                **({"serving": block} if serving or tensor_parallel == 1 else {}),
            }
        )

    assert workload(1, share_gpu=4).replicas_per_gpu == 4 and workload(2).replicas_per_gpu == 1
    assert workload(1, share_gpu=True).replicas_per_gpu == 4
    with pytest.raises(InputError, match="spans 2 GPUs"):
        workload(2, share_gpu=4)
