"""The published QLoRA rows, evaluated with the shipped calibration and not fitted.

Profiles: ``tests/calibration/fixtures/profiles/`` (``benchmarks/calibrate.py`` traces them). The
errors measured 2026-12-04 are in each test's comment; the tolerances leave room for a refit, not
for the next regression.
"""

from __future__ import annotations

from pathlib import Path

from gpuplan.calibration.case import CalibrationCase
from gpuplan.calibration.cases import load_cases
from gpuplan.calibration.qlora_cases import Evaluated, evaluate, qlora_cases
from gpuplan.perf.calibration import load_calibration
from gpuplan.profile.model import Profile

PROFILES = Path(__file__).parent / "fixtures" / "profiles"
CASES, LEFT = qlora_cases()


def _case(name: str) -> CalibrationCase:
    return next(c for c in CASES if c.workload["name"] == name)


def _profile(case: CalibrationCase) -> Profile:
    return Profile.from_json((PROFILES / case.profile_file).read_text(encoding="utf-8"))


def _evaluated(name: str, quantity: str) -> Evaluated:
    case = _case(name)
    return next(e for e in evaluate(case, _profile(case)) if e.quantity == quantity)


def _within(e: Evaluated, factor: float) -> bool:
    return 1 / factor <= e.predicted / e.published <= factor


def test_each_row_takes_its_source_configs_quantization() -> None:
    # torchtune's qlora_llama3_1_8b: torchao NF4 always double-quantizes its block scalers.
    tt = (
        _case("Llama-3.1-8B QLoRA (torchtune)")["model"] if False else _case("Llama-3.1-8B QLoRA (torchtune)")
    )
    lora = tt.workload["model"]["lora"]
    assert (lora["quantization"], lora["double_quantization"], lora["rank"]) == ("nf4", True, 8)
    assert set(lora["targets"]) == {"q", "k", "v", "o", "gate", "up", "down"}
    # litgpt's qlora.yaml: quantize: bnb.nf4 (Fabric's _NF4Linear, compress_statistics=False).
    for name in (
        "llama-2-7b qlora (litgpt llama-2-7b/qlora.yaml)",
        "llama-3-8b qlora (litgpt llama-3-8b/qlora.yaml)",
    ):
        lora = _case(name).workload["model"]["lora"]
        assert lora["quantization"] == "nf4" and not lora.get("double_quantization", False)
        assert (lora["rank"], lora["targets"]) == (32, ["q", "v"])
    # Their LoRA runs beside them in litgpt's table: the same adapters, no quantization.
    assert (
        "quantization" not in _case("llama-2-7b lora (litgpt llama-2-7b/lora.yaml)").workload["model"]["lora"]
    )


def test_the_offloaded_row_stays_out_with_its_reason() -> None:
    assert [label for label, _ in LEFT] == ["Llama-3.2-3B QLoRA (torchtune) A100-SXM4-80GB×1 [tokens_per_s]"]
    assert "activation offloading" in LEFT[0][1]


def test_none_is_fitted_nor_among_the_fits_cases() -> None:
    assert CASES and not any(c.used_in_fit for c in CASES)
    fitted = {c.workload["name"] for c in load_cases()[0]}
    assert not fitted & {c.workload["name"] for c in CASES}


def test_litgpt_lora_peaks_within_the_memory_band() -> None:
    # llama-2-7b 18.41 GiB → 17.87 (−2.9 %); llama-3-8b 18.37 → 17.96 (−2.3 %).
    band = load_calibration().memory_band
    for name in (
        "llama-2-7b lora (litgpt llama-2-7b/lora.yaml)",
        "llama-3-8b lora (litgpt llama-3-8b/lora.yaml)",
    ):
        assert _within(_evaluated(name, "memory"), band), name


def test_litgpt_qlora_peaks_are_under_predicted() -> None:
    # llama-2-7b 12.74 GiB → 9.22 (−27.7 %); llama-3-8b 16.21 → 11.46 (−29.3 %). Published, the 7B's
    # QLoRA saves 5.7 GiB on its LoRA run; the model saves 8.7 (the 4-bit weights alone: 6.5e9 ×
    # 1.44 B = 8.7 GiB), so litgpt's QLoRA holds ≈ 3 GiB the trace does not. Outside the band: pinned
    # so that a change to the quantized layers' memory shows here.
    for name in (
        "llama-2-7b qlora (litgpt llama-2-7b/qlora.yaml)",
        "llama-3-8b qlora (litgpt llama-3-8b/qlora.yaml)",
    ):
        e = _evaluated(name, "memory")
        assert -35 < e.error_pct < -20, (name, e.error_pct)
