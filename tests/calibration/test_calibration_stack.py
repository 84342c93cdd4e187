"""The calibration rows' publishers and software stacks (issue 24: ≥ 100 fitted rows, ≥ 15
publishers, ≥ 5 architectures, stock and tuned stacks, each row's stack from its launch script)."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from gpuplan.calibration import published as calibration_data
from gpuplan.calibration.cases import load_cases
from gpuplan.calibration.published import load_rows, parse_stack, publisher_group, stack_workload
from gpuplan.calibration.recorded_cases import RECORDED_PUBLISHER
from gpuplan.errors import DataError

ROWS = load_rows()
CASES, _ = load_cases()
FITTED = [c for c in CASES if c.used_in_fit and c.metric != "peak_mem_gib"]
#: The fitted rows a publisher printed (the steps this project measured run their spec as it is).
PUBLISHED = [c for c in FITTED if c.publisher != RECORDED_PUBLISHER]


def _row(case: object) -> calibration_data.MeasuredRow:
    """The published row a case was made from: its model, GPUs, metric and figure."""
    (row,) = [
        r
        for r in ROWS
        if r.model == case.workload["name"]  # type: ignore[attr-defined]
        and r.gpu == case.gpu  # type: ignore[attr-defined]
        and r.gpu_count == case.gpu_count  # type: ignore[attr-defined]
        and r.metric == case.metric  # type: ignore[attr-defined]
        and r.value == case.published  # type: ignore[attr-defined]
        and (r.task == "infer") == (case.workload["task"] == "infer")  # type: ignore[attr-defined]
    ]
    return row


def test_every_row_names_its_publisher() -> None:
    assert all(r.publisher for r in ROWS)


def test_the_fitted_rows_meet_the_issue_24_targets() -> None:
    assert len(FITTED) >= 100
    assert len({c.publisher for c in FITTED}) >= 15
    assert len({c.architecture for c in FITTED}) >= 5
    levels = Counter(c.stack_level for c in FITTED)
    assert levels["stock"] >= 10 and levels["tuned"] >= 10


def test_every_fitted_row_says_its_stack_and_where_it_was_read() -> None:
    for case in PUBLISHED:
        row = _row(case)
        assert row.stack and row.stack_source, case.label
        assert case.publisher == publisher_group(row.publisher)


def test_each_case_runs_the_stack_its_row_cites() -> None:
    from gpuplan.workload import load_workload

    for case in PUBLISHED:
        row = _row(case)
        stack = load_workload(case.workload).software_stack
        if "optimizer" in row.stack:
            assert stack.optimizer.value == row.stack["optimizer"], case.label
        if "compile" in row.stack:
            assert stack.compile == (row.stack["compile"] == "true"), case.label
        if "cuda_graphs" in row.stack:
            assert stack.cuda_graphs == (row.stack["cuda_graphs"] == "true"), case.label
        if "fused" in row.stack:
            fused = [] if row.stack["fused"] == "none" else row.stack["fused"].split("+")
            assert [k.value for k in stack.fused_kernels] == fused, case.label
        if "memory_format" in row.stack:
            assert stack.memory_format.value == row.stack["memory_format"], case.label


def test_the_nchw_and_nhwc_timm_runs_are_both_fitted() -> None:
    # The same model, GPU and batch in two memory formats: the layout transposes are the difference.
    timm = [c for c in FITTED if c.label.startswith("resnet50 (timm) train")]
    assert {c.workload["stack"]["memory_format"] for c in timm} == {"channels-first", "channels-last"}


def test_a_stack_column_reads_as_workload_fields() -> None:
    stack = parse_stack(
        "memory_format=nhwc;input=dali;fused=dense-activation+cross-entropy;cuda_graphs=true", "x"
    )
    assert stack_workload(stack) == {
        "cuda_graphs": True,
        "stack": {
            "memory_format": "channels-last",
            "input_pipeline": "dali",
            "fused_kernels": ["dense-activation", "cross-entropy"],
        },
    }
    assert stack_workload(parse_stack("fused=none;dropout=none", "x")) == {
        "stack": {"fused_kernels": [], "dropout": False}
    }
    assert stack_workload(parse_stack("tp_plan=per-projection", "x")) == {
        "stack": {"tensor_parallel_plan": "per-projection"}
    }


def test_the_kempnerforge_rows_run_their_codes_per_projection_plan_on_the_same_traces() -> None:
    kempner = [c for c in load_cases()[0] if "(KempnerForge)" in c.label]
    assert kempner and all(c.workload["stack"]["tensor_parallel_plan"] == "per-projection" for c in kempner)
    # The plan changes the collectives, not the traced step: the cached trace is the one without it.
    case = kempner[0]
    bare = {
        **case.workload,
        "stack": {k: v for k, v in case.workload["stack"].items() if k != "tensor_parallel_plan"},
    }
    assert case.profile_file == replace(case, workload=bare).profile_file


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("colour=blue", "is not KEY=VALUE"),
        ("fused", "is not KEY=VALUE"),
        ("fused=dense-activation+turbo", "unknown fused kernel 'turbo'"),
        ("compile=yes", "compile must be true or false"),
        ("memory_format=nhcw", "unknown memory format"),
        ("tp_plan=per-projektion", "did you mean 'per-projection'"),
    ],
)
def test_a_bad_stack_is_one_line_naming_the_row(text: str, message: str) -> None:
    with pytest.raises(DataError, match=message) as err:
        parse_stack(text, "v2.csv:9")
    assert str(err.value).startswith("v2.csv:9:") and "\n" not in str(err.value)


def test_a_row_without_a_publisher_or_with_an_unsourced_stack_is_rejected(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    header = (
        "model,task,gpu,gpu_count,precision,batch_size,seq_or_image,metric,value,source,notes,"
        "publisher,stack,stack_source,family"
    )
    base = "x,train,H100-SXM,1,bf16,2,seq2048,tokens_per_s,100,src,,"
    for line, message in (
        (base + ",,,decoder", "no publisher"),
        (base + "P,compile=true,,decoder", "without its stack_source"),
    ):
        monkeypatch.setattr(calibration_data, "read_data", lambda name, line=line: f"{header}\n{line}\n")
        with pytest.raises(DataError, match=message):
            load_rows(("bad.csv",))
