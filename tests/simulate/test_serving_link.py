"""A tensor-parallel replica of the serving simulation talks over its instance's own GPU link.

Its all-reduces cross the link the instance's catalog entry names (``--instance``), as a training
estimate's do; with no instance named, the bound an estimate takes (``perf.links.bounded``), never
the datasheet's NVSwitch for a node that may not have one. AWS p3.16xlarge is the DGX-1 board of
eight V100: NVLink in a hybrid cube-mesh, no NVSwitch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from gpuplan.api import replica_host
from gpuplan.catalog import Store, open_store
from gpuplan.errors import InputError
from gpuplan.hardware import get_gpu
from gpuplan.perf.links import NetworkSpec, gpu_join
from gpuplan.profile.model import Profile
from gpuplan.simulate.replica import ServingStack, estimator_replica

ROOT = Path(__file__).resolve().parents[2]
PROFILE = ROOT / "tests" / "perf" / "fixtures" / "known" / "llama7b-infer-bf16.json"
LENGTHS = {"prompt_tokens": np.array([512.0]), "output_tokens": np.array([256.0])}
V100 = get_gpu("V100-SXM2-32GB")


@pytest.fixture(scope="module")
def prof() -> Profile:
    # Llama-7B traced for inference in bf16, served here in fp16 (V100 has no bf16 tensor cores):
    # the same bytes and FLOPs, on the fp16 path.
    bf16 = Profile.from_json(PROFILE.read_text(encoding="utf-8"))
    ops = tuple(replace(o, dtype="float16" if o.dtype == "bfloat16" else o.dtype) for o in bf16.ops)
    return replace(bf16, precision="amp-fp16", ops=ops)


@pytest.fixture(scope="module")
def store(seeded_copy: Callable[[str], Path]) -> Iterator[Store]:
    st = open_store(str(seeded_copy("link")))
    yield st
    st.close()


def _on(words: str, gpus: int = 8) -> NetworkSpec:
    return NetworkSpec(source="catalog", gpus_per_node=gpus, interconnect=words)


def test_a_v100_node_of_eight_is_the_hybrid_cube_mesh_not_nvswitch() -> None:
    assert tuple(gpu_join(V100, 8, "NVLink")) == (True, 8, True)  # p3.16xlarge, p3dn.24xlarge
    assert tuple(gpu_join(V100, 8, "")) == (True, 8, True)  # every 8-GPU V100 board is the mesh
    assert tuple(gpu_join(V100, 8, "NVLink/NVSwitch")) == (True, None, True)  # HGX-2, said
    assert tuple(gpu_join(V100, 16, "")) == (True, None, True)  # HGX-2: 16 GPUs over NVSwitch
    assert tuple(gpu_join(get_gpu("H100-SXM"), 8, "NVLink")) == (True, None, True)  # unchanged


@pytest.mark.parametrize("tp", [2, 4])
def test_p3_16xlarge_decode_is_slower_than_on_an_nvswitch_board(prof: Profile, tp: int) -> None:
    mesh, _ = estimator_replica(
        prof, V100, ServingStack(tensor_parallel=tp, network=_on("NVLink")), **LENGTHS
    )
    switch, _ = estimator_replica(
        prof, V100, ServingStack(tensor_parallel=tp, network=_on("NVLink/NVSwitch")), **LENGTHS
    )
    assert mesh.step is not None and switch.step is not None
    # A pair of the mesh's GPUs shares 1/7 of each GPU's links (a share of its six spread over
    # seven peers), four of them 3/7: the bandwidth part of each all-reduce takes 7/(tp-1) times
    # as long; the hop latencies are the same.
    assert mesh.step.comm_s_per_token > switch.step.comm_s_per_token * 2
    assert mesh.time_per_output_token_s > switch.time_per_output_token_s
    assert "8-GPU NVLink board without NVSwitch" in mesh.source
    assert "without NVSwitch" not in switch.source


def test_eight_way_tensor_parallel_on_p3_16xlarge_is_not_faster_than_nvswitch(prof: Profile) -> None:
    # A ring over all eight uses every link of the mesh ("three interwoven rings"), as NVSwitch
    # lets it: the same time, not less; what differs is the name of the link.
    mesh, _ = estimator_replica(prof, V100, ServingStack(tensor_parallel=8, network=_on("NVLink")), **LENGTHS)
    switch, _ = estimator_replica(
        prof, V100, ServingStack(tensor_parallel=8, network=_on("NVLink/NVSwitch")), **LENGTHS
    )
    assert mesh.time_per_output_token_s >= switch.time_per_output_token_s
    assert "8-GPU NVLink board without NVSwitch" in mesh.source


def test_an_h100_replica_without_an_instance_is_not_taken_as_nvswitch(prof: Profile) -> None:
    h100 = get_gpu("H100-SXM")
    pair, _ = estimator_replica(prof, h100, ServingStack(tensor_parallel=2), **LENGTHS)
    switch, _ = estimator_replica(
        prof, h100, ServingStack(tensor_parallel=2, network=_on("NVLink/NVSwitch", 2)), **LENGTHS
    )
    assert pair.step is not None and switch.step is not None
    # Two GPUs may be half of a 4-GPU board: 6 of each GPU's 18 links between them, 3 × the
    # bandwidth-bound part of each all-reduce.
    assert pair.step.comm_s_per_token == pytest.approx(3 * switch.step.comm_s_per_token, rel=1e-6)
    assert pair.time_per_output_token_s > switch.time_per_output_token_s
    for tp in (2, 4):
        unsaid, _ = estimator_replica(prof, h100, ServingStack(tensor_parallel=tp), **LENGTHS)
        said = "4-GPU NVLink board without NVSwitch (assumed: how the GPUs are joined is not known)"
        assert said in unsaid.source
    # One GPU: nothing to join, nothing said of a link.
    one, _ = estimator_replica(prof, h100, ServingStack(), **LENGTHS)
    assert "tensor parallel" not in one.source


def test_instance_names_the_replica_gpu_and_its_link(store: Store) -> None:
    gpu, network = replica_host(store, None, "p3.16xlarge")
    assert gpu == "V100-SXM2-16GB" and network is not None
    assert (network.gpus_per_node, network.interconnect) == (8, "NVLink")
    assert replica_host(store, "v100-sxm2-16gb", "P3.16XLARGE")[0] == gpu
    assert replica_host(store, "H100-SXM", None) == ("H100-SXM", None)
    with pytest.raises(InputError, match=r"is not the GPU of p3\.16xlarge"):
        replica_host(store, "H100-SXM", "p3.16xlarge")


def test_a_split_the_engine_cannot_start_is_refused_as_the_estimate_refuses_it(prof: Profile) -> None:
    # tensor_parallel 3 of Llama-7B's 32 heads: plan and estimate refuse it, and simulate had priced
    # a replica of three GPUs that vLLM would not start
    from gpuplan.errors import EstimateError

    with pytest.raises(
        EstimateError, match=r"tensor_parallel 3 does not divide the model's 32 attention heads"
    ):
        estimator_replica(prof, get_gpu("H100-SXM"), ServingStack(tensor_parallel=3), **LENGTHS)
