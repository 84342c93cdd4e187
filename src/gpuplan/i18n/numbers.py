"""Numbers, durations, percentages and money, written one way everywhere (both languages).

Money is always computed in USD and converted only when shown, by a :class:`Money` that carries the
dated exchange rate it used, so every output can say which rate it applied.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from dataclasses import dataclass

from gpuplan.errors import DataError, NotFoundError
from gpuplan.i18n.messages import N_, Language, _, current_language, reader_gives
from gpuplan.i18n.phrases import sentences
from gpuplan.i18n.sources import source_words

__all__ = [
    "CURRENCY_SYMBOLS",
    "USER_RATE_SOURCE",
    "Money",
    "current_money",
    "format_amount",
    "format_hours",
    "format_minutes",
    "format_number",
    "format_percent",
    "money",
    "money_per",
    "money_rate",
    "per_usd",
    "rate_source",
    "set_money",
    "stale_rate_warning",
    "use_money",
]

#: The source of a rate the user gives (``--usd-per-cny``/``--cny-per-usd``): stored in English like
#: every source, shown in the user's language (a publisher's name, the other sources, is data).
USER_RATE_SOURCE = N_("user setting (the rate you gave)")


def rate_source(source: str) -> str:
    """An exchange rate's source as the output names it."""
    return _(source) if source == USER_RATE_SOURCE else source_words(source)


def per_usd(usd_per_unit: float) -> str:
    """Units of a currency per US dollar, as every rate is stated (``1 USD = 7.1429 CNY``: the way
    the People's Bank of China quotes its central parity), from a rate kept as USD per unit."""
    return f"{1.0 / usd_per_unit:.4f}"


#: Display currencies and their symbols. "¥" is how prices in renminbi are written in China.
CURRENCY_SYMBOLS: dict[str, str] = {"USD": "$", "CNY": "¥"}


def format_number(value: float | None, digits: int = 4, unknown: str = "—") -> str:
    """A number with up to ``digits`` significant digits and thousands separators; ``unknown`` for None."""
    if value is None or not math.isfinite(value):
        return unknown
    if value == int(value) and abs(value) < 1e15:
        return f"{int(value):,}"
    return f"{value:,.{digits}g}" if abs(value) < 1000 else f"{value:,.0f}"


def format_percent(fraction: float | None, unknown: str = "—") -> str:
    """``0.123`` as ``12%``; one decimal under 10 % (``0.4%``), ``<0.1%`` for tiny non-zero values."""
    if fraction is None or not math.isfinite(fraction):
        return unknown
    pct = fraction * 100
    if pct == 0:
        return "0%"
    if abs(pct) < 0.1:
        return "<0.1%" if pct > 0 else "-<0.1%"
    return f"{pct:.1f}%" if abs(pct) < 10 else f"{pct:,.0f}%"


def format_hours(hours: float | None) -> str:
    """A duration in hours for people: seconds, minutes, hours or days, as fits (``?`` if unknown)."""
    if hours is None or not math.isfinite(hours):
        return "?"
    if hours < 1 / 60:
        return _("{n} s").format(n=f"{hours * 3600:.0f}")
    if hours < 1:
        # A decimal under 20 min: short jobs differ by less than a minute (10.4 vs 10.9 min).
        minutes = hours * 60
        return _("{n} min").format(n=f"{minutes:.1f}" if minutes < 20 else f"{minutes:.0f}")
    if hours < 48:
        return _("{n} h").format(n=f"{hours:.1f}")
    return _("{n} d").format(n=f"{hours / 24:.1f}")


def format_minutes(minutes: float) -> str:
    """A short duration given in minutes, as a checkpoint write is said: seconds under a minute (one
    decimal under ten), else minutes to a tenth. "6 × 0.0 min = 17 s" had read as an error for a
    2.75 s write; "6 × 2.8 s = 17 s" adds up."""
    if minutes < 1:
        seconds = minutes * 60
        return _("{n} s").format(n=f"{seconds:.1f}" if seconds < 10 else f"{seconds:.0f}")
    return _("{n} min").format(n=f"{minutes:.1f}")


def format_gb(gb: float) -> str:
    """A size in GB as a line writes it: whole GB from 10 up (``1,000``), two significant digits
    below (``0.5``, ``0.2``, ``1.5``): a 0.2 GB dataset had read "0 GB"."""
    return f"{gb:,.0f}" if gb >= 10 else f"{gb:.2g}"


def format_age(days: int | None) -> str:
    """How old a price is, for people: days under two months, months under two years, else years
    (``?`` if unknown)."""
    if days is None:
        return "?"
    if days < 60:
        return _("{n} d").format(n=days)
    if days < 730:
        return _("{n} mo").format(n=round(days / 30.44))
    return _("{n} y").format(n=f"{days / 365.25:.1f}")


def _decimals(amount: float) -> int:
    """2 decimals for cents, 0 from 10,000 up, two significant digits below one cent-ish amounts."""
    a = abs(amount)
    if a >= 10_000:
        return 0
    if a >= 1 or a == 0:
        return 2
    return min(6, max(2, -math.floor(math.log10(a)) + 1))


@dataclass(frozen=True, kw_only=True)
class Money:
    """How to show USD amounts: in ``currency``, at a dated rate.

    Build it with :meth:`usd` or :meth:`from_rate` (the catalog's :class:`ExchangeRate` fields).
    """

    currency: str = "USD"
    """Display currency code (ISO 4217, upper case)."""
    units_per_usd: float = 1.0
    """Units of ``currency`` per US dollar."""
    as_of: str | None = None
    """Date of the rate (None for USD)."""
    source: str | None = None
    """Where the rate comes from (None for USD)."""
    age_days: int | None = None
    """Days from ``as_of`` to the day the catalog was opened (None: unknown, or USD)."""
    stale_after_days: int | None = None
    """The age past which the rate is flagged; None: never flagged (a rate nobody dated for us)."""

    def __post_init__(self) -> None:
        if self.currency not in CURRENCY_SYMBOLS:
            raise NotFoundError("currency", self.currency, list(CURRENCY_SYMBOLS))
        if not (math.isfinite(self.units_per_usd) and self.units_per_usd > 0):
            raise DataError.worded(
                N_("exchange rate must be a positive number, got {rate!r}"), rate=self.units_per_usd
            )

    @classmethod
    def usd(cls) -> Money:
        """Amounts shown as they are computed, in US dollars."""
        return cls()

    @classmethod
    def from_rate(
        cls,
        currency: str,
        *,
        usd_per_unit: float,
        as_of: str,
        source: str,
        age_days: int | None = None,
        stale_after_days: int | None = None,
    ) -> Money:
        """Show amounts in ``currency``, one unit of which is worth ``usd_per_unit`` USD; a rate
        older than ``stale_after_days`` says so wherever its note is shown."""
        code = currency.strip().upper()
        if code == "USD":
            return cls.usd()
        if not (math.isfinite(usd_per_unit) and usd_per_unit > 0):
            raise DataError.worded(
                N_("exchange rate for {currency} must be a positive number, got {rate!r}"),
                currency=code,
                rate=usd_per_unit,
            )
        return cls(
            currency=code,
            units_per_usd=1.0 / usd_per_unit,
            as_of=as_of,
            source=source,
            age_days=age_days,
            stale_after_days=stale_after_days,
        )

    @property
    def symbol(self) -> str:
        """``$`` or ``¥``."""
        return CURRENCY_SYMBOLS[self.currency]

    def amount(self, usd: float) -> float:
        """``usd`` converted to the display currency."""
        return usd * self.units_per_usd

    def format(self, usd: float | None, *, per: str | None = None, unknown: str = "?") -> str:
        """``usd`` in the display currency: ``$1,234.50``, ``¥8,878``, ``$2.50/h`` with ``per="h"``."""
        if usd is None or not math.isfinite(usd):
            return unknown
        return self.format_native(self.amount(usd), per=per)

    def format_native(self, amount: float, *, per: str | None = None) -> str:
        """An amount already in the display currency."""
        text = f"{self.symbol}{abs(amount):,.{_decimals(amount)}f}"
        if amount < 0:
            text = "-" + text
        return f"{text}/{per}" if per else text

    def format_compact(self, amount: float) -> str:
        """An amount in the display currency for a chart axis: as :meth:`format_native` below
        10,000, else in thousands (``$12k``) — in Chinese in 万 (ten thousands, ``¥1.2万``), as a
        Chinese reader counts."""
        if abs(amount) < 10_000:
            return self.format_native(amount)
        if current_language() is Language.ZH:
            return f"{self.symbol}{amount / 10_000:,.4g}万"
        return f"{self.symbol}{amount / 1000:,.0f}k"

    def format_range(self, low_usd: float | None, high_usd: float | None, *, per: str | None = None) -> str:
        """``$27.61–61.20`` (one symbol, so it stays narrow); one value when both round the same."""
        low, high = self.format(low_usd), self.format(high_usd)
        if low == high:
            return self.format(low_usd, per=per)
        tail = high.removeprefix(self.symbol) if high.startswith(self.symbol) else high
        text = f"{low}–{tail}"
        return f"{text}/{per}" if per else text

    @property
    def stale(self) -> bool:
        """The rate is older than ``stale_after_days`` (or of unknown age while a limit is set)."""
        if self.currency == "USD" or self.stale_after_days is None:
            return False
        return self.age_days is None or self.age_days > self.stale_after_days

    def rate_note(self) -> str:
        """The rate used, for the output's footnote, with a warning when it is stale; empty for USD."""
        if self.currency == "USD":
            return ""
        note = _("Amounts in {currency} at 1 USD = {rate} {currency} (as of {date}; {source}).").format(
            currency=self.currency,
            rate=f"{self.units_per_usd:.4f}",  # as per_usd writes it
            date=self.as_of or "?",
            source=rate_source(self.source) if self.source else "?",
        )
        warning = self.rate_warning()
        return sentences(note, warning)

    def rate_warning(self) -> str:
        """The warning :meth:`rate_note` ends with when the rate is stale; empty otherwise."""
        limit = self.stale_after_days
        if not self.stale or limit is None:
            return ""
        return stale_rate_warning(self.currency, self.as_of, self.age_days, limit)

    def without_rate_warning(self, notes: Iterable[str]) -> list[str]:
        """``notes``, where :meth:`rate_note` warns that the rate is old, without that warning at
        their end (the conversion of prices published in this currency says it too): an output
        that shows the rate note with its totals says it once, there."""
        warning = self.rate_warning()
        tail = f" {warning}"
        return [n.removesuffix(tail) if warning else n for n in notes]

    def notes_with_rate(self, notes: Iterable[str]) -> list[str]:
        """``notes`` (:meth:`without_rate_warning`) followed by :meth:`rate_note`, if any."""
        rate = self.rate_note()
        kept = self.without_rate_warning(notes)
        return [*kept, rate] if rate else kept


def stale_rate_warning(currency: str, as_of: str | None, age_days: int | None, limit_days: int) -> str:
    """What every output that converts money says when its rate is older than ``limit_days``; a
    reader who cannot give a rate of their own (a caller of the service) is not told to."""
    own = reader_gives("--cny-per-usd")
    if age_days is None:
        unknown = (
            _(
                "Warning: the age of the {currency} rate (as of {date}) is not known; "
                "`gpuplan catalog refresh --rates` fetches a dated one, or give yours with --cny-per-usd."
            )
            if own
            else _(
                "Warning: the age of the {currency} rate (as of {date}) is not known; "
                "`gpuplan catalog refresh --rates` fetches a dated one."
            )
        )
        return unknown.format(currency=currency, date=as_of or "?")
    old = (
        _(
            "Warning: the {currency} rate of {date} is {days} days old (more than {limit}); "
            "`gpuplan catalog refresh --rates` fetches the latest, or give yours with --cny-per-usd."
        )
        if own
        else _(
            "Warning: the {currency} rate of {date} is {days} days old (more than {limit}); "
            "`gpuplan catalog refresh --rates` fetches the latest."
        )
    )
    return old.format(currency=currency, date=as_of or "?", days=age_days, limit=limit_days)


def format_amount(amount: float | None, currency: str, *, per: str | None = None) -> str:
    """An amount in its own currency (a price as published): ``¥12.00/h``; ``12.00 EUR`` if unknown code."""
    if amount is None or not math.isfinite(amount):
        return "?"
    code = currency.strip().upper()
    if code in CURRENCY_SYMBOLS:
        return Money(currency=code).format_native(amount, per=per)
    text = f"{amount:,.{_decimals(amount)}f} {code}"
    return f"{text}/{per}" if per else text


_current_money: ContextVar[Money] = ContextVar("gpuplan_money", default=Money())  # noqa: B039 - frozen


def current_money() -> Money:
    """How USD amounts are shown right now (set per command, like the language)."""
    return _current_money.get()


def set_money(value: Money) -> Token[Money]:
    """Show USD amounts as ``value`` from now on in this context (the CLI's ``--currency``)."""
    return _current_money.set(value)


@contextmanager
def use_money(value: Money) -> Iterator[Money]:
    """Show USD amounts as ``value`` inside the ``with`` block."""
    token = _current_money.set(value)
    try:
        yield value
    finally:
        _current_money.reset(token)


def money(usd: float | None, *, per: str | None = None) -> str:
    """``usd`` in the current display currency: the one call every message with money uses."""
    return _current_money.get().format(usd, per=per)


def money_per(total_usd: float, quantity: float, *, per: str | None = None) -> str:
    """The unit price a total was charged at, ``total_usd`` over ``quantity`` (as shown beside it,
    :func:`format_number`), in the current display currency with as many decimals as it takes for
    the shown quantity times it to give the shown total: ``$0.123/GB`` beside "31.93 GB … $3.93",
    where ``$0.12/GB`` had not given $3.93 back. Two decimals at the least, six at the most; where
    no rate gives it back (the quantity shown rounded to thousands), the rate to four significant
    digits."""
    m = _current_money.get()
    shown = float(format_number(quantity).replace(",", ""))
    rate = m.amount(total_usd) / quantity if quantity else 0.0
    target = m.format(total_usd)
    for decimals in range(2, 7):
        if m.format_native(round(rate, decimals) * shown) == target:
            break
    else:  # the shown quantity is rounded too far (4,520 GB of 4,519.75): the rate to 4 digits
        return _rate_text(rate, per)
    text = f"{m.symbol}{round(rate, decimals):,.{decimals}f}"
    return f"{text}/{per}" if per else text


def money_rate(usd: float, *, per: str | None = None) -> str:
    """A unit price (``usd`` per GB, per GB-month) in the current display currency with the digits
    it has, to four significant ones, and never fewer decimals than :func:`money` gives it:
    ``$0.123/GB``, where :func:`money` writes ``$0.12/GB``. An assumed rate said beside the one
    charged (:func:`money_per`) then reads as the same figure."""
    amount = _current_money.get().amount(usd)
    return _rate_text(amount, per, least=_decimals(amount))


def _rate_text(rate: float, per: str | None, *, least: int = 2) -> str:
    """``rate`` (already in the display currency) to four significant digits, ``least`` to 6
    decimals."""
    rate = float(f"{rate:.4g}")
    decimals = min(6, max(least, len(f"{rate:.6f}".rstrip("0").split(".")[1])))
    text = f"{_current_money.get().symbol}{round(rate, decimals):,.{decimals}f}"
    return f"{text}/{per}" if per else text
