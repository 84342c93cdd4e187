"""What the service's endpoints accept: the CLI's options as JSON, with a workload inline.

A request is data, never code: the edge (:func:`check_workload`) refuses a workload whose model is
``python:`` (it would import code on the server) and any path into the server's disk
(``hf_config`` as a path, ``project_dir``); a Hugging Face config comes inline as
``hf_config_json`` instead, and the library refuses one that names code (``auto_map``, anywhere
in it) when the workload is read, before transformers is imported.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import partial
from types import MappingProxyType
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    GetJsonSchemaHandler,
    ValidationInfo,
    field_validator,
    model_validator,
)

from gpuplan.catalog.discounts import MAX_PERCENT
from gpuplan.documents.base import refuse_boolean
from gpuplan.errors import InputError, Phrase
from gpuplan.hardware.gpus import (
    DEFAULT_PLANNED_GPUS,
    MAX_GPU_COUNT,
    MAX_GPU_MEMORY_GIB,
    MAX_HOST_VCPUS,
    MAX_NETWORK_GBIT_S,
    MIN_NETWORK_GBIT_S,
)
from gpuplan.i18n import N_
from gpuplan.units import (
    MAX_BUDGET_CNY,
    MAX_BUDGET_USD,
    MAX_MEASURED_THROUGHPUT,
    MAX_RUNS_PER_MONTH,
    MAX_SPOT_NOTICE_S,
    MAX_SPOT_RATE_PER_HOUR,
    MAX_STORAGE_GBPS,
    MIN_BUDGET,
    MIN_MEASURED,
    MIN_STORAGE_GBPS,
    read_amount,
)
from gpuplan.workload._validation import refuse_unknown_keys

if TYPE_CHECKING:
    from gpuplan.workload import Workload

__all__ = [
    "JOB_ID_PATTERN",
    "MONTH_PATTERN",
    "NAME_PATTERN",
    "OPTION_FIELDS",
    "PATTERN_WORDS",
    "PERIOD_PATTERN",
    "CurrencyCode",
    "DeployRequest",
    "DiscountRequest",
    "EstimateRequest",
    "PlanRequest",
    "RefreshRequest",
    "RefusedValue",
    "SavePlanRequest",
    "SaveWorkloadRequest",
    "SimulateRequest",
    "TcoRequest",
    "check_workload",
    "refused_as",
]

#: A billing month, YYYY-MM with a month from 01 to 12, in ASCII digits: ``\d`` also matches
#: full-width (２０２６) and Arabic-Indic digits, which no month a plan or a budget is kept under has.
MONTH_PATTERN = r"^[0-9]{4}-(0[1-9]|1[0-2])$"
#: A saved workload's name: letters, digits, '.', '-', '_' and inner spaces.
NAME_PATTERN = r"^[\w.\-]([\w.\- ]*[\w.\-])?$"
#: A budget's period: a month, ``YYYY-MM``, or a year, ``YYYY``.
PERIOD_PATTERN = r"^[0-9]{4}(-(0[1-9]|1[0-2]))?$"
#: A job's id as the job queue makes it.
JOB_ID_PATTERN = r"^[0-9a-f]{24}$"
#: What each pattern asks for, in words: a refused value names these, never the expression.
PATTERN_WORDS = {
    MONTH_PATTERN: N_("give a month as YYYY-MM, e.g. 2026-07"),
    PERIOD_PATTERN: N_("give a month as YYYY-MM (e.g. 2027-07) or a year as YYYY (e.g. 2027)"),
    NAME_PATTERN: N_("use letters, digits, '.', '-', '_' and spaces (not at the start or end)"),
    JOB_ID_PATTERN: N_("a job id is 24 characters of 0-9 and a-f, as the job's address gives it"),
}

#: The command's options as the service's requests name them, where a refusal of the library names
#: one ("--timeout-s must be …" reads "timeout_s must be …" to a caller who sent timeout_s): the
#: request field or query parameter of the same meaning (gpuplan.i18n.error_text). A request whose
#: field for an option is named otherwise says so in its ``OPTION_FIELDS``. A command in backticks
#: that a message tells its reader to run is named by the request that does the same (no braces: a
#: message's template is formatted after its names are put in).
OPTION_FIELDS: Mapping[str, str] = MappingProxyType(
    {
        # simulate autoscale
        "--timeout-s": "timeout_s",
        "--spot-notice-s": "spot_notice_s",
        "--spot-rate": "spot_rate",
        "--spot-price": "spot_price",
        "--on-demand-price": "on_demand_price",
        "--commit-price": "commit_price",
        "--storage-gbps": "storage_gbps",
        "--slo": "slo",
        "--slo-ms": "slo_ms",
        "--replica": "replica",
        "--engine": "engine",
        "--policy": "policies",
        "--gpu": "gpu",
        "--instance": "instance",
        # estimate
        "--network-gbps": "network_gbps",
        "--network-kind": "network_kind",
        "--vcpus": "vcpus",
        # plan
        "--commitment": "commitment",
        "--upfront": "upfront",
        "--max-gpus": "max_gpus",
        "--min-gpus": "min_gpus",
        "--max-nodes": "max_nodes",
        "--countries": "countries",
        "--hosts": "hosts",
        "--baseline": "baseline",
        "--egress-free-tier": "egress_free_tier",
        "--copy-gbps": "copy_gbps",
        # offers, catalog import
        "--max-price": "max_price",
        "--provider": "provider",
        "--as-of": "as_of",
        "--format": "format",
        # deploy
        "--target": "target",
        "--image": "image",
        "--base-image": "base_image",
        "--steps": "steps",
        # catalog refresh
        "--rates": "rates",
        # The commands a message tells its reader to run, as the service's caller does the same.
        "gpuplan gpus": "GET /api/v1/gpus",
        "gpuplan offers --all-regions": "GET /api/v1/offers?all_regions=true",
        "gpuplan plan": "POST /api/v1/plan",
        "gpuplan catalog import FILE --format gpuplan": "POST /api/v1/catalog/import?format=gpuplan",
        # the request and its body's field, so that a Chinese sentence holds no English words around
        # it; no braces or quotes: a name is put into format templates and into JSON documents' notes
        "gpuplan catalog refresh --rates": "POST /api/v1/catalog/refresh (rates: true)",
    }
)
#: Largest inline Hugging Face config.json, as the CLI reads one from disk (bounded.MAX_CONFIG_BYTES).
_NAMES = Field(default=None, max_length=64)
#: Longest comma-separated option text (--slo, --replica, --engine): a few keys and values.
_OPTION_TEXT = 300


class _NumberOrWritten:
    """An amount's JSON schema as the server reads it: the number (with its bounds, as pydantic
    writes them) or a string as people write one, in ``currency`` (read_amount's forms). Without the
    string the schema said ``number`` only, and a client generated from it could not send
    ``"¥1.2M"``, which the server takes."""

    def __init__(self, currency: str) -> None:
        sign, example = ("$", "$5k, 5,000, 1.2m") if currency == "usd" else ("¥", "¥1,200,000, 120万, 1.2 亿")
        self.written = {
            "type": "string",
            "description": f"The amount as people write it, taken within the number's bounds: digits "
            f"with , or _ between groups, k (thousand), m (million), 万 or 亿 after them, the currency's "
            f"sign {sign} or code ({example}).",
        }

    def __get_pydantic_json_schema__(self, schema: Any, handler: GetJsonSchemaHandler) -> dict[str, Any]:
        # the bounds stay on the number (JSON Schema's minimum/maximum); a nullable field's anyOf
        # takes both branches into its own (pydantic flattens the union)
        return {"anyOf": [handler(schema), self.written]}


#: An amount of one currency as a workload's budget is read (``5k``, ``120万``, ``¥1,200,000``:
#: gpuplan.units.read_amount): one signed in the other currency is refused naming the field that
#: takes it ("¥60000 is in another currency: give it with budget_cny"), where pydantic had said only
#: "Input should be a valid number".
#: The bounds come before the reader: put on the field beside a BeforeValidator, pydantic (2.14)
#: writes them into the OpenAPI document as "ge"/"le", which are not JSON Schema's words, and a
#: client generated from it loses them. A team's budget in dollars may be zero (it may spend nothing);
#: one in yuan is a fen at least (less is no amount kept in dollars to the cent); a plan's budget is
#: at least MIN_BUDGET.
#: The OpenAPI document says both forms (:class:`_NumberOrWritten`): a number, with its bounds, or a
#: string as people write an amount.
_BudgetUsd = Annotated[
    float,
    Field(ge=MIN_BUDGET, le=MAX_BUDGET_USD),
    BeforeValidator(partial(read_amount, currency="usd", other="budget_cny")),
    _NumberOrWritten("usd"),
]
_BudgetCny = Annotated[
    float,
    Field(ge=MIN_BUDGET, le=MAX_BUDGET_CNY),
    BeforeValidator(partial(read_amount, currency="cny", other="budget_usd")),
    _NumberOrWritten("cny"),
]
_AmountUsd = Annotated[
    float,
    Field(ge=0, le=MAX_BUDGET_USD),
    BeforeValidator(partial(read_amount, currency="usd", other="amount_cny")),
    _NumberOrWritten("usd"),
]
_AmountCny = Annotated[
    float,
    Field(ge=MIN_BUDGET, le=MAX_BUDGET_CNY),
    BeforeValidator(partial(read_amount, currency="cny", other="amount_usd")),
    _NumberOrWritten("cny"),
]


def _currency_code(value: object) -> object:
    """A currency as ``--currency`` reads it (``RMB``, ``yuan``, ``人民币``, ``cny``: the aliases of
    :class:`gpuplan.vocab.Currency`), as its ISO code; anything else as it came, for the field's
    own check to refuse in its words ("must be 'USD' or 'CNY'"). A currency gpuplan does not take
    (``yen``, ``JPY``, ``EUR``) is refused as such, as ``--currency yen`` is (pydantic's "must be
    'USD' or 'CNY'" did not say why)."""
    from pydantic_core import PydanticCustomError

    from gpuplan.errors import UnknownChoiceError
    from gpuplan.units import other_currency
    from gpuplan.vocab import Currency, not_priced_in

    if not isinstance(value, str):
        return value
    try:
        return Currency.cast(value).code
    except UnknownChoiceError:
        if (code := other_currency(value)) is not None:
            template, fields = not_priced_in(value.strip()[:40], code)
            raise PydanticCustomError("unsupported_currency", template, fields) from None
        return value


#: The currency money is shown in, a request's field or a query parameter: USD or CNY, written as
#: the command's ``--currency`` takes it.
CurrencyCode = Annotated[Literal["USD", "CNY"], BeforeValidator(_currency_code)]


class _Request(BaseModel):
    # allow_inf_nan=False: a string such as "Infinity" is not read as a number either (the body's
    # own NaN/Infinity never reach here: web.strict_json refuses them while parsing).
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    #: What a refusal of this request calls the command's options.
    OPTION_FIELDS: ClassVar[Mapping[str, str]] = OPTION_FIELDS

    @field_validator("*", mode="before")
    @classmethod
    def _refuse_booleans(cls, value: Any, info: ValidationInfo) -> Any:
        # "seed": true is not 0 or 1, nor "hours": true one hour: JSON booleans are not numbers.
        return refuse_boolean(cls, value, info)

    @model_validator(mode="before")
    @classmethod
    def _refuse_unknown_keys(cls, data: Any) -> Any:
        # "deadlin" is refused with the nearest field ("did you mean 'deadline'?"), as a workload
        # file's misspelt key is, where pydantic says only "Extra inputs are not permitted".
        refuse_unknown_keys(cls, data)
        return data


class WorkloadRequest(_Request):
    workload: dict[str, Any] = Field(
        description="The workload as in a workload YAML file (name, task, model, inputs, …). "
        "model: {preset: NAME} or {hf_config: 'inline'} with hf_config_json; python: models are refused."
    )
    hf_config_json: dict[str, Any] | None = Field(
        default=None, description="A Hugging Face config.json, inline, when model.hf_config is 'inline'."
    )


class PlanRequest(WorkloadRequest):
    """``gpuplan plan``'s options; None keeps the workload's own constraint."""

    deadline: str | None = Field(default=None, max_length=32, description="12h, 2d, 90m")
    budget_usd: _BudgetUsd | None = None
    budget_cny: _BudgetCny | None = Field(
        default=None,
        description="The budget in yuan instead of budget_usd (at the catalog's dated CNY rate, which the "
        "plan's notes state); not both.",
    )
    providers: list[str] | None = _NAMES
    gpus: list[str] | None = Field(
        default=None,
        max_length=64,
        description="GPUs to choose from (T4, L4, A10G, A100); a family name allows each of its variants.",
    )
    regions: list[str] | None = _NAMES
    countries: list[str] | None = _NAMES
    hosts: str | None = Field(
        default=None,
        max_length=24,
        description="Which hosts the GPUs may be on: any (default) or provider, only machines a provider "
        "runs in its own or vetted data centres (community hosts and hosts of unknown kind left out).",
    )
    pricing: list[str] | None = _NAMES
    max_gpus: int | None = Field(
        default=None,
        ge=1,
        # the service keeps the default search: a larger one takes a request several times the
        # memory (plan --max-gpus lifts it on the user's own machine)
        le=DEFAULT_PLANNED_GPUS,
        description=f"At most this many GPUs in all: 1 to {DEFAULT_PLANNED_GPUS}, what the planner searches.",
    )
    min_gpus: int | None = Field(
        default=None,
        ge=1,
        le=DEFAULT_PLANNED_GPUS,
        description=f"At least this many GPUs in all: 1 to {DEFAULT_PLANNED_GPUS}, at most max_gpus (the "
        "same number: exactly that many); a service's are its whole fleet's, every replica's together.",
    )
    max_nodes: int | None = Field(
        default=None,
        ge=1,
        le=DEFAULT_PLANNED_GPUS,
        description=(
            f"At most this many instances: 1 to {DEFAULT_PLANNED_GPUS} (default 8 for a job; "
            f"{DEFAULT_PLANNED_GPUS} for a service, whose replicas are independent servers)."
        ),
    )
    min_gpu_memory_gib: float | None = Field(default=None, ge=0, le=MAX_GPU_MEMORY_GIB)
    interconnect: str | None = Field(default=None, max_length=32)
    compliance: list[str] | None = _NAMES
    objective: str | None = Field(default=None, max_length=16)
    commitment: str | None = Field(default=None, max_length=16)
    upfront: str | None = Field(
        default=None,
        max_length=24,
        description="How much of a reservation is paid upfront: none (default), partial or all.",
    )
    allow_low_confidence: bool = Field(
        default=False,
        description="Also plan on prices and facts labelled low-confidence (two published Chinese "
        "GPU guide articles' 2024 price tables, "
        "an article's compliance claim).",
    )
    top: int = Field(default=10, ge=1, le=100)
    baseline: str | None = Field(default=None, max_length=300)
    unknown_costs: Literal["assume", "exclude"] = "assume"
    storage: Literal["block", "object"] = "block"
    egress_free_tier: bool = False
    network_gbps: float | None = Field(
        default=None,
        ge=MIN_NETWORK_GBIT_S,
        le=MAX_NETWORK_GBIT_S,
        description="Inter-node network per instance, Gbit/s, for the instances the catalog gives none "
        "(without it they are ranked at the slowest GPU network); a network the catalog states is kept.",
    )
    network_kind: Literal["rdma", "tcp"] | None = Field(
        default=None, description="The kind of that network: rdma or tcp (default tcp); needs network_gbps."
    )
    copy_gbps: float | None = Field(
        default=None,
        ge=MIN_STORAGE_GBPS,
        le=MAX_STORAGE_GBPS,
        description="The rate you measured copying the dataset onto an instance's disk (or reading it), "
        "GB/s: each instance's set-up copy is timed and billed at it, or at the instance's network where "
        "the catalog states a slower one. Replaces the workload's data.copy_gbps; without either, 0.131 "
        "(gp3's baseline) is assumed.",
    )
    currency: CurrencyCode | None = Field(
        default=None,
        description="The currency the plan shows money in; default CNY where the budget is in yuan "
        "(budget_cny, or the workload's constraints.budget_cny without budget_usd), as `gpuplan plan` "
        "shows it, else USD.",
    )

    def shown_currency(self, workload: Workload) -> str:
        """``currency`` where given, else CNY for a budget in yuan (this request's budget_cny, or
        the workload's own unless budget_usd replaces it), else USD: the command's rule
        (cli._i18n.currency_shown), so that a team counting in yuan reads its plan in yuan."""
        return workload.shown_currency(self.currency, budget_usd=self.budget_usd, budget_cny=self.budget_cny)

    def overrides(self) -> dict[str, Any]:
        from gpuplan.plan import parse_duration_h

        low = lambda xs: [x.lower() for x in xs] if xs else None  # noqa: E731
        return {
            "deadline_h": parse_duration_h(self.deadline) if self.deadline is not None else None,
            "budget_usd": self.budget_usd,
            "budget_cny": self.budget_cny,
            "providers": low(self.providers),
            "gpus": self.gpus or None,
            "regions": self.regions or None,
            "countries": self.countries or None,
            "hosts": self.hosts,
            "pricing": [p.lower().replace("-", "_") for p in self.pricing] if self.pricing else None,
            "max_gpus": self.max_gpus,
            "min_gpus": self.min_gpus,
            "max_nodes": self.max_nodes,
            "min_gpu_memory_gib": self.min_gpu_memory_gib,
            "interconnect": self.interconnect,
            "compliance": self.compliance or None,
            "objective": self.objective,
            "commitment": self.commitment.lower() if self.commitment else None,
            "upfront": self.upfront,
            "allow_low_confidence": self.allow_low_confidence or None,
        }


class EstimateRequest(WorkloadRequest):
    OPTION_FIELDS: ClassVar[Mapping[str, str]] = MappingProxyType(
        {
            **OPTION_FIELDS,
            "--gpu": "gpus",
            "--count": "count",
            "--measured-speedup": "measured_speedup",
            "--measured-throughput": "measured_throughput",
        }
    )

    gpus: list[str] | None = Field(
        default=None, max_length=64, description="NAME or NAME:COUNT; default every GPU"
    )
    count: int | None = Field(
        default=None,
        ge=1,
        le=MAX_GPU_COUNT,
        description="GPUs per configuration; default one replica (tensor_parallel × pipeline_parallel)",
    )
    network_gbps: float | None = Field(default=None, ge=MIN_NETWORK_GBIT_S, le=MAX_NETWORK_GBIT_S)
    network_kind: Literal["rdma", "tcp"] | None = None
    instance: str | None = Field(
        default=None,
        min_length=1,
        max_length=128,
        description="An instance type from the catalog (gpuplan estimate --instance): its GPU (unless "
        "gpus names others), GPUs per node, NVLink, network, vCPUs and RAM.",
    )
    vcpus: int | None = Field(
        default=None,
        ge=1,
        le=MAX_HOST_VCPUS,
        description="CPU threads of the machine the GPUs are in (gpuplan estimate --vcpus): a machine of "
        "your own, which has no instance type; with instance, replaces the catalog's vCPUs.",
    )
    measured_speedup: float | None = Field(
        default=None,
        ge=MIN_MEASURED,
        le=MAX_GPU_COUNT,
        allow_inf_nan=False,
        description="The speed-up you measured on the GPUs named (one GPU kind, several of it) over one "
        "GPU of the kind (gpuplan estimate --measured-speedup): the answer's scaling_gap compares it "
        "with the estimate's and ranks the likely causes of the difference. A training job's only.",
    )
    measured_throughput: float | None = Field(
        default=None,
        ge=MIN_MEASURED,
        le=MAX_MEASURED_THROUGHPUT,
        allow_inf_nan=False,
        description="The throughput you measured on those GPUs, all together, in the estimate's unit "
        "(tokens/s for a sequence model, else samples/s; gpuplan estimate --measured-throughput): "
        "compared as measured_speedup is. Not with measured_speedup.",
    )


class SimulateRequest(WorkloadRequest):
    """``gpuplan simulate autoscale``: on a trace CSV sent in the request, or on a generated trace."""

    trace_csv: str | None = Field(
        default=None,
        description="A trace CSV's text, as ``--trace`` reads it: a timestamp column (seconds or a date "
        "and time), optionally prompt and output tokens (Azure's TIMESTAMP, ContextTokens, "
        "GeneratedTokens); within the request size limit and the command's bounds (rows, a 31-day window).",
    )
    trace_scale: float | None = Field(
        default=None, gt=0, le=1e6, description="Re-time trace_csv: its arrivals K times as fast."
    )
    trace_tile_hours: float | None = Field(
        default=None, gt=0, le=24 * 31, description="Re-time trace_csv: repeat it to fill this many hours."
    )
    shape: Literal["diurnal", "bursty", "step"] | None = Field(
        default=None, description="A generated trace instead of trace_csv (default diurnal)."
    )
    rate: float | None = Field(
        default=None,
        gt=0,
        le=10_000,
        description=(
            "mean requests/s of the generated trace, in the shape's own proportions unless peak is given "
            "too (default: the workload's serving.mean_requests_per_s, if given)"
        ),
    )
    peak: float | None = Field(
        default=None,
        gt=0,
        le=10_000,
        description=(
            "peak requests/s of the generated trace: a diurnal day's busiest minute, a burst, a step's "
            "upper level (default: the workload's serving.requests_per_s); with rate or peak, the "
            "workload's rates are not used"
        ),
    )
    hours: float = Field(default=24.0, gt=0, le=24 * 31)
    policies: list[str] = Field(
        min_length=1, max_length=16, description="fixed:replicas=4, target:target=0.7,max=10, …"
    )
    slo_ms: float | None = Field(
        default=None, gt=0, le=3.6e6, description="An end-to-end p95 target in ms, as slo e2e_p95=…"
    )
    slo: str | None = Field(
        default=None,
        min_length=1,
        max_length=_OPTION_TEXT,
        description="Latency targets METRIC_pN=TIME (queue, ttft, tpot, e2e): ttft_p95=2s,tpot_p95=80ms "
        "(default: the workload's p95_latency_ms, end to end, ttft_p95_ms and tpot_p95_ms); not with "
        "slo_ms.",
    )
    gpu: str | None = Field(
        default=None, max_length=64, description="GPU of one replica (default A100-SXM4-80GB)."
    )
    instance: str | None = Field(
        default=None,
        min_length=1,
        max_length=128,
        description="An instance type from the catalog a replica runs on: its GPU (gpu, if given, must "
        "be the same), how its GPUs are joined, its prices.",
    )
    replica: str | None = Field(
        default=None,
        min_length=1,
        max_length=_OPTION_TEXT,
        description="Replica speed instead of the estimator: slots=N,tpot_ms=T,prefill_tps=R (the workload "
        "then needs no serving: block; a request the trace gives no tokens for is 512 in, 256 out).",
    )
    engine: str | None = Field(
        default=None,
        min_length=1,
        max_length=_OPTION_TEXT,
        description="Serving engine settings: max_num_seqs=N, max_batched_tokens=N, chunked_prefill=on "
        "or off, prefix_caching=on or off (default: those of the workload's serving.engine for the GPU).",
    )
    storage_gbps: float | None = Field(
        default=None,
        ge=MIN_STORAGE_GBPS,
        le=MAX_STORAGE_GBPS,
        description="Weights read rate at a replica's start, GB/s (default 0.131).",
    )
    timeout_s: float = Field(
        default=120.0, gt=0, le=31 * 86_400, description="Drop a request that waited this long."
    )
    currency: CurrencyCode | None = Field(
        default=None,
        description="The currency of on_demand_price, spot_price and commit_price (a yuan figure is "
        "converted at the catalog's dated CNY rate, as the command's ¥18.49 is) and of the notes' "
        "figures; default CNY for a workload budgeted in yuan (constraints.budget_cny), else USD. With "
        "such a workload a price is refused without currency: the two readings stand seven-fold apart.",
    )
    on_demand_price: float | None = Field(
        default=None,
        gt=0,
        description="Price per replica-hour in currency (default: the catalog's cheapest).",
    )
    spot_price: float | None = Field(
        default=None, gt=0, description="Price per spot replica-hour in currency."
    )
    commit_price: float | None = Field(
        default=None,
        gt=0,
        description="Price per committed replica-hour in currency, a policy's commit=N: a month's price "
        "/ 730 h (default: the catalog's monthly or reserved price).",
    )
    spot_rate: float | None = Field(
        default=None,
        ge=0,
        le=MAX_SPOT_RATE_PER_HOUR,
        description="Spot reclaims per spot instance-hour (a reclaim takes every replica on the instance).",
    )
    spot_notice_s: float = Field(
        default=30.0, ge=0, le=MAX_SPOT_NOTICE_S, description="Warning before a spot reclaim."
    )
    seed: int = Field(default=0, ge=0, le=2**31)


class RefusedValue(InputError):
    """A value of a request refused where the library names it by its own path (a usage file's
    ``constraints.providers: …``): the line names it as the request does (``usage.constraints.providers:
    …``), and the refusal carries the field and the problem alone, as a refused request value's does
    (``ErrorDocument.field`` and ``message``: a form names the field by its own label)."""

    field: str
    """The value's field as the request names it."""
    alone: InputError
    """What is wrong with it, without the field."""

    @classmethod
    def of(cls, field: str, problem: object, where: str | None = None) -> RefusedValue:
        """``problem``: words (a Phrase) or the library's error for the value of ``field``;
        ``where``: the line's name for it where that is not the field (a query parameter's
        ``query.gpu``, as a refusal of the query's schema names it)."""
        error = cls.worded(N_("{where}: {problem}{more}"), where=where or field, problem=problem, more="")
        error.field = field
        error.alone = InputError.worded("{problem}", problem=problem)
        return error

    def text(self, names: Mapping[str, str]) -> tuple[str, str]:
        """The refusal's one line and its problem alone, in the current language, the command's
        options named as the request's fields (``names``): the line is the problem alone where its
        words begin with the field's name already ("slo 'ttft_p95=soon': write …", not "slo: slo
        'ttft_p95=soon': write …"; the problem without the name where a colon follows it), the
        field and the problem otherwise."""
        from gpuplan.i18n.error_text import error_text

        alone = error_text(self.alone, names)
        named = re.match(re.escape(self.field) + r"(?:\s*[:：]\s*|(?![\w.\[]))", alone)
        if named is None:
            return error_text(self, names), alone
        # "hf_config_json: hidden_size is 0; …" is the field and the problem already
        problem = alone[named.end() :] if named.group().rstrip() != self.field else alone
        return alone, problem


@contextmanager
def refused_as(field: str) -> Iterator[None]:
    """A refusal of a value by the library (InputError, NotFoundError; DeployError, a plan or a
    deploy option refused) raised inside, as a refusal of the request's ``field``
    (:class:`RefusedValue`): for a request option the service reads with the command's own parser,
    which names no field of the request. Keep the block to the reading of that one option."""
    from gpuplan.errors import DeployError, NotFoundError

    try:
        yield
    except RefusedValue:
        raise
    except (InputError, NotFoundError, DeployError) as e:
        raise RefusedValue.of(field, e) from None


class TcoRequest(_Request):
    usage: dict[str, Any] = Field(
        description="A usage file's content (horizon_months, demands, constraints); demands give gpu, "
        "gpus and hours_per_month (workload files are not read over the API)."
    )
    currency: CurrencyCode | None = None


class DeployRequest(_Request):
    plan: dict[str, Any] = Field(description="A plan document (POST /api/v1/plan's answer).")
    target: str = Field(max_length=32, description="torchrun | docker | k8s | skypilot")
    autoscaler: Literal["hpa", "keda"] = "hpa"
    image: str | None = Field(default=None, max_length=500)
    base_image: str | None = Field(default=None, max_length=500)
    steps: Annotated[int, Field(ge=1, le=10**9)] | Literal["full"] | None = Field(
        default=None,
        description="optimizer steps, or full: the workload's samples x epochs (the default for your own "
        "model's code; a stand-in model runs a short check of the launch unless given)",
    )
    workdir: str | None = Field(
        default=None,
        max_length=1000,
        description="skypilot target (required there): the absolute path the archive's skypilot/ folder "
        "will have once unpacked where `sky` runs (SkyPilot reads a relative workdir from the folder it is "
        "run in, so the task names its folder whole)",
    )
    own_cluster: bool = Field(
        default=False,
        description="k8s target: you run Kubernetes on the plan's machines yourself, so the recommended "
        "option is deployed even on a provider without managed Kubernetes (by default the plan's best "
        "option on a provider with one is deployed, and NOTE.txt in the archive says so)",
    )


class RefreshRequest(_Request):
    providers: list[str] = Field(
        default_factory=list, max_length=32, description="default: every provider (unless rates alone)"
    )
    rates: bool = Field(
        default=False,
        description="Also refresh the CNY rate (the ECB's daily reference rates), as `catalog refresh "
        "--rates`; with no providers named, only the rate.",
    )


class DiscountRequest(_Request):
    provider: str = Field(max_length=32)
    percent: float = Field(gt=0, le=MAX_PERCENT)
    family: str = Field(default="", max_length=64)
    pricing: list[Annotated[str, Field(max_length=64)]] = Field(
        default_factory=list,
        max_length=5,
        description="The pricing models it is taken off (on_demand, spot, monthly, reserved_1y, "
        "reserved_3y), as `catalog discount set --pricing`; none: on_demand (and monthly for a "
        "Chinese cloud), not spot or reservations.",
    )
    note: str = Field(default="", max_length=500)


class SaveWorkloadRequest(WorkloadRequest):
    # letters, digits, '.', '-', '_' and inner spaces: "   " or "bert " would list as a blank
    # or as a second "bert" that no one can tell from the first
    name: str = Field(min_length=1, max_length=128, pattern=NAME_PATTERN)


class SavePlanRequest(PlanRequest):
    """Plan the newest (or a given) version of a saved workload and keep the plan."""

    workload: dict[str, Any] = Field(
        default_factory=dict, description="ignored: the saved workload is planned"
    )
    name: str = Field(min_length=1, max_length=128, description="the saved workload's name")
    version: int | None = Field(default=None, ge=1)
    month: str = Field(pattern=MONTH_PATTERN, description="YYYY-MM the spend is planned for")
    runs_per_month: int = Field(
        default=1,
        ge=1,
        le=MAX_RUNS_PER_MONTH,
        description="How many times the workload runs in the month (nightly: 30, weekly: 4); the month's "
        f"planned spend is the plan's cost (one run's) times this. 1 to {MAX_RUNS_PER_MONTH} (hourly in "
        "a 31-day month); default 1. Saving a plan of the same workload for the same month again "
        "replaces the earlier one in the month's spend.",
    )

    @field_validator("workload", mode="before")
    @classmethod
    def _a_name_is_given_as_name(cls, value: Any) -> Any:
        # {"workload": "chat"} had been answered "workload: Input should be a valid dictionary"
        if isinstance(value, str):
            raise ValueError(
                Phrase(
                    N_('a saved workload is planned by its name: send {{"name": "{value}"}}, not workload'),
                    value=value[:128],
                )
            )
        return value


class BudgetRequest(_Request):
    #: The team whose budget it is goes in the query string, not the body (it had been answered
    #: "did you mean 'note'?").
    key_hints: ClassVar[Mapping[str, str]] = MappingProxyType(
        {
            "team": N_(
                "the team goes in the query string, not the body: PUT /api/v1/budget/MONTH?team=NAME "
                "(without it, the whole service's budget)"
            )
        }
    )

    amount_usd: _AmountUsd | None = None
    amount_cny: _AmountCny | None = Field(
        default=None,
        description="The budget in yuan instead: kept in yuan and compared with the plans' costs in yuan; "
        "its note states it in US dollars at the catalog's newest CNY rate.",
    )
    note: str = Field(default="", max_length=500)

    @field_validator("amount_cny")
    @classmethod
    def _not_both(cls, value: Any, info: ValidationInfo) -> Any:
        # both given: the error is the second amount's (a field the caller can point at)
        if value is not None and info.data.get("amount_usd") is not None:
            raise ValueError(Phrase(N_("give the budget once: amount_usd or amount_cny, not both")))
        return value

    @model_validator(mode="after")
    def _one_amount(self) -> BudgetRequest:
        if self.amount_usd is None and self.amount_cny is None:
            raise ValueError(Phrase(N_("give the budget: amount_usd or amount_cny")))
        return self


def check_workload(
    workload: dict[str, Any], hf_config_json: dict[str, Any] | None, where: str = "workload"
) -> dict[str, Any]:
    """The workload as the library may read it on the server, or :class:`RefusedValue` naming the
    field refused as the request names it (``workload.model.python``; ``where`` is the workload's
    own field in the request)."""
    model = workload.get("model")
    inline = isinstance(model, dict) and model.get("hf_config") == "inline"
    for inside, section in ((where, workload), (f"{where}.model", model)):
        if isinstance(section, dict) and "hf_config_json" in section:
            # a key of the request, not of the workload file: said where it goes, not "required"
            raise RefusedValue.of(
                f"{inside}.hf_config_json",
                Phrase(
                    N_("it goes at the request's top level, beside {field}, not inside {inside}"),
                    field=where,
                    inside=inside,
                ),
            )
    if isinstance(model, dict):
        if model.get("python") is not None:
            raise RefusedValue.of(
                f"{where}.model.python",
                Phrase(
                    N_(
                        "a model from your own code is not run by the service (it would run code on the "
                        "server); estimate it with the gpuplan command on your machine, or use a preset or "
                        "an inline Hugging Face config"
                    )
                ),
            )
        if model.get("project_dir") is not None:
            raise RefusedValue.of(
                f"{where}.model.project_dir",
                Phrase(N_("the service reads no folder of its disk; leave it out")),
            )
        if inline and hf_config_json is None:
            raise RefusedValue.of(
                "hf_config_json",
                Phrase(
                    N_("required where {field} is 'inline': send the config.json's content"),
                    field=f"{where}.model.hf_config",
                ),
            )
        if model.get("hf_config") is not None and not inline:
            raise RefusedValue.of(
                f"{where}.model.hf_config",
                Phrase(
                    N_(
                        "the service reads no file of its disk; write hf_config: inline and send the "
                        "config.json's content as hf_config_json"
                    )
                ),
            )
    if hf_config_json is not None and not inline:
        # beside a preset it had been read as a second model ("give exactly one of preset,
        # hf_config or python"), naming an hf_config the caller never sent
        raise RefusedValue.of(
            "hf_config_json",
            Phrase(N_("given, but {field} is not 'inline'"), field=f"{where}.model.hf_config"),
        )
    return workload
