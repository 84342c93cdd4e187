"""The published measurements in calibration/data: every row valid, enough of each kind (issue 9 targets)."""

from __future__ import annotations

from collections import Counter
from importlib import resources

import pytest

from gpuplan.calibration import published
from gpuplan.calibration.published import METRICS, MeasuredRow, load_rows
from gpuplan.errors import DataError
from gpuplan.hardware import get_gpu

ROWS = load_rows()
THROUGHPUT = [r for r in ROWS if r.kind == "throughput"]


def _header(name: str) -> list[str]:
    text = resources.files("gpuplan.calibration").joinpath(f"data/{name}").read_text(encoding="utf-8")
    return text.splitlines()[0].split(",")


def test_v2_keeps_the_columns_of_calibration_csv_first_and_in_order() -> None:
    old = _header("calibration.csv")
    assert _header("calibration_v2.csv")[: len(old)] == old


def test_every_row_has_a_source_a_catalog_gpu_and_a_positive_value_in_a_known_unit() -> None:
    for r in ROWS:
        assert r.source, r.label
        assert get_gpu(r.gpu).architecture == r.arch, r.label
        assert r.metric in METRICS[r.kind], r.label
        if r.kind == "fit":
            assert r.value is None and r.fits is not None, r.label
        else:
            assert r.value is not None and r.value > 0, r.label
        assert r.nodes * r.gpus_per_node == r.gpu_count, r.label


def test_no_row_is_listed_twice() -> None:
    keys = Counter(
        (r.source, r.model, r.task, r.gpu, r.gpu_count, r.metric, r.seq_or_image, r.batch_size, r.precision)
        for r in ROWS
    )
    assert [k for k, n in keys.items() if n > 1] == []


def test_throughput_rows_meet_the_issue_9_targets() -> None:
    # Issue 9: >= 40 throughput rows over >= 4 GPU architectures.
    assert len(THROUGHPUT) >= 40
    assert len({r.arch for r in THROUGHPUT}) >= 4


def test_rows_reach_blackwell_and_cdna_where_data_was_found() -> None:
    archs = {r.arch for r in ROWS}
    assert {"Volta", "Turing", "Ampere", "Ada Lovelace", "Hopper", "Blackwell", "CDNA 3"} <= archs


def test_llm_training_rows_cover_a100_and_h100_single_and_multi_node() -> None:
    llm = [r for r in THROUGHPUT if r.family == "decoder" and r.task in ("train", "finetune")]
    assert len(llm) >= 10
    gpus = {r.gpu for r in llm}
    assert {"A100-SXM4-80GB", "H100-SXM"} <= gpus
    assert any(not r.multi_node for r in llm) and any(r.multi_node for r in llm)


def test_multi_node_rows_are_at_least_five_and_each_names_its_network() -> None:
    multi = [r for r in THROUGHPUT if r.multi_node]
    assert len(multi) >= 5
    assert all(r.network and r.parallelism for r in multi), [r.label for r in multi if not r.network]


def test_long_sequence_rows_reach_8k_and_beyond() -> None:
    assert sum(1 for r in THROUGHPUT if (r.seq_len or 0) >= 8192) >= 5
    assert max(r.seq_len or 0 for r in THROUGHPUT) >= 32768


def test_vision_and_encoder_rows_exist_on_ada_and_hopper() -> None:
    def families(arch: str) -> set[str]:
        return {r.family for r in THROUGHPUT if r.arch == arch} & {"cnn", "vit", "encoder"}

    assert {"cnn", "vit"} <= families("Ada Lovelace")
    assert {"cnn", "encoder"} <= families("Hopper")


def test_serving_rows_cover_decode_and_prefill() -> None:
    decode = [r for r in ROWS if r.metric in ("itl_ms", "output_tokens_per_s", "output_tokens_per_s_per_gpu")]
    prefill = [r for r in ROWS if r.metric == "ttft_ms" or r.seq_or_image.startswith("in2048/")]
    assert len(decode) >= 4 and len(prefill) >= 2


def test_memory_checks_include_runs_that_fit_and_runs_that_did_not() -> None:
    checks = [r for r in ROWS if r.fits is not None]
    assert len(checks) >= 20
    assert any(r.fits is False for r in checks)
    # A published peak memory below the GPU's memory is what "it ran" means.
    for r in checks:
        if r.fits and r.memory_gib is not None:
            assert r.memory_gib <= get_gpu(r.gpu).memory_gib, r.label


def test_every_v2_row_says_which_model_shape_it_ran() -> None:
    # A preset, explicit shape numbers, or (litgpt rows) the litgpt config file that holds them.
    for r in ROWS:
        if r.file == "calibration_v2.csv":
            assert r.preset or r.model_shape or "litgpt/config.py" in r.notes, r.label


def test_tflops_rows_say_how_the_publisher_counted_flops() -> None:
    for r in ROWS:
        if r.metric.endswith("tflops_per_gpu"):
            assert r.flop_formula, r.label


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("x,train,H100-SXM,1,bf16,2,seq2048,tokens_per_s,100,,", "no source"),
        ("x,train,Z9000,1,bf16,2,seq2048,tokens_per_s,100,src,", "not in the hardware catalog"),
        ("x,train,H100-SXM,1,bf16,2,seq2048,furlongs,100,src,", "not a throughput metric"),
        ("x,train,H100-SXM,1,bf16,2,seq2048,tokens_per_s,-3,src,", "positive and finite"),
        ("x,train,H100-SXM,1,bf16,2,seq2048,tokens_per_s,nan,src,", "positive and finite"),
    ],
)
def test_a_bad_row_is_rejected_naming_file_and_line(
    monkeypatch: pytest.MonkeyPatch, line: str, message: str
) -> None:
    header = (
        "model,task,gpu,gpu_count,precision,batch_size,seq_or_image,metric,value,source,notes,"
        "publisher,family"
    )
    monkeypatch.setattr(published, "read_data", lambda name: f"{header}\n{line},P,decoder\n")
    with pytest.raises(DataError, match=message) as err:
        load_rows(("bad.csv",))
    assert str(err.value).startswith("bad.csv:2:")


def test_a_v2_row_reads_its_multi_node_configuration() -> None:
    row = next(r for r in ROWS if r.model.startswith("GPT 1.7B pretrain (Megatron-LM)"))
    assert isinstance(row, MeasuredRow)
    # Table 1 of Narayanan et al.: 32 GPUs = 4 DGX A100 nodes, 8x200 Gb/s InfiniBand each.
    assert (row.nodes, row.gpus_per_node, row.gpu_count) == (4, 8, 32)
    assert row.model_shape == {"layers": 24, "hidden": 2304, "heads": 24, "vocab": 51200}
    assert row.value == 137 and row.seq_len == 2048 and "InfiniBand" in row.network
