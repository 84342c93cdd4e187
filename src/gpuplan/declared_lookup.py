"""Where a provider name the registry lacks is looked up: the catalog a command opens may declare it
(``catalog import FILE --new-provider CODE``, :mod:`gpuplan.catalog.providers.declared`).

Names are checked before anything touches the database ("did you mean" on a typo, at once), so a
provider the catalog declares is not yet known when a command reads ``--provider autodl`` or a
workload's ``providers: [autodl]``. The face that knows which catalog the command uses (the command
line's ``--db``) sets a lookup here, for this context only, as it sets the language; the provider
vocabulary runs it once, on the first name it does not know, and casts again. Nothing is set by
default: the library never opens a catalog of its own accord. Standard library only: the command
line sets it on every invocation.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar

__all__ = ["look_up_declared", "set_declared_lookup"]

_lookup: ContextVar[Callable[[], None] | None] = ContextVar("gpuplan_declared_lookup", default=None)


def set_declared_lookup(load: Callable[[], None] | None) -> None:
    """Call ``load`` (which makes the open catalog's declared providers known) on the first provider
    name the registry lacks, in this context; None: look nowhere."""
    _lookup.set(load)


def look_up_declared() -> bool:
    """Run the lookup set in this context, once (it is cleared first); False when none was set."""
    load = _lookup.get()
    if load is None:
        return False
    _lookup.set(None)
    load()
    return True
