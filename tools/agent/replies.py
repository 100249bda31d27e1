"""A reply the model wrote as text: a JSON tool call or a seed-000 tag is carried out.

`on_text` is the agent's text output function. A JSON tool call (`textcalls`) runs the
named tool with validated arguments; `[CRON: …]` schedules, `[EXECUTE_NOW: …]` reminds
now; two different schedules, or a trailing question, make a clarifier. Text calls count
only in the model's own reply to a person's live message (`provenance`).
"""

from __future__ import annotations

import inspect
import re
from typing import Any, get_type_hints

from pydantic import TypeAdapter, ValidationError
from pydantic_ai import ApprovalRequired, ModelRetry, RunContext

from tools.agent import provenance
from tools.agent import scheduling as sch
from tools.agent.deps import HomarDeps
from tools.agent.reading import ANY_NAME, UnreadCall, said_call
from tools.agent.textcalls import parse_calls, parse_json_call, parse_tags
from tools.schedule import Cron, Schedule, ScheduleError


async def _dispatch(ctx: RunContext[HomarDeps], name: str, args: dict[str, Any]) -> str:
    """Call one of our tools from a JSON-text tool call, validating the arguments; on a
    person's live message the call is first made what their words say (`said_call`), as a
    native call is."""
    words = ctx.deps.state.words
    if words is not None and not ctx.deps.fired:
        name, args = said_call(name, args, words, list(ctx.messages))
        if name not in sch.ALL_TOOLS:
            raise ModelRetry(f"There is no tool {name!r}.")
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
        sched = Schedule(Cron(cron), deps.zone)
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
    (never on a fired run or an approval resume; see `tools.agent.provenance`)."""
    if not ctx.deps.state.text_calls:
        return False
    return provenance.is_own_reply(list(ctx.messages), key, sch.ALL_TOOLS)


def _written_call(ctx: RunContext[HomarDeps], text: str) -> bool:
    """Whether the text holds a tool call the model wrote itself (any tool name), not one
    repeated from data it was shown (a job's text in a listing stays the job's text)."""
    calls = parse_calls(text, ANY_NAME)
    if not calls:
        return False
    data = provenance.data_texts(list(ctx.messages))
    seen = set().union(*(provenance.calls_in(d, ANY_NAME) for d in data))
    return any(provenance.call_key(c.name, c.args) not in seen for c in calls)


# Tags a small model wraps its plain answer in ("<tool_response>\nI can't help with
# that.\n</tool_response>", the 1.5B): markup of its chat template, not words for a person.
_WRAPPER_TAGS = re.compile(
    r"</?\s*(?:tool_response|tool_result|response|answer|assistant|output)\s*>", re.I
)


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
            try:
                sch._not_a_request(ctx)  # "my timezone is Paris" pings nobody
            except sch.AskWhen as exc:
                st.clarifier = True
                return exc.message
            st.remind_now = tag.message or tag.friendly
            return sch._record(ctx, f"⏰ Reminder: {st.remind_now}")
        return await _tagged_cron(ctx, tag.cron or "", tag.message or tag.friendly)
    if tag.kind == "conflict" and st.text_calls:
        st.clarifier = True
        return (tag.friendly + "\n" if tag.friendly else "") + (
            "I read two different schedules there, so I set nothing. Which one do you want?"
        )
    if st.text_calls and _written_call(ctx, text):
        if st.lines:
            return ""  # a repeat of a call already made: its own line is the reply
        raise UnreadCall("the model answered with a tool call that was not carried out")
    st.clarifier = tag.kind == "clarifier" and st.text_calls
    return _WRAPPER_TAGS.sub("", text).strip() or "Okay."
