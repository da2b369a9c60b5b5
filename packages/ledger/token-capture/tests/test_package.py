"""The package is installed with its metadata and typing marker."""

from importlib.metadata import version
from importlib.resources import files

import ctxops_token_capture


def test_version_matches_distribution_metadata() -> None:
    assert ctxops_token_capture.__version__ == version("ctxops-token-capture")


def test_ships_py_typed() -> None:
    assert files("ctxops_token_capture").joinpath("py.typed").is_file()


def test_no_test_data_in_the_runtime_package() -> None:
    import importlib.util

    assert importlib.util.find_spec("ctxops_token_capture.synthetic") is None  # it lives in tests/ now
