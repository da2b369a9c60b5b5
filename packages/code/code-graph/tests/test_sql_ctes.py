"""A WITH clause cut into its CTEs, and the CTEs one statement reads (type hops carry only those)."""

from __future__ import annotations

import duckdb
import pytest
from ctxops_code_graph import sql_ctes, type_eval

HEAD = """
WITH RECURSIVE
a AS (SELECT 1 AS x -- a comment's ')' and "'" do not end it
),
-- b's comment line, dropped
b(y) AS (SELECT x + 1 FROM a WHERE 'it''s (' <> ''),
c AS (SELECT y FROM b JOIN a ON a.x < b.y),
unused AS (SELECT 42 AS z)
"""


def test_split_with_names_each_cte_in_order() -> None:
    ctes = sql_ctes.split_with(HEAD)
    assert [name for name, _ in ctes] == ["a", "b", "c", "unused"]
    assert ctes[1][1] == "b(y) AS (SELECT x + 1 FROM a WHERE 'it''s (' <> '')"


def test_with_needed_keeps_what_is_read_directly_or_through_another() -> None:
    ctes = sql_ctes.split_with(HEAD)
    statement = "SELECT * FROM c"
    with_ = sql_ctes.with_needed(ctes, statement)
    assert "unused" not in with_ and all(f"{n}" in with_ for n in ("a AS", "b(y) AS", "c AS"))
    con = duckdb.connect()
    assert con.execute(with_ + statement).fetchall() == con.execute(HEAD + statement).fetchall() == [(2,)]
    assert sql_ctes.with_needed(ctes, "SELECT 1") == ""


def test_not_a_with_clause_is_refused() -> None:
    with pytest.raises(ValueError):
        sql_ctes.split_with("SELECT 1")


@pytest.mark.parametrize("step", [type_eval._STEP, type_eval._STEP_PLAIN])
def test_type_hop_statements_carry_only_what_they_read(step: type_eval.Step) -> None:
    """`named` is made once per hop; no branch recomputes it, and the member walk is in one branch only."""
    made, *branches = step
    assert made == (None, made[1]) and made[1].startswith("CREATE OR REPLACE TEMP TABLE hop_named")
    assert all("JOIN symbols s ON s.path = e.path AND s.name = split_part" not in sql for _, sql in branches)
    assert sum("\nmro(" in sql for _, sql in branches) == 1
    guarded = {guard for guard, _ in branches if guard}
    expected = {"nearest", "called", "fixture", "identity"} | ({"decided"} if step is type_eval._STEP else set())
    assert guarded == expected
