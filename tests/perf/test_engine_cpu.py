"""The serving engine's CPU work per iteration: the published figures, the version rules, and how an
iteration adds it to (or overlaps it with) the GPU's work."""

from __future__ import annotations

import statistics

import pytest

from gpuplan.perf.engine_cpu import (
    NO_ENGINE,
    SGLANG_OVERLAP,
    SGLANG_SYNC,
    UNKNOWN_ENGINE,
    VLLM_V0,
    VLLM_V1_ASYNC,
    VLLM_V1_SYNC,
    engine_cpu,
)

# WukLab (UC San Diego), "Can Scheduling Overhead Dominate LLM Inference Performance?" (2024-09-10):
# median per-iteration scheduling time on A100s, ms, read off the bars of Figures 6 and 2
# (github.com/WukLab/wuklab_sysml static/images/scheduling_overhead/*_A100.svg_{0,1,2}.svg).
SGLANG_0_2_13_MS = (3.13, 4.29, 3.55, 1.91, 2.70, 2.16, 1.87, 5.30, 2.30, 4.20)
VLLM_0_5_4_MS = (12.28, 13.40, 18.80, 14.31, 21.77, 17.16, 4.14, 8.52, 28.16, 22.50)


def test_the_figures_are_the_medians_of_the_published_measurements() -> None:
    assert SGLANG_SYNC.step_s == pytest.approx(statistics.median(SGLANG_0_2_13_MS) * 1e-3, abs=0.05e-3)
    assert VLLM_V0.step_s == pytest.approx(statistics.median(VLLM_0_5_4_MS) * 1e-3, abs=0.05e-3)
    # vLLM V1 is given SGLang's figure (assumed; the module says why); the overlapped engines do
    # the same work, hidden behind the GPU.
    for engine in (SGLANG_OVERLAP, VLLM_V1_SYNC, VLLM_V1_ASYNC, UNKNOWN_ENGINE):
        assert engine.step_s == SGLANG_SYNC.step_s
    assert NO_ENGINE.step_s == 0.0
    for engine in (SGLANG_SYNC, SGLANG_OVERLAP, VLLM_V0, VLLM_V1_SYNC, VLLM_V1_ASYNC):
        assert "wuklab" in engine.source.lower()


@pytest.mark.parametrize(
    ("software", "expected"),
    [
        ("vLLM 0.5.4", VLLM_V0),
        ("vLLM v0.11.0 (vllm serve Qwen/Qwen3-14B)", VLLM_V1_SYNC),
        ("vLLM 0.13.2", VLLM_V1_SYNC),
        ("vLLM 0.14.0", VLLM_V1_ASYNC),
        ("vLLM 0.19.0 (vllm serve --gpu-memory-utilization 0.5)", VLLM_V1_ASYNC),
        ("SGLang v0.2.13", SGLANG_SYNC),
        ("SGLang 0.4 @feb2b76 (TorchNativeLlamaForCausalLM), torch.compile, PyTorch 2.5.1", SGLANG_OVERLAP),
        # No version right after the name (the PyTorch version is not the engine's): unknown.
        ("SGLang @feb2b76, PyTorch 2.5.1", UNKNOWN_ENGINE),
        ("vLLM (version not stated; OpenAI-compatible server)", UNKNOWN_ENGINE),
        ("TGI 2.0", UNKNOWN_ENGINE),
        (None, NO_ENGINE),
    ],
)
def test_the_engine_and_its_version_choose_the_figure_and_the_overlap(software, expected) -> None:  # type: ignore[no-untyped-def]
    assert engine_cpu(software) == expected


def test_an_unknown_engine_is_the_slower_bound() -> None:
    assert not UNKNOWN_ENGINE.overlapped
    for gpu_s in (0.5e-3, 5e-3, 50e-3):
        overlapped = max(e.iteration_s(gpu_s) for e in (VLLM_V1_ASYNC, SGLANG_OVERLAP))
        assert UNKNOWN_ENGINE.iteration_s(gpu_s) >= overlapped


def test_a_synchronous_engine_adds_its_cpu_time_and_an_overlapped_one_hides_it() -> None:
    cpu = SGLANG_SYNC.step_s
    assert SGLANG_SYNC.iteration_s(5e-3) == pytest.approx(5e-3 + cpu)
    assert SGLANG_OVERLAP.iteration_s(5e-3) == pytest.approx(5e-3)  # the GPU is the longer
    assert SGLANG_OVERLAP.iteration_s(1e-3) == pytest.approx(cpu)  # the CPU is the longer
    # Without CUDA graphs the launches are CPU work too: overlapped, they queue with the engine's.
    assert SGLANG_OVERLAP.iteration_s(4e-3, launch_s=3e-3) == pytest.approx(3e-3 + cpu)


def test_what_is_assumed_from_a_source_reads_in_the_readers_language_and_the_source_as_published() -> None:
    # A Chinese estimate had ended its engine line in English: "(vLLM V1 assumed to match SGLang's
    # figure)" was part of the citation's text. The citation stays as published; our words translate.
    from gpuplan.i18n import use_language

    with use_language("zh"):
        zh = VLLM_V1_ASYNC.cited()
        unknown = UNKNOWN_ENGINE.cited()
    assert zh.startswith("WukLab (UC San Diego)") and "vLLM PR #27614" in zh
    assert "assumed" not in zh and "假定 vLLM V1" in zh and "假定 vLLM V1" in unknown
    english = VLLM_V1_ASYNC.cited(translated=False)
    assert english.endswith("(vLLM V1 assumed to match SGLang's figure; overlapped from v0.14.0)")
