"""A lighter loss (chunked, fused-linear) is advised only where the workload could name it: a
model whose output layer gives its vocabulary logits. ``loss: chunked`` is refused otherwise."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpuplan.hardware import get_gpu
from gpuplan.perf.advice_base import Current
from gpuplan.perf.advisor import advise
from gpuplan.perf.estimate import EstimateRequest
from gpuplan.profile import Profile
from gpuplan.workload import Workload

pytest.importorskip("torch")

Traced = Callable[..., Profile]


def _advised(trace_once: Traced, w: Workload) -> set[str]:
    profile = trace_once(w)
    request = EstimateRequest(profile=profile, gpu=get_gpu("T4"))
    return {a.action for a in advise(request, current=Current.of(w))}


def test_a_question_answering_head_gets_no_lighter_loss_advice(trace_once: Traced) -> None:
    # was: BERT on SQuAD (a 2-output span head) was advised "chunked cross-entropy", costed over
    # BERT's 30,522-token vocabulary, and `loss: chunked` then refused the workload
    w = Workload.from_dict(
        {
            "name": "qa",
            "task": "finetune",
            "model": {"preset": "bert-base"},
            "inputs": {"batch_size": 64, "seq_len": 384},
            "precision": "fp32",
        }
    )
    assert trace_once(w).vocab_head is False
    assert not {"chunked_loss", "fused_linear_loss"} & _advised(trace_once, w)


def test_a_language_model_still_gets_it(trace_once: Traced, small_gpt2: Callable[..., Workload]) -> None:
    w = small_gpt2(task="finetune", precision="fp32", inputs={"batch_size": 64, "seq_len": 1024})
    assert trace_once(w).vocab_head is True
    assert "chunked_loss" in _advised(trace_once, w)
