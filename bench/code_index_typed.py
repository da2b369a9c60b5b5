"""Call edges vs jedi on an indexed corpus: bench/code_index.py's sample, then only typed-receiver sites.

    uv sync --group bench
    python -m ctxops_code_graph index CORPUS --full
    uv run python bench/code_index_typed.py 300 120 CORPUS   # sites, typed sites, corpus (a git repo)

The corpus is what bench/code_index.py makes (`make_corpus`), kept instead of deleted.
"""

import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import code_index

root = Path(sys.argv[3] if len(sys.argv) > 3 else "/tmp/typed-corpus")
out: dict = {}
code_index.bench_jedi(root, out, int(sys.argv[1]))
if len(sys.argv) > 2 and int(sys.argv[2]) > 0:
    import duckdb
    import jedi

    con = duckdb.connect(str(root / ".meta/index/code.duckdb"), read_only=True)
    rows = con.execute(
        "SELECT r.rid, r.path, r.line, r.col, e.confidence, s.path, s.line FROM refs r"
        " JOIN edges e ON e.rid = r.rid JOIN symbols s ON s.id = e.dst"
        " WHERE r.receiver_type IS NOT NULL AND r.role = 'call' AND r.path NOT LIKE 'test/%'"
    ).fetchall()
    n_typed = con.execute("SELECT count(*) FROM refs WHERE receiver_type IS NOT NULL").fetchone()[0]
    sites: dict = {}
    for rid, path, line, col, conf, dpath, dline in rows:
        sites.setdefault((rid, path, line, col), set()).add((dpath, dline, conf))
    keys = sorted(sites)
    random.Random(7).shuffle(keys)
    project = jedi.Project(str(root), added_sys_path=[str(root)], smart_sys_path=False)
    judged = right = total = matched = 0
    per = Counter()
    per_right = Counter()
    started = time.perf_counter()
    for key in keys:
        if judged >= int(sys.argv[2]) or time.perf_counter() - started > 150:
            break
        rid, path, line, col = key
        try:
            names = jedi.Script(path=str(root / path), project=project).goto(line, col, follow_imports=True)
        except Exception:
            continue
        truth = set()
        for n in names:
            if n.module_path is None or n.line is None or n.type not in ("function", "class"):
                continue
            try:
                truth.add((Path(n.module_path).resolve().relative_to(root.resolve()).as_posix(), n.line))
            except ValueError:
                continue
        if not truth:
            continue
        judged += 1
        ours = sites[key]
        matched += any((p, ln) in truth for p, ln, _ in ours)
        for p, ln, conf in ours:
            per[conf] += 1
            per_right[conf] += (p, ln) in truth
    print(
        f"typed-receiver refs {n_typed}, with an edge {len(sites)}; judged {judged} jedi resolves:"
        f" recall {matched / max(judged, 1) * 100:.1f}%, "
        + ", ".join(f"{c} {per_right[c]}/{per[c]} right" for c in per)
    )
