"""What every provider module declares: its regions, services and billing facts, and its fetcher.

A provider module (``providers/<name>.py``) builds one :class:`ProviderFacts` and one fetcher
object that satisfies :class:`Fetcher`; :mod:`gpuplan.catalog.providers` lists them in an explicit
registry. Facts carry their source; unknown is None with a reason, never 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from gpuplan.catalog.model import OfferRow, RejectedRow

if TYPE_CHECKING:
    from gpuplan.catalog.providers.http import Http

__all__ = [
    "PROVIDER_RUN",
    "Billing",
    "BlockStorage",
    "Credentials",
    "FetchResult",
    "Fetcher",
    "GpuNetworkSetup",
    "MissingCredentialsError",
    "NcclTopologyFile",
    "NodeLabels",
    "OfferTerms",
    "ProviderFacts",
    "ProviderModule",
    "RdmaNetwork",
    "Region",
    "SharedStorage",
    "SpotFacts",
    "own_cloud_vm",
]


@dataclass(frozen=True, kw_only=True)
class Region:
    """One region of a provider, where its users rent machines."""

    code: str
    """The provider's own region id (``us-east-1``, ``cn-hangzhou``, ``ap-guangzhou``)."""
    country: str | None
    """ISO 3166-1 alpha-2 code of the country (or territory: ``HK``, ``TW``) it is in; None for a
    marketplace's pseudo-region that spans countries (RunPod's ``secure`` cloud)."""
    city: str | None
    """The city or area the provider names; None where it names none (a marketplace's country)."""


@dataclass(frozen=True, kw_only=True)
class Billing:
    """How on-demand compute time is billed."""

    granularity_s: int | None
    """Billing increment, seconds; None = unknown (consumers assume hourly)."""
    min_billing_s: int | None
    as_of: str | None
    source: str | None
    reason: str | None = None
    """Why the granularity is unknown, when it is."""
    documented_increment_s: int | None = None
    """The increment the provider documents when a rule of its billing the catalog does not hold
    keeps ``granularity_s`` unknown (Alibaba: 1 s, with a minimum per hourly cycle that varies with
    the instance's vCPUs). Consumers still bill whole hours; they say the increment is documented
    and the rest is not held, instead of that nothing is known."""


@dataclass(frozen=True, kw_only=True)
class SpotFacts:
    """What interruptible capacity is called and what the provider says about interruptions."""

    name: str | None
    """The provider's name for it (``Spot Instances``, ``Spot VMs``, ``interruptible``); None = none sold."""
    notice_s: int | None
    """Warning before an interruption, seconds; None = not published."""
    published_rate: str | None
    """What the provider publishes about interruption frequency (``advisor bands per instance``), or
    None when it publishes nothing (the planner then states its assumed default)."""
    source: str
    rate_note: str
    """What users are told about the provider's interruption rate when the catalog has no band for
    an offer and the planner assumes its default: one clause, marked with ``N_()`` so that it is
    translated where shown (``Tencent publishes no rate``)."""
    max_runtime_h: float | None = None
    """A hard runtime limit of an interruptible machine, hours (None = no limit published)."""


#: What kind of machine a price rents (``OfferTerms.host``).
HOST_KINDS = ("cloud_vm", "bare_metal", "secure_cloud", "community_host", "resold")
#: Host kinds a provider runs (or resells from another cloud): their machines are its to keep up.
PROVIDER_RUN = frozenset({"cloud_vm", "bare_metal", "secure_cloud", "resold"})


@dataclass(frozen=True, kw_only=True)
class OfferTerms:
    """What one kind of the provider's offers is, and what its price means: the facts a planner
    needs to tell a hyperscaler VM from a marketplace host. ``None`` means the source does not say;
    every known fact has its ``source``."""

    host: str
    """One of :data:`HOST_KINDS`: ``cloud_vm`` (a VM in the provider's own data centre),
    ``bare_metal`` (a whole server of the provider's), ``secure_cloud`` (a marketplace's own or
    vetted data centres), ``community_host`` (a machine an independent host lists),
    ``resold`` (another cloud's machine sold through an aggregator)."""
    marker: str = ""
    """A substring of the region or instance type (any case) that selects these terms
    (``community``); ``""`` = the provider's default terms."""
    interruptible: bool | None
    """Can the provider stop an on-demand rental of this kind before the renter does (a host
    taking its machine back, a bid outbidding it)? Spot prices are interruptible by definition."""
    price_covers: str
    """What one price buys, in words: ``the whole instance per hour (GPUs, vCPUs, RAM, boot
    disk)``."""
    min_rental_s: int | None
    """Shortest billed rental, seconds; None = not published."""
    storage_billed_apart: bool | None
    """Is disk (beyond a boot disk) billed on top of the hourly price? None = not published."""
    host_specs_known: bool
    """Does the source give this kind's vCPUs and RAM per offer?"""
    network_known: bool
    """Does the source give this kind's network bandwidth per offer?"""
    reliability: str
    """One sentence on how far the price and the machine can be relied on."""
    source: str


def own_cloud_vm(
    source: str, *, interruptible: bool | None, host_specs_known: bool, network_known: bool
) -> OfferTerms:
    """The terms of a cloud's pay-as-you-go VM in its own data centres (an ECS, a CVM): what its
    billing page, ``source``, establishes; what it does not (a minimum rental, disks billed apart) is
    None, not guessed."""
    return OfferTerms(
        host="cloud_vm",
        interruptible=interruptible,
        price_covers="the instance per hour (GPUs, vCPUs, RAM)",
        min_rental_s=None,
        storage_billed_apart=None,
        host_specs_known=host_specs_known,
        network_known=network_known,
        reliability="a cloud's own data centres",
        source=source,
    )


@dataclass(frozen=True, kw_only=True)
class NodeLabels:
    """Labels and taints the provider's managed Kubernetes documents for GPU and spot nodes, which
    the k8s deploy target writes into its manifests (a provider without them gets a comment asking
    for the user's own, and a spot plan there selects gpuplan's own spot label:
    :data:`gpuplan.deploy.k8s.nodes.SPOT_LABEL`)."""

    source: str
    """Where the provider documents them."""
    gpu_tolerations: tuple[Mapping[str, str], ...] = ()
    """Taints its GPU node pools carry besides ``nvidia.com/gpu`` (each a toleration as written)."""
    accelerator_label: str | None = None
    """Node label whose value names the GPU model, as ``hardware/data/gpus.csv`` ``gke_accelerator``
    spells it (GKE's ``cloud.google.com/gke-accelerator``); None: no such label."""
    spot_selector: Mapping[str, str] = field(default_factory=dict)
    """Node selector that picks spot (preemptible) capacity."""
    spot_tolerations: tuple[Mapping[str, str], ...] = ()
    """Taints its spot nodes carry."""
    spot_note: str | None = None
    """A comment for spot manifests (another way clusters of this provider mark spot nodes), marked
    for translation (``N_``): the manifests write it in the user's language."""


@dataclass(frozen=True, kw_only=True)
class SharedStorage:
    """A managed Kubernetes's ReadWriteMany file storage, as its provider documents it."""

    service: str
    """The file service (``Amazon EFS``)."""
    csi_driver: str
    """Its CSI driver, the ``provisioner`` of a StorageClass (``efs.csi.aws.com``)."""


@dataclass(frozen=True, kw_only=True)
class BlockStorage:
    """A StorageClass of the managed Kubernetes's block volumes that ``deploy --target k8s`` names in
    its claims and writes, where a new cluster may have no default class (a claim of none stays
    Pending), as its provider documents the CSI driver."""

    class_name: str
    """The class's name in the written manifest (gpuplan's own, so that applying it changes no class
    of the user's)."""
    provisioner: str
    """Its CSI driver (``ebs.csi.aws.com``)."""
    parameters: Mapping[str, str]
    """The driver's parameters (``type: gp3``)."""
    driver_check: str
    """The command that shows whether the cluster has the driver."""
    driver_install: str
    """The command that installs it (placeholders in capitals)."""
    source: str
    """Where the provider documents that a new cluster has no default class, and the driver."""


@dataclass(frozen=True, kw_only=True)
class RdmaNetwork:
    """The provider's RDMA network between GPU instances (AWS's Elastic Fabric Adapter), which the
    catalog's network speeds of those instances assume and which a launch must turn on: without it
    NCCL talks TCP over the instance's ordinary network, far slower than the plan priced."""

    name: str
    """What the provider calls it (``EFA``)."""
    interfaces: Mapping[str, int]
    """Instance type -> its RDMA interfaces (the count the Kubernetes device plugin advertises and a
    pod requests). An instance type not here: none known."""
    gpudirect_rdma: frozenset[str] = frozenset()
    """Instance types whose interfaces read and write GPU memory directly (GPUDirect RDMA)."""
    k8s_resource: str
    """The extended resource a pod requests per interface (``vpc.amazonaws.com/efa``)."""
    k8s_plugin_chart: str
    """The Helm chart of the Kubernetes device plugin that advertises it."""
    k8s_plugin_doc: str
    """Where the provider documents installing that plugin (a URL)."""
    image: str
    """A PyTorch image that holds the user-space libraries NCCL needs for it (libfabric, the NCCL
    plugin), for pods that run the stock image."""
    image_source: str
    """Where the provider lists that image and what it holds (a URL)."""
    env: Mapping[str, str] = field(default_factory=dict)
    """Environment every rank needs on every such instance."""
    gpudirect_env: Mapping[str, str] = field(default_factory=dict)
    """Environment added on the ``gpudirect_rdma`` instance types."""
    source: str
    """Where the counts and the environment come from."""


@dataclass(frozen=True, kw_only=True)
class GpuNetworkSetup:
    """A GPU-to-GPU network between instances that the catalog's network speed of those instances
    assumes, that a launch must set up, and that gpuplan's launch files do not (they turn on only an
    :class:`RdmaNetwork`): Google Cloud's GPUDirect-TCPX/TCPXO on A3, Azure's InfiniBand on the ND
    sizes. Without it NCCL talks TCP over the instance's ordinary network; ``gpuplan deploy`` warns of
    a multi-node plan on one of ``instances`` with what it needs, except where SkyPilot's
    ``network_tier: best`` sets it up (:attr:`skypilot_best`) and the skypilot target asks for it."""

    name: str
    """What the provider calls it (``GPUDirect-TCPXO``, ``InfiniBand``)."""
    instances: frozenset[str]
    """The instance types that have it."""
    needs: str
    """What a launch needs for it, in words (a catalog message, translated where shown)."""
    source: str
    """The provider's documentation the needs are from (title and URL)."""
    skypilot_best: bool = False
    """SkyPilot's ``network_tier: best`` sets it up on these instances' VMs (the extra networks, the
    plugin, the image): the skypilot target writes it and has nothing to warn of."""


@dataclass(frozen=True, kw_only=True)
class NcclTopologyFile:
    """A topology file the provider publishes for NCCL (``NCCL_TOPO_FILE``) on an instance type where
    NCCL's own detection of the layout inside the VM gives a slower all-reduce than the file: a
    multi-GPU job there runs slower than gpuplan's estimate of the instance's GPU-to-GPU link. The
    launch files name the file (commented out, for the user to point at their copy) and
    ``gpuplan doctor`` says so on a machine with these GPUs."""

    instance: str
    """The instance type (``g5.48xlarge``)."""
    gpu: str
    """Its GPU, as gpuplan's datasheets name it (``A10G``)."""
    gpus: int
    """Its GPU count: the doctor, which cannot ask the instance type, recognises the instance by
    ``gpus`` × ``gpu`` where the catalog lists no other instance of that many."""
    file_name: str
    """The file's name (``g5.48xl-topo.xml``)."""
    url: str
    """Where it is published."""
    reported: str
    """What it changed in a public report: one clause, marked with ``N_()`` (the launch files and
    the doctor say it in the user's language)."""
    report_url: str
    """That report."""


@dataclass(frozen=True, kw_only=True)
class ProviderFacts:
    """Everything gpuplan knows about a provider apart from its offers and prices."""

    provider: str
    """The provider's code, used everywhere: catalog rows, a workload's ``providers:``,
    ``data.location`` (``aws/us-east-1``), plan files. Lower case letters, digits and ``_``; the
    registry (``gpuplan.catalog.providers.REGISTRY``) is keyed by it."""
    display_name: str
    kind: str
    """``hyperscaler``, ``china_cloud`` or ``marketplace``."""
    regions: tuple[Region, ...]
    regions_source: str
    kubernetes: str | None
    """The managed Kubernetes service with GPU node pools (``EKS``); None = none offered."""
    billing: Billing
    spot: SpotFacts
    default_region: str | None
    """The region whose egress/storage rows stand in for a region without any (marked as fallback);
    None: the provider has only generic rows."""
    egress_storage_note: str
    """Where the provider's egress and storage prices come from, or why they are unknown."""
    price_sources: tuple[str, ...]
    """The price lists ``catalog refresh`` reads, as URLs or API names."""
    credentials: tuple[str, ...] = ()
    """Names of the settings the fetcher reads (keys, versions); none: public price lists."""
    price_list_region_codes: tuple[str, ...] = ()
    """Codes a price list uses that are not region ids (Alibaba BSS ``vm_region_no``)."""
    aliases: tuple[str, ...] = ()
    """Other names users write for the provider (``aliyun``); any case, ``-``/``_``/spaces alike."""
    node_labels: NodeLabels | None = None
    """What its managed Kubernetes labels and taints (None: nothing documented gpuplan knows)."""
    shared_storage: SharedStorage | None = None
    """Its managed Kubernetes's ReadWriteMany file storage (service and CSI driver), which a
    checkpoint volume needs when a replacement pod may land in another zone than the first one's
    block volume; None: none known."""
    block_storage: BlockStorage | None = None
    """The block-volume StorageClass ``deploy --target k8s`` names in its claims and writes; None:
    the claims use the cluster's default class, and the README says to check there is one."""
    rdma: RdmaNetwork | None = None
    """Its RDMA network between GPU instances, where it has one a launch must turn on."""
    network_setups: tuple[GpuNetworkSetup, ...] = ()
    """GPU networks between its instances that a launch must set up and gpuplan's files do not."""
    nccl_topology_files: tuple[NcclTopologyFile, ...] = ()
    """Topology files it publishes for NCCL, one per instance type that needs one."""
    skypilot_cloud: str | None = None
    """SkyPilot's name for this cloud (``resources.infra: <cloud>/<region>``), one of SkyPilot's
    ``ALL_CLOUDS``; None where SkyPilot cannot launch on it: the skypilot deploy target then refuses
    the plan in one line naming the clouds and targets that work."""
    skypilot_regions: bool = True
    """The catalog's region codes are SkyPilot's region names for the cloud. False (Vast.ai: the
    catalog keeps the host's country, SkyPilot names a region ``City, CC, continent``): the task
    names the cloud only and SkyPilot picks the host."""
    offer_terms: tuple[OfferTerms, ...] = ()
    """What its offers are and what their prices mean; the first whose ``marker`` is in the
    instance type applies (the last should be the default, marker ``""``). Empty: not stated."""
    unknown_prices: Mapping[str, str] = field(default_factory=dict)
    """Pricing models the provider sells whose prices the shipped catalog lacks, each with the
    reason (``{"reserved_1y": "…"}``): a tco or plan reads "unknown", never "does not pay off"."""
    mainland_china_cloud: bool = False
    """A Chinese cloud, whose mainland China regions are among the ones a user picks (it has regions
    abroad too): a launch on it in no named region may be in mainland China, and deploy says its
    notes for there (Docker Hub and huggingface.co often unreachable) as conditions. False for AWS,
    whose Beijing and Ningxia regions need "an account and credentials specific to each of those
    Regions" (Amazon Web Services China, "General Information About Amazon Web Services China",
    docs.amazonaws.cn/en_us/aws/latest/userguide/general-info.html, read 2026-12-06), and for
    marketplaces, whose regions are the countries of their hosts."""
    declared: bool = False
    """A provider the user declared (``catalog import FILE --new-provider CODE``), not a module of
    gpuplan's: nothing is known of it but its code and, where the user gave it, the country of its
    regions (:mod:`gpuplan.catalog.providers.declared`)."""
    declared_country: str | None = None
    """The country of every region of a declared provider (``--country CN``); None: unknown, never
    guessed from a region's name."""

    def region(self, code: str) -> Region | None:
        """The region with this code, or None (a declared provider: any region, in its country)."""
        if self.declared:
            return Region(code=code, country=self.declared_country, city=None)
        return self._regions_by_code.get(code)

    @cached_property
    def _regions_by_code(self) -> dict[str, Region]:
        # A marketplace lists every ISO country: a dict, not a scan per offer.
        return {r.code: r for r in self.regions}

    def terms_for(self, instance_type: str, region: str = "") -> OfferTerms | None:
        """The :class:`OfferTerms` of an offer: the first whose marker is in its region or instance
        type (any case; RunPod's ``_COMMUNITY`` types, its ``community`` cloud), else the default."""
        where = f"{region} {instance_type}".lower()
        for t in self.offer_terms:
            if t.marker == "" or t.marker.lower() in where:
                return t
        return None


@dataclass(frozen=True, kw_only=True)
class Credentials:
    """Credentials handed to fetchers by the caller (the CLI reads them from the environment)."""

    values: Mapping[str, str] = field(default_factory=dict)

    def get(self, name: str) -> str | None:
        value = self.values.get(name, "").strip()
        return value or None


@dataclass(frozen=True, kw_only=True)
class FetchResult:
    """What one provider's fetch produced: gated and imported by the refresh as one transaction."""

    rows: tuple[OfferRow, ...]
    sources: tuple[str, ...]
    """Every URL read."""
    notes: tuple[object, ...] = ()
    """What the fetcher left out and why (one short line each)."""
    rejected: tuple[RejectedRow, ...] = ()
    """Entries of the answer the fetcher refused one by one (a listing whose price is no number),
    each with its reason: counted and named with the rows the gates refuse."""


class MissingCredentialsError(Exception):
    """The fetcher needs credentials the caller did not give: the provider is skipped, not failed."""


@runtime_checkable
class Fetcher(Protocol):
    """Reads a provider's own price sources into offer rows."""

    def fetch(self, http: Http, credentials: Credentials, today: str) -> FetchResult:
        """Offer rows with prices dated ``today`` (an ISO timestamp: the fetch time; prices are dated by
        its day, or the source's own date) and their source URLs.

        Raises MissingCredentialsError when the provider needs keys that are not given, and any
        :class:`gpuplan.errors.GpuplanError` or ``httpx.HTTPError`` when a source cannot be read.
        """
        ...


@runtime_checkable
class ProviderModule(Protocol):
    """The face of one ``providers/<name>.py`` module, as the registry sees it (read-only)."""

    @property
    def FACTS(self) -> ProviderFacts: ...

    @property
    def FETCHER(self) -> Fetcher: ...


def regions(*rows: tuple[str, str | None, str | None]) -> tuple[Region, ...]:
    """Regions from (code, country, city) triples, the compact form provider modules write."""
    return tuple(Region(code=c, country=k, city=city) for c, k, city in rows)


def unique_codes(items: Sequence[Region]) -> bool:
    codes = [r.code for r in items]
    return len(codes) == len(set(codes))
