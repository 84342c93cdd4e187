"""Typer's and Click's own words ("Usage:", "[default: …]", the usage errors) in the invocation's language.

Typer 0.29 vendors Click as ``typer._click``, whose words are plain English f-strings with no
gettext call, and ``typer.rich_utils`` reads its words from module constants that it fills once,
at import, from gettext's global domain (which follows the process's locale, never ``--lang``).
So gettext cannot reach either of them per invocation. The root group (``cli/_help.py``) does
three things instead, at the start of each command line:

- :func:`use_typer_words` sets those rich_utils constants (panel titles, ``[default: …]``,
  ``[env var: …]``, ``[required]``, ``Try '…' for help.``) from gpuplan's catalog. In English it
  puts back the values Typer itself had, so English help and errors are Typer's own, byte for byte
  (and an English command line never imports rich_utils for this: it is loaded only for zh);
- :class:`LocalisedContext` is every command's context class: its help formatter writes the
  translated ``Usage:`` (the ``[OPTIONS]`` metavars are help texts, translated by ``_help.py``),
  and it draws the Chinese help screen with ``_help_layout`` (Typer's cuts Chinese with "…");
- :func:`localised_usage_errors` rewrites a usage error on its way out: the English text is matched
  against Click's message templates below and the same parts are put into the translated template.
  A text no template matches is left as it was (a test keeps the templates in step with Typer's).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from functools import cache
from typing import Any

import typer
from typer._click.exceptions import NoSuchOption, UsageError
from typer._click.formatting import HelpFormatter

from gpuplan.i18n import N_, Language, _, current_language

__all__ = ["LocalisedContext", "localised_usage_error", "localised_usage_errors", "use_typer_words"]

#: typer.rich_utils' word constants -> their English text (the message id).
TYPER_WORDS = {
    "ARGUMENTS_PANEL_TITLE": N_("Arguments"),
    "OPTIONS_PANEL_TITLE": N_("Options"),
    "COMMANDS_PANEL_TITLE": N_("Commands"),
    "DEFAULT_STRING": N_("[default: {}]"),
    "ENVVAR_STRING": N_("[env var: {}]"),
    "REQUIRED_LONG_STRING": N_("[required]"),
    "DEPRECATED_STRING": N_("(deprecated) "),
    "ERRORS_PANEL_TITLE": N_("Error"),
    "ABORTED_TEXT": N_("Aborted."),
    "RICH_HELP": N_("Try [blue]'{command_path} {help_option}'[/] for help."),
}
USAGE = N_("Usage: ")

#: Click's usage errors as typer._click and typer.core word them, most specific first.
#: ``{reason}`` is itself matched against :data:`REASONS`.
ERRORS = (
    N_("No such option: {name} (Possible options: {options})"),
    N_("No such option: {name}"),
    N_("No such command {name}. Did you mean {suggestions}?"),
    N_("No such command {name}."),
    N_("Missing command."),
    N_("Got unexpected extra argument(s) ({arguments})"),
    N_("Missing argument {name}."),
    N_("Missing option {name}."),
    N_("Missing parameter {name}."),
    N_("Option {name} requires an argument."),
    N_("Option {name} requires {count} arguments."),
    N_("Option {name} does not take a value."),
    N_("Argument {name} takes {count} values."),
    N_("Invalid value for {name} (env var: {envvar}): {reason}"),
    N_("Invalid value for {name}: {reason}"),
    N_("Invalid value: {reason}"),
)
#: Why a value was refused: pydantic's words (Typer converts values with it) and Typer's own.
REASONS = (
    N_("Input should be a valid integer, unable to parse string as an integer"),
    N_("Input should be a valid integer"),
    N_("Input should be a valid number, unable to parse string as a number"),
    N_("Input should be a valid number"),
    N_("{value} is not a finite number"),  # cli/_numbers.py NOT_FINITE
    N_("{value} GPUs per instance: give a whole number from {least} to {most}"),  # GPUS_PER_INSTANCE_RANGE
    N_("{value} is not an amount: write it as {one} or {two}"),  # units.py NOT_AN_AMOUNT
    N_("{value} is in another currency: give it with {option}"),  # units.py WRONG_CURRENCY
    N_(  # units.py UNSUPPORTED_CURRENCY
        "{value} is in {code}, which gpuplan does not price in (the catalog has no dated {code} rate): "
        "give the amount in USD or CNY"
    ),
    N_("Input should be a valid boolean, unable to interpret input"),
    N_("Input should be greater than or equal to {limit}"),
    N_("Input should be greater than {limit}"),
    N_("Input should be less than or equal to {limit}"),
    N_("Input should be less than {limit}"),
    N_("{value} is not one of {choices}."),
    N_("file {path} does not exist."),
    N_("dir {path} does not exist."),
    N_("path {path} does not exist."),
    N_("file {path} is a directory."),
    N_("dir {path} is a file."),
)


def use_typer_words(language: Language) -> None:
    """Put typer.rich_utils' words in ``language`` (English: Typer's own values)."""
    if language is Language.EN and "typer.rich_utils" not in sys.modules:
        return  # never translated in this process: Typer's words are already there
    import typer.rich_utils as rich_utils

    for name, message in TYPER_WORDS.items():
        original = _TYPER_ORIGINALS.setdefault(name, getattr(rich_utils, name))
        setattr(rich_utils, name, original if language is Language.EN else _(message))


_TYPER_ORIGINALS: dict[str, str] = {}


class LocalisedHelpFormatter(HelpFormatter):
    """Click's help formatter, with ``Usage:`` in the current language."""

    def write_usage(self, prog: str, args: str = "", prefix: str | None = None) -> None:
        super().write_usage(prog, args, _(USAGE) if prefix is None else prefix)


class LocalisedContext(typer.Context):
    """The context of every gpuplan command: its usage line speaks the invocation's language,
    and its help screen in Chinese is drawn by :mod:`gpuplan.cli._help_layout`."""

    formatter_class = LocalisedHelpFormatter

    def get_help(self) -> str:
        # The root group lists its commands from stand-ins while its screen is drawn (cli/_help.py).
        with getattr(self.command, "listing", nullcontext)():
            if current_language() is Language.EN:
                return super().get_help()
            from gpuplan.cli._help_layout import print_help

            print_help(self.command, self)
            return ""  # printed, as Typer's own rich help is


@cache
def _pattern(template: str) -> re.Pattern[str]:
    """``template`` as a regular expression: each ``{name}`` captures the text in its place, and a
    name said twice (``{code}``) matches the same text again."""
    parts = re.split(r"\{(\w+)\}", template)
    seen: set[str] = set()
    body = ""
    for i, p in enumerate(parts):
        if i % 2 == 0:
            body += re.escape(p)
        else:
            body += f"(?P={p})" if p in seen else f"(?P<{p}>.+?)"
            seen.add(p)
    return re.compile(body, re.DOTALL)


def _translate(text: str, templates: tuple[str, ...]) -> str | None:
    for template in templates:
        match = _pattern(template).fullmatch(text)
        if match:
            parts = match.groupdict()
            if "reason" in parts:
                parts["reason"] = _translate(parts["reason"], REASONS) or parts["reason"]
            return _(template).format(**parts)
    return None


def localised_usage_error(error: UsageError) -> UsageError:
    """``error`` with its text in the current language (``error`` itself in English or when no
    template matches); the context, hence the usage line and the exit code 2, stay."""
    if current_language() is Language.EN or type(error).__name__ == "NoArgsIsHelpError":
        return error
    text = _translate(error.format_message(), ERRORS)
    if text is None:
        return error
    localised = UsageError(text, ctx=error.ctx)
    localised.exit_code = error.exit_code
    return localised


#: How a usage error ends: where to look (the command's ``--help``).
SEE_HELP = N_("{message}; see '{command} --help'")
#: The same after a question ("Did you mean 'plan'?"): no semicolon after its question mark.
SEE_HELP_AFTER_QUESTION = N_("{message} See '{command} --help'.")


@contextmanager
def localised_usage_errors() -> Iterator[None]:
    """Turn a usage error from the block into one line on stderr, in the current language, and exit
    2 (README: errors are one line; 2 for a malformed command line). A bare group or command asked
    for its help (no arguments) still shows the help."""
    try:
        yield
    except UsageError as e:
        if type(e).__name__ == "NoArgsIsHelpError":
            raise
        localised = localised_usage_error(e)
        # Some parser errors carry no context: the program's own help is where to look then.
        command = localised.ctx.command_path if localised.ctx is not None else "gpuplan"
        message = localised.format_message().rstrip(".。")
        if isinstance(e, NoSuchOption) and e.ctx is not None:
            from gpuplan.cli._option_hints import option_hint

            message = (option_hint(e.option_name, e.ctx) or message).rstrip(".。")
        see = SEE_HELP_AFTER_QUESTION if message.endswith(("?", "？")) else SEE_HELP
        text = _(see).format(message=message, command=command)
        sys.stderr.write(_("error: {message}").format(message=text) + "\n")
        raise typer.Exit(2) from None


def localise_command(command: Any) -> None:
    """Give ``command`` the context whose usage line is translated (done once per command)."""
    if not issubclass(command.context_class, LocalisedContext):
        command.context_class = LocalisedContext
