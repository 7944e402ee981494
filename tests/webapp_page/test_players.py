"""The players at the table: laid out by their number, names readable on a 360 px phone,
teams and partners told apart, your own seat in your hand's header."""

from __future__ import annotations

from typing import Any

from playwright.async_api import expect

from . import frames
from .conftest import OpenPage, attrs, show
from .page_server import PageServer

# how many characters of an element's text show before its ellipsis (all of them when the
# text is whole): measured on the laid-out text, as the reader sees it
VISIBLE_CHARS = """(el) => {
  const chars = Array.from(el.textContent);
  const node = el.firstChild;
  const box = el.getBoundingClientRect();
  const whole = el.scrollWidth <= el.clientWidth && el.scrollHeight <= el.clientHeight + 1;
  if (!node || whole) return [chars.length, chars.length];
  const range = document.createRange();
  let at = 0;
  let shown = 0;
  for (const ch of chars) {
    range.setStart(node, at);
    range.setEnd(node, at + ch.length);
    at += ch.length;
    const r = range.getBoundingClientRect();
    if (r.bottom > box.bottom + 0.5 || r.right > box.right + 0.5) break;
    shown += 1;
  }
  return [Math.max(0, shown - 2), chars.length];  // the ellipsis covers two at most
}"""


async def names_shown(tp: Any) -> list[list[int]]:
    shown: list[list[int]] = await tp.page.locator("[data-role=players] .name").evaluate_all(
        f"(els) => els.map({VISIBLE_CHARS})"
    )
    return shown


async def test_six_names_are_readable_on_a_360_px_phone(
    open_page: OpenPage, server: PageServer
) -> None:
    async with open_page(width=360, height=740) as tp:
        peer, _ = await server.hello()
        await show(tp, peer, frames.crowded(60))
        shown = await names_shown(tp)
        assert len(shown) == 6
        for visible, whole in shown:
            assert visible >= 8 or visible == whole, shown
        # two rows of three
        tops = await tp.page.locator("[data-role=players] > li").evaluate_all(
            "(els) => els.map((e) => Math.round(e.getBoundingClientRect().top))"
        )
        assert len(set(tops)) == 2


async def test_players_are_laid_out_by_their_number(
    open_page: OpenPage, server: PageServer
) -> None:
    async with open_page(width=360) as tp:
        peer, _ = await server.hello()
        rows_of = "(els) => new Set(els.map((e) => Math.round(e.getBoundingClientRect().top))).size"
        two = frames.mid_game(41)
        two["table"]["players"] = two["table"]["players"][:2]
        await show(tp, peer, two)
        # halves: side by side, each half the felt
        widths = await tp.page.locator("[data-role=players] > li").evaluate_all(
            "(els) => els.map((e) => e.getBoundingClientRect().width)"
        )
        assert len(widths) == 2 and abs(widths[0] - widths[1]) < 1 and widths[0] > 140
        assert await tp.page.locator("[data-role=players] > li").evaluate_all(rows_of) == 1
        await show(tp, peer, frames.pairs(42))
        assert await tp.page.locator("[data-role=players] > li").evaluate_all(rows_of) == 2


async def test_teams_and_the_partner_are_told_apart(
    open_page: OpenPage, server: PageServer
) -> None:
    async with open_page() as tp:
        peer, _ = await server.hello()
        await show(tp, peer, frames.pairs(70))
        assert await attrs(tp, "[data-role=players] > li", "data-team") == ["A", "B", "A", "B"]
        dan = tp.page.locator("[data-role=players] > li[data-seat='3']")
        await expect(dan.locator(".partner-tag")).to_have_text("partner")
        await expect(dan.locator(".team")).to_have_text("B")
        await expect(tp.page.locator(".partner-tag")).to_have_count(1)
        colour = "(e) => getComputedStyle(e).borderLeftColor"
        mine = await tp.page.locator("li[data-seat='1']").evaluate(colour)
        assert await dan.evaluate(colour) == mine
        assert await tp.page.locator("li[data-seat='0']").evaluate(colour) != mine
        # your own team in your hand's header
        await expect(tp.page.locator("[data-role=hand-title]")).to_have_text(
            "Your cards · 5 · defending · team B"
        )


async def test_your_role_and_count_head_your_hand(open_page: OpenPage, server: PageServer) -> None:
    async with open_page() as tp:
        peer, _ = await server.hello()
        await show(tp, peer, frames.mid_game(41))
        await expect(tp.page.locator("[data-role=hand-title]")).to_have_text(
            "Your cards · 5 · defending"
        )
        await expect(tp.page.locator("[data-role=your-turn]")).to_have_text("Your move")
        await expect(tp.page.locator("[data-role=players] > li.you .tags")).to_have_text("you")
        await show(tp, peer, frames.waiting(42))
        await expect(tp.page.locator("[data-role=your-turn]")).to_be_hidden()
