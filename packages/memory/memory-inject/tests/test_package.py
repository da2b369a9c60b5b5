"""The package is installed with its metadata and typing marker."""

from importlib.metadata import version
from importlib.resources import files

import ctxops_memory_inject


def test_version_matches_distribution_metadata() -> None:
    assert ctxops_memory_inject.__version__ == version("ctxops-memory-inject")


def test_ships_py_typed() -> None:
    assert files("ctxops_memory_inject").joinpath("py.typed").is_file()
