"""The built-in offline model: deterministic rules over the time language, as a FunctionModel.

It is the default when no model is configured and the fallback when the configured one
fails. It reads the user's message and the reference time from the run's instructions and
answers with the same tool calls an LLM would make, so the same code schedules the job:

"remind me <when> to <what>", "remind me to <what> <when>", "<what> <when>",
"in <duration> <command>", "at <time> <command>", "every <recurrence> <what>", "list",
"cancel|pause|resume <id>", "help". A reminder without a time gets "When should I remind
you?"; anything else gets a short note on what works offline.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from tools import overlap, timeparse
from tools.followups import plain_follow_up
from tools.schedule import Cron, Every, Schedule
from tools.scheduling import parse_recurrence, parse_time, split_when

HELP = (
    "I'm running without my AI model, but I can still schedule things. Try:\n"
    "• `remind me tomorrow at 9 to call mom`\n"
    "• `in 30 minutes turn off the porch light`\n"
    "• `every weekday at 8 stretch`\n"
    "• `list`, `cancel 12`, `pause 12`, `resume 12`"
)
ASK_WHEN = "When should I remind you?"
_MEETING = re.compile(
    r"\b(meeting|standup|stand-up|appointment|interview|sync|1:1|zoom|webinar)\b"
    r"|\b(my|the|a|our|conference|video|phone|team)\s+call\b|\bcall with\b",
    re.I,
)
_REF = re.compile(r"Reference time: \w{3} (\d{4}-\d{2}-\d{2} \d{2}:\d{2}) (\S+) ")
_ID_ACTIONS = {
    "delete_scheduled_action": r"cancel|delete|remove|drop|forget",
    "stop_interval_action": r"pause|stop|suspend|hold",
    "resume_scheduled_action": r"resume|unpause|restart|continue|reactivate",
}
Call = tuple[str, dict[str, Any]]


def reference(info: AgentInfo) -> tuple[datetime, str]:
    """The run's reference time and zone, read back from the instructions."""
    m = _REF.search(info.instructions or "")
    if m is None:
        return datetime.now(UTC), "UTC"
    from tools.schedule import zone

    try:
        tz = zone(m.group(2))
    except Exception:
        return datetime.now(UTC), "UTC"
    return datetime.fromisoformat(m.group(1)).replace(tzinfo=tz), m.group(2)


def _clean(text: str) -> str:
    text = re.sub(r"<@!?\d+>", " ", text)
    text = re.sub(r"^\s*(hey |hi |ok |okay )?homar[,:]?\s+", "", text, flags=re.I)
    return " ".join(text.split()).strip()


def _what(text: str) -> str:
    text = re.sub(r"^(?:to|about|that|of|:|-)\s+", "", text.strip(" ,.:;-"), flags=re.I)
    return text.strip(" ,.!;")


def _phrase(body: str, rest: str, when: datetime | Schedule, now: datetime, tz: str) -> str:
    """The time phrase in `body` (what is left without `rest`), or a canonical form of `when`."""
    cand = body
    i = body.lower().rfind(rest.lower()) if rest else -1
    if i >= 0:
        cand = body[:i] + " " + body[i + len(rest) :]
    cand = re.sub(
        r"^(?:to|about|that|of|for)\s+|\s+(?:to|about|that|of|for)$", "", cand.strip(" ,")
    )
    cand = " ".join(cand.split())
    if isinstance(when, Schedule):
        if parse_recurrence(cand, now, tz) is not None:
            return cand
        if isinstance(when.spec, Every):
            return f"{when.spec.seconds // 60} minutes"
        return when.spec.expr if isinstance(when.spec, Cron) else cand
    return cand if parse_time(cand, now, tz) is not None else when.isoformat()


def _delay(phrase: str) -> dict[str, int] | None:
    if not re.match(r"^(in|after)\s", phrase, re.I):
        return None
    d = timeparse.parse_duration(phrase)
    if d is None:
        return None
    secs = int(d.total_seconds())
    return {"hours": secs // 3600, "minutes": secs % 3600 // 60, "seconds": secs % 60}


def _recurring(what: str, sched: Schedule, phrase: str) -> Call:
    kind = "interval" if isinstance(sched.spec, Every) else "recurring"
    if kind == "interval":
        phrase = re.sub(r"^(every|each)\s+", "", phrase, flags=re.I)
    return "schedule_action", {"description": what, "type": kind, "schedule": phrase}


def plan(text: str, now: datetime, tz: str) -> Call | str:
    """A tool call for `text`, or the text to answer with."""
    t = _clean(text)
    low = t.lower().rstrip(" .!?")
    if not low or re.fullmatch(r"help|commands|what can you do|how does this work|\?", low):
        return HELP
    if re.fullmatch(
        r"(list|show|ls)( me)?( my| all)*"
        r"( (jobs?|reminders?|schedules?|tasks?|scheduled( jobs| actions)?))?"
        r"|(what|which) (jobs|reminders|tasks)( do i have)?|what('s| is) scheduled",
        low,
    ):
        return "list_scheduled_actions", {}
    for tool, verbs in _ID_ACTIONS.items():
        m = re.fullmatch(rf"(?:{verbs})\s+(?:(?:job|reminder|task|action|the)\s+)*#?(\d+)", low)
        if m:
            return tool, {"task_id": int(m.group(1))}
    tail = re.search(r"[,.;]?\s*(?:please\s+)?remind me(?: about it| then)?$", t, re.I)
    nag = re.match(r"^(?:don'?t let me forget|make sure i)\b[\s,:;-]*(?:remind me\s+)?", t, re.I)
    if nag:
        t = "remind me " + t[nag.end() :]
    event = bool(tail and tail.start() > 0)
    if tail and event:
        t = "remind me " + re.sub(r"\bis (in|at)\b", r"\1", t[: tail.start()], flags=re.I)
    remind = re.match(
        r"^(?:please\s+)?(?:can you\s+)?(?:remind|ping|nudge)\s+(?:me|us)\b[\s,]*(.*)$", t, re.I
    )
    body = remind.group(1) if remind else t
    if remind and re.search(r"(^|\s)(right )?now$|^(right )?now\b", body, re.I):
        what = _what(re.sub(r"(^|\s)(right )?now\b", " ", body, flags=re.I))
        return "schedule_reminder", {"reminder_time": "now", "message": what or "reminder"}
    found = split_when(body, now, tz) if body else None
    if found is None:
        if remind:
            return timeparse.explain_invalid_date(body) or ASK_WHEN
        return (
            "I'm running without my AI model, so I only understand scheduling phrases right "
            "now, like `remind me tomorrow at 9 to call mom` or `in 30 minutes check the oven`. "
            "Say `help` for more."
        )
    when, rest = found
    what = _what(rest)
    phrase = _phrase(body, rest, when, now, tz)
    if not what:
        return "What should I remind you about?" if remind else "What should I do then?"
    if isinstance(when, Schedule):
        return _recurring(what, when, phrase)
    if remind:
        args: dict[str, Any] = {"reminder_time": phrase, "message": what}
        if _MEETING.search(what) and (event or not _delay(phrase)):
            args["minutes_before"] = 5
        # `t` no longer starts with the nag phrase once rewritten to "remind me …"
        if nag or re.search(r"don'?t let me forget|nag me|make sure", t, re.I):
            args["follow_up"] = True
        return "schedule_reminder", args
    delay = _delay(phrase)
    if delay is not None:
        return "send_delayed_message", {"message": what, **delay}
    return "send_scheduled_message", {"message": what, "scheduled_datetime": phrase}


_FOLLOW_UP = re.compile(
    r"Follow-up reminder triggered \(attempt (\d+) of (\d+)\)\.?\s*"
    r"Original reminder:\s*(.*?)\s*(?:\nNote:|$)",
    re.S,
)


def _fired(text: str) -> str:
    cmd = re.sub(r"^\[Scheduled job[^\]]*\]\s*", "", text)
    follow_up = _FOLLOW_UP.match(cmd)
    if follow_up:
        attempt, of, what = follow_up.groups()
        return plain_follow_up(what, int(attempt), int(of))
    cmd = re.sub(r"^Reminder triggered\.?\s*Task:\s*", "", cmd)
    cmd = re.sub(r"^(send a )?reminder( about)?:\s*", "", cmd, flags=re.I)
    return f"⏰ {cmd.strip()}"


def offline_reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The FunctionModel body."""
    last = messages[-1] if messages else None
    fresh = isinstance(last, ModelRequest) and any(
        isinstance(p, UserPromptPart) for p in last.parts
    )
    if isinstance(last, ModelRequest) and not fresh:
        for part in last.parts:
            if isinstance(part, ToolReturnPart) and part.tool_name == "list_scheduled_actions":
                return ModelResponse(parts=[TextPart(f"Your jobs:\n{part.model_response_str()}")])
            if isinstance(part, ToolReturnPart | RetryPromptPart):  # never loop on a retry
                why = part.model_response_str() if isinstance(part, ToolReturnPart) else ""
                why = why or (part.model_response() if isinstance(part, RetryPromptPart) else "")
                return ModelResponse(parts=[TextPart(f"Sorry, I couldn't do that. {why}".strip())])
    prompt = ""
    for m in reversed(messages):
        if isinstance(m, ModelRequest):
            users = [
                p for p in m.parts if isinstance(p, UserPromptPart) and isinstance(p.content, str)
            ]
            if users:
                prompt = str(users[-1].content)
                break
    if prompt.startswith("[Scheduled job"):
        return ModelResponse(parts=[TextPart(_fired(prompt))])
    answered = overlap.answer(messages, prompt)  # "replace" / "keep both" / "cancel"
    if isinstance(answered, str):
        return ModelResponse(parts=[TextPart(answered)])
    if answered is not None:
        return ModelResponse(parts=[ToolCallPart(*answered)])
    now, tz = reference(info)
    try:
        got = plan(prompt, now, tz)
    except Exception:
        got = HELP
    if isinstance(got, str):
        return ModelResponse(parts=[TextPart(got)])
    return ModelResponse(parts=[ToolCallPart(got[0], got[1])])


def offline_model() -> FunctionModel:
    return FunctionModel(offline_reply, model_name="homar-offline")
