"""A run's reply is part of its lifecycle: who is answering it (a lease), what it will
say, and when the answer reached its owner.

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

from storage.models import UTCDateTime

revision = "0004"
down_revision = "0003"


def upgrade() -> None:
    with op.batch_alter_table("job_runs") as batch:
        batch.add_column(sa.Column("reply_lease_until", UTCDateTime()))
        batch.add_column(sa.Column("reply", sa.JSON))
        batch.add_column(sa.Column("replied_at", UTCDateTime()))
        batch.drop_index("ix_job_runs_unexecuted")
        batch.create_index("ix_job_runs_unreplied", ["replied_at", "delivered_at"])
    # Runs re-fed before this revision were answered the old way: count them as answered.
    op.execute("UPDATE job_runs SET replied_at = executed_at WHERE executed_at IS NOT NULL")


def downgrade() -> None:
    with op.batch_alter_table("job_runs") as batch:
        batch.drop_index("ix_job_runs_unreplied")
        batch.create_index("ix_job_runs_unexecuted", ["executed_at", "delivered_at"])
        batch.drop_column("replied_at")
        batch.drop_column("reply")
        batch.drop_column("reply_lease_until")
