"""Which grammar patterns can start at a character: the piece reader's dispatch table.

`read_frame` tries every piece pattern at every position of a phrase; most cannot even
start there (a date pattern at the "t" of "tomorrow"). The set of first characters of
each pattern is read off its parsed form once, so a position only tries the patterns
that can start with its character. The sets over-approximate (anything not understood
counts as "any character"), so the dispatch never drops a pattern that could match.
"""

from __future__ import annotations

import importlib
import re
import string
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

# The regular-expression parser behind `re` (public as the deprecated `sre_parse`).
_parser: Any = importlib.import_module("re._parser")
_c: Any = importlib.import_module("re._constants")

ASCII = frozenset(chr(i) for i in range(128))
_CATEGORY = {
    _c.CATEGORY_DIGIT: frozenset(string.digits),
    _c.CATEGORY_SPACE: frozenset(" \t\n\r\f\v"),
    _c.CATEGORY_WORD: frozenset(string.ascii_letters + string.digits + "_"),
}
_REPEATS = {_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT}
_ZERO_WIDTH = {_c.AT, _c.ASSERT, _c.ASSERT_NOT}

# What `Dispatch.longest_first` remembers: for the text around a position (see there),
# which patterns match there, longest first.
Memo = dict[tuple[str, str], list[int]]

# (ASCII first characters, or None for "any character"; whether it can match nothing)
_First = tuple[frozenset[str] | None, bool]


def _charset(items: Iterable[tuple[Any, Any]]) -> frozenset[str] | None:
    out: set[str] = set()
    for op, av in items:
        if op == _c.LITERAL:
            out.add(chr(av))
        elif op == _c.RANGE:
            out.update(chr(i) for i in range(av[0], min(av[1], 127) + 1))
        elif op == _c.CATEGORY and av in _CATEGORY:
            out |= _CATEGORY[av]
        else:
            return None  # negated sets, other categories: any character
    return frozenset(out & ASCII)


def _first_of(op: Any, av: Any) -> _First:
    if op == _c.LITERAL:
        return frozenset({chr(av)} & ASCII), False
    if op == _c.IN:
        return _charset(av), False
    if op in _ZERO_WIDTH:
        # A lookaround consumes nothing; ignoring what it checks only widens the set.
        return frozenset(), True
    if op == _c.SUBPATTERN:
        _group, add_flags, _del, sub = av
        return (None, False) if add_flags else _sequence(sub)
    if op == _c.ATOMIC_GROUP:
        return _sequence(av)
    if op in _REPEATS:
        lo, _hi, sub = av
        chars, empty = _sequence(sub)
        return chars, empty or lo == 0
    if op == _c.BRANCH:
        out: set[str] = set()
        empty = False
        for alt in av[1]:
            chars, e = _sequence(alt)
            if chars is None:
                return None, False
            out |= chars
            empty = empty or e
        return frozenset(out), empty
    return None, False  # back-references, conditionals, ANY: any character


def _sequence(items: Iterable[tuple[Any, Any]]) -> _First:
    out: set[str] = set()
    for op, av in items:
        chars, empty = _first_of(op, av)
        if chars is None:
            return None, False
        out |= chars
        if not empty:
            return frozenset(out), False
    return frozenset(out), True


def first_chars(pattern: str) -> frozenset[str] | None:
    """The ASCII characters a match of `pattern` can start with; None if it may start
    with any character (or match the empty string)."""
    chars, empty = _sequence(_parser.parse(pattern))
    return None if empty else chars


def _behind(items: Any) -> int:
    """How far before its position a parsed pattern (or part) may look, in characters."""
    most = 0
    for op, av in items:
        if op in (_c.ASSERT, _c.ASSERT_NOT) and av[0] < 0:
            _lo, hi = av[1].getwidth()
            most = max(most, hi + _behind(av[1]))
        elif op == _c.AT:
            most = max(most, 1)  # \b, \B, ^ look at (or for) the character before
        else:
            for sub in _children(av):
                most = max(most, _behind(sub))
    return most


def _children(av: Any) -> list[Any]:
    """The parsed sub-patterns inside a node's argument (groups, branches, repeats)."""
    if isinstance(av, _parser.SubPattern):
        return [av]
    if isinstance(av, tuple | list):
        return [sub for item in av for sub in _children(item)]
    return []


def behind(pattern: str) -> int:
    """The most characters before the match position `pattern` can look at (lookbehinds,
    word boundaries): what a match at a position depends on besides the text after it."""
    return _behind(_parser.parse(pattern))


class Dispatch:
    """For a character, the indices (in order) of the patterns that can start with it."""

    def __init__(self, patterns: Sequence[str]) -> None:
        # A match at a position depends only on the text from there on and this many
        # characters before it (`at`'s callers key what they remember by both).
        self.behind = max((behind(p) for p in patterns), default=0)
        firsts = [first_chars(p) for p in patterns]
        self._any = [i for i, f in enumerate(firsts) if f is None]
        self._all = list(range(len(patterns)))
        self._table = {
            ch: [i for i, f in enumerate(firsts) if f is None or ch in f] for ch in ASCII
        }

    def at(self, ch: str) -> list[int]:
        # Characters outside ASCII (a Unicode digit, say) try every pattern.
        return self._table.get(ch, self._all)

    def longest_first(
        self, patterns: Sequence[re.Pattern[str]], s: str, pos: int, memo: Memo
    ) -> Iterator[tuple[int, re.Match[str]]]:
        """The patterns (index, match) with a non-empty match at `s[pos]`, longest first
        (ties in pattern order).

        Which patterns match, and how far, is a function of the text from `pos` on and
        the `behind` characters before it, so it is remembered in `memo` under those:
        the many phrases read for one message (its spans, a range's ends with and without
        "at") share most of their tails, and each tail is then searched once. A
        remembered position re-matches only the patterns that matched there.
        """
        key = (s[max(0, pos - self.behind) : pos], s[pos:])
        order = memo.get(key)
        if order is None:
            found = [
                (i, m)
                for i in self.at(s[pos])
                if (m := patterns[i].match(s, pos)) is not None and m.end() > pos
            ]
            found.sort(key=lambda im: -im[1].end())
            memo[key] = [i for i, _ in found]
            yield from found
            return
        for i in order:
            m = patterns[i].match(s, pos)
            if m is not None:  # always: the same text matches the same way
                yield i, m
