"""The estimator's error lines in Chinese under zh, English byte for byte as before under en: every
raise site of perf/ that a request can reach, raised through the real code."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from perf_helpers import make_profile, op

from gpuplan.errors import GpuplanError
from gpuplan.hardware import get_gpu
from gpuplan.i18n import use_language
from gpuplan.i18n.error_text import error_text
from gpuplan.perf.calibration import Calibration
from gpuplan.perf.distribution import TimeDistribution
from gpuplan.perf.estimate import EstimateRequest, estimate, run_estimate
from gpuplan.perf.inference import batch_sweep, decode_estimate, kv_cache_bytes_per_token
from gpuplan.perf.input_pipeline import InputPipeline
from gpuplan.perf.links import Link
from gpuplan.perf.stages.layout import ModelParallel, check_parallelism
from gpuplan.perf.stages.memory import zero_model_state_bytes
from gpuplan.perf.sweep import estimate_all
from gpuplan.profile.model import ModelShape
from i18n.english_left import english_left

A100 = get_gpu("A100-SXM4-80GB")
V100 = get_gpu("V100-SXM2-32GB")
CAL = Calibration(
    tensor_matmul_efficiency=0.5,
    tensor_conv_efficiency=0.5,
    vector_efficiency=0.8,
    bandwidth_efficiency=0.8,
    min_kernel_time_us=0.0,
)
#: 32 layers, 32 heads: a 7B-class decoder, for the tensor/pipeline split checks.
DECODER = ModelShape(
    family="decoder", num_layers=32, hidden_size=4096, num_attention_heads=32, num_kv_heads=8
)
#: 24 query heads over 6 key/value heads: a tensor-parallel degree of 4 splits the latter unevenly.
UNEVEN_KV = ModelShape(
    family="decoder", num_layers=32, hidden_size=3072, num_attention_heads=24, num_kv_heads=6
)
OPS = (op("forward", flops=1e12), op("backward", flops=2e12))


def _split(count: int, mp: ModelParallel, *, accumulation: int = 1, shape: ModelShape = DECODER) -> object:
    profile = make_profile(ops=OPS, shape=shape, seq_len=2048)
    request = EstimateRequest(
        profile=profile,
        gpu=A100,
        count=count,
        model_parallel=mp,
        calibration=CAL,
        grad_accum_steps=accumulation,
    )
    return run_estimate(request)


# (what, call, the English line as gpuplan has always written it, its Chinese)
CASES: list[tuple[str, Callable[[], object], str, str]] = [
    (
        "fp8 on an A100",
        lambda: estimate(make_profile(ops=(op(dtype="float8_e4m3fn", flops=1e12),), precision="fp8"), A100),
        "fp8 needs Ada, Hopper or Blackwell; A100-SXM4-80GB has no FP8 tensor cores (use bf16 or amp-bf16)",
        "fp8 需要 Ada、Hopper 或 Blackwell 架构；"
        "A100-SXM4-80GB 没有 FP8 Tensor Core（请改用 bf16 或 amp-bf16）",
    ),
    (
        "bf16 on a V100",
        lambda: estimate(make_profile(ops=(op(flops=1e12),)), V100, calibration=CAL),
        "bf16 needs Ampere or newer; V100-SXM2-32GB has no BF16 tensor cores (use amp-fp16)",
        "bf16 需要 Ampere 或更新的架构；V100-SXM2-32GB 没有 BF16 Tensor Core（请改用 amp-fp16）",
    ),
    (
        "a tensor × pipeline degree that does not divide the GPUs",
        lambda: _split(12, ModelParallel(tensor=4, pipeline=2)),
        "tensor_parallel 4 × pipeline_parallel 2 = 8 does not divide 12 GPUs; "
        "use a GPU count that is a multiple of 8",
        "tensor_parallel 4 × pipeline_parallel 2 = 8，不能整除 12 块 GPU；请使用 8 的倍数作为 GPU 数量",
    ),
    (
        "one GPU for a split of two",
        lambda: _split(1, ModelParallel(tensor=2)),
        "tensor_parallel 2 × pipeline_parallel 1 = 2 does not divide 1 GPU; "
        "use a GPU count that is a multiple of 2",
        "tensor_parallel 2 × pipeline_parallel 1 = 2，不能整除 1 块 GPU；请使用 2 的倍数作为 GPU 数量",
    ),
    (
        "tensor_parallel that splits the attention heads",
        lambda: _split(6, ModelParallel(tensor=3)),
        "tensor_parallel 3 does not divide the model's 32 attention heads; use one of 1, 2, 4, 8",
        "tensor_parallel 3 不能整除模型的 32 个注意力头；请使用以下之一：1、2、4、8",
    ),
    (
        "tensor_parallel across nodes",
        lambda: _split(32, ModelParallel(tensor=16)),
        "tensor_parallel 16 spans nodes of 8 GPUs (its all-reduces run every layer and need NVLink); "
        "use at most 8 and raise pipeline_parallel instead",
        "tensor_parallel 16 跨越了每节点 8 块 GPU 的节点（它的 all-reduce 每层都要执行，需要 NVLink）；"
        "请最多用 8，改为增大 pipeline_parallel",
    ),
    (
        "tensor_parallel that splits the key/value heads unevenly",
        lambda: _split(4, ModelParallel(tensor=4), shape=UNEVEN_KV),
        "tensor_parallel 4 splits the model's 6 key/value heads unevenly; use one of 1, 2, 3, 6",
        "tensor_parallel 4 无法均分模型的 6 个键/值头；请使用以下之一：1、2、3、6",
    ),
    (
        "more stages than layers",
        lambda: _split(64, ModelParallel(pipeline=64)),
        "pipeline_parallel 64 is more stages than the model's 32 layers; use at most 32",
        "pipeline_parallel 64 的阶段数多于模型的 32 层；请最多用 32",
    ),
    (
        "interleaving that does not divide the layers",
        lambda: _split(2, ModelParallel(pipeline=2, virtual_stages=3)),
        "pipeline_virtual_stages 3 needs pipeline_parallel > 1 and 32 layers divisible by "
        "pipeline_parallel × pipeline_virtual_stages (6)",
        "pipeline_virtual_stages 3 要求 pipeline_parallel > 1，且 32 层能被 "
        "pipeline_parallel × pipeline_virtual_stages（6）整除",
    ),
    (
        "interleaving with too few micro-batches",
        lambda: _split(2, ModelParallel(pipeline=2, virtual_stages=2), accumulation=3),
        "the interleaved schedule needs the micro-batches per step (3, gradient_accumulation) to be "
        "a multiple of pipeline_parallel 2",
        "交错调度要求每步的微批次数（3，即 gradient_accumulation）是 pipeline_parallel 2 的倍数",
    ),
    (
        "tensor_parallel 0",
        lambda: _split(8, ModelParallel(tensor=0)),
        "tensor_parallel must be at least 1, got 0",
        "tensor_parallel 至少为 1，实际为 0",
    ),
    (
        "a split of a model without layers",
        lambda: run_estimate(
            EstimateRequest(
                profile=make_profile(ops=OPS, shape=ModelShape(family="cnn")),
                gpu=A100,
                count=2,
                model_parallel=ModelParallel(tensor=2),
            )
        ),
        "tensor/pipeline parallelism needs a transformer whose layers and attention heads are known; "
        "use data parallelism (parallelism: ddp or fsdp) for this model",
        "张量并行/流水线并行需要层数和注意力头数已知的 Transformer 模型；"
        "此模型请改用数据并行（parallelism: ddp 或 fsdp）",
    ),
    (
        "no GPUs",
        lambda: estimate(make_profile(ops=OPS), A100, count=0),
        "GPU count must be at least 1, got 0",
        "GPU 数量至少为 1，实际为 0",
    ),
    (
        "no gradient accumulation",
        lambda: run_estimate(EstimateRequest(profile=make_profile(ops=OPS), gpu=A100, grad_accum_steps=0)),
        "gradient accumulation steps must be at least 1, got 0",
        "梯度累积步数至少为 1，实际为 0",
    ),
    (
        "a link smaller than the request",
        lambda: run_estimate(
            EstimateRequest(profile=make_profile(ops=OPS), gpu=A100, count=8, link=Link.for_gpus(A100, 4))
        ),
        "the link joins 4 GPUs but the estimate asks for 8",
        "该互联只连接 4 块 GPU，但估算要求 8 块",
    ),
    (
        "a profile without ops",
        lambda: estimate(make_profile(ops=()), A100),
        "profile 'test' has no timed ops; re-trace the workload",
        "剖析结果 'test' 中没有计时的算子；请重新追踪该工作负载",
    ),
    (
        "NVLink asked of a PCIe GPU",
        lambda: Link.for_gpus(get_gpu("L4"), 2, nvlink=True),
        "L4 has no NVLink; drop the NVLink setting",
        "L4 没有 NVLink；请去掉 NVLink 设置",
    ),
    (
        "a zero network",
        lambda: Link.for_gpus(A100, 16, network_gbit_s=0.0),
        "network bandwidth must be between 0.001 and 100,000 Gbit/s, got 0",
        "网络带宽必须在 0.001 到 100,000 Gbit/s 之间，实际为 0",
    ),
    (
        "a network of 1e-308 Gbit/s (it made the step time infinite)",
        lambda: Link.for_gpus(A100, 16, network_gbit_s=1e-308),
        "network bandwidth must be between 0.001 and 100,000 Gbit/s, got 1e-308",
        "网络带宽必须在 0.001 到 100,000 Gbit/s 之间，实际为 1e-308",
    ),
    (
        "an unknown parallelism",
        lambda: check_parallelism("zero9"),
        "unknown parallelism 'zero9'; use one of ddp, fsdp, zero1, zero2, zero3",
        "未知的并行方式 'zero9'；请使用以下之一：ddp、fsdp、zero1、zero2、zero3",
    ),
    (
        "a ZeRO stage out of range",
        lambda: zero_model_state_bytes(1e9, stage=4, world=8, layout=_layout()),
        "ZeRO stage must be 0–3, got 4",
        "ZeRO 阶段必须在 0–3 之间，实际为 4",
    ),
    (
        "a world of no GPUs",
        lambda: zero_model_state_bytes(1e9, stage=1, world=0, layout=_layout()),
        "world size must be at least 1",
        "world size 至少为 1",
    ),
    (
        "an interval out of order",
        lambda: TimeDistribution.from_interval(2.0, 3.0, 4.0),
        "an 80 % interval needs 0 < low ≤ median ≤ high (got 3.0, 2.0, 4.0)",
        "80% 区间要求 0 < 下限 ≤ 中位数 ≤ 上限（实际为 3.0、2.0、4.0）",
    ),
    (
        "a quantile outside (0, 1)",
        lambda: TimeDistribution.from_interval(2.0, 1.0, 4.0).quantile(1.5),
        "a quantile needs 0 < p < 1 (got 1.5)",
        "分位数要求 0 < p < 1（实际为 1.5）",
    ),
    (
        "no vCPUs",
        lambda: InputPipeline(vcpus_per_gpu=0.0),
        "vCPUs per GPU must be positive, got 0",
        "每块 GPU 的 vCPU 数必须为正数，实际为 0",
    ),
    (
        "a KV cache of an unknown shape",
        lambda: kv_cache_bytes_per_token(ModelShape(family="decoder"), 2),
        "the model's layer count, heads and head size are unknown; cannot size a KV cache",
        "模型的层数、注意力头数和头维度未知；无法估算 KV cache 大小",
    ),
    (
        "decode of a model without sequences",
        lambda: decode_estimate(make_profile(ops=OPS, task="infer"), A100),
        "'test' has no sequence length; decode needs a sequence model",
        "'test' 没有序列长度；解码估算需要序列模型",
    ),
    (
        "a batch size of 0",
        lambda: batch_sweep(make_profile(ops=OPS, task="infer"), A100, [0]),
        "batch sizes must be at least 1, got 0",
        "批大小至少为 1，实际为 0",
    ),
    (
        "a calibration efficiency above 1",
        lambda: Calibration(
            tensor_matmul_efficiency=1.5,
            tensor_conv_efficiency=0.5,
            vector_efficiency=0.8,
            bandwidth_efficiency=0.8,
            min_kernel_time_us=0.0,
        ),
        "calibration tensor_matmul_efficiency=1.5 is outside (0, 1]; refit or fix calibration.json",
        "校准参数 tensor_matmul_efficiency=1.5 超出 (0, 1] 范围；请重新拟合或修正 calibration.json",
    ),
]


def _layout():  # type: ignore[no-untyped-def]
    from gpuplan.perf.stages.memory import DEEPSPEED_MIXED_ADAM

    return DEEPSPEED_MIXED_ADAM


def _line(call: Callable[[], object], language: str) -> str:
    """The line ``call`` raises, made and written in ``language`` as under the CLI."""
    with use_language(language), pytest.raises(GpuplanError) as info:
        call()
    with use_language(language):
        return error_text(info.value)


@pytest.mark.parametrize(("call", "english", "chinese"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_each_line_keeps_its_english_and_reads_in_chinese(
    call: Callable[[], object], english: str, chinese: str
) -> None:
    assert _line(call, "en") == english
    zh = _line(call, "zh")
    assert zh == chinese
    assert english_left(zh) == []


def test_a_gpu_that_cannot_run_the_workload_is_said_in_the_language_of_the_sweep() -> None:
    profile = make_profile(ops=(op(dtype="float8_e4m3fn", flops=1e12),), precision="fp8")
    with use_language("zh"):
        (outcome,) = estimate_all([EstimateRequest(profile=profile, gpu=A100, calibration=CAL)])
    assert (
        outcome.error == "fp8 需要 Ada、Hopper 或 Blackwell 架构；"
        "A100-SXM4-80GB 没有 FP8 Tensor Core（请改用 bf16 或 amp-bf16）"
    )


def test_the_estimates_notes_are_written_in_the_current_language() -> None:
    # 16 A100s under DDP: two nodes on an assumed network, DDP's gradient bucket copy.
    profile = make_profile(ops=OPS)
    english = estimate(profile, A100, count=16, calibration=CAL).notes
    with use_language("zh"):
        chinese = estimate(profile, A100, count=16, calibration=CAL).notes
    assert "DDP gradient buckets: +1 gradient copy per GPU (gradient_as_bucket_view=False)" in english
    assert (
        "inter-node network unknown: the point assumes a typical instance network (100 Gbit/s TCP); the "
        "range runs from the slowest GPU instance network in the embedded catalog (2.5 Gbit/s TCP) to "
        "3,200 Gbit/s RDMA; give --network-gbps or --instance"
    ) in english
    assert "DDP 梯度桶：每块 GPU 多一份梯度副本（gradient_as_bucket_view=False）" in chinese
    assert (
        "节点间网络未知：点估计取典型的实例网络（100 Gbit/s TCP）；区间从内置目录中最慢的 GPU 实例网络"
        "（2.5 Gbit/s TCP）延伸到 3,200 Gbit/s RDMA；请给出 --network-gbps 或 --instance"
    ) in chinese
    assert len(chinese) == len(english)
    assert all(english_left(n, allow=["gradient_as_bucket_view=False"]) == [] for n in chinese)


def test_an_unknown_network_of_a_named_instance_points_only_to_network_gbps() -> None:
    # estimate --instance X -n 16, X's catalog entry giving no network: naming the instance again
    # changes nothing, so the note points to --network-gbps alone.
    from gpuplan.perf.links import NetworkSpec

    spec = NetworkSpec(gbit_s=None, source="assumed", gpus_per_node=8, interconnect="NVLink")
    notes = estimate(make_profile(ops=OPS), A100, count=16, calibration=CAL, link=spec.link(A100, 16)).notes
    [note] = [n for n in notes if n.startswith("inter-node network unknown")]
    assert note.endswith("give --network-gbps: the instance's catalog entry gives no network"), note
    assert "--instance" not in note
