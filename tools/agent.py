"""Homar's brain: the pydantic-ai agent, its instructions, and `run_agent`, which never raises.

The Discord layer builds a `Runtime` once (`build_runtime(...)`) and, per message,
calls `await run_agent(runtime, text=..., deps=HomarDeps(...))`. Scheduling calls are
output functions, so a simple request costs one model request and our code writes the
confirmation. Replies written as text are also read for JSON tool calls and seed 000's
`[CRON: …]` / `[EXECUTE_NOW: …]` tags.
"""

from __future__ import annotations

import functools
import inspect
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, get_type_hints

from pydantic import TypeAdapter, ValidationError
from pydantic_ai import (
    Agent,
    ApprovalRequired,
    DeferredToolRequests,
    DeferredToolResults,
    FunctionToolset,
    ModelRetry,
    RunContext,
    TextOutput,
    Tool,
    ToolDenied,
    ToolOutput,
)
from pydantic_ai.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
    repair_messages,
)
from pydantic_ai.models import Model
from pydantic_ai.settings import ModelSettings
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import AbstractToolset
from pydantic_ai.usage import RunUsage, UsageLimits

from storage.todos import TodoStore
from tools import profile, provenance, todo
from tools import scheduling as sch
from tools.actions.recording import ToolCallRecord
from tools.approval import Approvals, PendingApproval, ProposedCall
from tools.errors import UserError
from tools.memory import Memory, trim
from tools.reading import ReadingModel
from tools.schedule import Cron, Schedule, ScheduleError
from tools.scheduling import HomarDeps, RunState
from tools.textcalls import parse_json_call, parse_tags
from tools.words import read_words

__all__ = [
    "AgentReply",
    "HomarDeps",
    "Runtime",
    "build_agent",
    "build_runtime",
    "fired_prompt",
    "resume_approval",
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
- No clear time: ask ONE short question, schedule nothing.
- A meeting/call at a time: that time, minutes_before=5.
- Birthdays: 09:00 that day.
- "Remind me now" or an event under a minute away: schedule_reminder at "now".
- "Don't let me forget"/nag: follow_up=true.
- One job per request unless asked for several.
- Cancel/pause/resume/change jobs by id; call list_scheduled_actions if unsure.
- Commands that act on things need a tool that does it: \
schedule them only if one of your tools fits, and say which; if none fits, say so and \
offer a reminder instead. Never pretend to have done something.
- Tools confirm; keep replies short.
- Without tool calls, end with [CRON: 'm h dom mon dow' / MSG: 'text'] or \
[EXECUTE_NOW: 'text'].\
"""


def reference_instructions(ctx: RunContext[HomarDeps]) -> str:
    """The per-run reference time, the user, and what a fired run may do."""
    d = ctx.deps
    now = d.reference_now()
    text = (
        f"Reference time: {now:%a %Y-%m-%d %H:%M:%S} {d.tz} (UTC{now:%z}) = "
        f"{now.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC. User: {d.user_name or 'user'} ({d.user_id})."
    )
    if d.fired:
        text += (
            f"\nThis message is scheduled job #{d.fired_job_id} ({d.fired_kind or 'job'}) firing "
            "now: do it (call the tools that do it, then say in one short line what happened "
            "or what failed) or write the reminder now; don't schedule it again; at most "
            f"{sch.MAX_FIRED_JOBS} new jobs, and each waits for the owner's approval. Changing "
            "any other job also waits for the owner's approval."
        )
        if d.untrusted_history:
            text += "\n" + d.untrusted_history
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
        listed = await sch.listed_jobs(ctx.deps, sch.job_line)
        return listed or "You have no scheduled jobs."
    return str(await fn(ctx, **kwargs))


async def _tagged_cron(ctx: RunContext[HomarDeps], cron: str, message: str) -> str:
    deps = ctx.deps
    try:
        sched = Schedule(Cron(cron), deps.tz)
    except ScheduleError as exc:  # a malformed tag: say so plainly, schedule nothing
        deps.state.clarifier = True
        return sch._record(
            ctx,
            f"I couldn't read the schedule `{cron}` ({exc.message}), so nothing was "
            "scheduled. Say it in words, e.g. `every weekday at 9`.",
        )
    f = cron.split()
    if f[0].isdigit() and f[1].isdigit() and f[2].isdigit() and f[3].isdigit() and f[4] == "*":
        at = sched.next_after(deps.reference_now())  # a one-time date: the next such day
        if at is None:
            raise ModelRetry("That cron date never comes; give a future date.")
        return await sch.schedule_reminder(ctx, at.isoformat(), message)
    return await sch.schedule_action(ctx, message, "recurring", cron)


_CALL_THE_TOOL = (
    "That needs the user's approval, which only works through a real tool call: "
    "call {name} as a tool (not as text)."
)


async def on_text(ctx: RunContext[HomarDeps], text: str) -> str:
    """Final text: a JSON tool call or tag is carried out; a trailing question is a clarifier."""
    try:
        return await _on_text(ctx, text)
    except ApprovalRequired:
        # Text isn't a tool call pydantic-ai can defer; ask for the real call instead.
        ctx.deps.state.proposed = 0
        call = parse_json_call(text, sch.ALL_TOOLS)
        name = call.name if call is not None else "schedule_action"
        raise ModelRetry(_CALL_THE_TOOL.format(name=name)) from None


def _reads_calls(ctx: RunContext[HomarDeps], key: str) -> bool:
    """Text calls and tags count only in the model's own reply to a person's live message
    (never on a fired run or an approval resume; see `tools.provenance`)."""
    if not ctx.deps.state.text_calls:
        return False
    return provenance.is_own_reply(list(ctx.messages), key, sch.ALL_TOOLS)


async def _on_text(ctx: RunContext[HomarDeps], text: str) -> str:
    st = ctx.deps.state
    call = parse_json_call(text, sch.ALL_TOOLS)
    if call is not None and _reads_calls(ctx, provenance.call_key(call.name, call.args)):
        st.preface = call.before
        return await _dispatch(ctx, call.name, call.args)
    tag = parse_tags(text)
    if tag.kind in ("cron", "now") and _reads_calls(ctx, provenance.tag_key(tag)):
        st.preface = tag.friendly
        if tag.kind == "now":
            st.remind_now = tag.message or tag.friendly
            return sch._record(ctx, f"⏰ Reminder: {st.remind_now}")
        return await _tagged_cron(ctx, tag.cron or "", tag.message or tag.friendly)
    if tag.kind == "conflict" and st.text_calls:
        st.clarifier = True
        return (tag.friendly + "\n" if tag.friendly else "") + (
            "I read two different schedules there, so I set nothing. Which one do you want?"
        )
    st.clarifier = tag.kind == "clarifier" and st.text_calls
    return text.strip() or "Okay."


# ---------------------------------------------------------------- agent


@functools.cache
def _outputs(fired: bool) -> list[Any]:
    """Output functions (one request per simple action), minus the tools that may defer."""
    deferrable = sch.TERMINAL_TOOLS if fired else sch.APPROVAL_TOOLS
    outputs: list[Any] = [TextOutput(on_text)]
    outputs += [
        ToolOutput(fn, name=name, sequential=True)
        for name, fn in sch.TERMINAL_TOOLS.items()
        if name not in deferrable
    ]
    return [*outputs, DeferredToolRequests]


@functools.cache  # building the tools' schemas was an eighth of every fired run
def _fired_toolset() -> FunctionToolset[HomarDeps]:
    """In a fired run every tool that creates or changes a job is a function tool, so each
    can wait for the owner's approval (`tools.job_scope`)."""
    extra = [fn for n, fn in sch.TERMINAL_TOOLS.items() if n not in sch.APPROVAL_TOOLS]
    return FunctionToolset(extra, sequential=True)


class HomarAgent(Agent[HomarDeps, str]):
    """pydantic-ai builds a run's `output_type` schema on every run; a fired run's never
    changes, so it is built once (it was a tenth of every fired run's time)."""

    _fired_schema: Any = None

    def _prepare_output_schema(self, output_type: Any) -> Any:
        if output_type is None or output_type is not _outputs(fired=True):
            return super()._prepare_output_schema(output_type)
        if self._fired_schema is None:
            self._fired_schema = super()._prepare_output_schema(output_type)
        return self._fired_schema


# Tools a turn needs only when the person's words are about them: a small model reads
# fewer schemas (shorter prompt, fewer wrong picks). Fired runs (the heartbeat) get all.
_TOPICS: dict[str, re.Pattern[str]] = {
    "todo": re.compile(
        r"\b(?:to-?dos?|tasks?|list|heartbeat|checklist|done|finished|complete[ds]?|tick)\b", re.I
    ),
    "heartbeat": re.compile(r"\b(?:heartbeat|every|idle|check|work through|list)\b", re.I),
    "zone": re.compile(r"\b(?:time\s*zone|tz|zone|i'?m in|i live in|moved to)\b", re.I),
}


def _when_about(topic: str) -> Any:
    async def prepare(ctx: RunContext[HomarDeps], tool: ToolDefinition) -> ToolDefinition | None:
        d = ctx.deps
        if d.fired or d.words is None or _TOPICS[topic].search(d.words.text):
            return tool
        if topic in ("todo", "heartbeat") and (_talked_about(ctx.messages) or await _has_todos(d)):
            return tool  # a thread with a to-do list talks about it ("drop it", "again")
        return None

    return prepare


_TODO_TOOLS = frozenset(fn.__name__ for fn in todo.TOOLS)


def _talked_about(messages: list[ModelMessage]) -> bool:
    """Whether this thread's recent turns used the to-do tools."""
    for m in messages[-12:]:
        for p in m.parts:
            if getattr(p, "tool_name", None) in _TODO_TOOLS:
                return True
    return False


async def _has_todos(deps: HomarDeps) -> bool:
    try:
        return await TodoStore(deps.engine.store.db).count_pending(deps.channel_id) > 0
    except Exception:  # only a hint for which tools to offer
        log.exception("counting to-dos failed")
        return True


def build_agent() -> Agent[HomarDeps, str]:
    """The agent, without a model (pass one per run or via `Runtime`)."""
    tools: list[Any] = [
        *sch.PLAIN_TOOLS.values(),
        *(sch.TERMINAL_TOOLS[n] for n in sch.APPROVAL_TOOLS),
    ]
    # the thread's to-do list and the heartbeat proposal (seed 003); "my timezone is …"
    tools += [
        Tool(fn, prepare=_when_about("heartbeat" if fn is todo.propose_heartbeat else "todo"))
        for fn in todo.TOOLS
    ]
    tools += [Tool(fn, prepare=_when_about("zone")) for fn in profile.TOOLS]
    agent: Agent[HomarDeps, str] = HomarAgent(
        output_type=_outputs(fired=False),
        deps_type=HomarDeps,
        instructions=[INSTRUCTIONS, reference_instructions],
        tools=tools,
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
    output_tokens: int = 0  # what the model wrote, summed over the run's requests
    clarifier: bool = False
    error: str | None = None
    remind_now: str | None = None  # deliver this reminder now (mention the user)
    offline: bool = False  # the built-in offline model answered
    approval: PendingApproval | None = None  # jobs proposed, waiting for the user's decision
    tool_calls: list[ToolCallRecord] = field(default_factory=list)  # actions this run called


@dataclass
class Runtime:
    """An agent, the model to run it with, limits and (optionally) the thread memory."""

    agent: Agent[HomarDeps, str]
    model: Model
    offline: Model
    memory: Memory | None = None
    approvals: Approvals | None = None  # where pending approvals persist (None: in the reply only)
    usage_limits: UsageLimits = field(
        default_factory=lambda: UsageLimits(request_limit=6, total_tokens_limit=60_000)
    )
    model_settings: ModelSettings = field(
        default_factory=lambda: ModelSettings(request_timeout=30.0)
    )
    run_timeout: float = 120.0
    # Action toolsets (MCP servers, plugins, thread actions) offered to the real model, and
    # what they are called, for the scheduling confirmation.
    toolsets: list[AbstractToolset[Any]] = field(default_factory=list)
    catalogue: Callable[[], dict[str, str]] | None = None


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
    toolsets: list[AbstractToolset[Any]] | None = None,
    catalogue: Callable[[], dict[str, str]] | None = None,
) -> Runtime:
    """A runtime from settings strings (see `tools.models.build_model`); `toolsets` are
    extra actions (e.g. `tools.actions.kit.Actions.toolsets`)."""
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
        toolsets=list(toolsets or []),
        catalogue=catalogue,
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


Output = str | DeferredToolRequests


async def _run(
    rt: Runtime,
    prompt: str | None,
    deps: HomarDeps,
    history: list[ModelMessage],
    model: Model,
    usage: RunUsage,
    decisions: DeferredToolResults | None = None,
) -> tuple[Output, list[ModelMessage]]:
    extra: dict[str, Any] = {}
    toolsets = [] if _is_offline(model) else list(rt.toolsets)  # offline can't call them
    if rt.catalogue is not None and not deps.action_tools:
        deps.action_tools = rt.catalogue()
    if deps.fired:
        extra = {"output_type": _outputs(fired=True)}
        toolsets.append(_fired_toolset())
    if toolsets:
        extra["toolsets"] = toolsets
    if not _is_offline(model):  # repair arguments; text calls only when a person asked
        model = ReadingModel(model, read_text=deps.state.text_calls)
    result = await rt.agent.run(
        prompt,
        deps=deps,
        model=model,
        message_history=history,
        usage_limits=rt.usage_limits,
        model_settings=rt.model_settings,
        usage=usage,
        timeout=rt.run_timeout,
        deferred_tool_results=decisions,
        **extra,
    )
    output: Output = result.output
    return output, _patch_history(result.all_messages(), deps.state.model_lines)


def _context(deps: HomarDeps) -> dict[str, Any]:
    """What rebuilds a run's deps when its approval is decided (maybe after a restart)."""
    return {
        "tz": deps.tz,
        "guild_id": deps.guild_id,
        "parent_channel_id": deps.parent_channel_id,
        "fired": deps.fired,
        "fired_job_id": deps.fired_job_id,
        "fired_kind": deps.fired_kind,
        "user_name": deps.user_name,
        # The approved calls are re-run against the proposal's time, so the job runs the
        # series its preview showed, however long the click took.
        "reference_time": deps.now.isoformat() if deps.now is not None else None,
        # The person's words decided the proposal's times; the decision is checked by them too.
        "words": deps.words.text if deps.words is not None else None,
        "words_at": deps.reference_now().isoformat(),
    }


async def _pending(
    runtime: Runtime, deps: HomarDeps, asked: DeferredToolRequests, messages: list[ModelMessage]
) -> PendingApproval:
    calls = tuple(
        ProposedCall(
            c.tool_call_id,
            c.tool_name,
            c.args_as_dict(),
            str((asked.metadata.get(c.tool_call_id) or {}).get("proposal", c.tool_name)),
        )
        for c in asked.approvals
    )
    history = ModelMessagesTypeAdapter.dump_json(trim(messages, max_turns=12, max_chars=48_000))
    pending = PendingApproval(
        approval_id=0,
        user_id=deps.user_id,
        channel_id=deps.channel_id,
        calls=calls,
        history=history.decode(),
        context=_context(deps),
    )
    if runtime.approvals is not None:
        pending = await runtime.approvals.open(pending, now=deps.engine.clock())
    return pending


def _fresh_state(deps: HomarDeps) -> RunState:
    """A run's state; only a person's live message lets text tool calls be read."""
    return RunState(text_calls=not deps.fired)


def _is_offline(model: Model) -> bool:
    return getattr(model, "model_name", "") == "homar-offline"


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
    deps.state = _fresh_state(deps)
    usage = RunUsage()
    reply = AgentReply(text="")
    try:
        now = deps.reference_now()
        prompt = fired_prompt(text, deps) if deps.fired else text
        # The person's live message is the authority on when (never a fired job's command).
        deps.words = None if deps.fired else read_words(text, now, deps.tz)
        if history is None:
            history = await runtime.memory.load(deps.channel_id) if runtime.memory else []
        # A proposal still waiting for a click leaves calls open; close them for this new turn
        # (the approval keeps its own copy of the history to resume from).
        history = repair_messages(history)
        # A fired run is nobody's live message: the thread's past turns (other people's
        # words among them) reach the model only as delimited, untrusted text.
        given = history
        if deps.fired:
            deps.untrusted_history = provenance.untrusted_transcript(history)
            given = []
        try:
            output, messages = await _run(runtime, prompt, deps, given, runtime.model, usage)
            if deps.fired and messages:
                messages = [*history, *messages]
        except Exception as exc:  # model down, limits, bad output: fall back offline
            log.warning(
                "model run failed (%s: %s); using the offline model", type(exc).__name__, exc
            )
            reply.error = f"{type(exc).__name__}: {exc}"[:300]
            # Something already happened (a job, an action); report it rather than redo it.
            if deps.state.lines or deps.state.tool_calls:
                output, messages = "", []
            else:
                deps.state = _fresh_state(deps)
                spare = RunUsage()  # the failed run's usage must not starve the fallback
                try:
                    output, new = await _run(runtime, prompt, deps, [], runtime.offline, spare)
                finally:
                    usage.requests += spare.requests
                    usage.output_tokens += spare.output_tokens
                reply.offline = True  # only once the offline model has actually answered
                messages = [*history, *new]
        await _finish(runtime, deps, reply, output, messages, save=save)
    except UserError as exc:  # e.g. an unknown stored time zone: say what to fix
        reply.error = reply.error or exc.message
        reply.text = _compose("", deps.state) or exc.message
    except Exception as exc:
        log.exception("agent run failed")
        reply.error = reply.error or f"{type(exc).__name__}: {exc}"[:300]
        reply.text = _compose("", deps.state) or (
            "Sorry — I couldn't handle that just now, so nothing was scheduled. Please try again."
        )
    return _summed(reply, deps.state, usage)


async def _finish(
    runtime: Runtime,
    deps: HomarDeps,
    reply: AgentReply,
    output: Output,
    messages: list[ModelMessage],
    *,
    save: bool,
) -> None:
    """Compose the reply; a run that stopped on proposals becomes a pending approval."""
    if isinstance(output, DeferredToolRequests) and output.approvals:
        reply.approval = await _pending(runtime, deps, output, messages)
        reply.text = _compose("", deps.state) or reply.approval.message()
    else:
        reply.text = _compose(output if isinstance(output, str) else "", deps.state) or "Okay."
    if save and runtime.memory is not None and messages:
        await runtime.memory.save(deps.channel_id, messages)


def _summed(reply: AgentReply, st: RunState, usage: RunUsage) -> AgentReply:
    reply.job_ids = list(st.job_ids)
    reply.clarifier = st.clarifier and not st.job_ids and reply.approval is None
    reply.remind_now = st.remind_now
    reply.requests = usage.requests
    reply.output_tokens = usage.output_tokens
    reply.tool_calls = list(st.tool_calls)
    return reply


DENIED = "The user pressed Deny, so nothing was created. Acknowledge it in one short sentence."
DENIED_REPLY = "Okay — I won't set that up; nothing was scheduled."


def _open_calls(messages: list[ModelMessage], ids: set[str]) -> bool:
    """Whether the history still ends with exactly these calls unanswered."""
    if not messages or not isinstance(messages[-1], ModelResponse):
        return False
    open_ids = {p.tool_call_id for p in messages[-1].parts if isinstance(p, ToolCallPart)}
    return ids <= open_ids


async def resume_approval(
    runtime: Runtime, approval: PendingApproval, approved: bool, deps: HomarDeps
) -> AgentReply:
    """Feed a decision (Approve, Deny, or expiry as Deny) back to the agent. Never raises.

    Approve runs the deferred tools (creating the jobs, with every guardrail checked again)
    and the agent confirms; Deny tells the agent, which acknowledges. The stored thread
    history is continued if it still ends with the proposal; if people talked since, the
    decision is appended to it as a short turn instead.
    """
    deps.state = RunState()
    usage = RunUsage()
    reply = AgentReply(text="")
    ids = {c.tool_call_id for c in approval.calls}
    try:
        proposed_at = approval.context.get("reference_time")
        if isinstance(proposed_at, str):
            deps.now = datetime.fromisoformat(proposed_at)
        deps.reference_now()
        said, said_at = approval.context.get("words"), approval.context.get("words_at")
        if said and said_at and not deps.fired:
            deps.words = read_words(str(said), datetime.fromisoformat(str(said_at)), deps.tz)
        current = await runtime.memory.load(deps.channel_id) if runtime.memory else []
        continued = _open_calls(current, ids)
        history = (
            current
            if continued
            else list(ModelMessagesTypeAdapter.validate_json(approval.history or "[]"))
        )
        decisions = DeferredToolResults(
            approvals={i: (True if approved else ToolDenied(DENIED)) for i in ids}
        )
        earlier: list[ModelMessage] = []
        if deps.fired:  # as in the fired run itself: earlier turns only as untrusted text
            run_part = provenance.current_run(history)
            earlier = history[: len(history) - len(run_part)]
            deps.untrusted_history = provenance.untrusted_transcript(earlier)
            history = run_part
        model = runtime.model
        try:
            output, messages = await _run(runtime, None, deps, history, model, usage, decisions)
        except Exception as exc:
            log.warning("model failed resuming approval (%s); using the offline model", exc)
            reply.error = f"{type(exc).__name__}: {exc}"[:300]
            if deps.state.lines:
                output, messages = "", []
            else:
                deps.state, model = RunState(), runtime.offline
                reply.offline = True
                output, messages = await _run(runtime, None, deps, history, model, usage, decisions)
        if not approved and (_is_offline(model) or not isinstance(output, str)):
            output = DENIED_REPLY
        if not continued and messages:
            verdict = "approved" if approved else "denied"
            note = UserPromptPart(f"[approval #{approval.approval_id} {verdict}]")
            messages = [*current, ModelRequest(parts=[note])]
            await _finish(runtime, deps, reply, output, [], save=False)
            messages.append(ModelResponse(parts=[TextPart(reply.text)]))
            if runtime.memory is not None:
                await runtime.memory.save(deps.channel_id, messages)
        else:
            messages = [*earlier, *messages] if messages else messages
            await _finish(runtime, deps, reply, output, messages, save=True)
    except Exception as exc:
        log.exception("resuming approval failed")
        reply.error = reply.error or f"{type(exc).__name__}: {exc}"[:300]
        reply.text = _compose("", deps.state) or (
            "Sorry — I couldn't finish that just now; nothing was scheduled. Please ask again."
        )
    return _summed(reply, deps.state, usage)


# ---------------------------------------------------------------- smart acknowledgement

ACK_INSTRUCTIONS = (
    "You decide whether a person's chat message acknowledges a reminder they were sent "
    "(they did it, will do it, saw it, or dismiss it). Answer true or false."
)


async def acknowledges(model: Model, reminder: str, reply: str) -> bool:
    """Smart mode: does `reply` acknowledge `reminder`? Offline or failing → yes (simple)."""
    if getattr(model, "model_name", "") == "homar-offline":
        return True
    agent = Agent(model, output_type=bool, instructions=ACK_INSTRUCTIONS)
    try:
        result = await agent.run(
            f"Reminder: {reminder}\nTheir message: {reply}",
            usage_limits=UsageLimits(request_limit=2),
        )
    except Exception as exc:  # the model is only a refinement; never lose the message
        log.warning("acknowledgement check failed (%s); treating the reply as an answer", exc)
        return True
    return bool(result.output)
