"""Locate the bundled example project and make a git repository of it with its scripted history."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

_MARKER = "make_history.py"


class ExampleNotFound(RuntimeError):
    """The example project is neither bundled with this install nor in a source checkout."""


def example_dir() -> Path:
    """The `examples/` directory: $CTXOPS_EXAMPLE_DIR, the copy bundled in the wheel, or a source checkout."""
    override = os.environ.get("CTXOPS_EXAMPLE_DIR")
    candidates = [Path(override)] if override else []
    here = Path(__file__).resolve()
    candidates.append(here.parent / "example")
    candidates += [parent / "examples" for parent in here.parents]
    for candidate in candidates:
        if (candidate / _MARKER).is_file():
            return candidate
    raise ExampleNotFound(
        "the bundled example project is missing; reinstall ctxops, or set CTXOPS_EXAMPLE_DIR to the "
        "examples/ directory of a ctxops checkout"
    )


def make_example_repo(dest: Path) -> str:
    """Create the example git repository (reproducible history) at `dest`; return its HEAD commit."""
    script = example_dir() / _MARKER
    done = subprocess.run(
        [sys.executable, str(script), str(dest)], capture_output=True, text=True, check=False, timeout=120
    )
    if done.returncode != 0:
        raise RuntimeError(f"{script.name} failed ({done.returncode}): {done.stderr.strip() or done.stdout.strip()}")
    return done.stdout.strip().splitlines()[-1].split()[-1]
