"""The planner's error lines in Chinese under zh, English byte for byte as before under en: why
nothing is feasible (deadline, budget, the counts by reason and what to change) and the bad
values it refuses."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest
from plan_helpers import aws_costs, offer, toy_estimator

from gpuplan.errors import GpuplanError
from gpuplan.i18n import use_language
from gpuplan.i18n.error_text import error_text
from gpuplan.plan import BaselineSpec, Constraints, CostFacts, JobFacts, OfferTable, plan_offers
from gpuplan.plan.api import _check_location, plan_workload
from gpuplan.plan.build_inputs import make_estimator
from gpuplan.plan.constraints import parse_duration_h
from gpuplan.workload import Workload, load_workload
from i18n.english_left import english_left

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

JOB = JobFacts(dataset_gb=200, checkpoint_gb=5, data_location=("aws", "us-east-1"))
H100 = {"instance_type": "p5", "gpu": "H100-SXM5-80GB", "gpu_memory_gib": 80, "price_usd": 55.04}


def _plan(rows, constraints, job=JOB, estimate=None, **kw):  # type: ignore[no-untyped-def]
    return plan_offers(
        OfferTable.from_rows(rows),
        CostFacts([aws_costs()]),
        job,
        estimate or toy_estimator(),
        constraints,
        **kw,
    )


def _without_length() -> Workload:
    spec = Workload.from_yaml(EXAMPLES / "resnet50-imagenet.yaml").model_dump(exclude_none=True)
    spec["data"] = {"size_gb": 150}
    return load_workload(spec)


def _line(call: Callable[[], object], language: str) -> str:
    """The error line ``call`` raises, with the error made (durations, option labels) and written
    in ``language``, as the CLI does."""
    with use_language(language), pytest.raises(GpuplanError) as info:
        call()
    with use_language(language):
        return error_text(info.value)


# (what, call, English line as gpuplan has always written it, its Chinese)
CASES: list[tuple[str, Callable[[], object], str, str]] = [
    (
        "deadline and budget",
        # A100 8 GPU-h, H100 4 GPU-h on one node: A100 1 h for ~$22.5, H100 0.5 h for ~$28.1 (each with
        # the checkpoints train.py writes every 30 min, at least one).
        lambda: _plan([offer(), offer(**H100)], Constraints(deadline_h=0.6, budget_usd=25.0, max_gpus=8)),
        "no option meets 36 min under $25.00: the fastest within budget takes 1.0 h "
        "(aws/us-east-1 p4d.24xlarge on_demand); the cheapest within 36 min costs $28.13 "
        "(aws/us-east-1 p5 on_demand)",
        "没有方案能在 36 分钟内完成且花费在 $25.00 以内：预算内最快的方案需要 1.0 小时"
        "（aws/us-east-1 p4d.24xlarge 按量付费）；36 分钟内能完成的方案中，最便宜的需要 $28.13"
        "（aws/us-east-1 p5 按量付费）",
    ),
    (
        "deadline alone",
        lambda: _plan([offer()], Constraints(deadline_h=0.1, max_gpus=8)),
        "no option finishes within 6.0 min: the fastest option takes 1.0 h "
        "($22.47, aws/us-east-1 p4d.24xlarge on_demand)",
        "没有方案能在 6.0 分钟内完成：最快的方案需要 1.0 小时（$22.47，aws/us-east-1 p4d.24xlarge 按量付费）",
    ),
    (
        "budget alone",
        lambda: _plan([offer()], Constraints(budget_usd=1.0, max_gpus=8)),
        "no option costs under $1.00: the cheapest option costs $22.47 "
        "(1.0 h, aws/us-east-1 p4d.24xlarge on_demand)",
        "没有方案的花费在 $1.00 以内：最便宜的方案需要 $22.47"
        "（1.0 小时，aws/us-east-1 p4d.24xlarge 按量付费）",
    ),
    (
        "a budget below everything within the deadline",
        lambda: _plan([offer(), offer(**H100)], Constraints(deadline_h=0.6, budget_usd=5.0, max_gpus=8)),
        "no option meets 36 min under $5.00: the cheapest within 36 min costs $28.13 "
        "(aws/us-east-1 p5 on_demand); the cheapest option costs $22.47 "
        "(1.0 h, aws/us-east-1 p4d.24xlarge on_demand)",
        "没有方案能在 36 分钟内完成且花费在 $5.00 以内：36 分钟内能完成的方案中，最便宜的需要 $28.13"
        "（aws/us-east-1 p5 按量付费）；最便宜的方案需要 $22.47"
        "（1.0 小时，aws/us-east-1 p4d.24xlarge 按量付费）",
    ),
    (
        "a model too big for every GPU",
        lambda: _plan([offer()], Constraints(), estimate=toy_estimator(peak_gib=100)),
        "no option is left: candidates excluded: not fitting in memory 8 (peak memory per GPU at least "
        "100.0 GiB); enable gradient_checkpointing, split the batch into smaller micro-batches with "
        "gradient_accumulation, use fsdp, or allow more GPUs / bigger GPUs; `gpuplan estimate WORKLOAD "
        "--gpu A100-SXM4-40GB` shows which changes make it fit, each with its memory and step time",
        "没有剩下可选的方案；被排除的候选：显存放不下 8 个（每块 GPU 的显存峰值至少 100.0 GiB）；"
        "请启用 gradient_checkpointing、用 gradient_accumulation 把批拆成更小的微批、改用 fsdp，"
        "或允许更多、更大的 GPU；`gpuplan estimate WORKLOAD --gpu A100-SXM4-40GB` "
        "会列出能让它放下的改动，以及每项改动的显存和单步用时",
    ),
    (
        "a GPU filter that leaves one card the model does not fit",
        # --gpus of a 24 GB card: the GPU filter left out far more candidates than memory did, and
        # the line had given the counts alone ("excluded by gpu 71521, does_not_fit 136")
        lambda: _plan(
            [
                *(offer(region=f"r{i}", price_usd=21.0 + i) for i in range(200)),
                offer(instance_type="g5.xlarge", gpu="A10G", gpu_count=1, gpu_memory_gib=24, price_usd=1.0),
            ],
            Constraints(gpus=("A10G",)),
            estimate=toy_estimator(peak_gib=30),
        ),
        "no option is left: candidates excluded: other GPUs 1,600, not fitting in memory 8 (peak memory per "
        "GPU at least 30.0 GiB); enable gradient_checkpointing, split the batch into smaller micro-batches "
        "with gradient_accumulation, use fsdp, or allow more GPUs / bigger GPUs; `gpuplan estimate WORKLOAD "
        "--gpu A10G` shows which changes make it fit, each with its memory and step time",
        "没有剩下可选的方案；被排除的候选：其他 GPU 1,600 个、显存放不下 8 个"
        "（每块 GPU 的显存峰值至少 30.0 GiB）；"
        "请启用 gradient_checkpointing、用 gradient_accumulation 把批拆成更小的微批、改用 fsdp，"
        "或允许更多、更大的 GPU；`gpuplan estimate WORKLOAD --gpu A10G` "
        "会列出能让它放下的改动，以及每项改动的显存和单步用时",
    ),
    (
        "a service too big for every GPU",
        lambda: _plan(
            [offer()], Constraints(), job=JobFacts(task="infer"), estimate=toy_estimator(peak_gib=100)
        ),
        "no option is left: candidates excluded: not fitting in memory 8 (peak memory per GPU at least "
        "100.0 GiB); for a service: its memory is the weights and the KV cache of the sequences it runs "
        "at once, which neither the request rate nor the p95 target changes: a GPU with more memory, more "
        "GPUs a replica (tensor_parallel), lower precision (precision: fp8), or a shorter context "
        "(serving.prompt_tokens, output_tokens) or fewer sequences at once (inputs.batch_size)",
        "没有剩下可选的方案；被排除的候选：显存放不下 8 个（每块 GPU 的显存峰值至少 100.0 GiB）；"
        "对于在线服务：显存要装下权重和同时运行的序列的 KV 缓存，请求速率和 p95 目标都改变不了它："
        "请换显存更大的 GPU、每个副本用更多 GPU（tensor_parallel）、降低精度（precision: fp8），或缩短上下文"
        "（serving.prompt_tokens、output_tokens）、减少同时运行的序列（inputs.batch_size）",
    ),
    (
        "a GPU filter that leaves none",
        # no offer of it in the catalog at all: what is priced near it, and how to add a price
        lambda: _plan([offer()], Constraints(gpus=("H100-SXM5-80GB",))),
        "no option is left: the catalog has no offer of H100-SXM5-80GB: gpuplan knows the GPU, but none "
        "of the price sources it ships lists it; the nearest GPUs the catalog prices: A100-SXM4-40GB; "
        "`gpuplan catalog import --format gpuplan FILE` adds a price of your own (a quote; "
        "examples/prices/README.md shows the file)",
        "没有剩下可选的方案：gpuplan 认识 H100-SXM5-80GB，但目录中没有它的报价：随附的价格来源都没有列出它；"
        "目录中有报价的最接近的 GPU：A100-SXM4-40GB；可用 `gpuplan catalog import --format gpuplan FILE` "
        "添加您自己的价格（如报价单；文件格式见 examples/prices/README.md）",
    ),
    (
        "a family no provider named sells",
        lambda: _plan(
            [offer(), offer(provider="gcp", region="us-central1", gpu="H800-SXM")],
            Constraints(gpus=("H800",), providers=("aws",)),
        ),
        "no option is left: the catalog has no offer of H800 (H800-SXM, H800-PCIE) from aws; it prices it "
        "at gcp; the nearest GPUs the catalog prices at aws: A100-SXM4-40GB; `gpuplan catalog "
        "import --format gpuplan FILE` adds a price of your own (a quote; examples/prices/README.md shows "
        "the file)",
        "没有剩下可选的方案：aws 在目录中没有这款 GPU 的报价：H800（H800-SXM、H800-PCIE）；"
        "目录中 gcp 有它的价格；目录中在 aws 有报价的最接近的 GPU：A100-SXM4-40GB；"
        "可用 `gpuplan catalog import --format gpuplan FILE` 添加您自己的价格（如报价单；文件格式见 "
        "examples/prices/README.md）",
    ),
    (
        "an empty catalog",
        lambda: _plan([], Constraints()),
        "the catalog holds no GPU offers to plan over; check it with `gpuplan catalog info`",
        "目录中没有可供规划的 GPU 报价；请用 `gpuplan catalog info` 检查",
    ),
    (
        "a model split no instance holds",
        lambda: _plan([offer()], Constraints(), job=JobFacts(tensor_parallel=16)),
        # no count of instances runs it: not "allow more GPUs"
        "no option is left: candidates excluded: not splitting the model so 8; tensor_parallel 16 is more "
        "GPUs than any instance in the catalog joins (8): use at most 8",
        "没有剩下可选的方案；被排除的候选：模型无法如此切分 8 个；tensor_parallel 16 超过了目录中任何一台"
        "实例所连接的 GPU 数（8）：请最多用 8",
    ),
    (
        "offers without a price",
        lambda: _plan([offer(price_usd=None)], Constraints()),
        "no option is left: candidates excluded: without a price 8; add a price with `gpuplan catalog` "
        "or widen providers/regions",
        "没有剩下可选的方案；被排除的候选：没有价格 8 个；"
        "请用 `gpuplan catalog` 添加价格，或放宽 providers/regions 的限制",
    ),
    (
        "max_gpus 0",
        lambda: Constraints(max_gpus=0),
        "max_gpus must be at least 1, got 0",
        "max_gpus 至少为 1，实际为 0",
    ),
    (
        "a negative deadline",
        lambda: Constraints(deadline_h=-1.0),
        "deadline_h must be positive, got -1.0",
        "deadline_h 必须为正数，实际为 -1.0",
    ),
    (
        "a baseline without its instance type",
        lambda: BaselineSpec.parse("aws/us-east-1"),
        "cannot read baseline 'aws/us-east-1'; write provider/region/instance_type[/pricing], "
        "e.g. aws/us-east-1/p4d.24xlarge/on_demand",
        "无法识别基准方案 'aws/us-east-1'；请写成“云厂商/地域/实例类型[/计费方式]”，例如 "
        "aws/us-east-1/p4d.24xlarge/on_demand",
    ),
    (
        "an unknown unknown_costs",
        lambda: _plan([offer()], Constraints(), unknown_costs="guess"),
        "unknown_costs must be 'assume' or 'exclude', got 'guess'",
        "unknown_costs 必须是 'assume' 或 'exclude'，实际为 'guess'",
    ),
    (
        "a training job without its length",
        lambda: make_estimator(_without_length(), None),  # type: ignore[arg-type]
        "the planner needs the job's length: give data.samples (or data.tokens) and data.epochs",
        "规划需要知道任务的长度：请给出 data.samples（或 data.tokens）和 data.epochs",
    ),
    (
        "an unknown storage kind",
        lambda: plan_workload(_without_length(), None, None, storage="tape"),  # type: ignore[arg-type]
        "storage must be 'block' or 'object', got 'tape'",
        "storage 必须是 'block' 或 'object'，实际为 'tape'",
    ),
    (
        "a data.location in no region of its provider",
        # The store is asked only for the regions it holds prices in (none here).
        lambda: _check_location(("aws", "mars-1"), SimpleNamespace(regions=lambda provider: [])),  # type: ignore[arg-type]
        "unknown region 'mars-1'; did you mean 'ca-west-1' or 'ap-east-1' or 'me-south-1'? "
        "(data.location aws/mars-1: not a region of aws)",
        "地域 'mars-1' 无法识别；您是不是指 'ca-west-1' 或 'ap-east-1' 或 'me-south-1'？"
        "（data.location aws/mars-1：aws 没有这个地域）",
    ),
    (
        "top 0",
        lambda: _plan([offer()], Constraints(), top=0),
        "top must be at least 1, got 0",
        "top 至少为 1，实际为 0",
    ),
]


@pytest.mark.parametrize(("call", "english", "chinese"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_each_line_keeps_its_english_and_reads_in_chinese(
    call: Callable[[], object], english: str, chinese: str
) -> None:
    assert _line(call, "en") == english
    zh = _line(call, "zh")
    assert zh == chinese
    assert english_left(zh) == []


def test_the_english_line_is_the_errors_own_text() -> None:
    with pytest.raises(GpuplanError) as info:
        _plan([offer()], Constraints(deadline_h=0.1, max_gpus=8))
    assert error_text(info.value) == str(info.value)


def test_a_bad_duration_keeps_the_parsers_own_words_after_the_translated_field_name() -> None:
    assert _line(lambda: parse_duration_h("1x"), "zh").startswith("截止时间（deadline）：")


#: An ASCII space between two Chinese characters (or a Chinese mark and a character): where the
#: English puts a space between words, Chinese puts none ("被排除的候选有 放不下" had been written).
_SPACED_CHINESE = re.compile(
    r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef] [\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]"
)


_NONE_LEFT = [c for c in CASES if c[2].startswith("no option is left")]


@pytest.mark.parametrize(("call", "en"), [c[1:3] for c in _NONE_LEFT], ids=[c[0] for c in _NONE_LEFT])
def test_the_excluded_candidates_read_without_spaces_between_chinese_words(
    call: Callable[[], object], en: str
) -> None:
    zh = _line(call, "zh")
    # a GPU the catalog has no offer of is said without the counts ("excluded by gpu 8")
    assert ("被排除的候选：" in zh) == ("candidates excluded:" in en)
    assert not _SPACED_CHINESE.search(zh), zh
