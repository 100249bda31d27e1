"""The custom ids of every button and form: one table, one row per component.

A custom id carries everything a click needs (job, run, choice…), so a button keeps
working after a restart with no view state in memory. These strings are stored on
messages already posted in Discord: a row's text may never change, only rows be added.

Each row is written once, as a format (`homar:done:{job}:{run}`); the pattern a
`DynamicItem` matches is derived from it (a field is digits unless the row says otherwise).
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping
from dataclasses import dataclass, field

_DIGITS = r"\d+"


@dataclass(frozen=True)
class CustomId:
    """One row of the table: the format, and the pattern of any field that isn't digits."""

    form: str
    fields: Mapping[str, str] = field(default_factory=dict)

    def __call__(self, **values: object) -> str:
        return self.form.format(**values)

    @property
    def pattern(self) -> str:
        """The regular expression `DynamicItem` matches, with a named group per field."""
        parts: list[str] = []
        for literal, name, _spec, _conv in string.Formatter().parse(self.form):
            parts.append(re.escape(literal))
            if name is not None:
                parts.append(f"(?P<{name}>{self.fields.get(name, _DIGITS)})")
        return "".join(parts)

    def match(self, custom_id: str) -> re.Match[str] | None:
        return re.fullmatch(self.pattern, custom_id)


# Job confirmations and `/jobs list`.
CANCEL = CustomId("homar:cancel:{job_id}")
JOBS_PAGE = CustomId("homar:jobs:page:{scope}:{page}", {"scope": "mine|thread|server"})
# A delivered reminder: Done, Snooze (fixed choices or a form), Notify me too.
DONE = CustomId("homar:done:{job}:{run}")
SNOOZE = CustomId("homar:snooze:{job}:{run}:{choice}", {"choice": "10m|1h|tomorrow|custom"})
SNOOZE_FORM = CustomId("homar:snoozeat:{job}:{run}")
JOIN = CustomId("homar:{how}:{job}", {"how": "join|leave"})
# An agent's proposal waiting for its requester.
DECIDE = CustomId("homar:{verdict}:{id}", {"verdict": "approve|deny", "id": "[0-9]+"})
# "Save as template" on a /remind confirmation, and its form.
SAVE_TEMPLATE = CustomId("homar:tplsave:{job}")
TEMPLATE_FORM = CustomId("homar:tplname:{job}")
# `/timezone set`: move the jobs in the old zone too.
FOLLOW_ZONE = CustomId("homar:tzfollow:{user}:{old}:{new}", {"old": "[^:]+", "new": "[^:]+"})
