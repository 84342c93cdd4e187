"""Every target that runs train.py says what it trains: the workload's own model, or a stand-in
said as such (the torchrun README had said it; the k8s, docker and skypilot ones of the same plan
had not, and their train.py trained a small random model of the same kind without a word)."""

from __future__ import annotations

from pathlib import Path

import pytest
from deploy_helpers import by_path, k8s_options, plan_doc

from gpuplan.deploy import GenerateOptions, LaunchSpec, generate
from gpuplan.i18n import use_language

STAND_IN = "trains a small stand-in of the same kind on seeded synthetic data"


@pytest.mark.parametrize("target", ["torchrun", "docker", "k8s", "skypilot"])
def test_the_readme_says_train_py_trains_a_stand_in_of_a_preset(target: str) -> None:
    spec = LaunchSpec.from_plan(plan_doc())
    assert spec.model_entry_point is None  # a preset: train.py cannot rebuild it
    options = k8s_options(spec, GenerateOptions(out_dir="/srv/launch"))
    readme = " ".join(by_path(generate(spec, target, options))["README.md"].split())
    assert STAND_IN in readme and spec.model_source in readme, readme
    with use_language("zh"):
        zh = by_path(generate(spec, target, options))["README.md"]
    assert STAND_IN not in zh and "合成数据" in zh


def _finetune(tmp_path: Path, model: str, **where: str) -> LaunchSpec:
    p = tmp_path / "ft.yaml"
    p.write_text(
        f"name: ft\ntask: finetune\nmodel: {model}\ninputs: {{batch_size: 8, seq_len: 1024}}\n"
        "precision: bf16\noptimizer: adamw\nparallelism: ddp\n"
    )
    return LaunchSpec.from_workload(p, gpu="A100-SXM4-80GB", count=8, **where)


@pytest.mark.parametrize("target", ["torchrun", "docker", "k8s"])
@pytest.mark.parametrize("model", ["{preset: llama-8b}", "{preset: llama-8b, lora: {rank: 16}}"])
def test_a_fine_tunes_readme_says_where_its_base_weights_come_from_and_how_from_china(
    tmp_path: Path, target: str, model: str
) -> None:
    """A full or LoRA fine-tune of a Hub model starts from its weights, which train.py does not
    fetch: the README names them, and from mainland China, where huggingface.co is often
    unreachable, the ways around it."""
    spec = _finetune(tmp_path, model, provider="alibaba", region="cn-beijing")
    options = k8s_options(spec, GenerateOptions(out_dir="/srv/launch"))
    readme = " ".join(by_path(generate(spec, target, options))["README.md"].split())
    assert "starts from the weights of `meta-llama/Llama-3.1-8B-Instruct` on the Hugging Face Hub" in readme
    assert "its pretrained checkpoint is `meta-llama/Llama-3.1-8B`" in readme
    assert "huggingface.co is often unreachable from mainland China (alibaba cn-beijing)" in readme
    assert "HF_ENDPOINT" in readme and "modelscope download --model ID" in readme
    with use_language("zh"):
        zh = by_path(generate(spec, target, options))["README.md"]
    assert "本次微调以 Hugging Face Hub 上 `meta-llama/Llama-3.1-8B-Instruct` 的权重为起点" in zh
    assert "或把 HF_ENDPOINT 设为您信任的镜像，或从 ModelScope（魔搭社区）下载" in zh
    assert "HF_TOKEN。在中国大陆（alibaba cn-beijing）" in zh  # no space after a full-width stop


def test_outside_china_the_base_weights_are_named_without_the_mirrors(tmp_path: Path) -> None:
    readme = by_path(generate(_finetune(tmp_path, "{preset: llama-8b}", provider="aws"), "torchrun"))[
        "README.md"
    ]
    assert "https://huggingface.co/meta-llama/Llama-3.1-8B-Instruct" in readme
    assert "HF_ENDPOINT" not in readme and "ModelScope" not in readme


def test_training_from_scratch_names_no_base_weights(tmp_path: Path) -> None:
    spec = _finetune(tmp_path, "{preset: llama-8b}", provider="alibaba", region="cn-beijing")
    readme = by_path(generate(spec.model_copy(update={"task": "train"}), "torchrun"))["README.md"]
    assert "starts from the weights" not in readme


def test_a_fine_tune_on_a_chinese_cloud_in_no_named_region_is_told_where_else_the_weights_come_from(
    tmp_path: Path,
) -> None:
    # the region unknown on a provider with mainland regions: said as a condition, where it said
    # nothing
    spec = _finetune(tmp_path, "{preset: llama-8b}", provider="huawei")
    readme = " ".join(by_path(generate(spec, "torchrun"))["README.md"].split())
    assert "If this runs in a mainland China region of huawei (no region is named: pick one" in readme
    assert "modelscope download --model ID" in readme
