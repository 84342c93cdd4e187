"""Helpers the ``simulate`` commands share: the catalog with the user's exchange rate, money in
the chosen currency, and the early checks of --currency and --out."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from gpuplan.cli._files import check_writable
from gpuplan.cli._i18n import resolve_usd_per_cny
from gpuplan.errors import InputError
from gpuplan.i18n import N_

if TYPE_CHECKING:
    from gpuplan.catalog import Store
    from gpuplan.i18n import Money

__all__ = ["check_currency", "check_out", "display_money_for", "open_store"]


def display_money_for(store: Store | None, currency: str) -> Money:
    from gpuplan.catalog import display_money
    from gpuplan.i18n import Money

    code = check_currency(currency)  # 美元 is USD, 人民币 CNY: read as --currency reads them
    if code == "USD" or store is None:
        if code != "USD":
            raise InputError.worded(
                N_("--currency CNY needs the catalog's exchange rate; the catalog cannot be opened")
            )
        return Money.usd()
    return display_money(store, code)


def open_store(ctx: typer.Context, currency: str, rate: tuple[float | None, float | None, bool]) -> Store:
    """The catalog, with the user's CNY rate (``--usd-per-cny``/``--cny-per-usd``, ``--force-rate``)."""
    from gpuplan.catalog import open_store
    from gpuplan.cli._settings import settings

    usd_per_cny, cny_per_usd, force = rate
    return open_store(
        settings(ctx).db, usd_per_cny=resolve_usd_per_cny(usd_per_cny, cny_per_usd), force_rate=force
    )


def check_currency(currency: str) -> str:
    """``currency``'s ISO code (``美元``: USD, ``人民币``, ``RMB``: CNY), what the commands compare;
    a misspelt --currency fails in one line ("did you mean"), before any tracing or simulation."""
    from gpuplan.vocab import Currency

    return Currency.cast(currency).code


def check_out(out: Path | None) -> None:
    """A simulation's --out: an HTML file whose folder is there, refused before the work."""
    if out is not None and out.suffix.lower() not in (".html", ".htm"):
        raise InputError.worded(N_("--out {path}: write a .html file"), path=out)
    check_writable(out)  # before the simulation: a missing folder costs nothing
