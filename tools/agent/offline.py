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

import json
import re
from collections.abc import Sequence
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
from tools.agent.prompt import read_reference
from tools.agent.scheduling import is_chat
from tools.agent.words import (
    ASIDE,
    ASK_WHEN_POSTED,
    BY_CLOCK,
    END_ASKED,
    EPOCH,
    HALF_DAY_ASKED,
    HOW_IT_RUNS,
    JOB_NUMBER,
    KEEP_ZONE,
    MEETING_LEAD,
    NOT_A_REQUEST,
    NOT_NOW,
    OCCASION,
    POLITE_END,
    POST_VERB,
    POSTS_ON_EVENT,
    QUOTED,
    REMIND,
    RUNS_CLAUSE,
    TWO_CLOCKS,
    TWO_TIMES,
    WAIT_FOR_EVENT,
    end_question,
    far_weekday_date,
    half_day_question,
    is_note,
    job_topic,
    last_answer,
    manage_request,
    no_job_because,
    no_such_clock,
    read_words,
    split_topic,
    starts_with_a_span,
    starts_with_verb,
    topic_fits,
    unhedged,
    what_of,
    with_half_day,
)
from tools.audience import USER_MENTION
from tools.jobs.marker import fired_command, read_wake
from tools.jobs.reminders import plain_follow_up
from tools.schedule import Cron, Every, Schedule, spec_to_json
from tools.schedule.zones import resolve_zone, their_time_in
from tools.timeparse.recurrence import OCCASION_NOUN, WHOSE

HELP = (
    "I'm running without my AI model, but I can still schedule things. Try:\n"
    "• `remind me tomorrow at 9 to call mom`\n"
    "• `in 30 minutes turn off the porch light`\n"
    "• `every weekday at 8 stretch`\n"
    "• `list`, `cancel 12`, `pause 12`, `resume 12`"
)
# What a model-backed run answers to a request for help (`tools.agent.run`): the same every
# time, without a model request (a small model printed a raw tool call or refused).
HELP_WITH_MODEL = (
    "I remind you, run commands later in this thread, and repeat jobs on a schedule. Try:\n"
    "• `remind me tomorrow at 9 to call mom`\n"
    "• `in 30 minutes turn off the porch light`\n"
    '• `every weekday at 9 post "standup time" here`\n'
    "• `don't let me forget the taxes at 6pm` (I follow up until you answer)\n"
    "• `list`, `cancel 12`, `pause the standup`, `move 12 to friday 10am`\n"
    "`/help` shows every command."
)
_HELP_ASKED = re.compile(
    r"help|help me|commands|what can you do|what do you do|how does this work|how do i use you"
    # "how do i make one reminder that repeats every month?": a question how, no request
    r"|how\s+(?:do|can|would|should|could)\s+(?:i|we|you)\s+(?:make|set(?:\s+up)?|create|get|add"
    r"|schedule|use|cancel|delete|remove|stop|pause|edit|change|move|see|list|do)\b[^.!]*"
    r"|how\s+to\s+(?:make|set(?:\s+up)?|create|add|schedule|use|cancel|delete|remove|stop|pause"
    r"|edit|change|move|see|list)\b[^.!]*"
    r"|\?",
    re.I,
)


def asks_for_help(text: str) -> bool:
    """The whole message asks what Homar can do ("help", "what can you do?")."""
    return bool(_HELP_ASKED.fullmatch(_clean(text).lower().rstrip(" .!?") or "?"))


OFFLINE_NAME = "homar-offline"
ASK_WHEN = "When should I remind you?"
Call = tuple[str, dict[str, Any]]


# The reference line a real model's request carries at the end of the person's message
# (`tools.agent.reading`); this model reads it when it answers as that model's fallback.
_CARRIED = re.compile(r"\n\n\(((?:Reference time|Now): .*)\)\s*$", re.S)


def _own_words(text: str) -> str:
    """The person's message without a carried reference line."""
    return _CARRIED.sub("", text)


def reference(info: AgentInfo, messages: Sequence[ModelMessage] = ()) -> tuple[datetime, str]:
    """The run's reference time and zone, read back from the instructions or, when this
    model answers as a real model's fallback, from the line its request carried (else now)."""
    found = read_reference(info.instructions or "")
    for msg in reversed(messages):
        if found is not None or not isinstance(msg, ModelRequest):
            continue
        for part in msg.parts:
            if isinstance(part, UserPromptPart) and isinstance(part.content, str):
                carried = _CARRIED.search(part.content)
                found = found or (read_reference(carried.group(1)) if carried else None)
    return found or (datetime.now(UTC), "UTC")


def _clean(text: str) -> str:
    text = USER_MENTION.sub(" ", text)
    text = re.sub(r"^\s*(hey |hi |ok |okay )?homar[,:]?\s+", "", text, flags=re.I)
    return " ".join(text.split()).strip()


_PAST = re.compile(r"\b(?:was|were|did|had|finished|got|went|moved|done)\b", re.I)
_ZONE_SET = re.compile(
    # (a remark after a dash is no part of the zone: "tz: America/New_York — moved for good")
    r"^(?:my\s+)?(?:time\s*zone|tz)\s*(?:\s(?:is|=)|=|:)\s*(?P<a>.+?)(?:\s+[—–-]+\s+.*)?$"
    r"|^(?:please\s+)?(?:set|change|switch|update|put|make)\s+(?:my\s+|the\s+)?(?:time\s*zone|tz)"
    r"(?:\s*(?:to\b|as\b|:|=)\s*|\s+)(?P<b>(?!(?:please|pls|plz|thanks?|now)\b).+)$"
    # "I'm on Tokyo time": a zone's name is a few words, not a sentence
    r"|^i'?m\s+(?:in|on)\s+(?P<c>[^\s,;.]+(?:\s+[^\s,;.]+){0,2}?)\s+time$",
    re.I,
)
# Where the person lives now, said in passing: a zone only when the place names one.
_ASKS_ZONE = (
    r"\s*[,.;]?\s+(?:so\s+|and\s+)?(?:please\s+|pls\s+)?(?:(?:use|set|switch(?:\s+to)?"
    r"|change(?:\s+to)?|update)(?:\s+(?:that|its|my|the|that\s+city'?s?))?\s+(?:time\s*zone|tz|zone"
    r"|time)"
    # "put my reminders on Madrid time", "switch me to that time zone"
    r"|(?:put|switch|move|set|change)\s+(?:me|my\s+(?:reminders|jobs|schedule|stuff|things|times?"
    r"|timings?|clock))"
    r"\s+(?:on|to|in|into|over\s+to)\s+(?:[\w' ]{1,30}?\s*time(?:\s*zone)?(?:\s+(?:here|there))?"
    r"|(?:the\s+)?local\s+(?:time\s*)?zone|there|here))"
    r"(?:\s+(?:please|now|from\s+now\s+on))?"
)
_STAY = (
    r"\s+(?:(?:for\s+)?this\s+(?:week|month|year|winter|summer|spring|fall|autumn)|for\s+"
    r"(?:the\s+)?(?:next\s+)?(?:a|an|one|two|three|four|few|couple\s+of|\d{1,2})?\s*(?:days?|weeks?|"
    r"months?|years?)|for\s+(?:the\s+)?(?:week|month|year|winter|summer|holidays)|until\s+[\w ]+)"
)
# Why the person moved, said after the place: "for my exchange semester", "for work".
_FOR_A_REASON = (
    r"\s+for\s+(?:(?:my|our|his|her|their|a|an|the)\b[^,.;]{0,40}?|work|school|uni|university"
    r"|college|good)"
)
_LIVES_IN = re.compile(
    r"^(?:i\s+(?:now\s+)?live|i'?m\s+(?:now\s+)?(?:living|based|staying)"
    r"|i\s+am\s+(?:now\s+)?(?:living|based|staying)"
    r"|(?:i|we)(?:'ve|\s+have)?(?:\s+just)?\s+(?:moved|relocated|shifted)(?:\s+over|\s+back)?"
    r"|(?:i'?m|i\s+am|we'?re|we\s+are)\s+(?:moving|relocating))"
    rf"\s+(?:in|to)\s+(?P<place>.+?)(?:\s+now)?(?:\s+for\s+good)?"
    # when the move is: "… for good this weekend"
    r"(?:\s+(?:this|next|last)\s+(?:weekend|week|month)|\s+(?:today|tomorrow|yesterday|on\s+\w+day))?"
    rf"(?:{_STAY})?(?:{_FOR_A_REASON})?"
    rf"(?:\s*,\s*(?:[a-z']+\s+){{0,4}}[a-z']+(?=\s*,))?(?:{_ASKS_ZONE})?"
    # A stay ("I'm in Toronto this month", "I'm in Tokyo for two weeks"), or "I'm in
    # Chicago now, switch my timezone": a visit, so only with the zone asked for
    rf"|^(?:i'?m|i\s+am)\s+(?:now\s+)?in\s+(?P<stay>.+?){_STAY}(?:{_ASKS_ZONE})?"
    rf"|^(?:i'?m|i\s+am)\s+(?:now\s+)?in\s+(?P<visit>.+?)(?:\s+now)?{_ASKS_ZONE}"
    # "I arrived in Toronto yesterday and I stay here for the semester, please put my
    # reminders in Toronto time"
    r"|^(?:i|we)\s+(?:arrived|landed|got\s+here)\s+in\s+(?P<arrived>[a-z][\w' ]{0,30}?)"
    r"(?:\s+(?:yesterday|today|last\s+night|this\s+morning|on\s+\w+))?(?:\s+and\s+[^,.;]{0,80})?"
    rf"{_ASKS_ZONE}"
    r"|^(?:please\s+)?use\s+(?P<used>.+?)(?:\s+time(?:\s*zone)?)?"
    r"(?:\s+for\s+(?:me|my\s+(?:reminders|jobs|schedule|stuff|things)))?"
    r"(?:\s+(?:please|from\s+now\s+on))?"
    # "switch me to UTC", "put me on Tokyo time"
    r"|^(?:please\s+)?(?:switch|change|move|set|put)\s+me\s+(?:over\s+)?(?:to|on)\s+"
    r"(?P<moved>.+?)(?:\s+time)?(?:\s+(?:please|now|from\s+now\s+on))?",
    re.I,
)


# An opening word and a remark in brackets: no part of what is asked.
_OPENER = re.compile(r"^(?:(?:ok|okay|so|well|hey|hi|btw|fyi|update|news)\b[,:!.]?\s+)+", re.I)


def _names_a_zone(named: str) -> bool:
    """Words short enough to be a zone's name: not "Tokyo and call Ken in 30 minutes"."""
    return len(named.split()) <= 3 and not re.search(r"\d|\b(?:and|then)\b", named)


def _zone_said(text: str) -> tuple[str, str | None] | None:
    """The zone a message asks to set: the words naming it and its IANA name (None when
    they name no zone). "my timezone is …" counts whatever it names; where the person
    lives ("I live in New York now") only when the place names a zone."""
    t = _clean(_own_words(text)).rstrip(" .!")
    t = " ".join(ASIDE.sub(" ", _OPENER.sub("", t)).split())  # "ok i live in X now (uni started)"
    told = re.split(r"\s+[—–]\s+", t, maxsplit=1)  # "we've signed the lease — I'm moving …"
    # "could you put me on English time, please?"
    asked = _ASKING.sub("", POLITE_END.sub("", t.rstrip(" ?.!"))).rstrip(" .!,?")
    for said in (
        _ZONE_SET.fullmatch(t),
        _LIVES_IN.fullmatch(t),
        _ZONE_SET.fullmatch(asked) or _LIVES_IN.fullmatch(asked) if asked != t else None,
        _LIVES_IN.fullmatch(told[1]) if told[1:] else None,
        _zone_asked_last(t),
    ):
        if said is None:
            continue
        named = POLITE_END.sub("", next(g for g in said.groups() if g)).strip(" '\"")
        zone = resolve_zone(named) if _names_a_zone(named) else None
        # where the person lives names a zone or is no zone asked for; a zone asked for
        # plainly ("set my tz to …", "switch me to … time") is asked, known or not
        if zone is not None or said.re is _ZONE_SET or _asked_plainly(said):
            return named, zone
    return None


def _asked_plainly(said: re.Match[str]) -> bool:
    return said.re is _LIVES_IN and bool(said["moved"] or said["used"])


# Where a message's last request starts: after a stop, a dash or an emoji ("moved to seoul
# for the season 🇰🇷 set my tz to korea time pls").
_LAST_PART = re.compile(r"[,.;!?]\s+|\s+[—–-]+\s+|\s*[^\x00-\u024f\s]+\s*")


_COURTESY_ONLY = re.compile(
    r"(?:please|pls|plz|thanks?|thank\s+you|ty|thx|cheers|dear|love|mate)(?:\s+(?:dear|love|mate"
    r"|so\s+much|a\s+lot))?",
    re.I,
)


def _zone_asked_last(t: str) -> re.Match[str] | None:
    """ "we've moved to Dublin, kids start school on monday - can you switch me to Irish
    time": the zone asked for plainly in the last part, what comes before only telling
    (nothing else asked there, no reminder)."""
    parts = [p for p in _LAST_PART.split(t) if p.strip()]
    while len(parts) > 1 and _COURTESY_ONLY.fullmatch(parts[-1].strip(" .!?")):
        parts.pop()  # "…, please", "…, thanks dear"
    if len(parts) < 2 or REMIND.search(t):
        return None
    last = _ASKING.sub("", POLITE_END.sub("", parts[-1].strip()).rstrip(" .!"))
    if any(_ASKS_MORE.search(p.lower()) for p in parts[:-1]):
        return None
    said = _ZONE_SET.fullmatch(last) or _LIVES_IN.fullmatch(last)
    if said is None or (said.re is _LIVES_IN and not _asked_plainly(said)):
        return None  # (where someone lives, said last, is read whole as before)
    return said


def asks_zone(text: str) -> bool:
    """Whether a person's message asks to set their zone: named plainly ("my timezone is
    Tokyo", "set my tz to PST", "switch me to Irish time"), or where they live now when
    the place names a zone ("I live in New York now, please use that time zone")."""
    return _zone_said(text) is not None


_TODO_NOUN = (
    r"(?:(?:to[- ]?do'?s?|tasks?)(?:\s+list)?|(?:shopping|grocery|groceries)\s+list"
    r"|list\s+of\s+things\s+to\s+do)"
)
_TODO_ADD = re.compile(
    r"^(?:add|put|create)\s+(?:an?\s+)?(?:task|to[- ]?do|to[- ]?do item)\s*[:,-]?\s*(?P<a>.+)$"
    r"|^(?:add|put|pop|stick|throw|chuck|toss|slap|(?:jot|note|write|put)(?:\s+down)?)\s+"
    rf"(?P<b>.+?)\s+(?:to|on(?:to)?|in(?:to)?)\s+(?:my|the|our)\s+{_TODO_NOUN}"
    # "add to my todos: reread ch 4-6", "note down in my to do's to pick up the dry cleaning"
    rf"|^(?:add|put|pop|stick|write|(?:jot|note|write)(?:\s+down)?)\s+(?:to|on(?:to)?|in(?:to)?)"
    rf"\s+(?:my|the|our)\s+{_TODO_NOUN}\s*(?:\([^()]{{1,30}}\)\s*)?"  # "(no date)": an aside
    r"(?:[:,-]\s*|\s+to\s+(?=[a-z]))(?P<c>.+)$"
    # "todo: write the runbook"
    r"|^(?:to[- ]?do|task)\s*:\s*(?P<d>.+)$",
    re.I,
)
# The item after a colon, the list named first with "this": "add this to my to-do list
# please, no particular day: sort out the old photographs".
_TODO_THIS = re.compile(
    r"(?:add|put|pop|stick|write|jot|note)(?:\s+down)?\s+(?:this|that|the\s+following|these)"
    rf"\s+(?:to|on(?:to)?|in(?:to)?)\s+(?:my|the|our)\s+{_TODO_NOUN}[^:]{{0,60}}:\s*(?P<item>\S.*)",
    re.I,
)
# The to-do list named, and where that sentence or clause ends: what is said after it
# ("…, no rush on it", "? I'll deal with it later") is no part of the item.
_TODO_NAMED = re.compile(
    rf"\b(?:to|on(?:to)?|in(?:to)?)\s+(?:my|the|our)\s+{_TODO_NOUN}(?=\s*(?:$|[,;.!?—–-]))", re.I
)
_ASKING = re.compile(
    r"^(?:(?:can|could|would|will)\s+(?:you|u)\s+|please\s+|pls\s+|plz\s+|just\s+)+", re.I
)


# A remark after a to-do's words: "…, no rush", "…, no deadline", "…, no time needed".
_REMARK_END = re.compile(
    r"\s*,\s*(?:no\s+(?:rush|hurry|deadline|date|time(?:\s+needed)?|due\s+date)|whenever"
    r"|any\s*time|not\s+urgent|low\s+priority)\b.*$",
    re.I,
)


def _up_to_the_list(t: str) -> str:
    """The words up to the to-do list's name (what is said after it is a remark)."""
    t = POLITE_END.sub("", t).rstrip(" .!?")
    named = _TODO_NAMED.search(t)
    return t[: named.end()] if named is not None else t


def _todo_added(text: str) -> str | None:
    """The item a message adds to the to-do list ("stick 'order the mic arm' on my todo
    list pls", "put buy new dice on my to do list, no rush on it"), None if it adds none
    ("" when it names no item)."""
    t = _ASKING.sub("", _OPENER.sub("", text.strip()))
    lead = re.match(r"^[^,;:]{1,40}[,;:]\s+(?:just\s+)?", t)
    if lead is not None and _TODO_ADD.fullmatch(_up_to_the_list(t[lead.end() :])):
        t = t[lead.end() :]  # "don't schedule anything, just put 'X' on my todos"
    this = _TODO_THIS.fullmatch(t.rstrip(" ."))
    if this is not None:  # "add this to my to-do list please, no particular day: sort out …"
        return _REMARK_END.sub("", this["item"]).strip(" '\"“”")
    m = _TODO_ADD.fullmatch(_up_to_the_list(t)) or _TODO_ADD.fullmatch(
        POLITE_END.sub("", t).rstrip(" .!?")
    )
    if m is None:
        return None
    item = m.group("a") or m.group("b") or m.group("c") or m.group("d") or ""
    return _REMARK_END.sub("", item).strip(" '\"“”")


_TODO_LIST = re.compile(
    r"^(?:what'?s|what is|show(?: me)?|list|(?:can|could|may) i see|let me see)(?: still| left)?"
    r"\s+(?:on\s+)?(?:my|the|our)\s+"
    r"(?:to-?dos?|todo list|to-do list|to do list|tasks?(?: list)?|list of (?:tasks|to-?dos"
    r"|things to do))"
    r"(?: (?:real |really )?(?:quick|quickly))?"
    # "… before the trip", "… for the weekend": what the list is wanted for
    r"(?: (?:before|for|ahead of) (?:the |my |this |our )?[a-z']+(?: [a-z']+)?)?"
    r"|^what(?:'?s| is) (?:left|still open|open|still) on (?:my|the|our) (?:to-?do|to do|todo|task)"
    r" list"
    # "tell me what is there in my to do list", "what's in my todo list"
    r"|^(?:(?:tell|show) me )?what(?:'s| is| all is)(?: there)? (?:in|on) (?:my|the)"
    r" (?:to-?do|to do|todo|task) list"
    # "did I leave anything on my to-do list?", "is there anything on my todo list"
    r"|^(?:did i (?:leave|put|write)|is there|have i got|do i have) anything (?:left )?on"
    r" (?:my|the) (?:to-?do|to do|todo|task) list"
    r"|^(?:what|which) (?:tasks|to-?dos) (?:do i have|are (?:left|open|there))(?: left| open)?"
    # "todos?", "my to-do list"
    r"|^(?:my\s+|the\s+)?(?:to-?dos|to-?do list|to do list)"
    # "which household bits are still open on my to-do list", "what is in my list of things
    # to do"
    r"|^(?:what|which)\b[\w' ]{0,40}\b(?:on|in) (?:my|the|our) (?:to-?do list|to do list|todo list"
    r"|task list|list of (?:things to do|tasks|to-?dos))",
    re.I,
)

_WHEN_ASKED = (
    r"(?: for me| here| in this thread| today| tomorrow| this week"
    r"| for (?:today|tomorrow|this week)| right now| rn| at the moment| so far)?"
)
_LIST = re.compile(
    r"^(?:list|show|ls)(?: me)?(?: my| all| the)*"
    r"(?: (?:jobs?|reminders?|schedules?|scheduled(?: jobs| actions)?))?(?: in this thread)?"
    r"(?: once)?"
    r"|^(?:what|which)(?: are)?(?: all)?(?: my| the)? (?:jobs|reminders)"
    r"(?: do i have| have i got| are there| are set| are pending"
    r"| are (?:coming up|due|scheduled|left|planned)| do i have (?:coming up|left|scheduled))?"
    + _WHEN_ASKED
    + r"|^what(?:'s| is| have i| do i have| did i) (?:scheduled|got scheduled|set up|planned)"
    + _WHEN_ASKED
    + r"|^(?:what(?:'s| is)|is there anything|anything) (?:coming up|scheduled|planned|pending"
    r"|on the schedule|on my schedule)"
    + _WHEN_ASKED
    + r"|^what (?:do|did) i have (?:coming up|scheduled|planned|set up|lined up|pending)"
    + _WHEN_ASKED
    + r"|^(?:do i have|are there|have i got) any (?:jobs|reminders|scheduled (?:jobs|messages))"
    r"(?: set| scheduled| coming up| pending| left)?"
    + _WHEN_ASKED
    + r"|^show me what(?:'s| is| i have| i've got) (?:scheduled|coming up|planned)"
    + _WHEN_ASKED
    + r"|^(?:show|tell) me (?:everything|all|all the stuff|what)(?: that)?"
    r" (?:i'?ve|i have|i|you'?ve|you have) (?:scheduled|set up|got (?:scheduled|set up|coming up)"
    r"|planned)(?: for me)?"
    + _WHEN_ASKED
    # "what reminders do i even have rn", "can i see everything you've got scheduled for me",
    # "what have I actually got set up with you"
    + r"|^(?:what|which)(?: all)? (?:reminders|jobs)(?: (?:and|or|&) (?:scheduled )?(?:jobs"
    r"|reminders|messages|posts))?(?: (?:do|did|have))? i(?: even| actually"
    r"| really| still)? (?:have|got)(?: (?:set|scheduled|going|running|set up))?"
    + _WHEN_ASKED
    + r"|^(?:can|could|may) i see (?:everything|all|what)"
    r"(?: (?:you'?ve|youve|you have|i'?ve|i have))? (?:got )?"
    r"(?:scheduled|set up|planned|lined up)(?: for me)?"
    + _WHEN_ASKED
    + r"|^(?:(?:show|tell) me )?what(?: you'?ve| you have| i'?ve| i have)? got (?:queued(?: up)?"
    r"|lined up|scheduled|planned|set up)(?: for me)?"
    + _WHEN_ASKED
    + r"|^what (?:have|do) i(?: even| actually| really)? (?:got )?(?:set up|scheduled|planned"
    r"|lined up)(?: with you)?"
    + _WHEN_ASKED
    # "could you tell me which reminders and such I've got set up at the moment", "what
    # reminders have I got lined up before I fly out": which of the person's jobs there are
    + r"|^(?:(?:can|could|would) you )?(?:(?:please )?(?:tell|show|let) me (?:know )?)?"
    r"(?:what|which)(?: of)?(?: my| the)? (?:reminders|jobs|alarms)\b"
    r"(?=.*\b(?:have|got|set up|lined up|scheduled|coming up|pending|running|left)\b)"
    r"(?!.*\b(?:cancel|delete|remove|pause|stop|resume|change|should|could|would)\b).*"
    + r"|^what(?:'s| is) (?:next|up next|coming next)"
    + _WHEN_ASKED
    # "whats on this wk?", "what's on for tomorrow"
    + r"|^what(?:'?s| is) on(?: for(?: me)?)? (?:(?:this|next) (?:week|wk|weekend)|today|tomorrow"
    r"|tonight)"
    # "what's my next reminder?", "when is the next job due?"
     + r"|^(?:what|when|which)(?:'s| is| will be)? (?:my|the) next (?:reminders?|jobs?|alarms?"
    r"|pings?|one)(?: (?:due|going off|set|scheduled|coming up))?"
    + _WHEN_ASKED
    # "when is my pizza reminder?", "when does the standup job run?"
    + r"|^when(?:'s| is| will| does| do)? (?:my|the) [\w' -]{1,40}? "
    r"(?:reminders?|jobs?|pings?|alarms?)(?: (?:go off|fire|run|due|set for|scheduled for))?"
    # "what's on my plate, reminder-wise?", "what's on my schedule"
    r"|^what(?:'s| is) (?:on my (?:plate|schedule|calendar|agenda|list))(?:[, ]+reminder[- ]wise)?"
    + _WHEN_ASKED
    # "give me the rundown", "a quick overview of my reminders"
    + r"|^(?:(?:give|send|show)\s+me\s+)?(?:a|the)\s+(?:quick\s+|short\s+)?"
    r"(?:rundown|run-down|overview|summary|recap)"
    r"(?: of (?:my|all my|all|the|everything)(?: (?:jobs|reminders|schedules?|scheduled stuff))?)?"
    + _WHEN_ASKED,
    re.I,
)
# One sentence or more, each asking for the list: "anything pending? give me the rundown".
_SENTENCES = re.compile(r"\s*[?!.;]+\s*|\s+[—–]\s+|\s+-\s+|,\s+")
# Typed fast: "wat reminders do i have", "wut's on my list".
_WHAT_SLIPS = re.compile(r"^(?:wat|wut|wht|whta|wot)(?='?s?\b)")
# Said after a question, asking nothing more: "… again", "… rn", "… real quick".
_TAIL_WORDS = re.compile(
    r"(?:\s+(?:again|rn|right\s+now|now|atm|real\s+quick|quickly|pls|plz|please|lol|tho"
    r"|though|then|btw))+$"
)


# A courtesy inside a question: "show me please my to do list", "list kindly my reminders".
_COURTESY_INSIDE = re.compile(r"(?<=\w)\s+(?:please|pls|plz|kindly)\b,?(?=\s+\w)")


# Said before a question, no part of it: "wait", "sorry, I've completely lost track —".
_LEAD_IN = re.compile(
    r"^(?:(?:wait|ok|okay|so|hmm+|um+|btw|sorry|oops|ugh|quick question)\b[,:!—–-]?\s+"
    r"|(?:i'?ve|i have)\s+(?:completely\s+|totally\s+)?lost track(?:\s+of\s+\w+)?"
    r"\s*[,:—–-]\s*"
    r"|before\s+i\s+(?:log\s+off|go|leave|head\s+out|sign\s+off)\s*,\s*"
    r"|(?:can|could|would|will)\s+you\s+(?:please\s+)?(?=show|tell|list|give))+"
)
# A sentence after a question that asks nothing more: "I feel like I'm forgetting something".
_ASKS_MORE = re.compile(
    r"^(?:(?:and|then|also|but|plus|&|so)\s+)*(?:please\s+|pls\s+|can\s+you\s+)?"
    r"(?:add|put|remind|cancel|delete|remove|pause|stop|resume|move|set|schedule|create|make"
    r"|show|list|change|push|kill)\b|\b(?:remind|ping|nudge)\s+(?:me|us)\b"
)


def _aside(part: str) -> bool:
    """A few words of the person's own before a question ("on break", "quick", "ugh long
    day"): short, no number, no command, nothing asked."""
    return (
        len(part.split()) <= 4
        and not re.search(r"\d", part)
        and not starts_with_verb(part.strip())
        and not _ASKS_MORE.search(part)
    )


def _asks(pattern: re.Pattern[str], low: str) -> bool:
    """Whether the message asks what `pattern` reads: every sentence of it, or its first
    and then only remarks that ask nothing ("… on my to-do list? I feel like I'm forgetting
    something")."""
    low = _LEAD_IN.sub("", low)
    parts = [
        _TAIL_WORDS.sub("", _WHAT_SLIPS.sub("what", _COURTESY_INSIDE.sub("", p)))
        for p in _SENTENCES.split(low)
        if p and not POLITE_END.fullmatch(" " + p)
    ]
    asked = [bool(pattern.fullmatch(p)) for p in parts]
    if True in asked and all(_aside(p) for p in parts[: asked.index(True)]):
        # "on break, quick, whats still on my to do list": the asides go
        parts, asked = parts[asked.index(True) :], asked[asked.index(True) :]
    if not parts or (not asked[0] and not (len(parts) == 2 and asked[1])):
        # (or words of the person's own first, then the plain question: "what's on my
        # fixture list? show me everything you've got scheduled", "trying to get my admin
        # in order — what have I got scheduled with you?")
        return False
    return all(
        a or (not _ASKS_MORE.search(p) and timeparse.split_when(p, now=EPOCH, tz="UTC") is None)
        for a, p in zip(asked, parts, strict=True)
    )


_WHOSE_OCCASION = re.compile(rf"(?:\b{WHOSE}\s+)?\b{OCCASION_NOUN}\b", re.I)
ASK_WHAT = "What should I remind you about?"
# "list my reminders pls", "cancel 12 please": the courtesy is no part of the command.
# What is left of a message that says no task: a question word, a filler, a yes or no.
NO_TASK = frozenset(
    {"how", "what", "why", "when", "where", "who", "which", "so", "and", "then", "ok", "okay"}
    | {"yes", "no", "yeah", "nope", "maybe", "hmm", "well", "sure", "again", "instead"}
    | {"how about", "what about", "maybe at", "or"}
)
_ROLLED = "has already passed today. Shall I set it for tomorrow at"
_NO_TIME = (
    "I'm running without my AI model, so I only understand scheduling phrases right "
    "now, like `remind me tomorrow at 9 to call mom` or `in 30 minutes check the oven`. "
    "Say `help` for more."
)


# Words that speak of a job's own reminders ("stop pinging me about …", "… anymore").
_ITS_OWN_PINGS = re.compile(
    r"\b(?:ping|remind|nag|bug|bother|spam|nudge|message|text)(?:ing|s)?\s+(?:me|us)\b"
    r"|\b(?:any\s*more|no\s+longer)\b"
    # "kill the build check that runs every 45 min": a clause that says how the job runs
    rf"|{RUNS_CLAUSE}"
)
_RHYTHM = re.compile(
    r"\bevery\s+(?:\d+|other|few|couple\s+of)?\s*(?:min(?:ute)?s?|h(?:ou)?rs?|days?|weeks?|months?"
    r"|morning|evening|night|weekday|day)\b"
)


def _manage(low: str) -> Call | str | None:
    """cancel/pause/resume/move a job named by id; by a word of its text → list first."""
    asked = manage_request(low)
    if asked is None:
        return None
    tool, rest = asked
    by_id = JOB_NUMBER.match(rest)
    if tool != "update_scheduled_action" and not by_id and not BY_CLOCK.match(rest):
        # (its first clause: "pause the standup, the server is on a break this week")
        # and without a day part or rhythm that names the job: "the morning stretch reminder")
        head = re.split(r"[,;]\s|\s[—–-]\s", rest, maxsplit=1)[0]
        head = re.sub(r"\b(?:morning|afternoon|evening|night|daily|weekly|nightly)\b", " ", head)
        if _ITS_OWN_PINGS.search(low):
            # "stop pinging me about the build every 45 min", "I don't need the build check
            # every 45 minutes anymore": the rhythm is the job's own, said to name it
            head = _RHYTHM.sub(" ", head)
        words = read_words(head, EPOCH, "UTC")
        if words.instant is not None or words.recurrence is not None:
            return None  # "restart the build server in 2 hours" is a command for later
    if tool != "update_scheduled_action":
        if by_id and not rest[by_id.end() :].strip(" .!"):
            return tool, {"task_id": int(by_id.group(1))}
        if job_topic(rest) or HOW_IT_RUNS.search(rest):
            return "list_scheduled_actions", {}  # (which one: "the reminder that runs …")
        return None
    return ("list_scheduled_actions", {}) if (by_id or job_topic(rest)) else None


def reads_command(text: str) -> bool:
    """Whether the message is one of the commands this model reads fully: a change to one
    of the person's jobs ("cancel 12", "move the pizza reminder to 8pm", "pause the
    standup"), "my timezone is …" with a zone's name, or asking for the job list or the
    to-do list. Code settles them whichever model is configured — a small model picked
    wrong numbers, made new jobs for such requests, reminded "now" of "my timezone is
    Europe/Paris" and answered "what do I have coming up?" with a new job."""
    t = _clean(text)
    low = POLITE_END.sub("", t.lower().rstrip(" .!?"))
    zone = _zone_said(t)
    if zone is not None:
        return zone[1] is not None or _names_a_zone(zone[0])
    if _asks(_LIST, low) or _asks(_TODO_LIST, low):
        return True
    return isinstance(_manage(low), tuple)


# A reminder's text that points back at the conversation ("remind me about that at 5",
# "ping me about the above tomorrow"): what it means is in the thread, for a model to read.
_POINTS_BACK = re.compile(
    r"\b(?:it|that|this|these|those|them|above|earlier|previous|aforementioned|"
    r"(?:we|you|i|they|he|she)\s+(?:just\s+)?(?:said|discussed|talked|mentioned|agreed|decided))\b",
    re.I,
)


# Words a one-off reminder's reading leaves to a model: anyone but the person (a mention,
# "@everyone", "remind Bob", "us", a DM), the details of following up ("every 10 minutes
# until I answer", "up to 3 times", "if I ignore it") and any word of a repeat ("weekly",
# "on sundays"): a one-off read from such words is read wrong.
_NOT_PLAIN = re.compile(
    r"<[@#]|@\w|\b(?:remind|ping|nudge|nag|bug|tell|notify|alert|text|message|email)\s+(?!me\b)\w"
    r"|\b(?:dms?|direct(?:ly)?\s+messages?|privately|in\s+private|pm\s+me|everyone|everybody"
    r"|all\s+of\s+us|us|we|our|the\s+(?:team|channel|group|thread)|escalat\w*|every|each"
    r"|(?:hour|dai|night|week|fortnight|month|year|annual|biweek)ly|weekdays|weekends"
    r"|(?:mon|tues|wednes|thurs|fri|satur|sun)days|mornings|afternoons|evenings|nights"
    r"|until\s+i|till\s+i|up\s+to\s+\d+|\d+\s+times|again|keep\s+\w+ing"
    r"|if\s+i\s+(?:don'?t|do\s+not|haven'?t|have\s+not|ignore|miss|forget))\b",
    re.I,
)


def reads_reminder(text: str, now: datetime, tz: str) -> bool:
    """Whether the message is a one-off reminder this model reads fully — its time, its
    text, lead time and follow-ups all in the person's words ("remind me tomorrow at 9 to
    call mom", "my call with Sam is at 3pm"): code settles it, whichever model is
    configured (when `AgentKit.plain_reminders_in_code`). The person's words are the
    authority on when whatever a model writes (`Words.settle_*`), so a model added only
    its latency (5–10 s for ~35 tokens on two cores) and now and then a guess of its own.
    Left to the model: a text that points back at the thread ("about that", "the above"),
    which it sees, and reminders for others or with follow-up details (`_NOT_PLAIN`)."""
    if _NOT_PLAIN.search(_clean(text)):
        return False
    got = plan(text, now, tz)
    if not isinstance(got, tuple) or got[0] != "schedule_reminder":
        return False
    return not _POINTS_BACK.search(str(got[1].get("message", "")))


_LINE = re.compile(r"^#(\d+) (\w+) · (?:next (\S+)|no next run).*?“(.*)” · (\w+)$")


_LATER_VERBS = re.compile(r"^(?:(?:hit|press)\s+)?(?:snooze|postpone|delay|push|bump)\b")
_DIRECTION = re.compile(r"\b(?:back|later|by|earlier|forward|ahead|more|extra)\b")


def _shifted(low: str, after: str, at: str) -> str | None:
    """The job's new time when the change is a span from its time: "back an hour", "by 10
    minutes", "30 minutes later", "an hour earlier"; "forward"/"ahead" say no direction
    plainly, so the person is asked."""
    direction = set(_DIRECTION.findall(after))
    span = timeparse.parse_duration(_DIRECTION.sub(" ", after).strip())
    if span is None or not at:
        return None
    verb = unhedged(low)
    if re.match(r"^(?:bring|pull)\b", verb):
        direction.add("earlier")  # "bring the standup forward an hour"
    if direction & {"forward", "ahead"} and "earlier" not in direction:
        return "ask"
    if "earlier" in direction:
        span = -span
    elif not direction & {"back", "later", "by", "more", "extra"} and not _LATER_VERBS.match(verb):
        return None
    return (datetime.fromisoformat(at) + span).isoformat()


_FROM_ON = re.compile(
    r"\s+(?:from|starting(?:\s+from)?)\s+(?:tomorrow|tmrw|tmr|2moro|today|now|next\s+week|monday"
    r"|tuesday|wednesday"
    r"|thursday|friday|saturday|sunday)(?:\s+on(?:wards?)?)?$"
)


def _pick(prompt: str, listing: str, now: datetime, tz: str) -> Call | str:
    """After the job list came back: the job the person named, and what to do with it."""
    low = _clean(prompt).lower().rstrip(" .!?")
    jobs = [m.groups() for m in map(_LINE.match, listing.splitlines()) if m]
    tool, rest = manage_request(low) or ("", "")
    by_id = JOB_NUMBER.match(rest)
    if by_id:
        chosen = [j for j in jobs if j[0] == by_id.group(1)]
        after = rest[by_id.end() :].strip()
    else:
        words, after = split_topic(rest)
        chosen = (
            [
                j
                for j in jobs
                if topic_fits(j[3], datetime.fromisoformat(j[2]) if j[2] else None, words)
            ]
            if words
            else []
        )
    if len(chosen) != 1:
        if not chosen:
            return "I couldn't find that job. Say `list` to see your jobs and their numbers."
        options = ", ".join(f"#{j[0]} “{j[3]}”" for j in chosen[:5])
        return f"Which one do you mean: {options}? Say e.g. `{tool.split('_')[0]} {chosen[0][0]}`."
    job_id = int(chosen[0][0])
    if tool != "update_scheduled_action":
        return tool, {"task_id": job_id}
    said_clock = _FROM_ON.sub("", after)
    if timeparse.clock_of(said_clock) is not None:
        # "quarter to nine (from tomorrow on)": a new time of day, said whole
        return tool, {"task_id": job_id, "new_time": said_clock}
    shifted = _shifted(low, after, chosen[0][2] or "")
    if shifted is not None and chosen[0][1] in ("recurring", "interval"):
        # a span moves one run; a repeat's own time is said anew
        return (
            f"#{job_id} repeats, so say its new time, e.g. `move {job_id} to every weekday "
            "at 8:30` (or `/jobs edit`)."
        )
    if shifted == "ask":
        return (
            f"Earlier or later? Say e.g. `move {job_id} 30 minutes earlier` or "
            f"`move {job_id} back an hour`."
        )
    if shifted is not None:
        return tool, {"task_id": job_id, "new_time": shifted}
    target = re.sub(r"^.*?\b(?:to|until|till|for)\s+", "", after, count=1)
    # "quarter to nine from tomorrow on": when the change begins is the next run's business
    target = _FROM_ON.sub("", target)
    if target and timeparse.clock_of(target) is not None:
        # "to 9:30", "to 7": a new time of day alone, placed by the tool on the job's own
        # day (or days), the half of the day not said nearer its current time
        return tool, {"task_id": job_id, "new_time": target}
    said = read_words(target, now, tz) if target else None
    if said is not None and said.instant is not None and not said.ambiguous:
        return tool, {"task_id": job_id, "new_time": said.instant.isoformat()}
    if said is not None and said.recurrence is not None:
        return tool, {"task_id": job_id, "new_time": target}
    return f"When should #{job_id} run instead? Say e.g. `move {job_id} to friday 10am`."


def _recurring(what: str, sched: Schedule) -> Call:
    # its end too (the words of an answer, "18 december" to "when should it stop?", don't
    # say the repeat it ends)
    ends: dict[str, Any] = {}
    if sched.until is not None:
        ends["until"] = sched.until.isoformat()
    if sched.max_runs is not None:
        ends["max_runs"] = sched.max_runs
    if isinstance(sched.spec, Every):
        return "schedule_action", {
            "description": what,
            "type": "interval",
            "schedule": f"{sched.spec.seconds} seconds",
            **ends,
        }
    # a rule goes on as its stored form (start and exceptions kept): its words, e.g. "every
    # other Thursday at 15:00 (Europe/Berlin)", do not say which week it starts in
    text = sched.spec.expr if isinstance(sched.spec, Cron) else json.dumps(spec_to_json(sched.spec))
    return "schedule_action", {"description": what, "type": "recurring", "schedule": text, **ends}


# The bot's own mention a message starts with ("@Homar remind me …").
_LEADING_MENTION = re.compile(r"^\s*<@!?\d{1,20}>")
SOMEONE_ELSE = (
    "I can't read a request with an @mention in it without my AI model, so I set nothing. "
    "To remind someone else, use `/remind` with `to: @them`; for a reminder of your own, "
    "write their name without the @."
)


def plan(text: str, now: datetime, tz: str, *, yes: bool = False) -> Call | str:
    """A tool call for `text`, or the text to answer with.

    Schedules only what it fully reads; otherwise asks for the missing piece or says
    plainly what it could not read. `yes`: the person agreed to "tomorrow at HH:MM?".
    """
    t = _clean(text)
    low = POLITE_END.sub("", t.lower().rstrip(" .!?"))
    if not low or asks_for_help(t):
        return HELP
    if _asks(_LIST, low):
        return "list_scheduled_actions", {}
    if _asks(_TODO_LIST, low):
        return "list_tasks", {}
    item = _todo_added(t)
    if item is not None:
        return ("add_task", {"description": item}) if item else "What should I add?"
    zone = _zone_said(t)
    if zone is not None:
        return "set_timezone", {"zone": zone[1] or zone[0]}
    kept = KEEP_ZONE.search(t)
    if kept is not None and kept["zone"] and not REMIND.search(t):
        other = resolve_zone(kept["zone"])
        if other is not None and other != tz:  # "keep me on Berlin time" from Tokyo's
            return "set_timezone", {"zone": other}
    managed = _manage(low)
    if managed is not None:
        return managed
    instead = no_job_because(t)
    if instead is not None:
        return instead
    if USER_MENTION.search(_LEADING_MENTION.sub("", text, count=1)):
        return SOMEONE_ELSE  # never a job that drops the person named, or their name
    remind = bool(REMIND.search(QUOTED.sub(" ", t)))  # not a word of a message to post
    if remind and re.search(
        # "remind me now to …", "ping me right now", "now remind me …"; not "I'm in Tokyo
        # right now, remind me at 9pm …" (where the person is now)
        rf"(?:^|\s){NOT_NOW}(?:right\s+)?now[\s.!]*$"
        rf"|^(?:(?:\S+\s+){{0,2}}(?:me|us)\s+)?{NOT_NOW}(?:right\s+)?now\b",
        t,
        re.I,
    ):
        what = what_of(re.sub(r"\b(?:right\s+)?now\b", " ", t, flags=re.I))
        return "schedule_reminder", {"reminder_time": "now", "message": what or "reminder"}
    bad = no_such_clock(t)
    if bad is not None:
        return bad  # "monday at 25:30": asked before reading any time
    words = read_words(t, now, tz)
    what = what_of(words.rest)
    when = words.recurrence or words.instant
    occasion = bool(OCCASION.search(QUOTED.sub(" ", t)))
    event = words.event or occasion
    if not what and occasion:
        # "remind me every year on Emil's birthday, january 19": the occasion is the thing
        named = _WHOSE_OCCASION.search(QUOTED.sub(" ", t))
        what = named.group(0) if named else ""
    if when is None:
        if words.ambiguous or TWO_CLOCKS.search(QUOTED.sub(" ", t)):
            # (or two clocks for one reminder, read as none: "remind me at 9am and 5pm to
            # take meds" is told so, not asked "when?" as if no time had been said)
            return TWO_TIMES
        if remind or event:
            return timeparse.explain_invalid_date(t) or ASK_WHEN
        if QUOTED.search(t) and POST_VERB.search(QUOTED.sub(" ", t)):
            return timeparse.explain_invalid_date(t) or ASK_WHEN_POSTED
        if POSTS_ON_EVENT.match(unhedged(t.lower().strip())):
            # "post the patch notes here whenever they drop": no clock says when
            return WAIT_FOR_EVENT
        return _NO_TIME
    if words.rolled and not yes and words.instant is not None:
        return f"{words.instant:%H:%M} {_ROLLED} {words.instant:%H:%M}?"
    if words.half_day:
        return half_day_question(words)
    if words.ambiguous and not words.rolled:
        return TWO_TIMES
    if not what or what.lower().strip(" ?!.,") in NO_TASK or is_chat(what):
        # "sure, tomorrow works" with no question of ours before it: no task is said
        # "how about 9?" with nothing asked before: "how" is nothing to do
        return ASK_WHAT if (remind or event) else "What should I do then?"
    if words.statement:
        return NOT_A_REQUEST
    if words.recurrence is not None:
        if words.unread_end:
            return end_question(words.unread_end)  # "until the end of term": when is that?
        return _recurring(what, words.recurrence)
    at = words.instant
    assert at is not None
    far = far_weekday_date(t, at, now)
    if far is not None:
        return far  # "saturday the 21st", when the next one is 9 months off
    posted = starts_with_verb(what) and bool(QUOTED.search(t))  # "on new year's eve post '…'"
    if remind or (event and not posted) or is_note(what, t):
        args: dict[str, Any] = {"reminder_time": at.isoformat(), "message": what}
        if words.lead is not None:
            args["minutes_before"] = int(words.lead.total_seconds() // 60)
        elif words.event and words.meeting:
            args["minutes_before"] = MEETING_LEAD
        if words.nag:
            args["follow_up"] = True
        return "schedule_reminder", args
    delay = at - now
    relative = re.search(r"\b(?:in|after)\s+(?:\d|an?\b|half|a\s+few)", QUOTED.sub(" ", t), re.I)
    if relative or starts_with_a_span(t):
        secs = round(delay.total_seconds())
        return "send_delayed_message", {
            "message": what,
            "hours": secs // 3600,
            "minutes": secs % 3600 // 60,
            "seconds": secs % 60,
        }
    return "send_scheduled_message", {"message": what, "scheduled_datetime": at.isoformat()}


def _fired(prompt: str) -> str:
    """The offline answer to a fired prompt (`marker.fired_prompt`): the reminder itself."""
    command, follow_up = read_wake(fired_command(prompt) or prompt)
    if follow_up is not None:
        return plain_follow_up(command, follow_up.attempt, follow_up.of)
    return f"⏰ {command}"


_NOTHING = "Okay — nothing scheduled."
_QUESTIONS = (ASK_WHEN, ASK_WHEN_POSTED, ASK_WHAT, "What should I do then?")
# The scheduling tools' own questions when a model's call lacked the time or the text
# (`tools.agent.scheduling._ask_when`/`_ask_what`): answered like this model's own.
_OUR_QUESTION = re.compile(
    r"^(?:What should I remind you about\?|I didn't see a time in that\b.*When should it be)",
    re.S,
)
_YES = re.compile(
    # "yes", "tomorrow then", "sure, tomorrow works", "ok that works for me"
    r"^(?=.*[a-z])(?:(?:y|yes|yeah|yep|yup|sure|ok|okay|please|perfect|great|fine|correct|"
    r"right|sounds good|do it|go ahead)\b[\s,.!]*)*"
    r"(?:tomorrow(?:\s+(?:then|works|is\s+(?:fine|good|ok|okay)|it\s+is|please))?"
    r"|(?:that\s+)?works(?:\s+for\s+me)?|that'?s\s+fine)?[\s.!]*$",
    re.I,
)
# "no end", "never", "keep going": a repeat with no last day
_NO_END = re.compile(
    r"^(?:no\s+end(?:\s+date)?|none|never|forever|indefinitely|keep\s+(?:going|it\s+going)"
    r"|until\s+(?:i\s+(?:cancel|stop)\s+it|further\s+notice)|don'?t\s+end\s+it|open[- ]ended)$",
    re.I,
)
_NO = re.compile(r"^(?:n|no|nope|nah|no thanks|never ?mind|cancel|don'?t|forget it)[\s.!]*$", re.I)


def _prompts(messages: list[ModelMessage]) -> list[str]:
    """The person's messages in this history, oldest first."""
    out = []
    for m in messages:
        if isinstance(m, ModelRequest):
            out += [
                _own_words(p.content)
                for p in m.parts
                if isinstance(p, UserPromptPart) and isinstance(p.content, str)
            ]
    return out


def settles_answer(history: list[ModelMessage], prompt: str, now: datetime, tz: str) -> bool:
    """Whether this message answers Homar's own question ("tomorrow at 08:00?" → "yes";
    "When should it be?" → "in 2 hours"; "What should I remind you about?" → "to check the
    oven") in a way this model reads fully: then code settles the turn, whichever model
    asked (a small model answered "yes" with prose and "to check the oven" with no call)."""
    said = prompt.strip()
    messages = [*history, ModelRequest(parts=[UserPromptPart(said)])]
    got = _answering(messages, said, now, tz)
    return isinstance(got, tuple) or got == _NOTHING


def answered_as(history: list[ModelMessage], prompt: str) -> str | None:
    """The whole request a short answer completes, when Homar's question was which half of
    the day a clock is in ("Is 4:30 on Tue 24 Nov in the morning or in the afternoon?" →
    "pm"): the earlier message with its clock made plain, read as the person's words."""
    messages = [*history, ModelRequest(parts=[UserPromptPart(prompt.strip())])]
    earlier = _prompts(messages)[:-1]
    if not earlier:
        return None
    asked = last_answer(messages)
    if (
        "?" in asked
        and their_time_in(prompt)[0] is None
        and their_time_in(prompt, earlier[-1])[0] is not None
    ):
        # "tomorrow 10am their time" to "When should I remind you?" about "my call with the
        # Chicago client": their time is the place the request named
        return f"{earlier[-1]} {prompt}"
    if HALF_DAY_ASKED not in asked:
        return None
    return with_half_day(earlier[-1], prompt)


def _answering(
    messages: list[ModelMessage], prompt: str, now: datetime, tz: str
) -> Call | str | None:
    """The current message as the answer to Homar's own question, if it asked one."""
    asked = last_answer(messages)
    earlier = _prompts(messages)[:-1]
    if not asked or not earlier:
        return None
    before = earlier[-1]
    if _ROLLED in asked:
        if _YES.match(prompt.strip()):
            return plan(before, now, tz, yes=True)
        if _NO.match(prompt.strip()):
            return _NOTHING
        return None
    if asked.startswith(END_ASKED):
        # "… until the end of term" asked about: its last day, or no end at all
        end = read_words(before, now, tz).unread_end
        if end is None or _NO.match(prompt.strip()):
            return _NOTHING if _NO.match(prompt.strip()) else None
        said = prompt.strip().rstrip(" .!")
        if _NO_END.match(said):
            return plan(before.replace(end, " ", 1), now, tz)
        said = re.sub(r"^(?:until|till|til|through|thru|on|it'?s)\s+", "", said, flags=re.I)
        return plan(before.replace(end, f"until {said}", 1), now, tz)
    if HALF_DAY_ASKED in asked:
        whole = with_half_day(before, prompt)
        if whole is not None:
            return plan(whole, now, tz)
        return _NOTHING if _NO.match(prompt.strip()) else None
    if asked in _QUESTIONS or _OUR_QUESTION.match(asked):
        if _NO.match(prompt.strip()):
            return _NOTHING
        if asked in (ASK_WHEN, ASK_WHEN_POSTED):
            # the answer says when: a vague time before it is void ("need a reminder in a
            # bit" → "45 min, baste the turkey"), and a span said first is from now
            before = _VAGUE_TIME.sub(" ", before)
            before = re.sub(r"\b(?:i\s+)?need\s+a\s+reminder\b", "remind me", before, flags=re.I)
            if starts_with_a_span(prompt):
                prompt = f"in {prompt}"
        got = plan(f"{before} {prompt}", now, tz)
        return None if isinstance(got, str) and got == _NO_TIME else got
    return None


_VAGUE_TIME = re.compile(
    r"\b(?:in\s+a\s+(?:bit|while|sec|second|moment|minute)|later(?:\s+on)?|sometime(?:\s+soon)?"
    r"|soon(?:ish)?|at\s+some\s+point)\b",
    re.I,
)


def offline_reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The FunctionModel body."""
    last = messages[-1] if messages else None
    fresh = isinstance(last, ModelRequest) and any(
        isinstance(p, UserPromptPart) for p in last.parts
    )
    prompts = _prompts(messages)
    prompt = prompts[-1] if prompts else ""
    now, tz = reference(info, messages)
    if isinstance(last, ModelRequest) and not fresh:
        for part in last.parts:
            if isinstance(part, ToolReturnPart) and part.tool_name == "list_scheduled_actions":
                listing = part.model_response_str()
                if _manage(_clean(prompt).lower().rstrip(" .!?")) is not None:
                    got = _pick(prompt, listing, now, tz)
                    if not isinstance(got, str):
                        return ModelResponse(parts=[ToolCallPart(got[0], got[1])])
                    return ModelResponse(parts=[TextPart(got)])
                return ModelResponse(parts=[TextPart(f"Your jobs:\n{listing}")])
            if isinstance(part, ToolReturnPart) and part.tool_name in _PLAIN_REPLIES:
                return ModelResponse(parts=[TextPart(part.model_response_str())])
            if isinstance(part, ToolReturnPart | RetryPromptPart):  # never loop on a retry
                why = part.model_response_str() if isinstance(part, ToolReturnPart) else ""
                why = why or (part.model_response() if isinstance(part, RetryPromptPart) else "")
                return ModelResponse(parts=[TextPart(f"Sorry, I couldn't do that. {why}".strip())])
    if fired_command(prompt) is not None:
        return ModelResponse(parts=[TextPart(_fired(prompt))])
    answered = overlap.answer(messages, prompt)  # "replace" / "keep both" / "cancel"
    if isinstance(answered, str):
        return ModelResponse(parts=[TextPart(answered)])
    if answered is not None:
        return ModelResponse(parts=[ToolCallPart(*answered)])
    try:
        answered = _answering(messages, prompt, now, tz) if fresh else None
        got = plan(prompt, now, tz) if answered is None else answered
    except Exception:
        got = HELP
    if isinstance(got, str):
        return ModelResponse(parts=[TextPart(got)])
    return ModelResponse(parts=[ToolCallPart(got[0], got[1])])


_PLAIN_REPLIES = ("list_tasks", "add_task", "set_timezone", "complete_task")


async def _offline_reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    # Async, though it awaits nothing: pydantic-ai runs a sync model function in a worker
    # thread, a thread hop (and a GIL hand-over) on every request.
    return offline_reply(messages, info)


def offline_model() -> FunctionModel:
    return FunctionModel(_offline_reply, model_name=OFFLINE_NAME)


def is_offline(model: object) -> bool:
    """Whether `model` is the built-in offline model (it calls no action tools, needs no repair)."""
    return getattr(model, "model_name", "") == OFFLINE_NAME
