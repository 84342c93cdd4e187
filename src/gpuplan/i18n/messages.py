"""The message catalog: English source strings, Chinese from ``locale/zh/LC_MESSAGES/gpuplan.mo``.

The language is a context variable, not a process-wide switch: the CLI sets it once per command
from ``--lang`` or the locale, tests and libraries scope it with :func:`use_language`. So is what the
reader calls the command's options: a message that says "give --instance" reads "give instance" to
a caller of the service, whose request has a field of that name (:func:`use_option_names`).
"""

from __future__ import annotations

import gettext
import re
import string
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar, Token
from enum import Enum
from functools import cache
from pathlib import Path

from gpuplan.errors import NotFoundError

__all__ = [
    "DOMAIN",
    "LOCALE_DIR",
    "N_",
    "Language",
    "_",
    "current_language",
    "language_from_locale",
    "ngettext",
    "options_named",
    "reader_gives",
    "set_language",
    "use_language",
    "use_option_names",
]

DOMAIN = "gpuplan"
LOCALE_DIR = Path(__file__).parent / "locale"


#: What Chinese readers type for their language that is not its code (the country's, the name).
_CHINESE_NAMES = frozenset({"cn", "chs", "chinese", "中文", "汉语", "zhongwen", "hans"})


class Language(str, Enum):
    """A language gpuplan writes in."""

    EN = "en"
    ZH = "zh"

    @classmethod
    def cast(cls, value: str | Language) -> Language:
        """``en``, ``zh``, or a locale name such as ``zh_CN.UTF-8``, ``zh-Hans``, ``en_US``."""
        if isinstance(value, cls):
            return value
        text = str(value).strip().lower().replace("-", "_")
        head = text.split(".")[0].split("_")[0]
        for member in cls:
            if head == member.value:
                return member
        # "cn" names the country, not the language: the nearest spelling ('en') was the wrong hint
        known = [m.value for m in cls]
        if head in _CHINESE_NAMES:
            raise NotFoundError("language", str(value), known, suggestions=["zh"])
        raise NotFoundError("language", str(value), known)


_current: ContextVar[Language] = ContextVar("gpuplan_language", default=Language.EN)


def current_language() -> Language:
    """The language messages are written in right now."""
    return _current.get()


def set_language(language: str | Language) -> Token[Language]:
    """Write messages in ``language`` from now on in this context (the CLI's per-command switch)."""
    return _current.set(Language.cast(language))


@contextmanager
def use_language(language: str | Language) -> Iterator[Language]:
    """Write messages in ``language`` inside the ``with`` block."""
    token = set_language(language)
    try:
        yield _current.get()
    finally:
        _current.reset(token)


def language_from_locale(environ: Mapping[str, str]) -> Language:
    """The language the user's locale asks for (``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``).

    The caller passes the environment (only the CLI reads it). Unknown or ``C``/``POSIX`` locales
    give English.
    """
    for key in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(key, "")
        # LANGUAGE may hold a priority list, "zh_CN:en".
        for part in value.split(":"):
            if not part or part in ("C", "POSIX") or part.startswith("C."):
                continue
            try:
                return Language.cast(part)
            except NotFoundError:
                continue
        if value:
            return Language.EN
    return Language.EN


@cache
def _translations(language: Language) -> gettext.NullTranslations:
    if language is Language.EN:
        return gettext.NullTranslations()  # the source strings are English
    return gettext.translation(DOMAIN, localedir=LOCALE_DIR, languages=[language.value])


#: What the reader calls the command's options (``--instance`` → ``instance``); None: the command
#: line's own flags.
_option_names: ContextVar[Mapping[str, str] | None] = ContextVar("gpuplan_option_names", default=None)


@contextmanager
def use_option_names(names: Mapping[str, str] | None) -> Iterator[None]:
    """Inside the ``with`` block, messages name the command's options as ``names`` does (the
    service's request fields); an option ``names`` does not know keeps its flag."""
    token = _option_names.set(names)
    try:
        yield
    finally:
        _option_names.reset(token)


def reader_gives(option: str) -> bool:
    """Whether the reader of this context can give ``option`` (``--cny-per-usd``): on the command line
    every flag; a caller of the service only those its request names (:func:`use_option_names`). A
    message leaves out a remedy its reader cannot take."""
    names = _option_names.get()
    return names is None or option in names


#: An option as a message writes it (``--spot-notice-s``), not inside a longer word; ASCII word
#: characters only (a Chinese message may write one right after a character: "给出--slo").
_OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*", re.ASCII)


def options_named(template: str, names: Mapping[str, str] | None) -> str:
    """``template`` (a message, never the user's data) with each option ``names`` knows named so;
    a command in backticks, to be run as written, keeps its flags — unless ``names`` names the
    whole command (``gpuplan gpus`` → ``GET /api/v1/gpus``: what the service's caller does instead)."""
    if not names or ("--" not in template and "`gpuplan " not in template):
        return template
    parts = template.split("`")
    parts[::2] = [_OPTION.sub(lambda m: names.get(m.group(0), m.group(0)), part) for part in parts[::2]]
    parts[1::2] = [names.get(part, part) for part in parts[1::2]]
    return "`".join(parts)


#: Han characters, CJK punctuation (、。「」) and the full-width forms (，：；（）).
_CJK = re.compile("[\u4e00-\u9fff\u3000-\u303f\uff00-\uffef]")
_FORMATTER = string.Formatter()


class ChineseMessage(str):
    """A message in Chinese, whose :meth:`format` joins what it puts in as Chinese is written: a
    space the message keeps beside a placeholder (for a Latin word or a number, "在 {gpu} 上") is
    dropped where the value put there is Chinese on that side and the message is Chinese on the
    other ("{sharing} 上的笔记本" had read "整卡 上的笔记本"), and before a percent sign after a
    number ("{pct} %" reads "80%"). The message's own text and the values are kept as they are."""

    __slots__ = ()

    def format(self, /, *args: object, **kwargs: object) -> str:
        pieces: list[tuple[str, bool]] = []  # (text, whether it is a value put in)
        auto = 0
        for literal, field, spec, conversion in _FORMATTER.parse(str(self)):
            if literal:
                pieces.append((literal, False))
            if field is None:
                continue
            if field == "":
                field, auto = str(auto), auto + 1
            obj, _used = _FORMATTER.get_field(field, args, kwargs)
            obj = _FORMATTER.convert_field(obj, conversion)
            spec = _FORMATTER.vformat(spec, args, kwargs) if spec else ""
            pieces.append((_FORMATTER.format_field(obj, spec), True))
        return "".join(_tightened(pieces))


def _tightened(pieces: list[tuple[str, bool]]) -> list[str]:
    """The message's literal pieces without the spaces :class:`ChineseMessage` drops next to a
    value put in."""
    out: list[str] = []
    for i, (text, value) in enumerate(pieces):
        before = pieces[i - 1] if i and pieces[i - 1][1] else None
        after = pieces[i + 1] if i + 1 < len(pieces) and pieces[i + 1][1] else None
        if value or not (before or after):
            out.append(text)
            continue
        core = text.strip(" ")
        # what stands on the far side of the spaces: the message's own text, or the next value
        first = core[:1] or (after[0][:1] if after else "")
        last = core[-1:] or (before[0][-1:] if before else "")
        if before and before[0] and _tight(before[0][-1], first):
            text = text.lstrip(" ")
        if after and after[0] and text and _tight(last, after[0][0]):
            text = text.rstrip(" ")
        out.append(text)
    return out


def _tight(left: str, right: str) -> bool:
    """Whether Chinese writes ``left`` and ``right`` with no space between them."""
    return bool(left and right) and (
        (bool(_CJK.match(left)) and bool(_CJK.match(right))) or (left.isdigit() and right == "%")
    )


def _in_language(text: str) -> str:
    """``text`` as :func:`_` returns it: a :class:`ChineseMessage` in Chinese."""
    return ChineseMessage(text) if _current.get() is Language.ZH else text


def _(message: str) -> str:
    """``message`` (English source text) in the current language, its options named as the reader
    calls them (:func:`use_option_names`)."""
    return _in_language(options_named(_translations(_current.get()).gettext(message), _option_names.get()))


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural form for ``n``, in the current language."""
    translated = _translations(_current.get()).ngettext(singular, plural, n)
    return _in_language(options_named(translated, _option_names.get()))


def N_(message: str) -> str:
    """Mark ``message`` for the catalog without translating it (constants defined at import)."""
    return message
