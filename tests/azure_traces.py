"""Where the Azure LLM inference traces are (../shared/data/traces beside the repository; CI has
them) and the llama-8b inference profile the tests reuse."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TRACES = REPO.parent / "shared" / "data" / "traces"
CONV = TRACES / "AzureLLMInferenceTrace_conv.csv"
CODE = TRACES / "AzureLLMInferenceTrace_code.csv"
LLAMA_8B = (
    REPO / "tests" / "calibration" / "fixtures" / "profiles"
    / "Llama-3.1-8B-Instruct_decode,_1_request_vLLM_0.23.0-38764370bf9943bc.json"
)  # fmt: skip


def azure(path: Path) -> Path:
    """The trace's path, or skip naming what is missing (the repository does not copy them)."""
    if not path.is_file():
        pytest.skip(f"{path} is not here: the Azure LLM traces live in shared/data/traces beside the repo")
    return path


def llama_8b():  # type: ignore[no-untyped-def]
    from gpuplan.profile.model import Profile

    return Profile.from_json(LLAMA_8B.read_text(encoding="utf-8"))
