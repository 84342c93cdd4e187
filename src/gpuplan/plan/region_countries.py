"""Facts about providers and regions the planner needs: country of a region (kept in the catalog,
:mod:`gpuplan.catalog.region_countries`, where ``gpuplan offers`` reads it too), managed Kubernetes.
"""

from __future__ import annotations

from gpuplan.catalog import providers
from gpuplan.catalog.region_countries import region_country

__all__ = ["managed_kubernetes", "region_country"]


def managed_kubernetes() -> dict[str, str]:
    """Managed Kubernetes service with GPU node pools, per provider that has one (the marketplaces
    have none), from the provider modules of the catalog's registry as it stands."""
    return {code: m.FACTS.kubernetes for code, m in providers.REGISTRY.items() if m.FACTS.kubernetes}
