"""Where a fired run goes, the same on every surface (Discord, the console).

A heartbeat's beat is handled in-process and never posted as a marker; an escalation is a
direct message to the owner and never re-fed; every other run is the `[DELAYED_COMMAND]`
marker the surface posts and re-feeds. A surface's transport says how it escalates and
posts a marker; the choice between them is made here once.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

from bot.dispatcher import Delivered, Delivery
from storage.models import JobKind
from tools.jobs.model import ESCALATE_RUN

if TYPE_CHECKING:
    from bot.heartbeat import Heartbeat


class FiredRoutes(ABC):
    """A surface's transport: `deliver` picks the route; the surface implements two."""

    def __init__(self, heartbeat: Heartbeat) -> None:
        self.heartbeat = heartbeat  # beats are handled in-process

    async def deliver(self, delivery: Delivery) -> Delivered:
        if delivery.job.kind == JobKind.HEARTBEAT:
            return await self.heartbeat.beat(delivery)
        if delivery.run.kind == ESCALATE_RUN:
            return await self.escalate(delivery)
        return await self.post_marker(delivery)

    @abstractmethod
    async def escalate(self, delivery: Delivery) -> Delivered:
        """Tell the owner directly that a reminder went unanswered."""

    @abstractmethod
    async def post_marker(self, delivery: Delivery) -> Delivered:
        """Post the run's marker where it will be re-fed."""
