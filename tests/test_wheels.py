"""Wheels: the workspace builds ten distributions; contracts installs and works alone."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from workspace_facts import ALLOWED_SIBLINGS, ROOT, find_uv

pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    uv = find_uv()
    out = tmp_path_factory.mktemp("wheels")
    done = subprocess.run(
        [uv, "build", "--all-packages", "--wheel", "--out-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return out


def test_builds_ten_wheels(wheelhouse: Path) -> None:
    names = {w.name.split("-")[0].replace("_", "-") for w in wheelhouse.glob("*.whl")}
    assert names == set(ALLOWED_SIBLINGS)


def test_contracts_alone_in_a_clean_venv(wheelhouse: Path, tmp_path: Path) -> None:
    uv = find_uv()
    venv = tmp_path / "venv"
    subprocess.run([uv, "venv", "--quiet", str(venv)], check=True)
    python = venv / "bin" / "python"
    (wheel,) = wheelhouse.glob("ctxops_contracts-*.whl")
    subprocess.run([uv, "pip", "install", "--quiet", "--python", str(python), str(wheel)], check=True)
    script = (
        "import ctxops_contracts as c, importlib.metadata as m\n"
        'r = c.decode(c.Reference, b\'{"symbol_name":"f","path":"a.py","line":3,"role":"call"}\')\n'
        "assert r.line == 3\n"
        "try:\n"
        '    c.decode(c.Reference, b\'{"symbol_name":"f","path":"a.py","line":"3","role":"call"}\')\n'
        "except c.ContractError as e:\n"
        "    assert '$.line' in str(e)\n"
        "else:\n"
        "    raise SystemExit('bad record accepted')\n"
        "from ctxops_contracts import schemas\n"
        "assert schemas.stale_files(schemas.DEFAULT_DIR) == [], schemas.DEFAULT_DIR\n"
        "print(sorted(d.metadata['Name'] for d in m.distributions()))\n"
    )
    done = subprocess.run([str(python), "-c", script], capture_output=True, text=True, check=False, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    # Only contracts and its single runtime dependency are installed.
    assert done.stdout.strip() == "['ctxops-contracts', 'msgspec']"


def test_core_wheel_carries_the_example(wheelhouse: Path) -> None:
    import zipfile

    (wheel,) = wheelhouse.glob("ctxops-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "ctxops_core/example/make_history.py" in names
    assert any(n.startswith("ctxops_core/example/order-service/api/") for n in names)
    assert not any("__pycache__" in n for n in names)
