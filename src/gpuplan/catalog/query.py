"""Browse the catalog: filter, convert, collapse to the cheapest region, sort (``gpuplan offers``,
``gpuplan gpus``). Pure functions over :class:`OfferPrice` rows; the store does the SQL.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from gpuplan.catalog.family_gaps import FAMILY_GAPS, FamilyGap
from gpuplan.catalog.gpu_hour import (
    NO_ON_DEMAND_OFFER,
    ON_DEMAND_LOW_CONFIDENCE,
    ON_DEMAND_UNPRICED,
    GpuHourPrice,
)
from gpuplan.catalog.model import (
    HOURS_PER_MONTH,
    RATE_STALE_AFTER_DAYS,
    Currency,
    DatedFloor,
    ExchangeRate,
    OfferPrice,
    PricingModel,
)
from gpuplan.catalog.providers import PROVIDERS, provider_runs
from gpuplan.catalog.rates import converted_currencies
from gpuplan.catalog.region_countries import region_country
from gpuplan.catalog.store import Store
from gpuplan.catalog.upfront import with_upfront
from gpuplan.catalog.wording import did_you_mean
from gpuplan.errors import DataError, InputError, NotFoundError, closest
from gpuplan.i18n import N_, Money
from gpuplan.i18n.phrases import item_list, listed
from gpuplan.vocab import Choice, HostRule, pricing_name

__all__ = [
    "OfferListing",
    "OfferQuery",
    "OfferView",
    "SortKey",
    "cheapest_by_gpu",
    "display_money",
    "list_offers",
    "offer_view",
    "on_demand_gpu_hours",
]


class SortKey(Choice):
    """Orders of ``gpuplan offers``."""

    PRICE = "price"
    PRICE_PER_GPU = "price_per_gpu"
    GPU_MEMORY = "gpu_memory"

    @classmethod
    def kind(cls) -> str:
        return "sort key"

    @classmethod
    def shown(cls) -> tuple[str, ...]:
        # as --help writes them (price-per-gpu); both spellings are accepted
        return tuple(v.replace("_", "-") for v in cls.values())


@dataclass(frozen=True, kw_only=True)
class OfferQuery:
    """What ``gpuplan offers`` asks for. Names are validated when the query runs."""

    gpu: str | tuple[str, ...] | None = None
    """One GPU name or several (an offer of any of them)."""
    count: int | None = None
    min_gpu_memory_gib: float | None = None
    provider: str | tuple[str, ...] | None = None
    """One provider code or several."""
    region: str | tuple[str, ...] | None = None
    """One region name or several."""
    countries: tuple[str, ...] | None = None
    """Countries the offers' regions may be in, as the user wrote them (ISO code, name or ``EU``);
    a region whose country is unknown is in none of them (left out, and counted)."""
    pricing: str | tuple[str, ...] | None = None
    """One pricing model or several (each model's rows listed, as for one)."""
    max_price_per_hour: float | None = None
    """In ``currency`` per instance-hour; offers with an unknown price are left out (and counted)."""
    currency: str = "USD"
    sort: str = "price"
    all_regions: bool = False
    """False: keep the cheapest region per provider, instance type and pricing model."""
    include_unpriced: bool = True
    allow_low_confidence: bool = True
    """False: leave out prices labelled low-confidence (the source articles' 2024 tables), as plans
    and tco do by default, and count them (:attr:`OfferListing.low_confidence_left_out`)."""
    upfront: str | None = None
    """How much of a reservation is paid upfront (``none``, ``partial``, ``all``): reserved prices
    are listed at that option's effective rate where their term carries it, as plans cost them
    (:mod:`gpuplan.catalog.upfront`); None: no upfront."""
    hosts: str | None = None
    """Which hosts the offers may be on (:class:`gpuplan.vocab.HostRule`, as a plan's ``hosts``):
    ``provider`` leaves out a community host and a host whose kind its provider does not state (and
    counts them: :attr:`OfferListing.hosts_left_out`); ``any`` or None: every host."""


@dataclass(frozen=True, kw_only=True)
class OfferView:
    """One listed offer with its price in the display currency."""

    offer: OfferPrice
    price_per_hour: float | None
    """Per instance-hour in the display currency; None when unknown or not convertible."""
    price_per_gpu_hour: float | None
    regions_compared: int
    """How many regions were compared to pick this one (its zones among them; 1 with ``all_regions``)."""
    floor: DatedFloor | None = None
    """The dated spot price plans cost this undated one at, where it stands above it
    (:meth:`OfferPrice.dated_floor_usd_per_hour`); the listing picks and sorts by that price."""
    ranked_per_hour: float | None = None
    """What the listing picks the cheapest region and sorts by: ``price_per_hour``, or the floor's
    in the display currency where there is one."""

    @property
    def ranked_per_gpu_hour(self) -> float | None:
        return self.ranked_per_hour / self.offer.gpu_count if self.ranked_per_hour is not None else None


@dataclass(frozen=True, kw_only=True)
class OfferListing:
    """The answer to an :class:`OfferQuery`."""

    views: tuple[OfferView, ...]
    currency: str
    """Display currency code."""
    rates: tuple[ExchangeRate, ...]
    """The exchange rates used (non-USD), dated and sourced."""
    hidden_unknown_price: int
    hidden_costed: int = 0
    """Offers ``max_price_per_hour`` left out at what plans cost them (a dated floor above the cap)
    though their own figure is within it."""
    """Offers left out by ``max_price_per_hour`` because their price is unknown."""
    unconvertible: int
    """Priced offers whose price cannot be shown in the display currency (no exchange rate)."""
    cny_rate: ExchangeRate | None = None
    """The catalog's CNY rate (whatever the display currency), for documents that give both USD
    and CNY figures; None when it has none."""
    country_unknown: tuple[str, ...] = ()
    """``provider/region`` of the offers ``countries`` left out because their region's country is
    not known (a marketplace declared without ``--country``, a source naming no region): they are
    in none of the countries asked for, and the listing says so rather than dropping them unsaid."""
    empty_reason: str | None = None
    """Why a listing for one pricing model is empty: what the catalog's sources lack (None when it
    is not empty, or no pricing model was asked)."""
    low_confidence_left_out: int = 0
    """Low-confidence prices the query asked for left out (``allow_low_confidence`` False)."""
    hosts_left_out: int = 0
    """Prices on a community host or a host of unknown kind left out by ``hosts: provider``."""


def _display(offer: OfferPrice, currency: Currency, rate: ExchangeRate | None) -> float | None:
    """Per-hour price of ``offer`` in ``currency`` (native amount when it is already in it)."""
    if offer.price is None or offer.currency is None:
        return None
    if offer.currency == currency.code:
        native = offer.price / HOURS_PER_MONTH if offer.unit == "month" else offer.price
        # The user's negotiated discount applies to the native amount as to the USD figure.
        return native * (1 - offer.discount_percent / 100) if offer.discount_percent else native
    if offer.price_usd_per_hour is None:
        return None
    if currency is Currency.USD:
        return offer.price_usd_per_hour
    return offer.price_usd_per_hour / rate.usd_per_unit if rate else None


def display_money(store: Store, currency: str | Currency) -> Money:
    """How to show USD amounts in ``currency``: at the store's latest dated rate (DataError if none)."""
    code = Currency.cast(currency).code
    if code == "USD":
        return Money.usd()
    rate = store.exchange_rate(code)
    return Money.from_rate(
        code,
        usd_per_unit=rate.usd_per_unit,
        as_of=rate.as_of,
        source=rate.source,
        age_days=rate.age_days,
        stale_after_days=RATE_STALE_AFTER_DAYS,
    )


def _names(value: str | tuple[str, ...] | None) -> tuple[str, ...]:
    """A filter's names: none, one or several."""
    if value is None:
        return ()
    return (value,) if isinstance(value, str) else tuple(value)


def _one(value: str | tuple[str, ...] | None) -> str | None:
    """A filter's name where it names exactly one, else None."""
    names = _names(value)
    return names[0] if len(names) == 1 else None


def _refuse_region(store: Store, region: str, providers: tuple[str, ...], known: list[str]) -> None:
    """Why ``region`` has no offer of ``providers``: a region of another provider is named as one
    (``us-east1`` asked of AWS is GCP's, where "did you mean 'us-east-1'" alone had hidden that),
    else "unknown region" with the nearest known."""
    from gpuplan.catalog.region_aliases import refuse_region_alias

    refuse_region_alias(region, store)
    owners = [] if not providers else [p for p in PROVIDERS if region in store.regions(p)]
    if owners:
        near = closest(region, known)
        raise InputError.worded(
            N_("region {region} is a region of {owners}, not of {provider}{suggest}"),
            region=region,
            owners=listed(owners),
            provider=listed(providers),
            suggest=did_you_mean(near),
        )
    from gpuplan.catalog.region_countries import (
        refuse_city_as_region,
        refuse_country_as_region,
        refuse_unheld_region,
        region_suggestions,
    )

    # a region of a provider the catalog holds no offer in, a city, a country: each said so
    refuse_unheld_region(region, store)
    refuse_country_as_region(region, store)
    refuse_city_as_region(region, store)
    raise NotFoundError(
        "region", region, region_suggestions(known), hint=N_("`gpuplan offers --all-regions` lists them")
    )


def list_offers(store: Store, query: OfferQuery) -> OfferListing:
    """Run ``query`` against ``store``."""
    currency = Currency.cast(query.currency)
    sort = SortKey.cast(query.sort)
    models = tuple(dict.fromkeys(PricingModel.cast(p).value for p in _names(query.pricing)))
    # "China", "中国", "CN" all mean CN; "EU" its member states; a typo is refused with "did you mean"
    allowed = _country_codes(query.countries) if query.countries else None
    rate = store.exchange_rate(currency.code) if currency is not Currency.USD else None  # raises with the fix
    # every pricing model asked for (a repeated --pricing had kept the last), in one read
    rows = with_upfront(
        store.offers(
            gpu=query.gpu,
            count=query.count,
            min_gpu_memory_gib=query.min_gpu_memory_gib,
            provider=query.provider,
            region=query.region,
            pricing=models or None,
            include_unpriced=query.include_unpriced,
        ),
        query.upfront,
    )
    if query.include_unpriced:
        for model in models:
            rows += _taken_out(store, query, model, rows)
    low_left_out = 0
    if not query.allow_low_confidence:
        kept_rows = [r for r in rows if r.confidence != "low"]
        low_left_out, rows = len(rows) - len(kept_rows), kept_rows
    hosts_left_out = 0
    if query.hosts is not None and HostRule.cast(query.hosts) is HostRule.PROVIDER:
        # as a plan's hosts: provider leaves them out (unknown is never taken for the best case)
        kept_rows = [r for r in rows if provider_runs(r.provider, r.instance_type, r.region)]
        hosts_left_out, rows = len(rows) - len(kept_rows), kept_rows
    regions = _names(query.region)
    if regions and (not rows or len(regions) > 1):
        # every region named is checked: of two, a mistyped one had left the other's offers alone
        providers = _names(query.provider)
        known = sorted({r for p in providers for r in store.regions(p)}) if providers else store.regions()
        for region in regions:
            if region not in known:
                _refuse_region(store, region, providers, known)
    unplaced: tuple[str, ...] = ()
    elsewhere: list[str] = []
    if allowed is not None:
        found = rows
        rows, unplaced = _in_countries(rows, allowed)
        if found and not rows:
            elsewhere = sorted({c for c in (region_country(r.provider, r.region) for r in found) if c})
    views = [offer_view(r, currency, rate) for r in rows]
    unconvertible = sum(1 for v in views if v.offer.price is not None and v.price_per_hour is None)
    if not query.all_regions:
        views = _cheapest_region(views)
    hidden = costed_out = 0
    # The rates that converted a price shown, or a price --max-price compared and left out (its
    # rate decided that): a listing of USD prices names no CNY rate.
    used = converted_currencies((v.offer for v in views if v.price_per_hour is not None), currency.code)
    if query.max_price_per_hour is not None:
        if not (math.isfinite(query.max_price_per_hour) and query.max_price_per_hour > 0):
            raise DataError.worded(
                N_("--max-price must be a positive number, got {got}"), got=repr(query.max_price_per_hour)
            )
        kept = []
        for v in views:
            if v.ranked_per_hour is None:
                hidden += 1
            elif v.ranked_per_hour <= query.max_price_per_hour:
                kept.append(v)
            elif v.price_per_hour is not None and v.price_per_hour <= query.max_price_per_hour:
                costed_out += 1
        views = kept
    views.sort(key=_sort_key(sort))
    rates = tuple(r for r in (store.find_exchange_rate(c) for c in sorted(used)) if r is not None)
    return OfferListing(
        views=tuple(views),
        currency=currency.code,
        rates=rates,
        hidden_unknown_price=hidden,
        hidden_costed=costed_out,
        unconvertible=unconvertible,
        cny_rate=store.find_exchange_rate("CNY"),
        country_unknown=unplaced,
        # rows left out as low-confidence, or by --hosts, are no lack of the sources: their notes say so
        empty_reason=None
        if rows or low_left_out or hosts_left_out
        else _country_reason(query, elsewhere) or _empty_reasons(store, query, models),
        low_confidence_left_out=low_left_out,
        hosts_left_out=hosts_left_out,
    )


def _country_codes(countries: Sequence[str]) -> frozenset[str]:
    """The ISO codes ``countries`` are written for (NotFoundError with "did you mean" on a typo)."""
    from gpuplan.catalog.region_countries import country_codes_of

    return frozenset(code for c in countries for code in country_codes_of(c))


def _country_reason(query: OfferQuery, elsewhere: list[str]) -> str | None:
    """Why ``--countries`` left no offer: the countries the catalog has them in (None where it has
    them in no known country; the listing's unknown-country line says the rest)."""
    if not elsewhere:
        return None
    from gpuplan.i18n import _

    return _("none in {countries}; the catalog has these offers in {elsewhere}").format(
        countries=item_list(query.countries or ()), elsewhere=item_list(elsewhere)
    )


def _in_countries(
    rows: list[OfferPrice], allowed: frozenset[str]
) -> tuple[list[OfferPrice], tuple[str, ...]]:
    """The rows whose region is in a country of ``allowed``, and the ``provider/region`` of those
    left out because their region's country is unknown: unknown is never taken for a match, as the
    planner's countries constraint does not take it (plan/candidates.py)."""
    countries: dict[tuple[str, str], str] = {}
    kept: list[OfferPrice] = []
    unknown: set[str] = set()
    for r in rows:
        where = (r.provider, r.region)
        if where not in countries:
            countries[where] = region_country(r.provider, r.region)
        if countries[where] in allowed:
            kept.append(r)
        elif not countries[where]:
            unknown.add(f"{r.provider}/{r.region}")
    return kept, tuple(sorted(unknown))


def _taken_out(store: Store, query: OfferQuery, pricing: str, rows: Sequence[OfferPrice]) -> list[OfferPrice]:
    """The offers ``query`` asks for whose ``pricing`` price the snapshot took out of its source
    (``skipped.csv``) while keeping the offer, each as a row of that pricing model with its price
    unknown and the reason: as a row whose every price was taken out is listed, not left out of
    the listing as if the offer were not sold that way."""
    from gpuplan.catalog.price_reasons import taken_out_prices

    keys = taken_out_prices().get(pricing, {})
    asked_providers, asked_regions = set(_names(query.provider)), set(_names(query.region))
    providers = sorted({k[0] for k in keys if not asked_providers or k[0] in asked_providers})
    regions = sorted({k[2] for k in keys if not asked_regions or k[2] in asked_regions})
    types = sorted({k[1] for k in keys if k[0] in providers and k[2] in regions})
    if not providers or not regions or not types:
        return []
    have = {(o.provider, o.region, o.zone, o.instance_type) for o in rows}
    out: list[OfferPrice] = []
    for o in store.offers(
        gpu=query.gpu,
        count=query.count,
        min_gpu_memory_gib=query.min_gpu_memory_gib,
        provider=tuple(providers),
        region=tuple(regions),
        include_unpriced=True,
        instance_type=types,
    ):
        reason = keys.get((o.provider, o.instance_type, o.region, o.zone))
        offer = (o.provider, o.region, o.zone, o.instance_type)
        if reason is None or offer in have:
            continue
        have.add(offer)
        out.append(o.without_price(pricing, reason))
    return out


def _empty_reasons(store: Store, query: OfferQuery, models: tuple[str, ...]) -> str | None:
    """:func:`_empty_reason` for each pricing model asked for (none: for any), in one line."""
    said = [r for r in (_empty_reason(store, query, m) for m in models or (None,)) if r]
    return "; ".join(dict.fromkeys(said)) or None


def _empty_reason(store: Store, query: OfferQuery, pricing: str | None) -> str | None:
    """Why a listing is empty: no offer of the GPU asked for in the catalog at all (or none from the
    provider asked for), or none of its offers with a ``pricing`` price; with the notes on the
    prices its sources lack of the instance families that carry that GPU, in the reader's language.
    None when neither applies (no pricing model asked, and the provider lists the GPU)."""
    from gpuplan.i18n import _, ngettext

    gpu_names = [_gpu_named(g) for g in _names(query.gpu)]
    gpu = item_list(gpu_names) if gpu_names else None
    anywhere = store.offers(gpu=query.gpu, include_unpriced=True) if gpu is not None else []
    if gpu is not None and not anywhere:
        lead = _(
            "no offer of {gpu} in the catalog: none of the price sources it ships lists one; `gpuplan "
            "catalog import` takes a price list of your own (a quote) for it"
        ).format(gpu=gpu)
        return _("; ").join([lead, *_gap_notes(g for g in FAMILY_GAPS if set(gpu_names) & set(g.gpus))])
    sellers = sorted({o.provider for o in anywhere})
    providers = _names(query.provider)
    if gpu is not None and providers and not set(providers) & set(sellers):
        return _("no offer of {gpu} from {provider} in the catalog; it lists {gpu} from {providers}").format(
            gpu=gpu, provider=item_list(providers), providers=item_list(sellers)
        )
    regions = _names(query.region)
    if regions:
        # the region asked for has none: say where the catalog does have one, rather than that no
        # source publishes it anywhere
        others = sorted(
            {
                o.region
                for o in store.offers(
                    gpu=query.gpu,
                    count=query.count,
                    min_gpu_memory_gib=query.min_gpu_memory_gib,
                    provider=query.provider,
                    pricing=pricing,
                )
            }
            - set(regions)
        )
        if others:
            shown = item_list(others[:_REGIONS_NAMED]) + (" …" if len(others) > _REGIONS_NAMED else "")
            return ngettext(
                "none in {region}; the catalog has these offers in {n} other region: {regions} (leave "
                "out --region to list them)",
                "none in {region}; the catalog has these offers in {n} other regions: {regions} (leave "
                "out --region to list them)",
                len(others),
            ).format(region=item_list(regions), n=len(others), regions=shown)
    if pricing is None:
        return None
    # The instance types the notes speak for: those that carry the GPU (and count, memory) asked
    # for, of the provider asked for, whatever their prices; every family when nothing narrows it.
    narrowed = gpu is not None or query.count is not None or query.min_gpu_memory_gib is not None
    carried = (
        {
            (o.provider, o.instance_type)
            for o in store.offers(
                gpu=query.gpu,
                count=query.count,
                min_gpu_memory_gib=query.min_gpu_memory_gib,
                provider=query.provider,
                include_unpriced=True,
            )
        }
        if narrowed
        else None
    )
    gaps = (
        g
        for g in FAMILY_GAPS
        if pricing in g.lacks
        and (not providers or g.provider in providers)
        and (carried is None or g.applies(carried))
    )
    where = item_list(providers) if providers else _("any provider")
    lead = (
        _(
            "no {pricing} price of {gpu} from {where} in the catalog: its sources publish none; `gpuplan "
            "catalog refresh` reads a provider's own price list where it publishes one"
        ).format(pricing=pricing_name(pricing), gpu=gpu, where=where)
        if gpu is not None
        else _(
            "no {pricing} price of {where} in the catalog: its sources publish none; `gpuplan catalog "
            "refresh` reads a provider's own price list where it publishes one"
        ).format(pricing=pricing_name(pricing), where=where)
    )
    return _("; ").join([lead, *_gap_notes(gaps)])


#: Regions an empty listing names where the offers asked for are (the rest counted).
_REGIONS_NAMED = 8


def _gpu_named(name: str) -> str:
    """The canonical id of a GPU name, or the name as typed where it names a family (``a100``)."""
    from gpuplan.hardware import resolve_gpu

    try:
        return resolve_gpu(name).id
    except NotFoundError:
        return name


def _gap_notes(gaps: Iterable[FamilyGap]) -> list[str]:
    """The snapshot's notes on these families' missing prices, in the reader's language."""
    from gpuplan.i18n import _

    return [
        _("{provider} {family}: {reason}").format(provider=g.provider, family=_(g.family), reason=_(g.reason))
        for g in gaps
    ]


def offer_view(r: OfferPrice, currency: Currency, rate: ExchangeRate | None) -> OfferView:
    """One offer as a listing shows it: its price in ``currency`` and what plans cost it at."""
    price = _display(r, currency, rate)
    floor = r.dated_floor_usd_per_hour() if price is not None else None
    ranked = price
    if floor is not None:  # a USD figure, shown in the display currency
        ranked = (
            floor.usd_per_hour
            if currency is Currency.USD
            else floor.usd_per_hour / rate.usd_per_unit
            if rate
            else None
        )
    return _trusted_view(
        offer=r,
        price_per_hour=price,
        price_per_gpu_hour=price / r.gpu_count if price is not None else None,
        regions_compared=1,
        floor=floor,
        ranked_per_hour=ranked,
    )


def _trusted_view(**fields: Any) -> OfferView:
    """``OfferView(**fields)`` for every field, built without the frozen dataclass's ``__init__``
    (one ``object.__setattr__`` per field), as :func:`~gpuplan.catalog.model.trusted_offer_price`
    builds the rows: half the time of a listing's 8,000 views. The keyword arguments' dict becomes
    the view's ``__dict__``; ``tests/catalog/test_listing_speedups.py`` holds every view of the
    shipped catalog equal to the one ``OfferView(**vars(view))`` builds."""
    view = object.__new__(OfferView)
    object.__setattr__(view, "__dict__", fields)
    return view


def _cheapest_region(views: Sequence[OfferView]) -> list[OfferView]:
    """Per (provider, instance type, pricing): the cheapest region/zone; unknown prices last."""
    groups: dict[tuple[str, str, str | None], list[OfferView]] = {}
    for v in views:
        groups.setdefault((v.offer.provider, v.offer.instance_type, v.offer.pricing), []).append(v)
    out = []
    for group in groups.values():
        # By what plans cost each at: a spot price undated or older than the staleness limit, held
        # to its GPU's dated floor, is not the cheapest region for its missing or old date.
        best = min(group, key=lambda v: (v.ranked_per_hour is None, v.ranked_per_hour or 0.0, v.offer.region))
        # regions, not rows: one region's zones are one region ("cheapest of 2 regions" had been two
        # zones of one region the user had asked for); and of a known price, the regions whose price
        # is known: a region whose price was taken out of the source was not compared
        compared = (
            [v for v in group if v.ranked_per_hour is not None] if best.ranked_per_hour is not None else group
        )
        out.append(replace(best, regions_compared=len({v.offer.region for v in compared})))
    return out


def _sort_key(sort: SortKey) -> Callable[[OfferView], tuple[Any, ...]]:
    def price_key(v: OfferView) -> tuple[Any, ...]:
        value = v.ranked_per_gpu_hour if sort is SortKey.PRICE_PER_GPU else v.ranked_per_hour
        return (value is None, value or 0.0, v.offer.provider, v.offer.instance_type)

    if sort is SortKey.GPU_MEMORY:
        from gpuplan.hardware import get_gpu  # lazy: only this order reads the GPUs' memory

        # Most total GPU memory first; the cheaper one first among equals.
        return lambda v: (-get_gpu(v.offer.gpu).memory_gib * v.offer.gpu_count, *price_key(v))
    return price_key


def on_demand_gpu_hours(offers: Iterable[OfferPrice]) -> dict[str, GpuHourPrice]:
    """Every GPU ``offers`` hold -> its lowest on-demand USD per GPU-hour (as
    :func:`cheapest_by_gpu` takes it) with the offer's provider, region, date and age; the price
    None, with the reason, where none of its offers has a usable on-demand price."""
    offers = list(offers)
    cheapest = cheapest_by_gpu(offers)
    on_demand: dict[str, list[OfferPrice]] = {}
    for o in offers:
        if o.pricing == PricingModel.ON_DEMAND.value:
            on_demand.setdefault(o.gpu, []).append(o)
    out: dict[str, GpuHourPrice] = {}
    for o in offers:
        if o.gpu in out:
            continue
        best = cheapest.get(o.gpu, {}).get(PricingModel.ON_DEMAND.value)
        if best is not None:
            out[o.gpu] = GpuHourPrice.of_offer(best)
            continue
        own = on_demand.get(o.gpu, [])
        if not own:
            reason = NO_ON_DEMAND_OFFER
        elif any(x.conservative_usd_per_gpu_hour() is not None for x in own):
            reason = ON_DEMAND_LOW_CONFIDENCE  # priced, but every price is one cheapest_by_gpu skips
        else:
            reason = ON_DEMAND_UNPRICED
        out[o.gpu] = GpuHourPrice.unknown(o.gpu, reason)
    return out


def cheapest_by_gpu(offers: Iterable[OfferPrice]) -> dict[str, dict[str, OfferPrice]]:
    """GPU id -> pricing model -> the offer with the lowest USD price per GPU-hour, each at
    :meth:`OfferPrice.conservative_usd_per_gpu_hour` (a spot price undated or older than the
    staleness limit, below the dated floor it is held to, at that floor — what a plan and a fleet
    are costed at, so a "cheapest" figure is never one that planning would not use).

    Low-confidence prices (the source articles' 2024 tables) never count as "cheapest": a marketing
    figure must not set the reference price of a GPU. ``offers`` still lists them, labelled.
    """

    best: dict[str, dict[str, tuple[float, OfferPrice]]] = {}
    for o in offers:
        here = o.conservative_usd_per_gpu_hour()
        if o.pricing is None or here is None or o.confidence == "low":
            continue
        per = best.setdefault(o.gpu, {})
        if o.pricing not in per or here < per[o.pricing][0]:
            per[o.pricing] = (here, o)
    return {gpu: {p: o for p, (_, o) in per.items()} for gpu, per in best.items()}
