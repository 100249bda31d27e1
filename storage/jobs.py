"""Job and run queries, including the atomic claim of due jobs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import case, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from storage.db import Database
from storage.models import Job, JobRun, JobStatus, RunOutcome


def run_nonce(job_id: int, slot: datetime, kind: str = "run") -> str:
    """A stable nonce (<= 25 chars) for one job slot, so a re-sent marker is de-duplicated."""
    tag = "f" if kind == "follow_up" else "r"
    return f"{tag}{job_id:x}.{int(slot.timestamp() * 1000):x}"[:25]


@dataclass(frozen=True)
class Claim:
    """A due job this process now owns until `lease_until`, and the run it is delivering."""

    job: Job
    run: JobRun
    slot: datetime
    lease_until: datetime


class JobStore:
    """Persistence for jobs and job runs."""

    def __init__(self, db: Database) -> None:
        self.db = db

    # ------------------------------------------------------------ reads

    async def get(self, job_id: int) -> Job | None:
        async with self.db.session() as s:
            return await s.get(Job, job_id)

    async def find(
        self,
        *,
        owner_id: int | None = None,
        channel_id: int | None = None,
        guild_id: int | None = None,
        statuses: Sequence[str] | None = JobStatus.OPEN,
        limit: int = 100,
        offset: int = 0,
    ) -> list[Job]:
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
        async with self.db.session() as s:
            return list((await s.scalars(q)).all())

    async def count(self, *, owner_id: int, statuses: Sequence[str] = JobStatus.OPEN) -> int:
        q = select(func.count(Job.id)).where(Job.owner_id == owner_id, Job.status.in_(statuses))
        async with self.db.session() as s:
            return int((await s.scalar(q)) or 0)

    async def count_by_status(self) -> dict[str, int]:
        q = select(Job.status, func.count(Job.id)).group_by(Job.status)
        async with self.db.session() as s:
            return {str(k): int(v) for k, v in (await s.execute(q)).all()}

    async def runs(self, job_id: int, *, limit: int = 10) -> list[JobRun]:
        q = (
            select(JobRun)
            .where(JobRun.job_id == job_id)
            .order_by(JobRun.scheduled_for.desc(), JobRun.id.desc())
            .limit(limit)
        )
        async with self.db.session() as s:
            return list((await s.scalars(q)).all())

    async def run_by_nonce(self, nonce: str) -> JobRun | None:
        async with self.db.session() as s:
            return await s.scalar(select(JobRun).where(JobRun.nonce == nonce))

    async def earliest_due(self) -> datetime | None:
        """When the next active job (or an expired claim) comes due; an indexed MIN."""
        q = select(func.min(Job.next_run_at)).where(Job.status == JobStatus.ACTIVE)
        async with self.db.session() as s:
            return await s.scalar(q)

    # ------------------------------------------------------------ writes

    async def insert(self, job: Job) -> Job:
        async with self.db.sessions.begin() as s:
            s.add(job)
        return job

    async def update(self, job_id: int, **values: Any) -> Job | None:
        async with self.db.sessions.begin() as s:
            job = await s.get(Job, job_id, with_for_update=self.db.is_postgres)
            if job is None:
                return None
            for key, value in values.items():
                setattr(job, key, value)
        return job

    async def add_run(self, run: JobRun) -> JobRun:
        async with self.db.sessions.begin() as s:
            s.add(run)
        return run

    async def claim_due(self, now: datetime, *, limit: int, lease: timedelta) -> list[Claim]:
        """Atomically take up to `limit` due jobs, each with its (new or resumed) run row.

        While claimed, a job's `next_run_at` is the lease expiry: if this process
        dies, the job comes due again then and is resumed with the same run and
        nonce, so the transport can de-duplicate the re-delivery.
        """
        expiry = now + lease
        due = (
            select(Job.id)
            .where(Job.status == JobStatus.ACTIVE, Job.next_run_at <= now)
            .order_by(Job.next_run_at)
            .limit(limit)
        )
        if self.db.is_postgres:
            due = due.with_for_update(skip_locked=True)
        stmt = (
            update(Job)
            .where(Job.id.in_(due.scalar_subquery()))
            .values(
                claimed_slot=case(
                    (Job.claimed_slot.is_(None), Job.next_run_at), else_=Job.claimed_slot
                ),
                next_run_at=expiry,
            )
            .returning(Job)
            .execution_options(synchronize_session=False)
        )
        async with self.db.sessions.begin() as s:
            jobs = list((await s.scalars(stmt)).all())
            if not jobs:
                return []
            open_runs = await _pending_runs(s, [j.id for j in jobs])
            claims: list[Claim] = []
            for job in jobs:
                slot = job.claimed_slot
                assert slot is not None
                run = open_runs.get((job.id, slot))
                if run is None:
                    kind = str((job.meta or {}).get("run_kind", "run"))
                    run = JobRun(
                        job_id=job.id,
                        scheduled_for=slot,
                        kind=kind,
                        attempt=1,
                        nonce=run_nonce(job.id, slot, kind),
                        claimed_at=now,
                        lease_until=expiry,
                        outcome=RunOutcome.PENDING,
                    )
                    s.add(run)
                else:
                    # claimed_at stays the first attempt's time: retries are bounded from it.
                    run.attempt += 1
                    run.lease_until = expiry
                claims.append(Claim(job=job, run=run, slot=slot, lease_until=expiry))
        return claims

    async def finish(
        self,
        claim: Claim,
        *,
        run_values: dict[str, Any],
        job_values: dict[str, Any],
    ) -> Job | None:
        """Record a run's outcome and advance its job, in one transaction.

        The job is only advanced if it is still claimed for this slot (it may
        have been cancelled or edited meanwhile; then only the run is recorded).
        """
        async with self.db.sessions.begin() as s:
            await s.execute(
                update(JobRun)
                .where(JobRun.id == claim.run.id)
                .values(lease_until=None, **run_values)
                .execution_options(synchronize_session=False)
            )
            job = await s.get(Job, claim.job.id, with_for_update=self.db.is_postgres)
            if job is None:
                return None
            if job.claimed_slot != claim.slot:
                return job
            job.claimed_slot = None
            for key, value in job_values.items():
                setattr(job, key, value)
            return job

    async def release_claims(self, now: datetime) -> int:
        """Make every in-flight claim due now (single-process start-up after a crash)."""
        # Find claims through ix_jobs_claimed_slot: filtering on status in the same query
        # makes SQLite walk the (status, next_run_at) index over every active job.
        claimed = select(Job.id).where(Job.claimed_slot.is_not(None)).scalar_subquery()
        async with self.db.sessions.begin() as s:
            rows = (await s.execute(select(Job.id, Job.status).where(Job.id.in_(claimed)))).all()
            ids = [job_id for job_id, status in rows if status == JobStatus.ACTIVE]
            if not ids:
                return 0
            await s.execute(
                update(Job)
                .where(Job.id.in_(ids))
                .values(next_run_at=now)
                .execution_options(synchronize_session=False)
            )
        return len(ids)

    async def mark_executed(self, nonce: str, now: datetime) -> JobRun | None:
        """Claim a delivered run for re-feeding; None if unknown or already executed."""
        stmt = (
            update(JobRun)
            .where(JobRun.nonce == nonce, JobRun.executed_at.is_(None))
            .values(executed_at=now)
            .returning(JobRun)
            .execution_options(synchronize_session=False)
        )
        async with self.db.sessions.begin() as s:
            return (await s.scalars(stmt)).first()

    async def unexecuted_nonces(self, now: datetime, within: timedelta = timedelta(days=1)) -> list[str]:
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
        async with self.db.session() as s:
            return [str(n) for n in (await s.scalars(q)).all()]

    async def update_run(self, run_id: int, **values: Any) -> None:
        async with self.db.sessions.begin() as s:
            await s.execute(
                update(JobRun)
                .where(JobRun.id == run_id)
                .values(**values)
                .execution_options(synchronize_session=False)
            )


async def _pending_runs(s: AsyncSession, job_ids: list[int]) -> dict[tuple[int, datetime], JobRun]:
    q = select(JobRun).where(JobRun.job_id.in_(job_ids), JobRun.outcome == RunOutcome.PENDING)
    return {(r.job_id, r.scheduled_for): r for r in (await s.scalars(q)).all()}
