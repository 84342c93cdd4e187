"""A served LLM's memory figures are compared with its engine's share of the GPU (vLLM's
``--gpu-memory-utilization`` of the usable memory), not with the GPU's usable memory: estimate's
tables name the figure for what it is, and leave every other workload's heading as it was."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from rich.console import Console
from rich.table import Table

from gpuplan.api import estimate
from gpuplan.perf.advisor import Advice
from gpuplan.perf.sweep import EstimateOutcome
from gpuplan.profile.model import Profile
from gpuplan.report.estimate import _advice_table, _summary_table
from gpuplan.workload import Workload

LLAMA70B_INFER = (
    Path(__file__).resolve().parents[1] / "perf" / "fixtures" / "known" / "llama70b-infer-bf16.json"
)

_SERVICE = """
{name: chat, task: infer, model: {preset: llama-70b}, inputs: {batch_size: 16, seq_len: 1536},
 precision: bf16, serving: {requests_per_s: 5, prompt_tokens: 1024, output_tokens: 256}}
"""
#: The same model run as a plain forward pass (no serving engine): its memory is the traced step's.
_PLAIN = """
{name: plain, task: infer, model: {preset: llama-70b}, inputs: {batch_size: 16, seq_len: 1536},
 precision: bf16}
"""


@pytest.fixture(scope="module")
def profile() -> Profile:
    return Profile.from_json(LLAMA70B_INFER.read_text(encoding="utf-8"))


def _text(table: Table | None) -> str:
    assert table is not None
    console = Console(width=200, record=True)
    console.print(table)
    return console.export_text()


def _header(text: str) -> str:
    """The lines above the first row (the column headings)."""
    lines = text.splitlines()
    return "\n".join(lines[: next(i for i, line in enumerate(lines) if "H100-SXM" in line)])


def _outcome(profile: Profile, spec: str) -> EstimateOutcome:
    (out,) = estimate(Workload.model_validate(yaml.safe_load(spec)), ["H100-SXM"], profile=profile).outcomes
    return out


def test_a_served_llm_s_memory_is_headed_as_the_engine_s_share_not_usable(profile: Profile) -> None:
    out = _outcome(profile, _SERVICE)
    assert out.estimate is not None and out.estimate.memory.engine_share
    summary = _header(_text(_summary_table([out], "tokens_per_s")))
    assert "engine's share" in summary and "memory / GPU" not in summary
    advice = _header(_text(_advice_table([out])))
    assert "engine's share" in advice and "usable" not in advice
    assert out.advice and all(a.engine_share for a in out.advice)


def test_a_workload_without_an_engine_keeps_its_headings(profile: Profile) -> None:
    out = _outcome(profile, _PLAIN)
    assert out.estimate is not None and not out.estimate.memory.engine_share
    summary = _header(_text(_summary_table([out], "tokens_per_s")))
    assert "memory / GPU (GiB)" in summary and "engine" not in summary
    advice = _header(_text(_advice_table([out])))
    assert "usable" in advice and "engine" not in advice


def test_rows_of_both_kinds_say_both() -> None:
    def advice(engine: bool) -> Advice:
        return Advice(
            action="lora", summary="x", gpu="H100-SXM", gpu_count=1, peak_memory_gib=90.0, fits=False,
            step_time_s=None, step_time_factor=None, derivation="d", required_gib=90.0, capacity_gib=70.9,
            engine_share=engine,
        )  # fmt: skip

    text = _header(
        _text(
            _advice_table(
                [
                    EstimateOutcome(
                        gpu="H100-SXM", gpu_count=1, estimate=None, advice=(advice(True), advice(False))
                    )
                ]
            )
        )
    )
    assert "usable or engine's share" in text


def test_the_estimate_schema_says_the_capacity_is_the_engine_s_share_on_a_served_row(
    profile: Profile,
) -> None:
    """The JSON's capacity figures are the GPU's usable memory on most rows and the engine's share of
    it on a served one: their descriptions say both, not "usable" alone."""
    import json

    from gpuplan.documents.schemas import schema_text
    from gpuplan.hardware.gpus import get_gpu
    from gpuplan.perf.memory import usable_memory_gib

    out = _outcome(profile, _SERVICE)
    assert out.estimate is not None and out.advice
    share = out.estimate.memory.capacity_gib
    assert share < usable_memory_gib(get_gpu("H100-SXM"))  # a served row's figure is not the usable memory
    assert all(a.capacity_gib == share for a in out.advice if a.gpu == "H100-SXM" and a.gpu_count == 1)
    defs = json.loads(schema_text("estimate"))["$defs"]
    for said in (
        defs["AdviceItem"]["properties"]["capacity_gib"]["description"],
        defs["EstimateRow"]["properties"]["memory_capacity_gib"]["description"],
    ):
        assert "usable memory" in said and "serving engine" in said and "engine's share" in said
