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


def _own_model(folder: Path, *packaging: str, src: bool = False) -> LaunchSpec:
    """A workload of the user's own model, ``pkg.model:build``, in ``folder`` (under ``src/``
    with ``src``), with the packaging files named."""
    code = folder / "src" / "pkg" if src else folder / "pkg"
    code.mkdir(parents=True)
    (code / "__init__.py").write_text("")
    (code / "model.py").write_text("def build():\n    pass\n")
    for name in packaging:
        (folder / name).write_text("[project]\nname = 'pkg'\n" if name == "pyproject.toml" else "")
    job = folder / "w.yaml"
    job.write_text("name: w\nmodel: {python: 'pkg.model:build'}\ninputs: {batch_size: 2}\n")
    return LaunchSpec.from_workload(job, gpu="T4")


@pytest.mark.parametrize(
    ("packaging", "src", "said"),
    [
        ((), False, " `PYTHONPATH=DIR`, DIR being that machine's copy of your folder `proj`)"),
        ((), True, " `PYTHONPATH=DIR/src`, DIR being that machine's copy of your folder `proj`)"),
        (
            ("pyproject.toml",),
            False,
            " `pip install -e DIR`, DIR being that machine's copy of your folder `proj`)",
        ),
        (("setup.py",), True, " `pip install -e DIR`, DIR being that machine's copy of your folder `proj`)"),
    ],
)
def test_the_torchrun_readme_offers_pip_install_e_only_for_a_folder_pip_can_install(
    tmp_path: Path, packaging: tuple[str, ...], src: bool, said: str
) -> None:
    # pip refuses a folder with neither pyproject.toml nor setup.py ("does not appear to be a Python
    # project"): a flat folder of modules is made importable with PYTHONPATH
    spec = _own_model(tmp_path / "proj", *packaging, src=src)
    readme = " ".join(by_path(generate(spec, "torchrun"))["README.md"].split())
    assert said in readme, readme
    # The folder's path on this machine is not where the machine that runs train.py keeps its copy.
    assert str(tmp_path) not in readme, readme
    if not packaging:
        assert "pip install -e" not in readme, readme


def test_the_torchrun_note_on_the_command_line_says_pythonpath_for_a_flat_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import sys

    from gpuplan.cli import main

    _own_model(tmp_path / "proj")
    job, out = tmp_path / "proj" / "w.yaml", tmp_path / "launch"
    args = ["deploy", str(job), "--gpu", "T4", "-t", "torchrun", "-o", str(out), "--force-fit", "--dry-run"]
    monkeypatch.setattr(sys, "argv", ["gpuplan", *args])
    with pytest.raises(SystemExit) as e:
        main()
    err = " ".join(capsys.readouterr().err.split())
    assert e.value.code in (0, None), err
    assert "runs train.py (`PYTHONPATH=DIR`, DIR being that machine's copy of your folder `proj`)" in err, err
    assert str(tmp_path / "proj") not in err.replace(str(tmp_path / "proj" / "w.yaml"), ""), err
    assert "pip install -e" not in err, err


def test_a_fine_tune_on_a_chinese_cloud_in_no_named_region_is_told_where_else_the_weights_come_from(
    tmp_path: Path,
) -> None:
    # the region unknown on a provider with mainland regions: said as a condition, where it said
    # nothing
    spec = _finetune(tmp_path, "{preset: llama-8b}", provider="huawei")
    readme = " ".join(by_path(generate(spec, "torchrun"))["README.md"].split())
    assert "If this runs in a mainland China region of huawei (no region is named: pick one" in readme
    assert "modelscope download --model ID" in readme


@pytest.mark.parametrize("target", ["torchrun", "docker", "k8s", "skypilot"])
def test_the_readme_says_it_in_short_headed_points_the_stand_in_first(target: str) -> None:
    # was: one paragraph of some 3,000-4,500 characters (stand-in, no GPU, steps, data loader, disk
    # and data copy, and on k8s the image's torch, the PVC and SIGTERM), "train.py trains a stand-in"
    # buried in its second sentence
    spec = LaunchSpec.from_plan({**plan_doc(), "disk_gb": 1234.54})
    options = k8s_options(spec, GenerateOptions(out_dir="/srv/launch"))
    for language, first, heading in (
        (
            "en",
            f"- **train.py trains a stand-in model, not the workload's {spec.model_source}.** ",
            "- **Dataset:** ",
        ),
        ("zh", f"- **train.py 训练的是替身模型，不是工作负载的 {spec.model_source}。**", "- **数据集：**"),
    ):
        with use_language(language):
            readme = by_path(generate(spec, target, options))["README.md"]
        points = [line for line in readme.splitlines() if line.startswith("- ")]
        # the headed points (the k8s README's steps before its apply block are plain ones, said first)
        headed = [p for p in points if p.startswith("- **")]
        assert headed[0].startswith(first), (language, headed[0][:120])
        assert any(p.startswith(heading) for p in points), language
        assert max(map(len, points)) < 1000, max(points, key=len)[:200]
