"""Misspelt day words read as the words meant: "tmorow" is tomorrow, "thrusday" Thursday.

People type fast in chat. A word one slip away from a day word (two for the long ones:
"wensday", "tmorow") is read as that word, so "remind me tmorow at 7:30pm" is not today at
19:30. Only what can be told apart safely is mended:

- the word is not one the grammar knows already (its own spellings, "tmrw", "weds");
- it is one letter away (a letter dropped, added, changed, or two swapped) from a day word
  of up to seven letters, or two from a longer one, and from no other day word as near;
- its first letter is the day word's (a slip inside a word is the common one);
- it is not a real word that happens to be near ("sundae", "mourning", "fridge");
- it is not capitalised inside a sentence (a name: "call Frida at 5");
- it is not inside quotes (the words of a message to post stay as they were written).
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import combinations

# The day words a slip is mended to (and their plurals, for rhythms: "every thrusdays").
_DAY_WORDS = (
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "tomorrow",
    "tonight",
    "weekend",
    "morning",
    "afternoon",
    "evening",
    "midnight",
    "fortnight",
    "january",
    "february",
    "september",
    "october",
    "november",
    "december",
)
_TARGETS = _DAY_WORDS + tuple(w + "s" for w in _DAY_WORDS if not w.startswith("to"))

# Real words near a day word: never mended.
_REAL_WORDS = frozenset(
    {
        "sundae",
        "sundaes",
        "sundry",
        "sunday's",
        "mourning",
        "moaning",
        "mournings",
        "fridge",
        "fridges",
        "eventing",
        "evenly",
        "openings",
        "tonights",
        "weekender",
        "weekends",
        "mornings",
        "evenings",
        "monday's",
        "octobers",
        "mondays",
        "tuesdays",
        "wednesdays",
        "thursdays",
        "fridays",
        "saturdays",
        "sundays",
        "tomorrows",
    }
)


def _allowed(target: str) -> int:
    return 1 if len(target) <= 7 else 2


def _deletes(word: str, most: int) -> set[str]:
    """The word with up to `most` letters left out (itself included)."""
    out = {word}
    for k in range(1, most + 1):
        if len(word) - k < 3:
            break
        for gone in combinations(range(len(word)), k):
            out.add("".join(c for i, c in enumerate(word) if i not in gone))
    return out


def _index() -> dict[str, frozenset[str]]:
    index: dict[str, set[str]] = {}
    for target in _TARGETS:
        for variant in _deletes(target, _allowed(target)):
            index.setdefault(variant, set()).add(target)
    return {k: frozenset(v) for k, v in index.items()}


_INDEX = _index()


def _distance(a: str, b: str) -> int:
    """Letters dropped, added, changed or two neighbours swapped to make `a` into `b`
    (the optimal string alignment distance)."""
    rows = [list(range(len(b) + 1))]
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            row[j] = min(rows[-1][j] + 1, row[j - 1] + 1, rows[-1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], rows[-2][j - 2] + 1)
        rows.append(row)
    return rows[-1][-1]


@lru_cache(maxsize=4096)
def mended(word: str) -> str | None:
    """The day word a lower-case word is a slip of, or None."""
    if word in _REAL_WORDS or word in _TARGETS or not 5 <= len(word) <= 11:
        return None
    candidates: set[str] = set()
    for variant in _deletes(word, 2):
        candidates |= _INDEX.get(variant, frozenset())
    best: list[tuple[int, str]] = []
    for target in candidates:
        if target[0] != word[0]:
            continue
        d = _distance(word, target)
        if d <= _allowed(target):
            best.append((d, target))
    if not best:
        return None
    best.sort()
    if len(best) > 1 and best[1][0] == best[0][0] and best[1][1] != best[0][1]:
        return None  # as near to two day words: not told apart
    return best[0][1]


_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”|`[^`]*`|(?<![\w'])'[^']*'(?![\w'])")
_WORD = re.compile(r"(?<![\w'@#/:.-])([A-Za-z]{5,11})(?![\w'@/-])")
_SENTENCE_END = re.compile(r"(?:[.!?]\s+|\n\s*)$")


def _mend_words(part: str, known: frozenset[str], at_start: bool | None) -> str:
    def one(m: re.Match[str]) -> str:
        word = m.group(1)
        low = word.lower()
        if low in known:
            return word
        if word[0].isupper():
            if at_start is None:
                return word  # a piece of a sentence: where it starts is not known
            before = part[: m.start()]
            if not (at_start and not before.strip()) and not _SENTENCE_END.search(before):
                return word  # a name inside a sentence ("call Frida at 5")
            if not word[1:].islower():
                return word  # "FRIDA", "McDay": not a slip of a day word
        fixed = mended(low)
        if fixed is None:
            return word
        return fixed.capitalize() if word[0].isupper() else fixed

    return _WORD.sub(one, part)


def respell(text: str, known: frozenset[str] = frozenset(), *, whole: bool = True) -> str:
    """`text` with slips of day words mended (see the module's notes); the words the
    grammar knows (`known`) and quoted words as they were. `whole`: `text` is a whole
    message, so a capital after a sentence's end is no name; else (a piece of one)
    capitalised words are left as they are."""
    if not text or text.isdigit():
        return text
    out: list[str] = []
    last = 0
    for q in _QUOTED.finditer(text):
        start = (last == 0) if whole else None
        out.append(_mend_words(text[last : q.start()], known, start))
        out.append(q.group(0))
        last = q.end()
    out.append(_mend_words(text[last:], known, (last == 0) if whole else None))
    return "".join(out)
