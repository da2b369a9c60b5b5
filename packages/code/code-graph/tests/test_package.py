"""The package is installed with its metadata and typing marker."""

from importlib.metadata import version
from importlib.resources import files

import ctxops_code_graph


def test_version_matches_distribution_metadata() -> None:
    assert ctxops_code_graph.__version__ == version("ctxops-code-graph")


def test_ships_py_typed() -> None:
    assert files("ctxops_code_graph").joinpath("py.typed").is_file()
