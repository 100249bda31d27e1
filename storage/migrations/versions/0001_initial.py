"""Initial schema: jobs, job runs, conversations, user settings, approvals, to-dos.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

from storage.models import UTCDateTime

revision = "0001"
down_revision = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "jobs",
        sa.Column("id", BigId, primary_key=True, autoincrement=True),
        sa.Column("owner_id", sa.BigInteger, nullable=False, index=True),
        sa.Column("guild_id", sa.BigInteger, index=True),
        sa.Column("channel_id", sa.BigInteger, nullable=False, index=True),
        sa.Column("parent_channel_id", sa.BigInteger),
        sa.Column("command", sa.Text, nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("schedule", sa.JSON, nullable=False),
        sa.Column("tz", sa.String(64), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("fail_reason", sa.Text),
        sa.Column("created_by", sa.String(8), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
        sa.Column("next_run_at", UTCDateTime()),
        sa.Column("claimed_slot", UTCDateTime()),
        sa.Column("run_count", sa.Integer, nullable=False, server_default="0"),
        sa.Column("failure_streak", sa.Integer, nullable=False, server_default="0"),
        sa.Column("until", UTCDateTime()),
        sa.Column("max_runs", sa.Integer),
        sa.Column("follow_up", sa.JSON),
        sa.Column("meta", sa.JSON),
    )
    op.create_index("ix_jobs_status_next_run_at", "jobs", ["status", "next_run_at"])
    op.create_index("ix_jobs_claimed_slot", "jobs", ["claimed_slot"])
    op.create_table(
        "job_runs",
        sa.Column("id", BigId, primary_key=True, autoincrement=True),
        sa.Column(
            "job_id",
            sa.BigInteger,
            sa.ForeignKey("jobs.id", ondelete="CASCADE"),
            nullable=False,
            index=True,
        ),
        sa.Column("scheduled_for", UTCDateTime(), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("attempt", sa.Integer, nullable=False),
        sa.Column("nonce", sa.String(25), nullable=False, unique=True),
        sa.Column("claimed_at", UTCDateTime()),
        sa.Column("lease_until", UTCDateTime()),
        sa.Column("delivered_at", UTCDateTime()),
        sa.Column("executed_at", UTCDateTime()),
        sa.Column("message_id", sa.BigInteger),
        sa.Column("outcome", sa.String(16), nullable=False),
        sa.Column("lateness_ms", sa.Integer),
        sa.Column("error", sa.Text),
        sa.Column("details", sa.JSON),
        sa.UniqueConstraint("job_id", "scheduled_for", name="uq_job_runs_slot"),
    )
    op.create_index("ix_job_runs_unexecuted", "job_runs", ["executed_at", "delivered_at"])
    op.create_table(
        "conversations",
        sa.Column("channel_id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("messages", sa.Text, nullable=False),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
    )
    op.create_table(
        "user_settings",
        sa.Column("user_id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("tz", sa.String(64)),
        sa.Column("usage_day", sa.String(10)),
        sa.Column("usage_requests", sa.Integer, nullable=False, server_default="0"),
    )
    op.create_table(
        "approvals",
        sa.Column("id", BigId, primary_key=True, autoincrement=True),
        sa.Column("channel_id", sa.BigInteger, nullable=False, index=True),
        sa.Column("user_id", sa.BigInteger, nullable=False),
        sa.Column("message_id", sa.BigInteger),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("payload", sa.JSON, nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("expires_at", UTCDateTime(), nullable=False, index=True),
        sa.Column("decided_at", UTCDateTime()),
    )
    op.create_table(
        "todos",
        sa.Column("id", BigId, primary_key=True, autoincrement=True),
        sa.Column("channel_id", sa.BigInteger, nullable=False, index=True),
        sa.Column("description", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_by", sa.BigInteger),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("completed_at", UTCDateTime()),
    )


def downgrade() -> None:
    for table in ("todos", "approvals", "user_settings", "conversations", "job_runs", "jobs"):
        op.drop_table(table)
