// Draws a state frame (PROTOCOL.md) into the page's fixed sections. The server decides
// everything; the page shows what it is sent and turns taps into presses.

import { SUIT_SYMBOLS, cardBack, drawCard, suitIcon, tableCard } from "./cards.js";
import { fill, h, rich, role, show } from "./dom.js";
import { word } from "./words.js";

const HAND_ROW = 8;
// a card partly covered by the next keeps at least this much of it to tap
const TAP_STRIP = 42;
const PRIMARY = new Set(["take", "pass", "done", "transfer", "play", "join", "start", "rematch", "choose"]);

/** Renders a whole state. ctx: {lang, press(pressString), refused(text)}. */
export function render(state, ctx) {
  const t = (key) => word(ctx.lang, key, state.texts);
  document.documentElement.lang = ctx.lang;
  const root = role("state");
  root.dataset.version = String(state.v);
  root.dataset.status = state.status ?? "";

  role("title").textContent = state.title ?? "";
  const spectator = role("spectator");
  const watching = state.you?.seat === null || state.you?.seat === undefined;
  spectator.textContent = watching ? t("spectator") : "";
  show(spectator, watching && state.status !== "lobby");

  // the end is a banner with its buttons at the top, the standings under it, and nothing of
  // the finished table below (no dead hand, no turn line)
  const ended = Boolean(state.end);
  const before = cardPlaces();
  renderTable(ended ? null : state.table, t);
  renderLobby(state.status === "lobby" ? state.lobby : null, state.you?.seat ?? null, t, ctx);
  const endButtons = renderEnd(state.end, state.tally, t);
  renderChoice(state.choice, ctx);
  const me = (state.table?.players ?? []).find((p) => p.you) ?? null;
  renderHand(ended ? null : state.hand, me, state.table?.trump_suit ?? null, t, ctx);
  renderButtons(endButtons ?? role("actions"), state.buttons ?? [], ctx);
  if (endButtons) renderButtons(role("actions"), [], ctx);
  renderLog(ended ? [] : state.table?.recent ?? [], ended ? null : state.tally, t);
  flyIn(before);
}

/** Where each card of the hand and of the table is now (before a state is drawn). */
function cardPlaces() {
  const places = { hand: new Map(), table: new Set() };
  for (const el of document.querySelectorAll("[data-card]")) places.hand.set(el.dataset.card, el.getBoundingClientRect());
  for (const el of document.querySelectorAll("[data-table-card]")) places.table.add(el.dataset.tableCard);
  return places;
}

/** A card new on the table moves in: from its place in the hand when it was yours, else
 * from above. Short, and none at all when the system asks for reduced motion. */
function flyIn(before) {
  if (!before.table.size && !before.hand.size) return; // the first state: nothing moved
  if (window.matchMedia?.("(prefers-reduced-motion: reduce)").matches) return;
  for (const el of document.querySelectorAll("[data-table-card]")) {
    const code = el.dataset.tableCard;
    if (before.table.has(code)) continue;
    const to = el.getBoundingClientRect();
    const from = before.hand.get(code);
    const dx = from ? from.left - to.left : 0;
    const dy = from ? from.top - to.top : -24;
    const turn = getComputedStyle(el).transform;
    const end = turn === "none" ? "none" : turn;
    el.animate(
      [{ transform: `translate(${dx}px, ${dy}px)`, opacity: from ? 1 : 0 }, { transform: end, opacity: 1 }],
      { duration: from ? 320 : 240, easing: "cubic-bezier(.2,.8,.2,1)" },
    );
  }
}

function renderTable(table, t) {
  const section = role("table");
  show(section, Boolean(table));
  if (!table) {
    // nothing of an earlier table stays behind, not even hidden
    for (const name of ["players", "stock", "trump", "discard", "pairs", "status"]) role(name).replaceChildren();
    return;
  }

  const players = role("players");
  players.setAttribute("aria-label", t("players"));
  const seated = table.players ?? [];
  // laid out by their number: halves for two, a row of three, two rows of two for four,
  // two rows of three for five and six (PROTOCOL.md: names stay readable at 360 px)
  players.dataset.count = String(seated.length);
  fill(players, ...seated.map((p) => playerChip(p, t)));

  // the stock: the deck face down with the trump under it, face up
  const stock = role("stock");
  const count = table.stock ?? 0;
  fill(stock,
    count > 0 ? cardBack("pile") : h("div", { class: "card empty" }),
    h("span", { class: "label" }, t("stock")),
    h("b", { class: "value" }, String(count)));
  stock.classList.toggle("out", count === 0);
  const trump = role("trump");
  trump.replaceChildren();
  if (table.trump) {
    trump.append(tableCard(table.trump, { "data-trump-card": table.trump.code }, { trump: true }));
  } else if (table.trump_suit) {
    trump.append(h("div", { class: `card suit-only ${/[HD]/.test(table.trump_suit) ? "red" : "black"}` },
      suitIcon(table.trump_suit, "pip big")));
  } else {
    // a game without trumps says so, between the stock and the discard
    trump.append(h("span", { class: "no-trump" }, t("no_trump")));
  }
  trump.classList.toggle("none", !table.trump && !table.trump_suit);
  trump.dataset.suit = table.trump_suit ?? "";
  trump.title = t(table.trump_suit ? "trump" : "no_trump");
  const discard = role("discard");
  fill(discard,
    cardBack(table.discard > 0 ? "mini" : "mini none"),
    h("span", { class: "label" }, t("discard")),
    h("b", { class: "value" }, String(table.discard ?? 0)));

  const pairs = role("pairs");
  pairs.setAttribute("aria-label", t("table"));
  // the cards just played are lit
  const last = new Set(table.last ?? []);
  const lit = (code) => (last.has(code) ? "last" : null);
  fill(pairs, ...(table.pairs ?? []).map((pair) =>
    h("div", { class: pair.cover ? "pair covered" : "pair" },
      tableCard(pair.attack, { "data-table-card": pair.attack.code, class: lit(pair.attack.code) },
        { trump: isTrump(pair.attack, table.trump_suit) }),
      pair.cover
        ? tableCard(pair.cover, { "data-table-card": pair.cover.code, class: ["cover", lit(pair.cover.code)].filter(Boolean).join(" ") },
          { trump: isTrump(pair.cover, table.trump_suit) })
        : null)));
  const empty = !(table.pairs ?? []).length;
  pairs.classList.toggle("empty", empty);
  if (empty) pairs.append(h("p", { class: "empty-note" }, t("empty")));

  rich(role("status"), table.status_line ?? "");

  // the trump, named: a chip of its own beside the turn line, readable on the felt
  const chip = role("trump-chip");
  show(chip, Boolean(table.trump_suit));
  if (table.trump_suit) {
    fill(chip, h("span", { class: "chip-label" }, t("trump")),
      h("span", { class: `chip-suit ${/[HD]/.test(table.trump_suit) ? "red" : "black"}` }, suitIcon(table.trump_suit, "suit")));
    chip.setAttribute("aria-label", `${t("trump")} ${SUIT_SYMBOLS[table.trump_suit] ?? ""}`);
    chip.dataset.suit = table.trump_suit;
  }
}

function playerChip(p, t) {
  const tags = [
    p.you ? h("span", { class: "tag you-tag" }, t("you")) : null,
    p.partner ? h("span", { class: "tag partner-tag" }, t("partner")) : null,
  ].filter(Boolean);
  return h("li", {
    class: ["player", `role-${p.role ?? "none"}`, p.acting && "acting", p.you && "you", p.partner && "partner",
      p.team && `team-${p.team}`].filter(Boolean).join(" "),
    "data-seat": p.seat,
    "data-team": p.team ?? null,
    title: p.name ?? "",
  },
  h("span", { class: "name" }, p.name ?? ""),
  h("span", { class: "meta" },
    h("span", { class: "count", title: String(p.cards ?? 0) }, cardBack("mini"), h("b", {}, String(p.cards ?? 0))),
    p.team ? h("span", { class: "team", title: p.team_text ?? p.team, "aria-label": p.team_text ?? p.team }, p.team) : null,
    p.role_text ? h("span", { class: "role" }, p.role_text) : null),
  tags.length ? h("span", { class: "tags" }, tags) : null);
}

function isTrump(card, trumpSuit) {
  return Boolean(trumpSuit) && card.code.slice(-1) === trumpSuit && !card.code.startsWith("X");
}

function renderLobby(lobby, mySeat, t, ctx) {
  const section = role("lobby");
  show(section, Boolean(lobby));
  if (!lobby) return;
  const names = lobby.players ?? [];
  fill(section,
    lobby.tourney ? tourneyBox(lobby.tourney, ctx) : null,
    lobby.rules ? h("p", { class: "rules" }, lobby.rules) : null,
    h("ol", { class: "seated" }, names.map((name, seat) =>
      h("li", { "data-seat": seat, class: seat === mySeat ? "you" : null },
        h("span", { class: "avatar" }, initial(name)), h("span", { class: "name" }, name),
        seat === mySeat ? h("span", { class: "tag you-tag" }, t("you")) : null))),
    // why Start is greyed
    lobby.problem ? h("p", { class: "problem", "data-role": "lobby-problem" }, lobby.problem) : null,
  );
}

/** A tournament's sign-up: its number of games, how it scores, and (for those the server
 * offers it) the choice of the number, the chosen one pressed. */
function tourneyBox(tourney, ctx) {
  const choices = (tourney.buttons ?? []).map((button) => {
    const el = h("button", {
      type: "button",
      "data-action": "games",
      "data-games": String(button.games),
      "aria-pressed": button.chosen ? "true" : "false",
      class: button.chosen ? "move games chosen" : "move games",
      disabled: !button.press,
    }, String(button.games));
    if (button.press) el.addEventListener("click", () => ctx.press(button.press));
    return el;
  });
  return h("div", { class: "tourney", "data-role": "tourney", "data-games": String(tourney.games) },
    h("p", { class: "tourney-title" }, tourney.title ?? ""),
    tourney.scoring ? h("p", { class: "tourney-scoring" }, tourney.scoring) : null,
    choices.length && tourney.choose ? h("p", { class: "tourney-choose" }, tourney.choose) : null,
    choices.length ? h("div", { class: "buttons tourney-games" }, choices) : null);
}

function initial(name) {
  return Array.from(String(name ?? "").trim())[0]?.toUpperCase() ?? "?";
}

/** The end as a banner (durak or draw) with its buttons, then the standings and the series;
 * returns the element the end's buttons go in (null without an end). */
function renderEnd(end, tally, t) {
  const section = role("end");
  show(section, Boolean(end));
  if (!end) {
    section.replaceChildren();
    return null;
  }
  const kind = end.draw ? "draw" : (end.durak ?? []).length ? "lost" : "plain";
  section.className = `end banner ${kind}`;
  const buttons = h("div", { class: "buttons end-buttons" });
  const places = end.places ?? [];
  fill(section,
    rich(h("p", { class: "end-text" }), end.headline || end.text || ""),
    buttons,
    places.length ? h("ol", { class: "standings", "data-role": "standings" }, places.map((p) =>
      h("li", { class: p.durak ? "durak" : null, "data-seat": p.seat },
        h("span", { class: "place" }, p.place ? `${p.place}.` : p.durak ? "🤡" : "–"),
        h("span", { class: "name" }, p.name ?? "")))) : null,
    tally?.length ? tallyList(tally, t) : null,
  );
  return buttons;
}

function tallyList(tally, t) {
  return h("div", { class: "tally", "data-role": "tally" },
    h("span", { class: "label" }, t("tally")),
    h("ul", {}, tally.map((line) => h("li", {}, line))));
}

function renderChoice(choice, ctx) {
  const section = role("choice");
  show(section, Boolean(choice));
  if (!choice) {
    section.replaceChildren();
    return;
  }
  const buttons = h("div", { class: "buttons" });
  renderButtons(buttons, choice.buttons ?? [], ctx);
  fill(section, rich(h("p", { class: "prompt" }), choice.prompt ?? ""), buttons);
}

function renderHand(hand, me, trumpSuit, t, ctx) {
  const section = role("hand");
  show(section, Boolean(hand));
  if (!hand) {
    role("cards").replaceChildren();
    return;
  }
  section.classList.toggle("your-turn", Boolean(hand.your_turn));
  const cards = hand.cards ?? [];
  // your own seat as the others see it: how many cards, your role, your team
  role("hand-title").textContent = [t("hand"), String(cards.length), me?.role_text || null, me?.team_text || null]
    .filter(Boolean).join(" · ");
  const turn = role("your-turn");
  turn.textContent = hand.your_turn ? t("your_turn") : "";
  show(turn, Boolean(hand.your_turn));
  rich(role("prompt"), hand.prompt ?? "");
  const buttons = cards.map((card) => {
    const button = h("button", {
      type: "button",
      "data-card": card.code,
      disabled: !card.press,
      class: card.selected ? "selected" : null,
    });
    drawCard(button, card, { trump: card.trump ?? isTrump(card, trumpSuit) });
    if (card.press) button.addEventListener("click", () => ctx.press(card.press));
    // a disabled button gets no click, but its pointer events still come: a tap on a greyed
    // card says why it cannot go (the server's words), and sends nothing
    else if (card.why) button.addEventListener("pointerup", () => ctx.refused(card.why));
    return button;
  });
  // a hand is fanned in rows, each row as even as can be, of as many cards as leave every
  // card a strip of TAP_STRIP px to tap (at most HAND_ROW)
  const container = role("cards");
  const room = container.clientWidth || 320;
  const cardWidth = parseFloat(getComputedStyle(document.documentElement).getPropertyValue("--hw")) || 54;
  const fits = Math.max(3, Math.min(HAND_ROW, Math.floor((room - cardWidth) / TAP_STRIP) + 1));
  const rows = Math.max(1, Math.ceil(buttons.length / fits));
  const perRow = Math.ceil(buttons.length / rows);
  container.replaceChildren();
  for (let i = 0; i < buttons.length; i += perRow) {
    const row = h("div", { class: "fan" }, buttons.slice(i, i + perRow));
    row.style.setProperty("--n", String(Math.min(perRow, buttons.length - i)));
    container.append(row);
  }
  container.dataset.count = String(cards.length);
}

function renderButtons(container, buttons, ctx) {
  // the page is live: a Refresh (an older server's) has nothing to do here
  buttons = buttons.filter((button) => button.action !== "refresh");
  fill(container, ...buttons.map((button) => {
    const el = h("button", {
      type: "button",
      "data-action": button.action,
      class: PRIMARY.has(button.action) ? "move primary" : "move",
      disabled: !button.press,
    }, button.label ?? button.action);
    if (button.press) el.addEventListener("click", () => ctx.press(button.press));
    return el;
  }));
  show(container, buttons.length > 0);
}

function renderLog(recent, tally, t) {
  const section = role("log");
  const list = role("recent");
  fill(list, ...recent.map((line) => rich(h("li"), line)));
  role("recent-title").textContent = t("recent");
  show(role("recent-box"), recent.length > 0);
  const box = role("tally-box");
  fill(box, ...(tally?.length ? [tallyList(tally, t)] : []));
  show(section, recent.length > 0 || Boolean(tally?.length));
}
