"""This machine's id: kept in token-capture, which stamps it on every record it writes (re-exported here)."""

from __future__ import annotations

from ctxops_token_capture.machine import (
    MACHINE_ENV,
    MACHINE_FILE,
    MachineIdError,
    checked,
    machine_id,
    state_dir,
    this_machine,
    valid,
)

__all__ = [
    "MACHINE_ENV",
    "MACHINE_FILE",
    "MachineIdError",
    "checked",
    "machine_id",
    "state_dir",
    "this_machine",
    "valid",
]
