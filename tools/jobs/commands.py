"""What people (and the agent) do to jobs: create, import, read, list, cancel, pause,
resume, edit, run now, move to another zone, join a broadcast.

Every change is a compare-and-set: the job is read, the change planned from it, and
written only if the job is still as read (a claim, a run or someone else's change
meanwhile means: read again, plan afresh). New jobs are checked against their owner's
open jobs the same way, so two creations can't both slip under a limit.
"""

from __future__ import annotations

from collections import OrderedDict, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, NamedTuple

from storage.jobs import GUARDED, Changed, Job, JobKey, JobStore, Run
from storage.models import JobKind, JobStatus
from storage.prepared import collection_paused
from tools.audience import MAX_JOINED, Audience
from tools.errors import JobNotFound, LimitReached, NotAllowed, UserError
from tools.jobs.limits import Guardrails, Limits, check_kind, normalize_command
from tools.jobs.model import Actor, Clock, FollowUpState, Target, Waker, schedule_of
from tools.schedule import Every, Once, Schedule, spec_to_json, zone

_CHANGE_ATTEMPTS = 5
RUN_NOW_QUIET = timedelta(seconds=60)
_ONE_OFF_KINDS = (JobKind.DELAYED, JobKind.SCHEDULED, JobKind.REMINDER, JobKind.CALLBACK)


@dataclass(frozen=True)
class NewJob:
    """One job to create, as `create` and `create_many` take it."""

    target: Target
    command: str
    schedule: Schedule
    kind: str
    created_by: str = "user"
    follow_up: dict[str, Any] | None = None
    meta: dict[str, Any] | None = None
    audience: Audience | None = None
    # An exported job restored as it was (`restore`): its state, next run and runs done.
    status: str = JobStatus.ACTIVE
    next_run_at: datetime | None = None
    run_count: int = 0
    created_at: datetime | None = None


class SeenOpenJobs:
    """Each owner's open jobs as this engine last saw them stored, for the limit checks
    of their next creation. Only a hint: a creation is stored only if the owner's open
    jobs are still exactly these (else storage hands back the real ones), so a stale
    entry costs a retry, never a wrong job. Bounded: the least recently used go first.
    """

    def __init__(self, owners: int = 4096) -> None:
        self.owners = owners
        self._keys: OrderedDict[int, list[JobKey]] = OrderedDict()

    def get(self, owners: Sequence[int]) -> dict[int, list[JobKey]]:
        found = {}
        for owner in owners:
            keys = self._keys.get(owner)
            if keys is not None:
                self._keys.move_to_end(owner)
                found[owner] = keys
        return found

    def saw(self, keys: dict[int, list[JobKey]]) -> None:
        for owner, owned in keys.items():
            self._keys[owner] = list(owned)
            self._keys.move_to_end(owner)
        while len(self._keys) > self.owners:
            self._keys.popitem(last=False)

    def forget(self, owners: Sequence[int]) -> None:
        for owner in owners:
            self._keys.pop(owner, None)


class _Checked(NamedTuple):
    """A new job that passed the guardrails: its stored text and its row (a tuple: an
    import builds tens of thousands)."""

    job: NewJob
    text: str
    row: dict[str, Any]


def _row(job: NewJob, text: str, first: datetime, now: datetime) -> dict[str, Any]:
    """The one builder of a new `jobs` row."""
    target, schedule = job.target, job.schedule
    return {
        "owner_id": target.owner_id,
        "guild_id": target.guild_id,
        "channel_id": target.channel_id,
        "parent_channel_id": target.parent_channel_id,
        "command": text,
        "kind": job.kind,
        "schedule": spec_to_json(schedule.spec),
        "tz": schedule.tz,
        "status": job.status,
        "fail_reason": None,
        "created_by": job.created_by,
        "created_at": job.created_at or now,
        "updated_at": now,
        "next_run_at": job.next_run_at.astimezone(UTC) if job.next_run_at is not None else first,
        "claimed_slot": None,
        "run_count": max(0, job.run_count),
        "failure_streak": 0,
        "until": schedule.until,
        "max_runs": schedule.max_runs,
        "follow_up": job.follow_up,
        "meta": job.meta,
        "audience": job.audience.to_json() if job.audience is not None else None,
    }


class JobCommands:
    """Create, read and change jobs (the commands' part of the engine)."""

    store: JobStore
    clock: Clock
    limits: Limits
    guard: Guardrails
    waker: Waker | None
    open_seen: SeenOpenJobs

    def _wake(self, at: datetime | None) -> None:
        if self.waker is not None and at is not None:
            self.waker.wake(at)

    # ------------------------------------------------------------ create

    def check_schedule(self, schedule: Schedule, now: datetime | None = None) -> datetime:
        """Validate a schedule for a new job and return its first run."""
        return self.guard.schedule(schedule, now or self.clock())

    def check_command(self, command: str) -> str:
        return self.guard.command(command)

    def _checked(self, job: NewJob, now: datetime) -> _Checked:
        check_kind(job.kind)
        text = self.guard.command(job.command)
        first = self.guard.schedule(job.schedule, now)
        return _Checked(job, text, _row(job, text, first, now))

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
    ) -> Job:
        """Validate and store a new active job, then wake the dispatcher.

        `allow_duplicate`: the owner chose to keep an identical job alongside this one.
        """
        now = self.clock()
        new = NewJob(target, command, schedule, kind, created_by, follow_up, meta, audience)
        checked = self._checked(new, now)
        if check_limits:
            self.guard.rate(target.owner_id, now)
        job_id = await self._insert([checked], limits=check_limits, duplicates=not allow_duplicate)
        if check_limits:
            self.guard.count_creation(target.owner_id, now)
        self._wake(checked.row["next_run_at"])
        return Job(id=job_id, **checked.row)

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
    ) -> Job:
        """Store an exported job as it was (next run, runs done, paused or not).

        Validated like `create` (command, schedule, quota, duplicates) except the per-minute
        rate, which is for people, not for an operator restoring a file.
        """
        job = NewJob(
            target,
            command,
            schedule,
            kind,
            created_by,
            follow_up,
            meta,
            audience,
            status=status,
            next_run_at=next_run_at,
            run_count=run_count,
            created_at=created_at,
        )
        check_kind(kind)
        if status not in (JobStatus.ACTIVE, JobStatus.PAUSED):
            raise UserError(f"Only active or paused jobs can be imported, not {status!r}.")
        checked = self._checked(job, self.clock())
        job_id = await self._insert([checked], limits=True, duplicates=True)
        if status == JobStatus.ACTIVE:
            self._wake(checked.row["next_run_at"])
        return Job(id=job_id, **checked.row)

    async def create_many(self, jobs: Sequence[NewJob], *, check_limits: bool = True) -> int:
        """Validate and store many jobs in one transaction (an import); all or none.

        Each is checked as `create` checks it (kind, text, schedule; with `check_limits`,
        each owner's quota and duplicates, counting the batch itself); the first bad one
        is refused with its position, and nothing is stored. Returns how many were stored.
        """
        now = self.clock()
        batch: list[_Checked] = []
        with collection_paused():
            for n, job in enumerate(jobs, 1):
                try:
                    batch.append(self._checked(job, now))
                except UserError as exc:
                    raise type(exc)(f"Job {n} of {len(jobs)}: {exc}") from exc
            stored = await self._insert(
                batch, limits=check_limits, duplicates=True, numbered=True, many=True
            )
        firsts = [c.row["next_run_at"] for c in batch]
        self._wake(min(firsts) if firsts else None)
        return stored

    async def _insert(
        self,
        batch: Sequence[_Checked],
        *,
        limits: bool,
        duplicates: bool,
        numbered: bool = False,
        many: bool = False,
    ) -> int:
        """Store checked jobs (one, or a batch in one transaction) within their owners'
        quotas and without duplicates, checked against the owners' open jobs as stored.

        Returns the new job's id (one) or how many were stored (`many`)."""
        owners = list(dict.fromkeys(c.job.target.owner_id for c in batch))
        keys: dict[int, list[JobKey]] = {}
        fresh: set[int] = set()  # owners whose open jobs were read just now
        if limits:
            # Unknown owners are assumed to have no open jobs: storage refuses the creation
            # (and hands back their real open jobs) if they have any, so the common case of
            # a new owner costs one transaction and any other case one more.
            keys = {o: [] for o in owners} | self.open_seen.get(owners)
        for _ in range(_CHANGE_ATTEMPTS):
            expected = None
            if limits:
                try:
                    self._within_limits(keys, batch, duplicates=duplicates, numbered=numbered)
                except UserError:
                    remembered = [o for o in owners if o not in fresh]
                    if not remembered:
                        raise
                    # Refuse only on what is stored now, not on what this engine last saw.
                    now = await self.store.open_keys(remembered)
                    keys |= now
                    fresh.update(remembered)
                    self.open_seen.saw(now)
                    continue
                expected = {o: keys[o] for o in owners}
            rows = [c.row for c in batch]
            try:
                if many:
                    stored = await self.store.create_many(rows, expect_open=expected)
                    self.open_seen.forget(owners)  # their new ids are not known here
                    return stored
                new = await self.store.create_keyed(rows[0], expect_open=expected)
            except Changed as changed:
                # Another job of the owner came or went meanwhile: check again against
                # its open jobs as they are now.
                keys |= changed.open_keys
                fresh.update(changed.open_keys)
                self.open_seen.saw(changed.open_keys)
                continue
            if limits:
                self.open_seen.saw({owners[0]: [*keys[owners[0]], new]})
            return new.id
        raise UserError("Your jobs are changing right now; try again in a moment.")

    def _within_limits(
        self,
        keys: dict[int, list[JobKey]],
        batch: Sequence[_Checked],
        *,
        duplicates: bool,
        numbered: bool,
    ) -> None:
        """Each owner's quota and duplicates, counting the batch itself."""
        by_owner: dict[int, list[tuple[int, _Checked]]] = defaultdict(list)
        for n, checked in enumerate(batch, 1):
            by_owner[checked.job.target.owner_id].append((n, checked))
        for owner, items in by_owner.items():
            stored = keys.get(owner, [])
            seen: dict[tuple[str, str, str], int] = {}
            for count, (n, checked) in enumerate(items, len(stored)):
                row = checked.row
                # The stored text, normalised once for both checks (`checked.text` is it).
                wanted = normalize_command(row["command"])
                same = (wanted, repr(row["schedule"]), row["tz"])
                try:
                    self.guard.quota(count)
                    if duplicates:
                        self.guard.not_duplicate_of(stored, wanted, row["schedule"], row["tz"])
                        if same in seen:
                            raise UserError(f"It repeats job {seen[same]} of this import.")
                except UserError as exc:
                    if not numbered:
                        raise
                    raise type(exc)(f"Job {n} of {len(batch)}: {exc}") from exc
                seen[same] = n

    async def check_quota(self, owner_id: int) -> None:
        self.guard.quota(await self.store.count(owner_id=owner_id))

    def check_rate(self, owner_id: int, now: datetime | None = None) -> None:
        """At most `creations_per_minute` new jobs a minute per person (a peek; `create` counts)."""
        self.guard.rate(owner_id, now or self.clock())

    async def check_duplicate(self, owner_id: int, command: str, schedule: Schedule) -> None:
        keys = await self.store.open_keys([owner_id])
        self.guard.not_duplicate(keys[owner_id], command, schedule)

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

    async def history(self, job_id: int, actor: Actor | None = None, limit: int = 10) -> list[Run]:
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
                if not follow_up and FollowUpState.of(job).pending:
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
            state = FollowUpState.of(job)
            if state.run_now_at is not None and now - state.run_now_at < RUN_NOW_QUIET:
                raise UserError(
                    f"Job #{job_id} just ran on request (or is starting now); "
                    "run it again in a minute if you need to."
                )
            if job.next_run_at is not None and schedule_of(job).is_recurring:
                state = state.replace(resume_at=job.next_run_at)
            state = state.replace(run_now_at=now)
            return {"status": JobStatus.ACTIVE, "next_run_at": now, "meta": state.to_meta()}

        job = await self._change(job_id, actor, plan)
        self._wake(job.next_run_at)
        return job

    async def follow_zone(self, owner_id: int, old_tz: str, new_tz: str) -> tuple[int, int]:
        """Move the owner's open jobs read in `old_tz` to `new_tz`, keeping their wall-clock
        times ("09:00 Berlin" → "09:00 Tokyo"). Returns (moved, kept): a one-off whose new
        time would already be past, or a job being delivered right now, keeps its zone."""
        now = self.clock()
        jobs = await self.store.find(owner_id=owner_id, tz=old_tz, limit=1_000_000)
        moved, kept, wakes = 0, 0, []

        def plan(job: Job) -> dict[str, Any]:
            values = moved_zone(job, new_tz, now)
            if values is None:
                raise _Kept
            return values

        for found in jobs:
            try:
                job = await self._change(found.id, None, plan)
            except (_Kept, JobNotFound):
                kept += 1
                continue
            moved += 1
            if job.status == JobStatus.ACTIVE and job.next_run_at is not None:
                wakes.append(job.next_run_at)
        if wakes:
            self._wake(min(wakes))
        return moved, kept

    async def join_audience(self, job_id: int, user_id: int, *, present: bool) -> bool:
        """Add or remove someone who asked to be pinged on a job's next runs ("Notify me too").

        Only a job addressed to a channel or a role can be joined. Returns whether anything
        changed (False: already in, or already out)."""

        def plan(job: Job) -> dict[str, Any]:
            if job.status not in JobStatus.OPEN:
                raise JobNotFound("That reminder has no more runs to join.")
            audience = Audience.from_json(job.audience)
            if not audience.broadcast:
                raise UserError("Only reminders for a channel or a role can be joined.")
            if (user_id in audience.joined) == present:
                raise _Unchanged
            if present and len(audience.joined) >= MAX_JOINED:
                raise LimitReached(
                    f"{MAX_JOINED} people already asked to be notified; the owner can "
                    "address a role instead."
                )
            return {"audience": audience.with_joined(user_id, present=present).to_json()}

        try:
            await self._change(
                job_id, None, plan, missing="That reminder has no more runs to join."
            )
        except _Unchanged:
            return False
        return True

    async def _change(
        self,
        job_id: int,
        actor: Actor | None,
        plan: Callable[[Job], dict[str, Any]],
        *,
        missing: str | None = None,
    ) -> Job:
        """Apply `plan(job)` only if the job is still as `plan` saw it (compare-and-set).

        If it changed meanwhile (a run claimed or recorded, someone else's change), read
        it again and decide afresh: concurrent changes are serialized by the database, in
        one process or several.
        """
        for _ in range(_CHANGE_ATTEMPTS):
            if missing is not None:
                found = await self.store.get(job_id)
                if found is None:
                    raise JobNotFound(missing)
                job = found
            else:
                job = await self.get(job_id, actor)
            values = plan(job)
            values["updated_at"] = self.clock()
            seen = {key: getattr(job, key) for key in GUARDED}
            changed = await self.store.update_if(job_id, seen, values)
            if changed is not None:
                return changed
        raise UserError(f"Job #{job_id} is changing right now; try again in a moment.")


class _Kept(Exception):
    """A job that keeps its zone (see `follow_zone`)."""


class _Unchanged(Exception):
    """Nothing to change (see `join_audience`)."""


def moved_zone(job: Job, new_tz: str, now: datetime) -> dict[str, Any] | None:
    """A job's values read in `new_tz` at the same wall-clock times, or None when it keeps
    its zone (being delivered, or a one-off whose new time is already past)."""
    schedule = _in_zone(schedule_of(job), new_tz)
    if job.claimed_slot is not None:
        return None
    nxt = schedule.next_after(now, runs_done=job.run_count)
    if isinstance(schedule.spec, Once):
        nxt = schedule.spec.at if schedule.spec.at > now else None
    if nxt is None:
        return None
    values: dict[str, Any] = {"schedule": spec_to_json(schedule.spec), "tz": new_tz}
    if job.status == JobStatus.ACTIVE and not FollowUpState.of(job).pending:
        values["next_run_at"] = nxt.astimezone(UTC)
    return values


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
