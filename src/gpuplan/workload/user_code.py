"""Models from the user's own code: ``model: {python: "pkg.module:build"}``.

The protocol
------------
``build()`` takes no arguments and returns one of:

* ``(model, make_inputs)`` or ``(model, make_inputs, loss_fn)``;
* a bare ``model`` only if it is a Hugging Face ``PreTrainedModel`` (inputs are then made from its
  config, as for ``hf_config``).

``make_inputs(batch_size)`` returns one micro-batch for one GPU: a tensor (one positional argument),
a tuple (positional arguments) or a dict (keyword arguments) for ``model(...)``. If it also accepts
keyword arguments ``seq_len`` or ``image_size``, the workload's values are passed.

``loss_fn(output, inputs)`` returns a scalar tensor; ``inputs`` is what ``make_inputs`` returned.
Without it the loss is ``output.loss`` when the output has one (Hugging Face), else the mean of the
output's first tensor, as a stand-in whose cost is negligible next to the model.

Everything runs under gpuplan's fake-tensor mode on a fake CPU device: create tensors on the default
device (no ``.cuda()``), never load weights. ``build()`` itself runs on the meta device (no values,
so weights are not initialised), outside the fake mode, and the model's tensors then become fake ones
(``workload/meta.py``). The module is imported from ``model.project_dir`` (the YAML's folder) and the
current directory, once a process for as long as its files are unchanged; ``sys.path`` and
``sys.modules`` are restored afterwards.
Any exception in user code becomes a ``UserCodeError`` carrying the user's frames of the traceback.
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

from gpuplan.errors import Phrase, UserCodeError, closest
from gpuplan.i18n.messages import N_
from gpuplan.workload.bundle import Batch, ModelBundle
from gpuplan.workload.meta import build_on_meta
from gpuplan.workload.shape import ModelShape
from gpuplan.workload.spec import Workload

__all__ = ["build_user_bundle", "user_error", "user_project"]

_FAILED = N_("{what} failed: {error_type}: {message}")
# Advice added when the user's error is one that tracing on fake tensors causes.
_NOT_ON_CUDA = N_(" (gpuplan traces on a fake CPU device: create tensors and modules without device='cuda')")
_NO_VALUES = N_(
    " (gpuplan traces with fake tensors, which have no values: avoid .item() and branching on data)"
)


def _refusal(user_traceback: str, template: str, /, **fields: object) -> UserCodeError:
    """A UserCodeError worded from ``template`` (so the CLI can translate it), with the user's traceback."""
    error = UserCodeError.worded(template, **fields)
    error.user_traceback = user_traceback
    return error


#: The user's modules each project imported, by its import roots, kept between its uses in one
#: process with each module file's modification time and size: the same project entered again (the
#: tuned stack's trace after the workload's own, in one ``estimate``) gets its modules back instead
#: of running their code a second time (a module that logs or opens files at import had done so twice).
#: A file changed since, or a module of the same name loaded meanwhile, imports afresh.
_IMPORTED: dict[tuple[str, ...], dict[str, tuple[ModuleType, tuple[int, int]]]] = {}


@contextmanager
def user_project(project_dir: Path) -> Iterator[None]:
    """Make the user's project importable for the duration; restore ``sys.path`` and ``sys.modules``.

    Its modules leave ``sys.modules`` afterwards, so that another project with the same module names
    imports afresh, but are kept aside (:data:`_IMPORTED`): the same project's next use in this
    process imports each of them once, not again."""
    roots = [str(project_dir.resolve()), str(Path.cwd())]
    key = tuple(dict.fromkeys(roots))
    added = [r for r in key if r not in sys.path]
    before = set(sys.modules)
    _restore(_IMPORTED.get(key, {}))
    sys.path[:0] = added
    try:
        yield
    finally:
        for r in added:
            if r in sys.path:
                sys.path.remove(r)
        # Drop the user's modules so that another project with the same module names imports afresh
        # (never gpuplan's own, which may be imported lazily meanwhile from a checkout under cwd).
        ours = str(Path(__file__).resolve().parents[1])
        kept: dict[str, tuple[ModuleType, tuple[int, int]]] = {}
        for name in set(sys.modules) - before:
            module = sys.modules[name]
            file = getattr(module, "__file__", None) or ""
            if (
                any(file.startswith(r) for r in roots)
                and "site-packages" not in file
                and not file.startswith(ours)
            ):
                if (stamp := _modified_ns(file)) is not None:
                    kept[name] = (module, stamp)
                del sys.modules[name]
        _IMPORTED[key] = kept


def _restore(kept: dict[str, tuple[ModuleType, tuple[int, int]]]) -> None:
    """Put a project's kept modules back into ``sys.modules``: all of them, or none where one's file
    has changed since or a module of one of their names is loaded now (it imports afresh then)."""
    if not kept:
        return
    if any(
        name in sys.modules or _modified_ns(m.__file__ or "") != stamp for name, (m, stamp) in kept.items()
    ):
        return
    sys.modules.update({name: module for name, (module, _stamp) in kept.items()})


def _modified_ns(file: str) -> tuple[int, int] | None:
    """The file's modification time, ns, and size: an edit changes one or the other (two writes
    within one tick of the file system's clock keep the time, seldom the size); None where it
    cannot be read."""
    try:
        st = os.stat(file)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def _is_user_frame(filename: str, project_dir: Path) -> bool:
    f = str(Path(filename).resolve()) if not filename.startswith("<") else filename
    root = str(project_dir.resolve())
    return f.startswith(root) and "site-packages" not in f


def _gpuplans_own(exc: BaseException) -> bool:
    """Whether ``exc`` is a failure of what gpuplan put into the user's model, though the user's
    code raised it: an attribute read of one of gpuplan's modules (its checkpointing wrapper, a LoRA
    adapter), or torch's checkpoint refusing gpuplan's recompute. Such an error is not the user's
    code's to fix, and is said as gpuplan's, without "your code" traceback."""
    if isinstance(exc, AttributeError):
        owner = getattr(exc, "obj", None)
        return owner is not None and type(owner).__module__.startswith("gpuplan.")
    return type(exc).__module__ == "torch.utils.checkpoint"


def user_error(exc: BaseException, project_dir: Path, what: str | Phrase) -> UserCodeError | None:
    """A UserCodeError for ``exc`` if any traceback frame is in the user's project, else None.

    ``what`` names what was running (``"pkg.model:build()"``, or a Phrase such as "importing …")."""
    if _gpuplans_own(exc):
        return None
    frames = traceback.extract_tb(exc.__traceback__)
    mine = [fr for fr in frames if _is_user_frame(fr.filename, project_dir)]
    if not mine and not isinstance(exc, ImportError | SyntaxError):
        return None
    text = "Traceback (most recent call last):\n" + "".join(traceback.format_list(mine))
    text += "".join(traceback.format_exception_only(type(exc), exc))
    where = f" ({Path(mine[-1].filename).name}:{mine[-1].lineno})" if mine else ""
    first = (str(exc).strip().splitlines() or [""])[0]
    advice: str | Phrase = ""
    if "cuda" in first.lower():
        advice = Phrase(_NOT_ON_CUDA)
    elif "DataDependent" in type(exc).__name__ or "meta tensors" in first:  # no values, fake or meta
        advice = Phrase(_NO_VALUES)
    return _refusal(
        text,
        N_("{what} failed{where}: {error_type}: {message}{advice}"),
        what=what,
        where=where,
        error_type=type(exc).__name__,
        message=first,
        advice=advice,
    )


def _call(fn: Callable[..., Any], project_dir: Path, what: str, *args: Any, **kwargs: Any) -> Any:
    try:
        return fn(*args, **kwargs)
    except Exception as e:
        err = user_error(e, project_dir, what)
        if err is None:
            err = _refusal(traceback.format_exc(), _FAILED, what=what, error_type=type(e).__name__, message=e)
        raise err from e


def _load_entry(entry: str, project_dir: Path) -> Callable[..., Any]:
    mod_name, _, fn_name = entry.partition(":")
    try:
        module = importlib.import_module(mod_name)
    except ModuleNotFoundError as e:
        if e.name and (mod_name == e.name or mod_name.startswith(e.name + ".")):
            # the module the workload names is missing, not one its code imports: a slip of the
            # YAML, said in one line (a traceback of importlib's frames only says nothing more)
            raise _refusal(
                "",
                N_(
                    "model.python: cannot import {module!r}: no module {missing!r} in {folder} or the "
                    "current directory{hint}"
                ),
                module=mod_name,
                missing=e.name,
                folder=project_dir,
                hint=_sibling_hint(e.name, project_dir),
            ) from e
        raise _as_user(e, project_dir, Phrase(_IMPORTING, module=mod_name)) from e
    except Exception as e:
        raise _as_user(e, project_dir, Phrase(_IMPORTING, module=mod_name)) from e
    fn = getattr(module, fn_name, None)
    if not callable(fn):
        raise _refusal(
            "", N_("model.python: {module} has no function {function!r}"), module=mod_name, function=fn_name
        )
    return fn


_IMPORTING = N_("importing {module}")


def _sibling_hint(missing: str, project_dir: Path) -> Phrase | str:
    """ "; did you mean 'pkg.model'?" for a module named one letter off one beside it, else ""."""
    parent, _, leaf = missing.rpartition(".")
    for root in (project_dir, Path.cwd()):
        folder = root.joinpath(*parent.split(".")) if parent else root
        if not folder.is_dir():
            continue
        names = [f.stem for f in folder.glob("*.py")] + [
            d.name for d in folder.iterdir() if (d / "__init__.py").exists()
        ]
        near = closest(leaf, names, n=1)
        if near:
            return Phrase(N_("; did you mean {name!r}?"), name=f"{parent}.{near[0]}" if parent else near[0])
    return ""


def _as_user(e: BaseException, project_dir: Path, what: str | Phrase) -> UserCodeError:
    return user_error(e, project_dir, what) or _refusal(
        "".join(traceback.format_exception(e)), _FAILED, what=what, error_type=type(e).__name__, message=e
    )


def _default_loss(out: Any, inputs: Any) -> Any:
    import torch

    loss = getattr(out, "loss", None)
    if isinstance(loss, torch.Tensor):
        return loss
    if isinstance(out, torch.Tensor):
        return out.float().mean()
    leaves = (
        list(out.values()) if isinstance(out, dict) else list(out) if isinstance(out, tuple | list) else []
    )
    for t in leaves:
        if isinstance(t, torch.Tensor) and t.is_floating_point():
            return t.float().mean()
    raise _refusal(
        "",
        N_(
            "the model returned {type} with no tensor to take a loss of; return "
            "(model, make_inputs, loss_fn) from build()"
        ),
        type=type(out).__name__,
    )


def build_user_bundle(workload: Workload) -> ModelBundle:
    """Import and call the user's ``build()`` (under the tracer's fake mode) and wrap the result."""
    from torch import nn

    spec = workload.model
    assert spec.python is not None
    project_dir = spec.base_dir
    build = _load_entry(spec.python, project_dir)
    # Built on the meta device under the tracer, as an hf_config model is (workload/meta.py): a
    # transformers ViT's initialisation asks its fake weights for values.
    built = _call(build_on_meta, project_dir, f"{spec.python}()", build)
    parts = built if isinstance(built, tuple) else (built,)
    model = parts[0]
    if not isinstance(model, nn.Module):
        raise _refusal(
            "",
            N_("{entry}() must return an nn.Module or (model, make_inputs[, loss_fn]); got {type}"),
            entry=spec.python,
            type=type(model).__name__,
        )
    if len(parts) == 1:
        if hasattr(model, "config") and hasattr(model.config, "to_dict"):
            from gpuplan.workload.hf import hf_bundle_for

            return hf_bundle_for(model, workload)
        raise _refusal(
            "",
            N_("{entry}() returned only a model; return (model, make_inputs) so gpuplan knows its inputs"),
            entry=spec.python,
        )
    make_inputs = parts[1]
    loss_fn = parts[2] if len(parts) > 2 else None
    extra: dict[str, int] = {}
    params = inspect.signature(make_inputs).parameters
    for key in ("seq_len", "image_size"):
        value = getattr(workload.inputs, key)
        if value is not None and (key in params or any(p.kind is p.VAR_KEYWORD for p in params.values())):
            extra[key] = value

    def make_batch() -> Batch:
        inputs = _call(make_inputs, project_dir, "make_inputs", workload.inputs.batch_size, **extra)
        if isinstance(inputs, dict):
            return Batch(args=(), kwargs=inputs, targets=(inputs,))
        args = inputs if isinstance(inputs, tuple) else (inputs,)
        return Batch(args=args, targets=(inputs,))

    def loss(out: Any, batch: Batch) -> Any:
        if loss_fn is None:
            return _default_loss(out, batch.targets[0])
        return _call(loss_fn, project_dir, "loss_fn", out, batch.targets[0])

    from gpuplan.workload.adapt import repeated_blocks

    blocks = repeated_blocks(model)
    return ModelBundle(
        model=model,
        make_batch=make_batch,
        loss=loss,
        shape=ModelShape(
            family="custom",
            num_layers=len(blocks) or None,
            largest_layer_params=max(
                (sum(p.numel() for p in model.get_submodule(b).parameters()) for b in blocks), default=None
            ),
        ),
        seq_len=workload.inputs.seq_len,
        checkpoint_blocks=blocks,
        notes=(f"{spec.python}: architecture facts (heads, vocabulary) unknown for user code",),
    )
