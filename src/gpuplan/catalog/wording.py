"""Pieces of catalog and commitment error lines that are written in the user's language.

Lists of names inside a message ("'a', 'b'", "'a' or 'b'") are joined by
:mod:`gpuplan.i18n.phrases`, so that Chinese joins them with its own marks (、 或) while ``str()``
stays the English join. :func:`not_found` gives an unknown-name error whose kind is
itself a sentence with data in it ("region of p4d.24xlarge"), which the plain kind words of
``gpuplan.i18n.error_text`` cannot name.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from types import MappingProxyType

from gpuplan.errors import LIST_AT_MOST, GpuplanError, NotFoundError, Phrase
from gpuplan.i18n.messages import N_
from gpuplan.i18n.phrases import either, listed

__all__ = ["Worded", "did_you_mean", "not_found"]

#: A piece of a line: a Phrase, an error (written as error_text writes it) or plain data.
Worded = Phrase | GpuplanError | str

_UNKNOWN = N_("unknown {kind} {name}{tail}")
_DID_YOU_MEAN = N_("; did you mean {names}?")
_USE_ONE_OF = N_("; use one of: {names}")


def did_you_mean(names: Sequence[str]) -> Worded:
    """``; did you mean 'a' or 'b'?`` for the names a refusal offers instead; "" where there are none."""
    return Phrase(_DID_YOU_MEAN, names=either(repr(n) for n in names)) if names else ""


def not_found(
    kind: Phrase, name: str, known: Iterable[str], suggestions: Sequence[str] | None = None
) -> NotFoundError:
    """A :class:`NotFoundError` for ``name`` among ``known`` whose kind is a Phrase with data in it:
    its English line is the usual one, and it is worded so that the kind translates too.
    ``suggestions``: the names to offer, where the caller knows nearer ones than spelling finds."""
    known = list(known)
    error = NotFoundError(str(kind), name, known, suggestions=suggestions or None)
    tail = did_you_mean(error.suggestions)
    if not tail and 0 < len(known) <= LIST_AT_MOST:
        tail = Phrase(_USE_ONE_OF, names=listed(known))
    # The same line NotFoundError wrote, kept as a template so that the kind translates too.
    error.template = _UNKNOWN
    error.fields = MappingProxyType({"kind": kind, "name": repr(name), "tail": tail})
    return error
