"""Request signing for the Chinese clouds' price APIs: Huawei Cloud, Volcano Engine, Alibaba Cloud.

Each signer is a pure function of the request and the time, pinned in
``tests/catalog/providers/test_signing.py`` to the worked example the provider documents.

Why small signers here rather than the providers' SDKs (``huaweicloudsdkcore``, ``volcengine``,
``alibabacloud-tea-openapi``): each scheme is an HMAC-SHA256 over a canonical request, 20-40
lines that the documented examples pin byte for byte; the SDKs would add three dependency trees
(requests/urllib3 pins, Tea runtimes, their own retry and logging) to read a few price lists,
and their HTTP clients would bypass :class:`~gpuplan.catalog.providers.http.Http`, so
``--save``/``--from`` replay and the respx-mocked tests could not see their requests.

- **Huawei Cloud APIG** ``SDK-HMAC-SHA256``: canonical request (method, path ending in ``/``,
  sorted query, lower-case signed headers incl. ``x-sdk-date``, SHA-256 of the body); the string
  to sign is ``SDK-HMAC-SHA256\\n<X-Sdk-Date>\\n<hash>``; the key is the SK itself.
- **Volcano Engine** ``HMAC-SHA256``: AWS-SigV4-like; scope ``<day>/<region>/<service>/request``;
  the key chain starts from the SK without a prefix.
- **Alibaba Cloud** ``ACS3-HMAC-SHA256`` (signature V3): canonical request over ``x-acs-*`` headers;
  the string to sign is ``ACS3-HMAC-SHA256\\n<hash>``; the key is the AccessKey secret.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from urllib.parse import quote

__all__ = [
    "acs3_authorization",
    "canonical_query",
    "huawei_authorization",
    "sha256_hex",
    "volc_authorization",
]


def sha256_hex(data: bytes | str) -> str:
    return hashlib.sha256(data.encode("utf-8") if isinstance(data, str) else data).hexdigest()


def _hmac(key: bytes, msg: str) -> bytes:
    return hmac.new(key, msg.encode("utf-8"), hashlib.sha256).digest()


def canonical_query(params: Mapping[str, str]) -> str:
    """Parameters sorted by name, names and values percent-encoded (RFC 3986 unreserved kept)."""
    return "&".join(f"{quote(k, safe='-_.~')}={quote(v, safe='-_.~')}" for k, v in sorted(params.items()))


def _canonical(
    method: str, path: str, query: str, headers: Mapping[str, str], payload_hash: str
) -> tuple[str, str]:
    """(canonical request, signed header names) with header names lower-cased and sorted."""
    lowered = {k.lower(): v.strip() for k, v in headers.items()}
    names = sorted(lowered)
    canonical_headers = "".join(f"{n}:{lowered[n]}\n" for n in names)
    signed = ";".join(names)
    return "\n".join([method.upper(), path, query, canonical_headers, signed, payload_hash]), signed


def huawei_authorization(
    *,
    access_key: str,
    secret_key: str,
    method: str,
    path: str,
    query: str,
    headers: Mapping[str, str],
    body: bytes,
) -> str:
    """The ``Authorization`` header of a Huawei APIG ``SDK-HMAC-SHA256`` request.

    ``headers`` are the headers to sign and must include ``X-Sdk-Date`` (``YYYYMMDDTHHMMSSZ``) and
    ``Host``. The canonical path ends in ``/`` (the documented rule; the request need not).
    """
    sdk_date = {k.lower(): v for k, v in headers.items()}["x-sdk-date"]
    canonical_path = path if path.endswith("/") else path + "/"
    request, signed = _canonical(method, canonical_path, query, headers, sha256_hex(body))
    to_sign = f"SDK-HMAC-SHA256\n{sdk_date}\n{sha256_hex(request)}"
    signature = hmac.new(secret_key.encode("utf-8"), to_sign.encode("utf-8"), hashlib.sha256).hexdigest()
    return f"SDK-HMAC-SHA256 Access={access_key}, SignedHeaders={signed}, Signature={signature}"


def volc_authorization(
    *,
    access_key: str,
    secret_key: str,
    region: str,
    service: str,
    method: str,
    query: str,
    headers: Mapping[str, str],
    body: bytes,
) -> str:
    """The ``Authorization`` header of a Volcano Engine OpenAPI request to path ``/``.

    ``headers`` are the headers to sign and must include ``X-Date`` (``YYYYMMDDTHHMMSSZ``) and
    ``Host``; Volcano Engine also expects ``X-Content-Sha256`` (the body's SHA-256) among them.
    """
    x_date = {k.lower(): v for k, v in headers.items()}["x-date"]
    day = x_date[:8]
    request, signed = _canonical(method, "/", query, headers, sha256_hex(body))
    scope = f"{day}/{region}/{service}/request"
    to_sign = f"HMAC-SHA256\n{x_date}\n{scope}\n{sha256_hex(request)}"
    key = _hmac(_hmac(_hmac(_hmac(secret_key.encode("utf-8"), day), region), service), "request")
    signature = hmac.new(key, to_sign.encode("utf-8"), hashlib.sha256).hexdigest()
    return f"HMAC-SHA256 Credential={access_key}/{scope}, SignedHeaders={signed}, Signature={signature}"


def acs3_authorization(
    *,
    access_key_id: str,
    access_key_secret: str,
    method: str,
    query: str,
    headers: Mapping[str, str],
    body: bytes,
) -> str:
    """The ``Authorization`` header of an Alibaba Cloud ``ACS3-HMAC-SHA256`` request to path ``/``.

    ``headers`` are the headers to sign: ``host`` and every ``x-acs-*`` header sent
    (``x-acs-action``, ``x-acs-version``, ``x-acs-date``, ``x-acs-signature-nonce``,
    ``x-acs-content-sha256`` = the body's SHA-256).
    """
    request, signed = _canonical(method, "/", query, headers, sha256_hex(body))
    to_sign = f"ACS3-HMAC-SHA256\n{sha256_hex(request)}"
    signature = hmac.new(
        access_key_secret.encode("utf-8"), to_sign.encode("utf-8"), hashlib.sha256
    ).hexdigest()
    return f"ACS3-HMAC-SHA256 Credential={access_key_id},SignedHeaders={signed},Signature={signature}"
