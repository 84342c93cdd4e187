"""Rows mapped from their own columns: each case runs what its row says, and only that."""

from __future__ import annotations

from gpuplan.calibration.cases import CalibrationCase, load_cases
from gpuplan.calibration.column_cases import COLUMN_PUBLISHERS, column_case
from gpuplan.calibration.published import load_rows


def _cases() -> dict[str, CalibrationCase]:
    cases, _ = load_cases()
    return {c.label: c for c in cases if c.publisher in COLUMN_PUBLISHERS}


def _one(fragment: str) -> CalibrationCase:
    (case,) = [c for label, c in _cases().items() if fragment in label]
    return case


def test_five_publishers_on_four_architectures_are_fitted() -> None:
    cases = _cases().values()
    assert len(cases) == 10 and all(c.used_in_fit for c in cases)
    assert {c.publisher for c in cases} == COLUMN_PUBLISHERS and len(COLUMN_PUBLISHERS) == 5
    assert {c.architecture for c in cases} == {"Ada Lovelace", "Ampere", "Hopper", "Volta"}
    assert {c.stack_level for c in cases} == {"stock", "tuned"}


def test_a_padded_vocabulary_is_the_row_s_pad_vocab_multiple() -> None:
    padded = _one("vocabulary 50,304")
    assert padded.workload["model"] == {"preset": "gpt2", "pad_vocab_multiple": 64}
    assert padded.workload["compile"] is True
    assert _one("SDPA + torch.compile (LLMs").workload["model"] == {"preset": "gpt2"}


def test_a_lora_row_gets_its_adapter_and_a_full_finetune_none() -> None:
    lora = _one("LoRA r32 on q,v")
    assert lora.workload["model"] == {"preset": "llama-3b", "lora": {"rank": 32, "targets": ["q", "v"]}}
    full = _one("Llama-3.2-3B full fine-tune")
    assert full.workload["model"] == {"preset": "llama-3b"}
    # PEFT's run.py: bf16 weights without autocast, torch AdamW, 4 samples of 210 tokens on average.
    assert full.workload["precision"] == "bf16" and full.workload["optimizer"] == "adamw"
    assert full.workload["inputs"] == {"batch_size": 4, "seq_len": 210}
    assert full.gpu == "L40S" and full.stack_level == "stock"


def test_deepspeed_bert_scores_only_the_masked_positions_over_ten_micro_batches() -> None:
    case = _one("BERT-Large pretraining seq128")
    assert case.workload["inputs"] == {"batch_size": 64, "seq_len": 128, "masked_tokens": 20}
    assert case.grad_accum_steps == 10 and case.workload["gradient_accumulation"] == 10
    assert case.workload["attention"] == "fused-softmax" and case.workload["precision"] == "fp16-master"
    assert case.workload["stack"]["fused_kernels"] == ["dense-activation", "dropout-add-norm"]


def test_the_fsdp_row_shards_over_its_node() -> None:
    case = _one("Granite-7B")
    assert case.parallelism == "fsdp" and case.gpu_count == 4 and case.gpus_per_node == 4
    assert case.workload["activation_checkpointing"] == "full"
    assert case.metric == "tokens_per_s_per_gpu"


def test_a_row_this_mapping_cannot_state_is_left_out_with_its_reason() -> None:
    (row,) = [r for r in load_rows() if r.model.startswith("Granite-7B")]
    raw = {
        "parallelism": "TP=2",
        "nodes": "1",
        "seq_or_image": "seq4096",
        "preset": row.preset,
    }
    case, why = column_case(raw)
    assert case is None and "not one node of DDP or FSDP" in why


def test_deepspeed_bert_pads_its_vocabulary_and_gpt2_from_scratch_does_not() -> None:
    # bing_bert pads 30,522 to 30,528 (the row's model_shape says pad_vocab=8); the book's GPT-2
    # keeps 50,257 until the README's step 9, which is not a row.
    assert _one("seq128, MLM on 20").workload["model"]["pad_vocab_multiple"] == 8
    assert "pad_vocab_multiple" not in _one("step 7").workload["model"]


def test_the_evaluations_inside_the_timed_interval_are_charged_to_it() -> None:
    from dataclasses import replace
    from pathlib import Path

    import pytest

    from gpuplan.calibration.cases import predict
    from gpuplan.perf.calibration import load_calibration
    from gpuplan.profile.model import Profile

    # LLMs-from-scratch times 10 steps and the evaluation after them: 2 forwards per 10 steps.
    case = _one("step 7")
    assert case.eval_forwards_per_step == pytest.approx(0.2)
    assert "evaluation forward" in case.why
    prof = Profile.from_json(
        (Path(__file__).parent / "fixtures" / "profiles" / case.profile_file).read_text(encoding="utf-8")
    )
    cal = load_calibration()
    alone = predict(replace(case, eval_forwards_per_step=0.0), prof, cal)
    with_eval = predict(case, prof, cal)
    # a forward is a third to a half of a step (host-bound forwards weigh more): 2 of them per 10
    # steps cost 6–10 % of the throughput
    assert 0.90 < with_eval / alone < 0.94
    # nobody else's clock holds evaluations this way
    assert all(
        c.eval_forwards_per_step == 0.0 for c in _cases().values() if "LLMs-from-scratch" not in c.label
    )
