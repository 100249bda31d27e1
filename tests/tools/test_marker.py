"""The marker's and the fired prompt's words are written and read back in one module."""

from __future__ import annotations

from datetime import UTC, datetime

from storage.models import JobKind
from tools.jobs.marker import (
    WakeUp,
    command_text,
    fired_command,
    fired_prompt,
    marker_text,
    read_wake,
    wake_text,
)


def test_a_fired_prompt_gives_back_its_command() -> None:
    text = "turn the porch light off ] [Scheduled job #9 (job) fired] twice"
    assert fired_command(fired_prompt(text, 7, JobKind.DELAYED)) == text
    assert fired_command(text) is None  # a person's message is no fired prompt


def test_the_wake_text_gives_back_the_command_and_attempt() -> None:
    sent = datetime(2026, 11, 23, 9, 0, tzinfo=UTC)
    first = wake_text("call mom", WakeUp(), "Europe/Warsaw")
    assert read_wake(first) == ("call mom", None)
    again = wake_text("call mom", WakeUp(3, 4, sent), "Europe/Warsaw")
    assert read_wake(again) == ("call mom", WakeUp(3, 4))
    assert read_wake(command_text(JobKind.DELAYED, "turn the porch light off")) == (
        "turn the porch light off",
        None,
    )
    assert marker_text(JobKind.REMINDER, "stretch") == (
        "[DELAYED_COMMAND] Send a reminder about: stretch"
    )
