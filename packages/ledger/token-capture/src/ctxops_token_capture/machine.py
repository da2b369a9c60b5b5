"""A stable id for this machine, stamped on every call record it writes (ingest, ``ctx proxy``, the SDK wrapper).

The id travels with the record: a record copied to another machine keeps the id of the machine that recorded
it, and ``ctx ledger push`` files each call under its own id (``machine=ID``). Records written before the id
was stamped (schema 1.2 records without ``machine_id``) get the id of the machine whose ledger loads them.

Generated once per machine as random hex (``secrets.token_hex``: nothing derived from the host name, a MAC
address, a user name or any other local fact, so it says nothing about the machine) and kept in
``$XDG_STATE_HOME/ctxops/machine-id`` (``~/.local/state/ctxops/machine-id``). ``$CTXOPS_MACHINE_ID`` or
``machine_id`` under ``[ledger]`` in the user config (never a repository's ``.meta/config.toml``: a
repository does not get to speak for the machine) override it, e.g. to give a laptop a readable name. An
id names a partition directory, so it is 1-64 characters of ``A-Z a-z 0-9 . _ -`` starting with a letter or
digit. Stdlib only.

:func:`this_machine` is what the writers call: the id resolved once per process (per environment), or None
when an override is invalid (the record then carries none; ``ctx ledger push`` names the problem).
"""

from __future__ import annotations

import logging
import os
import re
import secrets
import tomllib
from pathlib import Path

from ctxops_contracts.shared.layout import CONFIG_FILE

MACHINE_ENV = "CTXOPS_MACHINE_ID"
MACHINE_FILE = "machine-id"
CONFIG_ENV = "CTXOPS_CONFIG"  # the user config (ledger-report's config module reads the same file)
_VALID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
# What the id depends on: the cache of :func:`this_machine` is keyed on it (tests switch HOME per machine).
_INPUTS = (MACHINE_ENV, CONFIG_ENV, "XDG_CONFIG_HOME", "XDG_STATE_HOME", "HOME")
_resolved: dict[tuple[str, ...], str | None] = {}

log = logging.getLogger(__name__)


class MachineIdError(ValueError):
    """An override that cannot name a partition directory."""


def user_config_path() -> Path:
    """``$CTXOPS_CONFIG``, else ``$XDG_CONFIG_HOME/ctxops/config.toml`` (``~/.config/ctxops/config.toml``)."""
    override = os.environ.get(CONFIG_ENV, "").strip()
    if override:
        return Path(override).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME", "").strip()
    return (Path(base) if base else Path.home() / ".config") / "ctxops" / CONFIG_FILE


def this_machine() -> str | None:
    """This machine's id for a record being written (see :func:`machine_id`, with the user config); None when
    an override is not a valid id or the id cannot be stored (logged once: a record is never lost over it)."""
    config = user_config_path()
    try:
        st = config.stat()
        seen = f"{st.st_mtime_ns}:{st.st_size}"  # an edit of the user config applies to what is written after it
    except OSError:
        seen = ""
    key = (*(os.environ.get(name, "") for name in _INPUTS), seen)
    if key not in _resolved:
        try:
            _resolved[key] = machine_id(config)
        except (MachineIdError, OSError) as exc:
            log.warning("records are written without a machine id: %s", exc)
            _resolved[key] = None
    return _resolved[key]


def state_dir() -> Path:
    """``$XDG_STATE_HOME/ctxops``, else ``~/.local/state/ctxops``."""
    base = os.environ.get("XDG_STATE_HOME", "").strip()
    return (Path(base).expanduser() if base else Path.home() / ".local" / "state") / "ctxops"


def valid(value: str) -> bool:
    return _VALID.fullmatch(value) is not None


def checked(value: str, where: str) -> str:
    """``value`` stripped, or :class:`MachineIdError` naming ``where`` it came from."""
    value = value.strip()
    if not valid(value):
        raise MachineIdError(
            f"{where}: machine id {value[:80]!r} is not 1-64 characters of A-Z a-z 0-9 . _ - "
            "(starting with a letter or digit)"
        )
    return value


def _from_config(config: Path | None) -> str | None:
    if config is None or not config.is_file():
        return None
    try:
        data = tomllib.loads(config.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None  # the report/price paths name a broken config; the machine id falls back to its file
    section = data.get("ledger")
    value = section.get("machine_id") if isinstance(section, dict) else None
    if value is None:
        return None
    if not isinstance(value, str):
        raise MachineIdError(f"{config}: [ledger] machine_id must be a string")
    return checked(value, f"{config}: [ledger] machine_id")


def machine_id(config: Path | None = None) -> str:
    """This machine's id: ``$CTXOPS_MACHINE_ID``, the user config's ``[ledger] machine_id``, else the stored one.

    The stored one is created on first use (linked into place whole: two processes racing agree on the winner's).
    """
    env = os.environ.get(MACHINE_ENV, "")
    if env.strip():
        return checked(env, f"${MACHINE_ENV}")
    configured = _from_config(config)
    if configured:
        return configured
    path = state_dir() / MACHINE_FILE
    stored = _read(path)
    if stored:
        return stored
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fresh = secrets.token_hex(8)
    tmp = path.with_name(f".{MACHINE_FILE}.{os.getpid()}.{secrets.token_hex(4)}")
    tmp.write_text(fresh + "\n", encoding="ascii")
    try:
        os.link(tmp, path)  # whole file or nothing; an existing id (another process won) is kept
    except FileExistsError:
        return _read(path) or fresh
    finally:
        tmp.unlink(missing_ok=True)
    return fresh


def _read(path: Path) -> str | None:
    try:
        text = path.read_text(encoding="ascii", errors="replace").strip()
    except FileNotFoundError:
        return None
    if not text:
        return None
    return checked(text, str(path))
