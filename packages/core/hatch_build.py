"""Bundle the workspace's examples/ into the core distribution (as ctxops_core/example)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

_PARTS = ("make_history.py", "order-service")
_SKIP = {"__pycache__", ".pytest_cache", "node_modules", ".benchmarks"}


class ExampleHook(BuildHookInterface):  # type: ignore[type-arg]
    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        workspace_examples = Path(self.root).parent.parent / "examples"
        if not (workspace_examples / "make_history.py").is_file():
            return  # building from an sdist: the copy under src/ is already in place
        prefix = "src/ctxops_core/example" if self.target_name == "sdist" else "ctxops_core/example"
        for part in _PARTS:
            source = workspace_examples / part
            files = [source] if source.is_file() else sorted(p for p in source.rglob("*") if p.is_file())
            for path in files:
                if _SKIP.intersection(path.relative_to(workspace_examples).parts) or path.suffix == ".pyc":
                    continue
                build_data["force_include"][str(path)] = f"{prefix}/{path.relative_to(workspace_examples)}"
