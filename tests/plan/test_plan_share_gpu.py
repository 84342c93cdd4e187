"""``serving.share_gpu``: replicas time-sharing a GPU are priced as such — each holds its share of the
memory (its own CUDA context and weights, then its share of what is left for the KV cache) and runs
its share of the time less the context switches. Before, the plan ignored it: four 7B replicas on
one 24 GB card were neither refused nor priced, and deploy started them."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import pytest

from gpuplan.api import plan
from gpuplan.catalog import Store, open_store
from gpuplan.errors import InputError
from gpuplan.hardware import get_gpu
from gpuplan.perf.inference import TIME_SLICE_PENALTY, decode_estimate, serving_estimate
from gpuplan.profile.model import Profile
from gpuplan.workload import Workload, load_workload

ROOT = Path(__file__).resolve().parents[2]
SERVICE = ROOT / "examples" / "llm-inference-service.yaml"
PROFILE = ROOT / "tests" / "perf" / "fixtures" / "known" / "llama7b-infer-bf16.json"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    st = open_store(str(tmp_path_factory.mktemp("share") / "catalog.sqlite"))
    yield st
    st.close()


@pytest.fixture(scope="module")
def profile() -> Profile:
    return Profile.from_json(PROFILE.read_text(encoding="utf-8"))


def _service(**serving: object) -> Workload:
    w = load_workload(SERVICE)
    assert w.serving is not None
    return w.model_copy(update={"serving": w.serving.model_copy(update=serving)})


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
    store: Store, profile: Profile
) -> None:
    whole = plan(_service(), store=store, profile=profile, providers=["aws"])
    four = plan(_service(share_gpu=True), store=store, profile=profile, providers=["aws"])
    # Four 13 GiB replicas do not fit a 24 GB or a 48 GB card: only 80 GB and larger are left.
    assert four.options and all(get_gpu(o.gpu).memory_gib >= 79 for o in four.options)
    assert four.excluded["does_not_fit"] > whole.excluded["does_not_fit"]
    assert any("4 replicas time-share each GPU" in n for n in four.notes)
    # Sharing the time, they carry less per GPU: no option needs fewer GPUs than without sharing.
    least = min(o.gpus_per_node * o.nodes for o in whole.options)
    assert min(o.gpus_per_node * o.nodes for o in four.options) >= least
    # min_replicas counts the replicas, n to a GPU: 4 replicas fit on one GPU shared 4 ways.
    held = plan(_service(share_gpu=4, min_replicas=4), store=store, profile=profile, providers=["aws"])
    assert "below_min_replicas" not in held.excluded


@pytest.mark.parametrize("share", [0, 49, -1])
def test_share_gpu_out_of_range_is_one_line(share: int) -> None:
    from gpuplan.workload.spec import ServingSpec

    with pytest.raises(ValueError, match=r"replicas time-sharing one GPU: 1 to 48"):
        ServingSpec.model_validate(
            {"requests_per_s": 1, "prompt_tokens": 1, "output_tokens": 1, "share_gpu": share}
        )


def test_sharing_a_gpu_between_replicas_that_span_several_is_refused(store: Store, profile: Profile) -> None:
    w = _service(share_gpu=2).model_copy(update={"tensor_parallel": 2})
    with pytest.raises(
        InputError, match=r"spans 2 GPUs \(tensor_parallel × pipeline_parallel\); leave share_gpu out"
    ):
        plan(w, store=store, profile=profile, providers=["aws"])
