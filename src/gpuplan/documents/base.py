"""The base of every JSON document model: strict keys, finite numbers, one way to write JSON.

gpuplan writes documents (``--json``) and reads some back (``deploy`` reads a plan file, which may
come from someone else). Writing, a NaN or infinity that a computation produced becomes ``null``
(strict JSON has no such numbers). Reading, one is refused: :meth:`Document.read` validates in the
reading context, where a non-finite number in any field — a float, or a string such as
``"Infinity"`` that pydantic would turn into one — is an error located at that field, and so is a
``true``/``false`` where the field holds no boolean (pydantic would read ``true`` as 1).
"""

from __future__ import annotations

import math
from enum import Enum
from types import UnionType
from typing import Annotated, Any, Literal, Self, Union, get_args, get_origin

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from gpuplan.errors import Phrase
from gpuplan.i18n.messages import N_
from gpuplan.i18n.phrases import item_list
from gpuplan.units import as_typed

__all__ = ["READING", "Count", "Document", "ExchangeRateDoc", "HostKind", "finite", "refuse_boolean"]

#: The validation context key that marks a document being read from a file.
READING = "gpuplan_reading"


def finite(x: Any) -> Any:
    """``x`` with every NaN/inf float replaced by None, so that the document is strict JSON."""
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [finite(v) for v in x]
    return x


def _whole(x: Any) -> Any:
    """A whole float as an int (``8.0`` -> ``8``), so that counts are written as integers."""
    if isinstance(x, float) and math.isfinite(x) and x == int(x):
        return int(x)
    return x


#: A count that is an integer except where a fraction is real (a GPU partition: 1/6 of an A10):
#: whole values are written as integers.
Count = Annotated[int | float, BeforeValidator(_whole)]
#: A :data:`Count` above zero. The bound is on each member of the union: given on the field, pydantic
#: (2.14) writes it into the JSON Schema as "gt", which is not JSON Schema's "exclusiveMinimum".
PositiveCount = Annotated[
    Annotated[int, Field(gt=0)] | Annotated[float, Field(gt=0)], BeforeValidator(_whole)
]
#: What an offer's price rents, as its provider's terms state it (``OfferTerms.host`` in
#: ``gpuplan.catalog.providers.base``): a plan's option and an ``offers`` item say it alike.
HostKind = Literal["cloud_vm", "bare_metal", "secure_cloud", "community_host", "resold"]


def _has_non_finite(x: Any) -> bool:
    """True if ``x`` is or holds a NaN/inf float (nested documents check their own fields)."""
    if isinstance(x, float):
        return not math.isfinite(x)
    if isinstance(x, dict):
        return any(_has_non_finite(v) for v in x.values())
    if isinstance(x, (list, tuple, set, frozenset)):
        return any(_has_non_finite(v) for v in x)
    return False


def _admits_bool(annotation: Any) -> bool:
    """True if a field of this type may hold ``True``/``False`` (bool, Any, a union with either)."""
    if annotation is bool or annotation is Any:
        return True
    origin = get_origin(annotation)
    if origin is Annotated:
        return _admits_bool(get_args(annotation)[0])
    if origin is Literal:
        return any(isinstance(a, bool) for a in get_args(annotation))
    if origin in (Union, UnionType):
        return any(_admits_bool(a) for a in get_args(annotation))
    return False


def refuse_boolean(model: type[BaseModel], value: Any, info: ValidationInfo) -> Any:
    """``value`` unless it is ``true``/``false`` given for a field that holds no boolean: pydantic
    reads ``true`` as 1 where a number is expected (a plan's ``"schema_version": true``, a
    workload's ``batch_size: true``), and JSON and YAML booleans are not numbers."""
    if isinstance(value, bool) and info.field_name is not None:
        field = model.model_fields.get(info.field_name)
        if field is not None and not _admits_bool(field.annotation):
            said = str(value).lower()
            if _admits_number(field.annotation):
                raise ValueError(Phrase(N_("{value} is not a number; write the number itself"), value=said))
            names = _choices(field.annotation)
            if names:
                # a field of named choices: the names it takes, so that the value can be written
                raise ValueError(
                    Phrase(N_("{value} is not one of the names it takes: {names}"), value=said, names=names)
                )
            # a name or text field (a usage file's currency: true had been called "not a number")
            raise ValueError(Phrase(N_("{value} is not a name or text; write the value itself"), value=said))
    if isinstance(value, str) and info.field_name is not None:
        field = model.model_fields.get(info.field_name)
        if field is not None and _admits_number(field.annotation):
            return as_typed(value)  # a number typed full-width (hours_per_month: ３００): ASCII digits
    return value


def _choices(annotation: Any) -> str:
    """The names a field of one enumeration takes (``none, full, selective``), or ``""`` for a
    field of any other type."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _choices(get_args(annotation)[0])
    if origin in (Union, UnionType):
        found = [n for n in (_choices(a) for a in get_args(annotation)) if n]
        return found[0] if len(found) == 1 else ""
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return item_list(str(m.value) for m in annotation)
    return ""


def _admits_number(annotation: Any) -> bool:
    """True if a field of this type holds a number (int, float, or a union or Annotated with one)."""
    if annotation in (int, float):
        return True
    origin = get_origin(annotation)
    if origin is Annotated:
        return _admits_number(get_args(annotation)[0])
    if origin in (Union, UnionType):
        return any(_admits_number(a) for a in get_args(annotation))
    return False


def _reading(info: ValidationInfo) -> bool:
    return isinstance(info.context, dict) and bool(info.context.get(READING))


class Document(BaseModel):
    """A part of a published document: unknown keys are refused (a typo in a writer, or a file
    from elsewhere that is not what it claims); NaN/inf become null when written and are refused
    when read (:meth:`read`)."""

    # The fields' attribute docstrings become their schema descriptions only when a schema is
    # rendered (documents/descriptions.py), not through use_attribute_docstrings at every import.
    model_config = ConfigDict(extra="forbid", frozen=True)

    @model_validator(mode="before")
    @classmethod
    def _finite(cls, data: Any, info: ValidationInfo) -> Any:
        return data if _reading(info) else finite(data)

    @field_validator("*", mode="before")
    @classmethod
    def _refuse_booleans_when_read(cls, value: Any, info: ValidationInfo) -> Any:
        return refuse_boolean(cls, value, info) if _reading(info) else value

    @field_validator("*", mode="after")
    @classmethod
    def _refuse_non_finite_when_read(cls, value: Any, info: ValidationInfo) -> Any:
        if _reading(info) and _has_non_finite(value):
            # A Phrase as the ValueError's words: a reader can show them in the user's language.
            raise ValueError(Phrase(N_("must be a finite number, not NaN or infinity")))
        return value

    @model_validator(mode="after")
    def _refuse_non_finite_extras_when_read(self, info: ValidationInfo) -> Self:
        # Parts that keep unknown keys (extra="allow": the workload a plan carries) hold them
        # outside the fields; they are read from the same file.
        if _reading(info):
            for key, value in (self.__pydantic_extra__ or {}).items():
                if _has_non_finite(value):
                    raise ValueError(
                        Phrase(N_("{key}: must be a finite number, not NaN or infinity"), key=key)
                    )
        return self

    @classmethod
    def read(cls, data: Any) -> Self:
        """``data`` parsed from a file, validated: as ``model_validate``, and every number finite
        (a :class:`pydantic.ValidationError` locates the first that is not)."""
        return cls.model_validate(data, context={READING: True})

    def to_json(self) -> str:
        """The document as the CLI writes it: indented, keys in declaration order, a final newline."""
        return self.model_dump_json(indent=2) + "\n"


class ExchangeRateDoc(Document):
    """The dated rate a document's CNY figures were converted at (``_cny_`` fields from ``_usd_``
    ones and back): stated once per document, with where it comes from."""

    currency: str
    """The currency converted to and from USD (``CNY``)."""
    usd_per_unit: float
    """US dollars per one unit of ``currency`` (about 0.14 for CNY)."""
    units_per_usd: float
    """Units of ``currency`` per US dollar (about 7.2 for CNY), the way the rate is quoted in China."""
    as_of: str | None
    source: str | None
    """The rate's source: the catalog's dated CFETS central parity or ECB reference rate (``catalog
    refresh``), or ``user`` for a rate given with ``--usd-per-cny``/``--cny-per-usd``."""
    age_days: Count | None = None
    """Days from ``as_of`` to the day of the run; None when ``as_of`` is not a day."""
    stale: bool = False
    """Older than ``stale_after_days`` (or not dated to the day): the converted figures may be off
    by what the rate has moved since."""
    stale_after_days: Count | None = None
    """The age past which a rate is flagged (30 days)."""
    warning: str | None = None
    """The warning the tables print when ``stale``, in the output's language; None when fresh."""
