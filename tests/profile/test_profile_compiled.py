"""torch.compile's saved tensors, measured with AOTAutograd's partitioners on fake tensors.

The pieces (one loss, one Llama block) are checked on shapes whose bytes can be counted by hand;
a traced step with ``compile: true`` against the same step eager.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch
import torch.nn.functional as F
from torch._subclasses.fake_tensor import FakeTensorMode

from gpuplan.profile.compiled import TensorSpec, block_saved, loss_saved
from gpuplan.profile.key import key_fields, trace
from gpuplan.profile.model import Profile
from gpuplan.workload import Workload
from gpuplan.workload.presets.info import Arch
from gpuplan.workload.presets.layers import rope_cos_sin
from gpuplan.workload.presets.llama import Block

Make = Callable[..., Workload]
Traced = Callable[..., Profile]


def _cross_entropy(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    return F.cross_entropy(logits.float().view(-1, logits.shape[-1]), labels.view(-1))


def test_a_compiled_cross_entropy_keeps_one_float_per_token_where_eager_keeps_the_log_probs() -> None:
    # bf16 logits of 4 × 64 tokens over 1000 classes. Eager log_softmax keeps its fp32 output for
    # backward: 256 × 1000 × 4 B = 1,024,000 B. Compiled (inductor's decompositions, min-cut
    # partition), backward recomputes the softmax from the 16-bit logits (alive anyway, not
    # counted) and per-token statistics: at most two fp32 per token, 256 × 8 B = 2,048 B.
    with FakeTensorMode():
        logits = TensorSpec((4, 64, 1000), (64_000, 1000, 1), torch.bfloat16, True)
        labels = torch.randint(0, 1000, (4, 64))
        pair = loss_saved(_cross_entropy, logits, [labels], None)
    assert pair.eager_bytes == 256 * 1000 * 4
    assert 0 < pair.compiled_bytes <= 256 * 8
    assert pair.input_grad_bytes == 256 * 1000 * 2  # the bf16 logits' gradient


def test_a_compiled_llama_block_keeps_less_than_eager_and_both_scale_with_the_tokens() -> None:
    a = Arch(layers=1, hidden=256, heads=4, kv_heads=4, head_dim=64, intermediate=688, vocab=1000)

    def saved(batch: int) -> tuple[int, int]:
        with FakeTensorMode():
            block = Block(a)
            x = torch.empty(batch, 128, a.hidden, requires_grad=True)
            inv = 1.0 / (10_000.0 ** (torch.arange(0, a.head_dim, 2, dtype=torch.float32) / a.head_dim))
            cos, sin = rope_cos_sin(inv, 128, torch.bfloat16)
            pair = block_saved(block, (x, cos, sin), {}, torch.bfloat16)
        return pair.eager_bytes, pair.compiled_bytes

    eager1, compiled1 = saved(1)
    eager2, compiled2 = saved(2)
    sbh = 128 * a.hidden
    # The partitioner recomputes RMSNorm's fp32 upcast and SwiGLU's silu·up in backward: what it
    # keeps is about 3/5 of what eager autograd keeps (30.5 vs 52 bytes per s·b·h at the OLMo-2 1B
    # shape); no weight and no view counts, so twice the tokens is twice the bytes.
    assert compiled1 < 0.75 * eager1
    assert eager2 == 2 * eager1 and compiled2 == 2 * compiled1
    assert 20 * sbh < compiled1 < eager1 < 70 * sbh


def test_compile_enters_the_profile_key_of_a_training_step_only(small_gpt2: Make) -> None:
    assert key_fields(small_gpt2(compile=True))["compile"] is True
    assert "compile" not in key_fields(small_gpt2())
    assert "compile" not in key_fields(small_gpt2(task="infer", compile=True))


def test_a_compiled_step_keeps_fewer_activations_and_no_fp32_loss_intermediates(
    trace_once: Traced, small_gpt2: Make
) -> None:
    # bs2 × 1024: the step peaks at the end of forward (at bs2 × 128 it peaks in AdamW's step).
    # Under bf16 autocast the partitioner keeps the blocks' 16-bit casts' sources and recomputes
    # the casts and GELU (in fp32 it keeps exactly what eager keeps for GPT-2's blocks).
    long = {"inputs": {"batch_size": 2, "seq_len": 1024}, "precision": "amp-bf16"}
    eager = trace_once(small_gpt2(**long))
    compiled = trace_once(small_gpt2(compile=True, **long))
    # Same step, same ops: only what is kept for backward differs.
    assert compiled.flops_per_step == eager.flops_per_step
    assert compiled.peak.parameters_bytes == eager.peak.parameters_bytes
    assert compiled.peak.activations_bytes < 0.95 * eager.peak.activations_bytes
    # The compiled loss's peak is the gradient of its input, the bf16 logits: 2 × 1024 × 50,257
    # × 2 B = 206 MB, where eager also held the fp32 upcast and log-probabilities.
    assert compiled.peak.temporaries_bytes == pytest.approx(2 * 1024 * 50_257 * 2, rel=0.01)
    assert eager.peak.temporaries_bytes > compiled.peak.temporaries_bytes
    assert any(n.startswith("torch.compile: activations") for n in compiled.notes)
    # What the compiled loss saves is named apart (code that compiles only its model keeps it):
    # the eager loss's temporaries less its input's gradient, within the whole saving.
    loss = eager.peak.temporaries_bytes - compiled.peak.temporaries_bytes
    assert compiled.compiled_loss_saving_bytes == pytest.approx(loss)
    assert 0 < compiled.compiled_loss_saving_bytes <= compiled.compile_saving_bytes
    assert eager.compiled_loss_saving_bytes == 0


def test_a_checkpointed_compiled_step_keeps_the_eager_memory_and_says_so(
    trace_once: Traced, small_gpt2: Make
) -> None:
    compiled = trace_once(small_gpt2(compile=True, activation_checkpointing="full"))
    eager = trace_once(small_gpt2(activation_checkpointing="full"))
    assert compiled.peak == eager.peak and compiled.compiled_loss_saving_bytes == 0
    assert any("checkpointed blocks keep only their inputs" in n for n in compiled.notes)


def test_a_compiled_transformers_model_partitions_its_layers_despite_the_kv_cache_they_are_passed() -> None:
    # transformers hands every decoder layer a KV-cache object even in training (use_cache is on
    # unless checkpointing turns it off); the layer is partitioned without it. The loss is inside
    # the model's forward, so it keeps its eager memory, and the trace says so.
    pytest.importorskip("transformers")
    config = Path(__file__).parents[1] / "workload" / "fixtures" / "hf" / "gpt2.json"
    common: dict[str, Any] = {"inputs": {"batch_size": 2, "seq_len": 1024}, "precision": "amp-bf16"}
    model = {"hf_config": str(config)}
    eager = trace(Workload.from_dict({"name": "h", "model": model, **common}))
    compiled = trace(Workload.from_dict({"name": "h", "model": model, "compile": True, **common}))
    assert 0 < compiled.compile_saving_bytes < eager.peak.total_bytes
    assert compiled.peak.activations_bytes < eager.peak.activations_bytes
    assert any("the loss was not partitioned on its own" in n for n in compiled.notes)
