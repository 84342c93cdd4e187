"""GPU instance families whose shipped prices lack a pricing model (or every price), with the reason.

Each reason is a catalog message: the snapshot builder (``tools/build_snapshot.py``) writes it in
English into the snapshot's ``skipped.csv`` under its :attr:`FamilyGap.what`, and a listing that
comes back empty (``gpuplan offers --pricing monthly``) shows the gaps of the families that carry
the GPU asked for, in the reader's language. Families with on-demand, spot and reserved prices
need no entry; ``tests/catalog`` check the list against the shipped prices.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from gpuplan.i18n import N_

__all__ = ["FAMILY_GAPS", "GAP_SUFFIX", "FamilyGap"]

#: How ``skipped.csv`` marks a family's row (after its provider and family).
GAP_SUFFIX = " (instance family without this price)"

_EVERY = frozenset({"on_demand", "spot", "monthly", "reserved_1y", "reserved_3y"})
_RESERVED = frozenset({"reserved_1y", "reserved_3y"})


@dataclass(frozen=True, kw_only=True)
class FamilyGap:
    """One provider's families and the pricing models their shipped prices lack."""

    provider: str
    family: str
    """Which families and what they lack, in words (a message: ``gn8v (every price)``)."""
    types: str | None
    """A regular expression matched at the start of an instance type of the family; None: every
    instance type of the provider (a note on "every size")."""
    lacks: frozenset[str]
    """The pricing models (``vocab.PricingModel`` values) the family's shipped prices lack."""
    reason: str
    """Why, with the sources a reader can follow (a message)."""
    gpus: tuple[str, ...] = ()
    """Canonical GPU ids the family carries where the catalog ships no offer of it to tell (a
    family whose rows were refused)."""

    @property
    def what(self) -> str:
        """The family's row key in ``skipped.csv``."""
        return f"{self.provider} {self.family}{GAP_SUFFIX}"

    def carries(self, provider: str, instance_type: str) -> bool:
        """Is ``instance_type`` of ``provider`` one of these families?"""
        return provider == self.provider and (
            self.types is None or re.match(self.types, instance_type) is not None
        )

    def applies(self, carried: Iterable[tuple[str, str]]) -> bool:
        """Does any of the ``(provider, instance_type)`` pairs belong to these families?"""
        return any(self.carries(p, t) for p, t in carried)


#: Every family gap, in the order ``skipped.csv`` lists them. The reasons name their sources as
#: the catalog's ``sources.csv`` does (publisher or repository, path, commit, date): a message is
#: one literal, so the SkyPilot-format catalogs' commits are written out (``tests/tools`` holds
#: them to the ones ``tools/snapshot_manifest.py`` pins, and the Huawei and Volcano Engine reasons
#: to the spec-only reason of their offers).
FAMILY_GAPS: tuple[FamilyGap, ...] = (
    FamilyGap(
        provider="aws",
        family=N_("p3 / p5en reserved"),
        types=r"p3\.|p5en\.",
        lacks=_RESERVED,
        reason=N_(
            "AWS offers no reserved instance for p3.* and p5en.48xlarge: instances.vantage.sh's AWS data of "
            "2025-11-30 lists no reserved term for them in any region (on-demand and spot are shipped)"
        ),
    ),
    FamilyGap(
        provider="aws",
        family=N_("p5e.48xlarge on-demand and reserved"),
        types=r"p5e\.48xlarge$",
        lacks=_RESERVED | {"on_demand"},
        reason=N_(
            "no on-demand price in SkyPilot's catalog or instances.vantage.sh's compilation: AWS sells "
            "p5e.48xlarge through EC2 Capacity Blocks for ML, priced per reservation "
            "(https://aws.amazon.com/ec2/capacityblocks/pricing/); its per-zone spot prices are shipped"
        ),
    ),
    FamilyGap(
        provider="azure",
        family=N_("reserved 1y/3y (every size)"),
        types=None,
        lacks=_RESERVED,
        reason=N_(
            "no dated public copy of Azure's reservation prices is in the shipped sources; `gpuplan catalog "
            "refresh --provider azure` reads them from the Retail Prices API (priceType 'Reservation')"
        ),
    ),
    FamilyGap(
        provider="azure",
        family=N_("NC H100 v5 / ND H100 v5 spot"),
        types=r"Standard_N[CD]\d+\w*_H100_v5$",
        lacks=frozenset({"spot"}),
        reason=N_(
            "SkyPilot's Azure catalog (github.com/skypilot-org/skypilot-catalog catalogs/v6/azure/vms.csv "
            "@098741e) repeats the on-demand price in its spot column for these sizes: not a spot price, "
            "so none is shipped; `gpuplan catalog refresh --provider azure` reads Azure's Spot meters from "
            "the Retail Prices API"
        ),
    ),
    FamilyGap(
        provider="gcp",
        family=N_("committed use 1y/3y (every machine type)"),
        types=None,
        lacks=_RESERVED,
        reason=N_(
            "SkyPilot's GCP catalog carries on-demand and spot only; `gpuplan catalog refresh --provider "
            "gcp` (GOOGLE_API_KEY) prices committed use from the Cloud Billing Catalog"
        ),
    ),
    FamilyGap(
        provider="alibaba",
        family=N_("gn8is/gn8ia/ebmgn8is: reserved terms, subscriptions"),
        types=r"ecs\.(gn8is|gn8ia|ebmgn8is)[.-]",
        lacks=_RESERVED | {"monthly"},
        reason=N_(
            "these families carry an NVIDIA L20 (no published tensor-core rate: an estimate cannot cost a "
            "step on it); their hourly on-demand and spot prices of mainland China and Hong Kong come from a "
            "SkyPilot-format catalog of Alibaba's DescribePrice prices (github.com/sugarlxn/skypilot-catalog "
            "catalogs/v8/alicloud/vms.csv @003c56a); no monthly or reserved price of them was read; "
            "`gpuplan catalog import` takes a price of your own"
        ),
    ),
    FamilyGap(
        provider="alibaba",
        family=N_("gn8v (every price)"),
        types=r"ecs\.gn8v[.-]",
        lacks=_EVERY,
        gpus=("H20",),
        reason=N_(
            "a SkyPilot-format catalog of Alibaba's DescribePrice prices "
            "(github.com/sugarlxn/skypilot-catalog catalogs/v8/alicloud/vms.csv @003c56a) prices gn8v in "
            "cn-beijing, cn-hangzhou and cn-wulanchabu with a GPU it calls 'H 96GB', very probably the "
            "NVIDIA H20, but no source read names the part: those rows are refused, not shipped as H20 "
            "offers; `gpuplan catalog import` takes a price of your own"
        ),
    ),
    FamilyGap(
        provider="alibaba",
        family=N_(
            "gn6i/gn7i/gn6v/gn6e/gn7e: reserved terms, international-site (USD) prices, subscriptions of 2026"
        ),
        types=r"ecs\.(gn6i|gn7i|gn6v|gn6e|gn7e)[.-]",
        lacks=_RESERVED | {"monthly"},
        reason=N_(
            "hourly on-demand and spot prices of mainland China and Hong Kong come from a SkyPilot-format "
            "catalog of Alibaba's DescribePrice prices (github.com/sugarlxn/skypilot-catalog "
            "catalogs/v8/alicloud/vms.csv @003c56a), monthly (包年包月) prices only from the 2023-06 "
            "cn-shanghai list of a secondary source (arthurchiao.github.io's GPU prices post); no newer "
            "dated public subscription price was found; `gpuplan catalog refresh --provider alibaba` reads "
            "the international instancePrice.json"
        ),
    ),
    FamilyGap(
        provider="tencent",
        family=N_(
            "GN7/GN10X/GN10Xp/GNV4/PNV4/GT4: spot, reserved terms, subscriptions beyond GN7.2XLARGE32 and "
            "GT4.4XLARGE96"
        ),
        types=r"(GN7|GN10X|GN10Xp|GNV4|PNV4|GT4)\.",
        lacks=_RESERVED | {"spot", "monthly"},
        reason=N_(
            "a SkyPilot-format catalog of Tencent's InquiryPriceRunInstances prices "
            "(github.com/sugarlxn/skypilot-catalog catalogs/v8/tencentcloud/vms.csv @3193645) carries hourly "
            "(POSTPAID_BY_HOUR) prices only; monthly prices are shipped for GN7.2XLARGE32 and GT4.4XLARGE96 "
            "(Tencent Cloud's CVM price overview, buy.cloud.tencent.com/price/cvm/overview, as captured "
            "2026-06-15); Tencent's own GPU price doc (github.com/tencentyun/qcloud-documents "
            "product/计算与网络/GPU 云服务器/购买指导/价格总览.md @8ec0729) gives only undated "
            "figures for the rest, not shipped as prices; `gpuplan catalog refresh --provider tencent` "
            "prices spot and subscriptions with keys"
        ),
    ),
    FamilyGap(
        provider="huawei",
        family=N_("p2v/p2s/pi2/p3"),
        types=r"(p2v|p2s|pi2|p3)\.",
        lacks=_EVERY,
        reason=N_(
            "specs only: no public dated list price found for Huawei Cloud GPU flavors (p2v, p2s, pi2, p3, "
            "g6): the billing pages found describe billing modes and point to the price calculator, which "
            "none of the pages read holds; looked for on 2026-12-01 in the provider's own price and billing "
            "pages, its documentation repositories and open-source cost tools; none states a dated figure; "
            "`gpuplan catalog refresh --provider huawei` prices them with keys (BSS "
            "ListOnDemandResourceRatings) (pi2.2xlarge.4 left out of the snapshot: its flavor name is known, "
            "not its specs)"
        ),
    ),
    FamilyGap(
        provider="volcengine",
        family=N_("ini2/g1v/gni2"),
        types=r"ecs\.(ini2|g1v|gni2)\.",
        lacks=_EVERY,
        reason=N_(
            "specs only: no public dated list price found for Volcano Engine GPU types (ecs.gni2 and the "
            "ini2/g1v families): public repositories name the types but no price, and no Volcano Engine "
            "price page was found; looked for on 2026-12-01 in the provider's own price and billing pages, "
            "its documentation repositories and open-source cost tools; none states a dated figure; "
            "`gpuplan catalog refresh --provider volcengine` prices them with keys (billing API; its "
            "charge-item codes are unverified); no ini2 or g1v type names were found (ecs.gni2.3xlarge is "
            "in the snapshot, spec-only)"
        ),
    ),
)
