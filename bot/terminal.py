"""How a reply looks in a terminal: the same text Discord gets, rendered for a person at a TTY.

Replies carry times as Discord's timestamp token `<t:EPOCH:STYLE>`. That token is the
interchange between the agent, the commands and every surface: it is exact (an instant
plus a display style), the agent's tools and the slash commands already produce it, and
Discord renders it natively in each reader's zone. The terminal has no such renderer, so
this module turns each token into local text in the person's zone ("Tue 24 Nov 09:00",
"in 19 h"), mentions into words, and Discord markdown into terminal text (bold/italic as
ANSI styles on a TTY, plain otherwise; fences and inline code without their backticks).
"""

from __future__ import annotations

import re
from datetime import datetime
from zoneinfo import ZoneInfo

from tools.audience import CHANNEL_MENTION, ROLE_MENTION, USER_MENTION

_STAMP = re.compile(r"<t:(-?\d+)(?::([tTdDfFR]))?>")
_FENCE = re.compile(r"```[^\n`]*\n?(.*?)```", re.S)
_BOLD = re.compile(r"\*\*(.+?)\*\*", re.S)
_UNDERLINE = re.compile(r"__(.+?)__", re.S)
_ITALIC = re.compile(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])|(?<!\w)_(?!\s)(.+?)(?<!\s)_(?!\w)")
_CODE = re.compile(r"`([^`\n]+)`")
_HEADING = re.compile(r"^#{1,3}\s+(.+)$", re.M)

BOLD, ITALIC, DIM, RESET = "\x1b[1m", "\x1b[3m", "\x1b[2m", "\x1b[0m"


def relative(at: datetime, now: datetime) -> str:
    """ "in 19 h", "in 5 min", "3 days ago": the rounded distance, like Discord's `:R`."""
    seconds = (at - now).total_seconds()
    left = abs(seconds)
    if left < 1:
        return "now"
    # Round in the small unit first, so 59.9 minutes reads "1 h", never "60 min".
    n, unit = round(left), "s"
    for size, bigger, limit in ((60, "min", 60), (3600, "h", 60), (86400, "day", 24)):
        if n < limit:
            break
        n, unit = round(left / size), bigger
    if unit == "day" and n >= 365:
        n, unit = round(left / (86400 * 365)), "year"
    if unit in ("day", "year") and n != 1:
        unit += "s"
    words = f"{n} {unit}"
    return f"in {words}" if seconds > 0 else f"{words} ago"


def local_time(at: datetime, style: str, *, now: datetime, tz: ZoneInfo) -> str:
    """One `<t:…:style>` token as text in `tz` (the year only when it isn't this one)."""
    here = at.astimezone(tz)
    this_year = here.year == now.astimezone(tz).year
    if style == "R":
        return relative(at, now)
    if style == "t":
        return f"{here:%H:%M}"
    if style == "T":
        return f"{here:%H:%M:%S}"
    if style == "d":
        return f"{here:%Y-%m-%d}"
    if style == "D":
        return f"{here:%-d %b %Y}"
    return f"{here:%a %-d %b %H:%M}" if this_year else f"{here:%a %-d %b %Y %H:%M}"


class TerminalRenderer:
    """Renders reply text for one person at a terminal, in their zone, at `now`."""

    def __init__(self, *, user_id: int, styled: bool) -> None:
        self.user_id = user_id
        self.styled = styled

    def times(self, text: str, *, now: datetime, tz: ZoneInfo) -> str:
        def one(m: re.Match[str]) -> str:
            at = datetime.fromtimestamp(int(m[1]), tz)
            return local_time(at, m[2] or "f", now=now, tz=tz)

        return _STAMP.sub(one, text)

    def mentions(self, text: str) -> str:
        text = USER_MENTION.sub(
            lambda m: "@you" if int(m[1]) == self.user_id else f"@user {m[1]}", text
        )
        text = ROLE_MENTION.sub(lambda m: f"@role {m[1]}", text)
        return CHANNEL_MENTION.sub(lambda m: f"#channel {m[1]}", text)

    def markdown(self, text: str) -> str:
        """Discord markdown → terminal text (styles on a TTY, plain words otherwise)."""
        fences: list[str] = []

        def keep_fence(m: re.Match[str]) -> str:
            body = "\n".join("    " + line for line in m[1].rstrip("\n").split("\n"))
            fences.append(body)
            return f"\x00{len(fences) - 1}\x00"

        text = _FENCE.sub(keep_fence, text)
        b, i, d, r = (BOLD, ITALIC, DIM, RESET) if self.styled else ("", "", "", "")
        text = _HEADING.sub(lambda m: f"{b}{m[1]}{r}", text)
        text = _CODE.sub(lambda m: f"{d}{m[1]}{r}" if self.styled else m[1], text)
        text = _BOLD.sub(lambda m: f"{b}{m[1]}{r}", text)
        text = _UNDERLINE.sub(lambda m: f"{b}{m[1]}{r}", text)
        text = _ITALIC.sub(lambda m: f"{i}{m[1] or m[2]}{r}", text)
        return re.sub(r"\x00(\d+)\x00", lambda m: fences[int(m[1])], text)

    def render(self, text: str, *, now: datetime, tz: ZoneInfo) -> str:
        return self.markdown(self.mentions(self.times(text, now=now, tz=tz))).strip()
