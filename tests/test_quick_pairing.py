"""How the quick games' queue pairs players (:func:`bot.service.quick.pair_up`): nobody twice,
never a blocked pair, close skills first and wider with the wait, not the same two again
while others wait, and no two left waiting who may play."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.service.quick import WINDOW_START, may_pair, pair_up, window
from bot.store import Waiting

NOW = 1_000.0


def waiting(
    user: int, rating: float = 25.0, waited: float = 0.0, last: int | None = None
) -> Waiting:
    return Waiting(
        user_id=user,
        name=f"P{user}",
        lang="en",
        rating=rating,
        since=NOW - waited,
        offer_at=NOW - waited + 60,
        offered=False,
        message_id=None,
        last_opponent=last,
    )


queues = st.lists(
    st.builds(
        waiting,
        user=st.integers(1, 30),
        rating=st.floats(10, 40),
        waited=st.floats(0, 90),
        last=st.none() | st.integers(1, 30),
    ),
    max_size=14,
    unique_by=lambda w: w.user_id,
)
blocks = st.sets(st.tuples(st.integers(1, 30), st.integers(1, 30)), max_size=20)


@settings(max_examples=400, deadline=None)
@given(queues, blocks)
def test_a_pass_pairs_each_player_once_and_never_a_blocked_pair(
    queue: list[Waiting], blocked: set[tuple[int, int]]
) -> None:
    pairs = pair_up(queue, blocked, NOW)
    seen = [w.user_id for pair in pairs for w in pair]
    assert len(seen) == len(set(seen)), "nobody is dealt two games at once"
    for a, b in pairs:
        assert (a.user_id, b.user_id) not in blocked and (b.user_id, a.user_id) not in blocked
        assert may_pair(a, b, blocked, NOW)


@settings(max_examples=400, deadline=None)
@given(queues, blocks)
def test_a_pass_leaves_no_two_waiting_who_may_play_each_other(
    queue: list[Waiting], blocked: set[tuple[int, int]]
) -> None:
    pairs = pair_up(queue, blocked, NOW)
    taken = {w.user_id for pair in pairs for w in pair}
    left = [w for w in queue if w.user_id not in taken]
    for i, a in enumerate(left):
        for b in left[i + 1 :]:
            fits = may_pair(a, b, blocked, NOW)
            repeat = a.last_opponent == b.user_id or b.last_opponent == a.user_id
            # two left who may play are only a repeat pair held back for others waiting
            assert not fits or repeat, (a, b)


def test_close_skills_go_first_and_the_window_widens_with_the_wait() -> None:
    ann, bob, cid = waiting(1, 20.0, waited=5), waiting(2, 21.0), waiting(3, 35.0)
    assert pair_up([ann, bob, cid], set(), NOW) == [(ann, bob)]
    # two far apart wait until the longer wait has widened the window enough
    dan, eve = waiting(4, 20.0, waited=1), waiting(5, 35.0)
    assert pair_up([dan, eve], set(), NOW) == []
    later = NOW + (15.0 - WINDOW_START) + 1
    assert window(later - dan.since) >= 15.0
    assert pair_up([dan, eve], set(), later) == [(dan, eve)]


def test_the_same_two_are_not_paired_again_while_someone_else_waits() -> None:
    ann, bob = waiting(1, waited=10, last=2), waiting(2, waited=9, last=1)
    assert pair_up([ann, bob], set(), NOW) == [(ann, bob)], "nobody else: again"
    cid = waiting(3, waited=0)
    pairs = pair_up([ann, bob, cid], set(), NOW)
    assert pairs == [(ann, cid)], "someone else waits: a new opponent"
    # Cid blocked by both: the two may play again
    assert pair_up([ann, bob, cid], {(1, 3), (3, 2)}, NOW) == [(ann, bob)]


def test_a_blocked_pair_never_plays_however_long_it_waits() -> None:
    ann, bob = waiting(1, waited=10_000), waiting(2, waited=10_000)
    assert pair_up([ann, bob], {(2, 1)}, NOW) == []
