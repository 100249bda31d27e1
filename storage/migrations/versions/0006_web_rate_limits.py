"""Dashboard rate limits shared by every process: hits per key and window.

Revision ID: 0006
Revises: 0005
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"


def upgrade() -> None:
    op.create_table(
        "web_rate_hits",
        sa.Column("key", sa.String(100), primary_key=True),
        sa.Column("window", sa.BigInteger, primary_key=True, index=True),
        sa.Column("hits", sa.Integer, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("web_rate_hits")
