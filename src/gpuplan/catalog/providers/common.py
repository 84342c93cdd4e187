"""Small helpers the provider fetchers share: dated price rows, GPU tables, numbers from text."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gpuplan.catalog.model import OfferRow, PriceRow
from gpuplan.errors import Phrase
from gpuplan.i18n import N_

__all__ = [
    "GpuShape",
    "InstanceFacts",
    "UnsupportedFetchError",
    "comma_list",
    "key_list",
    "number",
    "offer",
    "price",
]


def key_list(keys: list[str] | tuple[str, ...]) -> Phrase | str:
    """Environment variables to set, as one phrase of a message: ``A, B and C`` (written in the
    reader's language: ``A、B 和 C``)."""
    if len(keys) < 2:
        return "".join(keys)
    return Phrase(N_("{names} and {last}"), names=comma_list(keys[:-1]), last=keys[-1])


def comma_list(names: Sequence[str]) -> Phrase | str:
    """``names`` joined by ", " (Chinese: 、, as the items of every list), written in the reader's
    language."""
    out: Phrase | str = names[0] if names else ""
    for name in names[1:]:
        out = Phrase(N_("{names}, {name}"), names=out, name=name)
    return out


class UnsupportedFetchError(Exception):
    """The fetcher for this provider cannot run here (e.g. request signing not implemented): skipped."""


@dataclass(frozen=True, kw_only=True)
class GpuShape:
    """GPU model and count of an instance type, as a provider table states it."""

    gpu: str
    """Canonical hardware id."""
    count: float


@dataclass(frozen=True, kw_only=True)
class InstanceFacts:
    """What the estimator and planner need to know of one instance type, with its source."""

    gpu: str
    gpu_count: float
    vcpus: float | None
    memory_gib: float | None
    network_gbps: float | None
    """Peak network bandwidth of the instance, Gbit/s (EFA/InfiniBand aggregate where it has one)."""
    network_kind: str | None
    """``EFA``, ``InfiniBand``, ``RoCE`` or ``TCP`` (plain Ethernet); None = not published."""
    interconnect: str | None
    """GPU-to-GPU: ``NVLink/NVSwitch``, ``NVLink`` (bridges, hybrid cube mesh), ``PCIe``,
    ``Infinity Fabric``."""
    local_nvme_gb: float | None
    """Local instance-store NVMe, GB in total; 0.0 only where the source says there is none."""
    source: str


def ethernet_instance(
    source: str,
    gpu: str,
    gpus: float,
    vcpus: float,
    memory_gib: float,
    network_gbps: float | None,
    link: str | None,
) -> InstanceFacts:
    """Facts of a GPU instance on plain VPC Ethernet with no local NVMe (the Chinese clouds' GPU
    families as their docs list them): positional, so a provider's table stays one line a type."""
    return InstanceFacts(
        gpu=gpu,
        gpu_count=gpus,
        vcpus=vcpus,
        memory_gib=memory_gib,
        network_gbps=network_gbps,
        network_kind="TCP",
        interconnect=link,
        local_nvme_gb=None,
        source=source,
    )


def number(text: Any) -> float | None:
    """The first number in ``text`` ('2048 GiB' -> 2048, '3200 Gigabit' -> 3200), or None."""
    if text is None:
        return None
    m = re.search(r"\d+(?:\.\d+)?", str(text).replace(",", ""))
    return float(m[0]) if m else None


def price(
    pricing: str,
    amount: float,
    *,
    currency: str = "USD",
    unit: str = "hour",
    as_of: str,
    source: str,
    fetched_at: str,
    band: str | None = None,
    term: dict[str, Any] | None = None,
) -> PriceRow:
    """A price read from a provider's own list (confidence ``high``), with its URL and fetch time."""
    return PriceRow(
        pricing=pricing,
        amount=amount,
        currency=currency,
        unit=unit,
        as_of=as_of,
        source=source,
        confidence="high",
        interruption_band=band,
        term=term,
        fetched_at=fetched_at,
    )


def offer(
    provider: str,
    region: str,
    instance_type: str,
    facts: InstanceFacts,
    prices: list[PriceRow],
    *,
    zone: str | None = None,
    notes: str = "",
) -> OfferRow:
    """An offer row with the instance's sourced facts."""
    return OfferRow(
        provider=provider,
        region=region,
        zone=zone,
        instance_type=instance_type,
        gpu=facts.gpu,
        gpu_count=facts.gpu_count,
        vcpus=facts.vcpus,
        memory_gib=facts.memory_gib,
        network_gbps=facts.network_gbps,
        interconnect=facts.interconnect,
        network_kind=facts.network_kind,
        local_nvme_gb=facts.local_nvme_gb,
        source=facts.source,
        prices=tuple(prices),
        notes=notes,
    )
