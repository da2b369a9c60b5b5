"""The output discipline: caps, counted budget, truncation marker, no-match line, footer, JSON facts."""

from __future__ import annotations

from ctxops_code_query.answer import Answer
from ctxops_code_query.render import Limits, clip, render
from ctxops_code_query.tokens import estimate_tokens
from ctxops_contracts import QueryHit, QueryResult, decode, encode


def _answer(n: int, **kw: object) -> Answer:
    a = Answer(command="def", query="f", index_revision="abc1234+dirty", **kw)  # type: ignore[arg-type]
    for i in range(n):
        a.add(QueryHit(path=f"pkg/mod{i % 3}.py", line=i + 1, text=f"function f{i}(x, y) -> int"))
    return a


def test_one_hit_per_line_with_repo_relative_location_and_footer() -> None:
    r = render(_answer(3), Limits())
    lines = r.text.splitlines()
    assert lines[:3] == [
        "pkg/mod0.py:1  function f0(x, y) -> int",
        "pkg/mod1.py:2  function f1(x, y) -> int",
        "pkg/mod2.py:3  function f2(x, y) -> int",
    ]
    assert lines[-1] == "-- index abc1234+dirty"
    assert r.exit_code == 0
    assert r.result.total == 3 and not r.result.truncated and r.result.omitted == 0


def test_cap_prints_and_n_more_with_a_hint() -> None:
    a = _answer(25)
    a.hint = "qualify the name"
    r = render(a, Limits(max_hits=10, budget=5000))
    assert len(r.result.hits) == 10
    assert "... and 15 more (capped at --max 10; raise --max or narrow: qualify the name)" in r.text
    assert r.result.truncated and r.result.omitted == 15 and r.result.total == 25


def test_budget_is_enforced_by_counting() -> None:
    a = _answer(200)
    for budget in (40, 100, 300):
        r = render(a, Limits(max_hits=500, budget=budget))
        assert estimate_tokens(r.text) <= budget, (budget, estimate_tokens(r.text))
        assert r.result.truncated
        assert f"truncated at the ~{budget}-token budget" in r.text
        assert r.result.token_estimate == estimate_tokens(r.text)
    assert len(render(a, Limits(max_hits=500, budget=300)).result.hits) > len(
        render(a, Limits(max_hits=500, budget=100)).result.hits
    )


def test_first_hit_is_cut_rather_than_dropped_when_it_alone_exceeds_the_budget() -> None:
    a = Answer(command="grep", query="x")
    a.add(QueryHit(path="min.js", line=1, text="word " * 500))
    r = render(a, Limits(budget=40, width=100000))
    assert r.result.truncated and len(r.result.hits) == 1
    assert estimate_tokens(r.text) <= 60


def test_width_cap_marks_what_was_cut() -> None:
    assert clip("x" * 50, 50) == "x" * 50
    cut = clip("x" * 500, 60)
    assert len(cut) == 60 and cut.endswith("…[+440 chars]")
    a = Answer(command="grep", query="x")
    a.add(QueryHit(path="a.min.js", line=1, text="y" * 10000))
    assert all(len(line) <= 80 for line in render(a, Limits(width=80, budget=5000)).text.splitlines())


def test_grouped_output_writes_each_path_once() -> None:
    a = Answer(command="grep", query="x", grouped=True)
    for path, line in (("a.py", 3), ("a.py", 9), ("b.py", 1)):
        a.add(QueryHit(path=path, line=line, text="x = 1"))
    assert render(a, Limits()).text.splitlines() == [
        "a.py",
        "      3  x = 1",
        "      9  x = 1",
        "b.py",
        "      1  x = 1",
    ]


def test_detail_lines_are_indented_under_their_hit() -> None:
    a = Answer(command="def", query="f")
    a.add(QueryHit(path="a.py", line=1, text="function f()\nreturn 1"))
    assert render(a, Limits()).text.splitlines() == ["a.py:1  function f()", "    return 1"]


def test_no_matches_line_with_suggestions_and_exit_1() -> None:
    a = Answer(command="def", query="Tranistion", suggestions=["transition", "Transition"], hint="cq search")
    r = render(a, Limits())
    assert r.text.splitlines()[0] == "no matches for def Tranistion"
    assert "did you mean: transition, Transition" in r.text
    assert r.exit_code == 1
    assert r.result.hint == "did you mean: transition, Transition" and r.result.total == 0


def test_stale_files_in_footer_and_json() -> None:
    a = _answer(1, stale_files=["a.py", "b.py", "c.py", "d.py"])
    r = render(a, Limits())
    assert r.text.splitlines()[-1] == "-- index abc1234+dirty; stale: a.py, b.py, c.py (+1) (run `cq index`)"
    assert r.result.stale_files == ["a.py", "b.py", "c.py", "d.py"]


def test_partial_answers_are_marked_and_exit_3() -> None:
    a = _answer(2)
    a.partial = True
    r = render(a, Limits())
    assert "!! partial: the deadline expired" in r.text
    assert r.exit_code == 3 and r.result.partial
    empty = Answer(command="refs", query="x", partial=True)
    assert render(empty, Limits()).exit_code == 3


def test_json_round_trips_as_a_query_result() -> None:
    r = render(_answer(12), Limits())
    back = decode(QueryResult, encode(r.result))
    assert back == r.result
    assert back.total == 12 and back.omitted == 2 and back.index_revision == "abc1234+dirty"


def test_a_ranked_answer_is_chosen_in_rank_order_and_shown_grouped_by_file() -> None:
    a = Answer(command="search", query="q", ranked=True, grouped=True, hint="add distinctive words")
    for path, line in [("a.py", 10), ("b/c.py", 5), ("a.py", 30), ("d.py", 1), ("b/c.py", 2), ("a.py", 99)]:
        a.add(QueryHit(path=path, line=line, text=f"function f{line}  # doc {line}", score=1.0 / line))
    r = render(a, Limits(max_hits=4, budget=5000))
    # The top four by rank, not the first four of a file-sorted list; files in order of their best hit.
    assert [(h.path, h.line) for h in r.result.hits] == [("a.py", 10), ("b/c.py", 5), ("a.py", 30), ("d.py", 1)]
    assert r.text.splitlines() == [
        "a.py",
        "     10  function f10  # doc 10",
        "     30  function f30  # doc 30",
        "b/c.py",
        "      5  function f5  # doc 5",
        "d.py",
        "      1  function f1  # doc 1",
        "... and 2 more, ranked lower (raise --max, or add distinctive words)",
    ]
    assert r.result.truncated and r.result.omitted == 2 and r.result.total == 6
    assert decode(QueryResult, encode(r.result)) == r.result


def test_a_ranked_answer_cut_by_the_budget_says_which_limit_to_raise() -> None:
    a = Answer(command="search", query="q", ranked=True, grouped=True)
    for i in range(50):
        a.add(QueryHit(path=f"m{i % 4}.py", line=i + 1, text=f"function g{i}  # " + "word " * 12))
    r = render(a, Limits(max_hits=50, budget=120))
    assert estimate_tokens(r.text) <= 120
    assert r.text.splitlines()[-1].startswith(f"... and {50 - len(r.result.hits)} more, ranked lower (raise --budget)")


def test_a_slice_typed_field_reads_name_colon_type() -> None:
    from ctxops_code_query.defs import with_signature

    assert with_signature("Aliases", "Aliases", "[]string", "field") == "Aliases: []string"  # a Go field
    assert with_signature("buf", "buf", "[64]byte", "variable") == "buf: [64]byte"
    assert with_signature("first", "first", "[T](xs: list[T]) -> T", "function") == "first[T](xs: list[T]) -> T"
