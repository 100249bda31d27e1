"""The person's own words are the authority on *when*.

A model may compute a time itself and get it wrong (an hour off, the wrong weekday,
"tonight at 8" as tomorrow, a lead time on an explicit reminder time). `read_words` reads
the person's live message once with the time language; `Words.settle_*` then correct the
time arguments a tool resolved (instant, delay, recurrence, end, lead time) wherever the
message says something unambiguous and the tool disagrees. The scheduling tools call
these at the single place each kind of time is resolved, so every tool with a time
argument is corrected the same way, whatever model (or none) wrote the call.

Whether the job repeats is part of *when*: `Words.settle_kind` turns a repeating call for
a one-off request ("remind me thursday 7:30am to put the bins out" as every weekday) into
the one-off the words say, and a one-off call for a repetition the words name ("every
monday at 9") into that repetition. It rewrites the call itself, before any tool runs
(`tools.agent.reading`), so the right tool decides everything else (a repeating job
still waits for approval, a past time of day is still asked about).

The same reading serves the offline model: what it finds here is what it schedules.
"""

from __future__ import annotations

import contextvars
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from tools import timeparse
from tools.audience import USER_MENTION
from tools.schedule import Cron, Every, Schedule, ScheduleError, zone
from tools.schedule.describe import ordinal
from tools.schedule.zones import their_time_in, zone_time_in
from tools.timeparse.holidays import HOLIDAY_RE
from tools.timeparse.instant import DEFAULT_HOUR
from tools.timeparse.lexicon import MONTH_RE, WEEKDAY_RE
from tools.timeparse.recurrence import EVERY_YEAR_ON_OCCASION, POD_HOURS

__all__ = [
    "MEETING_LEAD",
    "OCCASION",
    "REMIND",
    "STATEMENT",
    "Words",
    "dialogue",
    "far_weekday_date",
    "is_note",
    "names_repeat",
    "read_words",
    "split_off_instruction",
    "starts_with_a_span",
    "starts_with_verb",
]

# Whom a job may reach, as written: "<@1>", "<@&2>" (a role), "<#3>", "@name", "#channel".
_ADDRESS = re.compile(r"<(?:@[!&]?|#)\d+>|(?<![\w<])[@#][\w-]+")
_DM = re.compile(r"\b(?:dms?|direct(?:ly)? message|privately|in private)\b", re.I)
# A place in Discord: a channel, or "the server" as a place ("post it in the server"); not
# a machine ("restart the build server").
_PLACE = re.compile(
    r"\b(?:channels?|chan)\b|\b(?:in|to|on|across)\s+(?:the|this|that|our|my|whole)\s+server\b",
    re.I,
)
_THIS_PLACE = re.compile(
    r"\b(?:in|to|on)\s+(?:this|the\s+current)\s+(?:channel|chan|thread)\b", re.I
)
# "10 minutes before", "an hour early", "half an hour ahead": a lead time in the words.
_LEAD = re.compile(
    r"\b(\d+|an?|one|two|five|ten|fifteen|twenty|thirty|half an?)\s*"
    r"(m|mins?|minutes?|h|hrs?|hours?|d|days?|w|wks?|weeks?)\s+(?:before(?:hand)?|early|earlier|ahead|prior|in\s+advance)\b",
    re.I,
)
# A lead time on a holiday: "2 days before thanksgiving" is a day the time language reads.
_HOLIDAY_AFTER_LEAD = re.compile(
    r"\b(?:before|early|earlier|ahead|prior)\s+(?:(?:the|of|to)\s+)?" + HOLIDAY_RE, re.I
)
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "five": 5, "ten": 10, "fifteen": 15}
_NUMBERS |= {"twenty": 20, "thirty": 30}
# The time of an event: "my call is at 3", "the meeting starts at 10", "dinner's at 7".
_COPULA = re.compile(
    r"(?:\b(?:is|are|was|starts?|begins?|kicks off|happens?|will be)|'s)\s+"
    r"(?:at|on|in|from|tomorrow|today|tonight|this|next|\d|due\b|"
    r"(?:mon|tue|wed|thu|fri|sat|sun|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\w*\b)",
    re.I,
)
_EVENT_NOUN = (
    r"meeting|call|appointment|interview|standup|stand-up|sync|1:1|webinar|class|lesson|"
    r"flight|train|dinner|lunch|game|match|show|party|session|exam|test|doctor|dentist"
)
# "I have a meeting at 3", "dentist appointment tomorrow at 10": the time belongs to an event.
_HAVE_EVENT = re.compile(
    rf"\b(?:i have|i've got|i got|there's|we have|got)\s+(?:an?|my|the|our)?\s*[\w\s-]{{0,30}}?"
    rf"\b(?:{_EVENT_NOUN})\b",
    re.I,
)
_ABOUT_EVENT = re.compile(
    rf"\b(?:remind|ping|nudge|tell)\s+(?:me|us)\s+(?:about|of|before)\s+(?:my|the|our|a)?\s*"
    rf"[\w\s-]{{0,30}}?\b(?:{_EVENT_NOUN})\b",
    re.I,
)
# How much of a span: "an hour", "10 minutes", "half an hour", "one hour", "two days".
_AMOUNT = r"an?|\d+|half an?|one|two|three|four|five|six|ten|fifteen|twenty|thirty|forty(?:-five)?"
# "snooze 42 by 10 minutes", "push it back an hour": a shift of an existing job, not a time.
_SHIFT = re.compile(
    r"\b(?:snooze|push|postpone|delay|bump|move|shift|put|set)\b.*?\b(?:by|back)\s+"
    rf"(?:{_AMOUNT})\s*(?:s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|days?)\b",
    re.I,
)
_SPAN_EARLIER_LATER = re.compile(
    rf"\b(?:{_AMOUNT})\s*(?:s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|days?|weeks?)"
    r"\s+(?:earlier|later|sooner|more\s+(?:late|early|soon))\b",
    re.I,
)


def _shift_change(raw: str) -> bool:
    """A change to a job by a span said after it ("set the pizza reminder an hour later")."""
    if not _SPAN_EARLIER_LATER.search(raw):
        return False
    asked = manage_request(" ".join(raw.lower().split()).rstrip(" .!?"))
    return asked is not None and asked[0] == "update_scheduled_action"


# End conditions of a repeat: "3 times", "until december 18", "for the next hour".
_TIMES = re.compile(
    r"(?:,\s*|\s+)(?:for\s+)?(\d+|twice|once)\s*(?:times|x)\b"
    r"(?:\s+(?:total|in\s+total|in\s+all|altogether))?(?:\s*,?\s*(?:and\s+)?then\s+(?:stop|end|quit))?"
    # "…, stop after 6 reminders": how many runs, said as when to stop
    r"|(?:,\s*|\s+)(?:and\s+)?(?:then\s+)?(?:stop|end|quit)\s+after\s+(\d+)\s*"
    r"(?:times|x|reminders?|runs?|pings?|rounds?|of\s+them)\b"
    # "— 6 more payments and it's ours", "3 more doses": how many runs are left
    r"|(?:,\s*|\s*[—–-]\s*|\s+)(\d+)\s+more\s+(?:payments?|instal?l?ments?|doses?|times|sessions?"
    r"|classes|lessons|rounds|runs|reminders?)\b(?:\s+(?:and|then)\s+[^,.;!?]{0,40})?",
    re.I,
)
# The words that say a repeat's end: "until", "till", "through" …
_UNTIL_WORD = r"(?:until|till|til|through|thru)"
_UNTIL = re.compile(
    rf"(?:,\s*|\s+|^)(?:{_UNTIL_WORD}|(?:and\s+)?(?:then\s+)?(?:stop|end|finish)\s+(?:at|after|by))"
    # (not a bare number after "stop after": 6 runs or 6 o'clock? `STOP_AFTER_A_NUMBER`)
    r"\s+(?!\d{1,2}(?:\s*[,.;!?]|\s*$))([^,.;!?—–]+)",
    re.I,
)
# "…, stop after 6": six reminders, or at six o'clock? Asked, never guessed.
STOP_AFTER_A_NUMBER = re.compile(
    r"\b(?:stop|end|quit|finish)\s+after\s+\d{1,2}(?=\s*[,.;!?]|\s*$)", re.I
)
_FOR_NEXT = re.compile(
    r"(?:,\s*|\s+)for\s+the\s+next\s+((?:\d+|an?|one|two|three|four|five|six|half an?)?\s*"
    r"(?:min(?:ute)?s?|hours?|days?|weeks?|months?|years?))\b",
    re.I,
)
# A repeat's length said on its own: "for 14 days", "for two weeks", "10 days then stop".
# How many days or weeks a repeat goes on: "14", "five".
_COUNT = r"\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten"
_FOR_SPAN = re.compile(
    rf"(?:,\s*|\s+)(?:for\s+(?P<n>(?:{_COUNT}|an?)\s*"
    r"(?:days?|weeks?|months?|fortnights?))\b(?:[\s,]+(?:and\s+)?then\s+stop\b)?"
    rf"|(?P<m>(?:{_COUNT})\s*(?:days?|weeks?|months?))"
    r"[\s,]+(?:and\s+)?(?:then\s+)?stop\b)",
    re.I,
)
# A job named by its number ("move 42 to friday", "job 42") is not a time of day.
_JOB_REF = re.compile(
    r"\b((?:move|change|reschedule|push|snooze|postpone|delay|shift|bump|cancel|delete|"
    r"remove|pause|resume|unpause|stop|edit|update)\s+(?:(?:job|reminder|task|number)\s+)?"
    r"|(?:job|reminder|task)\s+)#?\d+\b",
    re.I,
)
# Common misspellings of time words, read as meant.
_TYPOS = {
    r"tomm?orr?ow|tomorow|tommorrow|tomorrw|tmrw|tmr|2morrow|2moro|2mrw": "tomorrow",
    r"minuts|mintues|minites|minuets": "minutes",
    r"tonite|2nite": "tonight",
    r"wensday|wedensday|wednsday": "wednesday",
    r"thurs|thursay": "thursday",
    r"tuesay|tues": "tuesday",
    r"firday|fryday": "friday",
    r"evry|evrey|eveyr|everyy|evey": "every",
    r"b4": "before",  # chat shorthand ("b4 the stream")
}
_TYPO_RE = [(re.compile(rf"(?<![\w'])(?:{k})(?![\w'])", re.I), v) for k, v in _TYPOS.items()]
# A zone named in the words: the calendar day there may differ from the person's.
_ZONEISH = re.compile(
    r"\b(?:utc|gmt|[a-z]{1,3}[sd]t|cet|cest|jst|ist|aest|aedt|bst|msk)\b|\b(?:utc|gmt)?[+-]\d{1,2}\b",
    re.I,
)
MAX_WORDS = 40  # the time language reads a phrase this long; longer text is read by clause
_CLAUSE = re.compile(r"(?<=[,.;!?])\s+|\s+(?=(?:and|but|because|so)\s)", re.I)
# "team call at 5pm": an event noun with its time; not "remind me to join the call at 3".
_NOUN_AT = re.compile(
    r"\b(?:meeting|call|appointment|interview|standup|stand-up|sync|1:1|webinar|class|lesson|"
    r"flight|train|party|session|exam)\s+(?:is\s+)?(?:at|on|tomorrow|today|tonight)\b",
    re.I,
)
_REMIND_AT = re.compile(
    r"^\W*(?:please\s+)?(?:(?:can|could)\s+you\s+)?(?:remind|ping|nudge)\s+(?:me|us)\s+"
    r"(?:at|in|on|tomorrow|today|tonight|to|every|this|next)\b",
    re.I,
)
# The person asks to be reminded (not for a command to be run).
# "remnd", "remaind": slips of "remind" people type, read as the word meant.
REMIND_SLIPS = r"remnd|remaind|remid|rmind|reminf"
REMIND = re.compile(
    rf"\b(?:remind|reminded|reminder|reminding me|{REMIND_SLIPS}|alarm|wake me|ping me|nudge me|"
    r"nag me|bug me|"
    r"don'?t let me forget|"
    # "remember me to …" (as "remind" is said in many languages), "rmd 40m …"
    r"remember (?:to )?me|^rmd|^rmnd|^rmdr|(?:rm|rmd|rmnd)(?= me\b)|"
    r"do not let me forget|make sure i|keep reminding|help me (?:to )?remember|"
    r"(?:need|want|give me|send me|get me|i'?d like|could use) a "
    r"(?:nudge|ping|poke|heads[- ]?up|shout|buzz|holler|shout-?out))\b",
    re.I,
)
# A meeting or call: its reminder customarily comes a few minutes early.
_MEETING = re.compile(
    r"\b(meeting|standup|stand-up|appointment|interview|sync|1:1|zoom|webinar)\b"
    r"|\b(my|the|a|our|conference|video|phone|team)\s+call\b|\bcall with\b",
    re.I,
)
# A day computed from the one named ("a week before her birthday", "the day after").
_OFFSET_FROM_DAY = re.compile(r"\b(?:before|after|ahead|prior|earlier|early|ago)\b", re.I)
# Birthdays and anniversaries: a reminder of the day.
OCCASION = re.compile(r"\b(?:birthday|anniversary|bday|b-day)\b", re.I)
# A statement about oneself or the world, not a request: "I'll be home at 6".
STATEMENT = re.compile(
    # after an interjection too: "haha my cat knocked the tree over again"
    r"^(?:(?:ha(?:ha)+|he(?:he)+|lol|lmao|omg|oh|ah|ugh|wow|welp|oops|whoa|yikes|man|dude|"
    r"aw+)\b[\s,.!]*)*"
    r"(?:i|i'?ll|i'?m|i'?ve|i'?d|we|we'?ll|we'?re|it|it'?s|he|she|they|there|this|that|the|"
    r"my|our|his|her|their|you|your)\b",
    re.I,
)
# Someone else will do the reminding: "our supervisor said she'll remind everyone at 23:00",
# "Jonas's mum says she'll remind everyone about the cake sale on friday". Told, not asked.
_SOMEONE_ELSE_REMINDS = re.compile(
    r"\b(?:she|he|they|who)(?:'ll|\s+will|\s+would|'d|\s+(?:is|are|was|were)\s+going\s+to"
    r"|'s\s+going\s+to|\s+gonna|\s+promised\s+to|\s+offered\s+to|\s+always)\s+"
    r"(?:remind|ping|nudge|text|message)\b",
    re.I,
)
# What happened at a time, told in the past ("clocked out at 07:00", "got home at 2am",
# "we finished around 6"): no time to act at. After the start of a clause or its subject,
# so a thing described ("the table booked at 7") is not one.
_HAPPENED_AT = re.compile(
    r"(?:^|[,.;!?]\s*|\b(?:i|we|he|she|they|it|just|finally|only|and|then)\s+)"
    r"(?:[a-z]{2,}[^\We]ed|got|woke|left|went|came|ate|slept|began|ran|was|were|had|rang"
    r"|flew|drove|fell|finished)"
    r"(?:\s+(?:out|in|up|off|home|back|down|over|away|there|here))?"
    r"\s+(?:at|around|about|by|just\s+(?:after|before))\s+(?:\d|noon|midnight)",
    re.I,
)
# How long something took, told in the past ("that boss went down in like 20 mins", "we
# finished in under an hour"): a duration, no time to act at.
_TOOK = re.compile(
    # (not "is baked in 20 minutes", "will be finished in an hour": still to come)
    r"(?<!\bis\s)(?<!\bare\s)(?<!\bbe\s)(?<!'s\s)(?<!\bget\s)(?<!\bgets\s)"
    r"\b(?:[a-z]{2,}[^\We]ed|got|went|came|ran|was|were|fell|won|lost|beat|did|took|made)"
    r"(?:\s+(?:out|in|up|off|down|over|through|back))?"
    r"\s+in\s+(?:like\s+|about\s+|around\s+|under\s+|just\s+|only\s+|barely\s+"
    r"|less\s+than\s+|over\s+)?(?:\d+|an?|one|two|three|five|ten)\s*"
    r"(?:secs?|seconds?|mins?|minutes?|hrs?|hours?|days?)\b",
    re.I,
)
# A report of what was done: a past tense first ("handed in the lab report at 11:58"), or
# after one word that names who did it ("prof cancelled the 8am lecture tmrw").
_REPORTED_START = re.compile(
    r"^(?:(?:ha(?:ha)+|lol|lmao|omg|oh|ah|ugh|wow|welp|yay|phew|whew|finally|so)\b[\s,.!]*)*"
    r"(?:(?P<who>[a-z][a-z']*)\s+)?(?:just\s+|finally\s+|already\s+)?"
    r"(?P<verb>[a-z]{2,}[^\We]ed|paid|got|went|ran|made|won|lost|bought|sold|sent|did|had|took"
    r"|gave|found|met|saw|told|wrote|drove|flew|ate|slept|woke|came|broke|fell|forgot|spent"
    r"|brought|caught|built|smashed|nailed|crushed|aced|hit\s+(?:a|my|another)\s+new"
    # someone's word reported ("Tomas said he'll do the stocktake on Saturday morning")
    r"|said|says)\b",
    re.I,
)
# What someone is doing or will be doing, told first ("picking up agency shifts in Dublin
# …", "flying out on the 5th"): a gerund, not a command (a verb of five letters or fewer
# ending in -ing is no gerund: "bring", "ping", "ring").
_DOING_FIRST = re.compile(
    r"^(?:(?:just|currently|now|still|also)\s+)?(?!(?:morning|evening|during|nothing|something"
    r"|anything|everything|string|spring|thing|king|ceiling|wedding|meeting|building|pudding"
    r"|shopping|clothing|parking|booking|training|reading|painting|feeling|ending|timing)\b)"
    r"[a-z]{3,}[^aeiou\W]?ing\b(?<=\w{6})",
    re.I,
)
# Words that ask for something anywhere in a message.
_ASKS_ANYWHERE = re.compile(
    r"\b(?:please|pls|plz|can\s+you|could\s+you|would\s+you|will\s+you|let\s+me\s+know"
    r"|don'?t\s+let\s+me|make\s+sure)\b|\?",
    re.I,
)


def _reported(plain: str) -> bool:
    """Whether the message only reports something done: it starts with a past tense (or
    one word and a past tense: not a command's verb, "post updated notes at 5"), asks
    nothing, and no clause of it is a command ("…, so cancel the pizza reminder")."""
    m = _REPORTED_START.match(plain.strip())
    if m is None or _ASKS_ANYWHERE.search(plain):
        return False
    if m["who"] and (m["who"].lower() in _COMMAND_VERBS or m["who"].lower() in _BEFORE_A_VERB):
        return False
    if m["verb"].lower() in ("said", "says") and REMIND.search(plain):
        return False  # "mom said to remind me at 5 to call her": a request, passed on
    clauses = _CLAUSE_END.split(plain)
    return not any(
        starts_with_verb(re.sub(r"^\W*(?:(?:so|and|but|then|now)\b\W*)*", "", c))
        for c in clauses[1:]
    )


MEETING_LEAD = 5  # minutes: what the prompt teaches a model for meetings and calls
# A question to the bot or about the world ("what time is it?"), not "can you …?" requests.
_QUESTION = re.compile(
    r"^(?:what|when|where|who|whose|why|how|which|is|are|was|were|will|has|have)\b"
    r"(?!\s+(?:about|you)\b)[^?]*\?+$"
    # ... also without its question mark: "what's the weather tomorrow at 9", "how long
    # until friday", "can you tell me what day it is tomorrow"
    r"|^(?:what|when|where|who|why|how|which)(?:'s|'re|\s+(?:is|are|was|were|do|does|did|"
    r"will|would|should|long|much|many|far|late|early|old))\b"
    r"|^(?:can|could|would)\s+(?:you|u)\s+(?:tell|show)\s+me\s+(?:what|whether|if|how|when|"
    r"where|who|which|why)\b"
    # "do you store my messages anywhere?": a yes-or-no question about the world or the bot
    r"|^(?:do|does|did)\s+(?:you|u|i|we|it|they|he|she|homar|this|that)\b"
    r"(?![^?]*\b(?:remind|ping|nudge)\b)[^?]*\?+$"
    # a goodbye with a time in it: "thanks, talk tomorrow at 9", "see you at 6"
    r"|^(?:(?:ok|okay|thanks|thank you|thx|ty|cool|great|bye|cheers|alright)\b[\s,!.]*)*"
    r"(?:talk|speak|chat|see\s+(?:you|ya|u)|catch\s+(?:you|ya|u)|cya|ttyl)\b",
    re.I,
)
# What to say to a statement (`Words.statement`) instead of making a job of it.
NOT_A_REQUEST = (
    "I'm not sure what you'd like me to do then. Say e.g. "
    '`remind me at 6 to call Sam` or `at 6 post "dinner" here`.'
)
# A repetition named in words: "every", "each morning", "daily at 9", "on mondays",
# "twice a day". "daily"/"weekly" naming a thing ("the daily standup", "weekly report") is
# not one: those words count only where nothing but a time or the end can follow them.
_DAYS = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
# A repeat said of the reminder itself rather than of its time ("a daily reminder at 8pm");
# "the daily standup" names a thing, so only words for a reminder count.
_FREQ_OF_REMINDER = (
    r"(?P<f>daily|nightly|weekly|fortnightly|monthly|yearly|annual|hourly)\s+"
    r"(?:reminders?|pings?|nudges?|alerts?|alarms?|notifications?|jobs?|messages?|posts?|"
    r"checks?|check-ins?)"
)
_REPEAT = re.compile(
    rf"\b(?:{_FREQ_OF_REMINDER}|"
    rf"every|each\s+(?:day|morning|afternoon|evening|night|week|month|year|hour|"
    rf"minute|weekday|weekend|{_DAYS})|"
    r"(?:daily|weekly|fortnightly|monthly|yearly|annually|hourly|nightly)"
    r"(?=\s*(?:$|[,.;!?)]|(?:at|on|from|until|till|til|for|in|and|except|starting|between|"
    r"before|after|around|by|@)\b|\d))|"
    rf"weekdays|weekends|{_DAYS}s|repeat\w*|recurring|"
    r"(?:once|twice|\d+\s*(?:x|times))\s+(?:a|an|per|each|every)\s+\w+|"
    r"per\s+(?:day|week|month|hour))\b",
    re.I,
)
_NAG = re.compile(
    r"\b(?:don'?t let me forget|do not let me forget|nag me|keep (?:reminding|bugging|nagging)"
    r"|make sure i|until i (?:do|answer|confirm|reply)|bug me)\b",
    re.I,
)


@dataclass(frozen=True)
class Words:
    """What a live message says about time; `None` fields say nothing (or nothing clear)."""

    text: str
    instant: datetime | None = None  # the one instant named, in the user's zone
    recurrence: Schedule | None = None  # the one recurrence named
    rest: str = ""  # the message without its time phrase
    zone: str | None = None  # a zone the person named ("Tokyo time")
    lead: timedelta | None = None  # a lead time the person named ("10 minutes before")
    event: bool = False  # the time is of an event, not of the reminder
    nag: bool = False  # "don't let me forget", "nag me"
    ambiguous: bool = False  # two times, or a zone that couldn't be read: don't correct
    rolled: bool = False  # a bare time already past today; `instant` is tomorrow's
    # a clock like "4:30" on a later day, read as written (04:30) though the afternoon's is
    # as likely ("the dentist is at 4:30 tomorrow"): the person is asked which
    half_day: bool = False
    remind: bool = False  # the person asks to be reminded ("remind me", "nag me")
    meeting: bool = False  # the event is a meeting or call (a lead time is customary)
    now: datetime | None = None  # the reference the words were read against
    addressed: frozenset[str] = frozenset()  # the mentions/@names/#channels the person wrote
    # "until the end of term" said right after a repeat's time, which no date could be read
    # from: the repeat's end, not known (the person is asked; never silently dropped)
    unread_end: str | None = None

    @property
    def repeats(self) -> bool:
        """The words clearly name a repetition ("every monday at 9", "daily at 8"); a yearly
        occasion the time language infers ("Ana's birthday is on March 3rd") is not named;
        "for five days remind me at 10pm" is (a clock each day)."""
        return (
            self.recurrence is not None
            and not self.ambiguous
            and (names_repeat(self.text) or _FOR_DAYS_FRAME.search(self.text.strip()) is not None)
        )

    @property
    def once(self) -> bool:
        """The words name one time (maybe not yet its day: `rolled`) and no repetition."""
        clear = not self.ambiguous or self.rolled
        return self.instant is not None and clear and not names_repeat(self.text)

    @property
    def statement(self) -> bool:
        """The message tells something ("I'll be home at 6", "my meeting got moved to 4pm",
        "the weather is nice today") rather than asking: no reminder is asked for, no event's
        time is given, and what is left starts like a sentence about someone or something."""
        if self.remind:
            return False
        if _QUESTION.match(self.text.strip()):
            return True  # "what time is it?", "when is the standup?": asked, not a request
        plain = QUOTED.sub(" ", self.text)
        if _SOMEONE_ELSE_REMINDS.search(plain):
            return True  # "my tax advisor said she'll remind me herself before the 10th"
        if _reported(plain):
            return (
                True  # "lol prof cancelled the 8am lecture tmrw", "handed in the report at 11:58"
            )
        if self.event or OCCASION.search(plain):
            return False
        if _DOING_FIRST.match(plain) and not _ASKS_ANYWHERE.search(plain):
            return True  # "picking up shifts in Dublin in december, flying out on the 5th"
        if (_HAPPENED_AT.search(plain) or _TOOK.search(plain)) and not starts_with_verb(self.text):
            return True  # "12 hour night done, clocked out at 07:00 and the sun's up"
        return bool(STATEMENT.match(what_of(self.rest) or self.text))

    @property
    def timeless(self) -> bool:
        """The message names no time at all (nothing read, nothing unclear)."""
        return (
            self.instant is None
            and self.recurrence is None
            and self.lead is None
            and not self.ambiguous
        )

    # ------------------------------------------------------------ corrections

    def settle_instant(self, at: datetime, *, lead: timedelta = timedelta(0)) -> datetime:
        """The instant a tool should use: the words' instant when they disagree with `at`.

        `at` is what the tool resolved *before* any lead time; with a lead, the words'
        instant is the event time and the lead is kept (see `settle_lead`).
        """
        if self.ambiguous:
            return at
        if self.instant is not None:
            return at if at == self.instant else self.instant
        day = self.occasion
        if day is None:
            return at
        if at.astimezone(day.tzinfo).date() == day.date():
            return day  # the occasion's day with a time of day nobody said
        if self.lead is not None:
            return day  # "a week before Ana's birthday on March 3rd": the lead is taken after
        if not _OFFSET_FROM_DAY.search(self.text):
            return day  # another day nobody said (the 0.5B: "March 3rd" → December 3)
        return at  # "the day before": the model's to compute

    @property
    def occasion(self) -> datetime | None:
        """The next day of a yearly occasion the words infer without naming a repetition
        ("mom's birthday is on December 12"), at the time they say or the day's usual
        hour: a one-off on that day is at that time, not at one the model made up (a day
        before it, "remind me a week before", is the model's to compute)."""
        rec = self.recurrence
        if rec is None or self.ambiguous or self.now is None or names_repeat(self.text):
            return None
        return rec.next_after(self.now)

    def settle_delay(self, now: datetime, delay: timedelta) -> timedelta:
        """A delay ("in 2 hours") as the words say it, exact to the second."""
        if self.instant is None or self.ambiguous:
            return delay
        said = self.instant - now
        return delay if abs(said - delay) < timedelta(seconds=1) else said

    def settle_lead(self, minutes_before: int) -> int:
        """A lead time applies only to the time of an event; the person's own lead wins."""
        if self.lead is not None:
            return int(self.lead.total_seconds() // 60)
        if self.instant is None or self.ambiguous:
            return minutes_before
        if not self.event:
            return 0
        # A live turn doesn't show a model `minutes_before` (`tools.agent.build`): a meeting's
        # customary lead comes from here, as in the offline model.
        return minutes_before or (MEETING_LEAD if self.meeting else 0)

    def settle_recurrence(self, sched: Schedule, now: datetime) -> Schedule:
        """The words' recurrence (with its end conditions) when the tool's runs differ."""
        rec = self.recurrence
        if rec is None or self.ambiguous:
            return sched
        mine = rec.next_runs(now, 12)  # over a week, so weekday sets differ
        if mine == sched.next_runs(now, 12) and (rec.until, rec.max_runs) in (
            (None, None),
            (sched.until, sched.max_runs),
        ):
            return sched
        try:
            return Schedule(
                rec.spec, rec.tz, rec.until or sched.until, rec.max_runs or sched.max_runs
            )
        except ScheduleError:
            return sched

    def settle_follow_up(self, follow_up: bool) -> bool:
        return follow_up or self.nag

    @property
    def addresses_someone(self) -> bool:
        """The person named whom to reach (a mention, @name, #channel, "dm me") or speaks
        of another place ("post it in that channel"; "in this channel" is where they are)."""
        place = _PLACE.search(_THIS_PLACE.sub(" ", self.text))
        return bool(self.addressed) or bool(_DM.search(self.text) or place)

    def settle_audience(self, audience: str) -> str | None:
        """The audience without the people/roles/channels the person never named (a small
        model makes up "<@13>" for "say hello to the team"), and without a DM nobody asked
        for; None when nobody is left."""
        if not self.addresses_someone:
            return None  # "say hello to the team": nobody the bot could ping was named
        if _DM.search(audience) and not _DM.search(self.text):
            # "post 'lunch is ready' in this channel": the 0.5B added "dm me"
            audience = re.sub(rf"(?:{_DM.pattern})(?:\s+(?:me|us))?", " ", audience, flags=re.I)
            audience = re.sub(r"^[\s,;&+]+|[\s,;&+]+$", "", " ".join(audience.split()))
            if not re.search(r"[<@#\w]", re.sub(r"\b(?:me|and|or)\b", " ", audience)):
                return None
        if not self.addressed:
            return audience  # "in that channel": the audience checks decide ("isn't ours")
        made_up = [a for a in _ADDRESS.findall(audience) if _address(a) not in self.addressed]
        if not made_up:
            return audience
        for a in made_up:
            audience = audience.replace(a, " ")
        left = re.sub(r"[\s,;&+]+|\b(?:and|or|plus)\b", " ", audience).strip()
        ends = r"^(?:[\s,;&+]|\b(?:and|or|plus)\b)+|(?:[\s,;&+]|\b(?:and|or|plus)\b)+$"
        return re.sub(ends, "", " ".join(audience.split())) if left else None

    def settle_kind(
        self, tool: str, args: dict[str, Any], *, earlier: Sequence[str] = ()
    ) -> tuple[str, dict[str, Any]]:
        """The call the words say, as (tool, arguments).

        Repetition: a repeating call for a one-off request becomes the one-off; a one-off
        call for a named repetition, the repetition. Then a one-off is a reminder when the
        person asks to be reminded (or names an event), else a command to run.
        `earlier`: the person's earlier messages in this dialogue (`dialogue`): a repetition
        or a "remind me" said there ("remind me every day to stretch" → "what time?" →
        "at 8am") still counts.
        """
        kind = _CALL_KINDS.get(tool)
        if kind == "action" and args.get("type") == "once":
            # the same job as send_scheduled_message, which ends the run in one request
            tool, kind = "send_scheduled_message", "command"
            kept = {k: v for k, v in args.items() if k in _KEPT}
            args = {"message": args.get("description"), "scheduled_datetime": args.get("schedule")}
            args |= kept
        elif kind == "action":
            kind = "repeat"
        if kind is None:
            return tool, args
        if kind == "repeat":
            if self.once and not any(map(names_repeat, earlier)):
                text = str(args.get("description") or "")
                return self._one_off(text, self._when(None), args, earlier) or (tool, args)
            if self.repeats:  # the words' type and schedule ("every weekday" is no interval)
                fixed = self._repeat(tool, args)[1]
                ends = {k: args[k] for k in ("until", "max_runs") if k in args}
                return tool, ends | fixed
            return tool, args
        if self.repeats:
            return self._repeat(tool, args)
        reminder = self._reminder(earlier)
        text = str(args.get("message") or args.get("context") or args.get("description") or "")
        if (
            (reminder and kind in ("command", "callback"))
            or (
                not reminder
                and kind == "reminder"
                and self.instant is not None
                and not (STATEMENT.match(self.rest.strip(" ,.!?")) or STATEMENT.match(text))
            )
            or (
                # "restart the build server in 2 hours" is a command to run then; a callback
                # is checking back on something ("in 2 hours check whether the deploy …")
                kind == "callback"
                and self.instant is not None
                and not _CHECK_BACK.search(QUOTED.sub(" ", self.text))
            )
        ):
            said = self._one_off(text, self._when(_time_arg(tool, args)), args, earlier)
            return said or (tool, args)
        return tool, args

    def _reminder(self, earlier: Sequence[str]) -> bool:
        """Whether the person asks to be reminded, rather than for a command to be run."""
        said = self.remind or self.event or bool(OCCASION.search(QUOTED.sub(" ", self.text)))
        return said or any(REMIND.search(t) for t in earlier)

    def _when(self, given: str | None) -> str | None:
        """The time to pass on: the words' own when clear, else the call's."""
        at = self.instant
        if at is not None and not self.ambiguous:
            return at.isoformat()
        if at is not None and self.rolled:
            return f"{at:%H:%M}"  # a time of day already past: the tool asks "tomorrow?"
        return given

    def _one_off(
        self, text: str, when: str | None, args: dict[str, Any], earlier: Sequence[str]
    ) -> tuple[str, dict[str, Any]] | None:
        """The one-off call (reminder or command) for `text` at `when`; None without a time."""
        kept = {k: args[k] for k in _KEPT if k in args}
        if when is None:
            return None
        if self._reminder(earlier):
            call: dict[str, Any] = {"reminder_time": when, "message": text}
            if self.meeting and self.lead is None:
                call["minutes_before"] = MEETING_LEAD
            return "schedule_reminder", call | kept
        at, now = self.instant, self.now
        clear = at is not None and not self.ambiguous and now is not None
        if clear and at is not None and now is not None and _RELATIVE.search(self.text):
            secs = max(1, round((at - now).total_seconds()))
            span = {"hours": secs // 3600, "minutes": secs % 3600 // 60, "seconds": secs % 60}
            return "send_delayed_message", {"message": text, **span} | kept
        return "send_scheduled_message", {"message": text, "scheduled_datetime": when} | kept

    def _repeat(self, tool: str, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        rec = self.recurrence
        assert rec is not None
        kept = {k: args[k] for k in _KEPT if k in args and k != "on_duplicate"}
        text = str(args.get("message") or args.get("context") or args.get("description") or "")
        call: dict[str, Any] = {"description": text}
        if isinstance(rec.spec, Every):
            call |= {"type": "interval", "schedule": f"{rec.spec.seconds} seconds"}
        else:
            expr = rec.spec.expr if isinstance(rec.spec, Cron) else rec.describe()
            call |= {"type": "recurring", "schedule": expr}
        if rec.until is not None:
            call["until"] = rec.until.isoformat()
        if rec.max_runs is not None:
            call["max_runs"] = rec.max_runs
        return "schedule_action", call | kept


def _time_arg(tool: str, args: dict[str, Any]) -> str | None:
    """A one-off call's time as a phrase the scheduling tools read."""
    if tool == "send_delayed_message":
        parts = [f"{args.get(k) or 0} {k}" for k in ("hours", "minutes", "seconds")]
        return "in " + " ".join(parts)
    for key in ("reminder_time", "scheduled_datetime", "callback_time", "schedule"):
        if isinstance(args.get(key), str) and args[key].strip():
            return str(args[key])
    return None


# The scheduling tools by the kind of job they make ("action": `type` says which).
_CALL_KINDS = {
    "schedule_reminder": "reminder",
    "send_scheduled_message": "command",
    "send_delayed_message": "command",
    "schedule_future_callback": "callback",
    "schedule_action": "action",
}
_KEPT = ("audience", "on_duplicate")  # arguments that mean the same on every tool
_RELATIVE = re.compile(r"\b(?:in|after)\s+(?:\d|an?\b|half|a\s+few)", re.I)
_CHECK_BACK = re.compile(
    r"\b(?:check|see|look|verify|confirm|whether|if|follow(?:\s+|-)?up|get\s+back|callback|"
    r"call\s+back|circle\s+back|come\s+back|how|status|progress|done|finished)\b",
    re.I,
)


def names_repeat(text: str) -> bool:
    """Whether `text` names a repetition ("every", "each morning", "daily at 9", "mondays")."""
    return bool(_REPEAT.search(normalize(text)))


def said_lately(messages: Sequence[ModelMessage], last: int) -> list[str]:
    """What the person wrote in the last `last` messages of the thread, oldest first,
    whatever Homar answered in between (the current message included, if among them)."""
    return [
        p.content
        for m in messages[-last:]
        for p in m.parts
        if isinstance(p, UserPromptPart) and isinstance(p.content, str)
    ]


def last_answer(messages: Sequence[ModelMessage]) -> str:
    """What Homar said last before the person's current (latest) message: its question, if
    it asked one. A text answer, or what a tool answered (a model's run ends on the tool's
    own words; a run may get that tool answer and the new message in one request). The
    current message may be followed by the run's own steps (a tool being called now)."""
    at = next(
        (
            (i, j)
            for i in range(len(messages) - 1, -1, -1)
            for j in range(len(messages[i].parts) - 1, -1, -1)
            if isinstance(messages[i].parts[j], UserPromptPart)
        ),
        None,
    )
    if at is None:
        return ""
    i, j = at
    earlier: list[Sequence[Any]] = [m.parts for m in messages[:i]]
    earlier.append(messages[i].parts[:j])
    for parts in reversed(earlier):
        text = [p.content for p in parts if isinstance(p, TextPart)]
        said = [str(p.content) for p in parts if isinstance(p, ToolReturnPart)]
        if any(isinstance(p, UserPromptPart) for p in parts) and not said:
            continue
        if text or said or any(isinstance(p, ToolCallPart) for p in parts):
            return " ".join(text or said).strip()
    return ""


def dialogue(messages: Sequence[ModelMessage], turns: int = 3) -> list[str]:
    """The person's earlier messages in the dialogue the latest one continues: going back
    while Homar's answer to each was a question ("What time?"), at most `turns`."""
    said: list[str] = []
    answer = ""
    seen_latest = False
    for m in reversed(messages):
        if isinstance(m, ModelResponse):
            answer = answer or " ".join(p.content for p in m.parts if isinstance(p, TextPart))
            continue
        if not isinstance(m, ModelRequest):
            continue
        for p in reversed(m.parts):
            if isinstance(p, ToolReturnPart) and not answer:
                answer = str(p.content)
            if not isinstance(p, UserPromptPart) or not isinstance(p.content, str):
                continue
            if seen_latest:
                if not answer.rstrip(" *_)").endswith("?") or len(said) >= turns:
                    return said
                said.append(p.content)
            seen_latest = True
            answer = ""
    return said


# A request framed by how many days it goes on: "(starting from today,) for five days remind
# me at 10pm to …", "remind me for 5 days at 10pm to …" (not "for 3 days I've been …").
_FOR_DAYS_FRAME = re.compile(
    rf"^(?:starting\s+(?:from\s+)?(?:today|tonight|tomorrow)\s*,?\s*)?for\s+(?P<a>(?:{_COUNT})"
    r"\s+(?:days|weeks))\s*,?\s+(?:please\s+)?(?=(?:remind|ping|nudge)\s)"
    rf"|\b(?:remind|ping|nudge)\s+me\s+for\s+(?P<b>(?:{_COUNT})\s+(?:days|weeks))\b",
    re.I,
)
_FOR_DAYS_WORDS = re.compile(
    r"(?:\bstarting\s+(?:from\s+)?(?:today|tonight|tomorrow)\s*,?\s*)?\bfor\s+\w+\s+(?:days|weeks)\b"
    r"\s*,?",
    re.I,
)


def _daily_for(
    raw: str, found: timeparse.When, runs: int | None, now: datetime, tz: str
) -> Schedule | None:
    """A clock each day for the days a request is framed by (see `_FOR_DAYS_FRAME`), or
    None. Only a clock said alone (no day or date of its own) repeats."""
    m = _FOR_DAYS_FRAME.search(raw.strip())
    if m is None or runs is not None or not isinstance(found.schedule, datetime):
        return None
    if not found.said or timeparse.clock_of(found.said) is None:
        return None
    span = timeparse.parse_duration(m["a"] or m["b"])  # "five days", "2 weeks"
    at = found.schedule.astimezone(zone(tz))
    rule = timeparse.parse_recurrence(f"every day at {at:%H:%M}", now=now, tz=tz)
    if span is None or rule is None or not 1 <= span.days <= 366:
        return None
    try:
        return Schedule(rule.spec, tz, None, span.days)
    except ScheduleError:
        return None


def _earlier_by(sched: Schedule, lead: timedelta, now: datetime) -> Schedule | None:
    """A repeat at one time of day moved `lead` earlier on the same days, or None (a lead
    that would cross midnight, an interval, several times a day)."""
    first = next(iter(sched.next_runs(now, 1)), None)
    if first is None or lead >= timedelta(days=1):
        return None
    local = first.astimezone(sched.zone)
    clock = datetime.combine(local.date(), local.time()) - lead
    if clock.date() != local.date():
        return None
    return sched.at_time_of_day(clock.time())


def _lead(text: str) -> tuple[timedelta | None, str]:
    m = _LEAD.search(text)
    if m is None:
        return None, text
    q = m.group(1).lower()
    n = 0.5 if q.startswith("half") else float(_NUMBERS.get(q, 0) or (q.isdigit() and int(q)))
    unit = m.group(2).lower()
    minutes = n * {"h": 60, "d": 24 * 60, "w": 7 * 24 * 60}.get(unit[0], 1)
    if not 0 < minutes <= 28 * 24 * 60:  # up to four weeks ahead ("2 days before my exam")
        return None, text
    cut = (text[: m.start()] + " " + text[m.end() :]).strip()
    return timedelta(minutes=minutes), " ".join(cut.split())


def _address(token: str) -> str:
    return token.replace("<@!", "<@").lower()


# "at 6pm send a msg here: raid signups close in one hour, react if ur in": the words after
# the colon are the message to post, as if quoted (their "in one hour" is no time to act).
_POSTED = re.compile(
    r"^(?P<head>.*?\b(?:post|send|say|announce|write|share|drop)\b[^:\n\"“'`]{0,40}?):\s*"
    r"(?P<msg>[^\s\"“'`][^\"“”`]*)$",
    re.I,
)


def _quote_posted(raw: str) -> str:
    """The message with the words to post after a colon put in quotes, when the time is
    said before them."""
    m = _POSTED.match(raw)
    if m is None or timeparse.split_when(m["head"], now=EPOCH, tz="UTC") is None:
        return raw
    return f'{m["head"]}: "{m["msg"].strip()}"'


# Messages that name a time but ask for no job, or for one nobody can set from them.
_HYPOTHETICAL = re.compile(
    r"\b(?:if\s+i\s+(?:asked|ask|wanted|want|told|tell|set|said)|hypothetically|just\s+(?:curious"
    r"|wondering)|what\s+(?:would\s+happen|happens)\s+if)\b",
    re.I,
)
_CANT_DO = re.compile(
    r"^\W*(?:(?:hey|hi|ok|okay)\W+)?(?:can|could|would|will)\s+(?:you|u)\s+(?:please\s+)?"
    r"(?P<verb>ring|call|phone|text|e-?mail|drive|pay|buy|order|book|visit|fetch|collect|cook"
    r"|clean|fix|repair|walk|feed)\b(?!\s+(?:me|us)\b)",
    re.I,
)
_VAGUE_DAY = re.compile(
    r"\b(?:sometime|some\s+time|at\s+some\s+point|any\s*time|whenever)\s+(?:(?:(?:later\s+)?(?:next"
    r"|this)|during\s+the)\s+(?:week|month|year)\b"
    # "sometime in December", "at some point in spring": a month or season, no day
    r"|in\s+(?:(?:early|mid|late)[\s-]+)?(?:" + MONTH_RE + r"|spring|summer|autumn|fall|winter)\b)",
    re.I,
)
_TWO_PARTS = re.compile(
    r"\b(?:morning|afternoon|evening|night)s?\s+(?:and|&)\s+(?:(?:in\s+the|the|at)\s+)?"
    r"(?:morning|afternoon|evening|night)s?\b",
    re.I,
)


# Days pointed back at, not named: "on each of those three Fridays", "each of these days".
_EACH_OF_THOSE = re.compile(r"\b(?:on\s+)?each\s+of\s+(?:those|these|them)\b", re.I)
# A span of days nobody counted: "in a few days", "within the next few weeks".
_FEW_DAYS = re.compile(
    r"\b(?:in|within|after)\s+(?:the\s+next\s+)?(?:a\s+few|few|several|some)\s+(?:days|weeks|months)\b",
    re.I,
)
# Not known yet: "no idea yet if that's our time or Montreal time", "not sure whether it's
# 3 or 4", "on the 2nd or the 3rd??".
_ORDINAL_DAY = r"(?:the\s+)?\d{1,2}(?:st|nd|rd|th)"
_UNSURE = re.compile(
    r"\b(?:no\s+idea|not\s+(?:yet\s+)?sure|unsure|(?:i\s+)?(?:don'?t|do\s+not)\s+know)(?:\s+yet)?"
    r"\s+(?:if|whether|which|when|what\s+time)\b"
    # (about when: not "no idea which of the boxes has the papers")
    r"(?=[^.!?;]{0,40}?(?:\d|\b(?:time|day|date|week|morning|afternoon|evening|tonight|tomorrow"
    r"|(?:mon|tues|wednes|thurs|fri|satur|sun)day)\b))"
    rf"|\b(?:on\s+)?{_ORDINAL_DAY}\s+or\s+(?:on\s+)?{_ORDINAL_DAY}\b(?=[^.!]*\?)",
    re.I,
)
# The zone left as it is: "keep my reminders on Berlin time", "don't change my time zone".
KEEP_ZONE = re.compile(
    r"\b(?:keep|leave)\s+(?:me|my\s+(?:reminders|jobs|time\s*zone|tz|zone|schedule|times?|stuff)"
    r"|everything)\s+(?:on|in|at)\s+(?P<zone>[\w/' ]{1,30}?)\s+time\b"
    r"|\b(?:don'?t|do\s+not|no\s+need\s+to)\s+(?:change|switch|touch|update)\s+my\s+"
    r"(?:time\s*zone|tz|zone)\b",
    re.I,
)
ZONE_KEPT = (
    "Okay — your time zone stays as it is, and nothing is scheduled. (To change it, say "
    "e.g. `my timezone is Tokyo`.)"
)


def no_job_because(text: str) -> str | None:
    """What to answer instead of making a job, for a message that names a time but asks
    for none or for one nobody could set from it: a question what would happen ("if I asked
    you to remind me at 5, would …?"), something the bot can't do itself ("can you ring my
    dentist … friday?"), a week or month with no day ("sometime next week"), two parts of
    the day for one reminder ("each morning and evening"). None for any other message."""
    said = QUOTED.sub(" ", text).strip()
    asked = said.rstrip(" )*_").endswith("?")
    if asked and _HYPOTHETICAL.search(said):
        return (
            "That sounds like a question, so nothing is scheduled. A reminder comes back in "
            "the thread it was set in; to set one, say e.g. `remind me at 5 to call Sam`."
        )
    cant = _CANT_DO.search(said)
    if asked and cant is not None and not REMIND.search(said):
        verb = cant["verb"].lower()
        return (
            f"I can't {verb} anyone myself; I can only post in this thread. Say e.g. `remind "
            f"me friday at 9 to {verb} the dentist` — shall I remind you to do it?"
        )
    if _EACH_OF_THOSE.search(said):
        # "remind me at 1 o'clock on each of those three Fridays": the days are told in
        # another sentence, and a one-off today was made of it (offline and the 1.5B)
        return (
            "Which days should it repeat on, and at what time (e.g. `every friday at 1pm for "
            "3 weeks`)?"
        )
    if _FEW_DAYS.search(said):
        # "the nurse said to call back in a few days": two days or five is the person's call
        return "How many days exactly (e.g. `in 3 days at 10am`), or which day?"
    unsure = _UNSURE.search(said)
    if unsure is not None:
        # "remind me about Thursday's call at 4 — no idea yet if that's our time or Montreal
        # time", "is the exam on the 2nd or the 3rd?? either way remind me": the person
        # doesn't know yet, and a job at a guess would be wrong half the time
        return (
            "It sounds like that isn't settled yet, so nothing is scheduled. Once you know, "
            "which day and time should it be (e.g. `remind me thursday at 4pm about the call`)?"
        )
    if KEEP_ZONE.search(said) and not REMIND.search(said):
        # "off to Tokyo next week, but keep my reminders on Berlin time": nothing to do (the
        # offline reading answers a zone named that isn't the person's with a change)
        return ZONE_KEPT
    if _VAGUE_DAY.search(said):
        return "Say e.g. `next tuesday at 10`: which day, and what time?"
    if _TWO_PARTS.search(said):
        return TWO_TIMES
    if _DATE_LIST.search(said):
        return (
            "That names several dates, and one job runs at one time or on one rhythm, so "
            "nothing is scheduled yet: send one message per date, or say the rhythm (e.g. "
            "`every 3 months on the 1st at 10am`) — which would you like?"
        )
    sun = _BY_THE_SUN.search(said)
    if sun is not None:
        return (
            f"I can't tell when {sun['sun'].lower()} is where you are, so nothing is "
            "scheduled yet: what clock time should it be (e.g. `tomorrow at 7am`)?"
        )
    both = _day_or_month_first(said)
    if both is not None:
        return both
    if (
        _WHEN_SOMETHING_HAPPENS.search(said)
        and timeparse.split_when(said, now=EPOCH, tz="UTC") is None
    ):
        return (
            "I can't watch for that — I only act at the times you give me, so nothing is "
            "scheduled. Say e.g. `remind me at 5pm to check it`."
        )
    return None


# Dates said as a list: "on 1 March, 1 June, 1 September and 1 December", "dec 3 and dec 10".
_ONE_DATE = (
    rf"(?:\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{MONTH_RE}"
    rf"|{MONTH_RE}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?)"
)
_DATE_LIST = re.compile(
    rf"\b{_ONE_DATE}(?:(?:\s*,\s*(?:and\s+)?|\s+and\s+|\s*&\s*){_ONE_DATE}){{1,11}}\b", re.I
)
# A time set by the sun: "at dawn", "before sunset", "by first light".
_BY_THE_SUN = re.compile(
    r"\b(?:at|by|before|after|around|till|until|from)\s+(?:the\s+)?"
    r"(?P<sun>dawn|dusk|sunrise|sunset|sundown|sunup|daybreak|first\s+light|nightfall|twilight)\b",
    re.I,
)
# A date written with slashes, "4/12": the day first in most of the world, the month first in
# the US; when both readings are dates (and differ) only the person can say which.
_SLASH_DATE = re.compile(r"(?<![\w/.:-])(\d{1,2})/(\d{1,2})(?:/(?:\d{4}|\d{2}))?(?![\w/:-])")
_MONTHS: tuple[str, ...] = ("January", "February", "March", "April", "May", "June", "July")
_MONTHS += ("August", "September", "October", "November", "December")


def _day_or_month_first(said: str) -> str | None:
    """The question for a slash date that reads as two dates ("4/12": 4 December or April
    12?), or None."""
    for m in _SLASH_DATE.finditer(said):
        a, b = int(m.group(1)), int(m.group(2))
        if a != b and 1 <= a <= 12 and 1 <= b <= 12:
            day_first = f"{a} {_MONTHS[b - 1][:3].lower()}"
            month_first = f"{_MONTHS[a - 1][:3].lower()} {b}"
            return (
                f"Nothing is scheduled yet: is {m.group(0)} {a} {_MONTHS[b - 1]} or "
                f"{_MONTHS[a - 1]} {b} (say `{day_first}` or `{month_first}`)?"
            )
    return None


# Something to watch for, not a time: "tell me when the wind drops below 20 km/h", "let me
# know once the build passes".
_WHEN_SOMETHING_HAPPENS = re.compile(
    r"\b(?:tell|let|ping|alert|notify|warn|message|remind)\s+(?:me|us)(?:\s+know)?\s+"
    r"(?:when|once|as\s+soon\s+as|if|whenever)\s+(?!it'?s\s)(?:the\s+|my\s+|our\s+|it\s+)?"
    r"[a-z]+\s+(?:drops?|rises?|goes|gets|falls?|changes?|passes|fails?|finishes|ends|starts|"
    r"stops|arrives?|comes?|is|are|hits?|reaches?|opens?|closes?)\b",
    re.I,
)


# A clock taken back at once: "at 4, no wait, 5", "at 9 — sorry, 10": the one said last.
_CORRECTED = re.compile(
    r"\b(?P<at>(?:at|by|around)\s+)?\d{1,2}(?::\d{2})?(?:\s*[ap]\.?m\.?)?\s*,?\s*[—–-]?\s*"
    r"(?:no\s*,?\s*wait|no|sorry|actually|i\s+mean|make\s+(?:it|that)|or\s+rather)\s*,?\s*"
    r"(?P<b>\d{1,2}(?::\d{2})?(?:\s*[ap]\.?m\.?)?)(?![\d:])",
    re.I,
)
# "remaind me", "remnd me": the request's verb with a slip, read as meant.
_REMIND_SLIP = re.compile(rf"\b(?:{REMIND_SLIPS})(?=\s+(?:me|us)\b)", re.I)


# "move the plant watering one to thursday at 8am": "one" names the job being changed,
# it is no clock ("one to thursday" is not a time).
_THE_X_ONE = re.compile(
    r"^((?:(?:please|pls|can\s+you|could\s+you)\s+)?(?:move|push|shift|change|reschedule|bump"
    r"|postpone|delay|put|set|make|switch)\s+(?:the|my|that|this)\s+(?:[a-z'-]+\s+){0,3})"
    r"ones?\b(?!\s+(?:more\s+|extra\s+|full\s+)?(?:hours?|hrs?|minutes?|mins?|days?|weeks?|months?"
    r"|seconds?|secs?|o'?clock|thirty|fifteen|forty|twenty|pm|am)\b)",
    re.I,
)


def read_words(text: str, now: datetime, tz: str) -> Words:
    """Read the time in a person's message (`now` aware; `tz` their zone). Never raises."""
    raw = " ".join(USER_MENTION.sub(" ", text or "").split())
    raw = _THE_X_ONE.sub(r"\1job", raw)
    raw = _quote_posted(_REMIND_SLIP.sub("remind", timeparse.mend_spelling(raw)))
    raw = _CORRECTED.sub(lambda m: f"{m['at'] or ''}{m['b']}", raw)
    addressed = frozenset(_address(a) for a in _ADDRESS.findall(text or ""))
    try:
        part = _PART_OF_THAT_DAY.search(raw)
        if part is not None:
            return replace(_on_the_events_day(raw, part, now, tz), addressed=addressed)
        return replace(_read(raw, now, tz), addressed=addressed)
    except Exception:  # a reading that fails corrects nothing
        return Words(raw, ambiguous=True, addressed=addressed)


# "remind me the morning of": that part of the event's own day (the event's time is told
# elsewhere in the message: "the visa appointment is thursday at 11:15").
_PART_OF_THAT_DAY = re.compile(
    r"\s*\b(?:on\s+)?the\s+(?P<pod>morning|afternoon|evening|day)\s+of\b"
    r"(?=\s*(?:[,.;:!?]|$|to\b|that\b|so\b|about\b))",
    re.I,
)


def _on_the_events_day(raw: str, part: re.Match[str], now: datetime, tz: str) -> Words:
    """The message read without "the morning of", its event's day at that part's usual
    hour, before the event; anything else is asked about."""
    told = _read(raw[: part.start()] + raw[part.end() :], now, tz)
    event = told.instant
    if event is None or told.ambiguous or told.recurrence is not None or told.lead is not None:
        return Words(raw, rest=told.rest)  # no one day of an event: when is asked
    pod = part["pod"].lower()
    hour = DEFAULT_HOUR if pod == "day" else POD_HOURS[pod]
    at = event.replace(hour=hour, minute=0, second=0, microsecond=0)
    if not now < at < event:
        return Words(raw, rest=told.rest)  # the event is before that hour: when is asked
    return replace(
        told, text=raw, instant=at, event=False, meeting=False, rolled=False, half_day=False
    )


def _ends(
    body: str, now: datetime, tz: str, *, repeat: bool = False
) -> tuple[str, datetime | None, int | None]:
    """Cut a repeat's end conditions out of `body`: (body, until, max runs). `repeat`: the
    time read is a repeat, so a span said of it is how long it goes on ("every night at 10
    to take magnesium for 14 days", "…, 14 days then stop")."""
    until: datetime | None = None
    runs: int | None = None
    m = _TIMES.search(body)
    if m is not None:
        q = (m.group(1) or m.group(2) or m.group(3)).lower()
        runs = {"once": 1, "twice": 2}.get(q) or int(q)
        body = body[: m.start()] + body[m.end() :]
    m = _UNTIL.search(body) or _FOR_NEXT.search(body)
    m = m or (_FOR_SPAN.search(body) if repeat else None)
    if m is not None:
        phrase = (m["n"] or m["m"] if m.re is _FOR_SPAN else m.group(1)).strip()
        end = m.end()
        if m.re is _FOR_NEXT or m.re is _FOR_SPAN:
            if not re.match(r"\d|an?\b|one|two|three|half", phrase, re.I):
                phrase = "1 " + phrase
            span = timeparse.parse_duration(phrase)
            until = now + span if span is not None else None
        else:
            words = phrase.split()
            for k in range(min(len(words), 6), 0, -1):  # the longest run of words that is a time
                until = timeparse.parse_instant(" ".join(words[:k]), now=now, tz=tz)
                if until is not None:
                    end = m.start(1) + len(" ".join(words[:k]))
                    break
            if until is None:
                # "until the schools break up on 18 december": the date told in the phrase
                inner = timeparse.split_when(phrase, now=now, tz=tz)
                if inner is not None and isinstance(inner.schedule, datetime):
                    until = inner.schedule
                    said = phrase.lower().find(inner.said.lower()) if inner.said else -1
                    if said >= 0:
                        # to the date's end, and a bracket closed after it: what follows
                        # ("… (friday 18 dec) remind me to …") is the request
                        end = m.start(1) + said + len(inner.said)
                        close = re.match(r"\s*\)", body[end:])
                        end += close.end() if close else 0
            if until is not None and (until.hour, until.minute) == (9, 0):
                until = until.replace(hour=23, minute=59)  # "until friday": through that day
        if until is not None:
            body = body[: m.start()] + body[end:]
    course = _COURSE.search(body)
    if course is not None and until is None and runs is None:
        # "every day at 9pm, it's a 10 day course": that many runs of a daily repeat
        runs = int(course["n"])
        body = body[: course.start()] + body[course.end() :]
    return " ".join(body.split()), until, runs


# When a repeat starts, said apart from it: "daily 22:00 take magnesium, starting tonight".
_STARTING = re.compile(
    r"[,;]?\s*\b(?:starting|beginning|from)\s+(?P<day>(?:(?:this|next)\s+)?[a-z0-9]+(?:\s+[a-z0-9]+)?)"
    r"\s*(?=[,;.!?]|$)",
    re.I,
)


def _start_said_apart(found: timeparse.When, now: datetime, tz: str) -> timeparse.When:
    """A repeat read with the start said elsewhere in the message: the repeat as the time
    language reads it with that start ("every day at 22:00 starting tonight")."""
    if not isinstance(found.schedule, Schedule) or not found.said:
        return found
    m = _STARTING.search(found.rest)
    if m is None:
        return found
    whole = timeparse.split_when(f"{found.said} starting {m['day']}", now=now, tz=tz)
    if whole is None or whole.rest.strip() or not isinstance(whole.schedule, Schedule):
        return found
    sched = found.schedule  # its end as read (the start only moves the first run)
    started = Schedule(whole.schedule.spec, sched.tz, sched.until, sched.max_runs)
    rest = " ".join(f"{found.rest[: m.start()]} {found.rest[m.end() :]}".split())
    return replace(found, schedule=started, rest=rest, said=f"{found.said} {m.group(0).strip()}")


_COURSE = re.compile(
    r"(?:,\s*)?(?:it'?s\s+|for\s+)?(?:a\s+)?(?P<n>\d{1,2})[- ]day\s+(?:course|cycle|treatment)\b",
    re.I,
)


def _find(body: str, now: datetime, tz: str) -> tuple[timeparse.When | None, str]:
    """The time in `body`; a long message is read clause by clause (the one with a time)."""
    if len(body.split()) <= MAX_WORDS:
        return timeparse.split_when(body, now=now, tz=tz), ""
    clauses = [c for c in _CLAUSE.split(body) if c and c.strip()][:400]
    hits = []
    for i, clause in enumerate(clauses):
        if len(clause.split()) > MAX_WORDS:
            continue
        got = timeparse.split_when(clause, now=now, tz=tz)
        if got is not None:
            hits.append((i, got))
    if len(hits) != 1:
        return None, "" if not hits else "several"
    i, got = hits[0]
    rest = " ".join([*clauses[:i], got.rest, *clauses[i + 1 :]])
    return timeparse.When(got.schedule, rest), ""


# Words around the thing to be reminded of that are not part of it.
_FRAMING = [
    # "I'd like to be reminded to renew the permit", "I'd like a reminder to …"
    r"^(?:i'?d|i\s+would)\s+(?:like|love)\s+(?:to\s+be\s+reminded|a\s+reminder)\s+(?:to|about|of)\s+",
    r"^(?:hey|hi|hiya|yo|ok|okay|so|well|quick one|please|pls|plz)\b[\s,:!;-]*",
    r"^(?:(?:can|could|would|will)\s+(?:you|u)\s+)?(?:please\s+)?",
    r"^(?:i\s+(?:really\s+)?need\s+(?:a\s+reminder|you\s+to\s+remind\s+me))\b\s*",
    r"^(?:set(?:\s+up)?|create|add|make)\s+(?:me\s+)?an?\s+reminder\b\s*(?:for\s+)?",
    r"^(?:i\s+(?:really\s+)?(?:want|need|would like|'d like)|set(?:\s+up)?|create|make|add)\s+"
    r"(?:me\s+)?"
    r"an?\s+(?:(?:reminder|alarm)\b\s*(?:for\s+)?(?:to\s+)?|(?:for\s+)?to\s+)",
    r"^(?:reminder|remember)\b(?!\s+(?:to\s+)?(?:me|us)\b)[\s:,-]*",
    # "i want that you remind me", "you can remind me", "you remember me to"
    r"^(?:i\s+(?:want|would\s+like|'d\s+like)\s+(?:that\s+)?)?you\s+(?:can\s+|could\s+|will\s+|"
    r"would\s+|to\s+)?(?=(?:remind|remember|ping|nudge|to|for|about)\b)",
    r"^(?:keep\s+)?(?:remind|reminding|remnd|rm|rmd|rmnd|ping|nudge|nag|bug|remember)\s+(?:to\s+)?"
    r"(?:me|us)\b\s*",
    r"^(?:rmd|rmnd|rmdr)\b\s*",
    r"^(?:give|send|get)\s+(?:me|us)\s+an?\s+(?:nudge|ping|poke|heads[- ]?up|shout|buzz|holler)"
    r"\b\s*",
    r"^(?:don'?t|do not)\s+let\s+me\s+forget\b\s*",
    # the courtesies of a letter around the request: "hope all is well.", "going forward,",
    # "would you be so kind as to …", "That would be a great help. Best regards, Klaus"
    r"^(?:i\s+)?hope\s+(?:all\s+is|you\s+are|you'?re|everything\s+is)\s+(?:well|good|fine)\b[.!,]*\s*",
    r"^(?:going|moving)\s+forward\b,?\s*",
    r"^(?:would|could|will)\s+you\s+be\s+so\s+kind\s+(?:as\s+)?(?:to\s+)?",
    r"\s*[,.!?]\s*(?:(?:best|kind|warm|many)\s+)?(?:regards|wishes)\b,?(?:\s+[A-Z][\w'.-]*){0,2}\s*$",
    r"[\s,.!?]*\b(?:that\s+would\s+be\s+(?:a\s+)?(?:great|big|huge|real)\s+help|thanks\s+(?:in\s+"
    r"advance|a\s+lot)|many\s+thanks)\b[.!]*$",
    # "would you mind reminding me …", "do you mind pinging me …"
    r"^(?:(?:would|do|will)\s+(?:you|u)\s+)?mind\s+(?:reminding|pinging|nudging|telling)\s+"
    r"(?:me|us)\b\s*",
    r"^help\s+me\s+(?:to\s+)?remember\b\s*",
    r"^make\s+sure\s+(?:that\s+)?i\b\s*",
    # "ping me an hour before so I can grab snacks": what the person will do is the thing
    r"^(?:so\s+(?:that\s+)?)?(?:i|we)\s+can\s+(?=[a-z])",
    # "[at 2am] after my night shift to take my melatonin": when, told as an event first
    r"^(?:after|before)\s+(?:my|the|our|his|her|their)\s+[a-z' -]{1,30}?\s+(?=to\s+[a-z])",
    r"^(?:to|about|of|that|for|:|-)\s+",
    # "remind me then to do the car park loop": "then" points at the time told before
    r"^then\s+(?=(?:to|about|of|that)\s)",
    r"[\s,;:-]*\b(?:can|could|would)\s+(?:you|u)\s+remind\s+me\b.*$",
    r"[\s,;:-]*\b(?:please\s+)?(?:remind|ping|nudge)\s+(?:me|us)(?:\s+(?:about\s+it|then|please|pls))*$",
    r"[\s,;:-]*\buntil\s+i\s+(?:do|did|finish|answer|confirm)\b.*$",
    r"[\s,;:-]*\b(?:please|pls|plz|thanks|thank you|thx)\b[\s!.]*$",
    # "pick up the kids, remind me at 3pm about it": the thing was said before
    r"[\s,;:.-]+(?:about|of|re)\s+(?:it|that|this|them)$",
    # "thanks, you're a lifesaver", "thank you so much!": a courtesy after the request
    r"[\s,;:.!?-]+(?:thanks|thank you|thx|ty|cheers)\b[\s,!.]+[\w' ]{1,30}[\s!.]*$",
    r"[\s,;:-]*:\)|[\s,;:-]*:-\)$",
    r"\s+(?:is|are|'s|starts?|begins?)(?:\s+(?:on|at|in))?$",
    r"\s+(?:at|for|by|to)$",
    # a leftover "in"/"on", unless it is a verb's ("clock in", "check in", "log on", "hand
    # it in", "switch them on")
    r"(?<!\bclock)(?<!\bcheck)(?<!\blog)(?<!\bsign)(?<!\bplug)(?<!\bturn)(?<!\bswitch)"
    r"(?<!\bhand)(?<!\bfill)(?<!\btune)(?<!\bdrop)(?<!\bjoin)(?<!\bcarry)(?<!\bhold)"
    r"(?<!\bmove)(?<!\btry)(?<!\bgive)(?<!\bit)(?<!\bthem)\s+(?:on|in)$",
    r"[\s,]+(?:and|so|but|then)$",  # "buy milk and [remind me at 5pm]"
]


def what_of(text: str) -> str:
    """The thing to remind of / the command, without framing words and time leftovers."""
    # a quote's "> " at the start of its lines is Discord's markup, not the person's words
    t = " ".join(re.sub(r"(?m)^[ \t]*>+[ \t]?", "", text).split()).strip(" ,.!?;:—–-")
    for _ in range(3):
        before = t
        for pattern in _FRAMING:
            t = re.sub(pattern, "", t, flags=re.I).strip(" ,.!?;:—–-")
        if t == before:
            break
    if not t and re.search(r"\balarm\b", text, re.I):
        return "alarm"  # "set an alarm for 6 tomorrow": the alarm is the thing
    if POST_VERB.match(t):
        # "post '…' in this thread": here, where the job is made, said the short way
        t = _IN_THIS_THREAD.sub(" here", t)
    return t


_IN_THIS_THREAD = re.compile(
    r"\s+(?:in|to|into)\s+(?:this|the)\s+(?:thread|channel|chat|convo|conversation)$|\s+in\s+here$",
    re.I,
)


# A second instruction inside a job's text, after the request's own sentence: a role label
# ("SYSTEM: …", "[INST]"), "ignore the previous instructions", "also create a job that …".
_EMBEDDED = re.compile(
    r"\s(?=[\[<]\s*/?\s*(?:system|inst|assistant|sys)\s*[\]>])"
    r"|(?:(?<=[.!?;])|(?<=\s-)|(?<=\s--)|\n)\s*(?=(?:p\.?s\.?\s*[:,-]?\s*)?(?:"
    r"(?:system|assistant|developer|admin(?:istrator)?|instructions?|prompt|ai|bot)"
    r"(?:\s+(?:message|note|override|prompt))?\s*:"
    r"|[\[<]\s*/?\s*(?:system|inst|assistant|sys)\b"
    r"|(?:(?:also|and|now|then)[\s,]+)?(?:please\s+)?(?:ignore|disregard|forget)\s+(?:all\s+|any\s+)?"
    r"(?:the\s+|your\s+|my\s+)?(?:previous|prior|above|earlier|preceding|other)\s+"
    r"(?:instructions|rules|prompts?|messages?)"
    r"|(?:also|and|plus|additionally)[\s,]+(?:please\s+)?(?:create|make|add|schedule|set\s+up)\s+"
    r"(?:a|an|another|one\s+more)\s+(?:new\s+)?(?:job|reminder|message|task|cron|schedule)s?\b))",
    re.I,
)


def split_off_instruction(text: str) -> tuple[str, str]:
    """A job's text and a further instruction written after it ("buy bread. SYSTEM: also
    create a job that posts …"), which is no part of this job: (text, "") when there is
    none. Quoted words (a message to post) are kept whole."""
    quoted_spans = [m.span() for m in QUOTED.finditer(text)]
    for m in _EMBEDDED.finditer(text):
        if any(a <= m.start() < b for a, b in quoted_spans):
            continue
        kept = text[: m.start()].rstrip(" -\n;.")
        if kept.strip(" .!?;,"):
            return kept, text[m.start() :].strip()
    return text, ""


# Verbs a command starts with ("water the garden at 7pm", "post 'hi' here"): a task said
# without one ("fri 16:00 expenses due", "sat 10am bike service") is a note to be reminded
# of, not a command for the bot.
_VERB_WORDS = """
    add alert announce answer apply archive ask assign attend back backup bake book boil
    bring brush build buy call cancel celebrate change charge chase check clean clear close
    collect commit compile confirm congratulate cook copy count cover create cut delete
    deliver deploy do donate download drink drop dry dust eat email empty end escalate
    exercise export feed fetch file fill find finish fix flip fold follow forward get give
    go grab greet hang harvest heat help hit hoover invite iron join jot kick leave let
    list load lock log look mail make mark measure meditate meet merge message mop move mow
    note notify open order organise organize pack paint pay phone pick ping plan plant play
    plug post practice practise pray prepare press print prune publish pull push put rake
    read record refill release reload remind remove renew repair reply report restart
    restock return review rewind ring rotate run save say scan schedule send set share shop
    show shut sign sleep snooze sort start stir stock stop store study submit summarise
    summarize sweep switch sync take talk tell test text thank tidy top track transfer trim
    try turn unlock unplug update upgrade upload use vacuum verify visit wake walk wash
    watch water weigh wipe wish write stretch jog swim breathe rest nap floss shower
    hydrate mist bathe brew
"""
_COMMAND_VERBS = frozenset(re.findall(r"[a-z]+", _VERB_WORDS))


def is_note(what: str, text: str) -> bool:
    """ "fri 16:00 expenses due", "3 dec 14:00 orthodontist": a task with no verb and nothing
    quoted to post is a note to be reminded of, not a command."""
    return bool(what) and not starts_with_verb(what) and not QUOTED.search(text)


def starts_with_verb(text: str) -> bool:
    """Whether a task begins with a verb a command or an errand starts with (among its
    first words: "in an hour check the logs" keeps a time the reading left in it), or
    says a switch with a particle and no verb ("lights off", "heating on")."""
    found = re.findall(r"[a-z'][a-z'-]*", text.lower())  # "check-in" is a noun, one word
    for i, w in enumerate(found[:4]):
        if w in _COMMAND_VERBS and all(x in _BEFORE_A_VERB for x in found[:i]):
            return True  # first, or after words that are no thing ("then check", "in an hour …")
    return 1 < len(found) <= 4 and found[-1] in {"on", "off", "up", "down", "out"}


# Words a command's verb may come after: a time's leftovers, a courtesy, a "then". After a
# noun ("Lina's eye test", "tourney check-in") a verb-like word is part of a note.
_BEFORE_A_VERB = frozenset(
    {"in", "an", "a", "at", "on", "by", "then", "please", "pls", "plz", "just", "also", "and"}
    | {"to", "hour", "hours", "min", "mins", "minutes", "later", "first", "quickly", "go"}
    | {"i", "we", "need", "gotta", "must", "should", "remember", "don't", "dont", "forget"}
    | {"time", "it's", "its", "now", "right", "away", "asap", "so", "ok", "okay", "oh"}
)


# "saturday the 21st", "Fri 13th": a weekday and a day of the month, no month.
_WEEKDAY_DAY = re.compile(
    rf"\b{WEEKDAY_RE}\.?,?\s+(?:the\s+(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?|(?P<d2>\d{{1,2}})(?:st|nd|rd|th))"
    rf"(?!\s*(?:of\s+)?{MONTH_RE})\b",
    re.I,
)
FAR_DAYS = 62  # a weekday-and-date further off than this was hardly meant


def far_weekday_date(text: str, at: datetime | None, now: datetime) -> str | None:
    """What to ask when a weekday and a day of the month ("saturday the 21st") only meet
    months away (21 August 2027, the 21st of November having been last Saturday): the
    person more likely slipped on one of the two. None when they meet soon."""
    m = _WEEKDAY_DAY.search(QUOTED.sub(" ", text))
    if m is None or at is None or (at.date() - now.date()).days <= FAR_DAYS:
        return None
    n = int(m["d1"] or m["d2"])
    return (
        f"The next {at:%A} the {ordinal(n)} is {at:%-d %B %Y}, so nothing is scheduled yet. "
        f"Which day do you mean — e.g. “on the {ordinal(n)} of {_next_month_with(now, n):%B}” "
        f"or “next {at:%A}”?"
    )


def _next_month_with(now: datetime, day: int) -> date:
    """The first month from now whose `day` is still ahead."""
    y, mo = now.year, now.month
    for _ in range(14):
        try:
            d = date(y, mo, day)
        except ValueError:
            d = None
        if d is not None and d > now.date():
            return d
        y, mo = (y + 1, 1) if mo == 12 else (y, mo + 1)
    return now.date()


# What follows a verb that is also a noun ("bin", "bench") when it names a job.
_NAMED_AFTER = r"\s+(?:the|my|our|that|this|those|these|it|them|job\b|#?\d)"
# Naming one of the person's jobs: "cancel the pizza reminder", "move the standup to 10".
MANAGE_VERBS = {
    "delete_scheduled_action": (
        r"cancel|delete|remove|drop|forget|kill|scrap|ditch|nix|axe|scratch|nuke|trash"
        # "bin the build pings" (not "bin day tomorrow"): a verb only before a job named
        rf"|bin(?={_NAMED_AFTER})"
        # "nvm on the pizza reminder", "never mind about that reminder": with a job named
        rf"|(?:nvm|never\s*mind)(?:\s+(?:on|about|with))?(?={_NAMED_AFTER})"
    ),
    "stop_interval_action": (
        rf"pause|stop|suspend|hold|mute|freeze|shelve|(?:bench|park)(?={_NAMED_AFTER})"
    ),
    "resume_scheduled_action": r"resume|unpause|restart|continue|reactivate|unmute",
    "update_scheduled_action": (
        r"move|change|reschedule|push|snooze|postpone|prepone|delay|bump"
        # "shift the standup to 10" (not the noun: "shift at the café sat 10-4")
        r"|shift(?!\s+(?:(?:at|in|on|from|for|starts?|ends?|is|was|tonight|today|tomorrow|tmrw"
        r"|sat|sun|mon|tue|wed|thu|fri)\b|\d{1,2}\s*(?:[-–:]|[ap]\.?m\b)))"
    ),
}
_JOB_NOISE = frozenset(
    [
        "the",
        "a",
        "an",
        "my",
        "our",
        "this",
        "that",
        "job",
        "jobs",
        "reminder",
        "reminders",
        "one",
        "task",
        "action",
        "schedule",
        "scheduled",
        "please",
        "pls",
        "it",
        "to",
        "by",
        "for",
        "about",
        "back",
        "of",
        "checks",
        "check",
        "thing",
        "all",
        "every",
        "any",
        "ones",
        "me",
        "us",
        "remind",
        "reminding",
        "pinging",
        "ping",
        "pings",
        "nudge",
        "notification",
        "alert",
        "nagging",
        "bugging",
        "posting",
        "postings",
    ]
)


_TOPIC_END = re.compile(
    r"\s+(?:to|by|until|till|at|on|for|in|from|back|forward|ahead|later|earlier)(?=\s|$)"
    r"|\s*[,;]\s+|\s+-+\s+|\s+(?:because|since|as|cause|cuz|coz|while|whilst|during)\s"
)
EPOCH = datetime(2026, 1, 1, tzinfo=UTC)  # any instant: only whether a time is named matters


def _names_a_time(words: str) -> bool:
    return timeparse.parse_duration(words) is not None or (
        timeparse.parse_instant(words, now=EPOCH, tz="UTC", foreign=False) is not None
    )


_SPAN_NAMED = re.compile(r"\b\d+\s*-?\s*(?:min(?:ute)?s?|hours?|hrs?|h|m)\b", re.I)


# A clause saying how a job runs, after its name ("… that runs every 45 min").
RUNS_CLAUSE = r"\b(?:that|which)\s+(?:runs|goes\s+off|fires|pings|repeats|comes\s+up|pops\s+up)\b"
HOW_IT_RUNS = re.compile(rf"\s+{RUNS_CLAUSE}.*$", re.I)


def split_topic(rest: str) -> tuple[list[str], str]:
    """The words that name a job and the change said after them: "the pizza reminder back
    an hour" → (["pizza"], "back an hour"); "the plants one thursday 6pm" → (["plants"],
    "thursday 6pm"). The name ends at a preposition or where a time starts."""
    end = _TOPIC_END.search(rest)
    while end is not None and re.match(r"\s+(?:for|about|of)\s", rest[end.start() :]):
        if any(w not in _JOB_NOISE for w in re.findall(r"[a-z0-9']+", rest[: end.start()].lower())):
            break
        end = _TOPIC_END.search(rest, end.end())  # "the reminder for water the plants to …"
    name, after = (rest[: end.start()], rest[end.start() :].strip(" ,;-")) if end else (rest, "")
    tokens = name.split()
    for i in range(1, len(tokens)):
        if _names_a_time(" ".join(tokens[i:])):
            name, after = " ".join(tokens[:i]), f"{' '.join(tokens[i:])} {after}".strip()
            break
    name = _SPAN_NAMED.sub(" ", name)  # "the 45-minute build check": its rhythm, not its name
    name = HOW_IT_RUNS.sub("", name)  # "the build check that runs every 45 min"
    words = [w for w in re.findall(r"[a-z0-9']+", name.lower()) if w not in _JOB_NOISE]
    return words[:4], after


# "my 7pm reminder", "the 9:30 one", "the 8am standup job": a job named by its time of day.
BY_CLOCK = re.compile(
    r"^(?:my|the|that|this)\s+(?:\d{1,2}(?::\d{2})?\s*(?:[ap]\.?m\.?)?|noon|midnight)\s+"
    r"(?:(?:[a-z']+\s+)?(?:reminders?|jobs?|alarms?|ones?|pings?)\b|[a-z']+$)",
    re.I,
)


def _clock_named(words: Sequence[str]) -> tuple[timeparse.ClockSaid | None, list[str]]:
    """A time of day at the start of a job's naming words (["7pm", "pizza"], ["9", "30"])
    and the words after it."""
    for k in (2, 1):
        head = list(words[:k])
        if len(head) < k or not re.search(r"\d|noon|midnight", " ".join(head)):
            continue
        said = ":".join(head) if k == 2 and all(w.isdigit() for w in head) else " ".join(head)
        clock = timeparse.clock_of(said)
        if clock is not None:
            return clock, list(words[k:])
    return None, list(words)


# "my morning stretch reminder": a part of the day names the job by when it runs.
_RHYTHM_WORDS = frozenset(
    {"daily", "weekly", "monthly", "hourly", "yearly", "weekday", "recurring", "repeating"}
)
_DAY_PART_HOURS: dict[str, range | tuple[int, ...]] = {
    "morning": range(4, 12),
    "afternoon": range(12, 18),
    "evening": range(17, 23),
    "night": (20, 21, 22, 23, 0, 1, 2, 3),
    "nightly": (20, 21, 22, 23, 0, 1, 2, 3),
}


def topic_fits(command: str, at: datetime | None, named: Sequence[str]) -> bool:
    """Whether a job fits the words that name it: each word in its text (or a part of the
    day its next run falls in: "my morning stretch"), and a time of day among them ("my
    7pm reminder", "the 9:30 one") its next run's (`at`, local)."""
    clock, rest = _clock_named(named)
    if clock is not None:
        if at is None or at.minute != clock.minute:
            return False
        same = at.hour == clock.hour if clock.fixed else at.hour % 12 == clock.hour % 12
        if not same:
            return False
    # A paused job has no next run to check a part of the day against ("switch the morning
    # stretch reminder back on"): its other words must name it.
    unchecked = [
        w for w in rest if at is None and w in _DAY_PART_HOURS and not has_word(command, w)
    ]
    # "put the daily standup post on hold": how often it runs describes it, not its text
    rest = [w for w in rest if w not in _RHYTHM_WORDS or has_word(command, w)] or rest
    rest = [w for w in rest if w not in unchecked]
    if unchecked and not rest:
        return False
    return all(
        has_word(command, w) or (at is not None and at.hour in _DAY_PART_HOURS.get(w, ()))
        for w in rest
    )


def job_topic(rest: str) -> list[str]:
    """The words that name a job ("the pizza reminder" → ["pizza"])."""
    return split_topic(rest)[0]


def has_word(command: str, word: str) -> bool:
    """Whether a job text has the word (or a word starting with its first five letters;
    "posts" as "post")."""
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    stem = word[:5] if len(word) > 5 else word
    return any(w.startswith(stem) for w in re.findall(r"[a-z0-9']+", command.lower()))


# The same changes said with a phrasal verb; only about a reminder or job, so that "turn
# off the porch light at 9" stays a command for later.
# What a job is called when it is named by a noun: "the build check", "my stretch one".
_JOB_NOUNS = (
    r"reminders?|jobs?|pings?|alarms?|alerts?|nags?|notifications?|nudges?|checks?|posts?"
    r"|postings?|one"
)
_JOB_NOUN = r"(?=.*\b(?:reminders?|jobs?|pings?|nags?|alerts?|alarms?|notifications?)\b)"
_PHRASAL = (
    (
        rf"(?:turn|switch|put|set)\s+{_JOB_NOUN}(?P<rest>.+?)\s+(?:back\s+on|on\s+again)",
        "resume_scheduled_action",
    ),
    (r"(?:re-?enable|bring\s+back)\s+(?P<rest>.+)", "resume_scheduled_action"),
    # "please make active again the stretch reminder", "set the stretch reminder active again"
    (r"(?:make|set)\s+(?:active|live)\s+again\s+(?P<rest>.+)", "resume_scheduled_action"),
    (r"(?:make|set)\s+(?P<rest>.+?)\s+(?:active|live)\s+again", "resume_scheduled_action"),
    (r"(?:start|enable)\s+(?P<rest>.+?)\s+again", "resume_scheduled_action"),
    (
        r"(?:start|enable|turn\s+on|switch\s+on)\s+again\s+(?P<rest>[^,;:.!?]+)",
        "resume_scheduled_action",
    ),
    (
        r"(?:turn|switch|put|set)\s+(?P<rest>(?:job\s+)?#?\d+)\s+(?:back\s+on|on\s+again)",
        "resume_scheduled_action",
    ),
    (rf"(?:turn|switch|shut)\s+off\s+{_JOB_NOUN}(?P<rest>.+)", "stop_interval_action"),
    (rf"(?:turn|switch|shut)\s+{_JOB_NOUN}(?P<rest>.+?)\s+off", "stop_interval_action"),
    (r"(?:disable|silence)\s+(?P<rest>.+)", "stop_interval_action"),
    (r"(?:put|place|keep)\s+(?P<rest>.+?)\s+on\s+(?:hold|ice|pause)", "stop_interval_action"),
    (r"(?:take)\s+(?P<rest>.+?)\s+off\s+hold", "resume_scheduled_action"),
    (r"hold\s+off\s+(?:on\s+)?(?P<rest>.+)", "stop_interval_action"),
    (r"(?:get\s+rid\s+of)\s+(?P<rest>.+)", "delete_scheduled_action"),
    # "from now on post the standup at 9:30 instead of 9": a job's new time, its old one
    # said after "instead of"
    (
        r"(?:(?:from\s+now\s+on|going\s+forward|from\s+(?:tomorrow|tmrw|next\s+week))[\s,]+)?"
        # (not a fact told: "the meeting is at 3 instead of 2")
        r"(?![^,;:.!?]*\b(?:is|are|was|were|got|been|moved)\b)"
        r"(?P<rest>[a-z][^,;:.!?]*?)\s+(?:at\s+)?(?P<when>\d{1,2}(?:[:.]\d{2})?\s*(?:[ap]\.?m\.?)?)"
        r"\s+instead\s+of\s+(?:at\s+)?\d{1,2}(?:[:.]\d{2})?\s*(?:[ap]\.?m\.?)?",
        "update_scheduled_action",
    ),
    # "I don't need the pizza reminder anymore", "no longer need the build checks"
    (
        r"(?:i\s+|we\s+)?(?:don'?t|do\s+not|no\s+longer)\s+need\s+(?P<rest>.+?)"
        r"(?:\s+any\s*more\b.*|\s+now)?",
        "delete_scheduled_action",
    ),
    # "I won't be needing the pizza reminder tonight after all", "no need for the plant
    # reminder anymore"
    (
        r"(?:(?:i|we)\s+(?:won'?t|will\s+not)\s+(?:be\s+)?need(?:ing)?|no\s+need\s+for)\s+"
        r"(?P<rest>.+?)(?:\s+(?:tonight|today|tomorrow|this\s+(?:week|time|evening|morning)))?"
        r"(?:\s+any\s*more\b.*|\s+after\s+all\b.*|\s+now\b.*)?",
        "delete_scheduled_action",
    ),
    # "put the pizza reminder back an hour" (later), as "push … back"
    (
        r"(?:put|set)\s+(?P<rest>[^,;:.!?]+?\s+back\s+(?:by\s+)?(?:an?|\d+|one|two|three|half)\b"
        r"[^,;:.!?]*)",
        "update_scheduled_action",
    ),
    # "can #41 go off at 6:15pm instead?"
    (
        r"(?:can|could|should|would)\s+(?P<rest>(?:job\s+)?#?\d+)\s+(?:go\s+off|go\s+out|run|fire"
        r"|happen|be)\s+(?:on\s+|at\s+|for\s+)?(?P<when>[^\s,;][^,;]*?)\s+instead",
        "update_scheduled_action",
    ),
    # "can the plants reminder be wednesday instead", "do the watering reminder on friday
    # morning instead": the job's new time said with "instead"
    (
        r"(?:(?:can|could|should|would)\s+)?(?:do|have|make|set|put|schedule)?\s*"
        rf"(?P<rest>(?:the|my|our|that)\s+(?:\S+\s+){{0,3}}?(?:{_JOB_NOUNS}))"
        r"\s+(?:be\s+|happen\s+|go\s+off\s+|run\s+)?"
        r"(?:on\s+|at\s+|for\s+)?(?P<when>[^\s].*?)\s+instead",
        "update_scheduled_action",
    ),
    # "the plant watering one can go an hour later, …"
    (
        rf"(?P<rest>(?:the|my|our|that)\s+(?:\S+\s+){{0,3}}?(?:{_JOB_NOUNS}))\s+(?:can|could|should)"
        r"\s+(?:go|be|run|happen)\s+(?P<span>(?:an?|one|\d+|half\s+an?)\s+(?:hours?|min(?:ute)?s?)"
        r"\s+(?:later|earlier))(?:\s*[,;—–-].*)?",
        "update_scheduled_action",
    ),
    # "put the pizza reminder one hour later"
    (
        r"(?:put|set|make)\s+(?P<rest>[^,;:.!?]+?\s+(?:an?|one|\d+|half\s+an?)\s+(?:hours?"
        r"|min(?:ute)?s?)\s+(?:later|earlier))",
        "update_scheduled_action",
    ),
    # "{standup} should go out at 9:30 instead of 9 from now on"
    (
        rf"(?P<rest>(?:job\s+)?#?\d+|(?:the|my|our|that)\s+(?:\S+\s+){{0,3}}?(?:{_JOB_NOUNS}))"
        r"\s+(?:should|can|could|will|needs?\s+to|has\s+to)\s+(?:go\s+out|go\s+off|run|fire"
        r"|happen|be|be\s+sent)\s+(?:on\s+|at\s+|for\s+)?(?P<when>[^\s,;—–][^,;—–]*?)"
        r"(?:\s+instead(?:\s+of\s+[^,;]+?)?)?(?:\s+from\s+now\s+on)?",
        "update_scheduled_action",
    ),
    # the job first: "the pizza reminder can go", "stretch reminder back on pls"
    (rf"{_JOB_NOUN}(?P<rest>[^,;:.!?]+?)\s+(?:can|could)\s+go\b.*", "delete_scheduled_action"),
    (
        rf"{_JOB_NOUN}(?P<rest>[^,;:.!?]+?)\s+(?:is\s+)?no\s+longer\s+needed\b.*",
        "delete_scheduled_action",
    ),
    (
        rf"{_JOB_NOUN}(?P<rest>[^,;:.!?\U0001F300-\U0001FAFF\u2600-\u27BF]+?)\s+back\s+on(?:\s+(?:please|pls|again))?",
        "resume_scheduled_action",
    ),
    (r"give\s+(?P<rest>.+?)\s+a\s+(?:break|rest|breather)\b.*", "stop_interval_action"),
    (r"(?:hit|press)\s+pause\s+(?:on|for)\s+(?P<rest>.+)", "stop_interval_action"),
    (r"(?:hit|press)\s+snooze\s+(?:on|for)\s+(?P<rest>.+)", "update_scheduled_action"),
    (r"(?:bring|pull)\s+(?P<rest>.+?\s+(?:forward|earlier|ahead)\b.*)", "update_scheduled_action"),
    (r"(?:make|set)\s+(?P<rest>.+?\s+(?:earlier|later|sooner))", "update_scheduled_action"),
)


# "25:30", and an afternoon hour said with am/pm ("13pm", "17:30am"): no clock of a day.
_NO_SUCH_CLOCK = re.compile(
    r"(?<![\d:])(?:(?:2[4-9]|[3-9]\d):[0-5]\d(?![\d:])"
    r"|(?:1[3-9]|2\d)(?::[0-5]\d)?\s*[ap]\.?m\b\.?)",
    re.I,
)


def no_such_clock(text: str) -> str | None:
    """What to say when the person wrote a clock no day has ("at 25:30"), else None."""
    bad = _NO_SUCH_CLOCK.search(QUOTED.sub(" ", text))
    if bad is None:
        return None
    return (
        f"“{bad.group()}” isn't a time of day, so nothing is scheduled. Which time do you "
        "mean — e.g. “at 23:00” or “tomorrow at 1am”?"
    )


TWO_TIMES = (
    "I found more than one time in that, so I set nothing: one reminder takes one time. "
    "Send one message per time (e.g. `remind me tomorrow at 9am to take my meds`), or say "
    "the one you mean: which is it?"
)
# Two clocks joined ("at 9am and 5pm", "at 9, 12 & 6"): two times, not a range.
TWO_CLOCKS = re.compile(
    r"\b\d{1,2}(?::\d{2})?\s*(?:[ap]\.?m\.?)?\s*(?:,|&|\band\b)\s*(?:at\s+)?\d{1,2}"
    r"(?::\d{2})?\s*(?:[ap]\.?m\.?)?(?!\s*(?:minutes?|mins?|hours?|days?|weeks?))\b",
    re.I,
)
# "at 9 or 10", "5pm or 6pm", "at 8:30 or 9": the person has not decided which. (A bare
# number is a clock only after "at"/"around"/"by": "buy 2 or 3 apples" names none.)
_EITHER_CLOCK = (
    r"(?:(?<=\bat\s)|(?<=\baround\s)|(?<=\bby\s))\d{1,2}(?::\d{2})?(?:\s*[ap]\.?m\.?)?"
    r"|\d{1,2}:\d{2}(?:\s*[ap]\.?m\.?)?|\d{1,2}\s*[ap]\.?m\.?"
)
EITHER_TIME = re.compile(
    rf"\b(?P<a>{_EITHER_CLOCK})\s+or\s+(?:at\s+)?(?P<b>\d{{1,2}}(?::\d{{2}})?"
    r"(?:\s*[ap]\.?m\.?)?)(?![\d:])(?!\s*(?:minutes?|mins?|hours?|hrs?|days?|weeks?|times?)\b)",
    re.I,
)


def either_question(m: re.Match[str]) -> str:
    return (
        f"{m['a'].strip()} or {m['b'].strip()}? Say the one you mean and I'll set it "
        f"(e.g. `at {m['b'].strip()}`)."
    )


# Put before "now": "for now", "by now", "until now", "just now" name no time to act at.
NOT_NOW = r"(?<!\bfor )(?<!\bby )(?<!\buntil )(?<!\btill )(?<!\bjust )"
# How long a change holds, said after it ("pause the standup for now"): no time to act at.
_FOR_A_WHILE = re.compile(
    r"\s+(?:for\s+(?:now|a\s+(?:while|bit)|some\s+time|the\s+time\s+being|good|ever)"
    r"|(?:until|till|til)\s+"
    r"(?:further\s+notice|i'?m\s+back|i\s+(?:get\s+back|return)|(?:i|we)\s+say\s+(?:otherwise|so)))$"
)
_TO_HALF = re.compile(r"\bto\s+([01]?\d|2[0-3])\s+and\s+(?:a\s+)?half\b(?!\s*(?:hours?|hrs?|min))")
# "one hour more late", "30 minutes more early": later, earlier
_MORE_LATE = re.compile(r"\bmore\s+(late|early|soon)\b")
_FOR_A_WHILE_FIRST = re.compile(
    r"^for\s+(?:now|a\s+(?:while|bit)|some\s+time|the\s+time\s+being)\s+"
)
# A job's name in quotes: "pause the 'check the build' reminders".
_QUOTED_JOB = re.compile(
    r"\b(?:that|the|this|my|our)\s+['\"“‘]([^'\"“”‘’]{1,40})['\"”’]\s+"
    r"(?:thing|one|job|reminder|ping|alert|check|post)\b"
)
_NAME_QUOTED = re.compile(r"(?<![\w'])['\"“‘]([^'\"“”‘’]{1,40})['\"”’](?![\w'])")
# A courtesy at the end of a request: "cancel 12 please", "list my reminders, thanks".
POLITE_END = re.compile(r"[\s,]+(?:please|pls|plz|thanks|thank\s+you|thx|ty)[\s!.]*$")
_HEDGES = re.compile(
    r"^(?:(?:hey|hi|ok|okay|so|please|pls|kindly|can you|could you|would you)\b[\s,]*"
    # "please to cancel …", "I want to stop …": what is asked comes after
    r"|(?:i\s+(?:want|would\s+like|'d\s+like)|i\s+need\s+you)\s+to\s+(?=[a-z])|to\s+(?=[a-z]))+"
)


def unhedged(low: str) -> str:
    """A lower-cased request without the greeting and politeness before its verb."""
    return _HEDGES.sub("", low)


# "make it 7:30", "make it half eight": a new time for the job named.
_MAKE_IT_A_TIME = re.compile(
    r"^(?:make|set)\s+(?=.*(?:\d|\b(?:half|quarter|noon|midnight|one|two|three|four|five|six"
    r"|seven|eight|nine|ten|eleven|twelve)\b))"
)
_FRONTED = re.compile(
    r"(?P<topic>(?:the|my|that|our|this)\s+[^,;:]{1,60}?|[a-z' ]{0,40}?#?\d+)"
    r"(?:\s*(?:[,;:]|\s-+)\s*"
    # or no stop before the change: "the pizza reminder make it half eight"
    r"|(?P<bare>\s+)(?=(?:(?:please|pls|kindly|just)\s+)?(?:make|move|change|set|push|put"
    r"|cancel|delete|pause|stop|resume|drop|kill|bump|shift)\s+(?:it|that|this)\b))"
    r"(?:(?:can|could|would|will)\s+(?:you|u)\s+|please\s+|pls\s+|just\s+)*"
    r"(?P<change>[a-z]+(?:\s+[a-z]+)?\s+(?:it|that|this)(?:\s+one)?\b.*?)"
    r"(?:\s+instead)?(?:\s+please|\s+pls)?"
)


def manage_request(low: str) -> tuple[str, str] | None:
    """The change a lower-cased message asks of one of the person's jobs: the tool and the
    words after the verb (see `_asked_change`), the job's number first when said in brackets."""
    return _by_number_in_brackets(_asked_change(low))


def _asked_change(low: str) -> tuple[str, str] | None:
    """The change a lower-cased message asks of one of the person's jobs: the tool and the
    words after the verb ("cancel the pizza reminder" → ("delete_scheduled_action", "the
    pizza reminder"); "turn the stretch reminder back on" → ("resume_scheduled_action",
    "the stretch reminder")), or None."""
    # "that 'check the build' thing": the quoted words name the job, as one word
    low = _QUOTED_JOB.sub(lambda m: f"the {'_'.join(m[1].split())} reminder", low)
    low = _FOR_A_WHILE.sub("", POLITE_END.sub("", unhedged(_NAME_QUOTED.sub(r"\1", low))))
    low = _MORE_LATE.sub(lambda m: "later" if m[1] == "late" else "earlier", low)
    low = _TO_HALF.sub(r"to \1:30", low)  # "change the standup to 9 and half"
    terse = _terse_change(low) if _depth.get() < 2 else None
    if terse is not None:
        return terse
    fronted = _FRONTED.fullmatch(low)
    if fronted is not None and fronted["bare"] and not _names_a_job(fronted["topic"]):
        fronted = None  # with no stop, only a job's name may come first
    if fronted is not None:
        # "the plants thing, can you make it 7:30 pm instead", "the pizza one - pause it":
        # the job named first, then "it" in the change
        # a job named by its number too ("standup post #49: make it 8:45"): the number
        number = re.search(r"#?(\d+)$", fronted["topic"])
        phrase = _JOB_PHRASE.search(fronted["topic"])  # "the pizza reminder [can take a break]"
        topic = number.group(1) if number else phrase.group(0) if phrase else fronted["topic"]
        if (
            phrase is not None
            and not number
            and _NAMED_AFTER_NOUN.match(fronted["topic"], phrase.end())
        ):
            topic = fronted["topic"][phrase.start() :]  # "the reminder for water the plants"
        change = _CLAUSE_BREAK.split(fronted["change"], maxsplit=1)[0]  # "… [and I'll …]"
        said = re.sub(
            r"\b(?:it|that|this)(?:\s+one\b(?!\s+(?:hours?|min|minutes?|days?|weeks?)\b))?\b",
            lambda _: topic,
            change,
            count=1,
        )
        said = _MAKE_IT_A_TIME.sub("move ", said)  # "make it 7:30 pm"
        if said != low:
            return manage_request(said)
    told, dash, asked = low.rpartition(" - ") if " - " in low else ("", "", low)
    if dash and _depth.get() == 0 and not _JOB_WORDS.search(told) and _JOB_WORDS.search(asked):
        # "back from the trip - switch the morning stretching reminder back on": what is
        # told before the dash is no part of the job's name
        return manage_request(asked)
    for pattern, tool in _PHRASAL:
        m = re.fullmatch(pattern, low)
        if m is not None:
            when, span = m.groupdict().get("when"), m.groupdict().get("span")
            if span:
                return tool, f"{m['rest']} {span}"
            return tool, f"{m['rest']} to {when}" if when else m["rest"]
    for tool, verbs in MANAGE_VERBS.items():
        m = re.match(rf"^(?:{verbs})\b\s*(?P<rest>.*)$", low)
        if m is not None:
            rest = _FOR_A_WHILE_FIRST.sub("", m.group("rest"))  # "stop for some time the …"
            return tool, _INSTEAD_END.sub("", _without_told_tail(rest))
    return _change_in_a_clause(low) if _depth.get() == 0 else None


# A job's name, then an arrow to its new time or a colon and the change: "pizza -> 20:30",
# "standup 9 → 9:15 from tmrw", "stretch: back on", "standup: pause until further notice".
_TERSE = re.compile(
    r"(?P<topic>[a-z0-9'#][a-z0-9' #-]{0,40}?(?:\s+\d{1,2}(?:[:.]\d{2})?\s*(?:[ap]\.?m\.?)?)?)"
    r"\s*(?P<sep>->|→|=>|:(?!\d))\s*(?P<change>[^\s>].*)"
)
_BACK_ON = re.compile(r"(?:back\s+on|on\s+again|resumed?|unpaused?|restarted?)\b(?P<rest>.*)")
_OLD_CLOCK = re.compile(r"\s+(?:at\s+)?\d{1,2}(?:[:.]\d{2})?\s*(?:[ap]\.?m\.?)?$")


def _terse_change(low: str) -> tuple[str, str] | None:
    """The change said the terse way, with the job's name first (see `_TERSE`): an arrow
    to a time moves the job; after a colon, a change's verb or "back on". A colon before
    anything else ("todo: buy stamps", "dentist: thu 3pm", a note to be reminded of) is
    no change."""
    m = _TERSE.fullmatch(low)
    if m is None:
        return None
    topic, change = m["topic"].strip(), m["change"].strip(" .!")
    words = [w for w in re.findall(r"[a-z0-9']+", topic) if w not in _JOB_NOISE]
    if not 1 <= len(words) <= 3 or {"and", "or", "&"} & set(words):
        return None  # one job's name ("the pizza reminder and the plants one: …" is two)
    token = _depth.set(2)
    try:
        if m["sep"] != ":":
            topic = _OLD_CLOCK.sub("", topic)  # "standup 9 → 9:15": the old time names it
            change = re.sub(r",?\s*(?:the\s+)?same\s+time$", "", change)  # "thu, same time"
            if timeparse.split_when(change, now=EPOCH, tz="UTC") is None:
                return None
            return manage_request(f"move {topic} to {change}")
        back = _BACK_ON.match(change)
        if back is not None:
            return "resume_scheduled_action", f"{topic}{back['rest']}"
        for tool, verbs in MANAGE_VERBS.items():
            verb = re.match(rf"(?:{verbs})\b", change)
            if verb is not None and tool != "update_scheduled_action":
                return manage_request(f"{verb.group(0)} {topic}{change[verb.end() :]}")
        return None
    finally:
        _depth.reset(token)


def _by_number_in_brackets(asked: tuple[str, str] | None) -> tuple[str, str] | None:
    """ "the plant reminder (41)": the job's number said in brackets names it."""
    if asked is None:
        return None
    tool, rest = asked
    m = re.search(r"\(\s*#?(\d+)\s*\)", rest)
    return (tool, f"{m.group(1)} {rest[m.end() :]}".strip()) if m else asked


_INSTEAD_END = re.compile(r"\s+instead(?:\s+of\s+[^,;]+?)?(?:\s+from\s+now\s+on)?$")
_FIRST_BREAK = re.compile(r"[,;]\s|[.?!]+\s+(?=[a-z])|\s[—–-]\s")


def _without_told_tail(rest: str) -> str:
    """The words after a change's verb, less a clause told after them that names no time
    ("push the pizza one back an hr, the stream is running late"; not "move it to friday,
    8pm")."""
    cut = _FIRST_BREAK.search(rest)
    if cut is None:
        return rest
    tail = rest[cut.end() :]
    if _only_time_words(POLITE_END.sub("", tail)):
        return rest  # "move it to friday, 8pm": the tail is more of the time
    return rest[: cut.start()]


# A time said on its own as the better one: "7pm works better", "friday would be better".
_BETTER = re.compile(
    r"^(?:(?:actually|maybe|and)\s+)?(?P<when>.+?)\s+(?:works|would\s+work|is|would\s+be|suits\s+me)"
    r"(?:\s+(?:much|a\s+lot|way))?\s+better(?:\s+for\s+(?:me|us))?$"
)
# Where a clause of a message ends: a stop, a comma, a dash, or a "so" between clauses.
_CLAUSE_BREAK = re.compile(
    r"\s*(?:[,;:.!?]+|\s[—–-]+)\s+|\s+(?:so|and\s+so|but)\s+"
    r"|\s*[\U0001F300-\U0001FAFF\u2600-\u27BF]+\s*"  # "exams over 🎉 turn my … back on"
    r"|\s+and\s+(?=(?:i'?ll|we'?ll|i\s+will|then)\b)"
)
# A job named by a noun phrase ("the build check", "the pizza reminder", "my stretch one").
_JOB_PHRASE = re.compile(
    rf"\b(?:the|my|our|that|this)\s+(?:[a-z0-9'&_-]+\s+){{0,3}}?(?:{_JOB_NOUNS})\b"
)
_JOB_WORDS = re.compile(rf"\b(?:{_JOB_NOUNS}|nagging|reminding|pinging|bugging)\b")
# A thing named in a clause ("the pizza", "not doing pizza tonight", "no bins this week").
_THING_NAMED = re.compile(
    r"\b(?:the|my|our|doing|having|getting|ordering|making|cooking|no|order|buy|cook|make)\s+"
    r"(?!(?:it|that|this|them|those|these|a|an|the|my|our|any|much|more)\b)([a-z][a-z'-]+)\b"
)
_REFERRED = re.compile(r"^((?:[a-z]+\s+){1,3}?)(?:it|that|this|them|those|these)(?:\s+ones?)?\b")
_depth: contextvars.ContextVar[int] = contextvars.ContextVar("manage_depth", default=0)
_NAMED_AFTER_NOUN = re.compile(r"\s+(?:for|about|of|to)\s+\S")
_NUMBER_SAID = re.compile(r"(?:^|\s)\(?#(\d+)\)?(?=\s|$)|\(\s*#?(\d+)\s*\)")


_NAMED_AFTER_NOUN_WORDS = re.compile(
    r"\s+(?:for|about|of|to)\s+(?:the\s+|my\s+)?[a-z'-]+(?:\s+[a-z'-]+){0,2}"
)


def _names_a_job(topic: str) -> bool:
    """Whether `topic` is only a job's name: "the pizza reminder", "the reminder for the
    plants"."""
    if _JOB_PHRASE.fullmatch(topic):
        return True
    m = _JOB_PHRASE.match(topic)
    return m is not None and _NAMED_AFTER_NOUN_WORDS.fullmatch(topic, m.end()) is not None


def _change_in_a_clause(low: str) -> tuple[str, str] | None:
    """A change asked in one clause of a message that tells something around it ("clan is
    doing a potluck tonight so kill the pizza reminder", "the build check is driving me
    nuts, ci is fixed now, kill it"): that clause's change, "it" being the job named in an
    earlier clause. Only when exactly one clause asks a change of a job and none asks for a
    reminder."""
    parts = [p.strip() for p in _CLAUSE_BREAK.split(low) if p and p.strip()]
    if len(parts) < 2 or _ASKS.search(low):
        return None  # a reminder asked for: not a change of one
    found = []
    token = _depth.set(1)
    try:
        for i, part in enumerate(parts):
            part = unhedged(re.sub(r"^(?:you\s+can|you\s+could|just)\s+", "", part))
            referred = _REFERRED.match(part)
            said = referred and _JOB_PHRASE.match(part, len(referred.group(1)))
            if said and len(said.group(0).split()) > 2:
                referred = None  # "switch that stretching reminder back on": named here
            if referred is not None:
                named = [m.group(0) for p in parts[:i] for m in _JOB_PHRASE.finditer(p)]
                # or by its number ("stretching (#46) is back in the lineup, switch it on")
                named += [f"#{m[1] or m[2]}" for p in parts[:i] for m in _NUMBER_SAID.finditer(p)]
                if not named and _JOB_WORDS.match(part, referred.end() + 1):
                    # "I already ordered the pizza, you can drop that reminder": the
                    # reminder of the thing the clause before named
                    things = [m[1] for p in parts[:i] for m in _THING_NAMED.finditer(p)]
                    named = [f"the {things[-1]} reminder"] if things else []
                    part = f"{referred.group(1)}{named[0]}" if named else part
                    referred = None
                if not named:
                    continue
                if referred is None:
                    got = manage_request(part)
                    if got is not None:
                        found.append(got)
                    continue
                part = f"{referred.group(1)}{named[0]}{part[referred.end() :]}"
                part = _MAKE_IT_A_TIME.sub("move ", part)  # "make it 5:30"
            got = manage_request(part)
            if got is not None and (
                _JOB_WORDS.search(part)
                or JOB_NUMBER.match(got[1])
                # "working a late tomorrow so push the plant watering to 07:30 wednesday":
                # a job named by its task, moved to a time said
                or (
                    got[0] == "update_scheduled_action"
                    and _names_a_time(re.sub(r"^(?:to|for)\s+", "", split_topic(got[1])[1]))
                )
            ):
                found.append(got)
    finally:
        _depth.reset(token)
    if len(found) > 1 and all(tool == "update_scheduled_action" for tool, _ in found):
        # "the pizza reminder needs to be earlier, … — make it half past 5": the one that
        # says a time
        found = [f for f in found if _names_a_time(split_topic(f[1])[1])] or found
    if len(found) != 1:
        return None
    tool, rest = found[0]
    if tool == "update_scheduled_action":
        # "can the plants reminder be wednesday instead? 7pm works better": both times
        better = [m["when"] for p in parts if (m := _BETTER.match(p))]
        if len(better) == 1 and _names_a_time(better[0]):
            rest = f"{rest} {better[0]}"
    return tool, rest


# A job's number, not a time of day ("the 7:00 one", "my 7pm reminder").
JOB_NUMBER = re.compile(
    r"^(?:(?:job|reminder|task|action|the|number|no\.?)\s+)*#?(\d+)\b"
    r"(?![:.]\d)(?!\s*(?:[ap]\.?m\b|o'?clock\b|h\b))"
    # "the 45-minute build check": a span that names the job
    r"(?![-–]?\s*(?:min(?:ute)?s?|hours?|hrs?|days?|weeks?|months?)\b)"
)


def named_job(text: str) -> tuple[int | None, list[str]]:
    """The job a change request names: by number ("move 42 to friday", "cancel job #7")
    or by words ("cancel the standup" → ["standup"]); (None, []) for any other message."""
    low = " ".join(USER_MENTION.sub(" ", text or "").lower().split()).rstrip(" .!?")
    asked = manage_request(low)
    if asked is None:
        return None, []
    rest = asked[1]
    number = JOB_NUMBER.match(rest)
    return (int(number.group(1)), []) if number else (None, job_topic(rest))


_ARROW = re.compile(r"(?<=\w)\s*(?:->|→|=>)\s*(?=\w)")


def normalize(text: str) -> str:
    """The message with job numbers set aside and time-word typos fixed."""
    text = _JOB_REF.sub(lambda m: m.group(1).split()[0] + " ", text)
    text = _ARROW.sub(" to ", text)  # "pizza 19:00 → 21:00": from one time to the other
    for pattern, word in _TYPO_RE:
        text = pattern.sub(word, text)
    return " ".join(text.split())


# Words the person quotes are the message to post, not what they say about when: "in 1 hour
# post 'maintenance starts tomorrow at 10' here" names one time, no event, no nag.
QUOTED = re.compile(
    # code the person pasted is data too: "line 12" in a traceback names no time
    r"```[^`]{0,4000}```|`[^`\n]{1,500}`|"
    # (an apostrophe inside a word is no closing quote: 'see you at Jo's on the 2nd')
    r"(?<!\w)'(?:[^'\n]|(?<=\w)'(?=\w)){1,500}'(?!\w)|\"[^\"\n]{1,500}\"|“[^”\n]{1,500}”"
    r"|‘[^’\n]{1,500}’"
)
_STASHED = re.compile(r"\bquoted([a-j]+)x\b")
_END_NAMED = re.compile(rf"\b{_UNTIL_WORD}\s+(?:[\w'-]+\s+){{0,5}}$", re.I)
# A remark in brackets ("(due thurs)", "(no rush)").
ASIDE = re.compile(r"\([^()]{0,80}\)")


# The words that ask for a reminder: "remind me", "remnd me", "ping us", "nudge me".
_ASK_VERB = (
    rf"\b(?:remind|{REMIND_SLIPS}|rm|rmd|rmnd|ping|nudge|nag|bug|poke|buzz|alert)"
    r"\s+(?:me|us)\b"
)
# A request said after some context: "I'm in Tokyo right now, remind me to call home",
# "long day. anyway, could you remind me to …": the context is no part of what to remind of.
_REQUEST_NEXT = (
    r"(?:(?:so|and|but|anyway|also)[\s,]+)*(?:(?:can|could|would|will)\s+(?:you|u)\s+)?"
    r"(?:please\s+|pls\s+|plz\s+)?(?=" + _ASK_VERB + ")"
)
_CONTEXT_FIRST = re.compile(
    r"^.+?(?:[,;:!?]|\.(?=\s)|(?=\s+(?:so|and\s+so|anyway)\s))\s+" + _REQUEST_NEXT, re.I
)


# ... and in the words left once the time is read, where its comma may have gone with it
# ("my flight is [on friday at 10am,] remind me [at 7 that day] to pack").
_REQUEST_LATER = re.compile(r"^.+?[\s,;:!?.]\s*" + _REQUEST_NEXT, re.I)
_BACK_REFERENCES = frozenset({"it", "that", "this", "them", "those", "these", "so", "then"})
# A request that points back and says only why: "then so I can shout at her".
_BACK_THEN = re.compile(r"(?:then|it|them)\s+(?:so|because|cause|coz|as|since)\b")


def _only_time_words(text: str) -> bool:
    """ "every year" left after a request: time words, no task; or words that only say
    which occasions ("remind me each time", "ping me on the day")."""
    words = " ".join(re.findall(r"[\w']+", text.lower()))
    if _OCCASIONS_ONLY.fullmatch(words):
        return True
    got = timeparse.split_when(text, now=EPOCH, tz="UTC")
    return got is not None and not got.rest.strip(" ,.!?")


_OCCASIONS_ONLY = re.compile(
    r"(?:(?:each|every|any)\s+(?:time|one|run|session|day|week|morning|evening|night)s?"
    r"|(?:on|before|the)\s+(?:the\s+)?(?:day|night|morning)(?:\s+before)?|beforehand|in\s+time"
    r"|about\s+(?:it|them|that|this)|as\s+well|too|again)"
    r"(?:\s+(?:pls|please|plz|thanks|thx|too|again|as\s+well))*"
)


# A task that refers back to what was told before it: "renew it", "put them in".
_REFERS_BACK = re.compile(r"\b(?:it|them|those|these)\b", re.I)
_CONTEXT_LINKS = re.compile(
    # (and a copula the time was read out of: "Ella's dentist is [9 Dec at 14:20]")
    r"(?:[\s,;:.!?—–-]+|\b(?:so|and|but|anyway|also|please|pls|plz|is|are|was|were|starts?"
    r"|begins?|at|on)\b"
    r"|\b(?:can|could|would|will)\s+(?:you|u)\b)+$",
    re.I,
)
_CONTEXT_CHARS = 120


def _with_referent(task: str, context: str, before_it: bool = False) -> str:
    """`task`, with the context told before it in brackets when the task refers back to it
    ("renew it (the parking permit runs out)"): the reminder must say what "it" is; or when
    the reminder comes a lead `before_it` ("Ella's dentist is 9 Dec at 14:20 - remind me an
    hour before so I can get her out of school"): before what, the context says."""
    context = _CONTEXT_LINKS.sub("", " ".join(context.split())).strip(" ,;:.!?—–-")
    if len(context) > _CONTEXT_CHARS:  # a long story: its last clause
        context = _CLAUSE_END.split(context)[-1].strip(" ,;:.!?—–-")
    if not context or len(context) > _CONTEXT_CHARS:
        return task
    if not (before_it or _REFERS_BACK.search(task)) or context.lower() in task.lower():
        return task
    return f"{task} ({context})"


def _without_context(raw: str, rest: str, before_it: bool = False) -> str:
    """The words left after the time, less the context said before the request (kept when
    the time was read inside that context, and in brackets when the request refers back to
    it or is a lead `before_it`)."""
    flat = " ".join(rest.split())
    here = _REQUEST_LATER.match(flat)  # the request still in what is left
    if here is not None:
        thing = what_of(flat[here.end() :]).lower()
        if (
            thing
            and thing not in _BACK_REFERENCES
            and not _BACK_THEN.match(thing)
            and not _only_time_words(thing)
        ):
            return _with_referent(flat[here.end() :], flat[: here.end()], before_it)
    m = _CONTEXT_FIRST.match(raw)
    if m is None:
        return rest
    # The context's words as they are left in `rest` (its time words read out of it: "band
    # practice got moved to [tomorrow] so remind me …"), then the request's.
    told, left = m.group(0).split(), flat.split()
    k = 0
    for word in told:
        if k < len(left) and left[k].strip(",;:!?.") == word.strip(",;:!?."):
            k += 1
    after = " ".join(left[k:])
    # "call mom, remind me at 5", "pick up the kids, remind me about it": the words before
    # the request are the thing itself
    thing = what_of(after).lower()
    if k == 0 or not thing or thing in _BACK_REFERENCES or _only_time_words(thing):
        return rest
    if _BACK_THEN.match(thing):
        return rest  # "…, ping me then so I can shout at her": the thing was told before
    return _with_referent(after, " ".join(left[:k]), before_it)


# A terse message that starts with a span: "15min oven off", "rmd 40m pull the laundry".
_LEADING_SPAN = re.compile(
    r"^(?:(?:rmd|rmnd|rmdr|remind\s+me|ping\s+me|nudge\s+me)\s+)?"
    r"(?P<d>\d{1,3}\s*(?:m|mins?|minutes?|h|hrs?|hours?)\b)(?=[\s,:-]+[a-z])",
    re.I,
)


_EVERY_YEAR_ON_IT = re.compile(EVERY_YEAR_ON_OCCASION, re.I)


def _day_said_besides(
    plain: str, m: re.Match[str], now: datetime, tz: str
) -> tuple[Words, datetime] | None:
    """The message read without the phrase `m` found, and the one clear time it then names
    (local), or None."""
    inner = _read_time(f"{plain[: m.start()]} {plain[m.end() :]}", now, tz)
    at = inner.instant
    if at is None or inner.ambiguous or inner.recurrence is not None:
        return None
    return inner, at.astimezone(now.tzinfo) if now.tzinfo else at


def _yearly_on_its_day(plain: str, found: Words, now: datetime, tz: str) -> Words:
    """ "Emil turns 8 on the 19th of january, remind me every year on his birthday": the
    day said in one place repeats yearly by the words in another."""
    m = _EVERY_YEAR_ON_IT.search(plain)
    if m is None or not found.timeless:
        return found
    besides = _day_said_besides(plain, m, now, tz)
    if besides is None:
        return found
    inner, at = besides
    yearly = timeparse.parse_recurrence(
        f"every year on {at:%B} {at.day} at {at:%H:%M}", now=now, tz=tz
    )
    return replace(inner, instant=None, recurrence=yearly) if yearly is not None else found


# "remind me at 2 that day", "that morning at 9", "the day before at noon", "the sunday
# before at 3pm": a clock (or a part of the day) on the day named elsewhere, or before it.
_THAT_CLOCK = (
    r"(?:(?:\d{1,2}(?:[:.]\d{2})?|(?:half|quarter|\d{1,2}|ten|twenty|five)\s+(?:past|to)\s+"
    r"(?:\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve))"
    r"(?:\s*[ap]\.?m\.?)?)"
    r"(?:\s+(?:in\s+the\s+(?:morning|afternoon|evening|night)|at\s+night))?|noon|midday|midnight"
)
_WEEKDAY_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_THAT_DAY = re.compile(
    rf"(?:\b(?:at|by|around)\s+(?P<clock>{_THAT_CLOCK})\s+)?"
    r"\b(?:(?:on\s+)?(?:that|the\s+same)\s+(?P<part>day|morning|afternoon|evening|night)"
    r"|the\s+(?P<before>day|morning|afternoon|evening|night|mon|tues?|wed(?:nes)?|thu(?:rs?)?"
    r"|fri|sat(?:ur)?|sun)(?:day)?\s+before(?!\s+(?:the|my|your|his|her|our|their|a|an)\b))\b"
    rf"(?:,?\s+(?:at|by|around)\s+(?P<clock2>{_THAT_CLOCK})\b)?",
    re.I,
)
# The clock a part of "that day" stands for (the same as "tomorrow morning" and the like).
_PART_CLOCK = {"morning": "9am", "afternoon": "2pm", "evening": "7pm", "night": "8pm", "day": "9am"}


def _clock_in_part(clock: str, part: str) -> str:
    """ "at 10 that morning" is 10am, "at 7 that evening" 7pm: a bare hour takes the half
    of the day its part names (a night's small hours stay small: "at 2 that night")."""
    bare = re.fullmatch(r"(\d{1,2})(?:[:.](\d{2}))?", clock.strip())
    if bare is None or part == "day" or int(bare[1]) > 12:
        return clock
    hour = int(bare[1])
    late = part in ("afternoon", "evening") or (part == "night" and hour >= 6)
    return f"{clock.replace('.', ':')}{'pm' if late else 'am'}"


def _on_that_day(plain: str, found: Words, now: datetime, tz: str) -> Words:
    """ "Mara lands on saturday at 3pm …, remind me at 2 that day": the clock said with
    "that day" on the one day the rest of the message names (Saturday 14:00); "the day
    (evening, sunday) before" is on the day (evening, sunday) before it."""
    m = _THAT_DAY.search(plain)
    if m is None or found.recurrence is not None:
        return found
    said = m["clock"] or m["clock2"]
    part = (m["part"] or m["before"]).lower()
    if said is None and part == "day" and not m["before"]:
        return found  # "that day" alone says no time of it
    besides = _day_said_besides(plain, m, now, tz)
    if besides is None:
        return found
    inner, day = besides
    if (
        not m["before"]
        and found.instant is not None
        and not found.ambiguous
        and found.instant.date() != day.date()
    ):
        return found  # the time read is on another day than the one said: not "that day"
    if m["before"]:
        weekday = next((i for i, n in enumerate(_WEEKDAY_NAMES) if n.startswith(part[:3])), None)
        back = 1 if weekday is None else (day.weekday() - weekday - 1) % 7 + 1
        day = day - timedelta(days=back)
        if weekday is not None:
            part = "day"
    clock = _clock_in_part(said, part) if said else _PART_CLOCK[part]
    at = timeparse.parse_instant(
        f"{day:%B} {day.day} {day.year} at {clock}", now=now, tz=tz, foreign=False
    )
    if at is None:
        return found
    # the person said when to be reminded: no lead before an appointment on top
    return replace(inner, instant=at, event=False)


_ASKS = re.compile(_ASK_VERB, re.I)


def asks_to_be_reminded(text: str) -> bool:
    """Whether the message asks, in its own words, to be reminded ("remind me", "ping us";
    not "the reminder worked")."""
    return _ASKS.search(QUOTED.sub(" ", text)) is not None


# Where a clause ends: a stop, a comma, a dash between words.
_CLAUSE_END = re.compile(r"[,;.!?](?=\s|$)|\s[—–-]\s")
# Words that take a time back ("no wait, tuesday", "or rather at 6"): not context.
_TAKEN_BACK = re.compile(
    r"\bno\s*,?\s*(?:wait|sorry|actually)\b|\b(?:wait|actually|i\s+mean|or\s+rather|instead"
    r"|make\s+(?:it|that)|sorry|scratch\s+that)\b",
    re.I,
)


def _request_alone(plain: str, found: Words, now: datetime, tz: str) -> Words:
    """Two times in a message whose one request says its own ("stats exam is the day after
    tomorrow, remind me tonight to pack", "every 2 hrs ping me to drink water, big grind
    session today lol"): the request's time; the other is a fact told around it. Its
    clause is tried first, then the words from the request on; what was told before stays
    in the words (the context, cut or kept as the text needs), what is told after goes."""
    if found.rolled or found.half_day:
        return found
    asks = list(_ASKS.finditer(plain))
    if len(asks) != 1:
        return found
    at = asks[0].start()
    ends = [m.end() for m in _CLAUSE_END.finditer(plain, 0, at)]
    begin = ends[-1] if ends else 0
    after = _CLAUSE_END.search(plain, asks[0].end())
    end = after.start() if after else len(plain)
    # (two times the time language could not put together read as none at all: "our
    # landlord wants the rent in by the 1st, so on the 28th of every month at 9am remind me …")
    if not (found.ambiguous or found.timeless) or _another_request(plain[end:], now, tz):
        return found
    if found.timeless and any(
        timeparse.split_when(piece, now=now, tz=tz) is not None
        for piece in re.split(r"[,;.!?]", plain[end:])
        if piece.strip()
    ):
        return found  # times after the request's clause too: which go together is asked
    for lo in dict.fromkeys((begin, at)):
        part, told = plain[lo:end], f"{plain[:lo]} {plain[end:]}"
        if _TAKEN_BACK.search(told):
            return found
        if found.timeless and names_repeat(plain[:lo]):
            continue  # "green bin goes out every other tuesday …, remind me at 7pm each time"
        inner = _read_time(part, now, tz)
        if (inner.instant or inner.recurrence) and not inner.ambiguous and not inner.half_day:
            inner = _clock_told(inner, part, plain[:lo], now, tz)
            task = " ".join(inner.rest.split())
            return replace(
                inner,
                recurrence=_ended_as(inner.recurrence, found.recurrence),
                rest=_with_referent(task, plain[:lo]),
            )
    return found


# A clock said in words or digits; the parts of the day a request may name instead.
_A_CLOCK = re.compile(
    r"\d|\b(?:noon|midday|midnight|o'?clock|half\s+past|quarter)\b"
    r"|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+"
    r"(?:at\s+night|in\s+the\s+(?:morning|afternoon|evening)|[ap]\.?m\b)",
    re.I,
)
_PART_SAID = (
    (
        re.compile(r"\b(?:tonight|night|nightly|evenings?|bedtime)\b", re.I),
        (*_DAY_PART_HOURS["evening"], *_DAY_PART_HOURS["night"]),
    ),
    (re.compile(r"\bmornings?\b", re.I), _DAY_PART_HOURS["morning"]),
    (re.compile(r"\bafternoons?\b", re.I), _DAY_PART_HOURS["afternoon"]),
)


def _clock_told(inner: Words, part: str, told: str, now: datetime, tz: str) -> Words:
    """ "I'm to take them at half past eight every evening … remind me to take my tablets
    each night", "the eye drops go in at night, ten o'clock … remind me tonight": the
    request names a part of the day and no clock; the one clock told around it, in that
    part of the day, is its time (not the part's usual hour)."""
    if _A_CLOCK.search(part):
        return inner
    hours = next((h for pattern, h in _PART_SAID if pattern.search(part)), None)
    context = _read_time(told, now, tz)
    if context.ambiguous or not _A_CLOCK.search(told):
        return inner
    if context.instant is not None and context.recurrence is None:
        local = context.instant.astimezone(zone(tz))
        clock = (local.hour, local.minute)
    elif context.recurrence is not None and isinstance(context.recurrence.spec, Cron):
        fields = context.recurrence.spec.expr.split()
        if not (fields[0].isdigit() and fields[1].isdigit()):
            return inner
        clock = (int(fields[1]), int(fields[0]))
    else:
        return inner
    if hours is None or clock[0] not in hours:
        return inner
    if (context.recurrence is None) != (inner.recurrence is None):
        return inner  # a repeat's clock for a repeat, a day's for that day
    if inner.recurrence is not None and isinstance(inner.recurrence.spec, Cron):
        fields = inner.recurrence.spec.expr.split()
        expr = " ".join([str(clock[1]), str(clock[0]), *fields[2:]])
        rec = inner.recurrence
        return replace(inner, recurrence=Schedule(Cron(expr), rec.tz, rec.until, rec.max_runs))
    if inner.instant is not None and inner.recurrence is None:
        at = inner.instant.astimezone(zone(tz)).replace(hour=clock[0], minute=clock[1])
        said = context.instant
        if at <= now or said is None or said.astimezone(zone(tz)).date() != at.date():
            return inner
        return replace(inner, instant=at)
    return inner


# What joins a second request on to a first: ", and then", "; also", " & ".
_JOINED = re.compile(r"[\s,;.!?—–&-]*(?:(?:and|then|also|plus|after\s+that)\b[\s,]*)*", re.I)


def _another_request(after: str, now: datetime, tz: str) -> bool:
    """ "remind me at 5pm to call mom, at 6pm to cook": what follows the request's clause
    is a second request with the verb left out (a time first, then a task), not a fact
    told after it ("…, big grind session today lol", "…, tomorrow he's away")."""
    tail = after[_JOINED.match(after).end() :]  # type: ignore[union-attr]
    hit = timeparse.split_when(tail, now=now, tz=tz)
    if hit is None or not hit.said or not tail.lower().startswith(hit.said.lower()):
        return False
    task = hit.rest.strip(" ,.!")
    return task.lower().startswith("to ") or starts_with_verb(task)


def _ended_as(repeat: Schedule | None, read: Schedule | None) -> Schedule | None:
    """The request's own repeat with the end the whole message gave it ("remind me every 90
    minutes to empty the tank, until 8 tonight": the end is said after the request's
    clause)."""
    if repeat is None or read is None or (repeat.until, repeat.max_runs) != (None, None):
        return repeat
    if repeat.spec != read.spec or (read.until, read.max_runs) == (None, None):
        return repeat
    return Schedule(repeat.spec, repeat.tz, read.until, read.max_runs)


_UNTIL_THEN = re.compile(r"\s*\b(?:until|till|til|up\s+to)\s+then\b", re.I)


def _until_then(plain: str, found: Words, now: datetime, tz: str) -> Words:
    """ "exam's on saturday so remind me every night at 10pm to study until then": a repeat
    that ends at the day said elsewhere in the message."""
    m = _UNTIL_THEN.search(plain)
    sched = found.recurrence
    if m is None or sched is None or sched.until is not None:
        return found
    without = f"{plain[: m.start()]} {plain[m.end() :]}"
    repeat = timeparse.split_when(without, now=now, tz=tz)
    if repeat is None or not isinstance(repeat.schedule, Schedule) or not repeat.said:
        return found
    k = without.lower().find(repeat.said.lower())
    if k < 0:
        return found
    other = timeparse.split_when(f"{without[:k]} {without[k + len(repeat.said) :]}", now=now, tz=tz)
    if other is None or not isinstance(other.schedule, datetime) or other.schedule <= now:
        return found
    try:
        ended = Schedule(sched.spec, sched.tz, other.schedule, sched.max_runs)
    except ScheduleError:
        return found
    rest = " ".join(_UNTIL_THEN.sub("", found.rest).split())
    return replace(found, recurrence=ended, rest=rest)


# An end said right after a repeat's time: "every evening at 7 until the end of term";
# not "until I reply" (a nag), "until further notice" or "until then" (no end).
_END_AFTER = re.compile(
    rf"[\s,]*(?P<end>{_UNTIL_WORD}\s+"
    r"(?!(?:i|we|you|it|further|then|now|cancel\w*|told|stopped)\b)[^,.;!?()]{1,40}?)"
    r"(?=\s*(?:$|[,.;!?(]|(?:remind|ping|nudge|rmd)\s+(?:me|us)\b|to\s+\w))",
    re.I,
)


def _unread_end(body: str, said: str) -> str | None:
    """The end said right after a repeat's time that no date was read from."""
    at = body.lower().find(said.lower()) if said else -1
    if at < 0:
        return None
    m = _END_AFTER.match(QUOTED.sub(" ", body), at + len(said))
    return " ".join(m["end"].split()) if m is not None else None


def end_question(end: str) -> str:
    """What to ask when a repeat's end was said but no date can be read from it."""
    if STOP_AFTER_A_NUMBER.fullmatch(end):
        n = end.split()[-1]
        return (
            f"{END_ASKED} After {n} reminders, or at {n} o'clock? Nothing is scheduled yet: "
            f"say `{n} times` or `until {n}pm`."
        )
    return (
        f"{END_ASKED} I can't tell a date from “{end}”, so nothing is scheduled yet: say its "
        "last day (e.g. `until 18 December`), or `no end`."
    )


END_ASKED = "When should it stop?"


def _said_first(body: str, said: str, request: re.Pattern[str]) -> bool:
    """Whether the time's words come before the request ("next Wednesday at 2pm remind me
    about the call"): then they say when to remind, not when the event is."""
    asked = request.search(body)
    at = body.lower().find(said.lower()) if said else -1
    return asked is not None and 0 <= at < asked.start()


def starts_with_a_span(text: str) -> bool:
    """ "15min oven off": a message whose time is a span said first (so, from now)."""
    return _LEADING_SPAN.match(text) is not None


def _read(raw: str, now: datetime, tz: str) -> Words:
    quotes: list[str] = []

    def keep(m: re.Match[str]) -> str:
        quotes.append(m.group(0))
        return "quoted" + "".join("abcdefghij"[int(d)] for d in str(len(quotes) - 1)) + "x"

    plain = QUOTED.sub(keep, raw)
    if "(" in plain:
        # "remind me wed evening to sign the slip (due thurs)", "… 04:15 on Thursday
        # morning (the Wed night into Thu one) - remind me then": a remark in brackets
        # beside a time said outside them is kept as said, not read as a second time
        outside = ASIDE.sub(" ", plain)
        if outside != plain and timeparse.split_when(outside, now=now, tz=tz) is not None:
            # (not the date of an end said before it: "until the end of term (friday 18
            # dec)" ends then)
            plain = ASIDE.sub(
                lambda m: m.group(0) if _END_NAMED.search(plain, 0, m.start()) else keep(m), plain
            )
    found = _read_time(plain, now, tz)
    found = _yearly_on_its_day(plain, found, now, tz)
    found = _on_that_day(plain, found, now, tz)
    found = _request_alone(plain, found, now, tz)
    found = _until_then(plain, found, now, tz)
    lead = _LEADING_SPAN.match(plain)
    if lead is not None and found.timeless and not found.ambiguous:
        # "rmd 40m pull the laundry", "15min oven off": a span first is "in" that span
        found = _read_time(f"{plain[: lead.start('d')]}in {plain[lead.start('d') :]}", now, tz)
    # (someone else's reminding, "she'll remind everyone", is no request of the person's)
    remind = bool(REMIND.search(_SOMEONE_ELSE_REMINDS.sub(" ", plain)))
    meeting = bool(_MEETING.search(plain))
    if quotes:  # the quoted words back, as they were written
        back = _STASHED.sub(
            lambda m: quotes[int("".join(str("abcdefghij".index(c)) for c in m[1]))], found.rest
        )
        found = replace(found, text=raw, rest=back)
    rest = _without_context(raw, found.rest, before_it=found.lead is not None)
    if remind and _only_told_after(raw, rest):
        rest = ""  # "remind me at 5 in the afternoon, he's back from football by then"
    # the person's own words, also where a second reading had a phrase set aside or a word
    # added ("every year on his birthday", "in 15min"): an approval reads them again
    return replace(found, text=raw, remind=remind, meeting=meeting, now=now, rest=rest)


def _only_told_after(raw: str, rest: str) -> bool:
    """Whether what is left is only a fact about the time, told after the request in a
    clause of its own ("…, he's back from football by then"): no task, which the person
    still has to say (or said before)."""
    if not rest or not STATEMENT.match(rest) or _ASKS.search(rest):
        return False
    if not _WHY_THEN.search(rest):
        return False  # "remind me at 5, it's bin day": the fact is what to remind of
    ask = _ASKS.search(raw)
    at = raw.find(rest)
    if ask is None or at <= ask.end():
        return False
    between = raw[ask.end() : at]
    return bool(re.search(r"[,;.!?—–]\s*$", between)) and not re.search(
        r"\b(?:to|about|that|of)\b", between
    )


# A fact told about the time itself: "he's back by then", "that's when she's free".
_WHY_THEN = re.compile(r"\b(?:by\s+then|by\s+that\s+time|then|that'?s\s+when)\b", re.I)


def _time_first(body: str, now: datetime, tz: str) -> timeparse.When | None:
    """ "every monday, wednesday and friday at 6:45am remind me to go for a run": a time said
    whole before the request, which the time language gave up on with the task after it
    (the words it tries grow with the message): the time alone, the request the rest."""
    ask = _ASKS.search(body)
    if ask is None or ask.start() == 0:
        return None
    head = body[: ask.start()].strip(" ,;:-—–")
    got = timeparse.split_when(head, now=now, tz=tz)
    if got is None or not got.said or got.rest.strip(" ,.;:-—–"):
        return None
    return timeparse.When(got.schedule, body[ask.start() :], said=got.said)


# A day or a period said with no clock ("next week", "for tomorrow", "the weekend").
_A_PERIOD = re.compile(
    r"(?:for\s+)?(?:(?:the\s+)?(?:next|coming|following)\s+(?:week|month|year|weekend)"
    r"|tomorrow|(?:the|this)\s+(?:week|weekend|month)|today|tonight)",
    re.I,
)


# A last clause that tells an event's own clock: ", his class is at 1:15", "(it starts at 6)".
_EVENTS_OWN_CLOCK = re.compile(
    r"\s*[,;(—–]\s*(?:and\s+|but\s+)?(?:it|that|he|she|they|his|her|their|its|the|my|our)"
    r"(?:\s+[\w'-]+){0,3}\s+(?:is|'s|starts?|begins?|opens?|kicks\s+off)\s+(?:at\s+)?"
    r"\d{1,2}(?:[:.]\d{2})?\s*(?:[ap]\.?m\.?)?\)?[\s.!]*$",
    re.I,
)


def _read_time(raw: str, now: datetime, tz: str) -> Words:
    nag = bool(_NAG.search(raw))
    if _SHIFT.search(raw) or _shift_change(raw):
        # "snooze 42 by 10 minutes", "make the pizza reminder an hour later": a job moved by
        # a span from its own time, not a time from now
        return Words(raw, nag=nag, ambiguous=True)
    lead, body = _lead(normalize(raw))
    if lead is not None and _HOLIDAY_AFTER_LEAD.search(raw):
        # "2 days before thanksgiving", "a week before christmas": the day is the time
        # language's whole phrase, not a lead on an event whose time is still to be said
        whole, _ = _find(normalize(raw), now, tz)
        if whole is not None and whole.said and _LEAD.search(whole.said):
            lead, body = None, normalize(raw)
    named, body = zone_time_in(body)
    if named is None:
        named, body = their_time_in(body)
    own = _EVENTS_OWN_CLOCK.search(body)
    if own is not None and own.start() > 0:
        # "pack Noah's swim bag tomorrow morning, his class is at 1:15": the last clause
        # tells the event's own clock; the request's time is the one before it (not
        # "tomorrow morning … 1:15" put together as 01:15)
        head, _ = _find(body[: own.start()], now, tz)
        if head is not None and head.said:
            body = body[: own.start()]
    found, note = _find(body, now, tz)
    if found is None and not note:
        found = _time_first(body, now, tz)
    until: datetime | None = None
    runs: int | None = None
    if not (
        found is not None
        and isinstance(found.schedule, Schedule)
        and (found.schedule.until is not None or found.schedule.max_runs is not None)
    ):
        # Unless the time language read a repeat with its end ("from march until february"
        # ends in the February after March), the end is cut out and read on its own; the
        # rest is read again only if something was cut.
        repeats = found is not None and isinstance(found.schedule, Schedule)
        cut, until, runs = _ends(body, now, tz, repeat=repeats)
        if cut != body:
            body = cut
            again, note = _find(body, now, tz)
            if (
                repeats
                and runs is not None
                and found is not None
                and (again is None or not isinstance(again.schedule, Schedule))
            ):
                # "tue and thu at 19:30 …, 4 times": the count made the days a rhythm;
                # without it they read as one day, so the repeat stays, its rest cut too
                found = replace(found, rest=_ends(found.rest, now, tz, repeat=True)[0])
            else:
                found = again
    if found is None:
        return Words(raw, rest=body, zone=named, lead=lead, nag=nag, ambiguous=bool(note))
    found = _start_said_apart(found, now, named or tz)
    rest = found.rest
    freq = _FREQ_NOUN.search(body) if isinstance(found.schedule, datetime) else None
    if freq is not None and found.said:
        # "set a daily reminder at 8pm": the repeat is said of the reminder, the time apart
        repeat = timeparse.parse_recurrence(f"{freq['f']} {found.said}", now=now, tz=named or tz)
        if repeat is not None:
            rest = re.sub(rf"\s*\b{freq['f']}\b", "", rest, count=1, flags=re.I).strip()
            found = replace(found, schedule=repeat, rest=rest)
    # A second time in what is left ("move my 3pm to 5pm") makes the message ambiguous.
    again = timeparse.split_when(rest, now=now, tz=named or tz) if rest else None
    # Not a thing's own time ("take the 8:15 train", "about the 10am dentist appointment").
    ambiguous = again is not None and not again.thing and _strong(rest)
    if (
        ambiguous
        and again is not None
        and isinstance(found.schedule, Schedule)
        and isinstance(again.schedule, datetime)
        and _A_PERIOD.fullmatch(again.said.strip())
    ):
        # "every sunday at 8pm remind me to plan next week": a repeat's task names the week
        # (day, month) it is about, each time; one day is no time for a repeat
        ambiguous = False
    told = (
        ambiguous
        and again is not None
        and (_told(body, again.said) or _the_events_own(body, again.said))
    )
    if told:
        # "at 5pm post that the office closes early today", "remind me at 5 that the
        # meeting is tomorrow": the second time is in what is said, not when to say it
        # (and so is any event it names: the time found is when to say it)
        ambiguous = False
    event = lead is not None or bool(
        not told
        and (
            _COPULA.search(raw)
            or _HAVE_EVENT.search(raw)
            or (_ABOUT_EVENT.search(raw) and not _said_first(body, found.said, _ABOUT_EVENT))
            or (_NOUN_AT.search(raw) and not _REMIND_AT.match(raw))
        )
    )
    if isinstance(found.schedule, Schedule):
        sched = found.schedule
        if named:  # "every day at 9 Tokyo time" repeats on Tokyo's clock
            there, _ = _find(body, now, named)
            if there is not None and isinstance(there.schedule, Schedule):
                sched = there.schedule
        if until is not None or runs is not None:
            try:
                sched = Schedule(sched.spec, sched.tz, until or sched.until, runs or sched.max_runs)
            except ScheduleError:
                return Words(raw, rest=rest, nag=nag, ambiguous=True)
        early = _earlier_by(sched, lead, now) if lead is not None and not ambiguous else None
        if early is not None:
            # "class every tuesday and thursday at 14:15, remind me 15 minutes before it
            # starts": the same days, the lead earlier; the lead is spent
            sched, lead = early, None
        unread = None
        if sched.until is None and sched.max_runs is None:
            stop = STOP_AFTER_A_NUMBER.search(body)
            unread = stop.group(0) if stop is not None else _unread_end(body, found.said)
        return Words(
            raw,
            recurrence=sched,
            rest=rest,
            zone=named,
            lead=lead,
            nag=nag,
            ambiguous=ambiguous,
            unread_end=unread,
            half_day=_repeat_half_day(body, sched),
        )
    daily = _daily_for(raw, found, runs, now, tz)
    if daily is not None:
        # "starting from today, for five days remind me at 10 of the night to …": a clock
        # each day for that many days, the request framed by the span
        rest = " ".join(_FOR_DAYS_WORDS.sub(" ", rest, count=1).split())
        return Words(raw, recurrence=daily, rest=rest, zone=named, lead=lead, nag=nag)
    if _OFF_AN_UNTIMED_EVENT.match(rest):
        # "remind me at 9 the day before the gig": which day that is, only the person
        # knows (made at 9 today, the fortieth set)
        return Words(raw, rest=rest, zone=named, event=event, nag=nag)
    if _JUST_TODAY.fullmatch(found.said.strip()):
        # "remind me today to call mom": some time today, not this very minute; the time
        # is asked for (a reminder said for now would surprise, and a command run now too)
        return Words(raw, rest=rest, zone=named, event=event, nag=nag)
    at = found.schedule.astimezone(zone(tz))
    relative = re.search(r"\bin\s+(?:\d|an?\b|half)", body, re.I)
    if named and not relative and _DAY.search(body):
        # "tomorrow at 3pm Tokyo time": the speaker's day, Tokyo's wall clock.
        at = at.replace(tzinfo=zone(named)).astimezone(zone(tz))
    elif named and not relative:
        # "at 3pm Tokyo time": the next 3pm there.
        there, _ = _find(body, now, named)
        if there is not None and isinstance(there.schedule, datetime):
            at = there.schedule.astimezone(zone(tz))
    if named and not relative:
        wall = at.astimezone(zone(named))
        while wall <= now:  # a time of day already past there: the next one
            wall = (wall.replace(tzinfo=None) + timedelta(days=1)).replace(tzinfo=zone(named))
        at = wall.astimezone(zone(tz))
    at = _weekend(body, _afternoon(body, _cued_half(body, at, now)), now)
    local_day = now.astimezone(zone(tz)).date()
    rolled_on = at > now and at.date() != local_day  # read as a later day than today
    if (
        rolled_on
        and not _DAY.search(body)
        and not named
        and not _ZONEISH.search(body)
        and not _NEXT_MORNING.search(QUOTED.sub(" ", body))
        and not (at.hour < 6 and _A_NIGHT.search(QUOTED.sub(" ", body)))
        and not (at.hour == 0 and MIDNIGHT.search(body))
    ):
        # A bare time already past today: whether tomorrow is meant is the person's call
        # (the tool asks), so the words don't pick the day. (A time the person put in the
        # past, "yesterday at 9", is theirs as said: the tool says it has passed.)
        ambiguous = rolled = True
    else:
        rolled = False
    return Words(
        raw,
        instant=at,
        rest=rest,
        zone=named,
        lead=lead,
        event=event,
        nag=nag,
        ambiguous=ambiguous,
        rolled=rolled,
        half_day=not rolled and _half_day(body, at, local_day) is not None,
    )


# A day counted from an event no time was given for: "the day before the gig", "the
# morning after the party", "the week before my exams".
_OFF_AN_UNTIMED_EVENT = re.compile(
    r"(?:on\s+)?the\s+(?:day|night|morning|evening|afternoon|week|weekend)\s+(?:before|after)\s+"
    r"(?:the|my|our|his|her|their|your)\s+[a-z]",
    re.I,
)
# "today" as a message's only time: a day, not a time of it.
_JUST_TODAY = re.compile(
    r"(?:(?:some\s*time|later|at\s+some\s+point)\s+)?today(?:\s+sometime)?", re.I
)


# A clock from 1:00 to 7:59 with no am/pm, no leading zero, no part of day and no morning
# cue: morning and afternoon are both likely. (A bare hour, "tomorrow at 5", is read as a
# waking hour by the time language; a 24-hour clock, "04:30" or "16:30", says which.)
_HALF_CLOCK = re.compile(r"(?<![\d:.])([1-7]):([0-5]\d)(?![\d:])(?!\s*(?:[ap]\.?m\b|[ap]\b|h\b))")
_SAYS_HALF = re.compile(
    r"\b(?:am|pm|a\.m|p\.m|morning|afternoon|evening|tonight|night|noon|midnight|dawn|"
    r"sunrise|wake|waking|alarm|get up|breakfast|lunch|dinner|supper|bedtime|o'?clock)\b",
    re.I,
)


# A bare clock ("at 7", "8:30"): no am/pm, no part of day said with it.
_BARE_CLOCK = re.compile(
    r"(?<![\d:.])(1[0-2]|[1-9])(?::([0-5]\d))?(?![\d:])"
    r"(?!\s*(?:[ap]\.?m\b|[ap]\b|h\b|hours?\b|hrs?\b|minutes?\b|mins?\b|days?\b|weeks?\b|"
    r"months?\b|years?\b|st\b|nd\b|rd\b|th\b|/|-\d|\.\d))"
)
_POD_SAID = re.compile(
    r"\b(?:am|pm|a\.m|p\.m|morning|afternoon|evening|tonight|night|noon|midnight|midday)\b", re.I
)
# What the person will be doing says which half of the day a bare clock is in.
_MORNING_CUE = re.compile(
    r"\b(?:wake|waking|wakes|woken|alarm|get\s+up|breakfast|sunrise|dawn)\b", re.I
)
_EVENING_CUE = re.compile(r"\b(?:dinner|supper|bedtime|to\s+bed|go\s+to\s+sleep)\b", re.I)


_FREQ_NOUN = re.compile(rf"\b{_FREQ_OF_REMINDER}\b", re.I)


def _afternoon(body: str, at: datetime) -> datetime:
    """ "this afternoon", "friday afternoon" with no clock: the hour a repeat "every
    afternoon" runs at (POD_HOURS), not noon, where the afternoon's span starts."""
    text = QUOTED.sub(" ", body)
    said = re.search(r"\b(?:afternoon|arvo)\b", text, re.I)
    if (at.hour, at.minute) != (12, 0) or said is None:
        return at
    # in the sentence that says it ("… ready after lunch" told after is no time of it)
    begin = max(text.rfind(stop, 0, said.start()) for stop in ".!?;") + 1
    ends = [i for i in (text.find(stop, said.end()) for stop in ".!?;") if i >= 0]
    sentence = text[begin : min(ends) if ends else len(text)]
    if re.search(r"\d|\bnoon\b|\blunch", sentence) or re.search(
        r"\b(?:early|late)\s+(?:afternoon|arvo)", sentence, re.I
    ):
        return at
    return at.replace(hour=POD_HOURS["afternoon"])


# "in the morning" said once the morning has begun is tomorrow's, as people mean it (a
# clock said with it, "at 8 in the morning", is a time that may have passed: asked).
# "half past midnight", "at midnight": the coming one, not one already past today.
MIDNIGHT = re.compile(r"\bmidnight\b", re.I)
_NEXT_MORNING = re.compile(r"^(?!.*\d).*\b(?:in|first thing in) the morning\b", re.I)
# A night the small hours come after: "at 2am after my night shift", "at 1 after the party
# tonight" (the coming small hours, not "tomorrow?" asked).
_A_NIGHT = re.compile(r"\b(?:night\s+shift|nightshift|tonight|late\s+shift|overnight)\b", re.I)
_WEEKEND = re.compile(r"\bw(?:ee)?-?k(?:e)?-?e?nd\b", re.I)


def _weekend(body: str, at: datetime, now: datetime) -> datetime:
    """ "this weekend", "next weekend" with no clock: its Saturday at the hour a day said
    without a time gets (DEFAULT_HOUR), not Friday 18:00, where the weekend's span starts
    (a reminder to clean the gutters "this weekend" is no Friday-evening one)."""
    text = QUOTED.sub(" ", body)
    if at.weekday() != 4 or (at.hour, at.minute) != (18, 0) or re.search(r"\d", text):
        return at
    if not _WEEKEND.search(text) or re.search(r"\b(?:evening|night|tonight)\b", text, re.I):
        return at
    saturday = (at + timedelta(days=1)).replace(hour=DEFAULT_HOUR)
    return saturday if saturday > now else at


_TOLD = re.compile(r"\b(?:that|saying|says)\s|:\s", re.I)


def _told(rest: str, said: str) -> bool:
    """Whether the time `said` in `rest` is inside what is to be told: after "that",
    "saying" or a colon ("post that the shop is closed tomorrow") said in the request, not
    before it ("> Subject: Garage … by Thursday 22:00. rm me thu 21:15 to …": a quoted
    mail's time is a second time, not a part of the reminder)."""
    at = rest.lower().find(said.lower()) if said else -1
    asked = _ASKS.search(rest)
    start = asked.start() if asked is not None else 0
    return at > start and _TOLD.search(rest, start, at) is not None


# "…, it starts at 6", "(the show begins at 8)": the event's own time, told beside when to
# remind ("wednesday at 5:40pm, it starts at 6").
_EVENT_TIME_BEFORE = re.compile(
    r"(?:^|[,;.(—–-]\s*)(?:and\s+|but\s+)?(?:it|that|this|which|she|he|they"
    r"|the\s+[\w'-]+(?:\s+[\w'-]+)?)\s+(?:starts?|begins?|opens?|kicks\s+off|is|'s)\s*$",
    re.I,
)


def _the_events_own(body: str, said: str) -> bool:
    """Whether the second time `said` is an event's own clock, told in a clause of its own
    after the first ("…, it starts at 6")."""
    if not re.match(r"(?:at\s+|@\s*)?\d", said or ""):
        return False  # a day ("…, the hike starts tomorrow") is `_request_alone`'s to read
    at = body.lower().rfind(said.lower())
    return at > 0 and _EVENT_TIME_BEFORE.search(body[:at]) is not None


def _cued_half(body: str, at: datetime, now: datetime) -> datetime:
    """A bare clock read in the half of the day the words point to: "wake me up at 7
    tomorrow" is 07:00 (not the 19:00 a bare 7 beside a day is), "eat breakfast at 8"
    is 08:00, "start dinner at 7" 19:00."""
    text = QUOTED.sub(" ", body)
    if _POD_SAID.search(text):
        return at
    morning, evening = bool(_MORNING_CUE.search(text)), bool(_EVENING_CUE.search(text))
    clocks = _BARE_CLOCK.findall(text)
    if morning == evening or len(clocks) != 1:
        return at
    hour, minute = int(clocks[0][0]), int(clocks[0][1] or 0)
    if at.hour % 12 != hour % 12 or at.minute != minute:
        return at
    if morning and at.hour >= 12:
        moved = at - timedelta(hours=12)
        return moved if moved > now else moved + timedelta(days=1)
    if evening and at.hour < 12:
        return at + timedelta(hours=12)
    return at


def _clock_in(text: str) -> re.Match[str] | None:
    """The first clock of either half of the day outside quotes (positions as in `text`)."""
    return _HALF_CLOCK.search(QUOTED.sub(lambda q: " " * len(q.group(0)), text))


def _half_day(body: str, at: datetime, today: date) -> re.Match[str] | None:
    """The clock read as written on a later day when its afternoon reading is as likely."""
    m = _clock_in(body)
    if m is None or _SAYS_HALF.search(body) or at.date() <= today:
        return None
    return m if (at.hour, at.minute) == (int(m[1]), int(m[2])) else None


def _repeat_half_day(body: str, sched: Schedule) -> bool:
    """Whether a repeat's clock is a bare one from 1:00 to 6:59, read in the morning when
    its afternoon is as likely ("every Tuesday and Thursday at 4:30 remind me to take Max
    to football")."""
    m = _clock_in(body)
    if m is None or _SAYS_HALF.search(body) or not isinstance(sched.spec, Cron):
        return False
    text = QUOTED.sub(" ", body)
    if _POD_SAID.search(text) or _MORNING_CUE.search(text) or _EVENING_CUE.search(text):
        return False  # "every weekday at 6:30 wake me up": the words say which half
    minute, hour = sched.spec.expr.split()[:2]
    # (a 7 o'clock repeat is a morning one: the school run, the commute, the lecture)
    return int(m[1]) < 7 and (minute, hour) == (str(int(m[2])), str(int(m[1])))


HALF_DAY_ASKED = "in the morning or in the afternoon?"


def half_day_question(words: Words) -> str:
    """The question when `words.half_day`: which half of the day the clock is in (of a
    one-off's day, or of a repeat's)."""
    at = words.instant
    if at is None:
        m = _clock_in(words.text)
        clock = f"{int(m[1])}:{m[2]}" if m is not None else "that time"
        return f"Is {clock} {HALF_DAY_ASKED} Say `am` or `pm` (or e.g. `{clock}pm`)."
    return (
        f"Is {at:%-H:%M} on {at:%a %-d %b} {HALF_DAY_ASKED} "
        f"Say `am` or `pm` (or e.g. `{at:%-H:%M}pm`)."
    )


_ANSWER_AM = re.compile(r"(?:in\s+the\s+)?(?:morning|am|a\.m\.?)")
_ANSWER_PM = re.compile(r"(?:in\s+the\s+)?(?:afternoon|evening|pm|p\.m\.?)")


def with_half_day(before: str, answer: str) -> str | None:
    """The earlier message with its clock made plain by the answer to `half_day_question`
    ("am", "in the afternoon", "4:30pm", "16:30"), or None when the answer says neither."""
    m = _clock_in(before)
    if m is None:
        return None
    said = " ".join(answer.lower().split()).strip(" .!")
    said = re.sub(r"^(?:the\s+|it'?s\s+|in\s+the\s+)", "", said)
    clock = re.fullmatch(r"(\d{1,2})(?::(\d{2}))?\s*([ap])\.?m?\.?", said)
    h24 = re.fullmatch(r"(1[3-9]):([0-5]\d)", said)
    if clock and (int(clock[1]), clock[2] or m[2]) != (int(m[1]), m[2]):
        return None  # another time than the one asked about: not an answer to the question
    if h24 and (int(h24[1]) - 12, h24[2]) != (int(m[1]), m[2]):
        return None
    if _ANSWER_AM.fullmatch(said) or (clock and clock[3] == "a"):
        half = "am"
    elif _ANSWER_PM.fullmatch(said) or (clock and clock[3] == "p") or h24:
        half = "pm"
    else:
        return None
    return f"{before[: m.end()]}{half}{before[m.end() :]}"


# Words that name a day (so a time read on a later day was meant for that day, not
# rolled over from a time already past today): relative days, weekdays, months, dates
# and named days ("on christmas", "on diwali").
_DAY = re.compile(
    r"\b(tomorrow|tmrw|tmr|tonight|today|mon|tue|wed|thu|fri|sat|sun|next|this|in (?:\d|an?\b)|"
    r"week|weekend|month|year|day|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|"
    # (a day of the month written "the 5." as many languages do)
    r"\d{4}|\d{1,2}(st|nd|rd|th))|\d+[/.-]\d+|\bthe\s+\d{1,2}\.(?!\d)|\b"
    + HOLIDAY_RE
    + r"(?![\w'])",
    re.I,
)


def _strong(rest: str) -> bool:
    """Whether the leftover time is a real time word, not a stray number ("take 2 pills")."""
    return bool(
        re.search(
            r"\b(\d{1,2}(:\d{2})?\s*(am|pm)|\d{1,2}:\d{2}|at \d|tomorrow|today|tonight|noon|"
            r"midnight|monday|tuesday|wednesday|thursday|friday|saturday|sunday|in \d+ \w+|"
            r"next \w+)\b",
            rest,
            re.I,
        )
    )


ASK_WHEN_POSTED = "When should I post it?"
# A message to post, asked for without its time: "can u post 'raid signups close' here later".
POST_VERB = re.compile(r"\b(?:post|send|say|announce|share|drop|write)\b", re.I)
# A message to post when something happens, which no clock tells: "post the patch notes
# here whenever they drop", "share the link as soon as it's live".
POSTS_ON_EVENT = re.compile(
    r"(?:post|send|announce|share|drop)\b[^.?!]{1,80}?\b(?:whenever|as\s+soon\s+as|once|the"
    r"\s+moment|when)\s+(?:they|it|he|she|the|we|you|i|that|this|those|these)\b"
)
WAIT_FOR_EVENT = (
    "I can't see when that happens, so I can't wait for it. Say a time (e.g. `at 6pm` or "
    "`in 2 hours`): when should I post it?"
)
