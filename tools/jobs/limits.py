"""Every guardrail a job passes, whoever makes it: a tool call, a slash command, an import,
an approval click or an edit. Each refusal is a `UserError` saying what to do instead."""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict, deque
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from storage.jobs import JobKey
from storage.models import JobKind
from tools import message_size
from tools.errors import LimitReached, UserError, quoted
from tools.jobs.marker import mentions_marker
from tools.jobs.retry import RetryPolicy
from tools.schedule import Once, Schedule, ScheduleError, spec_to_json


@dataclass(frozen=True)
class Limits:
    max_horizon: timedelta = timedelta(days=5 * 365)
    min_interval: timedelta = timedelta(seconds=60)
    max_jobs_per_user: int = 50
    # A Discord message holds 2,000; the marker and its lead-in ("[DELAYED_COMMAND] Follow
    # up on the reminder about: ", 51) and the owner's mention in the answer need the rest.
    max_command_chars: int = 1900
    creations_per_minute: int = 10
    retry_window: timedelta = timedelta(minutes=15)
    late_after: timedelta = timedelta(seconds=60)
    pause_after_failures: int = 10
    notify_after_failures: int = 3  # the owner hears once when a recurring job keeps failing
    follow_up_window: timedelta = timedelta(hours=24)  # a reminder stops nagging after this

    @property
    def retry(self) -> RetryPolicy:
        return RetryPolicy(
            window=self.retry_window,
            pause_after=self.pause_after_failures,
            notify_after=self.notify_after_failures,
        )


_MASS_MENTION = re.compile(r"@(everyone|here)\b|<@&\d+>", re.IGNORECASE)

# Invisible characters a reader can't see. Joiners (U+200C/D) and direction marks
# (U+200E/F) carry meaning (emoji sequences, Persian, Hebrew) and stay in a stored text;
# the rest carry none and are dropped. Checks and comparisons look past all of them.
_INVISIBLE = re.compile(r"[\u200b-\u200f\u2060\ufeff]")
_MEANINGLESS = re.compile(r"[\u200b\u2060\ufeff]")


def normalize_command(text: str) -> str:
    """Comparable form of a command for duplicate checks."""
    if text.isascii():
        # NFKC leaves ASCII as it is, casefold is lower() on it, and it has no invisibles.
        folded = text.lower()
    else:
        folded = _INVISIBLE.sub("", unicodedata.normalize("NFKC", text).casefold())
    # `split()` breaks on exactly the characters `\s` matches (str.isspace); joining with
    # one space is `re.sub(r"\s+", " ", …)` without the ends, which the strip drops anyway.
    return " ".join(folded.split()).strip(" .!")


# The control characters (Unicode category Cc: U+0000–U+001F and U+007F–U+009F) except
# tab and newline, in one pattern: a per-character category lookup was an eighth of an
# import's time.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def clean_command(text: str) -> str:
    """Strip the zero-width and control characters a command should never carry, keeping
    emoji joiners, non-joiners and direction marks where they are."""
    return _CONTROL.sub("", _MEANINGLESS.sub("", text)).strip()


# A set, for a hash lookup per job instead of the enum's tuple scan.
_KINDS = frozenset(JobKind.ALL)


def check_kind(kind: str) -> None:
    if isinstance(kind, str) and kind in _KINDS:
        return
    if kind not in JobKind.ALL:
        raise UserError(f"Unknown job kind {quoted(kind)}.")


class Guardrails:
    """The limits of one engine, and the per-person creation rate it has seen."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._rates: defaultdict[int, deque[datetime]] = defaultdict(deque)

    def schedule(self, schedule: Schedule, now: datetime) -> datetime:
        """Validate a schedule for a new job and return its first run."""
        limits = self.limits
        spec = schedule.spec
        if type(spec) is Once and spec.at.year < 9999:
            # A one-off's first run is its instant (the general path below says the same,
            # through the zone and an occurrence generator, at several times the cost; near
            # the calendar's end that path finds no run, so it keeps those).
            if schedule.until is not None and schedule.until <= now:
                raise ScheduleError("That end date is already in the past; pick a later `until`.")
            if spec.at <= now:
                raise ScheduleError("That time is already in the past; pick a time in the future.")
            at_utc = spec.at.astimezone(UTC)
            if schedule.until is not None and at_utc > schedule.until:
                raise ScheduleError("That schedule never runs again; check its end condition.")
            if at_utc - now > limits.max_horizon:
                years = limits.max_horizon.days // 365
                raise ScheduleError(
                    f"That is too far ahead; I can schedule up to {years} years out."
                )
            return at_utc
        if schedule.until is not None and schedule.until <= now:
            raise ScheduleError("That end date is already in the past; pick a later `until`.")
        if isinstance(schedule.spec, Once) and schedule.spec.at <= now:
            raise ScheduleError("That time is already in the past; pick a time in the future.")
        # A one-off may be due right now; a recurring job starts with its next slot.
        first = schedule.next_after(now) if schedule.is_recurring else schedule.first_run(now)
        if first is not None:
            # Engine times are UTC: an ambiguous local time never compares equal to anything.
            first = first.astimezone(UTC)
        if first is None:
            raise ScheduleError("That schedule never runs again; check its end condition.")
        if first - now > limits.max_horizon:
            years = limits.max_horizon.days // 365
            raise ScheduleError(f"That is too far ahead; I can schedule up to {years} years out.")
        if schedule.is_recurring:
            # The gap itself, whatever the end conditions leave of it.
            second = Schedule(schedule.spec, schedule.tz).next_after(first)
            if second is None or second.astimezone(UTC) - first > limits.max_horizon:
                years = limits.max_horizon.days // 365
                raise ScheduleError(
                    f"That repeats too rarely; runs can be at most {years} years apart."
                )
            gap = schedule.min_gap(now)
            if gap is not None and gap < limits.min_interval:
                secs = int(limits.min_interval.total_seconds())
                raise ScheduleError(
                    f"Runs must be at least {secs} seconds apart; try every {max(1, secs // 60)} "
                    "minutes or more."
                )
        return first

    def command(self, command: str) -> str:
        """The command as stored (cleaned), or a `UserError` saying what is wrong with it."""
        if command.isascii() and command.isprintable():
            # Printable ASCII has no control or invisible characters to strip.
            text = visible = command.strip()
        else:
            text = clean_command(command)
            visible = _INVISIBLE.sub("", text)  # a joiner or mark can't hide a tag or a ping
        if not visible.strip():
            raise UserError("Tell me what to do or remind you about, e.g. `call mom`.")
        if mentions_marker(visible):
            # Only the dispatcher writes the marker; a command carrying it could pose as a run.
            raise UserError("A job's text can't contain `[DELAYED_COMMAND]`; leave that tag out.")
        if "@" in visible and _MASS_MENTION.search(visible):
            raise UserError(
                "I don't schedule messages that ping @everyone, @here or a role; "
                "leave the mention out (I'll mention you myself)."
            )
        length, limit = message_size.size(text), self.limits.max_command_chars
        if length > limit:
            raise UserError(
                f"That text is {length:,} characters long; a job's text can be at most "
                f"{limit:,} characters (it has to fit in one Discord message with my own "
                "words). Shorten it and try again."
            )
        return text

    def snooze_until(self, until: datetime, now: datetime) -> None:
        if until <= now:
            raise UserError(
                "That time has already passed; pick one in the future, like `in 30 minutes`."
            )
        if until - now > self.limits.max_horizon:
            raise UserError("That is too far ahead to snooze to; pick a nearer time.")

    def quota(self, open_jobs: int) -> None:
        if open_jobs >= self.limits.max_jobs_per_user:
            raise LimitReached(
                f"You already have {open_jobs} scheduled jobs (the limit is "
                f"{self.limits.max_jobs_per_user}); cancel some with `/jobs cancel` first."
            )

    def rate(self, owner_id: int, now: datetime) -> None:
        """At most `creations_per_minute` new jobs a minute per person (a peek)."""
        window = self._rates[owner_id]
        while window and now - window[0] > timedelta(minutes=1):
            window.popleft()
        if len(window) >= self.limits.creations_per_minute:
            raise LimitReached(
                f"That's {len(window)} new jobs in the last minute; wait a moment and try again."
            )

    def count_creation(self, owner_id: int, now: datetime) -> None:
        self._rates[owner_id].append(now)

    def not_duplicate(self, rows: Iterable[JobKey], command: str, schedule: Schedule) -> None:
        self.not_duplicate_of(
            rows, normalize_command(command), spec_to_json(schedule.spec), schedule.tz
        )

    def not_duplicate_of(
        self, rows: Iterable[JobKey], wanted: str, spec: dict[str, Any], tz: str
    ) -> None:
        """`not_duplicate` for a command already normalised and a spec already in its
        stored form (an import has both at hand for every job)."""
        for row in rows:
            if row.tz == tz and row.schedule == spec and normalize_command(row.command) == wanted:
                raise UserError(
                    f"You already have this scheduled as job #{row.id}; "
                    f"use `/jobs edit {row.id}` to change it."
                )
