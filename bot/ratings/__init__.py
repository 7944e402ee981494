"""Skill ratings: which games count, how a result moves each player's rating, the odds.

:mod:`bot.ratings.model` holds the rules and the Weng-Lin model (openskill's PlackettLuce);
it knows nothing of the store, which keeps the ratings and calls it for every finished
game. ``python -m bot.rerate --rebuild`` recomputes every rating from the stored results.
:mod:`bot.ratings.achievements` holds the achievements' catalogue and the rule that gives
them, game by game, from what a counted game says of a player.

May import: nothing of the bot (openskill only); the store, the renderers and the chat
import it.
"""
