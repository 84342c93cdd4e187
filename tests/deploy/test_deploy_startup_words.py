"""The deploy README's cold start of a service's replica, in the reader's language: the disk's read
rate, said with its source at some length, ends the parenthesis it stands in."""

from __future__ import annotations

from pathlib import Path

import pytest

from one_line import answered


def test_the_zh_readme_says_the_read_rate_last(
    tmp_path: Path, fresh_catalog: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GPUPLAN_DB", str(fresh_catalog))
    job = tmp_path / "job.yaml"
    job.write_text(
        "name: cs-bot\ntask: infer\nmodel: {preset: qwen2.5-7b}\ninputs: {batch_size: 16, seq_len: 1050}\n"
        "precision: bf16\nserving: {requests_per_s: 2, prompt_tokens: 800, output_tokens: 250, "
        'engine: "vllm==0.8.5"}\n'
    )
    out = tmp_path / "out"
    args = ["--lang", "zh", "deploy", str(job), "--gpu", "A10", "--provider", "alibaba", "-t", "k8s"]
    answered([*args, "--image", "r/x:1", "-o", str(out)], capsys)
    readme = "".join((out / "README.md").read_text().split("\n"))
    # was "+ 1 × 15.2 GB 以 0.131 GB/s，即 AWS EBS gp3 的基准速率，… 不知道其磁盘的读取速率读取）": the verb
    # after the rate's own words
    assert "秒引擎启动 + 读取 1 × 15.2 GB，读取速率 0.131 GB/s，即 AWS EBS gp3 的基准速率，" in readme, readme
    assert "读取速率读取" not in readme


def test_the_plans_start_up_in_chinese_says_the_read_before_its_rate() -> None:
    # was "60 秒引擎启动（假设值）+ 1 × 15.2 GB 权重以 0.131 GB/s（假设：…）读取":
    # the verb after the rate's own words
    from gpuplan.i18n import use_language
    from gpuplan.start_up import StartUp

    start = StartUp(weights_gb=15.2, read_gbps=0.131, read_given=None, boot_s=0.0, boot_left_out="up")
    with use_language("zh"):
        said = start.parts_words()
    assert "+ 读取 1 × 15.2 GB 权重，读取速率 0.131 GB/s（" in said, said
    assert not said.rstrip("）").endswith("读取"), said
