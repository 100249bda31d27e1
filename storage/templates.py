"""Named reminders per server (`/remind template:`, "Save as template")."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from storage.db import Database
from storage.models import Template

MAX_PER_GUILD = 200


@dataclass(frozen=True)
class SavedTemplate:
    name: str
    owner_id: int
    command: str
    repeat: str | None
    until: str | None
    follow_up: bool
    audience: dict[str, Any] | None


class TemplateExists(Exception):
    """A template of that name is already saved in the server."""


class TooManyTemplates(Exception):
    """The server has `MAX_PER_GUILD` templates already."""


class TemplateStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def save(self, guild_id: int, template: SavedTemplate, now: datetime) -> None:
        def work(s: Session) -> None:
            count = len(s.scalars(select(Template.id).where(Template.guild_id == guild_id)).all())
            if count >= MAX_PER_GUILD:
                raise TooManyTemplates
            if s.scalar(
                select(Template.id).where(
                    Template.guild_id == guild_id, Template.name == template.name
                )
            ):
                raise TemplateExists
            s.add(
                Template(
                    guild_id=guild_id,
                    name=template.name,
                    owner_id=template.owner_id,
                    command=template.command,
                    repeat=template.repeat,
                    until=template.until,
                    follow_up=template.follow_up,
                    audience=template.audience,
                    created_at=now,
                )
            )

        try:
            await self.db.run(work)
        except IntegrityError:  # saved by someone else at the same moment
            raise TemplateExists from None

    async def get(self, guild_id: int, name: str) -> SavedTemplate | None:
        def work(s: Session) -> SavedTemplate | None:
            row = s.scalar(
                select(Template).where(Template.guild_id == guild_id, Template.name == name)
            )
            return _saved(row) if row is not None else None

        return await self.db.run(work)

    async def names(self, guild_id: int, starting: str = "", limit: int = 25) -> list[str]:
        """Names for autocomplete, those starting with what was typed first."""

        def work(s: Session) -> list[str]:
            rows = s.scalars(
                select(Template.name).where(Template.guild_id == guild_id).order_by(Template.name)
            ).all()
            typed = starting.strip().casefold()
            first = [n for n in rows if n.casefold().startswith(typed)]
            then = [n for n in rows if typed in n.casefold() and n not in first]
            return (first + then)[:limit]

        return await self.db.run(work)


def _saved(row: Template) -> SavedTemplate:
    return SavedTemplate(
        name=row.name,
        owner_id=row.owner_id,
        command=row.command,
        repeat=row.repeat,
        until=row.until,
        follow_up=row.follow_up,
        audience=row.audience,
    )
