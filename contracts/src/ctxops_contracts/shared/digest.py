"""Short content digests for the hook paths (BLAKE2b, as ``hashlib.blake2b`` computes it).

``hashlib`` loads OpenSSL's bindings (``_hashlib``) on import, ~3 ms of a fresh process, though BLAKE2 is
never taken from OpenSSL: ``hashlib.blake2b`` *is* the built-in ``_blake2.blake2b``. The hook paths use
that built-in directly (falling back to hashlib on an interpreter without it); the digests are identical.
"""

from __future__ import annotations

try:
    from _blake2 import blake2b as _blake2b
except ImportError:  # pragma: no cover - an interpreter without the built-in module
    from hashlib import blake2b as _blake2b


def blake2b_hex(data: bytes, digest_size: int) -> str:
    """``hashlib.blake2b(data, digest_size=digest_size).hexdigest()``."""
    return _blake2b(data, digest_size=digest_size).hexdigest()
