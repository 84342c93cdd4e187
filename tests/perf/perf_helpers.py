"""Hand-built Profiles with round numbers, so that expected figures can be worked out by hand."""

from __future__ import annotations

from gpuplan.perf.calibration import Calibration
from gpuplan.profile.model import MemoryBreakdown, ModelShape, OpRecord, Profile

GIB = 1024.0**3
#: Round efficiencies and no kernel floor: what the estimator tests work their figures by hand with.
SIMPLE_CAL = Calibration(
    tensor_matmul_efficiency=0.7,
    tensor_conv_efficiency=0.5,
    vector_efficiency=0.8,
    bandwidth_efficiency=0.9,
    min_kernel_time_us=0.0,
)


def breakdown(
    *,
    parameters: float = 0.0,
    buffers: float = 0.0,
    gradients: float = 0.0,
    optimizer_state: float = 0.0,
    activations: float = 0.0,
    temporaries: float = 0.0,
) -> MemoryBreakdown:
    """A :class:`MemoryBreakdown` of the bytes given, every other category at 0."""
    return MemoryBreakdown(
        parameters_bytes=parameters,
        buffers_bytes=buffers,
        gradients_bytes=gradients,
        optimizer_state_bytes=optimizer_state,
        activations_bytes=activations,
        temporaries_bytes=temporaries,
    )


def make_profile(
    *,
    ops: tuple[OpRecord, ...],
    peak: MemoryBreakdown | None = None,
    precision: str = "amp-bf16",
    task: str = "train",
    batch_size: int = 8,
    seq_len: int | None = None,
    params: int = 1_000_000_000,
    shape: ModelShape | None = None,
) -> Profile:
    return Profile(
        key="test",
        workload_name="test",
        task=task,
        precision=precision,
        batch_size=batch_size,
        seq_len=seq_len,
        params=params,
        trainable_params=params if task != "infer" else 0,
        flops_per_step=sum(o.flops for o in ops),
        forward_flops=sum(o.flops for o in ops if o.phase == "forward"),
        ops=ops,
        peak=peak
        or MemoryBreakdown(
            parameters_bytes=4.0 * params,
            buffers_bytes=0.0,
            gradients_bytes=4.0 * params,
            optimizer_state_bytes=8.0 * params,
            activations_bytes=4 * GIB,
            temporaries_bytes=0.0,
        ),
        shape=shape or ModelShape(family="custom"),
    )


def op(
    phase: str = "forward",
    op_class: str = "matmul",
    dtype: str = "bfloat16",
    flops: float = 0.0,
    bytes_moved: float = 0.0,
    count: int = 1,
    name: str = "aten.mm",
) -> OpRecord:
    return OpRecord(
        op=name,
        op_class=op_class,  # type: ignore[arg-type]
        phase=phase,  # type: ignore[arg-type]
        dtype=dtype,
        count=count,
        flops=flops,
        bytes_moved=bytes_moved,
    )
