"""Running the agent for one message or one approval decision; `run_agent` never raises.

The bot builds an `AgentKit` once (`build_agent_kit(...)`) and, per message,
calls `await run_agent(runtime, text=..., deps=HomarDeps(...))`; an Approve/Deny click
calls `resume_approval`. When the configured model fails, `_answer` is the one place the
built-in offline model takes over.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, ToolDenied
from pydantic_ai.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
    repair_messages,
)
from pydantic_ai.models import Model
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.settings import ModelSettings
from pydantic_ai.toolsets import AbstractToolset
from pydantic_ai.usage import RunUsage, UsageLimits

from tools.actions.recording import ToolCallRecord
from tools.agent import provenance
from tools.agent.build import build_agent, fired_toolset, outputs
from tools.agent.deps import HomarDeps, RunState
from tools.agent.offline import (
    HELP_WITH_MODEL,
    NO_TASK,
    answered_as,
    asks_for_help,
    is_offline,
    reads_command,
    reads_reminder,
    settles_answer,
)
from tools.agent.reading import ReadingModel
from tools.agent.words import asks_to_be_reminded, read_words, what_of
from tools.approval import Approvals, PendingApproval, ProposedCall
from tools.errors import UserError
from tools.jobs.marker import fired_prompt
from tools.memory import Memory, trim

log = logging.getLogger(__name__)


@dataclass
class AgentReply:
    """What to post: `text`; jobs created; model requests used; whether it asks a question."""

    text: str
    job_ids: list[int] = field(default_factory=list)
    requests: int = 0
    # of those, sent to the configured model (not answered by the built-in offline reading:
    # its fallback, or a turn code settles — `settles_answer`, `reads_command`)
    model_requests: int = 0
    output_tokens: int = 0  # what the model wrote, summed over the run's requests
    clarifier: bool = False
    error: str | None = None
    remind_now: str | None = None  # deliver this reminder now (mention the user)
    offline: bool = False  # the built-in offline model answered
    approval: PendingApproval | None = None  # jobs proposed, waiting for the user's decision
    tool_calls: list[ToolCallRecord] = field(default_factory=list)  # actions this run called


@dataclass(frozen=True)
class AgentKit:
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
    # A one-off reminder for the person that code reads fully is made without a model
    # request (`offline.reads_reminder`); the bot turns this on (PLAIN_REMINDERS_IN_CODE).
    plain_reminders_in_code: bool = False
    # Action toolsets (MCP servers, plugins, thread actions) offered to the real model, and
    # what they are called, for the scheduling confirmation.
    toolsets: list[AbstractToolset[Any]] = field(default_factory=list)
    catalogue: Callable[[], dict[str, str]] | None = None

    def model_in_force(self) -> Model:
        """The model a run starts with: the one `agent.override(model=...)` puts in force
        (that is how tests swap models), else `model`.

        A runtime switched to its offline model (`replace(rt, model=rt.offline)`, over the
        daily cap) stays offline under an override: that switch decides about this run. The
        override is read here and nowhere else; pydantic-ai keeps it only in a private context
        variable (2.68), and `tests/tools/test_override.py` fails if that ever moves.
        """
        if self.model is self.offline:
            return self.offline
        override = self.agent._override_model.get()
        return (
            override.value
            if override is not None and isinstance(override.value, Model)
            else self.model
        )


def build_agent_kit(
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
    plain_reminders_in_code: bool = False,
) -> AgentKit:
    """An agent kit from settings strings (see `tools.models.build_model`); `toolsets` are
    extra actions (e.g. `tools.actions.kit.Actions.toolsets`)."""
    from tools.agent.offline import offline_model
    from tools.models import build_model

    return AgentKit(
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
        plain_reminders_in_code=plain_reminders_in_code,
    )


def _patch_history(messages: list[ModelMessage], lines: dict[str, str]) -> list[ModelMessage]:
    """Put our confirmations (job id, ISO time) where the output tools' returns are."""
    for m in messages:
        if isinstance(m, ModelRequest):
            for p in m.parts:
                if isinstance(p, ToolReturnPart) and p.tool_call_id in lines:
                    p.content = lines[p.tool_call_id]
    return messages


def _said_last(messages: list[ModelMessage], text: str) -> None:
    """The run's closing words in the history are what the person was shown (our tools'
    lines, e.g. "What should I remind you about?"), not a model's text after them that the
    reply left out ("I will remind you tomorrow at 9"): the next message answers ours."""
    last = messages[-1] if messages else None
    if isinstance(last, ModelResponse) and any(isinstance(p, TextPart) for p in last.parts):
        kept = [p for p in last.parts if not isinstance(p, TextPart)]
        last.parts = [*kept, TextPart(text)]


def _compose(output: str, st: RunState) -> str:
    body = "\n".join(st.lines) if st.lines else output
    return f"{st.preface}\n{body}".strip() if st.preface else body


Output = str | DeferredToolRequests


def reply_budget(prompt: str | None) -> int:
    """The most output tokens one model request may write: room for a few tool calls that
    quote the whole prompt (~4 characters a token) and a short answer. Without a cap a small
    local model that starts repeating itself writes until the server's context is full —
    minutes of a shared CPU — before anyone sees an answer."""
    return 1024 + len(prompt or "") // 2


async def _run(
    rt: AgentKit,
    prompt: str | None,
    deps: HomarDeps,
    history: list[ModelMessage],
    model: Model,
    usage: RunUsage,
    decisions: DeferredToolResults | None = None,
) -> tuple[Output, list[ModelMessage]]:
    extra: dict[str, Any] = {}
    toolsets = [] if is_offline(model) else list(rt.toolsets)  # offline can't call them
    if rt.catalogue is not None and not deps.state.action_tools:
        deps.state.action_tools = rt.catalogue()
    if deps.fired:
        extra = {"output_type": outputs(fired=True)}
        toolsets.append(fired_toolset())
    if toolsets:
        extra["toolsets"] = toolsets
    if not is_offline(model):  # repair arguments; text calls only when a person asked
        words = None if deps.fired else deps.state.words  # a job's text decides nothing
        model = ReadingModel(model, read_text=deps.state.text_calls, words=words)
    # An override beats `run(model=...)`, so the model chosen here (the fallback's offline
    # one, the reading wrapper) runs under an inner override of its own, which wins.
    with rt.agent.override(model=model):
        result = await rt.agent.run(
            prompt,
            deps=deps,
            model=model,
            message_history=history,
            usage_limits=rt.usage_limits,
            model_settings={"max_tokens": reply_budget(prompt), **rt.model_settings},
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
        "tz": deps.zone,
        "guild_id": deps.guild_id,
        "parent_channel_id": deps.parent_channel_id,
        "fired": deps.fired,
        "fired_job_id": deps.fired_job_id,
        "fired_kind": deps.fired_kind,
        "user_name": deps.user_name,
        # The approved calls are re-run against the proposal's time, so the job runs the
        # series its preview showed, however long the click took.
        "reference_time": deps.reference_instant().isoformat(),
        # The person's words decided the proposal's times; the decision is checked by them too.
        "words": deps.state.words.text if deps.state.words is not None else None,
        "words_at": deps.reference_now().isoformat(),
    }


async def _pending(
    runtime: AgentKit, deps: HomarDeps, asked: DeferredToolRequests, messages: list[ModelMessage]
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


async def _answer(
    rt: AgentKit,
    prompt: str | None,
    deps: HomarDeps,
    reply: AgentReply,
    usage: RunUsage,
    *,
    history: list[ModelMessage],
    offline_history: list[ModelMessage],
    decisions: DeferredToolResults | None = None,
) -> tuple[Output, list[ModelMessage], bool]:
    """Run the configured model; if it fails (API error, timeout, limits, bad output), the
    built-in offline model answers instead — the one fallback path for every kind of run.

    Returns the output, the run's messages and whether the offline model answered. A run
    that already did something (a job, an action) is reported, never redone offline.
    """
    model, before = rt.model_in_force(), usage.requests
    try:
        output, messages = await _run(rt, prompt, deps, history, model, usage, decisions)
        return output, messages, False
    except Exception as exc:
        log.warning("model run failed (%s: %s); using the offline model", type(exc).__name__, exc)
        reply.error = f"{type(exc).__name__}: {exc}"[:300]
    finally:
        if not is_offline(model):
            reply.model_requests += usage.requests - before
    if deps.state.lines or deps.state.tool_calls:
        return "", [], False
    output, messages = await _run_offline(rt, prompt, deps, usage, offline_history, decisions)
    reply.offline = True  # only once the offline model has actually answered
    return output, messages, True


async def _run_offline(
    rt: AgentKit,
    prompt: str | None,
    deps: HomarDeps,
    usage: RunUsage,
    history: list[ModelMessage],
    decisions: DeferredToolResults | None = None,
) -> tuple[Output, list[ModelMessage]]:
    """The offline model's run from a fresh state, its usage added to `usage` (a run of
    its own: the model's usage must not starve it)."""
    deps.state.restart()
    spare = RunUsage()
    try:
        return await _run(rt, prompt, deps, history, rt.offline, spare, decisions)
    finally:
        usage.requests += spare.requests
        usage.output_tokens += spare.output_tokens


async def run_agent(
    runtime: AgentKit,
    text: str,
    deps: HomarDeps,
    *,
    history: list[ModelMessage] | None = None,
    save: bool = True,
) -> AgentReply:
    """Answer one message in a thread. Never raises.

    `runtime`: from `build_agent_kit(...)`. `text`: the user's message, or for a fired job
    (`deps.fired=True`, `deps.fired_job_id`, `deps.fired_kind`) the job's command with the
    `[DELAYED_COMMAND]` marker stripped. `deps`: `HomarDeps(user_id, channel_id, engine,
    tz=..., guild_id=..., parent_channel_id=..., now=None, user_name=...)`. `history`:
    overrides the stored thread memory (otherwise loaded from and saved to
    `runtime.memory` under `deps.channel_id`). If the configured model fails (API error,
    timeout, limits), the built-in offline model answers instead.
    """
    # A new state for this run; text calls: a person's live message only.
    deps = replace(deps, state=RunState(text_calls=not deps.fired))
    usage = RunUsage()
    reply = AgentReply(text="")
    try:
        now = deps.reference_now()
        prompt = fired_prompt(text, deps.fired_job_id, deps.fired_kind) if deps.fired else text
        # The person's live message is the authority on when (never a fired job's command).
        deps.state.words = None if deps.fired else read_words(text, now, deps.zone)
        if not deps.fired and asks_for_help(text) and not is_offline(runtime.model_in_force()):
            reply.text = HELP_WITH_MODEL  # the same answer every time, no model request
            return reply
        if history is None:
            history = await runtime.memory.load(deps.channel_id) if runtime.memory else []
        # A proposal still waiting for a click leaves calls open; close them for this new turn
        # (the approval keeps its own copy of the history to resume from).
        history = repair_messages(history)
        # A fired run is nobody's live message: the thread's past turns (other people's
        # words among them) reach the model only as delimited, untrusted text.
        given = history
        if deps.fired:
            deps.state.untrusted_history = provenance.untrusted_transcript(history)
            given = []
        if not deps.fired and (
            settles_answer(history, text, now, deps.zone)
            or reads_command(text)
            or (runtime.plain_reminders_in_code and reads_reminder(text, now, deps.zone))
        ):
            # the answer to our own question, a command (a change to a job, the zone) or a
            # one-off reminder, fully read: code settles it (the offline model's reading)
            runtime = replace(runtime, model=runtime.offline)
            whole = answered_as(history, text)
            if whole is not None:  # "pm" to "4:30 in the morning or in the afternoon?"
                deps.state.words = read_words(whole, now, deps.zone)
        output, messages, offline = await _answer(
            runtime, prompt, deps, reply, usage, history=given, offline_history=[]
        )
        if not offline and not deps.fired and _left_undone(deps, output):
            # "tomorrow at 9 summarize this thread": the 1.5B summarised it now. A request
            # for later the model answered at once, without asking anything, is read by the
            # offline model; its job (if it makes one) is the answer.
            done = await _offline_instead(runtime, prompt, deps, usage)
            if done is not None:
                (output, messages), offline = done, True
                reply.offline = True
        elif not offline and not deps.fired and _left_unasked(deps, output):
            # "remind me thursday or friday to …, whichever is quieter": the 1.5B explained
            # its tools' time formats instead of asking which; the question code asks is
            # the answer
            asked = await _offline_question(runtime, prompt, deps, usage)
            if asked is not None:
                (output, messages), offline = asked, True
                reply.offline = True
        if messages and (deps.fired or offline):
            messages = [*history, *messages]
        await _finish(runtime, deps, reply, output, messages, save=save)
    except UserError as exc:  # e.g. an unknown stored time zone: say what to fix
        reply.error = reply.error or exc.message
        reply.text = _compose("", deps.state) or exc.message
    except Exception as exc:
        log.exception("agent run failed")
        _sorry(
            reply, deps, exc, "I couldn't handle that just now, so nothing was scheduled.", "try"
        )
    return _summed(reply, deps.state, usage)


def _left_undone(deps: HomarDeps, output: Output) -> bool:
    """Whether the model answered a clear request for later (one time, a task) with text
    alone: nothing scheduled, nothing done, no question asked."""
    words = deps.state.words
    if not _only_said(deps, output) or words is None:
        return False
    if words.instant is None and words.recurrence is None:
        return False
    if words.ambiguous or words.rolled or words.half_day or words.statement:
        return False
    what = what_of(words.rest).lower().strip(" ?!.,")
    return bool(what) and what not in NO_TASK


def _left_unasked(deps: HomarDeps, output: Output) -> bool:
    """Whether the model answered a request to be reminded whose time is unclear (none
    read, or two) with text alone: nothing done, nothing asked."""
    words = deps.state.words
    if not _only_said(deps, output) or words is None or not asks_to_be_reminded(words.text):
        return False
    return (words.ambiguous or words.timeless) and not words.statement


def _only_said(deps: HomarDeps, output: Output) -> bool:
    """Whether the run's answer is text alone: nothing done, scheduled or asked."""
    st = deps.state
    if (st.lines and not st.misdirected) or st.job_ids or st.tool_calls or st.proposed:
        return False
    if st.clarifier or st.remind_now:
        return False
    return isinstance(output, str) and not output.rstrip(" *_").endswith("?")


async def _offline_question(
    rt: AgentKit, prompt: str | None, deps: HomarDeps, usage: RunUsage
) -> tuple[Output, list[ModelMessage]] | None:
    """The offline model's answer when it is a question and nothing else; None, and
    nothing changed, when it is not."""
    output, messages = await _run_offline(rt, prompt, deps, usage, [])
    st = deps.state
    if isinstance(output, str) and output.rstrip(" *_").endswith("?") and not st.job_ids:
        return output, messages
    st.restart()
    return None


async def _offline_instead(
    rt: AgentKit, prompt: str | None, deps: HomarDeps, usage: RunUsage
) -> tuple[Output, list[ModelMessage]] | None:
    """The offline model's answer when it schedules something (a job, or a proposal
    waiting for approval); None, and nothing changed, when it does not."""
    output, messages = await _run_offline(rt, prompt, deps, usage, [])
    if deps.state.job_ids or isinstance(output, DeferredToolRequests):
        return output, messages
    deps.state.restart()
    return None


def _sorry(reply: AgentReply, deps: HomarDeps, exc: Exception, what: str, again: str) -> None:
    """A run that failed on our side: report what it did already, else apologise."""
    reply.error = reply.error or f"{type(exc).__name__}: {exc}"[:300]
    reply.text = _compose("", deps.state) or f"Sorry — {what} Please {again} again."


async def _finish(
    runtime: AgentKit,
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
        if deps.state.lines:
            _said_last(messages, reply.text)
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


def _close(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The end of an approved live request: the tools' own lines are the reply."""
    last = messages[-1] if messages else None
    failed = isinstance(last, ModelRequest) and any(
        isinstance(p, RetryPromptPart) for p in last.parts
    )
    return ModelResponse(parts=[TextPart(APPROVED_FAILED if failed else "Done.")])


APPROVED_FAILED = (
    "Sorry — I couldn't set that up after all; nothing was scheduled. Please ask again."
)
_CLOSING = FunctionModel(_close, model_name="homar-closing")


async def resume_approval(
    runtime: AgentKit, approval: PendingApproval, approved: bool, deps: HomarDeps
) -> AgentReply:
    """Feed a decision (Approve, Deny, or expiry as Deny) back to the agent. Never raises.

    Approve runs the deferred tools (creating the jobs, with every guardrail checked again)
    and the agent confirms; Deny tells the agent, which acknowledges. The stored thread
    history is continued if it still ends with the proposal; if people talked since, the
    decision is appended to it as a short turn instead.
    """
    deps = replace(deps, state=RunState())
    usage = RunUsage()
    reply = AgentReply(text="")
    ids = {c.tool_call_id for c in approval.calls}
    try:
        proposed_at = approval.context.get("reference_time")
        if isinstance(proposed_at, str):
            deps = replace(deps, now=datetime.fromisoformat(proposed_at))
        deps.reference_now()
        said, said_at = approval.context.get("words"), approval.context.get("words_at")
        if said and said_at and not deps.fired:
            said_when = datetime.fromisoformat(str(said_at))
            deps.state.words = read_words(str(said), said_when, deps.zone)
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
            deps.state.untrusted_history = provenance.untrusted_transcript(earlier)
            history = run_part
        if approved and not deps.fired:
            # A person approving their own live request: the approved tools write the
            # confirmation, so no model is asked to (a whole request on a small machine). A
            # fired run's approval goes back to the model, which may have more to do.
            output, messages = await _run(
                runtime, None, deps, history, _CLOSING, RunUsage(), decisions
            )
            offline = False
        else:
            output, messages, offline = await _answer(
                runtime,
                None,
                deps,
                reply,
                usage,
                history=history,
                offline_history=history,
                decisions=decisions,
            )
        if not approved and (
            offline or is_offline(runtime.model_in_force()) or not isinstance(output, str)
        ):
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
        _sorry(reply, deps, exc, "I couldn't finish that just now; nothing was scheduled.", "ask")
    return _summed(reply, deps.state, usage)
