"""The planner's estimate function shares work between keys (GPU stages per shape, the host's bound
per pipeline) and gives every key exactly the answer the whole estimate gives it alone."""

from __future__ import annotations

import itertools
import math
import random
from pathlib import Path

from plan_helpers import CAL

from gpuplan.hardware import get_gpu
from gpuplan.perf import NetworkSpec, request_for, run_estimate
from gpuplan.perf.input_pipeline import Host
from gpuplan.perf.parallel import catalog_network_kind, network_kind_of
from gpuplan.plan import EstimateKey, EstimateRow
from gpuplan.plan.build_inputs import make_estimator
from gpuplan.workload import Workload
from stand_in_profiles import resnet50_profile

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _keys() -> list[EstimateKey]:
    """GPU shapes × hosts × networks, the interconnect written several ways."""
    shapes = [
        ("H100-SXM", 8, "NVSwitch"),
        ("H100-SXM", 8, "nvlink"),
        ("H100-SXM", 4, "NVLink"),  # 2 nodes of 4: the same 8 GPUs as one node of 8, another link
        ("T4", 4, "PCIe"),
        ("A10G", 1, ""),
    ]
    hosts = [(None, None), (8.0, None), (48.0, 192.0), (96.0, 64.0), (192.0, 2048.0), (None, 32.0)]
    networks = [(None, ""), (100.0, ""), (400.0, "EFA"), (3200.0, "InfiniBand")]
    keys = [
        EstimateKey(
            gpu=gpu,
            gpus_per_node=per_node,
            nodes=nodes,
            interconnect=link,
            network_gbps=net,
            network_kind=kind,
            vcpus=None if vcpus is None else vcpus * per_node / 8,
            memory_gib=ram,
        )
        for (gpu, per_node, link), nodes, (vcpus, ram), (net, kind) in itertools.product(
            shapes, (1, 2), hosts, networks
        )
    ]
    random.Random(0).shuffle(keys)  # the shared caches must not depend on the order keys come in
    return keys


def _alone(workload: Workload, key: EstimateKey) -> tuple[float, float, float, float, bool, tuple[str, ...]]:
    """The whole estimate of ``key`` by itself, as the planner's estimate function documents it."""
    gpu = get_gpu(key.gpu)
    multi = key.nodes > 1
    text = key.interconnect.lower()
    fabric = catalog_network_kind(key.network_kind if multi else "")
    link = NetworkSpec(
        gbit_s=key.network_gbps if multi else None,
        kind=fabric or network_kind_of(key.interconnect) or "tcp",
        source="catalog",
        gpus_per_node=key.gpus_per_node,
        nvlink=bool(gpu.nvlink_gbps) and ("nvlink" in text or "nvswitch" in text or not text),
    ).link(gpu, key.gpu_count)
    est = run_estimate(
        request_for(
            workload,
            resnet50_profile("test", activations_bytes=2e9),
            gpu,
            count=key.gpu_count,
            link=link,
            calibration=CAL,
            host=Host(gpus=key.gpus_per_node, vcpus=key.vcpus, ram_gib=key.memory_gib),
        )
    )
    said = f"network kind not in the catalog: taken as {link.network_kind}"
    inferred = () if fabric or not multi else (said,)
    assert est.job_time_h is not None and est.job_time_h_low and est.job_time_h_high
    return (
        est.job_time_h,
        est.job_time_h_low,
        est.job_time_h_high,
        est.step_time_s,
        est.input_bound,
        (*est.notes, *inferred),
    )


def _seen(row: EstimateRow) -> tuple[float, float, float, float, bool, tuple[str, ...]]:
    times = (row.job_time_h, row.job_time_h_low, row.job_time_h_high, row.step_time_s)
    return (*times, row.input_bound, row.notes)


def test_each_key_gets_the_whole_estimates_answer_while_work_is_shared() -> None:
    # ImageNet: 140 GB over 90 epochs, so a host's RAM decides whether each epoch re-reads the disk.
    workload = Workload.from_yaml(EXAMPLES / "resnet50-imagenet.yaml")
    est, _ = make_estimator(workload, resnet50_profile("test", activations_bytes=2e9), CAL)
    keys = _keys()
    rows = [est(k) for k in keys]
    assert all(r.fits and math.isfinite(r.job_time_h) for r in rows)
    for key, row in zip(keys, rows, strict=True):
        assert _seen(row) == _alone(workload, key), key
        assert row.input_unknown == (key.vcpus is None)
    # Both sides of the CPU bound and of the page cache are among the answers.
    assert {r.input_bound for r in rows} == {True, False}
    assert any("re-read from disk every epoch" in n for r in rows for n in r.notes)
    assert any(not any("re-read" in n for n in r.notes) for r in rows)


def test_a_request_moved_to_another_gpu_is_the_one_request_for_makes_there() -> None:
    # The planner builds one request per host shape and moves it to each GPU; it had kept the first
    # GPU's engine scheduling (and an image's denoiser calls), which depend on the GPU.
    from gpuplan.perf.workload_request import request_on
    from stand_in_profiles import toy_llm_profile

    w = Workload.from_dict(
        {
            "name": "chat",
            "task": "infer",
            "model": {"preset": "gpt2"},
            "inputs": {"batch_size": 8, "seq_len": 512},
            "precision": "bf16",
            "serving": {"requests_per_s": 2, "prompt_tokens": 256, "output_tokens": 128},
        }
    )
    profile = toy_llm_profile()
    first = request_for(w, profile, get_gpu("L4"), calibration=CAL, host=Host(gpus=1))
    for gpu in ("H100-SXM", "A10G", "L40S"):
        alone = request_for(w, profile, get_gpu(gpu), calibration=CAL, host=Host(gpus=1))
        assert request_on(first, w, get_gpu(gpu), count=1, link=None) == alone, gpu
