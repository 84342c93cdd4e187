"""The command-line face: parse input, call the library, render; turn errors into one line.

Each command group lives in its own module with a ``register(app)`` function. Only this package
prints, exits or reads the environment (``GPUPLAN_DB``, ``GPUPLAN_USD_PER_CNY``).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Annotated

import typer

from gpuplan.errors import GpuplanError, UserCodeError

app = typer.Typer(
    name="gpuplan",
    help="Where to run your PyTorch job: which GPU, how many, which cloud, region and pricing model, "
    "what it costs all-in and how long it takes.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


@dataclass
class Settings:
    """Global options, resolved once per invocation."""

    db: str | None
    """File path or SQLAlchemy URL of the catalog database; None = the user's data directory."""


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
) -> None:
    ctx.obj = Settings(db=db)


def settings(ctx: typer.Context) -> Settings:
    """The global options of this invocation."""
    obj = ctx.find_root().obj
    return obj if isinstance(obj, Settings) else Settings(db=os.environ.get("GPUPLAN_DB"))


def _register_all() -> None:
    # Explicit registry of command groups (no string dispatch); each module adds its commands.
    from gpuplan.cli import (
        catalog_cmds,
        deploy_cmds,
        estimate_cmds,
        machine_cmds,
        plan_cmds,
        simulate_cmds,
        tco_cmds,
    )

    groups = (catalog_cmds, estimate_cmds, plan_cmds, deploy_cmds, machine_cmds, simulate_cmds, tco_cmds)
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
        if isinstance(e, UserCodeError) and e.user_traceback:
            sys.stderr.write("---- traceback from your code (not gpuplan's) ----\n")
            sys.stderr.write(e.user_traceback.rstrip() + "\n")
            sys.stderr.write("---- end of your code's traceback ----\n")
        sys.stderr.write(f"error: {e}\n")
        raise SystemExit(1) from None
