"""The bench's, the all-reduce's and the machine facts' error lines (and the GPU table's) in Chinese
under zh, English byte for byte as before under en."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest

from gpuplan.errors import GpuplanError
from gpuplan.hardware import gpus
from gpuplan.i18n import use_language
from gpuplan.i18n.error_text import error_text
from gpuplan.machine import allreduce, run_bench
from gpuplan.machine.facts import MachineFacts
from i18n.english_left import english_left


def _line(call: Callable[[], object], language: str) -> str:
    with use_language(language), pytest.raises(GpuplanError) as info:
        call()
    with use_language(language):
        return error_text(info.value)


def _no_torch() -> object:
    raise ModuleNotFoundError("No module named 'torch'")


class _NoCuda:
    """As much of torch as the bench asks before it measures: no CUDA device."""

    cuda = SimpleNamespace(is_available=lambda: False)


def _spawn(fails: bool) -> Callable[[str], Any]:
    """``importlib.import_module`` for ``torch.multiprocessing``: workers that fail (NCCL missing)
    or that finish without putting a timing in the queue."""

    def start_processes(*args: object, **kwargs: object) -> None:
        if fails:
            raise RuntimeError("NCCL error: unhandled system error\n(the worker's traceback)")

    queue = SimpleNamespace(empty=lambda: True)
    context = SimpleNamespace(SimpleQueue=lambda: queue)
    return lambda name: SimpleNamespace(get_context=lambda method: context, start_processes=start_processes)


def _bad_gpu_table(monkeypatch: pytest.MonkeyPatch) -> Callable[[], object]:
    table = "id,vendor\nX1,acme\n"  # no name column and the rest
    fake = SimpleNamespace(read_text=lambda encoding: table)
    monkeypatch.setattr(gpus.resources, "files", lambda package: SimpleNamespace(joinpath=lambda path: fake))
    return gpus.all_gpus.__wrapped__  # the cached table stays the shipped one


CASES: list[tuple[str, Callable[[pytest.MonkeyPatch], Callable[[], object]], str, str]] = [
    (
        "an unknown bench device",
        lambda mp: lambda: run_bench(device="tpu", import_torch=_NoCuda),
        "unknown device 'tpu'; use --device cpu or --device cuda",
        "未知设备 'tpu'；请用 --device cpu 或 --device cuda",
    ),
    (
        "cuda without a GPU",
        lambda mp: lambda: run_bench(device="cuda", import_torch=_NoCuda),
        "--device cuda, but torch.cuda.is_available() is False; `gpuplan doctor` says why",
        "指定了 --device cuda，但 torch.cuda.is_available() 为 False；运行 `gpuplan doctor` 查看原因",
    ),
    (
        "a bench without PyTorch",
        lambda mp: lambda: run_bench(device="cpu", import_torch=_no_torch),
        "`gpuplan bench` needs PyTorch, which is not installed (No module named 'torch'); pip install torch",
        "`gpuplan bench` 需要 PyTorch，但未安装（No module named 'torch'）；请 pip install torch",
    ),
    (
        "an all-reduce whose workers fail",
        lambda mp: (
            mp.setattr(allreduce.importlib, "import_module", _spawn(fails=True)),
            lambda: allreduce.measure_allreduce(world_size=2, nbytes=1024, warmup=1, repeats=1),
        )[1],
        "the all-reduce benchmark failed: NCCL error: unhandled system error; run `gpuplan doctor` "
        "and retry with NCCL_DEBUG=INFO",
        "all-reduce 基准测试失败：NCCL error: unhandled system error；"
        "请运行 `gpuplan doctor`，并用 NCCL_DEBUG=INFO 重试",
    ),
    (
        "an all-reduce without a timing",
        lambda mp: (
            mp.setattr(allreduce.importlib, "import_module", _spawn(fails=False)),
            lambda: allreduce.measure_allreduce(world_size=2, nbytes=1024, warmup=1, repeats=1),
        )[1],
        "the all-reduce benchmark returned no timing; retry with NCCL_DEBUG=INFO",
        "all-reduce 基准测试没有返回计时；请用 NCCL_DEBUG=INFO 重试",
    ),
    (
        "machine facts of another schema",
        lambda mp: lambda: MachineFacts.from_dict({"schema_version": 99}),
        "machine facts have schema version 99, this gpuplan reads 1; record them again with "
        "`gpuplan doctor --json`",
        "机器信息的结构版本为 99，而当前 gpuplan 读取的是 1；请用 `gpuplan doctor --json` 重新记录",
    ),
    (
        "machine facts without their parts",
        lambda mp: lambda: MachineFacts.from_dict({}),
        "machine facts are malformed: 'torch'; expected the shape `doctor --json` prints",
        "机器信息格式错误：'torch'；应与 `doctor --json` 输出的结构一致",
    ),
    (
        "a broken GPU table",
        _bad_gpu_table,
        "gpus.csv line 2 is malformed: 'name'; the package data is broken",
        "gpus.csv 第 2 行格式错误：'name'；软件包自带的数据已损坏",
    ),
]


@pytest.mark.parametrize(("make", "english", "chinese"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_each_line_keeps_its_english_and_reads_in_chinese(
    monkeypatch: pytest.MonkeyPatch,
    make: Callable[[pytest.MonkeyPatch], Callable[[], object]],
    english: str,
    chinese: str,
) -> None:
    call = make(monkeypatch)
    assert _line(call, "en") == english
    zh = _line(call, "zh")
    assert zh == chinese
    # Data and commands stay as written: the worker's error, Python's import error, pip's command.
    data = ["NCCL error: unhandled system error", "No module named 'torch'", "pip install torch"]
    assert english_left(zh, allow=data) == []
