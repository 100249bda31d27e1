"""The database tables: jobs, their runs, conversations, approvals, settings, to-dos.

Rows are plain data (JSON for schedule specs), never pickles. Times are stored
as timezone-aware UTC.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from enum import StrEnum, nonmember
from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
    text,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# "YYYY-MM-DD HH:MM:SS.ffffff": how SQLAlchemy stores a datetime in SQLite.
_UTC_TEXT = "%04d-%02d-%02d %02d:%02d:%02d.%06d"


class UTCDateTime(TypeDecorator[datetime]):
    """Aware UTC datetimes in, aware UTC datetimes out, on SQLite and PostgreSQL alike."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime stored; times must be timezone-aware")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)

    # SQLite stores text; parse and format it directly (the generic path costs several
    # times more, which shows when claiming thousands of due jobs at once). The format
    # is exactly SQLAlchemy's own, so stored values compare and sort the same.
    def bind_processor(self, dialect: Dialect) -> Callable[[Any], Any] | None:
        if dialect.name != "sqlite":
            return super().bind_processor(dialect)

        def to_text(value: datetime | None) -> str | None:
            if value is None:
                return None
            if value.tzinfo is UTC:  # most are; formatted field by field (isoformat's
                # offset, cut off anyway, is a third of its time)
                return _UTC_TEXT % (
                    value.year,
                    value.month,
                    value.day,
                    value.hour,
                    value.minute,
                    value.second,
                    value.microsecond,
                )
            if value.tzinfo is None:
                raise ValueError("naive datetime stored; times must be timezone-aware")
            return value.astimezone(UTC).replace(tzinfo=None).isoformat(" ", "microseconds")

        return to_text

    def result_processor(self, dialect: Dialect, coltype: object) -> Callable[[Any], Any] | None:
        if dialect.name != "sqlite":
            return super().result_processor(dialect, coltype)

        def from_text(value: str | None) -> datetime | None:
            return None if value is None else datetime.fromisoformat(value).replace(tzinfo=UTC)

        return from_text


# SQLite only autoincrements INTEGER PRIMARY KEY; PostgreSQL wants BIGINT identities.
BigId = BigInteger().with_variant(Integer(), "sqlite")


class Base(DeclarativeBase):
    type_annotation_map: ClassVar[dict[Any, Any]] = {
        datetime: UTCDateTime(),
        dict[str, Any]: JSON(),
    }


class JobStatus(StrEnum):
    """A job's state; the values are the strings stored in `jobs.status`."""

    ACTIVE = "active"
    PAUSED = "paused"
    PENDING_APPROVAL = "pending_approval"
    COMPLETED = "completed"
    CANCELLED = "cancelled"
    FAILED = "failed"
    # Still to run (or to be approved): what lists, quotas and duplicate checks count.
    OPEN = nonmember((ACTIVE, PAUSED, PENDING_APPROVAL))


class JobKind(StrEnum):
    """What a job is; the values are the strings stored in `jobs.kind`."""

    DELAYED = "delayed"
    SCHEDULED = "scheduled"
    REMINDER = "reminder"
    RECURRING = "recurring"
    INTERVAL = "interval"
    CALLBACK = "callback"
    HEARTBEAT = "heartbeat"
    ALL = nonmember((DELAYED, SCHEDULED, REMINDER, RECURRING, INTERVAL, CALLBACK, HEARTBEAT))


class RunOutcome(StrEnum):
    """How a run ended; the values are the strings stored in `job_runs.outcome`."""

    PENDING = "pending"
    DELIVERED = "delivered"
    FAILED = "failed"
    SKIPPED = "skipped"
    EXECUTED = "executed"


class JobRow(Base):
    """A job as the `jobs` table holds it; code outside `storage/` reads the frozen
    `storage.jobs.Job` instead."""

    __tablename__ = "jobs"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    owner_id: Mapped[int] = mapped_column(BigInteger, index=True)
    guild_id: Mapped[int | None] = mapped_column(BigInteger)
    channel_id: Mapped[int] = mapped_column(BigInteger, index=True)
    parent_channel_id: Mapped[int | None] = mapped_column(BigInteger)
    command: Mapped[str] = mapped_column(Text)
    kind: Mapped[str] = mapped_column(String(16))
    schedule: Mapped[dict[str, Any]]
    tz: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(20))
    fail_reason: Mapped[str | None] = mapped_column(Text)
    created_by: Mapped[str] = mapped_column(String(8))
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    next_run_at: Mapped[datetime | None]
    # The slot a run is in flight for; while set, next_run_at is that claim's lease expiry.
    claimed_slot: Mapped[datetime | None]
    run_count: Mapped[int] = mapped_column(Integer, default=0)
    failure_streak: Mapped[int] = mapped_column(Integer, default=0)
    until: Mapped[datetime | None]
    max_runs: Mapped[int | None] = mapped_column(Integer)
    follow_up: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    meta: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    # Who the delivered message is addressed to and may ping (None: its owner, in its thread).
    audience: Mapped[dict[str, Any] | None] = mapped_column(JSON)

    __table_args__ = (
        Index("ix_jobs_status_next_run_at", "status", "next_run_at"),
        # Partial: only claimed jobs (start-up releases them) and jobs in a server (a
        # server's list) are ever looked up here, so a new job, never claimed, and a DM
        # job cost no entry (one b-tree page less written per creation).
        Index(
            "ix_jobs_claimed_slot",
            "claimed_slot",
            sqlite_where=text("claimed_slot IS NOT NULL"),
            postgresql_where=text("claimed_slot IS NOT NULL"),
        ),
        Index(
            "ix_jobs_guild_id",
            "guild_id",
            sqlite_where=text("guild_id IS NOT NULL"),
            postgresql_where=text("guild_id IS NOT NULL"),
        ),
    )


class JobRunRow(Base):
    """One run of a job as the `job_runs` table holds it (read as `storage.jobs.Run`)."""

    __tablename__ = "job_runs"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    job_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("jobs.id", ondelete="CASCADE"), index=True
    )
    scheduled_for: Mapped[datetime]
    kind: Mapped[str] = mapped_column(String(16), default="run")
    attempt: Mapped[int] = mapped_column(Integer, default=1)
    nonce: Mapped[str] = mapped_column(String(25), unique=True)
    claimed_at: Mapped[datetime | None]
    lease_until: Mapped[datetime | None]
    delivered_at: Mapped[datetime | None]
    # When the run was first taken for re-feeding (the agent started on it).
    executed_at: Mapped[datetime | None]
    # The process answering the run holds it until then; a crashed one is taken over after.
    reply_lease_until: Mapped[datetime | None]
    # The answer, kept before it is posted: a restart posts it (same nonce), never re-runs it.
    reply: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    # The run is done: its answer reached the owner, or its failure was recorded.
    replied_at: Mapped[datetime | None]
    message_id: Mapped[int | None] = mapped_column(BigInteger)
    outcome: Mapped[str] = mapped_column(String(16), default=RunOutcome.PENDING)
    lateness_ms: Mapped[int | None] = mapped_column(Integer)
    error: Mapped[str | None] = mapped_column(Text)
    details: Mapped[dict[str, Any] | None] = mapped_column(JSON)

    __table_args__ = (
        UniqueConstraint("job_id", "scheduled_for", name="uq_job_runs_slot"),
        # Finds delivered runs never answered (the echo was lost, or a crash mid-answer).
        Index("ix_job_runs_unreplied", "replied_at", "delivered_at"),
    )


class Conversation(Base):
    """One thread's message history in pydantic-ai's JSON format."""

    __tablename__ = "conversations"

    channel_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    messages: Mapped[str] = mapped_column(Text, default="[]")
    updated_at: Mapped[datetime]


class UserSettings(Base):
    __tablename__ = "user_settings"

    user_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    tz: Mapped[str | None] = mapped_column(String(64))
    usage_day: Mapped[str | None] = mapped_column(String(10))
    usage_requests: Mapped[int] = mapped_column(Integer, default=0)


class ApprovalRow(Base):
    """A job the agent proposed, waiting for its requester's Approve or Deny (read as
    `storage.approvals.Approval`)."""

    __tablename__ = "approvals"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    channel_id: Mapped[int] = mapped_column(BigInteger, index=True)
    user_id: Mapped[int] = mapped_column(BigInteger)
    message_id: Mapped[int | None] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(16), default="pending")
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime]
    expires_at: Mapped[datetime] = mapped_column(index=True)
    decided_at: Mapped[datetime | None]


class Todo(Base):
    __tablename__ = "todos"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    channel_id: Mapped[int] = mapped_column(BigInteger, index=True)
    description: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), default="pending")
    created_by: Mapped[int | None] = mapped_column(BigInteger)
    created_at: Mapped[datetime]
    completed_at: Mapped[datetime | None]
    # How many heartbeat runs worked on it (bounded), and the heartbeat owner who approved
    # working on it when someone else added it.
    attempts: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    approved_by: Mapped[int | None] = mapped_column(BigInteger)


class DmConsent(Base):
    """Whether `user_id` lets `from_user_id` (0: anyone sharing a server) remind them by DM."""

    __tablename__ = "dm_consents"

    user_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    from_user_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    allowed: Mapped[bool] = mapped_column(Boolean)
    updated_at: Mapped[datetime]


class GuildSettings(Base):
    """What a server's admins allow Homar to do there."""

    __tablename__ = "guild_settings"

    guild_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    # Reminders may ping @everyone/@here (still only for members with Mention Everyone).
    everyone_pings: Mapped[bool] = mapped_column(Boolean, default=False)
    updated_at: Mapped[datetime]


class Template(Base):
    """A reminder saved under a name in one server, to make again with `/remind template:`."""

    __tablename__ = "templates"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    name: Mapped[str] = mapped_column(String(100))
    owner_id: Mapped[int] = mapped_column(BigInteger)
    command: Mapped[str] = mapped_column(Text)
    repeat: Mapped[str | None] = mapped_column(String(200))
    until: Mapped[str | None] = mapped_column(String(200))
    follow_up: Mapped[bool] = mapped_column(Boolean, default=False)
    audience: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    created_at: Mapped[datetime]

    __table_args__ = (UniqueConstraint("guild_id", "name", name="uq_templates_guild_name"),)


class WebSession(Base):
    """A dashboard sign-in. The browser's cookie holds a random token; only its SHA-256 is
    stored, so a leaked table signs nobody in. Deleting a user's rows signs them out
    everywhere."""

    __tablename__ = "web_sessions"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(BigInteger, index=True)
    user_name: Mapped[str] = mapped_column(String(100), default="")
    # The guilds Discord said the person is in at sign-in (never from the browser);
    # permissions in them are re-checked with the bot on every request.
    guild_ids: Mapped[dict[str, Any]] = mapped_column(JSON)
    csrf: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime]
    expires_at: Mapped[datetime] = mapped_column(index=True)


class WebUsedLink(Base):
    """One-time sign-in links already used (kept until they would have expired anyway).

    In the database, not in memory, so a link used on one process is refused by the others.
    """

    __tablename__ = "web_used_links"

    link_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    expires_at: Mapped[datetime] = mapped_column(index=True)


class WebRateHit(Base):
    """Dashboard sign-ins and writes counted per key (an address, a user) and per minute.

    In the database, so the limits hold however many processes serve the dashboard.
    """

    __tablename__ = "web_rate_hits"

    key: Mapped[str] = mapped_column(String(100), primary_key=True)
    window: Mapped[int] = mapped_column(BigInteger, primary_key=True, index=True)
    hits: Mapped[int] = mapped_column(Integer)
