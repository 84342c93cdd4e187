"""The documents of ``gpuplan simulate autoscale --json`` and ``gpuplan simulate share --json``."""

from __future__ import annotations

from typing import Literal

from gpuplan.documents.base import Document

__all__ = [
    "AUTOSCALE_SCHEMA_VERSION",
    "SHARE_SCHEMA_VERSION",
    "AutoscaleDocument",
    "PolicyDoc",
    "ShareDocument",
    "SharePlacementDoc",
    "ShareServiceDoc",
    "UnplacedDoc",
]

AUTOSCALE_SCHEMA_VERSION: Literal[1] = 1
SHARE_SCHEMA_VERSION: Literal[1] = 1


class TraceDoc(Document):
    name: str
    synthetic: bool
    """True for a generated trace (or a file gpuplan's generator marked SYNTHETIC)."""
    requests: int
    duration_s: float


class ReplicaDoc(Document):
    gpu: str
    slots: int
    """Requests one replica runs at once."""
    time_per_output_token_s: float
    """Decode step with every slot busy."""
    prefill_tokens_per_s: float
    source: str


class PricesDoc(Document):
    usd_per_hour: dict[str, float]
    """Per replica-hour, by pricing model."""
    source: str
    spot_interruptions_per_hour: float
    spot_rate_source: str


class SettingsDoc(Document):
    slo_s: float | None
    timeout_s: float
    spot_notice_s: float
    seed: int


class PolicyDoc(Document):
    name: str
    cost_usd: float
    replica_hours: dict[str, float]
    """Hours by pricing model (``on_demand``, ``spot``)."""
    utilisation: float
    """Busy batch-slot time / paid batch-slot time, 0–1."""
    latency_p50_s: float | None
    latency_p95_s: float | None
    latency_p99_s: float | None
    slo_miss_pct: float | None
    """Late, dropped or killed requests, percent; null without an SLO."""
    dropped: int
    """Timed out in the queue or killed by a spot interruption."""
    max_replicas: int
    interruptions: int
    served: int
    queued_at_end: int
    killed: int
    spec: str


class AutoscaleDocument(Document):
    schema_version: Literal[1] = AUTOSCALE_SCHEMA_VERSION
    trace: TraceDoc
    replica: ReplicaDoc
    prices: PricesDoc
    settings: SettingsDoc
    policies: list[PolicyDoc]


class SharePlacementDoc(Document):
    gpu_index: int
    service: str
    slice: str
    """A MIG profile (``3g.40gb``), ``time-slice``, ``mps-1/N`` or ``whole``."""
    start: int | None
    """First memory slice of a MIG instance."""


class UnplacedDoc(Document):
    service: str
    reason: str


class ShareServiceDoc(Document):
    name: str
    slice: str
    instances: int
    speed_fraction: float
    utilisation: float | None
    p95_latency_s: float | None
    latency_headroom_s: float | None
    """SLO − p95 (negative: missed; null: no SLO, or overloaded when the SLO is set)."""


class ShareDocument(Document):
    schema_version: Literal[1] = SHARE_SCHEMA_VERSION
    gpu: str
    sharing: str
    gpus_needed: int
    lower_bound_gpus: int
    optimal: bool
    cost_usd_per_hour: float | None
    placements: list[SharePlacementDoc]
    unplaced: list[UnplacedDoc]
    services: list[ShareServiceDoc]
    method: str
    notes: list[str]
