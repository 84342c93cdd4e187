"""The tco document: what ``gpuplan tco --json`` writes (the writer is ``report/tco.py``).

Amounts are in USD, in fields that say so (``total_cost_usd``), rounded to the cent, whatever
``--currency`` shows; the document states the display currency and the CNY rate (the one CNY
prices were converted at and the table shows yuan at).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from gpuplan.documents.base import Count, Document, ExchangeRateDoc
from gpuplan.vocab import PricingModel

__all__ = [
    "TCO_SCHEMA_VERSION",
    "TcoBreakEvenBasis",
    "TcoBreakEvenPrice",
    "TcoBudget",
    "TcoCommitment",
    "TcoConsideredPrice",
    "TcoCountryCrossing",
    "TcoDataCopy",
    "TcoDemand",
    "TcoDocument",
    "TcoHourlyPrice",
    "TcoMonth",
    "TcoPeak",
    "TcoPriceUsed",
    "TcoSensitivity",
    "TcoSpotFallback",
    "TcoTier",
    "TcoUnknownPrice",
    "TcoWithStalePrices",
]

#: The tco document's schema version. 2: amounts in USD with ``_usd`` in their names (they were
#: in the display currency, unnamed), ``spot_overhead`` is ``spot_overhead_ratio``, and the
#: document states ``display_currency`` and ``exchange_rate``. 3: an hourly offer's ``use`` names
#: its demand (``GPU/on_demand/<demand>``) and its instances are paid whole
#: (``gpu_hours_paid_per_used``); ``break_even_utilisation`` counts a term as billed inside the
#: horizon; each commitment states ``contract_cost_usd`` and the document
#: ``past_horizon_credited_usd`` and ``break_even_by_gpu``. 4: the schedule and its total are solved
#: without spot prices not known to be current, the cheaper total they would give beside it
#: (``with_stale_spot``, which replaces ``without_stale_spot``: the total had rested on them). 5: the
#: same for commitment prices (monthly, reserved): ``with_stale_prices`` (which replaces
#: ``with_stale_spot``, its counts ``prices_used`` and ``prices_left_out``) counts stale spot and
#: commitment prices, names those it uses (``stale_prices``) and the commitments its cheaper total
#: would buy (``commitments``); the schedule had bought commitments at stale prices. And a service's
#: ``tiers[].hours_per_month`` are the hours each instance is billed, the start-ups and scale-down
#: delays of its day included (``start_up_hours_per_month`` of them); before, the hours it served
#: (the plan's document version 4). 6: a workload demand whose planner's cheapest option rests on
#: a spot or commitment price not known to be current (held out of the schedule) is sized on the
#: planner's best option on prices known to be current (``demands[].gpu`` and its hours may be
#: another GPU type's), the cheapest named in ``demands[].cheapest_not_current``; before, it was
#: sized on the cheapest and then priced at its GPU type's other prices. 7: ``against_budget_usd``, the total
#: against ``--budget``; and a workload demand is sized on prices known to be current wherever its
#: planner's cheapest rests on one that is not, an on-demand price too (``cheapest_not_current``);
#: before, an undated on-demand price sized it where spot was not allowed and not where it was.
TCO_SCHEMA_VERSION = 7


class DatedPrice(Document):
    """A catalog price a figure rests on: its date, its age on the day of the report, where it
    comes from (each price of a tco report carries these, whatever it is used for)."""

    as_of: str
    """The price's date as the catalog states it ("" when it states none)."""
    floor_as_of: str | None = None
    """A spot price of unknown age, or older than the staleness limit, costed at a dated one below
    it: that price's day (the figure is then the dated one); None when the offer's own price is used."""
    own_usd_per_gpu_hour: float | None = None
    """With ``floor_as_of``: the offer's own price per GPU-hour (the best case), of ``as_of``."""
    age_days: int | None
    """The oldest the price can be on the day of the report (from the earliest day ``as_of``
    allows), days; None when undated."""
    stale: bool
    """Not known to be within ``stale_after_days``: older, or of unknown age."""
    staleness: Literal["fresh", "stale", "unknown"]
    """Fresh even at its oldest, stale even at its youngest, or unknown (the date's bounds straddle
    the limit, or there is none)."""
    confidence: str
    price_source: str
    """Where the offer's price comes from, as the catalog states it (the publisher, the file and
    line; a price list of one's own by its file and line). With ``floor_as_of``, the figure costed
    is the dated price the notes name, not this one."""


class TcoMonth(Document):
    """One month of the horizon."""

    month: str
    """Calendar month, ``YYYY-MM``."""
    cost_usd: float
    cost_usd_by_pricing: dict[PricingModel, float]
    """The month's GPU time by pricing model, USD."""
    data_cost_usd: float
    """What the month's runs pay besides GPU time where they are placed (transfer, storage,
    licences), USD: ``cost_usd`` is it plus ``cost_usd_by_pricing``."""
    cash_usd: float | None = None
    """What is paid in the month, USD, where a reservation is paid all upfront: ``cost_usd`` with
    each such reservation's even share of its term taken out and its whole upfront payment put in
    the first month of its term (``gpuplan.report.tco_cash``); None where none is (a partial
    upfront's split is not published: the cost is then the only figure)."""


class TcoDataCopy(Document):
    """How a workload demand's dataset gets to a region its runs are placed in away from its
    data: moved in for every run, or one copy kept in the region's object storage, whichever
    costs less for the runs placed there (both figures, so that the choice can be checked)."""

    demand: str
    provider: str
    region: str
    choice: Literal["per_run", "kept_copy"]
    """Which of the two the total counts: the cheaper (a tie: ``per_run``)."""
    runs: float
    """The demand's runs placed in the region over the horizon."""
    first_month: str
    """``YYYY-MM``: the first month a run is placed there (when a copy would be moved in)."""
    per_run_transfer_usd: float
    """The dataset moved in for every one of those runs (every copy their disks need), USD."""
    kept_copy_usd: float
    """One copy moved in during ``first_month`` plus its storage from then to the horizon's end, USD
    (the region's object-storage price; an unknown one at the highest the catalog holds)."""
    copy_transfer_usd: float
    """The copy's transfer in, once, USD."""
    copy_storage_usd_per_month: float
    """The copy stored for one month, USD."""


class TcoCommitment(DatedPrice):
    """Units of one offer bought under one term at one start month."""

    provider: str
    region: str
    instance_type: str
    gpu: str
    gpus_per_unit: Count
    """GPUs in one unit bought (an instance; a fraction for a GPU partition)."""
    pricing: PricingModel
    units: int
    start_month: str
    """``YYYY-MM``."""
    term_months: int
    cost_usd: float
    """What these units cost over their term (as billed under ``past_horizon``), USD."""
    contract_cost_usd: float
    """What the contract for these units costs over its whole term, USD: ``cost_usd`` plus what
    ``past_horizon: remaining_value`` credits for its months after the horizon."""
    upfront: str | None = None
    """A reservation's payment option its price is the effective rate of (``partial``, ``all``);
    null for no upfront or another pricing model."""
    upfront_usd: float | None = None
    """All upfront: the cash the contract takes at the start of its term, USD; null otherwise
    (partial upfront: the split between upfront and hourly is not published)."""


class TcoBreakEvenBasis(Document):
    """The on-demand price a break-even utilisation is figured against:
    ``break_even = price_usd_per_gpu_hour of the commitment × term_factor / usd_per_gpu_hour_used``."""

    demand: str
    """The demand whose on-demand GPU-hour used is the cheapest of those the commitment may serve."""
    provider: str
    region: str
    instance_type: str
    price_usd_per_gpu_hour: float
    """The on-demand offer's price per GPU-hour, USD, as the prices used show it."""
    packing: float
    """Paid GPU-hours per GPU-hour used: the whole instances a run takes (1: none idle)."""
    billing: float
    """Billed hours per paid hour: each run's hours rounded up to the offer's billing step."""
    run_hours: float | None
    """One run's paid hours (work and checkpoint writes), where ``billing`` rounds them; else null."""
    usd_per_gpu_hour_used: float
    """``price_usd_per_gpu_hour × packing × billing``: what a GPU-hour of the demand's work costs on
    demand, the break-even's denominator."""
    term_factor: float
    """The commitment's months billed over the months of the horizon it serves (1 unless its term is
    longer than the horizon and paid whole)."""


class TcoBreakEvenPrice(DatedPrice):
    """The commitment offer a break-even utilisation is figured at, bought or not: a "pays off
    above this" or "never pays off" rests on its price, dated and sourced here."""

    gpu: str
    pricing: PricingModel
    provider: str
    region: str
    instance_type: str
    gpus_per_unit: Count
    term_months: int
    price_usd_per_gpu_hour: float
    """The commitment's price per GPU-hour (its monthly price / 730 / GPUs), USD."""
    break_even: float
    """``break_even_by_gpu[gpu][pricing]``: the share of its hours it must be busy to pay off."""
    on_demand: TcoBreakEvenBasis | None = None
    """The on-demand price the break-even is figured against, with what makes it up."""
    bought: bool
    """Whether the schedule commits to it (False: the verdict alone rests on it)."""
    """Where the offer's price comes from, as the catalog states it."""


class TcoSensitivity(Document):
    """The total with demand scaled, commitments fixed."""

    demand_change_pct: float
    total_cost_usd: float | None
    """None when the changed demand cannot be met (no on-demand price)."""


class TcoPriceUsed(DatedPrice):
    """A price a figure rests on, with its date and source."""

    provider: str
    region: str
    instance_type: str
    gpu: str
    pricing: PricingModel
    price_usd_per_gpu_hour: float
    interruptions_per_hour: float | None = None
    interruption_rate_assumed: bool | None = None
    interruption_rate_source: str | None = None


class TcoWithStalePrices(Document):
    """The cheaper schedule that spot and commitment prices not known to be current (older than the
    staleness limit or of unknown age) would give: spot prices move, and a commitment locks its
    price in for its term, so the document's schedule and total are solved without them and this
    total is shown beside it, as resting on prices that may have changed (check them before signing
    one of its ``commitments``)."""

    prices_used: int
    """Stale spot and commitment prices the cheaper schedule uses."""
    prices_left_out: int
    """Stale spot and commitment prices left out of the document's schedule."""
    total_cost_usd: float
    """The cheaper schedule's total; with ``needed``, the document's own."""
    savings_pct: float | None
    needed: bool = False
    """The demand cannot be met without them: the document's schedule and total use them."""
    stale_prices: list[TcoPriceUsed] = Field(default_factory=list)
    """The stale prices the cheaper schedule uses (``needed``: the document's own), with their dates."""
    prices: list[TcoPriceUsed] = Field(default_factory=list)
    """The prices that total buys at (hourly offers bought, commitments), with their dates (empty
    with ``needed``: the document's own)."""
    commitments: list[TcoCommitment] = Field(default_factory=list)
    """The commitments the cheaper schedule would buy (empty with ``needed``: the document's own)."""


class TcoTier(Document):
    """One step of a service's fleet and the hours a month its day needs it."""

    gpus: float
    """GPUs of the step: one instance of the plan's, as the autoscaler adds it."""
    hours_per_month: float
    """Hours a month the step is billed: those it serves, its start-ups and scale-down delays."""
    start_up_hours_per_month: float = Field(default=0.0, ge=0)
    """Of those, the hours it is billed without serving: started before it serves, kept before it
    is removed."""


class TcoCountryCrossing(Document):
    """A place where the schedule buys a demand's hours in another country than its data's or its
    users', as the plan's ``data_leaves_country`` says it of an option."""

    provider: str
    region: str
    from_countries: list[str]
    """ISO 3166 alpha-2 codes of where the data is: ``data.location``'s country where data moves,
    then a service's users' countries (``serving.users_in``)."""
    to_country: str
    """ISO 3166 alpha-2 code of the place's country, another than one of ``from_countries``: the
    data (the dataset in, the results back, the users' requests and the answers) leaves that one.
    Whether that is lawful is not judged: the rules of the countries involved say."""


class TcoDemand(Document):
    """How one demand was sized."""

    name: str
    gpu: str
    gpu_hours_total: float
    how: str
    tiers: list[TcoTier] = Field(default_factory=list)
    """A service priced as the fleet its day needs, a month (one run): each further step of GPUs and
    the hours it is needed, busiest first; empty where its GPUs are taken for all its hours (a
    job, or a service with no ``mean_requests_per_s`` below its peak)."""
    day_assumed: str = ""
    """How the service's day was taken, in words (its shape, mean and peak); "" without tiers."""
    cheapest_not_current: str | None = None
    """A workload demand whose planner's cheapest option rests on a price not known to be current
    (older than the staleness limit, or of unknown age), whatever its pricing model: that option
    (provider/region instance pricing), the demand having been sized on the planner's best option
    on prices known to be current instead (``how`` names both), as ``gpuplan plan`` shows it beside
    its recommendation. None: sized on the cheapest."""
    data_leaves_country: list[TcoCountryCrossing] = Field(default_factory=list)
    """The places the schedule buys the demand's hours in another country than its data's or its
    users', mainland China's border included; empty where it buys none there, or the countries are
    not known (a direct demand's, or ``data.location`` not given where data moves)."""


class TcoBudget(Document):
    """The total against what the user has for the horizon (``--budget``)."""

    budget_usd: float
    """The budget, USD (a yuan one converted at the catalog's dated rate, ``exchange_rate``)."""
    budget_cny: float | None = None
    """The budget as given in yuan (``--budget ¥1,200,000``), which ``budget_usd`` is at
    ``exchange_rate``; None: given in US dollars."""
    within: bool
    """``total_cost_usd`` is no more than the budget."""
    over_usd: float = Field(ge=0)
    """By how much the total is over the budget; 0 within it."""
    left_usd: float = Field(ge=0)
    """What the budget leaves after the total; 0 over it."""
    total_to_budget: float = Field(ge=0)
    """The total over the budget: 2.6 is 2.6 times what the user has."""
    within_without_spot: bool | None = None
    """Whether the total is within the budget if spot capacity cannot be had (``spot_fallbacks``);
    None where no spot is bought, or where a spot demand's fallback is unknown and what is known is
    within it."""


class TcoPeak(Document):
    """The most GPUs of one type needed at once over the horizon, against the commitments then."""

    gpu: str
    month: str
    """``YYYY-MM``: the first month with that load."""
    gpus_at_once: float
    """The demands running at once at the month's busiest hour (demands of a month are taken to run
    together unless their shifts differ)."""
    committed_gpus: float
    """GPUs the commitments keep in service that month."""
    hours_above_committed: float
    """Hours of that month the load is above the committed GPUs (bought by the hour), h."""


class TcoHourlyPrice(DatedPrice):
    """An hourly price a figure rests on: an offer the schedule buys for what commitments leave
    uncovered, or an on-demand one the all-on-demand total and the break-even are figured at."""

    use: str
    """``GPU/on_demand/<demand>`` or ``GPU/spot/<demand>``."""
    provider: str
    region: str
    instance_type: str
    pricing: PricingModel
    price_usd_per_gpu_hour: float
    spot_overhead_ratio: float | None
    """Paid spot hours per useful hour (checkpoints, lost work, restarts)."""
    gpu_hours_paid_per_used: float
    """Whole instances: GPU-hours paid per GPU-hour the demand's run uses (8 for a 1-GPU run on an
    8-GPU instance; 1 where the run fills its instances)."""
    bought: bool = True
    """Whether the schedule buys hours of it (False: an on-demand price the all-on-demand total
    and the break-even are figured at, while the schedule buys spot or commitments)."""
    interruptions_per_hour: float | None = None
    """Spot: interruptions per instance-hour costed (the band's upper bound, or the assumed rate);
    None for on-demand."""
    interruption_rate_assumed: bool | None = None
    """Spot: True when no published figure backs the rate (the provider publishes none, or the
    catalog holds no band for the offer); None for on-demand."""
    interruption_rate_source: str | None = None
    """Spot: where the rate comes from, or what was assumed and why; None for on-demand."""


class TcoConsideredPrice(TcoHourlyPrice):
    """An hourly price weighed for a demand and not bought (no figure rests on it), with why."""

    bought: bool = False
    why: str
    """Why it was not bought, in words (the report's language)."""


class TcoUnknownPrice(Document):
    """A pricing model the usage allows for a GPU demanded that has no usable price: whether it
    pays off is unknown (not "no")."""

    pricing: PricingModel
    gpu: str
    fill: str
    """What would fill it, in words."""


class TcoSpotFallback(Document):
    """A demand the schedule buys on spot, bought on demand instead (spot capacity not to be had)."""

    demand: str
    gpu: str | None
    """Its own GPU type where that has an on-demand price where it may run, else the GPU of the
    planner's cheapest on-demand option meeting its deadline (a workload demand); None: neither."""
    same_gpu: bool
    """True: its own GPU type on demand."""
    cost_usd: float | None
    """Its hours over the horizon on demand; None: unknown (no on-demand option)."""


class TcoDocument(Document):
    """The cheapest commitment schedule for a usage description, with its baseline and risks."""

    schema_version: Literal[7] = 7
    """:data:`TCO_SCHEMA_VERSION`."""
    horizon_months: int
    start: str
    """First month of the horizon, ``YYYY-MM``."""
    display_currency: Literal["USD", "CNY"]
    """The currency the table shows (``--currency``, else the usage file's); the fields stay USD."""
    exchange_rate: ExchangeRateDoc | None
    """The catalog's CNY rate; None when it has none."""
    past_horizon: Literal["full", "remaining_value"]
    hosts: Literal["provider"] | None = None
    """``provider``: only machines a provider runs were bought (``constraints.hosts``, ``--hosts``:
    community hosts and hosts of unknown kind left out, counted in ``notes``); null: any host (a
    workload demand's own ``constraints.hosts: provider`` still holds for its hours, its demand line
    says so)."""
    total_cost_usd: float
    stale_prices_in_total: int = 0
    """Prices the total buys at (hourly offers bought, commitments) that are stale or of unknown
    age. The schedule is solved without spot and commitment prices not known to be current; where
    those would make it cheaper, ``with_stale_prices.total_cost_usd`` is that total: the text's
    headline gives both."""
    gpus_without_current_price: list[str] = Field(default_factory=list)
    """GPU types demanded none of whose prices is known to be current (each stale or undated): the
    total rests on their prices, and on prices known to be current it is unknown, as the text's
    headline says ("on prices known to be current: unknown (none for …)"); empty where every GPU
    type has one."""
    data_cost_usd: float
    """The part of ``total_cost_usd`` that is not GPU time, USD (``data_cost_covers``)."""
    data_cost_covers: str
    """What ``data_cost_usd`` covers, in words (the report's language)."""
    data_costs_counted_for: list[str]
    """The demands whose data costs are counted (workload demands); a demand given in GPU-hours
    has no data facts: GPU time only."""
    data_copies: list[TcoDataCopy] = Field(default_factory=list)
    """Per workload demand and region its runs are placed in away from its data: whether its
    dataset is moved in for every run or kept in the region (both figures); empty when every run
    is placed with its data."""
    all_on_demand_cost_usd: float | None
    """Every GPU-hour at its demand's cheapest on-demand price per GPU-hour used (a run takes whole
    instances), with what its runs pay besides GPU time in that offer's region; None where a demand
    has none. A service priced by its tiers is its autoscaled fleet there too (``autoscaled_baseline``)."""
    on_demand_known_total_usd: float | None = None
    """``all_on_demand_cost_usd`` over the demands that have an on-demand price where they may run:
    the whole of it where every demand has one, a lower bound where ``on_demand_unpriced`` names
    some (their hours are never counted as 0); None where no demand has one."""
    on_demand_unpriced: list[str] = Field(default_factory=list)
    """The demands with no on-demand price where they may run (why ``all_on_demand_cost_usd`` is
    None)."""
    spot_fallbacks: list[TcoSpotFallback] = Field(default_factory=list)
    """Per demand the schedule buys spot hours of: what it costs if spot capacity cannot be had."""
    total_without_spot_usd: float | None = None
    """The total with every demand bought on spot on its fallback instead (commitments kept); None
    where no spot is bought or a fallback is unknown (``without_spot_at_least_usd``)."""
    without_spot_at_least_usd: float | None = None
    """Where a spot demand has no fallback: the total without spot of the rest, a lower bound of
    ``total_without_spot_usd``; None otherwise."""
    autoscaled_baseline: bool = False
    """The on-demand baseline holds a service priced by its tiers (``demands[].tiers``): the fleet
    its day needs, hour by hour, not its peak all month."""
    savings_pct: float | None
    past_horizon_cost_usd: float
    """Term months after the horizon that are still paid (included in ``total_cost_usd``)."""
    past_horizon_credited_usd: float
    """Term months after the horizon that ``past_horizon: remaining_value`` credits: paid under the
    contracts, left out of ``total_cost_usd`` (0 under ``full``)."""
    monthly: list[TcoMonth]
    commitments: list[TcoCommitment]
    break_even_utilisation: dict[PricingModel, float]
    """Per commitment pricing model: the share of a unit's hours inside the horizon it must be busy
    to beat on-demand, its term as billed (the lowest over the GPU types demanded)."""
    break_even_by_gpu: dict[str, dict[PricingModel, float]]
    """The same per GPU type demanded."""
    break_even_prices: list[TcoBreakEvenPrice] = Field(default_factory=list)
    """The commitment offer each of ``break_even_by_gpu`` is figured at, with its date and source."""
    sensitivity: list[TcoSensitivity]
    peaks: list[TcoPeak] = Field(default_factory=list)
    """Per GPU type demanded: its largest load at once and the committed GPUs against it."""
    with_stale_prices: TcoWithStalePrices | None = None
    """The total and saving spot and commitment prices not known to be current would give, left out
    of the schedule, and the commitments it would buy; None when the cheapest schedule uses none."""
    demands: list[TcoDemand]
    hourly_prices: list[TcoHourlyPrice]
    considered_prices: list[TcoConsideredPrice] = Field(default_factory=list)
    """Hourly prices weighed and not bought (a spot price dearer per useful hour than on demand,
    or one whose demand commitments serve): listed apart, as no figure rests on them."""
    unknown_prices: list[TcoUnknownPrice]
    """Pricing models whose saving is unknown for want of a price."""
    stale_after_days: int
    """The staleness limit prices are flagged against, days (``--stale-days``, default 180)."""
    against_budget_usd: TcoBudget | None = None
    """The total against ``--budget``, in US dollars; None: no budget given."""
    notes: list[str]
