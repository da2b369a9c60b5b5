"""The package is installed with its metadata and typing marker."""

from importlib.metadata import version
from importlib.resources import files

import ctxops_hooks_capture


def test_version_matches_distribution_metadata() -> None:
    assert ctxops_hooks_capture.__version__ == version("ctxops-hooks-capture")


def test_ships_py_typed() -> None:
    assert files("ctxops_hooks_capture").joinpath("py.typed").is_file()
