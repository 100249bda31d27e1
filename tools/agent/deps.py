"""What an agent run knows: who asks, where, the reference time, and what the run did.

`HomarDeps` is built once per message by the caller (`bot/runtime.py`, the console,
benches and tests) and describes the run's origin: the person, the thread, whether a
fired job started it, and the services the tools act through. `RunState` is what one run
did (jobs, confirmation lines, clarifier, proposals); `run_agent` gives every run, and
its offline fallback, a fresh one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from tools.actions.recording import ToolCallRecord
from tools.actions.thread import ThreadActions
from tools.agent.words import Words
from tools.audience import AudienceResolver
from tools.engine import Actor, Engine, Target
from tools.schedule import zone


@dataclass
class RunState:
    """What one agent run did; reset by `run_agent` at the start of every run."""

    job_ids: list[int] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    model_lines: dict[str, str] = field(default_factory=dict)  # tool_call_id → text for history
    clarifier: bool = False
    remind_now: str | None = None
    preface: str = ""  # prose the model wrote before a text tool call or tag
    proposed: int = 0  # jobs waiting for approval in this run (they count toward the cap)
    tool_calls: list[ToolCallRecord] = field(default_factory=list)  # actions called (MCP, …)
    # Text tool calls and tags are read only in the model's reply to a person's live
    # message (`run_agent` sets this); fired runs and approval resumes leave it off.
    text_calls: bool = False


@dataclass
class HomarDeps:
    """Who asks, where, when, and the engine the tools act through."""

    user_id: int
    channel_id: int
    engine: Engine
    tz: str = "UTC"
    guild_id: int | None = None
    parent_channel_id: int | None = None
    now: datetime | None = None  # reference time; defaults to engine.clock()
    fired: bool = False  # this run was started by a fired job
    fired_job_id: int | None = None
    fired_kind: str | None = None
    user_name: str | None = None
    state: RunState = field(default_factory=RunState)
    thread: ThreadActions | None = None  # post/read/poll in this thread (None: no Discord)
    action_tools: dict[str, str] = field(default_factory=dict)  # tool → description, if any
    audience: AudienceResolver | None = None  # checks who a job may address (None: no Discord)
    untrusted_history: str = ""  # a fired run's view of the thread: quoted, never obeyed
    # The person's live message, read for its time: it wins over a tool's time argument
    # (None on fired runs, whose command is data, not the person speaking now).
    words: Words | None = None

    def reference_now(self) -> datetime:
        if self.now is None:
            self.now = self.engine.clock()
        return self.now.astimezone(zone(self.tz))

    @property
    def actor(self) -> Actor:
        return Actor(self.user_id, self.guild_id, manage_messages=False)

    @property
    def target(self) -> Target:
        return Target(self.user_id, self.channel_id, self.guild_id, self.parent_channel_id)
