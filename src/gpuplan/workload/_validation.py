"""Turning pydantic's validation errors into gpuplan's one-line WorkloadError."""

from __future__ import annotations

import difflib
from collections.abc import Collection, Mapping
from functools import cache
from types import MappingProxyType
from typing import Annotated, Any, get_args

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from gpuplan.bounded import control_character
from gpuplan.documents.base import refuse_boolean
from gpuplan.errors import GpuplanError, InputError, Phrase, WorkloadError, closest
from gpuplan.i18n.messages import N_
from gpuplan.i18n.phrases import also_problems, either, listed
from gpuplan.units import other_currency

__all__ = [
    "PrintableLine",
    "Spec",
    "UnknownKey",
    "one_line_error",
    "printable_line",
    "refuse_unknown_keys",
    "refused_value",
]

#: Pydantic's own message for an error type, as ``one_line_error`` shows it, and the same words as a
#: catalog message (``{got}``: the value given; other fields are pydantic's ``ctx``). Used only when
#: the English it makes is exactly pydantic's text, so a pydantic that words it otherwise is shown
#: as it words it.
_PYDANTIC_WORDS = {
    "int_parsing": N_("input should be a valid integer, unable to parse string as an integer (got {got})"),
    "float_parsing": N_("input should be a valid number, unable to parse string as a number (got {got})"),
    "bool_parsing": N_("input should be a valid boolean, unable to interpret input (got {got})"),
    "int_type": N_("input should be a valid integer (got {got})"),
    "float_type": N_("input should be a valid number (got {got})"),
    "int_from_float": N_("Input should be a valid integer, got a number with a fractional part"),
    "bool_type": N_("Input should be a valid boolean"),
    "string_type": N_("Input should be a valid string"),
    "finite_number": N_("Input should be a finite number"),
    "tuple_type": N_("Input should be a valid tuple"),
    "list_type": N_("Input should be a valid list"),
    "dict_type": N_("Input should be a valid dictionary"),
    "model_type": N_("Input should be a valid dictionary or instance of {class_name}"),
    "model_attributes_type": N_("Input should be a valid dictionary or object to extract fields from"),
    "string_too_long": N_("String should have at most {max_length} characters"),
    "too_long": N_("Tuple should have at most {max_length} items after validation, not {actual_length}"),
    # gpuplan.units.read_amount's words (a budget), as the command line writes them too
    "amount_parsing": N_("{value} is not an amount: write it as {one} or {two}"),
    "wrong_currency": N_("{value} is in another currency: give it with {option}"),
    "unsupported_currency": N_(
        "{value} is in {code}, which gpuplan does not price in (the catalog has no dated {code} rate): "
        "give the amount in USD or CNY"
    ),
}


class Spec(BaseModel):
    """Base of every workload section: frozen, unknown keys rejected with a did-you-mean."""

    # allow_inf_nan=False: no .inf / .nan from YAML reaches an estimate, a plan or a launch file.
    model_config = ConfigDict(
        frozen=True, extra="forbid", populate_by_name=True, use_enum_values=False, allow_inf_nan=False
    )

    @field_validator("*", mode="before")
    @classmethod
    def _reject_booleans(cls, value: Any, info: ValidationInfo) -> Any:
        # batch_size: true is not 1, nor epochs: false 0
        return refuse_boolean(cls, value, info)

    @model_validator(mode="before")
    @classmethod
    def _reject_unknown_keys(cls, data: Any) -> Any:
        refuse_unknown_keys(cls, data, _sub_sections(cls))
        return data


@cache
def _sub_sections(spec: type[Spec]) -> Mapping[str, frozenset[str]]:
    """The keys of each of ``spec``'s sub-sections (a field whose type is a :class:`Spec`), by the
    sub-section's key, names and aliases alike."""
    found: dict[str, frozenset[str]] = {}
    for name, info in spec.model_fields.items():
        for kind in (info.annotation, *get_args(info.annotation)):
            if isinstance(kind, type) and issubclass(kind, Spec):
                found.setdefault(info.alias or name, frozenset(_keys(kind)))
    return MappingProxyType(found)


def _keys(model: type[BaseModel]) -> list[str]:
    """``model``'s keys: its fields' names and aliases."""
    known: list[str] = []
    for name, info in model.model_fields.items():
        known.append(name)
        if isinstance(info.alias, str):
            known.append(info.alias)
    return known


class UnknownKey(ValueError):
    """A key that no field of a section has, refused in words that name the nearest known keys
    ("did you mean"), the section it belongs in, or the known keys: ``key`` is the key itself, so
    that a reader naming fields its own way can name it (``workload.constraints.deadlin``)."""

    def __init__(self, key: str, problem: Phrase) -> None:
        super().__init__(problem)
        self.key = key
        """The key refused."""
        self.problem = problem
        """The words refusing it."""


def refuse_unknown_keys(
    model: type[BaseModel], data: Any, sections: Mapping[str, Collection[str]] | None = None
) -> None:
    """:class:`UnknownKey` for the first key of ``data`` (a mapping about to be read as ``model``)
    that no field of ``model`` has, by name or alias. ``sections``: the keys of ``model``'s
    sub-sections, by the sub-section's key: a key one of them has is said to belong there, and a
    misspelt key is matched against theirs too ("did you mean 'constraints.deadline'?" for
    ``deadlin`` at the workload's top), this section's own close keys first. The one
    did-you-mean of the workload file's sections and of the service's requests."""
    if not isinstance(data, dict):
        return
    known = _keys(model)
    sections = sections or {}
    hints: Mapping[str, str] = getattr(model, "key_hints", {})
    for key in data:
        if str(key) in known:
            continue
        if (hint_words := hints.get(str(key).strip().lower())) is not None:
            # a key that names something this section does not take: say where it is, not a
            # near spelling of another key (tpot_p95_ms is not ttft_p95_ms)
            raise UnknownKey(
                str(key), Phrase(N_("unknown key {key!r}: {why}"), key=key, why=Phrase(hint_words))
            )
        if (priced := _other_currency_key(str(key), known)) is not None:
            raise UnknownKey(str(key), priced)
        section = next((name for name, keys in sections.items() if str(key) in keys), None)
        if section:
            # batch_size at the top, pad_vocab_multiple beside model: say where it goes.
            raise UnknownKey(
                str(key),
                Phrase(
                    N_("unknown key {key!r} here; it belongs in {section}: ({section}.{key})"),
                    key=key,
                    section=section,
                ),
            )
        hint = _nearest(str(key), known, sections)
        if hint:
            raise UnknownKey(
                str(key),
                Phrase(
                    N_("unknown key {key!r}; did you mean {names}?"),
                    key=key,
                    names=either(repr(h) for h in hint),
                ),
            )
        shown = sorted({info.alias or n for n, info in model.model_fields.items()})
        raise UnknownKey(
            str(key), Phrase(N_("unknown key {key!r}; known keys: {names}"), key=key, names=listed(shown))
        )


def _other_currency_key(key: str, known: list[str]) -> Phrase | None:
    """The refusal of ``key`` where it is an amount's key (``budget_usd``, ``budget_cny``) in a
    currency gpuplan does not take (``budget_jpy``, ``budget_yen``, ``budget_eur``); None for any
    other key. "did you mean 'budget_cny'" had offered the yuan for the yen."""
    stem, _sep, suffix = key.rpartition("_")
    usd, cny = f"{stem}_usd", f"{stem}_cny"
    if not (stem and usd in known and cny in known) or (code := other_currency(suffix)) is None:
        return None
    return Phrase(
        N_(
            "unknown key {key!r}: {code} is not a currency gpuplan prices in (the catalog has no "
            "dated {code} rate): give the amount as {usd} or {cny}"
        ),
        key=key,
        code=code,
        usd=usd,
        cny=cny,
    )


#: How near a sub-section's key must be to a misspelt one to be suggested (difflib's ratio): higher
#: than the same section's 0.5 (:func:`~gpuplan.errors.closest`), as there are many more of them.
_NESTED_CUTOFF = 0.7
#: How much less near than the nearest key another suggestion may be, where the nearest is a
#: sub-section's ("deadlin": 'constraints.deadline' at 0.93, not 'model' at 0.5 beside it).
_NEAR_MARGIN = 0.2


def _nearest(key: str, known: list[str], sections: Mapping[str, Collection[str]]) -> list[str]:
    """The keys to suggest for the misspelt ``key``: this section's close keys (``known``), and
    its sub-sections' keys that are as close, as ``section.key``; this section's first unless a
    sub-section's is nearer, and then only the keys about as near as that one."""

    def near(name: str) -> float:
        return difflib.SequenceMatcher(None, key.lower(), name.lower()).ratio()

    own = [(near(k), k) for k in closest(key, known)]
    nested = sorted(
        ((near(k), f"{section}.{k}") for section, keys in sections.items() for k in sorted(keys)),
        key=lambda hit: -hit[0],
    )
    nested = [hit for hit in nested if hit[0] >= _NESTED_CUTOFF]
    if not nested:
        return [k for _score, k in own]
    best = max(hit[0] for hit in [*own, *nested])
    if own and own[0][0] >= best:
        shown = [*own, *(hit for hit in nested if hit[0] >= best - _NEAR_MARGIN)]
    else:
        shown = [
            hit for hit in sorted([*nested, *own], key=lambda hit: -hit[0]) if hit[0] >= best - _NEAR_MARGIN
        ]
    return list(dict.fromkeys(k for _score, k in shown))[:3]


_BOUNDS = {"greater_than_equal": "≥", "greater_than": ">", "less_than_equal": "≤", "less_than": "<"}


def printable_line(value: str) -> str:
    """A pydantic validator: ``value`` is one line of printable text (see
    :func:`gpuplan.bounded.control_character`), else a refusal naming the character's code point."""
    bad = control_character(value)
    if bad is not None:
        raise ValueError(
            Phrase(
                N_("must be one line of printable text (got the control character U+{code:04X})"),
                code=ord(bad),
            )
        )
    return value


#: A name shown in terminals and reports (a workload's, a demand's, a service's).
PrintableLine = Annotated[str, AfterValidator(printable_line)]


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
    """The first problem in ``err`` as ``<field.path>: <what is wrong and how to fix it>``; a second
    one is named too, more are counted."""
    path, problem, tail = _first_problem(err)
    where = f"{source}: " if source else ""
    return WorkloadError.worded(
        "{where}{path}{problem}{tail}", where=where, path=path, problem=problem, tail=tail
    )


def refused_value(err: ValidationError) -> tuple[str, Phrase]:
    """:func:`one_line_error`'s line in two: the first problem's field path (``constraints.providers``,
    ``demands[0].gpus``; "" for a check of the whole document, whose words name its field) and the
    rest, for a reader that names the field in its own words (a form's label). An unknown key is
    named by its own path (``constraints.deadlin``; ``deadlin`` at the top), where the line names
    the section that holds it."""
    path, problem, tail = _first_problem(err)
    path = path.removesuffix(": ")
    raised = (err.errors(include_url=False)[0].get("ctx") or {}).get("error")
    if isinstance(raised, UnknownKey):
        path = f"{path}.{raised.key}" if path else raised.key
    cause = raised.args[0] if isinstance(raised, ValueError) and len(raised.args) == 1 else None
    if not path and isinstance(cause, InputError) and cause.field is not None:
        # a check of the whole document whose error says which value it refuses (model.hf_config)
        return cause.field, Phrase("{problem}{tail}", problem=cause.problem, tail=tail)
    return path, Phrase("{problem}{tail}", problem=problem, tail=tail)


def _first_problem(err: ValidationError) -> tuple[str, str | Phrase | GpuplanError, str | Phrase]:
    """The first problem's path (``inputs.batch_size: ``), what is wrong, and the next ones named
    after it ("(also serving.schedule.days: …; serving.schedule.time_zone: …)"), any past
    :data:`~gpuplan.i18n.phrases.MORE_NAMED` of them counted. A schedule of three wrong values had
    been told the first and "(and 2 more problems)", the two others said only once the first was
    fixed."""
    errors = err.errors(include_url=False)
    path, problem = _described(errors[0])
    return path, problem, also_problems(errors[1:], _with_path)


def _with_path(error: Any) -> Phrase:
    """One problem as a refusal names it after its first: its path, then what is wrong."""
    path, said = _described(error)
    return Phrase("{path}{problem}", path=path, problem=said)


#: Pydantic's error types for a section given something other than a mapping: its own words name
#: the section's class (``ConstraintsSpec``), which no workload file spells.
_MAPPING_TYPES = frozenset({"model_type", "dict_type", "model_attributes_type"})


def _not_a_mapping(value: object, got: str) -> Phrase:
    """Why a section is not a mapping: a key typed with a full-width colon (``budget_cny：20000``, as a
    Chinese input method writes it, is one string to YAML), else what was given."""
    if isinstance(value, str) and "：" in value:
        return Phrase(
            N_(
                "should be a mapping of keys, but {got} has a full-width colon '：' where YAML needs ':' "
                "(half-width)"
            ),
            got=got,
        )
    return Phrase(N_("should be a mapping of keys (key: value), not {got}"), got=got)


def _described(first: Any) -> tuple[str, str | Phrase | GpuplanError]:
    """One pydantic error entry as its field path (``inputs.batch_size: ``) and what is wrong."""
    # pydantic adds the tagged-union / function-validator name to loc; keep only field names.
    loc = tuple(p for p in first["loc"] if not (isinstance(p, str) and p.startswith("function-")))
    msg = str(first["msg"])
    for prefix in ("Value error, ", "Assertion failed, "):
        msg = msg.removeprefix(prefix)
    ctx = first.get("ctx") or {}
    got = _shown(first.get("input"))
    raised = ctx.get("error")
    problem: str | Phrase | GpuplanError = msg  # pydantic's or a validator's own words otherwise
    if isinstance(raised, ValueError) and len(raised.args) == 1 and str(raised) == msg:
        # A validator's ValueError carrying its words as a Phrase (or a gpuplan error) is shown in
        # the user's language.
        if isinstance(raised.args[0], Phrase | GpuplanError):
            problem = raised.args[0]
    elif first["type"] == "missing":
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
    elif first["type"] in _MAPPING_TYPES:
        problem = _not_a_mapping(first.get("input"), got)
    if isinstance(problem, str) and first["type"] in _PYDANTIC_WORDS:
        words = Phrase(_PYDANTIC_WORDS[first["type"]], got=got, **ctx)
        if str(words) == problem:
            problem = words
    # A whole-workload check already names its field at the start of its message.
    path = f"{_loc_path(loc)}: " if loc else ""
    return path, problem
