"""The agent's scheduling toolset: time resolution, job creation and management, confirmations.

Every time argument is ISO 8601 or a phrase, read by `timeparse.read_time` (the entry
every surface uses) in the user's zone against the run's reference time, so the model
never does date arithmetic; the person's own words (`words`) win where they are clear. Results carry
the job id, the time as ISO and as Discord timestamps, and the schedule in plain words.
Terminal functions (creating jobs, cancel/pause/resume/update) are pydantic-ai output
functions: their confirmation ends the run after one model request.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal
from zoneinfo import ZoneInfo

from pydantic_ai import ApprovalRequired, ModelRetry, RunContext
from pydantic_ai.messages import ModelResponse, ToolCallPart

from storage.jobs import Job
from storage.models import JobKind
from tools import job_scope, overlap, timeparse
from tools.actions.fit import capability_note
from tools.agent.deps import HomarDeps
from tools.agent.words import (
    ASK_WHEN_POSTED,
    EITHER_TIME,
    JOB_NUMBER,
    MIDNIGHT,
    NOT_A_REQUEST,
    NOT_NOW,
    POST_VERB,
    POSTS_ON_EVENT,
    QUOTED,
    REMIND_SLIPS,
    TWO_CLOCKS,
    TWO_TIMES,
    WAIT_FOR_EVENT,
    Words,
    either_question,
    end_question,
    far_weekday_date,
    half_day_question,
    has_word,
    is_note,
    last_answer,
    manage_request,
    named_job,
    no_job_because,
    no_such_clock,
    read_words,
    said_lately,
    split_off_instruction,
    starts_with_verb,
    topic_fits,
    unhedged,
    what_of,
)
from tools.approval import needs_approval, render_proposal
from tools.audience import Addressing, Audience, addresses_others
from tools.errors import LimitReached, NoSuchDate, NotAllowed, UserError, quoted
from tools.job_scope import Change
from tools.jobs.model import schedule_of
from tools.schedule import (
    Cron,
    Every,
    Once,
    Schedule,
    ScheduleError,
    localize,
    parse_at_form,
    spec_from_json,
    stamp,
    zone,
)

log = logging.getLogger(__name__)

NOW_SLACK = timedelta(minutes=2)  # a time this close behind "now" still means "now"
NOW_WINDOW = timedelta(seconds=60)  # a reminder due sooner than this is delivered at once
MAX_FIRED_JOBS = 3
MAX_RUN_JOBS = 5


# ---------------------------------------------------------------- time language adapter

_CRON = re.compile(r"^\s*(\S+\s+){4}\S+\s*$")


@dataclass(frozen=True)
class Resolved:
    at: datetime
    rolled: datetime | None = None  # a bare time of day already past today (at = tomorrow)


# A date written out (ISO, numeric, a month's name): the time isn't a bare time of day.
_DATED = re.compile(
    r"\d{4}-\d{1,2}-\d{1,2}|\b\d{1,2}[./]\d{1,2}[./]\d{2,4}\b"
    r"|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s*\d",
    re.I,
)


def resolve_time(text: str, now: datetime, tz: str) -> Resolved:
    """A tool's instant argument through `timeparse.read_time` (a UserError if unread),
    noting a bare time of day that already passed today, so the tool can ask "tomorrow?"."""
    at = timeparse.read_time(text, now=now, tz=tz)
    if at > now and at.date() != now.astimezone(zone(tz)).date():
        today = timeparse.parse_instant(f"today {text.strip()}", now=now, tz=tz)
        # only a bare time of day rolls ("today" at the same wall time, a day earlier):
        # "2026-12-02 00:00" isn't "today at 00:00, tomorrow?"
        if (
            today is not None
            and at - today == timedelta(days=1)
            and not _DATED.search(text)
            and not MIDNIGHT.search(text)  # "half past midnight": the coming one
            and today <= now - NOW_SLACK
        ):
            return Resolved(at, rolled=today)
    return Resolved(at)


def parse_recurrence(text: str, now: datetime, tz: str) -> Schedule | None:
    """Cron, seed 003's `daily@HH:MM` forms or English ("every weekday at 8"), or None.

    A malformed `…@…` form raises a ScheduleError saying what to type.
    """
    s = (text or "").strip()
    if s.startswith("{") and s.endswith("}") and len(s) <= 2000:
        # a rule as the offline reading hands it on (`offline._recurring`): its start kept
        try:
            data = json.loads(s)
            if isinstance(data, dict) and data.get("type") in ("rrule", "cron"):
                return Schedule(spec_from_json(data), tz)
        except (ValueError, KeyError, TypeError, ScheduleError):
            pass
        return None
    at_form = parse_at_form(s)
    if at_form is not None:
        return Schedule(at_form, tz)
    if _CRON.match(s) and not re.search(r"[a-z]{4,}", s, re.I):
        try:
            return Schedule(Cron(s), tz)
        except ScheduleError:
            return None
    return timeparse.parse_recurrence(s, now=now, tz=tz)


# ---------------------------------------------------------------- formatting


def _model_line(job: Job, sched: Schedule, deps: HomarDeps | None = None) -> str:
    """A job for the model and the list: id, kind, next run (ISO and Discord), schedule, text."""
    nxt = "no next run"
    if job.next_run_at is not None:
        nxt = f"next {job.next_run_at.astimezone(sched.zone).isoformat()} {stamp(job.next_run_at)}"
    text = job_scope.shown(deps, job) if deps is not None else f"“{job.command}”"
    return f"#{job.id} {job.kind} · {nxt} · {sched.describe()} · {text} · {job.status}"


def job_line(job: Job) -> str:
    sched = schedule_of(job)
    when = stamp(job.next_run_at) if job.next_run_at else "no next run"
    repeat = f" — {sched.describe()}" if sched.is_recurring else ""
    return f"#{job.id} {job.kind} · {when}{repeat} · “{job.command}” · {job.status}"


def _record(ctx: RunContext[HomarDeps], text: str, model_text: str | None = None) -> str:
    st = ctx.deps.state
    st.lines.append(text)
    if ctx.tool_call_id:
        st.model_lines[ctx.tool_call_id] = model_text or text
    return text


def _confirm(ctx: RunContext[HomarDeps], job: Job, extra: str = "") -> str:
    sched = schedule_of(job)
    ctx.deps.state.job_ids.append(job.id)
    when = stamp(job.next_run_at) if job.next_run_at else ""
    if sched.is_recurring:
        text = f"⏰ Job #{job.id}: {sched.describe()}, first {when} — “{job.command}”{extra}"
    else:
        text = f"⏰ Got it — job #{job.id} runs {when}: “{job.command}”{extra}"
    return _record(ctx, text, "Created job " + _model_line(job, sched) + extra)


def _clarify(ctx: RunContext[HomarDeps], text: str) -> str:
    ctx.deps.state.clarifier = True
    return _record(ctx, text)


def _past_question(ctx: RunContext[HomarDeps], at: datetime, rolled: datetime | None) -> str:
    now = ctx.deps.reference_now()
    if rolled is not None:
        return _clarify(
            ctx,
            f"{rolled:%H:%M} has already passed today. Shall I set it for tomorrow at "
            f"{at:%H:%M} ({stamp(at)})?",
        )
    nxt = at
    if at.date() >= now.date() - timedelta(days=1):
        while nxt <= now:
            nxt += timedelta(days=1)
    else:
        years = now.year - at.year
        nxt = at.replace(year=at.year + years) if not (at.month == 2 and at.day == 29) else at
        if nxt <= now:
            nxt = nxt.replace(year=nxt.year + 1)
    return _clarify(
        ctx,
        f"That time ({at:%a %d %b %Y %H:%M}) is already past. Did you mean {stamp(nxt)}?",
    )


def words_of(deps: HomarDeps) -> Words:
    """The person's words for this run (empty on fired runs and approval decisions)."""
    return deps.state.words if deps.state.words is not None else Words("")


# Words that may be part of a time even where the time language reads none.
_TIMEISH = re.compile(
    r"\d|\b(?:noon|midnight|morning|afternoon|evening|night|tonight|today|tomorrow|"
    # a unit counts with an amount or a "next"/"this" before it: not "Nan's visiting hours"
    r"(?:an?|few|couple(?:\s+of)?|several|some|next|this|that|per|every|each|other|more)\s+"
    r"(?:days?|weeks?|months?|years?|hours?|minutes?|mins?|seconds?|secs?)|weekends?|"
    r"o'?clock|half|"
    r"quarter|eod|eow|daily|weekly|monthly|hourly|yearly|every|each|"
    r"(?:mon|tues?|wednes|thur?s?|fri|satur|sun)(?:day)?s?|"
    r"jan(?:uary)?|feb(?:ruary)?|march|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b",
    re.I,
)


def _calls_made(ctx: RunContext[HomarDeps]) -> int:
    """How many tool calls the model's latest response makes."""
    for message in reversed(ctx.messages):
        if isinstance(message, ModelResponse):
            return sum(isinstance(p, ToolCallPart) for p in message.parts)
    return 0


_DANGLING = re.compile(r"\b(?:every|each)\W*$", re.I)
# A request to be reminded: without a time in it, the time is the person's to give.
# "for now", "by now", "until now", "just now": no time to act at.
_NOW = re.compile(
    rf"{NOT_NOW}\b(?:now|asap|immediately|straight away|right away|at once)\b",
    re.I,
)
# A request to do something, asked politely ("can you …", "could you please …", "please …").
_ASKED_TO = re.compile(r"^\W*(?:(?:can|could|would|will)\s+(?:you|u)\b|pl(?:ea)?se?\b|pls\b)", re.I)
_REMIND_ASKED = re.compile(
    rf"\b(?:remind\w*|reminder|{REMIND_SLIPS}|rmd|rmnd|rm(?=\s+me\b)|nag|nudge me|ping me|alert me"
    r"|(?:don'?t|do not) let me forget)\b",
    re.I,
)


_REMIND_OF = re.compile(
    r"\b(?:remind\w*|nag|ping|nudge|alert)\s+(?:me|us)\s+(?:about|of|re)\b", re.I
)


# A half of the day said alone: "pm", "a.m.", "in the afternoon".
_HALF_ALONE = re.compile(
    r"(?:in\s+the\s+)?(?:am|pm|a\.m\.?|p\.m\.?|morning|afternoon|evening|night)", re.I
)


class AskWhen(UserError):
    """A reminder was asked for without any time: the answer is a question."""


def _ask_when(ctx: RunContext[HomarDeps]) -> None:
    """Refuse a time only the model can have made up: the person names no time (nor
    anything the time language can't read but a model might: "in a jiffy", "now"), and
    neither did their earlier messages in this thread's recent turns (the answer to a
    question, "to check the oven", relies on "remind me in 10 minutes" before it) — when
    they ask to be reminded, ask for something to be done ("can you turn off the lights?":
    the 0.5B made a reminder for tonight), or only chat ("lol ok": the 1.5B made a
    reminder "now" of it, with a follow-up)."""
    deps = ctx.deps
    words = deps.state.words
    if deps.fired or words is None:
        return
    if words.unread_end and words.recurrence is not None:
        # "every evening at 7 until the end of term": no date to end on, and any a model
        # wrote would be made up (the answer is read in code: `offline._answering`)
        raise AskWhen(end_question(words.unread_end))
    instead = no_job_because(words.text)
    if instead is not None:
        # "if I asked you to remind me at 5, would …?", "can you ring my dentist …
        # friday?", "sometime next week", "each morning and evening" (the 1.5B and the
        # offline reading made jobs of these, the twenty-first and twenty-second sets)
        raise AskWhen(instead)
    if _HALF_ALONE.fullmatch(words.text.strip(" .!?")):
        # "pm" with no question of ours before it (the answer to one is read in code): the
        # 1.5B made a second job of the reminder it had just made (the thirteenth set)
        raise AskWhen(
            f"“{words.text.strip()}” on its own names no time, so nothing new is scheduled. "
            "To change a job's time, say e.g. `move 12 to 5:45pm`."
        )
    # "remind me 2 hours before my flight": when the flight is, only the person knows (the
    # 1.5B wrote "in 2 hours", which less the lead is now: a reminder at once).
    # A change to a job ("move the pizza reminder an hour earlier") shifts its own time.
    lead = words.lead
    if (
        lead is not None
        and words.instant is None
        and words.recurrence is None
        and named_job(words.text) == (None, [])
        and not any(w.instant is not None for w in _earlier_words(ctx))
    ):
        raise AskWhen(
            f"When is it? Tell me its time (e.g. “at 6pm tomorrow”) and I'll remind you "
            f"{duration_words(lead)} before."
        )
    if not words.timeless or words.statement:
        return  # a statement or question gets its own answer (`_not_a_request`)
    outside = QUOTED.sub(" ", words.text).strip(" .!?,;")
    if not outside.strip(":") or (
        # what someone else wrote, only introduced ("landlord just texted: "…""): the 1.5B
        # made a reminder of it (the twenty-fifth set)
        outside.endswith(":")
        and not _REMIND_ASKED.search(outside)
        and not _ASKED_TO.match(outside)
        and not starts_with_verb(outside)
    ):
        # only quoted or pasted text (a traceback in a code block): nothing is asked of us;
        # the 1.5B made a reminder of a pasted traceback (the fifteenth prompt set)
        raise AskWhen(NOT_A_REQUEST)
    chat = is_chat(words.text)  # "good morning!": a greeting, though "morning" is time-ish
    said = _DANGLING.sub("", words.text)  # "remind me to call mom every": no time said
    if _VAGUE_RHYTHM.search(QUOTED.sub(" ", said)) and not any(
        not w.timeless for w in _earlier_words(ctx)
    ):
        # "remind me twice a week to clean the fish tank": how often, not when; the 1.5B
        # made it every weekday at the reference time (the nineteenth set)
        raise AskWhen(VAGUE_RHYTHM)
    # the words of a message to post are no time of it, nor is an amount ("all 4,200
    # euros of it 🎉": the 1.5B made a reminder "now" of it, the thirtieth set)
    unquoted = _QUANTITY.sub(" ", QUOTED.sub(" ", said))
    answering = any(not w.timeless for w in _earlier_words(ctx))
    if not answering and _VAGUE_LEAD.search(said):
        # "remind me … a few days before the trip": how long, and before when? The 1.5B
        # picked a day (the fortieth set)
        raise AskWhen(VAGUE_LEAD)
    if not answering and POSTS_ON_EVENT.match(unhedged(said.lower().strip())):
        # "post the patch notes here whenever they drop": no clock says when; the 1.5B
        # made one up (the thirty-seventh set)
        raise AskWhen(WAIT_FOR_EVENT)
    if not chat and (_TIMEISH.search(unquoted) or _NOW.search(unquoted)):
        return  # a time the time language can't read may still be one the model did
    asked = _REMIND_ASKED.search(words.text) or _ASKED_TO.match(words.text)
    if not (answering or asked) and QUOTED.search(said) and POST_VERB.search(unquoted):
        # "kindly post 'the stand-up is moved to 11:30' in here": the time is the person's
        # to give; the 1.5B took the one in the message (the thirty-eighth set)
        raise AskWhen(ASK_WHEN_POSTED)
    if not chat and not _REMIND_ASKED.search(words.text) and not _ASKED_TO.match(words.text):
        thanked = _THANKS_FIRST.match(words.text) is not None  # "thank you dear, …"
        if not _CHAT_MARK.search(words.text) or (starts_with_verb(words.text) and not thanked):
            return
        # a remark with no time and nothing asked ("gg everyone that raid was insane 🔥",
        # "thanks homar ur the goat", "… all 4,200 euros of it 🎉"): the 1.5B made them
        # reminders (the sixteenth, eighteenth and thirtieth prompt sets)
        chat = True
    if any(not w.timeless for w in _earlier_words(ctx)):
        return
    if chat:
        raise AskWhen(NOT_A_REQUEST)
    raise AskWhen(
        "I didn't see a time in that, so nothing is scheduled yet. When should it be — "
        "e.g. “tomorrow at 9”, “in 2 hours” or “every weekday at 8”?"
    )


# A number that counts money, weight, distance or things, or is written in thousands
# ("4,200"): never a time, so it does not make a message that names no time time-ish.
_QUANTITY = re.compile(
    r"[$€£¥]\s*\d[\d,.]*|\b\d{1,3}(?:,\d{3})+(?:\.\d+)?\b"
    r"|\b\d+(?:[.,]\d+)?\s*(?:%|(?:percent|euros?|eur|dollars?|usd|pounds?|gbp|quid|bucks"
    r"|kgs?|kilos?|grams?|g|lbs?|km|kms|kilomet(?:er|re)s?|miles?|met(?:er|re)s?|reps?"
    r"|sets?|pages?|items?|pcs|pieces?|people|guests?|steps?|k?cal(?:ories)?|ml|lit(?:er|re)s?)\b)"
    # an ordinal of a thing, not a day: "Margaret's 80th birthday party", "my 2nd attempt"
    r"|\b\d+(?:st|nd|rd|th)\s+(?=(?:birthday|anniversary|floor|attempt|try|time|place|edition"
    r"|grade|round|lap|chapter|episode|season|wedding|jubilee|reunion)\b)"
    # a length that describes a thing: "a 12 hr night shift", "an 8-hour drive"
    r"|\b\d+\s*-?\s*(?:hr|hrs|hour|h|day|week|min|minute)s?\s+(?:(?:night|day|late|long)\s+)?"
    r"(?=(?:shift|drive|flight|trip|hike|run|fast|layover|journey|workday|day|week|nap)\b)",
    re.I,
)
# A lead nobody counted, before an event no time was given for: "a few days before the
# trip", "a couple of weeks ahead of the move".
_VAGUE_LEAD = re.compile(
    r"\b(?:a\s+)?(?:few|couple(?:\s+of)?|several|some)\s+(?:days|weeks|hours|months)\s+"
    r"(?:before|ahead\s+of|prior\s+to|in\s+advance)\b",
    re.I,
)
VAGUE_LEAD = (
    "When is it, and how long before should I remind you? Say e.g. `3 days before, on 12 December`."
)

# How often without when: "twice a week", "3 times a day", "every few days", "regularly".
_VAGUE_RHYTHM = re.compile(
    r"\b(?:once|twice|thrice|\d+\s*(?:times|x)|(?:a\s+)?(?:few|couple(?:\s+of)?|several)\s+times)"
    r"\s*(?:(?:a|an|per|each|every)\s+|/\s*)(?:day|week|wk|month|year|fortnight)\b"
    r"|\bevery\s+(?:few|couple(?:\s+of)?|several|other\s+few)\s+(?:days|weeks|months|hours)\b"
    r"|\b(?:regularly|periodically|now\s+and\s+then|from\s+time\s+to\s+time"
    r"|once\s+in\s+a\s+while)\b",
    re.I,
)
VAGUE_RHYTHM = (
    "How often is clear, but not when, so nothing is scheduled yet. Which days and what "
    "time — e.g. `every tuesday and friday at 6pm`?"
)


# Words that only keep a conversation going ("lol ok", "thanks!", "sounds good 👍").
_CHAT_WORDS = frozenset(
    [
        "ok",
        "okay",
        "k",
        "kk",
        "lol",
        "lmao",
        "rofl",
        "haha",
        "hahaha",
        "hehe",
        "thanks",
        "thank",
        "you",
        "thx",
        "ty",
        "cool",
        "nice",
        "great",
        "sure",
        "yes",
        "yeah",
        "yep",
        "yup",
        "no",
        "nope",
        "nah",
        "alright",
        "got",
        "it",
        "sounds",
        "good",
        "perfect",
        "works",
        "work",
        "awesome",
        "fine",
        "np",
        "problem",
        "hm",
        "hmm",
        "wow",
        "oh",
        "ah",
        "same",
        "right",
        "indeed",
        "ack",
        "noted",
        "true",
        # "that's all for now", "bye for now", "thanks so much"
        "that's",
        "thats",
        "that",
        "all",
        "for",
        "now",
        "bye",
        "cheers",
        "so",
        "much",
        "very",
        # greetings and goodbyes ("good morning!", "night all", "see ya later")
        "hi",
        "hello",
        "hey",
        "yo",
        "morning",
        "afternoon",
        "evening",
        "night",
        "day",
        "gm",
        "gn",
        "everyone",
        "all",
        "guys",
        "folks",
        "see",
        "ya",
        "later",
        "cya",
        # reactions ("lol that's hilarious", "love it", "omg amazing")
        "hilarious",
        "funny",
        "amazing",
        "lovely",
        "love",
        "this",
        "wonderful",
        "brilliant",
        "sweet",
        "neat",
        "omg",
        "lmfao",
        "xd",
        "is",
        # intensifiers and address ("thanks a lot", "thank you so much", "cheers mate")
        "a",
        "lot",
        "so",
        "much",
        "very",
        "really",
        "again",
        "too",
        "cheers",
        "mate",
        "man",
        "dude",
        "buddy",
        "u",
    ]
)


# A word that marks a remark to the room: thanks, praise, laughter, a game's "gg".
_CHAT_MARK = re.compile(
    r"\b(?:thanks|thank\s+you|thx|ty|tysm|cheers|gg|ggs|wp|gj|lol|lmao|rofl|haha\w*|omg|wow"
    r"|congrats|congratulations|ur\s+the\s+(?:best|goat|man)|you(?:'re|\s+are)\s+the\s+best"
    r"|legend|awesome|amazing|insane|ugh|phew|whew|exhausted|knackered|shattered|wrecked)\b"
    # a cheer or a laugh in pictures: "…, all 4,200 euros of it 🎉", "new PB 💪"
    r"|[🎉🥳🙌👏💪🔥😂🤣😍🍾🏆]",
    re.I,
)


_THANKS_FIRST = re.compile(r"^\W*(?:thanks?|thank\s+you|thx|ty|cheers)\b", re.I)


def is_chat(text: str) -> bool:
    """Whether a message is only chat: acknowledgments, laughter, thanks, emoji."""
    tokens = re.findall(r"[a-z']+", text.lower())
    return all(t in _CHAT_WORDS for t in tokens)


ASK_WHAT_FULL = (
    "What should I remind you about? Say it with the time, e.g. "
    "“remind me tomorrow at 9 to call the bank”."
)


def _ask_what(ctx: RunContext[HomarDeps]) -> None:
    """Refuse a reminder text only the model can have made up: the person asks to be
    reminded at a time ("remind me tomorrow") but says nothing of what, and this is not the
    answer to a question (earlier messages in the thread's recent turns may say what)."""
    deps = ctx.deps
    words = deps.state.words
    if deps.fired or words is None or not _REMIND_ASKED.search(words.text):
        return
    if what_of(words.rest) or words.timeless or words.occasion is not None:
        return  # an occasion ("Tom's birthday on the 2nd") is itself what to remind of
    if _REMIND_OF.search(words.text):
        return  # "remind me about christmas": the time named is the subject too
    if _said_earlier(ctx):
        return
    raise AskWhen(ASK_WHAT_FULL)


# A clock time no day has ("25:00", "24:30"), as a person wrote it.
def _time(ctx: RunContext[HomarDeps], text: str, what: str = "time") -> Resolved:
    """Resolve a tool's instant argument; where the person's words name one, they win."""
    if what == "time":
        _ask_when(ctx)
    deps = ctx.deps
    impossible: NoSuchDate | None = None
    now = deps.reference_now()
    try:
        got: Resolved | None = resolve_time(text, now, deps.zone)
    except NoSuchDate as exc:
        got, impossible = None, exc
    except UserError:
        got = None
    words = words_of(deps)
    bad = no_such_clock(words.text) if what == "time" else None
    if bad is not None:
        # "at 25:00", "monday at 25:30": the person's own time is impossible, whatever else
        # the words or the model read (asking the model again only got its paraphrase of
        # the retry, "provide the time in ISO 8601 format")
        raise AskWhen(bad)
    either = EITHER_TIME.search(QUOTED.sub(" ", words.text)) if what == "time" else None
    if either is not None:
        # "remind me at 9 or 10": which one is the person's call (the 1.5B picked 22:25)
        raise AskWhen(either_question(either))
    far = (
        far_weekday_date(words.text, got.at if got else words.instant, now)
        if what == "time"
        else None
    )
    if far is not None:
        # "saturday the 21st" read as 21 August 2027 (last Saturday was the 21st)
        raise AskWhen(far)
    two = what == "time" and TWO_CLOCKS.search(QUOTED.sub(" ", words.text))
    unread = words.ambiguous or (words.instant is None and words.recurrence is None)
    if two and unread and _calls_made(ctx) < 2:
        # "tomorrow at 9am and 5pm": the 1.5B made one reminder of the two (one call per
        # time, "at 17 and 18" as two, is what was asked)
        raise AskWhen(TWO_TIMES)
    if what == "time" and words.half_day:
        # "the dentist is at 4:30 tomorrow": 04:30 or 16:30 is the person's call, whatever
        # the model wrote (the answer is read in code: `offline._answering`)
        raise AskWhen(half_day_question(words))
    if what == "time":
        said = words.instant
        if (
            words.rolled
            and said is not None
            and (got is None or got.at <= now or not _same_clock(got.at, said))
        ):
            # "at 8am" said at 10:30, the model's time unread, today's or at another time
            # of day (the 1.5B wrote "7:00" for "at 7am", read as 19:00): ask "tomorrow?"
            return Resolved(said, rolled=said - timedelta(days=1))
        if got is None and words.instant is not None and not words.ambiguous:
            return Resolved(words.instant)  # a garbled argument, but the person was clear
        clear = words.instant is not None and not words.ambiguous
        if got is not None and (got.rolled is None or clear):
            # A bare time past today asks "tomorrow?" unless the person named the day.
            return Resolved(words.settle_instant(got.at))
    if impossible is not None:
        raise impossible  # "Feb 30": only the person can say which day; the reply asks them
    if got is None:
        raise ModelRetry(
            f"Could not read the {what} {quoted(text)}. Give ISO 8601 (2026-05-01T15:00) "
            "or a phrase like 'tomorrow at 9' or 'in 2 hours'."
        )
    return got


def _neither_time_said(ctx: RunContext[HomarDeps], at: datetime) -> None:
    """ "Mara lands on saturday at 3pm …, remind me at 2 that day": two times said, and a
    new job at neither (the 1.5B made one at 14:55, the fourteenth prompt set) is asked
    about; a lead said ("an hour before") makes a time of its own."""
    words = ctx.deps.state.words
    if ctx.deps.fired or words is None or not words.ambiguous or words.lead is not None:
        return
    local = at.astimezone(ZoneInfo(ctx.deps.zone))
    if not _a_clock_said(words.text, local) and not _a_delay_said(
        words.text, at - ctx.deps.reference_now()
    ):
        raise AskWhen(TWO_TIMES)


# A clock as people write one: "at 2", "3pm", "14:30", "by 9.15".
_CLOCK_SAID = re.compile(
    r"(?:\b(?:at|by|around|about|until|till|from)\s+(\d{1,2})(?:[:.](\d{2}))?\b"
    r"|\b(\d{1,2})(?:[:.](\d{2}))?\s*[ap]\.?m\b|\b(\d{1,2})[:.](\d{2})\b)",
    re.I,
)


def _a_clock_said(text: str, at: datetime) -> bool:
    """Whether `at` (local) is at one of the clocks written in `text`, either half of the
    day: the model's time is then one the person said."""
    for m in _CLOCK_SAID.finditer(QUOTED.sub(" ", text)):
        g = m.groups()
        k = next(k for k in (0, 2, 4) if g[k] is not None)
        hour, minute = int(g[k]), int(g[k + 1] or 0)
        if hour % 12 == at.hour % 12 and minute == at.minute:
            return True
    return False


# A delay as people write one: "in 30 minutes", "after an hour and a half".
_DELAY_SAID = re.compile(
    r"\b(?:in|after)\s+((?:\d+(?:\.\d+)?|an?|half\s+an?|one|two|three|four|five|ten|fifteen|"
    r"twenty|thirty|forty|fifty)\s*(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|h|days?|weeks?)"
    r"(?:\s+and\s+a\s+half)?)\b",
    re.I,
)


def _a_delay_said(text: str, delay: timedelta) -> bool:
    """Whether `delay` (from now) is one written in `text`, to the minute."""
    for m in _DELAY_SAID.finditer(QUOTED.sub(" ", text)):
        said = timeparse.parse_duration(m.group(1))
        if said is not None and abs(said - delay) < timedelta(minutes=1):
            return True
    return False


def _same_clock(at: datetime, said: datetime) -> bool:
    """Whether `at` is at `said`'s time of day, where `said` is."""
    return at.astimezone(said.tzinfo).time() == said.time()


def read_as(at: datetime) -> str:
    """How a phrase in another language was read (" (read as German: Tue 24 Nov 09:00)"),
    so the confirmation lets the person check it; empty for English and ISO."""
    understood = getattr(at, "understood", "")
    return f" ({understood})" if understood else ""


def _check_create(deps: HomarDeps) -> None:
    cap = MAX_FIRED_JOBS if deps.fired else MAX_RUN_JOBS
    if len(deps.state.job_ids) + deps.state.proposed >= cap:
        raise LimitReached(f"I can create at most {cap} jobs per message.")


async def _propose(
    ctx: RunContext[HomarDeps],
    command: str,
    schedule: Schedule,
    *,
    note: str = "",
    duplicate_chosen: bool = False,
    audience: Audience | None = None,
) -> None:
    """Check every guardrail now (so a proposal that can't work is never shown), then defer.

    `note`: what else the approver should know (a job it replaces, same-minute jobs).
    `duplicate_chosen`: the user already answered "replace" or "keep both".
    `audience`: who it will reach, shown so the approver sees who it pings.
    """
    deps = ctx.deps
    engine = deps.engine
    now = engine.clock()
    text = engine.check_command(command)
    engine.check_schedule(schedule, now)
    await engine.check_quota(deps.user_id)
    engine.check_rate(deps.user_id, now)
    if not duplicate_chosen:
        await engine.check_duplicate(deps.user_id, text, schedule)
    deps.state.proposed += 1
    proposal = render_proposal(text, schedule, now) + note
    if audience is not None:  # the approver sees who it will ping before approving
        proposal = f"**For:** {audience.describe()}\n{proposal}"
    raise ApprovalRequired(metadata={"proposal": proposal, "command": text})


def _ask_duplicate(ctx: RunContext[HomarDeps], found: list[Job]) -> str:
    text = overlap.question(found)
    tool = ctx.tool_name or "the same tool"
    for_model = (
        f"{text} (Nothing was created. If the user answers “replace”, call {tool} again with "
        "the same arguments and on_duplicate='replace'; “keep both”: on_duplicate='keep_both'; "
        "“cancel”: schedule nothing.)"
    )
    ctx.deps.state.clarifier = True
    _record(ctx, text, for_model)
    return for_model  # what the model reads now; the user sees `text` (the run's lines)


def _earlier_words(ctx: RunContext[HomarDeps]) -> Iterator[Words]:
    """How the person's messages before this one in the thread's recent turns read (each
    read only when asked for)."""
    now = ctx.deps.reference_now()
    for text in said_lately(ctx.messages, 8)[:-1]:
        yield read_words(text, now, ctx.deps.zone)


def _said_earlier(ctx: RunContext[HomarDeps]) -> bool:
    """Whether the person said something before this message in the thread's recent turns
    (this message may be the answer to a question: "it's about the dentist")."""
    return len(said_lately(ctx.messages, 8)) > 1


def _not_a_request(ctx: RunContext[HomarDeps]) -> None:
    """ "I'll be home at 6", "my meeting got moved to 4pm": a statement asks for nothing, so
    no job is made of it (small models made reminders of them); the offline model answers
    statements the same way (`Words.statement`)."""
    deps = ctx.deps
    words = deps.state.words
    if deps.fired or words is None or not words.statement or _answers_a_question(ctx):
        return
    raise AskWhen(NOT_A_REQUEST)


def _only_agreeing(ctx: RunContext[HomarDeps]) -> None:
    """ "sure, tomorrow works" after "Got it — job #1 runs tomorrow at 07:30" agrees with
    what is done, and asks nothing new: the 1.5B made the job a second time (the fifteenth
    prompt set). After a question of ours it is the answer, and goes."""
    deps = ctx.deps
    words = deps.state.words
    if deps.fired or words is None or not words.text.strip() or _answers_a_question(ctx):
        return
    what = what_of(words.rest)
    if what and not is_chat(what):
        return
    if what or words.timeless:  # a bare time alone ("at 7") is left to the rules for it
        raise AskWhen(NOT_A_REQUEST)


def _answers_a_question(ctx: RunContext[HomarDeps]) -> bool:
    """Whether the bot's last answer before this message asked something ("What should I
    remind you about?"): then "it's about the dentist" is the answer, not a statement."""
    return "?" in last_answer(ctx.messages)


async def _not_a_change(ctx: RunContext[HomarDeps]) -> None:
    """ "move the pizza reminder to 8pm" names one of the person's jobs: a new job for it is
    not what was asked (small models make one with the text "move"), so ask which change."""
    deps = ctx.deps
    words = deps.state.words
    if words is None or deps.fired:
        return
    number, named = named_job(words.text)
    if not named and number is None:
        return
    mine = [
        j
        for j in await visible_jobs(deps)
        if j.id == number or (named and all(has_word(j.command, w) for w in named))
    ]
    if mine:
        job = mine[0]
        raise UserError(
            f"That sounds like a change to #{job.id} ({job_scope.shown(deps, job)}), so no new "
            f"job was made. Say e.g. `move {job.id} to friday 10am`, `pause {job.id}` or "
            f"`cancel {job.id}`."
        )


async def _create(
    ctx: RunContext[HomarDeps],
    command: str,
    schedule: Schedule,
    kind: str,
    follow_up: dict[str, Any] | None = None,
    extra: str = "",
    on_duplicate: overlap.DuplicateChoice = "ask",
    audience: str | None = None,
) -> str:
    deps = ctx.deps
    _check_create(deps)
    _not_a_request(ctx)
    _only_agreeing(ctx)
    if not command.strip() and deps.state.words and _REMIND_ASKED.search(deps.state.words.text):
        raise AskWhen(ASK_WHAT_FULL)  # "every tuesday remind me": of what?
    await _not_a_change(ctx)
    command, instruction = split_off_instruction(command)
    if instruction:
        extra += (
            f"\nLeft out of the job: {quoted(instruction)} — it reads as another instruction, "
            "not part of this one. Send it on its own if you meant it."
        )
    addressed = await _audience(deps, audience)
    if addressed is not None:
        extra = f" — for {addressed.describe()}{extra}"
    approved = ctx.tool_call_approved
    # Seed 004: the same command on an overlapping schedule is asked about first; jobs in
    # the same minute are mentioned. Neither blocks: the user's answer decides.
    now = deps.engine.clock()
    thread_jobs = await overlap.thread_jobs(deps.engine, deps.user_id, deps.channel_id)
    same = overlap.duplicates(thread_jobs, command, schedule, now)
    if same and on_duplicate == "ask" and not approved:
        return _ask_duplicate(ctx, same)
    replaced = same if on_duplicate == "replace" else []
    skip = [j.id for j in replaced]
    heads_up = overlap.note(overlap.neighbours(thread_jobs, schedule, now, skip=skip))
    if replaced:
        heads_up = f"\nReplaces {', '.join(overlap.describe(j) for j in replaced)}.{heads_up}"
    if needs_approval(schedule, fired=deps.fired) and not approved:
        await _propose(
            ctx,
            command,
            schedule,
            note=heads_up,
            duplicate_chosen=on_duplicate != "ask",
            audience=addressed,
        )
    meta: dict[str, Any] = {"via": "agent"}
    if deps.fired:
        meta["fired_by"] = deps.fired_job_id
    if approved:
        meta["approved"] = True
    job = await deps.engine.create(
        target=deps.target,
        command=command,
        schedule=schedule,
        kind=kind,
        created_by="agent" if deps.fired else "user",
        follow_up=follow_up,
        meta=meta,
        allow_duplicate=on_duplicate != "ask",
        audience=addressed,
    )
    for old in replaced:  # only once the new one exists: a failed creation keeps the old
        await deps.engine.cancel(old.id, deps.actor)
    if kind != JobKind.REMINDER:  # say whether a tool can really do it when it fires
        extra += capability_note(command, deps.state.action_tools)
    return _confirm(ctx, job, extra + heads_up)


async def _audience(deps: HomarDeps, text: str | None) -> Audience | None:
    """The audience the model named, checked for this owner here; None means just the owner."""
    if text is None or not text.strip():
        return None
    if deps.fired:
        # A fired job's text is data: it may not make jobs that reach other people.
        raise NotAllowed("A job started by another job can only remind its owner.")
    if deps.audience is None:
        if not addresses_others(text):
            return None  # "here", "this channel", "me": the owner, where the job is made
        raise UserError(
            "Here I can only remind you; other people, roles and channels work in Discord."
        )
    found = await deps.audience.resolve(
        text, Addressing(deps.user_id, deps.guild_id, deps.channel_id)
    )
    return None if found.is_default else found


def _note_or(ctx: RunContext[HomarDeps], kind: str, command: str) -> str:
    """A command the person said as a note ("fri 16:00 expenses due": no verb, nothing
    quoted to post) and the model wrote as one is a reminder of it, whichever tool the
    model picked."""
    words = ctx.deps.state.words
    if ctx.deps.fired or words is None:
        return kind
    note = is_note(what_of(words.rest), words.text) and not starts_with_verb(command)
    return JobKind.REMINDER if note else kind


async def _once(
    ctx: RunContext[HomarDeps],
    command: str,
    when: str,
    kind: str,
    on_duplicate: overlap.DuplicateChoice = "ask",
    audience: str | None = None,
) -> str:
    got = _time(ctx, when)
    now = ctx.deps.reference_now()
    if got.rolled is not None or got.at < now - NOW_SLACK:
        return _past_question(ctx, got.at, got.rolled)
    _neither_time_said(ctx, got.at)
    at = max(got.at, now + timedelta(seconds=1))
    schedule = Schedule(Once(at), ctx.deps.zone)
    return await _create(
        ctx,
        command,
        schedule,
        _note_or(ctx, kind, command),
        extra=read_as(got.at),
        on_duplicate=on_duplicate,
        audience=audience,
    )


def _guarded(fn: Any) -> Any:
    """Turn user errors and surprises into a friendly confirmation-line reply; never raise."""
    import functools

    @functools.wraps(fn)
    async def wrapper(ctx: RunContext[HomarDeps], *args: Any, **kwargs: Any) -> str:
        try:
            return str(await fn(ctx, *args, **kwargs))
        except (ModelRetry, ApprovalRequired):
            raise
        except UserError as exc:
            # it asks which day, or when
            ctx.deps.state.clarifier = isinstance(exc, NoSuchDate | AskWhen)
            return _record(ctx, exc.message)
        except Exception:
            log.exception("tool %s failed", fn.__name__)
            return _record(ctx, "Sorry — something went wrong on my side; nothing was changed.")

    return wrapper


# ---------------------------------------------------------------- terminal tools (output functions)


@_guarded
async def send_delayed_message(
    ctx: RunContext[HomarDeps],
    message: str,
    hours: int = 0,
    minutes: int = 0,
    seconds: int = 0,
    on_duplicate: overlap.DuplicateChoice = "ask",
    audience: str | None = None,
) -> str:
    """Run a command in this thread after a delay (1 s to 5 years).

    Args:
        message: the command to run later, in the user's words
        hours: hours to wait (0 or more); hours, minutes and seconds add up, so
            minutes=90 means 1 h 30 min
        audience: only if others/a place are named, as written: "<@1> and me", "<#2>", "dm me"
    """
    fields = {"hours": hours, "minutes": minutes, "seconds": seconds}
    negative = [f"{name}={value}" for name, value in fields.items() if value < 0]
    if negative:
        # Never net a negative field against a positive one: hours=-1, minutes=90 is a typo.
        return _record(
            ctx,
            f"A delay can't be negative ({', '.join(negative)}); give how long to wait, "
            "e.g. minutes=90 or hours=1, minutes=30.",
        )
    _ask_when(ctx)
    # 90 minutes is 1 h 30 min: each field counts as what it says, whatever its size.
    now = ctx.deps.reference_now()
    delay = words_of(ctx.deps).settle_delay(
        now, timedelta(hours=hours, minutes=minutes, seconds=seconds)
    )
    limit = ctx.deps.engine.limits.max_horizon
    if not timedelta(seconds=1) <= delay <= limit:
        return _record(ctx, f"The delay must be between 1 second and {limit.days // 365} years.")
    at = now + delay
    extra = f" — in {duration_words(delay)}"
    schedule = Schedule(Once(at), ctx.deps.zone)
    return await _create(
        ctx,
        message,
        schedule,
        _note_or(ctx, JobKind.DELAYED, message),
        extra=extra,
        on_duplicate=on_duplicate,
        audience=audience,
    )


@_guarded
async def send_scheduled_message(
    ctx: RunContext[HomarDeps],
    message: str,
    scheduled_datetime: str,
    on_duplicate: overlap.DuplicateChoice = "ask",
    audience: str | None = None,
) -> str:
    """Run a command in this thread at a date/time.

    Args:
        message: the command to run then
        scheduled_datetime: the time in the user's words ('at 3pm', 'tomorrow at 9')
        audience: only if others/a place are named, as written: "<@1> and me", "<#2>", "dm me"
    """
    return await _once(ctx, message, scheduled_datetime, JobKind.SCHEDULED, on_duplicate, audience)


@_guarded
async def schedule_reminder(
    ctx: RunContext[HomarDeps],
    reminder_time: str,
    message: str,
    follow_up: bool = False,
    follow_up_interval: str = "30 minutes",
    max_follow_ups: int = 2,
    minutes_before: int = 0,
    escalate: Literal["dm"] | None = None,
    on_duplicate: overlap.DuplicateChoice = "ask",
    audience: str | None = None,
) -> str:
    """Remind the user of something at a time.

    Args:
        reminder_time: the time in the user's words ('at 3pm'); meetings/calls: the event's
        message: what to remind about
        follow_up: nag until answered ("don't let me forget")
        minutes_before: remind this long before reminder_time (meetings/calls: 5)
        escalate: "dm" only if the user asks to be DMed when they ignore the follow-ups
        audience: only if others/a place are named, as written: "<@1> and me", "<#2>", "dm me"
    """
    got = _time(ctx, reminder_time)
    _ask_what(ctx)
    _not_a_request(ctx)  # before "remind now", which makes no job but pings at once
    now = ctx.deps.reference_now()
    if got.rolled is not None or got.at < now - NOW_SLACK:
        return _past_question(ctx, got.at, got.rolled)
    words = words_of(ctx.deps)
    minutes_before = words.settle_lead(minutes_before)
    follow_up = words.settle_follow_up(follow_up)
    at = got.at - timedelta(minutes=max(0, minutes_before))
    _neither_time_said(ctx, at)
    # "Now", or a lead time that leaves under a minute: remind at once. A reminder the
    # user timed themselves ("in 2 seconds") is still scheduled and fired normally.
    if not audience and (
        at - now < timedelta(seconds=1) or (minutes_before > 0 and at - now < NOW_WINDOW)
    ):
        ctx.deps.state.remind_now = message
        return _record(ctx, f"⏰ Reminder: {message}")
    config: dict[str, Any] | None = None
    if follow_up or escalate:  # escalating means nagging first: it comes after the last nag
        step = timeparse.parse_duration(follow_up_interval) or timedelta(minutes=30)
        config = {
            "interval_s": max(60, int(step.total_seconds())),
            "max": max(1, min(max_follow_ups, 10)),
        }
        if escalate:
            config["escalate"] = escalate
    extra = read_as(got.at)
    if config:
        extra = f"; I'll follow up every {_span(config['interval_s'])}, up to {config['max']} times"
        if escalate:
            extra += ", then DM you once if you still haven't answered"
    at = max(at, now + timedelta(seconds=1))
    schedule = Schedule(Once(at), ctx.deps.zone)
    return await _create(
        ctx,
        message,
        schedule,
        JobKind.REMINDER,
        config,
        extra,
        on_duplicate=on_duplicate,
        audience=audience,
    )


def duration_words(delay: timedelta) -> str:
    """A delay in plain words, every unit it has: "1 hour 30 minutes", "2 days 5 seconds"."""
    left = int(delay.total_seconds())
    parts = []
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60), ("second", 1)):
        n, left = divmod(left, size)
        if n:
            parts.append(f"{n} {unit}{'s' if n != 1 else ''}")
    return " ".join(parts) or "0 seconds"


def _span(seconds: int) -> str:
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds % size == 0:
            n = seconds // size
            return f"{n} {unit}{'s' if n != 1 else ''}"
    return f"{seconds} seconds"


@_guarded
async def schedule_action(
    ctx: RunContext[HomarDeps],
    description: str,
    type: Literal["once", "recurring", "interval"],
    schedule: str,
    until: str | None = None,
    max_runs: int | None = None,
    on_duplicate: overlap.DuplicateChoice = "ask",
    audience: str | None = None,
) -> str:
    """Schedule a command once, on a recurrence, or every interval.

    Args:
        description: the command to run each time
        schedule: once: a time; recurring: cron, 'every weekday at 8' or daily@HH:MM,
            weekdays@HH:MM, weekly@MON@HH:MM, monthly@1@HH:MM; interval: '30 minutes'
        until: optional end time
        max_runs: optional number of runs
        audience: only if others/a place are named, as written: "<@1> and me", "<#2>", "dm me"
    """
    deps = ctx.deps
    now, tz = deps.reference_now(), deps.zone
    if type == "once":
        return await _once(ctx, description, schedule, JobKind.SCHEDULED, on_duplicate, audience)
    _ask_when(ctx)
    _check_create(deps)
    end = _time(ctx, until, "end time").at if until else None
    if type == "interval" and "@" in schedule:
        type = "recurring"  # `daily@09:00` says what it is, whatever the type says
    if type == "interval":
        text = re.sub(r"^(every|each)\s+", "", schedule.strip(), flags=re.I)
        step = timeparse.parse_duration(text + " minutes" if text.isdigit() else text)
        if step is None:
            raise ModelRetry(
                f"Could not read the interval {quoted(schedule)}; use e.g. '30 minutes' or '2h'."
            )
        secs = int(step.total_seconds())
        spec: Schedule = Schedule(Every(secs, now + timedelta(seconds=secs)), tz, end, max_runs)
    else:
        rec = parse_recurrence(schedule, now, tz)
        said = words_of(deps)
        if rec is None and said.recurrence is not None and not said.ambiguous:
            rec = said.recurrence  # a garbled argument, but the person was clear
        if rec is None:
            raise ModelRetry(
                f"Could not read the recurrence {quoted(schedule)}; use cron like '0 8 * * 1-5' or "
                "'every weekday at 8'."
            )
        spec = Schedule(rec.spec, tz, end or rec.until, max_runs or rec.max_runs)
    said = words_of(deps)
    if said.half_day and said.recurrence is not None:
        # "every Tuesday at 4:30 …": 04:30 or 16:30 is the person's call, whatever the
        # model wrote (the answer is read in code: `offline._answering`)
        raise AskWhen(half_day_question(said))
    spec = said.settle_recurrence(spec, now)
    kind = JobKind.INTERVAL if isinstance(spec.spec, Every) else JobKind.RECURRING
    return await _create(ctx, description, spec, kind, on_duplicate=on_duplicate, audience=audience)


@_guarded
async def schedule_future_callback(
    ctx: RunContext[HomarDeps],
    callback_time: str,
    context: str,
    on_duplicate: overlap.DuplicateChoice = "ask",
) -> str:
    """Wake yourself later in this thread to continue or check on work (not for reminders).

    Args:
        callback_time: the time in the user's words ('in 2 hours')
        context: what to do when woken
    """
    return await _once(ctx, context, callback_time, JobKind.CALLBACK, on_duplicate)


async def _meant(ctx: RunContext[HomarDeps], task_id: int) -> Job:
    """The job the person means, read as the run's actor. When they named it by its words
    ("cancel the standup", "move the pizza reminder to 8pm") the words win over the
    model's number (a small model picks a wrong one): the one open job of theirs with those
    words, or a question listing the candidates when there are none or several."""
    deps = ctx.deps
    words = deps.state.words
    named = named_job(words.text)[1] if words is not None and not deps.fired else []
    try:
        job: Job | None = await deps.engine.get(task_id, deps.actor)
    except UserError:
        if not named:
            deps.state.misdirected = deps.state.misdirected or _asks_anew(deps, task_id)
            raise
        job = None  # a number the person never said: their words say which

    def fits(j: Job) -> bool:
        at = j.next_run_at.astimezone(schedule_of(j).zone) if j.next_run_at else None
        return topic_fits(j.command, at, named)

    if job is not None and (not named or fits(job)):
        return job
    meant = [j for j in await visible_jobs(deps, _SCOPE_SCAN) if fits(j)]
    if len(meant) == 1:
        return meant[0]
    topic = " ".join(named)
    if not meant:
        raise UserError(
            f"I found no open job of yours about “{topic}”, so nothing was changed. "
            "`list` shows them; say which by its number."
        )
    shown = ", ".join(f"#{j.id} ({job_scope.shown(deps, j)})" for j in meant[:5])
    raise UserError(
        f"More than one job is about “{topic}”: {shown}. Say which by its number, "
        f"e.g. `cancel {meant[0].id}`."
    )


def _asks_anew(deps: HomarDeps, task_id: int) -> bool:
    """Whether the person's live message asks for something new (a time and a task) and
    names no job: not their number, not a job's words ("remind me at 9am every weekday
    to update the board", where the 0.5B changed job #1, not theirs)."""
    words = deps.state.words
    if deps.fired or words is None or (words.instant is None and words.recurrence is None):
        return False
    if named_job(words.text) != (None, []) or re.search(rf"(?<!\d){task_id}(?!\d)", words.text):
        return False
    return bool(what_of(words.rest))


async def _job_to_change(
    ctx: RunContext[HomarDeps], task_id: int, change: Change, **how: Any
) -> Job:
    """The job meant (`_meant`), once `job_scope` allows this run to change it."""
    job = await _meant(ctx, task_id)
    job_scope.check_change(ctx, job, change, **how)
    return job


@_guarded
async def delete_scheduled_action(ctx: RunContext[HomarDeps], task_id: int) -> str:
    """Cancel one of the user's jobs."""
    meant = await _job_to_change(ctx, task_id, Change.CANCEL)
    job = await ctx.deps.engine.cancel(meant.id, ctx.deps.actor)
    return _record(ctx, f"Cancelled #{job.id} ({job_scope.shown(ctx.deps, job)}).")


@_guarded
async def stop_interval_action(ctx: RunContext[HomarDeps], task_id: int) -> str:
    """Pause one of the user's jobs."""
    meant = await _job_to_change(ctx, task_id, Change.PAUSE)
    job = await ctx.deps.engine.pause(meant.id, ctx.deps.actor)
    shown = job_scope.shown(ctx.deps, job)
    text = f"Paused #{job.id} ({shown}); say resume {job.id} to restart it."
    until = _PAUSED_UNTIL.search(QUOTED.sub(" ", words_of(ctx.deps).text))
    found = (
        timeparse.split_when(until["when"], now=ctx.deps.reference_now(), tz=ctx.deps.zone)
        if until is not None
        else None
    )
    back = found.schedule if found is not None else None
    if isinstance(back, datetime):
        # "pause the standup until monday the 7th": not silently forever
        text += f" It doesn't restart by itself on {stamp(back)}: say `resume {job.id}` then."
    return _record(ctx, text)


# "… until monday the 7th": when a paused job is wanted back.
_PAUSED_UNTIL = re.compile(r"\b(?:until|till|til)\s+(?P<when>[^,.;!?]{1,40})", re.I)


@_guarded
async def resume_scheduled_action(ctx: RunContext[HomarDeps], task_id: int) -> str:
    """Resume a paused job."""
    meant = await _job_to_change(ctx, task_id, Change.RESUME)
    job = await ctx.deps.engine.resume(meant.id, ctx.deps.actor)
    when = stamp(job.next_run_at) if job.next_run_at else "soon"
    return _record(
        ctx,
        f"Resumed #{job.id} — next run {when}.",
        "Resumed " + _model_line(job, schedule_of(job), ctx.deps),
    )


@_guarded
async def update_scheduled_action(
    ctx: RunContext[HomarDeps],
    task_id: int,
    new_time: str | None = None,
    new_message: str | None = None,
) -> str:
    """Change a job's time/schedule and/or its text.

    Args:
        new_time: the new time in the user's words, a cron or a recurrence
    """
    deps = ctx.deps
    job = await _meant(ctx, task_id)
    old = schedule_of(job)
    sched: Schedule | None = None
    if new_time:
        now, tz = deps.reference_now(), deps.zone
        rec = (
            parse_recurrence(new_time, now, tz)
            if old.is_recurring or _CRON.match(new_time) or "@" in new_time
            else None
        )
        if rec is None and re.match(r"\s*(every|each|daily|weekly)\b", new_time, re.I):
            rec = parse_recurrence(new_time, now, tz)
        said = _new_clock(deps, new_time) if rec is None else None
        if rec is not None:
            sched = words_of(deps).settle_recurrence(
                Schedule(rec.spec, tz, rec.until, rec.max_runs), now
            )
        elif old.is_recurring:
            # "push the standup to 9:30": the same days at the new time of day; anything
            # else (a day, a date) would turn a repeating job into a one-off
            if said is None:
                # "standup 9 → 9:15 from tmrw": from its next run on, which is what a new
                # time of day for a repeating job means anyway
                said = _new_clock(deps, new_time, from_a_day=True)
            sched = _at_new_clock(job, old, said, now)
            if sched is None:
                return _clarify(
                    ctx,
                    f"#{job.id} repeats ({old.describe()}). Say its new time of day (e.g. "
                    "`9:30`) or its whole new schedule (e.g. `every weekday at 9:30`).",
                )
        elif said is not None and job.next_run_at is not None:
            # "move the plants reminder to 7pm": its own day at the new time of day
            here = zone(tz)
            old_at = job.next_run_at.astimezone(here)
            at = localize(datetime.combine(old_at.date(), said.nearest(old_at.time())), here)
            if at.hour == 0 and at < old_at and MIDNIGHT.search(words_of(deps).text):
                # "move the pizza reminder to half past midnight": the night after its day
                at = localize(datetime.combine(old_at.date() + timedelta(days=1), at.time()), here)
            if at < now - NOW_SLACK:
                return _past_question(ctx, at + timedelta(days=1), at)
            sched = Schedule(Once(max(at, now + timedelta(seconds=1))), tz)
        else:
            got = _time(ctx, new_time)
            if _keeps_its_clock(words_of(deps)) and job.next_run_at is not None:
                # "move it to the same time on thursday", "move the plants reminder to
                # friday": a new day, the job's own time of day
                here = zone(tz)
                clock = job.next_run_at.astimezone(here).time()
                got = Resolved(datetime.combine(got.at.astimezone(here).date(), clock, here))
            if got.rolled is not None or got.at < now - NOW_SLACK:
                return _past_question(ctx, got.at, got.rolled)
            sched = Schedule(Once(max(got.at, now + timedelta(seconds=1))), tz)
    # A new repeating schedule is the same decision as creating a repeating job: ask first.
    repeating = sched is not None and sched.is_recurring
    preview = ""
    if repeating and sched is not None and not ctx.tool_call_approved:
        engine = deps.engine
        engine.check_schedule(sched, engine.clock())  # a proposal that can't work is never shown
        text = engine.check_command(new_message) if new_message else job.command
        preview = render_proposal(text, sched, engine.clock())
    job_scope.check_change(ctx, job, Change.EDIT, makes_repeating=repeating, preview=preview)
    job = await deps.engine.update(job.id, deps.actor, command=new_message, schedule=sched)
    when = stamp(job.next_run_at) if job.next_run_at else "no next run"
    return _record(
        ctx,
        f"Updated #{job.id}: {when} — {job_scope.shown(deps, job)}.",
        "Updated " + _model_line(job, schedule_of(job), deps),
    )


def _new_clock(
    deps: HomarDeps, new_time: str, *, from_a_day: bool = False
) -> timeparse.ClockSaid | None:
    """A new time of day alone ("to 9:30", "half past 8"), as the person said it when their
    words name a time (they win over the tool's argument), else as the argument says.
    `from_a_day`: also with the day it starts from ("9:15 from tmrw", for a repeat)."""
    words = words_of(deps)
    if words.text.strip():
        # the change's own words where the message says more ("shift 41 to 8pm, I'm stuck
        # on a bridge call till 7": not the 7)
        asked = manage_request(" ".join(words.text.lower().split()).rstrip(" .!?"))
        said = words.text
        if asked is not None:  # its words after the job's number ("2 to 8pm": not 2 to 8)
            number = JOB_NUMBER.match(asked[1])
            said = asked[1][number.end() :] if number else asked[1]
        found = timeparse.split_when(QUOTED.sub(" ", said), now=deps.reference_now(), tz=deps.zone)
        if found is not None and found.said:
            if timeparse.parse_duration(found.said) is not None:
                return None  # "back an hour": a span from the job's time, no clock
            clock = timeparse.clock_of(
                _FROM_A_DAY.sub("", found.said) if from_a_day else found.said
            )
            if clock is not None:
                return clock
    return timeparse.clock_of(new_time)


def _at_new_clock(
    job: Job, old: Schedule, clock: timeparse.ClockSaid | None, now: datetime
) -> Schedule | None:
    """A repeating job's schedule at a new time of day, the half of the day not said taken
    nearest its current time; None when there is no one time of day to move."""
    if clock is None:
        return None
    current = job.next_run_at or next(iter(old.next_runs(now, 1)), None)
    if current is None:
        return None
    return old.at_time_of_day(clock.nearest(current.astimezone(old.zone).time()))


# When a change starts, if that is its next run: "from tomorrow", "from now on" (not "from
# monday", which would leave the runs before it as they are).
_FROM_A_DAY = re.compile(
    r"[\s,]+(?:from|starting(?:\s+from)?|beginning|as\s+of)\s+(?:now(?:\s+on)?|today|tomorrow|tmrw"
    r"|tmr|2moro)"
    r"\s*$",
    re.I,
)
# "the same time on thursday", "same time tomorrow": a job moved keeps its time of day.
_SAME_CLOCK = re.compile(r"\b(?:the\s+)?same\s+time\b", re.I)
# A time of day or a span said: "to 10", "at 6pm", "in the evening", "an hour later".
_CLOCK_OR_SPAN = re.compile(
    r"\d{1,2}[:.]\d{2}|\d{1,2}\s*(?:[ap]\.?m\.?|h|hrs?|hours?|o'?clock)\b|[@]\s*\d"
    r"|(?<![\d/.-])\b(?:[01]?\d|2[0-4])\b(?!\s*(?:st|nd|rd|th)\b|[/.-]\d)"
    r"|\b(?:noon|midnight|midday|morning|afternoon|evening|night|tonight|lunch\w*|breakfast|"
    r"dinner|eod|now|later|earlier|sooner|back|forward|ahead)\b"
    r"|\b(?:in|after|by)\s+(?:an?\b|half|a\s+few|a\s+couple)|\bfrom\s+now\b",
    re.I,
)


def _keeps_its_clock(words: Words) -> bool:
    """Whether a job moved by these words keeps its time of day: "the same time on
    thursday", or a new day with no time of day or span said ("to friday", "to the 12th")."""
    text = QUOTED.sub(" ", words.text)
    if _SAME_CLOCK.search(text):
        return True
    number, _ = named_job(text)
    if number is not None:
        text = re.sub(rf"#?\b{number}\b", " ", text, count=1)
    return words.instant is not None and not _CLOCK_OR_SPAN.search(text)


# ---------------------------------------------------------------- plain tools


LIST_LIMIT = 25
_SCOPE_SCAN = 1000  # open jobs looked at to count what a scoped list leaves out


async def visible_jobs(deps: HomarDeps, limit: int = LIST_LIMIT) -> list[Job]:
    """The run's user's open jobs that this run may show where it is talking."""
    found = await deps.engine.list_jobs(**job_scope.list_filter(deps), limit=limit)
    return [j for j in found if job_scope.visible(deps, j)]


async def listed_jobs(deps: HomarDeps, line: Any) -> str | None:
    """The first LIST_LIMIT open jobs this run may show (`job_scope`), one `line(job)` each,
    and how many more there are and where to see them all; None when there are none."""
    jobs = await visible_jobs(deps, _SCOPE_SCAN)
    if not jobs:
        return None
    text = "\n".join(line(j) for j in jobs[:LIST_LIMIT])
    more = len(jobs) - LIST_LIMIT
    if more > 0:
        text += (
            f"\n…and {more} more — `/jobs list` in Discord (or `homar jobs list` "
            "on the bot's machine) shows them all."
        )
    return text


async def list_scheduled_actions(ctx: RunContext[HomarDeps]) -> str:
    """List the user's open jobs (id, next run, schedule, text)."""
    try:
        text = await listed_jobs(ctx.deps, lambda j: _model_line(j, schedule_of(j), ctx.deps))
    except Exception:
        log.exception("list failed")
        return "Could not read the job list right now."
    return text or "No scheduled jobs."


TERMINAL_TOOLS = {
    "send_delayed_message": send_delayed_message,
    "send_scheduled_message": send_scheduled_message,
    "schedule_reminder": schedule_reminder,
    "schedule_action": schedule_action,
    "schedule_future_callback": schedule_future_callback,
    "delete_scheduled_action": delete_scheduled_action,
    "stop_interval_action": stop_interval_action,
    "resume_scheduled_action": resume_scheduled_action,
    "update_scheduled_action": update_scheduled_action,
}
PLAIN_TOOLS = {"list_scheduled_actions": list_scheduled_actions}
ALL_TOOLS: dict[str, Any] = {**TERMINAL_TOOLS, **PLAIN_TOOLS}
# Tools that may need the user's approval must be function tools (pydantic-ai defers only
# those; output functions cannot): always for repeating jobs (created, or edited into one),
# and in fired runs every tool that creates or changes a job.
APPROVAL_TOOLS = ("schedule_action", "update_scheduled_action")
CREATION_TOOLS = (
    "send_delayed_message",
    "send_scheduled_message",
    "schedule_reminder",
    "schedule_action",
    "schedule_future_callback",
)
