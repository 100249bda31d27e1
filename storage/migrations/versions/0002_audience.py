"""Audiences: who a job's delivery addresses; DM consents; per-server settings; templates.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

from storage.models import UTCDateTime

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

revision = "0002"
down_revision = "0001"


def upgrade() -> None:
    op.add_column("jobs", sa.Column("audience", sa.JSON))
    op.create_table(
        "dm_consents",
        sa.Column("user_id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("from_user_id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("allowed", sa.Boolean, nullable=False),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
    )
    op.create_table(
        "guild_settings",
        sa.Column("guild_id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("everyone_pings", sa.Boolean, nullable=False),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
    )

    op.create_table(
        "templates",
        sa.Column("id", BigId, primary_key=True, autoincrement=True),
        sa.Column("guild_id", sa.BigInteger, nullable=False),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("owner_id", sa.BigInteger, nullable=False),
        sa.Column("command", sa.Text, nullable=False),
        sa.Column("repeat", sa.String(200)),
        sa.Column("until", sa.String(200)),
        sa.Column("follow_up", sa.Boolean, nullable=False),
        sa.Column("audience", sa.JSON),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.UniqueConstraint("guild_id", "name", name="uq_templates_guild_name"),
    )


def downgrade() -> None:
    op.drop_table("templates")
    op.drop_table("guild_settings")
    op.drop_table("dm_consents")
    with op.batch_alter_table("jobs") as batch:
        batch.drop_column("audience")
