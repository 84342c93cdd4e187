"""Microsoft Azure: regions, GPU VM sizes, and the fetcher of the public Retail Prices API.

The Retail Prices API (no credentials) gives on-demand (Consumption) and Spot meters, 1- and
3-year reservations (priced for the whole term) and, from api-version 2023-01-01-preview, savings
plan rates on the Consumption items. Windows meters and Low Priority (retiring) meters are left out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpuplan.catalog.model import OfferRow, PriceRow
from gpuplan.catalog.providers.base import (
    Billing,
    Credentials,
    FetchResult,
    GpuNetworkSetup,
    NodeLabels,
    OfferTerms,
    ProviderFacts,
    SharedStorage,
    SpotFacts,
    regions,
)
from gpuplan.catalog.providers.common import InstanceFacts, offer, price
from gpuplan.i18n import N_

if TYPE_CHECKING:
    from gpuplan.catalog.providers.http import Http

__all__ = ["FACTS", "FETCHER", "INSTANCES", "parse_items"]

RETAIL_URL = "https://prices.azure.com/api/retail/prices"
API_VERSION = "2023-01-01-preview"
#: Why the shipped catalog has no Azure reservation price.
_NO_RESERVATION = (
    "no dated public copy of Azure's reservation prices for GPU sizes is in the shipped sources; "
    "`gpuplan catalog refresh --provider azure` reads them from the Retail Prices API "
    "(priceType 'Reservation')"
)
#: Hours in a reservation term: Azure prices a reservation for the whole term.
_HOURS_PER_YEAR = 8760

FACTS = ProviderFacts(
    provider="azure",
    skypilot_cloud="azure",
    display_name="Microsoft Azure",
    kind="hyperscaler",
    regions=regions(
        ("eastus", "US", "Virginia"),
        ("eastus2", "US", "Virginia"),
        ("centralus", "US", "Iowa"),
        ("northcentralus", "US", "Illinois"),
        ("southcentralus", "US", "Texas"),
        ("westcentralus", "US", "Wyoming"),
        ("westus", "US", "California"),
        ("westus2", "US", "Washington"),
        ("westus3", "US", "Arizona"),
        ("canadacentral", "CA", "Toronto"),
        ("canadaeast", "CA", "Quebec City"),
        ("brazilsouth", "BR", "São Paulo State"),
        ("mexicocentral", "MX", "Querétaro State"),
        ("northeurope", "IE", "Ireland"),
        ("westeurope", "NL", "Netherlands"),
        ("uksouth", "GB", "London"),
        ("ukwest", "GB", "Cardiff"),
        ("francecentral", "FR", "Paris"),
        ("germanywestcentral", "DE", "Frankfurt"),
        ("swedencentral", "SE", "Gävle"),
        ("switzerlandnorth", "CH", "Zurich"),
        ("norwayeast", "NO", "Oslo"),
        ("polandcentral", "PL", "Warsaw"),
        ("italynorth", "IT", "Milan"),
        ("spaincentral", "ES", "Madrid"),
        ("uaenorth", "AE", "Dubai"),
        ("qatarcentral", "QA", "Doha"),
        ("israelcentral", "IL", "Israel"),
        ("southafricanorth", "ZA", "Johannesburg"),
        ("centralindia", "IN", "Pune"),
        ("southindia", "IN", "Chennai"),
        ("japaneast", "JP", "Tokyo, Saitama"),
        ("japanwest", "JP", "Osaka"),
        ("koreacentral", "KR", "Seoul"),
        ("southeastasia", "SG", "Singapore"),
        ("eastasia", "HK", "Hong Kong"),
        ("australiaeast", "AU", "New South Wales"),
        ("australiasoutheast", "AU", "Victoria"),
    ),
    regions_source="Azure geographies, https://learn.microsoft.com/azure/reliability/regions-list "
    "(armRegionName and location as published; read 2026-12-01)",
    kubernetes="AKS",
    # The ND sizes' GPU-to-GPU bandwidth (the catalog's rows) is InfiniBand, which the VM reaches
    # only through its OFED drivers: Azure's InfiniBand driver extension "installs InfiniBand OFED
    # drivers on InfiniBand and SR-IOV-enabled ('r' sizes) HB-series and N-series VMs running Linux"
    # (Microsoft Learn, "InfiniBand Driver Extension for Linux"); Azure's HPC VM images ship them with
    # the InfiniBand MPI stacks (Azure/azhpc-images: "Mellanox OFED", "Popular InfiniBand based MPI
    # Libraries"); "ND MI300X v5-series": "Infiniband: Supported, GPUDirect RDMA, 8x400 Gigabit NDR".
    network_setups=(
        GpuNetworkSetup(
            name="InfiniBand",
            instances=frozenset(
                {
                    "Standard_ND96asr_v4",
                    "Standard_ND96amsr_A100_v4",
                    "Standard_ND96isr_H100_v5",
                    "Standard_ND96isr_H200_v5",
                    "Standard_ND96isr_MI300X_v5",
                }
            ),
            needs=N_(
                "the InfiniBand (OFED) drivers of its InfiniBand-enabled ('r') size in the image: "
                "Azure's HPC VM images hold them, or the InfiniBandDriverLinux VM extension installs them"
            ),
            source="Microsoft Learn, 'InfiniBand Driver Extension for Linux', "
            "https://learn.microsoft.com/azure/virtual-machines/extensions/hpc-compute-infiniband-linux; "
            "Azure HPC VM images, https://github.com/Azure/azhpc-images",
        ),
    ),
    shared_storage=SharedStorage(service="Azure Files", csi_driver="file.csi.azure.com"),
    node_labels=NodeLabels(
        source="AKS docs: spot node pools carry the label and taint "
        "kubernetes.azure.com/scalesetpriority=spot (NoSchedule); the GPU guide taints GPU pools "
        "sku=gpu:NoSchedule",
        gpu_tolerations=({"key": "sku", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"},),
        spot_selector={"kubernetes.azure.com/scalesetpriority": "spot"},
        spot_tolerations=(
            {
                "key": "kubernetes.azure.com/scalesetpriority",
                "operator": "Equal",
                "value": "spot",
                "effect": "NoSchedule",
            },
        ),
    ),
    billing=Billing(
        granularity_s=None,
        min_billing_s=None,
        as_of=None,
        source=None,
        reason="billing granularity not in gpuplan's sourced data; consumers assume hourly billing",
    ),
    spot=SpotFacts(
        name="Spot Virtual Machines",
        notice_s=30,
        published_rate="an eviction-rate band per VM size and region in the portal "
        "(not in the Retail Prices API)",
        source="Azure docs 'Use Azure Spot Virtual Machines' (30-second Scheduled Events notice)",
        rate_note=N_(
            "Azure shows an eviction-rate band per VM size in the portal; none in the catalog for this offer"
        ),
    ),
    default_region="eastus",
    egress_storage_note="bandwidth and storage meters from published Retail Prices API example responses",
    price_sources=(f"{RETAIL_URL}?api-version={API_VERSION}",),
    offer_terms=(
        OfferTerms(
            host="cloud_vm",
            interruptible=False,
            price_covers="the VM per hour (GPUs, vCPUs, RAM, any local instance storage); network "
            "disks, egress and OS licences apart",
            min_rental_s=None,
            storage_billed_apart=True,
            host_specs_known=True,
            network_known=True,
            reliability="a hyperscale cloud's own data centres; an on-demand VM runs until stopped",
            source="Azure VM sizes and pricing pages (managed disks billed apart), https://azure.microsoft.com/pricing/details/virtual-machines/linux/",
        ),
    ),
    unknown_prices={
        "reserved_1y": _NO_RESERVATION,
        "reserved_3y": _NO_RESERVATION,
    },
)

_DOC = "Azure VM sizes, https://learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/"


def _i(
    gpu: str, n: float, vcpus: float, mem: float, net: float | None, kind: str, link: str, nvme: float | None
) -> InstanceFacts:
    return InstanceFacts(
        gpu=gpu,
        gpu_count=n,
        vcpus=vcpus,
        memory_gib=mem,
        network_gbps=net,
        network_kind=kind,
        interconnect=link,
        local_nvme_gb=nvme,
        source=_DOC,
    )


def _gib(gib: float) -> float:
    """Azure's size tables give local disks in GiB; ``local_nvme_gb`` is GB (960 GiB = 1030.8 GB)."""
    return round(gib * 1024**3 / 1e9, 1)


#: GPU VM sizes: network is the InfiniBand aggregate where the size has it, else the Ethernet figure.
#: Local NVMe (checked 2026-12-01 against the size tables of MicrosoftDocs/azure-docs
#: articles/virtual-machines/sizes/gpu-accelerated/includes/, ms.date 2024-07-31 / 2024-08-01):
#: NC A100 v4 "960 GiB NVMe Disks" x 1-4; ND H100 v5 "Local Storage 28000 GiB"; the ND A100 v4
#: and ND MI300X v5 local disks are not said to be NVMe there (left unknown).
INSTANCES: dict[str, InstanceFacts] = {
    "Standard_NC4as_T4_v3": _i("T4", 1, 4, 28, 8, "TCP", "PCIe", None),
    "Standard_NC8as_T4_v3": _i("T4", 1, 8, 56, 8, "TCP", "PCIe", None),
    "Standard_NC16as_T4_v3": _i("T4", 1, 16, 110, 8, "TCP", "PCIe", None),
    "Standard_NC64as_T4_v3": _i("T4", 4, 64, 440, 32, "TCP", "PCIe", None),
    "Standard_NC6s_v3": _i("V100-PCIE-16GB", 1, 6, 112, None, "TCP", "PCIe", None),
    "Standard_NC12s_v3": _i("V100-PCIE-16GB", 2, 12, 224, None, "TCP", "PCIe", None),
    "Standard_NC24s_v3": _i("V100-PCIE-16GB", 4, 24, 448, None, "TCP", "PCIe", None),
    "Standard_NC24ads_A100_v4": _i("A100-PCIE-80GB", 1, 24, 220, 20, "TCP", "PCIe", _gib(960)),
    "Standard_NC48ads_A100_v4": _i("A100-PCIE-80GB", 2, 48, 440, 40, "TCP", "PCIe", _gib(1920)),
    "Standard_NC96ads_A100_v4": _i("A100-PCIE-80GB", 4, 96, 880, 80, "TCP", "PCIe", _gib(3840)),
    "Standard_ND96asr_v4": _i("A100-SXM4-40GB", 8, 96, 900, 1600, "InfiniBand", "NVLink/NVSwitch", None),
    "Standard_ND96amsr_A100_v4": _i(
        "A100-SXM4-80GB", 8, 96, 1900, 1600, "InfiniBand", "NVLink/NVSwitch", None
    ),
    "Standard_NC40ads_H100_v5": _i("H100-NVL", 1, 40, 320, 40, "TCP", "PCIe", None),
    "Standard_NC80adis_H100_v5": _i("H100-NVL", 2, 80, 640, 80, "TCP", "NVLink", None),
    "Standard_ND96isr_H100_v5": _i(
        "H100-SXM", 8, 96, 1900, 3200, "InfiniBand", "NVLink/NVSwitch", _gib(28000)
    ),
    "Standard_ND96isr_H200_v5": _i("H200-SXM", 8, 96, 1850, 3200, "InfiniBand", "NVLink/NVSwitch", None),
    "Standard_ND96isr_MI300X_v5": _i("MI300X", 8, 96, 1850, 3200, "InfiniBand", "Infinity Fabric", None),
    "Standard_NV6ads_A10_v5": _i("A10", 1 / 6, 6, 55, 5, "TCP", "PCIe", None),
    "Standard_NV12ads_A10_v5": _i("A10", 1 / 3, 12, 110, 10, "TCP", "PCIe", None),
    "Standard_NV18ads_A10_v5": _i("A10", 1 / 2, 18, 220, 12, "TCP", "PCIe", None),
    "Standard_NV36ads_A10_v5": _i("A10", 1, 36, 440, None, "TCP", "PCIe", None),
    "Standard_NV72ads_A10_v5": _i("A10", 2, 72, 880, None, "TCP", "PCIe", None),
}


def parse_items(
    items: list[dict[str, Any]], source: str, fetched_at: str
) -> dict[tuple[str, str], list[PriceRow]]:
    """(region, VM size) -> prices from Retail Prices items (Linux meters only)."""
    out: dict[tuple[str, str], list[PriceRow]] = {}
    for it in items:
        sku = it.get("armSkuName", "")
        region = it.get("armRegionName", "")
        product = it.get("productName", "")
        if sku not in INSTANCES or FACTS.region(region) is None:
            continue
        if "Windows" in product or " Win" in product or "Cloud Services" in product:
            continue
        if it.get("currencyCode") != "USD" or it.get("unitOfMeasure") != "1 Hour":
            continue
        amount = float(it.get("retailPrice") or 0)
        if amount <= 0:
            continue
        as_of = str(it.get("effectiveStartDate", fetched_at))[:10]
        sku_name = it.get("skuName", "")
        kind = it.get("type")
        rows = out.setdefault((region, sku), [])
        if kind == "Consumption":
            if "Low Priority" in sku_name:
                continue
            if sku_name.endswith("Spot"):
                rows.append(price("spot", amount, as_of=as_of, source=source, fetched_at=fetched_at))
                continue
            plans = {
                p["term"]: float(p["retailPrice"])
                for p in it.get("savingsPlan") or []
                if p.get("retailPrice")
            }
            term = {"savings_plan_usd_per_hour": plans} if plans else None
            rows.append(
                price("on_demand", amount, as_of=as_of, source=source, fetched_at=fetched_at, term=term)
            )
        elif kind == "Reservation":
            years = {"1 Year": 1, "3 Years": 3}.get(it.get("reservationTerm", ""))
            if years is None:
                continue
            hourly = round(amount / (years * _HOURS_PER_YEAR), 6)
            rows.append(
                price(
                    f"reserved_{years}y",
                    hourly,
                    as_of=as_of,
                    source=source,
                    fetched_at=fetched_at,
                    term={"years": years, "term_price_usd": amount, "kind": "reservation"},
                )
            )
    return out


class _Fetcher:
    def fetch(self, http: Http, credentials: Credentials, today: str) -> FetchResult:
        sources: list[str] = []
        prices: dict[tuple[str, str], list[PriceRow]] = {}
        skus = sorted(INSTANCES)
        # A handful of sizes per request keeps the $filter short; each answer pages by NextPageLink.
        for start in range(0, len(skus), 6):
            names = " or ".join(f"armSkuName eq '{s}'" for s in skus[start : start + 6])
            url: str | None = f"{RETAIL_URL}?api-version={API_VERSION}"
            params: dict[str, str] | None = {"$filter": f"serviceName eq 'Virtual Machines' and ({names})"}
            while url:
                page = http.get_json(url, params=params)
                sources.append(url if params is None else f"{url}&$filter=...")
                for key, rows in parse_items(page.get("Items", []), RETAIL_URL, today).items():
                    prices.setdefault(key, []).extend(rows)
                url, params = page.get("NextPageLink"), None
        out: list[OfferRow] = []
        for (region, sku), rows in sorted(prices.items()):
            if rows:
                out.append(offer("azure", region, sku, INSTANCES[sku], _latest(rows)))
        return FetchResult(rows=tuple(out), sources=tuple(dict.fromkeys(sources)))


def _latest(rows: list[PriceRow]) -> list[PriceRow]:
    """One price per pricing model: the newest (meters are sometimes listed twice over time)."""
    best: dict[str, PriceRow] = {}
    for r in rows:
        if r.pricing not in best or r.as_of > best[r.pricing].as_of:
            best[r.pricing] = r
    return list(best.values())


FETCHER = _Fetcher()
