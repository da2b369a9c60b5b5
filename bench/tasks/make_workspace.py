"""Build the git repository the public `ctx bench` task set runs in, from pinned registry sources.

    python bench/tasks/make_workspace.py DIR        # then: cd DIR && ctx bench run TASKS.toml ...

Each source of sources.toml is downloaded (cached under ~/.cache/ctxops-bench), checked against its sha256,
unpacked under its directory (the archive's top directory stripped) and committed with TASKS.toml.
Stdlib only; run-time downloads are from the registries (PyPI, npm) and nowhere else.
"""

from __future__ import annotations

import hashlib
import io
import shutil
import subprocess
import sys
import tarfile
import tomllib
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
CACHE = Path.home() / ".cache" / "ctxops-bench"


def fetch(url: str, sha256: str) -> bytes:
    cached = CACHE / sha256
    if cached.is_file():
        data = cached.read_bytes()
    else:
        with urllib.request.urlopen(url, timeout=120) as response:  # a pinned https URL, checked below
            data = response.read()
    digest = hashlib.sha256(data).hexdigest()
    if digest != sha256:
        raise SystemExit(f"{url}: sha256 {digest}, expected {sha256}: refusing it")
    CACHE.mkdir(parents=True, exist_ok=True)
    cached.write_bytes(data)
    return data


def unpack(data: bytes, into: Path) -> None:
    """Regular files and directories only, the top directory stripped, nothing outside ``into``."""
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        for member in archive.getmembers():
            parts = Path(member.name).parts[1:]
            if not parts or ".." in parts or not (member.isfile() or member.isdir()):
                continue
            target = into.joinpath(*parts)
            if member.isdir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            source = archive.extractfile(member)
            if source is not None:
                target.write_bytes(source.read())


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    root = Path(argv[0])
    if root.exists() and any(root.iterdir()):
        print(f"{root} exists and is not empty", file=sys.stderr)
        return 2
    root.mkdir(parents=True, exist_ok=True)
    for source in tomllib.loads((HERE / "sources.toml").read_text(encoding="utf-8"))["source"]:
        unpack(fetch(source["url"], source["sha256"]), root / source["dir"])
    shutil.copy(HERE / "TASKS.toml", root / "TASKS.toml")
    git = ["git", "-C", str(root), "-c", "user.name=ctxops bench", "-c", "user.email=bench@ctxops.invalid"]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run(
        [*git, "commit", "-qm", "public ctx bench workspace: attrs 23.2.0, click 8.1.7, semver 7.6.3"], check=True
    )
    print(f"{root}: ready (cd {root} && ctx bench run TASKS.toml --arms off,all --repeat 3)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
