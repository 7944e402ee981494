"""A transaction's body, written once, runs alike on both databases: each statement's rows
come back to it, a failed statement is thrown into it (a savepoint rolled back alone), and
an error it lets out rolls the whole transaction back."""

from __future__ import annotations

import pytest

from bot.store import Store
from bot.store.dialect import numbered
from bot.store.steps import Body, Fetch, Many


def test_placeholders_are_numbered_outside_quoted_text() -> None:
    sql = "SELECT coalesce(a, '?'), ? FROM t WHERE b = 'it''s ?' AND c IN (?, ?)"
    assert numbered(sql) == (
        "SELECT coalesce(a, '?'), $1 FROM t WHERE b = 'it''s ?' AND c IN ($2, $3)"
    )


def kept(store: Store) -> Body[list[tuple[str, str]]]:
    rows = yield Fetch("SELECT key, value FROM bot_state ORDER BY key")
    return [(str(k), str(v)) for k, v in rows]


async def test_a_failed_statement_is_thrown_into_the_body(store: Store) -> None:
    def body() -> Body[str]:
        yield Many(
            "INSERT INTO bot_state (key, value, updated_at) VALUES (?, ?, ?)",
            [("a", "1", 1.0), ("b", "2", 1.0)],
        )
        yield Fetch("SAVEPOINT attempt")
        try:
            yield Fetch(
                "INSERT INTO bot_state (key, value, updated_at) VALUES (?, ?, ?)", ("c", "3", 1.0)
            )
            yield Fetch(
                "INSERT INTO bot_state (key, value, updated_at) VALUES (?, ?, ?)", ("a", "4", 1.0)
            )
        except Exception as exc:  # the key is taken: this part alone is undone
            failed = type(exc).__name__
            yield Fetch("ROLLBACK TO SAVEPOINT attempt")
        yield Fetch("RELEASE SAVEPOINT attempt")
        rows = yield Fetch("SELECT count(*) FROM bot_state")
        return f"{failed} {rows[0][0]}"

    said = await store._write(body)  # type: ignore[attr-defined]
    assert said.split()[1] == "2"
    assert "Integrity" in said or "UniqueViolation" in said
    assert await store._write(lambda: kept(store)) == [("a", "1"), ("b", "2")]  # type: ignore[attr-defined]


async def test_an_error_let_out_rolls_the_whole_body_back(store: Store) -> None:
    def body() -> Body[None]:
        yield Fetch(
            "INSERT INTO bot_state (key, value, updated_at) VALUES (?, ?, ?)", ("a", "1", 1.0)
        )
        raise ValueError("refused halfway")

    with pytest.raises(ValueError, match="halfway"):
        await store._write(body)  # type: ignore[attr-defined]
    assert await store.get_state("a") is None
    await store.set_state("a", "2")  # the store goes on
    assert await store.get_state("a") == "2"
