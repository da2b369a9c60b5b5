"""The package is installed with its metadata and typing marker."""

from importlib.metadata import version
from importlib.resources import files

import ctxops_ledger_report


def test_version_matches_distribution_metadata() -> None:
    assert ctxops_ledger_report.__version__ == version("ctxops-ledger-report")


def test_ships_py_typed() -> None:
    assert files("ctxops_ledger_report").joinpath("py.typed").is_file()
