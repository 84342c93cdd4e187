"""Stand-in profiles shared by tests that need a traced profile but must not trace (seconds each)."""

from __future__ import annotations

from gpuplan.profile.model import MemoryBreakdown, ModelShape, OpRecord, Profile


def bert_large_profile(key: str) -> Profile:
    """A stand-in profile for tests of the paths after tracing (plan, documents, tco), not of the estimate."""
    # ~BERT-Large-sized: 340 M parameters, 9 TFLOP per step of 32 × 384 tokens.
    ops = (
        OpRecord(op="aten.mm", op_class="matmul", phase="forward", dtype="float16", count=1, flops=3e12,
                 bytes_moved=1e9),
        OpRecord(op="aten.mm", op_class="matmul", phase="backward", dtype="float16", count=1, flops=6e12,
                 bytes_moved=2e9),
    )  # fmt: skip
    params = 340_000_000
    return Profile(
        key=key,
        workload_name="bert-large-squad",
        task="finetune",
        precision="amp-fp16",
        batch_size=32,
        seq_len=384,
        params=params,
        trainable_params=params,
        flops_per_step=9e12,
        forward_flops=3e12,
        ops=ops,
        peak=MemoryBreakdown(
            parameters_bytes=4.0 * params,
            buffers_bytes=0.0,
            gradients_bytes=4.0 * params,
            optimizer_state_bytes=8.0 * params,
            activations_bytes=4 * 1024**3,
            temporaries_bytes=0.0,
        ),
        shape=ModelShape(family="encoder"),
    )


def resnet50_profile(key: str, *, activations_bytes: float) -> Profile:
    """A stand-in ResNet-50 step for tests of the image input bound: 256 images, 0.9 TFLOP of fp16
    convolutions (~2 ms on an H100, ~10 ms on a V100 at 0.5 efficiency: far above a few hundred
    images/s, so the vCPUs decide)."""
    ops = tuple(
        OpRecord(op="aten.convolution", op_class="conv", phase=phase, dtype="float16", count=1, flops=flops,
                 bytes_moved=0.0)
        for phase, flops in (("forward", 0.3e12), ("backward", 0.6e12))
    )  # fmt: skip
    return Profile(
        key=key,
        workload_name="resnet50-imagenet",
        task="train",
        precision="amp-fp16",
        batch_size=256,
        seq_len=None,
        params=25_000_000,
        trainable_params=25_000_000,
        flops_per_step=0.9e12,
        forward_flops=0.3e12,
        ops=ops,
        peak=MemoryBreakdown(
            parameters_bytes=1e8,
            buffers_bytes=0.0,
            gradients_bytes=1e8,
            optimizer_state_bytes=1e8,
            activations_bytes=activations_bytes,
            temporaries_bytes=0.0,
        ),
        shape=ModelShape(family="cnn"),
    )


def lora_fp32_adapters_profile(*, fp32_adapter_flops: float) -> Profile:
    """A stand-in LoRA step in amp-bf16 whose adapters stay in FP32 (an SDXL-shaped UNet's, own
    code): 100 TFLOP of bf16 matmuls, ``fp32_adapter_flops`` of FP32 matmuls on the CUDA cores
    (PyTorch keeps TF32 off for matmuls), and 100 GB of elementwise traffic with no FLOPs. No shapes
    and one call each, so no tile or wave losses and no launch floor move the ratios."""
    ops = (
        OpRecord(op="aten.mm", op_class="matmul", phase="forward", dtype="bfloat16", count=1, flops=100e12,
                 bytes_moved=1e9),
        OpRecord(op="aten.mm", op_class="matmul", phase="forward", dtype="float32", count=1,
                 flops=fp32_adapter_flops, bytes_moved=1e9),
        OpRecord(op="aten.copy_", op_class="other", phase="forward", dtype="bfloat16", count=1, flops=0.0,
                 bytes_moved=100e9),
    )  # fmt: skip
    params = 2_570_000_000
    return Profile(
        key=f"lora-fp32-adapters-{fp32_adapter_flops:g}",
        workload_name="sdxl-unet-lora",
        task="finetune",
        precision="amp-bf16",
        batch_size=1,
        seq_len=None,
        params=params,
        trainable_params=10_000_000,
        flops_per_step=100e12 + fp32_adapter_flops,
        forward_flops=100e12 + fp32_adapter_flops,
        ops=ops,
        peak=MemoryBreakdown(
            parameters_bytes=2.0 * params,
            buffers_bytes=0.0,
            gradients_bytes=4e7,
            optimizer_state_bytes=8e7,
            activations_bytes=4 * 1024**3,
            temporaries_bytes=0.0,
        ),
        shape=ModelShape(family="cnn"),
    )


#: The workload :func:`toy_llm_profile` stands in for: GPT-2 XL fine-tuned with DDP, 200,000 samples.
TOY_LLM_WORKLOAD = {
    "name": "toy-llm",
    "task": "train",
    "model": {"preset": "gpt2-xl"},
    "inputs": {"batch_size": 4, "seq_len": 1024},
    "precision": "amp-bf16",
    "optimizer": "adamw",
    "parallelism": "ddp",
    "data": {"samples": 200_000, "epochs": 1},
}


def toy_llm_profile(precision: str = "amp-bf16", dtype: str = "bfloat16") -> Profile:
    """A stand-in 1.5 B-parameter decoder step (GPT-2 XL-sized, 60 TFLOP per micro-batch of 4 × 1,024
    tokens, AdamW): the estimate command's tests."""
    gib = 1024.0**3
    ops = (
        OpRecord(op="aten.mm", op_class="matmul", phase="forward", dtype=dtype, count=100, flops=2e13,
                 bytes_moved=2e10),
        OpRecord(op="aten.mm", op_class="matmul", phase="backward", dtype=dtype, count=200, flops=4e13,
                 bytes_moved=4e10),
        OpRecord(op="aten._foreach_add", op_class="other", phase="optimizer", dtype="float32", count=10,
                 flops=0.0, bytes_moved=3e10),
    )  # fmt: skip
    return Profile(
        key="k",
        workload_name="toy-llm",
        task="train",
        precision=precision,
        batch_size=4,
        seq_len=1024,
        params=1_500_000_000,
        trainable_params=1_500_000_000,
        flops_per_step=6e13,
        forward_flops=2e13,
        ops=ops,
        peak=MemoryBreakdown(
            parameters_bytes=6e9,
            buffers_bytes=0.0,
            gradients_bytes=6e9,
            optimizer_state_bytes=12e9,
            activations_bytes=8 * gib,
            temporaries_bytes=1 * gib,
        ),
        shape=ModelShape(family="decoder", num_layers=48, hidden_size=1600, largest_layer_params=80_000_000),
    )
