"""The package exports load on first use, so the light submodules stay free of msgspec (the hook path)."""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest


def _modules_after(code: str) -> set[str]:
    probe = f"{code}\nimport sys; print(sorted(sys.modules))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(ast.literal_eval(done.stdout.splitlines()[-1]))


def test_ids_and_versioning_import_without_msgspec() -> None:
    loaded = _modules_after(
        "import ctxops_contracts.ids, ctxops_contracts.versioning\n"
        "assert ctxops_contracts.ids.is_ulid(ctxops_contracts.ids.new_ulid())\n"
        "assert ctxops_contracts.versioning.SCHEMA_VERSION"
    )
    assert not {"msgspec", "typing_extensions", "ctxops_contracts.codec", "ctxops_contracts.records"} & loaded


def test_a_record_import_loads_what_it_needs() -> None:
    assert {"msgspec", "ctxops_contracts.records"} <= _modules_after("from ctxops_contracts import AgentEvent")


def test_every_export_resolves_to_its_module_object() -> None:
    import ctxops_contracts
    from ctxops_contracts import codec, ids, protocols, records, versioning

    modules = (codec, ids, protocols, records, versioning)
    for name in ctxops_contracts.__all__:
        value = getattr(ctxops_contracts, name)
        if name != "__version__":
            assert any(getattr(m, name, None) is value for m in modules), name
    assert set(ctxops_contracts.__all__) <= set(dir(ctxops_contracts))


def test_star_import_and_unknown_names() -> None:
    namespace: dict[str, object] = {}
    exec("from ctxops_contracts import *", namespace)
    assert "AgentEvent" in namespace and "new_ulid" in namespace and "decode" in namespace
    import ctxops_contracts

    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        _ = ctxops_contracts.Nope  # type: ignore[attr-defined]
