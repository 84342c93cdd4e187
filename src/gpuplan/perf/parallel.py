"""The old import path of the network helpers, now in :mod:`gpuplan.perf.links`.

``plan/build_inputs.py`` still imports them from here; nothing in ``perf`` does. Delete this module
once it imports :mod:`gpuplan.perf.links` instead.
"""

from gpuplan.perf.links import catalog_network_kind, network_kind_of

__all__ = ["catalog_network_kind", "network_kind_of"]
