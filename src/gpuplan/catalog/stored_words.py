"""A line kept in the database in no language: its English templates and their fields, as JSON,
written in the reader's language when it is read.

A refresh's outcome (``refresh_runs``) is read later, by whoever runs ``catalog info``: kept as the
text of the language the refresh ran in, a refresh run with ``--lang zh`` had shown Chinese to an
English reader. The line is built of :class:`~gpuplan.errors.Phrase` objects, errors, and the two
pieces below (a plural, a piece cut to a length), and :func:`dump` / :func:`load` keep that tree.
Under English it reads as it did.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from gpuplan.bounded import printable
from gpuplan.errors import GpuplanError, NotFoundError, Phrase
from gpuplan.i18n.error_text import phrase_text
from gpuplan.i18n.messages import Language, ngettext, use_language

__all__ = ["Cut", "Plural", "dump", "english", "load"]


class Plural:
    """A message with a plural (``ngettext``), written in the language current when it is shown."""

    __slots__ = ("fields", "n", "plural", "singular")

    def __init__(self, singular: str, plural: str, n: int, /, **fields: object) -> None:
        self.singular, self.plural, self.n = singular, plural, n
        self.fields = dict(fields)

    def __str__(self) -> str:
        shown = {
            k: phrase_text(v) if isinstance(v, Phrase | GpuplanError) else v for k, v in self.fields.items()
        }
        return ngettext(self.singular, self.plural, self.n).format(**shown)

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


class Cut:
    """A piece on one line of at most ``limit`` characters, control characters escaped, cut when
    shown (its length is that of the language it is shown in)."""

    __slots__ = ("limit", "of")

    def __init__(self, of: object, limit: int) -> None:
        self.of, self.limit = of, limit

    def __str__(self) -> str:
        # escaped as every other name from elsewhere is (bounded.printable): a control, format or
        # line-separator character; a full-width or no-break space is text, not escaped
        out = printable(" ".join(phrase_text(self.of).split("\n")))
        return out if len(out) <= self.limit else out[: self.limit - 1] + "…"

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


def english(worded: object) -> str:
    """``worded`` written in English."""
    with use_language(Language.EN):
        return phrase_text(worded)


def _tree(value: object) -> Any:
    if isinstance(value, Phrase):
        return {"phrase": value.template, "fields": _fields(value.fields)}
    if isinstance(value, Plural):
        return {"plural": [value.singular, value.plural], "n": value.n, "fields": _fields(value.fields)}
    if isinstance(value, Cut):
        return {"cut": value.limit, "of": _tree(value.of)}
    if (
        isinstance(value, GpuplanError)
        and value.template
        and value.template.format(**value.fields) == str(value)
    ):
        return {"phrase": value.template, "fields": _fields(value.fields)}
    if isinstance(value, Exception) and len(value.args) == 1 and isinstance(value.args[0], Phrase):
        return _tree(value.args[0])  # a fetcher's MissingCredentialsError(Phrase(…))
    if type(value) is NotFoundError and not value.template:
        return {
            "not_found": {
                "kind": value.kind,
                "name": value.name,
                "known": value.known,
                "hint": _tree(value.hint),
                "suggestions": value.suggestions,
            }
        }
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    return str(value)  # data (a name, a path) or an error with no parts: its English text


def _fields(fields: Mapping[str, object]) -> dict[str, Any]:
    return {k: _tree(v) for k, v in fields.items()}


def dump(worded: object) -> str:
    """``worded`` (a Phrase, Plural, Cut, error or text) as JSON."""
    return json.dumps(_tree(worded), ensure_ascii=False, allow_nan=False, sort_keys=True)


def _value(tree: Any) -> object:
    if not isinstance(tree, dict):
        return tree
    fields = {k: _value(v) for k, v in tree.get("fields", {}).items()}
    if "phrase" in tree:
        return Phrase(str(tree["phrase"]), **fields)
    if "plural" in tree:
        singular, plural = tree["plural"]
        return Plural(str(singular), str(plural), int(tree["n"]), **fields)
    if "cut" in tree:
        return Cut(_value(tree["of"]), int(tree["cut"]))
    nf = tree["not_found"]
    hint = _value(nf["hint"])
    return NotFoundError(
        nf["kind"],
        nf["name"],
        nf["known"],
        hint=hint if isinstance(hint, Phrase) else str(hint),
        suggestions=nf["suggestions"],
    )


def load(text: str) -> object:
    """What :func:`dump` kept, to be written with :func:`~gpuplan.i18n.error_text.phrase_text`."""
    return _value(json.loads(text))
