"""What the user allows: constraints, the objective, and the reasons a candidate is excluded."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from gpuplan import vocab
from gpuplan.catalog.providers import PROVIDERS
from gpuplan.errors import InputError, Phrase
from gpuplan.hardware.gpus import (
    DEFAULT_PLANNED_GPUS,
    MAX_PLANNED_GPUS,
    MAX_PLANNED_NODES,
    MIN_OVER_MAX_GPUS,
    gpus_named,
)
from gpuplan.i18n import N_
from gpuplan.units import as_typed
from gpuplan.vocab import Commitment, GpuLink, HostRule, Objective, PricingModel, Upfront

__all__ = [
    "ALL_PRICING",
    "COMMITTED_PRICING",
    "DEFAULT_MAX_NODES",
    "DEFAULT_PRICING",
    "DEFAULT_TOTAL_GPUS",
    "MAX_TOTAL_GPUS",
    "NO_OFFER_IN_REGION",
    "SERVICE_MAX_NODES",
    "Constraints",
    "Objective",
    "Reason",
    "claimed_only",
    "commitment_needed",
    "counted_labels",
    "label_key",
    "labels_satisfy",
    "parse_duration_h",
]

#: The hint of a region name no offer is in: "unknown region 'X' (no offer in it)" had read as if
#: the region were known and empty ("地域 'X' 无法识别（其中没有报价）").
NO_OFFER_IN_REGION = N_("no offer in the catalog is in a region of that name")
#: Largest total GPU count ``--max-gpus`` may ask the planner to enumerate.
MAX_TOTAL_GPUS = MAX_PLANNED_GPUS
#: Total GPU count enumerated when ``--max-gpus`` is not given (the planning budget: 1–64 GPUs).
DEFAULT_TOTAL_GPUS = DEFAULT_PLANNED_GPUS
#: Instances one job may span unless the user says more (``--max-nodes``). ASSUMPTION: 8, what a
#: team can usually get at once without a capacity reservation or a quota request (default GPU
#: quotas of new cloud accounts are far below 64 GPUs); shown in every plan's assumptions.
DEFAULT_MAX_NODES = 8
#: Instances a service's option may span unless the user says fewer (``--max-nodes``). Its replicas
#: are independent servers behind a load balancer, each its own tensor-parallel group with no traffic
#: to the others, so the limit above, set for one job whose nodes work as one (a training job's
#: all-reduce spans them), does not apply: a service of 25 one-GPU instances is an ordinary
#: deployment. Its ceiling is the planner's search: the GPU limit (``--max-gpus``, default
#: :data:`DEFAULT_TOTAL_GPUS`), so at most that many instances (one GPU each at the least); the plan
#: says when it leaves a service short.
SERVICE_MAX_NODES = DEFAULT_TOTAL_GPUS

ALL_PRICING: tuple[str, ...] = PricingModel.values()
#: Without a stated preference every pricing model is considered; the commitment decides which of
#: the committed ones (monthly, reserved) may be chosen.
DEFAULT_PRICING = ALL_PRICING
#: Pricing models that bind the user beyond the job.
COMMITTED_PRICING: tuple[str, ...] = tuple(m.value for m in vocab.COMMITTED_PRICING)
#: What each commitment level permits: the committed pricing models whose term is no longer than it
#: (vocab ``PRICING_RULES``). Not stated (None): a monthly subscription (one month is a small, visible
#: commitment) but no reservation; reservations only when the user says the capacity will be used
#: for the whole term.
_COMMITMENT_ALLOWS: dict[str | None, tuple[str, ...]] = {
    level: tuple(p.value for p in vocab.COMMITTED_PRICING if vocab.PRICING_RULES[p].term_months <= months)
    for level, months in [(None, Commitment.MONTHLY.months), *((c, c.months) for c in Commitment)]
}


class Reason(str, Enum):
    """Why a candidate is left out; the planner counts candidates by their first reason, in this order."""

    PROVIDER = "provider"
    GPU = "gpu"
    REGION = "region"
    COUNTRY = "country"
    HOSTS = "hosts"
    PRICING = "pricing"
    NEEDS_COMMITMENT = "needs_commitment"
    COMPLIANCE = "compliance"
    INTERCONNECT = "interconnect"
    GPU_MEMORY = "min_gpu_memory"
    MAX_GPUS = "max_gpus"
    MIN_GPUS = "min_gpus"
    FRACTIONAL_GPU = "fractional_gpu"
    UNPRICED = "unpriced"
    LOW_CONFIDENCE = "low_confidence_price"
    MODEL_SPLIT = "model_parallel_split"
    LATENCY = "misses_latency_target"
    USERS_FAR = "too_far_from_users"
    LOAD = "short_of_load"
    MIN_REPLICAS = "below_min_replicas"
    MAX_REPLICAS = "above_max_replicas"
    NO_PRECISION_PATH = "no_precision_path"
    HOST_RAM = "host_ram_short"
    UNKNOWN_RATE = "no_published_rate"
    DOES_NOT_FIT = "does_not_fit"
    SPOT_UNSTABLE = "spot_too_unstable"
    UNKNOWN_COST = "unknown_cost_component"
    DEADLINE = "over_deadline"
    BUDGET = "over_budget"


@dataclass(frozen=True, kw_only=True)
class Constraints:
    """Limits on the options. None = no limit."""

    deadline_h: float | None = None
    budget_usd: float | None = None
    providers: tuple[str, ...] | None = None
    gpus: tuple[str, ...] | None = None
    """GPUs allowed, as the user names them (``T4``, ``a100-80gb``); a family name (``A100``)
    allows each of its variants, as ``gpuplan offers --gpu`` lists them."""
    regions: tuple[str, ...] | None = None
    countries: tuple[str, ...] | None = None
    """ISO 3166 alpha-2 codes (``CN``, ``US``)."""
    hosts: str | None = None
    """``provider``: only hosts a provider runs (``plan/hosts.py``: a community host and a host of
    unknown kind are left out); ``any`` or None: every host."""
    pricing: tuple[str, ...] | None = None
    """Pricing models allowed; None = on_demand, spot, monthly (+ reserved with a commitment)."""
    max_gpus: int | None = None
    """Most GPUs in all, 1 to :data:`MAX_TOTAL_GPUS` (None: :data:`DEFAULT_TOTAL_GPUS`, 64)."""
    min_gpus: int | None = None
    """Fewest GPUs in all, 1 to :data:`MAX_TOTAL_GPUS`, at most ``max_gpus`` (both the same: exactly
    that many); a service's are those of its whole fleet, every replica's together. None: no floor.
    A recipe tuned for its GPU count (an 8-GPU DDP job's learning rate for its global batch) asks it."""
    max_nodes: int | None = None
    """Most instances, 1 to :data:`MAX_PLANNED_NODES` (None: :data:`DEFAULT_MAX_NODES` for a job,
    the GPU limit for a service)."""
    min_gpu_memory_gib: float | None = None
    interconnect: str | None = None
    """Required intra-node link, e.g. ``nvlink``."""
    compliance: tuple[str, ...] | None = None
    """Labels the region must carry (e.g. ``MLPS-3``), from a reliable source (a low-confidence
    source's claim counts only with ``allow_low_confidence``)."""
    commitment: str | None = None
    """Longest commitment acceptable: ``none``, ``monthly``, ``1y`` or ``3y`` (the user will use
    reserved capacity for the whole term); None = monthly at most."""
    upfront: str | None = None
    """How much of a reservation is paid upfront: ``none`` (None: the same), ``partial`` or
    ``all``; a reserved price is costed at that option's effective rate where the catalog carries
    it (:mod:`gpuplan.catalog.upfront`)."""
    objective: Objective = Objective.COST
    allow_low_confidence: bool = False
    """Consider prices and facts labelled low-confidence (the source articles' 2024 marketing tables,
    an article's compliance claim). Off by default: such a price is shown by ``gpuplan offers`` but
    never decides a plan unasked, and a claimed compliance label does not meet ``compliance``."""

    def __post_init__(self) -> None:
        for name in ("deadline_h", "budget_usd", "min_gpu_memory_gib"):
            v = getattr(self, name)
            if v is not None and not v > 0:
                raise InputError.worded(N_("{name} must be positive, got {value}"), name=name, value=v)
        for name in ("max_gpus", "min_gpus", "max_nodes"):
            v = getattr(self, name)
            if v is not None and v < 1:
                raise InputError.worded(N_("{name} must be at least 1, got {value}"), name=name, value=v)
        for name in ("max_gpus", "min_gpus"):
            v = getattr(self, name)
            if v is not None and v > MAX_TOTAL_GPUS:
                # Searched as MAX_TOTAL_GPUS, a larger limit would rank as if options of more GPUs
                # had been looked at and found wanting (a larger floor, as if none had been found).
                raise InputError.worded(
                    N_(
                        "{name} {value} is more than the planner searches: at most {cap} GPUs in all; "
                        "give 1 to {cap}"
                    ),
                    name=name,
                    value=v,
                    cap=MAX_TOTAL_GPUS,
                )
        if self.min_gpus is not None and self.max_gpus is not None and self.min_gpus > self.max_gpus:
            raise InputError.worded(MIN_OVER_MAX_GPUS, min=self.min_gpus, max=self.max_gpus)
        if self.max_nodes is not None and self.max_nodes > MAX_PLANNED_NODES:
            # No layout of at most MAX_TOTAL_GPUS GPUs spans more instances: a larger limit would
            # read as if layouts over that many had been looked at.
            raise InputError.worded(
                N_(
                    "max_nodes {value} is more than the planner searches: at most {cap} instances "
                    "(one GPU each at the least); give 1 to {cap}"
                ),
                value=self.max_nodes,
                cap=MAX_PLANNED_NODES,
            )
        if self.commitment is not None:
            # A frozen dataclass: the cast spelling is stored through object.__setattr__.
            object.__setattr__(self, "commitment", Commitment.cast(self.commitment).value)
        if self.upfront is not None:
            object.__setattr__(self, "upfront", Upfront.cast(self.upfront).value)
        if self.hosts is not None:
            object.__setattr__(self, "hosts", HostRule.cast(self.hosts).value)
        if self.pricing is not None:
            object.__setattr__(self, "pricing", tuple(PricingModel.cast(p).value for p in self.pricing))
        if self.interconnect is not None:
            object.__setattr__(self, "interconnect", GpuLink.cast(self.interconnect).value)
        if self.providers is not None:
            # The registry's codes: `--providers aliyun` is alibaba; a typo gets "did you mean".
            object.__setattr__(self, "providers", tuple(PROVIDERS.cast(p) for p in self.providers))
        if self.gpus is not None:
            # A typo is refused here with "did you mean" (gpus_named), not planned as a filter
            # that leaves nothing; duplicates once, in the order given.
            object.__setattr__(self, "gpus", tuple(dict.fromkeys(g.strip() for g in self.gpus)))
            for name in self.gpus:
                gpus_named(name)

    @property
    def gpu_ids(self) -> tuple[str, ...] | None:
        """The catalog's GPU ids ``gpus`` allows: each name's GPU, or every variant of a family."""
        if self.gpus is None:
            return None
        return tuple(dict.fromkeys(g.id for name in self.gpus for g in gpus_named(name)))

    @property
    def provider_hosts_only(self) -> bool:
        """Whether only hosts a provider runs are allowed (``hosts: provider``)."""
        return self.hosts == HostRule.PROVIDER

    @property
    def allowed_pricing(self) -> tuple[str, ...]:
        """Pricing models the user lists (or all of them)."""
        return self.pricing or DEFAULT_PRICING

    @property
    def committed_allowed(self) -> tuple[str, ...]:
        """Committed pricing models (monthly, reserved) the commitment level permits."""
        return _COMMITMENT_ALLOWS[self.commitment]

    @property
    def pricing_forbidden(self) -> list[str]:
        """The committed pricing models the user listed (``pricing``) that the commitment level
        does not permit, in the order listed."""
        allowed = set(self.committed_allowed)
        return [p for p in self.pricing or () if p in COMMITTED_PRICING and p not in allowed]

    @property
    def total_gpu_limit(self) -> int:
        """Most GPUs in all: ``max_gpus``, else :data:`DEFAULT_TOTAL_GPUS` (or ``min_gpus`` where
        it asks more: the search reaches the floor it was given, which it had left empty)."""
        return self.max_gpus or max(DEFAULT_TOTAL_GPUS, self.min_gpus or 0)

    def node_limit(self, *, service: bool) -> int:
        """Most instances one option may span: ``max_nodes`` when given; else
        the GPU limit for a service (its replicas are independent servers: one GPU an instance at
        the least, :data:`SERVICE_MAX_NODES` without ``max_gpus``) and :data:`DEFAULT_MAX_NODES`
        for a job whose nodes work as one."""
        if self.max_nodes is not None:
            return self.max_nodes
        return self.total_gpu_limit if service else DEFAULT_MAX_NODES


#: The Chinese names of MLPS (网络安全等级保护, "等保") and its levels, as Chinese users write them.
_CHINESE_LABEL_WORDS = (
    ("网络安全等级保护", "mlps"),
    ("等级保护", "mlps"),
    ("等保", "mlps"),
    ("一级", "1"),
    ("二级", "2"),
    ("三级", "3"),
    ("四级", "4"),
    ("五级", "5"),
)


def commitment_needed(models: list[str]) -> tuple[str, Commitment]:
    """Of committed pricing ``models``, the one of the shortest term and the shortest commitment
    that permits it (``reserved_1y``: ``1y``)."""
    shortest = min(models, key=lambda p: vocab.PRICING_RULES[p].term_months)
    term = vocab.PRICING_RULES[shortest].term_months
    return shortest, min((lv for lv in Commitment if lv.months >= term), key=lambda lv: lv.months)


def label_key(label: str) -> str:
    """A compliance label reduced to what identifies it: ``MLPS 2.0 level 3``, ``mlps-3``,
    ``MLPS level 3`` and ``等保三级`` all become ``mlps3`` (the scheme's version "2.0" and the word
    "level" dropped)."""
    text = label.lower().replace("2.0", "").replace("level", "")
    for chinese, latin in _CHINESE_LABEL_WORDS:
        text = text.replace(chinese, latin)
    return re.sub(r"[^a-z0-9]", "", text)


def labels_satisfy(required: tuple[str, ...] | None, labels: tuple[str, ...]) -> bool:
    """True when every required label is among ``labels`` (compared by :func:`label_key`);
    with nothing required, when there is any label at all."""
    have = {label_key(x) for x in labels}
    if not required:
        return bool(have)
    return all(label_key(r) in have for r in required)


def counted_labels(c: Constraints, certain: tuple[str, ...], claimed: tuple[str, ...]) -> tuple[str, ...]:
    """The compliance labels of an offer that count for ``c``: those of a reliable source, and those
    a low-confidence source only claims when ``c.allow_low_confidence`` (a claim is not a
    certificate, and unknown is never the best case)."""
    return certain + claimed if c.allow_low_confidence else certain


def claimed_only(
    required: tuple[str, ...] | None, certain: tuple[str, ...], claimed: tuple[str, ...]
) -> tuple[str, ...]:
    """The labels of ``claimed`` (as the catalog writes them) that a required label matches while no
    label of ``certain`` does: what an option holds of the requirement only as a claim. With
    nothing required, every claim."""
    have = {label_key(x) for x in certain}
    if not required:
        return tuple(x for x in claimed if label_key(x) not in have)
    wanted = {label_key(r) for r in required} - have
    return tuple(x for x in claimed if label_key(x) in wanted)


def parse_duration_h(text: str | float | int) -> float:
    """Hours from ``12h``, ``2d``, ``90min``, ``1w`` (the workload's parser); a number is hours.

    Text that is a bare number (``"6"``, what ``--deadline 6`` gives) is refused: six hours, days or
    minutes differ by a factor of 24 or 60, and a deadline read the wrong way plans the wrong job.
    """
    from gpuplan.workload import parse_duration_hours

    if isinstance(text, str):
        text = as_typed(text)  # "１２" is the bare number 12
    if isinstance(text, str) and re.fullmatch(r"\s*\d+(?:\.\d+)?\s*", text):
        unit = Phrase(
            N_("{value!r} has no unit: write {n}h (hours), {n}d (days) or {n}m (minutes)"),
            value=text,
            n=text.strip(),
        )
        raise InputError.worded(
            N_("deadline {value!r} has no unit: write {n}h (hours), {n}d (days) or {n}m (minutes)"),
            value=text,
            n=text.strip(),
        ).about("deadline", unit)

    try:
        return parse_duration_hours(text)
    except ValueError as e:
        # The parser's own line is kept whole (translated with the rest when it is a worded error).
        raise InputError.worded(N_("deadline: {why}"), why=e).about("deadline", e) from None
