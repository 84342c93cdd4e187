"""The tracer's refusals in Chinese under zh, English byte for byte as before under en: a model
with nothing to train, checkpointing or a loss the model cannot take, a failed trace, no PyTorch."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gpuplan.errors import GpuplanError
from gpuplan.i18n import use_language
from gpuplan.i18n.error_text import error_text
from gpuplan.profile import trace
from gpuplan.workload import Workload
from i18n.english_left import english_left

pytest.importorskip("torch")

#: One linear layer in a Sequential: no repeated blocks, no vocabulary head.
MODEL = """\
import torch

def build():
    model = torch.nn.Sequential(torch.nn.Linear(4, 4))
    return model, lambda batch_size: torch.randn(batch_size, 4), lambda out, x: out.sum()
"""


def _workload(folder: Path, **spec: Any) -> Workload:
    (folder / "onelayer.py").write_text(MODEL)
    model = {"python": "onelayer:build", "project_dir": str(folder), **spec.pop("model", {})}
    return Workload.from_dict({"name": "one-layer", "model": model, "inputs": {"batch_size": 2}, **spec})


def _line(call: Callable[[], object], language: str) -> str:
    with use_language(language), pytest.raises(GpuplanError) as info:
        call()
    with use_language(language):
        return error_text(info.value)


CASES: list[tuple[str, dict[str, Any], str, str]] = [
    (
        "every parameter frozen",
        {"model": {"frozen": ["0"]}},
        "nothing to train: every parameter is frozen (check model.frozen)",
        "没有可训练的参数：所有参数都被冻结了（请检查 model.frozen）",
    ),
    (
        "selective checkpointing without blocks",
        {"activation_checkpointing": "selective"},
        "activation_checkpointing: selective needs repeated blocks (an nn.ModuleList) to wrap",
        "activation_checkpointing：selective 需要可包装的重复块（nn.ModuleList）",
    ),
    (
        "full checkpointing without blocks",
        {"activation_checkpointing": "full"},
        "activation_checkpointing: no repeated blocks (an nn.ModuleList) to checkpoint in this model",
        "activation_checkpointing：此模型中没有可做激活重计算的重复块（nn.ModuleList）",
    ),
    (
        "a chunked loss without a vocabulary head",
        {"loss": "chunked"},
        "loss: chunked needs a language model whose output is its vocabulary logits (the decoder "
        "presets, t5-base, bert-large with task: train); use loss: standard for this model",
        "loss: chunked 需要输出为词表 logits 的语言模型"
        "（decoder 类预设、t5-base、task: train 的 bert-large）；此模型请用 loss: standard",
    ),
]


@pytest.mark.parametrize(("spec", "english", "chinese"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_each_refusal_keeps_its_english_and_reads_in_chinese(
    tmp_path: Path, spec: dict[str, Any], english: str, chinese: str
) -> None:
    workload = _workload(tmp_path, **spec)
    assert _line(lambda: trace(workload), "en") == english
    zh = _line(lambda: trace(workload), "zh")
    assert zh == chinese
    assert english_left(zh, allow=["loss: standard", "task: train"]) == []


def test_a_failed_trace_keeps_the_exceptions_own_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gpuplan.profile.tracer as tracer

    def broken(*args: object) -> object:
        raise RuntimeError("shape mismatch\nmore detail")

    monkeypatch.setattr(tracer, "_trace", broken)
    workload = _workload(tmp_path)
    assert _line(lambda: trace(workload), "en") == "tracing 'one-layer' failed: RuntimeError: shape mismatch"
    assert _line(lambda: trace(workload), "zh") == "追踪 'one-layer' 失败：RuntimeError: shape mismatch"


def test_without_pytorch_the_install_line_reads_in_chinese(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workload = _workload(tmp_path)
    # None in sys.modules makes `import torch` fail as on an install without the extra; the tracer
    # module is imported again so that its `import torch` runs.
    monkeypatch.setitem(sys.modules, "torch", None)
    monkeypatch.delitem(sys.modules, "gpuplan.profile.tracer", raising=False)
    assert (
        _line(lambda: trace(workload), "en")
        == "tracing a workload needs PyTorch, which is not installed: pip install 'gpuplan[torch]'"
    )
    assert (
        _line(lambda: trace(workload), "zh")
        == "追踪工作负载需要 PyTorch，但未安装：请 pip install 'gpuplan[torch]'"
    )


def test_an_error_in_the_users_forward_names_the_trace_in_chinese(tmp_path: Path) -> None:
    (tmp_path / "badforward.py").write_text(
        "import torch\n\n"
        "class Bad(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.l = torch.nn.Linear(4, 4)\n\n"
        "    def forward(self, x):\n"
        "        raise KeyError('depth')\n\n"
        "def build():\n"
        "    return Bad(), lambda batch_size: torch.randn(batch_size, 4), lambda out, x: out.sum()\n"
    )
    spec = {"python": "badforward:build", "project_dir": str(tmp_path)}
    workload = Workload.from_dict({"name": "bad", "model": spec, "inputs": {"batch_size": 2}})
    english, chinese = _line(lambda: trace(workload), "en"), _line(lambda: trace(workload), "zh")
    assert english.startswith("tracing the model failed (badforward.py:9): KeyError: 'depth'")
    # What ran is this module's words; where it failed and how are the user-code error's own.
    assert chinese.startswith("追踪模型失败") and "KeyError: 'depth'" in chinese
