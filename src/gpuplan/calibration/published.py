"""Read the published measurements in ``calibration/data/`` as typed, validated rows.

Three files, one row type (:class:`MeasuredRow`):

- ``calibration.csv`` — NVIDIA DeepLearningExamples and torchtune runs (the first data set);
- ``calibration_extra.csv`` — figures quoted in that file's ``notes`` column;
- ``calibration_v2.csv`` — the same first eleven columns plus the columns that multi-node, memory and
  serving rows need (nodes, network, parallelism, checkpointing, memory, fits …); documented column by
  column in ``calibration/data/README.md``.

Rows of the first two files carry no ``kind``/``family``/``arch`` columns; they are filled in here from
the metric, the model name and the hardware catalog, so all three files read the same way.

Every row is checked when it is read: a source, a GPU the hardware catalog knows (and, in v2, the
architecture the catalog gives it), a known metric for its kind, a positive finite value, ``nodes ×
gpus_per_node = gpu_count``. A bad row raises :class:`~gpuplan.errors.DataError` naming file and line.
This module only reads; turning a row into a workload to trace stays in :mod:`gpuplan.calibration.cases`.
"""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from gpuplan.errors import AmbiguousNameError, DataError, GpuplanError, NotFoundError
from gpuplan.hardware import get_gpu
from gpuplan.i18n import N_
from gpuplan.i18n.phrases import listed

__all__ = [
    "DATA_FILES",
    "KINDS",
    "METRICS",
    "STACK_KEYS",
    "TORCHTUNE_ADAPTER_DTYPE",
    "MeasuredRow",
    "load_rows",
    "parse_stack",
    "published_gpu_id",
    "read_data",
    "stack_workload",
]

DATA_FILES: tuple[str, ...] = ("calibration.csv", "calibration_extra.csv", "calibration_v2.csv")

#: What a row measures → the metrics (units) allowed for it.
METRICS: Mapping[str, frozenset[str]] = {
    # images_per_s, sequences_per_s, tokens_per_s, output_tokens_per_s: totals over all gpu_count GPUs.
    # tokens_per_s_per_gpu, output_tokens_per_s_per_gpu: per GPU.
    # model_tflops_per_gpu, hardware_tflops_per_gpu: per GPU, FLOPs counted by the row's flop_formula
    # (hardware FLOPs include the recompute of activation checkpointing, model FLOPs do not).
    "throughput": frozenset(
        {
            "images_per_s",
            "sequences_per_s",
            "tokens_per_s",
            "tokens_per_s_per_gpu",
            "output_tokens_per_s",
            "output_tokens_per_s_per_gpu",
            "model_tflops_per_gpu",
            "hardware_tflops_per_gpu",
        }
    ),
    # Serving latencies: time to first token and inter-token latency, in milliseconds.
    "latency": frozenset({"ttft_ms", "itl_ms"}),
    # A published peak memory per GPU, GiB (what was counted is in memory_what).
    "memory": frozenset({"peak_mem_gib"}),
    # Only "it ran" or "it ran out of memory" is published: no value, fits says which.
    "fit": frozenset({"fits"}),
}
KINDS = tuple(METRICS)
FAMILIES = frozenset({"cnn", "vit", "encoder", "encoder-decoder", "decoder"})
_CHECKPOINTING = frozenset({"", "none", "full", "selective", "unknown"})
#: What a row's ``stack`` column may say (``key=value`` pairs joined by ``;``), as its launch script
#: or config set it: ``memory_format`` (channels-first | channels-last), ``input`` (dataloader | dali |
#: synthetic), ``loader_workers`` (DataLoader workers per GPU), ``fused`` (hand-fused kernels joined by
#: ``+``, or none), ``dropout`` (config | none), ``optimizer`` (the workload's optimizer name),
#: ``compile`` and ``cuda_graphs`` (true | false), ``tp_plan`` (shared-input | per-projection: the
#: tensor-parallel plan's collectives, the workload's ``stack.tensor_parallel_plan``).
STACK_KEYS = frozenset(
    {
        "memory_format",
        "input",
        "loader_workers",
        "fused",
        "dropout",
        "optimizer",
        "compile",
        "cuda_graphs",
        "tp_plan",
    }
)
_TASKS = frozenset({"train", "finetune", "infer", "serve", "prefill", "decode"})


@dataclass(frozen=True, kw_only=True)
class MeasuredRow:
    """One published measurement and the configuration it was measured on."""

    file: str
    """Data file name (``calibration_v2.csv`` …)."""
    line: int
    """Line in that file (the header is line 1)."""
    model: str
    """The model and run as published (free text)."""
    task: str
    """``train``, ``finetune``, ``infer``, ``serve`` (offline max-throughput LLM serving), ``prefill``,
    ``decode``."""
    gpu: str
    """Canonical GPU id of the hardware catalog."""
    gpu_count: int
    """GPUs in the run, all nodes together."""
    precision: str
    """As published: ``fp32``, ``tf32``, ``amp`` (fp16 autocast), ``bf16``, ``fp16``, ``fp8``."""
    batch_size: int | None
    """Per-GPU micro-batch (sequences or images); None where not published."""
    seq_or_image: str
    """``seq2048``, ``seq4096 packed``, ``224x224``, ``in128/out2048`` (serving input/output tokens)."""
    seq_len: int | None
    """The sequence length parsed from ``seq_or_image`` (``seqN``), or None."""
    metric: str
    """Unit of ``value``; see :data:`METRICS`."""
    value: float | None
    """The published figure; None only for ``fit`` rows."""
    source: str
    """URL, paper (arXiv id + table) or ``owner/repo@commit path``."""
    notes: str
    kind: str
    """``throughput``, ``latency``, ``memory`` or ``fit``."""
    family: str
    """``cnn``, ``vit``, ``encoder``, ``encoder-decoder`` or ``decoder``."""
    arch: str
    """GPU architecture (the hardware catalog's name: ``Ampere``, ``Hopper``, ``Ada Lovelace`` …)."""
    nodes: int
    gpus_per_node: int
    preset: str = ""
    """gpuplan preset with this model's shape ("" when none matches; see ``model_shape``)."""
    model_shape: Mapping[str, int] = field(default_factory=dict)
    """Architecture numbers of a model without a preset: layers, hidden, heads, kv_heads, ffn, vocab."""
    network: str = ""
    """Interconnect inside and across nodes, as published."""
    parallelism: str = ""
    activation_checkpointing: str = ""
    """``none``, ``full``, ``selective``, ``unknown`` or "" (not applicable / not recorded)."""
    attention: str = ""
    global_batch: str = ""
    """As published: sequences (``512``) or tokens (``4M tokens``)."""
    software: str = ""
    memory_gib: float | None = None
    """Published peak memory per GPU of this run, GiB (converted from GB where the source says GB)."""
    memory_what: str = ""
    """What that memory figure counts (allocated, active, reserved, nvidia-smi)."""
    fits: bool | None = None
    """True: the configuration ran on this hardware; False: published out-of-memory; None: not a claim."""
    flop_formula: str = ""
    """For ``model_tflops_per_gpu``: the publisher's FLOP count (to turn the figure into tokens/s)."""
    date: str = ""
    """Publication or version date of the figure."""
    publisher: str = ""
    """Who ran and published the measurement (the team and its code: one software stack); the
    grouping key of leave-one-publisher-out cross-validation."""
    stack: Mapping[str, str] = field(default_factory=dict)
    """The software stack the run used, from its launch script or config (:data:`STACK_KEYS`);
    empty where the source does not say (serving engines, runs that are not fitted)."""
    stack_source: str = ""
    """Where the stack was read: the launch script or config, at a commit, or the run's own log."""

    @property
    def multi_node(self) -> bool:
        return self.nodes > 1

    @property
    def label(self) -> str:
        return f"{self.file}:{self.line} {self.model} [{self.metric}] on {self.gpu_count}x {self.gpu}"


def read_data(name: str) -> str:
    """The text of one shipped data file (``calibration_v2.csv`` …)."""
    return resources.files("gpuplan.calibration").joinpath(f"data/{name}").read_text(encoding="utf-8")


#: MLPerf Training's submitters (ASUSTeK, Azure, Dell, Fujitsu, NVIDIA, QCT, Supermicro …) all run
#: NVIDIA's reference implementation and MLCommons publishes their results: one source, one stack.
MLPERF_TRAINING = "MLCommons MLPerf Training"


def publisher_group(publisher: str) -> str:
    """The group of leave-one-publisher-out for a row's ``publisher``: one source and software stack.

    The one rule of the grouped figures (the fit's held-out error, the band's coverage of a
    left-out publisher, the ablation): every ``MLPerf Training: <submitter>`` row is
    :data:`MLPERF_TRAINING`; the submitter stays in the row's model name and so in the case's label.
    Any other publisher is its own group."""
    return MLPERF_TRAINING if publisher.startswith("MLPerf Training") else publisher


#: What torchtune keeps its LoRA adapters in (``model.lora.dtype``): the model's dtype, bf16 in every
#: torchtune row. Its recipes build the model under the config's ``dtype`` and check the adapters
#: are in it: pytorch/torchtune@30b8519e (2024-09-24, the README's "Memory and training speed"
#: table) ``recipes/lora_finetune_single_device.py`` lines 401 (``with
#: training.set_default_dtype(self._dtype), self._device:``) and 446-448
#: (``training.validate_expected_param_dtype(self.adapter_params.items(), dtype=self._dtype)``),
#: ``recipes/lora_finetune_distributed.py`` lines 397 and 449 (the same context around the meta-device
#: build and the adapters' ``to_empty``); ``torchtune/modules/peft/lora.py`` lines 69-70: ``LoRALinear``
#: makes ``lora_a`` and ``lora_b`` as plain ``nn.Linear``, so in the default dtype. Unchanged at
#: @1814feb17 (2024-11-18, the README's Llama 3.2 3B "Optimization flags" table): single device line
#: 424, ``lora.py`` lines 91-92. Read 2026-12-04.
TORCHTUNE_ADAPTER_DTYPE = "model"


#: Publisher labels several parts fit, and the part the publisher measured, with why: torchtune's
#: README's bare "A100" (its 60 GiB peak does not fit a 40 GB A100; DGX-class machines) and NVIDIA's
#: DeepLearningExamples' "A100-80GB" (its READMEs' results are from DGX A100 80GB: SXM4 modules).
_PUBLISHED = {"A100": "A100-SXM4-80GB", "A100-80GB": "A100-SXM4-80GB"}


def published_gpu_id(name: str, where: str) -> str:
    """The hardware table's id of a GPU as a calibration file names it (``where``: file and line,
    for the error). The one reader of those names: :mod:`gpuplan.calibration.cases` uses it too.

    The first two files name GPUs as their publishers do (``A100-80GB (DGX A100)``); the parenthesis
    names the machine, not the GPU, and the rest goes through :func:`gpuplan.hardware.get_gpu` (ids and
    ``gpus.csv`` aliases). A label several parts fit is the part :data:`_PUBLISHED` names, or the SXM
    part on a DGX/HGX machine; any other is an error of the data file.
    """
    bare = re.sub(r"\s*\(.*\)\s*$", "", name).strip()
    bare = _PUBLISHED.get(bare, bare)
    try:
        return get_gpu(bare).id
    except AmbiguousNameError as e:
        # A name the SXM and the PCIe card both fit, on an NVIDIA DGX/HGX machine: the SXM part
        # (DGX and HGX boards carry SXM modules).
        sxm = [c for c in e.choices if "SXM" in c]
        if re.search(r"\b[DH]GX\b", name) and len(sxm) == 1:
            return sxm[0]
        raise DataError.worded(
            N_("{where}: GPU {name!r} is not in the hardware catalog ({why})"), where=where, name=name, why=e
        ) from e
    except NotFoundError as e:
        raise DataError.worded(
            N_("{where}: GPU {name!r} is not in the hardware catalog ({why})"), where=where, name=name, why=e
        ) from e


def _family(model: str) -> str:
    # Only for the first two files, whose rows are ResNet-50, BERT-Large and Llama runs.
    low = model.lower()
    if low.startswith("resnet"):
        return "cnn"
    if low.startswith("bert"):
        return "encoder"
    if low.startswith("llama"):
        return "decoder"
    raise DataError.worded(
        N_("no model family known for {model!r}; give the row a family column (calibration_v2.csv)"),
        model=model,
    )


def _int(text: str, where: str, column: str) -> int | None:
    if not text.strip():
        return None
    try:
        n = int(text)
    except ValueError as e:
        raise DataError.worded(
            N_("{where}: {column} {text!r} is not a whole number"), where=where, column=column, text=text
        ) from e
    if n < 1:
        raise DataError.worded(
            N_("{where}: {column} must be 1 or more, got {n}"), where=where, column=column, n=n
        )
    return n


def _float(text: str, where: str, column: str) -> float | None:
    if not text.strip():
        return None
    try:
        x = float(text)
    except ValueError as e:
        raise DataError.worded(
            N_("{where}: {column} {text!r} is not a number"), where=where, column=column, text=text
        ) from e
    if not (math.isfinite(x) and x > 0):
        raise DataError.worded(
            N_("{where}: {column} must be positive and finite, got {text!r}"),
            where=where,
            column=column,
            text=text,
        )
    return x


def _shape(text: str, where: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for part in filter(None, (p.strip() for p in text.split(";"))):
        key, sep, num = part.partition("=")
        if not sep or not num.isdigit():
            raise DataError.worded(
                N_("{where}: model_shape part {part!r} is not KEY=INTEGER"), where=where, part=part
            )
        out[key] = int(num)
    return out


def parse_stack(text: str, where: str) -> dict[str, str]:
    """A ``stack`` column (``memory_format=channels-last;fused=none;…``) as a dict, each value checked."""
    out: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in text.split(";"))):
        key, sep, value = part.partition("=")
        if not sep or key not in STACK_KEYS:
            raise DataError.worded(
                N_("{where}: stack part {part!r} is not KEY=VALUE with KEY one of {keys}"),
                where=where,
                part=part,
                keys=listed(sorted(STACK_KEYS)),
            )
        out[key] = value
    try:
        stack_workload(out)
    except (ValueError, GpuplanError) as e:
        raise DataError.worded(N_("{where}: stack {text!r}: {why}"), where=where, text=text, why=e) from e
    return out


def stack_workload(stack: Mapping[str, str]) -> dict[str, Any]:
    """The workload fields a row's stack sets: its ``stack`` block and ``cuda_graphs``. The
    optimizer and ``compile`` are the row's case mapping's to set (a test checks they agree)."""
    from gpuplan.vocab import FusedKernel, InputPipelineKind, MemoryFormat, OptimizerName, TensorParallelPlan

    block: dict[str, Any] = {}
    out: dict[str, Any] = {}
    if "memory_format" in stack:
        block["memory_format"] = MemoryFormat.cast(stack["memory_format"]).value
    if "input" in stack:
        block["input_pipeline"] = InputPipelineKind.cast(stack["input"]).value
    if "loader_workers" in stack:
        block["loader_workers"] = int(stack["loader_workers"])
    if "fused" in stack:
        names = [] if stack["fused"] == "none" else stack["fused"].split("+")
        block["fused_kernels"] = [FusedKernel.cast(n).value for n in names]
    if "dropout" in stack:
        if stack["dropout"] not in ("config", "none"):
            raise ValueError("dropout must be config or none")
        block["dropout"] = stack["dropout"] == "config"
    if "tp_plan" in stack:
        block["tensor_parallel_plan"] = TensorParallelPlan.cast(stack["tp_plan"]).value
    if "optimizer" in stack:
        OptimizerName.cast(stack["optimizer"])
    for flag in ("compile", "cuda_graphs"):
        if flag in stack and stack[flag] not in ("true", "false"):
            raise ValueError(f"{flag} must be true or false")
    if "cuda_graphs" in stack:
        out["cuda_graphs"] = stack["cuda_graphs"] == "true"
    if block:
        out["stack"] = block
    return out


def _fits(text: str, where: str) -> bool | None:
    if text in ("", "true", "false"):
        return None if not text else text == "true"
    raise DataError.worded(
        N_("{where}: fits must be true, false or empty, got {text!r}"), where=where, text=text
    )


def _row(file: str, line: int, raw: Mapping[str, str]) -> MeasuredRow:
    where = f"{file}:{line}"

    def get(column: str) -> str:
        return (raw.get(column) or "").strip()  # columns the first two files lack read as ""

    if not get("source"):
        raise DataError.worded(N_("{where}: no source"), where=where)
    if not get("publisher"):
        raise DataError.worded(N_("{where}: no publisher"), where=where)
    if get("stack") and not get("stack_source"):
        raise DataError.worded(N_("{where}: a stack without its stack_source"), where=where)
    gpu = published_gpu_id(get("gpu"), where)
    catalog_arch = get_gpu(gpu).architecture
    metric = get("metric")
    kind = get("kind") or ("memory" if metric == "peak_mem_gib" else "throughput")
    if kind not in METRICS:
        raise DataError.worded(
            N_("{where}: kind {kind!r} is not one of {kinds}"), where=where, kind=kind, kinds=listed(KINDS)
        )
    if metric not in METRICS[kind]:
        raise DataError.worded(
            N_("{where}: metric {metric!r} is not a {kind} metric ({known})"),
            where=where,
            metric=metric,
            kind=kind,
            known=listed(sorted(METRICS[kind])),
        )
    value = _float(get("value"), where, "value")
    if (value is None) != (kind == "fit"):
        template = (
            N_("{where}: a {kind} row needs no value")
            if kind == "fit"
            else N_("{where}: a {kind} row needs a value")
        )
        raise DataError.worded(template, where=where, kind=kind)
    task = get("task")
    if task not in _TASKS:
        raise DataError.worded(
            N_("{where}: task {task!r} is not one of {tasks}"),
            where=where,
            task=task,
            tasks=listed(sorted(_TASKS)),
        )
    gpu_count = _int(get("gpu_count"), where, "gpu_count") or 0
    if not gpu_count:
        raise DataError.worded(N_("{where}: no gpu_count"), where=where)
    nodes = _int(get("nodes"), where, "nodes") or 1
    per_node = _int(get("gpus_per_node"), where, "gpus_per_node") or gpu_count
    if nodes * per_node != gpu_count:
        raise DataError.worded(
            N_("{where}: nodes {nodes} x gpus_per_node {per_node} != gpu_count {gpu_count}"),
            where=where,
            nodes=nodes,
            per_node=per_node,
            gpu_count=gpu_count,
        )
    arch = get("arch") or catalog_arch
    if arch != catalog_arch:
        raise DataError.worded(
            N_("{where}: arch {arch!r} but the hardware catalog says {gpu} is {catalog_arch!r}"),
            where=where,
            arch=arch,
            gpu=gpu,
            catalog_arch=catalog_arch,
        )
    family = get("family") or _family(get("model"))
    if family not in FAMILIES:
        raise DataError.worded(
            N_("{where}: family {family!r} is not one of {families}"),
            where=where,
            family=family,
            families=listed(sorted(FAMILIES)),
        )
    checkpointing = get("activation_checkpointing")
    if checkpointing not in _CHECKPOINTING:
        raise DataError.worded(
            N_("{where}: activation_checkpointing {value!r}: none/full/selective/unknown"),
            where=where,
            value=checkpointing,
        )
    fits = _fits(get("fits"), where)
    memory = _float(get("memory_gib"), where, "memory_gib")
    if kind == "memory":
        memory = memory if memory is not None else value
        if fits is None:
            fits = True  # a published peak memory is a run that happened (the first two files say no more)
    if kind == "fit" and fits is None:
        raise DataError.worded(N_("{where}: a fit row must say fits=true or fits=false"), where=where)
    seq = re.match(r"seq(\d+)", get("seq_or_image"))
    return MeasuredRow(
        file=file,
        line=line,
        model=get("model"),
        task=task,
        gpu=gpu,
        gpu_count=gpu_count,
        precision=get("precision"),
        batch_size=_int(get("batch_size"), where, "batch_size"),
        seq_or_image=get("seq_or_image"),
        seq_len=int(seq.group(1)) if seq else None,
        metric=metric,
        value=value,
        source=get("source"),
        notes=get("notes"),
        kind=kind,
        family=family,
        arch=arch,
        nodes=nodes,
        gpus_per_node=per_node,
        preset=get("preset"),
        model_shape=_shape(get("model_shape"), where),
        network=get("network"),
        parallelism=get("parallelism"),
        activation_checkpointing=checkpointing,
        attention=get("attention"),
        global_batch=get("global_batch"),
        software=get("software"),
        memory_gib=memory,
        memory_what=get("memory_what"),
        fits=fits,
        flop_formula=get("flop_formula"),
        date=get("date"),
        publisher=get("publisher"),
        stack=parse_stack(get("stack"), where),
        stack_source=get("stack_source"),
    )


def load_rows(files: Sequence[str] = DATA_FILES) -> tuple[MeasuredRow, ...]:
    """Every row of the given data files (default: all three), validated, in file order."""
    rows: list[MeasuredRow] = []
    for name in files:
        reader = csv.DictReader(read_data(name).splitlines())
        # DictReader counts from the first data row; +2 gives the file line (header is line 1).
        rows.extend(_row(name, i + 2, raw) for i, raw in enumerate(reader))
    return tuple(rows)
