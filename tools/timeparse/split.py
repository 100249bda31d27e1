"""Find the time inside a reminder message and return it with the rest of the words.

"remind me tomorrow at 9 to call mom" → (tomorrow 09:00, "call mom").
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from datetime import datetime, tzinfo

from tools.schedule import Schedule

from . import duration, holidays, instant, lexicon, recurrence
from .firstchar import Memo
from .foreign import split_foreign
from .instant import (
    STEP_BUDGET,
    Budget,
    Ctx,
    Frame,
    parse_instant,
    read_instant,
    zone_named,
)
from .invalid import explain_invalid_date
from .recurrence import _KEYWORD, occasion_of, read_recurrence

MAX_TOKENS = 40
MAX_SPAN = 16
MAX_LEN = 1000
# Hard bound on the grammar work one message may cost, in grammar steps (`instant.Budget`)
# summed over the distinct spans tried; each span also has the one-call budget. Only
# spans of words the grammar knows are tried, so ordinary messages stay far below it;
# text that is nothing but time words (machine-made or adversarial: "1 jan 2 feb 3 mar
# …") is answered "no time found" rather than slowly.
WORK_BUDGET = 300

_LEAD = re.compile(
    r"^(?:(?:please|pls|hey|ok|okay)[\s,]+)?(?:(?:can you|could you|would you)\s+)?"
    r"(?:remind\s+me|reminder|remember|ping\s+me|tell\s+me)\b[\s,:]*(?:(?:to|about|that|of)\b\s*)?",
    re.IGNORECASE,
)
_LEAD_TO = re.compile(r"^(?:to|that|about|:|-)\s+", re.IGNORECASE)
_TAIL = re.compile(r"[\s,;:-]*(?:\b(?:please|pls|thanks|thank you)\b)?[\s,;:.!-]*$", re.IGNORECASE)
_EDGE_FILLER = frozenset(
    {
        "at",
        "on",
        "about",
        "around",
        "by",
        "for",
        "from",
        "the",
        "of",
        "in",
        "to",
        "and",
        ",",
        "-",
        "@",
        "starting",
        "until",
        "till",
    }
)
# Abbreviations that are also ordinary words; alone they are not a time inside a sentence.
_WEAK = frozenset(
    {
        "sat",
        "sun",
        "wed",
        "mon",
        "mar",
        "may",
        "second",
        "sec",
        "now",
        "tue",
        "thu",
        "fri",
        "jan",
        "jun",
        "aug",
        "dec",
        "q1",
        "q2",
        "q3",
        "q4",
    }
)

# Words no time phrase ends or starts with: skipping such spans early keeps long,
# repetitive messages cheap ("every day except every day except …").
_NEVER_LAST = frozenset({"every", "each", "except", "excluding", "but", "or", "between", "than"})
_NEVER_FIRST = frozenset({"to", "and", "or", "but", "except", "excluding", "than"})

# Holiday words are times only after a preposition ("on christmas", "before easter") or
# with more time words ("christmas eve at 6pm"); else they name a thing.
_OCCASION_WORDS = frozenset(
    {
        "christmas",
        "xmas",
        "easter",
        "thanksgiving",
        "halloween",
        "hanukkah",
        "valentine's",
        "valentines",
        "eve",
        "day",
    }
)
_TIME_PREPOSITIONS = frozenset(
    {
        "on",
        "at",
        "for",
        "by",
        "until",
        "till",
        "before",
        "after",
        "over",
        "this",
        "next",
        "last",
        "during",
        "around",
        "from",
        "since",
    }
)

# "the weekly report", "my daily standup": after a determiner these words name a thing.
_DETERMINERS = frozenset(
    {"the", "a", "an", "my", "our", "your", "his", "her", "their", "this", "that", "these", "those"}
)

# A meal is a time after a preposition of time ("at lunch", "after dinner") or a day
# ("friday lunch"); first in a span, or after words that make it a thing ("remind me about
# lunch", "a table for dinner", "the lunch"), it is the thing itself ("make lunch
# tomorrow", "buy lunch").
_MEALS = frozenset({"breakfast", "brunch", "lunch", "dinner", "supper", "bed"})
_MEAL_AS_THING = frozenset({"about", "for", "of", "to", "and", "or"}) | _DETERMINERS

_ADVERBS = frozenset(
    {"daily", "weekly", "monthly", "yearly", "annually", "hourly", "nightly", "everyday"}
)


def _strings(value: object) -> list[str]:
    """The strings in a grammar table (a pattern, a word, or a container of them)."""
    if isinstance(value, re.Pattern):
        return [value.pattern]
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict | frozenset | set | list | tuple):
        return [s for item in value for s in _strings(item)]
    return []


def _grammar_fragments() -> frozenset[str]:
    """Every word (3+ letters) the English grammar's patterns and word tables mention.

    A phrase the grammar reads is made of such words, digits and short glue ("a", "pm");
    a word it never mentions ("call", "mom") cannot be inside one. Derived from the
    grammar itself so that a rule added later is covered without a second list to keep
    in step.
    """
    sources = [p.pattern for p, _ in instant._PIECES]
    for module in (instant, recurrence, duration, holidays, lexicon):
        sources.extend(s for value in vars(module).values() for s in _strings(value))
    words: set[str] = set()
    for src in sources:
        # Drop escapes first (r"\bday" must give "day", not "bday").
        words.update(re.findall(r"[a-z]{3,}", re.sub(r"\\.", " ", src.lower())))
    return frozenset(words)


_FRAGMENTS = _grammar_fragments()
_LONGEST_FRAGMENT = max(map(len, _FRAGMENTS))
# A time word is grammar words glued with at most this many other letters ("mondays" =
# "monday" + "s", "o'clock" = "o" + "clock", "9am"); "dentist" (no "dent") is none,
# although it contains "ist".
_GLUE = 2
# "Ana's birthday is on March 3rd": up to three words of any kind before the occasion
# word belong to the phrase (recurrence._OCCASION's "who").
_OCCASION_HEAD = re.compile(r"^(?:birthday|bday|anniversary)s?$")
_OCCASION_WHO = 3


@functools.lru_cache(maxsize=4096)
def _time_token(word: str) -> bool:
    """Can this (bare, lower-case) word be part of a time phrase the grammar reads?"""
    letters = re.sub(r"[^a-z]", "", word)
    if len(letters) <= _GLUE or word in _EDGE_FILLER:
        return True  # digits, "9am", "a", "pm", "p.m", "h"
    if any(p.fullmatch(word) for p in instant._PATTERNS):
        return True  # a piece read by its shape, not its words: "america/new_york"
    # glue[k]: the fewest glue letters that, with grammar words, make up letters[:k].
    n = len(letters)
    glue = [0] + [_GLUE + 1] * n
    for k in range(n):
        if glue[k] > _GLUE:
            continue
        glue[k + 1] = min(glue[k + 1], glue[k] + 1)
        for end in range(k + 3, min(n, k + _LONGEST_FRAGMENT) + 1):
            if letters[k:end] in _FRAGMENTS:
                glue[end] = min(glue[end], glue[k])
    return glue[n] <= _GLUE


@dataclass(frozen=True)
class When:
    """A time found in a message: a one-off instant or a recurrence, and the other words."""

    schedule: datetime | Schedule
    rest: str


_PAIRS = {")": "(", "]": "["}


def _unmatched(text: str) -> set[int]:
    """Positions of the brackets in `text` that have no partner."""
    open_at: list[int] = []
    lone: set[int] = set()
    for k, ch in enumerate(text):
        if ch in "([":
            open_at.append(k)
        elif ch in _PAIRS:
            if open_at and text[open_at[-1]] == _PAIRS[ch]:
                open_at.pop()
            else:
                lone.add(k)
    return lone | set(open_at)


def _balanced(rest: str, message: str) -> str:
    """`rest` without the brackets whose partner went with the time ("call (Ana friday)
    at 9am" leaves "call (Ana"); a message that had lone ones (":)") keeps them."""
    if _unmatched(message):
        return rest
    lone = _unmatched(rest)
    return "".join(ch for k, ch in enumerate(rest) if k not in lone)


def _clean(words: list[str], message: str = "") -> str:
    text = _balanced(" ".join(words), message)
    text = _LEAD.sub("", text.strip())
    text = _LEAD_TO.sub("", text)
    text = _TAIL.sub("", text)
    text = re.sub(r"\s+([,.;:!?])", r"\1", text)
    return re.sub(r"\s{2,}", " ", text).strip(" ,;:-")


def _bare(word: str) -> str:
    return word.lower().strip(",.;:!?()[]\"'")


def _ctx(
    local_now: datetime,
    zone: tzinfo,
    work: Budget,
    frames: dict[str, Frame | None],
    matches: Memo,
) -> Ctx:
    """A context for one span: the one-call budget, never more than the message has left;
    what the span spends is taken from the message's budget. The frames and piece
    matches read so far are the message's, shared by all its spans."""
    return Ctx(local_now, zone, _Share(work), frames, matches)


class _Share(Budget):
    """One call's budget that also draws on the whole message's."""

    def __init__(self, message: Budget) -> None:
        super().__init__(min(STEP_BUDGET, message.left))
        self.message = message

    def spend(self, steps: int = 1) -> None:
        self.message.left -= steps
        super().spend(steps)


_JOINERS = frozenset({"and", "or", "&", "nor"})
_JOINED_WORDS = 3  # "… and 5", "… or at 4pm", "… and 6 tomorrow"
_AGAIN = frozenset({"again", "also", "then", "later"})  # "at 9 and again at 5"


def _another_time(bare: list[str], i: int, j: int, now: datetime, tz: str) -> bool:
    """Whether the time found at words[i:j] is joined by "and"/"or" to another one.

    "tomorrow at 9 and 5", "at 3pm or 4pm", "at 8 and at 6 tomorrow": the message names
    two times for one reminder, and picking either would be a guess. A joined word that
    is no time ("at 9 and call Ana") leaves the found time alone.
    """

    def reads(words: list[str]) -> bool:
        text = " ".join(words)
        return any(
            parse_instant(t, now=now, tz=tz, foreign=False) is not None
            for t in (text, "at " + text)
        )

    k = j
    if k < len(bare) and bare[k] in _JOINERS:
        k += 1
        while k < len(bare) and bare[k] in _AGAIN:
            k += 1
        after = bare[k : k + _JOINED_WORDS]
        if any(reads(after[:n]) for n in range(1, len(after) + 1)):
            return True
    k = i - 1
    while k >= 0 and bare[k] in _AGAIN:
        k -= 1
    if k >= 1 and bare[k] in _JOINERS:
        before = bare[max(0, k - _JOINED_WORDS) : k]
        if any(reads(before[-n:]) for n in range(1, len(before) + 1)):
            return True
    return False


_OFFSET_WORDS = frozenset({"after", "before", "from", "following", "preceding"})


def _offset_before(bare: list[str], i: int) -> bool:
    """Whether the time found at words[i:] is the anchor of an offset the grammar could
    not read as a whole ("the day after | the day before tomorrow", "3 days after | …"):
    the time meant is elsewhere, so the found one would be a wrong answer."""
    if i < 2 or bare[i - 1] not in _OFFSET_WORDS:
        return False
    lead = bare[max(0, i - 1 - _JOINED_WORDS) : i - 1]
    return any(
        instant.offset_duration(" ".join(lead[-k:])) is not None for k in range(1, len(lead) + 1)
    )


def split_when(text: str, *, now: datetime, tz: str) -> When | None:
    """Split a message into its time (instant or recurrence) and the remaining words.

    Tries every run of words, longest first, so "tomorrow at 9" wins over "9"; filler at
    the edges ("at", "on") goes with the time. Returns None when no time is found, or
    when finding it would cost more than WORK_BUDGET (see there).
    """
    if not isinstance(text, str) or not text.strip() or len(text) > MAX_LEN:
        return None
    words = text.split()
    if len(words) > MAX_TOKENS:
        return None
    if explain_invalid_date(text) is not None:
        return None  # "on Feb 30": no part of it is the time meant; the caller explains
    n = len(words)
    bare = [_bare(w) for w in words]
    adjectives = {k for k in range(1, n) if bare[k] in _ADVERBS and bare[k - 1] in _DETERMINERS}
    has_keyword = bool(_KEYWORD.search(text.lower()))
    # Only spans made of words the grammar knows are parsed (any other word cannot be
    # inside a time), and each distinct span once ("1 1 1 …" repeats spans).
    allowed = [_time_token(b) for b in bare]
    for k in range(n):
        if _OCCASION_HEAD.match(bare[k]):
            for w in range(max(0, k - _OCCASION_WHO), k):
                allowed[w] = True
    unknown_before = [0]  # unknown_before[k]: words the grammar never names in words[:k]
    for ok in allowed:
        unknown_before.append(unknown_before[-1] + (not ok))
    seen: dict[str, datetime | Schedule | None] = {}
    try:
        zone = zone_named(tz)
    except (ValueError, OSError, KeyError):
        return None
    local_now = now.astimezone(zone)
    work = Budget(WORK_BUDGET)
    frames: dict[str, Frame | None] = {}  # spans share their pieces ("9", "tomorrow")
    matches: Memo = {}  # ... and where each piece matches (`Dispatch.longest_first`)
    # Per word, what the span tests below ask of the words at a span's edges and inside
    # it, as flags and running counts, so that a span is tested in a few comparisons
    # (a message has up to MAX_SPAN * MAX_TOKENS spans, most of them never read).
    no_last = [b in _EDGE_FILLER or b in _NEVER_LAST for b in bare]
    no_first = [b in _NEVER_FIRST for b in bare]
    adjectives_before = [0]  # adjectives_before[k]: such adjectives in words[:k]
    core_before = [0]  # core_before[k]: words in words[:k] that are no edge filler
    for k in range(n):
        adjectives_before.append(adjectives_before[-1] + (k in adjectives))
        core_before.append(core_before[-1] + (bare[k] not in _EDGE_FILLER))
    weak_alone = [b in _WEAK and n > 1 for b in bare]
    occasion_last = [b in _OCCASION_WORDS and n > 1 for b in bare]
    meal_first = [b in _MEALS for b in bare]
    thing_meals = [0]  # thing_meals[k]: meals named as things in words[:k]
    for k in range(n):
        thing = meal_first[k] and (k == 0 or bare[k - 1] in _MEAL_AS_THING)
        thing_meals.append(thing_meals[-1] + thing)
    # The longest time phrase people write is well under MAX_SPAN words ("every first and
    # third friday of the month at 9am until december 31"); longer runs are never tried.
    for length in range(min(n, MAX_SPAN), 0, -1):
        for i in range(0, n - length + 1):
            j = i + length
            if unknown_before[j] != unknown_before[i] or no_last[j - 1]:
                continue  # a word no time has, or dangling filler (a shorter span is tried)
            if (length > 1 and no_first[i]) or meal_first[i] or thing_meals[j] != thing_meals[i]:
                continue
            if adjectives_before[j] != adjectives_before[i]:
                continue
            # The span's last word is no filler (no_last), so it is the last core word.
            cores = core_before[j] - core_before[i]
            if cores == 1 and weak_alone[j - 1]:
                continue
            if occasion_last[j - 1] and not (bare[i] in _TIME_PREPOSITIONS or cores > 2):
                continue  # "buy the christmas tree": a holiday named as a thing, not a time
            span = " ".join(words[i:j]).strip(",;:!?")
            if span in seen:
                sched = seen[span]
            else:
                if work.left <= 0:
                    return None  # adversarial input: "no time found" beats a slow answer
                sched = None
                if has_keyword and _KEYWORD.search(span.lower()):
                    sched = read_recurrence(span, _ctx(local_now, zone, work, frames, matches), tz)
                if sched is None:
                    sched = read_instant(span, _ctx(local_now, zone, work, frames, matches))
                seen[span] = sched
            if sched is not None:
                if _another_time(bare, i, j, now, tz) or _offset_before(bare, i):
                    return None  # "at 9 and 5": two times for one reminder; ask instead
                # "Ana's birthday is on March 3rd": the occasion is also what to remind of.
                occasion = occasion_of(span) if isinstance(sched, Schedule) else None
                kept = span.split()[: len(occasion.split())] if occasion else []
                return When(sched, _clean(words[:i] + kept + words[j:], text))
    # No English time: a German/Spanish/French/Portuguese/Polish one ("morgen um 9").
    got = split_foreign(text, now=now, zone=zone)
    return When(got[0], _clean(got[1].split())) if got else None
