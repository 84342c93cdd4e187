"""The fit advice table says so when no single change makes the workload fit."""

from __future__ import annotations

from rich.console import Console

from gpuplan.perf.advisor import Advice
from gpuplan.perf.sweep import EstimateOutcome
from gpuplan.report.estimate import _advice_table


def _advice(action: str, summary: str, required: float, *, fits: bool = False) -> Advice:
    return Advice(
        action=action, summary=summary, gpu="H100-SXM", gpu_count=1, peak_memory_gib=required, fits=fits,
        step_time_s=None, step_time_factor=None, derivation="d", required_gib=required, capacity_gib=78.8,
    )  # fmt: skip


def _render(*advice: Advice) -> str:
    table = _advice_table([EstimateOutcome(gpu="H100-SXM", gpu_count=1, estimate=None, advice=advice)])
    assert table is not None
    console = Console(width=200, record=True)
    console.print(table)
    return console.export_text()


def test_when_no_single_change_fits_the_table_says_so_and_shows_the_closest() -> None:
    # llama-8b at 128k tokens on one H100: every change alone still needs more than 78.8 GiB.
    text = _render(
        _advice("lora", "use LoRA", 294.2), _advice("fused_linear_loss", "fused loss", 250.0),
        _advice("bf16_weights", "bf16 weights", 330.0),
    )  # fmt: skip
    assert "no single change makes it fit" in text
    assert "changes that make it fit" not in text
    lines = [line for line in text.splitlines() if "H100-SXM" in line]
    assert "fused loss" in lines[0]  # the closest (250 GiB) first, not the first in the advisor's order


def test_changes_that_fit_keep_their_heading() -> None:
    text = _render(_advice("lora", "use LoRA", 60.0, fits=True))
    assert "changes that make it fit" in text and "no single change" not in text


def test_a_chinese_derivation_is_folded_whole_never_cut_with_an_ellipsis() -> None:
    # Chinese has no spaces to wrap at: the column had cut each line with "…" (the English wrapped)
    from gpuplan.i18n import use_language

    derivation = (
        "在每种放得下的更大 GPU 上估算同一工作负载：按目录中最低的按需每GPU·小时价格取每步花费最少的"
        "有报价的在前价格未知的在后再取显存最小的再取最快的"
    )
    advice = Advice(
        action="bigger_gpu", summary="改用 L40S（48 GB）", gpu="H100-SXM", gpu_count=1, peak_memory_gib=30.0,
        fits=True, step_time_s=1.0, step_time_factor=0.5, derivation=derivation, required_gib=30.0,
        capacity_gib=78.8,
    )  # fmt: skip
    with use_language("zh"):
        table = _advice_table([EstimateOutcome(gpu="H100-SXM", gpu_count=1, estimate=None, advice=(advice,))])
    assert table is not None
    console = Console(width=100, record=True)
    console.print(table)
    text = console.export_text()
    assert "…" not in text
    assert "".join(text.split()).count("再取最快的") == 1  # the whole derivation is there
