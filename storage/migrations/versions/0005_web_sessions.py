"""Dashboard sign-ins: server-side web sessions and used one-time sign-in links.

Revision ID: 0005
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

from storage.models import UTCDateTime

revision = "0005"
down_revision = "0004"


def upgrade() -> None:
    op.create_table(
        "web_sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.BigInteger, nullable=False, index=True),
        sa.Column("user_name", sa.String(100), nullable=False),
        sa.Column("guild_ids", sa.JSON, nullable=False),
        sa.Column("csrf", sa.String(64), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("expires_at", UTCDateTime(), nullable=False, index=True),
    )
    op.create_table(
        "web_used_links",
        sa.Column("link_id", sa.String(64), primary_key=True),
        sa.Column("expires_at", UTCDateTime(), nullable=False, index=True),
    )


def downgrade() -> None:
    op.drop_table("web_used_links")
    op.drop_table("web_sessions")
