"""Turning pydantic's validation errors into gpuplan's one-line WorkloadError."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from gpuplan.errors import Phrase, WorkloadError, closest
from gpuplan.i18n.messages import N_

__all__ = ["Spec", "one_line_error"]


class Spec(BaseModel):
    """Base of every workload section: frozen, unknown keys rejected with a did-you-mean."""

    # allow_inf_nan=False: no .inf / .nan from YAML reaches an estimate, a plan or a launch file.
    model_config = ConfigDict(
        frozen=True, extra="forbid", populate_by_name=True, use_enum_values=False, allow_inf_nan=False
    )

    @model_validator(mode="before")
    @classmethod
    def _reject_unknown_keys(cls, data: Any) -> Any:
        if isinstance(data, dict):
            known: list[str] = []
            for name, info in cls.model_fields.items():
                known.append(name)
                if isinstance(info.alias, str):
                    known.append(info.alias)
            for key in data:
                if str(key) not in known:
                    hint = closest(str(key), known)
                    did = f"did you mean {' or '.join(repr(h) for h in hint)}?" if hint else ""
                    shown = ", ".join(sorted({info.alias or n for n, info in cls.model_fields.items()}))
                    raise ValueError(f"unknown key {key!r}; {did or f'known keys: {shown}'}".rstrip())
        return data


_BOUNDS = {"greater_than_equal": "≥", "greater_than": ">", "less_than_equal": "≤", "less_than": "<"}


def _loc_path(loc: tuple[int | str, ...]) -> str:
    parts: list[str] = []
    for item in loc:
        if isinstance(item, int):
            parts.append(f"[{item}]")
        elif parts:
            parts.append(f".{item}")
        else:
            parts.append(str(item))
    return "".join(parts)


def _shown(value: object) -> str:
    """``repr(value)`` for a message, cut in the middle when long (a 400-digit number, a huge string)."""
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:40]}…{text[-12:]}"


def one_line_error(err: ValidationError, source: str = "") -> WorkloadError:
    """The first problem in ``err`` as ``<field.path>: <what is wrong and how to fix it>``."""
    first = err.errors(include_url=False)[0]
    # pydantic adds the tagged-union / function-validator name to loc; keep only field names.
    loc = tuple(p for p in first["loc"] if not (isinstance(p, str) and p.startswith("function-")))
    msg = str(first["msg"])
    for prefix in ("Value error, ", "Assertion failed, "):
        msg = msg.removeprefix(prefix)
    ctx = first.get("ctx") or {}
    got = _shown(first.get("input"))
    problem: str | Phrase = msg  # pydantic's or a validator's own words otherwise
    if first["type"] == "missing":
        problem = Phrase(N_("required field is missing"))
    elif first["type"] in _BOUNDS:
        problem = Phrase(
            N_("must be {op} {bound} (got {got})"),
            op=_BOUNDS[first["type"]],
            bound=next(iter(ctx.values())),
            got=got,
        )
    elif first["type"] == "string_too_short":
        problem = Phrase(N_("must not be empty"))
    elif first["type"] in {"int_parsing", "float_parsing", "int_type", "float_type", "bool_parsing"}:
        problem = f"{msg[0].lower()}{msg[1:]} (got {got})"
    # A whole-workload check already names its field at the start of its message.
    path = f"{_loc_path(loc)}: " if loc else ""
    more = len(err.errors()) - 1
    tail: str | Phrase = ""
    if more == 1:
        tail = Phrase(N_(" (and 1 more problem)"))
    elif more > 1:
        tail = Phrase(N_(" (and {more} more problems)"), more=more)
    where = f"{source}: " if source else ""
    return WorkloadError.worded(
        "{where}{path}{problem}{tail}", where=where, path=path, problem=problem, tail=tail
    )
