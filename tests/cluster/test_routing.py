"""Each update goes to the shard of the table it acts on, else of its chat."""

from __future__ import annotations

from typing import Any

from bot.cluster.routing import Router
from bot.service import callbacks as cb
from bot.store import shard_of
from engine import Card

KEY = b"a key of sixteen bytes or more"
GROUP, OTHER_GROUP, ANN, BOB = -1001234567890, -1009876543210, 5001, 5002
TABLES = {7: GROUP, 8: ANN, 9: OTHER_GROUP}
"""Table 7 is the group's, 8 Ann's game against the computer, 9 another group's."""


class Store:
    def __init__(self) -> None:
        self.chats = dict(TABLES)
        self.asked: list[int] = []

    async def table_chat(self, table_id: int) -> int | None:
        self.asked.append(table_id)
        return self.chats.get(table_id)


def router() -> tuple[Router, Store, cb.CallbackCodec]:
    codec = cb.CallbackCodec(KEY)
    store = Store()
    return Router(codec, store), store, codec


def press(codec: cb.CallbackCodec, button: cb.Callback, chat: int, user: int) -> dict[str, Any]:
    return {
        "update_id": 1,
        "callback_query": {
            "id": "q",
            "from": {"id": user},
            "data": codec.encode(button),
            "message": {"message_id": 3, "chat": {"id": chat}},
        },
    }


def command(chat: int, text: str) -> dict[str, Any]:
    return {"update_id": 2, "message": {"message_id": 4, "chat": {"id": chat}, "text": text}}


async def test_a_group_command_and_a_lobby_button_go_to_the_groups_shard() -> None:
    route, _, codec = router()
    assert shard_of(GROUP) != shard_of(ANN) != shard_of(OTHER_GROUP)
    assert await route.shard(command(GROUP, "/newgame")) == shard_of(GROUP)
    assert await route.shard(press(codec, cb.Join(7, 0), GROUP, ANN)) == shard_of(GROUP)


async def test_a_button_of_a_private_hand_goes_to_its_tables_shard() -> None:
    route, store, codec = router()
    tap = cb.Tap(7, 3, Card.parse("TH"))
    assert await route.shard(press(codec, tap, ANN, ANN)) == shard_of(GROUP)
    assert await route.shard(press(codec, cb.Take(9, 4), ANN, ANN)) == shard_of(OTHER_GROUP)
    # a game against the computer is its player's private chat's
    assert await route.shard(press(codec, cb.Take(8, 1), ANN, ANN)) == shard_of(ANN)
    # the chat of a table is read once
    await route.shard(press(codec, cb.Take(7, 4), BOB, BOB))
    assert store.asked == [7, 9, 8]


async def test_a_start_that_seats_goes_to_its_tables_shard() -> None:
    route, _, codec = router()
    join = command(BOB, f"/start {codec.join_payload(9)}")
    assert await route.shard(join) == shard_of(OTHER_GROUP)
    assert await route.shard(command(BOB, "/start")) == shard_of(BOB)
    assert await route.shard(command(BOB, "/start nonsense")) == shard_of(BOB)
    assert await route.shard(command(BOB, "/hand")) == shard_of(BOB)


async def test_buttons_naming_no_known_table_go_to_their_chats_shard() -> None:
    route, _, codec = router()
    forged = press(codec, cb.Take(7, 4), BOB, BOB)
    forged["callback_query"]["data"] = cb.encode(cb.Take(7, 4))  # unsigned: refused
    assert await route.shard(forged) == shard_of(BOB)
    assert await route.shard(press(codec, cb.Take(404, 1), BOB, BOB)) == shard_of(BOB)
    assert await route.shard(press(codec, cb.SetLang("en"), GROUP, ANN)) == shard_of(GROUP)
    replay = press(codec, cb.ReplayStep(7, 1, 3), ANN, ANN)
    assert await route.shard(replay) == shard_of(ANN), "a replay is read anywhere"
    inline = press(codec, cb.Take(404, 1), BOB, BOB)
    del inline["callback_query"]["message"]
    assert await route.shard(inline) == shard_of(BOB)


async def test_the_bot_added_or_removed_goes_to_its_chats_shard() -> None:
    route, _, _ = router()
    added = {"update_id": 5, "my_chat_member": {"chat": {"id": OTHER_GROUP}, "date": 0}}
    assert await route.shard(added) == shard_of(OTHER_GROUP)
    assert await route.shard({"update_id": 6}) == 0


async def test_a_group_upgraded_takes_its_tables_to_the_supergroups_shard() -> None:
    route, store, codec = router()
    tap = press(codec, cb.Take(7, 4), ANN, ANN)
    assert await route.shard(tap) == shard_of(GROUP)
    supergroup = GROUP - 1
    store.chats[7] = supergroup
    assert await route.shard(tap) == shard_of(GROUP), "the chat remembered"
    route.chat_moved(GROUP)
    assert await route.shard(tap) == shard_of(supergroup)
    assert store.asked == [7, 7]


async def test_tables_noted_are_not_asked_for_and_the_cache_is_bounded() -> None:
    codec = cb.CallbackCodec(KEY)
    store = Store()
    route = Router(codec, store, size=2)
    route.note(100, GROUP)
    assert await route.chat_of(100) == GROUP and store.asked == []
    route.note(101, ANN)
    route.note(102, BOB)
    assert await route.chat_of(100) is None and store.asked == [100], "the oldest forgotten"
