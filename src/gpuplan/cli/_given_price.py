"""A price per hour given on the command line (``simulate autoscale --on-demand-price``,
``--spot-price``, ``simulate share --price``), in yuan or dollars as it is written: ``¥34.74``,
``34.74元``, ``34.74 CNY``, ``$2.6``, ``2.6 USD`` (:func:`gpuplan.units.read_money`).

A bare number is taken in dollars, as these options always took it, unless the user works in yuan
(``--currency CNY``, or a workload whose budget is ``budget_cny``): there it is refused, asking for the
currency. Both readings are plausible there and stand about seven times apart (6.99-7.19 CNY per USD
at the catalog's rates), so a guess is a seven-fold error one way or the other: taken as dollars, a
quote of 18.49 yuan an hour was billed at ¥129.17 a replica-hour, beside the catalog's ¥34.74 for the
same instance; taken as yuan, the scripts that passed dollars with ``--currency CNY`` (as the help
said) would be billed at a seventh of their price. A refusal costs one retyped sign.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import typer

from gpuplan.cli._numbers import NOT_FINITE, finite_in
from gpuplan.errors import InputError
from gpuplan.i18n import N_, _
from gpuplan.units import read_money

if TYPE_CHECKING:
    from gpuplan.catalog import Store
    from gpuplan.i18n import Money

__all__ = ["GivenPrice", "given_price", "given_price_in", "off_the_catalog", "price_usd"]


@dataclass(frozen=True, kw_only=True)
class GivenPrice:
    """A price as the user gave it."""

    amount: float
    """The number, in ``currency``."""
    currency: str | None
    """``CNY`` or ``USD`` where the figure is signed (``¥``, ``元``, ``$``, ``USD`` …); None for a bare
    number."""
    written: str
    """As given (for the refusal and the warning)."""


def given_price(value: object, examples: tuple[str, str] | None = None) -> GivenPrice:
    """The parser of a price option: the amount and its currency where written, a finite number.
    ``examples``: the two ways of writing one a refusal gives (:func:`gpuplan.units.read_money`)."""
    from pydantic_core import PydanticCustomError

    if isinstance(value, GivenPrice):  # Typer passes a default through the parser too
        return value
    number, code = read_money(value, examples)
    written = str(value).strip()[:40]
    if not math.isfinite(number):
        raise PydanticCustomError("finite_number", NOT_FINITE, {"value": written})
    return GivenPrice(amount=number, currency=code.upper() if code else None, written=written)


given_price.finite = True  # type: ignore[attr-defined]


def given_price_in(
    least: float, most: float, examples: tuple[str, str] | None = None
) -> Callable[[object], GivenPrice]:
    """The parser of a price option from ``least`` to ``most`` USD: :func:`given_price`, and a figure
    in dollars (or bare) out of the range refused in pydantic's words, as ``finite_in`` refuses it; a
    yuan figure is held to the range once converted (:func:`price_usd`'s ``bounds``). ``examples``:
    the two ways of writing one its refusal gives (a budget's: ``units.BUDGET_EXAMPLES``)."""
    bounded = finite_in(least, most)

    def parse(value: object) -> GivenPrice:
        price = given_price(value, examples)
        if price.currency != "CNY":
            bounded(price.amount)
        return price

    parse.finite = True  # type: ignore[attr-defined]
    return parse


def price_usd(
    given: GivenPrice | None,
    *,
    flag: str,
    currency: str,
    budget_cny: bool,
    store: Store | None,
    bounds: tuple[float, float, str] | None = None,
) -> float | None:
    """``given`` in USD: a yuan figure at the catalog's dated CNY rate (the one the report shows money
    at); a bare number in dollars, refused where the user works in yuan (``currency`` CNY, or
    ``budget_cny``: the workload's budget is in yuan). ``bounds``: (least, most, unit) a yuan figure
    must lie in once converted (a dollar one was held to them as it was parsed)."""
    from gpuplan.cli._simulate_common import check_currency, display_money_for

    if given is None:
        return None
    if given.currency is None:
        if check_currency(currency) == "CNY" or budget_cny:
            # the budget first: it is what put the report in yuan where --currency did not
            why = N_("The workload's budget is in CNY") if budget_cny else N_("The report is in CNY")
            raise InputError.worded(
                N_(
                    "{flag} {value}: in which currency? {why}: write ¥{value} for yuan or ${value} for "
                    "dollars"
                ),
                flag=flag,
                value=given.written,
                why=_(why),
            )
        return given.amount
    if given.currency == "USD":
        return given.amount
    usd = given.amount / display_money_for(store, given.currency).units_per_usd
    if bounds is not None and not bounds[0] <= usd <= bounds[1]:
        raise InputError.worded(
            N_("{flag} {value} is {usd:,.2f} {unit}: it must be from {least:g} to {most:g} {unit}"),
            flag=flag,
            value=given.written,
            usd=usd,
            least=bounds[0],
            most=bounds[1],
            unit=bounds[2],
        )
    return usd


def off_the_catalog(
    flag: str, given_usd: float, catalog_usd: float, instance: str, pricing: str, money: Money
) -> None:
    """Warn, in one line on stderr, where a given price per replica-hour stands further from the
    catalog's price of the same instance than an imported price may stand from the catalog's own
    (:data:`~gpuplan.catalog.importers.instance_prices.SAME_MODEL_BAND`, 2.6x: nearer a figure read
    in the other currency, ~7x, than the price). It is still used: a negotiated price may be far off."""
    from gpuplan.catalog.importers.instance_prices import SAME_MODEL_BAND

    if not (catalog_usd > 0 and given_usd > 0):
        return
    ratio = given_usd / catalog_usd
    if 1 / SAME_MODEL_BAND <= ratio <= SAME_MODEL_BAND:
        return
    line = _(
        "warning: {flag} {given}/replica-h is {ratio:.2g}x the catalog's {pricing} price of {instance} "
        "({held}/replica-h), more than {band:g}x off: check its currency (¥ or $) and that it is per "
        "replica-hour"
    ).format(
        flag=flag,
        given=money.format(given_usd),
        ratio=ratio,
        pricing=pricing,
        instance=instance,
        held=money.format(catalog_usd),
        band=SAME_MODEL_BAND,
    )
    typer.echo(line, err=True)
