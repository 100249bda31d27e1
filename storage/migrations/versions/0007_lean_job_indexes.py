"""Lean job indexes: the claimed-slot and server indexes hold only the rows they find.

`ix_jobs_claimed_slot` only ever finds claimed jobs (`claimed_slot IS NOT NULL`: start-up
releases them) and `ix_jobs_guild_id` only jobs in a server (`guild_id = ?`); as partial
indexes a new job (never claimed) and a DM job (no server) cost no entry in them, one
b-tree page less to write per creation.

Revision ID: 0007
Revises: 0006
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"

_CLAIMED = sa.text("claimed_slot IS NOT NULL")
_IN_SERVER = sa.text("guild_id IS NOT NULL")


def upgrade() -> None:
    op.drop_index("ix_jobs_claimed_slot", table_name="jobs")
    op.create_index(
        "ix_jobs_claimed_slot",
        "jobs",
        ["claimed_slot"],
        sqlite_where=_CLAIMED,
        postgresql_where=_CLAIMED,
    )
    op.drop_index("ix_jobs_guild_id", table_name="jobs")
    op.create_index(
        "ix_jobs_guild_id",
        "jobs",
        ["guild_id"],
        sqlite_where=_IN_SERVER,
        postgresql_where=_IN_SERVER,
    )


def downgrade() -> None:
    op.drop_index("ix_jobs_guild_id", table_name="jobs")
    op.create_index("ix_jobs_guild_id", "jobs", ["guild_id"])
    op.drop_index("ix_jobs_claimed_slot", table_name="jobs")
    op.create_index("ix_jobs_claimed_slot", "jobs", ["claimed_slot"])
