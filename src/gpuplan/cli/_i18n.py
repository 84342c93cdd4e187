"""The ``--lang`` and ``--currency`` options every command that talks to people shares.

def my_cmd(lang: LangOption = None, currency: CurrencyOption = "USD") -> None:
    apply_language(lang)                       # first thing: later messages use it
    money = display_money(store, currency)     # gpuplan.catalog.display_money
"""

from __future__ import annotations

import os
from typing import Annotated

import typer

from gpuplan.i18n import Language, language_from_locale, set_language

__all__ = ["CurrencyOption", "LangOption", "apply_language"]

LangOption = Annotated[
    str | None,
    typer.Option(
        "--lang",
        envvar="GPUPLAN_LANG",
        help="Language of the output: en or zh. Default: from your locale (LANG).",
        show_default=False,
    ),
]
CurrencyOption = Annotated[
    str,
    typer.Option(
        "--currency",
        envvar="GPUPLAN_CURRENCY",
        help="Show money in USD or CNY (converted at the catalog's dated rate, shown in the output).",
    ),
]


def apply_language(lang: str | None) -> Language:
    """Write this command's messages in ``lang``, or in the locale's language when None."""
    language = Language.cast(lang) if lang else language_from_locale(os.environ)
    set_language(language)
    return language
