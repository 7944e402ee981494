"""The per-chat pacer: buckets, priorities, the reserve, per-chat pauses, PTB's hook.

Real time with short intervals: the pacer may grant late on a loaded machine, never
early, so the lower bounds asserted here hold whatever the load; "at once" is checked
against a bound far below the wait it would otherwise have (a quarter of a second)."""

from __future__ import annotations

import asyncio
import warnings
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from telegram.error import RetryAfter

from bot.app import build_application
from bot.base.config import Settings
from bot.render.limits import MAX_ANSWER, MAX_TEXT, visible_length
from bot.transport.pacing import Pacer, Pacing, Priority, counts, paced, retry_after_seconds

PRIVATE, OTHER, GROUP = 1001, 1002, -2001
AT_ONCE = 0.25
"""Seconds within which a request that need not wait is let go, even on a busy machine."""
EARLY = 5e-3
"""Seconds a timer of the event loop may fire before its time (its clock's resolution)."""


def pacer(**changes: Any) -> Pacer:
    figures: dict[str, Any] = {
        "private_interval": 0.05,
        "private_burst": 3,
        "group_interval": 0.2,
        "group_burst": 2,
        **changes,
    }
    return Pacer(Pacing(**figures))


async def grant_times(p: Pacer, chat: int, priorities: list[Priority]) -> list[float]:
    """Acquire once per priority, all queued at the same instant; when each was let go,
    in seconds after the start, in the order of ``priorities``."""
    loop = asyncio.get_running_loop()
    start = loop.time()

    async def one(priority: Priority) -> float:
        await p.acquire(chat, priority)
        return loop.time() - start

    return list(await asyncio.gather(*(one(q) for q in priorities)))


async def test_a_private_chat_gets_its_burst_at_once_then_one_per_interval() -> None:
    times = await grant_times(pacer(private_interval=0.5), PRIVATE, [Priority.OWN] * 5)
    assert all(t < AT_ONCE for t in times[:3])
    # then one per interval, on the bucket's schedule (never earlier)
    assert times[3] >= 0.5 - EARLY and times[4] >= 1.0 - EARLY
    assert times == sorted(times)


async def test_a_group_has_its_own_figures() -> None:
    times = await grant_times(pacer(group_interval=0.6), GROUP, [Priority.OWN] * 3)
    assert times[1] < AT_ONCE and times[2] >= 0.6 - EARLY


async def test_the_table_leaves_the_reserve_to_a_post() -> None:
    """A table edited at every move spends the group's budget as fast as it refills; a
    post (a game's end, with a tournament's standings) still goes at once."""
    p = pacer(group_interval=0.6, group_burst=3)
    table = await grant_times(p, GROUP, [Priority.TABLE] * 3)
    assert table[1] < AT_ONCE, "the table has the burst but its last token"
    assert table[2] >= 0.6 - EARLY, "the third edit waits: one token is kept back"
    loop = asyncio.get_running_loop()
    before = loop.time()
    await p.acquire(GROUP, Priority.OWN)
    assert loop.time() - before < AT_ONCE, "the post takes the token the table left"
    after = await grant_times(p, GROUP, [Priority.TABLE])
    assert after[0] >= 0.6 - EARLY, "the table's next edit waits for the budget to refill"


async def test_chats_do_not_share_a_budget() -> None:
    p = pacer(private_interval=1.0)
    await grant_times(p, PRIVATE, [Priority.OWN] * 3)  # the burst is spent
    other = await grant_times(p, OTHER, [Priority.OWN] * 3)
    assert max(other) < AT_ONCE, "a chat of its own does not wait for the other's refill"


async def test_the_queue_lets_higher_priorities_go_first() -> None:
    p = pacer()
    await grant_times(p, PRIVATE, [Priority.OWN] * 3)
    order: list[Priority] = []

    async def one(priority: Priority) -> None:
        await p.acquire(PRIVATE, priority)
        order.append(priority)

    await asyncio.gather(
        one(Priority.WATCH), one(Priority.TABLE), one(Priority.OWN), one(Priority.URGENT)
    )
    assert order == [Priority.URGENT, Priority.OWN, Priority.TABLE, Priority.WATCH]


async def test_content_that_can_wait_leaves_the_reserve_to_urgent_content() -> None:
    p = pacer(private_burst=2, private_interval=0.6)
    loop = asyncio.get_running_loop()
    start = loop.time()
    await p.acquire(PRIVATE, Priority.WATCH)  # a full bucket: it goes
    await p.acquire(PRIVATE, Priority.WATCH)  # one token left: the reserve, so it waits
    assert loop.time() - start >= 0.6 - EARLY
    before = loop.time()
    await p.acquire(PRIVATE, Priority.URGENT)  # the reserve it left: urgent goes at once
    assert loop.time() - before < AT_ONCE


async def test_a_pause_holds_only_its_own_chat() -> None:
    p = pacer()
    loop = asyncio.get_running_loop()
    p.pause(PRIVATE, 1.0)
    start = loop.time()
    await p.acquire(OTHER, Priority.OWN)
    assert loop.time() - start < AT_ONCE
    await p.acquire(PRIVATE, Priority.URGENT)
    assert loop.time() - start >= 1.0 - EARLY
    # after the pause the bucket refills from empty: one, then the interval
    await p.acquire(PRIVATE, Priority.URGENT)
    assert loop.time() - start >= 1.0 + 0.05 - EARLY


async def test_an_overall_cap_applies_across_chats_when_set() -> None:
    p = pacer(overall_rate=20.0)  # one every 50 ms, a burst of 20
    loop = asyncio.get_running_loop()
    start = loop.time()
    for chat in range(1, 26):
        await p.acquire(chat, Priority.OWN)
    assert loop.time() - start >= 5 * 0.05 - 0.01


def test_what_spends_a_chat_s_budget() -> None:
    assert counts("sendMessage") and counts("editMessageText") and counts("deleteMessage")
    assert counts("editMessageReplyMarkup") and counts("copyMessage")
    assert not counts("answerCallbackQuery") and not counts("getChatMember")
    assert not counts("sendChatAction") and not counts("getUpdates")


def test_impossible_figures_are_refused() -> None:
    with pytest.raises(ValueError, match="burst"):
        Pacing(private_burst=0)
    with pytest.raises(ValueError, match="negative"):
        Pacing(group_interval=-1)


class Calls:
    """A stand-in for PTB's request callback: answers 429 as often as told."""

    def __init__(self, floods: int = 0, retry_after: int = 1) -> None:
        self.floods = floods
        self.retry_after = retry_after
        self.times: list[float] = []

    async def __call__(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        self.times.append(asyncio.get_running_loop().time())
        if self.floods:
            self.floods -= 1
            raise RetryAfter(self.retry_after)
        return {"ok": True}


async def request(p: Pacer, calls: Calls, endpoint: str, chat: int | None) -> Any:
    data: dict[str, Any] = {} if chat is None else {"chat_id": chat}
    return await p.process_request(calls, (), {}, endpoint, data, None)


async def test_a_429_pauses_its_chat_and_is_tried_again() -> None:
    p = pacer()
    calls = Calls(floods=1)
    assert await request(p, calls, "sendMessage", PRIVATE) == {"ok": True}
    assert len(calls.times) == 2 and calls.times[1] - calls.times[0] >= 1.0 - EARLY
    # meanwhile another chat was never held up
    start = asyncio.get_running_loop().time()
    await request(p, Calls(), "editMessageText", OTHER)
    assert asyncio.get_running_loop().time() - start < AT_ONCE


async def test_a_caller_that_retries_itself_gets_the_429_at_once() -> None:
    p = pacer()
    calls = Calls(floods=1)
    with paced(Priority.URGENT, retry=False), pytest.raises(RetryAfter):
        await request(p, calls, "editMessageText", PRIVATE)
    assert p.delay(PRIVATE) > 0.5, "the chat is paused for the caller's next try"


async def test_free_calls_go_at_once_even_in_a_paused_chat() -> None:
    p = pacer()
    p.pause(PRIVATE, 5.0)
    start = asyncio.get_running_loop().time()
    await request(p, Calls(), "answerCallbackQuery", None)
    await request(p, Calls(), "getChatMember", PRIVATE)
    assert asyncio.get_running_loop().time() - start < AT_ONCE


async def test_giving_up_after_max_retries() -> None:
    p = pacer(max_retries=1)
    calls = Calls(floods=5)
    with pytest.raises(RetryAfter):
        await request(p, calls, "sendMessage", PRIVATE)
    assert len(calls.times) == 2


@settings(max_examples=15, deadline=None)
@given(
    burst=st.integers(1, 4),
    gaps=st.lists(st.sampled_from([0.0, 0.0, 0.005, 0.02]), min_size=1, max_size=12),
    priorities=st.lists(st.sampled_from(list(Priority)), min_size=12, max_size=12),
)
def test_no_window_ever_holds_more_than_the_bucket_allows(
    burst: int, gaps: list[float], priorities: list[Priority]
) -> None:
    """Whatever the arrivals and priorities: in any span of T seconds at most
    burst + T / interval requests go (the bound Telegram's per-chat limit needs)."""
    interval = 0.02

    async def run() -> list[float]:
        p = pacer(private_interval=interval, private_burst=burst)
        loop = asyncio.get_running_loop()
        granted: list[float] = []

        async def one(priority: Priority) -> None:
            await p.acquire(PRIVATE, priority)
            granted.append(loop.time())

        tasks = []
        for gap, priority in zip(gaps, priorities, strict=False):
            tasks.append(asyncio.ensure_future(one(priority)))
            await asyncio.sleep(gap)
        await asyncio.gather(*tasks)
        return sorted(granted)

    granted = asyncio.run(run())
    for i, first in enumerate(granted):
        for j in range(i, len(granted)):
            span = granted[j] - first
            assert j - i + 1 <= burst + span / interval + 1e-6


def test_the_application_takes_ptb_periods_as_timedelta(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """PTB's int periods are deprecated and warn at every 429 it parses; the bot opts in to
    the timedelta form when it builds its Application, and reads the wait from it."""
    monkeypatch.delenv("PTB_TIMEDELTA", raising=False)
    build_application(Settings(bot_token="123456:" + "A" * 35, DURAK_DB_PATH=tmp_path / "db"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        flood = RetryAfter(timedelta(seconds=2.5))
        assert flood.retry_after == timedelta(seconds=2.5)
        assert retry_after_seconds(flood) == 2.5
        assert retry_after_seconds(RetryAfter(7)) == 7.0


async def test_a_text_too_long_for_telegram_is_cut_on_its_way_out() -> None:
    """Every request passes the pacer: a message or a callback answer that Telegram would
    refuse as too long leaves cut to fit (the last guard behind the renderers)."""
    sent: list[dict[str, Any]] = []

    async def callback(endpoint: str, data: dict[str, Any]) -> bool:
        sent.append(dict(data))
        return True

    p = pacer()
    text = "\n".join(["<b>Ж</b> · " + "я" * 60] * 100)
    for endpoint, data in (
        ("sendMessage", {"chat_id": PRIVATE, "text": text, "parse_mode": "HTML"}),
        ("editMessageText", {"chat_id": PRIVATE, "message_id": 1, "text": "x" * 5000}),
        ("answerCallbackQuery", {"callback_query_id": "7", "text": "я" * 300}),
    ):
        await p.process_request(callback, (endpoint, data), {}, endpoint, data, None)
    message, edit, answer = sent
    assert visible_length(message["text"]) <= MAX_TEXT and message["text"].endswith("…")
    assert len(edit["text"]) <= MAX_TEXT and len(answer["text"]) <= MAX_ANSWER


async def ephemeral(p: Pacer, calls: Calls, user: int, method: str = "edit") -> Any:
    """One ephemeral call to ``user`` in GROUP: an edit, or a send."""
    if method == "edit":
        data: dict[str, Any] = {"chat_id": GROUP, "receiver_user_id": user}
        return await p.process_request(calls, (), {}, "editEphemeralMessageText", data, None)
    data = {"chat_id": GROUP, "ephemeral_message_parameters": {"receiver_user_id": user}}
    return await p.process_request(calls, (), {}, "sendMessage", data, None)


async def test_each_player_s_ephemeral_messages_have_a_private_chat_s_budget() -> None:
    """Telegram does not say how it paces ephemeral messages: each (group, receiver) pair
    is paced like a private chat, apart from the group's own messages and each other."""
    p = pacer(group_interval=5.0, group_burst=1)
    assert p.ephemeral_budget(GROUP, PRIVATE) != p.ephemeral_budget(GROUP, OTHER) != GROUP
    await request(p, Calls(), "editMessageText", GROUP)  # the group's one token is spent
    start = asyncio.get_running_loop().time()
    for user in (PRIVATE, OTHER):
        for method in ("send", "edit", "edit"):  # a private chat's burst of three
            await ephemeral(p, Calls(), user, method)
    assert asyncio.get_running_loop().time() - start < AT_ONCE
    assert p.delay(GROUP) > 1.0, "the group's budget was not touched by them"


async def test_a_429_on_an_ephemeral_message_makes_the_group_s_share_its_budget() -> None:
    """One flood wait is taken to mean the other reading: from then on the group's
    ephemeral messages queue behind the group's budget, and wait as the group waits."""
    p = pacer(group_interval=0.3, group_burst=1)
    calls = Calls(floods=1)
    assert await ephemeral(p, calls, PRIVATE) == {"ok": True}
    assert len(calls.times) == 2 and calls.times[1] - calls.times[0] >= 1.0 - EARLY
    assert p.ephemeral_shared(GROUP) and p.ephemeral_shared(GROUP - 1), "a rule of the server"
    assert p.ephemeral_budget(GROUP, OTHER) == GROUP
    assert p.ephemeral_budget(GROUP - 1, OTHER) == GROUP - 1
    loop = asyncio.get_running_loop()
    start = loop.time()
    await ephemeral(p, Calls(), OTHER)
    await ephemeral(p, Calls(), PRIVATE)
    assert loop.time() - start >= 0.3 - EARLY, "they now take turns in the group's bucket"


async def test_what_went_apart_is_charged_to_its_group_once_they_share() -> None:
    """Ephemeral messages that went apart from another group before the lesson are counted
    against that group's bucket: its own next message waits for them."""
    p = pacer(group_interval=0.2, group_burst=2)
    other = GROUP - 1
    for _ in range(3):
        data = {"chat_id": other, "receiver_user_id": PRIVATE}
        await p.process_request(Calls(), (), {}, "editEphemeralMessageText", data, None)
    assert p.delay(other) == 0.0, "apart, the group's bucket was untouched"
    with paced(Priority.URGENT, retry=False), pytest.raises(RetryAfter):
        await ephemeral(p, Calls(floods=1), PRIVATE)  # GROUP's flood wait teaches the rule
    assert p.delay(other) >= 3 * 0.2 - 2 * 0.2 - EARLY


async def test_an_ephemeral_message_is_cut_to_1024_characters() -> None:
    p = pacer()
    seen: list[dict[str, Any]] = []

    async def call(*args: Any, **kwargs: Any) -> dict[str, Any]:
        return {"ok": True}

    for method, data in (
        ("editEphemeralMessageText", {"chat_id": GROUP, "receiver_user_id": PRIVATE}),
        (
            "sendMessage",
            {"chat_id": GROUP, "ephemeral_message_parameters": {"receiver_user_id": 1}},
        ),
    ):
        data = {**data, "text": "ж" * 3000, "parse_mode": "HTML"}
        await p.process_request(call, (), {}, method, data, None)
        seen.append(data)
    assert all(visible_length(d["text"]) <= 1024 for d in seen)
    plain = {"chat_id": GROUP, "text": "ж" * 3000, "parse_mode": "HTML"}
    await p.process_request(call, (), {}, "sendMessage", plain, None)
    assert visible_length(plain["text"]) == 3000, "an ordinary message keeps its 4096"
