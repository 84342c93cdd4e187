"""A GPU filter that left no candidate because the catalog has no offer of the GPU (or none from the
providers named): what the refusal says instead of "excluded by gpu 71,657".

The GPU is one gpuplan knows (``gpus`` lists it, with its datasheet), but no price source the catalog
ships sells it: the H800 and A800 a Chinese team asks for. The line says so, names the GPUs nearest
to it that the catalog does price (``hardware.nearest_gpus``: the same chip first, an H100 for an
H800), and how a user adds a price of their own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gpuplan.catalog.family_gaps import FAMILY_GAPS
from gpuplan.errors import Phrase
from gpuplan.hardware import get_gpu, gpus_named, nearest_gpus
from gpuplan.hardware.gpus import same_chip
from gpuplan.i18n import N_
from gpuplan.i18n.countries import grouped_codes
from gpuplan.i18n.phrases import listed
from gpuplan.plan.candidates import named_in
from gpuplan.plan.constraints import COMMITTED_PRICING

if TYPE_CHECKING:
    from gpuplan.plan.context import PlanContext

__all__ = ["unsold_gpu_words"]

#: No offer of the GPU anywhere in the catalog.
_NOWHERE = N_(
    "no option is left: the catalog has no offer of {gpu}: gpuplan knows the GPU, but "
    "none of the price sources it ships lists it"
)
#: Offers of the GPU, but none from the providers named: who prices it.
_NOT_FROM = N_(
    "no option is left: the catalog has no offer of {gpu} from {providers}; it prices it at {sellers}"
)
#: Offers of the GPU, none from the providers named, and none elsewhere with a price the plan uses.
_NOT_FROM_UNPRICED = N_(
    "no option is left: the catalog has no offer of {gpu} from {providers}; its offers of it, from "
    "{sellers}, have no price this plan can use"
)
# TRANSLATORS: a family name and the GPUs it stands for ("H800 (H800-SXM, H800-PCIE)")
_VARIANTS = N_("{gpu} ({variants})")
_NEAREST = N_("; the nearest GPUs the catalog prices: {gpus}")
_NEAREST_AT = N_("; the nearest GPUs the catalog prices at {places}: {gpus}")
# TRANSLATORS: a GPU the catalog prices that is the same chip as the one asked for (H100-SXM for H800-SXM)
_SAME_CHIP = N_("{gpu} (the same chip)")
_ADD_PRICE = N_(
    "; `gpuplan catalog import --format gpuplan FILE` adds a price of your own (a quote; "
    "examples/prices/README.md shows the file)"
)
_GAP = N_("; {provider} {family}: {reason}")
#: Two pieces of the line written one after the other (no catalog message: each piece is one).
_TWO_PIECES = "{first}{second}"
#: Nearest GPUs a line names.
_NEAREST_SHOWN = 3


def unsold_gpu_words(ctx: PlanContext) -> Phrase | None:
    """The refusal where the GPU filter left no candidate because no offer in the catalog (of the
    providers named) carries the GPUs asked for; None where some offer does (then another filter,
    or a missing price, is what the counts say)."""
    c, o = ctx.constraints, ctx.offers
    ids = c.gpu_ids
    if not ids or not c.gpus:
        return None
    carries = named_in(o.gpu, ids)
    providers = tuple(c.providers or ())
    here = named_in(o.provider, providers) if providers else np.ones(carries.shape, dtype=bool)
    if (carries & here).any():
        return None
    # the variants a family name stands for (H800: H800-SXM, H800-PCIE); none where each name is one
    gpu: Phrase = listed(c.gpus)
    if any(len(gpus_named(name)) > 1 for name in c.gpus):
        gpu = Phrase(_VARIANTS, gpu=gpu, variants=listed(ids))
    if carries.any():
        # who sells it at a price this plan would use, else who lists it at all
        priced = carries & _usable(ctx)
        sellers = listed(sorted({str(p) for p in o.provider[priced if priced.any() else carries]}))
        words = Phrase(
            _NOT_FROM if priced.any() else _NOT_FROM_UNPRICED,
            gpu=gpu,
            providers=listed(providers),
            sellers=sellers,
        )
    else:
        words = Phrase(_NOWHERE, gpu=gpu)
    nearest = _nearest(ctx, ids)
    if nearest is not None:
        words = Phrase(_TWO_PIECES, first=words, second=nearest)
    words = Phrase(_TWO_PIECES, first=words, second=Phrase(_ADD_PRICE))
    if not carries.any():
        # the shipped prices' notes on the families that carry it (rows refused for want of a name)
        for gap in FAMILY_GAPS:
            if set(gap.gpus) & set(ids):
                why = Phrase(
                    _GAP, provider=gap.provider, family=Phrase(gap.family), reason=Phrase(gap.reason)
                )
                words = Phrase(_TWO_PIECES, first=words, second=why)
    return words


def _nearest(ctx: PlanContext, ids: tuple[str, ...]) -> Phrase | None:
    """The GPUs nearest to ``ids`` that the catalog prices under the plan's pricing, commitment and
    confidence, within the places the filters name where any is priced there (else anywhere)."""
    c, o = ctx.constraints, ctx.offers
    priced = _usable(ctx)
    here = priced.copy()
    for names, column in ((c.providers, o.provider), (c.regions, o.region), (c.countries, o.country)):
        if names:
            here &= named_in(column, tuple(names))
    places = [*(c.providers or ()), *(c.regions or ()), *grouped_codes(c.countries or ())]  # EU: EU
    if not here.any():
        here, places = priced, []
    asked = [get_gpu(i) for i in ids]
    gpus = nearest_gpus(asked, (str(g) for g in o.gpu[here]))[:_NEAREST_SHOWN]
    if not gpus:
        return None
    shown = [Phrase(_SAME_CHIP, gpu=g) if any(same_chip(a, get_gpu(g)) for a in asked) else g for g in gpus]
    if places:
        return Phrase(_NEAREST_AT, places=listed(places), gpus=listed(shown))
    return Phrase(_NEAREST, gpus=listed(shown))


def _usable(ctx: PlanContext) -> np.ndarray:
    """The offers with a price the plan would use: known, of a pricing model and commitment it
    allows, and of a confidence it plans on."""
    c, o = ctx.constraints, ctx.offers
    usable: np.ndarray = np.isfinite(o.price_usd) & named_in(o.pricing, c.allowed_pricing)
    usable &= ~(named_in(o.pricing, COMMITTED_PRICING) & ~named_in(o.pricing, c.committed_allowed))
    if not c.allow_low_confidence:
        usable &= o.confidence != "low"
    return usable
