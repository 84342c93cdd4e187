"""Why an offer has no price, as the catalog's data states it: the shipped snapshot's reasons
(``data/offers.csv``, written by ``tools/build_snapshot.py``, ``tools/listed_prices.py`` and
``tools/snapshot_skypilot.py``) and an import's (:mod:`gpuplan.catalog.importers.prepare`).

The data keeps them in English (``--json`` and the database show them as stored); this table makes
each one a catalog message, so that a table of offers writes it in the user's language
(``report/catalog.py`` passes the stored reason through the catalog). A test holds every reason of
the shipped data to this table: a snapshot built with a new reason adds it here.
"""

from __future__ import annotations

from gpuplan.i18n.messages import N_

__all__ = ["DATA_PRICE_REASONS"]

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
