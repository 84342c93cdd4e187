"""The regions of a SkyPilot-layout file, checked against the provider's known regions.

A price list of one's own refuses a region the provider does not have
(:mod:`~gpuplan.catalog.importers.own`); a SkyPilot-layout file is a copy of a catalog that may
know regions gpuplan's provider facts do not yet (GCP's ``asia-northeast2``), so a region it does
not know is judged by how it differs from the known ones:

- a slip of a known name (``us-wset-2`` for ``us-west-2``: letters swapped, dropped or changed,
  :data:`SLIP_RATIO` alike or more) is refused with the names it is closest to: stored, it would be
  a new place whose offers rank nowhere the user looks;
- another number of a known name (``asia-northeast2`` beside ``asia-northeast1``, ``eastus3``) or a
  name unlike any known one is a region gpuplan does not know yet: kept as the file names it, and
  named in a warning of the import's summary.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

from gpuplan.catalog.model import OfferRow, RejectedRow
from gpuplan.catalog.providers import facts
from gpuplan.catalog.wording import not_found
from gpuplan.errors import Phrase
from gpuplan.i18n.messages import N_

__all__ = ["SLIP_RATIO", "checked_regions"]

#: How alike (difflib's ratio) an unknown region and its nearest known one must be for the unknown
#: one to be a slip of it: ``us-wset-2``/``us-west-2`` are 0.89 alike, ``useast1``/``us-east-1``
#: 0.88; AWS's real ``mx-central-1`` is 0.92 alike ``me-central-1``, which is why the provider's
#: known regions must be complete for this check to run on them (AWS's list has both).
SLIP_RATIO = 0.8
#: Lines a warning names before "…".
_LINES_SHOWN = 5
#: Characters of a rejected row's instance type kept (as the readers cut them).
_SHOWN_CHARS = 100


def checked_regions(
    rows: Sequence[OfferRow], provider: str
) -> tuple[list[OfferRow], list[RejectedRow], list[Phrase]]:
    """(rows kept, rows refused, warnings): each row whose region is a slip of one of
    ``provider``'s known regions refused with did-you-mean; one warning per region kept that is not
    known. A provider without a list of regions has nothing to check against: all is kept."""
    codes = [r.code for r in facts(provider).regions]
    if not codes:
        return list(rows), [], []
    known = set(codes)
    numbered = {_unnumbered(c) for c in codes}
    kept: list[OfferRow] = []
    refused: list[RejectedRow] = []
    new: dict[str, list[int | None]] = {}
    for row in rows:
        if row.region in known:
            kept.append(row)
        elif _unnumbered(row.region) not in numbered and _is_slip(row.region, codes):
            refused.append(
                RejectedRow.because(
                    not_found(Phrase(N_("region of {provider}"), provider=provider), row.region, codes),
                    line=row.line,
                    instance_type=row.instance_type[:_SHOWN_CHARS],
                    region=row.region,
                )
            )
        else:
            kept.append(row)
            new.setdefault(row.region, []).append(row.line)
    return kept, refused, [_new_region(region, provider, lines) for region, lines in new.items()]


def _unnumbered(region: str) -> str:
    """The region's name with its numbers as ``#``: ``asia-northeast2`` -> ``asia-northeast#``."""
    return re.sub(r"\d+", "#", region.lower())


def _is_slip(region: str, codes: Sequence[str]) -> bool:
    low = region.lower()
    return any(difflib.SequenceMatcher(None, low, c.lower()).ratio() >= SLIP_RATIO for c in codes)


def _new_region(region: str, provider: str, lines: Sequence[int | None]) -> Phrase:
    numbers = sorted({n for n in lines if n is not None})
    shown = ", ".join(str(n) for n in numbers[:_LINES_SHOWN]) + (" …" if len(numbers) > _LINES_SHOWN else "")
    template = (
        N_(
            "new region {region} of {provider} (line {lines}): not one of the regions gpuplan knows; "
            "its offers are imported as the file names them"
        )
        if len(numbers) == 1
        else N_(
            "new region {region} of {provider} (lines {lines}): not one of the regions gpuplan knows; "
            "its offers are imported as the file names them"
        )
    )
    return Phrase(template, region=region, provider=provider, lines=shown or "?")
