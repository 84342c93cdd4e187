"""The torchtune rows' cases against torchtune's own configs and recipes, at the commits they cite.

pytorch/torchtune@30b8519e (2024-09-24, the README's "Memory and training speed" table) and @d002d45e3
(2024-09-25, the first commit with the Llama 3.2 configs); read 2026-12-04.
"""

from __future__ import annotations

import csv

from gpuplan.calibration.case import CalibrationCase
from gpuplan.calibration.cases import load_cases
from gpuplan.calibration.published import read_data
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


#: Each torchtune row of calibration_v2.csv → the config its stack_source cites, each path read at its
#: commit: the 8B and 70B configs at @30b8519e (the Llama 3.1 configs live under llama3_1/), the
#: Llama 3.2 3B ones at @d002d45e3, the commit that added them (they are not in @30b8519e).
_CONFIGS = {
    "Llama-3.1-8B Full finetune (torchtune)": "@30b8519e recipes/configs/llama3_1/8B_full_single_device.yaml",
    "Llama-3.1-8B LoRA (torchtune)": "@30b8519e recipes/configs/llama3_1/8B_lora_single_device.yaml",
    "Llama-3.1-8B QLoRA (torchtune)": "@30b8519e recipes/configs/llama3_1/8B_qlora_single_device.yaml",
    "Llama-3.1-70B Full finetune (torchtune)": "@30b8519e recipes/configs/llama3_1/70B_full.yaml",
    "Llama-3.1-70B LoRA (torchtune)": "@30b8519e recipes/configs/llama3_1/70B_lora.yaml",
    "Llama-3.2-3B QLoRA (torchtune)": "@d002d45e3 recipes/configs/llama3_2/3B_qlora_single_device.yaml",
}
_LADDER = "@d002d45e3 recipes/configs/llama3_2/3B_full_single_device.yaml"


def test_each_torchtune_row_cites_its_own_config_at_a_commit_that_holds_it() -> None:
    rows = [
        r for r in csv.DictReader(read_data("calibration_v2.csv").splitlines()) if "(torchtune)" in r["model"]
    ]
    assert len(rows) == 12
    for row in rows:
        cited = _CONFIGS.get(row["model"], _LADDER if "Llama-3.2-3B full" in row["model"] else "")
        assert row["stack_source"].startswith(f"pytorch/torchtune{cited} "), row["model"]


def _fitted(name: str) -> CalibrationCase:
    return next(c for c in load_cases()[0] if c.workload["name"] == name)


def test_the_70b_lora_case_adapts_q_k_v_at_rank_16() -> None:
    # 70B_lora.yaml: lora_attn_modules ['q_proj', 'k_proj', 'v_proj'], no MLP, no output, rank 16.
    lora = _fitted("Llama-3.1-70B LoRA (torchtune)").workload["model"]["lora"]
    assert (lora["rank"], lora["targets"]) == (16, ["q", "k", "v"])


def test_the_3b_lora_case_adapts_the_mlp_too() -> None:
    # llama3_2/3B_lora_single_device.yaml@d002d45e3: ['q_proj', 'v_proj', 'output_proj'] and
    # apply_lora_to_mlp: True, rank 64.
    lora = _fitted("Llama-3.2-3B LoRA (torchtune)").workload["model"]["lora"]
    assert (lora["rank"], lora["targets"]) == (64, ["q", "v", "o", "gate", "up", "down"])
