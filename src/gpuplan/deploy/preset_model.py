"""preset_model.py: a built-in preset's own model code, for train.py to build without gpuplan.

The presets are plain PyTorch (``gpuplan.workload.presets``). Rather than keep a second copy that
could drift from what the planner traces, deploy copies the preset modules' source as it is at
generation time into one self-contained module: ``info`` (the architecture numbers), ``fused``,
``layers`` and the family's module, less their imports of gpuplan and the trace glue that needs
gpuplan (each module's ``build()``, ``decoder_bundle()``, ``kernels_for()``: what turns a workload
into a traced bundle). A short tail names the preset's architecture and builds it
(:data:`_TAIL`). Families whose training objective train.py's synthetic batches do not fit (BERT's
masked positions, T5's two inputs) are not written: train.py trains its stand-in for them and says so.
"""

from __future__ import annotations

import ast
from importlib import resources

from gpuplan.deploy.spec import LaunchSpec
from gpuplan.workload.presets.registry import PRESETS

__all__ = ["PRESET_MODULE", "preset_inputs", "preset_model_py", "written_preset"]

#: The module's file name in the launch folder (train.py imports it by this name).
PRESET_MODULE = "preset_model.py"

#: The preset modules every family needs, in the order they import one another.
_SHARED = ("info", "fused", "layers")

#: Each family module train.py can build: the expression that builds its model from ``arch``
#: (:class:`~gpuplan.workload.presets.info.Arch`), ``kernels`` and ``image_size``.
_BUILDERS: dict[str, str] = {
    "gpt2": "GPT2(arch, kernels)",
    "llama": "Llama(arch, kernels)",
    "vit": "ViT(arch, image_size or 224)",
    "resnet": "ResNet(arch.stage_blocks, arch.num_classes)",
}

#: What each family's ``build()`` takes where the workload gives no input size (its tokens per
#: sample, or its images' side): train.py's synthetic batches are of that shape then.
_DEFAULT_INPUTS = {
    "gpt2": ("SEQ_LEN", 1024),
    "llama": ("SEQ_LEN", 2048),
    "vit": ("IMAGE_SIZE", 224),
    "resnet": ("IMAGE_SIZE", 224),
}

#: The module's tail: the preset's architecture and ``build_preset()``, which train.py calls.
#: ``--width``/``--depth`` shrink it for a quick check on a small machine (never the planned model).
_TAIL = '''

# ==== written by gpuplan deploy =====================================================================
PRESET = {name!r}
SOURCE = {source!r}
ARCH = {arch!r}
# The workload's dropouts; train.py runs PyTorch's own kernels (the fused ones are gpuplan's trace
# of FlashAttention's, which a GPU runs from the flash-attn package, not from here).
KERNELS = {kernels}
#: What --width changes: transformers' width (heads and MLP scaled with it); a ResNet has none.
SHRINKS_WIDTH = {shrinks_width!r}


def shrunk(arch: Arch, width: int | None, depth: int | None) -> Arch:
    """``arch`` with ``width`` (hidden size; heads, key/value heads and MLP width scaled with it) and
    ``depth`` (blocks; a ResNet's blocks per stage at the most): a smaller model of the same code."""
    changes: dict[str, Any] = {{}}
    if depth is not None:
        if arch.stage_blocks:
            changes["stage_blocks"] = tuple(min(b, depth) for b in arch.stage_blocks)
        else:
            changes["layers"] = depth
    if width is not None and arch.hidden:
        heads = max(1, arch.heads * width // arch.hidden)
        while width % heads:
            heads -= 1
        kv_heads = max(1, arch.kv_heads * heads // arch.heads)
        while heads % kv_heads:
            kv_heads -= 1
        changes.update(
            hidden=width, heads=heads, kv_heads=kv_heads, head_dim=width // heads,
            intermediate=max(1, arch.intermediate * width // arch.hidden),
        )
    return replace(arch, **changes)


def build_preset(
    width: int | None = None, depth: int | None = None, image_size: int | None = None
) -> nn.Module:
    """The preset's model, randomly initialised (``width``/``depth``: :func:`shrunk`)."""
    arch = shrunk(ARCH, width, depth)
    kernels = KERNELS
    return {builder}
'''


def written_preset(spec: LaunchSpec) -> str | None:
    """The family module of the preset train.py builds for ``spec`` (``gpt2``); None where it builds
    none: no preset, a preset with an adapter, or a family it cannot train on its batches."""
    if spec.preset is None:
        return None
    info = PRESETS[spec.preset]
    module = info.loader.__name__.removeprefix("_")
    return module if module in _BUILDERS else None


def preset_inputs(spec: LaunchSpec) -> dict[str, int | None]:
    """train.py's SEQ_LEN and IMAGE_SIZE: the workload's, else (for a preset train.py builds) the
    size the planner traced the preset at."""
    inputs = {"SEQ_LEN": spec.seq_len, "IMAGE_SIZE": spec.image_size}
    module = written_preset(spec)
    if module is not None and spec.seq_len is None and spec.image_size is None:
        key, size = _DEFAULT_INPUTS[module]
        inputs[key] = size
    return inputs


def preset_model_py(spec: LaunchSpec) -> str | None:
    """preset_model.py for ``spec``'s preset (see the module docstring); None where train.py builds
    none (:func:`written_preset`)."""
    module = written_preset(spec)
    if module is None or spec.preset is None:
        return None
    info = PRESETS[spec.preset]
    parts = [_source(name) for name in (*_SHARED, module)]
    on = spec.preset_dropout and spec.task != "infer"
    # layers.Kernels, written out: deploy does not import the torch modules it copies
    kernels = (
        f"Kernels(dropout={info.arch.dropout if on else 0.0!r}, "
        f"attention_dropout={info.arch.attention_dropout if on else 0.0!r})"
    )
    head = (
        f'"""The model of gpuplan preset {info.name}: {info.source}.\n\n'
        "Written by `gpuplan deploy` from the source of gpuplan's preset modules (gpuplan.workload.presets:\n"
        f"{', '.join(f'{p}.py' for p in (*_SHARED, module))}), less their imports of gpuplan and the code\n"
        'that traces a workload. It needs PyTorch only. train.py calls build_preset()."""\n\n'
        "from __future__ import annotations\n\n"
        "from dataclasses import replace\n"
        "from typing import Any\n"
    )
    tail = _TAIL.format(
        name=info.name,
        source=info.source,
        arch=info.arch,
        kernels=kernels,
        shrinks_width=bool(info.arch.hidden),
        builder=_BUILDERS[module],
    )
    return head + "".join(parts) + tail


def _source(name: str) -> str:
    """The source of preset module ``name`` without its docstring, ``__all__``, its imports of gpuplan
    (and ``from __future__``), and the top-level functions that use a name only gpuplan defines."""
    text = resources.files("gpuplan.workload.presets").joinpath(f"{name}.py").read_text(encoding="utf-8")
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    foreign: set[str] = set()
    dropped: list[ast.stmt] = []
    for node in tree.body:
        if _gpuplan_import(node):
            dropped.append(node)
            if isinstance(node, ast.ImportFrom) and not (node.module or "").startswith(
                "gpuplan.workload.presets"
            ):
                foreign.update(a.asname or a.name for a in node.names)
        elif isinstance(node, ast.If) and all(_gpuplan_import(n) for n in node.body):
            dropped.append(node)  # ``if TYPE_CHECKING:`` imports of gpuplan
            foreign.update(a.asname or a.name for n in node.body for a in n.names)  # type: ignore[attr-defined]
        elif _is_docstring(node) or _is_all(node):
            dropped.append(node)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and any(
            isinstance(n, ast.Name) and n.id in foreign for n in ast.walk(node)
        ):
            dropped.append(node)
    cut: set[int] = set()
    for node in dropped:
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        cut.update(range(first - 1, node.end_lineno or node.lineno))
    kept = "".join(line for i, line in enumerate(lines) if i not in cut)
    return f"\n\n# ---- gpuplan/workload/presets/{name}.py " + "-" * 60 + "\n" + kept.strip("\n") + "\n"


def _gpuplan_import(node: ast.stmt) -> bool:
    """An import of gpuplan, or ``from __future__`` (the module's head has its own)."""
    if isinstance(node, ast.ImportFrom):
        return (node.module or "").split(".")[0] in ("gpuplan", "__future__")
    return isinstance(node, ast.Import) and any(a.name.split(".")[0] == "gpuplan" for a in node.names)


def _is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _is_all(node: ast.stmt) -> bool:
    return isinstance(node, ast.Assign) and any(
        isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
    )
