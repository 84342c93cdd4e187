"""CLI commands over the offer catalog: ``gpus``, ``offers``, ``catalog import|export|info`` (and,
from :mod:`gpuplan.cli.refresh_cmds`, ``catalog refresh|history|discount``).

Heavy modules (SQLAlchemy, the store) are imported inside the commands so that ``gpuplan --help``
stays instant; nothing here imports torch.
"""

from __future__ import annotations

import codecs
import csv
import gc
import io
import os
import re
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from gpuplan.catalog.gates import MAX_GPUS_PER_INSTANCE
from gpuplan.cli._help import SuggestingGroup
from gpuplan.cli._i18n import (
    CnyPerUsdOption,
    CurrencyOption,
    ForceRateOption,
    LangOption,
    UsdPerCnyOption,
    apply_language,
    console,
    resolve_usd_per_cny,
)
from gpuplan.cli._numbers import GPUS_PER_INSTANCE_RANGE, StaleDaysOption, finite_float, whole_number
from gpuplan.cli._settings import settings
from gpuplan.i18n import N_, _
from gpuplan.i18n.phrases import listed
from gpuplan.units import split_list
from gpuplan.vocab import HostRule, PricingModel, Upfront

if TYPE_CHECKING:
    from collections.abc import Sequence

    from gpuplan.catalog.model import ExchangeRate, ImportReport, OfferPrice
    from gpuplan.catalog.store import Store
    from gpuplan.documents import OffersDocument

__all__ = ["register"]


catalog_app = typer.Typer(
    name="catalog",
    help="The offer catalog: import provider catalogs, export, show what it holds.",
    no_args_is_help=True,
    cls=SuggestingGroup,  # "did you mean" for an unknown command (cli/_help.py)
)


@catalog_app.callback()
def _catalog_group(lang: LangOption = None) -> None:
    # --lang is accepted on the group too (`gpuplan catalog --lang zh …`); the root group has
    # already read it from the command line for --help (cli/_help.py).
    apply_language(lang)


JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON (stable schema) instead of a table.")]


@dataclass(frozen=True)
class _Rate:
    """The CNY rate options as given (``--usd-per-cny``, ``--cny-per-usd``, ``--force-rate``)."""

    usd_per_cny: float | None = None
    cny_per_usd: float | None = None
    force: bool = False


def _store(ctx: typer.Context, rate: _Rate | None = None, stale_after_days: int | None = None) -> Store:
    from gpuplan.catalog.open_catalog import DEFAULT_STALE_AFTER_DAYS, open_store

    rate = rate or _Rate()
    return open_store(
        settings(ctx).db,
        usd_per_cny=resolve_usd_per_cny(rate.usd_per_cny, rate.cny_per_usd),
        force_rate=rate.force,
        stale_after_days=DEFAULT_STALE_AFTER_DAYS if stale_after_days is None else stale_after_days,
    )


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off for the block, back as it was after.

    The whole market is 8,000 rows of acyclic objects (rows, dicts, strings) that reference
    counting frees; the collector would walk the growing heap again every few hundred allocations,
    a tenth of ``offers --json --all-regions``. One command, one thread: nothing else runs meanwhile."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def _print(renderable: object) -> None:
    # A terminal uses its width; piped output COLUMNS or 120 (cli._i18n.console).
    console().print(renderable)


def _write_utf8(data: bytes) -> None:
    """Write UTF-8 ``data`` to stdout: to its byte stream as it is where stdout is UTF-8 text that
    does not translate newlines (the 14 MB of ``offers --json --all-regions`` decoded to text only
    for the stream to encode them back cost a tenth of the command), else as text."""
    out = sys.stdout
    buffer = getattr(out, "buffer", None)
    encoding = getattr(out, "encoding", None)
    if buffer is None or not encoding or codecs.lookup(encoding).name != "utf-8" or os.linesep != "\n":
        out.write(data.decode())
        return
    out.flush()  # text written before goes first
    buffer.write(data)
    buffer.flush()


def _print_json(document: object) -> None:
    from gpuplan.documents.base import Document
    from gpuplan.report.common import to_json

    sys.stdout.write(document.to_json() if isinstance(document, Document) else to_json(document) + "\n")


def gpus(
    ctx: typer.Context,
    usd_per_cny: UsdPerCnyOption = None,
    cny_per_usd: CnyPerUsdOption = None,
    force_rate: ForceRateOption = False,
    currency: CurrencyOption = "USD",
    lang: LangOption = None,
    json_out: JsonFlag = False,
) -> None:
    """List GPUs: memory, bandwidth, dense FP32/TF32/BF16/FP8 peaks, interconnect, and the cheapest
    known price per GPU-hour under each pricing model, with where. Every column shows on a wide
    terminal (about 190 columns); narrower, memory and the peaks stack, and a narrow one keeps memory,
    BF16, on-demand and spot; --json has every field."""
    from gpuplan.catalog import display_money
    from gpuplan.catalog.query import cheapest_by_gpu
    from gpuplan.catalog.rates import used_rates
    from gpuplan.hardware import all_gpus
    from gpuplan.i18n import set_money
    from gpuplan.report.catalog import gpus_json, gpus_view

    apply_language(lang)
    store = _store(ctx, _Rate(usd_per_cny, cny_per_usd, force_rate))
    shown = display_money(store, currency)
    set_money(shown)
    cheapest = cheapest_by_gpu(store.offers())
    if json_out:
        _print_json(gpus_json(all_gpus(), cheapest, store.find_exchange_rate("CNY"), shown.currency))
        return
    rate = store.find_exchange_rate("CNY")
    # The rate is named (with its age warning) only when a price shown was converted with it.
    prices = [o for per in cheapest.values() for o in per.values()]
    _print(gpus_view(all_gpus(), cheapest, None if rate is None else used_rates([rate], prices, "USD")))


def offers(
    ctx: typer.Context,
    gpu: Annotated[
        list[str] | None,
        typer.Option(
            "--gpu",
            help="GPU name (a100, h100-sxm, V100:8); a family name lists every variant. Repeat it or "
            "give a comma list for several.",
        ),
    ] = None,
    count: Annotated[
        int | None,
        typer.Option(
            "--count",
            help="GPUs per instance.",
            parser=whole_number(1, MAX_GPUS_PER_INSTANCE, outside=GPUS_PER_INSTANCE_RANGE),
        ),
    ] = None,
    min_gpu_memory: Annotated[
        float | None, typer.Option("--min-gpu-memory", help="Least memory per GPU, GiB.", parser=finite_float)
    ] = None,
    provider: Annotated[
        list[str] | None,
        typer.Option(
            "--provider",
            "--providers",
            help="Provider code: aws, gcp, alibaba … (`gpuplan catalog info` lists them). Repeat it or "
            "give a comma list (aws,gcp) for several.",
        ),
    ] = None,
    region: Annotated[
        list[str] | None,
        typer.Option(
            "--region", "--regions", help="Region name, exactly. Repeat it or give a comma list for several."
        ),
    ] = None,
    countries: Annotated[
        str | None,
        typer.Option(
            "--countries",
            help="Comma list of countries the offers' regions may be in, by ISO code or name (CN,US or "
            "China,Germany), or EU for its 27 member states",
        ),
    ] = None,
    pricing: Annotated[
        list[str] | None,
        typer.Option(
            "--pricing",
            help=f"{', '.join(PricingModel.values())}. Repeat it or give a comma list for several.",
        ),
    ] = None,
    hosts: Annotated[
        str | None,
        typer.Option(
            "--hosts",
            help="Which hosts the offers may be on, as plan --hosts takes it: any (default) or provider, "
            "only machines a provider runs in its own or vetted data centres (community hosts and hosts "
            "of unknown kind left out, and counted).",
        ),
    ] = None,
    max_price: Annotated[
        float | None,
        typer.Option(
            "--max-price",
            help="Most per instance-hour, in --currency, at what plans cost the price: a spot price "
            "undated or older than the staleness limit (--stale-days), below the dated floor it is held "
            "to, at that floor, as its notes say.",
            parser=finite_float,
        ),
    ] = None,
    upfront: Annotated[
        str | None,
        typer.Option(
            "--upfront",
            help="How much of a reservation you pay upfront: none (default), partial or all; reserved "
            "prices are listed at that option's effective rate where the catalog has it.",
        ),
    ] = None,
    currency: CurrencyOption = "USD",
    sort: Annotated[str, typer.Option("--sort", help="price, price-per-gpu or gpu-memory.")] = "price",
    all_regions: Annotated[
        bool,
        typer.Option("--all-regions", help="Every region; default: the cheapest region per instance type."),
    ] = False,
    stale_days: StaleDaysOption = None,
    allow_low_confidence: Annotated[
        bool,
        typer.Option(
            "--allow-low-confidence",
            help="Also list prices labelled low-confidence (two published Chinese GPU guide "
            "articles' 2024 price tables), which "
            "plans and tco leave out unless asked.",
        ),
    ] = False,
    usd_per_cny: UsdPerCnyOption = None,
    cny_per_usd: CnyPerUsdOption = None,
    force_rate: ForceRateOption = False,
    lang: LangOption = None,
    json_out: JsonFlag = False,
) -> None:
    """List offers: instance types with their price per hour and per GPU-hour under each pricing model.

    Unknown prices are listed as "unknown (reason)", never as 0.
    """
    from gpuplan.catalog import PROVIDERS
    from gpuplan.catalog.model import Currency
    from gpuplan.catalog.query import OfferQuery, SortKey, list_offers
    from gpuplan.errors import InputError
    from gpuplan.report.offers_json import offers_json_chunks

    apply_language(lang)
    # Validate names before touching the database: one line with "did you mean" on a typo.
    # --provider, --region and --gpu take repeats and comma lists alike (as `plan --providers`).
    providers = _listed(PROVIDERS.cast(p) for p in _split(provider))
    models = _listed(PricingModel.cast(p).value for p in _split(pricing))
    currency = Currency.cast(currency).code
    sort = SortKey.cast(sort).value
    if upfront is not None:
        upfront = Upfront.cast(upfront).value  # a typo is one line, before the database is opened
    if hosts is not None:
        hosts = HostRule.cast(hosts).value  # plan's vocabulary and its "did you mean", before the database
    gpus: list[str] = []
    counts: set[int] = set()
    for one in _split(gpu):
        if ":" in one:
            # "V100:8" = the GPU and a count, as everywhere else in gpuplan.
            name, _, n = one.partition(":")
            if not re.fullmatch(r"[0-9]+", n.strip()) or int(n) < 1:
                raise InputError.worded(
                    N_("--gpu {gpu!r}: write NAME:COUNT with a count of 1 or more"), gpu=one
                )
            one = name.strip()
            counts.add(int(n))
        from gpuplan.hardware import gpus_named

        gpus_named(one)  # an id, an alias or a family name; "H10" is refused, not widened to the H100s
        gpus.append(one)
    if count is None and counts:
        if len(counts) > 1:
            raise InputError.worded(
                N_("--gpu: the names give different counts ({counts}); give one --count for all"),
                counts=listed(str(n) for n in sorted(counts)),
            )
        count = counts.pop()
    country_names = None
    if countries is not None:
        country_names = split_list(countries)
        if not country_names:
            raise InputError.worded(N_("--countries: list at least one country, e.g. CN or China"))
        from gpuplan.catalog.region_countries import country_codes_of

        for c in country_names:
            country_codes_of(c)  # a typo is one line with "did you mean", before the database is opened
    store = _store(ctx, _Rate(usd_per_cny, cny_per_usd, force_rate), stale_days)
    query = OfferQuery(
        gpu=_listed(gpus),
        count=count,
        min_gpu_memory_gib=min_gpu_memory,
        provider=providers,
        region=_listed(_split(region)),
        countries=country_names,
        pricing=models,
        max_price_per_hour=max_price,
        currency=currency,
        sort=sort,
        all_regions=all_regions,
        allow_low_confidence=allow_low_confidence,
        upfront=upfront,
        hosts=hosts,
    )
    with _collector_paused():
        listing = list_offers(store, query)
        if json_out:
            for chunk in offers_json_chunks(listing):
                _write_utf8(chunk)
            # Freed while the collector is still off: resumed with the rows alive, its first pass
            # would walk all 8,000 of them (a fiftieth of the command) and find nothing to collect.
            del listing
            return
    from gpuplan.report.catalog import offers_view  # (pydantic's documents: not for --json)

    _print(offers_view(listing))


def _split(values: Sequence[str] | None) -> list[str]:
    """An option given several times, each a name or a comma list: every name, in order."""
    return [name for value in values or () for name in split_list(value)]


def _listed(names: Iterable[str]) -> tuple[str, ...] | None:
    """``names`` once each, in order; None when there is none (no filter)."""
    unique = tuple(dict.fromkeys(names))
    return unique or None


@catalog_app.command("info")
def info(
    ctx: typer.Context,
    usd_per_cny: UsdPerCnyOption = None,
    cny_per_usd: CnyPerUsdOption = None,
    force_rate: ForceRateOption = False,
    lang: LangOption = None,
    json_out: JsonFlag = False,
) -> None:
    """Show where the catalog lives, its schema revision, providers, counts and price dates."""
    from gpuplan.report.catalog import info_json, info_view

    apply_language(lang)
    data = _store(ctx, _Rate(usd_per_cny, cny_per_usd, force_rate)).info()
    if json_out:
        _print_json(info_json(data))
        return
    _print(info_view(data))


@catalog_app.command("import")
def import_(
    ctx: typer.Context,
    file: Annotated[
        Path | None,
        typer.Argument(
            help="One catalog file (with --provider); or give a folder with --skypilot/--gpuhunt.",
            metavar="PATH",
        ),
    ] = None,
    provider: Annotated[
        list[str] | None,
        typer.Option(
            "--provider", help="The file's provider (aws, gcp, azure, lambda …); with a folder: only these."
        ),
    ] = None,
    skypilot: Annotated[
        Path | None,
        typer.Option(
            "--skypilot",
            help="A checkout of SkyPilot's public catalog (the GitHub repository "
            "skypilot-org/skypilot-catalog): every cloud's catalogs/v8/<cloud>/vms.csv, one transaction "
            "per provider.",
        ),
    ] = None,
    gpuhunt: Annotated[
        Path | None,
        typer.Option(
            "--gpuhunt",
            help="A folder of gpuhunt's catalog files (<provider>.csv, from its catalog.zip), one "
            "transaction per provider.",
        ),
    ] = None,
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            help="File layout of FILE: skypilot (SkyPilot's catalog: AWS v8, GCP v8, Azure v6, "
            "marketplaces; USD per hour) or gpuplan (a price list of your own, CSV or .json: one price "
            "a row with its provider, region, instance_type, gpu, gpu_count, pricing, price, currency "
            "USD|CNY, unit hour|month, as_of and source; see examples/prices/README.md).",
        ),
    ] = "skypilot",
    as_of: Annotated[
        str | None,
        typer.Option(
            "--as-of",
            help="When the prices were read: a day (2026-11-30), a month, or bounds (2026-10/2026-11-30). "
            "Needed with a folder and with a skypilot FILE (they carry no date: give the day you "
            "downloaded them); for a gpuplan FILE it dates the rows whose as_of is empty.",
        ),
    ] = None,
    accept_price: Annotated[
        list[int] | None,
        typer.Option(
            "--accept-price",
            metavar="LINE",
            help="Import the price on this line of FILE though it is out of line with the catalog's "
            "(a real discount, a new price): the refusal names the figure it was compared with. "
            "Repeat for more lines.",
        ),
    ] = None,
    new_provider: Annotated[
        str | None,
        typer.Option(
            "--new-provider",
            metavar="CODE",
            help="Declare a provider gpuplan does not know (a marketplace: autodl, matpool …) and import "
            "FILE's prices for it (--format gpuplan; lower-case letters, digits and '-'). Nothing else is "
            "known of it: billing hourly, vCPUs, network, egress and storage at their conservative "
            "bounds, no spot, no launcher but torchrun and docker.",
        ),
    ] = None,
    country: Annotated[
        str | None,
        typer.Option(
            "--country",
            help="With --new-provider: the country its regions are in (CN, or a name). Without it their "
            "country is unknown, and a plan's countries constraint leaves them out.",
        ),
    ] = None,
    undo: Annotated[
        int | None,
        typer.Option(
            "--undo",
            metavar="ID",
            help="Take import ID out again (a wrong file, a wrong --as-of): its prices, and the offers it "
            "alone created; the prices it had superseded are current again. `gpuplan catalog imports` "
            "lists the ids. Alone: no FILE, folder or other option.",
        ),
    ] = None,
    lang: LangOption = None,
    json_out: JsonFlag = False,
) -> None:
    """Import provider catalogs: one file, or a whole folder (a SkyPilot catalog checkout, gpuhunt's
    files) offline. Good rows are appended (history kept) in one transaction per provider; bad rows
    are reported with their line and reason; a file unusable as a whole changes nothing. A file
    import exits 0 when every row was imported, 3 when some were rejected (the others imported), 1
    when none was; a folder's import the same over its files, 1 when one failed. Rows of what gpuplan
    does not price (machines without a GPU, accelerators it has no datasheet of) are skipped, not
    rejected.

    A price list of your own (a negotiated quote, monthly or reserved prices, yuan prices):
    --format gpuplan, one provider per file (or --provider to pick one); for a provider gpuplan does
    not know, --new-provider CODE.

    An import is taken out again with --undo ID (`gpuplan catalog imports` lists them)."""
    from gpuplan.errors import InputError

    apply_language(lang)
    if undo is not None:
        given = file is not None or skypilot or gpuhunt or provider or as_of or accept_price
        if given or new_provider or country:
            raise InputError.worded(
                N_(
                    "--undo ID: alone, without a FILE, a folder or another option (but --db, --lang and "
                    "--json)"
                )
            )
        _undo(ctx, undo, json_out)
        return
    folders = [f for f in (skypilot, gpuhunt) if f is not None]
    if country is not None and new_provider is None:
        raise InputError.worded(
            N_("--country: only with --new-provider (a provider gpuplan knows has its regions)")
        )
    if new_provider is not None and (file is None or fmt != "gpuplan" or provider):
        raise InputError.worded(
            N_("--new-provider: only with one FILE in --format gpuplan, and without --provider")
        )
    if len(folders) + (file is not None) != 1:
        raise InputError.worded(N_("give one of FILE (with --provider), --skypilot DIR or --gpuhunt DIR"))
    if file is None and accept_price:
        raise InputError.worded(N_("--accept-price names lines of one FILE, not of a folder's files"))
    if file is None:
        _import_folder(ctx, skypilot=skypilot, gpuhunt=gpuhunt, providers=provider or [], as_of=as_of,
                       json_out=json_out)  # fmt: skip
        return
    if new_provider is not None:
        _import_new_provider(ctx, file, new_provider, country, as_of, json_out, accept_price or [])
        return
    _import_file(ctx, file, provider or [], fmt, as_of, json_out, accept_price or [])


def _undo(ctx: typer.Context, import_id: int, json_out: bool) -> None:
    """Undo one import and say what it removed; an id the catalog has no import of is one line
    naming the ids that can be undone (exit 2, as for any value of the command line refused)."""
    from gpuplan.catalog.undo import undo_import
    from gpuplan.errors import AbsentError
    from gpuplan.i18n.error_text import error_text
    from gpuplan.report.catalog import undo_json, undo_view

    store = _store(ctx)
    try:
        report = undo_import(store, import_id)
    except AbsentError as e:
        raise typer.BadParameter(error_text(e), param_hint="--undo") from None
    if json_out:
        _print_json(undo_json(report))
    else:
        _print(undo_view(report))


@catalog_app.command("imports")
def imports(
    ctx: typer.Context,
    every: Annotated[
        bool, typer.Option("--all", help="List the shipped snapshot's imports too (they are not undone).")
    ] = False,
    lang: LangOption = None,
    json_out: JsonFlag = False,
) -> None:
    """List the catalog's imports, oldest first: id, when, the file (and its SHA-256) or source, the
    --as-of given, rows and what it added, and the prices it holds now (or when it was undone). An
    import is taken out again with `gpuplan catalog import --undo ID`."""
    from gpuplan.catalog.undo import list_imports
    from gpuplan.report.catalog import imports_json, imports_view

    apply_language(lang)
    found = list_imports(_store(ctx))
    shown = [e for e in found if every or e.undoable]
    if json_out:
        _print_json(imports_json(shown, snapshot_hidden=len(found) - len(shown)))
    else:
        _print(imports_view(shown, snapshot_hidden=len(found) - len(shown)))


def _import_new_provider(
    ctx: typer.Context,
    file: Path,
    written: str,
    country: str | None,
    as_of: str | None,
    json_out: bool,
    accept: list[int],
) -> None:
    """Declare the provider ``written`` in the catalog and import ``file``'s prices for it; a file
    that imports nothing leaves no declaration behind (unless one was there before)."""
    from gpuplan.catalog.declaring import declare_provider, undeclare_unused
    from gpuplan.catalog.gates import import_day
    from gpuplan.catalog.providers import built_in_spellings
    from gpuplan.catalog.providers.declared import declared_code
    from gpuplan.i18n.countries import country_code

    declared_code(written, built_in_spellings())  # refused before the catalog is opened
    iso = country_code(country) if country is not None else None
    if as_of is not None:
        import_day(as_of, date.today())
    store = _store(ctx)
    code, new = declare_provider(store, written, country=iso)
    try:
        _import_file(ctx, file, [code], "gpuplan", as_of, json_out, accept, store=store)
    finally:
        if new:
            undeclare_unused(store, code)


def _import_file(
    ctx: typer.Context,
    file: Path,
    providers: list[str],
    fmt: str,
    as_of: str | None,
    json_out: bool,
    accept: list[int],
    *,
    store: Store | None = None,
) -> None:
    from gpuplan.catalog.gates import import_day
    from gpuplan.catalog.importers.price_file import (
        file_format,
        not_a_price_list,
        read_price_file,
        skypilot_as_of,
    )
    from gpuplan.errors import InputError

    if file_format(fmt) != "gpuplan":
        not_a_price_list(file)  # a price list of one's own read as SkyPilot's is told its --format
    if fmt == "gpuplan":
        if len(providers) > 1:
            raise InputError.worded(N_("a price list is imported for one provider: --provider huawei (one)"))
    elif len(providers) != 1:
        raise InputError.worded(N_("a catalog FILE needs its provider: --provider aws (one)"))
    else:
        skypilot_as_of(as_of)  # refused before the catalog is opened, as a folder without a date is
    if as_of is not None:
        import_day(as_of, date.today())  # refused before the catalog is opened
    store = store or _store(ctx)
    read = read_price_file(
        store,
        file,
        fmt=fmt,
        provider=providers[0] if providers else None,
        as_of=as_of,
        today=date.today(),
        described=file.name,
        accept=accept,
    )
    from gpuplan.catalog.importing import imported_file

    report = store.import_offers(
        read.rows,
        provider=read.provider,
        source=read.source,
        kind=read.kind,
        rejected=read.rejected,
        file=imported_file(file, file.name),
        as_of=as_of.strip() if as_of is not None else None,
    )
    _import_done(file, report, json_out, read.warnings)


#: The exit status of a file import that imported its good rows and rejected others: not 0, so that
#: a script importing prices every night sees the rows it lost (it had exited 0 whenever one row
#: passed), and not 1, which says nothing was imported.
PARTIAL_IMPORT_EXIT = 3


def _import_done(file: Path, report: ImportReport, json_out: bool, warnings: Sequence[object] = ()) -> None:
    """Print what one file's import did; exit 1 (CatalogImportError) when it imported nothing, and
    :data:`PARTIAL_IMPORT_EXIT` when it imported some rows and rejected others (a row of a machine
    without a GPU is skipped, not lost: it does not count)."""
    from gpuplan.errors import CatalogImportError
    from gpuplan.report.catalog import import_json, import_view

    if json_out:
        _print_json(import_json(report, warnings))
    else:
        _print(import_view(report, warnings))
    if report.import_id is None:
        # the rows of what gpuplan does not price are skipped, not rejected: counted apart, as above
        skipped = sum(1 for r in report.rejected if r.skipped)
        raise CatalogImportError.worded(
            N_(
                "no row of {file} passed the gates ({rejected} rejected, {skipped} skipped); nothing was "
                "imported"
            ),
            file=file,
            rejected=len(report.rejected) - skipped,
            skipped=skipped,
        )
    # rows of machines without a GPU, or of accelerators gpuplan has no datasheet of, are out of its
    # scope, not lost: a SkyPilot file lists every instance type, FPGAs among them
    lost = [r for r in report.rejected if not r.skipped]
    if lost:
        typer.echo(
            _(
                "warning: rows of {file} rejected: {rejected} (listed above); the others were imported "
                "(exit status {code})"
            ).format(file=file, rejected=len(lost), code=PARTIAL_IMPORT_EXIT),
            err=True,
        )
        raise typer.Exit(PARTIAL_IMPORT_EXIT)


def _import_folder(
    ctx: typer.Context,
    *,
    skypilot: Path | None,
    gpuhunt: Path | None,
    providers: list[str],
    as_of: str | None,
    json_out: bool,
) -> None:
    """One line per provider, as ``catalog refresh`` prints; exit 1 when one failed or none imported."""
    from datetime import datetime, timezone

    from gpuplan.catalog.checkout import gpuhunt_files, import_files, skypilot_files
    from gpuplan.catalog.gates import import_day
    from gpuplan.errors import InputError

    if json_out:
        raise InputError.worded(
            N_("--json reports one file's import; a folder import prints one line per provider")
        )
    if as_of is None:
        raise InputError.worded(
            N_(
                "a catalog folder carries no date: give --as-of, the day its files were read "
                "(for a git checkout: git -C DIR log -1 --format=%cs)"
            )
        )
    import_day(as_of, date.today())
    files = skypilot_files(skypilot) if skypilot is not None else gpuhunt_files(gpuhunt)  # type: ignore[arg-type]
    store = _store(ctx)
    now = datetime.now(timezone.utc).replace(microsecond=0).isoformat()
    done = import_files(store, files, as_of=as_of.strip(), providers=providers, now=now)
    outcomes = [d.outcome for d in done]
    for o in outcomes:
        typer.echo(o.line())
    if any(o.status == "failed" for o in outcomes) or not any(o.status == "ok" for o in outcomes):
        raise typer.Exit(1)
    lost = sum(d.lost for d in done)
    if lost:
        # as a file import says it: a script importing every night sees the rows it lost
        typer.echo(
            _(
                "warning: rows of the folder's files refused: {rejected} (said above); the others were "
                "imported (exit status {code})"
            ).format(rejected=lost, code=PARTIAL_IMPORT_EXIT),
            err=True,
        )
        raise typer.Exit(PARTIAL_IMPORT_EXIT)


#: Columns of ``catalog export --format csv``, declared (the JSON export has every field).
EXPORT_COLUMNS = (
    "provider",
    "region",
    "zone",
    "instance_type",
    "gpu",
    "gpu_count",
    "vcpus",
    "memory_gib",
    "network_gbps",
    "interconnect",
    "pricing",
    "price",
    "currency",
    "unit",
    "price_usd_per_hour",
    "price_usd_per_gpu_hour",
    "as_of",
    "source",
    "confidence",
    "interruption_band",
    "stale",
    "price_reason",
    "usd_per_unit",
    "rate_as_of",
    "rate_source",
)
#: The last three: the exchange rate the USD figures of a price in another currency (CNY) were
#: converted at, with its date and source (empty for a USD price), as the JSON export's
#: ``exchange_rate`` states it.


@catalog_app.command("export")
def export(
    ctx: typer.Context,
    fmt: Annotated[str, typer.Option("--format", help="csv or json.")] = "csv",
    out: Annotated[Path | None, typer.Option("--out", help="Write here instead of stdout.")] = None,
    usd_per_cny: UsdPerCnyOption = None,
    cny_per_usd: CnyPerUsdOption = None,
    force_rate: ForceRateOption = False,
    lang: LangOption = None,
) -> None:
    """Export every offer with its current price under each pricing model (unpriced offers too)."""
    # JSON is the `offers --json` document over every region; CSV keeps each price as published
    # (price, currency, unit) beside its USD figures.
    from gpuplan.errors import NotFoundError
    from gpuplan.i18n import ngettext
    from gpuplan.report.common import to_jsonable

    apply_language(lang)
    if fmt not in ("csv", "json"):
        raise NotFoundError("--format", fmt, ["csv", "json"])  # "did you mean 'json'" for jsno
    store = _store(ctx, _Rate(usd_per_cny, cny_per_usd, force_rate))
    rows = store.offers(include_unpriced=True)
    if fmt == "json":
        # The offers document (every offer, region and price): money named by currency and unit.
        text = _export_document(rows, store.find_exchange_rate("CNY")).to_json()
    else:
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=EXPORT_COLUMNS, extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        rates = {"CNY": store.find_exchange_rate("CNY")}
        for r in rows:
            item = to_jsonable(r)
            rate = rates.get(str(item.get("currency") or "").upper())
            if rate is not None:
                item |= {
                    "usd_per_unit": rate.usd_per_unit,
                    "rate_as_of": rate.as_of,
                    "rate_source": rate.source,
                }
            writer.writerow({k: _cell(item.get(k)) for k in EXPORT_COLUMNS})
        text = buf.getvalue()
    if out is None:
        sys.stdout.write(text)
        return
    from gpuplan.cli._files import write_text_atomic

    write_text_atomic(out, text, what="export")
    wrote = ngettext("wrote {n} row to {path}", "wrote {n} rows to {path}", len(rows))
    sys.stderr.write(wrote.format(n=len(rows), path=out) + "\n")


#: What a spreadsheet reads as the start of a formula in a text cell (OWASP, "CSV Injection").
_FORMULA_LEADS = ("=", "+", "-", "@", "\t", "\r")


def _cell(value: object) -> object:
    """One CSV cell: empty for None; a text a spreadsheet would evaluate as a formula (a source
    quoted as ``=HYPERLINK(…)`` in someone's price list) behind a ``'``, which shows it as text."""
    if value is None:
        return ""
    if isinstance(value, str) and value.startswith(_FORMULA_LEADS):
        return "'" + value
    return value


def _export_document(rows: Sequence[OfferPrice], cny: ExchangeRate | None) -> OffersDocument:
    from gpuplan.catalog.query import OfferListing, offer_view
    from gpuplan.report.catalog import offers_json
    from gpuplan.vocab import Currency

    # each with what plans cost it at (costed_usd_per_hour), as `offers --json` says it
    views = tuple(offer_view(r, Currency.USD, None) for r in rows)
    listing = OfferListing(
        views=views, currency="USD", rates=(), hidden_unknown_price=0, unconvertible=0, cny_rate=cny
    )
    return offers_json(listing)


def register(app: typer.Typer) -> None:
    """Add this group's commands to ``app``."""
    app.command("gpus")(gpus)
    app.command("offers")(offers)
    app.add_typer(catalog_app)
