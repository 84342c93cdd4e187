"""The command-line face: parse input, call the library, render; turn errors into one line.

Each command group lives in its own module with a ``register(app)`` function, named in
:data:`COMMANDS`; a module is imported, and its command built, only when the command line uses it
(:mod:`gpuplan.cli._lazy`). Only this package prints, exits or reads the environment
(``GPUPLAN_DB``, ``GPUPLAN_USD_PER_CNY``).
"""

from __future__ import annotations

import contextlib
import sys
from typing import Annotated

import typer

from gpuplan.cli._help import LocalisedGroup
from gpuplan.cli._i18n import LangOption, apply_language
from gpuplan.cli._lazy import Register
from gpuplan.cli._settings import Settings, settings
from gpuplan.errors import GpuplanError, UserCodeError

__all__ = ["COMMANDS", "Settings", "app", "main", "settings"]


# Each command module's register(app), imported when one of its commands is first used.
def _catalog(app: typer.Typer) -> None:
    from gpuplan.cli import catalog_cmds, recordings_cmds, refresh_cmds

    # `catalog refresh|history|discount|recordings` join the catalog group here, so that
    # refresh_cmds and recordings_cmds may use catalog_cmds' helpers without catalog_cmds importing
    # them back.
    refresh_cmds.register_into(catalog_cmds.catalog_app)
    recordings_cmds.register_into(catalog_cmds.catalog_app)
    catalog_cmds.register(app)


def _estimate(app: typer.Typer) -> None:
    from gpuplan.cli import estimate_cmds

    estimate_cmds.register(app)


def _plan(app: typer.Typer) -> None:
    from gpuplan.cli import plan_cmds

    plan_cmds.register(app)


def _deploy(app: typer.Typer) -> None:
    from gpuplan.cli import deploy_cmds

    deploy_cmds.register(app)


def _machine(app: typer.Typer) -> None:
    from gpuplan.cli import machine_cmds

    machine_cmds.register(app)


def _measure(app: typer.Typer) -> None:
    from gpuplan.cli import measure_cmds

    measure_cmds.register(app)


def _tco(app: typer.Typer) -> None:
    from gpuplan.cli import tco_cmds

    tco_cmds.register(app)


def _simulate(app: typer.Typer) -> None:
    from gpuplan.cli import simulate_cmds

    simulate_cmds.register(app)


def _serve(app: typer.Typer) -> None:
    from gpuplan.cli import serve_cmds

    serve_cmds.register(app)


#: Every command of ``gpuplan``, in the order ``--help`` lists them -> the function that registers
#: it (the explicit registry of commands: a new command is one line here and its module).
COMMANDS: dict[str, Register] = {
    "gpus": _catalog,
    "offers": _catalog,
    "estimate": _estimate,
    "plan": _plan,
    "deploy": _deploy,
    "doctor": _machine,
    "bench": _machine,
    "measure": _measure,
    "tco": _tco,
    "catalog": _catalog,
    "simulate": _simulate,
    "serve": _serve,
}


class _Root(LocalisedGroup):
    lazy = COMMANDS


app = typer.Typer(
    name="gpuplan",
    help="Where to run your PyTorch job: which GPU, how many, which cloud, region and pricing model, "
    "what it costs all-in and how long it takes.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    # Picks the language of each invocation and translates the help texts (cli/_help.py); builds
    # each command when it is first used (cli/_lazy.py).
    cls=_Root,
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
    from gpuplan.declared_lookup import set_declared_lookup

    # a provider name the registry lacks may be one this catalog declares: read it then, not now
    set_declared_lookup(lambda: _declared_of(db))
    # Every invocation starts from the defaults (the language of this command line, amounts in
    # USD): the context variables would otherwise carry one command's --lang/--currency into the
    # next run in the same process (tests, notebooks calling the app twice). The root group has
    # already set the language from --lang anywhere on the line, GPUPLAN_LANG or the locale.
    from gpuplan.i18n import Money, set_money

    apply_language(lang)
    set_money(Money.usd())


def _declared_of(db: str | None) -> None:
    """Make the providers the catalog ``db`` declares known (a catalog not yet made declares none:
    it is not made for a name)."""
    from gpuplan.catalog.open_catalog import existing_catalog, open_store
    from gpuplan.errors import StoreError

    if existing_catalog(db):
        # a catalog that cannot be opened declares nothing here: the name is refused as unknown,
        # and the command says what is wrong with the catalog when it opens it
        with contextlib.suppress(StoreError):
            open_store(db, seed=False).close()


def main() -> None:
    """Console-script entry point: run the app; a GpuplanError becomes one line and exit code 1.

    Usage errors (unknown flag, missing argument) are reported by Typer itself with exit code 2.
    """
    from gpuplan.cli._streams import tolerant_streams

    tolerant_streams()
    try:
        app()
    except GpuplanError as e:
        from gpuplan.bounded import printable
        from gpuplan.i18n import _
        from gpuplan.i18n.error_text import error_text

        if isinstance(e, UserCodeError) and e.user_traceback:
            sys.stderr.write(_("---- traceback from your code (not gpuplan's) ----") + "\n")
            sys.stderr.write(e.user_traceback.rstrip() + "\n")
            sys.stderr.write(_("---- end of your code's traceback ----") + "\n")
        # One line whatever a file's value quoted in it holds (U+2028 and U+0085 break lines too).
        sys.stderr.write(_("error: {message}").format(message=printable(error_text(e))) + "\n")
        raise SystemExit(1) from None
