"""One module per provider behind one Protocol, in an explicit registry.

Each ``providers/<name>.py`` declares ``FACTS`` (:class:`ProviderFacts`: regions with country and
city, managed Kubernetes, billing granularity, spot semantics, egress/storage notes, price
sources) and ``FETCHER`` (a :class:`Fetcher` that reads the provider's own price lists).

The registry is the vocabulary of providers: :data:`PROVIDERS` (``gpuplan.catalog.PROVIDERS``)
lists its codes and casts what users write ("did you mean"), and every per-provider table of the
planner and deploy (spot defaults, managed Kubernetes, region countries) is read from the modules'
facts. Adding a provider is therefore one module here and its line in the registry (the import
and the ``registry(...)`` call of :func:`_every_module`, which :data:`REGISTRY` runs on first use);
``tests/catalog/providers/test_new_provider.py`` registers a throwaway one and plans, lists and
deploys with it. Everything here reads :data:`REGISTRY` when called, never at import.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from types import MappingProxyType

from gpuplan.catalog.providers.base import (
    PROVIDER_RUN,
    Billing,
    Credentials,
    Fetcher,
    FetchResult,
    MissingCredentialsError,
    OfferTerms,
    ProviderFacts,
    ProviderModule,
    Region,
    SpotFacts,
)
from gpuplan.i18n import _
from gpuplan.i18n.messages import N_
from gpuplan.vocab import Names

__all__ = [
    "PROVIDERS",
    "REGISTRY",
    "Billing",
    "Credentials",
    "FetchResult",
    "Fetcher",
    "MissingCredentialsError",
    "OfferTerms",
    "ProviderFacts",
    "ProviderModule",
    "Region",
    "SpotFacts",
    "any_declared",
    "built_in_spellings",
    "declared_provider",
    "documented_billing_increment_s",
    "facts",
    "host_kind",
    "host_kind_short",
    "is_provider_run",
    "kubernetes_service",
    "module",
    "offer_terms",
    "provider_runs",
    "registry",
    "spot_rate_note",
    "unknown_price_reason",
    "use_declared",
]

_CODE = re.compile(r"[a-z][a-z0-9_]*")

#: How near a name must be to a provider's code or alias to be suggested for it
#: (:func:`gpuplan.errors.closest`). Codes are short company names, and half their letters in common
#: is chance (``autodl`` and ``runpod`` ~0.5, ``featurize`` and ``azure`` ~0.57): a suggestion of
#: another company invites filing one's quote under it. Typos stay near (``azrue`` 0.8, ``runpd``
#: 0.91, ``tencnet`` 0.86), and so is a short code one typo away (``awz``, ``gpc``).
PROVIDER_CUTOFF = 0.75


def registry(*modules: ProviderModule) -> MappingProxyType[str, ProviderModule]:
    """Provider modules keyed by their code (``FACTS.provider``); ValueError on a malformed or
    repeated code, or an alias that names another provider."""
    out: dict[str, ProviderModule] = {}
    for m in modules:
        code = m.FACTS.provider
        if not _CODE.fullmatch(code):
            raise ValueError(f"provider code {code!r} is not lower-case letters, digits and '_'")
        if code in out:
            raise ValueError(f"two provider modules declare the code {code!r}")
        out[code] = m
    spellings = [a for m in out.values() for a in m.FACTS.aliases]
    clashes = sorted(set(spellings) & set(out) | {a for a in spellings if spellings.count(a) > 1})
    if clashes:
        raise ValueError(f"provider aliases {clashes} name more than one provider")
    return MappingProxyType(out)


def _every_module() -> MappingProxyType[str, ProviderModule]:
    from gpuplan.catalog.providers import (
        alibaba,
        aws,
        azure,
        cudo,
        digitalocean,
        fluidstack,
        gcp,
        huawei,
        hyperbolic,
        hyperstack,
        jarvislabs,
        lambdalabs,
        lium,
        mithril,
        nebius,
        oci,
        paperspace,
        primeintellect,
        runpod,
        seeweb,
        shadeform,
        tencent,
        vast,
        verda,
        volcengine,
        yotta,
    )

    # Every provider gpuplan knows, one module a line; the order is the order lists and tables show.
    return registry(
        aws,
        azure,
        gcp,
        alibaba,
        tencent,
        huawei,
        volcengine,
        lambdalabs,
        runpod,
        vast,
        nebius,
        oci,
        cudo,
        hyperstack,
        verda,
        shadeform,
        primeintellect,
        seeweb,
        jarvislabs,
        lium,
        yotta,
        mithril,
        hyperbolic,
        fluidstack,
        paperspace,
        digitalocean,
    )


class _Registry(Mapping[str, ProviderModule]):
    """:data:`REGISTRY`: the provider modules, imported together the first time one is asked for,
    then the providers the open catalog declares (:func:`use_declared`).

    Listing offers needs no provider module (the rows name their provider's code), and importing
    the 26 of them cost a fifth of a light command's start; anything that reads a provider's facts
    (the vocabulary, a plan, a refresh) imports them all at once."""

    def __init__(self) -> None:
        self._modules: Mapping[str, ProviderModule] | None = None
        self._declared: Mapping[str, ProviderModule] = MappingProxyType({})

    def _loaded(self) -> Mapping[str, ProviderModule]:
        if self._modules is None:
            self._modules = _every_module()
        return self._modules

    def declare(self, modules: Mapping[str, ProviderModule]) -> None:
        self._declared = MappingProxyType(dict(modules))

    @property
    def declared(self) -> Mapping[str, ProviderModule]:
        return self._declared

    def __getitem__(self, provider: str) -> ProviderModule:
        found = self._loaded().get(provider)
        return found if found is not None else self._declared[provider]

    def __iter__(self) -> Iterator[str]:
        yield from self._loaded()
        yield from (p for p in self._declared if p not in self._loaded())

    def __len__(self) -> int:
        return len(self._loaded()) + len(set(self._declared) - set(self._loaded()))


#: Every provider gpuplan knows, by code, in the order lists and tables show (the modules are
#: imported on first use; add a provider in :func:`_every_module`).
_BUILT_IN = _Registry()
REGISTRY: Mapping[str, ProviderModule] = _BUILT_IN


def use_declared(modules: Sequence[ProviderModule]) -> None:
    """Make the providers a catalog declares (:mod:`~gpuplan.catalog.providers.declared`) providers
    of this process, in place of any declared before: the catalog opened last says which (one
    catalog a command; :func:`gpuplan.catalog.open_catalog.open_store` calls this). A code of
    gpuplan's own modules is never replaced (the declaration is refused where it is made)."""
    _BUILT_IN.declare({m.FACTS.provider: m for m in modules})


def any_declared() -> bool:
    """Whether this process has providers a catalog declared (:func:`use_declared`)."""
    return bool(_BUILT_IN.declared)


def built_in_spellings() -> tuple[str, ...]:
    """Every code and alias of the providers gpuplan has a module of: what a declared provider's
    code may not be."""
    loaded = _BUILT_IN._loaded()
    return (*loaded, *(a for m in loaded.values() for a in m.FACTS.aliases))


class ProviderNames:
    """The provider codes of :data:`REGISTRY` as a vocabulary (:class:`gpuplan.vocab.Names`), read
    from the registry at each use: ``PROVIDERS.cast("Aliyun") == "alibaba"``, ``"aws" in PROVIDERS``,
    ``list(PROVIDERS)``."""

    def __init__(self) -> None:
        self._built: tuple[tuple[object, object], Names] | None = None

    def names(self) -> Names:
        """The vocabulary as the registry stands now (rebuilt only when the registry is replaced)."""
        current = REGISTRY
        # the declared providers' mapping is replaced, never changed, when another catalog opens
        declared = current.declared if isinstance(current, _Registry) else None
        if self._built is None or any(
            a is not b for a, b in zip(self._built[0], (current, declared), strict=True)
        ):
            aliases = {a: code for code, m in current.items() for a in m.FACTS.aliases}
            self._built = (
                (current, declared),
                Names(
                    kind="provider",
                    values=tuple(current),
                    aliases=aliases,
                    cutoff=PROVIDER_CUTOFF,
                    known_hint=N_("the providers gpuplan knows: {names}"),
                ),
            )
        return self._built[1]

    def cast(self, value: object) -> str:
        """The provider code ``value`` names (any case; aliases such as ``aliyun``), or one the open
        catalog declares (:mod:`gpuplan.declared_lookup`); :class:`gpuplan.errors.UnknownChoiceError`
        with "did you mean" otherwise."""
        from gpuplan.declared_lookup import look_up_declared
        from gpuplan.errors import UnknownChoiceError

        try:
            return self.names().cast(value)
        except UnknownChoiceError:
            if not look_up_declared():
                raise
        return self.names().cast(value)

    def values(self) -> tuple[str, ...]:
        """Every provider code, in registry order."""
        return self.names().values

    def __iter__(self) -> Iterator[str]:
        return iter(self.values())

    def __contains__(self, value: object) -> bool:
        return value in REGISTRY

    def __len__(self) -> int:
        return len(REGISTRY)


#: The vocabulary of providers (see :class:`ProviderNames`).
PROVIDERS = ProviderNames()


def module(provider: str) -> ProviderModule:
    """The module of ``provider`` (UnknownChoiceError with "did you mean" for an unknown name)."""
    return REGISTRY[PROVIDERS.cast(provider)]


def facts(provider: str) -> ProviderFacts:
    """The facts of ``provider``."""
    return module(provider).FACTS


def documented_billing_increment_s(provider: str) -> int | None:
    """The billing increment ``provider`` documents where the catalog's granularity stays unknown for
    a rule it does not hold (:attr:`Billing.documented_increment_s`); None when nothing is documented
    or the provider is not registered."""
    m = REGISTRY.get(provider)
    return m.FACTS.billing.documented_increment_s if m is not None else None


def declared_provider(provider: str) -> bool:
    """Whether ``provider`` is one the user declared (:mod:`~gpuplan.catalog.providers.declared`):
    nothing is known of it but its code."""
    m = REGISTRY.get(provider)
    return m is not None and m.FACTS.declared


def kubernetes_service(provider: str) -> str | None:
    """The provider's managed Kubernetes service with GPU node pools (``EKS``); None when it has none
    or is not registered (a row from an older catalog)."""
    m = REGISTRY.get(provider)
    return m.FACTS.kubernetes if m is not None else None


def offer_terms(provider: str, instance_type: str, region: str = "") -> OfferTerms | None:
    """What an offer of ``provider`` is and what its price means (:class:`OfferTerms`: host kind,
    interruptible, what the price covers, minimum rental, storage apart, specs known), or None when
    the provider's module states nothing or the provider is not registered."""
    m = REGISTRY.get(provider)
    return m.FACTS.terms_for(instance_type, region) if m is not None else None


def host_kind(provider: str, instance_type: str, region: str = "") -> str | None:
    """The offer's host kind as its provider's module states it (``OfferTerms.host``); None where it
    states none."""
    terms = offer_terms(provider, instance_type, region)
    return terms.host if terms is not None else None


#: Each host kind (:data:`HOST_KINDS`) in a few words, for a table's cell.
_HOST_KIND_SHORT = {
    "cloud_vm": N_("cloud VM"),
    "bare_metal": N_("bare metal"),
    "secure_cloud": N_("vetted data centre"),
    "community_host": N_("community host"),
    "resold": N_("resold cloud machine"),
}


def host_kind_short(kind: str | None) -> str:
    """A host kind (:func:`host_kind`) in a few words, as a plan's table and the ``offers`` table
    say it; "" for a cloud VM (the common case, left unsaid to keep a table short)."""
    if kind == "cloud_vm":
        return ""
    if kind is None:
        return _("host kind unknown")
    return _(_HOST_KIND_SHORT[kind])


def is_provider_run(kind: str | None) -> bool:
    """Whether a host kind is a machine its provider runs (:data:`PROVIDER_RUN`: a cloud VM, bare
    metal, a vetted data centre, another cloud's machine resold); False for a community host and
    for a kind not stated (unknown is not the best case)."""
    return kind in PROVIDER_RUN


def provider_runs(provider: str, instance_type: str, region: str = "") -> bool:
    """Whether the offer's host is a machine its provider runs (:func:`is_provider_run` of its
    :func:`host_kind`)."""
    return is_provider_run(host_kind(provider, instance_type, region))


def spot_rate_note(provider: str) -> str | None:
    """What ``provider`` publishes about its spot interruption rate, where the catalog holds no
    band for an offer (``SpotFacts.rate_note``: a message, translated where shown), or None when
    the provider is not registered (a row from an older catalog)."""
    m = REGISTRY.get(provider)
    return m.FACTS.spot.rate_note if m is not None else None


def unknown_price_reason(provider: str, pricing: str) -> str | None:
    """Why the catalog has no ``pricing`` price for a provider that sells it (``reserved_1y`` on
    Azure: …), or None when the module states no such gap."""
    m = REGISTRY.get(provider)
    return m.FACTS.unknown_prices.get(pricing) if m is not None else None
