"""What the agent may do in its own thread, as a protocol the Discord layer implements."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol


@dataclass(frozen=True)
class ThreadMessage:
    """One message of the thread, oldest first when listed."""

    author: str
    text: str
    at: datetime
    bot: bool = False


class ThreadActions(Protocol):
    """The thread a run belongs to: post into it, read it back, start a poll."""

    async def post_message(self, text: str) -> int:
        """Post `text` (nobody is pinged); returns the new message's id."""
        ...

    async def read_thread(self, limit: int) -> list[ThreadMessage]:
        """The last `limit` messages, oldest first."""
        ...

    async def create_poll(self, question: str, answers: list[str], hours: int) -> int:
        """Post a native poll open for `hours`; returns the message id."""
        ...
