"""The cash a tco schedule pays each month, beside the cost it counts.

The schedule costs a reservation at its effective rate, spread evenly over its term's months (what
it is worth each month, and what the total and the break-even compare). A reservation paid all
upfront is paid otherwise: the whole term "at the start of the term, with no other costs" (AWS
whitepaper "Amazon EC2 Reserved Instances and Other AWS Reservation Models", section "Reserved
Instances payment options",
https://docs.aws.amazon.com/whitepapers/latest/cost-optimization-reservation-models/reserved-instances-payment-options.html,
read 2026-12-06). A finance reader needs that cash in the month it leaves: :func:`cash_by_month`
moves each all-upfront contract out of the months it is spread over and into the first month of
its term. A partial upfront pays "a portion of the cost" at the start and the rest hourly; the
catalog holds only its effective rate, not the split, so its cash is not known and is said so
(:func:`cash_lines`), never guessed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpuplan.i18n import _
from gpuplan.i18n.phrases import item_list

if TYPE_CHECKING:
    from gpuplan.commit import TcoReport

__all__ = ["CashByMonth", "cash_by_month", "cash_lines"]


@dataclass(frozen=True, kw_only=True)
class CashByMonth:
    """What leaves each month of the horizon, USD, where a reservation is paid all upfront."""

    months: tuple[float, ...]
    """One per month of the horizon: the month's cost with each all-upfront contract's share taken
    out, and each such contract's whole upfront paid in the first month of its term."""
    past_horizon_usd: float
    """The term months billed after the horizon (``past_horizon: full``) less the all-upfront
    contracts' share of them, already paid at their start."""


def cash_by_month(report: TcoReport) -> CashByMonth | None:
    """The schedule's cash by month (:class:`CashByMonth`); None where no reservation it buys is
    paid all upfront (the cost per month is then the cash, but for a partial upfront's unknown
    split)."""
    s = report.schedule
    upfront = [c for c in s.commitments if c.upfront_usd is not None]
    if not upfront:
        return None
    months = [m.cost_usd for m in s.monthly]
    past = s.past_horizon_usd
    for c in upfront:
        # as the schedule spreads it (recourse.price): units × the monthly rate, in its billed months
        per_month = c.units * c.offer.usd_per_unit_month
        for m in range(c.start_month, c.start_month + report.problem.billed_months(c.offer, c.start_month)):
            if m < len(months):
                months[m] -= per_month
            else:
                past -= per_month
        # the whole term, whatever the past-horizon rule bills of it: it is paid on day one
        months[c.start_month] += c.upfront_usd or 0.0
    return CashByMonth(months=tuple(max(0.0, v) for v in months), past_horizon_usd=max(0.0, past))


def cash_lines(report: TcoReport) -> list[str]:
    """What the cost per month counts of an upfront reservation and when its cash is paid: where one
    is paid all upfront, that the cash column puts it whole in its term's first month; where one is
    paid partly upfront, that its first month's cash is not known."""
    u, money, s = report.usage, report.money, report.schedule
    lines = []
    paid = [c for c in s.commitments if c.upfront_usd is not None]
    if paid:
        lines.append(
            _(
                "The cost per month spreads an all-upfront reservation evenly over its term's months, as "
                "the total counts it; the cash column is what is paid each month, each upfront payment "
                "whole in the first month of its term: {payments}."
            ).format(
                payments=item_list(
                    _("{amount} in {month}").format(
                        amount=money.format(c.upfront_usd or 0.0), month=u.month_label(c.start_month)
                    )
                    for c in sorted(paid, key=lambda c: c.start_month)
                )
            )
        )
    if (after := sum(c.contract_usd - c.cost_usd for c in paid)) > 0.005:
        # past_horizon: remaining_value bills the months inside the horizon only; the cash is the term
        lines.append(
            _(
                "The cash paid includes {amount} for term months after the horizon, which the total "
                "leaves out as worth their price (past_horizon: remaining_value)."
            ).format(amount=money.format(after))
        )
    if any(c.offer.upfront == "partial" for c in s.commitments):
        lines.append(
            _(
                "A partial-upfront reservation is spread evenly over its term's months here, at its "
                "effective rate: a part of it is paid at the start of its term and the rest by the hour "
                "over the term, and how much is paid at the start is not published with the rate, so the "
                "cash of its first month is not known (more than this table shows)."
            )
        )
    return lines
