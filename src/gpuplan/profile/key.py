"""The profile cache key, the cache protocol, and ``profile()``: trace once per workload content."""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import json
from collections.abc import Callable
from functools import cache
from importlib import metadata
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol

from gpuplan.errors import EstimateError
from gpuplan.i18n import N_
from gpuplan.profile.model import PROFILE_SCHEMA_VERSION, Profile
from gpuplan.vocab import LossKind
from gpuplan.workload.bundle import check_lora_targets
from gpuplan.workload.spec import LoraSpec, Workload, load_workload

__all__ = [
    "FUSED_LINEAR_TRACE",
    "SDPA_DROPOUT_TRACE",
    "MemoryProfileCache",
    "ProfileCache",
    "installed_torch_version",
    "is_recording_of",
    "key_fields",
    "measurement_key",
    "profile",
    "profile_key",
    "recording_key",
    "trace",
]


class ProfileCache(Protocol):
    """Where traced profiles are kept between runs (the store implements it).

    Payloads are ``Profile.to_json()`` text; a cache returns None for a key it lacks or one stored
    under another ``schema_version``.
    """

    def get_profile(self, key: str, schema_version: int) -> str | None: ...

    def put_profile(self, key: str, schema_version: int, payload: str) -> None: ...


class MemoryProfileCache:
    """A ProfileCache in a dict (tests, one process)."""

    def __init__(self) -> None:
        self.entries: dict[tuple[str, int], str] = {}

    def get_profile(self, key: str, schema_version: int) -> str | None:
        return self.entries.get((key, schema_version))

    def put_profile(self, key: str, schema_version: int, payload: str) -> None:
        self.entries[(key, schema_version)] = payload


@cache  # the installed torch does not change while a process runs; the lookup scans dist-info
def _torch_version() -> str:
    try:
        return metadata.version("torch")
    except metadata.PackageNotFoundError:
        return "none"


def _file_digest(path: Path) -> str:
    """sha256 of a file (or a folder's config.json); 'missing' when unreadable."""
    file = path / "config.json" if path.is_dir() else path
    try:
        return hashlib.sha256(file.read_bytes()).hexdigest()
    except OSError:
        return "missing"


def _entry_file(entry: str, base: Path) -> Path | None:
    """The source file of ``pkg.module`` under ``base``, found without importing it."""
    rel = Path(*entry.partition(":")[0].split("."))
    for cand in (base / rel.with_suffix(".py"), base / rel / "__init__.py"):
        if cand.is_file():
            return cand
    return None


def _lora_identity(lora: LoraSpec | None) -> dict[str, Any] | None:
    """The adapters' settings; the base's quantization only when set, so that the keys of every
    LoRA workload traced before it existed stay valid (and those of a quantized base change with
    what its trace keeps)."""
    if lora is None:
        return None
    quantized = {"quantization", "double_quantization", "quantized_head", "library"}
    # The adapters' dtype and dropout only when not their defaults (fp32, none), likewise.
    unset = {k for k in ("dtype", "dropout") if not _differs(lora, k)}
    ident: dict[str, Any] = lora.model_dump(mode="json", exclude=quantized | unset)
    if lora.quantized:
        ident |= lora.model_dump(mode="json", include=quantized)
        # The trace of a quantized base keeps what bitsandbytes' 4-bit matmul keeps (its input, the
        # dequantized weight's 16-bit copies) since mark 2; since 3 it records each 4-bit weight's
        # dequantization kernel (profile.model.DEQUANTIZE_OP); since 4 ``library: bitsandbytes`` is
        # the release that keeps neither (0.43.2 on), 0.42 being ``bitsandbytes-0.42``: older
        # profiles re-trace.
        ident["saved"] = 4
    return ident


def _differs(lora: LoraSpec, field: str) -> bool:
    """Whether ``lora``'s ``field`` differs from its default."""
    return bool(getattr(lora, field) != LoraSpec.model_fields[field].default)


def _model_identity(w: Workload) -> dict[str, Any]:
    m = w.model
    ident: dict[str, Any] = {
        "lora": _lora_identity(m.lora),
        "frozen": list(m.frozen),
    }
    if m.pad_vocab_multiple is not None:
        # Only when set, so that the keys of every workload traced before it existed stay valid.
        ident["pad_vocab_multiple"] = m.pad_vocab_multiple
    if m.preset is not None:
        ident["preset"] = m.preset
    elif m.hf_config_path is not None:
        # NB: by content, so editing config.json re-traces and moving it does not.
        ident["hf_config_sha256"] = _file_digest(m.hf_config_path)
    else:
        assert m.python is not None
        file = _entry_file(m.python, m.base_dir)
        # NB: only the entry module's own file is hashed; edits elsewhere in the project need a new
        # key (rename the workload's entry or clear the cache).
        ident["python"] = m.python
        ident["project_dir"] = str(m.base_dir.resolve())
        ident["module_sha256"] = _file_digest(file) if file else "unknown"
    return ident


#: Version of how fused attention traces ``F.scaled_dot_product_attention`` calls that carry dropout.
#: 2 (2026-12-01, commit 8541fcb): traced as the fused kernel a GPU runs (``tracer._FusedAttentionDropout``);
#: before, the CPU's math fallback (fp32 ``bmm``, s×s scores) was traced. Only models whose own code
#: picks the attention call can pass dropout to SDPA (HF configs in training, Python entry points);
#: the presets never do, so their keys, and the committed calibration profiles, do not carry it.
#: 3 (2026-12-04): ``nn.MultiheadAttention``'s SDPA call (inside ``F.multi_head_attention_forward``)
#: likewise; before, its math path was traced.
SDPA_DROPOUT_TRACE = 3


def _sdpa_dropout_trace(w: Workload) -> dict[str, int]:
    """The trace-version component of the key, for the workloads whose trace the dropout fix changed."""
    if w.model.preset is not None or w.attention.value != "fused":
        return {}
    return {"sdpa_dropout_trace": SDPA_DROPOUT_TRACE}


#: Version of how a convolution's backward is counted. 1 (2026-12-05): a grouped convolution's weight
#: gradient takes its forward's multiplies (``profile/flops.py``); before, torch's formula counted it
#: over all input channels (a depthwise convolution's channels-fold too many). The presets have no
#: grouped convolution, so their keys, and the committed calibration profiles, do not carry it.
CONV_BACKWARD_TRACE = 1


def _conv_backward_trace(w: Workload) -> dict[str, int]:
    """The trace-version component of the key for models that may hold grouped convolutions."""
    return {} if w.model.preset is not None else {"conv_backward_trace": CONV_BACKWARD_TRACE}


#: Version of how ``loss: chunked-logits`` is traced. 1 (2026-12-04): the next step's forward and
#: output layer run while the step's logits (and their graph) are held, as litgpt's loop holds them
#: (``tracer._next_forward_holding``); before, one step only. 2: what they hold at an
#: optimizer-step peak is recorded apart (``MemoryBreakdown.held_bytes``). Measurements are keyed
#: without it.
HELD_LOGITS_TRACE = 2


def _held_logits_trace(w: Workload) -> dict[str, int]:
    """The trace-version component of the key for ``chunked-logits`` training (:data:`HELD_LOGITS_TRACE`)."""
    held = w.is_training and w.loss is LossKind.CHUNKED_LOGITS
    return {"held_logits_trace": HELD_LOGITS_TRACE} if held else {}


#: Version of how ``loss: fused-linear`` is traced. 1 (2026-12-04): the output layer's weight
#: gradient is allocated only when its weight takes one, as Liger's fused linear cross-entropy
#: does (``profile/losses.py``); before, always (a LoRA model's frozen head too). Measurements are
#: keyed without it.
FUSED_LINEAR_TRACE = 1


def _fused_linear_trace(w: Workload) -> dict[str, int]:
    """The trace-version component of the key for ``fused-linear`` training (:data:`FUSED_LINEAR_TRACE`)."""
    fused = w.is_training and w.loss is LossKind.FUSED_LINEAR
    return {"fused_linear_trace": FUSED_LINEAR_TRACE} if fused else {}


def _stack_fields(w: Workload) -> dict[str, Any]:
    """The stack settings that change the trace, when they differ from plain PyTorch's (the input
    pipeline, CUDA graphs and the optimizer's level do not change one traced step, or are keyed
    on their own)."""
    st = w.software_stack
    out: dict[str, Any] = {}
    if st.channels_last:
        out["memory_format"] = st.memory_format.value
    if st.fused_kernels:
        out["fused_kernels"] = [k.value for k in st.fused_kernels]
    if not st.dropout and w.is_training:
        out["dropout"] = False
    return {"stack": out} if out else {}


#: Inputs that do not change one traced step: how many denoiser calls an image takes and whether
#: each doubles its batch for guidance (``perf.image_serving`` times them from the traced call). Kept
#: out so that the key of every workload traced before they existed stays valid.
_NOT_TRACED_INPUTS = {"denoising_steps", "guidance"}


def key_fields(w: Workload) -> dict[str, Any]:
    """What :func:`profile_key` hashes (public so that a test can rebuild an older key)."""
    return {
        "task": w.task.value,
        "model": _model_identity(w),
        # An image's denoiser calls (their steps and guidance) repeat one traced call: not its trace.
        "inputs": w.inputs.model_dump(mode="json", exclude_none=True, exclude=_NOT_TRACED_INPUTS),
        "precision": w.precision.value,
        "optimizer": w.optimizer.value if w.is_training else None,
        "activation_checkpointing": w.checkpointing.value,
        # Only when set, so that the keys of every workload traced before these existed stay valid.
        **({"optimizer_in_backward": True} if w.optimizer_in_backward else {}),
        **({"loss": w.loss.value} if w.loss.value != "standard" else {}),
        **({"attention": w.attention.value} if w.attention.value != "fused" else {}),
        # A compiled training step keeps what AOTAutograd's partitioner keeps (profile/compiled.py).
        **({"compile": True} if w.compile and w.is_training else {}),
        **_sdpa_dropout_trace(w),
        **_conv_backward_trace(w),
        # fp8 inference is traced with its linear weights in FP8 (profile/tracer.py); before, as
        # amp-bf16 (fp32 weights): such a profile is re-traced.
        **({"fp8_inference_trace": 1} if w.precision.value == "fp8" and not w.is_training else {}),
        **_stack_fields(w),
        **_held_logits_trace(w),
        **_fused_linear_trace(w),
        "profile_schema_version": PROFILE_SCHEMA_VERSION,
        "torch": _torch_version(),
    }


def profile_key(workload: Workload | str | Path | dict[str, Any]) -> str:
    """sha256 of the canonical JSON of what shapes the trace, the Profile schema and torch's version.

    Not in the key: name, data, constraints, parallelism, gradient accumulation, serving — they do
    not change one traced micro-batch step on one device.
    """
    return _digest(key_fields(load_workload(workload)))


#: What :func:`key_fields` holds beyond what a recording measured: versions of gpuplan's own trace
#: (the Profile schema, how SDPA dropout is traced) and the tracing torch. A recording of the real
#: step is still of the same workload after any of them changes.
_TRACE_ONLY_FIELDS = (
    "profile_schema_version",
    "torch",
    "sdpa_dropout_trace",
    "fp8_inference_trace",
    "held_logits_trace",
    "fused_linear_trace",
    "conv_backward_trace",
)


def measurement_key(workload: Workload | str | Path | dict[str, Any]) -> str:
    """sha256 of what a ``gpuplan measure`` recording is of — the fields of :func:`profile_key`
    (model, shapes, precision, optimizer, checkpointing, stack) without the versions of the trace
    and of torch: a new Profile schema or torch upgrade does not orphan a stored measurement."""
    fields = key_fields(load_workload(workload))
    return _digest({k: v for k, v in fields.items() if k not in _TRACE_ONLY_FIELDS})


def recording_key(workload: Workload | str | Path | dict[str, Any]) -> str:
    """:func:`measurement_key` without where the project lies: a model of the user's own code is
    named by its entry and its module's content, so that a recording made on another machine, in
    another folder, is of the same workload (``measure --from``), and one of edited code is not."""
    fields = {k: v for k, v in key_fields(load_workload(workload)).items() if k not in _TRACE_ONLY_FIELDS}
    model = {k: v for k, v in fields["model"].items() if k != "project_dir"}
    return _digest({**fields, "model": model})


def installed_torch_version() -> str:
    """The installed torch's version (the one :func:`profile_key` names); ``none`` without torch."""
    return _torch_version()


def is_recording_of(workload: Workload, recorded_profile_key: str, torch_version: str) -> bool:
    """Whether a recording that names ``recorded_profile_key`` (made under ``torch_version``) is of
    ``workload``: its key under any Profile schema up to this one and either SDPA dropout trace,
    with the recording's torch. Recordings made before they were keyed by :func:`measurement_key`
    are matched this way (and a file made elsewhere, under another torch)."""
    fields = {k: v for k, v in key_fields(workload).items() if k not in _TRACE_ONLY_FIELDS}
    # The dropout trace's version 1 left no field in the key; 2 on wrote its number.
    versions = range(2, SDPA_DROPOUT_TRACE + 1) if _sdpa_dropout_trace(workload) else range(0)
    dropout: list[dict[str, int]] = [{}, *({"sdpa_dropout_trace": v} for v in versions)]
    # fp8 inference: recorded before its trace kept one-byte weights (no field), or after (field 1).
    fp8 = (
        [{}, {"fp8_inference_trace": 1}]
        if workload.precision.value == "fp8" and not workload.is_training
        else [{}]
    )
    # chunked-logits: recorded before the held step's field (none) or after (its version).
    versions = range(1, HELD_LOGITS_TRACE + 1) if _held_logits_trace(workload) else range(0)
    held: list[dict[str, int]] = [{}, *({"held_logits_trace": v} for v in versions)]
    # fused-linear: recorded before its trace's field (none) or after (its version).
    versions = range(1, FUSED_LINEAR_TRACE + 1) if _fused_linear_trace(workload) else range(0)
    fused: list[dict[str, int]] = [{}, *({"fused_linear_trace": v} for v in versions)]
    # The recording names torch.__version__ (a CUDA wheel's "2.11.0+cu130"); the key was made with
    # the installed package's version, which a wheel may give without that local part.
    torches = dict.fromkeys((torch_version, torch_version.partition("+")[0]))
    return any(
        _digest({**fields, **d, **f, **h, **u, "profile_schema_version": schema, "torch": t})
        == recorded_profile_key
        for t in torches
        for schema in range(1, PROFILE_SCHEMA_VERSION + 1)
        for d in dropout
        for f in fp8
        for h in held
        for u in fused
    )


def _digest(fields: dict[str, Any]) -> str:
    canonical = json.dumps(fields, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def _tracer_module() -> ModuleType:
    """``gpuplan.profile.tracer``, imported on first use; one clear line when PyTorch is not installed."""
    try:
        # By its full name, as `import` finds it in sys.modules (``from gpuplan.profile import
        # tracer`` would take the package's attribute, a module loaded before, without importing).
        tracer = importlib.import_module("gpuplan.profile.tracer")
    except ModuleNotFoundError as e:
        if e.name != "torch":
            raise
        raise EstimateError.worded(
            N_("tracing a workload needs PyTorch, which is not installed: pip install 'gpuplan[torch]'")
        ) from e
    return tracer


def _tracer() -> Callable[[Workload, str], Profile]:
    """The tracer (:func:`_tracer_module`)."""
    trace_workload: Callable[[Workload, str], Profile] = _tracer_module().trace_workload
    return trace_workload


def trace(workload: Workload | str | Path | dict[str, Any]) -> Profile:
    """Trace one step of ``workload`` on fake tensors (seconds; imports torch). No cache."""
    w = load_workload(workload)
    return _tracer()(w, profile_key(w))


def profile(workload: Workload | str | Path | dict[str, Any], cache: ProfileCache | None = None) -> Profile:
    """The workload's Profile from ``cache`` when it holds one for this content, else traced and stored.

    A cached payload that no longer parses is re-traced and overwritten.
    """
    w = load_workload(workload)
    key = profile_key(w)
    if cache is not None:
        payload = cache.get_profile(key, PROFILE_SCHEMA_VERSION)
        if payload is not None:
            try:
                cached = Profile.from_json(payload)
            except (ValueError, TypeError, KeyError):
                cached = None
            if cached is not None and cached.schema_version == PROFILE_SCHEMA_VERSION:
                if w.model.lora is not None:
                    cached = _lora_checked(w, key, cached, cache)
                # The key ignores the name, so a renamed workload reuses the trace under its own name;
                # the image side is the key's own (profiles traced before kept none).
                return dataclasses.replace(cached, workload_name=w.name, image_size=w.inputs.image_size)
    result = _tracer()(w, key)
    if cache is not None:
        cache.put_profile(key, PROFILE_SCHEMA_VERSION, result.to_json())
    return result


def _lora_checked(w: Workload, key: str, cached: Profile, cache: ProfileCache) -> Profile:
    """``cached`` once ``model.lora.targets`` are checked against its model's linear layers, as the
    trace checks them: a profile traced before the check (a typo'd target then adapted nothing,
    without a word) would otherwise keep estimating. A profile that does not keep the names builds
    the model once, on fake tensors (no new trace), and keeps them in the cache."""
    assert w.model.lora is not None
    names = cached.linear_names or _linear_names(w)
    check_lora_targets(w.model.lora.targets, names)
    if not cached.linear_names:
        cached = dataclasses.replace(cached, linear_names=names)
        cache.put_profile(key, PROFILE_SCHEMA_VERSION, cached.to_json())
    return cached


def _linear_names(w: Workload) -> tuple[str, ...]:
    """The names LoRA targets match in ``w``'s model (``tracer.model_linear_names``; imports torch)."""
    names: tuple[str, ...] = _tracer_module().model_linear_names(w)
    return names
