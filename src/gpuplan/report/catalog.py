"""Render the catalog commands: ``gpuplan gpus``, ``gpuplan offers``, ``gpuplan catalog info|import``.

JSON schemas (stable; units in the names):

``offers --json``: a list of objects, one per listed offer x pricing model, with every
:class:`~gpuplan.catalog.OfferPrice` field (provider, region, zone, instance_type, gpu, gpu_count,
vcpus, memory_gib, network_gbps, interconnect, pricing, price, currency, unit, price_usd_per_hour,
price_usd_per_gpu_hour, as_of, source, confidence, interruption_band, billing_granularity_s,
min_billing_s, term, compliance, stale, price_reason, exchange_rate_usd_per_unit,
exchange_rate_as_of) plus ``display_currency``, ``price_per_hour`` and ``price_per_gpu_hour`` (in the
display currency) and ``regions_compared``.

``gpus --json``: a list of objects: id, name, vendor, architecture, memory_gib,
memory_bandwidth_gbps, fp32_tflops, tf32_tflops, bf16_tflops, fp16_tflops, fp8_tflops, int8_tops,
interconnect, nvlink_gen, nvlink_gbps, pcie_gen, source, and ``cheapest``: pricing model ->
{price_usd_per_gpu_hour, provider, region, instance_type, as_of, source, confidence} (null when none).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from gpuplan.catalog.model import CatalogInfo, ExchangeRate, ImportReport, OfferPrice, PricingModel
from gpuplan.catalog.query import OfferListing
from gpuplan.documents.catalog import CheapestPrice, GpuItem, GpusDocument, OfferItem, OffersDocument
from gpuplan.hardware import GPU
from gpuplan.i18n import _, current_money, money
from gpuplan.report.common import Widest, fmt_money, fmt_num, plain_table, to_jsonable
from gpuplan.vocab import pricing_name

__all__ = [
    "gpus_json",
    "gpus_view",
    "import_view",
    "info_json",
    "info_view",
    "offers_json",
    "offers_view",
    "rates_line",
]

_PRICINGS = tuple(m.value for m in PricingModel)


def rates_line(rates: Sequence[ExchangeRate], currency: str) -> str:
    """One line naming the exchange rates used, with their dates and sources."""
    if not rates:
        return f"Prices in {currency}; no currency conversion needed." if currency == "USD" else ""
    parts = [f"1 {r.currency} = {r.usd_per_unit:g} USD (as of {r.as_of}; {r.source})" for r in rates]
    return "Exchange rate: " + "; ".join(parts)


def offers_json(listing: OfferListing) -> OffersDocument:
    """The ``offers --json`` document."""
    out = []
    for v in listing.views:
        item = to_jsonable(v.offer)
        item.update(
            display_currency=listing.currency,
            price_per_hour=v.price_per_hour,
            price_per_gpu_hour=v.price_per_gpu_hour,
            regions_compared=v.regions_compared,
        )
        out.append(OfferItem.model_validate(item))
    return OffersDocument(currency=listing.currency, offers=out)


def _amount(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:,.4g}" if abs(value) < 10 else f"{value:,.2f}"


def _price_cell(offer: OfferPrice, value: float | None) -> str:
    if value is not None:
        return _amount(value)
    if offer.price is not None and offer.currency:
        # Priced in a currency that cannot be converted: show it as published.
        return f"{fmt_money(offer.price, offer.currency)}/{offer.unit} (not convertible)"
    return f"unknown ({offer.price_reason})" if offer.price_reason else "unknown"


def offers_view(listing: OfferListing) -> RenderableType:
    """The ``offers`` table, the rates used and what was left out."""
    cur = listing.currency
    table = plain_table(
        None,
        [
            "provider",
            "region",
            "instance type",
            "GPU",
            "n",
            "pricing",
            f"{cur}/h",
            f"{cur}/GPU-h",
            "as of",
            "",
        ],
        right=("n", f"{cur}/h", f"{cur}/GPU-h"),
    )
    for v in listing.views:
        o = v.offer
        region = o.region + (f" ({o.zone})" if o.zone else "")
        if v.regions_compared > 1:
            region += f" [cheapest of {v.regions_compared}]"
        flags = []
        if o.stale:
            flags.append("stale")
        if o.confidence == "low":
            flags.append("low confidence")
        if o.unit == "month" and o.price is not None:
            flags.append(f"{fmt_money(o.price, o.currency or '')}/month ÷ 730 h")
        if o.discount_percent is not None and o.list_price_usd_per_hour is not None:
            flags.append(f"your −{o.discount_percent:g} % (list {o.list_price_usd_per_hour:,.4f} USD/h)")
        table.add_row(
            o.provider,
            region,
            o.instance_type,
            o.gpu,
            fmt_num(o.gpu_count, 3),
            o.pricing or "—",
            _price_cell(o, v.price_per_hour),
            _amount(v.price_per_gpu_hour),
            o.as_of or "—",
            ", ".join(flags),
        )
    lines: list[RenderableType] = [table]
    notes = [
        f"{len(listing.views)} offers.",
        rates_line(listing.rates, cur),
    ]
    if listing.unconvertible:
        notes.append(
            f"{listing.unconvertible} priced offers are not convertible to {cur}: no dated exchange rate; "
            "set GPUPLAN_USD_PER_CNY=<USD per CNY> or --usd-per-cny."
        )
    if listing.hidden_unknown_price:
        notes.append(f"{listing.hidden_unknown_price} offers with an unknown price left out by --max-price.")
    lines.extend(Text(n, style="dim") for n in notes if n)
    return Group(*lines)


def _gpu_base(g: GPU) -> dict[str, Any]:
    return {
        "id": g.id,
        "name": g.name,
        "vendor": g.vendor,
        "architecture": g.architecture,
        "memory_gib": g.memory_gib,
        "memory_bandwidth_gbps": g.memory_bandwidth_gbps,
        "fp32_tflops": g.fp32_tflops,
        "tf32_tflops": g.tf32_tflops,
        "bf16_tflops": g.bf16_tflops,
        "fp16_tflops": g.fp16_tflops,
        "fp8_tflops": g.fp8_tflops,
        "int8_tops": g.int8_tops,
        "interconnect": g.interconnect,
        "nvlink_gen": g.nvlink_gen,
        "nvlink_gbps": g.nvlink_gbps,
        "pcie_gen": g.pcie_gen,
        "source": g.source,
    }


def gpus_json(gpus: Sequence[GPU], cheapest: dict[str, dict[str, OfferPrice]]) -> GpusDocument:
    """The ``gpus --json`` document."""
    out = []
    for g in gpus:
        per = cheapest.get(g.id, {})
        item = GpuItem(
            **_gpu_base(g),
            cheapest={
                p: (
                    CheapestPrice(
                        price_usd_per_gpu_hour=o.price_usd_per_gpu_hour,
                        provider=o.provider,
                        region=o.region,
                        instance_type=o.instance_type,
                        as_of=o.as_of,
                        source=o.source,
                        confidence=o.confidence,
                    )
                    if (o := per.get(p))
                    else None
                )
                for p in _PRICINGS
            },
        )
        out.append(item)
    return GpusDocument(gpus=out)


def _gpus_table(gpus: Sequence[GPU], cheapest: dict[str, dict[str, OfferPrice]], layout: int) -> Table:
    """Layout 0: every column; 1: fewer peaks, hourly and monthly prices; 2 (narrow consoles): memory, BF16,
    on-demand and spot prices."""
    pricings = (_PRICINGS, _PRICINGS[:3], _PRICINGS[:2])[layout]
    mem, link = _("mem GiB"), _("interconnect")
    figures = ([mem, "GB/s", "FP32", "TF32", "BF16", "FP8"], [mem, "FP32", "BF16"], [mem, "BF16"])[layout]
    names = [pricing_name(p) for p in pricings]
    header = ["GPU", *figures, *([link] if layout == 0 else []), *names]
    table = plain_table(None, header, right=(*figures, *names))
    table.columns[0].no_wrap = True  # GPU ids stay whole
    for g in gpus:
        per = cheapest.get(g.id, {})
        cells = []
        for p in pricings:
            o = per.get(p)
            cells.append(f"{money(o.price_usd_per_gpu_hour)}\n{o.provider}/{o.region}" if o else "—")
        values = {
            mem: g.memory_gib,
            "GB/s": g.memory_bandwidth_gbps,
            "FP32": g.fp32_tflops,
            "TF32": g.tf32_tflops,
            "BF16": g.bf16_tflops,
            "FP8": g.fp8_tflops,
        }
        link_cell = [g.interconnect] if layout == 0 else []
        table.add_row(g.id, *(fmt_num(values[f]) for f in figures), *link_cell, *cells)
    return table


def gpus_view(
    gpus: Sequence[GPU], cheapest: dict[str, dict[str, OfferPrice]], rates: Sequence[ExchangeRate]
) -> RenderableType:
    """The ``gpus`` table: datasheet figures and the cheapest price per GPU-hour under each pricing model,
    in the current display currency (``gpuplan.i18n.current_money``)."""
    table = Widest([partial(_gpus_table, gpus, cheapest, layout) for layout in (0, 1, 2)])
    notes = [
        _(
            "Peaks are dense datasheet TFLOP/s. Prices: cheapest known per GPU-hour (monthly ÷ 730 h), "
            "any provider; — = no known price."
        ),
        rates_line(rates, "USD")
        if rates
        else _("CNY prices count only once a CNY rate is set (--usd-per-cny or --cny-per-usd)."),
    ]
    if current_money().rate_note():
        notes.append(current_money().rate_note())
    return Group(table, *(Text(n, style="dim") for n in notes))


def info_json(info: CatalogInfo) -> dict[str, Any]:
    """The ``catalog info --json`` document."""
    result: dict[str, Any] = to_jsonable(info)
    return result


def info_view(info: CatalogInfo) -> RenderableType:
    """``catalog info`` as a two-column table."""
    table = plain_table(None, ["", ""])
    table.show_header = False
    table.add_row("database", info.location)
    table.add_row("schema revision", info.schema_revision)
    table.add_row("providers", ", ".join(info.providers))
    table.add_row(
        "offers",
        ", ".join(f"{p} {n}" for p, n in info.offers_by_provider.items()) + f" (total {info.offers})",
    )
    table.add_row(
        "prices", ", ".join(f"{p} {n}" for p, n in info.prices_by_pricing.items()) + f" (total {info.prices})"
    )
    table.add_row("prices dated", f"{info.oldest_as_of or '—'} … {info.newest_as_of or '—'}")
    table.add_row("stale after", f"{info.stale_after_days} days")
    table.add_row("imports", str(info.imports))
    table.add_row(
        "exchange rates",
        "; ".join(
            f"1 {r.currency} = {r.usd_per_unit:g} USD ({r.as_of}, {r.source})" for r in info.exchange_rates
        )
        or "none (CNY prices are not converted; set GPUPLAN_USD_PER_CNY)",
    )
    if not info.coverage:
        return table
    from rich.console import Group

    per = plain_table(
        "per provider",
        ["provider", "offers", "priced", "regions", "pricing models", "prices dated", "last refresh"],
    )
    for c in info.coverage:
        per.add_row(
            c.provider,
            str(c.offers),
            str(c.priced_offers),
            str(c.regions),
            ", ".join(c.pricing_models) or "—",
            f"{c.oldest_as_of or '—'} … {c.newest_as_of or '—'}",
            c.last_refresh or "never (shipped snapshot only)",
        )
    return Group(table, per)


def import_view(report: ImportReport) -> RenderableType:
    """What an import did, and each rejected row with its line and reason."""
    head = Text(
        f"{report.provider}: {report.offers_imported} new offers, {report.prices_imported} prices imported; "
        f"{len(report.rejected)} rows rejected."
    )
    if not report.rejected:
        return head
    table = plain_table("rejected", ["line", "instance type", "region", "reason"], right=("line",))
    for r in report.rejected:
        table.add_row(str(r.line or "—"), r.instance_type, r.region, r.reason)
    return Group(head, table)
