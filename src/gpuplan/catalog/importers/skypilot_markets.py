"""Read the GPU marketplaces' files of SkyPilot's catalog (``catalogs/v8/<cloud>/vms.csv``).

Every marketplace file has the columns InstanceType, AcceleratorName, AcceleratorCount, vCPUs,
MemoryGiB, Price, Region, GpuInfo and SpotPrice, in its own order, some with AvailabilityZone,
UpstreamCloudId or StorageGiB besides. One row is one instance type in one region; rows without an
accelerator (CPU machines) are refused with that reason. What differs per marketplace is where an
offer is (:class:`MarketLayout`):

- Vast.ai writes the host's place as ``"Michigan, US, NA"``: the region is the country (``US``), the
  place a zone (``Michigan``);
- RunPod, Prime Intellect and Lium file offers by country (``US``), with the data centre or the
  underlying cloud's region as ``AvailabilityZone`` (kept as the zone);
- Prime Intellect lists a spot price as its own instance type (``…__SPOT``): it becomes the spot
  price of the instance type without the suffix.

The GPU comes from :func:`gpuplan.catalog.gpu_names.market_gpu` (the slower part where a row does
not say which). A price of 0 or an empty price is no price.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

from gpuplan.catalog.gpu_names import market_gpu
from gpuplan.catalog.importers.skypilot_common import (
    LineError,
    ParsedFile,
    Row,
    check_width,
    gpu_info,
    optional_number,
    price,
    read_rows,
    rejected,
)
from gpuplan.catalog.model import NOT_A_GPU_INSTANCE, OfferRow, PriceRow, RejectedRow
from gpuplan.errors import CatalogImportError, Phrase
from gpuplan.i18n.messages import N_
from gpuplan.i18n.phrases import listed
from gpuplan.i18n.sources import UNUSED_FILE_RATE

__all__ = ["MARKET_LAYOUTS", "MarketLayout", "parse_market"]

#: The columns every marketplace file has (in its own order).
REQUIRED = (
    "InstanceType",
    "AcceleratorName",
    "AcceleratorCount",
    "vCPUs",
    "MemoryGiB",
    "Price",
    "Region",
    "GpuInfo",
    "SpotPrice",
)
#: Instance-type suffix of Prime Intellect's spot rows.
_SPOT_SUFFIX = "__SPOT"
#: Letters NFKD does not take apart (Icelandic, Nordic, German).
_ASCII = str.maketrans(
    {"ð": "d", "Ð": "D", "þ": "th", "Þ": "Th", "æ": "ae", "Æ": "AE", "ø": "o", "Ø": "O", "ß": "ss"}
)


def _slug(text: str) -> str:
    """ASCII name for a place (``Hafnarfjarðarkaupstaður`` -> ``Hafnarfjardarkaupstadur``)."""
    plain = unicodedata.normalize("NFKD", text.translate(_ASCII)).encode("ascii", "ignore").decode()
    return "-".join("".join(ch if ch.isalnum() else " " for ch in plain).split())


def _region_zone(r: dict[str, str]) -> tuple[str, str | None]:
    return r["Region"].strip(), (r.get("AvailabilityZone") or "").strip() or None


def _vast_place(r: dict[str, str]) -> tuple[str, str | None]:
    parts = [p.strip() for p in r["Region"].split(",")]
    if len(parts) != 3 or len(parts[1]) != 2:
        raise LineError(
            N_("region {region} is not 'place, country code, continent'"), region=repr(r["Region"])
        )
    return parts[1].upper(), _slug(parts[0]) or None


@dataclass(frozen=True, kw_only=True)
class MarketLayout:
    """How one marketplace's file says where an offer is."""

    folder: str
    """SkyPilot's folder for it (``catalogs/v8/<folder>/vms.csv``)."""
    place: Callable[[dict[str, str]], tuple[str, str | None]] = _region_zone
    """(region, zone) of a row."""
    family_gpus: Callable[[], Mapping[str, str]] | None = None
    """The provider's own table of its instance families' GPUs, by the row's ``Generation``: it
    decides the part where the file's name leaves it open (an ``A100 80G`` that is the SXM4 module)."""
    usd_per_cny: float | None = None
    """Set where the file's USD figures are the provider's CNY prices times a fixed rate: the price
    is kept in CNY (the figure ÷ this rate), the currency the provider charges."""


def _family_gpu(layout: MarketLayout, r: dict[str, str], accelerator: str, mib: int | None) -> str | None:
    """The GPU the provider's family table names for the row, if the row's own name agrees with it
    (same chip, and the same memory where the row states it); None otherwise."""
    if layout.family_gpus is None:
        return None
    gpu = layout.family_gpus().get((r.get("Generation") or "").strip())
    chip = accelerator.split()[0].upper() if accelerator.split() else ""
    if gpu is None or not chip or gpu.split("-")[0].upper() != chip:
        return None
    stated = re.search(r"(\d+)GB$", gpu)
    if mib and stated and round(mib / 1024) != int(stated[1]):
        return None
    return gpu


@cache  # read for every row of a file: built once
def _alibaba_families() -> Mapping[str, str]:
    from gpuplan.catalog.providers.alibaba import INSTANCES

    return {itype.split("-")[0]: facts.gpu for itype, facts in INSTANCES.items()}


@cache
def _tencent_families() -> Mapping[str, str]:
    from gpuplan.catalog.providers.tencent import FAMILIES

    return {family: gpu for family, (gpu, _link) in FAMILIES.items()}


#: The fixed rate the SkyPilot-format catalogs of Alibaba Cloud and Tencent Cloud convert their
#: CNY prices at (github.com/sugarlxn/skypilot-catalog, .github/workflows/fetch-alicloud-catalog.yaml
#: and the Tencent fetcher's README: ``--cny-usd-rate 0.138``; the scripts write ``Price =
#: price_cny * cny_usd_rate``), read 2026-12-03.
FORK_USD_PER_CNY = 0.138


#: Provider code -> its layout. Adding a marketplace of SkyPilot's catalog is one line here.
MARKET_LAYOUTS: dict[str, MarketLayout] = {
    "lambda": MarketLayout(folder="lambda"),
    "runpod": MarketLayout(folder="runpod"),
    "vast": MarketLayout(folder="vast", place=_vast_place),
    "nebius": MarketLayout(folder="nebius"),
    "oci": MarketLayout(folder="oci"),
    "cudo": MarketLayout(folder="cudo"),
    "hyperstack": MarketLayout(folder="hyperstack"),
    "verda": MarketLayout(folder="verda"),
    "shadeform": MarketLayout(folder="shadeform"),
    "primeintellect": MarketLayout(folder="primeintellect"),
    "seeweb": MarketLayout(folder="seeweb"),
    "jarvislabs": MarketLayout(folder="jarvislabs"),
    "lium": MarketLayout(folder="lium"),
    "yotta": MarketLayout(folder="yotta"),
    "mithril": MarketLayout(folder="mithril"),
    "hyperbolic": MarketLayout(folder="hyperbolic"),
    "fluidstack": MarketLayout(folder="fluidstack"),
    "paperspace": MarketLayout(folder="paperspace"),
    "digitalocean": MarketLayout(folder="do"),
    # Not in SkyPilot's own catalog: a SkyPilot-format catalog of the two clouds, filled from their
    # price APIs (ECS DescribePrice, CVM InquiryPriceRunInstances) and written in USD at a fixed rate.
    "alibaba": MarketLayout(folder="alicloud", family_gpus=_alibaba_families, usd_per_cny=FORK_USD_PER_CNY),
    "tencent": MarketLayout(
        folder="tencentcloud", family_gpus=_tencent_families, usd_per_cny=FORK_USD_PER_CNY
    ),
}


def parse_market(path: Path | str, provider: str, *, as_of: str, source: str) -> ParsedFile:
    """Offer rows of one marketplace's SkyPilot file (``provider`` in :data:`MARKET_LAYOUTS`)."""
    layout = MARKET_LAYOUTS[provider]
    widths: dict[str, int] = {}

    def check(header: tuple[str, ...]) -> None:
        missing = [c for c in REQUIRED if c not in header]
        if missing:
            raise CatalogImportError.worded(
                N_("{path} lacks the SkyPilot marketplace columns {missing}; nothing was imported"),
                path=path,
                missing=listed(missing),
            )
        widths["n"] = len(header)

    rows = read_rows(path, check)
    merged: dict[tuple[str, str | None, str], OfferRow] = {}
    repeated: list[OfferRow] = []
    refused: list[RejectedRow] = []
    caveats: list[RejectedRow] = []
    for line, r in rows:
        try:
            row = _row(provider, layout, (line, r), widths["n"], caveats, as_of=as_of, source=source)
        except LineError as e:
            refused.append(rejected(e, line, r))
            continue
        key = (row.region, row.zone, row.instance_type)
        first = merged.get(key)
        if first is None:
            merged[key] = row
        elif {p.pricing for p in first.prices}.isdisjoint(p.pricing for p in row.prices):
            # Prime Intellect's __SPOT row joins its on-demand row
            merged[key] = replace(first, prices=first.prices + row.prices)
        else:
            # The same offer's price on a line of its own: kept with its line, so that two
            # different figures are refused on both lines (importing._conflicting_prices)
            repeated.append(row)
    return ParsedFile(rows=(*merged.values(), *repeated), rejected=tuple(refused), caveats=tuple(caveats))


def _row(
    provider: str,
    layout: MarketLayout,
    row: Row,
    width: int,
    caveats: list[RejectedRow],
    *,
    as_of: str,
    source: str,
) -> OfferRow:
    line, r = row
    check_width(r, width)
    accelerator = r["AcceleratorName"].strip()
    count = optional_number(r["AcceleratorCount"], "AcceleratorCount")
    if not accelerator or not count:
        raise LineError(NOT_A_GPU_INSTANCE, skipped=True)
    region, zone = layout.place(r)
    if not region:
        raise LineError(N_("no region in the source"))
    itype = r["InstanceType"].strip()
    spot_row = itype.endswith(_SPOT_SUFFIX)
    if spot_row:
        itype = itype[: -len(_SPOT_SUFFIX)]
    _, mib, info_name = gpu_info(r["GpuInfo"])
    hint = " ".join(x for x in (itype, r.get("UpstreamCloudId", ""), info_name or "") if x)
    family_gpu = _family_gpu(layout, r, accelerator, mib)
    gpu, note = (family_gpu, "") if family_gpu else market_gpu(accelerator, hint, mib)
    if gpu is None:
        raise LineError(
            N_("GPU {name} is not in gpuplan's hardware catalog: {why}"),
            name=repr(accelerator),
            why=note,
            skipped=True,
        )
    line_source = f"{source}, line {line}"
    od = optional_number(r["Price"], "Price") or None  # 0.00 means "no price" in these files
    spot = optional_number(r["SpotPrice"], "SpotPrice") or None
    if layout.usd_per_cny is not None:
        rate = layout.usd_per_cny
        for column, x in (("Price", od), ("SpotPrice", spot)):
            if x is not None and x < 0:
                # refused in the file's own figure, not the CNY one it would be kept as
                raise LineError(
                    N_("{column} {value} is not a positive amount"), column=column, value=r[column].strip()
                )
        # the file's rate is only undone here: a reader must not take it for a second rate in use
        line_source += UNUSED_FILE_RATE.format(rate=f"{rate:g}")
        od, spot = (None if x is None else round(x / rate, 6) for x in (od, spot))
    prices: list[PriceRow] = []
    if od is not None:
        prices.append(price("spot" if spot_row else "on_demand", od, as_of=as_of, source=line_source))
    if spot is not None:
        prices.append(price("spot", spot, as_of=as_of, source=line_source))
    if not prices:
        raise LineError(N_("no price (Price and SpotPrice empty or 0)"))
    if layout.usd_per_cny is not None:
        prices = [replace(p, currency="CNY") for p in prices]
    if note:
        caveats.append(rejected(Phrase(N_("GPU {name}: {note}"), name=repr(accelerator), note=note), line, r))
    return OfferRow(
        provider=provider,
        region=region,
        zone=zone,
        instance_type=itype,
        gpu=gpu,
        gpu_count=count,
        vcpus=optional_number(r["vCPUs"], "vCPUs"),
        memory_gib=optional_number(r["MemoryGiB"], "MemoryGiB"),
        network_gbps=None,
        interconnect=None,
        source=line_source,
        prices=tuple(prices),
        notes=note,
        line=line,
    )
