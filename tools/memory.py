"""Per-thread conversation memory: pydantic-ai messages persisted in `conversations`, bounded."""

from __future__ import annotations

import dataclasses
import logging

from pydantic_ai.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    UserPromptPart,
)

from storage.conversations import ConversationStore

log = logging.getLogger(__name__)


def _turn_starts(messages: list[ModelMessage]) -> list[int]:
    """Indexes of requests that open a turn (carry a user prompt)."""
    return [
        i
        for i, m in enumerate(messages)
        if isinstance(m, ModelRequest) and any(isinstance(p, UserPromptPart) for p in m.parts)
    ]


def trim(messages: list[ModelMessage], *, max_turns: int, max_chars: int) -> list[ModelMessage]:
    """The newest whole turns in `max_turns` and `max_chars` (the last turn is always kept)."""
    starts = _turn_starts(messages)
    if not starts:
        return []
    kept = messages[starts[-1] :]
    for start in reversed(starts[:-1][-(max_turns - 1) :] if max_turns > 1 else []):
        candidate = messages[start:]
        if len(ModelMessagesTypeAdapter.dump_json(candidate)) > max_chars:
            break
        kept = candidate
    return kept


def _strip_instructions(messages: list[ModelMessage]) -> list[ModelMessage]:
    out: list[ModelMessage] = []
    for m in messages:
        if isinstance(m, ModelRequest) and m.instructions:
            m = dataclasses.replace(m, instructions=None)
        out.append(m)
    return out


class Memory:
    """Load and save a thread's history; a broken or missing record reads as empty."""

    def __init__(
        self, store: ConversationStore, *, max_turns: int = 12, max_chars: int = 24_000
    ) -> None:
        self.store = store
        self.max_turns = max_turns
        self.max_chars = max_chars

    async def load(self, channel_id: int) -> list[ModelMessage]:
        try:
            raw = await self.store.load(channel_id)
            if not raw:
                return []
            return trim(
                list(ModelMessagesTypeAdapter.validate_json(raw)),
                max_turns=self.max_turns,
                max_chars=self.max_chars,
            )
        except Exception:
            log.exception("could not load conversation %s; starting fresh", channel_id)
            return []

    async def save(self, channel_id: int, messages: list[ModelMessage]) -> None:
        try:
            kept = trim(
                _strip_instructions(messages), max_turns=self.max_turns, max_chars=self.max_chars
            )
            await self.store.save(channel_id, ModelMessagesTypeAdapter.dump_json(kept).decode())
        except Exception:
            log.exception("could not save conversation %s", channel_id)

    async def forget(self, channel_id: int) -> None:
        await self.store.delete(channel_id)
