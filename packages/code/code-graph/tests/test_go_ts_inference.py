"""Issue 24 (Go and TypeScript): receivers typed the way go/types and the TypeScript compiler type them,
on small real repositories indexed for real. Each expected site is the line holding its `// <tag>` marker;
`// not` marks a call no certain answer may list."""

from __future__ import annotations

from pathlib import Path

from ctxops_code_graph import CodeIndex
from repo_fixtures import make_repo

GO = {
    "go.mod": "module example.com/logx\n\ngo 1.22\n",
    "logx/logger.go": """package logx

type Writer struct{}

func (w *Writer) Write() {}

type Hook interface{ Fire() }

type Sink interface{ Flush() }

type LevelHooks map[int][]Hook

type Logger struct {
	hooks LevelHooks
	out   *Writer
}

func New() *Logger { return &Logger{} }

func (l *Logger) Info() {}

func (hooks LevelHooks) FireAll(level int) {
	for _, hook := range hooks[level] {
		hook.Fire() // range-named
	}
}
""",
    "logx/exported.go": """package logx

var (
	// std is the package's logger
	std = New()
)

var sink Sink = nil

func Info() {
	std.Info() // package-var
	sink.Flush() // stated-var
}
""",
    "logx/route.go": """package logx

type group struct {
	host *Writer
	all  []*Writer
	byName map[string]*Logger
}

type conf struct {
	regexp group
}

type Route struct {
	conf
}

func (r *Route) Run(x interface{}, fs []*Logger) {
	r.regexp.host.Write() // chained
	for _, w := range r.regexp.all {
		w.Write() // range-field
	}
	r.regexp.all[0].Write() // index
	r.regexp.byName["a"].Info() // map-index
	if l, ok := x.(*Logger); ok {
		l.Info() // assertion
	}
	x.(*Writer).Write() // assertion-chain
	for _, f := range fs {
		f.Info() // range-param
	}
}

func (r *Route) Mixed(ws []*Writer, each func(func(f *Logger))) {
	each(func(f *Logger) { f.Info() }) // literal-param
	for _, f := range ws {
		f.Info() // not
	}
}
""",
}


def _lines(files: dict[str, str], tag: str) -> set[tuple[str, int]]:
    return {
        (path, i)
        for path, text in files.items()
        for i, line in enumerate(text.splitlines(), 1)
        if line.rstrip().endswith(f"// {tag}")
    }


def _sites(idx: CodeIndex, symbol_id: str) -> set[tuple[str, int]]:
    return {(str(h.edge.path), int(h.edge.line or 0)) for h in idx.callers(symbol_id, 1, certain_only=True)}


def test_go_package_vars_chained_fields_assertions_and_range(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "logx", GO)
    idx = CodeIndex(root, auto_update=False)
    idx.build(full=True)
    try:
        info = _sites(idx, "go logx/logger.go Logger.Info().")
        for tag in ("package-var", "map-index", "assertion", "range-param"):
            assert _lines(GO, tag) <= info, tag
        assert not (_lines(GO, "not") & info)  # `f` there is a *Writer (the literal's `f` is another name)
        write = _sites(idx, "go logx/logger.go Writer.Write().")
        for tag in ("chained", "range-field", "index", "assertion-chain"):
            assert _lines(GO, tag) <= write, tag
        # an element of a named map type (`type LevelHooks map[int][]Hook`): the interface's method
        assert _lines(GO, "range-named") <= _sites(idx, "go logx/logger.go Hook.Fire().")
        # `var sink Sink = nil`: the written type, in another file of the package
        assert _lines(GO, "stated-var") <= _sites(idx, "go logx/logger.go Sink.Flush().")
    finally:
        idx.close()
