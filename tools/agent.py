"""Homar's brain: the pydantic-ai agent, its instructions, and `run_agent`, which never raises.

The Discord layer builds a `Runtime` once (`build_runtime(...)`) and, per message,
calls `await run_agent(runtime, text=..., deps=HomarDeps(...))`. Scheduling calls are
output functions, so a simple request costs one model request and our code writes the
confirmation. Replies written as text are also read for JSON tool calls and seed 000's
`[CRON: …]` / `[EXECUTE_NOW: …]` tags.
"""

from __future__ import annotations

import inspect
import logging
from dataclasses import dataclass, field
from datetime import UTC
from typing import Any, get_type_hints

from pydantic import TypeAdapter, ValidationError
from pydantic_ai import Agent, ModelRetry, RunContext, TextOutput, ToolOutput
from pydantic_ai.messages import ModelMessage, ModelRequest, ToolReturnPart
from pydantic_ai.models import Model
from pydantic_ai.settings import ModelSettings
from pydantic_ai.usage import RunUsage, UsageLimits

from tools import scheduling as sch
from tools.memory import Memory
from tools.schedule import Cron, Schedule, ScheduleError
from tools.scheduling import HomarDeps, RunState
from tools.textcalls import parse_json_call, parse_tags

__all__ = [
    "AgentReply",
    "HomarDeps",
    "Runtime",
    "build_agent",
    "build_runtime",
    "fired_prompt",
    "run_agent",
]

log = logging.getLogger(__name__)

FIRED_PREFIX = "[Scheduled job"

INSTRUCTIONS = """\
You are Homar, a Discord bot that schedules reminders and delayed commands in this thread.
- The reference time below is the only truth for now. Pass times as the user said them \
("tomorrow at 9", "in 2 hours") or ISO 8601; never do date arithmetic.
- Reminders: schedule_reminder. Commands for later: send_delayed_message (a delay) or \
send_scheduled_message (a time). Repeats: schedule_action (cron or "every weekday at 8"; \
interval "30 minutes"). Checking back on work: schedule_future_callback.
- No clear time ("remind me about the dentist"): ask ONE short question, schedule nothing.
- A time already past today: ask "Tomorrow at HH:MM?", schedule nothing.
- Meetings/calls: reminder_time = event time, minutes_before=5 unless told otherwise.
- Birthdays/anniversaries: 09:00 that day.
- "Remind me now" or an event under a minute away: schedule_reminder at "now".
- "Don't let me forget"/"nag me": follow_up=true.
- One schedule per request unless the user asks for several.
- Cancel/pause/resume/change jobs by id; call list_scheduled_actions if unsure.
- Tools write the confirmation. Keep replies short.
- Without tool calls, end with [CRON: 'm h dom mon dow' / MSG: 'text'] or \
[EXECUTE_NOW: 'text'].\
"""


def reference_instructions(ctx: RunContext[HomarDeps]) -> str:
    """The per-run reference time, the user, and what a fired run may do."""
    d = ctx.deps
    now = d.reference_now()
    text = (
        f"Reference time: {now:%a %Y-%m-%d %H:%M} {d.tz} (UTC{now:%z}) = "
        f"{now.astimezone(UTC):%Y-%m-%d %H:%M} UTC. User: {d.user_name or 'user'} ({d.user_id})."
    )
    if d.fired:
        text += (
            f"\nThis message is scheduled job #{d.fired_job_id} ({d.fired_kind or 'job'}) firing "
            "now: do it or write the reminder now; don't schedule it again; at most "
            f"{sch.MAX_FIRED_JOBS} new one-off jobs, no repeating ones."
        )
    return text


def fired_prompt(text: str, deps: HomarDeps) -> str:
    """How a fired job's command is phrased to the agent."""
    return f"{FIRED_PREFIX} #{deps.fired_job_id} ({deps.fired_kind or 'job'}) fired] {text}"


# ---------------------------------------------------------------- text replies


async def _dispatch(ctx: RunContext[HomarDeps], name: str, args: dict[str, Any]) -> str:
    """Call one of our tools from a JSON-text tool call, validating the arguments."""
    fn = sch.ALL_TOOLS[name]
    raw = inspect.unwrap(fn)
    hints = get_type_hints(raw)
    kwargs: dict[str, Any] = {}
    for p in list(inspect.signature(raw).parameters.values())[1:]:
        if p.name in args:
            try:
                kwargs[p.name] = TypeAdapter(hints[p.name]).validate_python(args[p.name])
            except ValidationError as exc:
                raise ModelRetry(f"Invalid {p.name} for {name}: {exc.errors()[0]['msg']}") from None
        elif p.default is inspect.Parameter.empty:
            raise ModelRetry(f"{name} needs the argument {p.name!r}.")
    if name in sch.PLAIN_TOOLS:
        jobs = await ctx.deps.engine.list_jobs(owner_id=ctx.deps.user_id, limit=25)
        return "\n".join(sch.job_line(j) for j in jobs) or "You have no scheduled jobs."
    return str(await fn(ctx, **kwargs))


async def _tagged_cron(ctx: RunContext[HomarDeps], cron: str, message: str) -> str:
    deps = ctx.deps
    try:
        sched = Schedule(Cron(cron), deps.tz)
    except ScheduleError as exc:
        raise ModelRetry(exc.message) from None
    f = cron.split()
    if f[0].isdigit() and f[1].isdigit() and f[2].isdigit() and f[3].isdigit() and f[4] == "*":
        at = sched.next_after(deps.reference_now())  # a one-time date: the next such day
        if at is None:
            raise ModelRetry("That cron date never comes; give a future date.")
        return await sch.schedule_reminder(ctx, at.isoformat(), message)
    return await sch.schedule_action(ctx, message, "recurring", cron)


async def on_text(ctx: RunContext[HomarDeps], text: str) -> str:
    """Final text: a JSON tool call or tag is carried out; a trailing question is a clarifier."""
    call = parse_json_call(text, sch.ALL_TOOLS)
    if call is not None:
        ctx.deps.state.preface = call.before
        return await _dispatch(ctx, call.name, call.args)
    tag = parse_tags(text)
    st = ctx.deps.state
    if tag.kind in ("cron", "now"):
        st.preface = tag.friendly
        if tag.kind == "now":
            st.remind_now = tag.message or tag.friendly
            return sch._record(ctx, f"⏰ Reminder: {st.remind_now}")
        return await _tagged_cron(ctx, tag.cron or "", tag.message or tag.friendly)
    if tag.kind == "conflict":
        st.clarifier = True
        return (tag.friendly + "\n" if tag.friendly else "") + (
            "I read two different schedules there, so I set nothing. Which one do you want?"
        )
    st.clarifier = tag.kind == "clarifier"
    return text.strip() or "Okay."


# ---------------------------------------------------------------- agent


def build_agent() -> Agent[HomarDeps, str]:
    """The agent, without a model (pass one per run or via `Runtime`)."""
    outputs: list[Any] = [TextOutput(on_text)]
    outputs += [
        ToolOutput(fn, name=name, sequential=True) for name, fn in sch.TERMINAL_TOOLS.items()
    ]
    agent: Agent[HomarDeps, str] = Agent(
        output_type=outputs,
        deps_type=HomarDeps,
        instructions=[INSTRUCTIONS, reference_instructions],
        tools=list(sch.PLAIN_TOOLS.values()),
        end_strategy="exhaustive",
        retries=2,
        defer_model_check=True,
        name="homar",
    )
    return agent


@dataclass
class AgentReply:
    """What to post: `text`; jobs created; model requests used; whether it asks a question."""

    text: str
    job_ids: list[int] = field(default_factory=list)
    requests: int = 0
    clarifier: bool = False
    error: str | None = None
    remind_now: str | None = None  # deliver this reminder now (mention the user)
    offline: bool = False  # the built-in offline model answered


@dataclass
class Runtime:
    """An agent, the model to run it with, limits and (optionally) the thread memory."""

    agent: Agent[HomarDeps, str]
    model: Model
    offline: Model
    memory: Memory | None = None
    usage_limits: UsageLimits = field(
        default_factory=lambda: UsageLimits(request_limit=6, total_tokens_limit=60_000)
    )
    model_settings: ModelSettings = field(
        default_factory=lambda: ModelSettings(request_timeout=30.0)
    )
    run_timeout: float = 120.0


def build_runtime(
    model: str | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
    fallback: str | None = None,
    *,
    memory: Memory | None = None,
    request_timeout: float = 30.0,
    request_limit: int = 6,
    total_tokens_limit: int = 60_000,
) -> Runtime:
    """A runtime from settings strings (see `tools.models.build_model`)."""
    from tools.models import build_model
    from tools.offline import offline_model

    return Runtime(
        agent=build_agent(),
        model=build_model(model, base_url, api_key, fallback),
        offline=offline_model(),
        memory=memory,
        usage_limits=UsageLimits(
            request_limit=request_limit, total_tokens_limit=total_tokens_limit
        ),
        model_settings=ModelSettings(request_timeout=request_timeout),
    )


def _patch_history(messages: list[ModelMessage], lines: dict[str, str]) -> list[ModelMessage]:
    """Put our confirmations (job id, ISO time) where the output tools' returns are."""
    for m in messages:
        if isinstance(m, ModelRequest):
            for p in m.parts:
                if isinstance(p, ToolReturnPart) and p.tool_call_id in lines:
                    p.content = lines[p.tool_call_id]
    return messages


def _compose(output: str, st: RunState) -> str:
    body = "\n".join(st.lines) if st.lines else output
    return f"{st.preface}\n{body}".strip() if st.preface else body


async def _run(
    rt: Runtime,
    prompt: str,
    deps: HomarDeps,
    history: list[ModelMessage],
    model: Model,
    usage: RunUsage,
) -> tuple[str, list[ModelMessage]]:
    result = await rt.agent.run(
        prompt,
        deps=deps,
        model=model,
        message_history=history,
        usage_limits=rt.usage_limits,
        model_settings=rt.model_settings,
        usage=usage,
        timeout=rt.run_timeout,
    )
    return result.output, _patch_history(result.all_messages(), deps.state.model_lines)


async def run_agent(
    runtime: Runtime,
    text: str,
    deps: HomarDeps,
    *,
    history: list[ModelMessage] | None = None,
    save: bool = True,
) -> AgentReply:
    """Answer one message in a thread. Never raises.

    `runtime`: from `build_runtime(...)`. `text`: the user's message, or for a fired job
    (`deps.fired=True`, `deps.fired_job_id`, `deps.fired_kind`) the job's command with the
    `[DELAYED_COMMAND]` marker stripped. `deps`: `HomarDeps(user_id, channel_id, engine,
    tz=..., guild_id=..., parent_channel_id=..., now=None, user_name=...)`. `history`:
    overrides the stored thread memory (otherwise loaded from and saved to
    `runtime.memory` under `deps.channel_id`). If the configured model fails (API error,
    timeout, limits), the built-in offline model answers instead.
    """
    deps.state = RunState()
    usage = RunUsage()
    reply = AgentReply(text="")
    try:
        deps.reference_now()
        prompt = fired_prompt(text, deps) if deps.fired else text
        if history is None:
            history = await runtime.memory.load(deps.channel_id) if runtime.memory else []
        try:
            output, messages = await _run(runtime, prompt, deps, history, runtime.model, usage)
        except Exception as exc:  # model down, limits, bad output: fall back offline
            log.warning(
                "model run failed (%s: %s); using the offline model", type(exc).__name__, exc
            )
            reply.error = f"{type(exc).__name__}: {exc}"[:300]
            if deps.state.lines:  # something already happened; report it rather than redo it
                output, messages = "", []
            else:
                deps.state = RunState()
                spare = RunUsage()  # the failed run's usage must not starve the fallback
                try:
                    output, new = await _run(runtime, prompt, deps, [], runtime.offline, spare)
                finally:
                    usage.requests += spare.requests
                reply.offline = True  # only once the offline model has actually answered
                messages = [*history, *new]
        reply.text = _compose(output, deps.state) or "Okay."
        if save and runtime.memory is not None and messages:
            await runtime.memory.save(deps.channel_id, messages)
    except Exception as exc:
        log.exception("agent run failed")
        reply.error = reply.error or f"{type(exc).__name__}: {exc}"[:300]
        reply.text = _compose("", deps.state) or (
            "Sorry — I couldn't handle that just now, so nothing was scheduled. Please try again."
        )
    st = deps.state
    reply.job_ids = list(st.job_ids)
    reply.clarifier = st.clarifier and not st.job_ids
    reply.remind_now = st.remind_now
    reply.requests = usage.requests
    return reply
