"""Why an offer has no price, as the catalog's data states it: the shipped snapshot's reasons
(``data/offers.csv``, written by ``tools/build_snapshot.py``, ``tools/listed_prices.py`` and
``tools/snapshot_skypilot.py``) and an import's (:mod:`gpuplan.catalog.importers.prepare`).

The data keeps them in English (``--json`` and the database show them as stored); this table makes
each one a catalog message, so that a table of offers writes it in the user's language
(``report/catalog.py`` passes the stored reason through the catalog). A test holds every reason of
the shipped data to this table: a snapshot built with a new reason adds it here.
"""

from __future__ import annotations

import re
from functools import cache

from gpuplan.i18n.messages import N_

__all__ = [
    "DATA_PRICE_REASONS",
    "FAR_BELOW_TAKEN_OUT",
    "SPOT_REPEATS_TAKEN_OUT",
    "TAKEN_OUT",
    "taken_out_prices",
]

DATA_PRICE_REASONS = (
    N_(
        "Price equals SpotPrice on every row, 1.00 USD per GPU-hour for H100 and H200 alike: "
        "Mithril sells capacity by auction, and the figure is not said to be an on-demand price"
    ),
    N_("every price of this row in the source is taken out (skipped.csv)"),
    N_("no dated public price found for this instance type"),
    N_(
        "specs only: no public dated list price found for Huawei Cloud GPU flavors (p2v, p2s, "
        "pi2, p3, g6): the billing pages found describe billing modes and point to the price "
        "calculator, which none of the pages read holds; looked for on 2026-12-01 in the "
        "provider's own price and billing pages, its documentation repositories and open-source "
        "cost tools; none states a dated figure; `gpuplan catalog refresh --provider huawei` "
        "prices them with keys (BSS ListOnDemandResourceRatings)"
    ),
    N_(
        "specs only: no public dated list price found for Volcano Engine GPU types (ecs.gni2 and "
        "the ini2/g1v families): public repositories name the types but no price, and no Volcano "
        "Engine price page was found; looked for on 2026-12-01 in the provider's own price and "
        "billing pages, its documentation repositories and open-source cost tools; none states a "
        "dated figure; `gpuplan catalog refresh --provider volcengine` prices them with keys"
    ),
    N_("every price of this row in the source is taken out (see the import's notes)"),
)

#: The reasons an offer listed under one pricing model carries where the snapshot took that price
#: out of its source and kept the offer's others (``skipped.csv`` names each price and why): the
#: listing says the price is unknown and why, as it says it of a row whose every price was taken out.
FAR_BELOW_TAKEN_OUT = N_(
    "the source's on-demand price is taken out: far below the same SKU's price in the provider's "
    "other regions, it is another price list filed as on-demand (skipped.csv)"
)
SPOT_REPEATS_TAKEN_OUT = N_(
    "no spot price published: the source's spot figure repeats the on-demand price (skipped.csv)"
)
TAKEN_OUT = N_("this price in the source is taken out (skipped.csv)")

#: A price ``skipped.csv`` names (:meth:`gpuplan.catalog.importers.skypilot_traps.Trap.what`):
#: provider, instance type, region[/zone], pricing model, amount.
_PRICE_TAKEN_OUT = re.compile(r"(\S+) (\S+) ([^\s/]+)(?:/(\S+))? (\S+) \S+ USD/h")


@cache
def taken_out_prices() -> dict[str, dict[tuple[str, str, str, str | None], str]]:
    """Pricing model -> ``(provider, instance type, region, zone)`` -> the reason (one of the
    messages above) for each price of the shipped snapshot taken out of its source while the offer
    stayed (``skipped.csv``)."""
    import csv
    import io

    from gpuplan.catalog.snapshot import shipped_text

    out: dict[str, dict[tuple[str, str, str, str | None], str]] = {}
    for row in csv.DictReader(io.StringIO(shipped_text("skipped.csv"))):
        m = _PRICE_TAKEN_OUT.fullmatch(row["what"])
        if m is None:
            continue
        provider, instance_type, region, zone, pricing = m.groups()
        why = row["reason"]
        reason = (
            FAR_BELOW_TAKEN_OUT
            if "below the next price of the same SKU elsewhere" in why
            else SPOT_REPEATS_TAKEN_OUT
            if "repeats its on-demand price" in why
            else TAKEN_OUT
        )
        out.setdefault(pricing, {})[(provider, instance_type, region, zone)] = reason
    return out
