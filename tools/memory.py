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


def trimmed_json(
    messages: list[ModelMessage], *, max_turns: int, max_chars: int
) -> tuple[list[ModelMessage], bytes]:
    """The newest whole turns in `max_turns` and `max_chars` (the last turn is always kept),
    and their JSON: exactly `ModelMessagesTypeAdapter.dump_json(kept)`, in one pass.

    Each turn is serialized once, from the newest back, and stops at the first turn that
    does not fit: re-serializing every candidate suffix cost the fired run most of its
    time once a thread's history had grown (a dozen dumps of up to `max_chars` bytes).
    A compact JSON array's length is its items' lengths plus commas and brackets, so the
    turns' own dumps add up to the candidate's.
    """
    starts = _turn_starts(messages)
    if not starts:
        return [], b"[]"
    ends = [*starts[1:], len(messages)]
    # The items of each turn's JSON array, without its brackets, newest turn first.
    kept_items: list[bytes] = []
    size = 2  # the brackets
    first = len(starts) - 1
    for k in range(len(starts) - 1, max(-1, len(starts) - 1 - max(max_turns, 1)), -1):
        items = ModelMessagesTypeAdapter.dump_json(messages[starts[k] : ends[k]])[1:-1]
        grown = size + len(items) + (1 if kept_items else 0)
        if kept_items and grown > max_chars:
            break
        kept_items.append(items)
        size = grown
        first = k
    return messages[starts[first] :], b"[" + b",".join(reversed(kept_items)) + b"]"


def trim(messages: list[ModelMessage], *, max_turns: int, max_chars: int) -> list[ModelMessage]:
    """The newest whole turns in `max_turns` and `max_chars` (the last turn is always kept)."""
    return trimmed_json(messages, max_turns=max_turns, max_chars=max_chars)[0]


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
            _, kept = trimmed_json(
                _strip_instructions(messages), max_turns=self.max_turns, max_chars=self.max_chars
            )
            await self.store.save(channel_id, kept.decode())
        except Exception:
            log.exception("could not save conversation %s", channel_id)

    async def forget(self, channel_id: int) -> None:
        await self.store.delete(channel_id)
