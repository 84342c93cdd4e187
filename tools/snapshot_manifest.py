"""What each bulk source of the snapshot is, where a maintainer downloads it, and what dates it.

``tools/build_snapshot.py --sources DIR`` reads the files named here from ``DIR`` (default
``../shared/data`` beside the repository). None carries a date of its own, so each entry records
what is known instead: the commit of the upstream file the copy was taken from, the day by which it
was read, and the earliest day its prices can be from, with the evidence. A price from an undated
file is dated by the interval ``earliest/read_by`` (``2025-06/2026-12-02``), never by a day it does
not have.

Each entry names the copy's SHA-256: a newer download is refused until its commit, read date and
bound are recorded here, so that a date is never carried over to data it does not describe.

Upstream (all public): SkyPilot's catalog, https://github.com/skypilot-org/skypilot-catalog (Apache-2.0;
``catalogs/v8/<cloud>/vms.csv``, ``catalogs/v6/<cloud>/vms.csv``); AWS's Spot Instance Advisor feed,
https://spot-bid-advisor.s3.amazonaws.com/spot-advisor-data.json; instances.vantage.sh's compilation
of the AWS Price List (https://instances.vantage.sh), as committed in
https://github.com/tsaol/aws-gpu (``data/gpu_instances_raw.json``, ``data/all_gpu_instances.js``).
The hyperscalers' files here keep only the GPU instance rows of the upstream file; a whole upstream
file works as well (its CPU rows are refused with their reason).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

__all__ = ["BOUNDS", "SKYPILOT", "Bound", "SkyPilotFile", "check_copy"]

#: The day the copies in the maintainers' sources folder were read (their file dates).
READ_BY = "2026-12-02"
SKYPILOT_REPO = "https://github.com/skypilot-org/skypilot-catalog"


@dataclass(frozen=True)
class Bound:
    """The earliest month a file's prices can be from, and why."""

    earliest: str
    evidence: str


# Each bound is a product the file lists that did not exist before that month: a price cannot have
# been observed before the thing it prices was sold.
HOPPER = Bound(
    "2022-03",
    "it lists H100 GPUs, announced 2022-03-22 (NVIDIA newsroom, 'NVIDIA Announces Hopper Architecture, "
    "the Next Generation of Accelerated Computing')",
)
A100_80 = Bound(
    "2020-11",
    "it lists A100 80GB GPUs, announced 2020-11-16 (NVIDIA newsroom, 'NVIDIA Doubles Down: Announces A100 "
    "80GB GPU')",
)
H200 = Bound(
    "2023-11",
    "it lists H200 GPUs, announced 2023-11-13 (NVIDIA newsroom, 'NVIDIA Supercharges Hopper, the World's "
    "Leading AI Computing Platform')",
)
BLACKWELL = Bound(
    "2024-03",
    "it lists B200 GPUs, announced 2024-03-18 (NVIDIA newsroom, 'NVIDIA Blackwell Platform Arrives to "
    "Power a New Era of Computing')",
)
RTX_5090 = Bound(
    "2025-01",
    "it lists GeForce RTX 5090 cards, announced 2025-01-06 (NVIDIA newsroom, 'NVIDIA Blackwell GeForce RTX "
    "50 Series Opens New World of AI Computer Graphics')",
)
BLACKWELL_2025 = Bound(
    "2025-03",
    "it lists B300 or RTX PRO 6000 Blackwell GPUs, announced at GTC on 2025-03-18 (NVIDIA newsroom, "
    "'NVIDIA Blackwell Ultra AI Factory Platform Paves Way for Age of AI Reasoning'; 'NVIDIA RTX PRO "
    "Blackwell Series')",
)
MI355X = Bound(
    "2025-06",
    "it lists AMD Instinct MI355X GPUs, announced 2025-06-12 (AMD press release, 'AMD Unveils Vision for "
    "an Open AI Ecosystem, Detailing New Silicon, Software and Systems at Advancing AI 2025')",
)
A100 = Bound(
    "2020-05",
    "it lists A100 GPUs, announced 2020-05-14 (NVIDIA newsroom, 'NVIDIA's New Ampere Data Center GPU in "
    "Full Production')",
)
AWS_P5_CUT = Bound(
    "2025-06",
    "p5.48xlarge costs 55.04 USD/h in us-east-1, its price after AWS's June 2025 cut of up to 45 % on P4 "
    "and P5 on-demand prices (about 98.32 before; AWS What's New, 'Announcing up to 45% price reduction "
    "for Amazon EC2 NVIDIA GPU-accelerated instances', June 2025, as reported by usage.ai, 'LLM Cost "
    "Optimization on AWS', https://www.usage.ai/blogs/aws/ai-ml-cost/llm-cost-optimization-aws/)",
)


@dataclass(frozen=True)
class SkyPilotFile:
    """One file of SkyPilot's catalog as the sources folder holds it."""

    provider: str
    name: str
    """Its name under ``DIR/skypilot_catalog/``."""
    upstream: str
    """Its path in SkyPilot's catalog repository."""
    commit: str
    sha256: str
    bound: Bound
    partial: str = ""
    """What part of the upstream file the copy holds, when not all its GPU rows."""
    repo: str = SKYPILOT_REPO
    """The repository the upstream file is in."""
    kept_in: str = ""
    """The folder of this repository that holds the copy ("": the sources folder's
    ``skypilot_catalog/``): an excerpt the maintainers copied row by row from a page they read."""
    read_by: str = READ_BY
    what: str = "SkyPilot catalog"

    @property
    def as_of(self) -> str:
        return f"{self.bound.earliest}/{self.read_by}"

    @property
    def url(self) -> str:
        return f"{self.repo}/blob/{self.commit}/{self.upstream}"

    @property
    def source(self) -> str:
        """How a price row names the file (its line is appended)."""
        repo = self.repo.removeprefix("https://")
        copy = f", rows copied to {self.kept_in}/{self.name}" if self.kept_in else ""
        return f"{self.what} {repo} {self.upstream} @{self.commit[:7]}{copy}"


def _f(
    provider: str, name: str, upstream: str, commit: str, sha: str, bound: Bound, partial: str = ""
) -> SkyPilotFile:
    return SkyPilotFile(provider, name, upstream, commit, sha, bound, partial)


#: The SkyPilot catalog files, in the registry's order.
SKYPILOT: tuple[SkyPilotFile, ...] = (
    _f(
        "aws",
        "aws_v8_vms_gpu.csv",
        "catalogs/v8/aws/vms.csv",
        "00148f2af3672e2229b4f7bf8157d5a3f36e3c35",
        "e7db2efe96e55f12f94ced9d7a450b2297629e6511c659f92da953b2ea52ec3e",
        AWS_P5_CUT,
    ),
    _f(
        "azure",
        "azure_v6_vms_gpu.csv",
        "catalogs/v6/azure/vms.csv",
        "098741e70562f65d7af1cceb81e33b284f742604",
        "5ecd40f6929018cf43f8ee396a8ab14267a4a4d1f2f5514eec937326ad525109",
        HOPPER,
        "US regions only (SkyPilot's newest Azure catalog is v6)",
    ),
    _f(
        "gcp",
        "gcp_v8_vms_gpu.csv",
        "catalogs/v8/gcp/vms.csv",
        "006059e0f18acb1341e22a27751e9f80df6ba92f",
        "2302d92f49d2ca298c21d7937500a05c05665242adbf6996b29b6ccfbc5188ce",
        BLACKWELL,
    ),
    _f(
        "lambda",
        "lambda_v8_vms.csv",
        "catalogs/v8/lambda/vms.csv",
        "0f4070387edc953d7004cff197940e1918a1d6aa",
        "036573edf39d8acff895c3f0d0906c00f5ec60e7969c63832727f3c2c1afb8ef",
        BLACKWELL,
    ),
    _f(
        "runpod",
        "runpod_v8_vms_partial.csv",
        "catalogs/v8/runpod/vms.csv",
        "01acdfd419ce5afae1289ff14825b893ced0c196",
        "d7d21ba7c325e757395c208c018daeef2a165c6e66e1e07f231f880656690b81",
        A100_80,
        "its first 79 rows only: 1x and 2x A100 80GB Secure Cloud",
    ),
    _f(
        "vast",
        "vast_v8_vms.csv",
        "catalogs/v8/vast/vms.csv",
        "01b8cdda287814b30ff0acb49746cca19fbd4355",
        "b18232fddbb22eaed5fc18a83a5807eaee15684618dad81c1534a2b43b51852b",
        BLACKWELL_2025,
    ),
    _f(
        "nebius",
        "nebius_v8_vms.csv",
        "catalogs/v8/nebius/vms.csv",
        "0082b0435f3912ae4c566856b272455cc78f4f61",
        "eb3007fb983a2fcb7ea17f2cab3c4c40eb0b10813cb851d7e1bc1ec0dc608564",
        BLACKWELL,
    ),
    _f(
        "oci",
        "oci_v8_vms_gpu_partial.csv",
        "catalogs/v8/oci/vms.csv",
        "0588751183820cf2dab5c8a89447e8aac9f73fd5",
        "af0fdc4aa90aa3100cfbfa3d38b2f72af38040a264d20257536581cc308581ce",
        MI355X,
        "the GPU rows of its first two regions (af-casablanca-1, af-johannesburg-1)",
    ),
    _f(
        "cudo",
        "cudo_v8_vms.csv",
        "catalogs/v8/cudo/vms.csv",
        "113567a74b2f208af08e0c9236e26cc354a2bf65",
        "1f4d267e9566e2634a9d616446eac5c6a7dd196f805c2ac5b5706e110de9f4c3",
        HOPPER,
    ),
    _f(
        "hyperstack",
        "hyperstack_v8_vms.csv",
        "catalogs/v8/hyperstack/vms.csv",
        "fdc9d908ab0b2af9f468f139fb3f662c8c6b3257",
        "9e522845d942f383e93b239731033c6e9ff4c67a7d01722fc5b1e032f9740a22",
        HOPPER,
    ),
    _f(
        "verda",
        "verda_v8_vms.csv",
        "catalogs/v8/verda/vms.csv",
        "000c1d0bf24621f4ac37cfa585f0897c1aa1d9cf",
        "05edb56cef6e749ac5bdf926c4947264a2229f1dbeffc58065ff04fa969926fd",
        BLACKWELL_2025,
    ),
    _f(
        "shadeform",
        "shadeform_v8_vms.csv",
        "catalogs/v8/shadeform/vms.csv",
        "002363dac75913b446b2d3d564ae795678849dfd",
        "fc116a380dd97aaf5f92cb6b9f379f61f81b9efab1f4eb8f95448ea23c23d48a",
        BLACKWELL_2025,
    ),
    _f(
        "primeintellect",
        "primeintellect_v8_vms.csv",
        "catalogs/v8/primeintellect/vms.csv",
        "d9a304ea01e96cd4a043159c60d9326d8de4cf0f",
        "4da9932b7dca6abbdbd0fa3f61654789edd9b4860925901a53477fc63abadf14",
        BLACKWELL,
    ),
    _f(
        "seeweb",
        "seeweb_v8_vms.csv",
        "catalogs/v8/seeweb/vms.csv",
        "004a1aef76542bb40d12fcedaaf091551ddf5fb4",
        "d0fe5f30fdf5a30c20a18ee60e96840249efafb75d1b03843c3315b6632b7c0a",
        BLACKWELL_2025,
    ),
    _f(
        "jarvislabs",
        "jarvislabs_v8_vms.csv",
        "catalogs/v8/jarvislabs/vms.csv",
        "57d65781a544958d7d07014f062f7d1cad8415a7",
        "ad86214b054002ea07bff387126b08fcefd6dd7c40f11304f537666757a0753d",
        BLACKWELL_2025,
    ),
    _f(
        "lium",
        "lium_v8_vms.csv",
        "catalogs/v8/lium/vms.csv",
        "04a03aee12247fb62be7a2ee9d460bbf6dff30b1",
        "683210330dff6d0cca7d2cbfec60189e1853ee10d96f12666305edd40749b400",
        BLACKWELL_2025,
    ),
    _f(
        "yotta",
        "yotta_v8_vms.csv",
        "catalogs/v8/yotta/vms.csv",
        "1f6904890c9bb9408f1d11e2865c3c1ee4d409c0",
        "1deed84b1b846a3cd125a2842186e7d73da21f64159d46d3cb18f44382b0b781",
        RTX_5090,
    ),
    _f(
        "mithril",
        "mithril_v8_vms.csv",
        "catalogs/v8/mithril/vms.csv",
        "1f9eb0c264f9a6d78833766f4b18353ac7dfdde9",
        "9dcd5e475605432a4c772beecbeaa2d30569185bc256833d4650dfab69ea23ad",
        H200,
    ),
    _f(
        "hyperbolic",
        "hyperbolic_v8_vms.csv",
        "catalogs/v8/hyperbolic/vms.csv",
        "0082b0435f3912ae4c566856b272455cc78f4f61",
        "5997cc2b8505d5d0c120b44f58bd253bbfdaad6b838f5728466b653826faa4a9",
        HOPPER,
    ),
    _f(
        "fluidstack",
        "fluidstack_v6_vms.csv",
        "catalogs/v6/fluidstack/vms.csv",
        "002403bca05e2ab5110637448f3b1654c983d5d5",
        "06222dedf035302fd50d07fc1024930a0dcbb562a70542e721f014c527413b78",
        HOPPER,
    ),
    _f(
        "paperspace",
        "paperspace_v6_vms.csv",
        "catalogs/v6/paperspace/vms.csv",
        "e520054145d1bce6748bcf18c9a25ddd6ea9a348",
        "cab5703e8767dc543d241968f861608c599a8379cfb2e6487692961a54552c84",
        HOPPER,
    ),
    _f(
        "digitalocean",
        "do_v6_vms.csv",
        "catalogs/v6/do/vms.csv",
        "1fbe7331dd1f13d70ac4f249bb7ee7a659fc6b6a",
        "c522dacd344b962b66d9c17594f011c477bf6b3143b31e2705c77c740dd5e5cd",
        HOPPER,
    ),
)

#: The SkyPilot-format catalog of Alibaba Cloud and Tencent Cloud (not in SkyPilot's own): its bot
#: fills it from the providers' price APIs and writes each CNY price × 0.138 as USD (the reader keeps
#: CNY). Its files are large; the rows for mainland China and Hong Kong with GPUs of gpuplan's
#: hardware table were copied row by row (read with the files' commits on 2026-12-03) into
#: tools/skypilot_fork/. The Alibaba file's L20 rows (gn8is, gn8ia, ebmgn8is) and its rows of GPUs
#: the reader refuses (gn8v "H 96GB": no source read names the part; ebmgn7v "A800 40G": no 40 GB
#: A800 row) were added from the same commit on 2026-12-05, so that skipped.csv says why; the Tencent
#: file has no L20, H20 or A800 rows.
FORK_REPO = "https://github.com/sugarlxn/skypilot-catalog"
SKYPILOT_FORK: tuple[SkyPilotFile, ...] = (
    SkyPilotFile(
        "tencent",
        "tencentcloud_v8_vms_cn.csv",
        "catalogs/v8/tencentcloud/vms.csv",
        "319364519647e37c5ee585be5338b02b10f744be",
        "ab1c04c87be33d224c563a295a7c95c60f74d8d4c5b75832bc0985a57b901842",
        A100,
        "its 235 rows in mainland China and Hong Kong with T4, A10, V100, A100 or P4 GPUs, on-demand "
        "(POSTPAID_BY_HOUR) only; the same commit's fetcher lock file pins certifi 2026.4.22 (on PyPI "
        "2026-04-22), so the commit is no older than that, its rows possibly are",
        repo=FORK_REPO,
        kept_in="tools/skypilot_fork",
        read_by="2026-12-03",
        what="Tencent Cloud CVM hourly prices (InquiryPriceRunInstances) in the SkyPilot-format catalog",
    ),
    SkyPilotFile(
        "alibaba",
        "alicloud_v8_vms_cn.csv",
        "catalogs/v8/alicloud/vms.csv",
        "003c56a723d369190b11308e630e4cfd33e25c86",
        "65039ec928317b5193f71359c479188bf5b25d07a7abaf1d65cf2442f595cd2a",
        A100_80,
        "its 289 rows in mainland China and Hong Kong with T4, A10, V100, A100 80G, L20, A800 40G or "
        "'H' (96 GB, gn8v) GPUs, on-demand and spot per zone (ECS DescribePrice trade prices, each with a "
        "40 GiB ESSD system disk)",
        repo=FORK_REPO,
        kept_in="tools/skypilot_fork",
        read_by="2026-12-03",
        what="Alibaba Cloud ECS hourly prices (DescribePrice) in the SkyPilot-format catalog",
    ),
)
SKYPILOT = SKYPILOT + SKYPILOT_FORK

#: Every bound by name, for the sources table the builder writes.
BOUNDS = (A100, HOPPER, A100_80, H200, BLACKWELL, RTX_5090, BLACKWELL_2025, MI355X, AWS_P5_CUT)


def check_copy(path: Path, sha256: str) -> str | None:
    """None when ``path`` is the copy the manifest dates; else one line saying what to do."""
    if not path.is_file():
        return f"{path} is missing; download it (see tools/snapshot_manifest.py) or pass --sources DIR"
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != sha256:
        return (
            f"{path} is not the copy tools/snapshot_manifest.py dates (sha256 {digest[:12]}…, expected "
            f"{sha256[:12]}…): record its commit, read date and earliest bound there, then rebuild"
        )
    return None
