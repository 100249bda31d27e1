"""The piece matcher's memory (`firstchar.Dispatch.longest_first`) never changes a reading.

What a message's spans share (which pieces match at a position) is remembered under the
text from that position on and the characters before it that a pattern can look at; these
tests pin that key down and check that remembering gives the same matches and the same
`split_when` answers as searching afresh.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime

import pytest

from tools.timeparse import instant, split_when
from tools.timeparse.firstchar import Dispatch, Memo, behind

NOW = datetime.fromisoformat("2026-11-23T10:00:00+00:00")


@pytest.mark.parametrize(
    ("pattern", "chars"),
    [
        ("abc", 0),
        (r"\d+pm", 0),
        (r"\bnoon", 1),
        (r"(?<=\d)a(?![a-z])", 1),
        (r"x(?<![\d][/-])\d{4}", 2),
        (r"(?:on\s+)?(?<=[a-z.][/-])\d{2}|(?<=,)\s*\d{2}", 2),
        (r"a(?:b|(?<=xyz)c)+", 3),
        (r"(?<=a(?<=ba))c", 3),  # a lookbehind inside a lookbehind reaches further back
        (r"^at", 1),
    ],
)
def test_behind_is_how_far_a_pattern_looks_back(pattern: str, chars: int) -> None:
    assert behind(pattern) == chars


def _fresh(d: Dispatch, pats: list[re.Pattern[str]], s: str, pos: int) -> list[tuple[int, str]]:
    return [(i, m.group(0)) for i, m in d.longest_first(pats, s, pos, {})]


def _remembered(
    d: Dispatch, pats: list[re.Pattern[str]], s: str, pos: int, memo: Memo
) -> list[tuple[int, str]]:
    return [(i, m.group(0)) for i, m in d.longest_first(pats, s, pos, memo)]


def test_a_remembered_position_matches_like_a_fresh_one_whatever_precedes_it() -> None:
    # The same tail "pm 5" after a digit, a space, a slash or nothing: the lookbehind and
    # the word boundary must tell them apart although the text from the position is equal.
    patterns = [r"(?<=\d)pm", r"\bpm\s+\d", r"p", r"(?<=\d/)pm", r"^pm"]
    pats = [re.compile(p) for p in patterns]
    d = Dispatch(patterns)
    memo: Memo = {}
    texts = ["9pm 5", "x pm 5", "9/pm 5", "pm 5", "apm 5", "12/pm 5", "1pm 5"]
    for s in texts + texts[::-1]:
        pos = s.index("pm")
        got = _remembered(d, pats, s, pos, memo)
        assert got == _fresh(d, pats, s, pos), s
    assert _fresh(d, pats, "9pm 5", 1)[0][0] == 0  # the lookbehind piece, longest
    assert [i for i, _ in _fresh(d, pats, "x pm 5", 2)] == [1, 2]


def test_the_grammars_pieces_match_the_same_remembered_or_not() -> None:
    d = instant._DISPATCH
    pats = instant._PATTERNS
    memo: Memo = {}
    texts = [
        "12/12/12 05 at 9 pm",
        "at 9 pm",
        "on 12/05 at 9am",
        "monday 3rd, 2027 at 9 a.m.",
        "3rd, 27 at 9 a.m.",
        "dec 5 - 27 at noon",
        "the 2nd closest monday to dec 5",
    ]
    for s in texts + texts[::-1]:
        for pos in range(len(s)):
            if not s[pos].isspace():
                assert _remembered(d, pats, s, pos, memo) == _fresh(d, pats, s, pos), (s, pos)


def _messages() -> list[str]:
    phrases = [
        "tomorrow at 9",
        "next friday 3pm",
        "every monday and thursday at 7pm",
        "from 3 to 5pm on dec 12",
        "12/12/12 9am",
        "in 2 hours and 30 minutes",
        "the friday before christmas at 6",
        "every day except monday",
        "between 1 and 2 tomorrow",
        "at 9 and 5",
        "10 - 22 August 2012",
    ]
    out = [f"remind me {p} to call mum" for p in phrases] + [
        f"{p} water the plants" for p in phrases
    ]
    out += ["1 " * 39, "12/12/12 " * 20, "the day before the day after " * 5 + "tomorrow"]
    out.append("after week except friday 1 pm 9 tomorrow march tomorrow next week week 3 12/12")
    return out


def test_split_when_answers_the_same_without_the_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    remembered = [split_when(m, now=NOW, tz="Europe/Warsaw") for m in _messages()]
    original = Dispatch.longest_first

    def forgetful(
        self: Dispatch, patterns: list[re.Pattern[str]], s: str, pos: int, memo: Memo
    ) -> Iterator[tuple[int, re.Match[str]]]:
        return original(self, patterns, s, pos, {})

    monkeypatch.setattr(Dispatch, "longest_first", forgetful)
    fresh = [split_when(m, now=NOW, tz="Europe/Warsaw") for m in _messages()]
    assert remembered == fresh
    assert sum(w is not None for w in fresh) >= 15  # the messages do read as times


@pytest.mark.parametrize(
    "phrase",
    [
        "every 4th and 10th of the month up to 7x",
        "mondays and thursdays from jan 1 to march 25th",
        "mondays and thursdays starting jan 1 for 6 times",
        "Every 5 minutes, between 03:00 PM and 03:59 PM, Monday through Friday",
    ],
)
def test_a_wordy_request_finds_the_time_a_short_one_does(phrase: str) -> None:
    # The words around the time ("dentist") are no time words: trying spans through them
    # once used up the message's work budget, and a long time phrase was not found.
    now = datetime.fromisoformat("2010-01-01T00:00:00+00:00")
    short = split_when(f"remind me {phrase} to call mum", now=now, tz="UTC")
    wordy = split_when(
        f"hey can you remind me about the dentist {phrase} please", now=now, tz="UTC"
    )
    assert short is not None and wordy is not None
    assert wordy.schedule == short.schedule
    assert wordy.rest == "the dentist"


@pytest.mark.parametrize(
    ("word", "timely"),
    [
        ("dentist", False),  # has "ist" inside, but no time word is "dent" + "ist"
        ("groceries", False),
        ("hey", False),
        ("mondays", True),
        ("tuesdays", True),
        ("o'clock", True),
        ("9am", True),
        ("4th", True),
        ("tomorrow", True),
        ("thanksgiving", True),
        ("11:00", True),
        ("remind", True),  # "remind me" is read (and dropped) by the grammar itself
    ],
)
def test_time_words_are_grammar_words_and_a_little_glue(word: str, timely: bool) -> None:
    from tools.timeparse.split import _time_token

    assert _time_token(word) is timely


@pytest.mark.parametrize(
    ("message", "at", "rest"),
    [
        ("remind me at 9am America/New_York to call mum", "2026-11-23T14:00:00+00:00", "call mum"),
        ("at 9am Europe/Warsaw call mum", "2026-11-24T08:00:00+00:00", "call mum"),
        ("tomorrow 9am asia/kolkata stretch", "2026-11-24T03:30:00+00:00", "stretch"),
        ("at 3pm (Europe/Berlin) pay the bill", "2026-11-23T14:00:00+00:00", "pay the bill"),
    ],
)
def test_a_zone_named_by_its_iana_name_goes_with_the_time(message: str, at: str, rest: str) -> None:
    # A zone name is no grammar word ("warsaw"): the zone piece reads it by its shape.
    got = split_when(message, now=NOW, tz="UTC")
    assert got is not None
    assert got.schedule == datetime.fromisoformat(at)
    assert got.rest == rest
