"""Forms (modals) of one text field, and how their submissions are read.

A form's submission is handled by one `on_interaction` listener (`bot.components.install`)
that matches its custom id against the table, rather than by the in-memory `Modal`, so a
form opened before a restart still works after it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import discord

FORM_TIMEOUT = 900  # seconds the client keeps an unsubmitted form object (never needed)


@dataclass(frozen=True)
class OneLineForm:
    """A form asking one thing: its title, field and hints."""

    title: str
    field: str  # the text input's custom id, read back by `typed`
    label: str
    placeholder: str
    max_length: int

    def modal(self, custom_id: str) -> discord.ui.Modal:
        form = discord.ui.Modal(title=self.title, custom_id=custom_id, timeout=FORM_TIMEOUT)
        form.add_item(
            discord.ui.TextInput(
                label=self.label,
                custom_id=self.field,
                placeholder=self.placeholder,
                max_length=self.max_length,
            )
        )
        return form

    def typed(self, data: Any) -> str:
        """What was typed into the field, from a submission's data (either layout)."""
        for row in (data or {}).get("components", []):
            for part in [row, *row.get("components", [])]:
                if part.get("custom_id") == self.field:
                    return str(part.get("value") or "")
            component = row.get("component")
            if isinstance(component, dict) and component.get("custom_id") == self.field:
                return str(component.get("value") or "")
        return ""
