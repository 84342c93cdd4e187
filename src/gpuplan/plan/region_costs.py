"""Per-region non-compute costs of one job: data movement, storage price, licences.

These depend only on the candidate's (provider, region), not on the instance, so they are worked out
once per region and broadcast to the candidates. Unknown prices are never read as 0: each becomes
either a labelled, conservative assumption (the highest price of that kind the catalog knows, else a
cited constant) or, with ``unknown_costs="exclude"``, a reason to leave the region out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from gpuplan.i18n import N_, _, money
from gpuplan.i18n.places import place
from gpuplan.plan.billing import tiered_cost_usd, without_free_allowance
from gpuplan.plan.input_types import HOURS_PER_MONTH, JobFacts, RegionCosts, UsdTransferTier

__all__ = [
    "FALLBACK_BLOCK_USD_PER_GB_MONTH",
    "FALLBACK_EGRESS_USD_PER_GB",
    "FALLBACK_OBJECT_USD_PER_GB_MONTH",
    "CostFacts",
    "RegionCharges",
]

#: Used only when the catalog knows no price of the kind at all. Each is the highest of its kind among
#: the catalog's shipped egress and storage rows (so an unknown never makes an option look cheaper):
#: GCP premium-tier internet egress up to 1 TB, 0.12 USD/GB (as of 2026-05-06);
FALLBACK_EGRESS_USD_PER_GB = 0.12
#: GCP pd-balanced / AWS EBS gp2, 0.10 USD/GB-month (2026-09);
FALLBACK_BLOCK_USD_PER_GB_MONTH = 0.10
#: AWS S3 Standard us-east-1 first 50 TB, 0.023 USD/GB-month (2026-05-04).
FALLBACK_OBJECT_USD_PER_GB_MONTH = 0.023


#: Providers whose price pages list inbound (ingress) internet traffic as free: the seven clouds.
INGRESS_FREE_PROVIDERS = frozenset({"aws", "azure", "gcp", "alibaba", "tencent", "huawei", "volcengine"})


@dataclass(frozen=True, kw_only=True)
class RegionCharges:
    """What the job pays in one candidate region, apart from compute."""

    egress_usd: float
    """Dataset in plus results back."""
    storage_usd_per_gb_hour: float
    licence_usd_per_instance_hour: float
    assumptions: tuple[str, ...]
    """Caveats and components priced by assumption, in words (empty when all came from the catalog)."""
    unknown: bool = False
    """True when a storage or egress price is unknown in the catalog and was assumed."""


class CostFacts:
    """The catalog's regional prices with the fallbacks the planner applies, in one place."""

    def __init__(self, regions: Iterable[RegionCosts]) -> None:
        self._by_region: dict[tuple[str, str], RegionCosts] = {}
        self._by_provider: dict[str, list[RegionCosts]] = {}
        for rc in regions:
            self._by_region[(rc.provider, rc.region)] = rc
            self._by_provider.setdefault(rc.provider, []).append(rc)
        known = list(self._by_region.values())
        egress = [t.usd_per_gb for rc in known for t in rc.internet_egress or () if t.usd_per_gb > 0]
        self._max_egress = max(egress, default=FALLBACK_EGRESS_USD_PER_GB)
        blocks = [rc.block_storage_usd_per_gb_month for rc in known if rc.block_storage_usd_per_gb_month]
        objects = [rc.object_storage_usd_per_gb_month for rc in known if rc.object_storage_usd_per_gb_month]
        self._max_block = max(blocks, default=FALLBACK_BLOCK_USD_PER_GB_MONTH)
        self._max_object = max(objects, default=FALLBACK_OBJECT_USD_PER_GB_MONTH)

    def _field(self, provider: str, region: str, name: str) -> tuple[Any, str]:
        """A price field: the region's own, else the same provider's other region (said so)."""
        rc = self._by_region.get((provider, region))
        value = getattr(rc, name) if rc else None
        if value is not None:
            return value, ""
        for other in self._by_provider.get(provider, ()):
            v = getattr(other, name)
            if v is not None:
                return v, _("{where} price used for {region}").format(
                    where=place(provider, other.region), region=region
                )
        return None, ""

    def _egress_tiers(
        self, provider: str, region: str, what: str
    ) -> tuple[tuple[UsdTransferTier, ...], str, bool]:
        """(tiers, note, assumed): assumed is True when no catalog price exists at all."""
        tiers, note = self._field(provider, region, "internet_egress")
        if tiers is not None:
            return tiers, (f"{_(what)}: {note}" if note else ""), False
        flat = (UsdTransferTier(upto_gb=float("inf"), usd_per_gb=self._max_egress),)
        note = _("{what}: internet egress price of {where} unknown; assumed {price}/GB (highest known)")
        return (
            flat,
            note.format(what=_(what), where=place(provider, region), price=money(self._max_egress)),
            True,
        )

    def _transfer_usd(
        self,
        gb: float,
        src: tuple[str, str] | None,
        dst: tuple[str, str] | None,
        what: str,
        free_tier: bool = False,
    ) -> tuple[float, list[str], bool]:
        """Cost of moving ``gb`` from ``src`` to ``dst`` (None = the user's own site), paid at source;
        with the notes and whether the price is an assumption."""
        if gb <= 0 or src == dst:
            return 0.0, [], False
        if src is None:
            # The seven clouds list inbound (ingress) traffic as free; the GPU marketplaces' price
            # for it is not in the catalog: counted as free, and said so.
            if dst is None or dst[0] in INGRESS_FREE_PROVIDERS:
                return 0.0, [], False
            note = _("{what}: inbound traffic price of {provider} not in the catalog; counted as free")
            return 0.0, [note.format(what=_(what), provider=dst[0])], True
        notes: list[str] = []
        if dst is not None and dst[0] == src[0]:
            price, note = self._field(src[0], src[1], "inter_region_usd_per_gb")
            if price is not None:
                return float(gb * price), ([f"{_(what)}: {note}"] if note else []), False
            notes.append(
                _("{what}: inter-region price of {where} unknown; internet egress used instead").format(
                    what=_(what), where=f"{src[0]}/{src[1]}"
                )
            )
        tiers, note, assumed = self._egress_tiers(src[0], src[1], what)
        if note:
            notes.append(note)
        if not free_tier:
            tiers = without_free_allowance(tiers)
        return float(tiered_cost_usd(np.array([gb]), tiers)[0]), notes, assumed

    def charges(self, provider: str, region: str, job: JobFacts) -> RegionCharges:
        """Egress, storage price and licence fees of running ``job`` in ``provider/region``."""
        here = (provider, region)
        egress_in, notes_in, assumed_in = self._transfer_usd(
            job.dataset_gb, job.data_location, here, N_("dataset in"), job.egress_free_tier
        )
        egress_out, notes_out, assumed_out = self._transfer_usd(
            job.result_size_gb, here, job.data_location, N_("results back"), job.egress_free_tier
        )
        assumptions = [*notes_in, *notes_out]
        unknown = assumed_in or assumed_out
        kind = job.storage_kind
        name = f"{kind}_storage_usd_per_gb_month"
        price, note = self._field(provider, region, name)
        if price is None:
            unknown = True
            price = self._max_block if kind == "block" else self._max_object
            # One message per kind: "block" and "object" are words of the sentence, not names.
            text = (
                _("storage: block storage price of {where} unknown; assumed {price}/GB-month (highest known)")
                if kind == "block"
                else _(
                    "storage: object storage price of {where} unknown; "
                    "assumed {price}/GB-month (highest known)"
                )
            )
            assumptions.append(text.format(where=place(provider, region), price=money(price)))
        elif note:
            assumptions.append(_("storage: {note}").format(note=note))
        rc = self._by_region.get(here)
        licence = rc.licence_usd_per_instance_hour if rc else 0.0
        if rc is not None:
            assumptions.extend(rc.notes)
        return RegionCharges(
            egress_usd=egress_in + egress_out,
            storage_usd_per_gb_hour=float(price) / HOURS_PER_MONTH,
            licence_usd_per_instance_hour=licence,
            assumptions=tuple(assumptions),
            unknown=unknown,
        )
