"""What the tracer does per op: no pytree built for each op's tensors, the same figures as before."""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import pytest

from gpuplan.workload import Workload

torch = pytest.importorskip("torch")

from torch.distributed._tools import mem_tracker  # noqa: E402
from torch.utils import _pytree as pytree  # noqa: E402

from gpuplan.profile import recorder, trace  # noqa: E402
from gpuplan.profile.memtrack import GpuMemTracker  # noqa: E402

_Pair = namedtuple("_Pair", "a b")


def _lora_gpt2() -> Workload:
    return Workload.from_dict(
        {
            "name": "lora",
            "task": "finetune",
            "model": {"preset": "gpt2", "lora": {"rank": 4}},
            "inputs": {"batch_size": 1, "seq_len": 32},
            "precision": "amp-bf16",
        }
    )


def test_tensors_in_finds_what_tree_flatten_finds_in_its_order() -> None:
    from gpuplan.profile.recorder import tensors_in

    a, b, c, d = (torch.empty(i + 1) for i in range(4))
    cases: list[Any] = [
        a,
        None,
        3,
        (a, None, 2.0, [b, c]),
        ((a, 1), {"out": b, "alpha": 2, "dtype": torch.float16}),
        [a, (b, [c, None]), d],
        _Pair(a, (b, c)),
        torch.max(torch.ones(2, 3), dim=1),  # a torch return type (structseq)
        {"x": [a, b], "y": {"z": c}},
    ]
    for case in cases:
        want = [t for t in pytree.tree_flatten(case)[0] if isinstance(t, torch.Tensor)]
        got = tensors_in(case)
        assert len(got) == len(want) and all(g is w for g, w in zip(got, want, strict=True)), case


def test_a_trace_builds_no_pytree_for_each_op(monkeypatch: pytest.MonkeyPatch) -> None:
    # torch's MemTracker maps over every op's output with tree_map_only and the recorder flattened
    # every op's arguments and output with tree_flatten: two pytree walks per op, a third of a large
    # model's trace. Both now walk an op's tensors directly.
    calls = {"tree_map_only": 0, "tree_flatten": 0}

    def counted(name: str, fn: Any) -> Any:
        def inner(*args: Any, **kwargs: Any) -> Any:
            calls[name] += 1
            return fn(*args, **kwargs)

        return inner

    monkeypatch.setattr(mem_tracker, "tree_map_only", counted("tree_map_only", mem_tracker.tree_map_only))
    monkeypatch.setattr(recorder, "tree_flatten", counted("tree_flatten", recorder.tree_flatten))
    p = trace(_lora_gpt2())
    ops = sum(r.count for r in p.ops)
    assert ops > 1000
    # what is left is per module call (the tracker's forward hooks), not per op
    assert calls["tree_map_only"] < ops / 4
    assert calls["tree_flatten"] < ops / 10


def test_the_trackers_peak_is_torchs_own_dispatchs() -> None:
    # The tracker's own dispatch tracks what torch's MemTracker.__torch_dispatch__ tracks.
    from gpuplan.profile.tracer import _on_fake_model  # the model built under the trace's fake mode

    class TorchDispatch(GpuMemTracker):
        __torch_dispatch__ = mem_tracker.MemTracker.__torch_dispatch__

    def step(tracker_type: type[GpuMemTracker]) -> Any:
        def run(bundle: Any) -> Any:
            model = bundle.model
            batch = bundle.make_batch()
            tracker = tracker_type()
            tracker.track_external(model, *batch.tensors())
            with tracker:
                loss = bundle.loss(model(*batch.args, **batch.kwargs), batch)
                loss.backward()
            return tracker.peak_breakdown()

        return _on_fake_model(_lora_gpt2(), run)

    ours, torchs = step(GpuMemTracker), step(TorchDispatch)
    assert ours.total_bytes > 0
    assert ours == torchs
