"""A price's age in the words every output uses: ``5 mo old``, ``stale (2.7 y)``, ``age unknown
(up to 18 mo)``, ``date unknown``. Here, beside the catalog whose ``age_days`` and ``staleness``
they word, so that the advice of the estimator (below the renderers) says a quoted price's age as
``plan``, ``tco`` and ``offers`` do."""

from __future__ import annotations

from gpuplan.i18n import _
from gpuplan.i18n.numbers import format_age

__all__ = ["price_age_words", "unknown_age_words"]


def price_age_words(
    age_days: int | None, staleness: str | None, gpu: str = "", launched: str | None = None
) -> str:
    """A price's age as plan and tco show it, in the words ``offers`` uses for its flags: ``5 mo
    old``, ``stale (2.7 y)``, ``age unknown (up to 18 mo)`` (a source without a date of its own,
    whose bounds straddle the staleness limit; :func:`unknown_age_words`), ``date unknown``.
    ``launched``: the launch month of ``gpu`` where it bounds the age."""
    if age_days is None:
        return _("date unknown")
    if staleness == "stale":
        return _("stale ({age})").format(age=format_age(age_days))
    if staleness == "unknown":
        return unknown_age_words(age_days, gpu, launched)
    return _("{age} old").format(age=format_age(age_days))


def unknown_age_words(age_days: int | None, gpu: str = "", launched: str | None = None) -> str:
    """``age unknown (up to 6.1 y)``: a price whose source carries no date, at its oldest; where
    its GPU's launch bounds that (the source's interval reaching further back), said so:
    ``age unknown (at most 3.1 y: the L20 launched 2023-11)``."""
    if launched is not None and gpu:
        return _("age unknown (at most {age}: the {gpu} launched {launched})").format(
            age=format_age(age_days), gpu=gpu, launched=launched
        )
    return _("age unknown (up to {age})").format(age=format_age(age_days))
