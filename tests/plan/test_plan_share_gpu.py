"""``serving.share_gpu``: replicas time-sharing a GPU are priced as such — each holds its share of the
memory (its own CUDA context and weights, then its share of what is left for the KV cache) and runs
its share of the time less the context switches. Before, the plan ignored it: four 7B replicas on
one 24 GB card were neither refused nor priced, and deploy started them."""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml
from plan_helpers import SERVICE, llama7b_profile, service_workload

from gpuplan.api import plan
from gpuplan.catalog import Store, open_store
from gpuplan.errors import InputError
from gpuplan.hardware import get_gpu
from gpuplan.perf.inference import TIME_SLICE_PENALTY, decode_estimate, serving_estimate
from gpuplan.plan import Plan
from gpuplan.profile.model import Profile
from gpuplan.workload import load_workload


@pytest.fixture(scope="module")
def store(seeded_copy: Callable[[str], Path]) -> Iterator[Store]:
    st = open_store(str(seeded_copy("share")))
    yield st
    st.close()


@pytest.fixture(scope="module")
def profile() -> Profile:
    return llama7b_profile()


_service = service_workload


def test_a_time_shared_replica_has_its_share_of_the_memory_and_of_the_time(profile: Profile) -> None:
    gpu = get_gpu("H100-SXM")
    alone = decode_estimate(profile, gpu)
    half = decode_estimate(profile, gpu, replicas_per_gpu=2)
    # Two processes, two contexts and two copies of the weights: fewer than half the sequences.
    assert 0 < half.max_concurrent_sequences < alone.max_concurrent_sequences / 2
    assert half.time_share == pytest.approx((1 - TIME_SLICE_PENALTY) / 2)
    whole = serving_estimate(alone, requests_per_s=2, prompt_tokens=512, output_tokens=256)
    shared = serving_estimate(half, requests_per_s=2, prompt_tokens=512, output_tokens=256, replicas=2)
    # Each replica carries half the load in 45 % of the GPU's time, with a smaller cache.
    assert shared.capacity_requests_per_s < 0.45 * whole.capacity_requests_per_s
    assert shared.request_latency_s > whole.request_latency_s / 0.45 * 0.99
    assert shared.utilisation > whole.utilisation
    # The GPUs a load needs count n replicas to a GPU.
    assert shared.gpus_needed == math.ceil(math.ceil(2 / (shared.capacity_requests_per_s * 0.8)) / 2)


def test_replicas_that_cannot_share_a_card_are_left_out_and_the_rest_priced(
    store: Store, profile: Profile, plan_once: Callable[..., Plan]
) -> None:
    whole = plan_once(_service(), store=store, profile=profile, providers=["aws"])
    four = plan_once(_service(share_gpu=True), store=store, profile=profile, providers=["aws"])
    # Four 13 GiB replicas do not fit a 24 GB or a 48 GB card: only 80 GB and larger are left.
    assert four.options and all(get_gpu(o.gpu).memory_gib >= 79 for o in four.options)
    assert four.excluded["does_not_fit"] > whole.excluded.get("does_not_fit", 0)
    assert any("4 replicas time-share each GPU" in n for n in four.notes)
    # Sharing the time, they carry less per GPU: no option needs fewer GPUs than without sharing.
    least = min(o.gpus_per_node * o.nodes for o in whole.options)
    assert min(o.gpus_per_node * o.nodes for o in four.options) >= least
    # min_replicas counts the replicas, n to a GPU: 4 replicas fit on one GPU shared 4 ways.
    held = plan(_service(share_gpu=4, min_replicas=4), store=store, profile=profile, providers=["aws"])
    assert "below_min_replicas" not in held.excluded


def test_the_plan_names_the_gpus_that_sharing_left_out_and_why(
    store: Store, profile: Profile, plan_once: Callable[..., Plan]
) -> None:
    # was: the 24 and 48 GB cards vanished under share_gpu: 4 with no line saying sharing did it
    four = plan_once(_service(share_gpu=True), store=store, profile=profile, providers=["aws"])
    line = next(n for n in four.notes if n.startswith("serving.share_gpu: 4 replicas of this one service"))
    assert "A10G" in line and "L40S" in line and "(does_not_fit)" in line
    assert "A10G" not in {o.gpu for o in four.options}
    # the GPUs sharing did not leave out are not named, and without sharing there is no such line
    assert "H100" not in line
    whole = plan_once(_service(), store=store, profile=profile, providers=["aws"])
    assert not any(n.startswith("serving.share_gpu:") for n in whole.notes)


@pytest.mark.parametrize("share", [0, 49, -1])
def test_share_gpu_out_of_range_is_one_line(share: int) -> None:
    from gpuplan.workload.spec import ServingSpec

    with pytest.raises(ValueError, match=r"replicas time-sharing one GPU: 1 to 48"):
        ServingSpec.model_validate(
            {"requests_per_s": 1, "prompt_tokens": 1, "output_tokens": 1, "share_gpu": share}
        )


def test_sharing_a_gpu_between_replicas_that_span_several_is_refused_by_every_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The workload is refused when read, so estimate, simulate and deploy refuse it as plan did
    # (they had taken it: deploy wrote a time-slicing ConfigMap beside a 2-GPU tensor-parallel pod).
    from one_line import refused

    text = SERVICE.read_text(encoding="utf-8").replace(
        "serving: {requests_per_s: 5,", "tensor_parallel: 2\nserving: {share_gpu: 2, requests_per_s: 5,"
    )
    path = tmp_path / "tp-share.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(
        InputError, match=r"spans 2 GPUs \(tensor_parallel × pipeline_parallel\); leave share_gpu"
    ):
        load_workload(path)
    out = tmp_path / "out"
    for args in (
        ["estimate", str(path), "--gpu", "A100-SXM4-80GB"],
        ["simulate", "autoscale", str(path), "--gpu", "A100-SXM4-80GB", "--policy", "fixed:replicas=2"],
        [
            "deploy",
            str(path),
            "--gpu",
            "A100-SXM4-80GB",
            "--count",
            "2",
            "--target",
            "k8s",
            "--out",
            str(out),
        ],
    ):
        assert refused(args, capsys).endswith("leave share_gpu out") and not out.exists()


def test_the_estimate_judges_a_shared_replica_against_its_share_and_advises_fewer_to_a_gpu(
    profile: Profile,
) -> None:
    # A 4-way share of a 24 GB card holds 6 GiB: a 7B replica's weights alone do not fit there.
    # The estimate had judged it against the whole card ("fits, 18.6 / 24") while its own serving
    # cell said no sequence fits, and advised raising tensor_parallel, which share_gpu forbids.
    from rich.console import Console

    from gpuplan.api import estimate
    from gpuplan.perf.memory import usable_memory_gib
    from gpuplan.report.estimate import estimate_view

    report = estimate(_service(share_gpu=4), ["RTX-4090", "H100-SXM"], profile=profile)
    small, large = (o.estimate for o in report.outcomes)
    assert small is not None and large is not None
    # each replica's engine holds its memory fraction (vLLM's 0.9) of its quarter of the GPU
    assert small.memory.capacity_gib == pytest.approx(0.9 * usable_memory_gib(get_gpu("RTX-4090")) / 4)
    assert large.memory.capacity_gib == pytest.approx(0.9 * usable_memory_gib(get_gpu("H100-SXM")) / 4)
    assert small.memory_verdict.value == "does-not-fit" and large.fits
    assert any("1/4 of its 24.0 GiB usable (6.0 GiB)" in n for n in small.notes)
    assert any("(5.4 GiB, 0.9 of 6.0 usable)" in n for n in small.notes)
    fewer = [a for a in report.outcomes[0].advice if a.action == "share_gpu"]
    # the most replicas to a GPU that fit: a 7B replica alone on the 24 GB card (its engine's 0.9)
    assert len(fewer) == 1 and fewer[0].fits and fewer[0].capacity_gib == pytest.approx(0.9 * 24.0)
    assert fewer[0].summary == "a whole GPU to each replica instead of 4 to a GPU"
    console = Console(width=400, record=True, file=io.StringIO())
    console.print(estimate_view(report.profile, report.outcomes, report.calibration))
    text = console.export_text()
    assert "lower share_gpu or choose a GPU with more memory" in text and "raise tensor_parallel" not in text
    # without share_gpu the same card is judged whole
    alone = estimate(_service(), ["RTX-4090"], profile=profile).outcomes[0].estimate
    assert alone is not None and alone.memory.capacity_gib == pytest.approx(0.9 * 24.0)


def test_estimate_and_plan_hold_a_whole_request_in_the_kv_cache_not_the_traced_seq_len(
    store: Store, profile: Profile
) -> None:
    # The traced forward is 2,048 tokens; the service's requests are 3,072 + 1,024. Estimate and plan
    # had sized the cache at the trace's length while deploy writes --max-model-len 4096 and simulate
    # holds whole requests: the plan's replicas ran 99 % busy and dropped requests in simulate.
    from gpuplan.api import estimate

    w = _service(prompt_tokens=3072, output_tokens=1024, requests_per_s=1)
    [outcome] = estimate(w, ["H100-SXM"], profile=profile).outcomes
    assert outcome.decode is not None and outcome.decode.context_tokens == 4096
    at_trace = decode_estimate(profile, get_gpu("H100-SXM"), context_tokens=2048)
    assert outcome.decode.max_concurrent_sequences < at_trace.max_concurrent_sequences / 1.9
    # the plan needs at least the GPUs the estimate says, per GPU
    assert outcome.serving is not None
    planned = plan(w, store=store, profile=profile, providers=["aws"], top=200)
    h100 = [o for o in planned.options if o.gpu == "H100-SXM"]
    assert h100 and min(o.gpus_per_node * o.nodes for o in h100) >= outcome.serving.gpus_needed


def test_a_replica_range_upside_down_is_refused_by_every_command_that_reads_the_workload() -> None:
    from gpuplan.workload.spec import ServingSpec

    with pytest.raises(ValueError, match="max_replicas is below min_replicas"):
        ServingSpec.model_validate(
            {
                "requests_per_s": 1,
                "prompt_tokens": 1,
                "output_tokens": 1,
                "min_replicas": 5,
                "max_replicas": 2,
            }
        )
    text = SERVICE.read_text(encoding="utf-8").replace(
        "serving: {requests_per_s: 5,", "serving: {min_replicas: 5, max_replicas: 2, requests_per_s: 5,"
    )
    with pytest.raises(InputError, match=r"serving: max_replicas is below min_replicas"):
        load_workload(yaml.safe_load(text))


def test_no_option_holds_more_replicas_than_the_autoscaler_may_run(store: Store, profile: Profile) -> None:
    # A plan of 8 replicas beside deploy's maxReplicas: 4 priced a load the deployed service cannot
    # reach (simulate: p95 44 s against 30, 99 % of requests late at the cap).
    free = plan(_service(), store=store, profile=profile, providers=["aws"], top=200)
    most = max(o.gpus_per_node * o.nodes for o in free.options)
    assert most > 2
    capped = plan(_service(max_replicas=2), store=store, profile=profile, providers=["aws"], top=200)
    # replicas, not GPUs: the planner may split a replica over GPUs where the workload gives no
    # tensor_parallel (4 GPUs as 2 replicas of 2)
    assert capped.options and all(o.service and o.service.replicas <= 2 for o in capped.options)
    assert capped.excluded.get("above_max_replicas", 0) > 0
    shared = plan(
        _service(max_replicas=4, share_gpu=2), store=store, profile=profile, providers=["aws"], top=200
    )
    assert all(o.gpus_per_node * o.nodes * 2 <= 4 for o in shared.options)


def test_a_reclaim_takes_down_every_replica_time_sharing_the_instances_gpus() -> None:
    # The spot model had counted a reclaim's replicas as GPUs ÷ a replica's GPUs: with two replicas
    # to a GPU, half of those a reclaim takes down (and half the weights read back).
    import numpy as np

    from gpuplan.plan.spot import service_spot

    rate, nodes, per_node = np.array([0.01]), np.array([2]), np.array([4])
    whole = service_spot(rate, nodes, per_node, 1, 730.0, 1 / 6, 32 / 3600)
    shared = service_spot(rate, nodes, per_node, 1, 730.0, 1 / 6, 32 / 3600, replicas_per_gpu=2)
    assert int(whole.replicas_per_unit[0]) == 4 and int(shared.replicas_per_unit[0]) == 8
    assert float(shared.down_h[0]) == pytest.approx(1 / 6 + 8 * 32 / 3600)
    assert float(shared.replica_hours_down[0]) > 2 * float(whole.replica_hours_down[0])
