"""Line breaks for Chinese in Rich's text: between any two Chinese characters, as well as at spaces.

Rich wraps only at spaces: a run of Chinese has none, so a table cell of Chinese is one "word" that
Rich moves whole to the next line or folds anywhere (``最多 6.6 年`` came out as ``最`` / ``多 6.6
年``). The pieces here are the breaking units: Latin words (kept whole), single Chinese characters
(a closing mark such as ，。） joined to the character before it, an opening one to the one after:
the common kinsoku rules) and runs of spaces. The help screen (``cli/_help_layout``) and the house
tables (``report/common``) wrap with them; text without a Chinese character is left to Rich, byte
for byte.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.measure import Measurement
from rich.text import Text

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, JustifyMethod, OverflowMethod, RenderResult
    from rich.containers import Lines

__all__ = ["WIDE", "CjkCell", "cjk_renderable", "cjk_text", "has_wide", "pieces"]

_WIDE_CHARS = "\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f"
#: A Chinese (or full-width) character: a line may break before and after each one.
WIDE = re.compile(f"[{_WIDE_CHARS}]")
#: Marks that may not start a line / may not end one (the common kinsoku rules of Chinese).
_NO_START = set("，。、；：？！）」』】》〉…—%·")
_NO_END = set("（「『【《〈")
_PIECE = re.compile(rf"\s+|[{_WIDE_CHARS}]|[^\s{_WIDE_CHARS}]+")


def has_wide(text: str) -> bool:
    """Whether ``text`` holds a Chinese (or full-width) character."""
    return WIDE.search(text) is not None


def pieces(text: str) -> list[str]:
    """``text`` as unbreakable pieces: Latin words, single Chinese characters (a closing mark
    joined to the character before it, an opening mark to the one after) and runs of spaces."""
    out: list[str] = []
    for piece in _PIECE.findall(text):
        if out and not out[-1].isspace() and (piece[0] in _NO_START or out[-1][-1] in _NO_END):
            out[-1] += piece
        else:
            out.append(piece)
    return out


def _words(text: str) -> list[tuple[int, str]]:
    """``text`` as Rich's ``_wrap.words`` cuts it (each unbreakable piece with the spaces after it,
    spaces at the start joined to the first), with a Chinese character a piece of its own."""
    out: list[tuple[int, str]] = []
    start = 0
    for piece in pieces(text):
        if piece.isspace() and out:
            at, word = out[-1]
            out[-1] = (at, word + piece)
        elif out and out[-1][1].isspace():  # leading spaces: the first word starts with them
            out[-1] = (out[-1][0], out[-1][1] + piece)
        else:
            out.append((start, piece))
        start += len(piece)
    return out


def _divide(text: str, width: int, fold: bool) -> list[int]:
    """Rich's ``_wrap.divide_line`` over :func:`_words`: where to break ``text`` to fit ``width`` cells."""
    breaks: list[int] = []
    offset = 0
    for start, word in _words(text):
        length = cell_len(word.rstrip())
        if width - offset >= length:
            offset += cell_len(word)
            continue
        if length > width:
            if fold:
                chunk_start, taken = start, ""
                for ch in word:
                    if cell_len(taken + ch) > width and taken:
                        if chunk_start:
                            breaks.append(chunk_start)
                        chunk_start += len(taken)
                        taken = ""
                    taken += ch
                if chunk_start:
                    breaks.append(chunk_start)
                offset = cell_len(taken)
            else:
                if start:
                    breaks.append(start)
                offset = cell_len(word)
        elif offset and start:
            breaks.append(start)
            offset = cell_len(word)
    return breaks


class _CjkText(Text):
    """A Text whose lines break between Chinese characters too (and only there or at spaces)."""

    def wrap(
        self,
        console: Console,
        width: int,
        *,
        justify: JustifyMethod | None = None,
        overflow: OverflowMethod | None = None,
        tab_size: int = 8,
        no_wrap: bool | None = None,
    ) -> Lines:
        from rich.containers import Lines
        from rich.text import DEFAULT_JUSTIFY, DEFAULT_OVERFLOW

        wrap_overflow = overflow or self.overflow or DEFAULT_OVERFLOW
        if no_wrap or (no_wrap is None and self.no_wrap) or overflow == "ignore":
            return super().wrap(
                console, width, justify=justify, overflow=overflow, tab_size=tab_size, no_wrap=no_wrap
            )
        wrap_justify = justify or self.justify or DEFAULT_JUSTIFY
        lines = Lines()
        for line in self.split(allow_blank=True):
            if "\t" in line:
                line.expand_tabs(tab_size)
            new_lines = line.divide(_divide(line.plain, width, fold=wrap_overflow == "fold"))
            for part in new_lines:
                # Rich's rstrip_end compares characters with cells: a full line of Chinese would
                # keep its trailing space and be cut. Cells here.
                if cell_len(part.plain) > width:
                    part.rstrip()
            if wrap_justify:
                new_lines.justify(console, width, justify=wrap_justify, overflow=wrap_overflow)
            for part in new_lines:
                part.truncate(width, overflow=wrap_overflow)
            lines.extend(new_lines)
        return lines

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        lines = self.plain.splitlines()
        longest = max((cell_len(line) for line in lines), default=0)
        least = [cell_len(p) for p in pieces(self.plain) if not p.isspace()]
        return Measurement(max(least, default=longest), longest)


def cjk_text(text: Text) -> Text:
    """``text``, breaking between Chinese characters when it holds any; else ``text`` itself."""
    if not has_wide(text.plain):
        return text
    out = _CjkText(
        text.plain,
        style=text.style,
        justify=text.justify,
        overflow=text.overflow,
        no_wrap=text.no_wrap,
        end=text.end,
        tab_size=text.tab_size,
    )
    out._spans = list(text._spans)
    return out


class CjkCell:
    """A table cell given as a string (console markup, as Rich reads a str cell) that wraps
    between Chinese characters: what Rich makes of the string, as :func:`cjk_text`."""

    def __init__(self, markup: str) -> None:
        self.markup = markup

    def _text(self, console: Console, options: ConsoleOptions, **kw: Any) -> Text:
        return cjk_text(console.render_str(self.markup, markup=options.markup, **kw))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self._text(console, options, highlight=options.highlight)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self._text(console, options, highlight=False))


def cjk_renderable(renderable: Any) -> Any:
    """``renderable`` with its paragraphs (a ``Text``, a string) and its tables' titles and captions
    breaking between Chinese characters, through groups and padding; anything else as it is. What
    the CLI prints goes through this: a Chinese note broke only at its few spaces (ragged lines),
    a title left its closing bracket alone on the next line."""
    from rich.console import Group
    from rich.padding import Padding
    from rich.table import Table

    if isinstance(renderable, Text):
        return cjk_text(renderable)
    if isinstance(renderable, str):
        return cjk_text(Text(renderable)) if has_wide(renderable) else renderable
    if isinstance(renderable, Group):
        renderable._renderables = tuple(cjk_renderable(r) for r in renderable._renderables)
    elif isinstance(renderable, Padding):
        renderable.renderable = cjk_renderable(renderable.renderable)
    elif isinstance(renderable, Table):
        for name, style in (("title", "table.title"), ("caption", "table.caption")):
            value = getattr(renderable, name)
            if isinstance(value, str) and has_wide(value):
                setattr(
                    renderable,
                    name,
                    cjk_text(Text(value, style=getattr(renderable, f"{name}_style") or style)),
                )
            elif isinstance(value, Text):
                setattr(renderable, name, cjk_text(value))
    return renderable
