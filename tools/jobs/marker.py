"""The marker and the prompt around a fired run: the one home of their words.

When a job fires, the dispatcher posts `[DELAYED_COMMAND] <what to do>` into the job's
thread; the thread handler recognises its own marker and asks the agent to act on the
run's prompt (`fired_prompt`), which the offline model reads back (`fired_command`). Each
format is written and read here. A job's own text may never carry the marker (it could
pose as a run), so the guardrails look for it here too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

from storage.models import JobKind
from tools.jobs.model import FOLLOW_UP_RUN, REGULAR_RUN
from tools.schedule import zone

MARKER = "[DELAYED_COMMAND]"
# Also the spellings a person might type to pose as one (any case, a space for the underscore).
_MARKER_ANYWHERE = re.compile(r"\[\s*DELAYED[_ ]COMMAND\s*\]", re.IGNORECASE)


def mentions_marker(text: str) -> bool:
    """Whether `text` carries the marker (or a look-alike) anywhere."""
    return _MARKER_ANYWHERE.search(text) is not None


def is_marker(content: str) -> bool:
    """Whether a message (the bot's own) is a fired run's marker."""
    return content.startswith(MARKER)


def command_text(kind: str, command: str, run_kind: str = REGULAR_RUN) -> str:
    """What a fired job asks the agent to do (after the marker)."""
    if run_kind == FOLLOW_UP_RUN:
        return f"Follow up on the reminder about: {command}"
    if kind == JobKind.REMINDER:
        return f"Send a reminder about: {command}"
    return command


def marker_text(kind: str, command: str, run_kind: str = REGULAR_RUN) -> str:
    """The message a fired run posts into its thread."""
    return f"{MARKER} {command_text(kind, command, run_kind)}"


FIRED_PREFIX = "[Scheduled job"
_FIRED = re.compile(re.escape(FIRED_PREFIX) + r"[^\]]*\]\s*")


def fired_prompt(text: str, job_id: int | None, kind: str | None) -> str:
    """How a fired job's command (`command_text`/`wake_text`) is phrased to the agent."""
    return f"{FIRED_PREFIX} #{job_id} ({kind or 'job'}) fired] {text}"


def fired_command(prompt: str) -> str | None:
    """The command a `fired_prompt` carries, or None if `prompt` is not one."""
    m = _FIRED.match(prompt)
    return prompt[m.end() :] if m else None


@dataclass(frozen=True)
class WakeUp:
    """Which attempt a fired reminder run is: 1 is the reminder itself."""

    attempt: int = 1
    of: int = 1
    previous_sent_at: datetime | None = None

    @property
    def is_follow_up(self) -> bool:
        return self.attempt > 1


def wake_text(command: str, wake: WakeUp, tz: str) -> str:
    """What a fired reminder tells the agent (the wake-up context of seed 001)."""
    if not wake.is_follow_up:
        return f"Reminder triggered.\nTask: {command_text(JobKind.REMINDER, command)}"
    sent = "earlier"
    if wake.previous_sent_at is not None:
        try:
            local = wake.previous_sent_at.astimezone(zone(tz))
            sent = f"{local:%Y-%m-%d %H:%M} {tz}"
        except Exception:
            sent = f"{wake.previous_sent_at.astimezone(UTC):%Y-%m-%d %H:%M} UTC"
    return (
        f"Follow-up reminder triggered (attempt {wake.attempt} of {wake.of}).\n"
        f"Original reminder: {command}\n"
        f"Note: User has not responded to the previous reminder sent at {sent}. "
        'Write a short, natural follow-up (e.g. "Just checking in on …"), not a copy of '
        "the first reminder."
    )


_FOLLOW_UP_WAKE = re.compile(
    r"Follow-up reminder triggered \(attempt (\d+) of (\d+)\)\.?\s*"
    r"Original reminder:\s*(.*?)\s*(?:\nNote:|$)",
    re.S,
)


def read_wake(text: str) -> tuple[str, WakeUp | None]:
    """What `wake_text` or `command_text` asked, read back (the offline model answers with it):
    the job's own words and, for a follow-up, which attempt it is."""
    follow_up = _FOLLOW_UP_WAKE.match(text)
    if follow_up:
        attempt, of, command = follow_up.groups()
        return command, WakeUp(int(attempt), int(of))
    text = re.sub(r"^Reminder triggered\.?\s*Task:\s*", "", text)
    text = re.sub(r"^(send a )?reminder( about)?:\s*", "", text, flags=re.I)
    return text.strip(), None
