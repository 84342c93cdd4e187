"""The torchtune rows' cases against torchtune's own configs and recipes, at the commits they cite.

pytorch/torchtune@30b8519e (2024-09-24, the README's "Memory and training speed" table) and @d002d45e3
(2024-09-25, the first commit with the Llama 3.2 configs); read 2026-12-04.
"""

from __future__ import annotations

from gpuplan.calibration.case import CalibrationCase
from gpuplan.calibration.cases import load_cases
from gpuplan.calibration.qlora_cases import qlora_cases


def _torchtune_lora_cases() -> list[CalibrationCase]:
    fitted, _ = load_cases()
    evaluated, _ = qlora_cases()
    return [
        c
        for c in (*fitted, *evaluated)
        if "(torchtune)" in c.workload["name"] and "lora" in c.workload.get("model", {})
    ]


def test_every_torchtune_lora_case_keeps_its_adapters_in_the_model_dtype() -> None:
    # recipes/lora_finetune_single_device.py builds the model under
    # training.set_default_dtype(self._dtype) and checks the adapters with
    # validate_expected_param_dtype(..., dtype=self._dtype); torchtune/modules/peft/lora.py's
    # LoRALinear makes lora_a and lora_b as plain nn.Linear, so in that dtype: bf16.
    cases = _torchtune_lora_cases()
    names = {c.workload["name"] for c in cases}
    assert {
        "Llama-3.1-8B LoRA (torchtune)",
        "Llama-3.1-8B QLoRA (torchtune)",
        "Llama-3.1-70B LoRA (torchtune)",
        "Llama-3.2-3B LoRA (torchtune)",
    } <= names
    assert {c.label: c.workload["model"]["lora"].get("dtype") for c in cases} == {
        c.label: "model" for c in cases
    }
