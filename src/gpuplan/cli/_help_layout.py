"""The ``--help`` screen in Chinese: Typer's layout, with text that wraps between Chinese characters.

Typer's help tables cannot show Chinese whole. Rich wraps only at spaces, a run of Chinese has
none, and Typer's table cells cut what does not fit with "…" (Rich's default column overflow).
Inserting spaces to break at does not cure it either: Rich's ``Text.rstrip_end`` (Rich 15) compares
the *character* count of a wrapped line with its width in *cells*, so the trailing space of a
line of double-width characters that fills the column is kept, and the line is then cut with "…".

So for Chinese the help screen is drawn here, with the same panels, columns and words as Typer's
(usage, text, arguments, options with type, default, env var and required, commands; gpuplan has
no custom panels or deprecated commands, so none are drawn). Each text
is a :class:`CjkText`, which breaks lines between any two Chinese characters, never puts a closing
mark (，。、）…) at the start of a line nor an opening one at its end, keeps Latin words and
option names whole, and folds only a Latin word longer than the whole column. English help is
Typer's own.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from typing import Any

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.measure import Measurement
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from gpuplan.i18n import N_, _
from gpuplan.report.cjk import pieces as _pieces

__all__ = ["CjkText", "print_help"]


def _wrap(text: str, width: int) -> list[str]:
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for piece in _pieces(paragraph):
            if piece.isspace():
                line += " " if line else ""
                continue
            # the space kept before the word counts: without it, a word one cell too wide was
            # put on the line and then folded ("34.74 CN" / "Y", "--pea" / "k")
            if cell_len(line) + cell_len(piece) <= width or not line.strip():
                line = line + piece if line.strip() else piece
            else:
                lines.append(line.rstrip())
                line = piece
            while cell_len(line) > width:  # a Latin word longer than the column: fold it
                cut = 1
                while cell_len(line[: cut + 1]) <= width:
                    cut += 1
                lines.append(line[:cut])
                line = line[cut:]
        lines.append(line.rstrip())
    return lines


class CjkText:
    """Text that wraps like Chinese prose: between characters, at spaces, never cut with "…"."""

    def __init__(self, text: str, style: str = "") -> None:
        self.text = text
        self.style = style

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        pieces = [p for p in _pieces(self.text) if not p.isspace()] or [""]
        longest = max(cell_len(line) for line in self.text.split("\n"))
        return Measurement(min(max(cell_len(p) for p in pieces), 12), longest)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for line in _wrap(self.text, options.max_width):
            yield Text(line, style=self.style, no_wrap=True, overflow="crop")


def _panel(table: Table, title: str) -> Panel:
    return Panel(table, border_style="dim", title=title, title_align="left")


def _help_text(command: Any) -> Iterator[CjkText]:
    text = inspect.cleandoc(command.help or "").partition("\f")[0]
    first, *rest = text.split("\n\n")
    yield CjkText(first.replace("\n", " ").strip())
    if rest:
        yield CjkText("")
        yield CjkText("\n\n".join(p.replace("\n", " ").strip() for p in rest), style="dim")


def _param_help(param: Any, ctx: Any, words: Any) -> CjkText:
    """The help cell of one option or argument: its text, then env var, default and required."""
    parts = [" ".join(param.help.split())] if getattr(param, "help", None) else []
    envvar = getattr(param, "envvar", None)
    if envvar and getattr(param, "show_envvar", None):
        parts.append(words.ENVVAR_STRING.format(envvar if isinstance(envvar, str) else ", ".join(envvar)))
    default = param._extract_default_help_str(ctx=ctx)
    show_str = isinstance(param.show_default, str)
    if show_str or (default is not None and (param.show_default or ctx.show_default)):
        shown = param._get_default_string(ctx=ctx, show_default_is_str=show_str, default_value=default)
        if shown:
            parts.append(words.DEFAULT_STRING.format(shown))
    if param.required:
        parts.append(words.REQUIRED_LONG_STRING)
    return CjkText("\n".join(parts))


#: The types Typer 0.29 shows beside an option (``<int>``, ``<list[str]>``: Python's names), said
#: in the reader's words on this (Chinese) screen; a type not here, or a metavar of gpuplan's own,
#: is shown as Typer shows it.
_KINDS = {
    "<int>": N_("<int>"),
    "<int range>": N_("<int range>"),
    "<float>": N_("<float>"),
    "<float range>": N_("<float range>"),
    "<str>": N_("<str>"),
    "<path>": N_("<path>"),
    "<file>": N_("<file>"),
    "<dir>": N_("<dir>"),
    "<list[str]>": N_("<list[str]>"),
}


def _kind(kind: str) -> str:
    """An option's type as this screen says it (``<int range>``: Chinese ``<整数>``)."""
    word = _KINDS.get(kind)
    return _(word) if word else kind


def _params_table(params: list[Any], ctx: Any, words: Any) -> Table:
    table = Table(show_header=False, box=None, expand=True, padding=(0, 1), pad_edge=False)
    required = any(p.required for p in params)
    if required:
        table.add_column(no_wrap=True, style="red")
    for _column in range(3):  # long names, short names, the type
        table.add_column(no_wrap=True)
    table.add_column(ratio=1)
    for p in params:
        is_argument = p.param_type_name == "argument"
        names = [p.display_name_raw] if is_argument else [o for o in p.opts if o.startswith("--")]
        short = [] if is_argument else [o for o in p.opts if not o.startswith("--")]
        kind = _kind(p.display_type_rich(ctx=ctx) or "")
        span = p._get_number_range_help_str()
        row: list[RenderableType] = [
            Text(",".join(names), style="bold cyan"),
            Text(",".join(short), style="bold green"),
            Text(kind + (words.RANGE_STRING.format(span) if span else ""), style="bold yellow"),
            _param_help(p, ctx, words),
        ]
        table.add_row(*([Text("*" if p.required else ""), *row] if required else row))
    return table


def _commands_table(command: Any, ctx: Any) -> Table:
    names = [n for n in command.list_commands(ctx) if not command.get_command(ctx, n).hidden]
    table = Table(show_header=False, box=None, expand=True, padding=(0, 1), pad_edge=False)
    table.add_column(no_wrap=True, style="bold cyan")
    table.add_column(ratio=1)
    for name in names:
        sub = command.get_command(ctx, name)
        text = inspect.cleandoc(sub.short_help or sub.help or "").split("\n\n")[0]
        table.add_row(name, CjkText(" ".join(text.split())))
    return table


def print_help(command: Any, ctx: Any) -> None:
    """Print ``command``'s help screen as Typer lays it out, with :class:`CjkText` cells."""
    import typer.rich_utils as words

    console = words._get_rich_console()
    console.print(Padding(words.highlighter(command.get_usage(ctx)), 1), style="bold")
    if command.help:
        console.print(Padding(CjkHelp(list(_help_text(command))), (0, 1, 1, 1)))
    shown = [p for p in command.get_params(ctx) if not getattr(p, "hidden", False)]
    arguments = [p for p in shown if p.param_type_name == "argument"]
    options = [p for p in shown if p.param_type_name != "argument"]
    if arguments:
        console.print(_panel(_params_table(arguments, ctx, words), words.ARGUMENTS_PANEL_TITLE))
    if options:
        console.print(_panel(_params_table(options, ctx, words), words.OPTIONS_PANEL_TITLE))
    if getattr(command, "commands", None):
        console.print(_panel(_commands_table(command, ctx), words.COMMANDS_PANEL_TITLE))
    if command.epilog:
        console.print(Padding(CjkText(" ".join(command.epilog.split())), 1))


class CjkHelp:
    """A command's help text: several :class:`CjkText` paragraphs one under another."""

    def __init__(self, parts: list[CjkText]) -> None:
        self.parts = parts

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for part in self.parts:
            yield from part.__rich_console__(console, options)
