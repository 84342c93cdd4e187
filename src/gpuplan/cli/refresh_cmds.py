"""CLI commands ``catalog refresh``, ``catalog history`` and ``catalog discount set|list|clear``.

Credentials for the providers' price APIs are read here, from the environment (the library never
reads it): each provider module names the variables it uses.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Annotated

import typer

from gpuplan.cli._help import SuggestingGroup
from gpuplan.cli._i18n import (
    CnyPerUsdOption,
    CurrencyOption,
    ForceRateOption,
    LangOption,
    UsdPerCnyOption,
    apply_language,
)
from gpuplan.cli._numbers import percent_number
from gpuplan.i18n import N_, _

__all__ = ["register_into"]

discount_app = typer.Typer(
    name="discount",
    help="Your negotiated discounts: kept apart from list prices, applied wherever a price is shown.",
    no_args_is_help=True,
    cls=SuggestingGroup,  # "did you mean" for an unknown command (cli/_help.py)
)


@discount_app.callback()
def _discount_group(lang: LangOption = None) -> None:
    # --lang is accepted on the group too (`gpuplan catalog discount --lang zh …`); the root group has
    # already read it from the command line for --help (cli/_help.py).
    apply_language(lang)


#: Environment variables fetchers may read besides the ones provider modules declare.
_EXTRA_ENV = ("TENCENTCLOUD_CURRENCY",)


def _credentials() -> object:
    from gpuplan.catalog.providers import REGISTRY, Credentials

    names = {n for m in REGISTRY.values() for n in m.FACTS.credentials} | set(_EXTRA_ENV)
    return Credentials(values={n: os.environ[n] for n in names if os.environ.get(n)})


def refresh(
    ctx: typer.Context,
    provider: Annotated[
        list[str] | None,
        typer.Option("--provider", help="Refresh only this provider (repeatable); default: all."),
    ] = None,
    save: Annotated[
        Path | None, typer.Option("--save", help="Keep every raw response in this folder.", file_okay=False)
    ] = None,
    replay: Annotated[
        Path | None,
        typer.Option(
            "--from", help="Replay responses saved with --save (no network).", exists=True, file_okay=False
        ),
    ] = None,
    rates: Annotated[
        bool,
        typer.Option(
            "--rates",
            help="Refresh the exchange rate (the ECB's daily reference rates); alone: only the rate. "
            "A refresh without --provider or --rates does every provider and the rate.",
        ),
    ] = False,
    json_out: Annotated[
        bool, typer.Option("--json", help="Print the outcomes as JSON when every provider is done.")
    ] = False,
    lang: LangOption = None,
) -> None:
    """Read the providers' own price lists and append their prices (one transaction per provider),
    and the CNY rate from the ECB's daily reference rates.

    One line per provider. A provider whose source cannot be read keeps its last good data; one that
    needs keys (GCP: GOOGLE_API_KEY; Tencent, Huawei, Volcano Engine, Lambda, RunPod: theirs) is
    skipped with the variables to set. Exit 1 when any provider failed or none was refreshed."""
    from gpuplan.catalog.providers import Credentials
    from gpuplan.catalog.refresh import (
        RefreshOptions,
        RefreshOutcome,
        check_replay,
        iter_refresh,
        refresh_rates,
    )
    from gpuplan.cli.catalog_cmds import _store
    from gpuplan.errors import InputError

    apply_language(lang)
    if save is not None and replay is not None:
        raise InputError.worded(
            N_("--save and --from exclude each other: save a live refresh, or replay a saved one")
        )
    if replay is not None:  # a folder that lacks what was named: refused before anything is written
        check_replay(replay, provider or [], rates=rates)
    creds = _credentials()
    assert isinstance(creds, Credentials)
    store = _store(ctx)
    options = RefreshOptions(credentials=creds, save_dir=save, replay_dir=replay)

    # No selection: every provider and the rate; --provider and --rates select. Replaying, what
    # was not named and the folder lacks is skipped in one line.
    def done() -> Iterator[RefreshOutcome]:  # each line as soon as its provider (or the rate) is done
        if provider or not rates:
            yield from iter_refresh(store, provider or [], options)
        if rates or not provider:
            yield refresh_rates(store, options, named=rates)

    outcomes = []
    for o in done():
        if not json_out:
            typer.echo(o.line())
        outcomes.append(o)
    if json_out:
        from gpuplan.cli.catalog_cmds import _print_json
        from gpuplan.report.catalog import refresh_json

        _print_json(refresh_json(outcomes))
    if any(o.status == "failed" for o in outcomes) or not any(o.status == "ok" for o in outcomes):
        raise typer.Exit(1)


def history(
    ctx: typer.Context,
    instance: Annotated[str, typer.Option("--instance", help="Instance type, e.g. p5.48xlarge.")],
    region: Annotated[str | None, typer.Option("--region", help="Only this region.")] = None,
    html_out: Annotated[
        Path | None,
        typer.Option("--html", help="Also write an HTML page with a chart to this file.", dir_okay=False),
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
    currency: CurrencyOption = "USD",
    usd_per_cny: UsdPerCnyOption = None,
    cny_per_usd: CnyPerUsdOption = None,
    force_rate: ForceRateOption = False,
    lang: LangOption = None,
) -> None:
    """Every dated price of an instance type (prices are appended, never overwritten)."""
    from gpuplan.catalog import display_money
    from gpuplan.catalog.history import price_history
    from gpuplan.cli.catalog_cmds import _print, _print_json, _Rate, _store
    from gpuplan.i18n import set_money
    from gpuplan.report.history import history_html, history_json, history_view

    apply_language(lang)
    store = _store(ctx, _Rate(usd_per_cny, cny_per_usd, force_rate))
    shown = display_money(store, currency)  # a wrong currency fails here, before any query
    set_money(shown)
    points = price_history(store, instance, region)
    if html_out is not None:
        from gpuplan.cli._files import write_text_atomic

        write_text_atomic(html_out, history_html(points))
    if json_out:
        _print_json(history_json(points, instance, store.find_exchange_rate("CNY"), shown.currency))
    else:
        _print(history_view(points))
    if html_out is not None:
        typer.echo(_("wrote {path}").format(path=html_out), err=True)


#: ``--pricing`` of ``catalog discount set`` and ``clear``.
_PRICING_HELP = (
    "The pricing models it is taken off (repeatable, or a comma list): on_demand, spot, monthly, "
    "reserved_1y, reserved_3y. Default: on_demand (and monthly for a Chinese cloud); not spot or "
    "reservations unless named."
)


@discount_app.command("set")
def discount_set(
    ctx: typer.Context,
    provider: Annotated[str, typer.Option("--provider", help="aws, azure, gcp, …")],
    percent: Annotated[
        float,
        typer.Option(
            "--percent",
            help=(
                "Percent off the list price (more than 0, at most 99; 12 or 12%). Not taken off prices you "
                "imported in gpuplan's own format (your quotes)."
            ),
            parser=percent_number,
        ),
    ],
    family: Annotated[
        str, typer.Option("--family", help="Only this instance family (p5, a2-ultragpu, Standard_ND).")
    ] = "",
    pricing: Annotated[list[str] | None, typer.Option("--pricing", help=_PRICING_HELP)] = None,
    note: Annotated[str, typer.Option("--note", help="Where the discount comes from (contract …).")] = "",
    lang: LangOption = None,
) -> None:
    """Store a negotiated discount (replacing one for the same provider, family and pricing model)."""
    from gpuplan.catalog.discounts import discounts, prices_covered, set_discount
    from gpuplan.cli.catalog_cmds import _store
    from gpuplan.vocab import PricingModel

    apply_language(lang)
    store = _store(ctx)
    d = set_discount(store, provider, percent, family, note, pricing=pricing)
    typer.echo(
        _("{provider}: {percent} % off list prices of {models} from now on").format(
            provider=_scope(d.provider, d.family), percent=f"{d.percent:g}", models=_models(d.pricing)
        )
    )
    # The scope's other models keep what was set for them before (one discount a model): said, with
    # how to remove it, where "not taken off" had been said of a reservation still discounted.
    kept = [
        (k, models)
        for k in discounts(store)
        if (k.provider, k.family) == (d.provider, d.family)
        and (models := tuple(m for m in k.pricing if m not in d.pricing))
    ]
    for k, models in kept:
        typer.echo(
            _(
                "still taken off {models} prices: {percent} % (set {when}); `gpuplan catalog discount "
                "clear --provider {provider}{family} --pricing {codes}` removes it"
            ).format(
                models=_models(models),
                percent=f"{k.percent:g}",
                when=k.set_at,
                provider=k.provider,
                family=f" --family {k.family}" if k.family else "",
                codes=",".join(models),
            )
        )
    covered = {m for _k, models in kept for m in models} | set(d.pricing)
    if not prices_covered(store, d):
        # kept for prices to come (a refresh), but it changes no figure now: said, not "from now on" alone
        typer.echo(
            _(
                "note: no price in the catalog is one it is taken off: {provider}'s prices of {models} here "
                "are none, or all your own imported quotes (never discounted)"
            ).format(provider=d.provider, models=_models(d.pricing)),
            err=True,
        )
    others = [m.value for m in PricingModel if m.value not in covered]
    if others:
        # what the discount is not taken off, and how to say that the contract covers it
        typer.echo(
            _(
                "not taken off {others} prices; if your contract covers them, name them: --pricing {example}"
            ).format(others=_models(others), example=",".join((*d.pricing, others[0])))
        )
    if d.percent < 1:
        # a fraction for a percent (0.15 for 15 %) is kept as written, but never silently
        typer.echo(
            _("note: {percent} % is less than one percent off; for {whole} % give --percent {whole}").format(
                percent=f"{d.percent:g}", whole=f"{d.percent * 100:g}"
            ),
            err=True,
        )


def _scope(provider: str, family: str) -> str:
    return f"{provider} {family}" if family else _("{provider} (all families)").format(provider=provider)


def _models(codes: Sequence[str]) -> str:
    """Pricing models named as tables name them (``on_demand, spot``; 按量付费、抢占式)."""
    from gpuplan.i18n.phrases import item_list
    from gpuplan.vocab import pricing_name

    return item_list(pricing_name(c) for c in codes)


@discount_app.command("list")
def discount_list(
    ctx: typer.Context,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON instead of lines.")] = False,
    lang: LangOption = None,
) -> None:
    """Show the stored discounts and the pricing models each is taken off."""
    from gpuplan.catalog.discounts import discounts
    from gpuplan.cli.catalog_cmds import _print_json, _store

    apply_language(lang)
    found = discounts(_store(ctx))
    if json_out:
        from gpuplan.report.catalog import discounts_json

        _print_json(discounts_json(found))
        return
    if not found:
        typer.echo(_("no discounts set (prices are list prices)"))
    for d in found:
        line = _("{scope}: {percent} % off {models} (set {date})").format(
            scope=_scope(d.provider, d.family),
            percent=f"{d.percent:g}",
            models=_models(d.pricing),
            date=d.set_at,
        )
        typer.echo(f"{line} {d.note}".rstrip())


@discount_app.command("clear")
def discount_clear(
    ctx: typer.Context,
    provider: Annotated[str, typer.Option("--provider", help="aws, azure, gcp, …")],
    family: Annotated[str, typer.Option("--family", help="Only this instance family's discount.")] = "",
    pricing: Annotated[
        list[str] | None,
        typer.Option(
            "--pricing",
            help="Only the discount of these pricing models (repeatable, or a comma list); "
            "default: every model.",
        ),
    ] = None,
    lang: LangOption = None,
) -> None:
    """Remove a discount."""
    from gpuplan.catalog.discounts import clear_discount
    from gpuplan.cli.catalog_cmds import _store
    from gpuplan.errors import InputError

    apply_language(lang)
    removed = clear_discount(_store(ctx), provider, family, pricing=pricing)
    if not removed:
        raise InputError(
            _("no discount for {scope}; see `gpuplan catalog discount list`").format(
                scope=_scope(provider, family)
            )
        )
    typer.echo(
        _("removed the discount for {scope} off {models}").format(
            scope=_scope(provider, family), models=_models(removed)
        )
    )


def register_into(catalog_app: typer.Typer) -> None:
    catalog_app.command("refresh")(refresh)
    catalog_app.command("history")(history)
    catalog_app.add_typer(discount_app)
