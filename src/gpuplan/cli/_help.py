"""``--help`` in the user's language: the help texts are translated when a command line is parsed.

Typer reads every help text (option ``help=``, command docstrings) when the app is built, before
any option is parsed, and ``--help`` is handled before ``--lang`` is. So the root group does two
things at the start of each invocation, in :meth:`LocalisedGroup.make_context`, which sees the
whole command line:

1. it picks the language of this invocation (``--lang X`` anywhere on the line, else
   ``GPUPLAN_LANG``, else the locale: :func:`gpuplan.cli._i18n.invocation_language`), and
2. it replaces each help text of the click command tree by its translation from the message
   catalog (the English source text is kept, so a second invocation in another language works).

The help texts are the catalog's message ids: ``tools/i18n.py`` extracts them by walking the same
tree (:func:`help_messages`), so a new option or command docstring is a message to translate like
any ``_()`` string, and the catalog tests fail while it lacks its Chinese. Click's and Typer's own
words ("Usage:", "[default: …]", the panel titles, usage errors) are set by the same group through
:mod:`gpuplan.cli._click_words`.
"""

from __future__ import annotations

import difflib
import inspect
import os
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, ClassVar

from typer._click.exceptions import UsageError
from typer.core import TyperGroup

from gpuplan.cli._click_words import localise_command, localised_usage_errors, use_typer_words
from gpuplan.cli._lazy import LazyCommands, Register, build_command, command_summary, light_coercion
from gpuplan.i18n import N_, _, set_language

__all__ = ["LocalisedGroup", "SuggestingGroup", "help_messages", "translate_help"]

#: Click's --help option text, which gpuplan sets itself.
HELP_OPTION = N_("Show this message and exit.")

#: The texts of a command's help screen; the metavars are the usage line's "[OPTIONS]" and
#: "COMMAND [ARGS]...".
_TEXT_ATTRS = ("help", "short_help", "epilog", "options_metavar", "subcommand_metavar")
_SOURCE = "_gpuplan_help_source"


def _translated(text: str) -> str:
    """``text`` in the current language, each paragraph on one line.

    Typer's help keeps the line breaks of a docstring's later paragraphs, which then show as
    ragged lines; a paragraph marked ``\\b`` keeps its lines, as Click's help does. Chinese needs no
    spaces to break at: its help screen wraps between characters (``_help_layout``).
    """
    paragraphs = inspect.cleandoc(_(text)).split("\n\n")
    return "\n\n".join(p if p.startswith("\b") else _LINE_BREAK.sub(_joined, p) for p in paragraphs)


_LINE_BREAK = re.compile(r"(?<=(.))[ \t]*\n[ \t]*(?=(.))")
_WIDE = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f]")


def _joined(m: re.Match[str]) -> str:
    # Lines of Chinese join with nothing between them; Latin words with a space.
    return "" if _WIDE.match(m.group(1)) and _WIDE.match(m.group(2)) else " "


def _commands(command: Any, *, built_only: bool = False) -> Iterator[Any]:
    """``command`` and every command under it (``built_only``: not building a lazy one)."""
    yield command
    children = getattr(command, "commands", None) or {}
    if built_only and isinstance(children, LazyCommands):
        children = children.built()
    for name in sorted(children):
        yield from _commands(children[name], built_only=built_only)


def _slots(command: Any, *, built_only: bool = False) -> Iterator[tuple[Any, str, str]]:
    """Every (object, attribute, English text) of the help screens under ``command``."""
    for cmd in _commands(command, built_only=built_only):
        for attr in _TEXT_ATTRS:
            yield cmd, attr, ""
        help_option = cmd.get_help_option(cmd.context_class(cmd))
        for param in [*cmd.params, *([help_option] if help_option else [])]:
            yield param, "help", ""


def _source(obj: Any, attr: str, default: str) -> str | None:
    """The English text of ``obj.attr`` (kept from the first translation), or ``default``."""
    kept: dict[str, str | None] = obj.__dict__.setdefault(_SOURCE, {})
    if attr not in kept:
        kept[attr] = getattr(obj, attr, None) or default or None
    return kept[attr]


def translate_help(command: Any) -> None:
    """Put every help text under ``command`` in the current language (of the commands built so
    far: a lazy root group's command is translated when it is built)."""
    for cmd in _commands(command, built_only=True):
        localise_command(cmd)
        help_option = cmd.get_help_option(cmd.context_class(cmd))
        for param in [*cmd.params, *([help_option] if help_option else [])]:
            # Typer 0.29 shows a flag's type (`--spot <bool>`) as if it took a value: show none.
            if getattr(param, "is_flag", False) and param.metavar is None:
                param.metavar = ""
    for obj, attr, default in _slots(command, built_only=True):
        text = _source(obj, attr, default)
        if text:
            setattr(obj, attr, _translated(text))


def help_messages(command: Any) -> list[str]:
    """The English help texts under ``command`` (the message ids ``tools/i18n.py`` extracts)."""
    seen: dict[str, None] = {}
    for obj, attr, default in _slots(command):
        text = _source(obj, attr, default)
        if text:
            seen.setdefault(text, None)
    return list(seen)


class SuggestingGroup(TyperGroup):
    """A command group whose unknown command gets "did you mean": the names it is a slip of
    (difflib, as Typer suggests them: ``catalog inf`` -> ``info``), else the commands whose help
    begins with the word typed (``catalog show`` -> ``info``, "Show where the catalog lives …";
    ``catalog discount remove`` -> ``clear``, "Remove a discount."): a word the group's help uses
    for what a command does is one a user types. Every group of the command line is one (a test
    walks the tree)."""

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        try:
            return self._click_resolve_command(ctx, args)
        except UsageError as e:
            if self.suggest_commands and args and not ctx.resilient_parsing:
                names = self.suggestions(ctx, args[0])
                if names:
                    # Typer's words, which gpuplan.cli._click_words translates.
                    e.message = f"{e.message.rstrip('.')}. Did you mean {', '.join(map(repr, names))}?"
            raise

    def suggestions(self, ctx: Any, typed: str) -> list[str]:
        """The commands ``typed`` may have meant (none: an empty list)."""
        names = [n for n in self.list_commands(ctx) if not getattr(self.help_command(ctx, n), "hidden", True)]
        slips = difflib.get_close_matches(typed, names)
        if slips:
            return slips
        word = typed.strip().lower()
        return [n for n in names if _leading_word(self.help_command(ctx, n)) == word]

    def help_command(self, ctx: Any, name: str) -> Any:
        """The command ``name`` as far as its name, help text and ``hidden`` go."""
        return self.get_command(ctx, name)


def _leading_word(command: Any) -> str:
    """The first word of ``command``'s English help, lower case: ``Show where …`` -> ``show``."""
    match = re.match(r"\s*([A-Za-z]+)", _source(command, "help", "") or "")
    return match.group(1).lower() if match else ""


class LocalisedGroup(SuggestingGroup):
    """The root command group: sets this invocation's language and translates the help first.

    A subclass names its commands in ``lazy`` (name -> the ``register`` function that adds it, in
    the order ``--help`` lists them): they are built when first looked up (:mod:`gpuplan.cli._lazy`).
    """

    lazy: ClassVar[Mapping[str, Register]] = {}
    #: Whether ``--help`` lists the commands not built yet from stand-ins (their names and help
    #: texts, :func:`gpuplan.cli._lazy.command_summary`) instead of building each one; a test holds
    #: the two screens equal.
    summaries: ClassVar[bool] = True

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        light_coercion(self)
        self._listing = False
        self._stand_ins: dict[str, Any] = {}
        if self.lazy:
            self.commands = LazyCommands(self.lazy, self._build)

    @contextmanager
    def listing(self) -> Iterator[None]:
        """While this group's help screen is drawn: commands not built yet are looked up as
        stand-ins."""
        self._listing = True
        try:
            yield
        finally:
            self._listing = False

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        commands = self.commands
        if (
            self._listing
            and self.summaries
            and isinstance(commands, LazyCommands)
            and cmd_name in commands
            and cmd_name not in commands.built()
        ):
            if cmd_name not in self._stand_ins:
                stand_in = command_summary(cmd_name, self.lazy[cmd_name])
                translate_help(stand_in)
                self._stand_ins[cmd_name] = stand_in
            return self._stand_ins[cmd_name]
        return super().get_command(ctx, cmd_name)

    def help_command(self, ctx: Any, name: str) -> Any:
        # A stand-in for a command not built yet: suggesting must not build every command.
        with self.listing():
            return self.get_command(ctx, name)

    def _build(self, name: str) -> Any:
        command = build_command(
            name,
            self.lazy[name],
            rich_markup_mode=self.rich_markup_mode,
            suggest_commands=self.suggest_commands,
        )
        light_coercion(command)
        translate_help(command)  # in this invocation's language, set by make_context
        return command

    def list_commands(self, ctx: Any) -> list[str]:
        # The names only: Typer's own builds every command to list their names.
        return list(self.commands)

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: Any = None,
        **extra: Any,
    ) -> Any:
        from gpuplan.cli._i18n import invocation_language

        language = invocation_language(args, os.environ)
        set_language(language)
        translate_help(self)
        use_typer_words(language)
        with localised_usage_errors():
            return super().make_context(info_name, args, parent, **extra)

    def invoke(self, ctx: Any) -> Any:
        # The subcommands parse their options in here: their usage errors come out through it.
        with localised_usage_errors():
            return super().invoke(ctx)
