"""The pydantic-ai `Agent`: its tools, its output functions, and which tools a turn is shown.

Scheduling calls are output functions, so a simple request costs one model request and
our code writes the confirmation. In a fired run every tool that creates or changes a
job is a function tool instead, so each can wait for the owner's approval.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import re
from typing import Any

from pydantic_ai import (
    Agent,
    DeferredToolRequests,
    FunctionToolset,
    RunContext,
    TextOutput,
    Tool,
    ToolOutput,
)
from pydantic_ai.capabilities import PrepareOutputTools, PrepareTools
from pydantic_ai.messages import ModelMessage
from pydantic_ai.settings import ModelSettings
from pydantic_ai.tools import ToolDefinition

from storage.todos import TodoStore
from tools.agent import profile, todo
from tools.agent import scheduling as sch
from tools.agent.deps import HomarDeps
from tools.agent.offline import asks_zone, is_offline
from tools.agent.prompt import INSTRUCTIONS, fired_instructions, reference_instructions
from tools.agent.reading import PER_TURN, VARIES
from tools.agent.replies import on_text

log = logging.getLogger(__name__)


@functools.cache
def outputs(fired: bool) -> list[Any]:
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
def fired_toolset() -> FunctionToolset[HomarDeps]:
    """In a fired run every tool that creates or changes a job is a function tool, so each
    can wait for the owner's approval (`tools.job_scope`)."""
    extra = [fn for n, fn in sch.TERMINAL_TOOLS.items() if n not in sch.APPROVAL_TOOLS]
    return FunctionToolset(extra, sequential=True)


class HomarAgent(Agent[HomarDeps, str]):
    """pydantic-ai builds a run's `output_type` schema on every run; a fired run's never
    changes, so it is built once (it was a tenth of every fired run's time)."""

    _fired_schema: Any = None

    def _prepare_output_schema(self, output_type: Any) -> Any:
        if output_type is None or output_type is not outputs(fired=True):
            return super()._prepare_output_schema(output_type)
        if self._fired_schema is None:
            self._fired_schema = super()._prepare_output_schema(output_type)
        return self._fired_schema


# Tools a turn needs only when the person's words are about them: a small model reads
# fewer schemas (shorter prompt, fewer wrong picks). Fired runs (the heartbeat) get all.
_TOPICS: dict[str, re.Pattern[str]] = {
    "todo": re.compile(
        r"\b(?:to-?dos?|to\s+do'?s|an?\s+to\s+do|tasks?|list|heartbeat|checklist|done|finished|"
        r"complete[ds]?|tick)\b",
        re.I,
    ),
    # not "every" alone: every repeating request says it, and a tool offered on
    # some turns only re-reads the prompt's tail on a local server (`_when_about`)
    "heartbeat": re.compile(
        r"\b(?:heartbeat|idle|check|work through|to-?dos?|tasks?|checklist|list)\b", re.I
    ),
    "zone": re.compile(
        r"\b(?:time\s*zone|tz|zone|i'?m in|i live in|(?:moved|relocated|shifted) to|local time)\b",
        re.I,
    ),
}


def _when_about(topic: str) -> Any:
    async def prepare(ctx: RunContext[HomarDeps], tool: ToolDefinition) -> ToolDefinition | None:
        d = ctx.deps
        words = d.state.words
        # Offered on some turns only: sent after the tools every turn has (prompt cache).
        shown = dataclasses.replace(tool, metadata={**(tool.metadata or {}), PER_TURN: True})
        if d.fired or words is None or _TOPICS[topic].search(words.text):
            return shown
        if topic == "zone" and asks_zone(words.text):
            # "use Sydney time please", "I'm based in London now", "switch me to X time":
            # asked for (the tool says so when it knows no such zone)
            return shown
        if topic in ("todo", "heartbeat") and (_talked_about(ctx.messages) or await _has_todos(d)):
            return shown  # a thread with a to-do list talks about it ("drop it", "again")
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


# A small model copies what it is shown: every optional argument in a schema tends to come
# back filled in (60-100 tokens of defaults per call, at a few tokens a second on a small
# machine). A person's live turn shows a real model only the arguments its words can use;
# the rest keep their defaults. Calls are still validated against the whole signature and
# repaired against the whole schema (`tools.agent.reading.full_schema`), so an argument the model
# writes anyway counts. Fired runs and the offline model see everything.
#
# Arguments the person's words settle (`tools.agent.words.Words.settle_*`: the lead time of
# an event, an exact delay, a repeat's end, "nag me") are not shown at all while the words
# read the time clearly: the code fills them from the words either way, and a schema that
# changed with every turn's wording made a local server re-read ~400-900 prompt tokens on
# half the requests (its prompt cache reuses only up to the first difference).
_SETTLED_BY_WORDS = frozenset({"minutes_before", "seconds", "until", "max_runs", "follow_up"})
_ARG_CUES: dict[str, re.Pattern[str]] = {
    "escalate": re.compile(r"\b(?:dm|direct message|privately|escalat\w*|ignore)\b", re.I),
}
_NAG_DETAILS = {"follow_up_interval", "max_follow_ups"}  # how often/how many: the words' nag
_PER_TURN_ARGS = {*_ARG_CUES, *_SETTLED_BY_WORDS, *_NAG_DETAILS, "on_duplicate", "audience"}


def _offered(ctx: RunContext[HomarDeps], name: str) -> bool:
    """Whether this turn's words (or the thread) can use an optional argument."""
    words = ctx.deps.state.words
    assert words is not None
    if name in _SETTLED_BY_WORDS:  # only when the words could not say it themselves
        return words.ambiguous or (words.instant is None and words.recurrence is None)
    if name in _NAG_DETAILS:
        return words.nag
    if name == "audience":  # only someone the bot can reach: a mention, #channel, "dm me"
        return words.addresses_someone
    if name == "on_duplicate":  # only once a duplicate was asked about in this thread
        return any("on_duplicate" in str(getattr(p, "content", "")) for p in _recent(ctx))
    cue = _ARG_CUES.get(name)
    return cue is None or bool(cue.search(ctx.prompt if isinstance(ctx.prompt, str) else ""))


def _recent(ctx: RunContext[HomarDeps]) -> list[Any]:
    return [p for m in ctx.messages[-6:] for p in m.parts]


def _plain(prop: Any) -> Any:
    """A property as a model needs it: no default to copy, `X | None` shown as X."""
    if not isinstance(prop, dict):
        return prop
    shown = {k: v for k, v in prop.items() if k not in ("default", "title")}
    options = shown.get("anyOf")
    if isinstance(options, list):
        real = [o for o in options if o != {"type": "null"}]
        if len(real) == 1 and isinstance(real[0], dict):
            shown = {**{k: v for k, v in shown.items() if k != "anyOf"}, **real[0]}
    return shown


async def _shown_tools(
    ctx: RunContext[HomarDeps], tool_defs: list[ToolDefinition]
) -> list[ToolDefinition]:
    """Each tool's schema as this turn shows it (see `_ARG_CUES`)."""
    if is_offline(ctx.model):
        return tool_defs
    trim = not ctx.deps.fired and ctx.deps.state.words is not None
    shown: list[ToolDefinition] = []
    for td in tool_defs:
        schema = td.parameters_json_schema
        props: dict[str, Any] = schema.get("properties") or {}
        if not props:
            shown.append(td)
            continue
        required = set(schema.get("required") or ())
        keep = {
            k: _plain(v) for k, v in props.items() if k in required or not trim or _offered(ctx, k)
        }
        whole = (td.metadata or {}).get("schema", schema)
        varies = sum(1 for k in props if k not in required and k in _PER_TURN_ARGS)
        shown.append(
            dataclasses.replace(
                td,
                parameters_json_schema={**schema, "properties": keep},
                metadata={**(td.metadata or {}), "schema": whole, VARIES: varies if trim else 0},
            )
        )
    return shown


def build_agent() -> Agent[HomarDeps, str]:
    """The agent, without a model (pass one per run or via `AgentKit`)."""
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
        output_type=outputs(fired=False),
        deps_type=HomarDeps,
        instructions=[INSTRUCTIONS, reference_instructions, fired_instructions],
        tools=tools,
        end_strategy="exhaustive",
        retries=2,
        defer_model_check=True,
        name="homar",
        capabilities=[PrepareTools(_shown_tools), PrepareOutputTools(_shown_tools)],
        # Words into a job is a translation: the most likely reading, not a sample (a small
        # local server samples at 0.8 unless told). Reasoning models drop it themselves.
        model_settings=ModelSettings(temperature=0.0),
    )
    return agent
