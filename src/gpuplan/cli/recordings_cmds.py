"""CLI commands ``catalog recordings list|delete``: the ``gpuplan measure`` recordings the database
keeps, which ``estimate`` and ``plan`` anchor workloads on."""

from __future__ import annotations

from typing import Annotated

import typer

from gpuplan.cli._help import SuggestingGroup
from gpuplan.cli._i18n import LangOption, apply_language, console
from gpuplan.i18n import _

__all__ = ["register_into"]

recordings_app = typer.Typer(
    name="recordings",
    help="The steps gpuplan measure recorded, which estimate and plan anchor workloads on.",
    no_args_is_help=True,
    cls=SuggestingGroup,  # "did you mean" for an unknown command (cli/_help.py)
)


@recordings_app.callback()
def _recordings_group(lang: LangOption = None) -> None:
    # --lang is accepted on the group too (`gpuplan catalog recordings --lang zh …`).
    apply_language(lang)


@recordings_app.command("list")
def recordings_list(
    ctx: typer.Context,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
    lang: LangOption = None,
) -> None:
    """Show the stored recordings, oldest first: id, workload, GPU, date, step time, memory."""
    from gpuplan.cli.catalog_cmds import _print_json, _store
    from gpuplan.report.measure import recordings_json, recordings_view

    apply_language(lang)
    store = _store(ctx)
    try:
        doc = recordings_json(store.local.step_measurements())
    finally:
        store.close()
    if json_out:
        _print_json(doc)
        return
    console().print(recordings_view(doc))


@recordings_app.command("delete")
def recordings_delete(
    ctx: typer.Context,
    ids: Annotated[
        list[str],
        typer.Argument(
            help="Ids of the recordings (catalog recordings list).", metavar="ID...", show_default=False
        ),
    ],
    lang: LangOption = None,
) -> None:
    """Delete recordings by id; with an id no recording has, none is deleted."""
    from gpuplan.bounded import printable
    from gpuplan.cli.catalog_cmds import _store

    apply_language(lang)
    store = _store(ctx)
    try:
        gone = store.local.delete_step_measurements(ids)
    finally:
        store.close()
    for m in gone:
        typer.echo(
            _("deleted recording {id}: {workload} on {device} ({when})").format(
                id=m.id,
                workload=printable(m.workload_name),
                device=printable(m.gpu_id or m.device_name),
                when=m.measured_at,
            )
        )


def register_into(catalog_app: typer.Typer) -> None:
    catalog_app.add_typer(recordings_app)
