"""AWS Signature Version 4 for GET requests of the EC2 Query API (``DescribeSpotPriceHistory``).

As AWS documents it ("Create a signed AWS API request", Signature Version 4): a canonical request,
a string to sign over its SHA-256, and an HMAC-SHA256 chain of date, region, service and
``aws4_request``. Only what the spot fetcher needs: GET, query-string parameters, no body.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from urllib.parse import quote

__all__ = ["authorization", "canonical_query"]


def canonical_query(params: Mapping[str, str]) -> str:
    """Parameters sorted by name, each name and value percent-encoded (RFC 3986 unreserved kept)."""
    return "&".join(f"{quote(k, safe='-_.~')}={quote(v, safe='-_.~')}" for k, v in sorted(params.items()))


def _hmac(key: bytes, msg: str) -> bytes:
    return hmac.new(key, msg.encode("utf-8"), hashlib.sha256).digest()


def authorization(
    *,
    access_key: str,
    secret_key: str,
    region: str,
    service: str,
    host: str,
    query: str,
    amz_date: str,
    session_token: str | None = None,
) -> str:
    """The ``Authorization`` header of a signed GET to ``https://host/?query`` at ``amz_date``
    (``YYYYMMDDTHHMMSSZ``; sent as ``X-Amz-Date``, with ``X-Amz-Security-Token`` when given)."""
    headers = {"host": host, "x-amz-date": amz_date}
    if session_token:
        headers["x-amz-security-token"] = session_token
    names = sorted(headers)
    canonical_headers = "".join(f"{n}:{headers[n]}\n" for n in names)
    signed = ";".join(names)
    empty_hash = hashlib.sha256(b"").hexdigest()
    request = "\n".join(["GET", "/", query, canonical_headers, signed, empty_hash])
    day = amz_date[:8]
    scope = f"{day}/{region}/{service}/aws4_request"
    to_sign = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope, hashlib.sha256(request.encode()).hexdigest()])
    key = _hmac(
        _hmac(_hmac(_hmac(("AWS4" + secret_key).encode("utf-8"), day), region), service), "aws4_request"
    )
    signature = hmac.new(key, to_sign.encode("utf-8"), hashlib.sha256).hexdigest()
    return f"AWS4-HMAC-SHA256 Credential={access_key}/{scope}, SignedHeaders={signed}, Signature={signature}"
