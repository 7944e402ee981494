"""A state frame drawn: the table, the hand, the lobby, the end, by the data-* contract."""

from __future__ import annotations

from playwright.async_api import expect

from . import frames
from .conftest import TOKEN, OpenPage, attrs, classes, show
from .page_server import PageServer


async def test_a_state_shows_the_table_and_the_hand(
    open_page: OpenPage, server: PageServer
) -> None:
    async with open_page() as tp:
        peer, hello = await server.hello()
        assert hello == {"t": "hello", "init_data": tp.init_data, "start": TOKEN}
        await show(tp, peer, frames.mid_game(41))
        page = tp.page
        assert await attrs(tp, "[data-card]", "data-card") == ["8S", "KS", "6H", "JH", "TD"]
        assert await attrs(tp, "[data-table-card]", "data-table-card") == ["7S", "9S", "7C", "9C"]
        await expect(page.locator("[data-role=trump] [data-trump-card]")).to_have_attribute(
            "data-trump-card", "AD"
        )
        await expect(page.locator("[data-role=stock]")).to_have_text("Stock18")
        await expect(page.locator("[data-role=discard]")).to_have_text("Discard0")
        await expect(page.locator("[data-role=status]")).to_have_text(
            "Bob to defend; may throw in: Ann, Cid"
        )
        players = page.locator("[data-role=players] > li")
        await expect(players).to_have_count(3)
        await expect(players.nth(0)).to_contain_text("Ann")
        await expect(players.nth(0)).to_contain_text("4")
        await expect(players.nth(0)).to_contain_text("attacking")
        # the one who acts now is marked; only he
        assert await attrs(tp, "[data-role=players] > li.acting", "data-seat") == ["1"]
        await expect(page.locator("[data-role=recent] li")).to_have_text(
            frames.WORDS["en"]["recent"]
        )
        await expect(page.locator("[data-role=tally] li")).to_have_text(["Ann 1", "Bob 2", "Cid 0"])
        await expect(page.locator("[data-role=title]")).to_have_text("Friends · Podkidnoy")
        # the page is live: an older server's Refresh is not shown
        assert await attrs(tp, "[data-action]", "data-action") == ["take"]
        await expect(page.locator("[data-action=take]")).to_have_text("🫴 Take")
        for hidden in ("lobby", "end", "choice", "notice", "connection", "spectator"):
            await expect(page.locator(f"[data-role={hidden}]")).to_be_hidden()


async def test_the_servers_words_for_the_table(open_page: OpenPage, server: PageServer) -> None:
    async with open_page() as tp:
        peer, _ = await server.hello()
        state = frames.mid_game(41)
        state["texts"] = {
            **state["texts"],
            "hand": "Cards",
            "your_turn": "Go!",
            "players": "Seats",
            "table": "Felt",
            "empty": "Nothing here yet.",
            "no_trump": "Trumpless",
        }
        await show(tp, peer, state)
        page = tp.page
        await expect(page.locator("[data-role=hand-title]")).to_have_text("Cards · 5 · defending")
        await expect(page.locator("[data-role=your-turn]")).to_have_text("Go!")
        await expect(page.locator("[data-role=players]")).to_have_attribute("aria-label", "Seats")
        await expect(page.locator("[data-role=pairs]")).to_have_attribute("aria-label", "Felt")
        await expect(page.locator("[data-role=pairs] .empty-note")).to_have_count(0)
        # not his move: the hand says nothing of it; an empty table says it is empty
        waiting = frames.waiting(42)
        waiting["texts"] = state["texts"]
        waiting["table"]["pairs"] = []
        await show(tp, peer, waiting)
        await expect(page.locator("[data-role=hand-title]")).to_have_text("Cards · 5 · defending")
        await expect(page.locator("[data-role=pairs]")).to_have_text("Nothing here yet.")
        # a game without trumps says so where the trump would lie
        trumpless = frames.with_version(waiting, 43)
        trumpless["table"]["trump"] = trumpless["table"]["trump_suit"] = None
        await show(tp, peer, trumpless)
        await expect(page.locator("[data-role=trump]")).to_have_text("Trumpless")
        await expect(page.locator("[data-role=trump]")).to_have_attribute("title", "Trumpless")


async def test_the_cover_lies_on_its_attack_card(open_page: OpenPage, server: PageServer) -> None:
    async with open_page() as tp:
        peer, _ = await server.hello()
        await show(tp, peer, frames.mid_game(41))
        pairs = tp.page.locator("[data-role=pairs] > .pair")
        await expect(pairs).to_have_count(3)
        await expect(pairs.nth(0).locator("[data-table-card]")).to_have_count(2)
        await expect(pairs.nth(0).locator(".cover")).to_have_attribute("data-table-card", "9S")
        await expect(pairs.nth(1).locator("[data-table-card]")).to_have_count(1)


async def test_cards_are_drawn_with_their_suits_in_colour(
    open_page: OpenPage, server: PageServer
) -> None:
    async with open_page() as tp:
        peer, _ = await server.hello()
        await show(tp, peer, frames.crowded(60))
        colour = "(e) => getComputedStyle(e).color"
        red = await tp.page.locator("[data-card='6H']").evaluate(colour)
        diamonds = await tp.page.locator("[data-card='8D']").evaluate(colour)
        black = await tp.page.locator("[data-card='6S']").evaluate(colour)
        clubs = await tp.page.locator("[data-card='6C']").evaluate(colour)
        assert red == diamonds
        assert black == clubs
        assert red != black
        # every card face has its rank in the corner and its suit drawn (not a letter)
        ten = tp.page.locator("[data-card='TS']")
        await expect(ten.locator(".idx.tl .rank")).to_have_text("10")
        await expect(ten.locator(".art .pip")).to_have_count(10)
        await expect(tp.page.locator("[data-card='QS'] .art .letter")).to_have_text("Q")
        # jokers as jokers, in their colours
        await expect(tp.page.locator("[data-card='XB']")).to_have_class(
            classes("card", "joker", "black")
        )
        await expect(tp.page.locator("[data-card='XR']")).to_have_class(
            classes("card", "joker", "red")
        )
        await expect(tp.page.locator("[data-card='XR'] .joker-idx").first).to_have_text("JOKER")
        await expect(tp.page.locator("[data-table-card='XB']")).to_have_count(1)
        # trumps (diamonds here) are marked
        assert await attrs(tp, "[data-card].trump", "data-card") == ["6D", "8D"]
        await expect(tp.page.locator("[data-card='8D'] .trump-mark")).to_have_count(1)
        await expect(tp.page.locator("[data-table-card='KD']")).to_have_class(
            classes("card", "suit-D", "red", "trump", "cover")
        )


async def test_unplayable_cards_are_disabled_and_the_rest_are_not(
    open_page: OpenPage, server: PageServer
) -> None:
    async with open_page() as tp:
        peer, _ = await server.hello()
        await show(tp, peer, frames.mid_game(41))
        assert await attrs(tp, "[data-card]:disabled", "data-card") == ["8S", "KS", "6H", "JH"]
        assert await attrs(tp, "[data-card]:enabled", "data-card") == ["TD"]
        await expect(tp.page.locator("[data-card='TD']")).to_have_class(
            classes("card", "suit-D", "red", "trump")
        )


async def test_a_choice_shows_its_buttons(open_page: OpenPage, server: PageServer) -> None:
    async with open_page() as tp:
        peer, _ = await server.hello()
        await show(tp, peer, frames.mid_game(41))
        await expect(tp.page.locator("[data-role=choice]")).to_be_hidden()
        # the server asks which card 10♦ should cover: a state for this page, same version
        await show(tp, peer, frames.choice(41))
        choice = tp.page.locator("[data-role=choice]")
        await expect(choice).to_be_visible()
        await expect(choice.locator(".prompt")).to_have_text("Cover which card?")
        await expect(choice.locator("[data-action]")).to_have_text(["7♣️", "9♣️", "✖️ Cancel"])
        assert await attrs(tp, "[data-role=choice] [data-action]", "data-action") == [
            "choose",
            "choose",
            "cancel",
        ]
        await expect(tp.page.locator("[data-card='TD']")).to_have_class(
            classes("selected", "card", "suit-D", "red", "trump")
        )
        await choice.locator("[data-action=choose]").nth(1).click()
        assert await peer.recv() == {"t": "press", "press": "press:cover:9C", "v": 41}


async def test_the_lobby(open_page: OpenPage, server: PageServer) -> None:
    async with open_page() as tp:
        peer, _ = await server.hello()
        await show(tp, peer, frames.lobby(3))
        lobby = tp.page.locator("[data-role=lobby]")
        await expect(lobby).to_be_visible()
        await expect(lobby.locator(".seated .name")).to_have_text(["Ann", "Bob", "Computer 1"])
        await expect(lobby).to_contain_text("Podkidnoy · 36 cards")
        assert await attrs(tp, "[data-action]", "data-action") == ["leave", "start"]
        for hidden in ("table", "hand", "end"):
            await expect(tp.page.locator(f"[data-role={hidden}]")).to_be_hidden()
        await tp.page.locator("[data-action=start]").click()
        assert await peer.recv() == {"t": "press", "press": "press:start", "v": 3}


async def test_the_end(open_page: OpenPage, server: PageServer) -> None:
    async with open_page() as tp:
        peer, _ = await server.hello()
        await show(tp, peer, frames.finished(90))
        end = tp.page.locator("[data-role=end]")
        await expect(end).to_be_visible()
        # a banner: who lost, with Rematch and Replay right under it, at the top of the page
        await expect(end.locator(".end-text")).to_have_text("🃏 Bob is the durak")
        await expect(end).to_have_class(classes("banner", "lost"))
        await expect(end.locator("[data-role=standings] li")).to_have_text(
            ["1.Ann", "2.Cid", "🤡Bob"]
        )
        await expect(end.locator("[data-role=standings] li.durak")).to_have_text("🤡Bob")
        for action in ("rematch", "replay"):
            box = await end.locator(f"[data-action={action}]").bounding_box()
            assert box is not None and box["y"] + box["height"] < 300, box
        # nothing of the finished table below it: no felt, no turn line, no dead hand
        await expect(tp.page.locator("[data-role=table]")).to_be_hidden()
        await expect(tp.page.locator("[data-role=log]")).to_be_hidden()
        await expect(end.locator("[data-role=tally] li")).to_have_text(["Ann 1", "Bob 3", "Cid 0"])
        # the tally is shown once, with the end
        await expect(tp.page.locator("[data-role=tally]")).to_have_count(1)
        assert await attrs(tp, "[data-action]", "data-action") == ["rematch", "replay"]
        await expect(tp.page.locator("[data-role=hand]")).to_be_hidden()
        await expect(tp.page.locator("[data-role=clock]")).to_be_hidden()
        await tp.page.locator("[data-action=rematch]").click()
        assert await peer.recv() == {"t": "press", "press": "press:rematch", "v": 90}


async def test_a_spectator_sees_the_table_and_no_hand(
    open_page: OpenPage, server: PageServer
) -> None:
    async with open_page() as tp:
        peer, _ = await server.hello()
        await show(tp, peer, frames.spectator(41))
        await expect(tp.page.locator("[data-role=spectator]")).to_have_text("You are watching")
        await expect(tp.page.locator("[data-role=hand]")).to_be_hidden()
        await expect(tp.page.locator("[data-card]")).to_have_count(0)
        await expect(tp.page.locator("[data-table-card]")).to_have_count(4)


async def test_an_older_state_is_ignored(open_page: OpenPage, server: PageServer) -> None:
    async with open_page() as tp:
        peer, _ = await server.hello()
        await show(tp, peer, frames.mid_game(41))
        await peer.send(frames.lobby(40))
        # frames are handled in order: once the notice after it shows, the lobby was seen
        await peer.send({"t": "notice", "reason": "outdated", "text": "That button is outdated"})
        await expect(tp.page.locator("[data-role=notice]")).to_be_visible()
        await expect(tp.page.locator("[data-role=lobby]")).to_be_hidden()
        await expect(tp.page.locator("[data-role=state]")).to_have_attribute("data-version", "41")
        await expect(tp.page.locator("[data-card]")).to_have_count(5)


async def test_the_clock_counts_from_the_servers_time(
    open_page: OpenPage, server: PageServer
) -> None:
    async with open_page() as tp:
        peer, _ = await server.hello()
        state = frames.mid_game(41)
        # the server's clock is an hour behind this device's: 95 s are still 95 s
        table = state["table"]
        table["server_ms"] -= 3_600_000
        table["deadline_ms"] = table["server_ms"] + 95_000
        await show(tp, peer, state)
        clock = tp.page.locator("[data-role=clock]")
        await expect(clock).to_be_visible()
        seconds = int(await clock.get_attribute("data-seconds") or -1)
        assert 60 < seconds <= 95
        await expect(clock).to_have_text(f"{seconds // 60}:{seconds % 60:02d}")
        # no deadline, no clock
        await show(tp, peer, frames.mid_game(42, deadline_s=None))
        await expect(clock).to_be_hidden()


async def test_texts_are_shown_as_text_with_the_chats_bold(
    open_page: OpenPage, server: PageServer
) -> None:
    async with open_page() as tp:
        peer, _ = await server.hello()
        state = frames.mid_game(41)
        state["table"]["players"][0]["name"] = '<img src=x onerror="window.__owned=1">Ann'
        state["table"]["recent"] = ["<script>window.__owned=2</script>Ann <b>leads</b> 7♠️"]
        await show(tp, peer, state)
        await expect(tp.page.locator("[data-role=players] li").first).to_contain_text(
            '<img src=x onerror="window.__owned=1">Ann'
        )
        await expect(tp.page.locator("[data-role=prompt] b")).to_have_text("Take")
        await expect(tp.page.locator("[data-role=recent] li b")).to_have_text("leads")
        await expect(tp.page.locator("[data-role=recent] li")).to_have_text(
            ["window.__owned=2Ann leads 7♠️"]
        )
        assert await tp.page.evaluate("window.__owned === undefined")
        await expect(tp.page.locator("img")).to_have_count(0)
        await expect(tp.page.locator("[data-role=recent] script")).to_have_count(0)


async def test_nothing_of_a_game_stays_behind_in_the_next_lobby(
    open_page: OpenPage, server: PageServer
) -> None:
    async with open_page() as tp:
        peer, _ = await server.hello()
        await show(tp, peer, frames.mid_game(41))
        # a rematch: the same table back in its lobby
        await show(tp, peer, frames.lobby(50))
        await expect(tp.page.locator("[data-card]")).to_have_count(0)
        await expect(tp.page.locator("[data-table-card]")).to_have_count(0)
        await expect(tp.page.locator("[data-role=players] > li")).to_have_count(0)


async def test_the_hand_is_fanned_in_rows_in_order(open_page: OpenPage, server: PageServer) -> None:
    async with open_page() as tp:
        peer, _ = await server.hello()
        await show(tp, peer, frames.crowded(60))
        # twenty cards: three rows of at most eight, each card right of the one before it
        # on the same line (the trump and the jokers like any other)
        rows = await tp.page.locator("[data-role=cards] > .fan").evaluate_all(
            "rows => rows.map((row) => [...row.children].map("
            "(c) => [c.dataset.card, c.offsetLeft, c.offsetTop]))"
        )
        assert [len(row) for row in rows] == [7, 7, 6]
        assert [code for row in rows for code, _, _ in row] == [
            c["code"] for c in frames.crowded(60)["hand"]["cards"]
        ]
        for row in rows:
            assert len({top for _, _, top in row}) == 1, row
            lefts = [left for _, left, _ in row]
            assert lefts == sorted(set(lefts)), row


async def test_a_draw_and_a_cancel_show_no_null_and_the_lines_as_written(
    open_page: OpenPage, server: PageServer
) -> None:
    """A draw has no durak, a cancelled table no tally and no table: nothing empty is
    printed as "null"; the server's line breaks stay line breaks."""
    async with open_page() as tp:
        peer, _ = await server.hello()
        draw = frames.finished(90)
        draw["end"] = {"text": "🤝 A draw!\nNobody is the durak.", "durak": []}
        await show(tp, peer, draw)
        page = tp.page
        end = page.locator("[data-role=end]")
        await expect(end).to_be_visible()
        text = await end.inner_text()
        assert "null" not in text and "undefined" not in text, text
        assert "A draw!\nNobody is the durak." in text, "the line break is kept"
        cancelled = frames.with_version(frames.finished(91), 91)
        cancelled.update(
            status="cancelled",
            table=None,
            tally=None,
            buttons=[],
            end={
                "text": "🛑 The game was cancelled.\n/newgame in the group opens a new table.",
                "durak": [],
            },
        )
        await show(tp, peer, cancelled)
        await expect(end).to_contain_text("/newgame in the group")
        body = await page.locator("body").inner_text()
        assert "null" not in body and "undefined" not in body, body
        await expect(page.locator("[data-role=table]")).to_be_hidden()
        await expect(page.locator("[data-role=status]")).to_have_text("")
        assert "cancelled.\n/newgame" in await end.inner_text()


async def test_a_draw_is_a_banner_of_its_own(open_page: OpenPage, server: PageServer) -> None:
    async with open_page() as tp:
        peer, _ = await server.hello()
        await show(tp, peer, frames.draw(91))
        end = tp.page.locator("[data-role=end]")
        await expect(end).to_have_class(classes("banner", "draw"))
        await expect(end.locator(".end-text")).to_have_text("🤝 A draw: nobody is the durak.")
        await expect(end.locator("[data-role=standings] li")).to_have_text(
            ["1.Ann", "2.Bob", "3.Cid"]
        )
        await expect(tp.page.locator("body")).not_to_contain_text("null")
