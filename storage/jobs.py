"""Job and run queries, including the atomic claim of due jobs.

Every method is one transaction and one await (`Database.run`), so the hot paths
(create, claim, record) stay fast on SQLite's single writer.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any, TypeVar

from sqlalchemy import bindparam, case, func, insert, select, update
from sqlalchemy.orm import Session

from storage.db import Database
from storage.models import Job, JobRun, JobStatus, RunOutcome

T = TypeVar("T")


def run_nonce(job_id: int, slot: datetime, kind: str = "run") -> str:
    """A stable nonce (<= 25 chars) for one job slot, so a re-sent marker is de-duplicated."""
    tag = "f" if kind == "follow_up" else "r"
    return f"{tag}{job_id:x}.{int(slot.timestamp() * 1000):x}"[:25]


@dataclass(frozen=True, slots=True)
class JobSnapshot:
    """A job row as read by the dispatcher: plain values, cheap to build in bulk."""

    id: int
    owner_id: int
    guild_id: int | None
    channel_id: int
    parent_channel_id: int | None
    command: str
    kind: str
    schedule: dict[str, Any]
    tz: str
    status: str
    fail_reason: str | None
    created_by: str
    created_at: datetime
    updated_at: datetime
    next_run_at: datetime | None
    claimed_slot: datetime | None
    run_count: int
    failure_streak: int
    until: datetime | None
    max_runs: int | None
    follow_up: dict[str, Any] | None
    meta: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class RunSnapshot:
    """The run a claim is delivering (new, or resumed after a crash or a failed attempt)."""

    id: int
    nonce: str
    kind: str
    attempt: int
    claimed_at: datetime | None
    details: dict[str, Any] | None


@dataclass(frozen=True)
class Claim:
    """A due job this process now owns until `lease_until`, and the run it is delivering."""

    job: JobSnapshot
    run: RunSnapshot
    slot: datetime
    lease_until: datetime


_JOB_COLUMNS = [Job.__table__.c[f] for f in JobSnapshot.__slots__]
_RUN_COLUMNS = [JobRun.__table__.c[f] for f in RunSnapshot.__slots__]


@dataclass(frozen=True)
class Outcome:
    """How to record one finished run: values for the run, and how to advance its job.

    `advance(job)` is called with the job as it is *now* in the database (it may have
    been edited, paused or cancelled while the run was in flight) and returns the
    job's new values, or None to leave it alone.
    """

    claim: Claim
    run_values: dict[str, Any]
    advance: Callable[[JobSnapshot], dict[str, Any] | None]
    # False for a retry: the job stays claimed for this slot, to resume the same run.
    release: bool = True


@dataclass(frozen=True)
class JobKey:
    """What duplicate and quota checks compare for one open job."""

    id: int
    command: str
    schedule: dict[str, Any]
    tz: str


def open_job_keys(s: Session, owner_id: int) -> builtins.list[JobKey]:
    """One owner's open jobs, for limit checks inside a creating transaction."""
    q = select(Job.id, Job.command, Job.schedule, Job.tz).where(
        Job.owner_id == owner_id, Job.status.in_(JobStatus.OPEN)
    )
    return [JobKey(*row) for row in s.execute(q).all()]


class JobStore:
    """Persistence for jobs and job runs."""

    def __init__(self, db: Database) -> None:
        self.db = db

    # ------------------------------------------------------------ reads

    async def get(self, job_id: int) -> Job | None:
        return await self.db.run(lambda s: s.get(Job, job_id))

    async def find(
        self,
        *,
        owner_id: int | None = None,
        channel_id: int | None = None,
        guild_id: int | None = None,
        statuses: Sequence[str] | None = JobStatus.OPEN,
        limit: int = 100,
        offset: int = 0,
    ) -> builtins.list[Job]:
        q = select(Job)
        if owner_id is not None:
            q = q.where(Job.owner_id == owner_id)
        if channel_id is not None:
            q = q.where(Job.channel_id == channel_id)
        if guild_id is not None:
            q = q.where(Job.guild_id == guild_id)
        if statuses is not None:
            q = q.where(Job.status.in_(list(statuses)))
        q = q.order_by(Job.next_run_at.is_(None), Job.next_run_at, Job.id).limit(limit).offset(offset)
        return await self.db.run(lambda s: list(s.scalars(q).all()))

    async def count(self, *, owner_id: int, statuses: Sequence[str] = JobStatus.OPEN) -> int:
        q = select(func.count(Job.id)).where(Job.owner_id == owner_id, Job.status.in_(statuses))
        return await self.db.run(lambda s: int(s.scalar(q) or 0))

    async def count_by_status(self) -> dict[str, int]:
        q = select(Job.status, func.count(Job.id)).group_by(Job.status)
        return await self.db.run(lambda s: {str(k): int(v) for k, v in s.execute(q).all()})

    async def runs(self, job_id: int, *, limit: int = 10) -> builtins.list[JobRun]:
        q = (
            select(JobRun)
            .where(JobRun.job_id == job_id)
            .order_by(JobRun.scheduled_for.desc(), JobRun.id.desc())
            .limit(limit)
        )
        return await self.db.run(lambda s: list(s.scalars(q).all()))

    async def run_by_nonce(self, nonce: str) -> JobRun | None:
        q = select(JobRun).where(JobRun.nonce == nonce)
        return await self.db.run(lambda s: s.scalar(q))

    async def earliest_due(self) -> datetime | None:
        """When the next active job (or an expired claim) comes due; an indexed MIN."""
        q = select(func.min(Job.next_run_at)).where(Job.status == JobStatus.ACTIVE)
        return await self.db.run(lambda s: s.scalar(q))

    async def unexecuted_nonces(
        self, now: datetime, within: timedelta = timedelta(days=1)
    ) -> builtins.list[str]:
        """Nonces of runs delivered recently but never re-fed (their echo was lost in a crash)."""
        q = (
            select(JobRun.nonce)
            .where(
                JobRun.delivered_at.is_not(None),
                JobRun.delivered_at >= now - within,
                JobRun.executed_at.is_(None),
            )
            .order_by(JobRun.delivered_at)
        )
        return await self.db.run(lambda s: [str(n) for n in s.scalars(q).all()])

    # ------------------------------------------------------------ writes

    async def insert(
        self, job: Job, *, check: Callable[[Session], None] | None = None
    ) -> Job:
        """Store a new job; `check(session)` runs first in the same transaction and may raise."""

        def work(s: Session) -> Job:
            if check is not None:
                check(s)
            s.add(job)
            s.flush()
            return job

        return await self.db.run(work)

    async def update(self, job_id: int, **values: Any) -> Job | None:
        def work(s: Session) -> Job | None:
            job = s.get(Job, job_id, with_for_update=self.db.is_postgres)
            if job is None:
                return None
            for key, value in values.items():
                setattr(job, key, value)
            return job

        return await self.db.run(work)

    async def transact(self, work: Callable[[Session], T]) -> T:
        """Run engine logic that needs several statements in one transaction."""
        return await self.db.run(work)

    async def add_run(self, run: JobRun) -> JobRun:
        def work(s: Session) -> JobRun:
            s.add(run)
            s.flush()
            return run

        return await self.db.run(work)

    async def claim_due(self, now: datetime, *, limit: int, lease: timedelta) -> builtins.list[Claim]:
        """Atomically take up to `limit` due jobs, each with its (new or resumed) run row.

        While claimed, a job's `next_run_at` is the lease expiry: if this process
        dies, the job comes due again then and is resumed with the same run and
        nonce, so the transport can de-duplicate the re-delivery.
        """
        expiry = now + lease
        jobs = Job.__table__
        due = (
            select(jobs.c.id)
            .where(jobs.c.status == JobStatus.ACTIVE, jobs.c.next_run_at <= now)
            .order_by(jobs.c.next_run_at)
            .limit(limit)
        )
        if self.db.is_postgres:
            due = due.with_for_update(skip_locked=True)
        take = (
            update(jobs)
            .where(jobs.c.id.in_(due.scalar_subquery()))
            .values(
                claimed_slot=case(
                    (jobs.c.claimed_slot.is_(None), jobs.c.next_run_at),
                    else_=jobs.c.claimed_slot,
                ),
                next_run_at=expiry,
            )
            .returning(*_JOB_COLUMNS)
        )

        def work(s: Session) -> builtins.list[Claim]:
            taken = [JobSnapshot(*row) for row in s.execute(take)]
            if not taken:
                return []
            runs = _open_runs(s, [j.id for j in taken])
            fresh = []
            for job in taken:
                assert job.claimed_slot is not None
                if (job.id, job.claimed_slot) not in runs:
                    kind = str((job.meta or {}).get("run_kind", "run"))
                    fresh.append(
                        {
                            "job_id": job.id,
                            "scheduled_for": job.claimed_slot,
                            "kind": kind,
                            "attempt": 1,
                            "nonce": run_nonce(job.id, job.claimed_slot, kind),
                            "claimed_at": now,
                            "lease_until": expiry,
                            "outcome": RunOutcome.PENDING,
                        }
                    )
            resumed = [r for r in runs.values()]
            if resumed:
                # claimed_at stays the first attempt's time: retries are bounded from it.
                s.execute(
                    update(JobRun.__table__)
                    .where(JobRun.__table__.c.id == bindparam("run_id"))
                    .values(attempt=bindparam("attempt"), lease_until=expiry),
                    [{"run_id": r.id, "attempt": r.attempt + 1} for r in resumed],
                )
                runs = {k: replace(r, attempt=r.attempt + 1) for k, r in runs.items()}
            if fresh:
                slots = {f["job_id"]: f["scheduled_for"] for f in fresh}
                inserted = s.execute(
                    insert(JobRun.__table__).returning(*_RUN_COLUMNS, JobRun.__table__.c.job_id),
                    fresh,
                )
                for row in inserted:
                    runs[(row[-1], slots[row[-1]])] = RunSnapshot(*row[:-1])
            return [
                Claim(job=job, run=runs[(job.id, job.claimed_slot)], slot=job.claimed_slot,
                      lease_until=expiry)
                for job in taken
                if job.claimed_slot is not None
            ]

        return await self.db.run(work)

    async def finish(self, outcomes: Sequence[Outcome]) -> dict[int, JobSnapshot | None]:
        """Record finished runs and advance their jobs, all in one transaction.

        A job is only advanced while still claimed for that slot; `advance` sees the
        job as it is now (an edit, pause or cancel made meanwhile wins).
        """
        jobs = Job.__table__
        runs = JobRun.__table__

        def work(s: Session) -> dict[int, JobSnapshot | None]:
            ids = [o.claim.job.id for o in outcomes]
            query = select(*_JOB_COLUMNS).where(jobs.c.id.in_(ids))
            if self.db.is_postgres:
                query = query.with_for_update()
            current = {row.id: JobSnapshot(*row) for row in s.execute(query)}
            run_updates: dict[tuple[str, ...], builtins.list[dict[str, Any]]] = {}
            job_updates: dict[tuple[str, ...], builtins.list[dict[str, Any]]] = {}
            result: dict[int, JobSnapshot | None] = {}
            for o in outcomes:
                values = {"lease_until": None, **o.run_values}
                run_updates.setdefault(tuple(sorted(values)), []).append(
                    {"run_id": o.claim.run.id, **values}
                )
                job = current.get(o.claim.job.id)
                result[o.claim.job.id] = job
                if job is None or job.claimed_slot != o.claim.slot:
                    continue
                changes = dict(o.advance(job) or {})
                if o.release:
                    changes["claimed_slot"] = None
                if changes:
                    job = replace(job, **changes)
                    current[job.id] = result[job.id] = job
                    job_updates.setdefault(tuple(sorted(changes)), []).append(
                        {"job_id": job.id, **changes}
                    )
            for keys, rows in run_updates.items():
                s.execute(
                    update(runs)
                    .where(runs.c.id == bindparam("run_id"))
                    .values({k: bindparam(k) for k in keys}),
                    rows,
                )
            for keys, rows in job_updates.items():
                s.execute(
                    update(jobs)
                    .where(jobs.c.id == bindparam("job_id"))
                    .values({k: bindparam(k) for k in keys}),
                    rows,
                )
            return result

        return await self.db.run(work)

    async def release_claims(self, now: datetime) -> int:
        """Make every in-flight claim due now (single-process start-up after a crash)."""
        # Find claims through ix_jobs_claimed_slot: filtering on status in the same query
        # makes SQLite walk the (status, next_run_at) index over every active job.
        claimed = select(Job.id).where(Job.claimed_slot.is_not(None)).scalar_subquery()

        def work(s: Session) -> int:
            rows = s.execute(select(Job.id, Job.status).where(Job.id.in_(claimed))).all()
            ids = [job_id for job_id, status in rows if status == JobStatus.ACTIVE]
            if ids:
                s.execute(
                    update(Job)
                    .where(Job.id.in_(ids))
                    .values(next_run_at=now)
                    .execution_options(synchronize_session=False)
                )
            return len(ids)

        return await self.db.run(work)

    async def mark_executed(self, nonce: str, now: datetime) -> JobRun | None:
        """Claim a delivered run for re-feeding; None if unknown or already executed."""
        stmt = (
            update(JobRun)
            .where(JobRun.nonce == nonce, JobRun.executed_at.is_(None))
            .values(executed_at=now)
            .returning(JobRun)
            .execution_options(synchronize_session=False)
        )
        return await self.db.run(lambda s: s.scalars(stmt).first())

    async def update_run(self, run_id: int, **values: Any) -> None:
        stmt = (
            update(JobRun)
            .where(JobRun.id == run_id)
            .values(**values)
            .execution_options(synchronize_session=False)
        )
        await self.db.run(lambda s: s.execute(stmt))


def _open_runs(s: Session, job_ids: builtins.list[int]) -> dict[tuple[int, datetime], RunSnapshot]:
    runs = JobRun.__table__
    q = select(*_RUN_COLUMNS, runs.c.job_id, runs.c.scheduled_for).where(
        runs.c.job_id.in_(job_ids), runs.c.outcome == RunOutcome.PENDING
    )
    return {(row.job_id, row.scheduled_for): RunSnapshot(*row[:-2]) for row in s.execute(q)}
