"""English time phrases → instants and recurrences (deterministic, no network).

Public API: `parse_instant`, `parse_recurrence`, `parse_duration`, `split_when`, `When`,
`Recurrence` (the engine's `Schedule`), `explain_invalid_date`.
"""

from __future__ import annotations

from tools.schedule import Schedule as Recurrence

from .duration import parse_duration
from .instant import parse_instant
from .invalid import explain_invalid_date
from .recurrence import parse_recurrence
from .split import When, split_when

__all__ = [
    "Recurrence",
    "When",
    "explain_invalid_date",
    "parse_duration",
    "parse_instant",
    "parse_recurrence",
    "split_when",
]
