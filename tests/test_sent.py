"""The log of the bot's own messages per chat, which tells its messages from copies."""

from __future__ import annotations

import asyncio

from bot.transport.sent import SentLog


def test_a_chat_is_known_from_its_first_answered_send() -> None:
    log = SentLog()
    assert log.newest(5) is None and log.known_above(5) is None and not log.mine(5, 1)
    log.sent(5, 10)
    log.sent(5, 12)
    log.sent(5, 11)  # answers may come out of order
    assert log.newest(5) == 12
    assert log.mine(5, 11) and not log.mine(5, 13)
    assert log.known_above(5) == 9, "ids below the first answer may be the process before's"
    assert log.newest(6) is None


def test_what_is_forgotten_is_never_claimed_known() -> None:
    log = SentLog(chats=2, per_chat=3)
    for message_id in (1, 2, 3, 4):
        log.sent(-100, message_id)
    assert log.known_above(-100) == 1 and not log.mine(-100, 1) and log.mine(-100, 2)
    log.sent(7, 50)
    log.sent(8, 60)  # a third chat: the one sent to longest ago is forgotten
    assert log.known_above(-100) is None and log.newest(-100) is None
    log.sent(-100, 9)
    assert log.known_above(-100) == 8, "what it sent there before is below the new start"


async def test_settled_waits_for_the_sends_under_way() -> None:
    log = SentLog()
    answered = asyncio.Event()

    async def send() -> None:
        with log.sending(5):
            await answered.wait()
            log.sent(5, 3)

    sending = asyncio.create_task(send())
    await asyncio.sleep(0)
    settled = asyncio.create_task(log.settled(5))
    await asyncio.sleep(0)
    assert not settled.done()
    answered.set()
    await settled
    assert log.mine(5, 3)
    await sending
    await log.settled(5)  # nothing under way: at once
