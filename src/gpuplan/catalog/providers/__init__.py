"""One module per provider behind one Protocol, in an explicit registry.

Each ``providers/<name>.py`` declares ``FACTS`` (:class:`ProviderFacts`: regions with country and
city, managed Kubernetes, billing granularity, spot semantics, egress/storage notes, price
sources) and ``FETCHER`` (a :class:`Fetcher` that reads the provider's own price lists).

Adding a provider: a member in :class:`gpuplan.vocab.Provider`, one module here, one line
in :data:`REGISTRY`; ``tests/catalog/providers/test_registry.py`` checks that both agree and that
every per-provider table covers every provider.
"""

from __future__ import annotations

from types import MappingProxyType

from gpuplan.catalog.model import Provider
from gpuplan.catalog.providers import (
    alibaba,
    aws,
    azure,
    gcp,
    huawei,
    lambdalabs,
    runpod,
    tencent,
    vast,
    volcengine,
)
from gpuplan.catalog.providers.base import (
    Billing,
    Credentials,
    Fetcher,
    FetchResult,
    MissingCredentialsError,
    ProviderFacts,
    ProviderModule,
    Region,
    SpotFacts,
)

__all__ = [
    "REGISTRY",
    "Billing",
    "Credentials",
    "FetchResult",
    "Fetcher",
    "MissingCredentialsError",
    "ProviderFacts",
    "ProviderModule",
    "Region",
    "SpotFacts",
    "facts",
    "module",
]

REGISTRY: MappingProxyType[Provider, ProviderModule] = MappingProxyType(
    {
        Provider.AWS: aws,
        Provider.AZURE: azure,
        Provider.GCP: gcp,
        Provider.ALIBABA: alibaba,
        Provider.TENCENT: tencent,
        Provider.HUAWEI: huawei,
        Provider.VOLCENGINE: volcengine,
        Provider.LAMBDA: lambdalabs,
        Provider.RUNPOD: runpod,
        Provider.VAST: vast,
    }
)


def module(provider: str | Provider) -> ProviderModule:
    """The module of ``provider`` (NotFoundError with a suggestion for an unknown name)."""
    return REGISTRY[Provider.cast(provider)]


def facts(provider: str | Provider) -> ProviderFacts:
    """The facts of ``provider``."""
    return module(provider).FACTS
