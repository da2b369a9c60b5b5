"""The bundled order service (Python API, TypeScript web, Go worker), as a real git history."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from ctxops_code_graph import CodeIndex

MAKE_HISTORY = Path(__file__).resolve().parents[3] / "examples" / "make_history.py"


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> CodeIndex:
    if not MAKE_HISTORY.exists():
        pytest.skip("examples/ is not in this checkout")
    root = tmp_path_factory.mktemp("example") / "order-service"
    head = subprocess.run(
        [sys.executable, str(MAKE_HISTORY), str(root)], check=True, capture_output=True, text=True
    ).stdout.split()[-1]
    ix = CodeIndex(root)
    report = ix.build()
    assert report.mode == "full" and report.revision == head[:7]
    return ix


def test_all_three_languages_are_indexed(index: CodeIndex) -> None:
    st = index.status()
    assert set(st.files_by_language) == {"python", "go", "typescript", "tsx"}
    assert st.parse_problems == [] and st.symbols > 500 and st.edges > 1000


def test_python_state_machine(index: CodeIndex) -> None:
    (sym,) = index.definitions("OrderStateMachine.transition")
    assert sym.path == "api/orders/state_machine.py" and sym.kind == "method"
    callers = {h.symbol.qualname for h in index.callers(sym.id) if h.symbol}
    assert {"cancel_order", "mark_shipped", "close_expired_orders"} <= callers
    impact = index.impact(sym.id)
    assert "api/tests/test_state_machine.py" in impact.tests
    assert any(s.qualname == "test_transition_records_history_and_timestamps" for s in impact.test_symbols)


def test_typescript_imports_resolve(index: CodeIndex) -> None:
    (fmt,) = index.definitions("formatMoney")
    assert fmt.path == "web/src/utils/money.ts"
    hops = index.callers(fmt.id)
    assert hops and {h.edge.confidence for h in hops} == {"import-resolved"}
    assert "web/src/components/OrderSummary.tsx" in {h.edge.path for h in hops}


def test_go_package_scope_and_imports(index: CodeIndex) -> None:
    (ctor,) = index.definitions("NewConsumer")
    by_conf = {(h.edge.path, h.edge.confidence) for h in index.callers(ctor.id)}
    assert ("worker/cmd/worker/main.go", "import-resolved") in by_conf
    assert ("worker/internal/queue/consumer_test.go", "exact") in by_conf
    outline = [(s.qualname, s.kind) for s in index.symbols_in_file("worker/internal/queue/consumer.go")]
    assert ("Consumer", "struct") in outline and ("Consumer.Poll", "method") in outline


def test_ranked_map_puts_hubs_first_and_personalizes(index: CodeIndex) -> None:
    top = [f.path for f in index.ranked_files(limit=5)]
    assert "api/models.py" in top
    focused = index.ranked_files(query_terms=["payment"], limit=3)
    assert any("payment" in f.path for f in focused)
    in_play = index.ranked_files(files_in_play=["worker/internal/queue/consumer.go"], limit=3)
    assert in_play[0].path.startswith("worker/")


def test_code_index_satisfies_the_symbol_index_protocol(index: CodeIndex) -> None:
    from ctxops_contracts import SymbolIndex

    seam: SymbolIndex = index  # checked by mypy too: CodeIndex is usable wherever the protocol is asked for
    assert isinstance(seam, SymbolIndex)
    assert [s.path for s in seam.definitions("verify_signature")] == ["api/payments/signature.py"]
    assert {r.path for r in seam.references("verify_signature")} >= {"api/payments/callbacks.py"}
