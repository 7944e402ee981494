"""A press read by the bot's UpdateReader is the Update PTB reads, built from parts."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from telegram import Bot, Message, Update

from bot.service import decoding
from bot.service.decoding import UpdateReader

BOT = Bot("123456:" + "A" * 35)

users = st.fixed_dictionaries(
    {"id": st.integers(1, 2**40), "is_bot": st.booleans(), "first_name": st.text(min_size=1)},
    optional={
        "username": st.text(min_size=1, max_size=8),
        "language_code": st.sampled_from(["en", "ru", "uk"]),
        "is_premium": st.booleans(),
    },
)
chats = st.one_of(
    st.fixed_dictionaries(
        {"id": st.integers(1, 2**40), "type": st.just("private")},
        optional={"first_name": st.text(min_size=1)},
    ),
    st.fixed_dictionaries(
        {"id": st.integers(-(2**40), -1), "type": st.just("supergroup"), "title": st.text()}
    ),
)
messages = st.fixed_dictionaries(
    {
        "message_id": st.integers(0, 10**6),
        # 0: a message too old to be read, which PTB makes an InaccessibleMessage
        "date": st.sampled_from([0, 1_796_627_964]),
        "chat": chats,
    },
    optional={
        "ephemeral_message_id": st.integers(1, 10**6),  # Bot API 10.2, unknown to PTB 22.8
        "text": st.text(),
        "from": users,
    },
)
queries = st.fixed_dictionaries(
    {
        "id": st.text(min_size=1, max_size=20),
        "from": users,
        "chat_instance": st.text(min_size=1, max_size=20),
    },
    optional={
        "message": messages,
        "inline_message_id": st.text(min_size=1, max_size=20),
        "data": st.text(max_size=64),
        "game_short_name": st.text(min_size=1, max_size=8),
        "some_future_field": st.integers(),
    },
)
updates = st.fixed_dictionaries(
    {"update_id": st.integers(0, 2**31), "callback_query": queries},
    optional={"message": messages},  # not a press alone: read by PTB
)


def same(a: Update, b: Update) -> None:
    assert a.to_dict() == b.to_dict()
    qa, qb = a.callback_query, b.callback_query
    assert qa is not None and qb is not None
    assert qa.api_kwargs == qb.api_kwargs
    assert type(qa.message) is type(qb.message)
    if qa.message is not None and qb.message is not None:
        assert qa.message.api_kwargs == qb.message.api_kwargs
    assert a.get_bot() is b.get_bot() and qa.get_bot() is qb.get_bot()


@settings(max_examples=300, deadline=None)
@given(updates)
def test_an_update_read_is_the_one_ptb_reads(data: dict[str, Any]) -> None:
    before = copy.deepcopy(data)
    reader = UpdateReader()
    first = reader.read(data, BOT)
    assert data == before  # the JSON is not changed
    same(first, Update.de_json(copy.deepcopy(data), BOT))
    # read again (its parts remembered): the same again
    same(reader.read(data, BOT), first)


def press(update_id: int, message_id: int = 5, data: str = "1t.x") -> dict[str, Any]:
    return {
        "update_id": update_id,
        "callback_query": {
            "id": f"q{update_id}",
            "from": {"id": 7, "is_bot": False, "first_name": "Ann", "language_code": "ru"},
            "message": {
                "message_id": message_id,
                "date": 1_796_627_964,
                "chat": {"id": 7, "type": "private", "first_name": "Ann"},
            },
            "chat_instance": "ci",
            "data": data,
        },
    }


def test_presses_on_one_message_share_its_message_and_user() -> None:
    reader = UpdateReader()
    a, b = reader.read(press(1), BOT), reader.read(press(2, data="1t.y"), BOT)
    qa, qb = a.callback_query, b.callback_query
    assert qa is not None and qb is not None
    assert qa.message is qb.message and isinstance(qa.message, Message)
    assert qa.from_user is qb.from_user
    assert (qa.data, qb.data, qa.id, qb.id) == ("1t.x", "1t.y", "q1", "q2")
    # another message, or the same read for another bot: its own objects
    other = reader.read(press(3, message_id=6), BOT).callback_query
    assert other is not None and other.message is not qa.message
    assert other.message is not None and other.message.message_id == 6
    bot2 = Bot("654321:" + "B" * 35)
    theirs = reader.read(press(4), bot2).callback_query
    assert theirs is not None and theirs.message is not qa.message
    assert theirs.message is not None and theirs.message.get_bot() is bot2


def test_an_inaccessible_message_is_read_as_ptb_reads_it() -> None:
    data = press(1)
    data["callback_query"]["message"]["date"] = 0
    ours = UpdateReader().read(data, BOT)
    same(ours, Update.de_json(copy.deepcopy(data), BOT))
    assert ours.callback_query is not None and ours.callback_query.message is not None


def test_what_is_remembered_is_bounded(monkeypatch: Any) -> None:
    monkeypatch.setattr(decoding, "REMEMBERED", 3)
    reader = UpdateReader()
    first = reader.read(press(1, message_id=1), BOT).callback_query
    for i in range(2, 6):
        reader.read(press(i, message_id=i), BOT)
    again = reader.read(press(9, message_id=1), BOT).callback_query
    assert first is not None and again is not None
    assert again.message is not first.message  # forgotten, built anew
    assert again.message is not None and again.message.to_dict() == first.message.to_dict()
