"""CLI commands: machine_cmds (to be filled in)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add this group's commands to `app`."""
