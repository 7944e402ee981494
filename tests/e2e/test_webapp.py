"""The Mini App's live channel, end to end: the real bot against the fake Bot API server,
and real WebSocket clients with init data signed as Telegram signs it.

Every state frame a page gets is checked against the game replayed from the store
(:func:`~.pages.check_frames`).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
from fake_telegram import FakeTelegramServer, FakeUser, Limits

from .harness import Table, bot_running, callback_buttons, kind_of, stored
from .pages import (
    Frame,
    PageClient,
    check_frames,
    free_port,
    init_data,
    positions,
    table_token,
    webapp_settings,
)


@dataclass
class Bot:
    tg: FakeTelegramServer
    db: Path
    port: int
    app: Any
    session: aiohttp.ClientSession

    async def page(
        self,
        user: FakeUser | dict[str, Any],
        table_id: int,
        *,
        name: str | None = None,
        token: str | None = None,
    ) -> PageClient:
        """A page of ``table_id`` opened by ``user``, its first state received."""
        init = init_data(user, token or self.tg.token)
        label = name or (user.first_name if isinstance(user, FakeUser) else str(user["id"]))
        page = await PageClient.open(
            self.session, self.port, init, table_token(self.tg, table_id), name=label
        )
        await page.wait_state()
        return page


@asynccontextmanager
async def mini_app(tmp_path: Path, **changes: Any) -> AsyncIterator[Bot]:
    """The bot with its Mini App on a free port, and a client session for the pages."""
    db = tmp_path / "durak.sqlite3"
    port = free_port()
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        settings = webapp_settings(tg, db, port, **changes)
        async with (
            bot_running(tg, db, settings=settings) as app,
            aiohttp.ClientSession() as session,
        ):
            yield Bot(tg, db, port, app, session)


def stranger() -> dict[str, Any]:
    return {"id": 777_000, "first_name": "Spy", "language_code": "en"}


def versions(page: PageClient) -> list[int]:
    """The distinct versions of the states a page got, in the order they came."""
    found: list[int] = []
    for frame in page.states:
        if not found or frame["v"] != found[-1]:
            found.append(frame["v"])
    return found


# ---------------------------------------------------------------- following a game


async def test_pages_follow_a_game_played_in_the_chat(tmp_path: Path) -> None:
    rng = random.Random(5)
    async with mini_app(tmp_path) as bot:
        table = await Table.create(bot.tg, 2)
        await table.start_bots()
        await table.open_lobby()
        await table.join_all()
        ann, bob = table.users
        pages = [await bot.page(u, table.table_id) for u in table.users]
        spy = await bot.page(stranger(), table.table_id, name="spy")
        lobby = pages[0].state
        assert lobby is not None and lobby["status"] == "lobby"
        assert lobby["lobby"]["players"] == ["Ann", "Bob"] and lobby["hand"] is None
        # a seated player may leave or start; a visitor only join
        assert {b["action"] for b in lobby["buttons"]} == {"leave", "start"}
        assert spy.state is not None
        assert {b["action"] for b in spy.state["buttons"]} == {"join"}
        await table.start()
        start = stored(bot.db, table.table_id).version
        await table.finish(bot.db, rng)
        end = stored(bot.db, table.table_id)
        for page in (*pages, spy):
            await page.wait_state(lambda s: s["v"] == end.version and s["end"] is not None)
        moves = positions(bot.db, table.table_id)
        assert end.version - start == len(moves) - 1, "each move is one version"
        for seat, page in enumerate(pages):
            shown = versions(page)
            assert shown[shown.index(start) :] == list(range(start, end.version + 1)), shown
            check_frames(page.name, page.states, seat, moves, start)
        assert versions(spy)[versions(spy).index(start) :] == list(range(start, end.version + 1))
        check_frames(spy.name, spy.states, None, moves, start)
        # the series is read from the store after the end is shown: a frame of its own
        await spy.wait_state(lambda s: s["v"] == end.version and bool(s["tally"]))
        final = spy.state
        assert final is not None and final["status"] == "finished"
        game = end.game
        assert game is not None and game.result is not None
        if game.result.durak is not None:
            assert final["end"]["durak"] == [table.users[game.result.durak].first_name]
        assert {b["action"] for b in final["buttons"]} == {"rematch", "replay"}
        assert final["tally"], "the series after the game"
        you = [p.state["you"] for p in pages if p.state is not None]
        assert you == [{"name": "Ann", "seat": 0}, {"name": "Bob", "seat": 1}]
        assert spy.state["you"] == {"name": "Spy", "seat": None}  # type: ignore[index]
        del ann, bob


async def test_a_page_speaks_its_users_language(tmp_path: Path) -> None:
    async with mini_app(tmp_path) as bot:
        table = await Table.create(bot.tg, 2, language="ru")
        await table.seat_everyone()
        ann = await bot.page(table.users[0], table.table_id)
        english = await bot.page(stranger(), table.table_id, name="english")
        nobody = await bot.page({"id": 31337, "first_name": "X"}, table.table_id, name="x")
        ukrainian = {"id": 777_001, "first_name": "Оля", "language_code": "uk-UA"}
        olya = await bot.page(ukrainian, table.table_id, name="olya")
        assert ann.state is not None and ann.state["lang"] == "ru"
        assert ann.state["texts"]["hand"] == "Ваши карты"
        assert english.state is not None and english.state["lang"] == "en"
        assert english.state["texts"]["hand"] == "Your cards"
        assert nobody.state is not None and nobody.state["lang"] == "ru"  # the bot's default
        assert olya.state is not None and olya.state["lang"] == "uk"
        assert olya.state["texts"]["hand"] == "Ваші карти"


# ---------------------------------------------------------------- who may connect


async def refused(bot: Bot, init: str, start: str | None) -> tuple[list[Frame], int | None]:
    page = await PageClient.open(bot.session, bot.port, init, start, name="refused")
    code = await page.closing()
    return page.frames, code


async def test_init_data_that_does_not_hold_is_refused(tmp_path: Path) -> None:
    async with mini_app(tmp_path) as bot:
        table = await Table.create(bot.tg, 2)
        await table.seat_everyone()
        ann = table.users[0]
        token = table_token(bot.tg, table.table_id)
        good = init_data(ann, bot.tg.token)
        tampered = good.replace("Ann", "Bob")
        expired = init_data(ann, bot.tg.token, auth_date=int(time.time()) - 86_400 - 5)
        future = init_data(ann, bot.tg.token, auth_date=int(time.time()) + 3600)
        foreign = init_data(ann, "987654321:AAAnotherBotsTokenForTests-9876543210")
        unsigned = "&".join(p for p in good.split("&") if not p.startswith("hash="))
        for init in (tampered, expired, future, foreign, unsigned, ""):
            frames, code = await refused(bot, init, token)
            assert code == 4401, init
            assert [f["t"] for f in frames] == ["error"]
            assert frames[0]["reason"] == "unauthorized" and frames[0]["text"]
        # and the good one still works
        page = await bot.page(ann, table.table_id)
        assert page.state is not None and page.state["you"]["seat"] == 0


async def test_hello_must_come_first_and_soon(tmp_path: Path) -> None:
    async with mini_app(tmp_path) as bot:
        table = await Table.create(bot.tg, 2)
        await table.seat_everyone()
        page = await PageClient.open(bot.session, bot.port, "", None, hello=False)
        await page.send({"t": "ping"})
        assert await page.closing() == 4401
        assert [f.get("reason") for f in page.frames] == ["unauthorized"]
        bot.app.bot_data["runtime"].extras["webapp"].hello_timeout = 0.2
        silent = await PageClient.open(bot.session, bot.port, "", None, hello=False)
        assert await silent.closing() == 4401


async def test_a_token_that_names_no_table_is_refused(tmp_path: Path) -> None:
    async with mini_app(tmp_path) as bot:
        table = await Table.create(bot.tg, 2)
        await table.seat_everyone()
        init = init_data(table.users[0], bot.tg.token)
        real = table_token(bot.tg, table.table_id)
        forged = "t" + "2" + real[real.index("_") :]
        for start in (None, "", "nonsense", forged, table_token(bot.tg, 4242)):
            frames, code = await refused(bot, init, start)
            assert code == 4404, start
            assert [f.get("reason") for f in frames] == ["no_table"]
        # the init data's own start_param, as a direct link gives it, is enough
        with_param = init_data(table.users[0], bot.tg.token, start_param=real)
        page = await PageClient.open(bot.session, bot.port, with_param, None)
        assert (await page.wait_state())["v"] == stored(bot.db, table.table_id).version


async def test_at_most_three_pages_of_a_user_at_a_table(tmp_path: Path) -> None:
    async with mini_app(tmp_path) as bot:
        table = await Table.create(bot.tg, 2)
        await table.seat_everyone()
        ann = table.users[0]
        pages = [await bot.page(ann, table.table_id, name=f"ann{i}") for i in range(3)]
        frames, code = await refused(
            bot, init_data(ann, bot.tg.token), table_token(bot.tg, table.table_id)
        )
        assert code == 4429 and [f.get("reason") for f in frames] == ["too_many"]
        assert not any(p.closed for p in pages), "the open pages stay open"
        bob = await bot.page(table.users[1], table.table_id)  # others are not counted
        assert bob.state is not None
        await pages[0].close()
        again = await bot.page(ann, table.table_id, name="ann again")
        assert again.state is not None and again.state["you"]["seat"] == 0


# ---------------------------------------------------------------- frames


async def test_malformed_and_oversized_frames_close_the_socket(tmp_path: Path) -> None:
    async with mini_app(tmp_path) as bot:
        table = await Table.create(bot.tg, 2)
        await table.seat_everyone()
        before = stored(bot.db, table.table_id).version
        ann = table.users[0]
        cases: list[tuple[str | bytes, int]] = [
            ("not json", 1008),
            ("[1, 2, 3]", 1008),
            ('{"no": "type"}', 1008),
            ('{"t": "press", "press": 5, "v": 1}', 1008),
            ('{"t": "press", "press": "x", "v": "1"}', 1008),
            ('{"t": "press", "press": "x", "v": true}', 1008),
            ('{"t": "press", "press": "' + "x" * 65 + '", "v": 1}', 1008),
            ('{"t": "ping", "pad": "' + "x" * 5000 + '"}', 1009),
            (b"\x00binary", 1008),
        ]
        for sent, code in cases:
            page = await bot.page(ann, table.table_id)
            assert page.ws is not None
            if isinstance(sent, bytes):
                await page.ws.send_bytes(sent)
            else:
                await page.send(sent)
            assert await page.closing() == code, sent
        assert stored(bot.db, table.table_id).version == before, "nothing changed"


async def test_unknown_frames_get_a_notice_and_pings_a_pong(tmp_path: Path) -> None:
    async with mini_app(tmp_path) as bot:
        table = await Table.create(bot.tg, 2)
        await table.seat_everyone()
        page = await bot.page(table.users[0], table.table_id)
        await page.send({"t": "dance"})
        await page.send({"t": "hello", "init_data": "x", "start": "y"})
        await page.send({"t": "ping"})
        await page.wait_for(lambda: any(f["t"] == "pong" for f in page.frames))
        notices = [f for f in page.frames if f["t"] == "notice"]
        assert [n["reason"] for n in notices] == ["bad_frame", "bad_frame"]
        assert not page.closed


async def test_a_flood_is_throttled_then_closed(tmp_path: Path) -> None:
    async with mini_app(tmp_path) as bot:
        table = await Table.create(bot.tg, 2)
        await table.seat_everyone()
        page = await bot.page(table.users[0], table.table_id)
        assert page.ws is not None
        for _ in range(300):
            await page.ws.send_str('{"t":"ping"}')
        assert await page.closing() == 1008
        pongs = sum(1 for f in page.frames if f["t"] == "pong")
        assert pongs < 300, "frames over the rate are dropped"
        assert any(f.get("reason") == "too_fast" for f in page.frames)
        other = await bot.page(table.users[1], table.table_id)
        assert other.state is not None, "other pages are not affected"


# ---------------------------------------------------------------- reconnects, restarts


async def test_a_page_that_reconnects_gets_the_current_state(tmp_path: Path) -> None:
    rng = random.Random(8)
    async with mini_app(tmp_path) as bot:
        table = await Table.create(bot.tg, 2)
        await table.seat_everyone()
        page = await bot.page(table.users[0], table.table_id)
        await page.close()
        await table.play_moves(bot.db, rng, 4)
        now = stored(bot.db, table.table_id)
        again = await bot.page(table.users[0], table.table_id)
        state = again.state
        assert state is not None and state["v"] == now.version
        assert now.game is not None
        assert {c["code"] for c in state["hand"]["cards"]} == {c.code for c in now.game.hands[0]}


async def test_pages_reconnect_after_a_restart_and_go_on(tmp_path: Path) -> None:
    rng = random.Random(9)
    db = tmp_path / "durak.sqlite3"
    port = free_port()
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        settings = webapp_settings(tg, db, port)
        table = await Table.create(tg, 2)
        async with aiohttp.ClientSession() as session:
            token = table_token(tg, 1)
            async with bot_running(tg, db, settings=settings):
                await table.seat_everyone()
                token = table_token(tg, table.table_id)
                page = await PageClient.open(
                    session, port, init_data(table.users[0], tg.token), token
                )
                await page.wait_state()
                await table.play_moves(db, rng, 2)
            assert await page.closing() == 1001, "going away: the page reconnects"
            async with bot_running(tg, db, settings=settings):
                again = await PageClient.open(
                    session, port, init_data(table.users[0], tg.token), token
                )
                before = stored(db, table.table_id).version
                await again.wait_state(lambda s: s["v"] == before)
                await table.play_moves(db, rng, 2)
                after = stored(db, table.table_id).version
                assert after > before
                await again.wait_state(lambda s: s["v"] == after)
                await again.close()
        await asyncio.sleep(0)


# ---------------------------------------------------------------- presses on the pages

MOVES = ("take", "pass", "done", "transfer", "show_trump")


def page_moves(state: Frame) -> list[str]:
    """The presses a person would tap on a page: an open choice's options, else the cards
    that can go and the moves."""
    if state.get("choice"):
        return [b["press"] for b in state["choice"]["buttons"]]
    hand = state.get("hand") or {"cards": []}
    found = [c["press"] for c in hand["cards"] if c["press"]]
    return found + [b["press"] for b in state["buttons"] if b["action"] in MOVES]


async def page_move(bot: Bot, table: Table, pages: list[PageClient], rng: random.Random) -> bool:
    """One legal move tapped on a page (or one step of a choice); False if no game runs."""
    st = stored(bot.db, table.table_id)
    if st.status != "playing" or st.game is None:
        return False
    seat = rng.choice(st.game.to_act())
    page = pages[seat]
    state = await page.wait_state(lambda s: s["v"] >= st.version)
    if state["v"] != st.version:
        return True  # the clock moved on meanwhile
    presses = page_moves(state)
    assert presses, f"nothing to tap for seat {seat}: {state['hand']} {state['buttons']}"
    reply = await page.press(rng.choice(presses), state["v"])
    assert reply["t"] == "ack" or reply["reason"] == "outdated", reply
    return True


async def test_two_pages_and_the_chat_play_a_game_to_its_end(tmp_path: Path) -> None:
    rng = random.Random(11)
    async with mini_app(tmp_path) as bot:
        table = await Table.create(bot.tg, 2)
        await table.seat_everyone()
        start = stored(bot.db, table.table_id).version
        pages = [await bot.page(u, table.table_id) for u in table.users]
        spy = await bot.page(stranger(), table.table_id, name="spy")
        by_page = by_chat = 0
        while stored(bot.db, table.table_id).status == "playing":
            if rng.random() < 0.7:
                by_page += await page_move(bot, table, pages, rng)
            else:
                by_chat += await table.move(bot.db, rng)
        assert by_page > 10 and by_chat > 3
        end = stored(bot.db, table.table_id)
        assert end.status == "finished"
        for page in (*pages, spy):
            await page.wait_state(lambda s: s["v"] == end.version and s["status"] == "finished")
        moves = positions(bot.db, table.table_id)
        for seat, page in enumerate(pages):
            check_frames(page.name, page.states, seat, moves, start)
            shown = versions(page)
            assert shown == sorted(shown), "states come in version order"
            assert set(range(start, end.version + 1)) <= set(shown), "no version is missed"
        check_frames(spy.name, spy.states, None, moves, start)
        await table.wait_latest(bot.db)  # the chat shows the end too
        replies = [f for p in pages for f in p.frames if f["t"] in ("ack", "notice")]
        assert len(replies) == by_page, "every press is answered exactly once"


async def test_a_press_answers_before_the_states_it_causes(tmp_path: Path) -> None:
    async with mini_app(tmp_path) as bot:
        table = await Table.create(bot.tg, 2)
        await table.seat_everyone()
        st = stored(bot.db, table.table_id)
        assert st.game is not None
        leader = st.game.to_act()[0]
        page = await bot.page(table.users[leader], table.table_id)
        state = page.state
        assert state is not None
        card = next(c for c in state["hand"]["cards"] if c["press"])
        at = len(page.frames)
        reply = await page.press(card["press"], state["v"])
        assert reply == {"t": "ack", "v": state["v"] + 1}
        after = await page.wait_state(lambda s: s["v"] == state["v"] + 1)
        kinds = [f["t"] for f in page.frames[at:]]
        assert kinds[0] == "ack" and "state" in kinds[1:]
        assert [p["attack"]["code"] for p in after["table"]["pairs"]] == [card["code"]]
        assert stored(bot.db, table.table_id).version == state["v"] + 1


async def test_lead_several_is_the_pages_own_until_it_plays(tmp_path: Path) -> None:
    async with mini_app(tmp_path) as bot:
        rng = random.Random(2)
        for _ in range(20):  # deal until the leader has a pair to lead
            table = await Table.create(bot.tg, 2)
            await table.seat_everyone()
            st = stored(bot.db, table.table_id)
            assert st.game is not None
            leader = st.game.to_act()[0]
            ranks = [c.rank for c in st.game.hands[leader]]
            if any(ranks.count(r) > 1 for r in ranks):
                break
            await bot.tg.send_command(table.users[0], table.group, "cancel")
            await bot.tg.wait_for(lambda t=table: stored(bot.db, t.table_id).status == "cancelled")
        else:
            raise AssertionError("no pair in twenty deals")
        del rng
        page = await bot.page(table.users[leader], table.table_id)
        other = await bot.page(table.users[1 - leader], table.table_id)
        hand_message = table.hand(table.users[leader])
        assert hand_message is not None
        edits = hand_message.edit_count
        state = page.state
        assert state is not None
        [several] = [b["press"] for b in state["buttons"] if b["action"] == "lead_several"]
        seen_by_other = len(other.states)
        assert (await page.press(several, state["v"]))["t"] == "ack"
        chosen = await page.wait_state(
            lambda s: any(c["press"] for c in s["hand"]["cards"]) and s is not state
        )
        assert chosen["v"] == state["v"], "a selection changes no state"
        assert {b["action"] for b in chosen["buttons"]} == {"cancel"}
        pair_rank = next(
            r
            for r in {c["rank"] for c in chosen["hand"]["cards"]}
            if sum(1 for c in chosen["hand"]["cards"] if c["rank"] == r and c["press"]) > 1
        )
        first, second = [c for c in chosen["hand"]["cards"] if c["rank"] == pair_rank][:2]
        assert (await page.press(first["press"], chosen["v"]))["t"] == "ack"
        one = await page.wait_state(lambda s: any(c["selected"] for c in s["hand"]["cards"]))
        again = next(c for c in one["hand"]["cards"] if c["code"] == second["code"])
        assert (await page.press(again["press"], one["v"]))["t"] == "ack"
        two = await page.wait_state(lambda s: sum(c["selected"] for c in s["hand"]["cards"]) == 2)
        [play] = [b["press"] for b in two["buttons"] if b["action"] == "play"]
        assert len(other.states) == seen_by_other, "the other page saw none of it"
        assert hand_message.edit_count == edits, "the chat's hand stayed as it was"
        assert stored(bot.db, table.table_id).version == state["v"]
        assert (await page.press(play, two["v"])) == {"t": "ack", "v": state["v"] + 1}
        led = await other.wait_state(lambda s: s["v"] == state["v"] + 1)
        assert {p["attack"]["code"] for p in led["table"]["pairs"]} == {
            first["code"],
            second["code"],
        }


async def test_refused_presses_change_nothing_and_say_why(tmp_path: Path) -> None:
    async with mini_app(tmp_path) as bot:
        table = await Table.create(bot.tg, 2)
        await table.seat_everyone()
        other_table = await Table.create(bot.tg, 2)
        await other_table.seat_everyone()
        st = stored(bot.db, table.table_id)
        assert st.game is not None
        leader = st.game.to_act()[0]
        mine = await bot.page(table.users[leader], table.table_id)
        theirs = await bot.page(table.users[1 - leader], table.table_id)
        spy = await bot.page(stranger(), table.table_id, name="spy")
        elsewhere = await bot.page(other_table.users[0], other_table.table_id, name="elsewhere")
        state, waiting = mine.state, theirs.state
        assert state is not None and waiting is not None and elsewhere.state is not None
        card = next(c for c in state["hand"]["cards"] if c["press"])
        before = stored(bot.db, table.table_id).version

        async def refused(page: PageClient, press: str, v: int, reason: str, text: str) -> None:
            reply = await page.press(press, v)
            assert reply["t"] == "notice" and reply["reason"] == reason, reply
            assert reply["text"] == text
            assert stored(bot.db, table.table_id).version == before

        # a spectator taps a player's card: not his game
        await refused(spy, card["press"], state["v"], "not_yours", "This is not your game.")
        # the other player taps the leader's card (it is not in his hand)
        await refused(
            theirs,
            card["press"],
            state["v"],
            "illegal.card_not_in_hand",
            "You do not hold that card.",
        )
        # a press drawn for an older state, or sent with an older version
        await refused(
            mine,
            card["press"],
            state["v"] - 1,
            "outdated",
            "That button is outdated: here is the current state.",
        )
        # a button of another table
        # (a card or a move of that page's, else the chat's Refresh of that table: the page
        # itself has none)
        other_press = next(
            (c["press"] for c in elsewhere.state["hand"]["cards"] if c["press"]), None
        ) or next(
            d for d in callback_buttons(other_table.hand(other_table.users[0])) if kind_of(d) == "f"
        )
        await refused(
            mine, other_press, state["v"], "wrong_table", "That button belongs to another table."
        )
        # forged callback data
        forged = card["press"][:-2] + ("AA" if not card["press"].endswith("AA") else "BB")
        await refused(mine, forged, state["v"], "malformed", "I cannot read that button.")
        await refused(mine, "1t.zz.1.7S", state["v"], "malformed", "I cannot read that button.")
        # and the real press still works
        assert (await mine.press(card["press"], state["v"]))["t"] == "ack"


async def test_a_page_of_a_finished_or_cancelled_table(tmp_path: Path) -> None:
    rng = random.Random(4)
    async with mini_app(tmp_path) as bot:
        table = await Table.create(bot.tg, 2)
        await table.seat_everyone()
        ann = await bot.page(table.users[0], table.table_id)
        playing = ann.state
        assert playing is not None
        # the page is live and has no Refresh; the chat's hand has one, the same press
        [stale] = [d for d in callback_buttons(table.hand(table.users[0])) if kind_of(d) == "f"]
        await table.finish(bot.db, rng)
        end = stored(bot.db, table.table_id)
        final = await ann.wait_state(lambda s: s["status"] == "finished")
        assert final["v"] == end.version and final["hand"]["cards"] is not None
        assert all(c["press"] is None for c in final["hand"]["cards"])
        # a page opened now gets the final state
        late = await bot.page(table.users[1], table.table_id)
        assert late.state is not None and late.state["status"] == "finished"
        assert late.state["end"]["text"]
        reply = await ann.press(stale, playing["v"])
        assert reply["t"] == "notice" and reply["reason"] == "outdated"
        reply = await ann.press(stale, final["v"])
        assert reply == {"t": "notice", "reason": "illegal.game_over", "text": "The game is over."}
        assert stored(bot.db, table.table_id).version == end.version
        # a cancelled lobby
        second = await Table.create(bot.tg, 2)
        await second.start_bots()
        await second.open_lobby()
        page = await bot.page(second.users[0], second.table_id)
        leave = next(b["press"] for b in page.state["buttons"] if b["action"] == "leave")  # type: ignore[index]
        await bot.tg.send_command(second.users[0], second.group, "cancel")
        closed = await page.wait_state(lambda s: s["status"] == "cancelled")
        assert closed["buttons"] == [] and closed["end"]["text"]
        reply = await page.press(leave, closed["v"])
        assert reply["t"] == "notice" and reply["text"]
        assert stored(bot.db, second.table_id).status == "cancelled"


async def test_lobby_presses_on_a_page(tmp_path: Path) -> None:
    async with mini_app(tmp_path) as bot:
        table = await Table.create(bot.tg, 3)
        await table.start_bots()
        await table.open_lobby()
        ann, bob, cid = table.users
        bob_page = await bot.page(bob, table.table_id)
        state = bob_page.state
        assert state is not None
        [join] = [b["press"] for b in state["buttons"] if b["action"] == "join"]
        reply = await bob_page.press(join, state["v"])
        assert reply["t"] == "ack" and reply["text"] == "You are seated. Good luck!"
        seated = await bob_page.wait_state(lambda s: s["lobby"]["players"] == ["Ann", "Bob"])
        await table.tg.wait_for(lambda: "2/6" in table.lobby.plain_text, timeout=10)  # type: ignore[union-attr]
        # Bob may not start (only the creator or an admin), Ann may
        [start] = [b["press"] for b in seated["buttons"] if b["action"] == "start"]
        reply = await bob_page.press(start, seated["v"])
        assert reply["reason"] == "not_allowed"
        ann_page = await bot.page(ann, table.table_id)
        cid_page = await bot.page(cid, table.table_id)
        assert cid_page.state is not None and cid_page.state["you"]["seat"] is None
        reply = await ann_page.press(start, seated["v"])
        assert reply["t"] == "ack"
        dealt = await bob_page.wait_state(lambda s: s["status"] == "playing")
        assert dealt["you"]["seat"] == 1 and dealt["hand"]["cards"]
        await table.tg.wait_for(lambda: all(table.hand(u) for u in (ann, bob)), timeout=10)
        watched = await cid_page.wait_state(lambda s: s["status"] == "playing")
        assert watched["hand"] is None and watched["buttons"] == []


# ---------------------------------------------------------------- the ways in


async def test_the_ways_in_name_the_table(tmp_path: Path) -> None:
    from fake_telegram import Button

    from .harness import url_buttons
    from .pages import start_param_of, web_app_buttons

    async with mini_app(tmp_path) as bot:
        table = await Table.create(bot.tg, 2)
        await table.start_bots()
        lobby = await table.open_lobby()
        token = table_token(bot.tg, table.table_id)
        link = f"https://t.me/durak_test_bot/table?startapp={token}"
        assert link in url_buttons(lobby)
        opened: list[Button] = [b for row in lobby.buttons for b in row if b.url == link]
        assert opened[0].text == "🃏 Open the table"
        await table.join_all()
        await table.start()
        st = stored(bot.db, table.table_id)
        group = bot.tg.message(table.group, st.group_message_id)  # type: ignore[arg-type]
        await bot.tg.wait_for(lambda: link in url_buttons(group), timeout=10)
        for user in table.users:
            hand = table.hand(user)
            assert web_app_buttons(hand) == [f"http://127.0.0.1:{bot.port}/app?startapp={token}"]
            assert url_buttons(hand) == [], "no t.me link in private"
        # the token a button carries opens that table's page
        param = start_param_of(web_app_buttons(table.hand(table.users[1]))[0])
        page = await PageClient.open(
            bot.session, bot.port, init_data(table.users[1], bot.tg.token), param
        )
        assert (await page.wait_state())["you"]["seat"] == 1
        # Russian labels
        ru = await Table.create(bot.tg, 2, language="ru")
        await ru.start_bots()
        ru_lobby = await ru.open_lobby()
        labels = [b.text for row in ru_lobby.buttons for b in row if b.url]
        assert "🃏 Открыть стол" in labels
        assert bot.tg.rate_limited == []


async def test_without_a_short_name_groups_get_no_link(tmp_path: Path) -> None:
    from .harness import url_buttons
    from .pages import web_app_buttons

    async with mini_app(tmp_path, webapp_short_name="") as bot:
        table = await Table.create(bot.tg, 2)
        await table.seat_everyone()
        st = stored(bot.db, table.table_id)
        group = bot.tg.message(table.group, st.group_message_id)  # type: ignore[arg-type]
        assert all("startapp" not in url for url in url_buttons(group) + url_buttons(table.lobby))
        assert web_app_buttons(table.hand(table.users[0])), "private chats still get the app"


async def test_a_game_against_the_computer_on_a_page(tmp_path: Path) -> None:
    from .pages import start_param_of, web_app_buttons
    from .solo import Solo

    rng = random.Random(6)
    async with mini_app(tmp_path, ai_delay=0.05) as bot:
        solo = await Solo.create(bot.tg)
        setup = await solo.open_setup()
        await solo.start(setup)
        hand = await bot.tg.wait_for(
            lambda: next((m for m in solo.bot_messages() if web_app_buttons(m)), None),
            timeout=10,
        )
        token = start_param_of(web_app_buttons(hand)[0])
        page = await PageClient.open(
            bot.session, bot.port, init_data(solo.user, bot.tg.token), token, name="solo"
        )
        state = await page.wait_state()
        assert state["you"]["seat"] == 0 and state["title"].startswith("Against the computer")
        table_id = int(token[1 : token.index("_")], 36)
        moved = 0
        while stored(bot.db, table_id).status == "playing":
            st = stored(bot.db, table_id)
            assert st.game is not None
            if 0 not in st.game.to_act():
                # the computer moves by itself, and the page shows it
                await page.wait_state(lambda s, v=st.version: s["v"] > v, timeout=20)
                continue
            shown = await page.wait_state(lambda s, v=st.version: s["v"] >= v)
            if shown["v"] != st.version:
                continue
            presses = page_moves(shown)
            assert presses, shown
            reply = await page.press(rng.choice(presses), shown["v"])
            assert reply["t"] == "ack" or reply["reason"] == "outdated", reply
            moved += 1
        final = await page.wait_state(lambda s: s["status"] == "finished")
        assert moved > 3 and [b["action"] for b in final["buttons"]] == ["rematch", "replay"]
        seen_by_computer = [f for f in page.states if f["status"] == "playing"]
        assert len({f["v"] for f in seen_by_computer}) >= moved
        moves = positions(bot.db, table_id)
        start = stored(bot.db, table_id).version - (len(moves) - 1)
        check_frames(page.name, page.states, 0, moves, start)


async def test_a_page_of_a_lobby_that_expires(tmp_path: Path) -> None:
    import sqlite3

    async with mini_app(tmp_path) as bot:
        table = await Table.create(bot.tg, 2)
        await table.start_bots()
        await table.open_lobby()
        page = await bot.page(table.users[0], table.table_id)
        con = sqlite3.connect(bot.db)
        with con:
            con.execute("UPDATE tables SET created_at = ?", (time.time() - 2 * 86_400,))
        con.close()
        (job,) = bot.app.job_queue.get_jobs_by_name("purge")
        await job.run(bot.app)
        closed = await page.wait_state(lambda s: s["status"] == "cancelled")
        assert closed["buttons"] == [] and closed["lobby"] is None


async def test_a_page_invites_to_its_table_with_a_prepared_message(tmp_path: Path) -> None:
    """Invite: the bot prepares the invitation (savePreparedInlineMessage, Bot API 8.0) for
    the page's user, with the table's direct link, for Telegram's shareMessage."""
    async with mini_app(tmp_path) as bot:
        table = await Table.create(bot.tg, 2)
        await table.seat_everyone()
        ann = await bot.page(table.users[0], table.table_id)
        assert ann.state is not None and ann.state["share"] is True
        before = len(ann.frames)
        await ann.send({"t": "share"})
        shared = await ann.wait_for(
            lambda: next((f for f in ann.frames[before:] if f.get("t") == "share"), None),
            what="the prepared invitation",
        )
        user_id, result = bot.tg.world.prepared[shared["id"]]
        assert user_id == table.users[0].id
        [[button]] = result["reply_markup"]["inline_keyboard"]
        assert button["url"].startswith(f"https://t.me/{bot.tg.bot_user.username}/table?startapp=")
        assert "durak" in result["input_message_content"]["message_text"].lower()
