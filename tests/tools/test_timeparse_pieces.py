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
