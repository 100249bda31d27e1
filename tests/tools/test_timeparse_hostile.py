"""split_when on hostile and long messages: bounded work, and never a wrong time.

Latency is measured by bench/timeparse.py (hostile_max_ms), not here: these tests pin
what comes back — nothing, or the one time the message really holds.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from tools.schedule import Cron, Schedule
from tools.timeparse import instant, parse_instant, parse_recurrence, recurrence, split_when
from tools.timeparse import split as split_module

NOW = datetime(2026, 11, 23, 10, 0, tzinfo=ZoneInfo("UTC"))
DATA = Path(__file__).resolve().parent.parent / "data" / "timeparse"
MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

HOSTILE_NO_TIME = {
    "2000 chars": "call mom about the thing " * 80,
    "2000 chars of one word": "a" * 2000,
    "200 repeated numbers": "1 " * 200,
    "200 counting numbers": " ".join(str(i) for i in range(200)),
    "38 counting numbers": "remind me " + " ".join(str(i) for i in range(38)),
    "alternating days and months": " ".join(f"{i % 28 + 1} {MONTHS[i % 12]}" for i in range(20)),
    "nested before/after": "the day before " + "the day after the day before " * 6 + "tomorrow",
    "dangling before/after": "remind me to pay rent " + "before after " * 15,
    "only connectives": "and or but except and or " * 6,
    "cron soup": "At 2 and 4 through 5 minutes past the hour, at 01:00 AM " * 3,
    "dashes": "- " * 39,
}


@pytest.mark.parametrize("text", HOSTILE_NO_TIME.values(), ids=HOSTILE_NO_TIME.keys())
def test_hostile_message_gives_no_time(text: str) -> None:
    assert split_when(text, now=NOW, tz="UTC") is None


@pytest.mark.parametrize(
    ("text", "when", "rest"),
    [
        (
            "please remind me to call mom and ask about the big family dinner plans "
            "and the seating and the wine and the dessert tomorrow at 9 thanks",
            datetime(2026, 11, 24, 9, 0, tzinfo=ZoneInfo("UTC")),
            "call mom and ask about the big family dinner plans and the seating and the "
            "wine and the dessert",
        ),
        (
            "can you remind me about the dentist appointment I told you about with Ana "
            "and Bob and the 3 forms on friday at 3pm",
            datetime(2026, 11, 27, 15, 0, tzinfo=ZoneInfo("UTC")),
            "the dentist appointment I told you about with Ana and Bob and the 3 forms",
        ),
        (
            "remind me to book 2 rooms for 4 people and 1 car on dec 5 at 10am",
            datetime(2026, 12, 5, 10, 0, tzinfo=ZoneInfo("UTC")),
            "book 2 rooms for 4 people and 1 car",
        ),
    ],
)
def test_long_message_still_finds_its_one_time(text: str, when: datetime, rest: str) -> None:
    got = split_when(text, now=NOW, tz="UTC")
    assert got is not None
    assert got.schedule == when
    assert got.rest == rest


def test_repeated_recurrence_keyword_reads_only_the_closing_phrase() -> None:
    got = split_when("every day except " * 13 + "monday", now=NOW, tz="UTC")
    assert got is not None
    assert isinstance(got.schedule, Schedule)
    assert got.schedule.spec == Cron("0 9 * * 0,2,3,4,5,6")  # every day but Monday


def test_occasion_words_before_birthday_are_still_tried() -> None:
    # "ana's" and "is" are words no rule names; the occasion rule still reads them.
    got = split_when("Ana's birthday is on March 3rd", now=NOW, tz="UTC")
    assert got is not None
    assert got.rest == "Ana's birthday"


def test_over_budget_degrades_to_no_time(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "remind me to water the plants in 2 hours"
    assert split_when(text, now=NOW, tz="UTC") is not None
    monkeypatch.setattr(split_module, "WORK_BUDGET", 1)
    assert split_when(text, now=NOW, tz="UTC") is None


def test_every_word_of_a_phrase_the_grammar_reads_counts_as_a_time_word() -> None:
    """The pruning may only skip spans the grammar could never read: over the corpora,
    each word of every phrase that parses must pass `_time_token`."""
    missed: list[str] = []
    for path in sorted(DATA.glob("*_en*.jsonl")):  # duckling, chrono, ctparse, natty, ...
        for line in path.read_text(encoding="utf-8").splitlines():
            phrase = json.loads(line)["phrase"]
            read = parse_instant(phrase, now=NOW, tz="UTC", foreign=False) or parse_recurrence(
                phrase, now=NOW, tz="UTC"
            )
            if read is None:
                continue
            bare = [split_module._bare(w) for w in phrase.split()]
            missed += [f"{w!r} in {phrase!r}" for w in bare if not split_module._time_token(w)]
    assert missed == []


HOSTILE_PHRASES = [
    "1 " * 149,
    "at " * 99,
    "tomorrow at 9 and " * 16,
    "from 3 to " * 29 + "5",
    "the 2nd closest monday to " * 11 + "dec 5",
    "12/12/12 " * 30,
    "every day except " * 17 + "monday",
    " ".join(f"{i % 28 + 1} {MONTHS[i % 12]}" for i in range(40)),
]


@pytest.mark.parametrize("text", HOSTILE_PHRASES)
def test_work_per_call_is_bounded_by_the_step_budget(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever the input, one call spends at most its budget of grammar steps (plus the
    one spend that finds it exhausted), and a message at most the message budget."""
    spent: list[int] = []
    spend = instant.Budget.spend

    def counting(self: instant.Budget, steps: int = 1) -> None:
        spent.append(steps)
        spend(self, steps)

    monkeypatch.setattr(instant.Budget, "spend", counting)
    most = instant.STEP_BUDGET + recurrence.ENTRY_STEPS
    for call in (parse_instant, parse_recurrence):
        spent.clear()
        call(text[:299], now=NOW, tz="UTC")
        assert sum(spent) <= most
    spent.clear()
    split_when(" ".join(text.split()[:40]), now=NOW, tz="UTC")
    # `_Share` spends once per step on the span's budget (counted here) for the message.
    assert sum(spent) <= split_module.WORK_BUDGET + most
