"""Job and run queries, including the atomic claim of due jobs.

Every method is one transaction and one await (`Database.run`), so the hot paths
(create, claim, record) stay fast on SQLite's single writer.
"""

from __future__ import annotations

import builtins
import functools
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any, TypeVar, cast

from sqlalchemy import (
    ColumnElement,
    Select,
    Table,
    bindparam,
    case,
    column,
    func,
    insert,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from storage.db import Database
from storage.models import JobRow, JobRunRow, JobStatus, RunOutcome
from storage.prepared import Prepared

T = TypeVar("T")


def run_nonce(job_id: int, slot: datetime, kind: str = "run") -> str:
    """A stable nonce (<= 25 chars) for one job slot, so a re-sent marker is de-duplicated."""
    tag = "f" if kind == "follow_up" else "r"
    return f"{tag}{job_id:x}.{int(slot.timestamp() * 1000):x}"[:25]


@dataclass(frozen=True, slots=True)
class Job:
    """A job as storage hands it out: plain values (cheap to build in bulk), never a live
    row. Change a job through `JobStore`'s writes, never by editing one of these."""

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
    audience: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class JobHealth:
    """What an operator's status report says about jobs and their recent runs."""

    pending: int  # active jobs
    due: int  # active and due now
    late: int  # active and due for longer than the lateness threshold
    failed: int
    paused: int
    failed_runs: int  # runs failed within the window
    late_runs: int  # runs fired later than the lateness threshold within the window


@dataclass(frozen=True, slots=True)
class Run:
    """One run of a job (one slot's delivery and its answer) as storage hands it out."""

    id: int
    job_id: int
    scheduled_for: datetime
    kind: str
    attempt: int
    nonce: str
    claimed_at: datetime | None
    lease_until: datetime | None
    delivered_at: datetime | None
    executed_at: datetime | None  # first taken for re-feeding
    reply_lease_until: datetime | None  # the answering process holds it until then
    reply: dict[str, Any] | None  # the answer, kept before it is posted
    replied_at: datetime | None  # done: answered, or its failure recorded
    message_id: int | None
    outcome: str
    lateness_ms: int | None
    error: str | None
    details: dict[str, Any] | None


# What kind of run (`job_runs.kind`, which names its nonce) a job claimed for a new slot
# starts. The lifecycle above knows what a job is waiting for (a follow-up, an escalation);
# storage only asks it, with the plain values it just claimed.
RunKindOf = Callable[[Job], str]


def regular_run(job: Job) -> str:
    """Every new run is a regular one (what a store used without the lifecycle starts)."""
    return "run"


@dataclass(frozen=True)
class Claim:
    """A due job this process now owns until `lease_until`, and the run it is delivering."""

    job: Job
    run: Run
    slot: datetime
    lease_until: datetime


_jobs = cast(Table, JobRow.__table__)
_runs = cast(Table, JobRunRow.__table__)
_JOB_COLUMNS = [_jobs.c[f] for f in Job.__slots__]
_RUN_COLUMNS = [_runs.c[f] for f in Run.__slots__]

_OPEN = or_(*(_jobs.c.status == status for status in JobStatus.OPEN))
_INSERTABLE = [c.key for c in _jobs.c if c.key != "id"]

# A new job's row: columns left out are NULL, its counters 0.
_INSERT_JOB = Prepared(
    insert(_jobs).values(
        {
            k: bindparam(k, value=0 if k in ("run_count", "failure_streak") else None)
            for k in _INSERTABLE
        }
    )
)
_OPEN_KEYS = Prepared(
    select(_jobs.c.id, _jobs.c.command, _jobs.c.schedule, _jobs.c.tz).where(
        _jobs.c.owner_id == bindparam("owner"), _OPEN
    ),
    result=[_jobs.c.id, _jobs.c.command, _jobs.c.schedule, _jobs.c.tz],
)
# The same, the schedule as stored (JSON text on SQLite): what a creation's check compares.
_OPEN_KEYS_STORED = Prepared(_OPEN_KEYS.statement)
_CLAIM = Prepared(
    update(_jobs)
    .where(
        _jobs.c.id.in_(
            select(_jobs.c.id)
            .where(_jobs.c.status == JobStatus.ACTIVE, _jobs.c.next_run_at <= bindparam("due_by"))
            .order_by(_jobs.c.next_run_at)
            .limit(bindparam("limit"))
            .scalar_subquery()
        )
    )
    .values(
        claimed_slot=case(
            (_jobs.c.claimed_slot.is_(None), _jobs.c.next_run_at), else_=_jobs.c.claimed_slot
        ),
        next_run_at=bindparam("expiry"),
    )
    .returning(*_JOB_COLUMNS),
    result=_JOB_COLUMNS,
)
# The pending runs of the jobs one claim just took (their next_run_at is its lease expiry).
_CLAIMED_RUNS = Prepared(
    select(*_RUN_COLUMNS)
    .select_from(_runs.join(_jobs, _jobs.c.id == _runs.c.job_id))
    .where(
        _jobs.c.status == JobStatus.ACTIVE,
        _jobs.c.next_run_at == bindparam("expiry"),
        _runs.c.scheduled_for == _jobs.c.claimed_slot,
        _runs.c.outcome == RunOutcome.PENDING,
    ),
    result=_RUN_COLUMNS,
)
_INSERT_RUN = Prepared(
    insert(_runs).values(
        {
            k: bindparam(k)
            for k in (
                "job_id",
                "scheduled_for",
                "kind",
                "attempt",
                "nonce",
                "claimed_at",
                "lease_until",
                "outcome",
            )
        }
    )
)
_RESUME_RUN = Prepared(
    update(_runs)
    .where(_runs.c.id == bindparam("run_id"))
    .values(attempt=bindparam("attempt"), lease_until=bindparam("expiry"))
)
_EARLIEST_DUE = Prepared(
    select(func.min(_jobs.c.next_run_at)).where(_jobs.c.status == JobStatus.ACTIVE),
    result=[_jobs.c.next_run_at],
)
# SQLite has no array parameters: the ids come as one JSON list, unpacked by json_each.
_JOBS_BY_IDS = Prepared(
    select(*_JOB_COLUMNS).where(
        _jobs.c.id.in_(select(column("value")).select_from(func.json_each(bindparam("ids"))))
    ),
    result=_JOB_COLUMNS,
)
# The re-feed path, one round trip each (every fired run takes, keeps and finishes its
# answer): whole rows, handed out as `Run` / `Job` values.
_CLAIM_REPLY = Prepared(
    update(_runs)
    .where(
        _runs.c.nonce == bindparam("taken_nonce"),
        _runs.c.replied_at.is_(None),
        or_(_runs.c.reply_lease_until.is_(None), _runs.c.reply_lease_until <= bindparam("now")),
    )
    .values(
        executed_at=func.coalesce(
            _runs.c.executed_at, bindparam("executed", type_=_runs.c.executed_at.type)
        ),
        reply_lease_until=bindparam("until"),
    )
    .returning(*_RUN_COLUMNS),
    result=_RUN_COLUMNS,
)
_JOB_BY_ID = Prepared(
    select(*_JOB_COLUMNS).where(_jobs.c.id == bindparam("job_id")), result=_JOB_COLUMNS
)
_KEEP_REPLY = Prepared(
    update(_runs)
    .where(
        _runs.c.id == bindparam("run_id"),
        _runs.c.replied_at.is_(None),
        _runs.c.reply_lease_until == bindparam("held"),
    )
    .values(reply=bindparam("kept_reply"))
)
_REPLIED = Prepared(
    update(_runs)
    .where(_runs.c.id == bindparam("run_id"), _runs.c.replied_at.is_(None))
    .values(
        replied_at=bindparam("now"),
        reply_lease_until=None,
        # A failure is recorded; without one, whatever the run noted before stays.
        error=func.coalesce(bindparam("failure", type_=_runs.c.error.type), _runs.c.error),
    )
)
_RUN_UPDATES: dict[tuple[str, ...], Prepared] = {}
_JOB_UPDATES: dict[tuple[str, ...], Prepared] = {}


def _update_by_id(
    table: Table, key: str, columns: tuple[str, ...], cache: dict[tuple[str, ...], Prepared]
) -> Prepared:
    found = cache.get(columns)
    if found is None:
        found = cache[columns] = Prepared(
            update(table)
            .where(table.c.id == bindparam(key))
            .values({c: bindparam(c) for c in columns})
        )
    return found


@dataclass(frozen=True)
class Finished:
    """One finished run to record, and what it changes on its job.

    `changes` were worked out from `seen` (the job as the caller last read it) and are
    written only if the job still holds `seen`'s guarded values; otherwise nothing of
    this run is written and `finish` hands back the job as it is now, to decide afresh.
    None leaves the job alone (it was closed, or claimed for another slot).
    """

    claim: Claim
    run_values: dict[str, Any]
    seen: Job | None  # None: the job is gone
    changes: dict[str, Any] | None


@dataclass(frozen=True)
class RunNote:
    """An answer to record on a delivered run (Done, Snooze, an acknowledging message):
    `details[key] = record` on run `run_id`, or on the job's latest delivered run."""

    run_id: int | None
    key: str
    record: dict[str, Any]


class Changed(Exception):
    """The rows a write was planned on changed meanwhile: decide afresh. A refused creation
    carries its owners' open jobs as they are now (`open_keys`)."""

    def __init__(self, message: str, open_keys: dict[int, builtins.list[JobKey]]) -> None:
        super().__init__(message)
        self.open_keys = open_keys


@dataclass(frozen=True)
class JobKey:
    """What duplicate and quota checks compare for one open job."""

    id: int
    command: str
    schedule: dict[str, Any]
    tz: str


# What a compare-and-set change compares: any claim, run or other change moves one of them.
GUARDED = ("status", "claimed_slot", "next_run_at", "run_count", "updated_at")
_GUARD = [_jobs.c.id == bindparam("job_id")] + [
    _jobs.c[key].is_not_distinct_from(bindparam(f"seen_{key}")) for key in GUARDED
]
_ADVANCES: dict[tuple[str, ...], Prepared] = {}


def _advance_statement(columns: tuple[str, ...]) -> Prepared:
    """UPDATE one job's `columns` if it still holds the values it was planned on."""
    found = _ADVANCES.get(columns)
    if found is None:
        found = _ADVANCES[columns] = Prepared(
            update(_jobs)
            .where(*_GUARD)
            .values({c: bindparam(c) for c in columns})
            .returning(_jobs.c.id),
            result=[_jobs.c.id],
        )
    return found


def _open_keys(s: Session | Connection, owner_id: int) -> builtins.list[JobKey]:
    return [JobKey(*row) for row in _OPEN_KEYS.rows(s, {"owner": owner_id})]


@functools.lru_cache(maxsize=8192)
def _stored_schedule(stored: str) -> Any:
    """A stored schedule's JSON, decoded once: the limit check of every creation compares
    each open job of its owner again. Only ever compared, never handed out (shared)."""
    return json.loads(stored)


def _same_open(rows: Sequence[tuple[Any, ...]], keys: Sequence[JobKey]) -> bool:
    """Whether the open jobs read (`rows`: id, command, schedule as stored, zone) are
    exactly `keys` (the same jobs, with the same text, schedule and zone)."""
    if len(rows) != len(keys):
        return False
    by_id = {k.id: k for k in keys}
    for job_id, command, schedule, tz in rows:
        key = by_id.get(job_id)
        if key is None or key.command != command or key.tz != tz:
            return False
        if (_stored_schedule(schedule) if isinstance(schedule, str) else schedule) != key.schedule:
            return False
    return True


# One creation at a time per owner on PostgreSQL: its transactions read committed rows, so
# two creations could each check the owner's open jobs before the other's is stored and
# both pass the limits. A transaction-scoped advisory lock per owner (in Homar's own key
# space) makes the second wait until the first commits, then read its job. SQLite needs
# none: a write transaction takes the database's one write lock when it begins.
_LOCK_OWNERS = text(
    "SELECT pg_advisory_xact_lock(hashtextextended('homar.jobs.owner.' || o, 0)) "
    "FROM (SELECT o FROM unnest(CAST(:owners AS bigint[])) AS o ORDER BY o) AS owners"
)


def _expect_open(s: Session | Connection, expected: Mapping[int, Sequence[JobKey]]) -> None:
    """Refuse (`Changed`) if an owner's open jobs are not those the caller checked (the
    same jobs, with the same text, schedule and zone), serialising creations per owner."""
    if not expected:
        return
    conn = s.connection() if isinstance(s, Session) else s
    if conn.dialect.name == "postgresql":
        conn.execute(_LOCK_OWNERS, {"owners": sorted(expected)})
    changed = [
        owner
        for owner, keys in expected.items()
        if not _same_open(_OPEN_KEYS_STORED.rows(conn, {"owner": owner}), keys)
    ]
    if changed:
        now = {owner: _open_keys(conn, owner) for owner in expected}
        raise Changed(f"the open jobs of owners {changed} changed", now)


class _Vouched:
    """Each owner's open jobs as this store's own creations last checked and stored them,
    valid only while nothing else has written to the database since (SQLite): a creation
    whose expected open jobs are exactly these can skip reading them again.

    "Nothing else" is checked inside the creation's write transaction, where no other
    writer can slip in: no other connection committed (`PRAGMA data_version` unchanged)
    and this connection changed no row besides the creations vouched for (its
    `total_changes` as left by the last one). Anything else (a cancel, a claim, a run
    finishing, another process, a rolled-back write) forgets every owner at once.
    """

    def __init__(self, owners: int = 4096) -> None:
        self.owners = owners
        self.keys: dict[int, builtins.list[JobKey]] = {}
        self._mark: tuple[Any, int, int] | None = None  # connection, data_version, changes
        self._version = 0  # the data_version read by `check`

    def check(self, raw: Any) -> None:
        """At the start of a creation's transaction: forget everything unless the
        database is exactly as the last vouched creation left it."""
        self._version = int(raw.execute("PRAGMA data_version").fetchone()[0])
        if self._mark != (raw, self._version, raw.total_changes):
            self.keys.clear()

    def vouch(self, raw: Any, owner: int, keys: builtins.list[JobKey]) -> None:
        """After the `check`ed creation's insert: the owner's open jobs are `keys`, and the
        database is as this creation leaves it (its own commit does not move
        `data_version`, which counts other connections' commits)."""
        if len(self.keys) >= self.owners and owner not in self.keys:
            self.keys.clear()
        self.keys[owner] = keys
        self._mark = (raw, self._version, raw.total_changes)

    def forget(self) -> None:
        self.keys.clear()
        self._mark = None


class JobStore:
    """Persistence for jobs and job runs."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._vouched = _Vouched()

    # ------------------------------------------------------------ reads

    async def get(self, job_id: int) -> Job | None:
        return await self.db.run_core(lambda conn: _job_by_id(conn, job_id))

    async def find(
        self,
        *,
        owner_id: int | None = None,
        channel_id: int | None = None,
        guild_id: int | None = None,
        tz: str | None = None,
        statuses: Sequence[str] | None = JobStatus.OPEN,
        limit: int = 100,
        offset: int = 0,
    ) -> builtins.list[Job]:
        q = select(*_JOB_COLUMNS)
        if tz is not None:
            q = q.where(JobRow.tz == tz)
        if owner_id is not None:
            q = q.where(JobRow.owner_id == owner_id)
        if channel_id is not None:
            q = q.where(JobRow.channel_id == channel_id)
        if guild_id is not None:
            q = q.where(JobRow.guild_id == guild_id)
        if statuses is not None:
            q = q.where(JobRow.status.in_(list(statuses)))
        q = (
            q.order_by(JobRow.next_run_at.is_(None), JobRow.next_run_at, JobRow.id)
            .limit(limit)
            .offset(offset)
        )
        return await self.db.run(lambda s: [Job(*row) for row in s.execute(q)])

    async def count(self, *, owner_id: int, statuses: Sequence[str] = JobStatus.OPEN) -> int:
        q = select(func.count(JobRow.id)).where(
            JobRow.owner_id == owner_id, JobRow.status.in_(statuses)
        )
        return await self.db.run(lambda s: int(s.scalar(q) or 0))

    async def count_by_status(self) -> dict[str, int]:
        q = select(JobRow.status, func.count(JobRow.id)).group_by(JobRow.status)
        return await self.db.run(lambda s: {str(k): int(v) for k, v in s.execute(q).all()})

    async def count_due(self, now: datetime) -> int:
        """How many active jobs are due by `now` (claimed ones count until their lease ends)."""
        q = select(func.count(JobRow.id)).where(
            JobRow.status == JobStatus.ACTIVE, JobRow.next_run_at <= now
        )
        return await self.db.run(lambda s: int(s.scalar(q) or 0))

    async def health(
        self,
        now: datetime,
        *,
        late_after: timedelta = timedelta(minutes=1),
        window: timedelta = timedelta(days=1),
    ) -> JobHealth:
        """Job counts by state, and the runs of the last `window` that failed or were late."""
        active = JobRow.status == JobStatus.ACTIVE
        since = JobRunRow.scheduled_for >= now - window

        def jobs(*where: ColumnElement[bool]) -> Select[int]:
            return select(func.count(JobRow.id)).where(*where)

        def runs(*where: ColumnElement[bool]) -> Select[int]:
            return select(func.count(JobRunRow.id)).where(*where)

        queries = (
            jobs(active),
            jobs(active, JobRow.next_run_at <= now),
            jobs(active, JobRow.next_run_at <= now - late_after),
            jobs(JobRow.status == JobStatus.FAILED),
            jobs(JobRow.status == JobStatus.PAUSED),
            runs(JobRunRow.outcome == RunOutcome.FAILED, since),
            runs(JobRunRow.lateness_ms > int(late_after.total_seconds() * 1000), since),
        )
        counts = await self.db.run(lambda s: [int(s.scalar(q) or 0) for q in queries])
        return JobHealth(*counts)

    async def newest_id(self) -> int:
        """The highest job id ever given (0 for none): jobs above it are newer."""
        return await self.db.run(lambda s: int(s.scalar(select(func.max(JobRow.id))) or 0))

    async def runs(self, job_id: int, *, limit: int = 10) -> builtins.list[Run]:
        """The job's latest runs, newest first."""
        q = (
            select(*_RUN_COLUMNS)
            .where(JobRunRow.job_id == job_id)
            .order_by(JobRunRow.scheduled_for.desc(), JobRunRow.id.desc())
            .limit(limit)
        )
        return await self.db.run(lambda s: [Run(*row) for row in s.execute(q)])

    async def run_by_nonce(self, nonce: str) -> Run | None:
        q = select(*_RUN_COLUMNS).where(JobRunRow.nonce == nonce)
        return await self.db.run(lambda s: _first(Run, s.execute(q)))

    async def earliest_due(self) -> datetime | None:
        """When the next active job (or an expired claim) comes due; an indexed MIN."""
        q = select(func.min(JobRow.next_run_at)).where(JobRow.status == JobStatus.ACTIVE)
        return await self.db.run(lambda s: s.scalar(q))

    async def unreplied_nonces(
        self,
        now: datetime,
        within: timedelta = timedelta(days=1),
        settled: timedelta = timedelta(0),
    ) -> builtins.list[str]:
        """Nonces of runs delivered (between `within` and `settled` ago) and never answered,
        that nobody is answering now (never taken, or their taker's lease ran out)."""
        q = (
            select(JobRunRow.nonce)
            .where(
                JobRunRow.replied_at.is_(None),
                JobRunRow.delivered_at >= now - within,
                JobRunRow.delivered_at <= now - settled,
                or_(JobRunRow.reply_lease_until.is_(None), JobRunRow.reply_lease_until <= now),
            )
            .order_by(JobRunRow.delivered_at)
        )
        return await self.db.run(lambda s: [str(n) for n in s.scalars(q).all()])

    # ------------------------------------------------------------ writes

    async def open_keys(self, owner_ids: Iterable[int]) -> dict[int, builtins.list[JobKey]]:
        """Each owner's open jobs, as quota and duplicate checks compare them."""
        owners = builtins.list(dict.fromkeys(owner_ids))
        return await self.db.run_core(lambda conn: {o: _open_keys(conn, o) for o in owners})

    async def create(
        self, values: dict[str, Any], *, expect_open: Mapping[int, Sequence[JobKey]] | None = None
    ) -> int:
        """Store a new job from column values and return its id.

        `expect_open`: the open jobs of its owner the caller checked its limits against; if
        they changed meanwhile, nothing is stored and `Changed` is raised.
        """
        return (await self.create_keyed(values, expect_open=expect_open)).id

    async def create_keyed(
        self, values: dict[str, Any], *, expect_open: Mapping[int, Sequence[JobKey]] | None = None
    ) -> JobKey:
        """`create`, returning the new job's key (its id, text, schedule and zone): with
        `expect_open` for its one owner, the owner's open jobs are then those keys and
        this one, which a next creation may pass as its `expect_open` (on SQLite, if
        nothing else wrote meanwhile, that creation need not read them again)."""
        vouched = self._vouched if expect_open is not None and len(expect_open) == 1 else None

        def work(conn: Connection) -> JobKey:
            raw = conn.connection.driver_connection if conn.dialect.name == "sqlite" else None
            if vouched is not None and raw is not None:
                vouched.check(raw)
                [(owner, keys)] = expect_open.items()  # type: ignore[union-attr]
                if vouched.keys.get(owner) != keys:
                    _expect_open(conn, expect_open)  # type: ignore[arg-type]
            elif expect_open is not None:
                _expect_open(conn, expect_open)
            job_id = _INSERT_JOB.insert(conn, values)
            new = JobKey(job_id, values["command"], values["schedule"], values["tz"])
            if vouched is not None and raw is not None:
                vouched.vouch(raw, owner, [*keys, new])
            return new

        try:
            return await self.db.run_prepared(work)
        except BaseException:
            self._vouched.forget()  # in doubt (rolled back, or not)
            raise

    async def create_many(
        self,
        rows: builtins.list[dict[str, Any]],
        *,
        expect_open: Mapping[int, Sequence[JobKey]] | None = None,
    ) -> int:
        """Store many new jobs (column values, as `create` takes them) in one transaction;
        `expect_open` as for `create`, per owner."""

        def work(conn: Connection) -> int:
            if expect_open is not None:
                _expect_open(conn, expect_open)
            _INSERT_JOB.many(conn, rows)
            return len(rows)

        return await self.db.run_prepared(work)

    async def update(self, job_id: int, **values: Any) -> Job | None:
        """Set a job's columns; the job as it is after (None if there is no such job)."""
        if not values:
            return await self.get(job_id)
        stmt = (
            update(JobRow)
            .where(JobRow.id == job_id)
            .values(**values)
            .returning(*_JOB_COLUMNS)
            .execution_options(synchronize_session=False)
        )
        return await self.db.run(lambda s: _first(Job, s.execute(stmt)))

    async def claim_due(
        self,
        now: datetime,
        *,
        limit: int,
        lease: timedelta,
        ahead: timedelta = timedelta(0),
        run_kind: RunKindOf = regular_run,
    ) -> builtins.list[Claim]:
        """Atomically take up to `limit` jobs due by `now + ahead`, each with its run row.

        While claimed, a job's `next_run_at` is the lease expiry: if this process
        dies, the job comes due again then and is resumed with the same run and
        nonce, so the transport can de-duplicate the re-delivery. A job claimed for a new
        slot gets a new run of the kind `run_kind` names for it.
        """
        claims, _ = await self.claim_due_next(
            now, limit=limit, lease=lease, ahead=ahead, run_kind=run_kind
        )
        return claims

    async def claim_due_next(
        self,
        now: datetime,
        *,
        limit: int,
        lease: timedelta,
        ahead: timedelta = timedelta(0),
        run_kind: RunKindOf = regular_run,
    ) -> tuple[builtins.list[Claim], datetime | None]:
        """`claim_due`, and then when the next active job comes due (`earliest_due`, the
        claims' lease expiries included), in the same transaction: a dispatcher's one
        round trip per wake-up."""
        expiry = now + lease
        if self.db.is_postgres:

            def locked(s: Session) -> tuple[builtins.list[Claim], datetime | None]:
                claims = self._claim_locked(s, now, now + ahead, expiry, limit, run_kind)
                return claims, s.scalar(_EARLIEST_DUE.statement)

            return await self.db.run(locked)

        def work(conn: Connection) -> tuple[builtins.list[Claim], datetime | None]:
            values = {"due_by": now + ahead, "limit": limit, "expiry": expiry}
            taken = [Job(*row) for row in _CLAIM.rows(conn, values)]
            claims = _with_runs(conn, taken, now, expiry, run_kind)
            return claims, _EARLIEST_DUE.rows(conn)[0][0]

        return await self.db.run_prepared(work)

    def _claim_locked(
        self,
        s: Session,
        now: datetime,
        due_by: datetime,
        expiry: datetime,
        limit: int,
        run_kind: RunKindOf,
    ) -> builtins.list[Claim]:
        # PostgreSQL: lock the due rows, skipping those another process is claiming.
        due = (
            select(_jobs.c.id)
            .where(_jobs.c.status == JobStatus.ACTIVE, _jobs.c.next_run_at <= due_by)
            .order_by(_jobs.c.next_run_at)
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
        ids = list(s.scalars(due))
        if not ids:
            return []
        rows = s.execute(
            update(_jobs)
            .where(_jobs.c.id.in_(ids))
            .values(
                claimed_slot=case(
                    (_jobs.c.claimed_slot.is_(None), _jobs.c.next_run_at),
                    else_=_jobs.c.claimed_slot,
                ),
                next_run_at=expiry,
            )
            .returning(*_JOB_COLUMNS)
        )
        return _with_runs(s, [Job(*row) for row in rows], now, expiry, run_kind)

    async def finish(
        self, finished: Sequence[Finished]
    ) -> tuple[dict[int, Job | None], builtins.list[Finished]]:
        """Record finished runs and apply their jobs' changes, all in one transaction.

        Returns the jobs as they are after it, and the runs left unrecorded because their
        job changed since `seen` (for those, the returned job is as it is now: plan again
        from it and call `finish` again with just those).
        """

        def work(s: Connection) -> tuple[dict[int, Job | None], builtins.list[Finished]]:
            run_updates: dict[tuple[str, ...], builtins.list[dict[str, Any]]] = {}
            result: dict[int, Job | None] = {}
            stale: builtins.list[Finished] = []
            for f in finished:
                job = f.seen
                if f.changes and job is not None:
                    columns = tuple(sorted(f.changes))
                    guard = {f"seen_{key}": getattr(job, key) for key in GUARDED}
                    params = {"job_id": job.id, **guard, **f.changes}
                    if not _advance_statement(columns).rows(s, params):
                        stale.append(f)
                        continue
                    job = replace(job, **f.changes)
                result[f.claim.job.id] = job
                values = {"lease_until": None, **f.run_values}
                run_updates.setdefault(tuple(sorted(values)), []).append(
                    {"run_id": f.claim.run.id, **values}
                )
            if stale:
                ids = [f.claim.job.id for f in stale]
                if self.db.is_postgres:
                    query = select(*_JOB_COLUMNS).where(_jobs.c.id.in_(ids))
                    rows: Sequence[Any] = list(s.execute(query))
                else:
                    rows = _JOBS_BY_IDS.rows(s, {"ids": json.dumps(ids)})
                now = {row[0]: Job(*row) for row in rows}
                for job_id in ids:
                    result[job_id] = now.get(job_id)
            for keys, params_list in run_updates.items():
                _update_by_id(_runs, "run_id", keys, _RUN_UPDATES).many(s, params_list)
            return result, stale

        return await self.db.run_prepared(work)

    async def release_claims(self, now: datetime) -> int:
        """Make every in-flight claim due now (single-process start-up after a crash)."""
        # Find claims through ix_jobs_claimed_slot: filtering on status in the same query
        # makes SQLite walk the (status, next_run_at) index over every active job.
        claimed = select(JobRow.id).where(JobRow.claimed_slot.is_not(None)).scalar_subquery()

        def work(s: Session) -> int:
            rows = s.execute(select(JobRow.id, JobRow.status).where(JobRow.id.in_(claimed))).all()
            ids = [job_id for job_id, status in rows if status == JobStatus.ACTIVE]
            if ids:
                s.execute(
                    update(JobRow)
                    .where(JobRow.id.in_(ids))
                    .values(next_run_at=now)
                    .execution_options(synchronize_session=False)
                )
            return len(ids)

        return await self.db.run(work)

    async def hand_back(self, job_ids: Sequence[int]) -> int:
        """Give up claims this process took but never started delivering (a graceful stop).

        Each job is due again at its claimed slot rather than at its lease's expiry, so
        another process (or the next start) fires it at once, with the same run and nonce.
        """
        if not job_ids:
            return 0
        ids = list(job_ids)

        def work(s: Session) -> int:
            result = s.execute(
                update(JobRow)
                .where(
                    JobRow.id.in_(ids),
                    JobRow.claimed_slot.is_not(None),
                    JobRow.status == JobStatus.ACTIVE,
                )
                .values(next_run_at=JobRow.claimed_slot)
                .execution_options(synchronize_session=False)
            )
            s.execute(
                update(JobRunRow)
                .where(
                    JobRunRow.job_id.in_(ids),
                    JobRunRow.outcome == RunOutcome.PENDING,
                    JobRunRow.delivered_at.is_(None),
                )
                .values(lease_until=None)
                .execution_options(synchronize_session=False)
            )
            return int(getattr(result, "rowcount", 0) or 0)

        return await self.db.run(work)

    async def mark_executed(self, nonce: str, now: datetime) -> Run | None:
        """Take a run that is answered on the spot (a beat, an escalation DM): taken and done.

        None if the nonce is unknown or the run was already taken.
        """
        stmt = (
            update(JobRunRow)
            .where(JobRunRow.nonce == nonce, JobRunRow.executed_at.is_(None))
            .values(executed_at=now, replied_at=now)
            .returning(*_RUN_COLUMNS)
            .execution_options(synchronize_session=False)
        )
        return await self.db.run(lambda s: _first(Run, s.execute(stmt)))

    async def claim_reply(self, nonce: str, now: datetime, lease: timedelta) -> Run | None:
        """Take a delivered run to answer it; one taker at a time (compare-and-set).

        A run is free while unanswered and not held, or when its taker's lease has run
        out (that process died). None if the nonce is unknown, the run is answered, or
        someone else holds it. The returned run's `reply_lease_until` is the taker's token.
        """
        return await self.db.run_core(lambda conn: _claim_reply(conn, nonce, now, lease))

    async def take_reply(
        self, nonce: str, now: datetime, lease: timedelta
    ) -> tuple[Run, Job | None] | None:
        """`claim_reply`, and the run's job (None if deleted), in one transaction."""

        def work(conn: Connection) -> tuple[Run, Job | None] | None:
            run = _claim_reply(conn, nonce, now, lease)
            if run is None:
                return None
            return run, _job_by_id(conn, run.job_id)

        return await self.db.run_core(work)

    async def keep_reply(self, run_id: int, held_until: datetime, reply: dict[str, Any]) -> bool:
        """Store a run's answer before posting it, if this taker still holds the run.

        False when the lease was lost to another taker (this answer must not be posted).
        """
        values = {"run_id": run_id, "held": held_until, "kept_reply": reply}
        return await self.db.run_core(lambda conn: _KEEP_REPLY.count(conn, values) == 1)

    async def replied(self, run_id: int, now: datetime, *, failure: str | None = None) -> bool:
        """The run is done: its answer was posted (or `failure` says why it could not be).

        False if it was already recorded as done (another taker finished first).
        """
        error = failure[:2000] if failure is not None else None
        values = {"run_id": run_id, "now": now, "failure": error}
        return await self.db.run_core(lambda conn: _REPLIED.count(conn, values) == 1)

    async def release_reply_leases(self) -> int:
        """Free every held, unanswered run (single-process start-up after a crash)."""
        stmt = (
            update(JobRunRow)
            .where(JobRunRow.replied_at.is_(None), JobRunRow.reply_lease_until.is_not(None))
            .values(reply_lease_until=None)
            .execution_options(synchronize_session=False)
        )
        return await self.db.run(lambda s: _rows_changed(s.execute(stmt)))

    async def update_if(
        self,
        job_id: int,
        expected: dict[str, Any],
        values: dict[str, Any],
        *,
        note: RunNote | None = None,
    ) -> Job | None:
        """Change a job only if it still holds the `expected` values (compare-and-set).

        None when it changed meanwhile (a claim, a run recorded, another person's edit):
        the caller reads it again and decides afresh. This is what serializes concurrent
        changes across processes, not a lock in memory. `note` is recorded on the run it
        answers in the same transaction, if the change is made.
        """
        conditions = [JobRow.id == job_id]
        for key, value in expected.items():
            col = getattr(JobRow, key)
            conditions.append(col.is_(None) if value is None else col == value)
        stmt = (
            update(JobRow)
            .where(*conditions)
            .values(**values)
            .returning(*_JOB_COLUMNS)
            .execution_options(synchronize_session=False)
        )

        def work(s: Session) -> Job | None:
            job = _first(Job, s.execute(stmt))
            if job is not None and note is not None:
                _note_on_run(s, job_id, note)
            return job

        return await self.db.run(work)

    async def note_on_run(self, job_id: int, note: RunNote) -> None:
        """Record an answer on the run it answers, changing nothing on the job."""
        await self.db.run(lambda s: _note_on_run(s, job_id, note))

    async def update_run(self, run_id: int, **values: Any) -> None:
        stmt = (
            update(JobRunRow)
            .where(JobRunRow.id == run_id)
            .values(**values)
            .execution_options(synchronize_session=False)
        )
        await self.db.run(lambda s: s.execute(stmt))


def _note_on_run(s: Session, job_id: int, note: RunNote) -> None:
    run: JobRunRow | None = None
    if note.run_id is not None:
        run = s.get(JobRunRow, note.run_id)
        if run is not None and run.job_id != job_id:
            run = None
    if run is None:
        run = s.scalar(
            select(JobRunRow)
            .where(JobRunRow.job_id == job_id, JobRunRow.delivered_at.is_not(None))
            .order_by(JobRunRow.delivered_at.desc())
            .limit(1)
        )
    if run is not None:
        # A new dict: JSON columns only notice re-assignment.
        run.details = {**(run.details or {}), note.key: note.record}


def _rows_changed(result: object) -> int:
    """How many rows an UPDATE changed (its result's `rowcount`)."""
    return int(getattr(result, "rowcount", 0))


def _with_runs(
    s: Session | Connection,
    taken: builtins.list[Job],
    now: datetime,
    expiry: datetime,
    run_kind: RunKindOf,
) -> builtins.list[Claim]:
    """Pair each just-claimed job with its run: resume a pending one, or start a new one."""
    if not taken:
        return []
    pending = {run.job_id: run for run in _claimed_runs(s, expiry)}
    fresh = []
    for job in taken:
        if job.id not in pending:
            assert job.claimed_slot is not None
            kind = run_kind(job)
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
    if pending:
        # claimed_at stays the first attempt's time: retries are bounded from it.
        _RESUME_RUN.many(
            s,
            [
                {"run_id": r.id, "attempt": r.attempt + 1, "expiry": expiry}
                for r in pending.values()
            ],
        )
    if fresh:
        _INSERT_RUN.many(s, fresh)
    runs = {run.job_id: run for run in _claimed_runs(s, expiry)}
    return [
        Claim(job=job, run=runs[job.id], slot=job.claimed_slot, lease_until=expiry)
        for job in taken
        if job.claimed_slot is not None and job.id in runs
    ]


def _claimed_runs(s: Session | Connection, expiry: datetime) -> builtins.list[Run]:
    return [Run(*row) for row in _CLAIMED_RUNS.rows(s, {"expiry": expiry})]


def _claim_reply(conn: Connection, nonce: str, now: datetime, lease: timedelta) -> Run | None:
    values = {"taken_nonce": nonce, "now": now, "executed": now, "until": now + lease}
    rows = _CLAIM_REPLY.rows(conn, values)
    return Run(*rows[0]) if rows else None


def _job_by_id(conn: Session | Connection, job_id: int) -> Job | None:
    rows = _JOB_BY_ID.rows(conn, {"job_id": job_id})
    return Job(*rows[0]) if rows else None


def _first(make: Callable[..., T], rows: Iterable[Sequence[Any]]) -> T | None:
    """The first of `rows` as a `make` value (None for none)."""
    for row in rows:
        return make(*row)
    return None
