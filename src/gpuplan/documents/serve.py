"""The documents ``gpuplan serve`` answers with besides the CLI's own (plan, estimate, offers …):
jobs, errors, the team's saved workloads and plans, budgets, price changes, discounts, audit.

Money is in USD, named so (``total_cost_usd``); unknown is null, never 0.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from gpuplan.documents.base import Document, ExchangeRateDoc

__all__ = [
    "BUDGET_SCHEMA_VERSION",
    "JOB_SCHEMA_VERSION",
    "PRICE_CHANGES_SCHEMA_VERSION",
    "SERVE_SCHEMA_VERSION",
    "AuditDocument",
    "AuditItem",
    "BudgetDocument",
    "CountriesDocument",
    "CountryItem",
    "DiscountItem",
    "DiscountsDocument",
    "ErrorDocument",
    "ErrorKind",
    "HealthDocument",
    "JobDocument",
    "PriceChangeItem",
    "PriceChangesDocument",
    "SavedPlanItem",
    "SavedPlansDocument",
    "TeamBudgetItem",
    "WorkloadVersionItem",
    "WorkloadsDocument",
    "YearBudgetDocument",
    "YearMonthItem",
]

#: The schema version of the service's documents but the budget's, the job's and the price
#: changes', which have their own.
SERVE_SCHEMA_VERSION = 1
#: The budget document's schema version. 2: a budget is compared in the currency it was given in
#: (``currency``): ``used_pct`` and the notes count in yuan for a budget given in yuan; ``planned_usd``
#: (the document's and each team's) may be null (a yuan budget and no CNY rate to state it in
#: dollars), as may ``budget_usd`` of a budget that is set; the yuan figures (``planned_cny``,
#: ``remaining_cny``, ``teams_budget_cny``, ``over_allocated_cny``) and the one rate they convert
#: at (``exchange_rate``) are added. 3: beside the planned spend, the spend on prices known to be
#: current (``planned_current_usd``, ``planned_current_cny``, the document's and each team's): a plan
#: whose recommended option rests on a price older than the staleness limit or undated is counted
#: there at its own best option on prices known to be current; ``stale_price_plans`` and
#: ``unknown_current_cost_plans`` count those plans and those with no such option; each plan item
#: says the same (``prices_current_when_planned``, ``current_option``, ``current_month_cost_usd``,
#: ``current_month_cost_cny``), and ``notes`` gives both figures. Added within 3:
#: ``display_currency`` (the document's and each team's), the currency its amounts are shown in;
#: the year's figures (``year_budget_usd``, ``year_planned_usd``, ``year_remaining_usd`` and their
#: ``_cny``, the document's and each team's); the year's own document (:class:`YearBudgetDocument`).
BUDGET_SCHEMA_VERSION = 3
#: The job document's schema version. 2: a job its owner or an admin cancels ends ``cancelled``
#: (``error`` saying who cancelled it), no longer ``failed``; ``failed`` is a job that could not
#: finish (refused, past its time limit, its process stopped).
JOB_SCHEMA_VERSION = 2
#: The price changes document's schema version. 2: each plan's figures in yuan too, for a team that
#: budgets in yuan (``then_cny`` at the rate the plan was priced at, ``then_usd_per_cny``;
#: ``now_cny``, ``best_now_cny`` at ``exchange_rate``, the catalog's newest; ``change_cny_pct``).
#: 3: only the caller's team's plans (an admin's: the team asked, or every plan), each with its
#: ``team`` and the ``currency`` of the budget it counts in.
PRICE_CHANGES_SCHEMA_VERSION = 3


#: What kind of refusal an :class:`ErrorDocument` is, one for each answer a client may act on, each
#: with its one HTTP status: ``invalid_request`` 400 (a value, key or body refused, by the request's
#: schema or by a check of the value: ``field`` names the value where one is at fault),
#: ``unauthorized`` 401 (no token, or an unknown, revoked or expired one), ``forbidden`` 403 (the
#: token's scope, or another team's workload or plan), ``not_found`` 404 (nothing at the address: a
#: job, a saved plan, a discount to remove, a page), ``method_not_allowed`` 405, ``too_large`` 413
#: (the body), ``infeasible`` 422 (a valid request that nothing meets: no option fits the
#: constraints), ``cannot_estimate`` 422 (a valid request whose workload cannot be traced or
#: estimated), ``rate_limited`` 429 (too many requests this minute: wait ``Retry-After``),
#: ``unavailable`` 503 (the database does not answer), ``internal_error`` 500 (a fault of the
#: service's own). Stable: a kind is never renamed; a new one may be added.
ErrorKind = Literal[
    "invalid_request",
    "unauthorized",
    "forbidden",
    "not_found",
    "method_not_allowed",
    "too_large",
    "infeasible",
    "cannot_estimate",
    "rate_limited",
    "unavailable",
    "internal_error",
]


class ErrorDocument(Document):
    """What every refused request gets: one line, in the request's language, and its kind."""

    schema_version: int = SERVE_SCHEMA_VERSION
    error: str
    """What is wrong and how to fix it."""
    kind: ErrorKind
    """What kind of refusal it is, for a client to act on (one HTTP status each; 422 has two):
    ``invalid_request`` 400, ``unauthorized`` 401, ``forbidden`` 403, ``not_found`` 404,
    ``method_not_allowed`` 405, ``too_large`` 413, ``infeasible`` 422 (nothing meets the
    constraints), ``cannot_estimate`` 422 (the workload cannot be traced or estimated),
    ``rate_limited`` 429, ``unavailable`` 503 (the database), ``internal_error`` 500. Stable: a
    kind is never renamed; a new one may be added."""
    field: str | None = None
    """For a request refused (400, ``invalid_request``) for one of its values or keys, whoever
    refused it (the request's schema or a check of the value): that value's field or parameter as the
    request names it (``max_price``, ``deadline``, ``count``, ``slo``, ``workload.inputs.batch_size``,
    ``workload.model.python``, ``hf_config_json``, ``usage.constraints.providers``, ``job_id``; a
    list's item by its index, ``gpus[0]``, ``policies[1]``; a misspelt key by its own path,
    ``workload.constraints.deadlin``; ``workload`` or ``usage`` for a check of the whole); None
    otherwise."""
    message: str | None = None
    """For every request refused as invalid (400, ``invalid_request``): for one of its values, what
    is wrong with it, without the field's path that ``error`` begins with (a form names the field by
    its own label), the whole line where its words name the field (``slo 'ttft_p95=soon': write
    …``); for a request refused with no value named (a body that is not JSON or not UTF-8, a check
    of the whole request), the same line as ``error``. None for every other kind."""


class HealthDocument(Document):
    schema_version: int = SERVE_SCHEMA_VERSION
    status: Literal["ok", "unavailable"]
    database: str
    """The catalog's database kind (``sqlite``, ``postgresql``); ``not checked`` from ``/live``."""
    reachable: bool | None = None
    """Whether the database answered; null from ``/live`` (which does not ask it)."""
    database_url: str | None = None
    """Where the catalog lives (password hidden): only for a token of the admin scope."""
    schema_revision: str | None
    version: str


class JobDocument(Document):
    """A background job (tracing, planning, simulating): poll it, or follow ``events``; its owner's
    (the token that queued it) or an admin's to read."""

    schema_version: int = JOB_SCHEMA_VERSION
    """:data:`JOB_SCHEMA_VERSION`."""
    job_id: str
    kind: str
    status: Literal["queued", "running", "done", "failed", "cancelled"]
    """``done``: ``result`` holds its document; ``failed``: ``error`` says why; ``cancelled``: its
    owner or an admin cancelled it, ``error`` says who."""
    progress: float
    """0 to 1."""
    message: str
    created_by: str
    created_at: str
    started_at: str | None
    finished_at: str | None
    attempts: int
    """How many workers started it (more than 1: a worker stopped and another took it over)."""
    error: str | None
    """Why a ``failed`` job failed, who cancelled a ``cancelled`` one; else None."""
    result: dict[str, Any] | None
    """The finished job's document (plan, estimate, simulate-autoscale)."""
    href: str
    """Where to poll it; ``href + "/events"`` streams it (server-sent events)."""


class WorkloadVersionItem(Document):
    name: str
    version: int
    spec: dict[str, Any]
    saved_by: str
    saved_at: str
    team: str | None = None
    """The team that owns the workload: the team of the token that first saved it. Only its tokens
    (and admins) save new versions of it or plan it. None: no team (saved by a token of no team, or
    before workloads had teams): any token of the plan scope saves and plans it."""


class WorkloadsDocument(Document):
    schema_version: int = SERVE_SCHEMA_VERSION
    workloads: list[WorkloadVersionItem]
    """Newest version first within each name."""
    unchanged: bool | None = None
    """For a save: true when the workload sent is its newest version's already, which is the one
    listed (no version added; answered 200, not 201); false when it was kept as a new version.
    None in a listing."""


class MonthBreakdown(Document):
    """A saved plan's month by part (``month_cost_usd`` = ``runs_usd`` + ``commitment_usd`` +
    ``data_kept_usd``), each in yuan too at the plan's rate (None without one)."""

    runs_usd: float
    """What the runs pay one by one: GPU time bought by the hour, and each run's storage, results
    back, spot overhead and, where no copy is kept, its dataset moved in."""
    runs_cny: float | None = None
    commitment_usd: float
    """A committed option's instances the runs need at once, a month each, paid once; 0 otherwise."""
    commitment_cny: float | None = None
    commitment_units: int = 0
    data_kept: bool = False
    """The dataset is copied into the option's region once and kept there the month."""
    data_kept_usd: float | None = None
    """That copy: moved in once and stored the month; None where the dataset is moved in each run."""
    data_kept_cny: float | None = None
    data_each_run_usd: float | None = None
    """What moving the dataset in for each run costs the month, where a copy could be kept (the
    figure the copy is compared with: the cheaper is counted); None where none could."""
    data_each_run_cny: float | None = None


class SavedPlanItem(Document):
    id: int
    workload: str
    workload_version: int
    month: str
    """YYYY-MM the spend is planned for."""
    status: Literal["planned", "cancelled", "replaced"]
    """planned: counted in its month's spend; cancelled; replaced: the workload was planned again for
    the month since, and the newer plan is counted in its place."""
    total_cost_usd: float | None
    """The recommended option's all-in cost when it was planned: one run of the workload."""
    total_cost_cny: float | None = None
    """``total_cost_usd`` in yuan at the rate ``month_cost_cny`` is at; None: cost unknown, or no rate."""
    runs_per_month: int = 1
    """How many times the workload runs in the month (1 for a plan saved without saying)."""
    month_cost_usd: float | None = None
    """What the plan puts against a month's budget given in US dollars: its runs as ``gpuplan tco``
    counts them (``month_breakdown``). A committed option (monthly, reserved) is paid once a month
    for the instances the runs need at once, the runs' other charges run by run; a dataset moved
    into the option's region is moved in once and kept in its object storage where that costs the
    month less than moving it in for each run (``document.recommended.data_copy``). Otherwise
    ``total_cost_usd`` × ``runs_per_month``."""
    month_cost_cny: float | None = None
    """``month_cost_usd`` in yuan at ``usd_per_cny``, the CNY rate the plan was priced at (prices kept
    in yuan were converted to dollars at it, so this gives them back as they were), or at the
    catalog's newest rate for a plan that recorded none: what the plan puts against a month's
    budget given in yuan. None: cost unknown, or no rate."""
    month_breakdown: MonthBreakdown | None = None
    """``month_cost_usd`` by part; None: cost unknown."""
    month_note: str | None = None
    """The month by part in words, in the budget document's ``display_currency`` (a plan just saved
    or a listing's: the currency its plan was shown in), in the
    reader's language: ``30 runs: ¥X run by run + ¥Y commitment once (…) + ¥Z dataset copied in once
    and kept …``; None where the month is the run's cost × its runs."""
    usd_per_cny: float | None = None
    """The CNY rate (US dollars per yuan) the plan was priced at, from its document; None: none."""
    cost_basis: Literal["autoscaled_day", "peak_fleet"] | None = None
    """A service's month cost: ``autoscaled_day``, the fleet its day needs (its start-ups included),
    with ``peak_fleet_month_cost_usd`` beside it; ``peak_fleet``, its peak fleet all month (also
    every service of a plan saved before plan document version 3). None: a job, priced by its runs."""
    peak_fleet_month_cost_usd: float | None = None
    """With ``autoscaled_day``: the month's cost with the peak fleet all month, the bound where the
    autoscaler does not scale down as assumed; None otherwise."""
    cost_basis_words: str = ""
    """What ``month_cost_usd`` is for a service, in the reader's language, its amount in the
    currency ``month_note`` is in; "" for a job."""
    storage_basis: Literal["launch_disk", "stored_bytes"] | None = None
    """What the plan's storage prices: ``launch_disk``, each instance's disk at the size ``deploy``
    launches it with (plan document version 6 on); ``stored_bytes``, the bytes it stores alone (a
    plan saved before version 6, whose storage is lower than the same plan's today). None: the
    stored document states no version."""
    storage_basis_words: str = ""
    """For ``stored_bytes``, that it priced the bytes stored and that planning it again prices the
    launch disk, in the reader's language; "" otherwise."""
    team: str | None = None
    """The team of the token that saved it (its spend counts in that team's budget and the whole
    service's); None: no team (the whole service's only)."""
    recommended: str | None
    """provider/region/instance × nodes, pricing."""
    prices_as_of: str | None
    """The date of the recommended option's price when it was planned (``gpuplan offers``' ``as_of``)."""
    prices_age_days: int | None = None
    """How old that price is today: days since the earliest day ``prices_as_of`` allows; None when
    undated."""
    prices_staleness: Literal["fresh", "stale", "unknown"] | None = None
    """That price against the catalog's staleness limit today, as ``gpuplan offers`` judges an
    offer's: fresh even at its oldest, stale even at its youngest, or unknown (the date's bounds
    straddle the limit, or there is none)."""
    prices_current_when_planned: bool = True
    """Whether the recommended option's price was known to be within the staleness limit when the
    plan was made (``prices_staleness`` judges it today); false: older, or undated (or a plan whose
    document does not say)."""
    current_option: str | None = None
    """Where it was not: the plan's own best option on prices known to be current then (its
    document's ``without_stale_prices.option``), as ``recommended`` names one; None otherwise, or
    where no feasible option had such a price."""
    current_month_cost_usd: float | None = None
    """What the plan puts against its month on prices known to be current: ``month_cost_usd`` where
    the recommended price was known current; else ``current_option``'s month, counted as
    ``month_cost_usd`` is (its runs, a commitment and a kept data copy shared). None: unknown (no
    such option, or the cost unknown). The budget's ``planned_current_usd`` adds these up."""
    current_month_cost_cny: float | None = None
    """``current_month_cost_usd`` in yuan at the rate ``month_cost_cny`` is at; None: unknown, or no rate."""
    catalog_import_id: int | None
    created_by: str
    created_at: str
    constraints: dict[str, Any]
    document: dict[str, Any] | None = None
    """The plan document as it was (only when one plan is asked for)."""
    budget_notes: list[str] = Field(default_factory=list)
    """For a plan just saved: each budget it counts in (its team's, the whole service's; the
    month's, then the year's) that the planned spend, this plan's included, is over, by how much,
    in the saver's language (the year's: each month's as its month's document counts it). Not a
    refusal: the plan is kept. Empty when none is over, and in a listing."""


class SavedPlansDocument(Document):
    schema_version: int = SERVE_SCHEMA_VERSION
    plans: list[SavedPlanItem]


class _BudgetVersion(Document):
    """What a budget document (a month's, a year's) carries first, as every document does: its
    schema version. A base of its own, so that a document whose other bases add fields (a month's
    :class:`_YearFigures`) still carries it first (a model's fields follow its bases' order)."""

    schema_version: int = BUDGET_SCHEMA_VERSION
    """:data:`BUDGET_SCHEMA_VERSION`."""


class _YearFigures(Document):
    """A month's budget figures' year (:class:`BudgetDocument`'s, a team's line's): the year's budget
    (``PUT /api/v1/budget/YYYY``) and the planned spend of its months so far."""

    year_budget_usd: float | None = None
    """The year's budget: the team's, or the whole service's, as the month's is; None: none set."""
    year_budget_cny: float | None = None
    """The year's budget as given in yuan; None: given in US dollars, or none set."""
    year_planned_usd: float | None = None
    """The year's planned spend so far: each month's planned spend as its month's document
    counts it, added, in the year's budget's currency (the month's ``display_currency`` where the
    year has none); None (unknown, never 0) where not one plan's cost is known."""
    year_planned_cny: float | None = None
    """The same in yuan, where the year is counted in yuan; None otherwise."""
    year_remaining_usd: float | None = None
    """The year's budget less ``year_planned_usd``; None with no year's budget or an unknown spend."""
    year_remaining_cny: float | None = None
    """The same in yuan, where the year's budget is in yuan; None otherwise."""


class TeamBudgetItem(_YearFigures):
    """One team's budget and planned spend in the whole service's budget document, compared in the
    currency the team's budget was given in (as :class:`BudgetDocument`'s)."""

    team: str
    currency: Literal["USD", "CNY"] | None = None
    """The currency the team's budget was given in; None: no budget set for the team this month."""
    display_currency: Literal["USD", "CNY"] = "USD"
    """The currency the team's figures are shown in (as :class:`BudgetDocument`'s)."""
    budget_usd: float | None
    """None: no budget set for the team this month."""
    budget_cny: float | None = None
    planned_usd: float | None
    """The team's planned plans, each plan's month (``SavedPlanItem.month_cost_usd``), where known."""
    planned_cny: float | None = None
    planned_current_usd: float | None = None
    """The team's planned spend on prices known to be current (``BudgetDocument.planned_current_usd``;
    None: no plan of the team's had a known-current cost)."""
    planned_current_cny: float | None = None
    stale_price_plans: int = 0
    unknown_current_cost_plans: int = 0
    unknown_cost_plans: int
    remaining_usd: float | None
    remaining_cny: float | None = None
    used_pct: float | None


class BudgetDocument(_YearFigures, _BudgetVersion):
    """A month's budget and the spend the team's saved plans put against it.

    The budget is compared in the currency it was given in (``currency``). One given in US dollars
    is compared with the plans' costs in dollars (``month_cost_usd``). One given in yuan is
    compared with the plans' costs in yuan (``month_cost_cny``: each plan's dollars at the CNY rate
    it was priced at, which gives prices kept in yuan back as they were), so that neither the
    budget nor the spend moves when the rate does; its dollar figures are the yuan ones at one
    rate, the catalog's newest (``exchange_rate``)."""

    # fields in the order of the bases, reversed: schema_version (_BudgetVersion), the year's, its own

    month: str
    currency: Literal["USD", "CNY"] | None = None
    """The currency the budget was given in, which ``used_pct`` and the notes count in; None: no
    budget."""
    display_currency: Literal["USD", "CNY"] = "USD"
    """The currency the document's amounts are shown in (the notes, each plan's ``month_note`` and
    ``cost_basis_words``): the budget's; with no budget, yuan where every team's budget beside it
    and every plan counted is in yuan (each plan made in yuan: ``display_currency`` CNY in its
    document), the yuan figures then given as for a budget in yuan; else US dollars, which every
    plan was priced in."""
    budget_usd: float | None
    """None: no budget set for the month (or one in yuan, and no CNY rate to state it in dollars)."""
    budget_cny: float | None = None
    """The budget as given in yuan; None: given in US dollars, or no budget."""
    planned_usd: float | None
    """Sum of the month's planned plans whose cost is known, each plan's month
    (``SavedPlanItem.month_cost_usd``: its ``runs_per_month`` runs, 1 unless the plan said
    otherwise, sharing a commitment and a kept data copy as ``gpuplan tco`` does). Cancelled plans
    are not counted, nor replaced ones: a workload planned again for the month counts once, at its
    newest plan. None (unknown, never 0) where there are plans and not one's cost is known; 0 with
    no plans. For a budget in yuan: ``planned_cny`` at ``exchange_rate``."""
    planned_cny: float | None = None
    """For a budget in yuan, or none with ``display_currency`` CNY: the same sum of the plans'
    ``month_cost_cny`` (None where no plan's is known); None otherwise."""
    planned_current_usd: float | None = None
    """The same plans on prices known to be current: each plan's ``current_month_cost_usd`` where
    known — a plan whose recommended option rests on a price older than the staleness limit or
    undated at its own best option on prices known to be current, the others at their
    ``month_cost_usd``. The figure a team can count on; ``notes`` says both. Partial where a plan
    had no such option (``unknown_current_cost_plans``; ``notes`` names them); None (unknown, never
    0) where no plan had one. Each plan's option is as of when it was saved: ``notes`` says where a
    price import came since (``GET /api/v1/price-changes`` prices them on today's catalog). For a
    budget in yuan: ``planned_current_cny`` at ``exchange_rate``."""
    planned_current_cny: float | None = None
    """For a budget in yuan: the same sum of the plans' ``current_month_cost_cny`` (None where no
    plan's is known); None otherwise."""
    stale_price_plans: int = 0
    """Planned plans whose recommended option rests on a price not known to be current when planned."""
    unknown_current_cost_plans: int = 0
    """Planned plans not counted in ``planned_current_usd`` (no option on prices known to be
    current, or the cost unknown): it may be more."""
    unknown_cost_plans: int
    """Planned plans whose cost is unknown, not counted in ``planned_usd`` (so it may be more)."""
    remaining_usd: float | None
    """The budget less ``planned_usd``: at most this where ``unknown_cost_plans`` are not counted;
    None with no budget or where the planned spend is unknown."""
    remaining_cny: float | None = None
    """For a budget in yuan: ``budget_cny`` − ``planned_cny``; None otherwise."""
    used_pct: float | None
    """The planned spend in per cent of the budget, both in the budget's ``currency``; None with no
    budget or where the planned spend is unknown."""
    note: str | None
    set_by: str | None
    set_at: str | None
    plans: list[SavedPlanItem]
    team: str | None = None
    """The team whose budget and plans these are; None: the whole service's (every team's plans)."""
    teams: list[TeamBudgetItem] = Field(default_factory=list)
    """For the whole service: each team with a budget or planned plans in the month, its budget and
    spend (the service's budget is its own, not the sum of the teams'); empty for one team's."""
    teams_budget_usd: float | None = None
    """The sum of every team's budget of the month, added in the whole service's budget's currency
    (US dollars when it has none; a team's in the other currency at ``exchange_rate``), in the
    whole service's document and in a team's; None: no team has one."""
    teams_budget_cny: float | None = None
    """The same sum in yuan, where the service's budget or a team's is in yuan; None otherwise."""
    over_allocated_usd: float | None = None
    """By how much ``teams_budget_usd`` exceeds the whole service's budget of the month: the teams
    were promised more than the service holds (allowed: not every team spends its budget, and
    ``notes`` says so); None when it does not, or the service has no budget."""
    over_allocated_cny: float | None = None
    """The same in yuan, where ``teams_budget_cny`` is given."""
    notes: list[str] = Field(default_factory=list)
    """What the reader should know about the budgets, in their language: the planned spend over
    this budget and its year's over the year's budget (and, in the whole service's, each team's
    month and year over the team's), by how much, in the budget's currency (none where the
    planned spend is unknown); an over-allocation."""
    exchange_rate: ExchangeRateDoc | None = None
    """The one CNY rate the document converts at where the currencies mix: the catalog's newest."""


class YearMonthItem(Document):
    """One month of a year's budget document: its planned spend as its month's document counts it."""

    month: str
    planned_usd: float | None
    """None: not one of the month's plans' cost is known (or, counted in yuan, no CNY rate)."""
    planned_cny: float | None = None
    """Where the year is counted in yuan: the month's planned spend in yuan; None otherwise."""
    unknown_cost_plans: int


class YearBudgetDocument(_BudgetVersion):
    """A year's budget (``GET``/``PUT /api/v1/budget/YYYY``), the whole service's or a team's, and
    the planned spend of the year's months so far, each month's as its month's
    :class:`BudgetDocument` counts it, added in the year's budget's currency."""

    year: str
    team: str | None = None
    """The team whose budget and plans these are; None: the whole service's (every team's plans)."""
    currency: Literal["USD", "CNY"] | None = None
    """The currency the year's budget was given in; None: no budget set for the year."""
    display_currency: Literal["USD", "CNY"] = "USD"
    """The currency the figures are counted in: the budget's; with none, yuan where every plan is."""
    budget_usd: float | None
    budget_cny: float | None = None
    planned_usd: float | None
    """The months' planned spend added (each as ``BudgetDocument.planned_usd``); None (unknown,
    never 0) where there are plans and not one's cost is known; 0 with no plans."""
    planned_cny: float | None = None
    unknown_cost_plans: int
    """Planned plans of the year whose cost is unknown, not counted (so the spend may be more)."""
    remaining_usd: float | None
    remaining_cny: float | None = None
    used_pct: float | None
    months: list[YearMonthItem] = Field(default_factory=list)
    """Each month of the year with planned plans, in order."""
    note: str | None
    set_by: str | None
    set_at: str | None
    notes: list[str] = Field(default_factory=list)
    """The planned spend over the year's budget, by how much, in its currency."""
    exchange_rate: ExchangeRateDoc | None = None
    """The one CNY rate the document converts at where the currencies mix: the catalog's newest."""


class PriceChangeItem(Document):
    plan_id: int
    workload: str
    month: str
    recommended: str | None
    then_usd: float | None
    then_as_of: str | None
    then_age_days: int | None = None
    """How old the price the plan rests on is today, days (as ``SavedPlanItem.prices_age_days``)."""
    then_staleness: Literal["fresh", "stale", "unknown"] | None = None
    """That price against the catalog's staleness limit today (as ``SavedPlanItem.prices_staleness``)."""
    now_usd: float | None
    """The same option (provider, region, instance, nodes, pricing) priced on today's catalog;
    None when it is no longer offered or its price is unknown."""
    change_pct: float | None
    """(now − then) / then × 100; positive = dearer."""
    best_now_usd: float | None
    """Today's recommended option for the same workload version and constraints."""
    best_now: str | None
    note: str | None
    then_cny: float | None = None
    """``then_usd`` in yuan as a yuan budget counts the plan: at the CNY rate the plan was priced at
    (``then_usd_per_cny``), which gives prices kept in yuan back as they were; None: its cost or
    every rate unknown."""
    then_usd_per_cny: float | None = None
    """The rate ``then_cny`` is at: the plan's own, else the document's ``exchange_rate``."""
    now_cny: float | None = None
    """``now_usd`` in yuan at the document's ``exchange_rate`` (today's price at today's rate)."""
    change_cny_pct: float | None = None
    """(now_cny − then_cny) / then_cny × 100: the change a yuan budget sees, the rate's move
    included; positive = dearer."""
    best_now_cny: float | None = None
    """``best_now_usd`` in yuan at the document's ``exchange_rate``."""
    team: str | None = None
    """The plan's team; None: a plan of no team."""
    currency: Literal["USD", "CNY"] = "USD"
    """The currency of the budget the plan counts in: its team's budget for its month (a plan of no
    team: the whole service's), CNY for one given in yuan; USD where none is set. A client shows
    the plan's figures in it (the ``_cny`` ones at the rates they name)."""


class PriceChangesDocument(Document):
    schema_version: int = PRICE_CHANGES_SCHEMA_VERSION
    """:data:`PRICE_CHANGES_SCHEMA_VERSION`."""
    checked_at: str
    plans: list[PriceChangeItem]
    """The planned saved plans, newest first: the caller's team's (a token of no team: those of no
    team); an admin's, those of the team asked, or every plan."""
    exchange_rate: ExchangeRateDoc | None = None
    """The catalog's newest CNY rate, today's yuan figures are at; None: the catalog has none."""


class DiscountItem(Document):
    provider: str
    family: str
    """Instance family, or "" for every family of the provider."""
    percent: float
    set_at: str
    pricing: list[str]
    """The pricing models it is taken off (``on_demand``, ``spot``, ``monthly``, ``reserved_1y``,
    ``reserved_3y``); a price of another model is not discounted by it."""
    note: str


class DiscountsDocument(Document):
    schema_version: int = SERVE_SCHEMA_VERSION
    discounts: list[DiscountItem]


class CountryItem(Document):
    country: str
    """ISO 3166 alpha-2 code."""
    name: str
    """Its ISO 3166 name in the request's language."""
    latitude: float | None
    """Of the country's first time zone's city (IANA zone.tab); None when unknown."""
    longitude: float | None
    offers: int
    """Offers with a known price in the country."""
    cheapest_usd_per_gpu_hour: float | None
    cheapest: str | None
    """provider/region/instance of the cheapest."""


class CountriesDocument(Document):
    """The offers explorer's map: offers and the cheapest GPU-hour per country."""

    schema_version: int = SERVE_SCHEMA_VERSION
    map_source: str | None
    """Where the dots' coordinates come from; None when no zone.tab was found (no map)."""
    countries: list[CountryItem]


class AuditItem(Document):
    id: int
    at: str
    actor: str
    action: str
    target: str
    details: dict[str, Any]


class AuditDocument(Document):
    schema_version: int = SERVE_SCHEMA_VERSION
    entries: list[AuditItem]
