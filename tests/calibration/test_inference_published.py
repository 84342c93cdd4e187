"""Published LLM decode and prefill figures against the inference model, held out.

The rows are the ``task: decode`` / ``task: prefill`` rows of ``calibration/data/calibration_v2.csv`` that
ran a PyTorch stack (``calibration.inference_cases``); ``benchmarks/inference_check.py`` prints the same
comparison. No constant is fitted on them (the efficiencies and the host time per launch come from
the training fit), so these errors are out of sample, and they move when the training fit moves.
With the calibration of 2026-12-01 on 69 training rows (bandwidth efficiency 0.735, host time 33.5 µs
per launch), 11 rows on A100, A10G and H100: median |error| 17.6 %, worst −39.6 % (the FMS step
compiled without CUDA graphs); the CUDA-graph rows −21 … +34 % (the H100 SGLang rows over-predicted
+16 … +34 %), the eager decode rows −19 … +18 % (the FMS eager step was −70 % before the host floor
for eager launches). With the earlier fit on 64 rows (bandwidth efficiency 0.653) the median was
16.4 %. With the fit of 2026-12-02 (115 rows) the median is 17.7 %, worst +56.6 %: the vLLM and
SGLang rows are predicted 18–57 % fast. Those engines' CPU work per iteration
(``perf/engine_cpu.py``, 2.9 ms) leaves them as they were: vLLM 0.23 and SGLang 0.4 overlap it with
the GPU, whose step is the longer in all four. The fit that ships (matmuls costed by their traced
shapes, a compiled prefill costed as a compiled forward): median 18.6 %, worst +56.6 % (the same
SGLang row); the compiled FMS prefill +0.5 % (+8.9 % before, when compile only cut its launches),
the eager one +2.7 %. With the fit of 2026-12-03 (fp16 master weights and the per-projection
tensor-parallel plan; host time 24.2 µs per launch) the median is 17.7 %; the compiled FMS decode step
falls to 9.29 ms against 21.31 ms (−56 %, 12.85 ms before), outside the factor of two, and is marked a
known miss below. The bounds below leave room for such refits: a factor of two per row, 25 % on the
median.

The known miss: FMS's script of 2023-09-18 times ``torch.compile`` (the PyTorch of that month, 2.0 or a
2.1 build; no CUDA graphs) with gradients enabled, and its rotary cache is a dict keyed by
``torch.device`` that every layer's attention mutates (a likely graph break for the Dynamo of then; not
checked on that version). The step is then bound by the host time of that stack — guards, any graph
breaks, AOTAutograd's grad-enabled wrappers, Triton's launcher of that year — which the model does not
represent:
it costs a compiled step without graphs as ~12 fused launches per layer at the eager fit's host time per
launch. Today's Inductor launches a kernel in 7–9 µs (PyTorch's tritonbench, 2026), so for a current
stack that floor is conservative; the row stays in the comparison and the mark is strict, so a model of
that host time that brings it inside the bound turns the mark into a failure to remove.
"""

from __future__ import annotations

import csv
import math
import statistics
from importlib import resources
from pathlib import Path

import pytest

from gpuplan.calibration.inference_cases import InferenceCase, inference_cases, predict_inference
from gpuplan.perf.calibration import load_calibration
from gpuplan.profile.model import Profile

PROFILES = Path(__file__).parent / "fixtures" / "profiles"
CASES = inference_cases()
CAL = load_calibration()


def _profile(case: InferenceCase) -> Profile:
    return Profile.from_json((PROFILES / case.profile_file).read_text(encoding="utf-8"))


def _error(case: InferenceCase) -> float:
    return predict_inference(case, _profile(case), CAL).value / case.published - 1.0


def test_every_known_miss_names_a_row() -> None:
    assert set(_KNOWN_MISS) <= {c.label for c in CASES}


def test_every_pytorch_decode_and_prefill_row_is_compared() -> None:
    text = (
        resources.files("gpuplan.calibration").joinpath("data/calibration_v2.csv").read_text(encoding="utf-8")
    )
    rows = [
        r
        for r in csv.DictReader(text.splitlines())
        if r["task"] in ("decode", "prefill") and "TensorRT" not in r["software"] and r["preset"]
    ]
    assert len(CASES) == len(rows) == 11
    assert {c.phase for c in CASES} == {"decode", "prefill"}
    assert {c.launch for c in CASES} == {"graphs", "compiled", "eager"}
    assert {c.architecture for c in CASES} == {"Ampere", "Hopper"}


_KNOWN_MISS = {
    "Llama-7B decode step, torch.compile (foundation-model-stack) A100-SXM4-80GB×1 [itl_ms]": (
        "compiled without CUDA graphs on the PyTorch of 2023-09 with gradients enabled: the host time "
        "of that stack (guards, graph breaks, grad-enabled wrappers, Triton's launcher) is not modelled"
    ),
}


def _marked(case: InferenceCase) -> object:
    reason = _KNOWN_MISS.get(case.label)
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(case, marks=marks, id=case.label[:60])


@pytest.mark.parametrize("case", [_marked(c) for c in CASES])
def test_each_row_is_predicted_within_a_factor_of_two_and_to_fit(case: InferenceCase) -> None:
    p = predict_inference(case, _profile(case), CAL)
    assert abs(math.log(p.value / case.published)) < math.log(2.0), (p.value, case.published)
    assert p.fits, "every published configuration ran, so it must be predicted to fit"


def test_median_error_over_the_rows_stays_below_25_percent() -> None:
    errors = [abs(_error(c)) for c in CASES]
    assert statistics.median(errors) < 0.25


def test_eager_decode_is_host_bound_and_graph_replay_is_not() -> None:
    eager = next(c for c in CASES if c.launch == "eager" and c.phase == "decode")
    dec = predict_inference(eager, _profile(eager), CAL).decode
    # One decode step of the eager 7B: each traced forward launch costs the training fit's host time.
    assert dec.time_per_token_s > 2.0 * dec.weights_gib * 1024**3 / (2039e9 * CAL.bandwidth_efficiency)
    single = [c for c in CASES if c.tensor_parallel == 1 and c.workload["inputs"]["batch_size"] == 1]
    graphs = next(c for c in single if c.launch == "graphs")
    g = predict_inference(graphs, _profile(graphs), CAL).decode
    # Batch 1 with CUDA graphs: weights (and the KV cache) over bandwidth × efficiency.
    read = g.weights_gib + g.kv_cache_gib_per_sequence
    bw = {"H100-SXM": 3350e9, "A100-SXM4-40GB": 1555e9, "A100-SXM4-80GB": 2039e9}[graphs.gpu]
    eff = CAL.for_gpu(graphs.gpu).bandwidth_efficiency
    assert g.time_per_token_s == pytest.approx(read * 1024**3 / (bw * eff))


def test_the_workload_cuda_graphs_flag_reaches_the_decode_estimate() -> None:
    # The same traced eager 7B step, estimated as a user's workload would be: with graphs it is the
    # weight read; with cuda_graphs: false it is the CPU issuing every launch (slower).
    from gpuplan.hardware import get_gpu
    from gpuplan.perf.sweep import estimate_all
    from gpuplan.perf.workload_request import request_for
    from gpuplan.workload import load_workload

    eager = next(c for c in CASES if c.launch == "eager" and c.metric == "itl_ms")
    prof = _profile(eager)
    steps: dict[bool, float] = {}
    for graphs in (True, False):
        w = load_workload(eager.workload | {"cuda_graphs": graphs})
        request = request_for(w, prof, get_gpu(eager.gpu), calibration=CAL)
        (outcome,) = estimate_all((request,), with_advice=False)
        assert outcome.decode is not None
        steps[graphs] = outcome.decode.time_per_token_s
    assert steps[False] > 2.0 * steps[True]
