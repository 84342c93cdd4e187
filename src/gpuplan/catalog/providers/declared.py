"""Providers the user declares: a marketplace gpuplan has no module of (AutoDL, 恒源云/GPUShare,
矩池云/Matpool, Featurize …), whose quotes a lab still wants to plan with.

``catalog import FILE --format gpuplan --new-provider autodl [--country CN]`` stores the declaration
in the catalog (table ``declared_providers``), and every later command that opens the catalog adds
it to the registry (:func:`gpuplan.catalog.providers.use_declared`). Nothing is known of such a
provider but its code and, where the user gave it, the country of its regions; every other fact is
unknown and costed as unknowns are, at the conservative bound ("unknown is never the best case"):

- billing granularity unknown: whole hours billed (the store's default policy, said on each option);
- vCPUs, RAM and network of its offers unknown: the catalog's least per GPU and its slowest network;
- no spot (no interruption facts), no managed Kubernetes, no launcher;
- no egress or storage prices: the highest the catalog holds for any provider;
- the country of a region only from ``--country``, never guessed from its name (``cn-hangzhou``
  need not be in China on a marketplace's site): without it a ``countries:`` constraint excludes
  the offers, and says so.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from gpuplan.catalog.providers.base import Billing, Credentials, FetchResult, ProviderFacts, SpotFacts
from gpuplan.errors import InputError
from gpuplan.i18n.messages import N_

__all__ = ["MAX_CODE_CHARS", "REGION", "DeclaredProvider", "declared_code", "declared_module"]

#: Characters of a declared provider's code at most (the catalog's provider column holds 32).
MAX_CODE_CHARS = 32
#: What a user may declare: lower-case letters, digits and ``-`` (or ``_``), beginning with a letter.
_WRITTEN = re.compile(r"[a-z][a-z0-9_-]*")
#: A region code of a declared provider as a row writes it: a name, not a sentence or a path.
REGION = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")

_SOURCE = N_("a provider you declared (catalog import --new-provider): its facts are unknown")


class _NoPriceList:
    """The fetcher of a declared provider: gpuplan reads no price list of it (its prices come from
    the user's own files), so a refresh that names it skips it with this reason."""

    def fetch(self, http: object, credentials: Credentials, today: str) -> FetchResult:
        from gpuplan.catalog.providers.common import UnsupportedFetchError

        raise UnsupportedFetchError(
            "a provider you declared: gpuplan reads no price list of it; import its prices with "
            "`gpuplan catalog import FILE --format gpuplan`"
        )


@dataclass(frozen=True)
class DeclaredProvider:
    """A declared provider as the registry sees a provider module (:class:`ProviderModule`)."""

    FACTS: ProviderFacts
    FETCHER: _NoPriceList


def declared_code(written: str, taken: Collection[str]) -> str:
    """The code a user declares a provider under (``--new-provider``), checked: lower-case letters,
    digits and ``-``, beginning with a letter, at most :data:`MAX_CODE_CHARS` characters, and no
    spelling of a provider gpuplan knows (``taken``: the built-in codes and aliases). Stored with
    ``_`` for ``-``, as every code is (``my-cloud`` and ``my_cloud`` name one provider)."""
    text = written.strip()
    if not (_WRITTEN.fullmatch(text) and len(text) <= MAX_CODE_CHARS):
        raise InputError.worded(
            N_(
                "provider code {code}: use lower-case letters, digits and '-', beginning with a letter, "
                "at most {n} characters (autodl, my-cloud)"
            ),
            code=repr(written[:40]),
            n=MAX_CODE_CHARS,
        )
    code = text.replace("-", "_")
    spelt = {re.sub(r"[\s_-]+", "_", t.strip().lower()): t for t in taken}
    if code in spelt:
        raise InputError.worded(
            N_(
                "provider code {code} is a provider gpuplan knows ({known}): import its prices with "
                "--provider {known}, not as a new one"
            ),
            code=repr(text),
            known=spelt[code],
        )
    return code


def declared_module(code: str, *, display_name: str = "", country: str | None = None) -> DeclaredProvider:
    """The registry's face of the provider declared as ``code`` (checked by :func:`declared_code`);
    ``country``: ISO 3166 alpha-2 of its regions, or None (unknown)."""
    return DeclaredProvider(
        FACTS=ProviderFacts(
            provider=code,
            display_name=display_name or code,
            kind="marketplace",
            regions=(),
            regions_source=_SOURCE,
            kubernetes=None,
            billing=Billing(
                granularity_s=None,
                min_billing_s=None,
                as_of=None,
                source=None,
                reason=N_("a provider you declared: its billing is not known; whole hours assumed"),
            ),
            spot=SpotFacts(
                name=None,
                notice_s=None,
                published_rate=None,
                source=_SOURCE,
                rate_note=N_("a provider you declared: its interruptions are not known"),
            ),
            default_region=None,
            egress_storage_note=N_(
                "a provider you declared: its egress and storage prices are not known; the highest the "
                "catalog holds are assumed"
            ),
            price_sources=(),
            declared=True,
            declared_country=country,
        ),
        FETCHER=_NoPriceList(),
    )
