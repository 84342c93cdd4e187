"""What the marketplace modules share: GPU names as their APIs write them (Lambda, RunPod, Vast.ai)
mapped to hardware ids, the unknown billing rule, and the fetcher of a provider without one.

Explicit tables, not substring matching: a name missing here is reported by the fetcher, never guessed.
"""

from __future__ import annotations

from typing import Any

from gpuplan.catalog.providers.base import Billing, Credentials, FetchResult, Region
from gpuplan.catalog.providers.common import UnsupportedFetchError
from gpuplan.errors import Phrase
from gpuplan.i18n import N_

__all__ = [
    "MARKETPLACE_GPUS",
    "UNKNOWN_BILLING",
    "SnapshotOnlyFetcher",
    "iso_country_regions",
    "marketplace_gpu",
    "skypilot_file",
]

#: Lower-cased marketplace GPU names -> canonical hardware id. The memory size decides A100 variants.
MARKETPLACE_GPUS: dict[str, str] = {
    "h100 sxm": "H100-SXM",
    "h100 sxm5": "H100-SXM",
    "h100 80gb hbm3": "H100-SXM",
    "h100 pcie": "H100-PCIE",
    "h100 nvl": "H100-NVL",
    "h200": "H200-SXM",
    "h200 sxm": "H200-SXM",
    "h200 nvl": "H200-NVL",
    "b200": "B200",
    "a100 sxm4 40gb": "A100-SXM4-40GB",
    "a100 sxm4 80gb": "A100-SXM4-80GB",
    "a100 sxm 80gb": "A100-SXM4-80GB",
    "a100 80gb sxm": "A100-SXM4-80GB",
    "a100 pcie 40gb": "A100-PCIE-40GB",
    "a100 pcie 80gb": "A100-PCIE-80GB",
    "a100 80gb pcie": "A100-PCIE-80GB",
    "a10": "A10",
    "l40s": "L40S",
    "l4": "L4",
    "t4": "T4",
    "tesla t4": "T4",
    "v100 16gb": "V100-SXM2-16GB",
    "v100 32gb": "V100-SXM2-32GB",
    "a100 40gb": "A100-SXM4-40GB",
    "a100 80gb": "A100-SXM4-80GB",
    "a100-80gb": "A100-SXM4-80GB",
    "h100 80gb": "H100-SXM",
    "tesla v100": "V100-SXM2-16GB",
    "rtx 4090": "RTX-4090",
    "geforce rtx 4090": "RTX-4090",
    "rtx 3090": "RTX-3090",
    "geforce rtx 3090": "RTX-3090",
    "mi300x": "MI300X",
}


def marketplace_gpu(name: str, memory_gb: float | None = None) -> str | None:
    """Hardware id of a marketplace GPU name ('A100 SXM4' + 80 GB -> A100-SXM4-80GB), or None."""
    key = " ".join(name.lower().replace("_", " ").replace("-", " ").split())
    if key in MARKETPLACE_GPUS:
        return MARKETPLACE_GPUS[key]
    if memory_gb is not None:
        # The memory size tells A100 40/80 GB and V100 16/32 GB apart.
        if memory_gb > 60:
            size = "80gb"
        elif memory_gb > 30:
            size = "40gb"
        elif memory_gb > 20:
            size = "32gb"
        else:
            size = "16gb"
        if f"{key} {size}" in MARKETPLACE_GPUS:
            return MARKETPLACE_GPUS[f"{key} {size}"]
    return None


#: ISO 3166-1 alpha-2 codes (as pycountry lists them; written out so that importing this module
#: does not load the ISO database). The registry test checks them against pycountry.
_ISO_3166 = (  # noqa: SIM905 - one compact line per 32 codes
    "AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS "
    "BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE "
    "EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM "
    "HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC "
    "LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA "
    "NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW "
    "SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO "
    "TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW "
).split()


def iso_country_regions() -> tuple[Region, ...]:
    """Every ISO 3166 country as a region (code = country, no city): a marketplace whose hosts are
    anywhere files an offer under the host's country."""
    return tuple(Region(code=c, country=c, city=None) for c in _ISO_3166)


#: Billing granularity a provider's sources do not state: consumers assume hourly billing.
UNKNOWN_BILLING = Billing(
    granularity_s=None,
    min_billing_s=None,
    as_of=None,
    source=None,
    reason="billing granularity not in gpuplan's sourced data; consumers assume hourly billing",
)


class SnapshotOnlyFetcher:
    """The fetcher of a provider whose own price list gpuplan does not read yet: ``catalog refresh``
    skips it with one line, and its prices are the shipped snapshot's (SkyPilot's public catalog)."""

    def __init__(self, display_name: str) -> None:
        self.display_name = display_name

    def fetch(self, http: Any, credentials: Credentials, today: str) -> FetchResult:
        raise UnsupportedFetchError(
            Phrase(
                N_(
                    "{name}: gpuplan reads no price list of its own yet; its prices are the shipped "
                    "snapshot's (from SkyPilot's public catalog)"
                ),
                name=self.display_name,
            )
        )


def skypilot_file(folder: str, version: str = "v8") -> str:
    """Where SkyPilot's public catalog lists a provider's offers (regions, vCPUs, RAM, prices)."""
    return f"SkyPilot catalog catalogs/{version}/{folder}/vms.csv, https://github.com/skypilot-org/skypilot-catalog"
