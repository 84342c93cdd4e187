"""A profile saved to a file and given back (``plan --profile``, ``estimate --profile``): a file
from anywhere, read as gpuplan reads any JSON from others and checked before an estimate rests on it.

The cache's own payloads are gpuplan's (``Profile.from_json``); a file is not. It is read within
bounds (size, nesting, no NaN or infinity, no key twice), of this gpuplan's profile schema, every
number in it finite and not negative, its batch at least one sample and its ops at least one: a
profile with a negative activation peak had been "fits" at −1,020 GiB, one with a batch of 0 or no
ops a traceback. And it must be a profile of the workload it is given with — the same task,
precision, batch per GPU and sequence length: a profile of a batch of 1 had priced a BERT job of
batch 32 without a word.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args, get_origin

from gpuplan.errors import InputError, Phrase
from gpuplan.i18n.messages import N_
from gpuplan.profile.model import PROFILE_SCHEMA_VERSION, Profile

if TYPE_CHECKING:
    from gpuplan.workload import Workload

__all__ = ["read_saved_profile"]


def read_saved_profile(path: Path, workload: Workload) -> Profile:
    """The profile in ``path``, checked to be a profile of ``workload`` that an estimate can use."""
    from gpuplan.bounded import MAX_DOCUMENT_BYTES, load_json, read_text

    text = read_text(path, what=N_("profile file"), max_bytes=MAX_DOCUMENT_BYTES)
    data = load_json(text, source=str(path))
    if not isinstance(data, dict) or "ops" not in data or "peak" not in data:
        raise InputError.worded(N_("{path}: not a gpuplan profile JSON (no ops and peak memory)"), path=path)
    version = data.get("schema_version")
    if version != PROFILE_SCHEMA_VERSION:
        raise InputError.worded(
            N_(
                "{path}: a profile of schema {version}, and this gpuplan reads schema {want}: trace "
                "the workload again (leave out --profile)"
            ),
            path=path,
            version=version,
            want=PROFILE_SCHEMA_VERSION,
        )
    try:
        profile = Profile.from_dict(data)
    except KeyError as e:
        raise InputError.worded(
            N_("--profile {path}: not a gpuplan profile JSON (it has no {key!r} key)"),
            path=path,
            key=str(e.args[0])[:40] if e.args else "",
        ) from e
    except (TypeError, ValueError) as e:
        raise InputError.worded(
            N_("--profile {path}: not a gpuplan profile JSON ({why})"), path=path, why=e
        ) from e
    _check_fields(profile, "profile", path)
    _check_counts(profile, path)
    _check_of(profile, workload, path)
    return profile


def _bad_number(value: Any) -> float | None:
    """The first number in ``value`` (a number, or tuples of them) that is infinite, NaN or
    negative, or None."""
    if isinstance(value, tuple):
        return next((bad for item in value if (bad := _bad_number(item)) is not None), None)
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if number and (not (isinstance(value, int) or math.isfinite(value)) or value < 0):
        return value  # as written: -5, not -5.0
    return None


def _check_counts(profile: Profile, path: Path) -> None:
    if profile.batch_size < 1 or not profile.ops:
        raise InputError.worded(
            N_("{path}: a profile of {batch} samples and {ops} ops; a traced step has at least one of each"),
            path=path,
            batch=profile.batch_size,
            ops=len(profile.ops),
        )
    for i, op in enumerate(profile.ops):
        if op.count < 1:
            raise InputError.worded(
                N_("{path}: ops[{i}] ({op}) is called {count} times; a traced op is called at least once"),
                path=path,
                i=i,
                op=op.op,
                count=op.count,
            )


def _fits(value: Any, hint: Any) -> bool:
    """Whether ``value`` is of the type ``hint`` names (the profile's dataclasses' annotations)."""
    origin, args = get_origin(hint), get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_fits(value, a) for a in args)
    if origin is Literal:
        return value in args
    if origin is tuple:
        if not isinstance(value, tuple):
            return False
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_fits(v, args[0]) for v in value)
        return len(value) == len(args) and all(_fits(v, a) for v, a in zip(value, args, strict=True))
    if hint is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if isinstance(hint, type):
        return isinstance(value, hint)
    return True  # Any, and what the profile's classes do not use


def _check_fields(value: Any, where: str, path: Path) -> None:
    """Every field of the profile (and of its ops, peak and shape) of the type it is declared, every
    figure in it finite and not negative."""
    hints = typing.get_type_hints(type(value))
    for f in dataclasses.fields(value):
        item = getattr(value, f.name)
        named = f"{where}.{f.name}".removeprefix("profile.")
        if not _fits(item, hints[f.name]):
            raise InputError.worded(
                N_("{path}: {where} is {value!r}, not a value a profile holds there"),
                path=path,
                where=named,
                value=str(item)[:60],
            )
        if (bad := _bad_number(item)) is not None:
            raise InputError.worded(
                N_("{path}: {where} is {value}; a profile's figures are finite and not negative"),
                path=path,
                where=named,
                value=bad,
            )
        parts = (
            [(f"{named}[{i}]", part) for i, part in enumerate(item)]
            if isinstance(item, tuple)
            else [(named, item)]
        )
        for at, part in parts:
            if dataclasses.is_dataclass(part) and not isinstance(part, type):
                _check_fields(part, at, path)


#: What a profile was traced with and what the workload asks for: the profile must be of this
#: workload (a profile of batch 1 had priced a batch-32 job without a word).
_TRACED_WITH = (
    (N_("task"), lambda p: p.task, lambda w: w.task.value),
    (N_("precision"), lambda p: p.precision, lambda w: w.precision.value),
    (N_("batch per GPU"), lambda p: p.batch_size, lambda w: w.inputs.batch_size),
    # a workload without a sequence length takes its model's (the trace's); one that names it, that
    (N_("sequence length"), lambda p: p.seq_len, lambda w: w.inputs.seq_len),
    (N_("activation checkpointing"), lambda p: p.activation_checkpointing, lambda w: w.checkpointing.value),
    (N_("attention"), lambda p: p.attention, lambda w: w.attention.value),
    (
        N_("base quantization"),
        lambda p: p.base_quantization,
        lambda w: w.model.lora.quantization.value if w.model.lora else "none",
    ),
)


def _check_of(profile: Profile, workload: Workload, path: Path) -> None:
    """Refuse a profile traced for another workload, naming the first setting that differs."""
    for what, traced, asked in _TRACED_WITH:
        have, want = traced(profile), asked(workload)
        if want is not None and have != want:
            raise InputError.worded(
                N_(
                    "{path} is a profile of {name!r} traced with {what} {have}; this workload has "
                    "{want}: trace it (leave out --profile)"
                ),
                path=path,
                name=profile.workload_name,
                what=Phrase(what),
                have=have,
                want=want,
            )
