"""A table's messages when its process lets it go: a send already under way is finished
(and where its message is, told) before the lease goes back; nothing more is sent."""

from __future__ import annotations

import asyncio

from fake_telegram import FakeTelegramServer, Limits
from telegram import Bot

from bot.transport.sender import Content, Publisher


async def test_a_message_forgotten_mid_send_is_finished_and_nothing_more_is_sent() -> None:
    async with FakeTelegramServer(limits=Limits.fast()) as tg:
        ann = await tg.create_user("Ann", language_code="en")
        await tg.start_bot(ann)
        chat = tg.private_chat(ann)
        bot = Bot(tg.token, base_url=tg.base_url)
        await bot.initialize()
        try:
            out = Publisher(bot)
            placed: list[int | None] = []

            async def sent(message_id: int | None) -> None:
                placed.append(message_id)

            held = tg.hold("sendMessage")
            out.show("hand", ann.id, Content("first"), on_sent=sent)
            await tg.wait_for(lambda: held.calls, timeout=5, what="the send")
            worker = out.under_way("hand")
            assert worker is not None, "a send is under way"
            out.show("hand", ann.id, Content("second"))  # wanted after it: never sent
            out.forget("hand")
            assert out.under_way("hand") is None, "forgotten"
            held.release()
            await asyncio.wait_for(worker, 5)
            shown = [m for m in tg.bot_messages(chat) if m.text in ("first", "second")]
            assert [m.text for m in shown] == ["first"]
            assert placed == [shown[0].message_id], "its place told, for the next holder"
            # the worker has ended: nothing more comes of the slot
            assert [c.params.get("text") for c in tg.calls_to("sendMessage")] == ["first"]
            assert tg.calls_to("editMessageText") == []

            # a slot that only waits for its turn has nothing under way
            out.show(
                "other", ann.id, Content("third"), interval=5.0, message_id=shown[0].message_id
            )
            assert out.under_way("other") is None
            out.forget("other")
            await out.close()
        finally:
            await bot.shutdown()
