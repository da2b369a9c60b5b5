"""``json.loads`` / ``json.dumps`` for the hook paths, without importing ``json``.

``import json`` imports ``re``, and ``re`` imports ``enum``: about 10 ms of a fresh process, half of what
Python itself needs to start, paid by every hook an agent runs. The work itself is done in C either way:
``json`` hands decoding and encoding to its accelerator module ``_json`` (``make_scanner``,
``make_encoder``), whose only Python-level needs are a few settings. This module calls the accelerator
with the settings ``json`` would pass, so results are the same as ``json.loads`` / ``json.dumps`` (a
test compares them); any error, and any interpreter without ``_json``, goes through ``json`` itself,
so error types and messages are ``json``'s too.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported on the hook path; type checkers treat this name as True
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

try:
    import _json
except ImportError:  # pragma: no cover - an interpreter without the accelerator: plain json below
    _json = None  # type: ignore[assignment]
_C: Any = _json  # typeshed's signatures for the accelerator are not the ones json calls it with

_WHITESPACE = " \t\n\r"


class _Settings:
    """What ``_json.make_scanner`` reads from its decoder (the attributes of ``json.JSONDecoder``)."""

    __slots__ = ("memo", "object_hook", "object_pairs_hook", "parse_constant", "parse_float", "parse_int", "strict")

    def __init__(self, parse_float: Callable[[str], Any] | None, parse_constant: Callable[[str], Any] | None) -> None:
        self.strict = True
        self.object_hook = None
        self.object_pairs_hook = None
        self.parse_float = parse_float or float
        self.parse_int = int
        self.parse_constant = parse_constant or _CONSTANTS.__getitem__
        self.memo: dict[str, str] = {}


_CONSTANTS = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}
_scanners: dict[tuple[object, object], Any] = {}


def loads(
    data: str | bytes,
    *,
    parse_float: Callable[[str], Any] | None = None,
    parse_constant: Callable[[str], Any] | None = None,
) -> Any:
    """``json.loads(data, parse_float=..., parse_constant=...)``: same value, same errors.

    Bytes are read as UTF-8 (what agents send); other encodings ``json.loads`` detects go through it.
    """
    if _C is None:
        return _slow_loads(data, parse_float, parse_constant)
    if isinstance(data, (bytes, bytearray)):
        if data[:3] == b"\xef\xbb\xbf" or (data[:1] and not data[:1][0]) or (len(data) > 1 and not data[1]):
            return _slow_loads(data, parse_float, parse_constant)  # a BOM or UTF-16/32: json's detection
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return _slow_loads(data, parse_float, parse_constant)
    else:
        text = data
    key = (parse_float, parse_constant)
    scan = _scanners.get(key)
    if scan is None:
        scan = _scanners[key] = _C.make_scanner(_Settings(parse_float, parse_constant))
    start = len(text) - len(text.lstrip(_WHITESPACE))
    try:
        value, end = scan(text, start)
    except Exception:  # json raises its own error (the C scanner needs json.decoder loaded to raise one)
        return _slow_loads(text, parse_float, parse_constant)
    if end != len(text) and text[end:].strip(_WHITESPACE):
        return _slow_loads(text, parse_float, parse_constant)  # extra data: json's error
    return value


def dumps(value: Any, *, ensure_ascii: bool = True, allow_nan: bool = True, compact: bool = False) -> str:
    """``json.dumps(value, ensure_ascii=..., allow_nan=...)``; ``compact`` uses ``separators=(",", ":")``."""
    if _C is None or isinstance(value, str):
        import json

        separators = (",", ":") if compact else None
        return json.dumps(value, ensure_ascii=ensure_ascii, allow_nan=allow_nan, separators=separators)
    encode = _C.make_encoder(
        {},  # markers: circular references raise ValueError, as json's check_circular does
        _unserializable,
        _C.encode_basestring_ascii if ensure_ascii else _C.encode_basestring,
        None,  # indent
        ":" if compact else ": ",
        "," if compact else ", ",
        False,  # sort_keys
        False,  # skipkeys
        allow_nan,
    )
    return "".join(encode(value, 0))


def _unserializable(value: object) -> Any:
    raise TypeError(f"Object of type {value.__class__.__name__} is not JSON serializable")


def _slow_loads(
    data: str | bytes, parse_float: Callable[[str], Any] | None, parse_constant: Callable[[str], Any] | None
) -> Any:
    import json

    return json.loads(data, parse_float=parse_float, parse_constant=parse_constant)
