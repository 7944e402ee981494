// Playing cards drawn in SVG and CSS: corner indices, pips laid out as on real cards, court
// cards framed, jokers as jokers, and the back of the deck.

import { h, s } from "./dom.js";

// Suit outlines on a 100×100 box.
const SUIT_PATHS = {
  H: "M50 90C22 68 4 50 4 30 4 15 15 5 28 5c10 0 18 6 22 15C54 11 62 5 72 5c13 0 24 10 24 25 0 20-18 38-46 60Z",
  D: "M50 2C62 20 75 36 90 50 75 64 62 80 50 98 38 80 25 64 10 50 25 36 38 20 50 2Z",
  S: "M50 4c12 18 46 34 46 58 0 14-10 23-22 23-9 0-16-4-20-11 1 10 5 17 13 22H33c8-5 12-12 13-22-4 7-11 11-20 11C14 85 4 76 4 62 4 38 38 22 50 4Z",
  C: "M50 6a21 21 0 0 1 16 35 21 21 0 1 1 3 38c-5 0-10-2-13-5 1 9 5 15 12 20H32c7-5 11-11 12-20-3 3-8 5-13 5a21 21 0 1 1 3-38A21 21 0 0 1 50 6Z",
};

export const SUIT_SYMBOLS = { S: "♠", C: "♣", D: "♦", H: "♥" };
const RED = new Set(["H", "D"]);

/** The SVG of one suit symbol. */
export function suitIcon(suit, cls = "suit") {
  return s("svg", { class: cls, viewBox: "0 0 100 100", "aria-hidden": "true" },
    s("path", { d: SUIT_PATHS[suit] ?? SUIT_PATHS.S }));
}

/** Rank and suit of an engine card code: "TH" → {rank: "10", suit: "H"}; jokers "XB"/"XR". */
export function parseCode(code) {
  if (/^X[BR]$/.test(code)) return { joker: true, red: code === "XR", rank: "", suit: "X" };
  const suit = code.slice(-1);
  const letter = code.slice(0, -1);
  return { joker: false, red: RED.has(suit), rank: letter === "T" ? "10" : letter, suit };
}

// Pip centres, in percent of the art box (x, y); pips below the middle are drawn upside down.
const PIPS = {
  2: [[50, 0], [50, 100]],
  3: [[50, 0], [50, 50], [50, 100]],
  4: [[0, 0], [100, 0], [0, 100], [100, 100]],
  5: [[0, 0], [100, 0], [50, 50], [0, 100], [100, 100]],
  6: [[0, 0], [100, 0], [0, 50], [100, 50], [0, 100], [100, 100]],
  7: [[0, 0], [100, 0], [50, 25], [0, 50], [100, 50], [0, 100], [100, 100]],
  8: [[0, 0], [100, 0], [50, 25], [0, 50], [100, 50], [50, 75], [0, 100], [100, 100]],
  9: [[0, 0], [100, 0], [0, 33.3], [100, 33.3], [50, 50], [0, 66.7], [100, 66.7], [0, 100], [100, 100]],
  10: [[0, 0], [100, 0], [50, 16.7], [0, 33.3], [100, 33.3], [0, 66.7], [100, 66.7], [50, 83.3], [0, 100], [100, 100]],
};

function corner(rank, suit, where) {
  return h("span", { class: `idx ${where}`, "aria-hidden": "true" },
    h("span", { class: rank.length > 1 ? "rank wide" : "rank" }, rank), suitIcon(suit, "suit"));
}

function art(rank, suit) {
  const n = Number(rank);
  if (PIPS[n]) {
    return h("span", { class: `art pips n${n}`, "aria-hidden": "true" },
      PIPS[n].map(([x, y]) => {
        const pip = suitIcon(suit, y > 50 ? "pip flip" : "pip");
        pip.style.left = `${x}%`;
        pip.style.top = `${y}%`;
        return pip;
      }));
  }
  if (rank === "A") {
    return h("span", { class: "art ace", "aria-hidden": "true" }, suitIcon(suit, "pip big"));
  }
  // a court card: its letter framed, the suit above and (upside down) below
  return h("span", { class: "art court", "aria-hidden": "true" },
    h("span", { class: "frame" },
      suitIcon(suit, "pip"),
      h("span", { class: "letter" }, rank),
      suitIcon(suit, "pip flip")));
}

function jokerFace() {
  const star = s("svg", { class: "star", viewBox: "0 0 100 100", "aria-hidden": "true" },
    s("path", { d: "M50 4l13 30 32 3-24 22 7 32-28-17-28 17 7-32L5 37l32-3Z" }));
  return [
    h("span", { class: "idx tl joker-idx", "aria-hidden": "true" }, "JOKER"),
    h("span", { class: "idx br joker-idx", "aria-hidden": "true" }, "JOKER"),
    h("span", { class: "art joker", "aria-hidden": "true" }, star),
  ];
}

/**
 * Fills el (a <button> of the hand or a <div> on the table) with the face of a card.
 * card: {code, label, rank?} as the server sends it; the drawing follows the code.
 */
export function drawCard(el, card, { trump = false } = {}) {
  const face = parseCode(card.code);
  el.classList.add("card", face.joker ? "joker" : `suit-${face.suit}`, face.red ? "red" : "black");
  if (trump) el.classList.add("trump");
  if (card.label) {
    el.setAttribute("aria-label", card.label);
    el.title = card.label;
  }
  if (face.joker) {
    el.append(...jokerFace());
  } else {
    el.append(corner(face.rank, face.suit, "tl"), art(face.rank, face.suit), corner(face.rank, face.suit, "br"));
  }
  if (trump) el.append(h("span", { class: "trump-mark", "aria-hidden": "true" }));
  return el;
}

/** A card on the table (or the trump under the stock): a <div> with its face. */
export function tableCard(card, attrs = {}, opts = {}) {
  return drawCard(h("div", attrs), card, opts);
}

/** The back of a card (the stock, the other players' hands). */
export function cardBack(cls = "") {
  return h("div", { class: `card back ${cls}`.trim(), "aria-hidden": "true" });
}
