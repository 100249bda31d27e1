"""What a model replied, read the way it was meant: text tool calls and repaired arguments.

Small local models often write their tool calls as text (`<tool_call>…</tool_call>`,
`<tools><function name=… arguments='…'/></tools>`, `[TOOL_CALLS] […]`, fenced JSON, …)
and get arguments slightly wrong (a number as a string, "13:66", `"yes"` for a boolean).
`ReadingModel` wraps the configured model for a run: each response's tool calls get their
arguments repaired against the tool's schema, and — when the run answers a person's
live message — a text reply holding tool calls becomes those calls, so they run exactly
like native ones (a repeating job still waits for approval). A repeating seed-000 tag
(`[CRON: '0 9 * * 1-5' / MSG: '…']`) becomes a `schedule_action` call the same way.
Repairs happen here, in code: the model is never asked again for what is clearly meant.
On a person's live message the person's words then decide whether the job repeats
(`tools.agent.words.Words.settle_kind`): the call becomes the one the words say.

On the way in, the per-run reference line (the time now, who asks) leaves the system
instructions for the end of the person's message: the
static instructions and tool schemas then form a prefix that a local server's prompt
cache (llama.cpp) reuses across requests and threads instead of re-reading it each time.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any, cast

from pydantic_ai.messages import (
    InstructionPart,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ModelResponsePart,
    TextPart,
    ToolCallPart,
    UserPromptPart,
)
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.models.wrapper import WrapperModel
from pydantic_ai.settings import ModelSettings
from pydantic_ai.tools import ToolDefinition

from tools.agent import provenance
from tools.agent.prompt import ABOUT_JOBS, REFERENCE_HEAD, carried
from tools.agent.scheduling import PLAIN_TOOLS
from tools.agent.textcalls import TextCall, parse_calls, parse_tags
from tools.agent.words import QUOTED, Words, dialogue, read_words, said_lately, what_of
from tools.schedule import Cron, ScheduleError

__all__ = ["ReadingModel", "read_response", "repair_args", "repair_time"]

_TRUE = {"true", "yes", "y", "1", "on"}
_FALSE = {"false", "no", "n", "0", "off", "none", ""}
_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")
# A clock time whose fields overflow ("13:66", "2026-11-23T13:66:00"): carried, not refused.
_CLOCK = re.compile(
    r"(?P<date>\d{4}-\d{2}-\d{2})?(?P<sep>[T ])?(?P<h>\d{1,2}):(?P<m>\d{2})(?::(?P<s>\d{2}))?"
)


# The offset our reference line shows after a zone name ("… Europe/Berlin (UTC+0100)"): a
# small model copies the whole line into a time argument, and the zone alone says it.
_SHOWN_OFFSET = re.compile(
    r"(\b(?:UTC|[A-Z][A-Za-z_]+(?:/[A-Za-z_+-]+){1,2}))\s*\(UTC[+-]\d{2}:?\d{2}\)\s*$"
)


def repair_time(text: str) -> str:
    """Carry overflowing minutes/seconds/hours into the next unit ("13:66" → "14:06"), and
    drop the offset our reference line shows after a zone name."""
    text = _SHOWN_OFFSET.sub(r"\1", text)
    m = _CLOCK.match(text.strip())
    # Only a time or ISO date-time on its own: "daily@09:60" is a schedule string to refuse.
    if m is None or not re.fullmatch(r"\s*(?:Z|[+-]\d{2}:?\d{2})?\s*", text.strip()[m.end() :]):
        return text
    h, mi, sec = int(m.group("h")), int(m.group("m")), int(m.group("s") or 0)
    if h < 24 and mi < 60 and sec < 60:
        return text
    span = timedelta(hours=h, minutes=mi, seconds=sec)
    if m.group("date"):
        try:
            day = datetime.fromisoformat(m.group("date"))
        except ValueError:
            return text
        at = day + span
        fixed = at.strftime("%Y-%m-%d") + (m.group("sep") or "T") + at.strftime("%H:%M:%S")
    else:
        if span >= timedelta(days=1):
            return text  # "25:00" without a date has no day to carry into
        total = int(span.total_seconds())
        fixed = f"{total // 3600:02d}:{total % 3600 // 60:02d}"
        if m.group("s"):
            fixed += f":{total % 60:02d}"
    return fixed + text.strip()[m.end() :]


def _coerce(value: Any, prop: dict[str, Any]) -> Any:
    kinds = prop.get("type")
    if kinds is None and "anyOf" in prop:
        kinds = [p.get("type") for p in prop["anyOf"] if isinstance(p, dict)]
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if value is None:
        return None
    if "integer" in kinds and not isinstance(value, bool):
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str):
            n = _NUMBER.search(value)
            if n is not None:
                return round(float(n.group()))
    if "boolean" in kinds and isinstance(value, str | int) and not isinstance(value, bool):
        low = str(value).strip().lower()
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
    if "string" in kinds:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return str(value)
        if isinstance(value, str):
            return repair_time(value)
    if "enum" in prop and isinstance(value, str):
        low = value.strip().lower()
        for option in prop["enum"]:
            if isinstance(option, str) and option.lower() == low:
                return option
    return value


def repair_args(args: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """Arguments fitted to a tool's JSON schema: unknown keys and nulls dropped, kinds fixed."""
    props: dict[str, Any] = schema.get("properties") or {}
    if not props:
        return args
    required = set(schema.get("required") or ())
    out: dict[str, Any] = {}
    for key, value in args.items():
        prop = props.get(key)
        if not isinstance(prop, dict):
            continue  # a made-up argument would fail validation; drop it
        if value is None and key not in required:
            continue  # "null" for an optional argument means "the default"
        out[key] = _coerce(value, prop)
    return out


def _tools(params: ModelRequestParameters) -> dict[str, ToolDefinition]:
    return {t.name: t for t in [*params.function_tools, *params.output_tools]}


def full_schema(tool: ToolDefinition) -> dict[str, Any]:
    """A tool's whole argument schema: a turn may show the model only part of it (the
    arguments its words can use, `tools.agent`), but an argument written anyway is kept."""
    whole = (tool.metadata or {}).get("schema")
    return whole if isinstance(whole, dict) else tool.parameters_json_schema


def _repeating(cron: str) -> bool:
    """A cron naming one date (all of minute, hour, day and month fixed) is a one-time job."""
    f = cron.split()
    return len(f) == 5 and not (all(x.isdigit() for x in f[:4]) and f[4] == "*")


class _AnyName(Collection[str]):
    """Every name: to read calls a small model wrote with a tool name it made up."""

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str)

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


ANY_NAME = _AnyName()


def _renamed(call: TextCall, tools: dict[str, ToolDefinition]) -> TextCall | None:
    """A call under a made-up name ("set_reminder" with reminder_time and message) as the
    one tool whose arguments are exactly those it needs and may take; None when none or
    several fit ("cancel_job" with task_id fits cancel, pause and resume)."""
    keys = set(call.args)
    fits = []
    for name, td in tools.items():
        schema = full_schema(td)
        props = set(schema.get("properties") or ())
        if keys and keys <= props and set(schema.get("required") or ()) <= keys:
            fits.append(name)
    return TextCall(fits[0], call.args, call.before) if len(fits) == 1 else None


def _text_calls(
    text: str, tools: dict[str, ToolDefinition], messages: list[ModelMessage]
) -> list[ToolCallPart]:
    """Calls written in the reply, only if they are the model's own answer to the person
    (not repeated from a tool result, the thread or a job: see `tools.agent.provenance`)."""
    calls = parse_calls(text, tools) or [
        c for c in (_renamed(c, tools) for c in parse_calls(text, ANY_NAME)) if c is not None
    ]
    if any(c.name in PLAIN_TOOLS for c in calls):
        return []  # the text path answers a listing in the same request
    if calls:
        if not all(
            provenance.is_own_reply(messages, provenance.call_key(c.name, c.args), tools)
            for c in calls
        ):
            return []
        return [ToolCallPart(c.name, c.args) for c in calls]
    tag = parse_tags(text)
    if not provenance.is_own_reply(messages, provenance.tag_key(tag), tools):
        return []
    if tag.kind == "cron" and tag.cron and _repeating(tag.cron) and "schedule_action" in tools:
        try:
            Cron(tag.cron)
        except ScheduleError:
            return []  # the text path says what was wrong with it
        desc = tag.message or tag.friendly
        if desc:
            args = {"description": desc, "type": "recurring", "schedule": tag.cron}
            return [ToolCallPart("schedule_action", args)]
    return []


_KINDS: dict[str, type | tuple[type, ...]] = {
    "integer": int,
    "boolean": bool,
    "string": str,
    "number": (int, float),
}


def _fits(call: ToolCallPart, tools: dict[str, ToolDefinition]) -> bool:
    """Whether a text call's repaired arguments fit its tool; if not, the text path asks the
    model again (a text call has no call id for pydantic-ai to retry against)."""
    schema = full_schema(tools[call.tool_name])
    props: dict[str, Any] = schema.get("properties") or {}
    args = repair_args(call.args_as_dict(), schema)
    if any(key not in args for key in schema.get("required") or ()):
        return False
    for key, value in args.items():
        kind = props.get(key, {}).get("type")
        want = _KINDS.get(kind) if isinstance(kind, str) else None
        if want is not None and not isinstance(value, want):
            return False
    return True


# A job text that is only an argument's value or name: copied from the schema, not meant.
# (A blank text is refused by the tools: nothing to go on.)
_NOT_A_TEXT = {"once", "recurring", "interval", "reminder", "message", "description"}
_NOT_A_TEXT |= {"context", "text", "none", "null", "task", "job"}
_TEXTS = ("message", "description", "context")


def _text_of_words(
    args: dict[str, Any], words: Words, earlier: Sequence[str] = (), recent: Sequence[str] = ()
) -> dict[str, Any]:
    """A job text a model filled with a schema word ("once") or only the time is what the
    person's words say to do: their message without its time and framing, or, when this
    message is only the answer to our question ("next monday at 9"), the earlier one's.
    A text that repeats the job's own time ("Call Ken at 3 PM Tokyo time") loses it."""
    for key in _TEXTS:
        value = args.get(key)
        if not isinstance(value, str):
            continue
        whole = _whole_quote(value, words.text)
        if whole != value:
            args, value = args | {key: whole}, whole
        kept = _without_its_time(value, words)
        text = value if kept is None else kept
        if _a_part_of_the_task(text, words):
            # "Leo is off sick" of "ring the school office at 8:45 tomorrow to say Leo is off
            # sick", the quoted line alone of "pass on Gran's note …: '…'" (the 1.5B, the
            # twenty-first set): the person's whole task
            return args | {key: what_of(words.rest)}
        if (
            kept == ""  # only its time and framing (a blank text is the tools' to refuse)
            or text.strip(" .!?\"'").lower() in _NOT_A_TEXT
            or _only_time(text, words)
            or _only_a_time(text, words)
            or _made_up(text, [words.text, *earlier, *recent])
        ):
            what = what_of(words.rest) or _earlier_what(earlier, words)
            if what:
                return args | {key: what}
            if kept == "":
                # "every tuesday remind me" as the text of a weekly job: no task at all, so
                # none is kept for the tools to ask about (the 1.5B, the fifteenth set)
                return args | {key: ""}
        elif kept is not None:
            return args | {key: kept}
    return args


_QUOTE_MARKS = re.compile(r"[\"“”‘’`]|(?<!\w)'|'(?!\w)")


def _a_part_of_the_task(text: str, words: Words) -> bool:
    """A job text that is only a later part of the task the person's message says, when
    that message names the job's time (its beginning, the verb, left out)."""
    if words.instant is None and words.recurrence is None:
        return False
    what = what_of(words.rest)
    # (quote marks aside: the model's text may be the quoted words with what follows them)
    low = " ".join(_QUOTE_MARKS.sub("", text.lower()).split()).strip(" .!?")
    whole = " ".join(_QUOTE_MARKS.sub("", what.lower()).split())
    return (
        len(low) >= 3
        and low in whole
        and len(whole) > len(low) + 3
        and not whole.startswith(low[:12])
    )


def _whole_quote(value: str, said: str) -> str:
    """A job text holding only part of what the person quoted holds all of it: "in 15
    minutes post 'standup starting, join the call' here" made "join the call" (the 1.5B)."""
    for m in QUOTED.finditer(said):
        full = m.group(0)[1:-1].strip()
        if len(full) < 3 or full.lower() in value.lower():
            continue
        for part in re.split(r"\s*[,;:.!?]\s*", full):
            at = value.lower().find(part.lower()) if len(part) >= 3 and part != full else -1
            if at >= 0:
                return value[:at] + full + value[at + len(part) :]
    return value


_WORD = re.compile(r"[^\W\d_]{3,}")
# Words a made-up text shares with anything: they don't make it the person's.
_COMMON = frozenset(
    {"the", "and", "for", "you", "your", "with", "that", "this", "from", "are", "was"}
    | {"will", "not", "can", "please", "remind", "reminder", "reminders", "time", "today"}
    | {"tomorrow", "now", "later", "minutes", "minute", "hours", "hour", "day", "days", "week"}
)


def _without_its_time(text: str, words: Words) -> str | None:
    """A job text that names the very time the person's words schedule it for, without that
    time and the request's framing ("Please remind me at 5 PM today." → "", "Call Ken at
    3 PM Tokyo time" → "Call Ken"); None if the text names no time or another one (a text
    may mention a time of its own: "tell Bob the meeting is at 3" for a reminder at 5). A
    command that fires still saying "in 30 minutes" would be read as a new request then."""
    now = words.now
    if now is None or now.tzinfo is None or (words.instant is None and words.recurrence is None):
        return None
    read = read_words(text, now, str(now.tzinfo))
    if read.ambiguous or (read.instant, read.recurrence) != (words.instant, words.recurrence):
        return None
    timed = _words_in(text) - _words_in(read.rest)
    if timed <= _words_in(words.rest):
        return None  # the person's own words for what to do ("eat lunch" at noon)
    return what_of(read.rest)


def _only_a_time(text: str, words: Words) -> bool:
    """A job text that is nothing but a time, not the one the person's words schedule
    ("every weekday at 8" for "at 9am every weekday except friday to update the board", the
    1.5B): no task. A message the person quoted is theirs, whatever it says."""
    now = words.now
    if now is None or now.tzinfo is None or not text.strip():
        return False
    low = text.strip().lower()
    if any(low in m.group(0).lower() for m in QUOTED.finditer(words.text)):
        return False
    read = read_words(text, now, str(now.tzinfo))
    return (read.instant is not None or read.recurrence is not None) and not what_of(read.rest)


def _words_in(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"\w+", text)}


def _made_up(text: str, said: Sequence[str]) -> bool:
    """Whether half or more of a job text's words are nowhere in what the person said in this
    dialogue (a small model wrote "water the basil", an example from its instructions, for
    "my call with Sam is at 3pm"): the person's own words are the text then."""
    mine = {w.lower() for t in said for w in _WORD.findall(t)}
    theirs = {w.lower() for w in _WORD.findall(text)} - _COMMON
    if not mine - _COMMON:
        return False  # nothing of the person's to prefer ("x", "yes")
    # no word of its own ("I'm", the 0.5B's text for "ping me at 7 to start dinner")
    return not theirs or len(theirs & mine) * 2 <= len(theirs)


def _earlier_what(earlier: Sequence[str], words: Words) -> str:
    """What the person's earlier messages in this dialogue ask to be done, latest first."""
    if words.now is None or words.now.tzinfo is None:
        return ""
    for text in reversed(earlier):
        what = what_of(read_words(text, words.now, str(words.now.tzinfo)).rest)
        if what:
            return what
    return ""


def _only_time(text: str, words: Words) -> bool:
    """Whether a job text is only a part of the person's message outside what they ask
    to be done: the time ("every weekday at 9"), the framing ("remind me")."""
    said = " ".join(words.text.lower().split())
    text = " ".join(text.lower().split())
    return bool(text) and text in said and text not in what_of(words.rest).lower()


def said_call(
    name: str, args: dict[str, Any], words: Words, messages: Sequence[ModelMessage]
) -> tuple[str, dict[str, Any]]:
    """A call as the person's words say it (one-off or repeating, reminder or command,
    reaching only whom they named): used for every call a model makes on a live turn,
    native or written as text (`tools.agent.replies`)."""
    earlier = dialogue(messages)
    texted = _text_of_words(args, words, earlier, said_lately(messages, 12))
    name, said = words.settle_kind(name, texted, earlier=earlier)
    if isinstance(said.get("audience"), str):
        said = {k: v for k, v in said.items() if k != "audience"} | (
            {"audience": aud} if (aud := words.settle_audience(said["audience"])) else {}
        )
    return name, said


def _as_said(
    part: ToolCallPart,
    tools: dict[str, ToolDefinition],
    words: Words,
    messages: list[ModelMessage],
) -> ToolCallPart:
    """The call as the person's words say it (`said_call`), same call id."""
    try:
        args = part.args_as_dict()
    except Exception:
        return part
    name, said = said_call(part.tool_name, args, words, messages)
    if (name == part.tool_name and said == args) or name not in tools:
        return part
    fixed = repair_args(said, full_schema(tools[name]))
    return ToolCallPart(name, fixed, part.tool_call_id)


def read_response(
    response: ModelResponse,
    params: ModelRequestParameters,
    *,
    read_text: bool,
    messages: list[ModelMessage] | None = None,
    words: Words | None = None,
) -> ModelResponse:
    """The response with repaired arguments and (if `read_text`) text calls made real;
    with the person's `words`, each call is the kind of job they say (`_as_said`)."""
    tools = _tools(params)
    parts: list[ModelResponsePart] = []
    changed = False
    for part in response.parts:
        if isinstance(part, ToolCallPart) and part.tool_name in tools:
            try:
                args = part.args_as_dict()
            except Exception:
                parts.append(part)
                continue
            fixed = repair_args(args, full_schema(tools[part.tool_name]))
            if fixed != args:
                part = ToolCallPart(part.tool_name, fixed, part.tool_call_id)
                changed = True
        parts.append(part)
    has_calls = any(isinstance(p, ToolCallPart) for p in parts)
    if read_text and not has_calls:
        text = "".join(p.content for p in parts if isinstance(p, TextPart))
        calls = _text_calls(text, tools, list(messages or [])) if text else []
        calls = calls if all(_fits(c, tools) for c in calls) else []
        if calls:
            parts = [
                ToolCallPart(
                    c.tool_name,
                    repair_args(c.args_as_dict(), full_schema(tools[c.tool_name])),
                )
                for c in calls
            ]
            changed = True
    if words is not None:
        said = [
            _as_said(p, tools, words, list(messages or []))
            if isinstance(p, ToolCallPart) and p.tool_name in tools
            else p
            for p in parts
        ]
        changed = changed or said != parts
        parts = said
    if not changed:
        return response
    return replace(response, parts=parts)


def reference_last(
    messages: list[ModelMessage], params: ModelRequestParameters
) -> tuple[list[ModelMessage], ModelRequestParameters]:
    """The request with its reference instruction moved from the system instructions (sent
    first) to the end of the person's latest message, as `(Now: …)` on its own line
    (`tools.agent.prompt.carried`). Only the copy sent is changed: the run's history keeps
    the person's own words. Other dynamic instructions stay in the system instructions."""
    parts = params.instruction_parts
    ref = [p for p in parts or () if p.dynamic and p.content.startswith(REFERENCE_HEAD)]
    if not ref or not messages:
        return messages, params
    kept: list[InstructionPart] = [p for p in parts or () if p not in ref]
    line = "\n".join(carried(p.content) for p in ref)
    sent = list(messages)
    for i in range(len(sent) - 1, -1, -1):
        m = sent[i]
        said = [k for k, p in enumerate(m.parts) if isinstance(p, UserPromptPart)]
        if isinstance(m, ModelRequest) and said:
            at = said[-1]
            part = m.parts[at]
            if not isinstance(part, UserPromptPart) or not isinstance(part.content, str):
                return messages, params
            moved = replace(part, content=f"{part.content}\n\n({line})")
            sent[i] = replace(m, parts=[*m.parts[:at], moved, *m.parts[at + 1 :]])
            return sent, replace(params, instruction_parts=kept)
    return messages, params  # no message of the person's: leave the instructions whole


# Tool metadata `cache_order` reads (set by `tools.agent.build`): a tool offered on some
# turns only, and how many of a tool's arguments a turn may show or not.
PER_TURN = "per_turn"
VARIES = "varies"


def _variability(tool: ToolDefinition) -> tuple[bool, int]:
    meta = tool.metadata or {}
    return bool(meta.get(PER_TURN)), int(meta.get(VARIES) or 0)


def cache_order(params: ModelRequestParameters) -> ModelRequestParameters:
    """The request's tools in the order a local server's prompt cache reuses best: the tools
    every turn shows alike first, then those whose arguments vary with the words (fewest
    varying first), then those offered on some turns only (`tools.agent.build`). A server
    re-reads the prompt from its first difference; a tool's place in the sent list doesn't
    change how its call is handled (the run's toolsets know each tool)."""
    tools = [*params.function_tools, *params.output_tools]
    if all(_variability(t) == (False, 0) for t in tools):
        return params
    fixed = [t for t in params.function_tools if _variability(t) == (False, 0)]
    varying = [t for t in params.function_tools if _variability(t) != (False, 0)]
    rest = sorted([*params.output_tools, *varying], key=_variability)  # stable: ties keep order
    return replace(params, function_tools=fixed, output_tools=rest)


# How a model's reply may begin when a tool call is certainly wanted (`calls_for_a_job`): a
# server that continues a reply it was given (llama.cpp; `tools.models.ContinuingModel`)
# starts there. A small model then writes its call on one line — "```json\n{\n  \"name\"…"
# pretty-printed is ~15 tokens more, half a second at a small machine's speed.
CALL_START = '```json\n{"name": "'
# The model settings key `ReadingModel` passes the beginning in (other models ignore it).
REPLY_START = "homar_reply_start"

# A reminder that is not asked for ("don't remind me at 5"), unlike "don't let me forget".
_NOT_ASKED = re.compile(
    r"\b(?:don'?t|do\s+not|never|no\s+need|no\s+longer|stop|without)\b(?!\s+let\s+me\s+forget)",
    re.I,
)


def calls_for_a_job(words: Words | None, messages: Sequence[ModelMessage]) -> bool:
    """Whether the model's next reply is certainly a call making a job: the person's new
    message (no tool has answered yet) asks to be reminded and names its time clearly,
    speaks of no existing job and of nobody else to reach. A reply to anything else (a
    question, a command no tool may fit, "don't remind me…") stays the model's choice."""
    if words is None or not words.remind or words.ambiguous or not (words.once or words.repeats):
        return False
    if words.addresses_someone or ABOUT_JOBS.search(words.text) or _NOT_ASKED.search(words.text):
        return False
    last = messages[-1] if messages else None
    # the person's words are the request's last part (a thread's previous turn may end in a
    # tool's return, which the new message joins); after a tool answered, the model chooses
    return isinstance(last, ModelRequest) and isinstance(last.parts[-1], UserPromptPart)


class ModelRunaway(RuntimeError):
    """The model wrote until its output cap: the run falls back to the offline model."""


class UnreadCall(RuntimeError):
    """The model's final answer to a person is a tool call written as text that was not
    carried out (a repeat of one already made, or a tool not offered this turn): it is
    never shown raw; the run falls back to the offline model, which reads the person's
    words (a run that already did something reports that instead)."""


@dataclass(init=False)
class ReadingModel(WrapperModel):
    """The configured model, its replies read by `read_response`.

    `read_text`: whether text may become tool calls — only when answering a person's
    live message, never on a fired run or an approval decision (a job's command is data).
    `words`: the person's live message as read (`tools.agent.words`); None on fired runs.
    """

    read_text: bool
    words: Words | None

    def __init__(self, wrapped: Any, *, read_text: bool, words: Words | None = None) -> None:
        super().__init__(wrapped)
        self.read_text = read_text
        self.words = words

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        sent, params = messages, model_request_parameters
        if self.read_text:  # a person's live message (a fired run's prompt varies anyway)
            sent, params = reference_last(messages, model_request_parameters)
            params = cache_order(params)
            if calls_for_a_job(self.words, messages):
                model_settings = cast(
                    ModelSettings, {**(model_settings or {}), REPLY_START: CALL_START}
                )
        response = await super().request(sent, model_settings, params)
        if response.finish_reason == "length":
            # Cut off at the output cap (`tools.agent.run.reply_budget`): a small model that
            # loops writes until the server's context is full; its half reply is no answer.
            raise ModelRunaway(
                f"the model's reply was cut off after {response.usage.output_tokens} tokens"
            )
        return read_response(
            response,
            model_request_parameters,
            read_text=self.read_text,
            messages=messages,
            words=self.words,
        )
