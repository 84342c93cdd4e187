"""The first line of ``gpuplan estimate``: the workload's task in the reader's language."""

from __future__ import annotations

import io

from perf_helpers import SIMPLE_CAL, make_profile, op
from rich.console import Console

from gpuplan.hardware import get_gpu
from gpuplan.i18n import use_language
from gpuplan.perf.estimate import estimate
from gpuplan.perf.sweep import EstimateOutcome
from gpuplan.report.estimate import estimate_view


def _head(task: str) -> str:
    profile = make_profile(ops=(op(flops=2e14),), task=task, batch_size=4, seq_len=2048)
    outcome = EstimateOutcome(
        gpu="L40S", gpu_count=1, estimate=estimate(profile, get_gpu("L40S"), calibration=SIMPLE_CAL)
    )
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(estimate_view(profile, [outcome], SIMPLE_CAL))
    return console.export_text().splitlines()[0]


def test_the_header_names_the_task_in_chinese() -> None:
    # "llm-lora-weekly: finetune，bf16，…" had kept the English code in a Chinese line
    assert ": finetune, amp-bf16," in _head("finetune")
    with use_language("zh"):
        heads = {task: _head(task) for task in ("train", "finetune", "infer")}
    assert "微调，amp-bf16，" in heads["finetune"], heads["finetune"]
    assert "训练，" in heads["train"] and "推理，" in heads["infer"]
    assert not any(task in heads[task] for task in heads)
