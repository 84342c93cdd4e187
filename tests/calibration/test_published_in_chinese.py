"""A bad row of a calibration data file, named with its file and line in English and in Chinese."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpuplan.calibration import published
from gpuplan.calibration.published import load_rows
from gpuplan.errors import GpuplanError
from gpuplan.i18n import use_language
from gpuplan.i18n.error_text import error_text


def _bad_row(monkeypatch: pytest.MonkeyPatch, line: str) -> Callable[[], object]:
    header = (
        "model,task,gpu,gpu_count,precision,batch_size,seq_or_image,metric,value,source,notes,"
        "publisher,stack,stack_source,family"
    )
    monkeypatch.setattr(published, "read_data", lambda name: f"{header}\n{line}\n")
    return lambda: load_rows(("bad.csv",))


def _line(call: Callable[[], object], language: str) -> str:
    """The line ``call`` raises, made and written in ``language`` as under the CLI."""
    with use_language(language), pytest.raises(GpuplanError) as info:
        call()
    with use_language(language):
        return error_text(info.value)


THROUGHPUT_METRICS = ", ".join(sorted(published.METRICS["throughput"]))
# A bad row of a calibration file: (row, English line, Chinese line); the file and line lead both.
ROWS = [
    (
        "x,train,H100-SXM,1,bf16,2,seq2048,tokens_per_s,100,,,NVIDIA,,,decoder",
        "bad.csv:2: no source",
        "bad.csv:2：缺少来源（source）",
    ),
    (
        "x,train,H100-SXM,1,bf16,2,seq2048,tokens_per_s,100,src,,,,,decoder",
        "bad.csv:2: no publisher",
        "bad.csv:2：缺少发布者（publisher）",
    ),
    (
        "x,train,H100-SXM,1,bf16,2,seq2048,tokens_per_s,100,src,,NVIDIA,tuned,,decoder",
        "bad.csv:2: a stack without its stack_source",
        "bad.csv:2：给出了 stack 却没有 stack_source",
    ),
    (
        "x,train,H100-SXM,1,bf16,2,seq2048,furlongs,100,src,,NVIDIA,,,decoder",
        f"bad.csv:2: metric 'furlongs' is not a throughput metric ({THROUGHPUT_METRICS})",
        f"bad.csv:2：metric 'furlongs' 不是 throughput 类指标（{THROUGHPUT_METRICS.replace(', ', '、')}）",
    ),
    (
        "x,train,H100-SXM,1,bf16,2,seq2048,tokens_per_s,-3,src,,NVIDIA,,,decoder",
        "bad.csv:2: value must be positive and finite, got '-3'",
        "bad.csv:2：value 必须是有限的正数，实际为 '-3'",
    ),
    (
        "x,train,H100-SXM,two,bf16,2,seq2048,tokens_per_s,100,src,,NVIDIA,,,decoder",
        "bad.csv:2: gpu_count 'two' is not a whole number",
        "bad.csv:2：gpu_count 'two' 不是整数",
    ),
    (
        "x,train,H100-SXM,1,bf16,2,seq2048,tokens_per_s,100,src,,NVIDIA,,,martian",
        "bad.csv:2: family 'martian' is not one of cnn, decoder, encoder, encoder-decoder, vit",
        "bad.csv:2：family 'martian' 不在以下之列：cnn、decoder、encoder、encoder-decoder、vit",
    ),
    (
        "x,dance,H100-SXM,1,bf16,2,seq2048,tokens_per_s,100,src,,NVIDIA,,,decoder",
        "bad.csv:2: task 'dance' is not one of decode, finetune, infer, prefill, serve, train",
        "bad.csv:2：task 'dance' 不在以下之列：decode、finetune、infer、prefill、serve、train",
    ),
]


@pytest.mark.parametrize(("row", "english", "chinese"), ROWS)
def test_a_bad_calibration_row_is_named_in_chinese(
    monkeypatch: pytest.MonkeyPatch, row: str, english: str, chinese: str
) -> None:
    call = _bad_row(monkeypatch, row)
    assert _line(call, "en") == english
    assert _line(call, "zh") == chinese
