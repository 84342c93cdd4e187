"""The CLI's global options (``--db``), resolved once per invocation and read by every command.

Apart from the package's ``__init__`` so that the command modules, which the ``__init__``
registers, do not import it back.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import typer

__all__ = ["Settings", "settings"]


@dataclass
class Settings:
    """Global options, resolved once per invocation."""

    db: str | None
    """File path or SQLAlchemy URL of the catalog database; None = the user's data directory."""


def settings(ctx: typer.Context) -> Settings:
    """The global options of this invocation."""
    obj = ctx.find_root().obj
    return obj if isinstance(obj, Settings) else Settings(db=os.environ.get("GPUPLAN_DB"))
