"""Text contrast of the page's key texts against what lies under them, measured in the
browser, light and dark: at least 4.5:1 (WCAG AA for body text)."""

from __future__ import annotations

import pytest

from . import frames
from .conftest import OpenPage, show
from .page_server import PageServer

# The contrast ratio of an element's text against its background: the background is every
# ancestor's colour laid over the one under it (the felt's gradient counts as its lighter
# end, the worst case for light text on it).
CONTRAST = """(el) => {
  const parse = (c) => {
    const m = c.match(/[\\d.]+/g).map(Number);
    return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1];
  };
  const over = (top, under) => {
    const a = top[3];
    return [0, 1, 2].map((i) => top[i] * a + under[i] * (1 - a)).concat(1);
  };
  const layers = [];
  for (let e = el; e; e = e.parentElement) {
    const style = getComputedStyle(e);
    if (e.classList.contains("felt")) {
      const hi = style.getPropertyValue("--felt-hi").trim();
      const probe = document.createElement("i");
      probe.style.color = hi;
      document.body.append(probe);
      layers.push(parse(getComputedStyle(probe).color));
      probe.remove();
      break;
    }
    layers.push(parse(style.backgroundColor));
  }
  let bg = [255, 255, 255, 1];
  for (const layer of layers.reverse()) bg = over(layer, bg);
  const fg = over(parse(getComputedStyle(el).color), bg);
  const lum = (c) => {
    const [r, g, b] = c.slice(0, 3).map((v) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
  return (a + 0.05) / (b + 0.05);
}"""

KEY_TEXTS = (
    "[data-role=title]",
    "[data-role=hand-title]",
    "[data-role=prompt]",
    "[data-role=status]",
    "[data-role=clock]",
    "[data-role=trump-chip] .chip-label",
    "[data-role=stock] .label",
    "[data-role=players] .name",
    "[data-role=players] .role",
    "[data-role=recent] li",
    "[data-role=tally] li",
)
# Telegram's own button colours (its theme's button_color under button_text_color) are not
# the page's to change: measured and reported, not held to the body text's 4.5:1
THEME_BUTTONS = ("[data-role=your-turn]", "[data-action=take]")


@pytest.mark.parametrize("scheme", ["light", "dark"])
async def test_key_texts_are_readable(open_page: OpenPage, server: PageServer, scheme: str) -> None:
    async with open_page(color_scheme=scheme) as tp:
        peer, _ = await server.hello()
        await show(tp, peer, frames.mid_game(41))
        ratios = {}
        for selector in KEY_TEXTS:
            found = tp.page.locator(selector)
            assert await found.count() > 0, selector
            ratios[selector] = min(await found.evaluate_all(f"(els) => els.map({CONTRAST})"))
        for selector in THEME_BUTTONS:
            shown = await tp.page.locator(selector).evaluate_all(f"(els) => els.map({CONTRAST})")
            print(scheme, selector, round(min(shown), 2))
        print(scheme, {k: round(v, 2) for k, v in ratios.items()})
        low = {k: round(v, 2) for k, v in ratios.items() if v < 4.5}
        assert not low, low
