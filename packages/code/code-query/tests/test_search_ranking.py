"""How `cq search` ranks on a small repository of its own: functions above constants that share a word,
British and American spellings, and vectors that bring in a file no word of the question matches."""

from __future__ import annotations

import math
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest
from ctxops_code_query.cli import main
from ctxops_contracts import QueryResult, decode

FILES = {
    "render/lexers.py": '''
SYNTAX_LEXER = "python"
DEFAULT_THEME = "monokai"


def guess(path, code=None):
    """Pick the syntax lexer for a path and its code."""
    if path.endswith(".py"):
        return "python"
    return "text"
''',
    "render/colors.py": '''
def parse_color(text):
    """Read a color written as #rrggbb."""
    value = int(text.lstrip("#"), 16)
    return value >> 16, (value >> 8) & 255, value & 255
''',
    "gallery/picture.py": '''
def change_picture_title(picture, title):
    """Change the title shown under a picture."""
    picture.title = title
    return picture
''',
    "paint/tint.py": '''
def apply_tint(image, amount):
    """Shift the image's tint by an amount."""
    return [pixel + amount for pixel in image]
''',
}


def make_repo(root: Path) -> Path:
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text.lstrip())
    (root / ".gitignore").write_text(".meta/\n")
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@e.invalid", "PATH": "/usr/bin:/bin"}  # fmt: skip
    for argv in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "x"]):
        subprocess.run(["git", *argv], cwd=root, check=True, env=env)
    from ctxops_code_query.graph_backend import build_index

    build_index(root)
    return root


def search(capsys: pytest.CaptureFixture[str], root: Path, *args: str) -> QueryResult:
    code = main(["search", *args, "--root", str(root), "--no-cache", "--json", "--deadline", "60"])
    out, _ = capsys.readouterr()
    assert code in (0, 1), out
    return decode(QueryResult, out.encode())


def names(result: QueryResult) -> list[str]:
    return [h.text.split("  #")[0].split()[-1] for h in result.hits]


def test_a_function_ranks_above_constants_that_share_its_words(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root = make_repo(tmp_path)
    result = search(capsys, root, "syntax lexer")
    assert names(result)[0] == "guess", names(result)
    assert "SYNTAX_LEXER" in names(result)  # still listed, lower
    exact = search(capsys, root, "SYNTAX_LEXER")  # asked for by name: first
    assert names(exact)[0] == "SYNTAX_LEXER"


def test_british_and_american_spellings_meet(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    assert names(search(capsys, root, "read a colour"))[0] == "parse_color"


class ConceptEmbedder:
    """A tiny real embedder for the test: one dimension per concept (its words), so "hue" and "tint" are
    near while sharing no letters; a constant last dimension keeps every vector non-zero."""

    CONCEPTS = ({"hue", "tint", "colour", "shade"}, {"picture", "image", "photo"}, {"title", "caption", "name"})
    name = "test-concepts"
    dimensions = len(CONCEPTS) + 1

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out = []
        for text in texts:
            tokens = {t.strip(".,'\"()").lower().removesuffix("'s") for t in text.split()}
            vec = [float(len(tokens & c)) for c in self.CONCEPTS] + [0.1]
            norm = math.sqrt(sum(v * v for v in vec))
            out.append([v / norm for v in vec])
        return out


def test_vectors_bring_in_a_file_no_word_of_the_question_matches(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("lancedb")
    root = make_repo(tmp_path)
    question = "change the hue of a photo"
    lexical = search(capsys, root, question)
    assert "apply_tint" not in names(lexical)  # no shared word: never a candidate file for BM25
    monkeypatch.setenv("CQ_EMBEDDER", f"{__name__}:ConceptEmbedder")
    assert main(["index", "--vectors", "--root", str(root)]) == 0  # the whole table
    capsys.readouterr()
    hybrid = search(capsys, root, question, "--vector")
    assert "apply_tint" in names(hybrid)[:2], names(hybrid)
