"""Find the time inside a reminder message and return it with the rest of the words.

"remind me tomorrow at 9 to call mom" → (tomorrow 09:00, "call mom").
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, replace
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
    time_parts,
    zone_named,
)
from .invalid import explain_invalid_date
from .recurrence import (
    OCCASION_NOUN,
    WHOSE,
    counts_runs,
    occasion_of,
    read_recurrence,
    says_repeat,
    several_days,
)
from .spelling import mended, respell

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
    r"(?:remind\s+(?:to\s+)?me|reminder|remember(?:\s+(?:to\s+)?(?:me|us))?|ping\s+me|tell\s+me)\b"
    r"[\s,:]*(?:(?:to|about|that|of)\b\s*)?",
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
        # A rhythm's words: "every day", "each day", "twice a day", "once per day".
        "every",
        "each",
        "once",
        "twice",
        "thrice",
        "per",
    }
)

# A number right after one of these words (or after a name like "iPhone") is the thing's
# number, not an hour: "chapter 7 tomorrow", "an iPhone 15 next week", "gate 12 at 3pm".
_LABELS = frozenset(
    {
        "chapter",
        "ch",
        "episode",
        "ep",
        "season",
        "part",
        "pt",
        "lesson",
        "step",
        "level",
        "page",
        "room",
        "gate",
        "flight",
        "version",
        "exercise",
        "question",
        "problem",
        "section",
        "track",
        "round",
        "stage",
        "phase",
        "sprint",
        "issue",
        "item",
        "number",
        "no",
        "table",
        "seat",
        "row",
        "platform",
        "bus",
        "route",
        "line",
        "apartment",
        "apt",
        "unit",
        "floor",
        "grade",
        "class",
        "module",
        "game",
        "act",
        "scene",
        "verse",
        "volume",
        "vol",
        "psalm",
        "ticket",
        "order",
        "invoice",
        "case",
        "bug",
        "pr",
        "task",
        "story",
        "test",
        "quiz",
        "lab",
        "homework",
        "assignment",
        "#",
    }
)


# Units a number can measure when they follow it ("a 3 day trip", "the 24 hour pharmacy").
_UNIT_WORDS = frozenset(
    {"second", "minute", "min", "hour", "hr", "day", "night", "week", "month", "year"}
    | {"seconds", "minutes", "mins", "hours", "hrs", "days", "nights", "weeks", "months", "years"}
)


def _labelled(words: list[str], bare: list[str], k: int) -> bool:
    """Whether words[k] is a bare number naming a thing ("chapter 7", "iPhone 15")."""
    if k == 0 or not bare[k].isdigit():
        return False
    before = words[k - 1].strip(",.;:!?()[]\"'")
    mixed = any(ch.isupper() for ch in before[1:]) and any(ch.islower() for ch in before)
    return bare[k - 1] in _LABELS or mixed


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
        # Drop escapes first (r"\bday" must give "day", not "bday"); an optional letter
        # gives both spellings (r"labou?r" is "labour" and "labor").
        for run in re.findall(r"[a-z?]+", re.sub(r"\\.", " ", src.lower())):
            words.update(w for w in _spellings(run) if len(w) >= 3)
    return frozenset(words)


_MAX_OPTIONAL = 4


def _spellings(run: str) -> list[str]:
    """The words a run of letters with optional ones ("?") spells: "labou?r" is "labour"
    and "labor" (up to _MAX_OPTIONAL optional letters; past that, each letter kept)."""
    parts = re.findall(r"[a-z]\??|\?", run)
    optional = [i for i, p in enumerate(parts) if len(p) == 2]
    if len(optional) > _MAX_OPTIONAL:
        return [run.replace("?", "")]
    out = []
    for mask in range(1 << len(optional)):
        dropped = {optional[k] for k in range(len(optional)) if mask >> k & 1}
        out.append("".join(p[0] for i, p in enumerate(parts) if p != "?" and i not in dropped))
    return out


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
    if mended(letters) is not None:
        return True  # a slip of a day word the grammar reads as meant: "thursady"
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
    """A time found in a message: a one-off instant or a recurrence, and the other words.

    `thing`: the time describes a thing the words name and keep ("the 4:30 meeting"), used
    because the message has no other time."""

    schedule: datetime | Schedule
    rest: str
    thing: bool = False
    said: str = ""  # the words read as the time ("at 8pm", "tomorrow … at 5"), when known


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


_AGO_WORDS = frozenset({"before", "earlier"})
_THING_DETERMINERS = frozenset({"the", "a", "an", "my", "our", "your", "his", "her", "their"})


def _plain_word(word: str) -> bool:
    """A word that is no word of the grammar ("train", "party"; not "tomorrow", "at"), nor
    a courtesy said after a time ("monday the 7th please")."""
    return word.isalpha() and len(word) > 2 and word not in _FRAGMENTS and word not in _COURTESY


_COURTESY = frozenset({"please", "pls", "plz", "thanks", "thx", "thankyou", "cheers", "ta"})


_FRACTIONS = frozenset({"half", "quarter", "third"})


_FIRST_OR_LAST = frozenset({"first", "1st", "last", "only"})
_ORDINAL_DAY = re.compile(r"(?:[1-9]|[12]\d|3[01])(?:st|nd|rd|th)")


def _describes(bare: list[str], i: int, j: int) -> int | None:
    """Where the words describing the next word as a thing begin, when the time at
    words[i:j] ends with a determiner and one or two time words ("[tonight about] the 6:30
    | bus", "my 10am | visit", "the 3 pm | call"; the determiner may be just before the
    span); else None. A longer phrase after "the" is a time said first ("the day after
    tomorrow at 10 | call mom")."""
    for d in range(j - 2, max(i - 2, j - 4), -1):
        if d >= 0 and bare[d] in _THING_DETERMINERS:
            if any(b in _EDGE_FILLER for b in bare[d + 1 : j]):
                return None
            if d + 1 < j and bare[d + 1] in _FRACTIONS:
                return None  # "in an hour and a half | restart …": an amount, not a thing
            if d >= 1 and bare[d - 1] == "on" and bare[d + 1 : j] in (["hour"], ["half", "hour"]):
                return None  # "hourly on the hour | check": the minute mark, not a thing
            if j - d > 2 and _ORDINAL_DAY.fullmatch(bare[d + 1]):
                return None  # "monthly on the 15th 10am | submit …": a day and its clock
            return max(d, i)
    return None


def _running(flags: list[bool]) -> list[int]:
    """counts[k]: how many of flags[:k] are set."""
    counts = [0]
    for flag in flags:
        counts.append(counts[-1] + flag)
    return counts


def _event_offset(bare: list[str], i: int) -> tuple[int, int, instant.Duration, int] | None:
    """ "2 days before my dentist appointment | on the 20th": an offset and a direction
    said before the words of an event whose time was found at words[i:]. Returns where
    the offset starts, where the event's words start, the offset's length and its sign."""
    for k in range(i - 2, 0, -1):
        if bare[k] not in _OFFSET_WORDS or bare[k] in ("from",):
            continue
        for start in range(max(0, k - _JOINED_WORDS), k):
            dur = instant.offset_duration(" ".join(bare[start:k]))
            if dur is not None:
                return start, k + 1, dur, -1 if bare[k] in ("before", "preceding") else 1
        return None
    return None


_QUANTITY_NOUNS = _UNIT_WORDS | frozenset({"quarters", "halves", "thirds"})
_NAMES_A_DAY = re.compile(r"\d|\b" + lexicon.MONTH_RE)
_ON_OCCASION_AFTER = re.compile(rf"on\s+{WHOSE}\s+{OCCASION_NOUN}\b")


# Three weekdays or more in a row, not said of one week ("mon wed fri at 7", "monday,
# wednesday and friday at 7pm", "tue/thu/sat"): a routine, as if "every" were said.
_DAY_LIST = re.compile(
    r"(?<![\w/])(?<!every )(?<!each )(?<!this )(?<!next )(?<!last )(?<!the )(?:on\s+)?"
    rf"(?P<days>{lexicon.WEEKDAY_RE}(?:(?:\s*[,/+&]\s*(?:and\s+)?|\s+and\s+|\s+)"
    rf"{lexicon.WEEKDAY_RE}){{2,6}})"
    r"(?![\w/])",
    re.I,
)


def _days_listed(message: str) -> str:
    return _DAY_LIST.sub(lambda m: f"every {m['days']}", message)


# Chat shorthand for the week's words: "wkdays", "this wknd", "every wk", "2 wks", and a
# plus between two days ("mon + wed", "tue+thu").
_SHORT_WEEK = re.compile(
    r"(?<![\w'@#/-])(?:wkdays?|wk-?ends?|wknds?|wkly"
    r"|(?:(?<=every )|(?<=each )|(?<=this )|(?<=next )|(?<=last )|(?<=per )|(?<=the ))wk"
    r"|(?:(?<=\d )|(?<=\d))wks?)(?![\w'@/-])",
    re.I,
)
_SHORT_WORDS = {"wkday": "weekday", "wkdays": "weekdays", "wkly": "weekly"}
_DAY_PLUS = re.compile(rf"\b({lexicon.WEEKDAY_RE})\s*\+\s*(?={lexicon.WEEKDAY_RE}\b)", re.I)


# A clock said the way other languages say it: "at 7 and half", "at 23 and 30", "at 10 of
# the night" (not "in 2 and a half hours", a span).
_CLOCK_AND = re.compile(
    r"(?:\bat|(?<!\w)@)\s*(?P<h>[01]?\d|2[0-3])\s+and\s+(?:(?P<half>a\s+half|half)|(?P<q>a\s+quarter)"
    r"|(?P<m>15|30|45))\b(?!\s*(?:hours?|hrs?|h\b|minutes?|mins?|days?|weeks?))",
    re.I,
)
_OF_THE = re.compile(
    r"(?<=\d)(\s*(?:[ap]\.?m\.?)?)\s+of\s+the\s+(morning|afternoon|evening|night)\b", re.I
)


def _clock_minutes(m: re.Match[str]) -> str:
    minutes = "30" if m["half"] else "15" if m["q"] else m["m"]
    return f"at {m['h']}:{minutes}"


def _spelled_out(message: str) -> str:
    """`message` with the week's shorthand written out (see `_SHORT_WEEK`) and a clock
    said another language's way in English's (see `_CLOCK_AND`)."""
    if " and " in message:
        message = _CLOCK_AND.sub(_clock_minutes, message)
    if " of the " in message:
        message = _OF_THE.sub(r"\1 in the \2", message)
    if "wk" in message.lower():

        def out(m: re.Match[str]) -> str:
            word = m.group(0).lower().replace("-", "")
            if word in _SHORT_WORDS:
                return _SHORT_WORDS[word]
            if word.startswith(("wkend", "wknd")):
                return "weekends" if word.endswith("s") else "weekend"
            return "weeks" if word.endswith("s") else "week"

        message = _SHORT_WEEK.sub(out, message)
    if "+" in message:
        message = _DAY_PLUS.sub(r"\1 and ", message)
    return message


def mend_spelling(message: str) -> str:
    """A message with slips of day words mended ("tmorow at 9", "thrusday"): see
    `spelling`; the words this grammar reads already are kept as written."""
    return respell(message, _FRAGMENTS)


def split_when(text: str, *, now: datetime, tz: str) -> When | None:
    """Split a message into its time (instant or recurrence) and the remaining words.

    Tries every run of words, longest first, so "tomorrow at 9" wins over "9"; filler at
    the edges ("at", "on") goes with the time. A day and a time of day said apart make one
    time ("remind me tomorrow to call mom at 5": tomorrow at 17:00). Returns None when no
    time is found, when two times conflict, or when finding them would cost more than
    WORK_BUDGET (see there).
    """
    work = Budget(WORK_BUDGET)  # shared by both searches and their joining
    text = _days_listed(_spelled_out(mend_spelling(text)))
    found = _split_once(text, now=now, tz=tz, work=work)
    if found is None:
        return None
    first, said, _ = found
    if not said:
        return first
    first = replace(first, said=said)
    more = _split_once(first.rest, now=now, tz=tz, work=work, foreign=False)
    if more is None or not more[1] or more[2]:
        return first  # nothing else, or a thing's own time ("the 8:15 train")
    second, said2, _ = more
    if _CLAUSE.search(text[: _where(text, said2)]):
        return first  # "remind me tomorrow that the shop closes at 6": the 6 is the shop's
    joined = _joined(first.schedule, said, second.schedule, said2, text, now, tz, work)
    if isinstance(joined, _Apart):
        return first  # two separate facts ("on friday to plan next week")
    return When(joined, second.rest, said=f"{said} {said2}") if joined is not None else None


# Words opening a clause whose times are what it tells, not when to remind.
_CLAUSE = re.compile(r"\b(?:that|about|whether|if|when|because|since)\b", re.IGNORECASE)


class _Apart:
    """`_joined`'s answer for two times that are separate facts."""


_APART = _Apart()


def _where(text: str, said: str) -> int:
    """Where the words `said` begin in `text` (case-insensitive; the end if not found)."""
    k = text.lower().find(said.lower())
    return k if k >= 0 else len(text)


def _joined(
    a: datetime | Schedule,
    said_a: str,
    b: datetime | Schedule,
    said_b: str,
    text: str,
    now: datetime,
    tz: str,
    work: Budget,
) -> datetime | Schedule | _Apart | None:
    """One time from two said apart in a message, `_APART` when they are separate facts,
    None when they conflict (the caller asks).

    A day and a time of day make one ("tomorrow" + "at 5"; "every monday" + "at 5"); two
    days or two times of day side by side conflict ("in the spring tomorrow"); apart in the
    sentence they are separate ("on friday to plan next week"). The grammar's work is the
    message's (`work`).
    """
    try:
        zone = zone_named(tz)
    except (ValueError, OSError, KeyError):
        return None
    local_now = now.astimezone(zone)

    def ctx() -> Ctx:
        return Ctx(local_now, zone, _Share(work))

    def parts(said: str) -> tuple[bool, bool] | None:
        return time_parts(said, now=now, tz=tz, budget=_Share(work))

    if isinstance(a, Schedule) or isinstance(b, Schedule):
        _, other, said_rule, said_other = (
            (a, b, said_a, said_b) if isinstance(a, Schedule) else (b, a, said_b, said_a)
        )
        if not isinstance(other, Schedule) and _BARE_PERIOD.fullmatch(said_rule.strip(" ,")):
            # "remind me every month to pay rent on the 1st at 9am", "quarterly … on the
            # 10th at 9am": a rhythm with no day of its own, and its day said apart
            joined = read_recurrence(f"{said_rule.strip(' ,')} {said_other}", ctx(), tz)
            if joined is not None:
                return joined
        if isinstance(other, Schedule) or parts(said_other) not in ((False, True), None):
            return _APART  # a day or a date of its own: a separate fact
        if _HAS_CLOCK.search(said_rule):
            return _APART  # the rhythm has its time ("every day at 9 … at 10": the 10 is text)
        # Its time of day ("at 5") or its hours ("every 3 hours … between 9 and 5").
        joined = read_recurrence(f"{said_rule} {said_other}", ctx(), tz)
        return joined if joined is not None else _APART
    parts_a, parts_b = parts(said_a), parts(said_b)
    if parts_a is None or parts_b is None:
        return _APART
    if {parts_a, parts_b} == {(True, False), (False, True)}:
        day, clock = (said_a, said_b) if parts_a == (True, False) else (said_b, said_a)
        return read_instant(f"{day} {clock}", ctx())
    if {parts_a, parts_b} == {(True, True), (False, True)}:
        # "big game tonight, kick-off 20:45": a part of a day, then the clock in it
        part, clock = (said_a, said_b) if parts_a == (True, True) else (said_b, said_a)
        if _PART_OF_A_DAY.fullmatch(part.strip(" ,")):
            at = "" if re.match(r"(?:at|@|by|around)\b", clock.strip(), re.I) else "at "
            in_part = read_instant(f"{part.strip(' ,')} {at}{clock.strip()}", ctx())
            alone = a if parts_a == (True, True) else b
            if (
                isinstance(in_part, datetime)
                and isinstance(alone, datetime)
                and in_part.date() == alone.date()
                and (in_part.hour >= 12) == (alone.hour >= 12)  # not "tonight … at 9am"
            ):
                return in_part
    a_then_b = re.escape(said_a) + r"[\s,]+" + re.escape(said_b)
    b_then_a = re.escape(said_b) + r"[\s,]+" + re.escape(said_a)
    side_by_side = re.search(f"{a_then_b}|{b_then_a}", text, re.IGNORECASE)
    return None if side_by_side else _APART


# A rhythm of weeks, months or years that names no day in it ("every month", "quarterly").
_BARE_PERIOD = re.compile(
    r"(?:every|each)\s+(?:other\s+|second\s+|\d+\s+)?(?:weeks?|months?|quarters?|years?)"
    r"|weekly|fortnightly|biweekly|monthly|bimonthly|quarterly|yearly|annually",
    re.IGNORECASE,
)
# A part of a day said as the day: "tonight", "tomorrow morning", "this evening", "friday night".
_PART_OF_A_DAY = re.compile(
    r"(?:tonight|(?:(?:this|tomorrow|tmrw|today|(?:mon|tues|wednes|thurs|fri|satur|sun)day)\s+)"
    r"(?:morning|afternoon|evening|night))",
    re.IGNORECASE,
)
# A rhythm that says its time of day ("every day at 9", "daily 9am", "every morning"); the
# number of "every 3 hours" is none.
_HAS_CLOCK = re.compile(
    r"\bat\b|@|\d\s*(?:am|pm|a\.m|p\.m)\b|\d:\d|\b(?:noon|midnight|morning|afternoon|evening|"
    r"night|nights|lunch|breakfast|dinner|supper|bedtime|bed)\b",
    re.IGNORECASE,
)


def _split_once(
    text: str, *, now: datetime, tz: str, work: Budget, foreign: bool = True
) -> tuple[When, str, bool] | None:
    """`split_when`'s one time: the split, the time's own words ("" when they are not one
    phrase) and whether it is a thing's time used for want of another ("the 4:30 meeting").
    `foreign`: with no English time, look for one in another language."""
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
    has_keyword = says_repeat(text.lower())
    counted = has_keyword and counts_runs(text.lower())
    # Only spans made of words the grammar knows are parsed (any other word cannot be
    # inside a time), and each distinct span once ("1 1 1 …" repeats spans).
    allowed = [_time_token(b) for b in bare]
    if " time" in text.lower():
        # "for the first time in three years": an occasion and how long it had been, no
        # time to act at (nor "the first" of a month)
        for k in range(1, n):
            if bare[k] == "time" and bare[k - 1] in _FIRST_OR_LAST:
                last = k + 3 if k + 1 < n and bare[k + 1] == "in" else k
                for w in range(k - 1, min(n, last + 1)):
                    allowed[w] = False
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
    # "end of (the) day", "the end of the day": the end of a working day, no holiday
    end_of_day = [
        b == "day" and "end" in bare[max(0, k - 3) : k] and "of" in bare[max(0, k - 2) : k]
        for k, b in enumerate(bare)
    ]
    meal_first = [b in _MEALS for b in bare]
    labelled = [_labelled(words, bare, k) for k in range(n)]
    # A time between a determiner and a word the grammar never names describes a thing
    # ("the 8:15 train", "my 10am dentist visit"): another time is when to remind, and
    # with none the thing's time is, its words kept ("about the 4:30 meeting").
    named_thing_after = [k + 1 < n and _plain_word(bare[k + 1]) for k in range(n)]
    attributive: When | None = None
    # Fillers and the words of a thing's description found so far ("the 8:15" of "train"):
    # a time made only of these is part of that description.
    covered = [b in _EDGE_FILLER for b in bare]
    covered_before = _running(covered)
    rejected: set[tuple[int, int]] = set()  # spans read as times and set aside
    thing_meals = [0]  # thing_meals[k]: meals named as things in words[:k]
    for k in range(n):
        as_thing = meal_first[k] and (k == 0 or bare[k - 1] in _MEAL_AS_THING)
        thing_meals.append(thing_meals[-1] + as_thing)
    # The longest time phrase people write is well under MAX_SPAN words ("every first and
    # third friday of the month at 9am until december 31"); longer runs are never tried.
    for length in range(min(n, MAX_SPAN), 0, -1):
        for i in range(0, n - length + 1):
            j = i + length
            if unknown_before[j] != unknown_before[i] or no_last[j - 1]:
                continue  # a word no time has, or dangling filler (a shorter span is tried)
            if (length > 1 and no_first[i]) or meal_first[i] or thing_meals[j] != thing_meals[i]:
                continue
            if labelled[i]:
                continue  # "chapter | 7 tomorrow": the chapter's number
            if (
                j < n
                and bare[j] in _QUANTITY_NOUNS
                and (bare[j - 1].isdigit() or bare[j - 1] in lexicon.UNITS)
            ):
                # "the 3 | day trip", "a 30 | minute timer", "by 3 | quarters of an hour":
                # a quantity, not a clock
                continue
            if adjectives_before[j] != adjectives_before[i]:
                continue
            # The span's last word is no filler (no_last), so it is the last core word.
            cores = core_before[j] - core_before[i]
            if cores == 1 and weak_alone[j - 1]:
                continue
            if (
                occasion_last[j - 1]
                and not (bare[i] in _TIME_PREPOSITIONS or cores > 2)
                and not end_of_day[j - 1]
            ):
                continue  # "buy the christmas tree": a holiday named as a thing, not a time
            span = " ".join(words[i:j]).strip(",;:!?")
            if span in seen:
                sched = seen[span]
            else:
                if work.left <= 0:
                    return None  # adversarial input: "no time found" beats a slow answer
                sched = None
                if has_keyword and says_repeat(span.lower()):
                    sched = read_recurrence(span, _ctx(local_now, zone, work, frames, matches), tz)
                elif counted and (days := several_days(span.lower())) is not None:
                    # "tue and thu at 19:30 …, 4 times": the days repeat, counted apart
                    every = f"{span[: days.start()]}every {span[days.start() :]}"
                    sched = read_recurrence(every, _ctx(local_now, zone, work, frames, matches), tz)
                if sched is None:
                    sched = read_instant(span, _ctx(local_now, zone, work, frames, matches))
                seen[span] = sched
            if sched is None:
                continue
            if (
                not isinstance(sched, datetime)
                and _ON_OCCASION_AFTER.match(" ".join(bare[j:]))
                and not _NAMES_A_DAY.search(span.lower())
            ):
                # "every year | on his birthday": the day is the occasion's, which the
                # words leave unsaid; not the rule's own day (1 January)
                rejected.add((i, j))
                continue
            if (
                (i, j + 1) in rejected  # a cut of a time set aside ("[about] the 3 | pm call")
                or (j < n and bare[j - 1] in _AGO_WORDS)  # "2 days before | my flight"
                or covered_before[j] - covered_before[i] == j - i
            ):
                # The last: inside a thing's description found before, fillers aside
                # ("the day after | tomorrow | call mom").
                rejected.add((i, j))
                continue
            thing = _describes(bare, i, j) if named_thing_after[j - 1] else None
            if thing is not None:
                covered[thing:j] = [True] * (j - thing)
                covered_before = _running(covered)
                if attributive is None and isinstance(sched, datetime):
                    # The thing keeps its words; the time's other words go ("10 minutes
                    # before | the 3pm meeting"), but not the fillers ("to | the 6pm party").
                    kept = [w for k, w in enumerate(words[i:thing], i) if bare[k] in _EDGE_FILLER]
                    attributive = When(
                        sched, _clean(words[:i] + kept + words[thing:], text), thing=True
                    )
                rejected.add((i, j))
                continue
            if _another_time(bare, i, j, now, tz) or _offset_before(bare, i):
                return None  # "at 9 and 5": two times for one reminder; ask instead
            event = _event_offset(bare, i)
            if event is not None:
                # "2 days before my dentist appointment on the 20th"
                if not isinstance(sched, datetime):
                    return None
                start, said_from, dur, sign = event
                moved = instant.moved_by(sched, dur, sign, zone)
                if moved is None:
                    return None
                return (
                    When(moved, _clean(words[:start] + words[said_from:], text)),
                    "",
                    False,
                )
            # "Ana's birthday is on March 3rd": the occasion is also what to remind of.
            occasion = occasion_of(span) if isinstance(sched, Schedule) else None
            kept = span.split()[occasion[0] : sum(occasion)] if occasion else []
            return (
                When(sched, _clean(words[:i] + kept + words[j:], text)),
                _LEAD.sub("", span),
                False,
            )
    if attributive is not None:
        return attributive, "", True
    # No English time: a German/Spanish/French/Portuguese/Polish one ("morgen um 9").
    got = split_foreign(text, now=now, zone=zone) if foreign else None
    return (When(got[0], _clean(got[1].split())), "", False) if got else None
