"""Billing arithmetic, vectorised: billed compute time per pricing model, tiered transfer prices.

Each function takes numpy arrays (one element per candidate) and returns arrays; none loops in
Python over candidates.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gpuplan.plan.input_types import HOURS_PER_MONTH, FloatArray, UsdTransferTier

__all__ = [
    "DEFAULT_GRANULARITY_S",
    "billed_hours",
    "compute_cost_usd",
    "tiered_cost_usd",
    "without_free_allowance",
]

#: Billing step used when the catalog does not state one: a whole hour, the coarsest step any of
#: the seven clouds uses for GPU instances, so the cost is never understated. Options priced
#: with it say "billing granularity unknown: hourly assumed", or, where the provider documents a
#: per-second increment with a minimum the catalog does not hold (Alibaba), that instead.
DEFAULT_GRANULARITY_S = 3600.0


def billed_hours(hours: FloatArray, granularity_s: FloatArray, min_billing_s: FloatArray) -> FloatArray:
    """Hours billed for ``hours`` of use: rounded up to the billing step, then at least the minimum.

    Unknown granularity (nan) bills per hour; unknown minimum (nan) means none.
    e.g. 1.01 h at per-second billing with a 60 s minimum -> 1.01 h; at hourly billing -> 2 h.
    """
    g = np.where(np.isnan(granularity_s), DEFAULT_GRANULARITY_S, granularity_s)
    m = np.where(np.isnan(min_billing_s), 0.0, min_billing_s)
    seconds = hours * 3600.0
    # Subtract a hair before ceil so that 3600.0000000001 s (float noise) stays one hour.
    steps = np.ceil(np.maximum(seconds / g - 1e-9, 0.0))
    return np.maximum(steps * g, m) / 3600.0


def compute_cost_usd(
    hours: FloatArray,
    price_usd: FloatArray,
    unit_hours: FloatArray,
    term_hours: FloatArray,
    granularity_s: FloatArray,
    min_billing_s: FloatArray,
    instances: FloatArray,
    *,
    calendar_months: float | None = None,
) -> FloatArray:
    """What ``instances`` instances cost for ``hours`` each, by pricing model:

    - reserved (``term_hours`` known): the whole commitment, in whole terms
      (``price × term/unit × ceil(hours/term)``), because the user pays for the term whether the job
      uses it or not;
    - monthly (``unit_hours`` = 730): whole months, ``price × ceil(hours/730)``;
    - hourly (on-demand, spot): ``price × billed_hours`` (granularity and minimum).

    ``calendar_months``: the job is a stretch of calendar time (a service run for one month), not a
    piece of work; monthly terms are then counted in those months (``ceil(calendar_months)``
    months), with the set-up inside the first one, as a subscription bought when the capacity is
    booted is. e.g. a one-month service on a 1,000 USD/month price costs 1,000 USD, not 2,000 USD
    for 730 h + 10 min of set-up. A reservation is then billed its share of the term,
    ``price × calendar hours / unit``: a service runs on past the month a plan prices, and a
    reservation is only allowed where the user has said its capacity is used for the whole term
    (``--commitment 1y|3y``), as ``simulate``'s committed replicas are charged their span's share.
    A 1-year reservation of a service priced for one whole term would cost twelve times its month
    and never be recommended, where it averages 37 % under on-demand (AWS p4d.24xlarge: 13.92 against
    21.96 USD/h). What the whole term commits to is the plan option's ``commitment_usd``. Hourly
    prices still bill ``hours``.
    """
    reserved = ~np.isnan(term_hours)
    monthly = ~reserved & (unit_hours >= HOURS_PER_MONTH)
    hourly_units = billed_hours(hours, granularity_s, min_billing_s) / unit_hours
    term_basis_h = (
        hours if calendar_months is None else np.full_like(hours, calendar_months * HOURS_PER_MONTH)
    )
    month_units = np.ceil(np.maximum(term_basis_h / HOURS_PER_MONTH - 1e-9, 0.0))
    safe_term = np.where(reserved, term_hours, 1.0)
    whole_terms = np.ceil(np.maximum(term_basis_h / safe_term - 1e-9, 0.0)) * safe_term
    term_units = (term_basis_h if calendar_months is not None else whole_terms) / unit_hours
    units = np.where(reserved, term_units, np.where(monthly, month_units, hourly_units))
    result: FloatArray = price_usd * units * instances
    return result


def tiered_cost_usd(gb: FloatArray, tiers: Sequence[UsdTransferTier]) -> FloatArray:
    """Cost of moving ``gb`` through monthly volume tiers, each GB at the price of its tier.

    Assumes the job's transfer is the only traffic of the month (so it starts in the first tier).
    e.g. AWS tiers (100 GB free, then $0.09 up to 10 TB): 150 GB -> 100 × 0 + 50 × 0.09 = $4.50.
    Pass :func:`without_free_allowance` tiers unless the account's free allowance is known unused.
    """
    total = np.zeros_like(gb, dtype=float)
    lower = 0.0
    for tier in tiers:
        in_tier = np.clip(gb - lower, 0.0, tier.upto_gb - lower)
        total = total + in_tier * tier.usd_per_gb
        lower = tier.upto_gb
    return total


def without_free_allowance(tiers: Sequence[UsdTransferTier]) -> tuple[UsdTransferTier, ...]:
    """``tiers`` with the free allowance priced like the first paid tier.

    A provider's monthly free egress (AWS: the first 100 GB) is per account, shared with all its
    other traffic; a team that runs anything else has used it up, so by default the job pays from
    the first GB. e.g. (100 GB free, then $0.09) -> $0.09 from 0 GB; 150 GB -> 150 × 0.09 = $13.50.
    """
    paid = next((t.usd_per_gb for t in tiers if t.usd_per_gb > 0), None)
    if paid is None:
        return tuple(tiers)  # everything free (e.g. a provider that does not charge egress)
    return tuple(UsdTransferTier(upto_gb=t.upto_gb, usd_per_gb=t.usd_per_gb or paid) for t in tiers)
