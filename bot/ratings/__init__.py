"""Skill ratings: which games count, how a result moves each player's rating, the odds.

:mod:`bot.ratings.model` holds the rules and the Weng-Lin model (openskill's PlackettLuce);
it knows nothing of the store, which keeps the ratings and calls it for every finished
game. ``python -m bot.rerate --rebuild`` recomputes every rating from the stored results.

May import: nothing of the bot (openskill only); the store, the renderers and the chat
import it.
"""
