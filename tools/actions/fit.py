"""At scheduling time: which of the agent's tools could carry out a command (a cheap word match).

The confirmation says which tool it will use, or that it will only post a reminder, so a
delayed command never pretends to be something the bot can do.
"""

from __future__ import annotations

import re

_STOP = frozenset(
    {
        "the",
        "and",
        "for",
        "with",
        "this",
        "that",
        "then",
        "from",
        "into",
        "onto",
        "about",
        "after",
        "before",
        "when",
        "what",
        "please",
        "you",
        "your",
        "our",
        "my",
        "me",
        "its",
        "all",
        "any",
        "some",
        "can",
        "will",
        "would",
        "could",
        "should",
        "just",
        "now",
        "later",
        "hour",
        "hours",
        "minute",
        "minutes",
        "second",
        "seconds",
        "day",
        "days",
        "tomorrow",
        "tonight",
        "today",
    }
)


def _words(text: str) -> set[str]:
    found = re.findall(r"[a-z]+", text.lower())
    return {w[:-1] if len(w) > 4 and w.endswith("s") else w for w in found if len(w) >= 3} - _STOP


def matching_tools(command: str, tools: dict[str, str]) -> list[str]:
    """Tool names whose name or description shares a word with the command, best first."""
    wanted = _words(command)
    scored = []
    for name, description in tools.items():
        by_name = len(wanted & _words(name.replace("_", " ")))
        by_text = len(wanted & _words(description))
        if by_name or by_text:
            scored.append((-(2 * by_name + by_text), name))
    return [name for _, name in sorted(scored)]


def capability_note(command: str, tools: dict[str, str]) -> str:
    """A line for the confirmation (empty if no action tools are configured at all)."""
    if not tools:
        return ""
    hits = matching_tools(command, tools)
    if hits:
        named = ", ".join(f"`{h}`" for h in hits[:3])
        return f"\nWhen it fires I'll do it with {named}."
    return "\nNone of my tools can do that, so when it fires I'll post it as a reminder instead."
