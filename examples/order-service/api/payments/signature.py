"""HMAC signatures on payment provider callbacks.

The provider sends ``X-Pay-Signature: t=<unix seconds>,v1=<hex digest>``
where the digest is HMAC-SHA256 of ``"<t>." + body`` keyed with the shared
webhook secret. Several ``v1`` entries may be present during secret rotation.
"""

from __future__ import annotations

import hashlib
import hmac

from api.errors import SignatureMismatch

SIGNATURE_HEADER = "X-Pay-Signature"
SCHEME = "v1"


def compute_digest(secret: str, timestamp: int, body: bytes) -> str:
    """Return the hex HMAC-SHA256 of ``"<timestamp>." + body``."""
    message = str(timestamp).encode("ascii") + b"." + body
    return hmac.new(secret.encode("utf-8"), message, hashlib.sha256).hexdigest()


def sign_payload(secret: str, timestamp: int, body: bytes) -> str:
    """Build a signature header value, as the provider (or a test) would."""
    return f"t={timestamp},{SCHEME}={compute_digest(secret, timestamp, body)}"


def parse_signature_header(header: str) -> tuple[int, list[str]]:
    """Split a signature header into its timestamp and candidate digests."""
    timestamp: int | None = None
    digests: list[str] = []
    for part in header.split(","):
        key, sep, value = part.strip().partition("=")
        if not sep:
            continue
        if key == "t":
            try:
                timestamp = int(value)
            except ValueError:
                raise SignatureMismatch("signature timestamp is not an integer") from None
        elif key == SCHEME:
            digests.append(value)
    if timestamp is None or not digests:
        raise SignatureMismatch("signature header lacks a timestamp or a v1 digest")
    return timestamp, digests


def verify_signature(secret: str, body: bytes, header: str | None, *,
                     now: float, tolerance_seconds: int) -> int:
    """Check a callback signature and return its timestamp.

    Raises ``SignatureMismatch`` if the header is missing or malformed, the
    timestamp is outside the tolerance window (replay protection) or no
    digest matches. Digests are compared in constant time.
    """
    if not header:
        raise SignatureMismatch(f"missing {SIGNATURE_HEADER} header")
    timestamp, digests = parse_signature_header(header)
    if abs(now - timestamp) > tolerance_seconds:
        raise SignatureMismatch(f"signature timestamp {timestamp} outside tolerance")
    expected = compute_digest(secret, timestamp, body)
    if not any(hmac.compare_digest(expected, digest) for digest in digests):
        raise SignatureMismatch("no signature digest matches")
    return timestamp
