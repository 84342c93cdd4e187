"""Amazon Web Services: regions, GPU instance facts, and the fetcher of its public price lists.

Prices come from three public, credential-free sources: the Price List bulk CSV per region
(on-demand and reserved 1y/3y rows), the spot price feed behind aws.amazon.com/ec2/spot/pricing
(current spot per region), and the Spot Instance Advisor (interruption band and savings per
instance type and region).
"""

from __future__ import annotations

import csv
from collections import defaultdict
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from gpuplan.catalog.model import OfferRow, PriceRow
from gpuplan.catalog.providers.base import (
    Billing,
    BlockStorage,
    Credentials,
    FetchResult,
    NcclTopologyFile,
    NodeLabels,
    OfferTerms,
    ProviderFacts,
    RdmaNetwork,
    SharedStorage,
    SpotFacts,
    regions,
)
from gpuplan.catalog.providers.common import InstanceFacts, number, offer, price
from gpuplan.errors import DataError, Phrase
from gpuplan.i18n import N_

if TYPE_CHECKING:
    from gpuplan.catalog.providers.http import Http

__all__ = [
    "FACTS",
    "FETCHER",
    "INSTANCES",
    "parse_bulk_csv",
    "parse_spot_history_xml",
    "spot_bands",
    "spot_prices",
    "zone_spot_prices",
]

PRICING_HOST = "https://pricing.us-east-1.amazonaws.com"
REGION_INDEX_URL = f"{PRICING_HOST}/offers/v1.0/aws/AmazonEC2/current/region_index.json"
SPOT_FEED_URL = "https://website.spot.ec2.aws.a2z.com/spot.json"
SPOT_ADVISOR_URL = "https://spot-bid-advisor.s3.amazonaws.com/spot-advisor-data.json"

FACTS = ProviderFacts(
    provider="aws",
    skypilot_cloud="aws",
    aliases=("amazon",),
    display_name="Amazon Web Services",
    kind="hyperscaler",
    regions=regions(
        ("us-east-1", "US", "N. Virginia"),
        ("us-east-2", "US", "Ohio"),
        ("us-west-1", "US", "N. California"),
        ("us-west-2", "US", "Oregon"),
        ("ca-central-1", "CA", "Montreal"),
        ("ca-west-1", "CA", "Calgary"),
        ("mx-central-1", "MX", "Querétaro"),
        ("sa-east-1", "BR", "São Paulo"),
        ("eu-west-1", "IE", "Dublin"),
        ("eu-west-2", "GB", "London"),
        ("eu-west-3", "FR", "Paris"),
        ("eu-central-1", "DE", "Frankfurt"),
        ("eu-central-2", "CH", "Zurich"),
        ("eu-north-1", "SE", "Stockholm"),
        ("eu-south-1", "IT", "Milan"),
        ("eu-south-2", "ES", "Aragón"),
        ("il-central-1", "IL", "Tel Aviv"),
        ("me-south-1", "BH", "Bahrain"),
        ("me-central-1", "AE", "UAE"),
        ("af-south-1", "ZA", "Cape Town"),
        ("ap-east-1", "HK", "Hong Kong"),
        ("ap-south-1", "IN", "Mumbai"),
        ("ap-south-2", "IN", "Hyderabad"),
        ("ap-northeast-1", "JP", "Tokyo"),
        ("ap-northeast-2", "KR", "Seoul"),
        ("ap-northeast-3", "JP", "Osaka"),
        ("ap-southeast-1", "SG", "Singapore"),
        ("ap-southeast-2", "AU", "Sydney"),
        ("ap-southeast-3", "ID", "Jakarta"),
        ("ap-southeast-4", "AU", "Melbourne"),
        ("ap-southeast-5", "MY", "Malaysia"),
        ("ap-southeast-7", "TH", "Thailand"),
        ("cn-north-1", "CN", "Beijing"),
        ("cn-northwest-1", "CN", "Ningxia"),
    ),
    regions_source="AWS region list, https://docs.aws.amazon.com/global-infrastructure/latest/regions/"
    "aws-regions.html (names as published; cross-checked with paessler.com's AWS region code list, "
    "read 2026-12-01)",
    kubernetes="EKS",
    shared_storage=SharedStorage(service="Amazon EFS", csi_driver="efs.csi.aws.com"),
    # From EKS 1.30 a new cluster's gp2 class is no longer the default ("Review release notes for
    # Kubernetes versions on extended support", Kubernetes 1.30: "Amazon EKS no longer includes the
    # default annotation on the gp2 StorageClass resource applied to newly created clusters"); gp3
    # volumes are the Amazon EBS CSI driver's ("Use Kubernetes volume storage with Amazon EBS").
    block_storage=BlockStorage(
        class_name="gpuplan-gp3",
        provisioner="ebs.csi.aws.com",
        parameters={"type": "gp3"},
        driver_check="kubectl get csidriver ebs.csi.aws.com",
        driver_install="aws eks create-addon --cluster-name CLUSTER --addon-name aws-ebs-csi-driver "
        "--service-account-role-arn ROLE_ARN",
        source="https://docs.aws.amazon.com/eks/latest/userguide/kubernetes-versions-extended.html "
        "(Kubernetes 1.30), https://docs.aws.amazon.com/eks/latest/userguide/ebs-csi.html, read 2026-12-07",
    ),
    rdma=RdmaNetwork(
        name="EFA",
        # EFA interfaces per instance type: the "Network cards" table of the EC2 user guide
        # (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/using-eni.html#network-cards), as
        # SkyPilot's AWS EFA example tabulates it for GPU instances (skypilot-org/skypilot
        # examples/aws_efa/README.md, "GPU and EFA count mapping").
        interfaces={
            **dict.fromkeys(("g4dn.8xlarge", "g4dn.12xlarge", "g4dn.16xlarge", "g4dn.metal"), 1),
            **dict.fromkeys(("g5.8xlarge", "g5.12xlarge", "g5.16xlarge", "g5.24xlarge", "g5.48xlarge"), 1),
            **dict.fromkeys(("g6.8xlarge", "g6.12xlarge", "g6.16xlarge", "g6.24xlarge", "g6.48xlarge"), 1),
            **dict.fromkeys(("g6e.8xlarge", "g6e.12xlarge", "g6e.16xlarge"), 1),
            "g6e.24xlarge": 2,
            "g6e.48xlarge": 4,
            "p4d.24xlarge": 4,
            "p4de.24xlarge": 4,
            "p5.48xlarge": 32,
            "p5e.48xlarge": 32,
            "p5en.48xlarge": 16,
        },
        # GPUDirect RDMA (the EFA reads and writes GPU memory): the P4 and P5 families; the AWS
        # guide "Get started with EFA and NCCL" sets FI_EFA_USE_DEVICE_RDMA=1 for them only.
        gpudirect_rdma=frozenset(
            ("p4d.24xlarge", "p4de.24xlarge", "p5.48xlarge", "p5e.48xlarge", "p5en.48xlarge")
        ),
        k8s_resource="vpc.amazonaws.com/efa",
        # EKS user guide "Run machine learning training on Amazon EKS with Elastic Fabric Adapter".
        k8s_plugin_chart="eks/aws-efa-k8s-device-plugin",
        k8s_plugin_doc="https://docs.aws.amazon.com/eks/latest/userguide/node-efa.html",
        # AWS Deep Learning Containers: the PyTorch 2.7 training GPU image "includes stable versions of
        # key components, including NVIDIA CUDA, cuDNN and EFA" (DLC developer guide, "Customize Deep
        # Learning Containers"; the image's release notes list libfabric and the AWS OFI NCCL plugin);
        # the ECR Public Gallery mirror needs no registry login (available_images.md).
        image="public.ecr.aws/deep-learning-containers/pytorch-training:2.7.1-gpu-py312-cu128-ubuntu22.04-ec2",
        image_source="https://github.com/aws/deep-learning-containers/blob/master/available_images.md",
        env={"FI_PROVIDER": "efa"},
        gpudirect_env={"FI_EFA_USE_DEVICE_RDMA": "1"},
        source="AWS EC2 user guide 'Get started with EFA and NCCL' "
        "(https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-start-nccl.html): FI_PROVIDER=efa, "
        "and FI_EFA_USE_DEVICE_RDMA=1 on p4d/p5 instances",
    ),
    # g5.48xlarge, unlike the single-socket G5 sizes: NCCL's own detection of its layout inside the VM
    # gives a slower all-reduce than AWS's topology file. NVIDIA's maintainer (sjeaugey, 2024-06-06)
    # points to that file; the reporter's DDP job then took 4.5 h instead of 7 (torch 2.0) and 10 h
    # instead of 16 (torch 2.3): NVIDIA/nccl issue #1298,
    # "all-reduce slower on v2.20.5 compared to v2.18.5 on AWS g5.48xlarge (8 x A10G)",
    # https://github.com/NVIDIA/nccl/issues/1298. The single-socket G5 sizes need none: "all the GPUs are
    # directly connected to the socket's root complex, so autodetection will return the same thing as a
    # static file" (AWS's bwbarrett, 2025-03-10, aws/aws-ofi-nccl issue #466, "NCCL topology file for
    # g5.12xlarge", https://github.com/aws/aws-ofi-nccl/issues/466).
    nccl_topology_files=(
        NcclTopologyFile(
            instance="g5.48xlarge",
            gpu="A10G",
            gpus=8,
            file_name="g5.48xl-topo.xml",
            url="https://github.com/aws/aws-ofi-nccl/blob/master/topology/g5.48xl-topo.xml",
            reported=N_(
                "a DDP job on it took 4.5 h instead of 7 (torch 2.0) and 10 h instead of 16 (torch 2.3) "
                "with the file"
            ),
            report_url="https://github.com/NVIDIA/nccl/issues/1298",
        ),
    ),
    node_labels=NodeLabels(
        source="EKS managed node groups label capacity eks.amazonaws.com/capacityType: SPOT|ON_DEMAND "
        "(EKS user guide 'Managed node groups')",
        spot_selector={"eks.amazonaws.com/capacityType": "SPOT"},
        spot_note=N_("EKS with Karpenter instead of managed node groups: karpenter.sh/capacity-type: spot"),
    ),
    billing=Billing(
        granularity_s=1,
        min_billing_s=60,
        as_of="2017-10-02",
        source="AWS announcement 2017-09-18 'Per-second billing for EC2 instances and EBS volumes' "
        "(Linux instances, from 2017-10-02, one-minute minimum), as cited in rumpkernel/rumprun-packages#147",
    ),
    spot=SpotFacts(
        name="Spot Instances",
        notice_s=120,
        published_rate="interruption-frequency bands per instance type and region (Spot Instance Advisor)",
        source="AWS EC2 user guide 'Spot Instance interruption notices' (two-minute warning); "
        "Spot Instance Advisor data " + SPOT_ADVISOR_URL,
        rate_note=N_(
            "AWS publishes interruption-frequency bands per instance type in the Spot Instance Advisor; "
            "none in the catalog for this offer"
        ),
    ),
    default_region="us-east-1",
    egress_storage_note="egress tiers and S3/EBS prices from dated secondary tables and AWS Price List "
    "(AWS Price List API examples and dated secondary tables)",
    price_sources=(REGION_INDEX_URL, SPOT_FEED_URL, SPOT_ADVISOR_URL, "EC2 DescribeSpotPriceHistory (keys)"),
    credentials=("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"),
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
            source="AWS announcement 2017-09-18 'Per-second billing for EC2 instances and EBS volumes' "
            "(one-minute minimum; EBS billed apart)",
        ),
    ),
)

_DOC = "AWS EC2 accelerated computing instance specifications, https://docs.aws.amazon.com/ec2/latest/instancetypes/ac.html"


def _i(
    gpu: str, n: float, vcpus: float, mem: float, net: float, kind: str, link: str, nvme: float
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


#: GPU instance types: GPU, count, vCPUs, GiB, peak network Gbit/s ("up to" = the peak), network
#: kind (EFA where the size supports it), GPU link, local NVMe GB in total (0: EBS only).
INSTANCES: dict[str, InstanceFacts] = {
    "g4dn.xlarge": _i("T4", 1, 4, 16, 25, "TCP", "PCIe", 125),
    "g4dn.2xlarge": _i("T4", 1, 8, 32, 25, "TCP", "PCIe", 225),
    "g4dn.4xlarge": _i("T4", 1, 16, 64, 25, "TCP", "PCIe", 225),
    "g4dn.8xlarge": _i("T4", 1, 32, 128, 50, "EFA", "PCIe", 900),
    "g4dn.16xlarge": _i("T4", 1, 64, 256, 50, "EFA", "PCIe", 900),
    "g4dn.12xlarge": _i("T4", 4, 48, 192, 50, "EFA", "PCIe", 900),
    "g4dn.metal": _i("T4", 8, 96, 384, 100, "EFA", "PCIe", 1800),
    "g5.xlarge": _i("A10G", 1, 4, 16, 10, "TCP", "PCIe", 250),
    "g5.2xlarge": _i("A10G", 1, 8, 32, 10, "TCP", "PCIe", 450),
    "g5.4xlarge": _i("A10G", 1, 16, 64, 25, "TCP", "PCIe", 600),
    "g5.8xlarge": _i("A10G", 1, 32, 128, 25, "EFA", "PCIe", 900),
    "g5.16xlarge": _i("A10G", 1, 64, 256, 25, "EFA", "PCIe", 1900),
    "g5.12xlarge": _i("A10G", 4, 48, 192, 40, "EFA", "PCIe", 3800),
    "g5.24xlarge": _i("A10G", 4, 96, 384, 50, "EFA", "PCIe", 3800),
    "g5.48xlarge": _i("A10G", 8, 192, 768, 100, "EFA", "PCIe", 7600),
    "g6.xlarge": _i("L4", 1, 4, 16, 10, "TCP", "PCIe", 250),
    "g6.2xlarge": _i("L4", 1, 8, 32, 10, "TCP", "PCIe", 450),
    "g6.4xlarge": _i("L4", 1, 16, 64, 25, "TCP", "PCIe", 600),
    "g6.8xlarge": _i("L4", 1, 32, 128, 25, "EFA", "PCIe", 900),
    "g6.16xlarge": _i("L4", 1, 64, 256, 25, "EFA", "PCIe", 1880),
    "g6.12xlarge": _i("L4", 4, 48, 192, 40, "EFA", "PCIe", 3760),
    "g6.24xlarge": _i("L4", 4, 96, 384, 50, "EFA", "PCIe", 3760),
    "g6.48xlarge": _i("L4", 8, 192, 768, 100, "EFA", "PCIe", 7520),
    "g6e.xlarge": _i("L40S", 1, 4, 32, 20, "TCP", "PCIe", 250),
    "g6e.2xlarge": _i("L40S", 1, 8, 64, 20, "TCP", "PCIe", 450),
    "g6e.4xlarge": _i("L40S", 1, 16, 128, 20, "TCP", "PCIe", 600),
    "g6e.8xlarge": _i("L40S", 1, 32, 256, 25, "EFA", "PCIe", 900),
    "g6e.16xlarge": _i("L40S", 1, 64, 512, 35, "EFA", "PCIe", 1900),
    "g6e.12xlarge": _i("L40S", 4, 48, 384, 100, "EFA", "PCIe", 3800),
    "g6e.24xlarge": _i("L40S", 4, 96, 768, 200, "EFA", "PCIe", 3800),
    "g6e.48xlarge": _i("L40S", 8, 192, 1536, 400, "EFA", "PCIe", 7600),
    "p3.2xlarge": _i("V100-SXM2-16GB", 1, 8, 61, 10, "TCP", "PCIe", 0),
    "p3.8xlarge": _i("V100-SXM2-16GB", 4, 32, 244, 10, "TCP", "NVLink", 0),
    "p3.16xlarge": _i("V100-SXM2-16GB", 8, 64, 488, 25, "TCP", "NVLink", 0),
    "p3dn.24xlarge": _i("V100-SXM2-32GB", 8, 96, 768, 100, "EFA", "NVLink", 1800),
    "p4d.24xlarge": _i("A100-SXM4-40GB", 8, 96, 1152, 400, "EFA", "NVLink/NVSwitch", 8000),
    "p4de.24xlarge": _i("A100-SXM4-80GB", 8, 96, 1152, 400, "EFA", "NVLink/NVSwitch", 8000),
    "p5.4xlarge": _i("H100-SXM", 1, 16, 256, 100, "EFA", "PCIe", 3840),
    "p5.48xlarge": _i("H100-SXM", 8, 192, 2048, 3200, "EFA", "NVLink/NVSwitch", 30720),
    "p5e.48xlarge": _i("H200-SXM", 8, 192, 2048, 3200, "EFA", "NVLink/NVSwitch", 30720),
    "p5en.48xlarge": _i("H200-SXM", 8, 192, 2048, 3200, "EFA", "NVLink/NVSwitch", 30720),
}

#: Bulk CSV columns this fetcher reads (the file has about 90; 5 disclaimer rows precede the header).
_KEEP = {
    "Tenancy": "Shared",
    "Operating System": "Linux",
    "Pre Installed S/W": "NA",
    "CapacityStatus": "Used",
    "Currency": "USD",
}


def _years(lease: str) -> int | None:
    return {"1yr": 1, "1 yr": 1, "3yr": 3, "3 yr": 3}.get(lease.strip().lower())


def parse_bulk_csv(lines: Iterable[str], source: str, fetched_at: str) -> dict[str, list[PriceRow]]:
    """Instance type -> on-demand and reserved (1y/3y standard) hourly prices of one region's bulk CSV.

    Reserved: the No Upfront hourly rate where published; otherwise the All Upfront fee spread over
    the term's hours (term data says which).
    """
    it: Iterator[str] = iter(lines)
    meta: dict[str, str] = {}
    for _line in range(5):
        row = next(csv.reader([next(it, "")]), [])
        if len(row) >= 2:
            meta[row[0]] = row[1]
    as_of = (meta.get("Publication Date") or fetched_at)[:10]
    reader = csv.DictReader(it)
    ondemand: dict[str, float] = {}
    reserved: dict[tuple[str, int, str], dict[str, float]] = defaultdict(dict)
    for r in reader:
        itype = r.get("Instance Type", "")
        if itype not in INSTANCES or any(r.get(k) != v for k, v in _KEEP.items()):
            continue
        if "License Model" in r and r["License Model"] not in ("No License required", ""):
            continue
        amount = number(r.get("PricePerUnit"))
        if amount is None:
            continue
        if r.get("TermType") == "OnDemand" and r.get("Unit") == "Hrs" and amount > 0:
            ondemand[itype] = amount
        elif r.get("TermType") == "Reserved" and r.get("OfferingClass", "").lower() == "standard":
            years = _years(r.get("LeaseContractLength", ""))
            if years is None:
                continue
            option = r.get("PurchaseOption", "")
            reserved[(itype, years, option)]["upfront" if r.get("Unit") == "Quantity" else "hourly"] = amount
    out: dict[str, list[PriceRow]] = defaultdict(list)
    for itype, amount in ondemand.items():
        out[itype].append(price("on_demand", amount, as_of=as_of, source=source, fetched_at=fetched_at))
    for itype in sorted({k[0] for k in reserved}):
        for years in (1, 3):
            no_up = reserved.get((itype, years, "No Upfront"), {})
            all_up = reserved.get((itype, years, "All Upfront"), {})
            if no_up.get("hourly"):
                amount, term = no_up["hourly"], {"years": years, "purchase_option": "No Upfront"}
            elif all_up.get("upfront"):
                amount = round(all_up["upfront"] / (years * 8760) + all_up.get("hourly", 0.0), 6)
                term = {"years": years, "purchase_option": "All Upfront", "upfront_usd": all_up["upfront"]}
            else:
                continue
            term["offering_class"] = "standard"
            out[itype].append(
                price(
                    f"reserved_{years}y", amount, as_of=as_of, source=source, fetched_at=fetched_at, term=term
                )
            )
    return out


def spot_prices(feed: dict[str, Any]) -> dict[tuple[str, str], float]:
    """(region, instance type) -> current Linux spot USD/h from the spot pricing feed."""
    out: dict[tuple[str, str], float] = {}
    for region in feed.get("config", {}).get("regions", []):
        code = region.get("region", "")
        for group in region.get("instanceTypes", []):
            for size in group.get("sizes", []):
                for col in size.get("valueColumns", []):
                    usd = number(col.get("prices", {}).get("USD"))
                    if col.get("name") == "linux" and usd:
                        out[(code, size.get("size", ""))] = usd
    return out


def spot_bands(advisor: dict[str, Any]) -> dict[tuple[str, str], tuple[str, int | None]]:
    """(region, instance type) -> (interruption band label, savings % over on-demand) from the advisor."""
    labels = {r["index"]: r["label"] for r in advisor.get("ranges", [])}
    out: dict[tuple[str, str], tuple[str, int | None]] = {}
    for region, by_os in advisor.get("spot_advisor", {}).items():
        for itype, v in by_os.get("Linux", {}).items():
            if v.get("r") in labels:
                out[(region, itype)] = (labels[v["r"]], v.get("s"))
    return out


def zone_spot_prices(
    http: Http, region: str, key: str, secret: str, credentials: Credentials, now: str
) -> list[tuple[str, str, float]]:
    """(instance type, zone, USD/h) now, from EC2 DescribeSpotPriceHistory (SigV4-signed, paged)."""
    from datetime import datetime

    from gpuplan.catalog.providers import sigv4

    host = f"ec2.{region}.amazonaws.com"
    moment = datetime.fromisoformat(now)
    amz_date = moment.strftime("%Y%m%dT%H%M%SZ")
    base = {
        "Action": "DescribeSpotPriceHistory",
        "Version": "2016-11-15",
        "ProductDescription.1": "Linux/UNIX",
        "MaxResults": "1000",
        **{f"InstanceType.{i}": t for i, t in enumerate(sorted(INSTANCES), start=1)},
    }
    out: list[tuple[str, str, float]] = []
    token = ""
    while True:
        params = {**base, "StartTime": moment.strftime("%Y-%m-%dT%H:%M:%SZ")}
        if token:
            params["NextToken"] = token
        query = sigv4.canonical_query(params)
        headers = {
            "X-Amz-Date": amz_date,
            "Authorization": sigv4.authorization(
                access_key=key,
                secret_key=secret,
                region=region,
                service="ec2",
                host=host,
                query=query,
                amz_date=amz_date,
                session_token=credentials.get("AWS_SESSION_TOKEN"),
            ),
        }
        if credentials.get("AWS_SESSION_TOKEN"):
            headers["X-Amz-Security-Token"] = str(credentials.get("AWS_SESSION_TOKEN"))
        key_query = sigv4.canonical_query({k: v for k, v in params.items() if k != "StartTime"})
        body = http.request(
            "GET", f"https://{host}/?{query}", headers=headers, key_url=f"https://{host}/?{key_query}"
        )
        items, token = parse_spot_history_xml(body)
        seen = {(t, z) for t, z, _ in out}
        out.extend(x for x in items if (x[0], x[1]) not in seen)  # newest first: keep each zone's latest
        if not token:
            return out


def parse_spot_history_xml(body: bytes) -> tuple[list[tuple[str, str, float]], str]:
    """(instance type, zone, price) items and the next token of a DescribeSpotPriceHistory answer."""
    import xml.etree.ElementTree as ET

    root = ET.fromstring(body)
    ns = root.tag.split("}")[0] + "}" if root.tag.startswith("{") else ""
    items = []
    for item in root.iter(f"{ns}item"):
        itype, zone = item.findtext(f"{ns}instanceType"), item.findtext(f"{ns}availabilityZone")
        amount = number(item.findtext(f"{ns}spotPrice"))
        if itype and zone and amount:
            items.append((itype, zone, amount))
    return items, root.findtext(f"{ns}nextToken") or ""


class _Fetcher:
    def fetch(self, http: Http, credentials: Credentials, today: str) -> FetchResult:
        fetched_at = today
        index = http.get_json(REGION_INDEX_URL)
        region_urls = {
            code: PRICING_HOST + entry["currentVersionUrl"].replace("index.json", "index.csv")
            for code, entry in index.get("regions", {}).items()
            if FACTS.region(code) is not None
        }
        if not region_urls:
            raise DataError.worded(N_("aws: {url} lists no region gpuplan knows"), url=REGION_INDEX_URL)
        feed = http.get_json(SPOT_FEED_URL)
        advisor = http.get_json(SPOT_ADVISOR_URL)
        spot = spot_prices(feed)
        bands = spot_bands(advisor)
        rows: list[OfferRow] = []
        sources = [REGION_INDEX_URL, SPOT_FEED_URL, SPOT_ADVISOR_URL]
        for code, url in sorted(region_urls.items()):
            sources.append(url)
            by_type = parse_bulk_csv(http.lines(url), url, fetched_at)
            for itype, prices in sorted(by_type.items()):
                prices = list(prices)
                if (code, itype) in spot:
                    band, savings = bands.get((code, itype), (None, None))
                    prices.append(
                        price(
                            "spot",
                            spot[(code, itype)],
                            as_of=today[:10],
                            source=SPOT_FEED_URL + (f" (band: {SPOT_ADVISOR_URL})" if band else ""),
                            fetched_at=fetched_at,
                            band=band,
                            term={"advisor_savings_percent": savings} if savings is not None else None,
                        )
                    )
                rows.append(offer("aws", code, itype, INSTANCES[itype], prices))
        notes: tuple[object, ...] = ()
        key, secret = credentials.get("AWS_ACCESS_KEY_ID"), credentials.get("AWS_SECRET_ACCESS_KEY")
        if key and secret:
            known = {(r.region, r.instance_type) for r in rows}
            for code in sorted(region_urls):
                url = f"https://ec2.{code}.amazonaws.com/"
                for itype, zone, amount in zone_spot_prices(http, code, key, secret, credentials, today):
                    if (code, itype) not in known:
                        continue
                    band, savings = bands.get((code, itype), (None, None))
                    p = price(
                        "spot",
                        amount,
                        as_of=today[:10],
                        source=f"{url} DescribeSpotPriceHistory",
                        fetched_at=today,
                        band=band,
                        term={"advisor_savings_percent": savings} if savings is not None else None,
                    )
                    rows.append(offer("aws", code, itype, INSTANCES[itype], [p], zone=zone))
                sources.append(url)
        else:
            notes = (
                Phrase(
                    N_("per-zone spot needs AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY (region-level spot read)")
                ),
            )
        return FetchResult(rows=tuple(rows), sources=tuple(sources), notes=notes)


FETCHER = _Fetcher()
