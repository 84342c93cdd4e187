"""Where an offer is, as a user reads it: ``provider/region``.

The catalog's region ``unspecified`` is data — the price source named no region (Lambda's, vast's
and RunPod's public prices, an article's table) — and stays so in files and JSON; shown to a
person it is written in the current language.
"""

from __future__ import annotations

from gpuplan.i18n.messages import N_, _

__all__ = ["UNSPECIFIED_REGION", "place", "region_name"]

#: The catalog's region for an offer whose source names none.
UNSPECIFIED_REGION = "unspecified"
# TRANSLATORS: a region the price source does not name (the catalog's "unspecified")
_UNSPECIFIED = N_("unspecified")


def region_name(region: str) -> str:
    """``region`` as shown: the catalog's ``unspecified`` in the current language, others as they are."""
    return _(_UNSPECIFIED) if region == UNSPECIFIED_REGION else region


def place(provider: str, region: str) -> str:
    """``provider/region`` as shown (``lambda/unspecified``; under zh ``lambda/未注明地域``)."""
    return f"{provider}/{region_name(region)}"
