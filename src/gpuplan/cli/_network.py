"""``--network-gbps`` and ``--network-kind``, read alike by ``gpuplan estimate`` and ``gpuplan plan``.

The rate is parsed here (a finite number within the bounds a GPU instance network can have); the
kind is checked by the library both commands call (``gpuplan.perf.links.checked_network_kind``).
Only the help differs: an estimate's unknown network is a range, a plan's is ranked at its slow end.
"""

from __future__ import annotations

from typing import Any

import typer

from gpuplan.cli._numbers import finite_in
from gpuplan.hardware.gpus import MAX_NETWORK_GBIT_S, MIN_NETWORK_GBIT_S

__all__ = ["network_gbps_option", "network_kind_option"]


def network_gbps_option(help_text: str) -> Any:
    """The ``--network-gbps`` option (inter-node network per node, Gbit/s) with ``help_text``."""
    return typer.Option(
        "--network-gbps", help=help_text, parser=finite_in(MIN_NETWORK_GBIT_S, MAX_NETWORK_GBIT_S)
    )


def network_kind_option(help_text: str) -> Any:
    """The ``--network-kind`` option (``rdma`` or ``tcp``) with ``help_text``."""
    return typer.Option("--network-kind", help=help_text)
