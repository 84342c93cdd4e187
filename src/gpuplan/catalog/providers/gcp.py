"""Google Cloud: regions, GPU machine types, and the fetcher of the Cloud Billing Catalog.

The Catalog has no price per machine type: a VM costs vCPUs x its family's core SKU + GiB x the
RAM SKU + GPUs x the GPU SKU, each per region and usage type (OnDemand, Preemptible = Spot,
Commit1Yr, Commit3Yr). The API needs an API key (403 without); without one the refresh skips GCP.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gpuplan.catalog.model import OfferRow
from gpuplan.catalog.providers.base import (
    Billing,
    Credentials,
    FetchResult,
    GpuNetworkSetup,
    MissingCredentialsError,
    NodeLabels,
    OfferTerms,
    ProviderFacts,
    SharedStorage,
    SpotFacts,
    regions,
)
from gpuplan.catalog.providers.common import InstanceFacts, offer, price
from gpuplan.errors import Phrase
from gpuplan.i18n import N_

if TYPE_CHECKING:
    from collections.abc import Iterable

    from gpuplan.catalog.providers.http import Http

__all__ = [
    "FACTS",
    "FETCHER",
    "MACHINES",
    "N1_DEFAULT_GIB_PER_VCPU",
    "N1_GPUS",
    "N1Gpu",
    "component_prices",
    "n1_default_host",
    "n1_gpu_fits",
    "n1_offer",
    "n1_offer_name",
]

COMPUTE_SERVICE = "6F81-5844-456A"
#: Why the shipped catalog has no GCP committed-use price.
_NO_COMMITMENT = (
    "SkyPilot's GCP catalog, the shipped source, carries on-demand and spot only; committed-use "
    "(1- and 3-year) prices come from `gpuplan catalog refresh --provider gcp` (Cloud Billing Catalog, "
    "GOOGLE_API_KEY)"
)
SKUS_URL = f"https://cloudbilling.googleapis.com/v1/services/{COMPUTE_SERVICE}/skus"

FACTS = ProviderFacts(
    provider="gcp",
    skypilot_cloud="gcp",
    aliases=("google", "google_cloud"),  # google_cloud also reads google-cloud and "Google Cloud"
    display_name="Google Cloud",
    kind="hyperscaler",
    regions=regions(
        ("us-central1", "US", "Council Bluffs, Iowa"),
        ("us-east1", "US", "Moncks Corner, South Carolina"),
        ("us-east4", "US", "Ashburn, Virginia"),
        ("us-east5", "US", "Columbus, Ohio"),
        ("us-south1", "US", "Dallas, Texas"),
        ("us-west1", "US", "The Dalles, Oregon"),
        ("us-west2", "US", "Los Angeles, California"),
        ("us-west3", "US", "Salt Lake City, Utah"),
        ("us-west4", "US", "Las Vegas, Nevada"),
        ("northamerica-northeast1", "CA", "Montréal"),
        ("northamerica-northeast2", "CA", "Toronto"),
        ("southamerica-east1", "BR", "São Paulo"),
        ("europe-west1", "BE", "St. Ghislain"),
        ("europe-west2", "GB", "London"),
        ("europe-west3", "DE", "Frankfurt"),
        ("europe-west4", "NL", "Eemshaven"),
        ("europe-west6", "CH", "Zurich"),
        ("europe-west8", "IT", "Milan"),
        ("europe-west9", "FR", "Paris"),
        ("europe-north1", "FI", "Hamina"),
        ("europe-central2", "PL", "Warsaw"),
        ("me-west1", "IL", "Tel Aviv"),
        ("me-central2", "SA", "Dammam"),
        ("asia-east1", "TW", "Changhua County"),
        ("asia-east2", "HK", "Hong Kong"),
        ("asia-northeast1", "JP", "Tokyo"),
        ("asia-northeast3", "KR", "Seoul"),
        ("asia-south1", "IN", "Mumbai"),
        ("asia-south2", "IN", "Delhi"),
        ("asia-southeast1", "SG", "Jurong West"),
        ("asia-southeast2", "ID", "Jakarta"),
        ("australia-southeast1", "AU", "Sydney"),
    ),
    regions_source="Google Cloud 'Regions and zones', https://cloud.google.com/compute/docs/regions-zones "
    "(read 2026-12-01)",
    kubernetes="GKE",
    # A3 Mega and A3 High carry their GPU-to-GPU bandwidth (1,800 and 1,000 Gbps, the catalog's rows)
    # on extra NICs that only Google's GPUDirect transports use: "A3 Mega … 1,800 Gbps
    # GPUDirect-TCPXO; A3 High … 1,000 Gbps GPUDirect-TCPX" (Google Cloud, "Networking and GPU
    # machines"). The NIC and VPC counts and the plugin are those of Google's own NCCL test
    # manifests (GoogleCloudPlatform/container-engine-accelerators, gpudirect-tcpxo/ and
    # gpudirect-tcpx/nccl-test-latest.yaml: pods on eth1–eth8 over vpc1–vpc8, and eth1–eth4 over
    # vpc1–vpc4 beside a tcpx-daemon; gpudirect-tcpxo/nccl-tcpxo-installer.yaml installs the plugin).
    network_setups=(
        GpuNetworkSetup(
            name="GPUDirect-TCPXO",
            instances=frozenset({"a3-megagpu-8g"}),
            needs=N_(
                "eight extra VPC networks, one for each GPU NIC beside the default one, attached when the "
                "VMs are created, and Google's GPUDirect-TCPXO NCCL plugin in the job's image (on GKE its "
                "nccl-tcpxo-installer DaemonSet)"
            ),
            source="Google Cloud, 'Networking and GPU machines', "
            "https://cloud.google.com/compute/docs/gpus/gpu-network-bandwidth; 'Run NCCL on custom GKE "
            "clusters that use A3 Mega or A3 High', "
            "https://docs.cloud.google.com/ai-hypercomputer/docs/nccl/test-gke-custom-a3-mega-high",
        ),
        GpuNetworkSetup(
            name="GPUDirect-TCPX",
            instances=frozenset({"a3-highgpu-8g"}),
            # SkyPilot's `network_tier: best` on a GCP VM does what `gcp: enable_gpu_direct` does:
            # creates the GPU NICs' VPCs, boots the `skypilot:gpu-direct-cos` image with the TCPX
            # plugin and tcpgpudmarxd in its user data, runs the task in Google's
            # nccl-plugin-gpudirecttcpx image with the TCPX docker options, and places the VMs
            # compactly (skypilot-org/skypilot sky/clouds/gcp.py make_deploy_resources_variables at
            # 005261080a6b8102f3d95ff2147a855250f40272; PR #5688, released in 0.10.0). It does so
            # only on a3-highgpu-8g and a3-edgegpu-8g: sky/provision/gcp/config.py refuses any other
            # machine type (GPU_DIRECT_TCPX_INSTANCE_TYPES in sky/provision/gcp/constants.py), so
            # not on a3-megagpu-8g's TCPXO, which SkyPilot sets up on GKE alone.
            skypilot_best=True,
            needs=N_(
                "four extra VPC networks, one for each GPU NIC beside the default one, attached when the "
                "VMs are created, Google's GPUDirect-TCPX NCCL plugin in the job's image and its "
                "receive-data-path manager (tcpgpudmarxd) running beside the job"
            ),
            source="Google Cloud, 'Networking and GPU machines', "
            "https://cloud.google.com/compute/docs/gpus/gpu-network-bandwidth; 'Run NCCL on custom GKE "
            "clusters that use A3 Mega or A3 High', "
            "https://docs.cloud.google.com/ai-hypercomputer/docs/nccl/test-gke-custom-a3-mega-high",
        ),
    ),
    shared_storage=SharedStorage(service="Filestore", csi_driver="filestore.csi.storage.gke.io"),
    node_labels=NodeLabels(
        source='GKE docs: cloud.google.com/gke-spot: "true" and cloud.google.com/gke-accelerator labels; '
        "GPU nodes tainted nvidia.com/gpu=present:NoSchedule; accelerator names as GCP's GPU list",
        accelerator_label="cloud.google.com/gke-accelerator",
        spot_selector={"cloud.google.com/gke-spot": "true"},
        spot_tolerations=(
            {
                "key": "cloud.google.com/gke-spot",
                "operator": "Equal",
                "value": "true",
                "effect": "NoSchedule",
            },
        ),
    ),
    billing=Billing(
        granularity_s=1,
        min_billing_s=60,
        as_of="2017-09-26",
        source="Google Cloud announcement 2017-09-26 'Extending per-second billing in Google Cloud' "
        "(Compute Engine VMs incl. GPUs, one-minute minimum), as reported in the press",
    ),
    spot=SpotFacts(
        name="Spot VMs",
        notice_s=30,
        published_rate=None,
        source="Google Cloud docs 'Spot VMs' (30-second preemption notice) and 'Create and use "
        "preemptible VMs' (docs.cloud.google.com/compute/docs/instances/create-use-preemptible, read "
        "2026-12-05: 'preemptible VMs can only run for up to 24 hours at a time, but Spot VMs don't "
        "have a maximum runtime')",
        max_runtime_h=None,
        rate_note=N_("GCP publishes no rate for Spot VMs (they have no maximum runtime)"),
    ),
    default_region="us-east1",
    egress_storage_note="egress SKUs from published Cloud Billing Catalog example responses",
    price_sources=(SKUS_URL,),
    credentials=("GOOGLE_API_KEY",),
    offer_terms=(
        OfferTerms(
            host="cloud_vm",
            interruptible=False,
            price_covers="the VM per hour (GPUs, vCPUs, RAM, any local instance storage); network "
            "disks, egress and OS licences apart",
            min_rental_s=60,
            storage_billed_apart=True,
            host_specs_known=True,
            network_known=True,
            reliability="a hyperscale cloud's own data centres; an on-demand VM runs until stopped",
            source="Google Cloud 'VM instance pricing' (per-second billing, one-minute minimum; disks "
            "billed apart), https://cloud.google.com/compute/vm-instance-pricing",
        ),
    ),
    unknown_prices={
        "reserved_1y": _NO_COMMITMENT,
        "reserved_3y": _NO_COMMITMENT,
    },
)

_DOC = "Google Cloud GPU machine types, https://cloud.google.com/compute/docs/gpus"


@dataclass(frozen=True, kw_only=True)
class Machine:
    facts: InstanceFacts
    family: str
    """Core/RAM SKU family as the Catalog writes it (``A2``, ``G2``, ``N1 Predefined``)."""
    gpu_sku: str
    """The GPU's name in the Catalog's SKU descriptions (``Nvidia Tesla A100``)."""


def _m(
    family: str, gpu_sku: str, gpu: str, n: int, vcpus: int, mem: float, net: float, link: str, nvme: float
) -> Machine:
    return Machine(
        family=family,
        gpu_sku=gpu_sku,
        facts=InstanceFacts(
            gpu=gpu,
            gpu_count=n,
            vcpus=vcpus,
            memory_gib=mem,
            network_gbps=net,
            network_kind="TCP",
            interconnect=link,
            local_nvme_gb=nvme,
            source=_DOC,
        ),
    )


#: Machine types with GPUs. N1 + T4/V100 are named as the importers name an attachable-GPU offer
#: (:func:`n1_offer_name`: ``n1-standard-4 + 1x nvidia-tesla-t4``), so a refresh and the shipped
#: snapshot name one offer alike.
MACHINES: dict[str, Machine] = {
    "a2-highgpu-1g": _m("A2", "Nvidia Tesla A100", "A100-SXM4-40GB", 1, 12, 85, 24, "PCIe", 0),
    "a2-highgpu-2g": _m("A2", "Nvidia Tesla A100", "A100-SXM4-40GB", 2, 24, 170, 32, "NVLink/NVSwitch", 0),
    "a2-highgpu-4g": _m("A2", "Nvidia Tesla A100", "A100-SXM4-40GB", 4, 48, 340, 50, "NVLink/NVSwitch", 0),
    "a2-highgpu-8g": _m("A2", "Nvidia Tesla A100", "A100-SXM4-40GB", 8, 96, 680, 100, "NVLink/NVSwitch", 0),
    "a2-megagpu-16g": _m(
        "A2", "Nvidia Tesla A100", "A100-SXM4-40GB", 16, 96, 1360, 100, "NVLink/NVSwitch", 0
    ),
    "a2-ultragpu-1g": _m("A2", "Nvidia Tesla A100 80GB", "A100-SXM4-80GB", 1, 12, 170, 24, "PCIe", 375),
    "a2-ultragpu-2g": _m(
        "A2", "Nvidia Tesla A100 80GB", "A100-SXM4-80GB", 2, 24, 340, 32, "NVLink/NVSwitch", 750
    ),
    "a2-ultragpu-4g": _m(
        "A2", "Nvidia Tesla A100 80GB", "A100-SXM4-80GB", 4, 48, 680, 50, "NVLink/NVSwitch", 1500
    ),
    "a2-ultragpu-8g": _m(
        "A2", "Nvidia Tesla A100 80GB", "A100-SXM4-80GB", 8, 96, 1360, 100, "NVLink/NVSwitch", 3000
    ),
    "a3-highgpu-8g": _m("A3", "Nvidia H100 80GB", "H100-SXM", 8, 208, 1872, 1000, "NVLink/NVSwitch", 6000),
    "a3-megagpu-8g": _m(
        "A3", "Nvidia H100 80GB Mega", "H100-SXM", 8, 208, 1872, 1800, "NVLink/NVSwitch", 6000
    ),
    "g2-standard-4": _m("G2", "Nvidia L4", "L4", 1, 4, 16, 10, "PCIe", 375),
    "g2-standard-8": _m("G2", "Nvidia L4", "L4", 1, 8, 32, 16, "PCIe", 375),
    "g2-standard-12": _m("G2", "Nvidia L4", "L4", 1, 12, 48, 16, "PCIe", 375),
    "g2-standard-16": _m("G2", "Nvidia L4", "L4", 1, 16, 64, 32, "PCIe", 375),
    "g2-standard-24": _m("G2", "Nvidia L4", "L4", 2, 24, 96, 32, "PCIe", 750),
    "g2-standard-32": _m("G2", "Nvidia L4", "L4", 1, 32, 128, 32, "PCIe", 375),
    "g2-standard-48": _m("G2", "Nvidia L4", "L4", 4, 48, 192, 50, "PCIe", 1500),
    "g2-standard-96": _m("G2", "Nvidia L4", "L4", 8, 96, 384, 100, "PCIe", 3000),
    "n1-standard-4 + 1x nvidia-tesla-t4": _m(
        "N1 Predefined", "Nvidia Tesla T4", "T4", 1, 4, 15, 10, "PCIe", 0
    ),
    "n1-standard-8 + 1x nvidia-tesla-t4": _m(
        "N1 Predefined", "Nvidia Tesla T4", "T4", 1, 8, 30, 16, "PCIe", 0
    ),
    "n1-standard-16 + 2x nvidia-tesla-t4": _m(
        "N1 Predefined", "Nvidia Tesla T4", "T4", 2, 16, 60, 32, "PCIe", 0
    ),
    "n1-standard-32 + 4x nvidia-tesla-t4": _m(
        "N1 Predefined", "Nvidia Tesla T4", "T4", 4, 32, 120, 32, "PCIe", 0
    ),
    "n1-standard-8 + 1x nvidia-tesla-v100": _m(
        "N1 Predefined", "Nvidia Tesla V100", "V100-SXM2-16GB", 1, 8, 30, 16, "NVLink", 0
    ),
    "n1-standard-32 + 4x nvidia-tesla-v100": _m(
        "N1 Predefined", "Nvidia Tesla V100", "V100-SXM2-16GB", 4, 32, 120, 32, "NVLink", 0
    ),
    "n1-standard-64 + 8x nvidia-tesla-v100": _m(
        "N1 Predefined", "Nvidia Tesla V100", "V100-SXM2-16GB", 8, 64, 240, 32, "NVLink", 0
    ),
}


@dataclass(frozen=True, kw_only=True)
class N1Gpu:
    """A GPU model that attaches to N1 VMs, and how big an N1 host may be for each GPU count."""

    accelerator: str
    """GCP's accelerator type (``nvidia-tesla-t4``), as VM instance types name it here."""
    gpu: str
    """Hardware id."""
    limits: dict[int, tuple[int, float]]
    """GPU count -> (most vCPUs, most memory in GB) of the N1 host it may attach to."""
    default_vcpus: dict[int, int]
    """GPU count -> the fewest vCPUs of the host SkyPilot gives them when the user asks for none
    (``_N1_DEFAULT_HOST``)."""
    zone_limits: dict[tuple[int, str], tuple[int, float]] = field(default_factory=dict)
    """(GPU count, zone) -> tighter limits where GCP names an exception."""


_N1_RULES = (
    "Google Cloud 'GPU machine types', N1 general-purpose section (GPU count -> maximum vCPUs and "
    "memory of the N1 VM), https://cloud.google.com/compute/docs/gpus (read 2026-12-02), as also "
    "transcribed in SkyPilot sky/catalog/gcp_catalog.py _NUM_ACC_TO_MAX_CPU_AND_MEMORY"
)
#: Where :attr:`N1Gpu.default_vcpus` and :data:`N1_DEFAULT_GIB_PER_VCPU` come from.
_N1_DEFAULT_HOST = (
    "SkyPilot sky/catalog/gcp_catalog.py @b9dd08e7 (github.com/skypilot-org/skypilot, read "
    "2026-12-03): get_instance_type_for_accelerator gives N attachable GPUs the cheapest "
    "n1-standard/-highmem/-highcpu host of at least _NUM_ACC_TO_NUM_CPU[model][N] vCPUs and "
    "_DEFAULT_GPU_MEMORY_CPU_RATIO = 4 GiB per vCPU; P4 takes its 'DEFAULT' row"
)
#: GiB of host memory per vCPU SkyPilot asks of a default N1 GPU host (``_N1_DEFAULT_HOST``).
N1_DEFAULT_GIB_PER_VCPU = 4.0

#: N1 + attachable GPU pairing rules (``_N1_RULES``, the default host ``_N1_DEFAULT_HOST``); the
#: SkyPilot catalog name is the key. No 8 x T4, P4 or P100 VM exists; 4 x P100 is limited to
#: 64 vCPUs / 208 GB in three zones.
N1_GPUS: dict[str, N1Gpu] = {
    "T4": N1Gpu(
        accelerator="nvidia-tesla-t4",
        gpu="T4",
        limits={1: (48, 312), 2: (48, 312), 4: (96, 624)},
        default_vcpus={1: 4, 2: 8, 4: 48},
    ),
    "V100": N1Gpu(
        accelerator="nvidia-tesla-v100",
        gpu="V100-SXM2-16GB",
        limits={1: (12, 78), 2: (24, 156), 4: (48, 312), 8: (96, 624)},
        default_vcpus={1: 8, 2: 16, 4: 32, 8: 64},
    ),
    "P100": N1Gpu(
        accelerator="nvidia-tesla-p100",
        gpu="P100-PCIE-16GB",
        limits={1: (16, 104), 2: (32, 208), 4: (96, 624)},
        default_vcpus={1: 8, 2: 16, 4: 32},
        zone_limits={(4, z): (64, 208) for z in ("us-east1-c", "europe-west1-d", "europe-west1-b")},
    ),
    "P4": N1Gpu(
        accelerator="nvidia-tesla-p4",
        gpu="P4",
        limits={1: (24, 156), 2: (48, 312), 4: (96, 624)},
        default_vcpus={1: 8, 2: 16, 4: 32},
    ),
}
#: An attachable-GPU offer's instance type, as the importers name it: ``n1-standard-8 + 1x nvidia-tesla-t4``.
_N1_OFFER = re.compile(r"(n1-[a-z]+-\d+) \+ (\d+)x (\S+)")


def n1_offer_name(host: str, count: float, model: str) -> str:
    """The instance type of ``count`` GPUs of SkyPilot model ``model`` on N1 host ``host``."""
    return f"{host} + {count:g}x {N1_GPUS[model].accelerator}"


def n1_offer(instance_type: str) -> tuple[str, int] | None:
    """(SkyPilot model, GPU count) of an attachable-GPU offer's instance type (:func:`n1_offer_name`);
    None for any other instance type."""
    m = _N1_OFFER.fullmatch(instance_type.strip())
    if m is None:
        return None
    model = next((k for k, rule in N1_GPUS.items() if rule.accelerator == m[3]), None)
    return (model, int(m[2])) if model is not None else None


def n1_default_host(
    model: str, count: int, hosts: Iterable[tuple[float, float]]
) -> tuple[float, float] | None:
    """The (vCPUs, memory GiB) among ``hosts`` SkyPilot gives ``count`` GPUs of ``model`` when the
    user names no vCPUs (``_N1_DEFAULT_HOST``): at least :attr:`N1Gpu.default_vcpus` vCPUs and
    :data:`N1_DEFAULT_GIB_PER_VCPU` GiB for each, the cheapest of them — N1 is priced per vCPU and
    per GiB, a vCPU at more than the 2.75 GiB that a highmem shape adds over a standard one, so the
    fewest vCPUs, then the least memory. Where no host is that big, the one with the most vCPUs
    (then memory); None when ``hosts`` is empty or GCP attaches no such count."""
    rule = N1_GPUS.get(model)
    shapes = sorted(set(hosts))
    if rule is None or count not in rule.default_vcpus or not shapes:
        return None
    least = rule.default_vcpus[count]
    big = [(v, m) for v, m in shapes if v >= least and m >= N1_DEFAULT_GIB_PER_VCPU * least]
    return big[0] if big else shapes[-1]


def n1_gpu_fits(model: str, count: int, zone: str, vcpus: float, memory_gb: float) -> bool:
    """Whether ``count`` GPUs of SkyPilot model ``model`` attach to an N1 host this big in ``zone``."""
    rule = N1_GPUS.get(model)
    if rule is None or count not in rule.limits:
        return False
    most_vcpus, most_memory = rule.zone_limits.get((count, zone), rule.limits[count])
    return vcpus <= most_vcpus and memory_gb <= most_memory


_USAGE = {
    "OnDemand": "on_demand",
    "Preemptible": "spot",
    "Commit1Yr": "reserved_1y",
    "Commit3Yr": "reserved_3y",
}
_PREFIXES = re.compile(r"^(Spot Preemptible |Preemptible |Commitment v1: |Commitment: )")
_SUFFIX = re.compile(r" (running in|in) .*$")


def _unit_price(sku: dict[str, Any]) -> float | None:
    info = (sku.get("pricingInfo") or [{}])[0]
    rates = info.get("pricingExpression", {}).get("tieredRates") or []
    if not rates:
        return None
    up = rates[-1].get("unitPrice", {})
    value = int(up.get("units") or 0) + int(up.get("nanos") or 0) / 1e9
    return value if value > 0 else None


def component_prices(skus: list[dict[str, Any]]) -> dict[tuple[str, str, str], tuple[float, str]]:
    """(name, usage, region) -> (USD per unit-hour, effectiveTime date) for core, RAM and GPU SKUs.

    ``name`` is the description without its usage prefix and region suffix: ``A2 Instance Core``,
    ``A2 Instance Ram``, ``Nvidia Tesla A100 GPU`` (commitments: ``A2 Cpu``, ``A2 Ram``).
    """
    out: dict[tuple[str, str, str], tuple[float, str]] = {}
    for sku in skus:
        cat = sku.get("category", {})
        usage = cat.get("usageType", "")
        if usage not in _USAGE or cat.get("resourceFamily") != "Compute":
            continue
        name = _SUFFIX.sub("", _PREFIXES.sub("", sku.get("description", ""))).strip()
        name = re.sub(r" for \d Years?$", "", name)
        value = _unit_price(sku)
        if value is None:
            continue
        when = str((sku.get("pricingInfo") or [{}])[0].get("effectiveTime", ""))[:10]
        for region in sku.get("serviceRegions", []):
            out[(name, usage, region)] = (value, when)
    return out


def _machine_price(
    m: Machine, usage: str, region: str, parts: dict[tuple[str, str, str], tuple[float, str]]
) -> tuple[float, str, dict[str, float]] | None:
    core_names = (f"{m.family} Instance Core", f"{m.family} Cpu", f"{m.family} Core")
    ram_names = (f"{m.family} Instance Ram", f"{m.family} Ram")
    gpu_names = (f"{m.gpu_sku} GPU",)

    def first(names: tuple[str, ...]) -> tuple[float, str] | None:
        for n in names:
            if (n, usage, region) in parts:
                return parts[(n, usage, region)]
        return None

    core, ram, gpu = first(core_names), first(ram_names), first(gpu_names)
    if core is None or ram is None or gpu is None:
        return None
    f = m.facts
    assert f.vcpus is not None and f.memory_gib is not None
    total = core[0] * f.vcpus + ram[0] * f.memory_gib + gpu[0] * f.gpu_count
    as_of = max(core[1], ram[1], gpu[1])
    return round(total, 6), as_of, {"core": core[0], "ram_gib": ram[0], "gpu": gpu[0]}


class _Fetcher:
    def fetch(self, http: Http, credentials: Credentials, today: str) -> FetchResult:
        key = credentials.get("GOOGLE_API_KEY")
        if key is None:
            raise MissingCredentialsError(
                Phrase(N_("the Cloud Billing Catalog needs an API key: set GOOGLE_API_KEY"))
            )
        skus: list[dict[str, Any]] = []
        token = ""
        while True:
            params = {"key": key, "currencyCode": "USD", "pageSize": "5000"}
            if token:
                params["pageToken"] = token
            page = http.get_json(SKUS_URL, params=params)
            skus.extend(page.get("skus", []))
            token = page.get("nextPageToken") or ""
            if not token:
                break
        parts = component_prices(skus)
        by_offer: dict[tuple[str, str], list[Any]] = defaultdict(list)
        for name, m in MACHINES.items():
            for region in FACTS.regions:
                for usage, pricing in _USAGE.items():
                    found = _machine_price(m, usage, region.code, parts)
                    if found is None:
                        continue
                    amount, as_of, rates = found
                    by_offer[(region.code, name)].append(
                        price(
                            pricing,
                            amount,
                            as_of=as_of or today[:10],
                            source=SKUS_URL,
                            fetched_at=today,
                            term={"components_usd_per_hour": rates},
                        )
                    )
        rows: list[OfferRow] = []
        for (code, name), prices in sorted(by_offer.items()):
            if any(p.pricing == "on_demand" or p.pricing == "spot" for p in prices):
                rows.append(offer("gcp", code, name, MACHINES[name].facts, prices))
        return FetchResult(rows=tuple(rows), sources=(SKUS_URL,))


FETCHER = _Fetcher()
