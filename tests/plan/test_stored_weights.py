"""The weights an inference job keeps on its disk are the checkpoint's, in the dtype it stores them
in, which the engine downloads whatever precision it then runs in: Llama's bf16 files for an fp32
run (the traced fp32 size had been priced, twice what vLLM downloads); where the dtype is not known,
at fp32 or as traced, the larger, and said so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpuplan.plan.build_inputs import job_facts_from
from gpuplan.profile import profile
from gpuplan.workload import load_workload

CONFIG = Path(__file__).resolve().parents[2] / "examples" / "hf-config" / "config.json"
JOB = (
    "name: summaries\ntask: infer\nmodel: {model}\nprecision: fp32\n"
    "inputs: {{batch_size: 8, seq_len: 512, output_tokens: 64}}\n"
    "data: {{samples: 1000, size_gb: 1, results_gb: 1}}\n"
)


def _workload(tmp_path: Path, model: str):  # type: ignore[no-untyped-def]
    path = tmp_path / f"job-{len(list(tmp_path.glob('job-*')))}.yaml"
    path.write_text(JOB.format(model=model))
    return load_workload(path)


@pytest.fixture(scope="module")
def traced(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """Llama 3.2 1B at fp32, as the plan traces it: 4 bytes a weight."""
    return profile(_workload(tmp_path_factory.mktemp("traced"), "{preset: llama-1b}"))


def test_a_presets_weights_are_its_checkpoints_dtype_not_the_runs(tmp_path: Path, traced) -> None:  # type: ignore[no-untyped-def]
    (job, notes) = job_facts_from(_workload(tmp_path, "{preset: llama-1b}"), traced)
    traced_gb = (traced.peak.parameters_bytes + traced.peak.buffers_bytes) / 1e9
    assert traced.peak.parameters_bytes == pytest.approx(traced.params * 4)  # traced in fp32
    # meta-llama/Llama-3.2-1B-Instruct is stored in bfloat16: 2 bytes a weight, half the trace
    assert job.weights_gb == pytest.approx(traced.params * 2 / 1e9) and job.weights_gb < traced_gb / 1.9
    [said] = [n for n in notes if n.startswith("model weights")]
    assert f"{job.weights_gb:,.1f} GB on disk" in said and "bfloat16" in said, said


def test_an_hf_configs_torch_dtype_is_read_and_its_absence_counted_at_fp32(tmp_path: Path, traced) -> None:  # type: ignore[no-untyped-def]
    raw = json.loads(CONFIG.read_text())
    assert "torch_dtype" not in raw  # the example names none
    for name, dtype in (("bf16.json", "bfloat16"), ("fp16.json", "float16")):
        (tmp_path / name).write_text(json.dumps({**raw, "torch_dtype": dtype}))
        job, notes = job_facts_from(_workload(tmp_path, f"{{hf_config: {name}}}"), traced)
        assert job.weights_gb == pytest.approx(traced.params * 2 / 1e9), dtype
        assert any(dtype in n for n in notes if n.startswith("model weights")), notes
    # no torch_dtype: not known, so the larger of fp32 and the trace (here the trace, its buffers too)
    (tmp_path / "plain.json").write_text(json.dumps(raw))
    job, notes = job_facts_from(_workload(tmp_path, "{hf_config: plain.json}"), traced)
    traced_gb = (traced.peak.parameters_bytes + traced.peak.buffers_bytes) / 1e9
    assert job.weights_gb == pytest.approx(max(traced.params * 4 / 1e9, traced_gb))
    [said] = [n for n in notes if n.startswith("model weights")]
    assert "not known" in said and "4 bytes" in said, said
