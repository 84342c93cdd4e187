#!/usr/bin/env python3
"""Training entry point for torchrun, written by `gpuplan deploy`.

It needs PyTorch only (not gpuplan). Launch it with launch.sh, or directly:
    torchrun --standalone --nproc-per-node 8 train.py

What it does
  * Data-parallel training with DDP, ZeRO-1 (DDP + ZeroRedundancyOptimizer) or FSDP (ZeRO-2/3),
    as the workload's `parallelism` says; backend nccl on CUDA, gloo on CPU.
  * Survives a spot interruption: SIGTERM (what Kubernetes, systemd and torchrun send before a node
    goes away) sets a flag; at the next step boundary every rank agrees to stop, a checkpoint is
    written atomically (temp file or folder + rename: rank 0 writes the whole state, or under FSDP
    every rank its own part with torch.distributed.checkpoint, so that no rank holds the full
    state) and the script exits with EXIT_PREEMPTED. Started
    again with the same --ckpt-dir, it resumes from the newest checkpoint any rank sees (the ranks
    agree on it, and every rank loads the same one): model, optimizer,
    step, sampler epoch and position, and every rank's RNG state, so the resumed run ends with the
    same weights as an uninterrupted one.
  * Resumes on another number of GPUs too (a spot node lost, capacity back with fewer GPUs) when
    the global batch (per-GPU batch x GPUs x accumulation steps) is a whole number of accumulation
    steps on the new count: the accumulation steps are recomputed, the epoch continues after the
    samples already seen, and the RNG is reseeded (said in one WARNING line: correct, not
    bit-identical). Otherwise it refuses with one line naming the GPU counts that work.
  * Checkpoints every CHECKPOINT_INTERVAL_MIN minutes (as gpuplan deploy set it: its README says why) or every
    --ckpt-every-steps steps.

Where to plug in your job: the section "YOUR MODEL AND DATA" below. Everything else is generic.
"""

from __future__ import annotations

import argparse
import atexit
import functools
import hashlib
import importlib
import inspect
import json
import logging
import math
import os
import random
import shutil
import signal
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, Dataset, DistributedSampler

# >>> gpuplan settings (written by `gpuplan deploy`; edit freely)
JOB_NAME = "gpuplan-job"
MODEL_SOURCE = "stand-in"  # what the workload names as its model
MODEL_ENTRY_POINT: str | None = None  # "package.module:function" returning an nn.Module
PRESET: str | None = None  # the gpuplan preset built from preset_model.py beside this file
PARALLELISM = "ddp"  # ddp | zero1 | zero2 | zero3 | fsdp
PRECISION = "fp32"  # fp32 | tf32 | amp-fp16 | amp-bf16 | bf16 | fp8 | fp16-master | bf16-master
OPTIMIZER = "adamw"
BATCH_SIZE = 8  # per GPU, per micro-batch
SEQ_LEN: int | None = None
IMAGE_SIZE: int | None = None
GRADIENT_ACCUMULATION = 1
GRADIENT_CHECKPOINTING = False
COMPILE = False  # torch.compile the model (on CUDA; a CPU dry run stays eager)
TOTAL_STEPS = 1000  # optimizer steps (--steps)
STEPS_BASIS = "the workload's samples x epochs / global batch"  # why TOTAL_STEPS is what it is
CKPT_EVERY_STEPS = 0  # also checkpoint every N steps (--ckpt-every-steps; 0 = off)
DATASET_SIZE = 10000  # samples in the synthetic stand-in dataset
NUM_WORKERS = 2  # DataLoader worker processes per GPU (--num-workers)
NUM_WORKERS_BASIS = "the plan's time counts no DataLoader workers"  # why NUM_WORKERS is what it is
CHECKPOINT_INTERVAL_MIN = 30.0
KEEP_CHECKPOINTS = 2  # checkpoints on disk at the most, the one being written included (>= 2)
# <<< gpuplan settings

#: Exit status after a checkpoint taken because of SIGTERM: 128 + 15, what a shell reports for a
#: process ended by SIGTERM. Non-zero on purpose: a Kubernetes Job or a SkyPilot managed job must
#: not count an interrupted run as finished.
EXIT_PREEMPTED = 143

# KEEP_CHECKPOINTS (in the settings above): before each write the oldest checkpoints are deleted
# down to KEEP_CHECKPOINTS - 1 (and any *.tmp an interrupted write left), so the folder never holds
# more than this many checkpoints' bytes, which is what the plan prices and gpuplan sizes a
# checkpoint volume for. Between writes the last KEEP_CHECKPOINTS complete ones are kept.


# ==== YOUR MODEL AND DATA =========================================================================
# Two ways in.
# * `model: {python: "pkg.module:build"}` in the workload: build() follows gpuplan's user-code
#   protocol and returns (model, make_inputs[, loss_fn]). train.py trains that model on the
#   micro-batches make_inputs(batch_size[, seq_len=/image_size=]) returns, seeded per batch index so
#   a resumed run sees the same ones, with loss_fn(output, inputs): the code gpuplan profiled. Make
#   the package importable: PYTHONPATH=DIR for a plain folder of modules, pip install -e DIR only
#   where DIR has a pyproject.toml or setup.py. make_inputs() usually makes synthetic batches;
#   replace build_dataset() with your data to train for real.
# * A gpuplan preset (PRESET): preset_model.py beside this file holds the preset's own code, as
#   gpuplan traced it (written by gpuplan deploy; PyTorch only). train.py builds it randomly
#   initialised and trains it on seeded synthetic batches of the workload's shape (random tokens,
#   or random images): put your data in build_dataset() and, for a fine-tune, load the weights in
#   build_model(). --width/--depth shrink it for a quick check on a small machine.
# * Otherwise (a Hugging Face config, or a preset train.py does not build), train.py cannot
#   rebuild the model without gpuplan: a small stand-in of the same kind (a transformer for
#   seq_len, a CNN for image_size, an MLP otherwise) trains on seeded synthetic data. It proves the
#   launch, the scaling and the checkpoint/resume path on the rented machine; it is not your model.
#   Put yours in build_model(), your Dataset in build_dataset() and your objective in compute_loss().
# Keep the Dataset indexable (map-style): the sampler resumes mid-epoch by index.

VOCAB_SIZE = 1024  # stand-in token vocabulary
NUM_CLASSES = 10  # stand-in image classes
STAND_IN_WIDTH, STAND_IN_DEPTH = 512, 4  # the stand-in's default size (--width, --depth)


def _beside(name: str) -> Any:
    """Module ``name``.py from this file's folder, however this file was loaded (run as a script,
    imported by serve.py or batch.py, or loaded from its path)."""
    import importlib.util

    found = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{name}.py"))
    if found is None or found.loader is None:  # pragma: no cover - a .py path always has a loader
        raise SystemExit(f"{name}.py is missing beside {__file__}: copy it with train.py")
    module = importlib.util.module_from_spec(found)
    sys.modules[name] = module  # its dataclasses look their module up by name
    found.loader.exec_module(module)
    return module


if PRESET:
    preset_model = _beside("preset_model")  # the preset's own code, written beside this file
    VOCAB_SIZE = preset_model.ARCH.vocab or VOCAB_SIZE
    NUM_CLASSES = preset_model.ARCH.num_classes


@functools.cache
def _user_build() -> tuple[Any, ...]:
    """The user's build() result as a tuple (called once: it may be expensive)."""
    assert MODEL_ENTRY_POINT
    module_name, _, func = MODEL_ENTRY_POINT.partition(":")
    built = getattr(importlib.import_module(module_name), func)()
    return built if isinstance(built, tuple) else (built,)


def build_model(width: int | None, depth: int | None) -> nn.Module:
    """Your model (MODEL_ENTRY_POINT), the preset (PRESET; --width/--depth shrink it where given),
    or the stand-in sized by --width/--depth."""
    if MODEL_ENTRY_POINT:
        return _user_build()[0]
    if PRESET:
        return preset_model.build_preset(width, depth, IMAGE_SIZE)
    size = (width or STAND_IN_WIDTH, depth or STAND_IN_DEPTH)
    if SEQ_LEN:
        return _StandInLM(*size)
    if IMAGE_SIZE:
        return _StandInCNN(*size)
    return _StandInMLP(*size)


def add_stand_in_options(p: argparse.ArgumentParser) -> None:
    """--width/--depth, which size the stand-in. Your model (MODEL_ENTRY_POINT) has its sizes in
    your code, where these would change nothing: they are not offered, so --help lists only what
    applies and a stray --width is refused rather than ignored."""
    if MODEL_ENTRY_POINT:
        p.set_defaults(width=STAND_IN_WIDTH, depth=STAND_IN_DEPTH)
        return
    if PRESET:
        arch = preset_model.ARCH
        quick = f"a quick check, not the planned model; default: {PRESET}'s own"
        if preset_model.SHRINKS_WIDTH:
            p.add_argument("--width", type=int, help=f"{PRESET} at this width ({quick}, {arch.hidden})")
        else:
            p.set_defaults(width=None)
        blocks = max(arch.stage_blocks) if arch.stage_blocks else arch.layers
        p.add_argument("--depth", type=int, help=f"{PRESET} with this many blocks ({quick}, {blocks})")
        return
    p.add_argument("--width", type=int, default=STAND_IN_WIDTH, help="stand-in model width")
    p.add_argument("--depth", type=int, default=STAND_IN_DEPTH, help="stand-in model depth")


class SyntheticDataset(Dataset):
    """Seeded random samples shaped like the workload's inputs; sample i is always the same."""

    def __init__(self, size: int, seed: int, width: int) -> None:
        self.size, self.seed, self.width = size, seed, width

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, i: int) -> tuple[torch.Tensor, torch.Tensor]:
        g = torch.Generator().manual_seed(self.seed * 1_000_003 + i)
        if SEQ_LEN:
            tokens = torch.randint(0, VOCAB_SIZE, (SEQ_LEN + 1,), generator=g)
            return tokens[:-1], tokens[1:]  # next-token prediction
        if IMAGE_SIZE:
            image = torch.randn(3, IMAGE_SIZE, IMAGE_SIZE, generator=g)
            return image, torch.randint(0, NUM_CLASSES, (), generator=g)
        x = torch.randn(self.width, generator=g)
        return x, torch.randint(0, NUM_CLASSES, (), generator=g)


class MicroBatches(Dataset):
    """Item i is one whole micro-batch from the user's make_inputs(), made under seed i."""

    batched = True  # items are batches already: the DataLoader must not batch them again

    def __init__(self, make_inputs: Any, batches: int, batch_size: int, seed: int) -> None:
        self.make_inputs, self.batches, self.batch_size, self.seed = make_inputs, batches, batch_size, seed
        params = inspect.signature(make_inputs).parameters
        takes_any = any(p.kind is p.VAR_KEYWORD for p in params.values())
        given = {"seq_len": SEQ_LEN, "image_size": IMAGE_SIZE}
        self.kwargs = {k: v for k, v in given.items() if v is not None and (k in params or takes_any)}

    def __len__(self) -> int:
        return self.batches

    def __getitem__(self, i: int) -> Any:
        with torch.random.fork_rng(devices=[]):  # seeded per batch, global RNG left as it was
            torch.manual_seed(self.seed * 1_000_003 + i)
            return self.make_inputs(self.batch_size, **self.kwargs)


def build_dataset(size: int, seed: int, width: int | None, batch_size: int) -> Dataset:
    """Your training Dataset: samples (inputs, targets), or whole micro-batches if ``batched``."""
    if MODEL_ENTRY_POINT:
        parts = _user_build()
        if len(parts) < 2:
            raise SystemExit(
                f"{MODEL_ENTRY_POINT}() returned only a model: return (model, make_inputs[, loss_fn]) "
                f"or write build_dataset() and compute_loss() in {__file__}"
            )
        return MicroBatches(parts[1], max(1, size // batch_size), batch_size, seed)
    return SyntheticDataset(size, seed, width or STAND_IN_WIDTH)


def compute_loss(model: nn.Module, batch: Any) -> torch.Tensor:
    """Forward one micro-batch and return its loss."""
    if MODEL_ENTRY_POINT:
        if isinstance(batch, dict):
            output = model(**batch)
        else:
            output = model(*batch) if isinstance(batch, tuple) else model(batch)
        parts = _user_build()
        if len(parts) > 2:
            return parts[2](output, batch)
        # gpuplan's documented fallback without a loss_fn: output.loss (Hugging Face), else the
        # mean of the output. It runs; it is not a training objective: give build() a loss_fn.
        if getattr(output, "loss", None) is not None:
            return output.loss
        first = output if isinstance(output, torch.Tensor) else next(iter(output))
        return first.float().mean()
    inputs, targets = batch
    return loss_fn(model(inputs), targets)


def loss_fn(output: Any, targets: torch.Tensor) -> torch.Tensor:
    """Cross-entropy of logits [..., C] against class ids [...]; Hugging Face outputs use .loss."""
    if hasattr(output, "loss") and output.loss is not None:
        return output.loss
    logits = output.logits if hasattr(output, "logits") else output
    if not isinstance(logits, torch.Tensor) or logits.shape[:-1] != targets.shape:
        raise SystemExit(
            f"loss_fn cannot match the model's output {getattr(logits, 'shape', type(logits))} to "
            f"targets {tuple(targets.shape)}: edit loss_fn() in {__file__} for your objective"
        )
    return F.cross_entropy(logits.flatten(0, -2).float(), targets.flatten())


class _StandInLM(nn.Module):
    def __init__(self, width: int, depth: int) -> None:
        super().__init__()
        self.embed = nn.Embedding(VOCAB_SIZE, width)
        self.blocks = nn.ModuleList(
            nn.TransformerEncoderLayer(
                width, nhead=4, dim_feedforward=4 * width, dropout=0.1, batch_first=True
            )
            for _ in range(depth)
        )
        self.head = nn.Linear(width, VOCAB_SIZE)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.embed(tokens)
        mask = nn.Transformer.generate_square_subsequent_mask(tokens.shape[1], device=tokens.device)
        for block in self.blocks:
            if GRADIENT_CHECKPOINTING and self.training:
                x = torch.utils.checkpoint.checkpoint(block, x, mask, use_reentrant=False)
            else:
                x = block(x, src_mask=mask, is_causal=True)
        # A Linear on [batch, seq, width] returns a view; FSDP2 warns about views returned by a
        # sharded module, so hand back a fresh tensor (logits are small in the stand-in).
        return self.head(x).clone()


def _run_blocks(blocks: nn.ModuleList, x: torch.Tensor, training: bool) -> torch.Tensor:
    """A stand-in's repeated blocks in turn, each recomputed in backward (non-reentrant
    torch.utils.checkpoint, as the stand-in LM checkpoints its layers) where GRADIENT_CHECKPOINTING
    asks for it: gpuplan's memory estimate assumed it."""
    for block in blocks:
        if GRADIENT_CHECKPOINTING and training:
            x = torch.utils.checkpoint.checkpoint(block, x, use_reentrant=False)
        else:
            x = block(x)
    return x


class _StandInCNN(nn.Module):
    def __init__(self, width: int, depth: int) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, stride=2, padding=1), nn.ReLU())
        # NB: under checkpointing a block's forward runs again in backward, in training mode, so
        # BatchNorm's running statistics take each micro-batch twice (the batch statistics that
        # train the model are the same both times).
        self.blocks = nn.ModuleList(
            nn.Sequential(nn.Conv2d(width, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU())
            for _ in range(depth)
        )
        self.head = nn.Sequential(
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.1), nn.Linear(width, NUM_CLASSES)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(_run_blocks(self.blocks, self.stem(x), self.training))


class _StandInMLP(nn.Module):
    def __init__(self, width: int, depth: int) -> None:
        super().__init__()
        self.blocks = nn.ModuleList(
            nn.Sequential(nn.Linear(width, width), nn.GELU(), nn.Dropout(0.1)) for _ in range(depth)
        )
        self.head = nn.Linear(width, NUM_CLASSES)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(_run_blocks(self.blocks, x, self.training))


# ==== END OF YOUR MODEL AND DATA ==================================================================


class ResumableSampler(DistributedSampler):
    """DistributedSampler that can start an epoch part-way: ``start_offset`` items after micro-batch
    ``start_batch`` (the offset is non-zero only after a resume on another number of ranks)."""

    def __init__(self, dataset: Dataset, batch_size: int, **kwargs: Any) -> None:
        super().__init__(dataset, **kwargs)
        self.batch_size = batch_size
        self.start_batch = 0
        self.start_offset = 0

    def __iter__(self) -> Iterator[int]:
        indices = list(super().__iter__())
        return iter(indices[self.start_batch * self.batch_size + self.start_offset :])

    def __len__(self) -> int:
        return max(0, self.num_samples - self.start_batch * self.batch_size - self.start_offset)


class Preemption:
    """Remembers that SIGTERM arrived; the training loop acts on it at a step boundary, where the
    state is consistent (saving inside a signal handler could catch an optimizer step half-done)."""

    def __init__(self) -> None:
        self.requested = False
        signal.signal(signal.SIGTERM, self._handle)

    def _handle(self, signum: int, frame: object) -> None:
        self.requested = True


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=f"Train {JOB_NAME} ({MODEL_SOURCE}) with checkpoint/resume.")
    p.add_argument(
        "--steps",
        type=int,
        default=TOTAL_STEPS,
        help=f"optimizer steps in total (default {TOTAL_STEPS}: {STEPS_BASIS})",
    )
    p.add_argument("--lr", type=float, default=None, help="learning rate (default: the optimizer's usual)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--batch-size", type=int, default=BATCH_SIZE, help="per GPU, per micro-batch")
    p.add_argument("--dataset-size", type=int, default=DATASET_SIZE)
    add_stand_in_options(p)
    p.add_argument(
        "--num-workers",
        type=int,
        default=NUM_WORKERS,
        help=f"DataLoader worker processes per GPU (default {NUM_WORKERS}: {NUM_WORKERS_BASIS})",
    )
    p.add_argument("--ckpt-dir", default=os.environ.get("CKPT_DIR", "checkpoints"))
    p.add_argument("--ckpt-every-min", type=float, default=CHECKPOINT_INTERVAL_MIN)
    p.add_argument(
        "--ckpt-every-steps",
        type=int,
        default=None,
        help=f"also checkpoint every N steps (0 = off; default {CKPT_EVERY_STEPS} for a run of at most "
        f"{TOTAL_STEPS} steps, else off: a longer run checkpoints every --ckpt-every-min)",
    )
    p.add_argument("--log-every", type=int, default=10)
    p.add_argument("--result-file", help="write the final loss and a hash of the final weights (JSON)")
    p.add_argument(
        "--throttle-s", type=float, default=0.0, help="sleep after each step: rehearse a preemption by hand"
    )
    add_device_option(p, "train")
    args = p.parse_args(argv)
    if args.ckpt_every_steps is None:
        # The step checkpoints belong to the short check of the launch (two checkpoints in its
        # steps); a run given more steps keeps them, at a full model's checkpoint every 100 steps,
        # writing for longer than it trains: it checkpoints on the plan's interval instead.
        args.ckpt_every_steps = CKPT_EVERY_STEPS if args.steps <= TOTAL_STEPS else 0
    return args


#: Exit status of a run refused because no GPU is visible: not EXIT_PREEMPTED, so no launcher
#: takes it for a reclaim, and not 2, argparse's status for a bad argument (and batch.py's for bad
#: inputs), so a launcher can tell a machine whose GPUs cannot be seen, which another node may not
#: share, from input that fails the same way anywhere: a Kubernetes batch Job retries the first and
#: fails the index at once on the second. serve.py and batch.py exit with it too.
EXIT_NO_GPU = 3


def add_device_option(p: argparse.ArgumentParser, doing: str) -> None:
    """--device, as train.py, serve.py and batch.py take it: cpu runs on the CPU on purpose (a dry
    run, the tests); the default refuses a machine whose GPUs CUDA cannot see (require_gpu()).
    ``doing``: what the script does, as the help says it ("train", "serve")."""
    p.add_argument(
        "--device",
        choices=("cuda", "cpu"),
        default="cuda",
        help=f"cpu: {doing} on the CPU on purpose (a dry run); by default a machine whose GPUs CUDA "
        f"cannot see is refused, with exit status {EXIT_NO_GPU}",
    )


def no_gpu_refusal(script: str = "train.py", doing: str = "train") -> str:
    """The one line said when CUDA sees no GPU and --device cpu was not given: on a rented GPU
    machine whose container cannot see the GPUs, training, serving or a batch run on the CPU would
    bill GPU prices for CPU speed, so ``script`` stops before it starts."""
    return (
        f"{script}: CUDA sees no GPU (torch {torch.__version__}, CUDA build {torch.version.cuda}): "
        "check `nvidia-smi` on the host, that the container has the GPUs (`docker run --gpus all`, "
        "or the pod's nvidia.com/gpu limit) and that the driver supports this CUDA build; "
        f"pass --device cpu to {doing} on the CPU on purpose"
    )


def require_gpu(device_kind: str, script: str = "train.py", doing: str = "train") -> None:
    """Exit with EXIT_NO_GPU and no_gpu_refusal()'s line where CUDA sees no GPU, unless
    ``device_kind`` (--device) is "cpu". Called before anything is written or loaded."""
    if device_kind != "cpu" and not torch.cuda.is_available():
        print(no_gpu_refusal(script, doing), file=sys.stderr, flush=True)
        raise SystemExit(EXIT_NO_GPU)


def setup_distributed(device_kind: str = "cuda") -> tuple[int, int, torch.device]:
    """Join the process group torchrun set up (or a group of one when run as plain python).
    ``device_kind``: "cuda" (NCCL; refused with one line where CUDA sees no GPU) or "cpu" (gloo,
    asked for with --device cpu: tests, dry runs)."""
    require_gpu(device_kind)
    for key, default in (("RANK", "0"), ("WORLD_SIZE", "1"), ("LOCAL_RANK", "0")):
        os.environ.setdefault(key, default)
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29500")
    local_rank = int(os.environ["LOCAL_RANK"])
    if device_kind != "cpu":
        device = torch.device("cuda", local_rank)
        torch.cuda.set_device(device)
        backend = "nccl"
    else:
        device = torch.device("cpu")
        backend = "gloo"  # NCCL needs CUDA; gloo runs the same script on CPU (tests, dry runs)
        _ON_GLOO.append(True)
    dist.init_process_group(backend)
    return dist.get_rank(), dist.get_world_size(), device


def autocast_dtype() -> torch.dtype | None:
    if PRECISION in ("amp-bf16", "bf16", "fp8", "bf16-master"):
        # fp8 training needs Transformer Engine or torchao; bf16 autocast is the portable fallback
        # (also for bf16-master: Megatron-LM --bf16's fp32 main gradients have no plain-PyTorch form).
        return torch.bfloat16
    if PRECISION in ("amp-fp16", "fp16-master"):
        # fp16-master (fp16 weights, fp32 master copy: Megatron-LM / DeepSpeed fp16) has no
        # plain-PyTorch optimizer; fp16 autocast with a GradScaler is the portable fallback.
        return torch.float16
    return None


def checkpoint_activations(model: nn.Module, rank: int) -> None:
    """Activation checkpointing of your model, where GRADIENT_CHECKPOINTING asks for it (gpuplan's
    memory estimate assumed it; each stand-in checkpoints its blocks in its own forward). It
    wraps what gpuplan's estimate checkpointed: transformers' own per-layer checkpointing where
    the model has it, else each element of the model's largest nn.ModuleList (by parameters; more
    than one element), wrapped non-reentrant by PyTorch's ``apply_activation_checkpointing`` (the
    wrapper torchtitan applies before FSDP; state dict keys keep their names). One line says what
    was wrapped; a model with no repeated blocks runs without and says so in one WARNING line:
    gpuplan's memory estimate assumed checkpointing, so it may not fit."""
    if not GRADIENT_CHECKPOINTING or isinstance(model, (_StandInLM, _StandInCNN, _StandInMLP)):
        return
    from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import (
        CheckpointImpl,
        CheckpointWrapper,
        apply_activation_checkpointing,
        checkpoint_wrapper,
    )

    name = type(model).__name__
    said = f"[{JOB_NAME}] activation checkpointing (gpuplan's memory estimate assumes it): "
    # transformers >= 5 names the flag is_activation_checkpointing (the old name warns).
    flag = next(
        (f for f in ("is_activation_checkpointing", "is_gradient_checkpointing") if hasattr(model, f)), ""
    )
    if (flag and getattr(model, flag) is True) or any(
        isinstance(m, CheckpointWrapper) for m in model.modules()
    ):
        if rank == 0:
            print(f"{said}{name} checkpoints its layers itself", flush=True)
        return
    if hasattr(model, "gradient_checkpointing_enable") and getattr(
        model, "supports_gradient_checkpointing", False
    ):
        config = getattr(model, "config", None)
        if config is not None and getattr(config, "use_cache", None):
            config.use_cache = False  # no KV cache in training; transformers would say so on stderr
        # transformers >= 5 renamed the method (and its argument); the old name still works but warns.
        kwargs = {"use_reentrant": False}
        if hasattr(model, "activation_checkpointing_enable"):
            getattr(model, "activation_checkpointing_enable")(activation_checkpointing_kwargs=kwargs)  # noqa: B009
        else:
            getattr(model, "gradient_checkpointing_enable")(gradient_checkpointing_kwargs=kwargs)  # noqa: B009
        if rank == 0:
            print(f"{said}transformers' own, per layer of {name}", flush=True)
        return
    lists = [(n, m) for n, m in model.named_modules() if isinstance(m, nn.ModuleList) and len(m) > 1]
    if not lists:
        if rank == 0:
            print(
                f"[{JOB_NAME}] WARNING: gpuplan's memory estimate assumed activation checkpointing, "
                f"but {name} has no repeated blocks (an nn.ModuleList of layers) to checkpoint: it trains "
                "without, on more GPU memory than planned. Checkpoint its layers in your code "
                "(torch.utils.checkpoint), or plan the job without activation checkpointing",
                file=sys.stderr,
                flush=True,
            )
        return
    where, blocks = max(lists, key=lambda nm: sum(p.numel() for p in nm[1].parameters()))
    chosen = {id(b) for b in blocks}
    kinds = "/".join(sorted({type(b).__name__ for b in blocks}))
    apply_activation_checkpointing(
        model,
        checkpoint_wrapper_fn=functools.partial(
            checkpoint_wrapper, checkpoint_impl=CheckpointImpl.NO_REENTRANT
        ),
        check_fn=lambda m: id(m) in chosen,
    )
    if rank == 0:
        owner = f"{name}.{where}" if where else name
        print(f"{said}the {len(blocks)} {kinds} modules of {owner}, recomputed in backward", flush=True)


def wrap_model(model: nn.Module, device: torch.device) -> nn.Module:
    """DDP for ddp/zero1; FSDP2 ``fully_shard`` for zero2 (grads+optimizer sharded, params kept
    after forward = SHARD_GRAD_OP) and zero3/fsdp (everything sharded = FULL_SHARD). Pure bf16
    (PRECISION "bf16") keeps the weights themselves in bf16, as gpuplan priced it."""
    model = model.to(device)
    if PRECISION == "bf16":
        model = model.to(torch.bfloat16)
    if COMPILE and device.type == "cuda":
        model.compile()  # in place: the state dict keeps its names, so checkpoints stay portable
    if PARALLELISM in ("ddp", "zero1"):
        ids = [device.index] if device.type == "cuda" else None
        return nn.parallel.DistributedDataParallel(model, device_ids=ids)
    try:
        from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
    except ImportError:  # PyTorch 2.4/2.5 kept FSDP2 under a private path
        from torch.distributed._composable.fsdp import MixedPrecisionPolicy, fully_shard

    reshard = PARALLELISM != "zero2"
    dtype = autocast_dtype() if device.type == "cuda" else None
    mp = (
        MixedPrecisionPolicy(param_dtype=dtype, reduce_dtype=torch.float32)
        if dtype
        else MixedPrecisionPolicy()
    )
    # Shard the repeated blocks first (the elements of each ModuleList: transformer layers), then
    # the root, which takes everything else (embeddings, head): FSDP2's recommended nesting.
    for child in model.modules():
        if isinstance(child, nn.ModuleList):
            for block in child:
                if not isinstance(block, nn.ModuleList):  # a nested list has no forward to wrap
                    fully_shard(block, reshard_after_forward=reshard, mp_policy=mp)
    fully_shard(model, reshard_after_forward=reshard, mp_policy=mp)
    return model


#: Each optimizer's usual learning rate, when --lr is not given.
DEFAULT_LR = {"sgd": 0.1, "adafactor": 1e-2}


def _eight_bit(paged: bool) -> Any:
    """bitsandbytes' 8-bit AdamW (paged: its state in CUDA managed memory), or None where
    bitsandbytes is not installed or there is no CUDA GPU (its 8-bit optimizers need one)."""
    if not torch.cuda.is_available():
        return None
    try:
        import bitsandbytes as bnb  # pip install bitsandbytes
    except ImportError:
        return None
    return bnb.optim.PagedAdamW8bit if paged else bnb.optim.AdamW8bit


def optimizer_class(device: torch.device) -> tuple[Any, dict[str, Any], str]:
    """The workload's optimizer as gpuplan priced it: (class, keyword arguments, a note when it is
    a stand-in). SGD with momentum 0.9 (one buffer per weight), fused AdamW on CUDA, PyTorch's
    Adafactor, bitsandbytes' 8-bit AdamW where it is installed."""
    if OPTIMIZER == "sgd":
        return torch.optim.SGD, {"momentum": 0.9}, ""
    if OPTIMIZER == "adam":
        return torch.optim.Adam, {}, ""
    if OPTIMIZER == "adamw-fused":
        return torch.optim.AdamW, ({"fused": True} if device.type == "cuda" else {}), ""
    if OPTIMIZER == "adafactor" and hasattr(torch.optim, "Adafactor"):  # PyTorch 2.5 and later
        if PARALLELISM in ("ddp", "zero1"):
            return torch.optim.Adafactor, {}, ""
        # Its step squares a norm in place, which FSDP's sharded parameters (DTensor) refuse
        # ("in-place operations that require placement changes are not supported").
        return (
            torch.optim.AdamW,
            {},
            (
                "PyTorch's Adafactor does not step FSDP's sharded parameters: stepping torch.optim.AdamW "
                "instead, whose state (8 bytes a parameter) is far more than the factored one gpuplan priced"
            ),
        )
    if OPTIMIZER in ("adamw-8bit", "paged-adamw-8bit"):
        cls = _eight_bit(paged=OPTIMIZER.startswith("paged"))
        if cls is not None:
            return cls, {}, ""
        return (
            torch.optim.AdamW,
            {},
            (
                f"{OPTIMIZER} needs bitsandbytes on a CUDA GPU (pip install bitsandbytes): stepping "
                "torch.optim.AdamW instead, whose state takes 4x the memory gpuplan priced"
            ),
        )
    if OPTIMIZER != "adamw":
        return torch.optim.AdamW, {}, f"{OPTIMIZER} is not in this PyTorch: stepping torch.optim.AdamW"
    return torch.optim.AdamW, {}, ""


def build_optimizer(model: nn.Module, lr: float | None, device: torch.device) -> torch.optim.Optimizer:
    cls, kwargs, note = optimizer_class(device)
    if note and int(os.environ.get("RANK", "0")) == 0:
        print(f"[{JOB_NAME}] warning: {note}", file=sys.stderr, flush=True)
    kwargs["lr"] = lr if lr is not None else DEFAULT_LR.get(OPTIMIZER, 3e-4)
    if PARALLELISM == "zero1":
        from torch.distributed.optim import ZeroRedundancyOptimizer

        return ZeroRedundancyOptimizer(model.parameters(), optimizer_class=cls, **kwargs)
    return cls(model.parameters(), **kwargs)


# ---- checkpoints ------------------------------------------------------------------------------


def full_state(model: nn.Module, optimizer: torch.optim.Optimizer) -> tuple[dict, dict]:
    """Unsharded model and optimizer state, complete on rank 0 (a collective: every rank calls it)."""
    if PARALLELISM in ("ddp", "zero1"):
        # DDP keeps a full replica on every rank: rank 0's own state is the whole model. (Not
        # torch.distributed.checkpoint here: importing it costs seconds at every start.)
        module = model.module if isinstance(model, nn.parallel.DistributedDataParallel) else model
        model_state = {k: v.detach().cpu() for k, v in module.state_dict().items()}
        if PARALLELISM == "zero1":
            optimizer.consolidate_state_dict(to=0)  # type: ignore[attr-defined]
        optim_state = optimizer.state_dict() if dist.get_rank() == 0 else {}
        return model_state, optim_state
    from torch.distributed.checkpoint.state_dict import StateDictOptions, get_state_dict

    # FSDP: gather the shards into full tensors, on the CPU so a large model fits.
    return get_state_dict(model, optimizer, options=StateDictOptions(full_state_dict=True, cpu_offload=True))


def load_full_state(model: nn.Module, optimizer: torch.optim.Optimizer, ckpt: dict) -> None:
    """Load full (unsharded) state on every rank; FSDP re-shards it."""
    if PARALLELISM in ("ddp", "zero1"):
        module = model.module if isinstance(model, nn.parallel.DistributedDataParallel) else model
        module.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        return
    from torch.distributed.checkpoint.state_dict import StateDictOptions, set_model_state_dict, set_state_dict

    if not ckpt["optimizer"].get("state"):
        # An optimizer that keeps nothing per weight (SGD without momentum) has only its settings to
        # restore, and the full-state loader needs a tensor to place them by.
        set_model_state_dict(model, ckpt["model"], options=StateDictOptions(full_state_dict=True))
        return
    set_state_dict(
        model,
        optimizer,
        model_state_dict=ckpt["model"],
        optim_state_dict=ckpt["optimizer"],
        options=StateDictOptions(full_state_dict=True),
    )


def rng_state(device: torch.device) -> dict:
    state = {"python": random.getstate(), "torch": torch.get_rng_state()}
    if device.type == "cuda":
        state["cuda"] = torch.cuda.get_rng_state(device)
    return state


def set_rng_state(state: dict, device: torch.device) -> None:
    random.setstate(state["python"])
    torch.set_rng_state(state["torch"])
    if device.type == "cuda" and "cuda" in state:
        torch.cuda.set_rng_state(state["cuda"], device)


#: FSDP checkpoints are sharded with torch.distributed.checkpoint (DCP): every rank writes and reads
#: its own part (a folder ``step_NNNNNNNN/``), so no rank ever holds the full state, which beyond ~10 B
#: parameters no node's host memory holds once per rank. The other modes write one full file, which
#: rank 0 writes (``step_NNNNNNNN.pt``).
SHARDED_CHECKPOINTS = PARALLELISM == "fsdp"
#: What rank 0 writes into a sharded checkpoint's folder beside DCP's parts: progress, RNG, batch.
TRAIN_STATE = "train_state.pt"


def checkpoint_paths(ckpt_dir: Path) -> list[Path]:
    # Only complete ones match: an interrupted write leaves a *.tmp (file or folder) that is ignored.
    return sorted(p for p in ckpt_dir.glob("step_*") if not p.name.endswith(".tmp"))


_SHARED: dict[str, bool] = {}


def folder_shared(ckpt_dir: Path) -> bool:
    """Whether every rank sees ``ckpt_dir`` as rank 0 does (a collective, asked once a run): a file
    rank 0 puts there is seen by all. A sharded checkpoint needs it (every rank writes its part into
    the one folder); where not (a local folder on each node), the checkpoints are written whole by
    rank 0, said once in a WARNING line."""
    key = str(ckpt_dir.absolute())
    if key not in _SHARED:
        rank = dist.get_rank()
        box: list[Any] = [f".gpuplan-shared-{os.getpid()}-{time.time_ns()}" if rank == 0 else None]
        dist.broadcast_object_list(box, src=0)
        probe = ckpt_dir / box[0]
        if rank == 0:
            ckpt_dir.mkdir(parents=True, exist_ok=True)
            probe.touch()
        dist.barrier()
        seen: list[Any] = [None] * dist.get_world_size()
        dist.all_gather_object(seen, probe.exists())
        if rank == 0:
            probe.unlink(missing_ok=True)
            blind = [str(r) for r, s in enumerate(seen) if not s]
            if blind:
                print(
                    f"[{JOB_NAME}] WARNING: rank(s) {', '.join(blind)} do not see {ckpt_dir} as rank 0 "
                    "does: the checkpoints are written whole by rank 0, not in parts, and a resume holds "
                    "the full state on every rank. Give CKPT_DIR storage every node sees (NFS, a bucket "
                    "mount) for sharded ones",
                    file=sys.stderr,
                    flush=True,
                )
        _SHARED[key] = all(seen)
    return _SHARED[key]


def _remove(path: Path) -> None:
    """Delete a checkpoint, a file or a sharded one's folder (gone already: nothing to do)."""
    if path.is_dir():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def _write_atomically(payload: dict, path: Path) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        torch.save(payload, f)
        f.flush()
        os.fsync(f.fileno())  # the rename must not land before the data does
    os.replace(tmp, path)  # atomic on POSIX: readers see the old set or the new file, never half


def save_checkpoint(
    ckpt_dir: Path,
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    progress: dict,
    device: torch.device,
    layout: dict,
) -> Path:
    """Every rank calls this; rank 0 writes ``step_NNNNNNNN.pt`` atomically (with
    :data:`SHARDED_CHECKPOINTS`, every rank writes its part of the folder ``step_NNNNNNNN`` and rank
    0 renames it whole when all are written), then all wait.
    ``layout``: the per-GPU micro-batch and the accumulation steps, which with the world size give
    the global batch that a resume on another number of ranks keeps."""
    rng_states: list[Any] = [None] * dist.get_world_size()
    dist.all_gather_object(rng_states, rng_state(device))  # each rank's RNG, restored to the same rank
    sharded = SHARDED_CHECKPOINTS and folder_shared(ckpt_dir)
    path = ckpt_dir / f"step_{progress['step']:08d}{'' if sharded else '.pt'}"
    payload = {
        "progress": progress,
        "rng": rng_states,
        "world_size": dist.get_world_size(),
        "batch": layout,
        "parallelism": PARALLELISM,
        "sharded": sharded,
    }
    if dist.get_rank() == 0:
        ckpt_dir.mkdir(parents=True, exist_ok=True)
        # Room first: the newest complete checkpoint stays while the next one is written, so an
        # interrupted write still resumes from it; a *.tmp left by one (a SIGKILL mid-save) is
        # dead weight as large as a checkpoint.
        complete = checkpoint_paths(ckpt_dir)
        for stale in [*ckpt_dir.glob("step_*.tmp"), *complete[: len(complete) - (KEEP_CHECKPOINTS - 1)]]:
            _remove(stale)
    if sharded:
        import torch.distributed.checkpoint as dcp
        from torch.distributed.checkpoint.state_dict import get_state_dict

        tmp = path.with_name(path.name + ".tmp")
        dist.barrier()  # the old ones are gone before any rank writes
        model_state, optim_state = get_state_dict(model, optimizer)  # each rank's own shards
        # every rank writes its part; DCP's coordinator (rank 0) writes the index last
        dcp.save({"model": model_state, "optimizer": optim_state}, checkpoint_id=tmp)
        if dist.get_rank() == 0:
            _write_atomically(payload, tmp / TRAIN_STATE)
            os.replace(tmp, path)  # the folder appears complete or not at all
        dist.barrier()
        return path
    model_state, optim_state = full_state(model, optimizer)
    if dist.get_rank() == 0:
        _write_atomically({"model": model_state, "optimizer": optim_state, **payload}, path)
    dist.barrier()
    return path


def newest_checkpoint(ckpt_dir: Path) -> tuple[int, Path | None]:
    """The newest complete checkpoint in ``ckpt_dir`` this process sees: (its step, its path), or
    (-1, None) when there is none."""
    for path in reversed(checkpoint_paths(ckpt_dir)):
        stem = path.name[len("step_") :].removesuffix(".pt")
        if stem.isdigit() and (path.is_file() or (path / TRAIN_STATE).is_file()):
            return int(stem), path
    return -1, None


def load_sharded_state(model: nn.Module, optimizer: torch.optim.Optimizer, path: Path) -> None:
    """Load a sharded checkpoint's model and optimizer state: each rank reads the parts of its own
    shards (DCP reshards a checkpoint written by another number of ranks)."""
    import torch.distributed.checkpoint as dcp
    from torch.distributed.checkpoint.state_dict import get_state_dict, set_state_dict

    model_state, optim_state = get_state_dict(model, optimizer)
    dcp.load(
        {"model": model_state, "optimizer": optim_state}, checkpoint_id=path
    )  # in place: this rank's shards
    set_state_dict(model, optimizer, model_state_dict=model_state, optim_state_dict=optim_state)


def _refuse_together(line: str) -> NoReturn:
    """Every rank stops, the reason said once by rank 0 (torchrun ends the others at the first exit)."""
    if dist.get_rank() == 0:
        print(line, file=sys.stderr, flush=True)
    dist.barrier()
    raise SystemExit(1)


def load_latest_checkpoint(
    ckpt_dir: Path,
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    device: torch.device,
    layout: dict,
    seed: int,
) -> tuple[dict, int] | None:
    """Restore the newest checkpoint any rank sees, if any; returns its progress and the gradient
    accumulation steps to go on with (``layout``: this run's batch, as save_checkpoint takes it).

    Every rank looks in its own ``ckpt_dir`` and the ranks agree (all_gather) on the newest step
    any of them sees. The lowest rank that holds it (rank 0 whenever it does) reads the file and
    broadcasts it, and every rank loads the same model, optimizer and RNG state: nothing relies on
    DDP's broadcast from rank 0 when it wraps the model, which would miss the optimizer state. So
    a rank 0 that sees no checkpoint, or an older one (its node was replaced, or CKPT_DIR is a
    local folder and rank 0 moved to another node), never restarts the run from step 0 while a
    newer checkpoint is on another node; that case is said on stderr, because only rank 0 writes
    checkpoints and the next ones land in its folder. NB: the broadcast of a full checkpoint holds
    the full state in every rank's host memory; a sharded one (FSDP's) broadcasts only its progress
    and RNG states, and every rank reads its own part, which needs every rank to see the folder."""
    step, path = newest_checkpoint(ckpt_dir)
    sharded = path is not None and path.is_dir()
    where = (step, socket.gethostname(), os.environ.get("GROUP_RANK", "0"), str(ckpt_dir.absolute()), sharded)
    seen: list[Any] = [None] * dist.get_world_size()
    dist.all_gather_object(seen, where)
    newest = max(s[0] for s in seen)
    if newest < 0:
        return None
    holder = next(rank for rank, s in enumerate(seen) if s[0] == newest)
    if seen[holder][4]:
        if not SHARDED_CHECKPOINTS:
            _refuse_together(
                f"the newest checkpoint, step {newest}, is sharded (written by an FSDP run) and this run's "
                f'PARALLELISM is {PARALLELISM}: resume with PARALLELISM = "fsdp", or start fresh with '
                "another --ckpt-dir"
            )
        blind = [rank for rank, s in enumerate(seen) if s[0] != newest]
        if blind:
            _refuse_together(
                f"the newest checkpoint, step {newest}, is sharded (every rank wrote its part to "
                f"{seen[holder][3]} on {seen[holder][1]}), and rank(s) {', '.join(map(str, blind))} do "
                "not see it: CKPT_DIR must be storage every node sees (NFS, a bucket mount)"
            )
    box: list[Any] = [None]
    if dist.get_rank() == holder and path is not None:
        box[0] = torch.load(path / TRAIN_STATE if sharded else path, map_location="cpu", weights_only=False)
    dist.broadcast_object_list(box, src=holder)
    ckpt = box[0]
    if holder != 0 and dist.get_rank() == 0:
        _, host, node, folder, _ = seen[holder]
        own = f"step {seen[0][0]}" if seen[0][0] >= 0 else "no checkpoint"
        print(
            f"[{JOB_NAME}] WARNING: the newest checkpoint, step {newest}, is only on node {node} "
            f"({host}, rank {holder}, {folder}); rank 0 on node {seen[0][2]} ({seen[0][1]}, {seen[0][3]}) "
            f"sees {own}. Resuming from step {newest}. CKPT_DIR must be storage every node sees "
            "(NFS, a bucket mount): rank 0 writes the checkpoints, and a replaced node takes its own "
            "with it.",
            file=sys.stderr,
            flush=True,
        )
    # Bit-identical resumption needs the same world size (sampler shards, per-rank RNG) and the same
    # intra-op thread count (OMP_NUM_THREADS sets float summation order); a resume that changes the
    # thread count is still correct, only not bit-for-bit. So is one on another world size.
    world, rank = dist.get_world_size(), dist.get_rank()
    if ckpt["world_size"] == world:
        load_state(model, optimizer, ckpt, path)
        set_rng_state(ckpt["rng"][rank], device)
        return ckpt["progress"], layout["accumulation"]
    # Decided from the checkpoint alone, so every rank refuses or goes on alike, before any loading;
    # a refusal is said once, by rank 0, before any rank exits (torchrun ends the others at the first).
    try:
        progress, accumulation, warning = rescale_progress(ckpt, world, layout["per_gpu"], layout["batched"])
    except SystemExit as refusal:
        _refuse_together(str(refusal.code))
    load_state(model, optimizer, ckpt, path)  # full tensors, or DCP's parts: they load on any number of ranks
    # Per-rank RNG states have no counterpart on another rank count: a deterministic seed per rank
    # and step instead (the same resume on the same count draws the same numbers again).
    reseed = ((seed * 1_000_003 + progress["step"]) * 1_000_003 + rank) % 2**63  # manual_seed's range
    torch.manual_seed(reseed)  # also seeds every CUDA device
    random.seed(reseed)
    if rank == 0:
        print(f"[{JOB_NAME}] WARNING: {warning}", file=sys.stderr, flush=True)
    return progress, accumulation


def load_state(model: nn.Module, optimizer: torch.optim.Optimizer, ckpt: dict, path: Path | None) -> None:
    """A checkpoint's model and optimizer state: a sharded one's from its folder ``path``, a full
    one's from ``ckpt``."""
    if ckpt.get("sharded"):
        assert path is not None  # every rank sees a sharded checkpoint (load_latest_checkpoint)
        load_sharded_state(model, optimizer, path)
    else:
        load_full_state(model, optimizer, ckpt)


def _divisors(n: int) -> list[int]:
    small = [d for d in range(1, math.isqrt(n) + 1) if n % d == 0]
    return sorted({*small, *(n // d for d in small)})


def _either(counts: list[int]) -> str:
    words = [str(c) for c in counts]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def rescale_progress(ckpt: dict, world: int, batch_size: int, batched: bool) -> tuple[dict, int, str]:
    """A checkpoint written by another number of ranks, continued on ``world`` ranks with micro-batch
    ``batch_size``: (its progress in this run's sampler units, the accumulation steps that keep its
    global batch, the warning that says what differs from an uninterrupted run). Raises SystemExit
    with one line where that cannot be done correctly.

    The global batch (per-GPU batch x ranks x accumulation steps) stays, so every optimizer step sees
    as many samples as before and the step count, and any learning-rate schedule over it, is
    unchanged. The epoch's shuffled order does not depend on the world size (DistributedSampler draws
    it from seed + epoch; rank r takes positions r, r + world, ...), so after ``consumed`` items of
    it, ranks that each skip consumed / world items together go on at exactly the next one; when
    ``world`` does not divide ``consumed``, the last consumed % world items are seen twice."""
    old_world = ckpt["world_size"]
    saved = ckpt.get("batch")
    if saved is None:
        raise SystemExit(
            f"checkpoint was written by {_count(old_world, 'rank')}, this run has {world}, and it does "
            "not record its batch size (an older train.py): run on the same number of ranks or start "
            "fresh with another --ckpt-dir"
        )
    per_gpu, old_accumulation = saved["per_gpu"], saved["accumulation"]
    global_batch = per_gpu * old_world * old_accumulation
    was = f"{per_gpu} per GPU x {_count(old_world, 'GPU')} x {_count(old_accumulation, 'accumulation step')}"
    if batched and batch_size != per_gpu:
        raise SystemExit(
            f"checkpoint was written with --batch-size {per_gpu}, this run has {batch_size}: its "
            f"micro-batches from make_inputs() would not be the same ones; resume with --batch-size {per_gpu}"
        )
    if global_batch % (batch_size * world):
        counts = _divisors(global_batch // batch_size) if global_batch % batch_size == 0 else []
        works = (
            f"resume on {_either(counts)} {'GPU' if counts == [1] else 'GPUs'}"
            if counts
            else f"no GPU count does with --batch-size {batch_size}; use --batch-size {per_gpu}"
        )
        raise SystemExit(
            f"checkpoint's global batch of {global_batch} samples ({was}) is not a whole number of "
            f"accumulation steps on {_count(world, 'GPU')} x {batch_size} per GPU, and changing it would "
            f"change the training: {works}, or start fresh with another --ckpt-dir"
        )
    accumulation = global_batch // (batch_size * world)
    progress = dict(ckpt["progress"])
    unit = "micro-batches" if batched else "samples"
    old_items, items = (1, 1) if batched else (per_gpu, batch_size)  # sampler items per micro-batch
    consumed = (progress["position"] * old_items + progress.get("offset", 0)) * old_world
    start, repeated = divmod(consumed, world)  # items each rank skips; items seen a second time
    progress["position"], progress["offset"] = divmod(start, items)
    where = f"epoch {progress['epoch']} goes on after the {consumed} {unit} already seen"
    if repeated:
        where += (
            f", except that the last {repeated} of them {'is' if repeated == 1 else 'are'} seen again "
            f"(rank r takes items r, r + {world}, "
            f"... of the epoch's order, so {world} ranks cannot start exactly after them)"
        )
    now = f"{batch_size} per GPU x {_count(world, 'GPU')} x {_count(accumulation, 'accumulation step')}"
    loaded = "resharded from its parts" if ckpt.get("sharded") else "loaded in full"
    warning = (
        f"resuming step {progress['step']} of a checkpoint written by {_count(old_world, 'rank')} on "
        f"{_count(world, 'rank')}: "
        f"model and optimizer state are {loaded}; "
        f"the global batch stays {global_batch} samples "
        f"({now}, was {was}), so the "
        f"learning-rate schedule is unchanged; {where}; per-rank RNG states cannot move to another "
        "number of ranks, so each rank is reseeded from --seed and the step: the run is correct but not "
        "bit-identical to an uninterrupted one"
    )
    return progress, accumulation, warning


def weights_digest(model: nn.Module, optimizer: torch.optim.Optimizer) -> str:
    """SHA-256 of the full final weights (collective); equal digests mean bit-identical models."""
    model_state, _ = full_state(model, optimizer)
    h = hashlib.sha256()
    for key in sorted(model_state):
        t = model_state[key]
        if isinstance(t, torch.Tensor):
            h.update(key.encode())
            h.update(t.detach().cpu().contiguous().view(-1).view(torch.uint8).numpy().tobytes())
    return h.hexdigest()


def warn_cpu_share(workers: int, rank: int) -> None:
    """One WARNING line (rank 0) where this node's ranks start more DataLoader workers than it has
    CPUs: they then share them, and decode fewer images per second than NUM_WORKERS_BASIS assumed."""
    ranks = int(os.environ.get("LOCAL_WORLD_SIZE", "1"))
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    if rank == 0 and workers * ranks > cpus:
        print(
            f"[{JOB_NAME}] WARNING: {workers} DataLoader workers per GPU x {ranks} GPU(s) here = "
            f"{workers * ranks} processes on {cpus} CPUs; the default was {NUM_WORKERS} "
            f"({NUM_WORKERS_BASIS}). "
            "If the GPUs wait for data, set --num-workers to the CPUs / GPUs of this machine",
            file=sys.stderr,
            flush=True,
        )


# ---- training ---------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    preemption = Preemption()
    rank, world, device = setup_distributed(args.device)
    if PRECISION == "tf32" and device.type == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
    # Same seed on every rank for the initial weights (DDP also broadcasts them); a per-rank seed
    # after that so dropout differs between ranks, as it does in any data-parallel run.
    torch.manual_seed(args.seed)
    random.seed(args.seed)
    model = build_model(args.width, args.depth)
    checkpoint_activations(model, rank)  # before DDP/FSDP wrap it: FSDP shards the wrapped blocks
    model = wrap_model(model, device)
    optimizer = build_optimizer(model, args.lr, device)
    torch.manual_seed(args.seed + 1 + rank)

    dataset = build_dataset(args.dataset_size, args.seed, args.width, args.batch_size)
    batched = getattr(dataset, "batched", False)  # items are whole micro-batches (MicroBatches)
    per_batch = 1 if batched else args.batch_size
    sampler = ResumableSampler(
        dataset, per_batch, num_replicas=world, rank=rank, shuffle=True, seed=args.seed, drop_last=True
    )
    warn_cpu_share(args.num_workers, rank)
    # A private generator keeps DataLoader from drawing its base seed from the global RNG, which
    # would make the RNG stream depend on where an epoch's iterator was created (a resume point).
    loader = DataLoader(
        dataset,
        batch_size=None if batched else args.batch_size,
        sampler=sampler,
        drop_last=not batched,
        num_workers=args.num_workers,
        pin_memory=device.type == "cuda",
        generator=torch.Generator().manual_seed(args.seed),
        worker_init_fn=_ignore_sigterm,
    )
    if len(sampler) < per_batch:
        raise SystemExit(
            f"--dataset-size {args.dataset_size} is too small for {world} ranks x batch {args.batch_size}"
        )

    ckpt_dir = Path(args.ckpt_dir)
    progress: dict[str, Any] = {"step": 0, "epoch": 0, "position": 0, "offset": 0, "loss": math.nan}
    # What a resume on another number of ranks needs to keep the global batch (with the world size).
    layout = {"per_gpu": args.batch_size, "accumulation": GRADIENT_ACCUMULATION, "batched": batched}
    restored = load_latest_checkpoint(ckpt_dir, model, optimizer, device, layout, args.seed)
    if restored:
        progress, layout["accumulation"] = restored
        if rank == 0 and progress["step"] >= args.steps:
            # A finished run's checkpoint: nothing is trained, and the end below is said again. Exit
            # 0 all the same: a managed job recovered after its last checkpoint (a preemption
            # between the end of training and the job's end) must end as succeeded, not be counted
            # as a failure and restarted. A new run given this folder by mistake is told so here.
            print(
                f"[{JOB_NAME}] {ckpt_dir} holds a finished run (step {progress['step']} of {args.steps}): "
                "nothing to train. Use a new directory (--ckpt-dir / CKPT_DIR) for a new run",
                flush=True,
            )
        elif rank == 0:
            print(
                f"[{JOB_NAME}] resumed from step {progress['step']} (epoch {progress['epoch']})", flush=True
            )
    accumulation = layout["accumulation"]

    amp = autocast_dtype() if device.type == "cuda" and PARALLELISM in ("ddp", "zero1") else None
    scaler: Any = torch.amp.GradScaler("cuda") if amp == torch.float16 else None
    if PARALLELISM not in ("ddp", "zero1") and device.type == "cuda" and autocast_dtype() == torch.float16:
        # FSDP computes in fp16 through its MixedPrecisionPolicy: its gradients are scaled by the
        # scaler that knows they are sharded (the loss scale is agreed across ranks).
        from torch.distributed.fsdp.sharded_grad_scaler import ShardedGradScaler

        scaler = ShardedGradScaler("cuda")
    last_ckpt_time = time.monotonic()
    # samples/s between log lines (the global batch per step; a checkpoint written between them counts)
    last_log = (time.monotonic(), progress["step"])
    saved_step = -1  # the step of this run's last checkpoint: not written again at the end
    micro = 0
    model.train()
    while progress["step"] < args.steps:
        sampler.set_epoch(progress["epoch"])
        sampler.start_batch = progress["position"]
        sampler.start_offset = progress.get("offset", 0)  # not in checkpoints of older train.py
        for batch in loader:
            batch = _to_device(batch, device, torch.bfloat16 if PRECISION == "bf16" else None)
            micro += 1
            progress["position"] += 1
            sync = micro % accumulation == 0
            _set_grad_sync(model, sync)
            with torch.autocast(device.type, dtype=amp or torch.float32, enabled=amp is not None):
                loss = compute_loss(model, batch) / accumulation
            (scaler.scale(loss) if scaler else loss).backward()
            if not sync:
                continue
            if scaler:
                scaler.step(optimizer)
                scaler.update()
            else:
                optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            progress["step"] += 1

            # One small all-reduce per step: every rank learns whether any rank was told to stop,
            # or whose checkpoint timer ran out, so all ranks take the same branch.
            due = time.monotonic() - last_ckpt_time >= args.ckpt_every_min * 60 or (
                args.ckpt_every_steps > 0 and progress["step"] % args.ckpt_every_steps == 0
            )
            flags = torch.tensor(
                [float(preemption.requested), float(due), loss.detach().float().item()], device=device
            )
            dist.all_reduce(flags)  # sums: > 0 means "some rank says so"; the loss sum averages below
            stop, due = bool(flags[0] > 0), bool(flags[1] > 0)
            progress["loss"] = flags[2].item() * accumulation / world
            if rank == 0 and progress["step"] % args.log_every == 0:
                now = time.monotonic()
                samples = (progress["step"] - last_log[1]) * args.batch_size * world * accumulation
                rate = samples / max(now - last_log[0], 1e-9)
                last_log = (now, progress["step"])
                print(
                    f"[{JOB_NAME}] step {progress['step']}/{args.steps} loss {progress['loss']:.4f} "
                    f"{_rate_words(rate)} samples/s",
                    flush=True,
                )
            if stop or due:
                path = save_checkpoint(ckpt_dir, model, optimizer, dict(progress), device, layout)
                last_ckpt_time, saved_step = time.monotonic(), progress["step"]
                if stop:
                    if rank == 0:
                        print(f"[{JOB_NAME}] SIGTERM: saved {path}, exiting to be resumed", flush=True)
                    dist.destroy_process_group()
                    return EXIT_PREEMPTED
            if args.throttle_s:
                time.sleep(args.throttle_s)
            if progress["step"] >= args.steps:
                break
        else:  # the epoch ran out before the step budget
            progress["epoch"] += 1
            progress["position"] = progress["offset"] = 0

    if progress["step"] != saved_step:
        # Written again, the last step's checkpoint would make train.py delete the one before it
        # (it keeps KEEP_CHECKPOINTS on disk, the one being written included).
        save_checkpoint(ckpt_dir, model, optimizer, dict(progress), device, layout)
    digest = weights_digest(model, optimizer)
    if rank == 0:
        print(
            f"[{JOB_NAME}] done: step {progress['step']} loss {progress['loss']:.6f} weights {digest[:16]}",
            flush=True,
        )
        if args.result_file:
            Path(args.result_file).write_text(
                json.dumps({"step": progress["step"], "loss": progress["loss"], "weights_sha256": digest})
                + "\n"
            )
    # Every rank leaves the last collective (the FSDP digest gathers) before any rank tears the group
    # down: a rank that destroys it while its peer is still in a gloo call can abort with
    # "terminate called without an active exception" after the run has succeeded.
    dist.barrier()
    dist.destroy_process_group()
    return 0


def _to_device(batch: Any, device: torch.device, floating: torch.dtype | None = None) -> Any:
    """Tensors anywhere in a batch (tuples, lists, dicts) moved to ``device``; ``floating``: the
    dtype its floating ones take (the weights', in pure bf16), token ids and labels kept."""
    if isinstance(batch, torch.Tensor):
        if floating is not None and batch.dtype.is_floating_point:
            return batch.to(device, dtype=floating, non_blocking=True)
        return batch.to(device, non_blocking=True)
    if isinstance(batch, dict):
        return {k: _to_device(v, device, floating) for k, v in batch.items()}
    if isinstance(batch, (tuple, list)):
        return type(batch)(_to_device(v, device, floating) for v in batch)
    return batch


def _ignore_sigterm(worker_id: int) -> None:
    # A node shutdown signals every process; DataLoader workers must outlive the checkpoint that the
    # main process is about to write (it ends them itself when it exits).
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def _rate_words(rate: float) -> str:
    """Samples per second to two significant figures at least: a CPU dry run of a large model
    trains well under one a second, which whole numbers printed as 0, a stall to the reader."""
    if not rate > 0:
        return "—"
    if rate >= 100:
        return f"{rate:,.0f}"
    return f"{rate:.1f}" if rate >= 10 else f"{rate:.2g}"


def _set_grad_sync(model: nn.Module, sync: bool) -> None:
    """Skip the gradient all-reduce on accumulation micro-steps (DDP and FSDP2 each have a switch)."""
    if isinstance(model, nn.parallel.DistributedDataParallel):
        model.require_backward_grad_sync = sync
    else:
        switch = getattr(model, "set_requires_gradient_sync", None)  # FSDP2 modules have it
        if switch is not None:
            switch(sync)


#: The exit status to leave with, bypassing interpreter teardown; set only by a run that ended on gloo.
_GLOO_EXIT_STATUS: list[int] = []
#: Holds True once setup_distributed() has joined a gloo group (a run on the CPU).
_ON_GLOO: list[bool] = []


def _leave_without_gloo_teardown() -> None:
    """Registered before main() runs, so it runs after every exit handler the user's code adds.

    DDP and FSDP keep the gloo process group alive in C++ after destroy_process_group() (its
    pt_gloo_runloop threads are still running at exit; a bare all_reduce + destroy does free them).
    Tearing those threads down during interpreter shutdown aborted finished CPU runs now and then
    ("terminate called without an active exception", exit -6, after the atexit handlers), so a
    run that ended normally on gloo leaves here instead, once its output is flushed. NCCL runs
    exit normally."""
    if _GLOO_EXIT_STATUS:
        logging.shutdown()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(_GLOO_EXIT_STATUS[0])


if __name__ == "__main__":
    atexit.register(_leave_without_gloo_teardown)
    code = main()
    if _ON_GLOO:  # setup_distributed() took gloo (--device cpu)
        _GLOO_EXIT_STATUS.append(code)
    sys.exit(code)
