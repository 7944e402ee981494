"""Every hand keyboard: the cards that cannot go now are disabled buttons with no callback
data (Bot API 10.3), the playable ones callback buttons; Take, Pass / Done and the
transfers carry a colour (Bot API 9.4)."""

from __future__ import annotations

import pytest

from bot.base.i18n import LANGS, Lang
from bot.render import TableContext, render_hand, reply_markup
from bot.render.common import card_text
from bot.render.hand import playable_cards
from bot.service import callbacks as cb
from engine import Rules

from .helpers import players, random_games

CODEC = cb.CallbackCodec(b"k" * 32)
STYLES = {cb.Take: "danger", cb.Pass: "success", cb.Transfer: "primary", cb.ShowTrump: "primary"}


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("preset", ["podkidnoy", "perevodnoy"])
def test_unplayable_cards_are_disabled_and_moves_are_coloured(lang: Lang, preset: str) -> None:
    rules = Rules.preset(preset, proezdnoy=preset == "perevodnoy")
    disabled_seen = playable_seen = 0
    for seed in range(4):
        for game, _ in random_games(rules, 3, seed=seed):
            if game.result is not None:
                break
            ctx = TableContext(5, game.moves, codec=CODEC)
            for seat in range(3):
                view = game.view(seat)
                if view.public.roles[seat] == "out":
                    continue
                keyboard = render_hand(view, players(3), lang, ctx).keyboard
                assert keyboard is not None
                playable = playable_cards(view)
                cards = {card_text(c): c for c in view.hand}
                markup = reply_markup(keyboard)["inline_keyboard"]
                sent = [b for row in markup for b in row]
                for button, json in zip(keyboard.buttons(), sent, strict=True):
                    label = button.text.strip("·")
                    if label in cards and not button.disabled:
                        decoded = CODEC.decode(button.data)
                        assert isinstance(decoded, cb.Tap) and decoded.card in playable
                        assert json["callback_data"] == button.data
                        playable_seen += 1
                    elif button.disabled:
                        assert label in cards and cards[label] not in playable
                        assert json == {"text": button.text, "disabled": {}}
                        disabled_seen += 1
                    else:
                        kind = type(CODEC.decode(button.data))
                        assert json.get("style") == STYLES.get(kind), (kind, json)
                shown = {
                    b.text.strip("·") for b in keyboard.buttons() if b.text.strip("·") in cards
                }
                assert shown == set(cards), "every card of the hand is on the keyboard"
    assert disabled_seen > 100 and playable_seen > 100


@pytest.mark.parametrize("lang", LANGS)
def test_the_in_group_hand_fits_an_ephemeral_message(lang: Lang) -> None:
    """At most 1024 characters (what editEphemeralMessageText takes), whatever the names
    and the bout; the count of cards and the move are always there."""
    from bot.render import render_group_hand
    from bot.render.limits import visible_length

    from .helpers import Player

    names = [Player("Ж" * 200 + "&<>" * 50) for _ in range(6)]
    rules = Rules.preset("podkidnoy", bout_limit=12, first_bout_limit=None)
    for seed in range(2):
        for game, _ in random_games(rules, 6, seed=seed):
            if game.result is not None:
                break
            ctx = TableContext(2**40, 10**6, "Г" * 300, 86_400, (), "b" * 32, codec=CODEC)
            for seat in range(6):
                view = game.view(seat)
                if view.public.roles[seat] == "out":
                    continue
                screen = render_group_hand(view, lang, ctx, players=names, place="both")
                assert visible_length(screen.text) <= 1024
                if view.hand:
                    assert str(len(view.hand)) in screen.text
                if view.actions and seat in view.public.to_act:
                    assert "👉" in screen.text
