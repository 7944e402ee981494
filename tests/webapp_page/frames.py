"""State frames as the server sends them (PROTOCOL.md), for the page's tests and screenshots.

The game is the README's: podkidnoy for three, trump A♦, Ann led 7♠ 7♣ against Bob, Bob
covered 7♠ with 9♠, Cid threw in 9♣; Bob (seat 1) holds 8♠ K♠ 6♥ J♥ 10♦ and may cover only
with 10♦. Presses are opaque strings here, as they are to the page.
"""

from __future__ import annotations

import copy
import time
from typing import Any

SUITS = {"S": "♠️", "C": "♣️", "D": "♦️", "H": "♥️"}

TEXTS = {
    "en": {
        "stock": "Stock",
        "trump": "Trump",
        "discard": "Discard",
        "recent": "Recent moves",
        "tally": "Tally",
        "hand": "Your cards",
        "spectator": "You are watching",
        "reconnecting": "Reconnecting…",
    },
    "ru": {
        "stock": "Колода",
        "trump": "Козырь",
        "discard": "Отбой",
        "recent": "Последние ходы",
        "tally": "Счёт",
        "hand": "Ваши карты",
        "spectator": "Вы смотрите",
        "reconnecting": "Связь…",
    },
    "uk": {
        "stock": "Колода",
        "trump": "Козир",
        "discard": "Відбій",
        "recent": "Останні ходи",
        "tally": "Рахунок серії",
        "hand": "Ваші карти",
        "spectator": "Ви дивитеся",
        "reconnecting": "Зв’язок…",
    },
}

WORDS = {
    "en": {
        "title": "Friends · Podkidnoy",
        "attacker": "attacking",
        "defender": "defending",
        "thrower": "may throw in",
        "status": "Bob to defend; may throw in: Ann, Cid",
        "recent": [
            "⚔️ Ann leads 7♠️ 7♣️ against Bob",
            "Bob covers 7♠️ with 9♠️",
            "Cid throws in 9♣️",
        ],
        "prompt": "👉 Defend: tap a card to cover, or <b>Take</b>.",
        "take": "🫴 Take",
        "refresh": "🔄 Refresh",
    },
    "ru": {
        "title": "Friends · Подкидной",
        "attacker": "атакует",
        "defender": "отбивается",
        "thrower": "подкидывает",
        "status": "Отбивается Bob; подкинуть могут: Ann, Cid",
        "recent": [
            "⚔️ Ann заходит: 7♠️ 7♣️ (отбивается Bob)",
            "Bob бьёт 7♠️ картой 9♠️",
            "Cid подкидывает 9♣️",
        ],
        "prompt": "👉 Отбейтесь: нажмите карту, чтобы побить, или <b>Взять</b>.",
        "take": "🫴 Взять",
        "refresh": "🔄 Обновить",
    },
    "uk": {
        "title": "Friends · Підкидний",
        "attacker": "атакує",
        "defender": "відбивається",
        "thrower": "підкидає",
        "status": "Відбивається Bob; підкинути можуть: Ann, Cid",
        "recent": [
            "⚔️ Ann заходить: 7♠️ 7♣️ (відбивається Bob)",
            "Bob б’є 7♠️ картою 9♠️",
            "Cid підкидає 9♣️",
        ],
        "prompt": "👉 <b>Відбивайтеся</b>: натисніть карту, щоб побити, або <b>Беру</b>.",
        "take": "🫴 Беру",
        "refresh": "🔄 Оновити",
    },
}


def label(code: str) -> str:
    """The chat's label of a card code: ``TH`` → ``10♥️``; jokers ``★B`` / ``★R``."""
    if code.startswith("X"):
        return "★" + code[1]
    rank = "10" if code[0] == "T" else code[0]
    return rank + SUITS[code[1]]


def card(code: str) -> dict[str, str]:
    return {"code": code, "label": label(code)}


def hand_card(
    code: str, *, trump_suit: str = "D", playable: bool = False, selected: bool = False
) -> dict[str, Any]:
    joker = code.startswith("X")
    return {
        **card(code),
        "suit": "X" if joker else code[1],
        "rank": "" if joker else ("10" if code[0] == "T" else code[0]),
        "trump": (not joker) and code[1] == trump_suit,
        "playable": playable,
        "selected": selected,
        "press": f"press:{code}" if playable else None,
        **({} if playable else {"why": "That card does not beat any open card."}),
    }


def mid_game(v: int = 41, lang: str = "en", *, deadline_s: float | None = 95) -> dict[str, Any]:
    """Bob's page a few moves in: defending, 10♦ his only cover."""
    w = WORDS[lang]
    now = int(time.time() * 1000)
    players = [
        ("Ann", 4, "attacker", False, False),
        ("Bob", 5, "defender", True, True),
        ("Cid", 5, "thrower", False, False),
    ]
    return {
        "t": "state",
        "v": v,
        "lang": lang,
        "status": "playing",
        "title": w["title"],
        "you": {"name": "Bob", "seat": 1},
        "texts": TEXTS[lang],
        "lobby": None,
        "table": {
            "trump": card("AD"),
            "trump_suit": "D",
            "stock": 18,
            "discard": 0,
            "players": [
                {
                    "seat": seat,
                    "name": name,
                    "cards": cards,
                    "role": role,
                    "role_text": w[role],
                    "team": None,
                    "team_text": None,
                    "partner": False,
                    "you": you,
                    "acting": acting,
                }
                for seat, (name, cards, role, you, acting) in enumerate(players)
            ],
            "pairs": [
                {"attack": card("7S"), "cover": card("9S")},
                {"attack": card("7C"), "cover": None},
                {"attack": card("9C"), "cover": None},
            ],
            "deadline_ms": None if deadline_s is None else now + int(deadline_s * 1000),
            "server_ms": now,
            "status_line": w["status"],
            "recent": list(w["recent"]),
            "last": ["9C"],
        },
        "hand": {
            "prompt": w["prompt"],
            "your_turn": True,
            "cards": [
                hand_card("8S"),
                hand_card("KS"),
                hand_card("6H"),
                hand_card("JH"),
                hand_card("TD", playable=True),
            ],
        },
        "choice": None,
        "buttons": [
            {"action": "take", "label": w["take"], "press": "press:take"},
            {"action": "refresh", "label": w["refresh"], "press": "press:refresh"},
        ],
        "end": None,
        "tally": ["Ann 1", "Bob 2", "Cid 0"],
    }


def waiting(v: int, lang: str = "en") -> dict[str, Any]:
    """The same table at a moment when Bob has nothing to do."""
    state = mid_game(v, lang)
    state["hand"]["your_turn"] = False
    state["hand"]["prompt"] = "Ann and Cid may throw in."
    for c in state["hand"]["cards"]:
        c["playable"] = False
        c["press"] = None
    state["buttons"] = []
    return state


def choice(v: int = 41) -> dict[str, Any]:
    """Bob tapped 10♦ and it could cover either of two cards: the server asks which."""
    state = mid_game(v)
    state["choice"] = {
        "prompt": "Cover which card?",
        "buttons": [
            {"action": "choose", "label": "7♣️", "press": "press:cover:7C"},
            {"action": "choose", "label": "9♣️", "press": "press:cover:9C"},
            {"action": "cancel", "label": "✖️ Cancel", "press": "press:cancel"},
        ],
    }
    for c in state["hand"]["cards"]:
        c["press"] = None
        c["selected"] = c["code"] == "TD"
    state["buttons"] = []
    return state


def lobby(v: int = 3, lang: str = "en") -> dict[str, Any]:
    return {
        "t": "state",
        "v": v,
        "lang": lang,
        "status": "lobby",
        "title": "Friends · Podkidnoy",
        "you": {"name": "Bob", "seat": 1},
        "texts": TEXTS[lang],
        "lobby": {
            "players": ["Ann", "Bob", "Computer 1"],
            "rules": "Podkidnoy · 36 cards · up to 6 on the table",
        },
        "table": None,
        "hand": None,
        "choice": None,
        "buttons": [
            {"action": "leave", "label": "Leave", "press": "press:leave"},
            {"action": "start", "label": "▶️ Start", "press": "press:start"},
        ],
        "end": None,
        "tally": None,
    }


def finished(v: int = 90, lang: str = "en") -> dict[str, Any]:
    state = mid_game(v, lang, deadline_s=None)
    state["status"] = "finished"
    table = state["table"]
    table["pairs"] = []
    table["stock"] = 0
    table["trump"] = None
    table["discard"] = 30
    table["status_line"] = "Bob is the durak"
    for p in table["players"]:
        p["acting"] = False
        p["cards"] = 0
        p["role"] = "out"
        p["role_text"] = "out"
    table["players"][1]["cards"] = 3
    state["hand"] = None
    state["end"] = {
        "text": "🏁 Game over\n🃏 Bob is the durak\nOut in order: 1. Ann, 2. Cid",
        "durak": ["Bob"],
        "draw": False,
        "headline": "🃏 Bob is the durak",
        "places": [
            {"seat": 0, "name": "Ann", "place": 1, "durak": False, "points": 2},
            {"seat": 2, "name": "Cid", "place": 2, "durak": False, "points": 2},
            {"seat": 1, "name": "Bob", "place": None, "durak": True, "points": 0},
        ],
    }
    state["tally"] = ["Ann 1", "Bob 3", "Cid 0"]
    state["buttons"] = [
        {"action": "rematch", "label": "🔁 Rematch", "press": "press:rematch"},
        {"action": "replay", "label": "🎞 Replay", "press": "press:replay"},
    ]
    return state


def spectator(v: int = 41) -> dict[str, Any]:
    state = mid_game(v)
    state["you"] = {"name": "Dan", "seat": None}
    state["hand"] = None
    state["buttons"] = []
    for p in state["table"]["players"]:
        p["you"] = False
    return state


def crowded(v: int = 60) -> dict[str, Any]:
    """The widest a table gets: six players with long names, six pairs on the table, a hand
    of twenty cards with both jokers, long lines of text."""
    state = mid_game(v)
    table = state["table"]
    names = [
        "Александра Константинопольская",
        "Bob",
        "Maximilian_the_Magnificent_1999",
        "Cid",
        "ЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖЖ",
        "Eve",
    ]
    table["players"] = [
        {
            "seat": seat,
            "name": name,
            "cards": 20 if seat == 1 else 6,
            "role": "thrower",
            "role_text": "may throw in and a very long role text besides",
            "team": None,
            "team_text": None,
            "partner": False,
            "you": seat == 1,
            "acting": seat == 2,
        }
        for seat, name in enumerate(names)
    ]
    table["pairs"] = [
        {"attack": card(a), "cover": card(c) if c else None}
        for a, c in (
            ("7S", "9S"),
            ("7C", None),
            ("7H", "TH"),
            ("7D", "KD"),
            ("XB", None),
            ("9C", "XR"),
        )
    ]
    table["status_line"] = "W" * 120
    table["recent"] = ["Ж" * 150, "https://example.com/" + "x" * 100]
    codes = [
        "6S", "6C", "6H", "6D", "8S", "8C", "8H", "8D", "TS", "TC",
        "JS", "JC", "QS", "QC", "QH", "KS", "KC", "AS", "XB", "XR",
    ]  # fmt: skip
    state["hand"]["cards"] = [hand_card(code, playable=i % 3 == 0) for i, code in enumerate(codes)]
    state["tally"] = [f"{name} {i}" for i, name in enumerate(names)]
    state["buttons"] = [
        {"action": action, "label": f"A very long button label for {action}", "press": action}
        for action in ("take", "pass", "done", "transfer", "show_trump", "lead_several")
    ]
    return state


def with_version(state: dict[str, Any], v: int) -> dict[str, Any]:
    out = copy.deepcopy(state)
    out["v"] = v
    return out


def pairs(v: int = 70) -> dict[str, Any]:
    """Four players in two teams: Bob (seat 1) and Dan (seat 3) against Ann and Cid."""
    state = mid_game(v)
    players = state["table"]["players"]
    players.append(
        {
            "seat": 3,
            "name": "Dan",
            "cards": 6,
            "role": "partner",
            "role_text": "partner",
            "you": False,
            "acting": False,
        }
    )
    for p in players:
        team = "AB"[p["seat"] % 2]
        p.update(team=team, team_text=f"team {team}", partner=p["seat"] == 3)
    return state


def draw(v: int = 91, lang: str = "en") -> dict[str, Any]:
    """The game ends in a draw: nobody is the durak."""
    state = finished(v, lang)
    state["end"] = {
        "text": "🏁 Game over\n🤝 A draw: nobody is the durak.",
        "durak": [],
        "draw": True,
        "headline": "🤝 A draw: nobody is the durak.",
        "places": [
            {"seat": s, "name": n, "place": s + 1, "durak": False, "points": 1}
            for s, n in enumerate(("Ann", "Bob", "Cid"))
        ],
    }
    return state


def covered(v: int = 42) -> dict[str, Any]:
    """Bob covered 9♣ with 10♦ (from his hand to the table)."""
    state = mid_game(v)
    state["table"]["pairs"][2]["cover"] = card("TD")
    state["table"]["last"] = ["TD"]
    state["hand"]["cards"] = [c for c in state["hand"]["cards"] if c["code"] != "TD"]
    return state
