"""The callback_data codec: round trips, the 64-byte budget, garbage and forgeries refused."""

from __future__ import annotations

import base64
import contextlib
import hmac
from dataclasses import fields

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.base.i18n import LANGS
from bot.service import callbacks as cb
from bot.service.callbacks import BadCallback, CallbackCodec, CallbackTooLong
from engine import Card, deck

KEY = b"0123456789abcdef0123456789abcdef"
SIGNED = CallbackCodec(KEY)
PLAIN = CallbackCodec()
BIG_TABLE = 2**40
BIG_VERSION = 10**6

C = Card.parse
ALL_CARDS = deck(54)


def samples(table: int = 17, version: int = 3) -> list[cb.Callback]:
    """One callback of every kind."""
    t, v = table, version
    four = frozenset(map(C, ("7S", "7C", "7D", "7H")))
    return [
        cb.Join(t, v),
        cb.Leave(t, v),
        cb.Start(t, v),
        cb.Lobby(t, v),
        cb.AiMenu(t, v),
        cb.AddAi(t, v, 2),
        cb.Kick(t, v, 5),
        cb.Settings(t, v),
        cb.Settings(t, v, "limits"),
        cb.Option(t, v, "a1b2"),
        cb.SetOption(t, v, "a1b2", "left_of_loser"),
        cb.Tap(t, v, C("10H")),
        cb.Select(t, v, "swap"),
        cb.Toggle(t, v, C("7S"), frozenset({C("7C")})),
        cb.Toggle(t, v, C("7S"), frozenset(), "swap"),
        cb.Play(t, v, four),
        cb.Play(t, v, frozenset({C("6S"), C("6H")}), (3, None)),
        cb.CoverWith(t, v, C("KS"), C("7S")),
        cb.CoverWith(t, v, C("6D"), C("7S"), 0),
        cb.Throw(t, v, C("6C"), 2),
        cb.Take(t, v),
        cb.Pass(t, v),
        cb.Transfer(t, v, C("7D")),
        cb.Transfer(t, v, C("6D"), 1),
        cb.ShowTrump(t, v, C("7H")),
        cb.SwapTrump(t, v, C("6H")),
        cb.PokerSwap(t, v, frozenset({C("6S"), C("AH")})),
        cb.Cancel(t, v),
        cb.Refresh(t, v),
        cb.MyCards(t, v),
        cb.Place(t, v, "group"),
        cb.Rematch(t, v),
        cb.ReplayOpen(t, 12),
        cb.ReplayStep(t, 12, 345),
        cb.SoloSetup(t, v, 5, 2),
        cb.SetLang("ru"),
        cb.React(t, 5),
        cb.Block(t, 2**20, 5),
        cb.Quick("computer"),
        cb.Invite("again", "perevodnoy", 4, 2**52, "ru"),
        cb.Top("season"),
        cb.TourneyGames(t, v, 10),
    ]


def test_every_kind_is_sampled() -> None:
    kinds = {type(x) for x in samples()}
    assert len(kinds) == len(cb._KINDS)


@pytest.mark.parametrize("codec", [PLAIN, SIGNED], ids=["plain", "signed"])
@pytest.mark.parametrize("callback", samples(), ids=lambda x: type(x).__name__)
def test_round_trip(codec: CallbackCodec, callback: cb.Callback) -> None:
    data = codec.encode(callback)
    assert data.isascii() and len(data) <= 64
    assert codec.decode(data) == callback
    assert codec.decode(data.encode("ascii")) == callback


@pytest.mark.parametrize("lang", LANGS)
def test_every_language_round_trips(lang: str) -> None:
    for codec in (PLAIN, SIGNED):
        assert codec.decode(codec.encode(cb.SetLang(lang))) == cb.SetLang(lang)


def test_a_forged_language_is_refused_even_when_signed() -> None:
    """A button that names a language the bot does not speak (forged, or drawn by a bot that
    spoke another) is refused as malformed, signature or not."""
    payload = "1L.de"
    signed = f"{payload}.{SIGNED._sign(payload)}"
    with pytest.raises(BadCallback) as refused:
        SIGNED.decode(signed)
    assert refused.value.reason == "field"


def test_module_level_functions_are_unsigned() -> None:
    for callback in samples():
        assert cb.decode(cb.encode(callback)) == callback


def worst_cases() -> list[cb.Callback]:
    """The longest callbacks the bot draws: the biggest table and version, full fields."""
    t, v = BIG_TABLE, BIG_VERSION
    five = frozenset(map(C, ("6S", "6C", "6D", "6H", "XR")))
    jokers = frozenset(map(C, ("XB", "XR")))
    return [
        *samples(t, v),
        cb.SetOption(t, v, "z" * 16, "v" * 16),
        cb.Play(t, v, five, (0, 1, 2, 3, None)),
        cb.Play(t, v, frozenset(map(C, ("7S", "7C", "7D", "7H")))),
        cb.Toggle(t, v, C("XR"), frozenset(ALL_CARDS) - {C("XR")}),
        cb.PokerSwap(t, v, jokers),
        cb.Settings(t, v, "x" * 16),
        cb.AddAi(t, v, 35**3),
        cb.Kick(t, v, 35**3),
    ]


@pytest.mark.parametrize("callback", worst_cases(), ids=lambda x: type(x).__name__)
def test_worst_case_fits_64_bytes_signed(callback: cb.Callback) -> None:
    data = SIGNED.encode(callback)
    assert len(data.encode()) <= 64, (len(data), data)
    assert SIGNED.decode(data) == callback


def test_four_card_lead_worst_case_length() -> None:
    four = frozenset(map(C, ("AS", "AC", "AD", "AH")))
    data = SIGNED.encode(cb.Play(BIG_TABLE, BIG_VERSION, four))
    assert len(data) <= 48


def test_encode_refuses_too_long_and_out_of_range() -> None:
    with pytest.raises(CallbackTooLong):
        SIGNED.encode(cb.SetOption(2**200, BIG_VERSION, "z" * 16, "v" * 16))
    with pytest.raises(ValueError):
        PLAIN.encode(cb.Join(-1, 0))
    with pytest.raises(ValueError):
        PLAIN.encode(cb.SetOption(1, 1, "bad.token", "v"))
    with pytest.raises(ValueError):
        PLAIN.encode(cb.CoverWith(1, 1, C("7S"), C("6S"), 4))
    with pytest.raises(ValueError):
        PLAIN.encode(cb.SetLang(""))
    with pytest.raises(ValueError):
        cb.SetLang("de")  # a language the bot does not speak
    with pytest.raises(ValueError):
        cb.Play(1, 1, frozenset())
    with pytest.raises(ValueError):
        cb.PokerSwap(1, 1, frozenset({C("7S")}))


def test_signature_is_required_and_checked() -> None:
    data = SIGNED.encode(cb.Take(5, 6))
    with pytest.raises(BadCallback) as err:
        SIGNED.decode(PLAIN.encode(cb.Take(5, 6)))
    assert err.value.reason == "signature"
    forged = data.replace("1q.5.6", "1q.5.7")
    with pytest.raises(BadCallback) as err:
        SIGNED.decode(forged)
    assert err.value.reason == "signature"
    other = CallbackCodec(b"another key of at least 16 bytes")
    with pytest.raises(BadCallback):
        other.decode(data)
    with pytest.raises(BadCallback):
        PLAIN.decode(data)  # a signature is one field too many
    with pytest.raises(ValueError):
        CallbackCodec(b"short")


def hmac_signed(payload: str, key: bytes = KEY) -> str:
    """``payload`` signed as buttons were before BLAKE2s: HMAC-SHA256's first 8 bytes."""
    digest = hmac.digest(key, payload.encode("ascii"), "sha256")[:8]
    return f"{payload}.{base64.urlsafe_b64encode(digest).rstrip(b'=').decode('ascii')}"


def test_a_button_signed_before_the_upgrade_still_works() -> None:
    """A hand drawn by the previous version of the bot (HMAC-SHA256) is pressed after an
    upgrade: taken; the same with another key, or its fields changed, is refused."""
    old = hmac_signed("1q.5.6")
    assert old != SIGNED.encode(cb.Take(5, 6))  # drawn anew, it is signed the new way
    assert SIGNED.decode(old) == cb.Take(5, 6)
    for forged in (
        hmac_signed("1q.5.6", b"another key of at least 16 bytes"),
        old.replace("1q.5.6", "1q.5.7"),
    ):
        with pytest.raises(BadCallback) as err:
            SIGNED.decode(forged)
        assert err.value.reason == "signature"


def test_own_data_is_read_without_checking_the_signature_again() -> None:
    data = SIGNED.encode(cb.Tap(5, 6, Card.parse("7S")))
    forged = data.replace("1t.5.6", "1t.5.7")
    assert SIGNED.decode(data, verify=False) == SIGNED.decode(data)
    assert SIGNED.decode(forged, verify=False) == cb.Tap(5, 7, Card.parse("7S"))
    with pytest.raises(BadCallback):
        SIGNED.decode(forged)  # the default checks it
    with pytest.raises(BadCallback):
        SIGNED.decode(PLAIN.encode(cb.Take(5, 6)), verify=False)  # still a signed format


@settings(max_examples=200, deadline=None)
@given(
    st.integers(0, 36**5),
    st.integers(0, 36**4),
    st.sampled_from(list(deck(54))),
    st.booleans(),
)
def test_a_hands_taps_are_encoded_as_each_tap_is(
    table: int, version: int, card: Card, signed: bool
) -> None:
    codec = SIGNED if signed else PLAIN
    assert codec.taps(table, version)(card) == codec.encode(cb.Tap(table, version, card))


def test_taps_refuse_what_encode_refuses() -> None:
    with pytest.raises(ValueError):
        SIGNED.taps(-1, 0)
    huge = SIGNED.taps(36**25, 36**25)
    with pytest.raises(CallbackTooLong):
        huge(Card.parse("7S"))


def test_data_read_again_is_remembered_only_once_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    codec = CallbackCodec(b"a key of at least sixteen bytes!")
    data = codec.encode(cb.Tap(5, 6, Card.parse("7S")))
    forged = data.replace("1t.5.6", "1t.5.7")
    # read unchecked first (own data): a later checked read still refuses the forgery
    assert codec.decode(forged, verify=False) == cb.Tap(5, 7, Card.parse("7S"))
    for _ in range(2):
        with pytest.raises(BadCallback):
            codec.decode(forged)
    first = codec.decode(data)
    assert codec.decode(data) is first  # checked once, remembered
    monkeypatch.setattr(cb, "READ_REMEMBERED", 2)
    for version in range(7, 10):
        codec.decode(codec.encode(cb.Take(5, version)))
    again = codec.decode(data)
    assert again == first and again is not first  # forgotten beyond the bound, read anew


@pytest.mark.parametrize(
    "data",
    [
        "",
        "1",
        "2j.1.1",
        "1?.1.1",
        "1j",
        "1j.1",
        "1j.1.1.1",
        "1j.01.1",
        "1j.-1.1",
        "1j.+1.1",
        "1j.1_0.1",
        "1j.A.1",
        "1j. 1.1",
        "1t.1.1.10H",
        "1t.1.1.th",
        "1t.1.1.ZZ",
        "1t.1.1.",
        "1x.1.1.TH.zzzzzzzzzzzzzzzz.l",
        "1x.1.1.TH.3.l",
        "1x.1.1.TH.0.q",
        "1c.1.1.KS.7S.4",
        "1c.1.1.KS.7S.00",
        "1p.1.1.0.",
        "1p.1.1.2ps.01",
        "1d.1.1.2ps",
        "1o.1.1.bad!",
        "1v.1.1.a.b.c",
        "1g.1.1.toolong_page_token_",
        "1L.",
        "1L.ru.ru",
        "1L.de",
        "1L.RU",
        "1L.ua",
        "1j.1.1\n",
        "1j.1.1" + "0" * 60,
        "1j.фыв.1",
        "1j.1.1 ",
    ],
)
def test_garbage_is_refused(data: str) -> None:
    with pytest.raises(BadCallback):
        PLAIN.decode(data)
    with pytest.raises(BadCallback):
        SIGNED.decode(data)


def test_wrong_types_are_refused() -> None:
    for data in (None, 5, 3.5, ["1j"], b"\xff\xfe", bytearray(b"1j.1.1")):
        if isinstance(data, bytearray):
            assert PLAIN.decode(data) == cb.Join(1, 1)
            continue
        with pytest.raises(BadCallback):
            PLAIN.decode(data)


@settings(max_examples=600)
@given(st.text(max_size=80))
def test_arbitrary_text_never_raises_anything_else(data: str) -> None:
    for codec in (PLAIN, SIGNED):
        try:
            decoded = codec.decode(data)
        except BadCallback:
            continue
        assert codec.encode(decoded) == data  # only canonical data decodes


@settings(max_examples=600)
@given(st.binary(max_size=80))
def test_arbitrary_bytes_never_raise_anything_else(data: bytes) -> None:
    for codec in (PLAIN, SIGNED):
        with contextlib.suppress(BadCallback):
            codec.decode(data)


ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-_"


@settings(max_examples=1500)
@given(st.sampled_from([PLAIN.encode(x) for x in samples()]), st.data())
def test_mutated_valid_data_is_refused_or_canonical(base: str, data: st.DataObject) -> None:
    pos = data.draw(st.integers(0, len(base) - 1))
    new = data.draw(st.sampled_from(ALPHABET))
    mutated = base[:pos] + new + base[pos + 1 :]
    try:
        decoded = PLAIN.decode(mutated)
    except BadCallback:
        return
    assert PLAIN.encode(decoded) == mutated


@settings(max_examples=300)
@given(
    table=st.integers(0, BIG_TABLE),
    version=st.integers(0, BIG_VERSION),
    cards=st.frozensets(st.sampled_from(ALL_CARDS), min_size=1, max_size=5),
    card=st.sampled_from(ALL_CARDS),
    suit=st.none() | st.integers(0, 3),
)
def test_round_trip_properties(
    table: int, version: int, cards: frozenset[Card], card: Card, suit: int | None
) -> None:
    for callback in (
        cb.Play(table, version, cards),
        cb.Toggle(table, version, card, cards, "lead"),
        cb.CoverWith(table, version, card, min(cards), suit),
        cb.Throw(table, version, card, suit),
        cb.Transfer(table, version, card, suit),
    ):
        data = SIGNED.encode(callback)
        assert len(data) <= 64
        assert SIGNED.decode(data) == callback


def test_toggled() -> None:
    assert cb.toggled(frozenset({C("7S")}), C("7H")) == {C("7S"), C("7H")}
    assert cb.toggled({C("7S")}, C("7S")) == frozenset()


def test_join_payload() -> None:
    for codec in (PLAIN, SIGNED):
        payload = codec.join_payload(BIG_TABLE)
        assert len(payload) <= 64 and all(ch.isalnum() or ch == "_" for ch in payload)
        assert codec.parse_join_payload(payload) == BIG_TABLE
    with pytest.raises(BadCallback):
        SIGNED.parse_join_payload(PLAIN.join_payload(5))
    with pytest.raises(BadCallback):
        PLAIN.parse_join_payload(SIGNED.join_payload(5))
    for junk in ("", "x5", "j", "j05", "j5_zz", None, "j" + "1" * 70):
        with pytest.raises(BadCallback):
            SIGNED.parse_join_payload(junk)


def test_fields_of_every_kind_have_a_codec() -> None:
    for kind in cb._KINDS:
        assert len(kind.SPEC) == len(fields(kind)), kind.__name__


@pytest.mark.parametrize("codec", [PLAIN, SIGNED], ids=["plain", "signed"])
def test_replay_links_round_trip_and_refuse_anything_else(codec: CallbackCodec) -> None:
    for table, game in ((1, 1), (35, 36), (2**40, 999)):
        payload = codec.replay_payload(table, game)
        assert len(payload) <= 64 and all(c.isalnum() or c in "_-" for c in payload)
        assert codec.parse_replay_payload(payload) == (table, game)
        with pytest.raises(BadCallback):
            codec.parse_join_payload(payload)
    with pytest.raises(BadCallback):
        codec.parse_replay_payload(codec.join_payload(5))
    for junk in ("", "r", "r5", "r5-", "r-5", "r05-1", None, "r1-1_zz"):
        with pytest.raises(BadCallback):
            codec.parse_replay_payload(junk)
