"""Languages without a bundled grammar still get definitions, marked as fallback."""

from __future__ import annotations

from pathlib import Path

from ctxops_code_scan.scan import scan_file


def test_ruby_kotlin_shell(tmp_path: Path) -> None:
    (tmp_path / "a.rb").write_text("module Shop\n  class Order\n    def total\n    end\n  end\nend\n")
    (tmp_path / "b.kt").write_text("class Cart {\n    fun add(item: Item) {}\n}\nfun main() {}\n")
    (tmp_path / "c.sh").write_text("#!/bin/sh\nsetup() {\n  echo hi\n}\nfunction teardown {\n  :\n}\n")
    rb = scan_file(tmp_path, "a.rb", "ruby")
    assert rb.file.parse_status == "fallback"  # type: ignore[union-attr]
    assert [(s.qualname, s.kind, s.line) for s in rb.symbols] == [  # type: ignore[union-attr]
        ("Shop", "module", 1),
        ("Shop.Order", "class", 2),
        ("Shop.Order.total", "method", 3),
    ]
    kt = scan_file(tmp_path, "b.kt", "kotlin")
    assert [s.id for s in kt.symbols] == [  # type: ignore[union-attr]
        "kotlin b.kt Cart#",
        "kotlin b.kt Cart.add().",
        "kotlin b.kt main().",
    ]
    sh = scan_file(tmp_path, "c.sh", "shell")
    assert [s.name for s in sh.symbols] == ["setup", "teardown"]  # type: ignore[union-attr]
