"""The whole game inside the group: each hand shown to its holder alone, as an ephemeral
message in the group (Bot API 10.2-10.3), against the fake's rules for them."""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

from fake_telegram import FakeMessage, FakeTelegramServer, FakeUser, Limits

from bot.render.limits import visible_length
from engine import Rules

from .harness import (
    CHOICE_KINDS,
    Table,
    assert_no_hand_card_in_group,
    bot_running,
    callback_buttons,
    hand_versions,
    kind_of,
    query,
    replay_games,
    set_group_rules,
    snapshot,
    stored,
    tapped_cards,
)

RULES = Rules(hand_size=4, turn_timeout=0, throw_in_window=60)


class ManualClock:
    """The fake server's clock for the 15-second window, moved by the test."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def group_table_message(tg: FakeTelegramServer, table: Table, db: Path) -> FakeMessage:
    st = stored(db, table.table_id)
    assert st.group_message_id is not None
    return tg.message(table.group, st.group_message_id)


async def my_cards_button(tg: FakeTelegramServer, message: FakeMessage) -> list[str]:
    """The "My cards" button of the group's table ``message``, once it shows."""

    def button() -> list[str]:
        return [d for d in callback_buttons(message) if kind_of(d) == "H"]

    # the group's table is paced behind the hands: it may come a moment after them
    try:
        await tg.wait_for(button, timeout=10)
    except TimeoutError:
        raise AssertionError(f"no My cards button: {message.plain_text}") from None
    return button()


async def my_cards(tg: FakeTelegramServer, table: Table, db: Path, user: FakeUser) -> FakeMessage:
    """``user`` presses "My cards" on the group's table: his hand in the group, to him."""
    message = group_table_message(tg, table, db)
    mine = await my_cards_button(tg, message)
    before = {id(m) for m in tg.ephemeral_messages(table.group, user)}
    answer = await table.press(user, message, mine[0])
    assert not answer.show_alert, answer
    return await tg.wait_for_ephemeral(table.group, user, lambda m: id(m) not in before, timeout=10)


async def deal_with_a_newcomer(tg: FakeTelegramServer, table: Table) -> object:
    """Ann (who started the bot) opens a lobby, Dan (who never did) joins, Ann starts:
    the answer Dan's Join got."""
    ann, dan = table.users
    await tg.start_bot(ann)
    lobby = await table.open_lobby()
    answer = await table.press(dan, lobby, table.lobby_button("j"))
    await tg.wait_for(lambda: dan.first_name in lobby.plain_text, timeout=10)
    await table.press(ann, lobby, table.lobby_button("s"))
    await tg.wait_for(lambda: callback_buttons(table.hand(ann)), timeout=10)
    return answer


async def current_in_group(
    tg: FakeTelegramServer, table: Table, db: Path, user: FakeUser
) -> FakeMessage:
    """His in-group hand once it shows the stored state."""

    def drawn() -> FakeMessage | None:
        hand = tg.last_ephemeral(table.group, user)
        version = stored(db, table.table_id).version
        return hand if hand is not None and hand_versions(hand) == {version} else None

    return await tg.wait_for(drawn, 10, what=f"the in-group hand of {user.first_name}")


async def play_to_end(
    tg: FakeTelegramServer, table: Table, db: Path, rng: random.Random, in_group: set[int]
) -> None:
    """Legal presses until the game ends: the seats in ``in_group`` press their in-group
    hand, the others their private hand."""
    for _ in range(600):
        before = stored(db, table.table_id)
        game = before.game
        if before.status != "playing" or game is None:
            return
        seat = rng.choice(game.to_act())
        user = table.users[seat]
        if seat in in_group:
            hand = await current_in_group(tg, table, db, user)
            assert visible_length(hand.text or "") <= 1024
            assert f"{len(game.hands[seat])} card" in hand.plain_text or not game.hands[seat]
            assert any(line.startswith("👉") for line in hand.plain_text.splitlines())
            if not any(kind_of(d) in CHOICE_KINDS for d in callback_buttons(hand)):
                assert tapped_cards(hand) == {c.code for c in game.hands[seat]}, hand.buttons
        else:
            hand = await table.current_hand(db, seat)
        if stored(db, table.table_id).version != before.version:
            continue
        presses = table.legal_presses(hand, game, seat)
        assert presses, f"no legal button for seat {seat}: {callback_buttons(hand)}"
        answer = await table.press(user, hand, rng.choice(presses))
        assert answer.text is None or "outdated" in answer.text, answer.text
        await took_effect(tg, table, db, before.version, user, seat in in_group, hand)
    raise AssertionError("the game did not end in 600 presses")


async def took_effect(
    tg: FakeTelegramServer,
    table: Table,
    db: Path,
    version: int,
    user: FakeUser,
    in_group: bool,
    pressed: FakeMessage,
) -> None:
    """Wait until a press moved the game on or redrew the hand it came from."""
    shown = callback_buttons(pressed)

    def done() -> bool:
        hand = tg.last_ephemeral(table.group, user) if in_group else table.hand(user)
        return stored(db, table.table_id).version != version or callback_buttons(hand) != shown

    await tg.wait_for(done, timeout=10, what="the move to take effect")


def ephemeral_calls(tg: FakeTelegramServer) -> list[dict[str, object]]:
    return [
        c.params
        for c in tg.world.calls
        if c.method in ("editEphemeralMessageText", "sendMessage")
        and (c.method != "sendMessage" or "ephemeral_message_parameters" in c.params)
    ]


async def test_a_newcomer_joins_and_plays_the_whole_game_in_the_group(tmp_path: Path) -> None:
    """Dan never started the bot: Join seats him, and he plays every move through his hand
    in the group, which nobody else sees; Ann keeps her private hand."""
    db = tmp_path / "durak.sqlite3"
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2, language="en")
        ann, dan = table.users
        await set_group_rules(db, table.group.id, RULES)
        async with bot_running(tg, db):
            answer = await deal_with_a_newcomer(tg, table)
            assert answer.url is None and "My cards" in (answer.text or ""), answer
            first = await my_cards(tg, table, db, dan)
            assert first.receiver is dan and first.message_id == 0
            assert tg.ephemeral_messages(table.group, ann) == [], "only Dan sees his hand"
            await play_to_end(tg, table, db, random.Random(30), in_group={1})
            await tg.settle(quiet=0.3)
        games = replay_games(db)
        assert len(games) == 1 and games[0].result is not None
        assert not [c for c in tg.world.calls if c.params.get("chat_id") == dan.id], (
            "nothing was ever sent to Dan's private chat"
        )
        for params in ephemeral_calls(tg):
            assert visible_length(str(params.get("text", ""))) <= 1024
        assert_no_hand_card_in_group(tg, table.group, games)
        assert tg.rate_limited == []


async def test_my_cards_and_hand_are_for_the_seated_alone(tmp_path: Path) -> None:
    """A member who does not play is told so; /hand, an ephemeral command, is answered to
    its sender alone; nothing of it shows in the group."""
    db = tmp_path / "durak.sqlite3"
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 3, language="en")
        ann, bob, cid = table.users
        table.users = [ann, bob]  # Cid is in the group, not at the table
        await set_group_rules(db, table.group.id, RULES)
        async with bot_running(tg, db):
            await table.seat_everyone()
            public = len(tg.bot_messages(table.group))
            message = group_table_message(tg, table, db)
            mine = (await my_cards_button(tg, message))[0]
            answer = await table.press(cid, message, mine)
            assert answer.show_alert and "not at this table" in (answer.text or ""), answer
            assert tg.ephemeral_messages(table.group, cid) == []
            await tg.send_command(bob, table.group, "hand", ephemeral=True)
            hand = await current_in_group(tg, table, db, bob)
            game = stored(db, table.table_id).game
            assert game is not None
            assert tapped_cards(hand) == {c.code for c in game.hands[1]}
            assert f"You hold {len(game.hands[1])} cards" in hand.plain_text
            # a forged press with Bob's buttons, by Cid, on the group's message: refused
            before = snapshot(db, table.table_id)
            forged = next(d for d in callback_buttons(hand) if kind_of(d) in "tqnf")
            answer = await tg.press(cid, message, data=forged, force=True)
            said = await answer.answer(timeout=10)
            assert said.text and "not" in said.text.lower(), said
            assert snapshot(db, table.table_id) == before
            await tg.send_command(cid, table.group, "hand", ephemeral=True)
            refusal = await tg.wait_for_ephemeral(table.group, cid, timeout=10)
            assert "not at this table" in refusal.plain_text and not refusal.buttons
            await tg.settle(quiet=0.3)
            assert len(tg.bot_messages(table.group)) == public, "nothing said in public"
            assert tg.ephemeral_messages(table.group, ann) == []
        assert tg.rate_limited == []


async def test_a_hand_that_disappeared_comes_back_with_the_next_press(tmp_path: Path) -> None:
    """His app restarted and the hand is gone: once his last press is older than the
    15-second window, the next edit finds nothing, sends nothing wrong and changes nothing;
    his next press on My cards draws it afresh."""
    db = tmp_path / "durak.sqlite3"
    clock = ManualClock()
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        tg.set_clock(clock, limits=False)
        table = await Table.create(tg, 2, language="en")
        dan = table.users[1]
        await set_group_rules(db, table.group.id, RULES)
        async with bot_running(tg, db):
            await table.seat_everyone()
            await my_cards(tg, table, db, dan)
            await current_in_group(tg, table, db, dan)
            await tg.expire_ephemeral(table.group, dan)
            clock.now += 20  # his press on My cards no longer allows a new message
            assert tg.ephemeral_messages(table.group, dan) == []
            rng = random.Random(3)
            for _ in range(4):  # the game moves on: Dan's hand is edited in vain
                st = stored(db, table.table_id)
                assert st.game is not None
                if st.status != "playing":
                    break
                await table.move(db, rng)
            await tg.settle(quiet=0.3)
            assert tg.ephemeral_messages(table.group, dan) == []
            await my_cards(tg, table, db, dan)
            hand = await current_in_group(tg, table, db, dan)
            assert hand.visible
        assert tg.rate_limited == []


async def test_an_administrator_shows_a_newcomer_his_turn_unasked(tmp_path: Path) -> None:
    """With the bot an administrator, a player who plays in the group alone gets his hand
    there when the game waits on him, without pressing anything first."""
    db = tmp_path / "durak.sqlite3"
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2, language="en")
        ann, dan = table.users
        await tg.set_bot_admin(table.group, True, by=ann)
        await set_group_rules(db, table.group.id, RULES)
        async with bot_running(tg, db):
            await deal_with_a_newcomer(tg, table)
            rng = random.Random(11)
            for _ in range(40):
                st = stored(db, table.table_id)
                assert st.game is not None and st.status == "playing"
                if 1 in st.game.waiting_on():
                    break
                await table.move(db, rng)
            hand = await current_in_group(tg, table, db, dan)
            assert any(line.startswith("👉") for line in hand.plain_text.splitlines())
            presses = [
                c
                for c in tg.world.calls
                if c.method == "sendMessage" and "ephemeral_message_parameters" in c.params
            ]
            assert presses and all(
                "callback_query_id" not in json.dumps(c.params["ephemeral_message_parameters"])
                for c in presses
            ), "sent unasked, as an administrator may"
        assert tg.rate_limited == []


async def test_ephemeral_messages_sharing_the_group_budget_still_converge(
    tmp_path: Path,
) -> None:
    """If a group's ephemeral messages share its twenty a minute, the bot learns it from
    the first flood wait: every hand still shows the last move, and the 429s stop."""
    db = tmp_path / "durak.sqlite3"
    limits = dataclasses.replace(Limits.fast(), ephemeral="group")
    async with FakeTelegramServer(limits=limits) as tg:
        table = await Table.create(tg, 2, language="en")
        dan = table.users[1]
        await set_group_rules(db, table.group.id, RULES)
        async with bot_running(tg, db):
            await deal_with_a_newcomer(tg, table)
            await my_cards(tg, table, db, dan)
            await play_to_end(tg, table, db, random.Random(5), in_group={1})
            await tg.settle(quiet=0.5)
        games = replay_games(db)
        assert len(games) == 1 and games[0].result is not None
        assert len(tg.rate_limited) <= 2, [c.method for c in tg.rate_limited]


async def test_a_player_chooses_where_his_hand_shows(tmp_path: Path) -> None:
    """Bob started the bot: his hand is in private, and in the group once he asks there.
    "Not in private" leaves it in the group alone (his private message says where it went
    and stays), "Also in private" brings the private one back, "Private only" takes the
    group's away; the choice lasts."""
    db = tmp_path / "durak.sqlite3"
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        table = await Table.create(tg, 2, language="en")
        bob = table.users[1]
        await set_group_rules(db, table.group.id, RULES)
        async with bot_running(tg, db):
            await table.seat_everyone()
            hand = await my_cards(tg, table, db, bob)
            hand = await current_in_group(tg, table, db, bob)

            def place_button(message: FakeMessage, label: str) -> str:
                found = [
                    b.callback_data
                    for row in message.buttons
                    for b in row
                    if label in b.text and b.callback_data
                ]
                assert found, f"no {label!r}: {message.buttons}"
                return found[0]

            private = table.hand(bob)
            assert private is not None
            await table.press(bob, hand, place_button(hand, "Not in private"))
            await tg.wait_for(
                lambda: "shown in the group now" in (private.plain_text or ""), timeout=10
            )
            assert not callback_buttons(private)
            hand = await current_in_group(tg, table, db, bob)
            edits = private.edit_count
            st = stored(db, table.table_id)
            assert st.game is not None
            # a move by Ann: Bob's in-group hand follows, his private message does not
            if 0 in st.game.to_act():
                ann_hand = await table.current_hand(db, 0)
                presses = table.legal_presses(ann_hand, st.game, 0)
                await table.press(table.users[0], ann_hand, presses[0])
                hand = await current_in_group(tg, table, db, bob)
                await tg.settle(quiet=0.3)
                assert private.edit_count == edits
            await table.press(bob, hand, place_button(hand, "Also in private"))
            await tg.wait_for(
                lambda: hand_versions(table.hand(bob)) == {stored(db, table.table_id).version},
                timeout=10,
            )
            hand = await current_in_group(tg, table, db, bob)
            await table.press(bob, hand, place_button(hand, "Private only"))
            await tg.wait_for(lambda: tg.ephemeral_messages(table.group, bob) == [], timeout=10)
        kept = query(db, "SELECT value FROM bot_state WHERE key = ?", f"hand_place:{bob.id}")
        assert kept == [("both",)]
        assert tg.rate_limited == []
