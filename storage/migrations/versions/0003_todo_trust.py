"""To-dos remember how often the heartbeat tried them and who let it work on them.

`attempts` bounds the heartbeat's retries of a to-do it cannot finish; `approved_by` is
the heartbeat owner who approved working on a to-do someone else added.

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"


def upgrade() -> None:
    with op.batch_alter_table("todos") as batch:
        batch.add_column(sa.Column("attempts", sa.Integer, nullable=False, server_default="0"))
        batch.add_column(sa.Column("approved_by", sa.BigInteger))


def downgrade() -> None:
    with op.batch_alter_table("todos") as batch:
        batch.drop_column("approved_by")
        batch.drop_column("attempts")
