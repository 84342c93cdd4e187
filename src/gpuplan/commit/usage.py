"""The usage description of ``gpuplan tco``: a horizon, demands and constraints, validated at the
YAML edge into a frozen :class:`Usage` (one-line errors naming the field and the fix).

    horizon_months: 36
    start: 2027-01
    currency: USD                      # or CNY: the report's currency
    past_horizon: full                 # or remaining_value: how terms running past the horizon count
    demands:
      - name: pretrain-runs
        workload: ../llama7b-lora.yaml # sized by the planner (GPU type, count, hours per run) …
        runs_per_month: 4
        interruptible: true
        data_each_run: same            # its dataset again each run (batch inference: new)
      - name: serving
        gpu: L4                        # … or given directly
        gpus: 4
        hours_per_month: 730
        growth_pct_per_month: 5
      - name: november-peak            # … for some months only: months of the horizon counted
        gpu: L4                        #   from 1 (1 = the month ``start`` names), end_month
        gpus: 36                       #   included; with start 2027-01, 11 is 2027-11
        hours_per_month: 730
        start_month: 11
        end_month: 11
    constraints: {providers: [aws, alibaba], pricing: [on_demand, spot, monthly, reserved_3y]}
                                       # countries: [CN] keeps data and GPUs in China, as plan's does;
                                       # hosts: provider only machines a provider runs, as plan's does

A direct demand's GPU-hours in month m (counted from its ``start_month``) are
``gpus × hours × (1 + growth_pct_per_month/100)^m``, where ``hours`` is ``hours_per_month`` or,
for a profile that changes, ``hours_by_month`` (repeated when shorter than the horizon).

``gpus`` is what the demand needs at once during its hours (growth adds GPUs at once, not hours:
whole GPUs, so 4 GPUs grown to 4.2 are 4 for its hours and a 5th for a fifth of them), and which
hours of the month demands share is not known, so demands of one month are taken to run at the same
time (their GPUs add up at the peak) unless they name different shifts (``shift``): demands of two
shifts never run at the same hours (a service's daytime peak, training at night). A workload
demand's growth is more runs (``runs × (1 + growth_pct_per_month/100)^m``: a run's size is its
workload file's), and its runs follow one another (they overlap, in whole runs, only when they do
not fit in the month). A workload demand is sized by the planner's cheapest option on the pricing
models the constraints allow, monthly and reserved included (a run priced alone), and spot only
for an interruptible demand (unless ``interruptible: false``: a service, with its spare, and a job
that resumes after a reclaim, by its checkpoints or, batch inference, by its output chunks). Its
hours hold only on instances like the one they were sized on (``commit.model.HostNeed``): it is
priced on that instance type, in any region and pricing the
constraints allow, and on other types known to be at least as able: for a run in one node (a
service: each replica) any holding those GPUs in one node; for a run over several nodes those of as
many GPUs per node with a network known, of the same kind and no slower; either way linked alike
where a node has several GPUs, and for a job with vCPUs and RAM known and no fewer. Never on a
cheaper instance of its GPU whose network or host is not known (the plan times those at their slow
end). A direct demand names a GPU, not an instance: its run (``gpus_per_run``, by default all its
``gpus``: one job) is priced on any instance of that GPU holding the run's GPUs in one node, or,
where none the constraints allow does, on the largest (the fewest nodes; its hours are the user's,
the traffic between nodes not timed, and said so); ``gpus_per_run: 1`` (independent single-GPU
tasks) on any instance of it. Its run lasts its hours of a month unless ``run_hours`` says otherwise.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Annotated, Any

from pydantic import BeforeValidator, Field, PrivateAttr, ValidationError, field_validator, model_validator

from gpuplan.commit.model import COMMITMENT_PRICING, HOURLY_PRICING, PAST_HORIZON_RULES
from gpuplan.confine import Folder
from gpuplan.errors import InputError, NotFoundError, Phrase, closest
from gpuplan.i18n.messages import N_
from gpuplan.i18n.phrases import either, listed
from gpuplan.units import HOURS_PER_MONTH
from gpuplan.vocab import Currency, HostRule, PricingModel, Upfront, pydantic_cast
from gpuplan.workload._validation import PrintableLine, Spec, one_line_error

__all__ = [
    "DATA_EACH_RUN",
    "MAX_DEMANDS",
    "MAX_GPUS",
    "MAX_GROWTH",
    "MAX_RUNS_PER_MONTH",
    "ConstraintsSpec",
    "DemandSpec",
    "Usage",
    "load_usage",
]

_PRICING = (*HOURLY_PRICING, *COMMITMENT_PRICING)
#: ``data_each_run``: a run reads new data, or the same dataset as the runs before it.
DATA_EACH_RUN = ("new", "same")
#: Bounds that keep a usage file's numbers ones a forecast means (and the optimiser's sizes small):
#: GPUs of one demand (a very large cluster), runs of a workload per month (one every 4 minutes),
#: demands in one file, and how much a demand may grow over the horizon.
MAX_GPUS = 100_000
MAX_RUNS_PER_MONTH = 10_000
MAX_DEMANDS = 200
MAX_GROWTH = 1_000_000
_MONTH = re.compile(r"(\d{4})-(\d{2})")


def _names(value: Any) -> Any:
    """A single string is accepted where a list of names is expected."""
    return [value] if isinstance(value, str) else value


Names = Annotated[tuple[str, ...], BeforeValidator(_names)]


class _Invalid(ValueError):
    """A problem a validator reports through pydantic; its one argument (``phrase``) is the words as
    a Phrase, which ``one_line_error`` writes in the user's language."""

    def __init__(self, template: str, /, **fields: object) -> None:
        self.phrase = Phrase(template, **fields)
        super().__init__(self.phrase)


def _pick(value: str, known: tuple[str, ...], what: str) -> str:
    key = value.strip().lower().replace("-", "_")
    if key in known:
        return key
    hint = closest(key, known)
    if hint:
        raise _Invalid(
            N_("unknown {what} {value}; did you mean {names}?"),
            what=Phrase(what),
            value=repr(value),
            names=either(repr(h) for h in hint),
        )
    raise _Invalid(
        N_("unknown {what} {value}; use one of: {names}"),
        what=Phrase(what),
        value=repr(value),
        names=listed(known),
    )


def _worded_line(err: ValidationError, source: str) -> InputError:
    """``one_line_error``'s line as an InputError, still worded (a validator's Phrase, or the gpuplan
    error behind a ValueError, is written in the user's language)."""
    line = one_line_error(err, source)
    if not line.template:
        return InputError(str(line))
    return InputError.worded(line.template, **line.fields)


class ConstraintsSpec(Spec):
    """Which offers may be used."""

    providers: Names = ()
    """Provider names (``aws``, ``alibaba`` …); empty = all."""
    regions: Names = ()
    """Region names exactly as the catalog writes them; empty = all."""
    countries: Names = ()
    """Countries the data and GPUs may be in, by ISO code or name (``CN``, ``China``, ``中国``), kept as
    ISO 3166 alpha-2 codes; empty = all. A region whose country is not known is left out."""
    pricing: Names = _PRICING
    """Pricing models allowed: on_demand, spot, monthly, reserved_1y, reserved_3y."""
    allow_low_confidence: bool = False
    """Also use prices labelled low-confidence (the source articles' 2024 tables)."""
    upfront: str = "none"
    """How much of a reservation is paid upfront: ``none`` (default), ``partial`` or ``all``; a
    reserved price is costed at that option's effective rate where the catalog carries it."""
    hosts: str = HostRule.ANY.value
    """Which hosts the GPUs may be on: ``any`` (default) or ``provider``, only machines a provider
    runs (a cloud VM, bare metal, a vetted data centre, another cloud's machine resold); community
    hosts and hosts whose kind the provider does not state are then left out, as the plan leaves them
    (``catalog.providers.provider_runs``)."""

    @field_validator("upfront")
    @classmethod
    def _upfront(cls, v: str) -> str:
        return pydantic_cast(Upfront)(v).value

    @field_validator("hosts")
    @classmethod
    def _hosts(cls, v: str) -> str:
        return pydantic_cast(HostRule)(v).value

    @property
    def provider_hosts_only(self) -> bool:
        """Whether only machines a provider runs may be bought (``hosts: provider``)."""
        return self.hosts == HostRule.PROVIDER

    @field_validator("pricing")
    @classmethod
    def _known_pricing(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        if not v:
            raise _Invalid(N_("list at least one pricing model, e.g. [on_demand, reserved_1y]"))
        # PricingModel's own vocabulary, as `plan --pricing` reads it (按量, 抢占式, 竞价 …)
        cast = pydantic_cast(PricingModel)
        return tuple(dict.fromkeys(_pick(cast(p).value, _PRICING, N_("pricing model")) for p in v))

    @field_validator("providers")
    @classmethod
    def _providers(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        # The catalog registry's codes ("aliyun" -> alibaba; a typo gets "did you mean"), not a
        # silent filter that matches no offer.
        from gpuplan.catalog.providers import PROVIDERS

        cast = pydantic_cast(PROVIDERS)
        return tuple(dict.fromkeys(cast(p) for p in v))

    @field_validator("countries")
    @classmethod
    def _countries(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        # The plan's reading of a country (gpuplan.i18n.countries): "China", "中国" and "cn" are CN, and
        # a typo gets "did you mean" rather than a filter that silently matches no offer.
        from gpuplan.i18n.countries import country_codes

        try:
            return tuple(dict.fromkeys(code for c in v for code in country_codes(c)))
        except NotFoundError as e:
            raise ValueError(e) from None


class DemandSpec(Spec):
    """One stream of work: a workload run N times a month, or GPUs for some hours a month."""

    name: PrintableLine = Field(min_length=1, max_length=300)
    workload: str | None = None
    """A workload YAML file (relative to the usage file); the planner picks its GPU type and count."""
    runs_per_month: float | None = Field(default=None, ge=0, le=MAX_RUNS_PER_MONTH)
    """With ``workload``: how many times it runs each month."""
    runs_by_month: tuple[float, ...] | None = None
    """Instead of ``runs_per_month``: runs in each month, repeated when shorter than the horizon
    (a release calendar: ``[20, 2, 2]`` is a burst every quarter)."""
    gpu: str | None = None
    """With a direct demand: the GPU type (``L4``, ``a100-80gb`` …)."""
    gpus: int | None = Field(default=None, ge=1, le=MAX_GPUS)
    """GPUs the work keeps busy during its hours."""
    gpus_per_run: int | None = Field(default=None, ge=1, le=MAX_GPUS)
    """With a direct demand: GPUs one run needs together (a data- or model-parallel job), priced
    on instances holding them in one node, else on the fewest nodes that hold them. Default: all its
    ``gpus``, one run (unknown is never the best case); 1: independent single-GPU tasks (a sweep,
    single-GPU replicas), each on any instance of its GPU. ``gpus`` is a whole number of runs."""
    hours_per_month: float | None = Field(default=None, ge=0, le=HOURS_PER_MONTH)
    """Hours each of those GPUs is busy per month (730 = all month)."""
    hours_by_month: tuple[float, ...] | None = None
    """Instead of ``hours_per_month``: hours per GPU in each month, repeated when shorter than the
    horizon (a bursty training calendar)."""
    growth_pct_per_month: float = Field(default=0.0, gt=-100.0)
    """Compound change of the demand per month, %: of a direct demand's GPUs at once, of a
    workload demand's runs."""
    interruptible: bool | None = None
    """May it run on spot, where the constraints allow spot? Unless false: a service (a workload
    with a ``serving`` block), as ``gpuplan plan`` and ``gpuplan deploy`` run one there, priced with
    the spare instance the plan keeps beside its fleet on spot; and a workload job that resumes
    after a reclaim as the plan prices it there (it checkpoints: training, or ``checkpoint_gb``
    above 0; or batch inference, which resumes by its output chunks). Only when true: a job that
    would start over, and a direct demand. A workload demand that may is sized on the planner's
    spot options too."""
    start_month: int = Field(default=1, ge=1, le=120)
    """First month of the horizon with this demand, counted from 1: 1 is the month ``start`` names
    (not a calendar month: with ``start: 2027-04``, 11 is 2028-02)."""
    end_month: int | None = Field(default=None, ge=1, le=120)
    """Last month of the horizon with this demand, counted as ``start_month`` is and included
    (``start_month: 11, end_month: 11``: that one month only); default: the end of the horizon."""
    run_hours: float | None = Field(default=None, gt=0, le=87_660)
    """Failure-free length of one run, h (spot overhead); default: a workload's job time, else the
    demand's hours in a month (its longest month's)."""
    checkpoint_gb: float | None = Field(default=None, ge=0, le=1e6)
    """Size of one checkpoint, GB (spot overhead); default: from the workload's trace. A direct
    demand without it is not known to checkpoint: on spot an interruption restarts its run from the
    beginning; 0 says it has no state to save (it resumes after a restart, as a service does)."""
    data_each_run: str | None = None
    """With ``workload``: whether each run reads data it has not read before (``new``: a night's
    tickets; its dataset is moved in for every run) or the same dataset again (``same``: away from
    the data, one copy may be moved in once and kept in the region's object storage). Default:
    ``new`` for batch inference (``task: infer`` without ``serving:``), whose inputs are each
    night's or week's; ``same`` otherwise (training runs again over its dataset)."""
    shift: PrintableLine | None = Field(default=None, min_length=1, max_length=100)
    """A name for the hours the demand runs at (``day``, ``night``): demands of different shifts
    never run at the same hours; without one, a demand may run alongside any other."""

    @field_validator("data_each_run")
    @classmethod
    def _data_each_run(cls, v: str | None) -> str | None:
        return None if v is None else _pick(v, DATA_EACH_RUN, N_("data_each_run value"))

    @field_validator("runs_by_month")
    @classmethod
    def _runs(cls, v: tuple[float, ...] | None) -> tuple[float, ...] | None:
        if v is not None and (not v or any(not 0 <= r <= MAX_RUNS_PER_MONTH for r in v)):
            raise _Invalid(
                N_("list runs per month, each from 0 to {most:,}, e.g. [20, 2, 2]"), most=MAX_RUNS_PER_MONTH
            )
        return v

    @field_validator("hours_by_month")
    @classmethod
    def _hours(cls, v: tuple[float, ...] | None) -> tuple[float, ...] | None:
        if v is not None and (not v or any(h < 0 or h > HOURS_PER_MONTH for h in v)):
            raise _Invalid(
                N_("list hours per GPU per month, each between 0 and {hours:g}"), hours=HOURS_PER_MONTH
            )
        return v

    @model_validator(mode="after")
    def _one_kind(self) -> DemandSpec:
        direct = [
            k for k in ("gpu", "gpus", "hours_per_month", "hours_by_month") if getattr(self, k) is not None
        ]
        if self.workload is not None:
            if direct:
                raise _Invalid(
                    N_("give either workload (+ runs_per_month) or gpu/gpus/hours, not both ({field})"),
                    field=direct[0],
                )
            if self.gpus_per_run is not None:
                raise _Invalid(
                    N_("gpus_per_run goes with a direct demand; the planner sizes a workload's run")
                )
            if (self.runs_per_month is None) == (self.runs_by_month is None):
                raise _Invalid(
                    N_(
                        "a workload demand needs one of runs_per_month (e.g. 4; 1 for a service, whose run "
                        "is its month) or runs_by_month"
                    )
                )
            return self
        if self.data_each_run is not None:
            raise _Invalid(
                N_("data_each_run goes with workload; a direct demand has no data facts (GPU time only)")
            )
        if self.runs_per_month is not None or self.runs_by_month is not None:
            raise _Invalid(
                N_("{field} goes with workload; a direct demand gives gpu, gpus and hours"),
                field="runs_per_month" if self.runs_per_month is not None else "runs_by_month",
            )
        if self.gpu is None or self.gpus is None:
            raise _Invalid(N_("give workload + runs_per_month, or gpu, gpus and hours_per_month"))
        if (self.hours_per_month is None) == (self.hours_by_month is None):
            raise _Invalid(N_("give exactly one of hours_per_month or hours_by_month"))
        if self.gpus_per_run is not None and self.gpus % self.gpus_per_run:
            raise _Invalid(
                N_(
                    "gpus_per_run {run} does not divide gpus {gpus}: give gpus as a whole number of runs, "
                    "e.g. {fit}"
                ),
                run=self.gpus_per_run,
                gpus=self.gpus,
                fit=max(self.gpus_per_run, self.gpus - self.gpus % self.gpus_per_run),
            )
        if self.end_month is not None and self.end_month < self.start_month:
            raise _Invalid(
                N_("end_month {end} is before start_month {start}"),
                end=self.end_month,
                start=self.start_month,
            )
        return self


def _works(demand: DemandSpec) -> bool:
    """Whether ``demand`` asks for any hours at all: growth (above -100 %) never turns 0 into more."""
    pattern = (
        demand.hours_by_month
        or demand.runs_by_month
        or (demand.hours_per_month or 0.0, demand.runs_per_month or 0.0)
    )
    return max(pattern) > 0


class Usage(Spec):
    """A horizon of work to cover with commitments and hourly capacity."""

    horizon_months: int = Field(ge=1, le=120)
    start: str = "2027-01"
    """Calendar month of the horizon's first month, ``YYYY-MM`` (labels only: prices are today's)."""
    currency: str = "USD"
    """Report currency: USD or CNY (converted at the catalog's dated rate)."""
    past_horizon: str = "full"
    """``full``: a term running past the horizon is paid in full; ``remaining_value``: the months
    past the horizon are credited (the capacity keeps its value after the horizon)."""
    sensitivity_pct: float = Field(default=30.0, ge=0, lt=100)
    """The total is also priced with demand this much lower and higher, commitments fixed."""
    demands: tuple[DemandSpec, ...] = Field(max_length=MAX_DEMANDS)
    constraints: ConstraintsSpec = ConstraintsSpec()
    base_dir: str | None = None
    """Folder that workload paths are relative to (the usage file's folder when read from a file).
    Written in a file, it is a hint: it must lie inside the folder the user named."""
    _folder: Folder | None = PrivateAttr(default=None)
    _source: str = PrivateAttr(default="")

    @property
    def source(self) -> str:
        """The usage file it was read from, as given ("" for a mapping): the prefix of an error that
        one of its values gives later (a region that names a country), as its validation's errors carry."""
        return self._source

    @field_validator("start", mode="before")
    @classmethod
    def _month(cls, v: Any) -> str:
        text = v.isoformat()[:7] if hasattr(v, "isoformat") else str(v).strip()
        m = _MONTH.fullmatch(text)
        if not m or not 1 <= int(m.group(2)) <= 12:
            raise _Invalid(N_("write the first month as YYYY-MM, e.g. 2027-01 (got {got})"), got=repr(v))
        return text

    @field_validator("demands")
    @classmethod
    def _some(cls, v: tuple[DemandSpec, ...]) -> tuple[DemandSpec, ...]:
        if not v:
            raise _Invalid(N_("list at least one demand (a workload, or gpu + gpus + hours_per_month)"))
        return v

    @field_validator("currency")
    @classmethod
    def _currency(cls, v: str) -> str:
        # written as --currency takes it too (RMB, yuan, 人民币), not only its code
        said = Currency.aliases().get(v.strip().lower(), v)
        return _pick(said, ("usd", "cny"), N_("currency")).upper()

    @field_validator("past_horizon")
    @classmethod
    def _rule(cls, v: str) -> str:
        return _pick(v, PAST_HORIZON_RULES, N_("past_horizon rule"))

    @model_validator(mode="after")
    def _names_and_months(self) -> Usage:
        seen: set[str] = set()
        for i, d in enumerate(self.demands):
            if d.name in seen:
                raise _Invalid(
                    N_("demands[{i}].name: {name} is used twice; give each demand its own name"),
                    i=i,
                    name=repr(d.name),
                )
            seen.add(d.name)
            if d.start_month > self.horizon_months:
                raise _Invalid(
                    N_("demands[{i}].start_month: {start} is after the horizon ({horizon} months)"),
                    i=i,
                    start=d.start_month,
                    horizon=self.horizon_months,
                )
            # Compound growth over the months the demand runs, in logs: 1e300 % a month must not
            # overflow here, nor reach the optimiser as a number no forecast means.
            months = min(d.end_month or self.horizon_months, self.horizon_months) - d.start_month
            for field in ("hours_by_month", "runs_by_month"):
                listed = getattr(d, field)
                if listed is not None and len(listed) > months + 1:
                    # values past the demand's last month were silently never used
                    raise _Invalid(
                        N_(
                            "demands[{i}].{field} lists {n} months but the demand runs {months} of the "
                            "horizon; list at most {months} (a shorter list repeats)"
                        ),
                        i=i,
                        field=field,
                        n=len(listed),
                        months=months + 1,
                    )
            if months > 0 and months * math.log1p(d.growth_pct_per_month / 100.0) > math.log(MAX_GROWTH):
                raise _Invalid(
                    N_(
                        "demands[{i}].growth_pct_per_month: {pct:g} % a month for {months} months "
                        "multiplies the demand more than {limit:,}-fold; check the figure"
                    ),
                    i=i,
                    pct=d.growth_pct_per_month,
                    months=months,
                    limit=MAX_GROWTH,
                )
        if not any(_works(d) for d in self.demands):
            # A horizon with nothing to buy would be costed at 0 with "no saving" and break-even
            # lines: an answer to a question that asks nothing (a 0 typed for 730, a placeholder).
            raise _Invalid(
                N_(
                    "demands: every demand asks for 0 hours in every month; give hours_per_month "
                    "(or runs_per_month) above 0"
                )
            )
        return self

    def month_label(self, month: int) -> str:
        """``YYYY-MM`` of horizon month ``month`` (0-based)."""
        year, mon = int(self.start[:4]), int(self.start[5:7]) - 1 + month
        return f"{year + mon // 12:04d}-{mon % 12 + 1:02d}"

    @property
    def folder(self) -> Folder:
        """The folder the workload files named here must lie in (``gpuplan.confine``): the usage
        file's folder or ``--project DIR``; for a mapping, ``project`` or else ``base_dir``."""
        return self._folder or Folder(
            (Path(self.base_dir) if self.base_dir else Path.cwd()).resolve(), "base_dir"
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = "", *, project: str | Path | None = None) -> Usage:
        """Validate ``data``; ``project`` names the folder its workload files may lie in (else
        ``base_dir``, else the current directory)."""
        try:
            usage = cls.model_validate(data)
        except ValidationError as e:
            raise _worded_line(e, source) from None
        if project is not None:
            usage._folder = Folder.project(project)
        return usage

    @classmethod
    def from_yaml(cls, path: str | Path, *, project: str | Path | None = None) -> Usage:
        """Read a usage file; its workload files must lie in its folder, or in ``project`` (``--project
        DIR``) when given. A ``base_dir`` written in the file must lie there too."""
        from gpuplan.bounded import MAX_DOCUMENT_BYTES, load_yaml, read_text

        folder = Folder.of(path, project)
        p = Path(path)
        # Within bounds: a regular file (a FIFO would block), its size, YAML depth and aliases.
        text = read_text(p, what=N_("usage file"), max_bytes=MAX_DOCUMENT_BYTES)
        data = load_yaml(text, source=str(p))
        if not isinstance(data, dict):
            raise InputError.worded(
                N_("{path}: expected a mapping with horizon_months and demands (got {got})"),
                path=p,
                got=type(data).__name__,
            )
        if "demands" not in data and "horizon_months" not in data and "model" in data:
            # a workload file given where a usage file goes: its first key ("name") had been called
            # misplaced ("it belongs in demands:"), which sent the user to edit the wrong file
            raise InputError.worded(
                N_(
                    "{path} is a workload file (it has model:); tco takes a usage file: horizon_months "
                    "and demands, each naming a workload file (workload: {name}) and its runs or hours a "
                    "month; see examples/tco"
                ),
                path=p,
                name=p.name,
            )
        here = p.resolve().parent
        given = data.get("base_dir")
        base = folder.check(given, base=here, field="base_dir") if isinstance(given, str) else given or here
        usage = cls.from_dict(
            {**data, "base_dir": str(base) if isinstance(base, Path) else base}, source=str(p)
        )
        usage._folder = folder
        usage._source = str(p)
        return usage

    def direct_gpu_hours(self, demand: DemandSpec) -> tuple[float, ...]:
        """GPU-hours per month of a direct demand over the horizon."""
        pattern = demand.hours_by_month or (demand.hours_per_month or 0.0,)
        gpus = demand.gpus or 0  # validated: a direct demand has gpus
        # Index i counts months from the demand's own start, so a calendar starts where it does.
        return self.scaled(demand, [gpus * pattern[i % len(pattern)] for i in range(self.horizon_months)])

    def direct_busy_hours(self, demand: DemandSpec) -> tuple[float, ...]:
        """Hours of each month a direct demand's GPUs run (its pattern, 0 outside its months)."""
        pattern = demand.hours_by_month or (demand.hours_per_month or 0.0,)
        return self.active(demand, [pattern[i % len(pattern)] for i in range(self.horizon_months)])

    def active(self, demand: DemandSpec, base: list[float]) -> tuple[float, ...]:
        """``base`` per horizon month (counted from the demand's start), zero outside its months."""
        first = demand.start_month - 1
        last = (demand.end_month or self.horizon_months) - 1
        return tuple(base[m - first] if first <= m <= last else 0.0 for m in range(self.horizon_months))

    def runs(self, demand: DemandSpec) -> list[float]:
        """Runs of a workload demand in each month counted from its own start (before growth)."""
        pattern = demand.runs_by_month or (demand.runs_per_month or 0.0,)
        return [pattern[i % len(pattern)] for i in range(self.horizon_months)]

    def scaled(self, demand: DemandSpec, base: list[float]) -> tuple[float, ...]:
        """``base`` per horizon month, zero outside the demand's months and grown from its start."""
        first = demand.start_month - 1
        last = (demand.end_month or self.horizon_months) - 1
        growth = 1.0 + demand.growth_pct_per_month / 100.0
        return tuple(
            base[m - first] * growth ** (m - first) if first <= m <= last else 0.0
            for m in range(self.horizon_months)
        )


def load_usage(source: str | Path | dict[str, Any] | Usage, *, project: str | Path | None = None) -> Usage:
    """A Usage from a YAML path, a mapping, or a Usage (returned as is). ``project``: the folder its
    workload files may lie in (``--project DIR``; see :meth:`Usage.from_yaml`)."""
    if isinstance(source, Usage):
        return source
    if isinstance(source, dict):
        return Usage.from_dict(source, project=project)
    return Usage.from_yaml(source, project=project)
