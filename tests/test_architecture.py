"""The dependency picture of DESIGN.md section 1: declared dependencies and imports both obey it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from workspace_facts import ALLOWED_SIBLINGS, ROOT, load_project, member_dirs, requirement_name


def _lint_imports() -> str:
    found = shutil.which("lint-imports") or str(Path(sys.executable).with_name("lint-imports"))
    if not Path(found).exists():
        pytest.skip("import-linter is not installed (uv sync installs it with the dev group)")
    return found


def test_ten_members() -> None:
    names = {load_project(d)["name"] for d in member_dirs()}
    assert names == set(ALLOWED_SIBLINGS)


@pytest.mark.parametrize("directory", member_dirs(), ids=lambda d: d.name)
def test_declared_sibling_dependencies_follow_the_rules(directory: Path) -> None:
    project = load_project(directory)
    siblings = {
        requirement_name(r) for r in project.get("dependencies", []) if requirement_name(r).startswith("ctxops")
    }
    forbidden = siblings - ALLOWED_SIBLINGS[project["name"]]
    assert not forbidden, f"{project['name']} may not depend on {sorted(forbidden)} (DESIGN.md section 1)"


@pytest.mark.parametrize("directory", member_dirs(), ids=lambda d: d.name)
def test_sibling_pins_are_ranges(directory: Path) -> None:
    for requirement in load_project(directory).get("dependencies", []):
        if requirement_name(requirement).startswith("ctxops"):
            assert ">=" in requirement and "<" in requirement, requirement


@pytest.mark.parametrize("directory", member_dirs(), ids=lambda d: d.name)
def test_member_layout(directory: Path) -> None:
    project = load_project(directory)
    module = "ctxops_core" if project["name"] == "ctxops" else project["name"].replace("-", "_")
    assert isinstance(project["version"], str), "versions are static"
    for required in ("README.md", "CHANGELOG.md", f"src/{module}/py.typed", f"src/{module}/__init__.py", "tests"):
        assert (directory / required).exists(), f"{directory.name}: missing {required}"
    assert f"## [{project['version']}]" in (directory / "CHANGELOG.md").read_text(encoding="utf-8")


def test_import_rules_hold() -> None:
    done = subprocess.run([_lint_imports(), "--no-cache"], cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_breaking_a_rule_fails_and_names_it(tmp_path: Path) -> None:
    # A stand-in code-query that imports memory-store, found first on the path.
    fake = tmp_path / "ctxops_code_query"
    fake.mkdir()
    (fake / "__init__.py").write_text("import ctxops_memory_store\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    done = subprocess.run(
        [_lint_imports(), "--no-cache"], cwd=ROOT, capture_output=True, text=True, check=False, env=env
    )
    assert done.returncode != 0
    assert "the code line imports neither the memory line nor the ledger line BROKEN" in done.stdout
    assert "ctxops_code_query -> ctxops_memory_store" in done.stdout
