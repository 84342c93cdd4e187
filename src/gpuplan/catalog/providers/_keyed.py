"""A fetcher for providers whose price APIs need keys and request signing gpuplan does not do yet.

Without the keys it says which ones to set (skipped, not failed); with them it says plainly that
the signed call is not implemented, rather than pretend.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpuplan.catalog.providers.base import Credentials, FetchResult, MissingCredentialsError
from gpuplan.catalog.providers.common import UnsupportedFetchError

if TYPE_CHECKING:
    from gpuplan.catalog.providers.http import Http

__all__ = ["KeyedFetcher"]


class KeyedFetcher:
    def __init__(self, name: str, keys: tuple[str, ...], api: str, signing: str) -> None:
        self.name = name
        self.keys = keys
        self.api = api
        self.signing = signing

    def fetch(self, http: Http, credentials: Credentials, today: str) -> FetchResult:
        missing = [k for k in self.keys if not credentials.get(k)]
        if missing:
            raise MissingCredentialsError(
                f"{self.name} prices need keys ({self.api}): set {' and '.join(missing)}"
            )
        raise UnsupportedFetchError(
            f"{self.name}: keys found, but the {self.signing} request signing of {self.api} is not "
            "implemented in gpuplan yet; import prices with `gpuplan catalog import` instead"
        )
