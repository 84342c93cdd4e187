"""The options every command that talks to people shares: ``--lang``, ``--currency`` and the CNY rate.

def my_cmd(lang: LangOption = None, currency: CurrencyOption = "USD",
           usd_per_cny: UsdPerCnyOption = None, cny_per_usd: CnyPerUsdOption = None,
           force_rate: ForceRateOption = False) -> None:
    apply_language(lang)                                   # first: later messages use it
    rate = resolve_usd_per_cny(usd_per_cny, cny_per_usd)   # -> open_store(usd_per_cny=rate, force_rate=…)
    money = display_money(store, currency)                 # gpuplan.catalog.display_money
    console().print(...)                                   # the width rule below
"""

from __future__ import annotations

import functools
import math
import os
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Annotated, Any

import typer

from gpuplan.cli._numbers import finite_float
from gpuplan.errors import InputError, NotFoundError
from gpuplan.i18n import N_, Language, current_language, language_from_locale, set_language

if TYPE_CHECKING:
    from rich.console import Console

__all__ = [
    "CnyPerUsdOption",
    "CurrencyOption",
    "ForceRateOption",
    "LangOption",
    "UsdPerCnyOption",
    "apply_language",
    "console",
    "currency_shown",
    "invocation_language",
    "option_given",
    "resolve_usd_per_cny",
]

LangOption = Annotated[
    str | None,
    typer.Option(
        "--lang",
        envvar="GPUPLAN_LANG",
        help="Language of the output and of --help: en or zh. "
        "Default: GPUPLAN_LANG, else your locale (LANG).",
        show_default=False,
    ),
]
CurrencyOption = Annotated[
    str,
    typer.Option(
        "--currency",
        envvar="GPUPLAN_CURRENCY",
        # the aliases Currency.cast reads (vocab.Currency.aliases), said where the choice is offered
        help="Show money in USD or CNY (converted at the catalog's dated rate, shown in the output); "
        "CNY may also be written RMB, yuan or renminbi, and either currency by its Chinese name.",
    ),
]


def option_given(ctx: typer.Context, parameter: str) -> bool:
    """Whether the command's ``parameter`` was given (on the command line or by its environment
    variable), not left at its default."""
    source = ctx.get_parameter_source(parameter)
    # By name: typer carries click's enum in a copy of its own (typer._click), not click's.
    return source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP")


def currency_shown(ctx: typer.Context, currency: str, *, in_yuan: bool) -> str:
    """The currency a command shows money in: ``--currency`` (or GPUPLAN_CURRENCY) where given, else
    CNY for a workload whose budget is in yuan (``constraints.budget_cny``: a team that counts in
    yuan reads its figures in yuan, as ``plan`` shows them), else ``currency``'s default."""
    if in_yuan and not option_given(ctx, "currency"):
        return "CNY"
    return currency


UsdPerCnyOption = Annotated[
    float | None,
    typer.Option(
        "--usd-per-cny",
        envvar="GPUPLAN_USD_PER_CNY",
        help="US dollars per yuan (about 0.14), instead of the catalog's dated rate.",
        show_default=False,
        parser=finite_float,
    ),
]
CnyPerUsdOption = Annotated[
    float | None,
    typer.Option(
        "--cny-per-usd",
        envvar="GPUPLAN_CNY_PER_USD",
        help="Yuan per US dollar (about 7.2), the way the rate is usually quoted in China.",
        show_default=False,
        parser=finite_float,
    ),
]
ForceRateOption = Annotated[
    bool,
    typer.Option("--force-rate", help="Accept a rate more than 3× away from the catalog's own."),
]

#: Width of piped output when COLUMNS does not say: wide enough for every table's full layout,
#: so that a file or a pager gets whole rows (tables also fit 80 columns when asked to).
PIPED_WIDTH = 120


def invocation_language(args: Sequence[str], environ: Mapping[str, str]) -> Language:
    """The language of one command line: ``--lang X`` (or ``--lang=X``) anywhere on it, else
    ``GPUPLAN_LANG``, else the locale (``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``).

    Read before Typer parses anything, so that ``--help`` (handled first) is in that language too.
    A value that is not a language is skipped here; the ``--lang`` option itself reports it.
    """
    given: list[str] = []
    for i, arg in enumerate(args):
        if arg == "--":
            break
        if arg == "--lang" and i + 1 < len(args):
            given.append(args[i + 1])
        elif arg.startswith("--lang="):
            given.append(arg.split("=", 1)[1])
    for value in [*reversed(given), environ.get("GPUPLAN_LANG", "")]:
        if value:
            try:
                return Language.cast(value)
            except NotFoundError:
                continue
    return language_from_locale(environ)


def apply_language(lang: str | None) -> Language:
    """Write this command's messages in ``lang``; None keeps the language of the invocation
    (:func:`invocation_language`, set by the root group before parsing)."""
    language = Language.cast(lang) if lang else current_language()
    set_language(language)
    return language


def resolve_usd_per_cny(usd_per_cny: float | None, cny_per_usd: float | None) -> float | None:
    """The one USD-per-CNY rate the user gave, whichever way round they wrote it (None: none)."""
    if usd_per_cny is not None and cny_per_usd is not None:
        raise InputError.worded(N_("give the rate once: --usd-per-cny or --cny-per-usd, not both"))
    if cny_per_usd is None:
        return usd_per_cny
    if not (math.isfinite(cny_per_usd) and cny_per_usd > 0):
        raise InputError.worded(N_("--cny-per-usd must be a positive number, got {rate!r}"), rate=cny_per_usd)
    from gpuplan.catalog.open_catalog import CnyPerUsd

    return CnyPerUsd(cny_per_usd)  # USD per CNY, quoted as written in a refusal


def console(*, stderr: bool = False) -> Console:
    """A Rich console: the terminal's width, else ``COLUMNS``, else :data:`PIPED_WIDTH` when piped.

    Strings are printed as written: no console markup, no emoji codes. Names in a table come from
    files others wrote (catalogs, plans, workloads), and ``[/x]`` or ``:smile:`` in one is text, not
    a style (markup made such a name a traceback); styles are set on ``Text`` objects instead."""
    stream = sys.stderr if stderr else sys.stdout
    if stream.isatty():
        return _cjk_console_class()(stderr=stderr, markup=False, emoji=False)
    columns = os.environ.get("COLUMNS", "")
    width = int(columns) if columns.isdigit() and int(columns) >= 40 else PIPED_WIDTH
    return _cjk_console_class()(stderr=stderr, width=width, markup=False, emoji=False)


@functools.cache
def _cjk_console_class() -> type[Console]:
    from rich.console import Console

    from gpuplan.report.cjk import cjk_renderable

    class CjkConsole(Console):
        """Chinese paragraphs and table titles break between characters, never before a closing mark."""

        def print(self, *objects: Any, **kwargs: Any) -> None:
            super().print(*(cjk_renderable(o) for o in objects), **kwargs)

    return CjkConsole
