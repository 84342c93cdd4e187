"""How much of a reservation is paid upfront: the effective rate of the chosen payment option.

A reservation is priced in the catalog as Standard No Upfront (Convertible where the row's class
is Convertible). AWS sells three payment options of each term (AWS whitepaper "Amazon EC2 Reserved
Instances and Other AWS Reservation Models", section "Reserved Instances payment options",
https://docs.aws.amazon.com/whitepapers/latest/cost-optimization-reservation-models/reserved-instances-payment-options.html,
read 2026-12-06): *No Upfront* bills a discounted hourly rate for every hour of the term; *Partial
Upfront* takes "a portion of the cost" upfront and bills the remaining hours at a discounted rate;
*All Upfront* is one payment "at the start of the term, with no other costs". A shipped AWS row's
``term["all_terms_usd_per_hour"]`` carries each option's *effective* hourly rate (the upfront part
spread over the term's hours, as instances.vantage.sh publishes them; ``all_terms_as_of`` dates
them): so all upfront pays ``rate × term hours`` on day one, and a partial upfront's split between
the upfront part and the hourly part is not in the data.

Unknown is never the best case: a row without the chosen option's rate (other providers, a row
without ``all_terms``, a row whose own rate is not the one the terms were published beside) keeps
its own rate and says the option is not known for it; it is never costed at a cheaper guess.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from gpuplan.catalog.dates import price_age
from gpuplan.catalog.model import OfferPrice
from gpuplan.hardware import launch_month
from gpuplan.i18n.messages import N_
from gpuplan.vocab import Upfront

__all__ = ["UPFRONT_TERM_KEYS", "effective_rate", "upfront_name", "upfront_said", "with_upfront"]

#: The key of each payment option in ``term["all_terms_usd_per_hour"]`` (instances.vantage.sh's).
UPFRONT_TERM_KEYS: Mapping[Upfront, str] = {
    Upfront.NONE: "noUpfront",
    Upfront.PARTIAL: "partialUpfront",
    Upfront.ALL: "allUpfront",
}

#: How far a row's own rate may stand from the no-upfront rate its terms were published beside
#: (relative): further, the terms are of another price list than the row's, and their rates are
#: not applied to it.
_SAME_LIST = 0.005

_RESERVED_YEARS = {"reserved_1y": 1, "reserved_3y": 3}


def effective_rate(term: Mapping[str, Any] | None, pricing: str | None, upfront: Upfront) -> float | None:
    """The effective USD per hour of ``upfront`` for a reserved row's ``term``, of the row's own
    offering class and term length; None where the term does not carry it."""
    years = _RESERVED_YEARS.get(pricing or "")
    if years is None or not term:
        return None
    rates = term.get("all_terms_usd_per_hour")
    if not isinstance(rates, Mapping):
        return None
    klass = "Convertible" if term.get("offering_class") == "convertible" else "Standard"
    rate = rates.get(f"yrTerm{years}{klass}.{UPFRONT_TERM_KEYS[upfront]}")
    return float(rate) if isinstance(rate, int | float) and rate > 0 else None


def with_upfront(prices: Sequence[OfferPrice], upfront: Upfront | str | None) -> list[OfferPrice]:
    """``prices`` with every reserved row costed at ``upfront``'s effective rate where its term
    carries it; every other row as it is. A reserved row whose term does not carry the rate keeps
    its own and says so in ``term["upfront_known"]`` (False)."""
    choice = Upfront.cast(upfront) if upfront is not None else Upfront.NONE
    if choice is Upfront.NONE:
        return list(prices)
    return [_one(p, choice) for p in prices]


def _one(p: OfferPrice, choice: Upfront) -> OfferPrice:
    years = _RESERVED_YEARS.get(p.pricing or "")
    if years is None or p.price_usd_per_hour is None:
        return p
    term = dict(p.term or {})
    rate = effective_rate(term, p.pricing, choice)
    listed = effective_rate(term, p.pricing, Upfront.NONE)
    # The row's own rate is the no-upfront one (before the user's discount): the options' rates
    # are applied only when they were published beside that same rate.
    own = p.price if p.currency == "USD" and p.unit == "hour" else None
    same_list = own is not None and listed is not None and abs(own - listed) <= _SAME_LIST * listed
    if rate is None or not same_list:
        term.update(upfront=choice.value, upfront_known=False)
        return replace(p, term=term)
    off = 1.0 - (p.discount_percent or 0.0) / 100.0
    hourly = rate * off
    term_hours = 8760.0 * years
    term.update(
        upfront=choice.value,
        upfront_known=True,
        purchase_option={Upfront.PARTIAL: "Partial Upfront", Upfront.ALL: "All Upfront"}[choice],
        billing={
            Upfront.PARTIAL: "a part at the start of the term, the rest hourly for the whole term",
            Upfront.ALL: "the whole term at its start",
        }[choice],
        effective_usd_per_hour=hourly,
        # all upfront: the whole term paid on day one; partial: the split is not published
        upfront_usd_per_instance=hourly * term_hours if choice is Upfront.ALL else None,
        no_upfront_usd_per_hour=p.price_usd_per_hour,
    )
    as_of = str(term.get("all_terms_as_of") or p.as_of or "")
    ages: dict[str, Any] = {}
    if p.priced_on is not None and p.stale_after_days is not None:
        age = price_age(as_of, p.priced_on, p.stale_after_days, launch_month(p.gpu))
        ages = {
            "as_of_precision": age.precision.value if age.precision else None,
            "age_days": age.age_days,
            "age_min_days": age.age_min_days,
            "staleness": age.staleness,
            "stale": age.stale,
            "age_bound_launch": age.launched,
        }
    return replace(
        p,
        price=rate,
        price_usd_per_hour=hourly,
        price_usd_per_gpu_hour=hourly / p.gpu_count if p.gpu_count > 0 else None,
        list_price_usd_per_hour=rate if p.discount_percent is not None else None,
        as_of=as_of,
        term=term,
        **ages,
    )


def upfront_said(p: OfferPrice) -> str:
    """Said after a reserved price's source wherever it is costed (plan, tco): the payment option
    costed, its date, and the cash it needs on day one — or that the option asked for is not known
    for this row and its own (no-upfront) rate is kept. '' where no option was asked for."""
    term = p.term or {}
    choice = term.get("upfront")
    if choice is None or choice == Upfront.NONE.value:
        return ""
    from gpuplan.i18n import _, money

    name = upfront_name(choice)
    if not term.get("upfront_known"):
        said = _("{option} not known for this offer: its no-upfront rate is kept").format(option=name)
        return f" [{said}]"
    cash = term.get("upfront_usd_per_instance")
    if isinstance(cash, int | float):
        said = _(
            "{option}: effective rate of {date} (the upfront payment spread over the term); "
            "{cash} per instance paid on day one"
        ).format(option=name, date=p.as_of or "?", cash=money(cash))
    else:
        said = _(
            "{option}: effective rate of {date} (the upfront part spread over the term); "
            "how much is paid upfront and how much hourly is not known"
        ).format(option=name, date=p.as_of or "?")
    return f" [{said}]"


def upfront_name(value: str) -> str:
    """The payment option in words, in the user's language (``all upfront``)."""
    from gpuplan.i18n import _

    names = {
        Upfront.NONE.value: N_("no upfront"),
        Upfront.PARTIAL.value: N_("partial upfront"),
        Upfront.ALL.value: N_("all upfront"),
    }
    return _(names[value]) if value in names else value
