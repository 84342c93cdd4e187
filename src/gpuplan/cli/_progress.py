"""A spinner with a changing caption on stderr, shown on a terminal only (piped output stays clean)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from gpuplan.i18n import N_

#: The caption while a workload is traced (``name``: the workload's name).
TRACING = N_("tracing {name} on fake tensors…")


@contextmanager
def spinner(first: str, *, quiet: bool = False) -> Iterator[Callable[[str], None]]:
    """Show ``first`` with a spinner; the yielded function replaces the caption.

    ``quiet``, or a stderr that is not a terminal: nothing is shown, and Rich's progress display
    is not even imported (``--json`` output imports no Rich at all)."""
    if quiet:
        yield _unchanged
        return
    from rich.console import Console

    err = Console(stderr=True, markup=False, emoji=False)
    if not err.is_terminal:
        yield _unchanged
        return
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    with Progress(
        SpinnerColumn(),
        # The caption names the user's workload: its text, never markup.
        TextColumn("{task.description}", markup=False),
        TimeElapsedColumn(),
        console=err,
        transient=True,
    ) as progress:
        task = progress.add_task(first, total=None)
        yield lambda caption: progress.update(task, description=caption)


def _unchanged(caption: str) -> None:
    """The caption of a spinner that is not shown: nothing to change."""
