"""What counts as a seat's own move: PostgreSQL's store counts in Python what SQLite's
counts in SQL, and both count the same lines."""

from __future__ import annotations

import sqlite3

import pytest

from bot.store.rating_rows import own_move
from bot.store.ratings import _own_move

LINES = (
    '{"type":"pass","seat":0}',
    '{"type":"timeout","seat":1}',
    '{"type": "resign"}',
    '{"type":null}',
    '{"type":3}',
    '{"type":["timeout"]}',
    '{"seat":0}',
    '["timeout"]',
    '"timeout"',
    "timeout",
    "a1",
    "",
    "{",
    '{"type":"timeout","x":NaN}',
)


@pytest.mark.parametrize("line", LINES)
def test_python_counts_a_move_as_sqlite_does(line: str) -> None:
    sql = f"SELECT {_own_move('?')}"
    con = sqlite3.connect(":memory:")
    try:
        (counted,) = con.execute(sql, (line,) * sql.count("?")).fetchone()
    finally:
        con.close()
    assert own_move(line) is bool(counted)
