"""The job engine: create, list, change and advance durable jobs.

Everything that makes or fires a job goes through `Engine`: tools, slash
commands, the console and the dispatcher. It validates input (raising
`UserError`s a person can act on), enforces limits and permissions, and owns
the rules for what happens after a run (advance, complete, catch up, retry).
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

from sqlalchemy import select
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from storage.jobs import Claim, JobKey, JobSnapshot, JobStore, JobView, Outcome, open_job_keys
from storage.models import Job, JobKind, JobRun, JobStatus, RunOutcome
from tools import followups, message_size
from tools.audience import MAX_JOINED, Audience
from tools.errors import JobNotFound, LimitReached, NotAllowed, UserError, quoted
from tools.schedule import (
    Every,
    Once,
    Schedule,
    ScheduleError,
    spec_from_json,
    spec_to_json,
    zone,
)

Clock = Callable[[], datetime]


def utcnow() -> datetime:
    return datetime.now(UTC)


class Waker(Protocol):
    """Whatever sleeps until the next job: told when an earlier one may exist."""

    def wake(self, at: datetime | None = None) -> None: ...


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


@dataclass(frozen=True)
class Actor:
    """Who is asking: people act on their own jobs, or on any job of their guild with
    Manage Messages."""

    user_id: int
    guild_id: int | None = None
    manage_messages: bool = False

    def may_manage(self, job: JobView) -> bool:
        if job.owner_id == self.user_id:
            return True
        return self.manage_messages and job.guild_id is not None and job.guild_id == self.guild_id


@dataclass(frozen=True)
class Target:
    """Where a job lives and whose it is."""

    owner_id: int
    channel_id: int
    guild_id: int | None = None
    parent_channel_id: int | None = None


@dataclass(frozen=True)
class NewJob:
    """One job to create in bulk (`Engine.create_many`), as `Engine.create` takes it."""

    target: Target
    command: str
    schedule: Schedule
    kind: str
    created_by: str = "user"
    follow_up: dict[str, Any] | None = None
    meta: dict[str, Any] | None = None


@dataclass(frozen=True)
class Decision:
    """What to do with a claimed run: deliver it (perhaps late) or skip missed slots."""

    deliver: bool
    slot: datetime
    late_by: timedelta
    skipped: int = 0
    catch_up: bool = False

    @property
    def late(self) -> bool:
        return self.late_by > timedelta(0)


@dataclass
class _RateWindow:
    stamps: deque[datetime] = field(default_factory=deque)


_MARKER_TEXT = re.compile(r"\[\s*DELAYED[_ ]COMMAND\s*\]", re.IGNORECASE)
_MASS_MENTION = re.compile(r"@(everyone|here)\b|<@&\d+>", re.IGNORECASE)


# Invisible characters a reader can't see. Joiners (U+200C/D) and direction marks
# (U+200E/F) carry meaning (emoji sequences, Persian, Hebrew) and stay in a stored text;
# the rest carry none and are dropped. Checks and comparisons look past all of them.
_INVISIBLE = re.compile(r"[\u200b-\u200f\u2060\ufeff]")
_MEANINGLESS = re.compile(r"[\u200b\u2060\ufeff]")


def normalize_command(text: str) -> str:
    """Comparable form of a command for duplicate checks."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return re.sub(r"\s+", " ", _INVISIBLE.sub("", folded)).strip(" .!")


def clean_command(text: str) -> str:
    """Strip the zero-width and control characters a command should never carry, keeping
    emoji joiners, non-joiners and direction marks where they are."""
    text = _MEANINGLESS.sub("", text)
    text = "".join(ch for ch in text if ch in "\n\t" or unicodedata.category(ch) != "Cc")
    return text.strip()


def schedule_of(job: JobView) -> Schedule:
    return Schedule(spec_from_json(job.schedule), job.tz, job.until, job.max_runs)


class Engine:
    """The durable job engine's API."""

    def __init__(
        self,
        store: JobStore,
        *,
        clock: Clock = utcnow,
        limits: Limits | None = None,
        waker: Waker | None = None,
    ) -> None:
        self.store = store
        self.clock = clock
        self.limits = limits or Limits()
        self.waker = waker
        self._rates: dict[int, _RateWindow] = defaultdict(_RateWindow)
        # Told (job as now, error) when a recurring job's failures reach the notify or
        # pause threshold; the chat surface tells the owner.
        self.failure_notices: list[Callable[[JobSnapshot, str], None]] = []

    # ------------------------------------------------------------ create

    def check_schedule(self, schedule: Schedule, now: datetime | None = None) -> datetime:
        """Validate a schedule for a new job and return its first run."""
        now = now or self.clock()
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
        if first - now > self.limits.max_horizon:
            years = self.limits.max_horizon.days // 365
            raise ScheduleError(f"That is too far ahead; I can schedule up to {years} years out.")
        if schedule.is_recurring:
            # The gap itself, whatever the end conditions leave of it.
            second = Schedule(schedule.spec, schedule.tz).next_after(first)
            if second is None or second.astimezone(UTC) - first > self.limits.max_horizon:
                years = self.limits.max_horizon.days // 365
                raise ScheduleError(
                    f"That repeats too rarely; runs can be at most {years} years apart."
                )
        if schedule.is_recurring:
            gap = schedule.min_gap(now)
            if gap is not None and gap < self.limits.min_interval:
                secs = int(self.limits.min_interval.total_seconds())
                raise ScheduleError(
                    f"Runs must be at least {secs} seconds apart; try every {max(1, secs // 60)} "
                    "minutes or more."
                )
        return first

    def check_command(self, command: str) -> str:
        text = clean_command(command)
        visible = _INVISIBLE.sub("", text)  # a joiner or mark can't hide a tag or a ping
        if not visible.strip():
            raise UserError("Tell me what to do or remind you about, e.g. `call mom`.")
        if _MARKER_TEXT.search(visible):
            # Only the dispatcher writes the marker; a command carrying it could pose as a run.
            raise UserError("A job's text can't contain `[DELAYED_COMMAND]`; leave that tag out.")
        if _MASS_MENTION.search(visible):
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

    async def create(
        self,
        *,
        target: Target,
        command: str,
        schedule: Schedule,
        kind: str,
        created_by: str = "user",
        follow_up: dict[str, Any] | None = None,
        meta: dict[str, Any] | None = None,
        check_limits: bool = True,
        allow_duplicate: bool = False,
        audience: Audience | None = None,
    ) -> JobSnapshot:
        """Validate and store a new active job, then wake the dispatcher.

        `allow_duplicate`: the owner chose to keep an identical job alongside this one.
        """
        if kind not in JobKind.ALL:
            raise UserError(f"Unknown job kind {quoted(kind)}.")
        now = self.clock()
        text = self.check_command(command)
        first = self.check_schedule(schedule, now)
        if check_limits:
            self._check_rate(target.owner_id, now)
        values: dict[str, Any] = {
            "owner_id": target.owner_id,
            "guild_id": target.guild_id,
            "channel_id": target.channel_id,
            "parent_channel_id": target.parent_channel_id,
            "command": text,
            "kind": kind,
            "schedule": spec_to_json(schedule.spec),
            "tz": schedule.tz,
            "status": JobStatus.ACTIVE,
            "fail_reason": None,
            "created_by": created_by,
            "created_at": now,
            "updated_at": now,
            "next_run_at": first,
            "claimed_slot": None,
            "run_count": 0,
            "failure_streak": 0,
            "until": schedule.until,
            "max_runs": schedule.max_runs,
            "follow_up": follow_up,
            "meta": meta,
            "audience": audience.to_json() if audience is not None else None,
        }

        def limits_hold(session: Connection) -> None:
            # In the insert's own transaction, so two creations can't both slip under a limit.
            rows = open_job_keys(session, target.owner_id)
            self._quota_ok(len(rows))
            if not allow_duplicate:
                self._not_duplicate(rows, text, schedule)

        job_id = await self.store.create(values, check=limits_hold if check_limits else None)
        if check_limits:
            self._rates[target.owner_id].stamps.append(now)
        self._wake(first)
        return JobSnapshot(id=job_id, **values)

    async def create_many(self, jobs: Sequence[NewJob], *, check_limits: bool = True) -> int:
        """Validate and store many jobs in one transaction (an import); all or none.

        Each is checked as `create` checks it (kind, text, schedule; with `check_limits`,
        each owner's quota and duplicates, counting the batch itself); the first bad one
        is refused with its position, and nothing is stored. Returns how many were stored.
        """
        now = self.clock()
        rows: list[dict[str, Any]] = []
        earliest: datetime | None = None
        for n, job in enumerate(jobs, 1):
            try:
                if job.kind not in JobKind.ALL:
                    raise UserError(f"Unknown job kind {job.kind!r}.")
                text = self.check_command(job.command)
                first = self.check_schedule(job.schedule, now)
            except UserError as exc:
                raise type(exc)(f"Job {n} of {len(jobs)}: {exc}") from exc
            earliest = first if earliest is None or first < earliest else earliest
            target = job.target
            rows.append(
                {
                    "owner_id": target.owner_id,
                    "guild_id": target.guild_id,
                    "channel_id": target.channel_id,
                    "parent_channel_id": target.parent_channel_id,
                    "command": text,
                    "kind": job.kind,
                    "schedule": spec_to_json(job.schedule.spec),
                    "tz": job.schedule.tz,
                    "status": JobStatus.ACTIVE,
                    "fail_reason": None,
                    "created_by": job.created_by,
                    "created_at": now,
                    "updated_at": now,
                    "next_run_at": first,
                    "claimed_slot": None,
                    "run_count": 0,
                    "failure_streak": 0,
                    "until": job.schedule.until,
                    "max_runs": job.schedule.max_runs,
                    "follow_up": job.follow_up,
                    "meta": job.meta,
                }
            )

        def limits_hold(conn: Connection) -> None:
            # In the insert's own transaction, like `create`; the batch counts too.
            by_owner: dict[int, list[tuple[int, NewJob, dict[str, Any]]]] = defaultdict(list)
            for n, (job, row) in enumerate(zip(jobs, rows, strict=True), 1):
                by_owner[job.target.owner_id].append((n, job, row))
            for owner, batch in by_owner.items():
                keys = open_job_keys(conn, owner)
                seen: dict[tuple[str, str, str], int] = {}
                for count, (n, job, row) in enumerate(batch, len(keys)):
                    same = (normalize_command(row["command"]), repr(row["schedule"]), row["tz"])
                    try:
                        self._quota_ok(count)
                        self._not_duplicate(keys, row["command"], job.schedule)
                        if same in seen:
                            raise UserError(f"It repeats job {seen[same]} of this import.")
                    except UserError as exc:
                        raise type(exc)(f"Job {n} of {len(jobs)}: {exc}") from exc
                    seen[same] = n

        stored = await self.store.create_many(rows, check=limits_hold if check_limits else None)
        self._wake(earliest)
        return stored

    async def restore(
        self,
        *,
        target: Target,
        command: str,
        schedule: Schedule,
        kind: str,
        status: str,
        next_run_at: datetime | None,
        run_count: int = 0,
        created_by: str = "user",
        follow_up: dict[str, Any] | None = None,
        meta: dict[str, Any] | None = None,
        created_at: datetime | None = None,
        audience: Audience | None = None,
    ) -> JobSnapshot:
        """Store an exported job as it was (next run, runs done, paused or not).

        Validated like `create` (command, schedule, quota, duplicates) except the per-minute
        rate, which is for people, not for an operator restoring a file.
        """
        if kind not in JobKind.ALL:
            raise UserError(f"Unknown job kind {kind!r}.")
        if status not in (JobStatus.ACTIVE, JobStatus.PAUSED):
            raise UserError(f"Only active or paused jobs can be imported, not {status!r}.")
        now = self.clock()
        text = self.check_command(command)
        first = self.check_schedule(schedule, now)
        nxt = next_run_at.astimezone(UTC) if next_run_at is not None else first
        values: dict[str, Any] = {
            "owner_id": target.owner_id,
            "guild_id": target.guild_id,
            "channel_id": target.channel_id,
            "parent_channel_id": target.parent_channel_id,
            "command": text,
            "kind": kind,
            "schedule": spec_to_json(schedule.spec),
            "tz": schedule.tz,
            "status": status,
            "fail_reason": None,
            "created_by": created_by,
            "created_at": created_at or now,
            "updated_at": now,
            "next_run_at": nxt,
            "claimed_slot": None,
            "run_count": max(0, run_count),
            "failure_streak": 0,
            "until": schedule.until,
            "max_runs": schedule.max_runs,
            "follow_up": follow_up,
            "meta": meta,
            "audience": audience.to_json() if audience is not None else None,
        }

        def limits_hold(session: Connection) -> None:
            rows = open_job_keys(session, target.owner_id)
            self._quota_ok(len(rows))
            self._not_duplicate(rows, text, schedule)

        job_id = await self.store.create(values, check=limits_hold)
        if status == JobStatus.ACTIVE:
            self._wake(nxt)
        return JobSnapshot(id=job_id, **values)

    async def check_quota(self, owner_id: int) -> None:
        self._quota_ok(await self.store.count(owner_id=owner_id))

    def _quota_ok(self, open_jobs: int) -> None:
        if open_jobs >= self.limits.max_jobs_per_user:
            raise LimitReached(
                f"You already have {open_jobs} scheduled jobs (the limit is "
                f"{self.limits.max_jobs_per_user}); cancel some with `/jobs cancel` first."
            )

    def check_rate(self, owner_id: int, now: datetime | None = None) -> None:
        """At most `creations_per_minute` new jobs a minute per person (a peek; `create` counts)."""
        self._check_rate(owner_id, now or self.clock())

    def _check_rate(self, owner_id: int, now: datetime) -> None:
        window = self._rates[owner_id].stamps
        while window and now - window[0] > timedelta(minutes=1):
            window.popleft()
        if len(window) >= self.limits.creations_per_minute:
            raise LimitReached(
                f"That's {len(window)} new jobs in the last minute; wait a moment and try again."
            )

    async def check_duplicate(self, owner_id: int, command: str, schedule: Schedule) -> None:
        rows = await self.store.transact(lambda session: open_job_keys(session, owner_id))
        self._not_duplicate(rows, command, schedule)

    def _not_duplicate(self, rows: list[JobKey], command: str, schedule: Schedule) -> None:
        wanted = normalize_command(command)
        spec = spec_to_json(schedule.spec)
        for row in rows:
            if (
                normalize_command(row.command) == wanted
                and row.schedule == spec
                and (row.tz == schedule.tz)
            ):
                raise UserError(
                    f"You already have this scheduled as job #{row.id}; "
                    f"use `/jobs edit {row.id}` to change it."
                )

    # ------------------------------------------------------------ read

    async def get(self, job_id: int, actor: Actor | None = None) -> Job:
        job = await self.store.get(job_id)
        if job is None:
            raise JobNotFound(f"There is no job #{job_id}; `/jobs list` shows yours.")
        if actor is not None and not actor.may_manage(job):
            raise NotAllowed(f"Job #{job_id} isn't yours, so you can't change or see it.")
        return job

    async def list_jobs(
        self,
        *,
        owner_id: int | None = None,
        channel_id: int | None = None,
        guild_id: int | None = None,
        include_closed: bool = False,
        limit: int = 100,
        offset: int = 0,
    ) -> list[Job]:
        return await self.store.find(
            owner_id=owner_id,
            channel_id=channel_id,
            guild_id=guild_id,
            statuses=None if include_closed else JobStatus.OPEN,
            limit=limit,
            offset=offset,
        )

    async def history(
        self, job_id: int, actor: Actor | None = None, limit: int = 10
    ) -> list[JobRun]:
        await self.get(job_id, actor)
        return await self.store.runs(job_id, limit=limit)

    # ------------------------------------------------------------ change

    async def cancel(self, job_id: int, actor: Actor | None = None) -> Job:
        def plan(job: Job) -> dict[str, Any]:
            if job.status not in JobStatus.OPEN:
                raise UserError(f"Job #{job_id} is already {job.status}.")
            return {"status": JobStatus.CANCELLED, "next_run_at": None}

        return await self._change(job_id, actor, plan)

    async def pause(self, job_id: int, actor: Actor | None = None) -> Job:
        def plan(job: Job) -> dict[str, Any]:
            if job.status != JobStatus.ACTIVE:
                raise UserError(f"Job #{job_id} is {job.status}, so it can't be paused.")
            return {"status": JobStatus.PAUSED}

        return await self._change(job_id, actor, plan)

    async def resume(self, job_id: int, actor: Actor | None = None) -> Job:
        def plan(job: Job) -> dict[str, Any]:
            if job.status != JobStatus.PAUSED:
                raise UserError(f"Job #{job_id} is {job.status}, not paused.")
            now = self.clock()
            schedule = schedule_of(job)
            nxt = job.next_run_at if job.claimed_slot is not None else None
            if nxt is None:
                nxt = schedule.next_after(now, runs_done=job.run_count)
                if nxt is None and isinstance(schedule.spec, Once):
                    # a paused one-off that came due while paused runs now, marked late (its slot)
                    nxt = min(schedule.spec.at, now)
            if nxt is None:
                raise UserError(f"Job #{job_id} has no runs left; create a new one instead.")
            return {
                "status": JobStatus.ACTIVE,
                "next_run_at": nxt.astimezone(UTC),
                "failure_streak": 0,
                "fail_reason": None,
            }

        job = await self._change(job_id, actor, plan)
        self._wake(job.next_run_at)
        return job

    async def update(
        self,
        job_id: int,
        actor: Actor | None = None,
        *,
        command: str | None = None,
        schedule: Schedule | None = None,
        audience: Audience | None = None,
        follow_up: dict[str, Any] | None = None,
    ) -> Job:
        """Change what was given. `audience` was checked against Discord by the caller (as
        for `create`); `follow_up` is the new nagging config, `{}` to stop nagging."""

        def plan(job: Job) -> dict[str, Any]:
            if job.status not in JobStatus.OPEN:
                raise UserError(
                    f"Job #{job_id} is {job.status}; only scheduled jobs can be edited."
                )
            values: dict[str, Any] = {}
            if command is not None:
                values["command"] = self.check_command(command)
            if audience is not None:
                values["audience"] = None if audience.is_default else audience.to_json()
            if follow_up is not None:
                if not follow_up and followups.pending(job):
                    raise UserError(
                        f"Reminder #{job_id} is waiting for an answer; press Done first, "
                        "then turn its follow-ups off."
                    )
                values["follow_up"] = follow_up or None
            if schedule is not None:
                first = self.check_schedule(schedule)
                values.update(
                    schedule=spec_to_json(schedule.spec),
                    tz=schedule.tz,
                    until=schedule.until,
                    max_runs=schedule.max_runs,
                    run_count=0,
                )
                if job.claimed_slot is None:  # a run in flight advances onto the new schedule
                    values["next_run_at"] = first
                if isinstance(schedule.spec, Once) != (job.kind in _ONE_OFF_KINDS):
                    values["kind"] = _kind_for(schedule, job.kind)
            if not values:
                raise UserError("Nothing to change: give a new time, text or repeat.")
            return values

        job = await self._change(job_id, actor, plan)
        self._wake(job.next_run_at)
        return job

    async def run_now(self, job_id: int, actor: Actor | None = None) -> Job:
        """Fire a job now; a recurring job then continues on its schedule.

        Asked again within `RUN_NOW_QUIET` (a double click, two moderators, a client
        retry), it is refused: one request, one run.
        """

        def plan(job: Job) -> dict[str, Any]:
            if job.status not in (JobStatus.ACTIVE, JobStatus.PAUSED):
                raise UserError(f"Job #{job_id} is {job.status}, so it can't run.")
            if job.claimed_slot is not None:
                raise UserError(f"Job #{job_id} is being delivered right now.")
            now = self.clock()
            meta = dict(job.meta or {})
            last = meta.get(_RUN_NOW_AT)
            if last is not None and now - datetime.fromisoformat(last) < RUN_NOW_QUIET:
                raise UserError(
                    f"Job #{job_id} just ran on request (or is starting now); "
                    "run it again in a minute if you need to."
                )
            if job.next_run_at is not None and schedule_of(job).is_recurring:
                meta["resume_at"] = job.next_run_at.isoformat()
            meta[_RUN_NOW_AT] = now.isoformat()
            return {"status": JobStatus.ACTIVE, "next_run_at": now, "meta": meta}

        job = await self._change(job_id, actor, plan)
        self._wake(job.next_run_at)
        return job

    async def follow_zone(self, owner_id: int, old_tz: str, new_tz: str) -> tuple[int, int]:
        """Move the owner's open jobs read in `old_tz` to `new_tz`, keeping their wall-clock
        times ("09:00 Berlin" → "09:00 Tokyo"). Returns (moved, kept): a one-off whose new
        time would already be past, or a job being delivered right now, keeps its zone."""
        now = self.clock()

        def work(s: Session) -> tuple[int, int, list[datetime]]:
            rows = s.scalars(
                select(Job).where(
                    Job.owner_id == owner_id, Job.tz == old_tz, Job.status.in_(JobStatus.OPEN)
                )
            ).all()
            moved, kept, wakes = 0, 0, []
            for job in rows:
                schedule = _in_zone(schedule_of(job), new_tz)
                if job.claimed_slot is not None:
                    kept += 1
                    continue
                nxt = schedule.next_after(now, runs_done=job.run_count)
                if isinstance(schedule.spec, Once):
                    nxt = schedule.spec.at if schedule.spec.at > now else None
                if nxt is None:
                    kept += 1
                    continue
                job.schedule = spec_to_json(schedule.spec)
                job.tz = new_tz
                if job.status == JobStatus.ACTIVE and not followups.pending(job):
                    job.next_run_at = nxt.astimezone(UTC)
                    wakes.append(nxt)
                job.updated_at = now
                moved += 1
            return moved, kept, wakes

        moved, kept, wakes = await self.store.transact(work)
        if wakes:
            self._wake(min(wakes))
        return moved, kept

    async def join_audience(self, job_id: int, user_id: int, *, present: bool) -> bool:
        """Add or remove someone who asked to be pinged on a job's next runs ("Notify me too").

        Only a job addressed to a channel or a role can be joined. Returns whether anything
        changed (False: already in, or already out)."""

        def work(s: Session) -> bool:
            job = s.get(Job, job_id, with_for_update=self.store.db.is_postgres)
            if job is None or job.status not in JobStatus.OPEN:
                raise JobNotFound("That reminder has no more runs to join.")
            audience = Audience.from_json(job.audience)
            if not audience.broadcast:
                raise UserError("Only reminders for a channel or a role can be joined.")
            if (user_id in audience.joined) == present:
                return False
            if present and len(audience.joined) >= MAX_JOINED:
                raise LimitReached(
                    f"{MAX_JOINED} people already asked to be notified; the owner can "
                    "address a role instead."
                )
            job.audience = audience.with_joined(user_id, present=present).to_json()
            job.updated_at = self.clock()
            return True

        return await self.store.transact(work)

    async def _change(
        self, job_id: int, actor: Actor | None, plan: Callable[[Job], dict[str, Any]]
    ) -> Job:
        """Apply `plan(job)` only if the job is still as `plan` saw it (compare-and-set).

        If it changed meanwhile (a run claimed or recorded, someone else's change), read
        it again and decide afresh: concurrent changes are serialized by the database, in
        one process or several.
        """
        for _ in range(_CHANGE_ATTEMPTS):
            job = await self.get(job_id, actor)
            values = plan(job)
            values["updated_at"] = self.clock()
            seen = {key: getattr(job, key) for key in _GUARDED}
            changed = await self.store.update_if(job_id, seen, values)
            if changed is not None:
                return changed
        raise UserError(f"Job #{job_id} is changing right now; try again in a moment.")

    # ------------------------------------------------------------ reminder follow-ups

    async def awaiting_acknowledgement(self, channel_id: int, owner_id: int) -> list[Job]:
        """The owner's reminders in this thread still following up (waiting for an answer)."""
        jobs = await self.store.find(
            owner_id=owner_id, channel_id=channel_id, statuses=(JobStatus.ACTIVE, JobStatus.PAUSED)
        )
        return [job for job in jobs if followups.awaiting(job) is not None]

    async def acknowledge(
        self,
        job_id: int,
        user_id: int,
        *,
        how: str,
        run_id: int | None = None,
        note: dict[str, Any] | None = None,
    ) -> tuple[Job, bool]:
        """The owner saw the reminder (a message, or Done): end its follow-ups.

        One-off → completed; recurring → back to its next regular occurrence. Recorded on
        the run (`run_id`, else the latest delivered one). Returns the job and whether a
        cycle (or a pending snooze) was ended.
        """
        now = self.clock()
        record = {"how": how, "by": user_id, "at": now.isoformat(), **(note or {})}

        def work(s: Session) -> tuple[Job, bool]:
            job = self._own_reminder(s, job_id, user_id)
            _note_on_run(s, job, run_id, "acknowledged", record)
            if not followups.pending(job):
                return job, False
            meta = followups.without_cycle(job.meta)
            if job.claimed_slot is None:  # in flight, the run's own advance ends it
                resume = meta.pop("resume_at", None)
                schedule = schedule_of(job)
                nxt: datetime | None = None
                if schedule.is_recurring:
                    nxt = (
                        datetime.fromisoformat(resume)
                        if resume
                        else schedule.next_after(now, runs_done=job.run_count)
                    )
                job.next_run_at = nxt.astimezone(UTC) if nxt is not None else None
                if nxt is None and job.status == JobStatus.ACTIVE:
                    job.status = JobStatus.COMPLETED
            job.meta = meta or None
            job.updated_at = now
            return job, True

        return await self.store.transact(work)

    async def snooze(
        self,
        job_id: int,
        user_id: int,
        until: datetime,
        *,
        run_id: int | None = None,
        choice: str = "",
    ) -> Job:
        """Re-fire the reminder at `until` (a new slot, with a fresh follow-up cycle)."""
        now = self.clock()
        until = until.astimezone(UTC)
        if until <= now:
            raise UserError(
                "That time has already passed; pick one in the future, like `in 30 minutes`."
            )
        if until - now > self.limits.max_horizon:
            raise UserError("That is too far ahead to snooze to; pick a nearer time.")

        def work(s: Session) -> Job:
            job = self._own_reminder(s, job_id, user_id)
            if job.status in (JobStatus.CANCELLED, JobStatus.FAILED):
                raise UserError(
                    f"Reminder #{job_id} is {job.status}, so it can't be snoozed; "
                    "set a new one with `/remind`."
                )
            if job.claimed_slot is not None:
                raise UserError(
                    "That reminder is being delivered right now; try again in a moment."
                )
            schedule = schedule_of(job)
            meta = followups.without_cycle(job.meta)
            if schedule.is_recurring:
                resume = meta.get("resume_at")
                regular = datetime.fromisoformat(resume) if resume else job.next_run_at
                if regular is not None and regular <= until:
                    # Snoozed past the next occurrence: the snoozed one stands in for it.
                    regular = schedule.next_after(until, runs_done=job.run_count)
                if regular is not None:
                    meta["resume_at"] = regular.astimezone(UTC).isoformat()
                else:
                    meta.pop("resume_at", None)
            else:
                meta.pop("resume_at", None)
            meta[followups.SNOOZED] = {"by": user_id, "at": now.isoformat()}
            record = {"until": until.isoformat(), "choice": choice, "by": user_id}
            _note_on_run(s, job, run_id, "snoozed", record | {"at": now.isoformat()})
            job.meta = meta
            job.next_run_at = until
            if job.status == JobStatus.COMPLETED:
                job.status = JobStatus.ACTIVE
            job.updated_at = now
            return job

        job = await self.store.transact(work)
        self._wake(until)
        return job

    def _own_reminder(self, s: Session, job_id: int, user_id: int) -> Job:
        job = s.get(Job, job_id, with_for_update=self.store.db.is_postgres)
        if job is None:
            raise JobNotFound(f"Reminder #{job_id} no longer exists.")
        if job.owner_id != user_id:
            raise NotAllowed("This reminder isn't yours, so its buttons aren't for you.")
        return job

    def _wake(self, at: datetime | None) -> None:
        if self.waker is not None and at is not None:
            self.waker.wake(at)

    # ------------------------------------------------------------ dispatch side

    async def claim_due(
        self, *, limit: int, lease: timedelta, ahead: timedelta = timedelta(0)
    ) -> list[Claim]:
        """Claim jobs due now, or within `ahead` (to be fired exactly on time)."""
        return await self.store.claim_due(self.clock(), limit=limit, lease=lease, ahead=ahead)

    async def next_due(self) -> datetime | None:
        return await self.store.earliest_due()

    def decide(self, claim: Claim, now: datetime | None = None) -> Decision:
        """Deliver on time, deliver late, catch up once, or skip missed recurring slots."""
        now = now or self.clock()
        job, slot = claim.job, claim.slot
        late_by = max(now - slot, _ZERO)
        meta = job.meta or {}
        if claim.run.kind == followups.FOLLOW_UP_RUN and followups.stale(
            job, now, self.limits.follow_up_window
        ):
            return Decision(False, slot, late_by, skipped=1)
        if (
            late_by <= self.limits.late_after
            or not schedule_of(job).is_recurring
            or "resume_at" in meta
        ):
            return Decision(True, slot, late_by if late_by > self.limits.late_after else _ZERO)
        schedule = schedule_of(job)
        newest, missed = _newest_missed(schedule, slot, now)
        # Compare instants in UTC: two times in the same zone subtract as wall clocks.
        newest = newest.astimezone(UTC)
        following = schedule.next_after(newest)
        following = following.astimezone(UTC) if following is not None else None
        period = (following - newest) if following else timedelta(hours=4)
        grace = min(max(period / 2, timedelta(minutes=2)), timedelta(hours=2))
        if now - newest <= grace:
            return Decision(True, newest, now - newest, skipped=missed - 1, catch_up=True)
        return Decision(False, newest, now - newest, skipped=missed)

    def skipped(self, claim: Claim, decision: Decision) -> Outcome:
        """Missed slots of a recurring job: record them and move to its next slot."""
        now = self.clock()

        def advance(job: JobSnapshot) -> dict[str, Any]:
            nxt = schedule_of(job).next_after(now, runs_done=job.run_count)
            return _advance_values(job, nxt, now, counted=False)

        details = {
            "skipped": decision.skipped,
            "first_missed": claim.slot.isoformat(),
            "last_missed": decision.slot.isoformat(),
            "reason": "the bot was offline",
        }
        return Outcome(claim, {"outcome": RunOutcome.SKIPPED, "details": details}, advance)

    def delivered(
        self,
        claim: Claim,
        decision: Decision,
        *,
        message_id: int | None,
        details: dict[str, Any] | None = None,
    ) -> Outcome:
        """A run reached its thread (or a fallback): record it and advance the job."""
        now = self.clock()
        run_details = dict(claim.run.details or {})
        run_details.update(details or {})
        if decision.catch_up:
            run_details.update(catch_up=True, skipped=decision.skipped)
        run_details.update(followups.run_details(claim))
        counted = followups.counts_as_occurrence(claim)

        def advance(job: JobSnapshot) -> dict[str, Any]:
            nxt = self._next_after_run(job, decision.slot, now, counted=counted)
            values = _advance_values(job, nxt, now, counted=counted) | {"failure_streak": 0}
            if followups.escalated_meta(claim):  # once per occurrence, kept on the job
                values["meta"] = (values["meta"] or {}) | followups.escalated_meta(claim)
            cycle = followups.next_follow_up(claim, job, now, nxt, self.limits.follow_up_window)
            if cycle is not None and job.status == JobStatus.ACTIVE:
                # Not acknowledged yet: the job stays active for its next follow-up.
                at, extra = cycle
                values.update(next_run_at=at, meta=(values["meta"] or {}) | extra)
                values.pop("status", None)
            return values

        run_values = {
            "outcome": RunOutcome.DELIVERED,
            "delivered_at": now,
            "message_id": message_id,
            "lateness_ms": int(decision.late_by.total_seconds() * 1000),
            "error": None,
            "details": run_details or None,
        }
        return Outcome(claim, run_values, advance)

    def _next_after_run(
        self, job: JobSnapshot, slot: datetime, now: datetime, *, counted: bool = True
    ) -> datetime | None:
        resume_at = (job.meta or {}).get("resume_at")
        if resume_at is not None:
            return datetime.fromisoformat(resume_at)
        return schedule_of(job).next_after(
            max(slot, now - self.limits.late_after), runs_done=job.run_count + int(counted)
        )

    def failed(
        self, claim: Claim, error: str, *, retryable: bool
    ) -> tuple[Outcome, datetime | None]:
        """A failed attempt: retry later (same run and nonce) or give up on this run."""
        now = self.clock()
        run = claim.run
        first = run.claimed_at or now
        errors = list((run.details or {}).get("errors", []))
        errors.append({"at": now.isoformat(), "attempt": run.attempt, "error": error[:500]})
        details = dict(run.details or {}) | {"errors": errors[-20:]}
        if retryable and now - first < self.limits.retry_window:
            backoff = timedelta(seconds=min(2 ** min(run.attempt, 8), 300))
            retry_at = min(now + backoff, first + self.limits.retry_window)
            retry = Outcome(
                claim,
                {"error": error[:2000], "details": details},
                lambda job: {"next_run_at": retry_at},
                release=False,
            )
            return retry, retry_at

        def advance(job: JobSnapshot) -> dict[str, Any]:
            streak = job.failure_streak + 1
            sched = schedule_of(job)
            if not sched.is_recurring:
                return {
                    "status": JobStatus.FAILED if job.status == JobStatus.ACTIVE else job.status,
                    "next_run_at": None,
                    "fail_reason": error[:2000],
                    "failure_streak": streak,
                    "updated_at": now,
                }
            nxt = sched.next_after(now, runs_done=job.run_count)
            values = _advance_values(job, nxt, now, counted=False) | {"failure_streak": streak}
            if streak >= self.limits.pause_after_failures and job.status == JobStatus.ACTIVE:
                values.update(
                    status=JobStatus.PAUSED,
                    fail_reason=f"paused after {streak} failed runs in a row: {error[:300]}",
                )
            return values

        run_values = {"outcome": RunOutcome.FAILED, "error": error[:2000], "details": details}
        return Outcome(claim, run_values, advance), None

    async def record(self, outcomes: Sequence[Outcome]) -> dict[int, JobSnapshot | None]:
        """Write finished runs and advance their jobs in one transaction; wake for what's next."""
        if not outcomes:
            return {}
        jobs = await self.store.finish(outcomes)
        for o in outcomes:
            if o.run_values.get("outcome") == RunOutcome.FAILED:
                self._notice(jobs.get(o.claim.job.id), str(o.run_values.get("error") or ""))
        upcoming = [
            j.next_run_at
            for j in jobs.values()
            if j is not None and j.status == JobStatus.ACTIVE and j.next_run_at is not None
        ]
        if upcoming:
            self._wake(min(upcoming))
        return jobs

    def _notice(self, job: JobSnapshot | None, error: str) -> None:
        if job is None or not schedule_of(job).is_recurring:
            return
        streak, limits = job.failure_streak, self.limits
        paused = job.status == JobStatus.PAUSED and streak == limits.pause_after_failures
        if streak == limits.notify_after_failures or paused:
            for notice in self.failure_notices:
                notice(job, error)


_ZERO = timedelta(0)
# What a change compares before writing: any claim, run or other change moves one of them.
_GUARDED = ("status", "claimed_slot", "next_run_at", "run_count", "updated_at")
_CHANGE_ATTEMPTS = 5
_RUN_NOW_AT = "run_now_at"
RUN_NOW_QUIET = timedelta(seconds=60)
_ONE_OFF_KINDS = (JobKind.DELAYED, JobKind.SCHEDULED, JobKind.REMINDER, JobKind.CALLBACK)


def _in_zone(schedule: Schedule, tz: str) -> Schedule:
    """The same wall-clock schedule read in another zone."""
    here, there = zone(schedule.tz), zone(tz)

    def wall(at: datetime) -> datetime:
        return at.astimezone(here).replace(tzinfo=there)

    spec = schedule.spec
    if isinstance(spec, Once):
        spec = Once(wall(spec.at))
    elif isinstance(spec, Every) and spec.whole_days:
        spec = Every(spec.seconds, wall(spec.anchor))
    # RRule and Cron are already wall-clock patterns; a sub-daily interval is zone-free.
    return Schedule(spec, tz, schedule.until, schedule.max_runs)


def _kind_for(schedule: Schedule, current: str) -> str:
    if isinstance(schedule.spec, Once):
        return JobKind.REMINDER if current == JobKind.REMINDER else JobKind.SCHEDULED
    if current in (JobKind.REMINDER, JobKind.HEARTBEAT):
        return current
    return JobKind.INTERVAL if isinstance(schedule.spec, Every) else JobKind.RECURRING


def _advance_values(
    job: JobSnapshot, nxt: datetime | None, now: datetime, *, counted: bool
) -> dict[str, Any]:
    # Any advance ends a follow-up cycle; `delivered` starts the next one explicitly.
    meta = followups.without_cycle(job.meta)
    meta.pop("resume_at", None)
    nxt = nxt.astimezone(UTC) if nxt is not None else None
    values: dict[str, Any] = {
        "updated_at": now,
        "meta": meta or None,
        "run_count": job.run_count + (1 if counted else 0),
    }
    # `job` is the row as it is now: a pause keeps its next slot for resuming; a cancel
    # (or anything else that closed it meanwhile) is left closed.
    if job.status == JobStatus.ACTIVE:
        values["next_run_at"] = nxt
        if nxt is None:
            values["status"] = JobStatus.COMPLETED
    elif job.status == JobStatus.PAUSED:
        values["next_run_at"] = nxt
    else:
        values["next_run_at"] = None
    return values


def _newest_missed(schedule: Schedule, slot: datetime, now: datetime) -> tuple[datetime, int]:
    """The latest slot at or before `now`, counting from `slot`, and how many were missed."""
    spec = schedule.spec
    if isinstance(spec, Every) and not spec.whole_days:
        step = timedelta(seconds=spec.seconds)
        # Never past `until`: a catch-up must not deliver a slot the schedule no longer has.
        end = now if schedule.until is None else max(slot, min(now, schedule.until))
        k = int((end - slot) // step)
        return slot + k * step, k + 1
    newest, count = slot, 1
    cursor = slot
    for _ in range(100_000):
        nxt = Schedule(spec, schedule.tz, schedule.until).next_after(cursor)
        if nxt is None or nxt > now:
            break
        newest, count, cursor = nxt, count + 1, nxt
    return newest, count


def _note_on_run(
    s: Session, job: Job, run_id: int | None, key: str, record: dict[str, Any]
) -> None:
    """Record a Done, Snooze or acknowledging message on the run it answers."""
    run: JobRun | None = None
    if run_id is not None:
        run = s.get(JobRun, run_id)
        if run is not None and run.job_id != job.id:
            run = None
    if run is None:
        run = s.scalar(
            select(JobRun)
            .where(JobRun.job_id == job.id, JobRun.delivered_at.is_not(None))
            .order_by(JobRun.delivered_at.desc())
            .limit(1)
        )
    if run is not None:
        # A new dict: JSON columns only notice re-assignment.
        run.details = {**(run.details or {}), key: record}
