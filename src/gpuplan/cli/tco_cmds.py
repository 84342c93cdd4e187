"""``gpuplan tco``: the cheapest mix of reserved, monthly, on-demand and spot capacity for a usage file.

Heavy modules (the store, scipy, the tracer for workload demands) are imported inside the command:
``gpuplan tco --help`` imports none of them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from gpuplan.catalog.dates import DEFAULT_STALE_AFTER_DAYS
from gpuplan.cli._access import AllowCodeOption, ProjectOption
from gpuplan.cli._files import check_writable
from gpuplan.cli._given_price import GivenPrice, given_price_in, price_usd
from gpuplan.cli._i18n import (
    CnyPerUsdOption,
    ForceRateOption,
    LangOption,
    UsdPerCnyOption,
    apply_language,
    console,
    resolve_usd_per_cny,
)
from gpuplan.cli._numbers import StaleDaysOption
from gpuplan.cli._progress import spinner
from gpuplan.errors import InputError
from gpuplan.i18n import N_, _
from gpuplan.units import BUDGET_EXAMPLES, MAX_BUDGET_USD, MIN_BUDGET, split_list

__all__ = ["register"]


def tco_cmd(
    ctx: typer.Context,
    usage_file: Annotated[
        Path,
        typer.Argument(
            help="Usage YAML file (horizon, demands, constraints). A demand's start_month and end_month are "
            "months of the horizon counted from 1, the month start: names (start: 2027-01 makes November "
            "month 11), end_month included; examples/tco/seasonal-peak.yaml has a one-month peak.",
            metavar="USAGE",
        ),
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print the stable JSON document.")] = False,
    out: Annotated[
        Path | None,
        typer.Option(help="Also write a self-contained HTML report with the cost chart (FILE.html)."),
    ] = None,
    countries: Annotated[
        str | None,
        typer.Option(
            help="Comma list of countries the GPUs may be in, by ISO code or name (CN,US or China,Germany), "
            "or EU for its 27 member states; replaces the usage file's constraints.countries"
        ),
    ] = None,
    upfront: Annotated[
        str | None,
        typer.Option(
            help="How much of a reservation you pay upfront: none, partial or all (its effective rate "
            "where the catalog has it); replaces the usage file's constraints.upfront"
        ),
    ] = None,
    hosts: Annotated[
        str | None,
        typer.Option(
            help="Which hosts the GPUs may be on: any (default) or provider, only machines a provider "
            "runs in its own or vetted data centres (a cloud VM, bare metal; community hosts and hosts "
            "of unknown kind left out); replaces the usage file's constraints.hosts"
        ),
    ] = None,
    stale_days: StaleDaysOption = None,
    budget: Annotated[
        GivenPrice | None,
        typer.Option(
            "--budget",
            help="What you have for the whole horizon, all-in ($250k, 250,000 USD, ¥1,800,000); the total "
            "is said against it. A bare number is dollars; where the report is in yuan, sign it (¥ or $).",
            metavar="AMOUNT",
            parser=given_price_in(MIN_BUDGET, MAX_BUDGET_USD, BUDGET_EXAMPLES),
        ),
    ] = None,
    lang: LangOption = None,
    currency: Annotated[
        str | None,
        typer.Option(
            "--currency",
            envvar="GPUPLAN_CURRENCY",
            help="Show money in USD or CNY (default: the usage file's), at the catalog's dated rate; "
            "CNY may also be written RMB, yuan or renminbi, and either currency by its Chinese name.",
            show_default=False,
        ),
    ] = None,
    usd_per_cny: UsdPerCnyOption = None,
    cny_per_usd: CnyPerUsdOption = None,
    force_rate: ForceRateOption = False,
    project: ProjectOption = None,
    allow_code: AllowCodeOption = False,
) -> None:
    """The cheapest schedule of commitments (monthly, reserved 1y/3y) and hourly capacity (on-demand,
    spot) for a year or three of work, with the all-on-demand baseline, break-even and sensitivity."""
    apply_language(lang)
    from gpuplan.api import tco
    from gpuplan.catalog import open_store
    from gpuplan.cli._settings import settings
    from gpuplan.commit import load_usage
    from gpuplan.vocab import Currency, HostRule, Upfront

    if out is not None and out.suffix.lower() != ".html":
        raise InputError.worded(N_("--out {path}: write a .html file"), path=out)
    check_writable(out)  # before the solving: a missing folder costs nothing
    if currency is not None:
        currency = Currency.cast(currency).code  # a typo fails here, in one line
    if upfront is not None:
        upfront = Upfront.cast(upfront).value  # a typo fails here, in one line
    if hosts is not None:
        hosts = HostRule.cast(hosts).value  # a typo fails here, in one line
    rate = resolve_usd_per_cny(usd_per_cny, cny_per_usd)
    usage = load_usage(usage_file, project=project)
    with spinner(_("sizing the demands and solving the commitment schedule…"), quiet=as_json):
        store = open_store(
            settings(ctx).db,
            usd_per_cny=rate,
            force_rate=force_rate,
            stale_after_days=DEFAULT_STALE_AFTER_DAYS if stale_days is None else stale_days,
        )
        try:
            # a yuan budget at the catalog's dated rate, the one the report shows money at
            budget_usd = price_usd(
                budget,
                flag="--budget",
                currency=currency or usage.currency,
                budget_cny=False,
                store=store,
                bounds=(MIN_BUDGET, MAX_BUDGET_USD, "USD"),
            )
            report = tco(
                usage,
                store=store,
                currency=currency,
                allow_code=allow_code,
                countries=_names(countries),
                upfront=upfront,
                hosts=hosts,
                budget_usd=budget_usd,
                # as given in yuan, for the report to say it was read as yuan, and at which rate
                budget_cny=budget.amount if budget is not None and budget.currency == "CNY" else None,
            )
        finally:
            store.close()
    if out is not None:
        from gpuplan.cli._files import write_text_atomic
        from gpuplan.report.tco_html import tco_html

        write_text_atomic(out, tco_html(report, usage_file.stem))
    if as_json:
        from gpuplan.report.tco import tco_json

        sys.stdout.write(json.dumps(tco_json(report), indent=2, ensure_ascii=False) + "\n")
        return
    from gpuplan.report.tco import tco_view

    console().print(tco_view(report))
    if out is not None:
        console(stderr=True).print(_("report written to {path}").format(path=out))


def _names(text: str | None) -> tuple[str, ...] | None:
    """A comma list as names; None when not given (an empty list is the user's error: none listed)."""
    if text is None:
        return None
    names = split_list(text)
    if not names:
        raise InputError.worded(N_("--countries: list at least one country, e.g. CN or China"))
    return names


def register(app: typer.Typer) -> None:
    """Add this group's commands to `app`."""
    app.command("tco")(tco_cmd)
