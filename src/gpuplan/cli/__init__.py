"""The command-line face: parse input, call the library, render; turn errors into one line.

Each command group lives in its own module with a ``register(app)`` function. Only this package
prints, exits or reads the environment (``GPUPLAN_DB``, ``GPUPLAN_USD_PER_CNY``).
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from gpuplan.cli._help import LocalisedGroup
from gpuplan.cli._i18n import LangOption, apply_language
from gpuplan.cli._settings import Settings, settings
from gpuplan.errors import GpuplanError, UserCodeError

__all__ = ["Settings", "app", "main", "settings"]

app = typer.Typer(
    name="gpuplan",
    help="Where to run your PyTorch job: which GPU, how many, which cloud, region and pricing model, "
    "what it costs all-in and how long it takes.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    # Picks the language of each invocation and translates the help texts (cli/_help.py).
    cls=LocalisedGroup,
)


@app.callback()
def _global_options(
    ctx: typer.Context,
    db: Annotated[
        str | None,
        typer.Option(
            "--db",
            envvar="GPUPLAN_DB",
            help="Catalog database: a file path or an SQLAlchemy URL (postgresql://…). "
            "Default: gpuplan.sqlite in your user data directory.",
            show_default=False,
        ),
    ] = None,
    lang: LangOption = None,
) -> None:
    ctx.obj = Settings(db=db)
    # Every invocation starts from the defaults (the language of this command line, amounts in
    # USD): the context variables would otherwise carry one command's --lang/--currency into the
    # next run in the same process (tests, notebooks calling the app twice). The root group has
    # already set the language from --lang anywhere on the line, GPUPLAN_LANG or the locale.
    from gpuplan.i18n import Money, set_money

    apply_language(lang)
    set_money(Money.usd())


def _register_all() -> None:
    # Explicit registry of command groups (no string dispatch); each module adds its commands.
    from gpuplan.cli import (
        catalog_cmds,
        deploy_cmds,
        estimate_cmds,
        machine_cmds,
        measure_cmds,
        plan_cmds,
        refresh_cmds,
        serve_cmds,
        simulate_cmds,
        tco_cmds,
    )

    # `catalog refresh|history|discount` join the catalog group here, so that refresh_cmds may use
    # catalog_cmds' helpers without catalog_cmds importing it back.
    refresh_cmds.register_into(catalog_cmds.catalog_app)
    groups = (
        catalog_cmds,
        estimate_cmds,
        plan_cmds,
        deploy_cmds,
        machine_cmds,
        measure_cmds,
        simulate_cmds,
        tco_cmds,
        serve_cmds,
    )
    for module in groups:
        module.register(app)


_register_all()


def main() -> None:
    """Console-script entry point: run the app; a GpuplanError becomes one line and exit code 1.

    Usage errors (unknown flag, missing argument) are reported by Typer itself with exit code 2.
    """
    try:
        app()
    except GpuplanError as e:
        from gpuplan.i18n import _
        from gpuplan.i18n.error_text import error_text

        if isinstance(e, UserCodeError) and e.user_traceback:
            sys.stderr.write(_("---- traceback from your code (not gpuplan's) ----") + "\n")
            sys.stderr.write(e.user_traceback.rstrip() + "\n")
            sys.stderr.write(_("---- end of your code's traceback ----") + "\n")
        sys.stderr.write(_("error: {message}").format(message=error_text(e)) + "\n")
        raise SystemExit(1) from None
