"""Exchange rates from a public dated source: the ECB's euro foreign exchange reference rates.

The European Central Bank publishes, every TARGET working day at about 16:00 CET, the euro's
reference rate against some 30 currencies, USD and CNY among them, as one small XML file without a
key (https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml; described on the ECB's page
"Euro foreign exchange reference rates",
https://www.ecb.europa.eu/stats/policy_and_exchange_rates/euro_reference_exchange_rates/html/index.en.html,
read 2026-12-02). Its layout, as published since 2002::

    <gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01"
                     xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
      <gesmes:subject>Reference rates</gesmes:subject> …
      <Cube><Cube time='2024-06-28'><Cube currency='USD' rate='1.0705'/> …
        <Cube currency='CNY' rate='7.7748'/> …</Cube></Cube>
    </gesmes:Envelope>

Each rate is units of the currency per euro, so the yuan per US dollar is the cross rate
CNY per EUR ÷ USD per EUR (7.7748 / 1.0705 = 7.2628 on 2024-06-28). It is a market rate at the
ECB's concertation, not the China Foreign Exchange Trade System's central parity: the yuan may
trade 2 % either side of the parity each day (Xinhua, "Chinese yuan weakens to 7.1159 against USD
Wednesday", 2024-06-19, http://en.people.cn/n3/2024/0619/c90000-20182980.html), so the two differ
by up to that much. The source string of every rate says which it is.

The file may come from elsewhere (``catalog refresh --from DIR``), so it is read within bounds:
at most :data:`MAX_RATES_BYTES`, no document type declaration (so no entity can expand), and
every rate a finite positive number.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import TYPE_CHECKING

from gpuplan.catalog.model import RATE_STALE_AFTER_DAYS, ExchangeRate, OfferPrice
from gpuplan.errors import DataError, Phrase
from gpuplan.i18n import N_, _, ngettext, stale_rate_warning
from gpuplan.i18n.sources import ECB_RATE_SOURCE

if TYPE_CHECKING:
    from gpuplan.catalog.providers.http import Http

__all__ = [
    "ECB_DAILY_URL",
    "MAX_RATES_BYTES",
    "MAX_RATE_CHANGE",
    "RATES_SOURCE",
    "EcbDay",
    "cny_rate",
    "converted_currencies",
    "fetch_cny_rate",
    "parse_ecb",
    "rate_warning",
    "read_as_yuan",
    "used_rates",
]

#: The ECB's daily reference rates (the latest working day), keyless.
ECB_DAILY_URL = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml"
#: What a refresh of the rates is called in ``refresh_runs`` and the ``--save``/``--from`` folder.
RATES_SOURCE = "ecb"
#: The daily file is ~1.6 kB and the 90-day one ~40 kB; the full history since 1999 ~600 kB.
MAX_RATES_BYTES = 2 * 1024 * 1024
#: A new rate more than this factor away from the catalog's last one is taken for a broken file:
#: USD/CNY has stayed between 6.0 and 8.3 since 2005, moving at most ~2 % a day.
MAX_RATE_CHANGE = 1.5

_NS = "{http://www.ecb.int/vocabulary/2002-08-01/eurofxref}"
_DECLARATION = re.compile(rb"<!\s*(?:DOCTYPE|ENTITY)", re.IGNORECASE)


@dataclass(frozen=True)
class EcbDay:
    """One day of the ECB's reference rates."""

    day: str
    """The day the rates were set (``YYYY-MM-DD``)."""
    per_eur: dict[str, float]
    """Units of each currency per euro."""


def _not_rates(why: Phrase | str) -> DataError:
    return DataError.worded(N_("not the ECB's reference-rate XML: {why}"), why=why)


def parse_ecb(body: bytes, *, today: date) -> EcbDay:
    """The latest day of an ECB reference-rate file (the daily file, or the 90-day or full history,
    which list several days): DataError when the body is not such a file, when a rate is not a
    positive number, or when its day lies after ``today`` (one day of slack for time zones)."""
    from xml.etree import ElementTree

    if len(body) > MAX_RATES_BYTES:
        raise _not_rates(
            Phrase(N_("{size} bytes, more than {limit}"), size=f"{len(body):,}", limit=f"{MAX_RATES_BYTES:,}")
        )
    if _DECLARATION.search(body):
        # The ECB's file has none; a declaration could define entities that expand on parsing.
        raise _not_rates(Phrase(N_("it declares a document type or entities")))
    try:
        root = ElementTree.fromstring(body)
    except ElementTree.ParseError as e:
        raise _not_rates(str(e)) from None  # expat's own words, e.g. "mismatched tag: line 3, column 2"
    days: dict[str, dict[str, float]] = {}
    for cube in root.iter(f"{_NS}Cube"):
        when = cube.get("time")
        if when is None:
            continue
        try:
            day = date.fromisoformat(when)
        except ValueError:
            raise _not_rates(Phrase(N_("time {value!r} is not a date"), value=when[:40])) from None
        if day > today + timedelta(days=1):
            raise _not_rates(Phrase(N_("rates dated {day}, after today ({today})"), day=day, today=today))
        rates: dict[str, float] = {}
        for child in cube.iter(f"{_NS}Cube"):
            code, value = child.get("currency"), child.get("rate")
            if code is None or value is None:
                continue
            try:
                rate = float(value)
            except ValueError:
                rate = math.nan
            if not (math.isfinite(rate) and rate > 0):
                raise _not_rates(
                    Phrase(
                        N_("{currency} rate {value!r} is not a positive number"),
                        currency=code[:8],
                        value=value[:40],
                    )
                )
            rates[code.strip().upper()] = rate
        days[day.isoformat()] = rates
    if not days:
        raise _not_rates(Phrase(N_("no dated rates in it")))
    latest = max(days)
    return EcbDay(day=latest, per_eur=days[latest])


def cny_rate(ecb: EcbDay, *, url: str, fetched_at: str) -> ExchangeRate:
    """The CNY rate of ``ecb``'s day as USD per yuan: the cross rate USD per EUR ÷ CNY per EUR."""
    missing = [c for c in ("USD", "CNY") if c not in ecb.per_eur]
    if missing:
        raise DataError.worded(
            N_("the ECB's reference rates of {day} have no {currency} rate"), day=ecb.day, currency=missing[0]
        )
    usd, cny = ecb.per_eur["USD"], ecb.per_eur["CNY"]
    return ExchangeRate(
        currency="CNY",
        usd_per_unit=usd / cny,
        as_of=ecb.day,
        # stored in English, as every source line is (put into the reader's language when shown)
        source=ECB_RATE_SOURCE.format(
            day=ecb.day, url=url, at=fetched_at, usd=f"{usd:g}", cny=f"{cny:g}", rate=f"{cny / usd:.4f}"
        ),
    )


def fetch_cny_rate(http: Http, *, today: date, fetched_at: str) -> ExchangeRate:
    """The latest CNY rate the ECB publishes, through ``http`` (live, saved or replayed)."""
    body = http.request("GET", ECB_DAILY_URL, max_bytes=MAX_RATES_BYTES)  # refused past it, unread
    return cny_rate(parse_ecb(body, today=today), url=ECB_DAILY_URL, fetched_at=fetched_at)


def rate_warning(rate: ExchangeRate | None) -> str | None:
    """The warning an output that converts at ``rate`` adds when the rate is older than
    :data:`~gpuplan.catalog.model.RATE_STALE_AFTER_DAYS` (None when it is fresh, or no rate)."""
    if rate is None or not rate.stale:
        return None
    return stale_rate_warning(rate.currency, rate.as_of, rate.age_days, RATE_STALE_AFTER_DAYS)


def read_as_yuan(written: str, rate: ExchangeRate, usd: str | None) -> str:
    """How a budget given in yuan (``written``: as the user gave it, ``¥60,000,000``) was read, in
    the current language: as yuan, at ``rate``, with its date and age, and what it came to (``usd``,
    formatted; None where the line shows it already): "¥60,000,000 read as yuan (CNY) at 6.9858 CNY
    per USD, 2026-01-27, 314 days old: $8,588,852". A bare ¥ is the yuan's sign in China, and the
    yen's in Japan: a budget that said only its figure in dollars had taken a team's ¥60,000,000 of
    yen for yuan without a word."""
    from gpuplan.i18n.numbers import per_usd

    if rate.age_days is None:
        age = _("of unknown age")
    else:
        age = ngettext("{days} day old", "{days} days old", rate.age_days).format(days=rate.age_days)
    read = _("{written} read as yuan (CNY) at {rate} CNY per USD, {date}, {age}").format(
        written=written, rate=per_usd(rate.usd_per_unit), date=rate.as_of, age=age
    )
    return read if usd is None else _("{read}: {usd}").format(read=read, usd=usd)


def converted_currencies(prices: Iterable[OfferPrice], shown_in: str = "USD") -> set[str]:
    """The currencies other than USD whose rate converted one of ``prices`` to ``shown_in``: a CNY
    price shown in USD, or a USD price shown in CNY. A price already in ``shown_in``, or with no
    price, converts nothing, so its currency's rate (and that rate's age warning) is not named."""
    used: set[str] = set()
    for p in prices:
        if p.price is not None and p.currency and p.currency != shown_in:
            used |= {p.currency, shown_in} - {"USD"}
    return used


def used_rates(
    rates: Iterable[ExchangeRate], prices: Iterable[OfferPrice], shown_in: str
) -> list[ExchangeRate]:
    """Those of ``rates`` that converted one of ``prices`` to ``shown_in`` (:func:`converted_currencies`)."""
    used = converted_currencies(prices, shown_in)
    return [r for r in rates if r.currency in used]
