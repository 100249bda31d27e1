"""How big a chat message is, and how to split or shorten one without breaking characters.

Discord refuses a message over 2,000 characters. Lengths here are counted in UTF-16
code units, which is never less than a count of code points, so a text that fits by
this count fits however the platform counts. Splitting and trimming cut only between
extended grapheme clusters (UAX #29): an emoji built with zero-width joiners, a flag,
a letter with its combining marks or a direction mark stays whole and in place.
"""

from __future__ import annotations

import regex

MAX_MESSAGE = 2000
ELLIPSIS = "…"

_GRAPHEME = regex.compile(r"\X", regex.DOTALL)


def size(text: str) -> int:
    """The length of `text` as a message limit counts it (UTF-16 code units)."""
    if text.isascii():  # one code unit a character (a flag on the string: no scan)
        return len(text)
    return len(text.encode("utf-16-le")) // 2


def graphemes(text: str) -> list[str]:
    """`text` as user-perceived characters (extended grapheme clusters)."""
    return _GRAPHEME.findall(text)


def trim(text: str, limit: int = MAX_MESSAGE, ellipsis: str = ELLIPSIS) -> str:
    """`text` if it fits in `limit`, else its longest whole-character start plus `ellipsis`."""
    if size(text) <= limit:
        return text
    room = limit - size(ellipsis)
    kept: list[str] = []
    used = 0
    for cluster in graphemes(text):
        cost = size(cluster)
        if used + cost > room:
            break
        kept.append(cluster)
        used += cost
    return "".join(kept).rstrip() + ellipsis


def with_note(text: str, note: str, limit: int = MAX_MESSAGE) -> str:
    """`text` followed by `note`, shortening `text` (never the note) to fit in `limit`."""
    return trim(text, limit - size(note)) + note


def split(text: str, limit: int = MAX_MESSAGE) -> list[str]:
    """Split a long text into messages of at most `limit`, at a paragraph, line or word
    break in the second half of each message when there is one, never inside a character."""
    text = text.strip() or ELLIPSIS
    clusters = graphemes(text)
    parts: list[str] = []
    start = 0
    while start < len(clusters):
        end, used = start, 0
        while end < len(clusters) and used + size(clusters[end]) <= limit:
            used += size(clusters[end])
            end += 1
        if end == start:  # one "character" longer than a message (absurd input): cut it raw
            parts.extend(_raw_pieces(clusters[start], limit))
            start += 1
            continue
        cut = end if end == len(clusters) else _break_before(clusters, start, end)
        piece = "".join(clusters[start:cut]).strip()
        if piece:
            parts.append(piece)
        start = cut
        while start < len(clusters) and clusters[start].isspace():
            start += 1
    return parts or [ELLIPSIS]


def _break_before(clusters: list[str], start: int, end: int) -> int:
    """Where to end a message that may hold clusters[start:end]: before the latest paragraph
    break, else line break, else space, in its second half; else at `end`."""
    floor = start + (end - start) // 2
    for wanted in ("paragraph", "\n", " "):
        for i in range(end, floor, -1):
            c = clusters[i] if i < len(clusters) else ""
            if wanted == "paragraph":
                if c == "\n" and clusters[i - 1] == "\n":
                    return i - 1
            elif c == wanted or (wanted == " " and c.isspace()):
                return i
    return end


def _raw_pieces(cluster: str, limit: int) -> list[str]:
    pieces: list[str] = []
    current = ""
    for ch in cluster:
        if size(current + ch) > limit:
            pieces.append(current)
            current = ""
        current += ch
    if current:
        pieces.append(current)
    return pieces
