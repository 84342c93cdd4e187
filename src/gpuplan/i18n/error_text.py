"""The line a user reads for an error, in the current language.

The exception tree (:mod:`gpuplan.errors`) sits below the message catalog, so its messages are
English. An error made with :meth:`~gpuplan.errors.GpuplanError.worded` keeps its template and
fields; the errors that carry their parts (:class:`~gpuplan.errors.NotFoundError` and its
subclasses: kind, name, suggestions, known names, hint) are written again from those parts. Both go
through the catalog. Any other error, or one whose English text is not what its parts make, is
shown as raised. Under English the line is ``str(error)``, byte for byte.

A message names the command line's options (``--timeout-s must be …``). A caller that names them
otherwise gives ``names`` (the service: ``{"--timeout-s": "timeout_s"}``, its request's fields):
the worded error's options are then written as the caller sent them, in the message's own words
and where a field is an :class:`~gpuplan.errors.Option`. A command quoted to be run
(```gpuplan offers --gpu H100```) and the error's data keep their flags.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence

from gpuplan.errors import LIST_AT_MOST, AmbiguousNameError, GpuplanError, NotFoundError, Option, Phrase
from gpuplan.i18n.countries import CountryName
from gpuplan.i18n.messages import N_, Language, _, current_language, use_option_names

__all__ = ["KIND_WORDS", "error_text", "phrase_text"]

#: What the library calls the things a name can fail to match (``NotFoundError.kind``): catalog
#: messages, so that "unknown provider …" names the kind in the user's language. A kind not listed
#: here is shown as written.
KIND_WORDS = (
    N_("provider"),
    N_("GPU"),
    N_("GPU count"),
    N_("currency"),
    N_("preset"),
    N_("pricing model"),
    N_("objective"),
    N_("deploy target"),
    N_("country"),
    N_("region"),
    N_("instance type"),
    N_("instance family"),
    N_("language"),
    N_("commitment"),
    N_("upfront payment"),
    N_("host rule"),
    N_("price unit"),
    N_("confidence"),
    N_("task"),
    N_("precision"),
    N_("optimizer"),
    N_("loss"),
    N_("base quantization"),
    N_("adapter dtype"),
    N_("parallelism"),
    N_("activation checkpointing"),
    N_("attention"),
    N_("stack level"),
    N_("memory format"),
    N_("input pipeline"),
    N_("fused kernel"),
    N_("tensor-parallel plan"),
    N_("serving engine"),
    N_("constraint"),
    N_("sharing"),
    N_("MIG profile"),
    N_("trace shape"),
    N_("policy kind"),
    N_("policy key"),
    N_("replica key"),
    N_("sort key"),
    N_("scope"),
    N_("plan status"),
    N_("SLO metric"),
    N_("engine setting"),
    N_("saved workload"),
    N_("recording id"),
    N_("token"),
    N_("team"),
    N_("weekday"),
    N_("time zone"),
    # a notebook group's (simulate share)
    N_("notebook kind"),
    N_("holds_memory"),
    # The files gpuplan.bounded.read_text names ("cannot read workload file …").
    N_("workload file"),
    N_("plan file"),
    N_("policies file"),
    N_("price file"),
    N_("services file"),
    N_("usage file"),
    N_("trace"),
)

# The message shapes of gpuplan.errors.NotFoundError and AmbiguousNameError, as they are in English.
_UNKNOWN = N_("unknown {kind} {name}")
_DID_YOU_MEAN = N_("; did you mean {names}?")
_USE_ONE_OF = N_("; use one of: {names}")
_HINT = N_(" ({hint})")
_AMBIGUOUS = N_("{kind} {name} is ambiguous; say which one: {choices}")
# TRANSLATORS: joins one more name to a list ("'a', 'b'"); Chinese uses 、
_AND_ONE_MORE = N_("{names}, {name}")
# TRANSLATORS: joins one more suggestion to the ones before ("'a' or 'b'")
_OR_ONE_MORE = N_("{names} or {name}")


def error_text(error: BaseException, names: Mapping[str, str] | None = None) -> str:
    """``error``'s one line for the user, in the current language; ``names``: what the reader
    calls the command's options (``--slo`` → ``slo``), None for the command line's own flags."""
    english = str(error)
    if current_language() is Language.EN and not names:
        return english
    # every message of the line (a hint of an unknown name too) names the options as the reader does
    with use_option_names(names) if names else contextlib.nullcontext():
        if isinstance(error, GpuplanError) and error.template:
            return _worded_text(error, english, names)
        if not isinstance(error, NotFoundError):
            return english
        # Only an error whose text is exactly what its parts make is rewritten (a subclass or a
        # caller that words its own message keeps it).
        if _not_found_text(error, _same) != english:
            return english
        return _not_found_text(error, _)


def _worded_text(error: GpuplanError, english: str, names: Mapping[str, str] | None = None) -> str:
    """An error made with ``GpuplanError.worded``: its template and its Phrase fields translated."""
    if error.template.format(**error.fields) != english:  # its text was changed after it was made
        return english
    # _() names the options as the reader does (error_text set the names for the line)
    return _(error.template).format(**_translated_fields(error.fields, names))


def _translated_fields(
    fields: Mapping[str, object], names: Mapping[str, str] | None = None
) -> dict[str, object]:
    """``fields`` with each Phrase written in the current language (its own Phrase fields too) and
    each error among them given as :func:`error_text` words it (an error that wraps another)."""
    return {name: _translated(value, names) for name, value in fields.items()}


def phrase_text(value: object) -> str:
    """A piece of a line outside an error (a Phrase, an error, or plain data) in the current language."""
    return str(_translated(value))


def _translated(value: object, names: Mapping[str, str] | None = None) -> object:
    if isinstance(value, Option):
        return names.get(value, value) if names else value
    if isinstance(value, CountryName):
        return value.translated()
    if isinstance(value, Phrase) and value.template:
        return _(value.template).format(**_translated_fields(value.fields, names))
    if isinstance(value, GpuplanError):
        return error_text(value, names)
    if (
        isinstance(value, Exception)
        and len(value.args) == 1
        and isinstance(value.args[0], Phrase | GpuplanError)
    ):
        # a validator's ValueError(Phrase(...)) wrapped by a caller ("deadline: {why}")
        return _translated(value.args[0], names) if str(value) == str(value.args[0]) else value
    return value


def _same(message: str) -> str:
    return message


def _not_found_text(error: NotFoundError, tr: Callable[[str], str]) -> str:
    """The message of ``error`` from its parts, each English template passed through ``tr``."""
    kind = tr(error.kind) if error.kind else error.kind  # gettext("") is the catalog's header
    name = repr(error.name)
    if isinstance(error, AmbiguousNameError):
        choices = _join(error.choices, tr(_AND_ONE_MORE))
        return tr(_AMBIGUOUS).format(kind=kind, name=name, choices=choices)
    text = tr(_UNKNOWN).format(kind=kind, name=name)
    if error.suggestions:
        names = _join([repr(s) for s in error.suggestions], tr(_OR_ONE_MORE))
        text += tr(_DID_YOU_MEAN).format(names=names)
    elif 0 < len(error.known) <= LIST_AT_MOST:
        text += tr(_USE_ONE_OF).format(names=_join(error.known, tr(_AND_ONE_MORE)))
    if error.hint:
        hint = error.hint  # a hint with data in it is a Phrase, translated with its fields
        shown = _translated(hint) if isinstance(hint, Phrase) and tr is _ else tr(str(hint))
        text += tr(_HINT).format(hint=shown)
    return text


def _join(names: Sequence[str], pattern: str) -> str:
    """``names`` joined two by two with ``pattern`` (``"{names}, {name}"``), already translated."""
    if not names:
        return ""
    text = names[0]
    for name in names[1:]:
        text = pattern.format(names=text, name=name)
    return text
