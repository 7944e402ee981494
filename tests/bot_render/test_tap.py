"""The tap resolver: every tap is a legal action or a choice of legal ones, and every legal
move can be reached from the keyboard."""

from __future__ import annotations

from typing import Any

import pytest

from bot.render import (
    Choice,
    Player,
    TableContext,
    render_hand,
    resolve_play,
    resolve_tap,
    selectable,
    to_action,
)
from bot.render.tap import MAX_SUIT_OPTIONS, leads_of, tap_refusal
from bot.service import callbacks as cb
from engine import Card, Rules, SeatView
from engine.actions import Action, Cover, Lead, PokerSwap, ShowTrump, SwapTrump, Throw, Transfer

from .helpers import card, players, position, random_games

CODEC = cb.CallbackCodec()

CONFIGS: list[tuple[str, dict[str, Any], int]] = [
    ("podkidnoy", {}, 2),
    ("podkidnoy", {}, 4),
    ("podkidnoy", {"teams": "pairs"}, 4),
    ("podkidnoy", {"throw_in_order": "clockwise"}, 5),
    ("perevodnoy", {"proezdnoy": True, "no_transfer_first_bout": False}, 2),
    ("perevodnoy", {"proezdnoy": True, "no_transfer_first_bout": False}, 3),
    ("perevodnoy", {"proezdnoy": True}, 4),
    ("prostoy", {}, 3),
    ("prostoy", {"multi_card_lead": False}, 2),
]
VARIANTS: list[tuple[str, dict[str, Any], int]] = [
    ("prostoy5", {}, 3),
    ("podkidnoy", {"modifiers": ("wild_sixes",)}, 3),
    ("perevodnoy", {"modifiers": ("wild_sixes",), "no_transfer_first_bout": False}, 3),
    ("podkidnoy", {"modifiers": ("poker",)}, 2),
]
GAMES = 6


def key(action: Action) -> tuple[Any, ...]:
    """An action compared by meaning (a lead's cards as a set, suits by card)."""
    if isinstance(action, Lead):
        suits = action.suits or (None,) * len(action.cards)
        return ("lead", action.seat, frozenset(zip(action.cards, suits, strict=True)))
    if isinstance(action, PokerSwap):
        return ("poker", action.seat, frozenset(action.cards))
    return (type(action).__name__, *action)


def legal(view: SeatView) -> set[tuple[Any, ...]]:
    return {key(a) for a in view.actions}


def check_view(view: SeatView) -> None:
    """Every tap resolves legally; every legal move is reachable; every button decodes."""
    moves = legal(view)
    reached: set[tuple[Any, ...]] = set()
    for c in view.hand:
        found = resolve_tap(view, c)
        if found is None:
            assert not any(
                isinstance(a, Lead | Throw | Cover | Transfer | ShowTrump) and c in _cards(a)
                for a in view.actions
            )
            assert tap_refusal(view, c)
            continue
        if isinstance(found, Choice):
            assert found.card == c
            assert len(found.actions) + found.select >= 2
            for a in found.actions:
                assert key(a) in moves and c in _cards(a)
                reached.add(key(a))
            if found.select:
                assert any(
                    isinstance(a, Lead) and len(a.cards) > 1 and c in a.cards for a in view.actions
                )
            screen = render_hand(view, players(view.public.players), "en", _ctx(view), choice=found)
            check_buttons(view, screen.keyboard)
        else:
            assert key(found) in moves and c in _cards(found)
            reached.add(key(found))
    checked: set[frozenset[Card]] = set()
    for a in view.actions:
        if isinstance(a, Lead) and len(a.cards) > 1 and key(a) not in reached:
            if frozenset(a.cards) not in checked:
                check_selection_reaches(view, a, moves)
                checked.add(frozenset(a.cards))
            reached.add(key(a))
        elif isinstance(a, PokerSwap | SwapTrump) or key(a) in reached:
            reached.add(key(a))
        elif isinstance(a, Transfer | ShowTrump):
            reached.add(key(a))  # a move button of its own (checked below)
    taps = {k for k in moves if k[0] not in ("Take", "Pass")}
    assert taps <= reached
    screen = render_hand(view, players(view.public.players), "ru", _ctx(view))
    check_buttons(view, screen.keyboard)


def check_selection_reaches(view: SeatView, lead: Lead, moves: set[tuple[Any, ...]]) -> None:
    selection: frozenset[Card] = frozenset()
    for c in lead.cards:
        assert c in selectable(view, selection), (lead, selection)
        selection = cb.toggled(selection, c)
    result = resolve_play(view, selection)
    assert result is not None
    options = result.actions if isinstance(result, Choice) else (result,)
    assert {frozenset(a.cards) for a in options} == {frozenset(lead.cards)}
    assert all(key(a) in moves for a in options)
    if lead.suits is None:
        assert key(lead) in {key(a) for a in options}
    else:
        assert len(options) <= MAX_SUIT_OPTIONS
    screen = render_hand(view, players(view.public.players), "en", _ctx(view), selection=selection)
    check_buttons(view, screen.keyboard)


def _cards(action: Action) -> tuple[Card, ...]:
    if isinstance(action, Lead | PokerSwap):
        return tuple(action.cards)
    if isinstance(action, Throw | Cover | Transfer | ShowTrump | SwapTrump):
        return (action.card,)
    return ()


def _ctx(view: SeatView) -> Any:
    from bot.render import TableContext

    return TableContext(table_id=99, version=view.public.moves, group_title="G", codec=CODEC)


def check_buttons(view: SeatView, keyboard: Any) -> None:
    """Each button decodes; those that are engine actions are legal (or resolve legally)."""
    if keyboard is None:
        assert view.public.phase == "over" or view.public.roles[view.seat] == "out"
        return
    moves = legal(view)
    for button in keyboard.buttons():
        if button.data is None:
            continue
        assert len(button.data.encode()) <= 64
        decoded = CODEC.decode(button.data)
        assert decoded.version == view.public.moves  # type: ignore[union-attr]
        if isinstance(decoded, cb.Play) and decoded.suits is None:
            found = resolve_play(view, decoded.cards)
            assert found is not None
        elif isinstance(decoded, cb.Tap):
            assert decoded.card in view.hand
        else:
            action = to_action(decoded, view.seat)  # type: ignore[arg-type]
            if action is not None:
                assert key(action) in moves, (decoded, action)


def run(preset: str, options: dict[str, Any], n: int) -> int:
    checked = 0
    for i in range(GAMES):
        rules = Rules.preset(preset, **options)
        for game, _events in random_games(rules, n, seed=1000 * n + i):
            for seat in set(game.to_act()) | {0}:
                check_view(game.view(seat))
                checked += 1
    return checked


@pytest.mark.parametrize(("preset", "options", "n"), CONFIGS)
def test_every_tap_is_legal_in_random_positions(
    preset: str, options: dict[str, Any], n: int
) -> None:
    assert run(preset, options, n) > 50


@pytest.mark.parametrize(("preset", "options", "n"), VARIANTS)
def test_every_tap_is_legal_in_variant_positions(
    preset: str, options: dict[str, Any], n: int
) -> None:
    assert run(preset, options, n) > 20


# ---------------------------------------------------------------- pinned cases


def test_a_card_beating_one_attack_card_covers_it() -> None:
    game = position("podkidnoy", ["7S 8C", "9S 6C"], "6D 8D", first_game=False)
    game.apply(Lead(0, (card("7S"),)))
    assert resolve_tap(game.view(1), card("9S")) == Cover(1, card("7S"), card("9S"))
    assert resolve_tap(game.view(1), card("6C")) is None
    assert tap_refusal(game.view(1), card("6C")) == "does_not_beat"


def test_a_card_beating_several_asks_which() -> None:
    game = position("podkidnoy", ["7S 7C 8H", "AD 9S 6C"], "6D KD", first_game=False)
    game.apply(Lead(0, (card("7S"), card("7C"))))
    found = resolve_tap(game.view(1), card("AD"))  # the trump beats both sevens
    assert isinstance(found, Choice) and found.kind == "cover"
    assert found.actions == (Cover(1, card("7S"), card("AD")), Cover(1, card("7C"), card("AD")))


def test_perevodnoy_transfer_or_cover_asks_and_transfer_only_transfers() -> None:
    rules = Rules.preset("perevodnoy", proezdnoy=True)
    game = position(rules, ["7S 8C 9C", "7D 7H JH", "8H 9D TC"], "6C KH", first_game=False, bouts=1)
    game.apply(Lead(0, (card("7S"),)))
    view = game.view(1)
    assert resolve_tap(view, card("7D")) == Transfer(1, card("7D"))
    found = resolve_tap(view, card("7H"))
    assert isinstance(found, Choice) and found.kind == "defend"
    assert found.actions == (
        Cover(1, card("7S"), card("7H")),
        Transfer(1, card("7H")),
        ShowTrump(1, card("7H")),
    )


def test_one_tap_leads_a_card_alone_even_with_a_pair() -> None:
    """The common move in one tap: the card alone; leading several is the extra step."""
    game = position("podkidnoy", ["7S 7C 9D", "8S 8H 6C"], "6D KD")
    assert resolve_tap(game.view(0), card("7S")) == Lead(0, (card("7S"),))
    assert resolve_tap(game.view(0), card("9D")) == Lead(0, (card("9D"),))
    screen = render_hand(game.view(0), [Player("A"), Player("B")], "en", TableContext(1, 1))
    several = [b for b in screen.keyboard.buttons() if "Lead several" in b.text]  # type: ignore[union-attr]
    assert len(several) == 1


def test_leading_several_goes_through_the_selection() -> None:
    game = position("podkidnoy", ["7S 7C 7H 9D", "8S 8H 6C TS"], "6D KD")
    assert resolve_tap(game.view(0), card("7C")) == Lead(0, (card("7C"),))
    view = game.view(0)
    assert leads_of(view, {card("7S"), card("7C"), card("7H")}), "three sevens at once"


def test_throw_in_is_direct_and_wrong_rank_refused() -> None:
    game = position("podkidnoy", ["7S 7C 9D", "8S 8H 6C", "7H TC JC"], "6D KD", first_game=False)
    game.apply(Lead(0, (card("7S"),)))
    assert resolve_tap(game.view(2), card("7H")) == Throw(2, card("7H"))
    assert resolve_tap(game.view(2), card("TC")) is None
    assert tap_refusal(game.view(2), card("TC")) == "rank_not_on_table"
    assert tap_refusal(game.view(2), card("AS")) == "card_not_in_hand"
