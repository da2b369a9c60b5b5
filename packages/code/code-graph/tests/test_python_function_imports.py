"""An import inside a function binds the name in that function, before the module's definition of the same
name, whether or not the imported module is in the repository: bottle's `def run(self, handler): from bjoern
import run; run(...)` calls bjoern's `run`, not bottle's own (a wrong certain answer found by session 18's
held-out IX). Real files, a real git repository, a real index."""

from __future__ import annotations

from pathlib import Path

from repo_fixtures import certain_callers as _certain
from repo_fixtures import indexed

FILES = {
    "app/__init__.py": "",
    "app/helpers.py": """def run(app):
    return app
""",
    "app/server.py": """def run(app):
    return app


class Outside:
    def run(self, app):
        from some_server_not_here import run
        run(app)


class Inside:
    def run(self, app):
        from app.helpers import run
        run(app)


def before_the_import(app):
    run(app)
    from some_server_not_here import run
    return run


def plain(app):
    run(app)
""",
}


def test_a_function_local_import_shadows_the_module_definition(tmp_path: Path) -> None:
    ix = indexed(tmp_path / "repo", FILES)
    assert _certain(ix, "python app/server.py run().") == {
        ("app/server.py", 24),  # no import in the function: the module's own
    }  # (line 18, before the function's import, is no call of it either: the import makes `run` local to the
    # whole function, as a checker reads it; Python raises UnboundLocalError there)
    assert _certain(ix, "python app/helpers.py run().") == {("app/server.py", 14)}
