"""The one exception tree of gpuplan.

Every error the library raises on purpose derives from :class:`GpuplanError`. The CLI turns any of
them into one line on stderr and exit code 1; usage errors (bad flags) are Typer's and exit 2.
A message says what is wrong *and* how to fix it. Causes are chained with ``raise ... from e``.

    GpuplanError
    ├── NotFoundError            an unknown name (GPU, preset, provider, target …); carries suggestions
    │   ├── AmbiguousNameError   a name that matches several things; carries the choices
    │   └── UnknownChoiceError   a name outside one of gpuplan.vocab's lists (also an InputError)
    ├── ForbiddenError           what the caller's team may not change (another team's workload, plan)
    ├── InputError               a value the user gave is invalid (workload field, flag value, file)
    │   ├── WorkloadError        the workload spec is invalid or impossible (batch 0, seq too long …)
    │   └── UserCodeError        the user's own model code failed; carries its traceback text
    ├── DataError                catalog data is unusable (failed gates, unknown schema version …)
    │   └── CatalogImportError   an import that failed as a whole; the database is left unchanged
    ├── StoreError               the database cannot be opened, created or migrated
    ├── EstimateError            the workload cannot be traced or estimated
    ├── InfeasibleError          no option meets the constraints; says which constraint excludes what
    └── DeployError              launch files cannot be generated (bad plan file, existing output …)
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Self

__all__ = [
    "LIST_AT_MOST",
    "AbsentError",
    "AmbiguousNameError",
    "CatalogImportError",
    "DataError",
    "DeployError",
    "EstimateError",
    "ForbiddenError",
    "GpuplanError",
    "InfeasibleError",
    "InputError",
    "NotFoundError",
    "Option",
    "Phrase",
    "StoreError",
    "UnknownChoiceError",
    "UnpublishedRateError",
    "UserCodeError",
    "WorkloadError",
    "closest",
]


class Phrase:
    """A piece of an error message kept as its English template and fields: given as a field of
    :meth:`GpuplanError.worded`, it is written in the user's language with the rest of the line
    (``"must be {op} {bound} (got {got})"`` inside ``"{path}: {problem}"``)."""

    __slots__ = ("fields", "template")

    def __init__(self, template: str, /, **fields: object) -> None:
        self.template = template
        self.fields = MappingProxyType(dict(fields))

    def __str__(self) -> str:
        return self.template.format(**self.fields)

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


class Option(str):
    """A command-line option given as a field of a message (``"{flag} must be …"`` with
    ``flag=Option("--spot-price")``): a caller that names the options otherwise (the service's
    request fields) shows its own name for it, as for an option written in the message itself."""

    __slots__ = ()


#: An unknown name with no close match lists the known ones when there are at most this many.
LIST_AT_MOST = 12


class GpuplanError(Exception):
    """Base of every error gpuplan raises on purpose. ``str(e)`` is the one line shown to the user.

    An error made with :meth:`worded` also keeps its English template and fields, so that the CLI
    can write it in the user's language (``gpuplan.i18n.error_text``); this module stays below the
    message catalog.
    """

    #: The English template ``str(e)`` was formatted from, or "" when the message was given whole.
    template: str = ""
    #: The template's fields; a :class:`Phrase` among them is translated too.
    fields: Mapping[str, object] = MappingProxyType({})

    @classmethod
    def worded(cls, template: str, /, **fields: object) -> Self:
        """The error whose message is ``template.format(**fields)``, template and fields kept.

        ``template`` is a catalog message: mark it with ``N_()`` where it is written, so that
        ``tools/i18n.py`` extracts it.
        """
        error = cls(template.format(**fields))
        error.template = template
        error.fields = MappingProxyType(dict(fields))
        return error


class NotFoundError(GpuplanError):
    """A name that matches nothing. ``suggestions`` holds the nearest known names; ``hint`` is a
    catalog message, or a :class:`Phrase` when it holds data ("in 'fixed:replicas=x'")."""

    def __init__(
        self,
        kind: str,
        name: str,
        known: Iterable[str],
        hint: str | Phrase = "",
        suggestions: Sequence[str] | None = None,
        cutoff: float = 0.5,
    ) -> None:
        self.kind = kind
        self.name = name
        known = list(known)
        # The parts the message is made of, so that gpuplan.i18n can write it in the user's language.
        self.known: list[str] = known
        self.hint = hint
        self.suggestions: list[str] = (
            list(suggestions) if suggestions else closest(name, known, cutoff=cutoff)
        )
        msg = f"unknown {kind} {name!r}"
        if self.suggestions:
            msg += f"; did you mean {' or '.join(repr(s) for s in self.suggestions)}?"
        elif 0 < len(known) <= LIST_AT_MOST:
            msg += f"; use one of: {', '.join(known)}"
        if hint:
            msg += f" ({hint})"
        super().__init__(msg)


class AmbiguousNameError(NotFoundError):
    """A name that matches several things; ``choices`` lists them."""

    def __init__(self, kind: str, name: str, choices: Sequence[str]) -> None:
        self.kind = kind
        self.name = name
        self.choices = list(choices)
        self.suggestions = list(choices)
        self.known = list(choices)
        self.hint = ""
        GpuplanError.__init__(self, f"{kind} {name!r} is ambiguous; say which one: {', '.join(self.choices)}")


class InputError(GpuplanError):
    """A value the user gave is invalid."""

    #: The one value refused, by the name the library reads it under (``deadline``), where the
    #: error is about one value and its line begins with that name; None otherwise. A reader that
    #: names its values otherwise (the service's requests) names it its own way with ``problem``.
    field: str | None = None
    #: What is wrong with ``field``'s value, without its name (words or an error); None without it.
    problem: object = None

    def about(self, field: str, problem: object) -> Self:
        """This error, saying that it refuses ``field``'s value for ``problem``."""
        self.field = field
        self.problem = problem
        return self


class WorkloadError(InputError):
    """The workload spec is invalid or impossible."""


class UserCodeError(InputError):
    """The user's own model code raised. ``user_traceback`` is its traceback, shown apart from ours."""

    def __init__(self, message: str, user_traceback: str = "") -> None:
        super().__init__(message)
        self.user_traceback = user_traceback


class AbsentError(InputError):
    """What a request addresses by its id is not there (a saved plan, a discount to remove): the
    service answers 404, where a bad value is a 400."""


class ForbiddenError(GpuplanError):
    """What the caller asks to change is another team's (a saved workload, a saved plan): the
    service answers 403. The message names the owning team and what to do instead."""


class UnknownChoiceError(NotFoundError, InputError):
    """A name outside one of the closed lists of :mod:`gpuplan.vocab` (provider, pricing model …)."""


class DataError(GpuplanError):
    """Catalog or fixture data is unusable."""


class CatalogImportError(DataError):
    """An import failed as a whole; the database was left exactly as it was."""


class StoreError(GpuplanError):
    """The database cannot be opened, created or migrated."""


class EstimateError(GpuplanError):
    """The workload cannot be traced or estimated."""


class UnpublishedRateError(EstimateError):
    """The GPU has the units the workload's math runs on but no source gives their rate (the H20's
    FP8 tensor cores): its speed is unknown, not absent."""


class InfeasibleError(GpuplanError):
    """No option meets the constraints. The message names the binding constraint."""


class DeployError(GpuplanError):
    """Launch files cannot be generated."""


def closest(name: str, known: Iterable[str], n: int = 3, *, cutoff: float = 0.5) -> list[str]:
    """The up-to-``n`` known names nearest to ``name`` (case-insensitive), for "did you mean …".

    ``cutoff``: the least :class:`difflib.SequenceMatcher` ratio a suggestion needs. A higher one than
    the default 0.5 is for short names of companies (``autodl`` and ``runpod`` share half their
    letters and are different companies); with it, a name one typo away (a letter wrong, missing,
    extra, or two neighbours swapped: ``awz``, ``gpc``) or written short (its letters in order, the
    first the same: ``amz`` for ``amazon``) is still near, where the ratio of three letters cannot be.

    A name whose parts (split at ``-`` and ``_``) are a known name's in another order (``bf16-amp``
    for ``amp-bf16``) is that name written the other way round: it goes first, where spelling alone
    ranks a name that shares its first part nearer (``bf16``, a method without an fp32 master copy)."""
    known = list(known)
    by_lower = {k.lower(): k for k in known}
    lowered = name.lower()
    hits = difflib.get_close_matches(lowered, list(by_lower), n=n, cutoff=cutoff)
    if cutoff > 0.5 and len(lowered) >= 3:
        hits += [k for k in by_lower if k not in hits and (_one_typo(lowered, k) or _shortened(lowered, k))]
    # A name written with a letter for a digit that looks like it (``A1OO``) is that name: it goes
    # first, where spelling alone ranks a shorter one nearer (``A10``).
    alike = [k for k in by_lower if k != lowered and _looks_alike(lowered) == _looks_alike(k)]
    reordered = [k for k in by_lower if k != lowered and _reordered(lowered, k)]
    first = reordered + [k for k in alike if k not in reordered]
    hits = first + [h for h in hits if h not in first]
    return [by_lower[h] for h in hits[:n]]


def _parts(lowered: str) -> list[str]:
    """``lowered``'s parts between ``-`` and ``_``, in order, empty ones left out."""
    return [p for p in re.split(r"[-_]", lowered) if p]


def _reordered(a: str, b: str) -> bool:
    """``a`` is ``b``'s parts (:func:`_parts`, at least two) in another order or joined otherwise."""
    parts = _parts(a)
    return len(parts) > 1 and sorted(parts) == sorted(_parts(b))


#: Letters read as the digits they look like (O and 0, I or l and 1).
_LOOK_ALIKE = str.maketrans({"o": "0", "i": "1", "l": "1"})


def _looks_alike(lowered: str) -> str:
    """``lowered`` with each letter that looks like a digit written as that digit."""
    return lowered.translate(_LOOK_ALIKE)


def _one_typo(a: str, b: str) -> bool:
    """``a`` is ``b`` with one letter wrong, missing or extra, or two neighbouring letters swapped."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        swapped = (
            len(diff) == 2 and diff[1] == diff[0] + 1 and (a[diff[0]], a[diff[1]]) == (b[diff[1]], b[diff[0]])
        )
        return len(diff) == 1 or swapped
    short, long = sorted((a, b), key=len)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def _shortened(a: str, b: str) -> bool:
    """``a`` is ``b`` written short: ``b``'s letters in order, some left out, the first kept."""
    letters = iter(b)
    return len(a) < len(b) and a[0] == b[0] and all(c in letters for c in a)
