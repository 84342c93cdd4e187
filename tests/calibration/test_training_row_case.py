"""The one builder of a v2 training row's case and workload: what it takes from the row, what it
defaults, and that every publisher's case goes through it."""

from __future__ import annotations

from gpuplan.calibration.case import training_row_case, training_workload
from gpuplan.calibration.publisher_cases import v2_cases

ROW = {
    "model": "Llama-3-8B pretrain (Example)",
    "preset": "llama3-8b",
    "gpu": "H100-SXM",
    "gpu_count": "16",
    "metric": "tokens_per_s_per_gpu",
    "value": "8123.5",
}


def test_the_row_gives_the_gpu_count_metric_value_and_label() -> None:
    wl = training_workload(
        ROW, precision="bf16", micro_batch=2, seq_len=4096, grad_accum=8, checkpointing="none"
    )
    case = training_row_case(ROW, wl, micro_batch=2, why="because")
    assert case.label == "Llama-3-8B pretrain (Example) train bs2×16gpu H100-SXM [tokens_per_s_per_gpu]"
    assert (case.gpu, case.gpu_count, case.metric, case.published) == (
        "H100-SXM",
        16,
        "tokens_per_s_per_gpu",
        8123.5,
    )
    # Unless told otherwise: fitted, one micro-batch per step, the workload's sequence length, one node.
    assert case.used_in_fit and case.grad_accum_steps == 1 and case.seq_len == 4096
    assert (case.network_gbit_s, case.network_kind) == (None, None)
    assert wl["model"] == {"preset": "llama3-8b"} and wl["optimizer"] == "adamw-fused"
    assert wl["inputs"] == {"batch_size": 2, "seq_len": 4096} and wl["gradient_accumulation"] == 8


def test_a_network_is_rdma_and_the_given_fields_win() -> None:
    wl = training_workload(
        ROW,
        preset="gpt3-1.3b",
        precision="amp-bf16",
        micro_batch=1,
        seq_len=2048,
        grad_accum=4,
        checkpointing="full",
        attention="fused",
    )
    case = training_row_case(
        ROW,
        wl,
        micro_batch=1,
        why="w",
        label="mine",
        network_gbit_s=3200.0,
        grad_accum_steps=4,
        used_in_fit=False,
    )
    assert (case.label, case.network_gbit_s, case.network_kind) == ("mine", 3200.0, "rdma")
    assert (case.grad_accum_steps, case.used_in_fit) == (4, False)
    assert wl["model"] == {"preset": "gpt3-1.3b"} and wl["attention"] == "fused"


def test_every_multi_gpu_training_case_of_the_v2_file_is_labelled_by_the_builder() -> None:
    # The publishers' builders (FlagPerf, Megatron-LM, KempnerForge, OLMo-core, MLPerf, FlashAttention-2)
    # all label a multi-GPU training case "<model> train bs<micro>×<count>gpu … [<metric>]".
    cases, _left, _text = v2_cases()
    multi = [c for c in cases if c.gpu_count > 1 and c.workload.get("task") == "train"]
    assert len(multi) > 40
    assert all(f"×{c.gpu_count}gpu" in c.label and c.label.endswith(f"[{c.metric}]") for c in multi)
    assert all(c.network_kind == ("rdma" if c.network_gbit_s else None) for c in cases)
