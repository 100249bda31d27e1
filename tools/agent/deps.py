"""What an agent run knows: who asks, where, the reference time, and what the run did.

`HomarDeps` is the run's origin, built once per message by the caller (`bot/runtime.py`,
the console, benches and tests) and frozen: the person, the thread, whether a fired job
started it, the reference time and the services the tools act through. A caller that
needs another origin builds one (`dataclasses.replace`).

`RunState` is everything a run reads or writes that is its own: what it was given to
read (the person's words, a fired run's quoted thread, which text calls count), what it
settled on (the reference time pinned on its first read, a time zone the person changed
during the run) and what it did (jobs, confirmation lines, clarifier, proposals).
`run_agent` and `resume_approval` start each run with a new one; the offline fallback
starts over with `RunState.restart()`: the same inputs, nothing done yet.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import datetime

from tools.actions.recording import ToolCallRecord
from tools.actions.thread import ThreadActions
from tools.agent.words import Words
from tools.audience import AudienceResolver
from tools.jobs.engine import Engine
from tools.jobs.model import Actor, Target
from tools.schedule import zone


@dataclass
class RunState:
    """One run's own inputs and what it did; new for every run (see the module doc)."""

    # Text tool calls and tags are read only in the model's reply to a person's live
    # message (`run_agent` sets this); fired runs and approval resumes leave it off.
    text_calls: bool = False
    # The person's live message, read for its time: it wins over a tool's time argument
    # (None on fired runs, whose command is data, not the person speaking now).
    words: Words | None = None
    untrusted_history: str = ""  # a fired run's view of the thread: quoted, never obeyed
    action_tools: dict[str, str] = field(default_factory=dict)  # tool → description, if any
    # The reference time when the origin gives none: the clock's, pinned on its first read
    # so every tool of the run (and its fallback) reads the same instant.
    pinned_now: datetime | None = None
    tz: str | None = None  # the zone the person set during this run (`set_timezone`)

    job_ids: list[int] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    model_lines: dict[str, str] = field(default_factory=dict)  # tool_call_id → text for history
    clarifier: bool = False
    remind_now: str | None = None
    preface: str = ""  # prose the model wrote before a text tool call or tag
    proposed: int = 0  # jobs waiting for approval in this run (they count toward the cap)
    tool_calls: list[ToolCallRecord] = field(default_factory=list)  # actions called (MCP, …)
    # A change the model aimed at a job that is not the person's (or none), for a message
    # that asks for something new and names no job: nothing done (`run._left_undone`).
    misdirected: bool = False

    def restart(self) -> None:
        """Forget what was done, keep the inputs: the offline fallback starts over here."""
        fresh = RunState(
            text_calls=self.text_calls,
            words=self.words,
            untrusted_history=self.untrusted_history,
            action_tools=self.action_tools,
            pinned_now=self.pinned_now,
            tz=self.tz,
        )
        for f in fields(self):  # in place: the tools of the run hold this very state
            setattr(self, f.name, getattr(fresh, f.name))


@dataclass(frozen=True)
class HomarDeps:
    """The run's origin: who asks, where, when, and the services the tools act through.

    Frozen; what changes during a run lives in `state` (see the module doc).
    """

    user_id: int
    channel_id: int
    engine: Engine
    tz: str = "UTC"  # the person's zone when the run started (see `zone`)
    guild_id: int | None = None
    parent_channel_id: int | None = None
    now: datetime | None = None  # reference time; defaults to engine.clock()
    fired: bool = False  # this run was started by a fired job
    fired_job_id: int | None = None
    fired_kind: str | None = None
    user_name: str | None = None
    state: RunState = field(default_factory=RunState)
    thread: ThreadActions | None = None  # post/read/poll in this thread (None: no Discord)
    audience: AudienceResolver | None = None  # checks who a job may address (None: no Discord)

    @property
    def zone(self) -> str:
        """The zone this run reads and shows times in: the person's, or the one they set."""
        return self.state.tz or self.tz

    def reference_instant(self) -> datetime:
        """The run's reference time as given, or the clock's pinned on the first read."""
        if self.now is not None:
            return self.now
        if self.state.pinned_now is None:
            self.state.pinned_now = self.engine.clock()
        return self.state.pinned_now

    def reference_now(self) -> datetime:
        return self.reference_instant().astimezone(zone(self.zone))

    @property
    def actor(self) -> Actor:
        return Actor(self.user_id, self.guild_id, manage_messages=False)

    @property
    def target(self) -> Target:
        return Target(self.user_id, self.channel_id, self.guild_id, self.parent_channel_id)
