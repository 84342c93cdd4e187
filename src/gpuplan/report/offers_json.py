"""The ``offers --json`` listing written without the document models.

``gpuplan offers --json --all-regions`` writes the whole market (8,000 offers): importing pydantic and
building a model per offer would cost more than the rest of the command. This module holds the
document's field logic as plain dicts (:mod:`gpuplan.report.catalog` builds its models from the
same dicts), and ``tests/cli/test_catalog_cli.py`` checks that the text is byte for byte the
document model's JSON (:class:`gpuplan.documents.catalog.OffersDocument`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import cache
from typing import Any

from gpuplan.catalog.model import HOURS_PER_MONTH, RATE_STALE_AFTER_DAYS, DatedFloor, ExchangeRate, OfferPrice
from gpuplan.catalog.providers import host_kind
from gpuplan.catalog.query import OfferListing, OfferView
from gpuplan.catalog.rates import rate_warning
from gpuplan.catalog.spot_bands import offer_bands
from gpuplan.i18n import N_

__all__ = [
    "CHUNK_OFFERS",
    "OFFER_ITEM_FIELDS",
    "costed_band",
    "interruption_reason",
    "offer_items",
    "offer_prices",
    "offers_json_bytes",
    "offers_json_chunks",
    "offers_json_text",
    "price_fields",
    "rate_fields",
    "spot_bands",
    "spot_rate_reason",
]

#: :class:`gpuplan.documents.catalog.OfferItem`'s fields in declaration order, the order its JSON
#: is written in (a test holds the two equal).
OFFER_ITEM_FIELDS = (
    "provider", "region", "zone", "instance_type", "host_kind", "gpu", "gpu_count", "vcpus", "memory_gib",
    "network_gbps", "interconnect", "pricing", "published_currency", "published_unit",
    "price_usd_per_hour", "price_usd_per_gpu_hour", "price_cny_per_hour", "price_cny_per_gpu_hour",
    "price_usd_per_month", "price_cny_per_month", "list_price_usd_per_hour", "discount_percent",
    "as_of", "source", "confidence", "interruption_band", "interruption_reason", "interruption_bands",
    "billing_granularity_s",
    "min_billing_s", "term", "compliance", "compliance_claimed", "stale", "price_reason", "as_of_precision",
    "age_days", "age_min_days", "age_bound_launch", "staleness", "stale_after_days", "priced_on",
    "network_kind", "local_nvme_gb", "fetched_at", "floor", "regions_compared",
)  # fmt: skip


#: Why a spot offer of a provider gpuplan has no module for carries no interruption band.
_NO_PROVIDER_NOTE = N_("the catalog holds no interruption band for this offer and no word from its provider")


def interruption_reason(o: OfferPrice) -> str | None:
    """Why a spot offer's interruption rate is unknown: what its provider publishes about the rate
    (the wording a plan states beside the rate it assumes), in English (a message: translate it
    where shown); None for an offer with a band, or not a spot price."""
    if o.pricing != "spot" or o.interruption_band is not None:
        return None
    return spot_rate_reason(o.provider)


def spot_bands(o: OfferPrice) -> tuple[tuple[str, str, bool], ...]:
    """Where the catalog's sources disagree on a spot offer's band: each (band, source, costed),
    the band plan costs (the worst) first; () where they agree, or for a price that is not spot."""
    if o.pricing != "spot":
        return ()
    return offer_bands(o.interruption_band, o.term, o.source, o.as_of)


def costed_band(o: OfferPrice) -> str | None:
    """The interruption band plan costs a spot offer at: the worst of the catalog's sources where
    they disagree (:func:`spot_bands`), else the offer's own; None where it has none."""
    bands = spot_bands(o)
    return bands[0][0] if bands else o.interruption_band


@cache
def spot_rate_reason(provider: str) -> str:
    """Why a spot offer of ``provider`` without a band has an unknown interruption rate (English)."""
    from gpuplan.catalog.providers import spot_rate_note  # the provider modules: on first need only

    return spot_rate_note(provider) or _NO_PROVIDER_NOTE


def rate_fields(rate: ExchangeRate | None) -> dict[str, Any] | None:
    """A catalog rate as the documents state it (:class:`gpuplan.documents.base.ExchangeRateDoc`'s
    fields, in its order); None stays None."""
    if rate is None:
        return None
    return {
        "currency": rate.currency,
        "usd_per_unit": rate.usd_per_unit,
        "units_per_usd": 1.0 / rate.usd_per_unit,
        "as_of": rate.as_of,
        "source": rate.source,
        "age_days": rate.age_days,
        "stale": rate.stale,
        "stale_after_days": RATE_STALE_AFTER_DAYS,
        "warning": rate_warning(rate),
    }


def _term_doc(term: dict[str, Any] | None, currency: str | None) -> dict[str, Any] | None:
    # Providers store a prepaid total in the price's own currency under one name; the document
    # names the currency (prepaid_total_cny).
    if not term or "prepaid_total" not in term or not currency:
        return term
    out = {k: v for k, v in term.items() if k != "prepaid_total"}
    out[f"prepaid_total_{currency.lower()}"] = term["prepaid_total"]
    return out


def price_fields(
    *,
    amount: float | None,
    currency: str | None,
    unit: str | None,
    usd_per_hour: float | None,
    discount_percent: float | None,
    cny: ExchangeRate | None,
) -> dict[str, float | None]:
    """The ``price_{usd,cny}_per_{hour,month}`` fields of one published price (``amount`` in
    ``currency`` per ``unit``; ``usd_per_hour`` as the catalog converted it, after the discount).
    A price published in CNY keeps its exact amount in CNY; the other currency is converted at
    ``cny``; the ``_per_month`` fields are for prices published per month only."""
    usd_h, cny_h, usd_month, cny_month = _figures(amount, currency, unit, usd_per_hour, discount_percent, cny)
    return {
        "price_usd_per_hour": usd_h,
        "price_cny_per_hour": cny_h,
        "price_usd_per_month": usd_month,
        "price_cny_per_month": cny_month,
    }


_Figures = tuple[float | None, float | None, float | None, float | None]


def _figures(
    amount: float | None,
    currency: str | None,
    unit: str | None,
    usd_per_hour: float | None,
    discount_percent: float | None,
    cny: ExchangeRate | None,
) -> _Figures:
    """:func:`price_fields`' values in its order (USD and CNY per hour, USD and CNY per month), for
    the listing's 8,000 rows without a dict and keyword arguments each."""
    share = 1 - discount_percent / 100 if discount_percent else 1.0
    monthly = unit == "month"
    cny_h: float | None = None
    if currency == "CNY" and amount is not None:
        cny_h = amount * share / (HOURS_PER_MONTH if monthly else 1.0)
    elif usd_per_hour is not None and cny is not None:
        cny_h = usd_per_hour / cny.usd_per_unit
    usd_month = cny_month = None
    if monthly:
        if currency == "USD" and amount is not None:
            usd_month = amount * share
        elif usd_per_hour is not None:
            usd_month = usd_per_hour * HOURS_PER_MONTH
        if currency == "CNY" and amount is not None:
            cny_month = amount * share
        elif cny_h is not None:
            cny_month = cny_h * HOURS_PER_MONTH
    return usd_per_hour, cny_h, usd_month, cny_month


def _offer_figures(o: OfferPrice, cny: ExchangeRate | None) -> _Figures:
    return _figures(o.price, o.currency, o.unit, o.price_usd_per_hour, o.discount_percent, cny)


def _per_gpu(hourly: float | None, gpu_count: float) -> float | None:
    return hourly / gpu_count if hourly is not None else None


def offer_prices(o: OfferPrice, cny: ExchangeRate | None) -> dict[str, float | None]:
    """:func:`price_fields` of one offer, with the per-GPU-hour figures."""
    usd_h, cny_h, usd_month, cny_month = _offer_figures(o, cny)
    return {
        "price_usd_per_hour": usd_h,
        "price_cny_per_hour": cny_h,
        "price_usd_per_month": usd_month,
        "price_cny_per_month": cny_month,
        "price_usd_per_gpu_hour": _per_gpu(usd_h, o.gpu_count),
        "price_cny_per_gpu_hour": _per_gpu(cny_h, o.gpu_count),
    }


def _count(x: float | None) -> float | int | None:
    # Counts as integers where whole (the documents' Count).
    return int(x) if isinstance(x, float) and x.is_integer() else x


def offer_items(listing: OfferListing) -> list[dict[str, Any]]:
    """The document's items as plain dicts, keys in the document's order (:data:`OFFER_ITEM_FIELDS`).

    They are built from the store's own typed rows, whose values are already what the schema
    allows, so they are not validated again: at catalog size (8,000 rows) validation costs more than
    the rest of the command (``tests/documents`` validates a full listing against the schema). One
    dict literal per row: building a dict and then reordering it cost twice as much."""
    return _items(listing.views, listing.cny_rate)


def _floor_doc(fl: DatedFloor, own: _Figures, gpus: float) -> dict[str, Any]:
    """:class:`gpuplan.documents.catalog.OfferFloor`'s fields, in its order; ``own``: the offer's own
    figures (:func:`_figures`)."""
    return {
        "held": fl.held,
        "basis": fl.basis.value,
        "what": fl.what(),
        "region": fl.region,
        "as_of": fl.as_of,
        "age_days": fl.age_days,
        "staleness": fl.staleness,
        "source": fl.source or None,
        "best_case_usd_per_hour": own[0],
        "best_case_usd_per_gpu_hour": _per_gpu(own[0], gpus),
        "best_case_cny_per_hour": own[1],
        "best_case_cny_per_gpu_hour": _per_gpu(own[1], gpus),
    }


def _items(views: Sequence[OfferView], cny: ExchangeRate | None) -> list[dict[str, Any]]:
    out = []
    for v in views:
        o = v.offer
        f = o.__dict__  # a plain dataclass: its fields without a getattr each
        gpus = f["gpu_count"]
        figures = _offer_figures(o, cny)
        # what plans cost it at, whatever the display currency (a listing in yuan without a rate
        # leaves its view without the floor): a spot price held to a dated one above it is that one
        fl = v.floor
        if fl is None and v.price_per_hour is None and f["pricing"] == "spot":
            fl = o.dated_floor_usd_per_hour()
        floor = None
        if fl is not None:
            floor = _floor_doc(fl, figures, gpus)
            figures = _figures(None, None, f["unit"], fl.usd_per_hour, None, cny)
        usd_h, cny_h, usd_month, cny_month = figures
        out.append(
            {
                "provider": f["provider"],
                "region": f["region"],
                "zone": f["zone"],
                "instance_type": f["instance_type"],
                "host_kind": host_kind(f["provider"], f["instance_type"], f["region"]),
                "gpu": f["gpu"],
                "gpu_count": _count(gpus),
                "vcpus": _count(f["vcpus"]),
                "memory_gib": f["memory_gib"],
                "network_gbps": f["network_gbps"],
                "interconnect": f["interconnect"],
                "pricing": f["pricing"],
                "published_currency": f["currency"],
                "published_unit": f["unit"],
                "price_usd_per_hour": usd_h,
                "price_usd_per_gpu_hour": _per_gpu(usd_h, gpus),
                "price_cny_per_hour": cny_h,
                "price_cny_per_gpu_hour": _per_gpu(cny_h, gpus),
                "price_usd_per_month": usd_month,
                "price_cny_per_month": cny_month,
                "list_price_usd_per_hour": f["list_price_usd_per_hour"],
                "discount_percent": f["discount_percent"],
                "as_of": f["as_of"],
                "source": f["source"],
                "confidence": f["confidence"],
                # the band plan costs: the worst of the catalog's sources, each listed where they disagree
                "interruption_band": costed_band(o),
                "interruption_reason": interruption_reason(o)
                if f["pricing"] == "spot" and f["interruption_band"] is None
                else None,
                "interruption_bands": [
                    {"band": b, "source": src, "costed": costed} for b, src, costed in spot_bands(o)
                ],
                "billing_granularity_s": f["billing_granularity_s"],
                "min_billing_s": f["min_billing_s"],
                "term": _term_doc(f["term"], f["currency"]),
                "compliance": list(f["compliance"]),
                "compliance_claimed": list(f["compliance_claimed"]),
                "stale": f["stale"],
                "price_reason": f["price_reason"],
                "as_of_precision": f["as_of_precision"],
                "age_days": f["age_days"],
                "age_min_days": f["age_min_days"],
                "age_bound_launch": f["age_bound_launch"],
                "staleness": f["staleness"],
                "stale_after_days": f["stale_after_days"],
                "priced_on": f["priced_on"].isoformat() if f["priced_on"] is not None else None,
                "network_kind": f["network_kind"],
                "local_nvme_gb": f["local_nvme_gb"],
                "fetched_at": f["fetched_at"],
                "floor": floor,
                "regions_compared": v.regions_compared,
            }
        )
    return out


def offers_json_text(listing: OfferListing) -> str:
    """``gpuplan.report.catalog.offers_json(listing).to_json()``, without a model per offer."""
    return offers_json_bytes(listing).decode()


def offers_json_bytes(listing: OfferListing) -> bytes:
    """:func:`offers_json_text` encoded in UTF-8."""
    return b"".join(offers_json_chunks(listing))


#: Offers per piece of :func:`offers_json_chunks`: about 400 kB of text.
CHUNK_OFFERS = 256


def offers_json_chunks(listing: OfferListing, per_chunk: int = CHUNK_OFFERS) -> Iterator[bytes]:
    """:func:`offers_json_text` in UTF-8, in pieces of ``per_chunk`` offers whose concatenation is
    the whole document, as orjson writes it in one piece (a test holds them equal).

    ``offers --json --all-regions`` writes the pieces as they come (where stdout is UTF-8, the
    bytes as they are): the whole market's 8,000 item dicts and 14 MB of text held at once cost a
    page fault per new page of memory, a tenth of the command. The document is orjson's with the
    offers left out; each piece is orjson's writing of a slice of them under the same key, at the
    same depth, less the lines of that one-key object."""
    # orjson: a tenth of this command's time less than pydantic_core.to_json, whose import alone
    # costs more than orjson's work; both write the same text (a test holds it to the model's JSON).
    import orjson

    frame = orjson.dumps(
        {
            "schema_version": 3,
            "display_currency": listing.currency,
            "exchange_rate": rate_fields(listing.cny_rate),
            "offers": [],
            "empty_reason": listing.empty_reason,
            "country_unknown": list(listing.country_unknown),
            "low_confidence_left_out": listing.low_confidence_left_out,
            "hosts_left_out": listing.hosts_left_out,
        },
        option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE,
    )
    views = listing.views
    if not views:
        yield frame
        return
    # The key cannot occur earlier: the keys before it are fixed, and a quote in a string is escaped.
    before, after = frame.split(b'"offers": []', 1)
    yield before + b'"offers": [\n'
    for start in range(0, len(views), per_chunk):
        text = orjson.dumps(
            {"offers": _items(views[start : start + per_chunk], listing.cny_rate)}, option=orjson.OPT_INDENT_2
        )
        items = memoryview(text)[len(_SLICE_HEAD) : -len(_SLICE_TAIL)]  # copied once, joined below
        yield (b",\n" if start else b"") + items
    yield b"\n  ]" + after


#: The lines orjson writes around a slice of offers under the document's key (``{"offers": [...]}``).
_SLICE_HEAD, _SLICE_TAIL = b'{\n  "offers": [\n', b"\n  ]\n}"
