"""A spinner with a changing caption on stderr, shown on a terminal only (piped output stays clean)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from gpuplan.i18n import N_

#: The caption while a workload is traced (``name``: the workload's name).
TRACING = N_("tracing {name} on fake tensors…")


@contextmanager
def spinner(first: str, *, quiet: bool = False) -> Iterator[Callable[[str], None]]:
    """Show ``first`` with a spinner; the yielded function replaces the caption."""
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    err = Console(stderr=True)
    with Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        TimeElapsedColumn(),
        console=err,
        transient=True,
        disable=quiet or not err.is_terminal,
    ) as progress:
        task = progress.add_task(first, total=None)
        yield lambda caption: progress.update(task, description=caption)
