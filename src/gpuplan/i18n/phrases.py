"""Lists of names inside an error line, joined in the user's language.

``listed(["a", "b"])`` is ``a, b`` in English and ``a、b`` in Chinese (the enumeration comma: ``，``
parts clauses, not the items of a list); ``either(["'a'", "'b'"])``
is ``'a' or 'b'`` and ``'a' 或 'b'``. Each is an :class:`~gpuplan.errors.Phrase`, so it goes into
``XError.worded(...)`` as a field and is written with the rest of the line by
:func:`gpuplan.i18n.error_text.error_text`; ``str()`` of it is the English, byte for byte the same
as ``", ".join(names)`` / ``" or ".join(names)``. The names themselves are data and stay as given.
:func:`item_list` is ``listed`` for a report's text, written at once in the current language;
:func:`sentences` joins translated sentences into a paragraph (no space after a Chinese 。);
:func:`bracketed` puts a word about a name after it in brackets (Chinese: full-width （）).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from gpuplan.errors import Phrase
from gpuplan.i18n.messages import N_, _

__all__ = [
    "MORE_NAMED",
    "also_problems",
    "alternatives",
    "bracketed",
    "either",
    "item_list",
    "listed",
    "sentences",
    "separated",
]

# The items of a list are joined as gpuplan.i18n.error_text joins the names of an unknown-name line
# (one catalog entry: Chinese 、); the catalog's ", " (Chinese ，) is for clauses and a row's notes.
_AND_ONE_MORE = N_("{names}, {name}")
# TRANSLATORS: the separator between alternatives ("'a' or 'b'"); Chinese: " 或 "
_OR_SEPARATOR = N_(" or ")
_OR_ONE_MORE = N_("{names} or {name}")
# TRANSLATORS: the separator between whole clauses ("line 3: …; line 7: …"); Chinese: ；
_CLAUSE_SEPARATOR = N_("; ")


def listed(names: Iterable[object]) -> Phrase:
    """``names`` joined by ", " (Chinese: 、)."""
    return _joined(names, Phrase(_AND_ONE_MORE, names="", name=""))


def item_list(names: Iterable[object]) -> str:
    """``names`` joined by ", " (Chinese: 、) in the current language: the items of a list in a
    report's text (providers, GPUs, pricing models), where ``_(", ")`` (Chinese ，) parts clauses."""
    return _(_AND_ONE_MORE).format(names="", name="").join(str(n) for n in names)


def either(names: Iterable[object]) -> Phrase:
    """``names`` joined by " or " (Chinese: 或)."""
    return _joined(names, Phrase(_OR_SEPARATOR))


def alternatives(names: Iterable[object]) -> Phrase | str:
    """``names`` as "a, b or c" (Chinese: a、b 或 c): any one of them; the one name itself when one."""
    items = list(names)
    if len(items) < 2:
        # a Phrase (a pricing model's name) is written in the reader's language with its line
        return items[0] if items and isinstance(items[0], Phrase) else str(items[0]) if items else ""
    return Phrase(_OR_ONE_MORE, names=listed(items[:-1]), name=items[-1])


def separated(clauses: Iterable[object]) -> Phrase:
    """``clauses`` (each a sentence of its own, commas in it) joined by "; " (Chinese: ；)."""
    return _joined(clauses, Phrase(_CLAUSE_SEPARATOR))


def _joined(names: Iterable[object], separator: Phrase) -> Phrase:
    # A flat template ("{n0}{sep}{n1}…"), not one Phrase per name nested in the next: a list of a
    # thousand names must not nest a thousand deep. The template itself is no catalog message, so
    # it is kept as is in every language; only the separator is translated.
    items = {f"n{i}": name for i, name in enumerate(names)}
    template = "{sep}".join(f"{{{key}}}" for key in items)
    return Phrase(template, sep=separator, **items)


#: Sentence ends after which a language puts no space before the next sentence (Chinese: 。), and
#: the full-width closing bracket, which carries its own space ("（截至 2026-11-01）警告：…").
_FULL_WIDTH_ENDS = ("。", "！", "？", "：", "）")


def sentences(*parts: str) -> str:
    """Translated sentences as one paragraph: a space between them, none after a full-width end; an
    empty part ("" where a sentence does not apply) adds nothing."""
    text = ""
    for part in filter(None, parts):
        text += part if not text or text.endswith(_FULL_WIDTH_ENDS) else f" {part}"
    return text


# TRANSLATORS: a name and a word about it in brackets, "students (notebook)", "2023-06 (3.5 yr)";
# Chinese uses the full-width brackets: "{text}（{inside}）"
_BRACKETED = N_("{text} ({inside})")


def bracketed(text: object, inside: object) -> str:
    """``text (inside)`` in the current language: Chinese writes ``text（inside）``, full-width
    brackets and no space (a Chinese table had said "students (笔记本)")."""
    return _(_BRACKETED).format(text=text, inside=inside)


_T = TypeVar("_T")

#: Problems a refusal names after its first, in its "(also …)"; any beyond them are counted.
MORE_NAMED = 4


def also_problems(rest: Sequence[_T], described: Callable[[_T], object]) -> Phrase | str:
    """The end of a refusal that names its first problem: the problems after it, ``rest``, each as
    ``described`` words it, " (also serving.schedule.days: …; serving.schedule.time_zone: …)", any
    past :data:`MORE_NAMED` of them counted ("…; and 3 more problems)"); "" where there is none. A
    workload file's and a plan file's refusals end alike: a count alone had left the others to be
    found one fix at a time."""
    named: list[object] = [described(problem) for problem in rest[:MORE_NAMED]]
    if len(rest) > MORE_NAMED:
        named.append(Phrase(N_("and {more} more problems"), more=len(rest) - MORE_NAMED))
    return Phrase(N_(" (also {problem})"), problem=separated(named)) if named else ""
