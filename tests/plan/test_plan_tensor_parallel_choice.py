"""A service whose workload states no ``tensor_parallel`` is planned at the split each option needs:
per candidate, the fewest GPUs per replica (1, 2, 4 or 8, dividing the model's heads, within one
instance) that hold the model and carry the load. A Llama-3.1-70B chat service without it had been
offered only B200s, 8 replicas of one GPU at $66,004 a month on demand, where two p4d.24xlarge
(16 A100-40GB, 2 replicas of 8) carry it for $32,176; a stated ``tensor_parallel`` is kept."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from gpuplan.api import plan
from gpuplan.catalog import Store, open_store
from gpuplan.errors import InfeasibleError
from gpuplan.plan import Plan
from gpuplan.profile.model import Profile
from gpuplan.workload import Workload

LLAMA70B_INFER = (
    Path(__file__).resolve().parents[1] / "perf" / "fixtures" / "known" / "llama70b-infer-bf16.json"
)

#: The user's service (8.5 requests/s at the peak, a first token within 1.5 s), without tensor_parallel.
CHAT_70B: dict[str, Any] = {
    "name": "l70",
    "task": "infer",
    "model": {"preset": "llama-70b"},
    "inputs": {"batch_size": 16, "seq_len": 1366},
    "precision": "bf16",
    "serving": {
        "requests_per_s": 8.5,
        "mean_requests_per_s": 5.5,
        "prompt_tokens": 1155,
        "output_tokens": 211,
        "ttft_p95_ms": 1500,
        "engine": "vllm==0.8.5",
    },
    "constraints": {"providers": ["aws", "gcp"], "countries": ["US"], "pricing": ["on_demand"]},
}


@pytest.fixture(scope="module")
def store(seeded_copy: Callable[[str], Path]) -> Iterator[Store]:
    st = open_store(str(seeded_copy("tp")))
    yield st
    st.close()


@pytest.fixture(scope="module")
def profile() -> Profile:
    return Profile.from_json(LLAMA70B_INFER.read_text(encoding="utf-8"))


def _service(**changes: Any) -> Workload:
    return Workload.model_validate({**CHAT_70B, **changes})


def test_a_70b_service_that_states_no_split_is_planned_on_replicas_of_several_gpus(
    store: Store, profile: Profile, plan_once: Callable[..., Plan]
) -> None:
    untold = plan_once(_service(), store=store, profile=profile)
    one = plan_once(_service(tensor_parallel=1), store=store, profile=profile)
    rec = untold.recommended
    assert rec.service is not None and rec.service.tensor_parallel_chosen
    # 140 GB of weights: no GPU of the catalog holds a replica whole but the B200 (180 GB)
    assert rec.service.tensor_parallel > 1 and rec.gpu != "B200"
    assert rec.service.replica_gpus == rec.service.tensor_parallel
    assert rec.service.replicas == rec.gpu_count // rec.service.tensor_parallel
    # the shipped catalog: 2 × p4de.24xlarge, 2 replicas of 8 A100-80GB, $40,192 a month on demand,
    # against 8 B200 replicas on an a4-highgpu-8g, $66,004 (the user's: 2 × p4d.24xlarge, $32,176)
    assert rec.total_cost_usd < 0.7 * one.recommended.total_cost_usd
    assert {o.gpu for o in one.options} == {"B200"}
    assert any("tensor_parallel not given" in n for n in untold.notes)
    # every option's GPUs hold whole replicas of its own split, in one instance
    for o in untold.options:
        assert o.service is not None
        assert o.gpu_count % o.service.tensor_parallel == 0
        assert o.service.tensor_parallel <= o.gpus_per_node


def test_a_stated_tensor_parallel_is_kept_on_every_option(
    store: Store, profile: Profile, plan_once: Callable[..., Plan]
) -> None:
    eight = plan(_service(tensor_parallel=8), store=store, profile=profile)
    assert eight.options
    for o in eight.options:
        assert o.service is not None
        assert (o.service.tensor_parallel, o.service.tensor_parallel_chosen) == (8, False)
    one = plan_once(_service(tensor_parallel=1), store=store, profile=profile)
    assert all(
        o.service and (o.service.tensor_parallel, o.service.replica_gpus) == (1, 1) for o in one.options
    )
    assert not any("tensor_parallel not given" in n for n in one.notes)


def test_a_split_of_uneven_heads_is_refused_naming_the_heads_and_what_to_give(
    store: Store, profile: Profile
) -> None:
    # tensor_parallel 3 on 64 heads: no count runs it; the refusal had named only
    # "model_parallel_split" (and counted the multiples of 3 GPUs as does_not_fit)
    with pytest.raises(InfeasibleError) as e:
        plan(_service(tensor_parallel=3), store=store, profile=profile)
    said = str(e.value)
    assert (
        "tensor_parallel 3 does not divide the model's 64 attention heads: use one of 1, 2, 4, 8, "
        "or leave tensor_parallel out" in said
    ), said
    assert "--max-gpus" not in said
    excluded = getattr(e.value, "excluded", {})
    assert excluded.get("model_parallel_split") and "does_not_fit" not in excluded


def test_a_split_wider_than_every_instance_is_not_told_to_allow_more_gpus(
    store: Store, profile: Profile
) -> None:
    # 32 GPUs joined in one instance: no count of instances runs it (a group must sit in one)
    with pytest.raises(InfeasibleError) as e:
        plan(_service(tensor_parallel=32), store=store, profile=profile)
    said = str(e.value)
    assert "tensor_parallel 32 is more GPUs than any instance in the catalog joins (" in said, said
    assert "--max-gpus" not in said


def test_each_key_gets_the_fewest_gpus_per_replica_that_serve_fitting_for_certain_first() -> None:
    import math

    from gpuplan.plan.estimator import _ChoosingEstimator
    from gpuplan.plan.input_types import EstimateKey, EstimateRow

    asked: list[int] = []

    def answer(t: int, **row: Any) -> Any:
        def estimate(key: EstimateKey) -> EstimateRow:
            asked.append(t)
            fields = {"fits": False, "job_time_h": 730.0, "job_time_h_low": 730.0, "job_time_h_high": 730.0}
            return EstimateRow(**(fields | row))

        return estimate

    key = EstimateKey(gpu="H100-SXM", gpus_per_node=8, nodes=1, interconnect="NVLink", network_gbps=None)
    # 1 GPU does not hold it; 2 may not (its memory band straddles the GPU's); 4 surely does
    choose = _ChoosingEstimator(
        {
            1: answer(1),
            2: answer(2, fits=True, memory_uncertain=True),
            4: answer(4, fits=True),
            8: answer(8, fits=True),
        },
        _service(),
    )
    row = choose(key)
    assert (row.tensor_parallel, row.fits, row.memory_uncertain, asked) == (4, True, False, [1, 2, 4])
    # a model one GPU serves costs one estimate, as before
    asked.clear()
    one = _ChoosingEstimator({1: answer(1, fits=True), 2: answer(2, fits=True)}, _service())
    assert (one(key).tensor_parallel, asked) == (1, [1])
    # none serves: the answer that holds the model but is short of the load says why (not "does
    # not fit"), and a degree wider than the instance is never asked
    asked.clear()
    short = _ChoosingEstimator(
        {1: answer(1), 4: answer(4, short_of_load=True, replica_requests_per_s=1.0), 16: answer(16)},
        _service(),
    )
    row = short(key)
    assert (row.tensor_parallel, row.short_of_load, asked) == (4, True, [1, 4])
    assert math.isnan(row.p95_latency_s)
    # none fits for certain: a split whose memory estimate's point fits before a narrower one whose
    # point is above the GPU's usable memory (only the low end of its range fits)
    asked.clear()
    over = _ChoosingEstimator(
        {
            1: answer(1),
            2: answer(2, fits=True, memory_uncertain=True, memory_over=True),
            4: answer(4, fits=True, memory_uncertain=True),
            8: answer(8, fits=True, memory_uncertain=True),
        },
        _service(),
    )
    row = over(key)
    assert (row.tensor_parallel, row.memory_uncertain, row.memory_over) == (4, True, False)
    assert asked == [1, 2, 4, 8]


def test_a_split_whose_weights_overflow_the_gpu_is_not_estimated() -> None:
    from gpuplan.plan.estimator import _ChoosingEstimator
    from gpuplan.plan.input_types import EstimateKey, EstimateRow

    asked: list[int] = []

    def answer(t: int) -> Any:
        def estimate(key: EstimateKey) -> EstimateRow:
            asked.append(t)
            return EstimateRow(fits=False, job_time_h=730.0, job_time_h_low=730.0, job_time_h_high=730.0)

        return estimate

    # 141 GB of weights: 1 H100 (80 GB) cannot hold them, 2 can (70.5 GB each); nothing serves,
    # so every degree that may is asked, and the widest answers why
    choose = _ChoosingEstimator({t: answer(t) for t in (1, 2, 4, 8)}, _service(), 141e9)
    key = EstimateKey(gpu="H100-SXM", gpus_per_node=8, nodes=1, interconnect="NVLink", network_gbps=None)
    assert choose(key).tensor_parallel == 8 and asked == [2, 4, 8]
    # an instance whose every degree overflows still asks its widest
    asked.clear()
    two = EstimateKey(
        gpu="A100-SXM4-40GB", gpus_per_node=2, nodes=1, interconnect="NVLink", network_gbps=None
    )
    assert choose(two).tensor_parallel == 2 and asked == [2]


def test_a_services_peak_memory_is_named_as_estimate_and_deploy_name_it(
    store: Store, profile: Profile, plan_once: Callable[..., Plan]
) -> None:
    # The engine's share of the GPU (0.9 of its usable memory) is estimate's and deploy's room for a
    # replica and plan's peak: one figure, named alike ("usable" in one, "peak memory" in the other).
    from gpuplan.report.plan_view import _memory_line

    rec = plan_once(_service(), store=store, profile=profile).recommended
    assert _memory_line(rec).plain.endswith(": the serving engine's share, which it takes whole")
